"""types.py and surfaces.py: validation at construction, dict round trips, per-surface acceptance."""

from __future__ import annotations

import dataclasses
import json
import math

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import venuskit.actions as va
from venuskit.actions import (
    SURFACES,
    ActionError,
    CallUser,
    Click,
    Drag,
    Finished,
    Hotkey,
    LongPress,
    Point,
    Scroll,
    SelectOption,
    Sequence,
    Type,
    Wait,
    action_from_dict,
    check_surface,
)


@pytest.mark.parametrize("bad", [-0.01, 1.01, math.nan, math.inf, True, "0.5", None])
def test_point_refuses_anything_but_a_number_in_unit_range(bad):
    with pytest.raises(ActionError):
        Point(bad, 0.5)


def test_point_keeps_floats_and_is_frozen():
    p = Point(0, 1)
    assert p.as_tuple() == (0.0, 1.0) and isinstance(p.x, float)
    with pytest.raises(dataclasses.FrozenInstanceError):
        p.x = 0.5  # type: ignore[misc]


def test_action_error_is_a_value_error_and_parse_error_too():
    assert issubclass(ActionError, ValueError)
    assert issubclass(va.ActionParseError, ValueError)


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: Click(point=(0.1, 0.2)), "Click.point must be a Point"),
        (lambda: LongPress(point=Point(0, 0), duration=0), "LongPress.duration"),
        (lambda: LongPress(point=Point(0, 0), duration=61), "(0, 60]"),
        (lambda: Scroll(direction="north"), "Scroll.direction must be one of"),
        (lambda: Scroll(direction="up", amount=0), "Scroll.amount must be an integer in 1..4096"),
        (lambda: Scroll(direction="up", amount=4097), "1..4096"),
        (lambda: Type(content=3), "Type.content must be a string"),
        (lambda: Hotkey(keys=()), "non-empty list of key names"),
        (lambda: Hotkey(keys=("ctrl", "")), "non-empty list of key names"),
        (lambda: Hotkey(keys=("a",) * 129), "limit is 128"),
        (lambda: Hotkey(keys=("a",), repeat=0), "Hotkey.repeat"),
        (lambda: Wait(seconds=-1), "Wait.seconds"),
        (lambda: SelectOption(index=True), "SelectOption.index"),
        (lambda: Sequence(actions=(Click(),)), "Sequence needs 2..32 actions, got 1"),
        (lambda: Sequence(actions=(Click(),) * 33), "got 33"),
        (lambda: Sequence(actions=(Click(), Sequence(actions=(Click(), Click())))), "cannot contain another"),
        (lambda: Sequence(actions=(Finished(), Click())), "only be the last action"),
        (lambda: Sequence(actions=(Click(), "Wait()")), "must be a list of actions"),
    ],
)
def test_invalid_arguments_raise_action_error_naming_the_field(make, message):
    with pytest.raises(ActionError) as info:
        make()
    assert message in str(info.value)


def test_lists_are_frozen_into_tuples():
    assert Hotkey(keys=["ctrl", "c"]).keys == ("ctrl", "c")
    seq = Sequence(actions=[Click(), Wait()])
    assert seq.actions == (Click(), Wait()) and not seq.terminal_child
    assert Sequence(actions=[Click(), CallUser(content="x")]).terminal_child


def test_terminal_flags():
    assert {n for n, cls in va.ACTION_TYPES.items() if cls.terminal} == {"CallUser", "Answer", "Finished"}


@pytest.mark.parametrize("surface", sorted(SURFACES))
@settings(max_examples=100, deadline=None, derandomize=True)
@given(data=st.data())
def test_to_dict_is_json_and_round_trips(surface, data, action_strategy):
    action = data.draw(action_strategy(surface))
    d = json.loads(json.dumps(action.to_dict()))
    assert d["type"] == action.name
    assert action_from_dict(d) == action


def test_to_dict_shape():
    assert Drag(start=Point(0, 0.5), end=Point(1, 1)).to_dict() == {
        "type": "Drag",
        "start": [0.0, 0.5],
        "end": [1.0, 1.0],
    }
    with pytest.raises(ActionError, match="Unknown action type 'Fly'"):
        action_from_dict({"type": "Fly"})


def test_check_surface_names_the_surface_and_its_rules():
    with pytest.raises(ActionError, match="Scroll is not an action of the mobile surface"):
        check_surface(Scroll(point=Point(0, 0), direction="up"), "mobile")
    with pytest.raises(ActionError, match="Click on the browser surface needs a point"):
        check_surface(Click(), "browser")
    with pytest.raises(ActionError, match="Drag on the captcha surface needs start"):
        check_surface(Drag(end=Point(0, 0)), "captcha")
    with pytest.raises(ActionError, match="LongPress is not an action of the computer surface"):
        check_surface(Sequence(actions=(Click(), LongPress(point=Point(0, 0)))), "computer")
    check_surface(Click(), "computer")
    check_surface(Drag(end=Point(0, 0)), "computer")
    with pytest.raises(ValueError, match="Unknown surface"):
        check_surface(Click(), "watch")


def test_public_api_is_reexported():
    for name in ("Point", "Action", "ActionError", "ActionParseError", "Response", "ActionSpan", "parse_response",
                 "format_call", "format_response", "describe_actions", "SURFACES", "check_surface",
                 "action_from_dict", "Click", "Sequence", "Swipe", "SelectOption"):  # fmt: skip
        assert hasattr(va, name), name
    assert set(va.ACTION_TYPES) <= set(va.__all__)


def test_from_dict_refuses_misspelt_fields_and_bad_points():
    with pytest.raises(ActionError, match=r"Click has no field\(s\) \['pointt'\]"):
        action_from_dict({"type": "Click", "pointt": [0.1, 0.2]})
    with pytest.raises(ActionError, match=r"Click.point must be \[x, y\]"):
        action_from_dict({"type": "Click", "point": [0.1]})
    with pytest.raises(ActionError, match="Unknown action type"):
        action_from_dict({"type": ["Click"]})


def test_point_and_grid_survive_huge_integers():
    with pytest.raises(ActionError, match="outside"):
        Point(10**400, 0.5)
    assert va.coords.from_grid(10**400, 999) == 1.0 and va.coords.from_grid(-(10**400), 1000) == 0.0
