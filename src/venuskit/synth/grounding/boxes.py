"""Box conversions for grounding labels (CSS box → screenshot pixels; pixel box ↔ normalised box).

These are the only box conversions in venuskit; points go through `venuskit.actions.coords`. (They belong
beside the point conversions in actions/coords.py; they live here until that module takes them.)
"""

from __future__ import annotations

import math

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


def box_size(box: Box) -> tuple[int, int]:
    return box[2] - box[0], box[3] - box[1]


def xyxy_to_xywh(box: Box) -> list[int]:
    """ScreenSpot(-v2) stores [x, y, w, h]."""
    return [box[0], box[1], box[2] - box[0], box[3] - box[1]]


def xywh_to_xyxy(box: list[float]) -> tuple[float, float, float, float]:
    return box[0], box[1], box[0] + box[2], box[1] + box[3]


def normalise_box(box: tuple[float, float, float, float], size: tuple[int, int]) -> tuple[float, ...]:
    """A pixel box → [0, 1] fractions of the image, the frame ScreenSpot-Pro scores in."""
    w, h = size
    return box[0] / w, box[1] / h, box[2] / w, box[3] / h


def contains(outer: tuple[float, ...], inner: tuple[float, ...], slack: float = 0.0) -> bool:
    return (
        inner[0] >= outer[0] - slack
        and inner[1] >= outer[1] - slack
        and inner[2] <= outer[2] + slack
        and inner[3] <= outer[3] + slack
    )
