"""The one action vocabulary: frozen, typed dataclasses validated at construction.

Every surface, model dialect, verifier and trainer speaks these types. Points are `Point`s: floats in
[0, 1] relative to the screenshot the model saw (see `coords.py` for every conversion).
Validation here is surface-independent (types, ranges, limits); which actions a surface accepts
lives in `surfaces.py`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import ClassVar, Literal

from venuskit.actions.keys import canonical

Direction = Literal["up", "down", "left", "right"]
DIRECTIONS: tuple[str, ...] = ("up", "down", "left", "right")
MAX_KEYS = 128
MAX_HOTKEY_REPEAT = 128
MAX_SCROLL_AMOUNT = 4096
MAX_SEQUENCE = 32


class ActionError(ValueError):
    """An action whose arguments are invalid (wrong type, out of range, over a limit)."""


@dataclass(frozen=True, slots=True)
class Point:
    """A normalised point: x and y in [0, 1] of the screenshot the model saw."""

    x: float
    y: float

    def __post_init__(self) -> None:
        for name in ("x", "y"):
            v = getattr(self, name)
            if isinstance(v, bool) or not isinstance(v, (int, float)):
                raise ActionError(f"Point.{name} must be a number, got {v!r}.")
            if not 0.0 <= v <= 1.0:  # compare before float(): a huge int would overflow
                raise ActionError(f"Point.{name}={v!r} is outside [0, 1]; convert with venuskit.actions.coords.")
            object.__setattr__(self, name, float(v))

    def as_tuple(self) -> tuple[float, float]:
        return (self.x, self.y)


def _need_point(obj: object, name: str, optional: bool) -> None:
    v = getattr(obj, name)
    if v is None and optional:
        return
    if not isinstance(v, Point):
        raise ActionError(f"{type(obj).__name__}.{name} must be a Point, got {v!r}.")


def _need_text(obj: object, name: str) -> None:
    v = getattr(obj, name)
    if not isinstance(v, str):
        raise ActionError(f"{type(obj).__name__}.{name} must be a string, got {type(v).__name__}.")


def _need_keys(obj: object, max_keys: int = MAX_KEYS) -> None:
    """Validate the key names and store them canonical (`keys.canonical`): the env presses what the gate judged."""
    keys = obj.keys
    if isinstance(keys, list):
        keys = tuple(keys)
    if not isinstance(keys, tuple) or not keys or not all(isinstance(k, str) and k for k in keys):
        raise ActionError(f"{type(obj).__name__}.keys must be a non-empty list of key names, got {keys!r}.")
    if len(keys) > max_keys:
        raise ActionError(f"{type(obj).__name__}.keys has {len(keys)} names; the limit is {max_keys}.")
    names = tuple(canonical(k) for k in keys)
    if not all(names):
        raise ActionError(f"{type(obj).__name__}.keys holds a name that is only spaces: {keys!r}.")
    object.__setattr__(obj, "keys", names)


@dataclass(frozen=True, slots=True, kw_only=True)
class Action:
    """Base of every action. `name` is the UI-Venus-2 call name."""

    name: ClassVar[str] = "Action"
    terminal: ClassVar[bool] = False  # ends the episode when executed

    def to_dict(self) -> dict:
        """A JSON-ready dict: {"type": name, **fields}; points as [x, y] floats."""
        out: dict = {"type": self.name}
        for f in dataclasses.fields(self):
            out[f.name] = _to_json(getattr(self, f.name))
        return out


def _to_json(v: object) -> object:
    if isinstance(v, Point):
        return [v.x, v.y]
    if isinstance(v, Action):
        return v.to_dict()
    if isinstance(v, tuple):
        return [_to_json(x) for x in v]
    return v


# ---- pointer actions ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class _PointerAction(Action):
    """A pointer action at `point`; None means "at the current cursor" (computer surface only)."""

    point: Point | None = None

    def __post_init__(self) -> None:
        _need_point(self, "point", optional=True)


@dataclass(frozen=True, slots=True, kw_only=True)
class Click(_PointerAction):
    name: ClassVar[str] = "Click"


@dataclass(frozen=True, slots=True, kw_only=True)
class DoubleClick(_PointerAction):
    name: ClassVar[str] = "DoubleClick"


@dataclass(frozen=True, slots=True, kw_only=True)
class TripleClick(_PointerAction):
    name: ClassVar[str] = "TripleClick"


@dataclass(frozen=True, slots=True, kw_only=True)
class RightClick(_PointerAction):
    name: ClassVar[str] = "RightClick"


@dataclass(frozen=True, slots=True, kw_only=True)
class MiddleClick(_PointerAction):
    name: ClassVar[str] = "MiddleClick"


@dataclass(frozen=True, slots=True, kw_only=True)
class MouseDown(_PointerAction):
    name: ClassVar[str] = "MouseDown"


@dataclass(frozen=True, slots=True, kw_only=True)
class MouseUp(_PointerAction):
    name: ClassVar[str] = "MouseUp"


@dataclass(frozen=True, slots=True, kw_only=True)
class Hover(Action):
    name: ClassVar[str] = "Hover"
    point: Point

    def __post_init__(self) -> None:
        _need_point(self, "point", optional=False)


@dataclass(frozen=True, slots=True, kw_only=True)
class LongPress(Action):
    """Press and hold. `duration` in seconds; None = the surface default (mobile ~1 s, browser 20 s)."""

    name: ClassVar[str] = "LongPress"
    point: Point
    duration: float | None = None

    def __post_init__(self) -> None:
        _need_point(self, "point", optional=False)
        d = self.duration
        if d is not None and (isinstance(d, bool) or not isinstance(d, (int, float)) or not 0 < d <= 60):
            raise ActionError(f"LongPress.duration must be a number of seconds in (0, 60], got {d!r}.")


@dataclass(frozen=True, slots=True, kw_only=True)
class Drag(Action):
    """Press at `start` (None = current cursor, computer only), move to `end`, release."""

    name: ClassVar[str] = "Drag"
    start: Point | None = None
    end: Point

    def __post_init__(self) -> None:
        _need_point(self, "start", optional=True)
        _need_point(self, "end", optional=False)


@dataclass(frozen=True, slots=True, kw_only=True)
class Swipe(Action):
    """A touch swipe from `start` to `end` (mobile scrolling gesture)."""

    name: ClassVar[str] = "Swipe"
    start: Point
    end: Point

    def __post_init__(self) -> None:
        _need_point(self, "start", optional=False)
        _need_point(self, "end", optional=False)


@dataclass(frozen=True, slots=True, kw_only=True)
class Scroll(Action):
    """Wheel scroll. Browser: at `point` in `direction` (2/3 of the viewport when `amount` is None).
    Computer (`Swipe(amount=, axis=)` in its grammar): at the cursor, `amount` wheel clicks."""

    name: ClassVar[str] = "Scroll"
    point: Point | None = None
    direction: Direction
    amount: int | None = None

    def __post_init__(self) -> None:
        _need_point(self, "point", optional=True)
        if self.direction not in DIRECTIONS:
            raise ActionError(f"Scroll.direction must be one of {DIRECTIONS}, got {self.direction!r}.")
        a = self.amount
        if a is not None and (isinstance(a, bool) or not isinstance(a, int) or not 0 < a <= MAX_SCROLL_AMOUNT):
            raise ActionError(f"Scroll.amount must be an integer in 1..{MAX_SCROLL_AMOUNT}, got {a!r}.")


# ---- keyboard -------------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class Type(Action):
    """Insert text into the focused field; a trailing or embedded '\\n' presses Enter."""

    name: ClassVar[str] = "Type"
    content: str

    def __post_init__(self) -> None:
        _need_text(self, "content")


@dataclass(frozen=True, slots=True, kw_only=True)
class Hotkey(Action):
    name: ClassVar[str] = "Hotkey"
    keys: tuple[str, ...]
    repeat: int = 1

    def __post_init__(self) -> None:
        _need_keys(self)
        r = self.repeat
        if isinstance(r, bool) or not isinstance(r, int) or not 1 <= r <= MAX_HOTKEY_REPEAT:
            raise ActionError(f"Hotkey.repeat must be an integer in 1..{MAX_HOTKEY_REPEAT}, got {r!r}.")


@dataclass(frozen=True, slots=True, kw_only=True)
class KeyDown(Action):
    name: ClassVar[str] = "KeyDown"
    keys: tuple[str, ...]

    def __post_init__(self) -> None:
        _need_keys(self)


@dataclass(frozen=True, slots=True, kw_only=True)
class KeyUp(Action):
    name: ClassVar[str] = "KeyUp"
    keys: tuple[str, ...]

    def __post_init__(self) -> None:
        _need_keys(self)


# ---- navigation and system ------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class Launch(Action):
    """Open a URL (browser). The env refuses schemes other than http, https and file."""

    name: ClassVar[str] = "Launch"
    url: str

    def __post_init__(self) -> None:
        _need_text(self, "url")


@dataclass(frozen=True, slots=True, kw_only=True)
class LaunchApp(Action):
    """Open an app by name (mobile)."""

    name: ClassVar[str] = "LaunchApp"
    app: str

    def __post_init__(self) -> None:
        _need_text(self, "app")


@dataclass(frozen=True, slots=True, kw_only=True)
class Wait(Action):
    """Wait; None = the surface default (1 s mobile, 3 s browser)."""

    name: ClassVar[str] = "Wait"
    seconds: float | None = None

    def __post_init__(self) -> None:
        s = self.seconds
        if s is not None and (isinstance(s, bool) or not isinstance(s, (int, float)) or not 0 < s <= 60):
            raise ActionError(f"Wait.seconds must be in (0, 60], got {s!r}.")


@dataclass(frozen=True, slots=True, kw_only=True)
class PressBack(Action):
    name: ClassVar[str] = "PressBack"


@dataclass(frozen=True, slots=True, kw_only=True)
class PressHome(Action):
    name: ClassVar[str] = "PressHome"


@dataclass(frozen=True, slots=True, kw_only=True)
class PressEnter(Action):
    name: ClassVar[str] = "PressEnter"


@dataclass(frozen=True, slots=True, kw_only=True)
class PressRecent(Action):
    name: ClassVar[str] = "PressRecent"


@dataclass(frozen=True, slots=True, kw_only=True)
class GetUrl(Action):
    name: ClassVar[str] = "GetUrl"


@dataclass(frozen=True, slots=True, kw_only=True)
class GetScreenshot(Action):
    name: ClassVar[str] = "GetScreenshot"


@dataclass(frozen=True, slots=True, kw_only=True)
class TakeNote(Action):
    name: ClassVar[str] = "TakeNote"
    content: str

    def __post_init__(self) -> None:
        _need_text(self, "content")


@dataclass(frozen=True, slots=True, kw_only=True)
class SelectOption(Action):
    """Choose option `index` (0-based) of the native <select> that was just clicked."""

    name: ClassVar[str] = "SelectOption"
    index: int

    def __post_init__(self) -> None:
        i = self.index
        if isinstance(i, bool) or not isinstance(i, int) or i < 0:
            raise ActionError(f"SelectOption.index must be a non-negative integer, got {i!r}.")


# ---- episode control ------------------------------------------------------------------------------


@dataclass(frozen=True, slots=True, kw_only=True)
class CallUser(Action):
    """Hand over to the user: clarification, takeover, or a report that the task cannot be done."""

    name: ClassVar[str] = "CallUser"
    terminal: ClassVar[bool] = True
    content: str = ""

    def __post_init__(self) -> None:
        _need_text(self, "content")


@dataclass(frozen=True, slots=True, kw_only=True)
class Answer(Action):
    name: ClassVar[str] = "Answer"
    terminal: ClassVar[bool] = True
    content: str = ""

    def __post_init__(self) -> None:
        _need_text(self, "content")


@dataclass(frozen=True, slots=True, kw_only=True)
class Finished(Action):
    name: ClassVar[str] = "Finished"
    terminal: ClassVar[bool] = True
    content: str = ""

    def __post_init__(self) -> None:
        _need_text(self, "content")


@dataclass(frozen=True, slots=True, kw_only=True)
class Sequence(Action):
    """2..32 open-loop child actions (computer). No nesting; CallUser/Finished/Answer only last."""

    name: ClassVar[str] = "Sequence"
    actions: tuple[Action, ...] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        acts = tuple(self.actions) if isinstance(self.actions, list) else self.actions
        object.__setattr__(self, "actions", acts)
        if not isinstance(acts, tuple) or not all(isinstance(a, Action) for a in acts):
            raise ActionError("Sequence.actions must be a list of actions.")
        if not 2 <= len(acts) <= MAX_SEQUENCE:
            raise ActionError(f"Sequence needs 2..{MAX_SEQUENCE} actions, got {len(acts)}.")
        if any(isinstance(a, Sequence) for a in acts):
            raise ActionError("Sequence cannot contain another Sequence.")
        if any(a.terminal for a in acts[:-1]):
            raise ActionError("CallUser, Answer and Finished may only be the last action of a Sequence.")

    @property
    def terminal_child(self) -> bool:
        return self.actions[-1].terminal


ACTION_TYPES: dict[str, type[Action]] = {
    cls.name: cls
    for cls in (
        Click, DoubleClick, TripleClick, RightClick, MiddleClick, LongPress, Hover, Drag, Swipe, Scroll,
        Type, Hotkey, KeyDown, KeyUp, MouseDown, MouseUp, Launch, LaunchApp, Wait, PressBack, PressHome,
        PressEnter, PressRecent, GetUrl, TakeNote, SelectOption, GetScreenshot, Sequence, CallUser, Answer,
        Finished,
    )
}  # fmt: skip

# Action groups, by type, for code that asks what kind of thing an action does (rewards, verifiers, benches).
# POINTER: the action's whole target is its one `point`. CLICK: it activates what is under that point (what can
# submit a form or follow a link). Keys and text: the fields a reward compares.
POINTER_TYPES: tuple[type[Action], ...] = (
    *(c for c in ACTION_TYPES.values() if issubclass(c, _PointerAction)), Hover, LongPress
)  # fmt: skip
CLICK_TYPES: tuple[type[Action], ...] = (Click, DoubleClick, TripleClick, LongPress)
KEY_TYPES: tuple[type[Action], ...] = (Hotkey, KeyDown, KeyUp)
TEXT_TYPES: tuple[type[Action], ...] = (Type, Finished, CallUser, Answer, TakeNote, LaunchApp)
POINTER_ACTIONS = frozenset(c.name for c in POINTER_TYPES)
CLICK_ACTIONS = frozenset(c.name for c in CLICK_TYPES)
KEY_ACTIONS = frozenset(c.name for c in KEY_TYPES)
TEXT_ACTIONS = frozenset(c.name for c in TEXT_TYPES)

AnyAction = (
    Click
    | DoubleClick
    | TripleClick
    | RightClick
    | MiddleClick
    | LongPress
    | Hover
    | Drag
    | Swipe
    | Scroll
    | Type
    | Hotkey
    | KeyDown
    | KeyUp
    | MouseDown
    | MouseUp
    | Launch
    | LaunchApp
    | Wait
    | PressBack
    | PressHome
    | PressEnter
    | PressRecent
    | GetUrl
    | TakeNote
    | SelectOption
    | GetScreenshot
    | Sequence
    | CallUser
    | Answer
    | Finished
)


def action_from_dict(d: dict) -> Action:
    """Inverse of Action.to_dict (used by the episode record)."""
    d = dict(d)
    kind = d.pop("type", None)
    cls = ACTION_TYPES.get(kind) if isinstance(kind, str) else None
    if cls is None:
        raise ActionError(f"Unknown action type {kind!r}.")
    names = {f.name for f in dataclasses.fields(cls)}
    if set(d) - names:  # a misspelt field must not silently become a default (e.g. Click at the cursor)
        raise ActionError(f"{kind} has no field(s) {sorted(set(d) - names)}; it has {sorted(names)}.")
    kwargs = {}
    for f in dataclasses.fields(cls):
        if f.name not in d:
            continue
        v = d[f.name]
        if f.name in ("point", "start", "end") and v is not None:
            if not isinstance(v, (list, tuple)) or len(v) != 2:
                raise ActionError(f"{kind}.{f.name} must be [x, y], got {v!r}.")
            v = Point(*v)
        elif f.name == "keys":
            v = tuple(v)
        elif f.name == "actions":
            v = tuple(action_from_dict(a) for a in v)
        kwargs[f.name] = v
    return cls(**kwargs)
