"""The one table of calls: for each UI-Venus-2 surface, every call its grammar has, in prompt order, with the
action type(s) it reads into and writes from, its keyword arguments and its one-line meaning in the prompt.

Everything that lists a surface's actions is derived from these rows: the actions a surface accepts
(`surfaces.py`), its grammar (`grammar/`) and the action list of its system prompt (`describe.py`), so the
validator and the prompt cannot drift apart. The meanings paraphrase reference/ui-venus.md §2.2-2.5.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from venuskit.actions.types import (
    Action,
    ActionError,
    Answer,
    CallUser,
    Click,
    DoubleClick,
    Drag,
    Finished,
    GetScreenshot,
    GetUrl,
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
    PressBack,
    PressEnter,
    PressHome,
    PressRecent,
    RightClick,
    Scroll,
    SelectOption,
    Sequence,
    Swipe,
    TakeNote,
    TripleClick,
    Type,
    Wait,
)


@dataclass(frozen=True)
class Param:
    """One keyword argument of a call. `name` "point" is spelt with the grammar's point keyword and
    also accepts the other spelling (`box` <-> `point`)."""

    name: str
    kind: str  # point | text | int | number | keys | direction | axis | actions
    required: bool = True
    field: str = ""  # the action's dataclass field; "" = same as name
    default: Any = None  # optional params equal to this are not written
    always: bool = False  # written even when equal to the default (e.g. Finished(content=''))
    shown: bool = True  # False: a venuskit extension, accepted but not in the prompt signature
    max_items: int | None = None  # keys: at most this many names
    example: str = ""  # placeholder in the prompt signature

    @property
    def attr(self) -> str:
        return self.field or self.name


@dataclass(frozen=True)
class CallSpec:
    """One call of a grammar and the action type(s) it reads into and writes from."""

    call: str
    handles: tuple[type[Action], ...]
    params: tuple[Param, ...] = ()
    build: Callable[[dict[str, Any]], Action] | None = None  # custom kwargs -> action
    unbuild: Callable[[Action], dict[str, Any]] | None = None  # custom action -> kwargs
    bare_ok: bool = False  # the signature adds ", or Click()" (pointer at the current cursor)
    meaning: str = ""  # the prompt's one line about the call (every surface call has one; dialects need none)


# -- param shorthands (examples are the prompt placeholders) --
_POINT = Param("point", "point", example="(x1, y1)")
_POINT_OPT = Param("point", "point", required=False, example="(x1, y1)")
_START = Param("start", "point", example="(x1, y1)")
_END = Param("end", "point", example="(x2, y2)")
_CONTENT = Param("content", "text", example="''")
_CONTENT_OPT = Param("content", "text", required=False, default="", always=True, example="''")
_WAIT_SECONDS = Param("seconds", "number", required=False, shown=False)
_WAIT = "Wait for the page, an animation or content to finish loading."
_CALL_USER = "Ask the user to take over or to supply missing information, e.g. when several options fit."
_TYPE = "Enter `content` into the input field that has focus."
_FINISHED = "Declare the task complete and tell the user how it went in `content`."


def _spec(cls: type[Action], *params: Param, meaning: str, call: str = "", **kw: Any) -> CallSpec:
    return CallSpec(call or cls.name, (cls,), tuple(params), meaning=meaning, **kw)


def _table(*specs: CallSpec) -> dict[str, CallSpec]:
    return {s.call: s for s in specs}


# computer Swipe(amount, axis) <-> Scroll(direction, amount) at the cursor
_SWIPE_DIRECTIONS = {("vertical", True): "up", ("vertical", False): "down",
                     ("horizontal", True): "right", ("horizontal", False): "left"}  # fmt: skip


def _build_computer_swipe(v: dict[str, Any]) -> Action:
    amount = v["amount"]
    if amount == 0:
        raise ActionError("Swipe.amount must be a non-zero integer from -4096 to 4096 (0 would not scroll).")
    return Scroll(direction=_SWIPE_DIRECTIONS[(v["axis"], amount > 0)], amount=abs(amount))  # type: ignore[arg-type]


def _unbuild_computer_swipe(a: Action) -> dict[str, Any]:
    assert isinstance(a, Scroll)
    if a.point is not None:
        raise ActionError("The computer grammar scrolls at the cursor: Scroll.point must be None (Hover first).")
    if a.amount is None:
        raise ActionError("The computer grammar needs Scroll.amount (wheel clicks) to write Swipe(amount=...).")
    axis = "vertical" if a.direction in ("up", "down") else "horizontal"
    sign = 1 if a.direction in ("up", "right") else -1
    return {"amount": sign * a.amount, "axis": axis}


MOBILE_CALLS = _table(
    _spec(Click, _POINT, meaning="Tap the screen at the given coordinate."),
    _spec(Drag, _START, _END,
          meaning="Long-press at `start`, then drag to `end`: move sliders, rearrange items, solve slider captchas."),
    _spec(Swipe, _START, _END,
          meaning="Swipe from `start` to `end`: scroll to find content, switch tabs, pull down the notification "
                  "shade."),
    _spec(DoubleClick, _POINT, meaning="Double-tap at the given coordinate."),
    _spec(LongPress, _POINT, Param("duration", "number", required=False, shown=False),
          meaning="Press and hold at the given coordinate to bring up extra options such as copy, forward or "
                  "delete."),
    _spec(Type, _CONTENT, meaning=_TYPE),
    _spec(LaunchApp, Param("app", "text", example="''"),
          meaning="Open the app named `app`; use it when the app is not visible on the screen."),
    _spec(Wait, _WAIT_SECONDS, meaning=_WAIT),
    _spec(CallUser, _CONTENT_OPT, meaning=_CALL_USER),
    _spec(GetScreenshot, meaning="Save a screenshot to the device's photo album."),
    _spec(PressBack, meaning="Go back to the previous screen."),
    _spec(PressHome, meaning="Go to the system home screen."),
    _spec(PressEnter, meaning="Press the Enter key."),
    _spec(PressRecent, meaning="Open the recent-apps screen."),
    _spec(Answer, _CONTENT_OPT, meaning="Reply to the user's question with `content`."),
    _spec(Finished, _CONTENT_OPT, meaning=_FINISHED),
)  # fmt: skip

BROWSER_CALLS = _table(
    _spec(Click, _POINT, meaning="Click at the given coordinate."),
    _spec(Drag, _START, _END,
          meaning="Press at `start` and drag to `end`: move sliders, rearrange elements, solve slider captchas."),
    _spec(Scroll, _POINT, Param("direction", "direction", example="'up/down/left/right'"),
          Param("amount", "int", required=False, shown=False),
          meaning="Scroll the page at the given coordinate in `direction`: 'up', 'down', 'left' or 'right'."),
    _spec(Type, _CONTENT, meaning=_TYPE),
    _spec(Launch, Param("url", "text", example="''"),
          meaning="Open `url` (http or https) in a new tab; use it when the site is not on the screen."),
    _spec(Wait, _WAIT_SECONDS, meaning=_WAIT),
    _spec(GetUrl, meaning="Read the URL of the current tab; it is given at the start of the next message."),
    _spec(Finished, _CONTENT_OPT, meaning=_FINISHED),
    _spec(TakeNote, _CONTENT,
          meaning="Write down information from the current screen so it is not forgotten after scrolling."),
    _spec(CallUser, _CONTENT_OPT, meaning=_CALL_USER),
    _spec(LongPress, _POINT, Param("duration", "number", required=False, example="20"),
          meaning="Press and hold at the given coordinate for `duration` seconds (20 when omitted)."),
    _spec(PressBack, meaning="Go back to the previous page."),
    _spec(PressHome, meaning="Press the Home key, which scrolls to the top of the page."),
    _spec(PressEnter, meaning="Press the Enter key."),
    _spec(Hover, _POINT, meaning="Move the pointer over the given coordinate to reveal tooltips or menus."),
    _spec(DoubleClick, _POINT, meaning="Double-click at the given coordinate."),
    # Not in upstream's browser prompt; the env supports it, so the grammar does.
    _spec(RightClick, _POINT, meaning="Right-click at the given coordinate to open a context menu."),
    _spec(Hotkey, Param("keys", "keys", max_items=3, example="('ctrl', 'c')"),
          Param("repeat", "int", required=False, default=1, shown=False),
          meaning="Press a key combination of at most three keys, e.g. ('ctrl', 'tab') for the next tab."),
    _spec(SelectOption, Param("index", "int", example="3"),
          meaning="Choose option `index` of the native select element clicked last; its options are listed in the "
                  "message."),
)  # fmt: skip


def _computer_pointer(cls: type[Action], meaning: str) -> CallSpec:
    return _spec(cls, _POINT_OPT, bare_ok=True, meaning=meaning)


COMPUTER_CALLS = _table(
    _computer_pointer(Click, "Left-click at `box`, or at the cursor when `box` is omitted."),
    _computer_pointer(DoubleClick, "Double-click at `box` or at the cursor; selects a word in text."),
    _computer_pointer(TripleClick,
                      "Triple-click at `box` or at the cursor; selects a line or the whole of a one-line field."),
    _computer_pointer(RightClick, "Right-click at `box` or at the cursor to open a context menu."),
    _computer_pointer(MiddleClick, "Middle-click at `box` or at the cursor, e.g. to open a link in a new tab."),
    _spec(Hover, _POINT, meaning="Move the cursor to `box` without clicking."),
    _spec(Drag, _END, Param("start", "point", required=False, example="(x1, y1)"),
          meaning="Drag to `end` in half a second, from `start` or from the cursor when `start` is omitted."),
    _spec(Scroll, Param("amount", "int", example="-5"), Param("axis", "axis", example="'vertical'"),
          call="Swipe", build=_build_computer_swipe, unbuild=_unbuild_computer_swipe,
          meaning="Scroll at the cursor by `amount` (-4096 to 4096): vertical positive scrolls up, negative down; "
                  "horizontal positive scrolls right, negative left."),
    _spec(Type, _CONTENT, meaning="Type `content` into the field that has focus; each \\n presses Enter."),
    _spec(Hotkey, Param("keys", "keys", example="['ctrl', 'c']"),
          Param("repeat", "int", required=False, default=1, example="1"),
          meaning="Press the listed keys together as a shortcut, `repeat` times (1 to 128)."),
    _spec(KeyDown, Param("keys", "keys", example="['shift']"),
          meaning="Press and hold the listed keys across later actions and turns until a matching KeyUp."),
    _spec(KeyUp, Param("keys", "keys", example="['shift']"), meaning="Release the listed keys."),
    _spec(MouseDown, _POINT_OPT, bare_ok=True,
          meaning="Move to `box` if given, then press and hold the left mouse button."),
    _spec(MouseUp, _POINT_OPT, bare_ok=True, meaning="Move to `box` if given, then release the left mouse button."),
    _spec(Sequence, Param("actions", "actions", example="[Click(box=(x1, y1)), Hotkey(keys=['ctrl', 's'])]"),
          meaning="Run 2 to 32 actions in order in one turn without new screenshots; no nesting, and CallUser or "
                  "Finished only as the last action."),
    _spec(Wait, _WAIT_SECONDS, meaning=_WAIT),
    _spec(CallUser, _CONTENT_OPT, meaning="Ask the user to take over, or report that the task cannot be completed."),
    _spec(Finished, _CONTENT_OPT, meaning="Declare the task completed successfully, with details in `content` if "
                                          "useful."),
)  # fmt: skip

# The CAPTCHA prompt is the mobile action list spelt with box= (reference/ui-venus.md §2.5).
CALLS: dict[str, dict[str, CallSpec]] = {
    "mobile": MOBILE_CALLS,
    "browser": BROWSER_CALLS,
    "computer": COMPUTER_CALLS,
    "captcha": MOBILE_CALLS,
}


def accepted_actions(surface: str) -> frozenset[str]:
    """Names of the action types `surface`'s calls read into."""
    return frozenset(cls.name for spec in CALLS[surface].values() for cls in spec.handles)
