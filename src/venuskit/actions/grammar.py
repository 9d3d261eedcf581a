"""The UI-Venus-2 call grammar: `<think>…</think>\\n<action>Call(kw=…)</action>` <-> venuskit actions.

Each surface's grammar (reference/ui-venus.md §2.2-2.5, checklist §7) is a table of `CallSpec` rows.
The same rows render the action list of the system prompt (`describe.py`), so the prompt and the
validator cannot drift apart. Arguments are read with `ast.parse` and a strict walker over literals
(numbers, strings, tuples, lists, negative numbers); model text is never evaluated.

Choices where the reference leaves room (documented here so every caller sees the same rules):
- computer `Swipe(amount=n, axis=...)` is `Scroll(direction=..., amount=|n|)` at the cursor:
  positive vertical = up, positive horizontal = right, as the upstream computer prompt states;
  `amount=0` is rejected because it would do nothing.
- `box=` and `point=` are aliases on every surface; giving both is a duplicate argument.
- venuskit extensions that are accepted but never advertised in prompts, so every action can be
  written as text without loss: `Wait(seconds=)` everywhere, `LongPress(duration=)` on mobile and
  CAPTCHA, `Hotkey(repeat=)` and `Scroll(amount=)` on the browser.
- strings are written with Python `repr` quoting; a `<` that would start one of our tags
  (`<think>`, `</action>`, ...) inside a string is written as `\\x3c` so the envelope stays parseable.
"""

from __future__ import annotations

import ast
import math
import re
import warnings
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from typing import Any

