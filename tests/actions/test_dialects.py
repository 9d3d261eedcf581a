"""Dialects: UI-TARS, GUI-R1, pyautogui (OSWorld) and UI-Venus-1.5 read into and write from venuskit actions."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from venuskit.actions import (
    ActionError,
    ActionParseError,
    CallUser,
    Click,
    DoubleClick,
    Drag,
    Finished,
    Hotkey,
    Hover,
    KeyDown,
    KeyUp,
    Launch,
    LaunchApp,
    LongPress,
    MiddleClick,
    MouseDown,
    MouseUp,
    Point,
    PressBack,
    PressEnter,
    PressHome,
    PressRecent,
    RightClick,
    Scroll,
    Sequence,
    Swipe,
    TripleClick,
    Type,
    Wait,
    coords,
)
from venuskit.actions.dialects import guir1, pyautogui, uitars, venus15

PROPS = settings(max_examples=120, deadline=None, derandomize=True)
unit = st.floats(0.0, 1.0, allow_nan=False)
points = st.builds(Point, unit, unit)
texts = st.text(st.characters(codec="utf-8"), max_size=16)


def near(a: Point, b: Point, dx: float, dy: float) -> bool:
    return abs(a.x - b.x) <= dx + 1e-12 and abs(a.y - b.y) <= dy + 1e-12


# ---- UI-TARS ---------------------------------------------------------------------------------------


def test_uitars_reads_every_coordinate_spelling():
    want = Click(point=Point(0.1, 0.2))
    for arg in ["start_box='<|box_start|>(100,200)<|box_end|>'", "start_box='(100,200)'", "start_box='[100, 200]'",
                "point='<point>100 200</point>'", "start_box='(50,150,150,250)'"]:  # fmt: skip
        r = uitars.parse(f"Thought: go\nAction: click({arg})")
        assert r.actions == [want], arg
        assert r.thought == "go"


def test_uitars_action_set():
    r = uitars.parse(
        "Thought: several\nAction: left_double(start_box='(1,2)')\n\nright_single(start_box='(1,2)')\n\n"
        "drag(start_box='(0,0)', end_box='(1000,1000)')\n\ntype(content='hi\\n')\n\n"
        "scroll(start_box='(500,500)', direction='down')\n\nscroll(direction='UP')\n\nhotkey(key='ctrl c')\n\n"
        "wait()\n\nfinished(content='done')\n\ncall_user()\n\nlong_press(point='<point>1 2</point>')\n\n"
        "press_back()\n\npress_home()\n\nopen_app(app_name='Maps')\n\nhover(start_box='(1,2)')\n\n"
        "swipe(start_point='<point>1 2</point>', end_point='<point>3 4</point>')"
    )
    p12 = Point(0.001, 0.002)
    assert r.actions == [
        DoubleClick(point=p12),
        RightClick(point=p12),
        Drag(start=Point(0, 0), end=Point(1, 1)),
        Type(content="hi\n"),
        Scroll(point=Point(0.5, 0.5), direction="down"),
        Scroll(direction="up"),
        Hotkey(keys=("ctrl", "c")),
        Wait(),
        Finished(content="done"),
        CallUser(),
        LongPress(point=p12),
        PressBack(),
        PressHome(),
        LaunchApp(app="Maps"),
        Hover(point=p12),
        Swipe(start=p12, end=Point(0.003, 0.004)),
    ]


def test_uitars_resized_pixels_go_through_smart_resize_factor_28():
    # 1920x1080 -> 1932x1092 (factor 28); pixel 966 of 1932 is the centre column
    r = uitars.parse("Action: click(start_box='(966,546)')", coord_mode="resized_pixels", width=1920, height=1080)
    (a,) = r.actions
    assert r.thought is None
    rh, rw = coords.smart_resize(1080, 1920, 28, min_pixels=uitars.UITARS_MIN_PIXELS,
                                 max_pixels=uitars.UITARS_MAX_PIXELS)  # fmt: skip
    assert (rh, rw) == (1092, 1932)
    assert a == Click(point=Point(966.5 / 1932, 546.5 / 1092))


UITARS_ACTIONS = st.one_of(
    st.builds(Click, point=points), st.builds(DoubleClick, point=points), st.builds(RightClick, point=points),
    st.builds(Hover, point=points), st.builds(LongPress, point=points), st.builds(Drag, start=points, end=points),
    st.builds(Swipe, start=points, end=points), st.builds(Type, content=texts),
    st.builds(Scroll, point=points | st.none(), direction=st.sampled_from(["up", "down", "left", "right"])),
    st.builds(Hotkey, keys=st.lists(st.sampled_from(["ctrl", "shift", "a", "f5"]), min_size=1, max_size=3).map(tuple)),
    st.builds(KeyDown, keys=st.just(("shift",))), st.builds(KeyUp, keys=st.just(("alt",))),
    st.builds(Finished, content=texts), st.just(Wait()), st.just(CallUser()), st.just(PressBack()),
    st.just(PressHome()), st.builds(LaunchApp, app=texts),
)  # fmt: skip


def _snap_points(a, fn):
    import dataclasses

    return dataclasses.replace(a, **{f.name: fn(getattr(a, f.name)) for f in dataclasses.fields(a)
                                     if isinstance(getattr(a, f.name), Point)})  # fmt: skip


@PROPS
@given(action=UITARS_ACTIONS, style=st.sampled_from(["box", "point"]), thought=st.text(max_size=20))
def test_uitars_round_trip_relative1000(action, style, thought):
    text = uitars.format_response(thought.strip() or None, [action], style=style)
    r = uitars.parse(text)
    snap = lambda p: Point(coords.from_grid(coords.to_grid(p.x, 1000), 1000),
                           coords.from_grid(coords.to_grid(p.y, 1000), 1000))  # fmt: skip
    assert r.actions == [_snap_points(action, snap)]
    assert r.thought == (thought.strip() or None)


@PROPS
@given(action=UITARS_ACTIONS, w=st.integers(320, 4000), h=st.integers(320, 4000))
def test_uitars_round_trip_resized_pixels_within_one_pixel(action, w, h):
    frame = {"coord_mode": "resized_pixels", "width": w, "height": h}
    r = uitars.parse(uitars.format_response("t", action, **frame), **frame)
    (back,) = r.actions
    assert type(back) is type(action)
    rh, rw = coords.smart_resize(h, w, 28, min_pixels=uitars.UITARS_MIN_PIXELS, max_pixels=uitars.UITARS_MAX_PIXELS)
    for name in ("point", "start", "end"):
        a, b = getattr(action, name, None), getattr(back, name, None)
        assert (a is None) == (b is None)
        if a is not None:
            assert near(a, b, 1 / rw, 1 / rh)


def test_uitars_errors_are_parse_errors():
    cases = [
        ("no action here", "no 'Action:' line"),
        ("Action: fly()", "fly is not a UI-TARS action"),
        ("Action: click(start_box='(1,2)', x=1)", "keyword 'x' is not accepted"),
        ("Action: click('(1,2)')", "positional arguments"),
        ("Action: click(start_box='here')", "coordinate string"),
        ("Action: click(start_box='(1001,2)')", "outside the 0-1000 grid"),
        ("Action: click(start_box='(-1,2)')", "negative"),
        ("Action: click()", "needs start_box"),
        ("Action: scroll(direction='sideways')", "direction must be one of"),
        ("Action: click(start_box='(1,2)'", "not valid call syntax"),
        ("Action: x = 1", "expected a call"),
    ]
    for text, fragment in cases:
        with pytest.raises(ActionParseError) as info:
            uitars.parse(text)
        assert fragment.lower() in str(info.value).lower(), (text, str(info.value))
    with pytest.raises(ValueError, match="needs the screenshot's width and height"):
        uitars.parse("Action: wait()", coord_mode="resized_pixels")
    with pytest.raises(ActionError, match="cannot be written in the UI-TARS"):
        uitars.format_action(PressRecent())
    with pytest.raises(ActionError, match="no repeat"):
        uitars.format_action(Hotkey(keys=("a",), repeat=2))


# ---- GUI-R1 ----------------------------------------------------------------------------------------


def test_guir1_reads_python_literal_and_json_with_pixels():
    py = "<think>tap it</think> <answer>[{'action': 'click', 'point': [540, 1200], 'input_text': 'no input text'}]</answer>"
    r = guir1.parse(py, 1080, 2400)
    assert r.thought == "tap it"
    assert r.actions == [Click(point=Point(540.5 / 1080, 1200.5 / 2400))]
    js = '[{"action": "type", "point": [-100, -100], "input_text": "shanghai mall"}]'
    assert guir1.parse(js, 1080, 2400).actions == [Type(content="shanghai mall")]
    r = guir1.parse(
        "[{'action': 'scroll', 'point': [-100, -100], 'input_text': 'DOWN'}, {'action': 'complete'}]", 10, 10
    )
    assert r.actions == [Scroll(direction="down"), Finished()]


GUIR1_ACTIONS = st.one_of(
    st.builds(Click, point=points), st.builds(LongPress, point=points), st.builds(DoubleClick, point=points),
    st.builds(RightClick, point=points), st.builds(Hover, point=points), st.builds(Type, content=texts),
    st.builds(Scroll, point=points | st.none(), direction=st.sampled_from(["up", "down", "left", "right"])),
    st.builds(LaunchApp, app=texts.filter(lambda t: t.strip().lower() != guir1.NO_TEXT)),
    st.builds(Hotkey, keys=st.lists(st.sampled_from(["ctrl", "c", "tab"]), min_size=1, max_size=3).map(tuple)),
    st.sampled_from([PressBack(), PressHome(), PressRecent(), PressEnter(), Wait(), Finished(), CallUser()]),
)  # fmt: skip


@PROPS
@given(actions=st.lists(GUIR1_ACTIONS, min_size=1, max_size=3), w=st.integers(1, 4000), h=st.integers(1, 4000))
def test_guir1_round_trip_exact_pixels(actions, w, h):
    r = guir1.parse(guir1.format_response("t", actions, w, h), w, h)
    assert len(r.actions) == len(actions)
    for a, b in zip(actions, r.actions, strict=True):
        px = lambda p: coords.point_to_pixels(p.as_tuple(), w, h)
        assert type(a) is type(b)
        if getattr(a, "point", None) is not None:
            assert px(a.point) == px(b.point)  # the same screenshot pixel
        if isinstance(a, Type) and a.content.strip().lower() != guir1.NO_TEXT:
            assert b == a


def test_guir1_errors():
    cases = [
        ("[{'action': 'click', 'point': [-100, -100]}]", "click needs a point"),
        ("[{'action': 'select', 'input_text': 'Red'}]", "'select' is not a GUI-R1 action"),
        ("[{'action': 'scroll', 'input_text': 'no input text'}]", "scroll needs input_text"),
        ("[{'point': [1, 2]}]", "'action' name"),
        ("[]", "non-empty list"),
        ("<answer>[{'action': 'click', 'point': [1, 2]}]</answer><answer>[]</answer>", "2 <answer> blocks"),
        ("[{'action': 'click', 'point': __import__('os')}]", "neither JSON nor a Python literal"),
        ("[{'action': 'click', 'point': [1, 2, 3]}]", "'point' must be [x, y]"),
    ]
    for text, fragment in cases:
        with pytest.raises(ActionParseError) as info:
            guir1.parse(text, 100, 100)
        assert fragment.lower() in str(info.value).lower(), (text, str(info.value))


# ---- pyautogui -------------------------------------------------------------------------------------


def test_pyautogui_osworld_code():
    code = (
        "```python\nimport pyautogui\nimport time\n"
        "pyautogui.click(x=100, y=200)\npyautogui.write('abc')\npyautogui.typewrite('d\\n', interval=0.1)\n"
        "pyautogui.hotkey('ctrl', 'c')\npyautogui.scroll(-3)\npyautogui.hscroll(2, x=10, y=10)\n"
        "pyautogui.doubleClick(100, 200)\npyautogui.rightClick()\npyautogui.click(button='middle')\n"
        "pyautogui.click(100, 200, clicks=3)\npyautogui.press('enter')\npyautogui.press(['a', 'b'])\n"
        "pyautogui.keyDown('shift')\npyautogui.keyUp('shift')\ntime.sleep(0.5)\npyautogui.mouseDown()\n"
        "pyautogui.mouseUp(x=1, y=1)\n```"
    )
    (seq,) = pyautogui.parse(code, 1000, 500).actions
    p = Point(100.5 / 1000, 200.5 / 500)
    one = Point(1.5 / 1000, 1.5 / 500)
    assert isinstance(seq, Sequence)
    assert seq.actions == (
        Click(point=p), Type(content="abc"), Type(content="d\n"), Hotkey(keys=("ctrl", "c")),
        Scroll(direction="down", amount=3), Scroll(point=Point(10.5 / 1000, 10.5 / 500), direction="right", amount=2),
        DoubleClick(point=p), RightClick(), MiddleClick(), TripleClick(point=p), Hotkey(keys=("enter",)),
        Hotkey(keys=("a",)), Hotkey(keys=("b",)), KeyDown(keys=("shift",)), KeyUp(keys=("shift",)),
        Wait(seconds=0.5), MouseDown(), MouseUp(point=one),
    )  # fmt: skip


def test_pyautogui_special_strings_and_drag_fusion():
    assert pyautogui.parse("DONE", 10, 10).actions == [Finished()]
    assert pyautogui.parse(" FAIL\n", 10, 10).actions == [CallUser()]
    assert pyautogui.parse("WAIT", 10, 10).actions == [Wait()]
    (drag,) = pyautogui.parse("pyautogui.moveTo(1, 2)\npyautogui.dragTo(3, 4, duration=0.5)", 10, 10).actions
    assert drag == Drag(start=Point(0.15, 0.25), end=Point(0.35, 0.45))
    (alone,) = pyautogui.parse("pyautogui.dragTo(3, 4)", 10, 10).actions
    assert alone == Drag(end=Point(0.35, 0.45))


PYAUTOGUI_ACTIONS = st.one_of(
    *[st.builds(cls, point=points | st.none()) for cls in (Click, DoubleClick, TripleClick, RightClick, MiddleClick,
                                                           MouseDown, MouseUp)],
    st.builds(Hover, point=points), st.builds(Drag, start=points | st.none(), end=points),
    st.builds(Type, content=texts),
    st.builds(Hotkey, keys=st.lists(st.sampled_from(["ctrl", "alt", "x"]), min_size=2, max_size=3).map(tuple)),
    st.builds(Hotkey, keys=st.sampled_from(["enter", "tab"]).map(lambda k: (k,)), repeat=st.integers(1, 9)),
    st.builds(KeyDown, keys=st.just(("shift",))), st.builds(KeyUp, keys=st.just(("shift",))),
    st.builds(Scroll, point=points | st.none(), direction=st.sampled_from(["up", "down", "left", "right"]),
              amount=st.integers(1, 50)),
    st.builds(Wait, seconds=st.none() | st.floats(0.1, 60)), st.just(Finished()), st.just(CallUser()),
)  # fmt: skip


@PROPS
@given(action=PYAUTOGUI_ACTIONS, w=st.integers(1, 4000), h=st.integers(1, 4000))
def test_pyautogui_round_trip_same_screen_pixel(action, w, h):
    code = pyautogui.format_action(action, w, h)
    (back,) = pyautogui.parse(code, w, h).actions
    assert type(back) is type(action)
    for name in ("point", "start", "end"):
        a, b = getattr(action, name, None), getattr(back, name, None)
        assert (a is None) == (b is None)
        if a is not None:
            assert coords.point_to_pixels(a.as_tuple(), w, h) == coords.point_to_pixels(b.as_tuple(), w, h)
    if not any(isinstance(getattr(action, n, None), Point) for n in ("point", "start", "end")):
        assert back == action


def test_pyautogui_sequence_round_trip_and_refusals():
    seq = Sequence(actions=(Click(point=Point(0.5, 0.5)), Type(content="x"), Hotkey(keys=("ctrl", "s"))))
    assert pyautogui.parse(pyautogui.format_action(seq, 100, 100), 100, 100).actions == [
        Sequence(actions=(Click(point=Point(0.505, 0.505)), Type(content="x"), Hotkey(keys=("ctrl", "s"))))
    ]
    with pytest.raises(ActionError, match="cannot be written as pyautogui"):
        pyautogui.format_action(LaunchApp(app="x"), 10, 10)
    with pytest.raises(ActionError, match="DONE/FAIL must be a whole response"):
        pyautogui.format_action(Sequence(actions=(Click(), Finished())), 10, 10)


def test_pyautogui_errors():
    cases = [
        ("import os\nos.system('rm -rf /')", "not a supported pyautogui call"),
        ("pyautogui.click(x=1)", "x and y must both be pixel numbers"),
        ("pyautogui.click(x=1, y=2, foo=3)", "does not take 'foo'"),
        ("pyautogui.click(1, 2, 1, 0.0, 'left', 0.1, 9, 9)", "at most 6 positional"),
        ("pyautogui.click(button='left', clicks=4)", "has no venuskit action"),
        ("pyautogui.scroll(0)", "scroll(0) does nothing"),
        ("pyautogui.moveTo()", "needs x and y"),
        ("pyautogui.press(5)", "needs key names"),
        ("x = pyautogui.position()", "expected a pyautogui"),
        ("for i in range(3): pyautogui.click()", "expected a pyautogui"),
        ("pyautogui.click(x=eval('1'), y=2)", "only literal"),
        ("time.sleep(0)", "Wait.seconds"),
        ("import pyautogui", "no pyautogui action"),
        ("\n".join(["pyautogui.click()"] * 33), "33 actions"),
        ("pyautogui.click(", "not valid call syntax"),
    ]
    for text, fragment in cases:
        with pytest.raises(ActionParseError) as info:
            pyautogui.parse(text, 100, 100)
        assert fragment.lower() in str(info.value).lower(), (text, str(info.value))


# ---- UI-Venus-1.5 ----------------------------------------------------------------------------------


def test_venus15_response_with_conclusion():
    text = (
        "<think>Open settings.</think><action>Click(box=(500, 1000))</action><conclusion>Tapped settings.</conclusion>"
    )
    r = venus15.parse(text)
    assert r.thought == "Open settings." and r.conclusion == "Tapped settings."
    assert r.actions == [Click(point=Point(0.5, 1.0))]
    assert text[slice(*r.action_spans[0].name_span)] == "Click"


def test_venus15_overloaded_calls():
    read = lambda call: venus15.parse(f"<think>t</think><action>{call}</action>").actions[0]
    assert read("Scroll(start=(0, 800), end=(0, 200), direction='up')") == Swipe(
        start=Point(0, 0.8), end=Point(0, 0.2)
    )
    assert read("Scroll(direction='down')") == Scroll(direction="down")
    assert read("Launch(app='Maps')") == LaunchApp(app="Maps")
    assert read("Launch(url='https://a.b')") == Launch(url="https://a.b")
    assert read("Hotkey(keys=['ctrl', 'c'])") == Hotkey(keys=("ctrl", "c"))
    assert venus15.parse("<action>Wait()</action>").conclusion is None
    for bad, fragment in [
        ("Scroll(start=(1, 2))", "both start"),
        ("Launch(app='a', url='b')", "exactly one of"),
        ("Click(box=(1001, 2))", "outside the grid 0..1000"),
        ("Swipe(start=(1, 2), end=(3, 4))", "Swipe is not an action of the UI-Venus-1.5 grammar"),
    ]:
        with pytest.raises(ActionParseError, match=fragment):
            read(bad)
    with pytest.raises(ActionParseError, match="Only a <conclusion>"):
        venus15.parse("<action>Wait()</action><conclusion>never closed")


VENUS15_ACTIONS = st.one_of(
    st.builds(Click, point=points), st.builds(Drag, start=points, end=points), st.builds(Swipe, start=points, end=points),
    st.builds(Scroll, direction=st.sampled_from(["up", "down", "left", "right"])), st.builds(Type, content=texts),
    st.builds(LaunchApp, app=texts), st.builds(Launch, url=texts), st.builds(Finished, content=texts),
    st.builds(CallUser, content=texts), st.builds(LongPress, point=points), st.builds(Hover, point=points),
    st.builds(DoubleClick, point=points), st.builds(Hotkey, keys=st.just(("ctrl", "v"))),
    st.sampled_from([Wait(), PressBack(), PressHome(), PressEnter(), PressRecent()]),
)  # fmt: skip


@PROPS
@given(action=VENUS15_ACTIONS, conclusion=st.text(max_size=10).filter(lambda t: "<" not in t))
def test_venus15_round_trip(action, conclusion):
    r = venus15.parse(venus15.format_response("think", action, conclusion))
    snap = lambda p: Point(coords.from_grid(coords.to_grid(p.x, 1000), 1000),
                           coords.from_grid(coords.to_grid(p.y, 1000), 1000))  # fmt: skip
    assert r.actions == [_snap_points(action, snap)]
    assert r.conclusion == conclusion.strip()
