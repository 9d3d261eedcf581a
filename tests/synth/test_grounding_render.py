"""Labels from a real Chromium: exact boxes on a hand-built page of known geometry, every rejection rule, and
pages that fail to render (skipped with their seed, never labelled)."""

from __future__ import annotations

import json
import os
import signal

import pytest

from venuskit.envs.browser import png_size
from venuskit.synth.grounding.compose import compose_page, page_seed, runtime_js
from venuskit.synth.grounding.generator import generate
from venuskit.synth.grounding.render import Renderer
from venuskit.synth.grounding.spec import GroundingConfig, PageSpec, RenderError, Resolution
from venuskit.synth.grounding.vocab import icon_set

pytestmark = pytest.mark.browser

BODY = """
<style>body{margin:0;font:16px 'DejaVu Sans'} .a{position:absolute;margin:0;padding:0;border:0;background:#38f}</style>
<button class="a" data-gt="ok" style="left:100.25px;top:50.5px;width:80.5px;height:30px">OK</button>
<button class="a" data-gt="hidden" style="left:10px;top:200px;width:50px;height:20px;visibility:hidden">H</button>
<button class="a" data-gt="faded" style="left:70px;top:200px;width:50px;height:20px;opacity:0">F</button>
<button class="a" data-gt="covered" style="left:130px;top:200px;width:50px;height:20px">C</button>
<div class="a" style="left:120px;top:190px;width:80px;height:40px;background:#f00;z-index:5"></div>
<button class="a" data-gt="edge" style="left:250px;top:200px;width:60px;height:20px">E</button>
<div class="a" style="left:300px;top:195px;width:30px;height:30px;background:#0a0;z-index:5"></div>
<div class="a" style="left:10px;top:300px;width:60px;height:20px;overflow:hidden;background:#eee">
  <span data-gt="clipped" style="display:inline-block;width:100px">clipped text</span></div>
<button class="a" data-gt="offscreen" style="left:790px;top:10px;width:40px;height:20px">O</button>
<button class="a" data-gt="tiny" style="left:400px;top:10px;width:1px;height:1px"></button>
<p data-gt-ranges='[["word", 4, 9], ["wrapped", 10, 30]]'
   style="position:absolute;left:20px;top:400px;width:120px;margin:0">The quick brown fox jumps over the lazy dog</p>
<div class="a" data-gt="track" data-gt-value="0.25" data-gt-inset="8"
     style="left:400px;top:100px;width:216px;height:18px;background:#ddd"></div>
<canvas id="cv" style="position:absolute;left:500px;top:300px;width:200px;height:100px"></canvas>
<script>
(() => {  // no top-level const: set_content keeps the window, and a second page would redeclare it
  const cv = document.getElementById("cv");
  cv.width = 200 * devicePixelRatio; cv.height = 100 * devicePixelRatio;
  const g = cv.getContext("2d");
  window.__gt.canvas(cv, {bar: [20, 30, 40, 70]}, (opts) => {
    g.setTransform(devicePixelRatio, 0, 0, devicePixelRatio, 0, 0); g.clearRect(0, 0, 200, 100);
    if (opts.hide === "bar") return;
    g.fillStyle = opts.key === "bar" ? "rgb(255,0,255)" : "#06c";
    g.fillRect(20, 30, 40, 70);
  });
})();
</script>
"""


def fixture_page(body: str = BODY, resolution: Resolution = Resolution(800, 600, 2.0), seed: int = 1) -> PageSpec:
    head = f'<meta charset="utf-8"><script>{runtime_js()}</script>'
    html = f"<!doctype html><html><head>{head}</head><body>{body}</body></html>"
    return PageSpec(
        seed=seed,
        html=html,
        resolution=resolution,
        platform="web",
        application="fixture",
        group="Web",
        language="en",
        theme="fixture",
        mobile=False,
        targets={},
    )


@pytest.fixture(scope="module")
def renderer():
    with Renderer(timeout_s=10) as r:
        yield r