from venuskit.actions import coords
from venuskit.actions.coords import GridScale
from venuskit.actions.surfaces import check_surface, get_surface
from venuskit.actions.types import (
    DIRECTIONS,
    MAX_SEQUENCE,
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
    Point,
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

# ---- errors ---------------------------------------------------------------------------------------


class ActionParseError(ValueError):
    """Model output that is not a valid action in its grammar. The message says what and where;
    `offset` (character in the parsed text), `call` and `argument` carry the same facts for code."""

    def __init__(
        self, message: str, *, offset: int | None = None, call: str | None = None, argument: str | None = None
    ) -> None:
        self.reason, self.offset, self.call, self.argument = message, offset, call, argument
        super().__init__(_where(message, offset, call, argument))


def _where(message: str, offset: int | None, call: str | None, argument: str | None) -> str:
    head = f"{call}: argument {argument!r} " if argument else (f"{call}: " if call else "")
    tail = f" (at character {offset})" if offset is not None else ""
    text = f"{head}{message.rstrip('.')}{tail}."
    return text[:1].upper() + text[1:]


class BadValue(ValueError):
    """A bad argument value, raised by value converters; the call parser adds where it happened."""


def _short(v: object, limit: int = 60) -> str:
    r = repr(v)
    return r if len(r) <= limit else r[: limit - 3] + "..."


# ---- the response and its spans ------------------------------------------------------------------


@dataclass(frozen=True)
class ActionSpan:
    """Where one call sits in the raw text: `text[slice(*name_span)]` is the call name and
    `text[slice(*args_span)]` the argument list inside the parentheses (MOPD masks tokens by these)."""

    name_span: tuple[int, int]
    args_span: tuple[int, int]

    @property
    def call_span(self) -> tuple[int, int]:
        """The whole call, name to closing parenthesis."""
        return (self.name_span[0], self.args_span[1] + 1)


@dataclass(frozen=True)
class Response:
    """One parsed model response."""

    thought: str | None
    actions: list[Action]
    raw: str
    action_spans: list[ActionSpan] = field(default_factory=list)
    conclusion: str | None = None  # UI-Venus-1.5 `<conclusion>`; None elsewhere

    @property
    def action(self) -> Action:
        """The single action of a one-action response (every surface but CAPTCHA)."""
        if len(self.actions) != 1:
            raise ValueError(f"This response holds {len(self.actions)} actions; read .actions instead.")
        return self.actions[0]


# ---- grammar tables --------------------------------------------------------------------------------


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


@dataclass(frozen=True)
class Grammar:
    """A call language: which calls exist, how points are spelt and how grid numbers map to [0, 1]."""

    name: str  # "mobile" ... or a dialect name; used in messages
    calls: dict[str, CallSpec]  # call name -> spec, in prompt order
    point_kw: str  # "point" or "box"
    grid: GridScale  # divisor of grid integers
    clamp: bool  # out-of-range grid values: clamp (True) or reject (False)
    grid_limit: int = 1000  # reject mode: valid values are 0 <= g < grid_limit
    multi: bool = False  # comma-separated calls in one <action> (CAPTCHA)
    compact: bool = False  # "(x,y)" and "a=1,b=2" without spaces (the CAPTCHA prompt's style)
    keys_tuple: bool = False  # keys written as a tuple (browser) instead of a list (computer)
    surface: str | None = None  # the venuskit surface checked after parsing (None for dialects)
    by_action: dict[str, CallSpec] = field(default_factory=dict, compare=False, repr=False)

    def __post_init__(self) -> None:
        index = {cls.name: spec for spec in self.calls.values() for cls in spec.handles}
        object.__setattr__(self, "by_action", index)

    @property
    def label(self) -> str:
        return f"{self.name} surface" if self.surface else f"{self.name} grammar"

    def kw(self, param: Param) -> str:
        return self.point_kw if param.name == "point" else param.name

    def spec_for(self, action: Action) -> CallSpec:
        spec = self.by_action.get(action.name)
        if spec is None:
            raise ActionError(f"{action.name} cannot be written in the {self.label}.")
        return spec


# -- param shorthands (examples are the prompt placeholders) --
_POINT = Param("point", "point", example="(x1, y1)")
_POINT_OPT = Param("point", "point", required=False, example="(x1, y1)")
_START = Param("start", "point", example="(x1, y1)")
_END = Param("end", "point", example="(x2, y2)")
_CONTENT = Param("content", "text", example="''")
_CONTENT_OPT = Param("content", "text", required=False, default="", always=True, example="''")
_WAIT_SECONDS = Param("seconds", "number", required=False, shown=False)


def _spec(cls: type[Action], *params: Param, call: str = "", **kw: Any) -> CallSpec:
    return CallSpec(call or cls.name, (cls,), tuple(params), **kw)


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


def _mobile_calls() -> dict[str, CallSpec]:
    return _table(
        _spec(Click, _POINT),
        _spec(Drag, _START, _END),
        _spec(Swipe, _START, _END),
        _spec(DoubleClick, _POINT),
        _spec(LongPress, _POINT, Param("duration", "number", required=False, shown=False)),
        _spec(Type, _CONTENT),
        _spec(LaunchApp, Param("app", "text", example="''")),
        _spec(Wait, _WAIT_SECONDS),
        _spec(CallUser, _CONTENT_OPT),
        _spec(GetScreenshot),
        _spec(PressBack),
        _spec(PressHome),
        _spec(PressEnter),
        _spec(PressRecent),
        _spec(Answer, _CONTENT_OPT),
        _spec(Finished, _CONTENT_OPT),
    )


def _browser_calls() -> dict[str, CallSpec]:
    return _table(
        _spec(Click, _POINT),
        _spec(Drag, _START, _END),
        _spec(Scroll, _POINT, Param("direction", "direction", example="'up/down/left/right'"),
              Param("amount", "int", required=False, shown=False)),
        _spec(Type, _CONTENT),
        _spec(Launch, Param("url", "text", example="''")),
        _spec(Wait, _WAIT_SECONDS),
        _spec(GetUrl),
        _spec(Finished, _CONTENT_OPT),
        _spec(TakeNote, _CONTENT),
        _spec(CallUser, _CONTENT_OPT),
        _spec(LongPress, _POINT, Param("duration", "number", required=False, example="20")),
        _spec(PressBack),
        _spec(PressHome),
        _spec(PressEnter),
        _spec(Hover, _POINT),
        _spec(DoubleClick, _POINT),
        _spec(RightClick, _POINT),  # not in upstream's browser prompt; the env supports it, so the grammar does
        _spec(Hotkey, Param("keys", "keys", max_items=3, example="('ctrl', 'c')"),
              Param("repeat", "int", required=False, default=1, shown=False)),
        _spec(SelectOption, Param("index", "int", example="3")),
    )  # fmt: skip


def _computer_calls() -> dict[str, CallSpec]:
    pointer = [
        _spec(cls, _POINT_OPT, bare_ok=True) for cls in (Click, DoubleClick, TripleClick, RightClick, MiddleClick)
    ]
    return _table(
        *pointer,
        _spec(Hover, _POINT),
        _spec(Drag, _END, Param("start", "point", required=False, example="(x1, y1)")),
        _spec(Scroll, Param("amount", "int", example="-5"), Param("axis", "axis", example="'vertical'"),
              call="Swipe", build=_build_computer_swipe, unbuild=_unbuild_computer_swipe),
        _spec(Type, _CONTENT),
        _spec(Hotkey, Param("keys", "keys", example="['ctrl', 'c']"),
              Param("repeat", "int", required=False, default=1, example="1")),
        _spec(KeyDown, Param("keys", "keys", example="['shift']")),
        _spec(KeyUp, Param("keys", "keys", example="['shift']")),
        _spec(MouseDown, _POINT_OPT, bare_ok=True),
        _spec(MouseUp, _POINT_OPT, bare_ok=True),
        _spec(Sequence, Param("actions", "actions", example="[Click(box=(x1, y1)), Hotkey(keys=['ctrl', 's'])]")),
        _spec(Wait, _WAIT_SECONDS),
        _spec(CallUser, _CONTENT_OPT),
        _spec(Finished, _CONTENT_OPT),
    )  # fmt: skip


def _surface_grammar(surface: str, calls: dict[str, CallSpec], **kw: Any) -> Grammar:
    spec = get_surface(surface)
    return Grammar(surface, calls, spec.point_kw, spec.grid, spec.clamp, surface=surface, **kw)


GRAMMARS: dict[str, Grammar] = {
    "mobile": _surface_grammar("mobile", _mobile_calls()),
    "browser": _surface_grammar("browser", _browser_calls(), keys_tuple=True),
    "computer": _surface_grammar("computer", _computer_calls()),
    "captcha": _surface_grammar("captcha", _mobile_calls(), multi=True, compact=True),
}


def get_grammar(surface: str) -> Grammar:
    get_surface(surface)  # the one "unknown surface" message
    return GRAMMARS[surface]


def signature(spec: CallSpec, grammar: Grammar) -> str:
    """The call as the prompt shows it, e.g. `Click(point=(x1, y1))` or `Click(box=(x1, y1)), or Click()`."""
    args = ", ".join(f"{grammar.kw(p)}={p.example}" for p in spec.params if p.shown)
    sig = f"{spec.call}({args})"
    return f"{sig}, or {spec.call}()" if spec.bare_ok else sig


# ---- python source handling (shared with the dialects) ------------------------------------------


class PySource:
    """Model text prepared for `ast.parse`, with a map back to character offsets of the raw text.

    Raw newlines inside string literals (models emit them in `Type(content='a<newline>b')`) are
    rewritten as escapes; with `single_line`, newlines outside strings become spaces, so a call
    may span lines. `wrap` surrounds the text with parentheses so `A(), B()` parses as one tuple.
    """

    def __init__(self, body: str, base: int = 0, *, single_line: bool = True, wrap: bool = True) -> None:
        chars, origin = _escape_scan(body, single_line)
        origin = [base + o for o in origin]
        if wrap:
            chars, origin = ["(", *chars, ")"], [base, *origin, base + len(body)]
        self.text = "".join(chars)
        self.origin = origin + [base + len(body)]  # sentinel for exclusive ends
        self._line_starts = [0] + [i + 1 for i, c in enumerate(self.text) if c == "\n"]

    def parse(self, mode: str = "eval") -> ast.AST:
        try:
            with warnings.catch_warnings():  # e.g. '\d' in a string: a warning about the source, not the action
                warnings.simplefilter("ignore")
                return ast.parse(self.text, mode=mode)
        except SyntaxError as e:
            where = self._syntax_offset(e)
            msg = e.msg if len(e.msg) <= 100 else e.msg[:97] + "..."
            raise ActionParseError(f"the action is not valid call syntax ({msg})", offset=where) from None
        except (ValueError, RecursionError, MemoryError, OverflowError) as e:
            msg = str(e).splitlines()[0][:120] if str(e) else type(e).__name__
            raise ActionParseError(f"the action cannot be parsed ({msg})", offset=self.origin[0]) from None

    def _syntax_offset(self, e: SyntaxError) -> int:
        if not e.lineno or not e.offset or e.lineno > len(self._line_starts):
            return self.origin[0]
        i = self._line_starts[e.lineno - 1] + max(0, e.offset - 1)
        return self.origin[min(i, len(self.origin) - 1)]

    def index(self, lineno: int, col_bytes: int) -> int:
        """ast (line, UTF-8 byte column) -> index into self.text."""
        start = self._line_starts[lineno - 1]
        end = self.text.find("\n", start)
        line = self.text[start : end if end >= 0 else len(self.text)]
        if line.isascii():
            return start + col_bytes
        return start + len(line.encode("utf-8", "surrogatepass")[:col_bytes].decode("utf-8", "ignore"))

    def start(self, node: ast.AST) -> int:
        return self.origin[self.index(node.lineno, node.col_offset)]  # type: ignore[attr-defined]

    def snippet(self, node: ast.AST, limit: int = 50) -> str:
        s = self.index(node.lineno, node.col_offset)  # type: ignore[attr-defined]
        e = self.index(node.end_lineno, node.end_col_offset)  # type: ignore[attr-defined]
        text = self.text[s:e]
        return text if len(text) <= limit else text[: limit - 3] + "..."

    def call_span(self, node: ast.Call) -> ActionSpan:
        f = node.func
        name_s = self.index(f.lineno, f.col_offset)
        name_e = self.index(f.end_lineno, f.end_col_offset)  # type: ignore[arg-type]
        open_paren = self.text.index("(", name_e)
        close_paren = self.index(node.end_lineno, node.end_col_offset) - 1  # type: ignore[arg-type]
        o = self.origin
        return ActionSpan((o[name_s], o[name_e]), (o[open_paren + 1], o[close_paren]))


def _escape_scan(body: str, single_line: bool) -> tuple[list[str], list[int]]:
    """Copy `body`, escaping raw CR/LF inside string literals; returns chars and their source index."""
    out: list[str] = []
    origin: list[int] = []
    quote: str | None = None
    i, n = 0, len(body)
    while i < n:
        c = body[i]
        if quote is None:
            if c in "'\"":
                quote = c * 3 if body.startswith(c * 3, i) else c
                out.extend(quote)
                origin.extend(range(i, i + len(quote)))
                i += len(quote)
                continue
            if c in "\r\n" and (single_line or (c == "\r" and body.startswith("\n", i + 1))):
                c = " "
            elif c == "\r":
                c = "\n"
            out.append(c)
            origin.append(i)
            i += 1
        elif c == "\\" and i + 1 < n:
            nxt = body[i + 1]
            out += ["\\", {"\n": "n", "\r": "r"}.get(nxt, nxt)]
            origin += [i, i + 1]
            i += 2
        elif body.startswith(quote, i):
            out.extend(quote)
            origin.extend(range(i, i + len(quote)))
            i += len(quote)
            quote = None
        else:
            esc = {"\n": "\\n", "\r": "\\r"}.get(c, c)
            out.extend(esc)
            origin.extend([i] * len(esc))
            i += 1
    return out, origin


def literal(node: ast.AST, src: PySource) -> Any:
    """The value of a literal node: int, float, str, tuple or list of those, or a negated number.
    Anything else (names, calls, operators, dicts, booleans, None) is refused."""
    if isinstance(node, ast.Constant):
        v = node.value
        if isinstance(v, str):
            return v
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return _finite(v, node, src)
        raise ActionParseError(f"the literal {_short(v)} is not allowed here", offset=src.start(node))
    if isinstance(node, ast.Tuple):
        return tuple(literal(e, src) for e in node.elts)
    if isinstance(node, ast.List):
        return [literal(e, src) for e in node.elts]
    if (
        isinstance(node, ast.UnaryOp)
        and isinstance(node.op, (ast.USub, ast.UAdd))
        and isinstance(node.operand, ast.Constant)
        and isinstance(node.operand.value, (int, float))
        and not isinstance(node.operand.value, bool)
    ):
        v = _finite(node.operand.value, node, src)
        return -v if isinstance(node.op, ast.USub) else v
    raise ActionParseError(
        f"only literal numbers, strings, tuples and lists are allowed, found {src.snippet(node)!r}",
        offset=src.start(node),
    )


def _finite(v: float, node: ast.AST, src: PySource) -> int | float:
    if isinstance(v, float) and not math.isfinite(v):
        raise ActionParseError(f"the number {src.snippet(node)!r} is not finite", offset=src.start(node))
    return v


# ---- argument values -------------------------------------------------------------------------------


def _is_number(v: object) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def grid_value(v: object, grammar: Grammar) -> float:
    """One grid number -> [0, 1] under the grammar's range rule."""
    if not _is_number(v):
        raise BadValue(f"must hold numbers, got {_short(v)}")
    if grammar.clamp:
        v = min(grammar.grid, max(0, v))  # clamp before dividing: a huge int cannot become a float
    elif not 0 <= v < grammar.grid_limit:  # type: ignore[operator]
        raise BadValue(f"has {_short(v)} outside the grid 0..{grammar.grid_limit - 1}")
    return coords.from_grid(v, grammar.grid)  # type: ignore[arg-type]


def _point(v: object, grammar: Grammar) -> Point:
    if not isinstance(v, (tuple, list)) or len(v) != 2:
        raise BadValue(f"must be a pair (x, y), got {_short(v)}")
    return Point(grid_value(v[0], grammar), grid_value(v[1], grammar))


def _keys(v: object, p: Param) -> tuple[str, ...]:
    keys = (v,) if isinstance(v, str) else v
    if not isinstance(keys, (tuple, list)) or not keys or not all(isinstance(k, str) and k for k in keys):
        raise BadValue(f"must be a non-empty list of key names, got {_short(v)}")
    if p.max_items is not None and len(keys) > p.max_items:
        raise BadValue(f"has {len(keys)} keys; at most {p.max_items} are allowed")
    return tuple(keys)


def _convert(p: Param, v: object, grammar: Grammar) -> Any:
    kind = p.kind
    if kind == "point":
        return _point(v, grammar)
    if kind == "text":
        if not isinstance(v, str):
            raise BadValue(f"must be a string, got {_short(v)}")
        return v
    if kind == "int":
        if isinstance(v, bool) or not isinstance(v, int):
            raise BadValue(f"must be an integer, got {_short(v)}")
        return v
    if kind == "number":
        if not _is_number(v):
            raise BadValue(f"must be a number, got {_short(v)}")
        return v
    if kind == "keys":
        return _keys(v, p)
    if kind == "direction":
        if not isinstance(v, str) or v.lower() not in DIRECTIONS:
            raise BadValue(f"must be one of {', '.join(DIRECTIONS)}, got {_short(v)}")
        return v.lower()
    if kind == "axis":
        if v not in ("vertical", "horizontal"):
            raise BadValue(f"must be 'vertical' or 'horizontal', got {_short(v)}")
        return v
    raise AssertionError(f"unknown parameter kind {kind!r}")


# ---- calls -----------------------------------------------------------------------------------------


def parse_call(node: ast.AST, grammar: Grammar, src: PySource, *, nested: bool = False) -> Action:
    """One `Name(kw=literal, ...)` node -> a validated action of `grammar`."""
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Name):
        raise ActionParseError(
            f"expected a call such as {signature(next(iter(grammar.calls.values())), grammar)}, "
            f"found {src.snippet(node)!r}",
            offset=src.start(node),
        )
    name, at = node.func.id, src.start(node)
    spec = grammar.calls.get(name)
    if spec is None:
        raise ActionParseError(
            f"{name} is not an action of the {grammar.label}; it accepts: {', '.join(grammar.calls)}",
            offset=at,
        )
    if nested and spec.handles[0] is Sequence:
        raise ActionParseError("a Sequence cannot contain another Sequence", call=name, offset=at)
    values = _keyword_values(node, spec, grammar, src)
    try:
        action = spec.build(values) if spec.build else _default_build(spec, values)
        if grammar.surface is not None and not nested:
            check_surface(action, grammar.surface)
    except ActionError as e:
        raise ActionParseError(str(e), call=name, offset=at) from None
    return action


