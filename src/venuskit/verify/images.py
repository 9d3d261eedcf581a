"""Small image comparisons the rules need: did the screen (or a region of it) change between two shots?"""

from __future__ import annotations

from functools import lru_cache
from typing import Any

import numpy as np
from PIL import Image, ImageChops

from venuskit.infra import untrusted

_SIDE = 256  # compare at this size: enough to see a changed label, cheap enough to run on every step
_PIXEL_DELTA = 24  # a channel difference above this counts as a change (JPEG-free PNGs, so noise is rare)


@lru_cache(maxsize=64)
def _small(png: bytes) -> Image.Image:
    with untrusted.open_image(png) as im:
        return im.convert("L").resize((_SIDE, _SIDE))


def changed_fraction(a: bytes, b: bytes, box: tuple[float, float, float, float] | None = None) -> float:
    """Share of pixels that differ between two screenshots, optionally inside `box` = (x0, y0, x1, y1)
    in [0, 1] screen fractions. Screenshots of different sizes count as fully changed."""
    if png_size(a) != png_size(b):
        return 1.0
    ia, ib = _small(a), _small(b)
    if box is not None:
        x0, y0, x1, y1 = (round(v * _SIDE) for v in box)
        ia, ib = (
            ia.crop((x0, y0, max(x1, x0 + 1), max(y1, y0 + 1))),
            ib.crop((x0, y0, max(x1, x0 + 1), max(y1, y0 + 1))),
        )
    diff = ImageChops.difference(ia, ib).point(lambda v: 255 if v > _PIXEL_DELTA else 0)
    hist = diff.histogram()
    total = sum(hist)
    return hist[255] / total if total else 0.0


def readable(png: bytes) -> bool:
    """Whether a screenshot is an image whose every chunk is whole (PIL's verify: the header and the CRCs, no
    decoding), so that drawing on it later can be put off until a judge asks to see it."""
    try:
        with untrusted.open_image(png) as im:
            im.verify()
    except (OSError, ValueError, SyntaxError):
        return False
    return True


def png_size(png: bytes) -> tuple[int, int]:
    return untrusted.check_image(png)  # from the header: ImageRejected for what is no image or too large


_MARK_DELTA = 40  # a channel difference above this is a changed pixel of the control
_BAND = 0.035  # half the height of the strip around the click (a share of the screen's height), at least 12 px


def _inked(rgb: Any) -> float:
    """Share of a region's pixels that are coloured or dark: a ticked box or a switched-on track is filled, an
    empty box is a thin grey outline on the page."""
    hi, lo = rgb.max(-1), rgb.min(-1)
    return float(((hi - lo > 60) | (hi < 110)).mean()) if rgb.size else 0.0


def mark_change(a: bytes, b: bytes, point: tuple[float, float], near: bool = False) -> float | None:
    """How much more filled (positive) or emptier (negative) the control that changed on the click's row is after
    the click: the pixels that differ inside a strip around the click's height, if they form one small control (at
    most an eighth of the width). None when nothing, or too much, changed there. With `near`, only the pixels
    within a sixteenth of the width of the click count: a star filled in while a badge appeared by the name."""
    if png_size(a) != png_size(b):
        return None
    try:
        with untrusted.open_image(a) as ia, untrusted.open_image(b) as ib:
            before, after = np.asarray(ia.convert("RGB"), np.int16), np.asarray(ib.convert("RGB"), np.int16)
    except (OSError, ValueError, untrusted.ImageRejected):  # a screenshot that will not decode shows no change
        return None
    h, w, _ = before.shape
    y, half = int(point[1] * h), max(12, int(_BAND * h))
    band = slice(max(0, y - half), min(h, y + half))
    ys, xs = np.nonzero(np.abs(before[band] - after[band]).max(-1) > _MARK_DELTA)
    if near:
        x, reach = point[0] * w, max(24, w / 16)
        ys, xs = ys[np.abs(xs - x) <= reach], xs[np.abs(xs - x) <= reach]
    if len(xs) < 16 or xs.max() - xs.min() > w / 8:
        return None
    top = band.start
    box = (slice(top + ys.min(), top + ys.max() + 1), slice(xs.min(), xs.max() + 1))
    return _inked(after[box]) - _inked(before[box])
