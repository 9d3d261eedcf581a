"""UI-TARS: `Thought: …\\nAction: click(start_box='(x1,y1)')`.

Calls are lower-case with string-valued coordinates in any of the forms UI-TARS writes:
`'<|box_start|>(x1,y1)<|box_end|>'`, `'(x1,y1)'`, `'(x1,y1,x2,y2)'` (a box: its centre is used) and
`'<point>x1 y1</point>'`. Several actions may follow one `Action:` separated by blank lines.

Coordinates: UI-TARS-1.5 speaks absolute pixels of the smart-resized image (factor 28; pass
`coord_mode="resized_pixels"` with the screenshot's width and height), other releases a 0-1000
relative grid (`coord_mode="relative1000"`, the default). Both go through `venuskit.actions.coords`.

Writing is lossy where UI-TARS has no slot: Scroll.amount, Wait.seconds and CallUser.content are
dropped; a Hotkey with repeat > 1 or a multi-key KeyDown/KeyUp cannot be written.
"""

from __future__ import annotations

import ast
import math
import re
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Literal

from venuskit.actions import coords
from venuskit.actions.grammar import ActionParseError, BadValue, PySource, Response, literal, quote
from venuskit.actions.types import (
    DIRECTIONS,
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
    LaunchApp,
    LongPress,
    Point,
    PressBack,
    PressHome,
    RightClick,
    Scroll,
    Swipe,
    Type,
    Wait,
)

CoordMode = Literal["relative1000", "resized_pixels"]
UITARS_MIN_PIXELS = 100 * 28 * 28  # the UI-TARS-1.5 processor's bounds
UITARS_MAX_PIXELS = 16384 * 28 * 28


@dataclass(frozen=True)
class Frame:
    """How UI-TARS numbers map to venuskit points."""

    coord_mode: CoordMode = "relative1000"
    width: int | None = None  # the original screenshot (resized_pixels only)
    height: int | None = None
    factor: int = coords.QWEN25_FACTOR
    min_pixels: int = UITARS_MIN_PIXELS
    max_pixels: int = UITARS_MAX_PIXELS

    def __post_init__(self) -> None:
        if self.coord_mode not in ("relative1000", "resized_pixels"):
            raise ValueError(f"coord_mode must be 'relative1000' or 'resized_pixels', got {self.coord_mode!r}.")
        if self.coord_mode == "resized_pixels" and not (self.width and self.height):
            raise ValueError("coord_mode='resized_pixels' needs the screenshot's width and height.")

    def to_point(self, x: float, y: float) -> Point:
        if self.coord_mode == "relative1000":
            if not (0 <= x <= 1000 and 0 <= y <= 1000):
                raise BadValue(f"({x:g}, {y:g}) is outside the 0-1000 grid")
            return Point(coords.from_grid(x, 1000), coords.from_grid(y, 1000))
        kw = {"min_pixels": self.min_pixels, "max_pixels": self.max_pixels}
        return Point(*coords.point_from_resized(x, y, self.height, self.width, self.factor, **kw))  # type: ignore[arg-type]

    def from_point(self, p: Point) -> tuple[int, int]:
        if self.coord_mode == "relative1000":
            return coords.to_grid(p.x, 1000), coords.to_grid(p.y, 1000)
        kw = {"min_pixels": self.min_pixels, "max_pixels": self.max_pixels}
        return coords.point_to_resized(p.as_tuple(), self.height, self.width, self.factor, **kw)  # type: ignore[arg-type]


# ---- parse -----------------------------------------------------------------------------------------

_NUM = r"[-+]?\d+(?:\.\d+)?"
_SEP = r"\s*[,\s]\s*"
_COORDS = re.compile(rf"[\(\[]?\s*({_NUM}){_SEP}({_NUM})(?:{_SEP}({_NUM}){_SEP}({_NUM}))?\s*[\)\]]?")
_TOKENS = re.compile(r"<\|box_start\|>|<\|box_end\|>|</?point>|</?bbox>")
_ACTION = re.compile(r"^[ \t]*Action:[ \t]*", re.MULTILINE)
_THOUGHT = re.compile(r"^[ \t]*Thought:[ \t]*", re.MULTILINE)


def _point(v: object, frame: Frame) -> Point:
    if not isinstance(v, str):
        raise BadValue(f"must be a coordinate string such as '(x1,y1)', got {v!r}")
    m = _COORDS.fullmatch(_TOKENS.sub(" ", v).strip())
    if not m:
        raise BadValue(f"must be a coordinate string such as '(x1,y1)' or '<point>x1 y1</point>', got {v!r}")
    nums = [float(g) for g in m.groups() if g is not None]
    if not all(math.isfinite(n) and n >= 0 for n in nums):
        raise BadValue(f"has a negative or non-finite coordinate in {v!r}")
    if len(nums) == 4:  # a box: act at its centre
        nums = [(nums[0] + nums[2]) / 2, (nums[1] + nums[3]) / 2]
    return frame.to_point(nums[0], nums[1])


