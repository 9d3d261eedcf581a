"""pyautogui code as OSWorld agents write it: `pyautogui.click(x=100, y=200)`, several statements a turn.

The code is parsed with `ast` and never executed. Coordinates are screen pixels (pass the screen's
width and height). Supported: click (clicks=, button=), doubleClick, tripleClick, rightClick,
middleClick, moveTo, dragTo, mouseDown, mouseUp, write / typewrite, press (presses=), hotkey, keyDown,
keyUp, scroll / vscroll / hscroll, `time.sleep(s)`, and OSWorld's whole-response strings WAIT, DONE
and FAIL. `import` lines are ignored; a ```python fence around the code is removed.

Mapping choices: several statements become one Sequence; `moveTo(a)` directly followed by `dragTo(b)`
is one Drag(start=a, end=b) (the usual drag idiom); scroll(+n) is Scroll up n clicks and hscroll(+n)
right (pyautogui's signs); DONE is Finished, FAIL is CallUser (OSWorld's "infeasible") and WAIT is
Wait(). A typewrite/press key list becomes one Hotkey per key.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Iterable
from typing import Any

from venuskit.actions import coords
from venuskit.actions.grammar import ActionParseError, BadValue, PySource, Response, literal, quote
from venuskit.actions.types import (
    MAX_SEQUENCE,
    Action,
    ActionError,
    CallUser,
    Click,
    DoubleClick,
    Drag,
    Finished,
    Hotkey,
    Hover,
    KeyDown,
    KeyUp,
    MiddleClick,
    MouseDown,
    MouseUp,
    Point,
    PressEnter,
    RightClick,
    Scroll,
    Sequence,
    TripleClick,
    Type,
    Wait,
)

SPECIAL = {"WAIT": Wait, "DONE": Finished, "FAIL": CallUser}
DEFAULT_SCROLL_CLICKS = 5  # written for a Scroll whose amount is None
_FENCE = re.compile(r"```(?:python|py)?[ \t]*\n?(.*?)```", re.DOTALL)
_IGNORED_KW = {"duration", "interval", "tween", "_pause", "logScreenshot"}

# function -> positional parameter names (pyautogui's order); other accepted keywords are _IGNORED_KW
_PARAMS: dict[str, tuple[str, ...]] = {
    "click": ("x", "y", "clicks", "interval", "button", "duration"),
    "doubleClick": ("x", "y", "interval", "button", "duration"),
    "tripleClick": ("x", "y", "interval", "button", "duration"),
    "rightClick": ("x", "y", "duration"),
    "middleClick": ("x", "y", "duration"),
    "moveTo": ("x", "y", "duration"),
    "dragTo": ("x", "y", "duration", "button"),
    "mouseDown": ("x", "y", "button"),
    "mouseUp": ("x", "y", "button"),
    "write": ("message", "interval"),
    "typewrite": ("message", "interval"),
    "press": ("keys", "presses", "interval"),
    "keyDown": ("key",),
    "keyUp": ("key",),
    "scroll": ("clicks", "x", "y"),
    "vscroll": ("clicks", "x", "y"),
    "hscroll": ("clicks", "x", "y"),
}


class _Screen:
    def __init__(self, width: int, height: int) -> None:
        if width <= 0 or height <= 0:
            raise ValueError(f"The screen size must be positive, got {width}x{height}.")
        self.width, self.height = width, height

    def point(self, args: dict[str, Any], required: bool) -> Point | None:
        x, y = args.get("x"), args.get("y")
        if isinstance(x, (tuple, list)) and y is None and len(x) == 2:  # click((x, y))
            x, y = x
        if x is None and y is None:
            if required:
                raise BadValue("needs x and y")
            return None
        if not all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in (x, y)):
            raise BadValue(f"x and y must both be pixel numbers, got x={x!r}, y={y!r}")
        return Point(*coords.point_from_pixels(x, y, self.width, self.height))  # type: ignore[arg-type]

    def pixels(self, p: Point) -> tuple[int, int]:
        return coords.point_to_pixels(p.as_tuple(), self.width, self.height)


def _bind(fn: str, call: ast.Call, src: PySource) -> dict[str, Any]:
    names = _PARAMS.get(fn)
    if names is None:  # hotkey(*keys)
        if call.keywords and any(k.arg not in _IGNORED_KW for k in call.keywords):
            raise BadValue("takes only key names")
        return {"keys": tuple(literal(a, src) for a in call.args)}
    if len(call.args) > len(names):
        raise BadValue(f"takes at most {len(names)} positional arguments")
    args = {names[i]: literal(a, src) for i, a in enumerate(call.args)}
    for kw in call.keywords:
        if kw.arg is None or (kw.arg not in names and kw.arg not in _IGNORED_KW) or kw.arg in args:
            raise BadValue(f"does not take {'**kwargs' if kw.arg is None else repr(kw.arg)} here")
        args[kw.arg] = literal(kw.value, src)
    return args


def _key_names(v: object) -> list[str]:
    keys = [v] if isinstance(v, str) else v
    if not isinstance(keys, (list, tuple)) or not keys or not all(isinstance(k, str) and k for k in keys):
        raise BadValue(f"needs key names, got {v!r}"[:200])
    return [k.lower() for k in keys]


def _int(v: object, what: str) -> int:
    if isinstance(v, bool) or not isinstance(v, int):
        raise BadValue(f"{what} must be an integer, got {v!r}"[:200])
    return v


def _mouse(fn: str, a: dict[str, Any], screen: _Screen) -> list[Action]:
    button = a.get("button", "left")
    if not isinstance(button, str):
        raise BadValue(f"button must be 'left', 'right' or 'middle', got {button!r}"[:200])
    if fn == "click":
        clicks = _int(a.get("clicks", 1), "clicks")
        kinds = {("left", 1): Click, ("left", 2): DoubleClick, ("left", 3): TripleClick, ("right", 1): RightClick,
                 ("middle", 1): MiddleClick}  # fmt: skip
        if (button, clicks) not in kinds:
            raise BadValue(f"button={button!r} with clicks={clicks} has no venuskit action")
        return [kinds[(button, clicks)](point=screen.point(a, False))]
    if button != "left":
        raise BadValue(f"only the left button is supported here, got {button!r}")
    simple = {"doubleClick": DoubleClick, "tripleClick": TripleClick, "rightClick": RightClick,
              "middleClick": MiddleClick, "mouseDown": MouseDown, "mouseUp": MouseUp}  # fmt: skip
    if fn in simple:
        return [simple[fn](point=screen.point(a, False))]
    if fn == "moveTo":
        return [Hover(point=screen.point(a, True))]  # type: ignore[arg-type]
    return [Drag(end=screen.point(a, True))]  # type: ignore[arg-type]  # dragTo


def _keyboard(fn: str, a: dict[str, Any]) -> list[Action]:
    if fn in ("write", "typewrite"):
        msg = a.get("message")
        if isinstance(msg, str):
            return [Type(content=msg)]
        return [Hotkey(keys=(k,)) for k in _key_names(msg)]
    if fn == "press":
        presses = _int(a.get("presses", 1), "presses")
        return [Hotkey(keys=(k,), repeat=presses) for k in _key_names(a.get("keys"))]
    if fn == "hotkey":
        keys = a["keys"]
        if len(keys) == 1 and isinstance(keys[0], (list, tuple)):  # hotkey(['ctrl', 'c'])
            keys = keys[0]
        return [Hotkey(keys=tuple(_key_names(list(keys))))]
    cls = KeyDown if fn == "keyDown" else KeyUp
    return [cls(keys=tuple(_key_names(a.get("key"))))]


def _scroll(fn: str, a: dict[str, Any], screen: _Screen) -> list[Action]:
    clicks = _int(a.get("clicks"), "clicks")
    if clicks == 0:
        raise BadValue("scroll(0) does nothing")
    positive, negative = ("right", "left") if fn == "hscroll" else ("up", "down")
    direction = positive if clicks > 0 else negative
    return [Scroll(point=screen.point(a, False), direction=direction, amount=abs(clicks))]  # type: ignore[arg-type]


def _statement(node: ast.stmt, src: PySource, screen: _Screen) -> list[Action]:
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return []
    call = node.value if isinstance(node, ast.Expr) else None
    func = getattr(call, "func", None)
    if not isinstance(call, ast.Call) or not isinstance(func, ast.Attribute) or not isinstance(func.value, ast.Name):
        raise ActionParseError(f"expected a pyautogui.*() or time.sleep() call, found {src.snippet(node)!r}",
                               offset=src.start(node))  # fmt: skip
    module, fn = func.value.id, func.attr
    name, at = f"{module}.{fn}", src.start(node)
    try:
        if module == "time" and fn == "sleep" and len(call.args) == 1 and not call.keywords:
            return [Wait(seconds=literal(call.args[0], src))]
        if module != "pyautogui" or (fn not in _PARAMS and fn != "hotkey"):
            raise BadValue("is not a supported pyautogui call")
        a = _bind(fn, call, src)
        if fn in ("write", "typewrite", "press", "hotkey", "keyDown", "keyUp"):
            return _keyboard(fn, a)
        if fn in ("scroll", "vscroll", "hscroll"):
            return _scroll(fn, a, screen)
        return _mouse(fn, a, screen)
    except ActionParseError:
        raise
    except ValueError as e:  # ActionError included
        raise ActionParseError(str(e), call=name, offset=at) from None


def _fuse_drags(actions: list[Action]) -> list[Action]:
    """moveTo(a) then dragTo(b) is one drag from a to b."""
    out: list[Action] = []
    for a in actions:
        if isinstance(a, Drag) and a.start is None and out and isinstance(out[-1], Hover):
            out.append(Drag(start=out.pop().point, end=a.end))  # type: ignore[attr-defined]
        else:
            out.append(a)
    return out


def parse(text: str, width: int, height: int) -> Response:
    """Parse OSWorld-style pyautogui code for a width x height screen into one action (a Sequence
    when the code does several things)."""
    screen = _Screen(width, height)
    if not isinstance(text, str):
        raise ActionParseError(f"the response must be a string, got {type(text).__name__}")
    if text.strip() in SPECIAL:
        return Response(thought=None, actions=[SPECIAL[text.strip()]()], raw=text)
    fence = _FENCE.search(text)
    start = fence.start(1) if fence else 0
    code = fence.group(1) if fence else text
    src = PySource(code, start, single_line=False, wrap=False)
    actions: list[Action] = []
    for node in src.parse(mode="exec").body:  # type: ignore[attr-defined]
        actions += _statement(node, src, screen)
    actions = _fuse_drags(actions)
    if not actions:
        raise ActionParseError("the code holds no pyautogui action")
    if len(actions) > MAX_SEQUENCE:
        raise ActionParseError(f"the code holds {len(actions)} actions; at most {MAX_SEQUENCE} fit one Sequence")
    try:
        action = actions[0] if len(actions) == 1 else Sequence(actions=tuple(actions))
    except ActionError as e:
        raise ActionParseError(str(e)) from None
    return Response(thought=None, actions=[action], raw=text)


# ---- format ----------------------------------------------------------------------------------------


def _xy(p: Point | None, screen: _Screen) -> str:
    if p is None:
        return ""
    x, y = screen.pixels(p)
    return f"x={x}, y={y}"


def _lines(a: Action, screen: _Screen) -> list[str]:
    mouse = {Click: "click", DoubleClick: "doubleClick", TripleClick: "tripleClick", RightClick: "rightClick",
             MiddleClick: "middleClick", MouseDown: "mouseDown", MouseUp: "mouseUp", Hover: "moveTo"}  # fmt: skip
    if type(a) in mouse:
        return [f"pyautogui.{mouse[type(a)]}({_xy(a.point, screen)})"]  # type: ignore[attr-defined]
    if isinstance(a, Drag):
        lines = [f"pyautogui.moveTo({_xy(a.start, screen)})"] if a.start is not None else []
        return lines + [f"pyautogui.dragTo({_xy(a.end, screen)}, duration=0.5, button='left')"]
    if isinstance(a, Type):
        return [f"pyautogui.write({quote(a.content)})"]
    if isinstance(a, Hotkey):
        if len(a.keys) == 1:
            extra = f", presses={a.repeat}" if a.repeat != 1 else ""
            return [f"pyautogui.press({quote(a.keys[0])}{extra})"]
        return [f"pyautogui.hotkey({', '.join(quote(k) for k in a.keys)})"] * a.repeat
    if isinstance(a, (KeyDown, KeyUp)):
        fn = "keyDown" if isinstance(a, KeyDown) else "keyUp"
        return [f"pyautogui.{fn}({quote(k)})" for k in a.keys]
    if isinstance(a, PressEnter):
        return ["pyautogui.press('enter')"]
    if isinstance(a, Scroll):
        n = a.amount or DEFAULT_SCROLL_CLICKS
        fn = "hscroll" if a.direction in ("left", "right") else "scroll"
        signed = n if a.direction in ("up", "right") else -n
        at = _xy(a.point, screen)
        return [f"pyautogui.{fn}({signed}{', ' + at if at else ''})"]
    if isinstance(a, Wait):
        return [f"time.sleep({a.seconds!r})"] if a.seconds is not None else ["time.sleep(1)"]
    if isinstance(a, Sequence):
        if a.actions[-1].terminal:
            raise ActionError("OSWorld's DONE/FAIL must be a whole response; it cannot end a Sequence.")
        return [line for child in a.actions for line in _lines(child, screen)]
    raise ActionError(f"{a.name} cannot be written as pyautogui code.")


def format_action(action: Action, width: int, height: int) -> str:
    """pyautogui code for `action` on a width x height screen (WAIT / DONE / FAIL for Wait(),
    Finished and CallUser)."""
    screen = _Screen(width, height)
    for word, cls in SPECIAL.items():
        if type(action) is cls and (cls is not Wait or action.seconds is None):  # type: ignore[attr-defined]
            return word
    return "\n".join(_lines(action, screen))


def format_response(actions: Action | Iterable[Action], width: int, height: int) -> str:
    """Code for one or several actions (several are written one after another)."""
    acts = [actions] if isinstance(actions, Action) else list(actions)
    if len(acts) == 1:
        return format_action(acts[0], width, height)
    return format_action(Sequence(actions=tuple(acts)), width, height)


__all__ = ["DEFAULT_SCROLL_CLICKS", "SPECIAL", "format_action", "format_response", "parse"]