def _keyword_values(node: ast.Call, spec: CallSpec, grammar: Grammar, src: PySource) -> dict[str, Any]:
    name = spec.call
    if node.args:
        raise ActionParseError(
            f"positional arguments are not allowed; write {signature(spec, grammar)}",
            call=name,
            offset=src.start(node.args[0]),
        )
    params = {p.name: p for p in spec.params}
    values: dict[str, Any] = {}
    for kw in node.keywords:
        at = src.start(kw)
        if kw.arg is None:
            raise ActionParseError("**kwargs are not allowed", call=name, offset=at)
        key = "point" if kw.arg in ("point", "box") and "point" in params else kw.arg
        if key not in params:
            accepted = ", ".join(grammar.kw(p) for p in spec.params) or "no arguments"
            raise ActionParseError(f"unknown keyword {kw.arg!r}; {name} takes {accepted}", call=name, offset=at)
        if key in values:
            raise ActionParseError("is given twice", call=name, argument=kw.arg, offset=at)
        p = params[key]
        if p.kind == "actions":
            values[key] = _child_actions(kw.value, grammar, src, name)
            continue
        try:
            values[key] = _convert(p, literal(kw.value, src), grammar)
        except BadValue as e:
            raise ActionParseError(str(e), call=name, argument=kw.arg, offset=src.start(kw.value)) from None
    missing = [grammar.kw(p) for p in spec.params if p.required and p.name not in values]
    if missing:
        raise ActionParseError(
            f"missing {', '.join(missing)}; write {signature(spec, grammar)}", call=name, offset=src.start(node)
        )
    return values