def _text(v: object) -> str:
    if not isinstance(v, str):
        raise BadValue(f"must be a string, got {v!r}")
    return v


def _pick(args: dict[str, Any], keys: tuple[str, ...], frame: Frame, required: bool = True) -> Point | None:
    given = [k for k in keys if k in args]
    if len(given) > 1:
        raise BadValue(f"give only one of {', '.join(given)}")
    if not given:
        if required:
            raise BadValue(f"needs {keys[0]}='(x1,y1)'")
        return None
    return _point(args[given[0]], frame)


_START = ("start_box", "point", "start_point")
_END = ("end_box", "end_point")
Builder = Callable[[dict[str, Any], Frame], Action]


def _key_list(v: object) -> tuple[str, ...]:
    keys = tuple(_text(v).lower().split())
    if not keys:
        raise BadValue("needs at least one key name, e.g. key='ctrl c'")
    return keys


def _direction(v: object) -> str:
    d = _text(v).strip().lower()
    if d not in DIRECTIONS:
        raise BadValue(f"direction must be one of {', '.join(DIRECTIONS)}, got {v!r}")
    return d


# call name -> (accepted keywords, builder)
_CALLS: dict[str, tuple[tuple[str, ...], Builder]] = {
    "click": (_START, lambda a, f: Click(point=_pick(a, _START, f))),
    "left_single": (_START, lambda a, f: Click(point=_pick(a, _START, f))),
    "left_double": (_START, lambda a, f: DoubleClick(point=_pick(a, _START, f))),
    "right_single": (_START, lambda a, f: RightClick(point=_pick(a, _START, f))),
    "hover": (_START, lambda a, f: Hover(point=_pick(a, _START, f))),  # type: ignore[arg-type]
    "long_press": (_START + ("time",), lambda a, f: LongPress(point=_pick(a, _START, f))),  # type: ignore[arg-type]
    "drag": (_START + _END, lambda a, f: Drag(start=_pick(a, _START, f), end=_pick(a, _END, f))),  # type: ignore[arg-type]
    "select": (_START + _END, lambda a, f: Drag(start=_pick(a, _START, f), end=_pick(a, _END, f))),  # type: ignore[arg-type]
    "swipe": (_START + _END, lambda a, f: Swipe(start=_pick(a, _START, f), end=_pick(a, _END, f))),  # type: ignore[arg-type]
    "type": (("content",), lambda a, f: Type(content=_text(a.get("content", "")))),
    "scroll": (_START + ("direction",),
               lambda a, f: Scroll(point=_pick(a, _START, f, False), direction=_direction(a.get("direction")))),  # type: ignore[arg-type]
    "hotkey": (("key", "hotkey"), lambda a, f: Hotkey(keys=_key_list(a.get("key", a.get("hotkey"))))),
    "press": (("key",), lambda a, f: Hotkey(keys=_key_list(a.get("key")))),
    "keydown": (("key",), lambda a, f: KeyDown(keys=_key_list(a.get("key")))),
    "keyup": (("key",), lambda a, f: KeyUp(keys=_key_list(a.get("key")))),
    "wait": ((), lambda a, f: Wait()),
    "finished": (("content",), lambda a, f: Finished(content=_text(a.get("content", "")))),
    "call_user": ((), lambda a, f: CallUser()),
    "press_back": ((), lambda a, f: PressBack()),
    "press_home": ((), lambda a, f: PressHome()),
    "open_app": (("app_name",), lambda a, f: LaunchApp(app=_text(a.get("app_name")))),
}  # fmt: skip


def _parse_call(node: ast.stmt, src: PySource, frame: Frame) -> Action:
    call = node.value if isinstance(node, ast.Expr) else None
    if not isinstance(call, ast.Call) or not isinstance(call.func, ast.Name):
        raise ActionParseError(f"expected a call such as click(start_box='(x1,y1)'), found {src.snippet(node)!r}",
                               offset=src.start(node))  # fmt: skip
    name, at = call.func.id, src.start(call)
    if name not in _CALLS:
        raise ActionParseError(f"{name} is not a UI-TARS action; known: {', '.join(_CALLS)}", offset=at)
    accepted, build = _CALLS[name]
    if call.args:
        raise ActionParseError("positional arguments are not allowed", call=name, offset=src.start(call.args[0]))
    args: dict[str, Any] = {}
    for kw in call.keywords:
        if kw.arg is None or kw.arg not in accepted or kw.arg in args:
            what = "**kwargs are" if kw.arg is None else f"keyword {kw.arg!r} is"
            raise ActionParseError(f"{what} not accepted; {name} takes {', '.join(accepted) or 'nothing'}",
                                   call=name, offset=src.start(kw))  # fmt: skip
        args[kw.arg] = literal(kw.value, src)
    try:
        return build(args, frame)
    except ValueError as e:  # ActionError included
        raise ActionParseError(str(e), call=name, offset=at) from None


