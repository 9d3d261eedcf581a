"""The registry of CAPTCHA types. Family modules register their generators on import.

from venuskit.synth.captcha.registry import all_types, make_instance
inst = make_instance("text_warped", seed=3)
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

from venuskit.synth.captcha.spec import CaptchaType, Generator, Instance

# Family name -> one-line description, in listing order (synthesis.md §5, A-J).
FAMILIES: dict[str, str] = {
    "text": "Text recognition: type the characters",
    "arithmetic": "Arithmetic, counting and logic",
    "slider": "Slider and alignment",
    "rotation": "Rotation",
    "click": "Point-and-click localisation, including click-in-order",
    "grid": "Image-selection grids",
    "drag": "Drag-to-match, swap and assemble",
    "navigation": "Navigation and paged arrows",
    "mechanics": "Timing, behaviour and widget mechanics",
    "spatial": "Spatial and temporal reasoning",
}
_FAMILY_MODULES = (
    "text",
    "arithmetic",
    "slider",
    "rotation",
    "click",
    "grid",
    "drag",
    "navigation",
    "mechanics",
    "spatial",
)
_TYPES: dict[str, CaptchaType] = {}
_loaded = False


def register(
    name: str, family: str, widget: str, summary: str, *, image_only: bool = True
) -> Callable[[Generator], Generator]:
    """Decorator: register `generate(rng) -> Puzzle` as the CAPTCHA type `name`."""
    if family not in FAMILIES:
        raise ValueError(f"Unknown CAPTCHA family {family!r}; expected one of {list(FAMILIES)}.")

    def deco(fn: Generator) -> Generator:
        if name in _TYPES:
            raise ValueError(f"The CAPTCHA type {name!r} is registered twice.")
        _TYPES[name] = CaptchaType(name, family, widget, summary, fn, image_only)
        return fn

    return deco


def _load() -> None:
    global _loaded
    if not _loaded:
        _loaded = True
        for module in _FAMILY_MODULES:
            importlib.import_module(f"venuskit.synth.captcha.families.{module}")


def all_types() -> list[CaptchaType]:
    """Every registered type, by family (listing order) then name."""
    _load()
    order = {f: i for i, f in enumerate(FAMILIES)}
    return sorted(_TYPES.values(), key=lambda t: (order[t.family], t.name))


def type_names() -> list[str]:
    return [t.name for t in all_types()]


def get_type(name: str) -> CaptchaType:
    _load()
    try:
        return _TYPES[name]
    except KeyError:
        raise ValueError(
            f"Unknown CAPTCHA type {name!r}; `venus captcha list` shows the {len(_TYPES)} types."
        ) from None


def make_instance(name: str, seed: int) -> Instance:
    """The instance of type `name` for `seed` (deterministic)."""
    return get_type(name).make(seed)


def by_family() -> dict[str, list[str]]:
    """Family -> type names, families in listing order (empty families left out)."""
    out: dict[str, list[str]] = {}
    for t in all_types():
        out.setdefault(t.family, []).append(t.name)
    return out


def select_types(names: list[str] | None) -> list[CaptchaType]:
    """Types named in `names` (a name or a family name each); None or [] = all types."""
    if not names:
        return all_types()
    fams = by_family()
    chosen: list[CaptchaType] = []
    for n in names:
        picked = [get_type(t) for t in fams[n]] if n in fams else [get_type(n)]
        chosen += [t for t in picked if t not in chosen]
    return chosen