def _child_actions(node: ast.AST, grammar: Grammar, src: PySource, name: str) -> tuple[Action, ...]:
    if not isinstance(node, (ast.List, ast.Tuple)):
        raise ActionParseError("must be a list of calls", call=name, argument="actions", offset=src.start(node))
    if len(node.elts) > MAX_SEQUENCE:
        raise ActionParseError(f"has {len(node.elts)} actions; at most {MAX_SEQUENCE} are allowed",
                               call=name, argument="actions", offset=src.start(node))  # fmt: skip
    return tuple(parse_call(child, grammar, src, nested=True) for child in node.elts)


def _default_build(spec: CallSpec, values: dict[str, Any]) -> Action:
    by_name = {p.name: p for p in spec.params}
    return spec.handles[0](**{by_name[k].attr: v for k, v in values.items()})


# ---- the envelope ----------------------------------------------------------------------------------

_TAG = re.compile(r"<(/?)(think|action|conclusion)>", re.IGNORECASE)


@dataclass(frozen=True)
class Envelope:
    thought: str | None
    body: str  # the text inside <action>...</action>
    body_start: int  # its offset in the raw text
    conclusion: str | None


def split_envelope(text: str, reasoning_content: str | None = None, *, trailer: str | None = None) -> Envelope:
    """Find the thought and the one `<action>` block. `trailer` names a tag allowed after the block
    (UI-Venus-1.5's "conclusion"); anything else outside the tags is an error."""
    if not isinstance(text, str):
        raise ActionParseError(f"the response must be a string, got {type(text).__name__}")
    tags = [(m.start(), m.end(), m.group(1) == "/", m.group(2).lower()) for m in _TAG.finditer(text)]
    thought, rest = _thought(text, tags)
    if not thought and reasoning_content is not None and reasoning_content.strip():
        thought = reasoning_content.strip()  # the server's reasoning channel, spliced back
    opens = [t for t in tags if t[3] == "action" and not t[2] and t[0] >= rest]
    closes = [t for t in tags if t[3] == "action" and t[2] and t[0] >= rest]
    if not opens:
        at = closes[0][0] if closes else None
        raise ActionParseError("no <action>...</action> block was found", offset=at)
    if len(opens) > 1:
        raise ActionParseError(f"found {len(opens)} <action> tags; exactly one block is allowed", offset=opens[1][0])
    if len(closes) != 1 or closes[0][0] < opens[0][1]:
        what = "the <action> tag is never closed" if not closes else "expected exactly one </action> after <action>"
        raise ActionParseError(what, offset=closes[-1][0] if closes else opens[0][0])
    _only_space(text, rest, opens[0][0], "before <action>")
    conclusion = _trailer(text, closes[0][1], tags, trailer)
    return Envelope(thought, text[opens[0][1] : closes[0][0]], opens[0][1], conclusion)


