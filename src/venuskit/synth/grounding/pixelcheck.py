"""Check labels against pixels: re-render a page and confirm, from screenshots, that each box holds its target.

For each target, three screenshots of the same clip (the box plus a margin) are compared:
- hidden: the target made invisible (`visibility:hidden`, a transparent text range, a canvas redrawn without it).
  Every pixel that changes belongs to the target, so the changed pixels must lie inside the box, and some must
  change (the target paints something).
- keyed: the target painted solid magenta (its background, border and text; children hidden). The magenta area is
  the element's border box as Chromium rasterised it, so its extent must match the box on every side, within
  one pixel (two at a fractional device scale factor).
A slider value (a point target) is checked against its track: the band must lie inside the keyed track.

Shadows, outlines and text shadows paint outside a box by design; the check renders with them off
(`__gt.plain()`), which changes no layout.
"""

from __future__ import annotations

import io
import math
from fractions import Fraction
from dataclasses import dataclass

from PIL import Image, ImageChops

from venuskit.synth.grounding.boxes import Box, contains
from venuskit.synth.grounding.render import Renderer, labels_from_raw
from venuskit.synth.grounding.spec import Label, PageSpec

MARGIN_CSS = 16  # CSS px around the box that a target's pixels must not reach


@dataclass
class BoxCheck:
    tid: str
    kind: str
    ok: bool
    reason: str | None
    box: Box
    hidden_extent: Box | None = None
    keyed_extent: Box | None = None


def check_page(renderer: Renderer, spec: PageSpec, labels: dict[str, Label] | None = None,
               tids: list[str] | None = None) -> list[BoxCheck]:  # fmt: skip
    """Pixel-check the labels of one page (all of them, or `tids`). With labels=None they are read again from
    the re-rendered page; pass the dataset's labels to check what was written."""
    page = renderer.load(spec, plain=True)
    dsf = spec.resolution.dsf
    if labels is None:
        data = page.evaluate("() => window.__gt.labels()")
        labels, _ = labels_from_raw(data["labels"], dsf, spec.resolution.shot_size)
    slack = 0 if float(dsf).is_integer() else 1
    page.evaluate(_SETTLE)
    return [_check_one(page, spec, labels[tid], slack) for tid in (tids if tids is not None else list(labels))]


# A style change reaches a screenshot only after the next frames are drawn; without this wait a shot sometimes
# shows the page one change behind (seen as flaky "paints outside its box" on a neighbour).
_SETTLE = "() => new Promise(done => requestAnimationFrame(() => requestAnimationFrame(() => done(true))))"


def _clip(label: Label, spec: PageSpec) -> tuple[dict[str, float], tuple[int, int]]:
    """A clip around the label whose corner falls on a whole screenshot pixel (CSS coordinates that are
    multiples of the dsf's denominator: 2 for 1.5, 8 for 2.625), and that corner in screenshot pixels."""
    dsf = spec.resolution.dsf
    q = Fraction(dsf).limit_denominator(64).denominator
    x, y, w, h = label.css
    x1 = max(0, (math.floor(x) - MARGIN_CSS) // q * q)
    y1 = max(0, (math.floor(y) - MARGIN_CSS) // q * q)
    x2 = min(spec.resolution.width, math.ceil(x + w) + MARGIN_CSS)
    y2 = min(spec.resolution.height, math.ceil(y + h) + MARGIN_CSS)
    return {"x": x1, "y": y1, "width": x2 - x1, "height": y2 - y1}, (round(x1 * dsf), round(y1 * dsf))


def _shot(page, clip: dict[str, float]) -> Image.Image:
    png = page.screenshot(type="png", clip=clip, animations="disabled", caret="hide")
    return Image.open(io.BytesIO(png)).convert("RGB")


def _extent(a: Image.Image, b: Image.Image, origin: tuple[int, int]) -> Box | None:
    if a.size != b.size:
        return None
    bbox = ImageChops.difference(a, b).getbbox()
    if bbox is None:
        return None
    return bbox[0] + origin[0], bbox[1] + origin[1], bbox[2] + origin[0], bbox[3] + origin[1]


def _changed(page, tid: str, mode: str, clip: dict[str, float], settle_after: bool) -> tuple[Image.Image, list | None]:
    """Change the target, screenshot the clip, undo. The undo needs no wait when another change and its
    wait follow before the next screenshot."""
    rect = page.evaluate(f"(id) => window.__gt.{mode}(id)", tid)
    try:
        page.evaluate(_SETTLE)
        return _shot(page, clip), rect
    finally:
        page.evaluate("() => window.__gt.restore()")
        if settle_after:
            page.evaluate(_SETTLE)


def _check_one(page, spec: PageSpec, label: Label, slack: int) -> BoxCheck:
    clip, origin = _clip(label, spec)
    base = _shot(page, clip)
    hidden, _ = _changed(page, label.tid, "hide", clip, settle_after=False)
    keyed, rect = _changed(page, label.tid, "key", clip, settle_after=True)
    h_ext, k_ext = _extent(base, hidden, origin), _extent(base, keyed, origin)
    result = BoxCheck(label.tid, label.kind, False, None, label.box, h_ext, k_ext)
    if rect is not None and label.kind != "point" and any(abs(a - b) > 0.01 for a, b in zip(rect, label.css)):
        result.reason = "keying moved the element (its layout depends on its appearance)"
    elif label.kind == "point":
        result.reason = _point_problem(label, k_ext, slack)
    else:
        result.reason = _box_problem(label.box, h_ext, k_ext, slack)
    result.ok = result.reason is None
    return result


def _union(a: Box | None, b: Box | None) -> Box | None:
    if a is None or b is None:
        return a or b
    return min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3])


def _box_problem(box: Box, hidden: Box | None, keyed: Box | None, slack: int) -> str | None:
    """The target's footprint (its ink and its keyed background) must lie in the box and nearly fill it."""
    if hidden is None:
        return "hiding the target changed no pixel (it paints nothing, or something covers it)"
    if keyed is None:
        return "keying the target changed no pixel"
    if not contains(box, hidden, slack):
        return f"the target paints outside its box: changed pixels {hidden} vs box {box}"
    if not contains(box, keyed, slack):
        return f"the keyed target extends outside its box: {keyed} vs box {box}"
    footprint = _union(hidden, keyed)
    if not contains(footprint, box, 1 + slack):
        return f"the box is larger than the target: footprint {footprint} vs box {box}"
    return None


def _point_problem(label: Label, track: Box | None, slack: int) -> str | None:
    if track is None or label.point is None:
        return "keying the slider track changed no pixel"
    x1, y1, x2, y2 = label.box
    px, py = label.point
    if not (track[0] - slack <= x1 and x2 <= track[2] + slack):
        return f"the value band {label.box} runs off the track {track}"
    if abs(y1 - track[1]) > 1 + slack or abs(y2 - track[3]) > 1 + slack:
        return f"the value band {label.box} is not as tall as the track {track}"
    if not (track[0] <= px <= track[2] and track[1] <= py <= track[3]):
        return f"the value point {label.point} is off the track {track}"
    return None
