"""Grammars: a call language per surface, built from the one table of calls (`venuskit.actions.calls`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from venuskit.actions.calls import CALLS, CallSpec, Param
from venuskit.actions.coords import GridScale
from venuskit.actions.surfaces import get_surface
from venuskit.actions.types import Action, ActionError


@dataclass(frozen=True)
class Grammar:
    """A call language: which calls exist, how points are spelt and how grid numbers map to [0, 1]."""

    name: str  # "mobile" ... or a dialect name; used in messages
    calls: dict[str, CallSpec]  # call name -> spec, in prompt order
    point_kw: str  # "point" or "box"
    grid: GridScale  # divisor of grid integers
    clamp: bool  # out-of-range grid values: clamp (True) or reject (False)
    grid_limit: int = 1000  # reject mode: valid values are 0 <= g < grid_limit
    multi: bool = False  # comma-separated calls in one <action> (CAPTCHA)
    compact: bool = False  # "(x,y)" and "a=1,b=2" without spaces (the CAPTCHA prompt's style)
    keys_tuple: bool = False  # keys written as a tuple (browser) instead of a list (computer)
    surface: str | None = None  # the venuskit surface checked after parsing (None for dialects)
    by_action: dict[str, CallSpec] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        index = {cls.name: spec for spec in self.calls.values() for cls in spec.handles}
        object.__setattr__(self, "by_action", index)

    @property
    def label(self) -> str:
        return f"{self.name} surface" if self.surface else f"{self.name} grammar"

    def kw(self, param: Param) -> str:
        return self.point_kw if param.name == "point" else param.name

    def spec_for(self, action: Action) -> CallSpec:
        spec = self.by_action.get(action.name)
        if spec is None:
            raise ActionError(f"{action.name} cannot be written in the {self.label}.")
        return spec


def _surface_grammar(surface: str, **kw: Any) -> Grammar:
    spec = get_surface(surface)
    return Grammar(surface, CALLS[surface], spec.point_kw, spec.grid, spec.clamp, surface=surface, **kw)


GRAMMARS: dict[str, Grammar] = {
    "mobile": _surface_grammar("mobile"),
    "browser": _surface_grammar("browser", keys_tuple=True),
    "computer": _surface_grammar("computer"),
    "captcha": _surface_grammar("captcha", multi=True, compact=True),
}


def get_grammar(surface: str) -> Grammar:
    get_surface(surface)  # the one "unknown surface" message
    return GRAMMARS[surface]


def signature(spec: CallSpec, grammar: Grammar) -> str:
    """The call as the prompt shows it, e.g. `Click(point=(x1, y1))` or `Click(box=(x1, y1)), or Click()`."""
    args = ", ".join(f"{grammar.kw(p)}={p.example}" for p in spec.params if p.shown)
    sig = f"{spec.call}({args})"
    return f"{sig}, or {spec.call}()" if spec.bare_ok else sig