def _thought(text: str, tags: list[tuple[int, int, bool, str]]) -> tuple[str | None, int]:
    opens = [t for t in tags if t[3] == "think" and not t[2]]
    closes = [t for t in tags if t[3] == "think" and t[2]]
    if not closes:
        if opens:
            raise ActionParseError("the <think> tag is never closed", offset=opens[0][0])
        return None, 0
    if len(closes) > 1:
        raise ActionParseError("found more than one </think>", offset=closes[1][0])
    end = closes[0]
    late = [t for t in opens if t[0] > end[0]]
    if late:
        raise ActionParseError("a <think> tag appears after </think>", offset=late[0][0])
    if len(opens) > 1:
        raise ActionParseError("found more than one <think>", offset=opens[1][0])
    start = 0  # a template that pre-opens <think> leaves the thought unopened in the output
    if opens:
        _only_space(text, 0, opens[0][0], "before <think>")
        start = opens[0][1]
    return text[start : end[0]].strip(), end[1]


def _trailer(text: str, pos: int, tags: list[tuple[int, int, bool, str]], trailer: str | None) -> str | None:
    after = [t for t in tags if t[0] >= pos]
    if trailer is None or not after:
        _only_space(text, pos, len(text), "after </action>")
        return None
    first = after[0]
    if first[3] != trailer or first[2] or len(after) < 2 or after[1][3] != trailer or not after[1][2]:
        raise ActionParseError(f"only a <{trailer}>...</{trailer}> block may follow </action>", offset=first[0])
    _only_space(text, pos, first[0], f"before <{trailer}>")
    _only_space(text, after[1][1], len(text), f"after </{trailer}>")
    if len(after) > 2:
        raise ActionParseError(f"unexpected tag after </{trailer}>", offset=after[2][0])
    return text[first[1] : after[1][0]].strip()


