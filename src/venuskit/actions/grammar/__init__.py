"""The UI-Venus-2 call grammar: `<think>…</think>\\n<action>Call(kw=…)</action>` <-> venuskit actions.

Each surface's grammar (reference/ui-venus.md §2.2-2.5, checklist §7) is built from its rows in the one table
of calls (`venuskit.actions.calls`); the same rows render the action list of the system prompt (`describe.py`),
so the prompt and the validator cannot drift apart. Arguments are read with `ast.parse` and a strict walker over
literals (numbers, strings, tuples, lists, negative numbers); model text is never evaluated.

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

The package, by what each file holds:
    response.py   what parsing returns or raises (Response, ActionSpan, ActionParseError)
    tables.py     Grammar and the four surface grammars
    pysource.py   model text prepared for `ast`, and the strict literal walker
    envelope.py   the <think>/<action> envelope
    parse.py      argument values, calls, the action block, parse_response
    format.py     format_call, format_response
"""

from venuskit.actions.calls import CallSpec, Param
from venuskit.actions.grammar.envelope import TAG, Envelope, split_envelope
from venuskit.actions.grammar.format import check_thought, defang_thought, format_call, format_response, quote
from venuskit.actions.grammar.parse import grid_value, parse_action_block, parse_call, parse_response
from venuskit.actions.grammar.pysource import PySource, literal
from venuskit.actions.grammar.response import ActionParseError, ActionSpan, BadValue, Response, short
from venuskit.actions.grammar.tables import GRAMMARS, Grammar, get_grammar, signature

__all__ = [
    "GRAMMARS",
    "TAG",
    "ActionParseError",
    "ActionSpan",
    "BadValue",
    "CallSpec",
    "Envelope",
    "Grammar",
    "Param",
    "PySource",
    "Response",
    "check_thought",
    "defang_thought",
    "format_call",
    "format_response",
    "get_grammar",
    "grid_value",
    "literal",
    "parse_action_block",
    "parse_call",
    "parse_response",
    "quote",
    "short",
    "signature",
    "split_envelope",
]
