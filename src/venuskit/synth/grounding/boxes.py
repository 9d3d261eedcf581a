"""Box formats of grounding labels (xyxy ↔ ScreenSpot's xywh, containment). Conversions between coordinate
frames (CSS box → screenshot pixels, pixel box → normalised box) live in `venuskit.actions.coords`."""

from __future__ import annotations

from venuskit.actions.coords import Box


def box_size(box: Box) -> tuple[int, int]:
    return box[2] - box[0], box[3] - box[1]


def xyxy_to_xywh(box: Box) -> list[int]:
    """ScreenSpot(-v2) stores [x, y, w, h]."""
    return [box[0], box[1], box[2] - box[0], box[3] - box[1]]


def xywh_to_xyxy(box: list[float]) -> tuple[float, float, float, float]:
    return box[0], box[1], box[0] + box[2], box[1] + box[3]


def contains(outer: tuple[float, ...], inner: tuple[float, ...], slack: float = 0.0) -> bool:
    return (
        inner[0] >= outer[0] - slack
        and inner[1] >= outer[1] - slack
        and inner[2] <= outer[2] + slack
        and inner[3] <= outer[3] + slack
    )