def _only_space(text: str, start: int, end: int, where: str) -> None:
    stray = re.search(r"\S", text[start:end])
    if stray:
        at = start + stray.start()
        raise ActionParseError(f"unexpected text {_short(text[at : at + 30])} {where}", offset=at)


# ---- parse -----------------------------------------------------------------------------------------


def parse_action_block(body: str, base: int, grammar: Grammar) -> tuple[list[Action], list[ActionSpan]]:
    """The inside of `<action>...</action>` (starting at `base` in the raw text) -> actions and spans."""
    if not body.strip():
        raise ActionParseError("the <action> block is empty", offset=base)
    src = PySource(body, base)
    tree = src.parse()
    root = tree.body  # type: ignore[attr-defined]
    nodes = root.elts if isinstance(root, ast.Tuple) else [root]
    if isinstance(root, ast.Tuple) and not grammar.multi:
        raise ActionParseError(
            f"the {grammar.label} takes exactly one call per <action>, found {len(nodes)}", offset=base
        )
    if not nodes:
        raise ActionParseError("the <action> block holds no call", offset=base)
    if len(nodes) > MAX_SEQUENCE:
        raise ActionParseError(f"the <action> block holds {len(nodes)} calls; at most {MAX_SEQUENCE}", offset=base)
    actions = [parse_call(n, grammar, src) for n in nodes]
    return actions, [src.call_span(n) for n in nodes]  # type: ignore[arg-type]


