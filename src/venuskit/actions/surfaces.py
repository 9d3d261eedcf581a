"""Surfaces: which actions each UI-Venus-2 surface accepts and how its grammar spells points.

reference/ui-venus.md §2.2-2.5: mobile and browser speak `point=` on a 0-1000 grid (values >= 1000
rejected); computer and CAPTCHA speak `box=` on a 0-999 grid (out-of-range clamped).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

from venuskit.actions.calls import accepted_actions
from venuskit.actions.coords import GridScale
from venuskit.actions.types import Action, ActionError, Sequence

SurfaceName = Literal["mobile", "browser", "computer", "captcha"]


@dataclass(frozen=True)
class SurfaceSpec:
    name: str
    actions: frozenset[str]
    point_kw: str  # the argument name the surface's prompt uses for points
    grid: GridScale  # divisor from grid integers to [0, 1]
    clamp: bool  # True: out-of-range grid values are clamped; False: rejected
    cursor_pointer: bool  # pointer actions may omit the point (act at the current cursor)


# Which actions each surface accepts is read off its calls in the one table (venuskit.actions.calls).
SURFACES: dict[str, SurfaceSpec] = {
    "mobile": SurfaceSpec("mobile", accepted_actions("mobile"), "point", 1000, clamp=False, cursor_pointer=False),
    "browser": SurfaceSpec("browser", accepted_actions("browser"), "point", 1000, clamp=False, cursor_pointer=False),
    "computer": SurfaceSpec("computer", accepted_actions("computer"), "box", 999, clamp=True, cursor_pointer=True),
    "captcha": SurfaceSpec("captcha", accepted_actions("captcha"), "box", 999, clamp=True, cursor_pointer=False),
}


def get_surface(surface: str) -> SurfaceSpec:
    try:
        return SURFACES[surface]
    except KeyError:
        raise ValueError(f"Unknown surface {surface!r}; expected one of {sorted(SURFACES)}.") from None


def check_surface(action: Action, surface: str) -> None:
    """Raise ActionError if `surface` does not accept `action` (children of a Sequence included)."""
    spec = get_surface(surface)
    if action.name not in spec.actions:
        raise ActionError(
            f"{action.name} is not an action of the {surface} surface; it accepts: {', '.join(sorted(spec.actions))}."
        )
    if isinstance(action, Sequence):
        for child in action.actions:
            check_surface(child, surface)
    elif not spec.cursor_pointer and getattr(action, "point", 0) is None:
        raise ActionError(f"{action.name} on the {surface} surface needs a {spec.point_kw}=(x, y).")
    elif not spec.cursor_pointer and action.name == "Drag" and action.start is None:
        raise ActionError(f"Drag on the {surface} surface needs start=(x, y).")
