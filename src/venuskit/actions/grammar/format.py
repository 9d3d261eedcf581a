"""Writing actions as the grammar's call text, and whole replies."""

from __future__ import annotations

import re
from collections.abc import Iterable
from typing import Any

from venuskit.actions import coords
from venuskit.actions.calls import CallSpec, Param
from venuskit.actions.grammar.envelope import TAG
from venuskit.actions.grammar.tables import Grammar, get_grammar
from venuskit.actions.surfaces import check_surface
from venuskit.actions.types import Action, ActionError, Sequence

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
    `Click(box=(500, 300))` (computer); on CAPTCHA a Sequence is its calls joined with commas, as the reply
    wrote them. Raises ActionError if the surface cannot express it."""
    grammar = surface if isinstance(surface, Grammar) else get_grammar(surface)
    if grammar.multi and isinstance(action, Sequence):  # how a record holds a CAPTCHA reply of several calls
        return ",".join(format_call(a, grammar) for a in action.actions)
    if grammar.surface is not None:
        check_surface(action, grammar.surface)
    spec = grammar.spec_for(action)
    values = spec.unbuild(action) if spec.unbuild else _default_unbuild(spec, action, grammar)
    params = {p.name: p for p in spec.params}
    sep = "," if grammar.compact else ", "
    args = sep.join(f"{grammar.kw(params[k])}={_render(params[k], values[k], grammar)}" for k in params if k in values)
    return f"{spec.call}({args})"


def check_thought(thought: str) -> None:
    if TAG.search(thought):
        raise ActionError("A thought cannot contain <think>, <action> or <conclusion> tags; it would not parse back.")


def defang_thought(text: str) -> str:
    """Text quoted into a thought (a label read off a page) with the envelope's tags made inert: `<action>` becomes
    `‹action›`, so a page cannot end the think block or pass check_thought's refusal."""
    return TAG.sub(lambda m: "‹" + m.group(0)[1:-1] + "›", text)


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