def parse_response(text: str, surface: str, reasoning_content: str | None = None) -> Response:
    """Parse one UI-Venus-2 response for `surface` ("mobile", "browser", "computer", "captcha").

    Raises ActionParseError for anything malformed; the message says what and at which character.
    """
    grammar = get_grammar(surface)
    env = split_envelope(text, reasoning_content)
    actions, spans = parse_action_block(env.body, env.body_start, grammar)
    return Response(thought=env.thought, actions=actions, raw=text, action_spans=spans)


# ---- format ----------------------------------------------------------------------------------------

_TAGLIKE = re.compile(r"<(?=/?(?:think|action|conclusion)>)", re.IGNORECASE)


def quote(s: str) -> str:
    """A Python string literal for `s` that parses back to `s` and cannot close our tags."""
    return _TAGLIKE.sub(r"\\x3c", repr(s))


def _render(p: Param, v: Any, grammar: Grammar) -> str:
    sep = "," if grammar.compact else ", "
    if p.kind == "point":
        return f"({coords.to_grid(v.x, grammar.grid)}{sep}{coords.to_grid(v.y, grammar.grid)})"
    if p.kind in ("text", "direction", "axis"):
        return quote(v)
    if p.kind == "keys":
        if p.max_items is not None and len(v) > p.max_items:
            raise ActionError(f"The {grammar.name} grammar allows at most {p.max_items} Hotkey keys, got {len(v)}.")
        items = sep.join(quote(k) for k in v)
        return f"({items}{',' if len(v) == 1 else ''})" if grammar.keys_tuple else f"[{items}]"
    if p.kind == "actions":
        return "[" + sep.join(format_call(a, grammar) for a in v) + "]"
    return repr(v)


