"""The agent's own history read back from its earlier screenshots: where it clicked and the text under each click,
what it typed, the screen its last action was taken on, and which of the task's entities it has used.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from venuskit.actions.types import Action, Click, DoubleClick, LongPress, Type
from venuskit.models.nano.action_types import action_type
from venuskit.models.nano.candidates import label_of, under
from venuskit.models.nano.entities import Entity, containment, norm
from venuskit.models.nano.reader import Screen


@dataclass
class Past:
    """What the agent did, read back from its earlier screenshots."""

    clicks: list[tuple[float, float]]  # normalised points
    clicked: list[str]  # the text under each click (its element, or the label of an unlabelled one)
    typed: list[str]
    prev: Screen | None  # the screen the last action was taken on
    last_click_kind: str | None = None  # the kind of element the last click landed on


def read_past(history: list[Action], pngs: list[bytes | None], read: Callable[[bytes], Screen]) -> Past:
    """The clicks, the texts under them and the typed texts of `history`, each action read back on the screenshot it
    was taken on (`pngs`, aligned with `history`; a missing one reads nothing)."""
    clicks, clicked, typed = [], [], []
    last_kind = None
    pngs = list(pngs) + [None] * (len(history) - len(pngs))
    screens: dict[int, Screen] = {}
    for i, (a, png) in enumerate(zip(history, pngs, strict=False)):
        if isinstance(a, Type) and a.content.strip():
            typed.append(a.content.strip())
        p = _point_of(a) if isinstance(a, (Click, DoubleClick, LongPress)) else None
        if p is None:
            continue
        clicks.append(p)
        if png is None:
            clicked.append("")
            last_kind = None
            continue
        screens[i] = screen = read(png)
        el = under(screen, *p)
        text = el.text if el is not None else ""
        if el is not None and not text and el.kind != "text":
            text = label_of(screen, el.box)
        clicked.append(text)
        last_kind = el.kind if el is not None else None
    prev = None
    if pngs and pngs[-1] is not None:
        prev = screens.get(len(pngs) - 1) or read(pngs[-1])
    return Past(clicks, clicked, typed, prev, last_kind)


def used_entities(entities: list[Entity], past: Past) -> set[str]:
    """norm() of the entities the agent already typed or clicked."""
    done = set()
    for e in entities:
        ne = norm(e.text)
        if any(containment(e.text, t) >= 0.8 for t in past.typed) or any(
            t and (containment(e.text, t) >= 0.8 or (len(norm(t)) >= 3 and norm(t) in ne)) for t in past.clicked
        ):
            done.add(ne)  # fmt: skip
    return done


def history_types(history: list[Action]) -> list[str]:
    """The network's type of each earlier action it can express."""
    return [t for a in history if (t := action_type(a)) is not None]


def _point_of(a: Action) -> tuple[float, float] | None:
    p = getattr(a, "point", None)
    return (p.x, p.y) if p is not None else None
