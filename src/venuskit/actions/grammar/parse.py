"""Reading a reply: argument values, calls, the action block and the whole response."""

from __future__ import annotations

import ast
from typing import Any

from venuskit.actions import coords
from venuskit.actions.calls import CallSpec, Param
from venuskit.actions.grammar.envelope import split_envelope
from venuskit.actions.grammar.pysource import PySource, literal
from venuskit.actions.grammar.response import ActionParseError, ActionSpan, BadValue, Response, short
from venuskit.actions.grammar.tables import Grammar, get_grammar, signature
from venuskit.actions.surfaces import check_surface
from venuskit.actions.types import DIRECTIONS, MAX_SEQUENCE, Action, ActionError, Point, Sequence


def _is_number(v: object) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def grid_value(v: object, grammar: Grammar) -> float:
    """One grid number -> [0, 1] under the grammar's range rule."""
    if not _is_number(v):
        raise BadValue(f"must hold numbers, got {short(v)}")
    if grammar.clamp:
        v = min(grammar.grid, max(0, v))  # clamp before dividing: a huge int cannot become a float
    elif not 0 <= v < grammar.grid_limit:  # type: ignore[operator]
        raise BadValue(f"has {short(v)} outside the grid 0..{grammar.grid_limit - 1}")
    return coords.from_grid(v, grammar.grid)  # type: ignore[arg-type]


def _point(v: object, grammar: Grammar) -> Point:
    if not isinstance(v, (tuple, list)) or len(v) != 2:
        raise BadValue(f"must be a pair (x, y), got {short(v)}")
    return Point(grid_value(v[0], grammar), grid_value(v[1], grammar))


def _keys(v: object, p: Param) -> tuple[str, ...]:
    keys = (v,) if isinstance(v, str) else v
    if not isinstance(keys, (tuple, list)) or not keys or not all(isinstance(k, str) and k for k in keys):
        raise BadValue(f"must be a non-empty list of key names, got {short(v)}")
    if p.max_items is not None and len(keys) > p.max_items:
        raise BadValue(f"has {len(keys)} keys; at most {p.max_items} are allowed")
    return tuple(keys)


def _convert(p: Param, v: object, grammar: Grammar) -> Any:
    kind = p.kind
    if kind == "point":
        return _point(v, grammar)
    if kind == "text":
        if not isinstance(v, str):
            raise BadValue(f"must be a string, got {short(v)}")
        return v
    if kind == "int":
        if isinstance(v, bool) or not isinstance(v, int):
            raise BadValue(f"must be an integer, got {short(v)}")
        return v
    if kind == "number":
        if not _is_number(v):
            raise BadValue(f"must be a number, got {short(v)}")
        return v
    if kind == "keys":
        return _keys(v, p)
    if kind == "direction":
        if not isinstance(v, str) or v.lower() not in DIRECTIONS:
            raise BadValue(f"must be one of {', '.join(DIRECTIONS)}, got {short(v)}")
        return v.lower()
    if kind == "axis":
        if v not in ("vertical", "horizontal"):
            raise BadValue(f"must be 'vertical' or 'horizontal', got {short(v)}")
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