def _default_unbuild(spec: CallSpec, action: Action, grammar: Grammar) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for p in spec.params:
        v = getattr(action, p.attr)
        if v is None and p.required:
            raise ActionError(
                f"{action.name}.{p.attr} is required to write {spec.call} in the {grammar.name} grammar."
            )
        if v is None or (not p.required and not p.always and v == p.default):
            continue
        out[p.name] = v
    return out


def format_call(action: Action, surface: str | Grammar) -> str:
    """The canonical call text for `action`, e.g. `Click(point=(500, 300))` (mobile) or
    `Click(box=(500, 300))` (computer). Raises ActionError if the surface cannot express it."""
    grammar = surface if isinstance(surface, Grammar) else get_grammar(surface)
    if grammar.surface is not None:
        check_surface(action, grammar.surface)
    spec = grammar.spec_for(action)
    values = spec.unbuild(action) if spec.unbuild else _default_unbuild(spec, action, grammar)
    params = {p.name: p for p in spec.params}
    sep = "," if grammar.compact else ", "
    args = sep.join(f"{grammar.kw(params[k])}={_render(params[k], values[k], grammar)}" for k in params if k in values)
    return f"{spec.call}({args})"


def check_thought(thought: str) -> None:
    if _TAG.search(thought):
        raise ActionError("A thought cannot contain <think>, <action> or <conclusion> tags; it would not parse back.")


def format_response(thought: str | None, actions: Action | Iterable[Action], surface: str) -> str:
    """`<think>thought</think>\\n<action>Call(...)</action>`; CAPTCHA joins several calls with commas.
    With thought None the think block is left out."""
    grammar = get_grammar(surface)
    acts = [actions] if isinstance(actions, Action) else list(actions)
    if not acts or (len(acts) > 1 and not grammar.multi):
        raise ActionError(f"The {surface} surface writes exactly one action per response, got {len(acts)}.")
    body = ",".join(format_call(a, grammar) for a in acts)
    if thought is None:
        return f"<action>{body}</action>"
    check_thought(thought)
    return f"<think>{thought}</think>\n<action>{body}</action>"
