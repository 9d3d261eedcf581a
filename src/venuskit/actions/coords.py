"""The one module that converts coordinates.

Inside venuskit a point is a pair of floats in [0, 1] relative to the screenshot the model saw.
Everything else (the 0-999 / 0-1000 model grids, smart-resized image pixels, screen pixels) is
converted here and only here, so a 999-vs-1000 or resize bug can live in one place at most.

Grid rules (reference/ui-venus.md §2.1):
- mobile / browser / grounding: an integer g in [0, 999] means g / 1000 (values >= 1000 are invalid);
- computer / CAPTCHA: an integer g in [0, 999] means g / 999 (out-of-range values are clamped).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Literal

GridScale = Literal[999, 1000]

QWEN25_FACTOR = 28  # Qwen2.5-VL: patch 14 x merge 2
QWEN3_FACTOR = 32  # Qwen3-VL / Qwen3.5: patch 16 x merge 2
DEFAULT_MIN_PIXELS = 3136
DEFAULT_MAX_PIXELS = 12845056


def clamp01(v: float) -> float:
    return min(1.0, max(0.0, v))


def from_grid(g: float, scale: GridScale) -> float:
    """A model grid value (0..999) to a normalised coordinate in [0, 1]."""
    if g <= 0 or g >= scale:  # clamp before dividing: a huge int cannot become a float
        return 0.0 if g <= 0 else 1.0
    return clamp01(g / scale)


def to_grid(v: float, scale: GridScale) -> int:
    """A normalised coordinate to the integer grid the model speaks (always within 0..999)."""
    return min(999, max(0, round(v * scale)))


def to_pixel(v: float, size: int) -> int:
    """Normalised coordinate -> pixel index on an axis of `size` pixels (clamped to size-1)."""
    return min(size - 1, max(0, math.floor(v * size)))


def from_pixel(px: float, size: int) -> float:
    """Pixel index -> normalised coordinate at the pixel's centre, so to_pixel(from_pixel(p)) == p."""
    return clamp01((px + 0.5) / size)


def point_to_pixels(point: tuple[float, float], width: int, height: int) -> tuple[int, int]:
    """Normalised point -> integer screen (or screenshot) pixels."""
    return to_pixel(point[0], width), to_pixel(point[1], height)


def point_from_pixels(x: float, y: float, width: int, height: int) -> tuple[float, float]:
    return from_pixel(x, width), from_pixel(y, height)


def smart_resize(
    height: int,
    width: int,
    factor: int = QWEN3_FACTOR,
    min_pixels: int = DEFAULT_MIN_PIXELS,
    max_pixels: int = DEFAULT_MAX_PIXELS,
) -> tuple[int, int]:
    """The Qwen-VL resize rule: both sides multiples of `factor`, area within [min_pixels, max_pixels],
    aspect ratio kept as closely as possible. Returns (height, width) of the image the model sees."""
    if height <= 0 or width <= 0:
        raise ValueError(f"smart_resize needs a positive size, got height={height} width={width}.")
    if max(height, width) / min(height, width) > 200:
        raise ValueError(f"Aspect ratio of {width}x{height} exceeds 200, which Qwen-VL processors refuse.")
    h_bar = max(factor, round(height / factor) * factor)
    w_bar = max(factor, round(width / factor) * factor)
    if h_bar * w_bar > max_pixels:
        beta = math.sqrt((height * width) / max_pixels)
        h_bar = max(factor, math.floor(height / beta / factor) * factor)
        w_bar = max(factor, math.floor(width / beta / factor) * factor)
    elif h_bar * w_bar < min_pixels:
        beta = math.sqrt(min_pixels / (height * width))
        h_bar = math.ceil(height * beta / factor) * factor
        w_bar = math.ceil(width * beta / factor) * factor
    return h_bar, w_bar


def point_to_resized(
    point: tuple[float, float], height: int, width: int, factor: int = QWEN3_FACTOR, **kw: int
) -> tuple[int, int]:
    """Normalised point -> absolute pixels of the smart-resized image (UI-Venus-1.0 / UI-TARS style output)."""
    rh, rw = smart_resize(height, width, factor, **kw)
    return to_pixel(point[0], rw), to_pixel(point[1], rh)