def test_boxes_are_css_times_dsf_rounded_outward_plus_the_pad(renderer):
    out = renderer.render(fixture_page())
    assert out.size == (1600, 1200) == png_size(out.png)
    # 100.25..180.75 x 50.5..80.5 CSS at dsf 2 → 200.5..361.5 x 101..161 → outward 200..362 x 101..161, pad 1
    assert out.labels["ok"].box == (199, 100, 363, 162)
    assert out.labels["ok"].kind == "box"
    # canvas item: canvas origin (500, 300) + (20, 30), 40 x 70, all whole pixels at dsf 2 → exact, pad 1
    assert out.labels["bar"].box == (1039, 659, 1121, 801) and out.labels["bar"].kind == "canvas"


def test_every_rejection_rule(renderer):
    out = renderer.render(fixture_page())
    assert set(out.labels) == {"ok", "bar", "word", "track"}
    assert out.rejected == {"hidden": 2, "occluded": 2, "clipped": 2, "small": 1, "wrapped": 1}


def test_text_ranges_and_slider_points(renderer):
    out = renderer.render(fixture_page())
    word = out.labels["word"]
    assert word.kind == "range"
    x1, y1, x2, y2 = word.box
    assert 2 * 20 < x1 < x2 < 2 * 140 and 2 * 400 - 1 <= y1 < y2 <= 2 * 430  # "quick", on the paragraph's first line
    track = out.labels["track"]
    assert track.kind == "point"
    # value 0.25 on a 216 px track with an 8 px inset: 400 + 8 + 0.25 * 200 = 458 CSS → 916 px; y centre 109 → 218
    assert track.point == (916.0, 218.0)
    assert track.box[0] < 916 < track.box[2] and track.box[1] <= 200 and track.box[3] >= 236


def test_composed_pages_give_labels_for_their_own_targets(renderer):
    config = GroundingConfig(resolutions=("1280x800@1",))
    icons = icon_set(config.icon_dir)
    for i in range(3):
        spec = compose_page(page_seed(21, i), config, icons)
        out = renderer.render(spec)
        assert out.labels, "a composed page with no labels"
        assert set(out.labels) <= set(spec.targets)
        for label in out.labels.values():
            x1, y1, x2, y2 = label.box
            assert 0 <= x1 < x2 <= 1280 and 0 <= y1 < y2 <= 800
            assert x2 - x1 >= 4 and y2 - y1 >= 4


def test_a_crashed_browser_fails_that_page_only(renderer):
    renderer.render(fixture_page())
    os.kill(renderer.browser_pid, signal.SIGKILL)
    with pytest.raises(RenderError, match="Page seed 77 failed to render"):
        renderer.render(fixture_page(seed=77))
    assert renderer.render(fixture_page(seed=78)).labels["ok"].box == (199, 100, 363, 162)


def test_the_generator_skips_a_failed_page_and_logs_its_seed(tmp_path, caplog):
    class Flaky(Renderer):
        def render(self, spec):
            if spec.seed == page_seed(5, 1):
                raise RenderError(f"Page seed {spec.seed} failed to render: simulated")
            return super().render(spec)

    with Flaky(timeout_s=10) as flaky:
        report = generate(GroundingConfig(n=60, seed=5, resolutions=("1280x800@1",)), tmp_path, renderer=flaky)
    assert report.samples == 60
    manifest = json.loads((tmp_path / "manifest.json").read_text())
    assert manifest["skipped"] == [
        {"seed": page_seed(5, 1), "error": f"Page seed {page_seed(5, 1)} failed to render: simulated"}
    ]
    assert f"Skipped page seed {page_seed(5, 1)}" in caplog.text
    written = {r["page_seed"] for f in (tmp_path / "annotations").glob("*.json") for r in json.loads(f.read_text())}
    assert page_seed(5, 1) not in written


def test_a_hung_page_is_killed_and_the_next_page_renders():
    hang = "<p>x</p><script>window.addEventListener('load', () => setTimeout(() => { for (;;) {} }, 0));</script>"
    with Renderer(timeout_s=1.5) as r:
        with pytest.raises(RenderError, match="Page seed 5 failed to render"):
            r.render(fixture_page(hang, seed=5))
        assert r.render(fixture_page(seed=6)).labels["ok"].box == (199, 100, 363, 162)