def parse(
    text: str,
    *,
    coord_mode: CoordMode = "relative1000",
    width: int | None = None,
    height: int | None = None,
    factor: int = coords.QWEN25_FACTOR,
    min_pixels: int = UITARS_MIN_PIXELS,
    max_pixels: int = UITARS_MAX_PIXELS,
) -> Response:
    """Parse a UI-TARS response ("Thought: ...\\nAction: ...") into venuskit actions."""
    frame = Frame(coord_mode, width, height, factor, min_pixels, max_pixels)
    if not isinstance(text, str):
        raise ActionParseError(f"the response must be a string, got {type(text).__name__}")
    m = _ACTION.search(text)
    if m is None:
        raise ActionParseError("no 'Action:' line was found")
    head = text[: m.start()]
    t = _THOUGHT.search(head)
    thought = (head[t.end() :] if t else head).strip() or None
    src = PySource(text[m.end() :], m.end(), single_line=False, wrap=False)
    tree = src.parse(mode="exec")
    body = tree.body  # type: ignore[attr-defined]
    if not body:
        raise ActionParseError("the 'Action:' line holds no call", offset=m.end())
    return Response(thought=thought, actions=[_parse_call(s, src, frame) for s in body], raw=text)


# ---- format ----------------------------------------------------------------------------------------


def _coord(p: Point, frame: Frame, style: str) -> str:
    x, y = frame.from_point(p)
    return f"<point>{x} {y}</point>" if style == "point" else f"<|box_start|>({x},{y})<|box_end|>"


def _call_parts(a: Action) -> tuple[str, list[tuple[str, Any]]]:
    """(call name, [(role, value)]) where role is start/end (points) or a literal keyword."""
    simple = {Click: "click", DoubleClick: "left_double", RightClick: "right_single", Hover: "hover",
              LongPress: "long_press"}  # fmt: skip
    if type(a) in simple:
        return simple[type(a)], [("start", a.point)]  # type: ignore[attr-defined]
    if isinstance(a, (Drag, Swipe)):
        if a.start is None:
            raise ActionError("UI-TARS drag needs a start point.")
        return ("drag" if isinstance(a, Drag) else "swipe"), [("start", a.start), ("end", a.end)]
    if isinstance(a, Scroll):
        return "scroll", [("start", a.point), ("direction", a.direction)]
    if isinstance(a, Hotkey):
        if a.repeat != 1:
            raise ActionError("UI-TARS hotkey has no repeat; write the Hotkey several times instead.")
        return "hotkey", [("key", " ".join(a.keys))]
    if isinstance(a, (KeyDown, KeyUp)):
        if len(a.keys) != 1:
            raise ActionError(f"UI-TARS {a.name.lower()} takes one key, got {len(a.keys)}.")
        return a.name.lower(), [("key", a.keys[0])]
    if isinstance(a, (Type, Finished)):
        return a.name.lower(), [("content", a.content)]
    if isinstance(a, LaunchApp):
        return "open_app", [("app_name", a.app)]
    bare = {Wait: "wait", CallUser: "call_user", PressBack: "press_back", PressHome: "press_home"}
    if type(a) in bare:
        return bare[type(a)], []
    raise ActionError(f"{a.name} cannot be written in the UI-TARS action space.")


def format_action(
    action: Action,
    *,
    style: Literal["box", "point"] = "box",
    coord_mode: CoordMode = "relative1000",
    width: int | None = None,
    height: int | None = None,
    factor: int = coords.QWEN25_FACTOR,
    min_pixels: int = UITARS_MIN_PIXELS,
    max_pixels: int = UITARS_MAX_PIXELS,
) -> str:
    """One UI-TARS call. style "box": `click(start_box='<|box_start|>(x,y)<|box_end|>')`;
    style "point": `click(point='<point>x y</point>')` (the UI-TARS-1.5 mobile spelling)."""
    frame = Frame(coord_mode, width, height, factor, min_pixels, max_pixels)
    name, parts = _call_parts(action)
    keys = {
        "start": "point" if style == "point" else "start_box",
        "end": "end_point" if style == "point" else "end_box",
    }
    if style == "point" and name in ("drag", "swipe"):
        keys["start"] = "start_point"
    args = []
    for role, v in parts:
        if role in keys:
            if v is not None:
                args.append(f"{keys[role]}={quote(_coord(v, frame, style))}")
        else:
            args.append(f"{role}={quote(v)}")
    return f"{name}({', '.join(args)})"


def format_response(thought: str | None, actions: Action | Iterable[Action], **kw: Any) -> str:
    """`Thought: …\\nAction: …` (several actions are separated by blank lines); `kw` as format_action."""
    acts = [actions] if isinstance(actions, Action) else list(actions)
    calls = "\n\n".join(format_action(a, **kw) for a in acts)
    return f"Action: {calls}" if thought is None else f"Thought: {thought}\nAction: {calls}"


__all__ = ["Frame", "format_action", "format_response", "parse"]
