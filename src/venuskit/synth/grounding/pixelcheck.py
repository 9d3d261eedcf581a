"""Check labels against pixels: re-render a page and confirm, from screenshots, that each box holds its target.

For each target, three screenshots of the same clip (the box plus a margin) are compared:
- hidden: the target made invisible (`visibility:hidden`, a transparent text range, a canvas redrawn without it).
  Every pixel that changes belongs to the target, so the changed pixels must lie inside the box, and some must
  change (the target paints something).
- keyed: the target painted solid magenta (its background, border and text; children hidden). The magenta area is
  the element's border box as Chromium rasterised it. Together with the hidden pixels (ink can overhang a box)
  it is the target's footprint, which must lie inside the box and fill it to within a few pixels (the box's
  one-pixel snapping pad, half a CSS pixel of snapping, one for faint edges; see _fill_tolerance).
A slider value (a point target) is checked against its track: the band must lie inside the keyed track.

Shadows, outlines and text shadows paint outside a box by design; the check renders with them off
(`__gt.plain()`), which changes no layout.
"""

from __future__ import annotations

import io
import math
from dataclasses import dataclass
from fractions import Fraction

from PIL import Image, ImageChops

from venuskit.actions.coords import SNAP_PAD, Box
from venuskit.synth.grounding.boxes import contains
from venuskit.synth.grounding.render import Renderer, labels_from_raw
from venuskit.synth.grounding.spec import Label, PageSpec

MARGIN_CSS = 16  # CSS px around the box that a target's pixels must not reach
# Chromium re-rasterises a restyled element, and the neighbours its invalidation touches, with anti-aliasing that
# differs by up to ~25 levels on thin strokes; a change counts when the grey level moves by more than this (a
# target covering a fifth of a pixel moves it further on any visible contrast).
NOISE = 32
RETRY_WAIT_MS = 100


@dataclass
class BoxCheck:
    tid: str
    kind: str
    ok: bool
    reason: str | None
    box: Box
    hidden_extent: Box | None = None
    keyed_extent: Box | None = None
    retried: bool = False


def check_page(
    renderer: Renderer, spec: PageSpec, labels: dict[str, Label] | None = None, tids: list[str] | None = None
) -> list[BoxCheck]:
    """Pixel-check the labels of one page (all of them, or `tids`). With labels=None they are read again from
    the re-rendered page; pass the dataset's labels to check what was written."""
    page = renderer.load(spec, plain=True)
    dsf = spec.resolution.dsf
    if labels is None:
        data = page.evaluate("() => window.__gt.labels()")
        labels, _ = labels_from_raw(data["labels"], dsf, spec.resolution.shot_size)
    slack = 0 if float(dsf).is_integer() else 1
    results = []
    for tid in tids if tids is not None else list(labels):
        result = _check_one(page, spec, labels[tid], slack)
        if not result.ok:
            # A loaded machine can hand back a frame whose tiles are not all re-rasterised yet; a wrong label
            # fails again, a capture race does not.
            page.wait_for_timeout(RETRY_WAIT_MS)
            result = _check_one(page, spec, labels[tid], slack)
            result.retried = True
        results.append(result)
    return results


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
    """Where two shots differ by more than re-rasterisation noise, in screenshot pixels."""
    if a.size != b.size:
        return None
    diff = ImageChops.difference(a, b).convert("L").point(lambda v: 255 if v > NOISE else 0)
    bbox = diff.getbbox()
    if bbox is None:
        return None
    return bbox[0] + origin[0], bbox[1] + origin[1], bbox[2] + origin[0], bbox[3] + origin[1]


def _changed(page, tid: str, mode: str, clip: dict[str, float]) -> tuple[Image.Image, list | None]:
    rect = page.evaluate(f"(id) => window.__gt.{mode}(id)", tid)
    try:
        return _shot(page, clip), rect
    finally:
        page.evaluate("() => window.__gt.restore()")


def _check_one(page, spec: PageSpec, label: Label, slack: int) -> BoxCheck:
    clip, origin = _clip(label, spec)
    hidden, _ = _changed(page, label.tid, "hide", clip)
    keyed, rect = _changed(page, label.tid, "key", clip)
    # The reference is shot after the changes are undone, not before: Chromium repaints an element it restyled
    # with slightly different anti-aliasing (values off by 1-2 on rounded corners) than its first paint.
    base = _shot(page, clip)
    h_ext, k_ext = _extent(base, hidden, origin), _extent(base, keyed, origin)
    result = BoxCheck(label.tid, label.kind, False, None, label.box, h_ext, k_ext)
    if (
        rect is not None
        and label.kind != "point"
        and any(abs(a - b) > 0.01 for a, b in zip(rect, label.css, strict=True))
    ):
        result.reason = "keying moved the element (its layout depends on its appearance)"
    elif label.kind == "point":
        result.reason = _point_problem(label, k_ext, slack, spec.resolution.dsf)
    else:
        result.reason = _box_problem(label.box, h_ext, k_ext, slack, spec.resolution.dsf)
    result.ok = result.reason is None
    return result


def _union(a: Box | None, b: Box | None) -> Box | None:
    if a is None or b is None:
        return a or b
    return min(a[0], b[0]), min(a[1], b[1]), max(a[2], b[2]), max(a[3], b[3])


def _box_problem(box: Box, hidden: Box | None, keyed: Box | None, slack: int, dsf: float) -> str | None:
    """The target's footprint (its ink and its keyed background) must lie in the box and nearly fill it. Hidden
    may be empty (an empty cell, or ink too faint to tell from noise); keyed, solid magenta, may not."""
    if keyed is None:
        return "keying the target changed no pixel (it is covered, or not where its label says)"
    if hidden is not None and not contains(box, hidden, slack):
        return f"the target paints outside its box: changed pixels {hidden} vs box {box}"
    if not contains(box, keyed, slack):
        return f"the keyed target extends outside its box: {keyed} vs box {box}"
    footprint = _union(hidden, keyed)
    if not contains(footprint, box, _fill_tolerance(dsf) + slack):
        return f"the box is larger than the target: footprint {footprint} vs box {box}"
    return None


def _fill_tolerance(dsf: float) -> int:
    """How far a box edge may sit outside the painted footprint: the snapping pad, plus half a CSS pixel
    (Chromium snaps some edges in CSS units), plus one for faint anti-aliased edges below NOISE."""
    return SNAP_PAD + math.ceil(dsf / 2) + 1


def _point_problem(label: Label, track: Box | None, slack: int, dsf: float) -> str | None:
    if track is None or label.point is None:
        return "keying the slider track changed no pixel"
    x1, y1, x2, y2 = label.box
    px, py = label.point
    if not (track[0] - slack <= x1 and x2 <= track[2] + slack):
        return f"the value band {label.box} runs off the track {track}"
    if abs(y1 - track[1]) > _fill_tolerance(dsf) + slack or abs(y2 - track[3]) > _fill_tolerance(dsf) + slack:
        return f"the value band {label.box} is not as tall as the track {track}"
    if not (track[0] <= px <= track[2] and track[1] <= py <= track[3]):
        return f"the value point {label.point} is off the track {track}"
    return None
