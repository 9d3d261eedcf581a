"""The HTML episode page: self-contained, escaped, showing steps, errors, attempts and outcome."""

from __future__ import annotations

import base64
import re

from record_helpers import png_pixel, record_episode

from venuskit.actions.types import Click, Point
from venuskit.record.episode import Outcome
from venuskit.record.viewer import render_html

EVIL = "<script>alert('x')</script>"


def _episode(tmp_path):
    steps = [
        (f"<think>{EVIL}</think>\n<action>Click(point=(500, 500))</action>", Click(point=Point(0.5, 0.5)), None),
        (f"oops {EVIL}", None, {"type": "ActionParseError", "message": f"no action in {EVIL}"}),
    ]
    extra = {
        0: {"thought": EVIL, "url": "http://127.0.0.1/?q=<b>", "attempts": [{"raw_output": EVIL, "error": "bad"}]},
    }
    outcome = Outcome(terminated=True, reason="finished", answer=f"done {EVIL}")
    return record_episode(tmp_path, steps, goal=f"Find {EVIL}", size=(80, 60), finish=outcome, step_extra=extra)


def test_page_is_self_contained_and_shows_every_step(tmp_path):
    d = _episode(tmp_path)
    out = render_html(d)
    assert out == d / "episode.html"
    page = out.read_text(encoding="utf-8")
    images = re.findall(r'src="data:image/png;base64,([^"]+)"', page)
    assert len(images) == 2
    first = base64.b64decode(images[0])
    r, g, b = png_pixel(first, 40, 30)  # the click at the centre is drawn on the inlined screenshot
    assert r > 200 and g < 80 and b < 80
    assert "http://" not in page.replace("http://127.0.0.1/?q=&lt;b&gt;", "")  # no external resources
    assert "Step 0" in page and "Step 1" in page
    assert "finished" in page and "1 rejected attempt(s)" in page and "ActionParseError" in page


def test_model_text_is_escaped(tmp_path):
    page = render_html(_episode(tmp_path)).read_text(encoding="utf-8")
    assert "<script" not in page.lower()
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in page
    assert "q=<b>" not in page and "q=&lt;b&gt;" in page


def test_missing_screenshot_and_unfinished_episode(tmp_path):
    d = record_episode(tmp_path, [("r", Click(point=Point(0.1, 0.1)), None)])
    (d / "step_0000.png").unlink()
    page = render_html(d, tmp_path / "out.html").read_text(encoding="utf-8")
    assert "no screenshot" in page and "step_0000.png is missing" in page
    assert "not closed" in page
