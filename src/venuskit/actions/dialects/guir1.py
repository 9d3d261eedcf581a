"""GUI-R1: `<think>…</think> <answer>[{'action': 'click', 'point': [x, y], 'input_text': 'no input text'}]</answer>`.

The answer is a Python-literal or JSON list of dicts (read with `json` or `ast.literal_eval`, never
evaluated). Points are pixels of the screenshot (pass its width and height); `[-100, -100]` (any
negative point) means "no point". `input_text` carries the typed text, the scroll direction, the app
name or the hotkey ("ctrl c"); 'no input text' means none.

Action names read: click, long_press, doubleclick, rightclick, moveto, type, scroll, press_back,
navigate_back, press_home, press_recent, enter / press_enter, press_tab / press_down / press_space,
hotkey, open_app, wait, complete (Finished) and impossible (CallUser). 'select' (a dropdown value by
text) has no venuskit action and is refused with a message.
"""

from __future__ import annotations

import ast
import json
import math
import re
import warnings
from collections.abc import Iterable
from typing import Any

from venuskit.actions import coords
from venuskit.actions.grammar import ActionParseError, BadValue, PySource, Response, check_thought
from venuskit.actions.types import (
    DIRECTIONS,
    Action,
    ActionError,
    CallUser,
    Click,
    DoubleClick,
    Finished,
    Hotkey,
    Hover,
    LaunchApp,
    LongPress,
    Point,
    PressBack,
    PressEnter,
    PressHome,
    PressRecent,
    RightClick,
    Scroll,
    Type,
    Wait,
)

NO_TEXT = "no input text"
NO_POINT = [-100, -100]

_POINTED = {"click": Click, "long_press": LongPress, "doubleclick": DoubleClick, "rightclick": RightClick,
            "moveto": Hover}  # fmt: skip
_BARE = {"press_back": PressBack, "navigate_back": PressBack, "press_home": PressHome, "press_recent": PressRecent,
         "enter": PressEnter, "press_enter": PressEnter, "wait": Wait, "complete": Finished,
         "impossible": CallUser}  # fmt: skip
_PRESS = {"press_tab": "tab", "press_down": "down", "press_space": "space"}
_ANSWER = re.compile(r"<answer>(.*?)</answer>", re.DOTALL | re.IGNORECASE)
_THINK = re.compile(r"<think>(.*?)</think>", re.DOTALL | re.IGNORECASE)


def _load(s: str) -> Any:
    """The answer list: JSON first, then a Python literal (raw newlines in strings tolerated)."""
    try:
        return json.loads(s)
    except (ValueError, RecursionError):
        pass
    try:
        with warnings.catch_warnings():  # invalid escapes warn about the source, not the answer
            warnings.simplefilter("ignore")
            return ast.literal_eval(PySource(s, single_line=False, wrap=False).text.strip())
    except (ValueError, TypeError, SyntaxError, RecursionError, MemoryError, OverflowError) as e:
        msg = (str(e).splitlines() or [type(e).__name__])[0][:100]
        raise ActionParseError(f"the answer is neither JSON nor a Python literal list ({msg})") from None


def _point(v: object, width: int, height: int) -> Point | None:
    if v is None:
        return None
    ok = isinstance(v, (list, tuple)) and len(v) == 2
    if not ok or not all(isinstance(n, (int, float)) and not isinstance(n, bool) and math.isfinite(n) for n in v):
        raise BadValue(f"'point' must be [x, y] in pixels, got {v!r}"[:200])
    if v[0] < 0 or v[1] < 0:
        return None  # GUI-R1 writes [-100, -100] for "no point"
    return Point(*coords.point_from_pixels(v[0], v[1], width, height))


def _action(d: object, width: int, height: int) -> Action:
    if not isinstance(d, dict) or not isinstance(d.get("action"), str):
        raise BadValue(f"each item must be a dict with an 'action' name, got {d!r}"[:200])
    name = d["action"].strip().lower()
    text = d.get("input_text", NO_TEXT)
    if not isinstance(text, str):
        raise BadValue(f"'input_text' must be a string, got {text!r}"[:200])
    given = None if text.strip().lower() == NO_TEXT else text
    point = _point(d.get("point"), width, height)
    if name in _POINTED:
        if point is None:
            raise BadValue(f"{name} needs a point [x, y]")
        return _POINTED[name](point=point)
    if name in _BARE:
        return _BARE[name]()
    if name == "type":
        return Type(content=given or "")
    if name == "scroll":
        direction = (given or "").strip().lower()
        if direction not in DIRECTIONS:
            raise BadValue(f"scroll needs input_text in {', '.join(DIRECTIONS)}, got {text!r}")
        return Scroll(point=point, direction=direction)  # type: ignore[arg-type]
    if name == "open_app":
        return LaunchApp(app=given or "")
    if name in _PRESS or name == "hotkey":
        keys = (_PRESS[name],) if name in _PRESS else tuple((given or "").lower().replace("+", " ").split())
        return Hotkey(keys=keys)
    raise BadValue(f"{name!r} is not a GUI-R1 action venuskit can run")


def parse(text: str, width: int, height: int) -> Response:
    """Parse a GUI-R1 answer (the bare list, or text with <answer>…</answer>) for a width x height screenshot."""
    if not isinstance(text, str):
        raise ActionParseError(f"the response must be a string, got {type(text).__name__}")
    answers = _ANSWER.findall(text)
    if len(answers) > 1:
        raise ActionParseError(f"found {len(answers)} <answer> blocks; exactly one is allowed")
    think = _THINK.search(text)
    data = _load(answers[0] if answers else text.strip())
    items = [data] if isinstance(data, dict) else data
    if not isinstance(items, list) or not items:
        raise ActionParseError("the answer must be a non-empty list of action dicts")
    actions = []
    for i, item in enumerate(items):
        try:
            actions.append(_action(item, width, height))
        except ValueError as e:  # ActionError included
            raise ActionParseError(f"item {i}: {e}") from None
    return Response(thought=think.group(1).strip() if think else None, actions=actions, raw=text)


def _item(a: Action, width: int, height: int) -> dict[str, Any]:
    point = getattr(a, "point", None)
    px = list(coords.point_to_pixels(point.as_tuple(), width, height)) if point is not None else NO_POINT
    names = {v: k for k, v in reversed(list(_POINTED.items()))} | {v: k for k, v in reversed(list(_BARE.items()))}
    if type(a) in names:
        return {"action": names[type(a)], "point": px, "input_text": NO_TEXT}
    if isinstance(a, Type):
        return {"action": "type", "point": NO_POINT, "input_text": a.content}
    if isinstance(a, Scroll):
        return {"action": "scroll", "point": px, "input_text": a.direction}
    if isinstance(a, LaunchApp):
        return {"action": "open_app", "point": NO_POINT, "input_text": a.app}
    if isinstance(a, Hotkey) and a.repeat == 1:
        return {"action": "hotkey", "point": NO_POINT, "input_text": " ".join(a.keys)}
    raise ActionError(f"{a.name} cannot be written as a GUI-R1 action.")


def format_answer(actions: Action | Iterable[Action], width: int, height: int) -> str:
    """The answer list as GUI-R1 writes it (a Python literal with single quotes)."""
    acts = [actions] if isinstance(actions, Action) else list(actions)
    return repr([_item(a, width, height) for a in acts])


def format_response(thought: str, actions: Action | Iterable[Action], width: int, height: int) -> str:
    check_thought(thought)
    return f"<think>{thought}</think> <answer>{format_answer(actions, width, height)}</answer>"


__all__ = ["NO_TEXT", "format_answer", "format_response", "parse"]
