"""Small image comparisons the rules need: did the screen (or a region of it) change between two shots?"""

from __future__ import annotations

from functools import lru_cache

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
