"""Harvesting a page that venuskit did not compose (the hook for the world's apps): every visible interactive
element becomes a labelled target; hidden, disabled, off-screen, covered and unnamed ones do not."""

from __future__ import annotations

import json

import pytest

from venuskit.actions.coords import SNAP_PAD
from venuskit.envs.browser import BrowserConfig, BrowserEnv
from venuskit.synth.grounding.harvest import harvest_page, harvest_world

pytestmark = pytest.mark.browser

PAGE = """<!doctype html><html><head><meta charset="utf-8"><style>
body{margin:0;font:16px 'DejaVu Sans'} nav,form,section{padding:10px} button{margin:4px}
.cover{position:absolute;left:0;top:430px;width:300px;height:60px;background:#fc0}
</style></head><body>
<nav><a href="/home">Home</a> <a href="/pricing">Pricing</a></nav>
<section>
  <button>Save draft</button>
  <button aria-label="Settings"><svg width="16" height="16"><rect width="16" height="16"/></svg></button>
  <button><svg width="16" height="16"><circle cx="8" cy="8" r="8"/></svg></button>
  <div role="button" tabindex="0">Publish</div>
  <button style="display:none">Ghost</button>
  <button disabled>Disabled</button>
  <button style="position:absolute;left:-300px;top:10px">Offscreen</button>
  <span tabindex="-1">Not interactive</span>
  <button>Duplicate</button><button>Duplicate</button>
</section>
<form>
  <label for="email">Email</label> <input id="email" type="email">
  <input type="checkbox" id="remember"><label for="remember">Remember me</label>
  <select aria-label="Country"><option>Norway</option></select>
</form>
<div style="position:absolute;left:10px;top:440px"><button>Covered</button></div><div class="cover"></div>
</body></html>"""

EXPECTED = {
    "click the 'Home' link",
    "click the 'Pricing' link",
    "click the 'Save draft' button",
    "click the 'Settings' button",
    "click the 'Publish' button",
    "click the 'Email' field",
    "click the 'Remember me' checkbox",
    "open the 'Country' dropdown",
}


@pytest.fixture(scope="module")
def site(serve_dir, tmp_path_factory):
    folder = tmp_path_factory.mktemp("harvest")
    (folder / "app.html").write_text(PAGE)
    return serve_dir(folder) + "/app.html"


def test_every_visible_interactive_element_is_a_target(site):
    with BrowserEnv(BrowserConfig(viewport=(800, 600), device_scale_factor=2)) as env:
        h = harvest_page(env, site)
        assert {s.instruction for s in h.samples} == EXPECTED
        by_name = {s.instruction: s for s in h.samples}
        assert by_name["click the 'Settings' button"].ui_type == "icon"
        assert by_name["click the 'Save draft' button"].ui_type == "text"
        # boxes agree with Playwright's own element boxes (CSS px) times the dsf, rounded outward, plus the pad
        for instruction, locator in (
            ("click the 'Save draft' button", env.page.get_by_role("button", name="Save draft")),
            ("click the 'Email' field", env.page.locator("#email")),
            ("click the 'Pricing' link", env.page.get_by_role("link", name="Pricing")),
        ):
            bb = locator.bounding_box()
            x1, y1, x2, y2 = by_name[instruction].box
            assert x1 <= 2 * bb["x"] and y1 <= 2 * bb["y"], instruction
            assert x2 >= 2 * (bb["x"] + bb["width"]) and y2 >= 2 * (bb["y"] + bb["height"]), instruction
            assert 2 * bb["x"] - x1 <= 1 + SNAP_PAD and x2 - 2 * (bb["x"] + bb["width"]) <= 1 + SNAP_PAD, instruction
        assert h.rendered.size == (1600, 1200)


def test_harvest_world_writes_screenspot_files(site, tmp_path):
    results = harvest_world([site], tmp_path, "screenspot-pro", BrowserConfig(viewport=(800, 600)))
    (annotations,) = list((tmp_path / "annotations").glob("*.json"))
    records = json.loads(annotations.read_text())
    assert {r["instruction"] for r in records} == EXPECTED
    assert all(r["platform"] == "web" and r["img_size"] == [800, 600] for r in records)
    assert (tmp_path / "images" / records[0]["img_filename"]).is_file()
    assert len(results) == 1 and results[0].spec.application.startswith("127_0_0_1_app")
