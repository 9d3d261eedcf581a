"""Hypothesis strategies for actions, shared through session fixtures (draw them with st.data())."""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import strategies as st

from venuskit.actions import coords
from venuskit.actions.keys import canonical
from venuskit.actions.surfaces import SURFACES
from venuskit.actions.types import (
    ACTION_TYPES,
    Action,
    Drag,
    Hotkey,
    KeyDown,
    KeyUp,
    LongPress,
    Point,
    Scroll,
    SelectOption,
    Sequence,
    Swipe,
    Wait,
)

unit = st.floats(0.0, 1.0, allow_nan=False)
points = st.builds(Point, unit, unit)
# any text, including quotes, backslashes, newlines, our own tags and non-ASCII
texts = st.text(st.characters(codec="utf-8"), max_size=24) | st.sampled_from(
    ["", "it's", 'say "hi"', "a\nb\\n", "</action>", "<think>x</think>", "'''", "é漢😀", "\t\r\n"]
)
# valid key names only: a name that is only spaces ("\x1f" is one) is refused by the Action itself
key_names = st.text(st.characters(codec="utf-8"), min_size=1, max_size=8).filter(lambda k: bool(canonical(k)))
_POINTER = ("Click", "DoubleClick", "TripleClick", "RightClick", "MiddleClick", "MouseDown", "MouseUp", "Hover")
_TEXT_FIELD = {"Type": "content", "TakeNote": "content", "CallUser": "content", "Answer": "content",
               "Finished": "content", "Launch": "url", "LaunchApp": "app"}  # fmt: skip


def _one(name: str, surface: str) -> st.SearchStrategy[Action]:
    cursor_ok = SURFACES[surface].cursor_pointer
    opt_point = (points | st.none()) if cursor_ok else points
    cls = ACTION_TYPES[name]
    if name in _POINTER:
        return st.builds(cls, point=points if name == "Hover" else opt_point)
    if name in _TEXT_FIELD:
        return st.builds(cls, **{_TEXT_FIELD[name]: texts})
    if name == "LongPress":
        return st.builds(LongPress, point=points, duration=st.none() | st.floats(0.01, 60) | st.integers(1, 60))
    if name == "Drag":
        return st.builds(Drag, start=opt_point, end=points)
    if name == "Swipe":
        return st.builds(Swipe, start=points, end=points)
    if name == "Scroll":
        directions = st.sampled_from(["up", "down", "left", "right"])
        if surface == "computer":
            return st.builds(Scroll, direction=directions, amount=st.integers(1, 4096))
        return st.builds(Scroll, point=points, direction=directions, amount=st.none() | st.integers(1, 4096))
    if name == "Hotkey":
        max_keys = 3 if surface == "browser" else 6
        return st.builds(Hotkey, keys=st.lists(key_names, min_size=1, max_size=max_keys).map(tuple),
                         repeat=st.integers(1, 128))  # fmt: skip
    if name in ("KeyDown", "KeyUp"):
        return st.builds({"KeyDown": KeyDown, "KeyUp": KeyUp}[name], keys=st.lists(key_names, min_size=1, max_size=4))
    if name == "Wait":
        return st.builds(Wait, seconds=st.none() | st.floats(0.001, 60))
    if name == "SelectOption":
        return st.builds(SelectOption, index=st.integers(0, 10**6))
    if name == "Sequence":
        return _sequence(surface)
    return st.just(cls())


def _sequence(surface: str) -> st.SearchStrategy[Action]:
    names = sorted(n for n in SURFACES[surface].actions if n != "Sequence")
    middle = [n for n in names if not ACTION_TYPES[n].terminal]
    last = st.sampled_from(names).flatmap(lambda n: _one(n, surface))
    body = st.lists(st.sampled_from(middle).flatmap(lambda n: _one(n, surface)), min_size=1, max_size=4)
    return st.tuples(body, last).map(lambda bl: Sequence(actions=(*bl[0], bl[1])))


def actions_for(surface: str) -> st.SearchStrategy[Action]:
    """Any valid action of `surface`, every action type equally likely."""
    return st.sampled_from(sorted(SURFACES[surface].actions)).flatmap(lambda n: _one(n, surface))


def quantise(action: Action, scale: int) -> Action:
    """`action` with every point snapped to the integer grid, as format -> parse leaves it."""
    changes = {}
    for f in dataclasses.fields(action):
        v = getattr(action, f.name)
        if isinstance(v, Point):
            snap = coords.from_grid
            changes[f.name] = Point(snap(coords.to_grid(v.x, scale), scale), snap(coords.to_grid(v.y, scale), scale))
        elif isinstance(v, tuple) and v and isinstance(v[0], Action):
            changes[f.name] = tuple(quantise(a, scale) for a in v)
    return dataclasses.replace(action, **changes)


@pytest.fixture(scope="session")
def action_strategy():
    return actions_for


@pytest.fixture(scope="session")
def snap():
    return quantise
