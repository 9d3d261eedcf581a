"""Labels checked against pixels: pages are rebuilt from the seeds in the written data, rendered again, and every
written box is confirmed from screenshots (hide the target: the changed pixels lie in the box; paint it magenta:
the magenta fills the box), at device scale factors 2 and 3 (and 1). A wrong box must fail the same check."""

from __future__ import annotations

import dataclasses
import json
from collections import defaultdict

import pytest

from venuskit.synth.grounding.compose import compose_page
from venuskit.synth.grounding.generator import generate
from venuskit.synth.grounding.pixelcheck import check_page
from venuskit.synth.grounding.render import Renderer
from venuskit.synth.grounding.spec import GroundingConfig
from venuskit.synth.grounding.vocab import icon_set

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# Families chosen so that every label kind is checked: DOM boxes, text ranges, canvas items and slider points.
FAMILIES = (
    "text",
    "canvas_chart",
    "slider",
    "button",
    "icon_button",
    "table",
    "checkbox",
    "svg_chart",
    "window",
    "nav_bar",
    "tree",
    "datepicker",
)


@pytest.fixture(scope="module")
def renderer():
    with Renderer(timeout_s=20) as r:
        yield r


def _written(out) -> dict[int, list[dict]]:
    by_page = defaultdict(list)
    for path in (out / "annotations").glob("*.json"):
        for rec in json.loads(path.read_text()):
            if rec["bbox"] != [-1, -1, -1, -1]:
                by_page[rec["page_seed"]].append(rec)
    return by_page


@pytest.mark.parametrize("resolution", ["1920x1080@2", "1280x720@3", "1366x768@1"])
def test_written_boxes_contain_their_targets_in_the_pixels(resolution, renderer, tmp_path):
    config = GroundingConfig(
        n=30,
        seed=31,
        resolutions=(resolution,),
        families=FAMILIES,
        max_per_page=10,
        platforms=("web", "windows", "macos", "linux"),
        refusal_share=0.0,
    )
    generate(config, tmp_path, "screenspot-pro", renderer=renderer)
    icons = icon_set(config.icon_dir)
    kinds, checked = set(), 0
    for seed, records in _written(tmp_path).items():
        spec = compose_page(seed, config, icons)
        rendered = renderer.render(spec)
        by_box = {label.box: label for label in rendered.labels.values()}
        labels = {}
        for rec in records:  # the written box must be a label of the re-rendered page
            label = by_box.get(tuple(rec["bbox"]))
            assert label is not None, (
                f"page {seed}: written box {rec['bbox']} ({rec['instruction']}) is not re-rendered"
            )
            labels[label.tid] = label
        for kind in ("range", "point", "canvas"):  # one of each kind the page has, written or not
            labels.update(
                dict([next(((t, lb) for t, lb in rendered.labels.items() if lb.kind == kind), (None, None))])
            )
        labels.pop(None, None)
        results = check_page(renderer, spec, labels)
        bad = [(spec.targets[r.tid].element_type, r.reason) for r in results if not r.ok]
        assert not bad, f"page {seed} at {resolution}: {bad}"
        kinds |= {label.kind for label in labels.values()}
        checked += len(results)
    assert checked >= 30
    if resolution != "1366x768@1":
        assert {"box", "range", "point"} <= kinds, kinds


def test_the_check_catches_wrong_boxes(renderer):
    config = GroundingConfig(
        resolutions=("1280x720@2",), families=("button", "icon_button", "toggle"), platforms=("web",)
    )
    spec = compose_page(424242, config, icon_set(config.icon_dir))
    labels = dict(list(renderer.render(spec).labels.items())[:4])
    assert all(r.ok for r in check_page(renderer, spec, labels))

    def shifted(label, f):
        return dataclasses.replace(label, box=f(label.box))

    wrong = {
        "dsf forgotten": lambda b: tuple(v // 2 for v in b),
        "dsf applied twice": lambda b: tuple(v * 2 for v in b),
        "three pixels right": lambda b: (b[0] + 3, b[1], b[2] + 3, b[3]),
        "too tall": lambda b: (b[0], b[1] - 6, b[2], b[3] + 6),
        "cut short": lambda b: (b[0], b[1], b[2] - 5, b[3]),
    }
    for name, f in wrong.items():
        bad = {tid: shifted(label, f) for tid, label in labels.items()}
        results = check_page(renderer, spec, bad)
        assert not any(r.ok for r in results), f"the pixel check passed boxes that were {name}"