def point_from_resized(
    x: float, y: float, height: int, width: int, factor: int = QWEN3_FACTOR, **kw: int
) -> tuple[float, float]:
    """Absolute pixels of the smart-resized image -> normalised point."""
    rh, rw = smart_resize(height, width, factor, **kw)
    return from_pixel(x, rw), from_pixel(y, rh)


# ---- boxes ---------------------------------------------------------------------------------------------

Box = tuple[int, int, int, int]

# Chromium paints a box at positions snapped to device pixels through each layer's paint offset, which can put
# an edge one pixel beyond CSS box × dsf rounded outward (measured on ~1,000 targets at dsf 1 to 3: never more).
SNAP_PAD = 1


def css_to_pixels(x: float, y: float, w: float, h: float, dsf: float, size: tuple[int, int], pad: int = 0) -> Box:
    """A CSS box (left, top, width, height) → screenshot pixels: scaled, rounded outward, widened by `pad` pixels
    and clipped to the image.

    Outward (floor the start, ceil the end) so an anti-aliased edge pixel stays inside; the small epsilon keeps
    float noise (10.000000001 · 2) from pushing an exact edge one pixel out."""
    eps = 1e-6
    x1 = math.floor(x * dsf + eps) - pad
    y1 = math.floor(y * dsf + eps) - pad
    x2 = math.ceil((x + w) * dsf - eps) + pad
    y2 = math.ceil((y + h) * dsf - eps) + pad
    width, height = size
    return max(0, x1), max(0, y1), min(width, x2), min(height, y2)


def normalise_box(box: tuple[float, float, float, float], size: tuple[int, int]) -> tuple[float, ...]:
    """A pixel box → [0, 1] fractions of the image, the frame ScreenSpot-Pro scores in."""
    w, h = size
    return box[0] / w, box[1] / h, box[2] / w, box[3] / h


# ---- crops (test-time zoom-in) ----------------------------------------------------------------------------


@dataclass(frozen=True)
class CropFrame:
    """A crop of an image: its pixel box (left, top, right, bottom; right and bottom exclusive) inside an image of
    `size` (width, height) pixels. A point the model gives on the crop is normalised to the crop; `to_full` maps it
    to the full image's normalised frame and `from_full` back. The edges are whole pixels, so the crop the model
    sees is exactly this frame and pixel i of the crop is pixel left + i of the image."""

    left: int
    top: int
    right: int
    bottom: int
    size: tuple[int, int]

    def __post_init__(self) -> None:
        w, h = self.size
        if not (0 <= self.left < self.right <= w and 0 <= self.top < self.bottom <= h):
            raise ValueError(f"Crop {self.box} does not lie inside a {w}x{h} image.")

    @property
    def box(self) -> Box:
        return self.left, self.top, self.right, self.bottom

    def to_full(self, point: tuple[float, float]) -> tuple[float, float]:
        """A normalised point on the crop -> the same place, normalised to the full image."""
        w, h = self.size
        x = (self.left + point[0] * (self.right - self.left)) / w
        y = (self.top + point[1] * (self.bottom - self.top)) / h
        return clamp01(x), clamp01(y)

    def from_full(self, point: tuple[float, float]) -> tuple[float, float]:
        """A normalised point on the full image -> normalised to the crop (outside [0, 1] when off the crop)."""
        w, h = self.size
        return (point[0] * w - self.left) / (self.right - self.left), (point[1] * h - self.top) / (
            self.bottom - self.top
        )


def crop_around(point: tuple[float, float], size: tuple[int, int], zoom: float) -> CropFrame:
    """The window of 1/zoom of the image's width and height centred on `point` (normalised), shifted to lie inside
    the image. zoom 1 is the whole image."""
    if not zoom >= 1:
        raise ValueError(f"zoom must be at least 1 (1 = the whole image), got {zoom}.")
    w, h = size
    cw, ch = max(1, round(w / zoom)), max(1, round(h / zoom))
    left = min(max(0, round(point[0] * w - cw / 2)), w - cw)
    top = min(max(0, round(point[1] * h - ch / 2)), h - ch)
    return CropFrame(left, top, left + cw, top + ch, (w, h))
