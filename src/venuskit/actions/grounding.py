"""Reading a UI-Venus-2 grounding reply (reference/ui-venus.md §2.5): the one reader that the training rewards
and the grounding eval share, so a model is trained and scored by the same reading.

Replies are on the 0-`grid` grid (1000 for UI-Venus-2 grounding). A box [x1,y1,x2,y2] counts through its
centre, as do two corners [x1,y1],[x2,y2]; [-1,-1] (or a box of -1s) is a refusal.

- `strict=True` (rewards, data checks): the whole reply is exactly one point, box or corner pair, every value
  within 0..grid, nothing else (no think block, no prose). Anything else is unreadable.
- `strict=False` (the eval, upstream's reader): the text after the last `</think>` is searched for a box, then
  two points (with [] or ()), then a point; failing those, its numbers are read (2: a point, 4 or more: the box
  of the first four). Values outside the grid are clamped.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from venuskit.actions.coords import from_grid
from venuskit.actions.types import Point

Box = tuple[float, float, float, float]  # x1, y1, x2, y2 in [0, 1]
# ScreenSpot-Pro's gt_type of a sample: "negative" when the target is not on the screen and the right answer is a
# refusal ([-1,-1]). Synthesis writes it and the eval reads it (one copy of the two words).
GT_POSITIVE, GT_NEGATIVE = "positive", "negative"

_N = r"\s*(-?\d+(?:\.\d+)?)\s*"
_STRICT = (
    ("box", re.compile(rf"^\[{_N},{_N},{_N},{_N}\]$")),
    ("two_points", re.compile(rf"^\[{_N},{_N}\]\s*,\s*\[{_N},{_N}\]$")),
    ("point", re.compile(rf"^\[{_N},{_N}\]$")),
)
_LENIENT = (
    ("box", re.compile(rf"\[{_N},{_N},{_N},{_N}\]")),
    ("two_points", re.compile(rf"[\[(]{_N},{_N}[\])]\s*,?\s*[\[(]{_N},{_N}[\])]")),
    ("point", re.compile(rf"[\[(]{_N},{_N}[\])]")),
)
_NUMBER = re.compile(r"-?\d+(?:\.\d+)?")


@dataclass(frozen=True)
class GroundingReply:
    """A read reply: the point in [0,1]² (None when refused), the box when one was given, and which rule read it
    (box | two_points | point | scrape_point | scrape_box)."""

    point: Point | None
    refused: bool = False
    box: Box | None = None
    kind: str = "point"


def parse_grounding(text: str, *, strict: bool, grid: int = 1000) -> GroundingReply | None:
    """The reply's point or box, or None when no coordinates can be read (see the module docstring)."""
    if strict:
        body = text.strip()
        for kind, pattern in _STRICT:
            m = pattern.match(body)
            if m:
                values = [float(v) for v in m.groups()]
                refused = all(v == -1 for v in values)
                if not refused and (min(values) < 0 or max(values) > grid):
                    return None
                return _reply(values, kind, grid)
        return None
    body = text.rsplit("</think>", 1)[-1]
    for kind, pattern in _LENIENT:
        m = pattern.search(body)
        if m:
            return _reply([float(v) for v in m.groups()], kind, grid)
    numbers = [float(v) for v in _NUMBER.findall(body)]
    if len(numbers) == 2:
        return _reply(numbers, "scrape_point", grid)
    if len(numbers) >= 4:
        return _reply(numbers[:4], "scrape_box", grid)
    return None


def _reply(v: list[float], kind: str, grid: int) -> GroundingReply:
    if v[0] == -1 and v[1] == -1:
        return GroundingReply(None, refused=True, kind=kind)
    if len(v) == 2:
        return GroundingReply(Point(from_grid(v[0], grid), from_grid(v[1], grid)), kind=kind)
    x1, y1, x2, y2 = (from_grid(x, grid) for x in v)
    box = (min(x1, x2), min(y1, y2), max(x1, x2), max(y1, y2))
    centre = Point(from_grid((v[0] + v[2]) / 2, grid), from_grid((v[1] + v[3]) / 2, grid))  # clamped after averaging
    return GroundingReply(centre, box=box, kind=kind)
