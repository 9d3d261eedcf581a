"""The action list of each surface's system prompt, generated from the one table of calls.

Signatures and one-line meanings both come from the rows of `venuskit.actions.calls` that the grammar
(`grammar.GRAMMARS`) validates against, so the prompt and the validator cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Iterable

from venuskit.actions.grammar import get_grammar, signature

COORDINATE_NOTE = "Coordinates range from the top-left corner (0, 0) to the bottom-right corner (999, 999)."


def describe_actions(surface: str, only: Iterable[str] | None = None) -> str:
    """The action list for `surface`'s system prompt: a coordinate note, then one
    `- Signature\\n> meaning` entry per call in prompt order. `only` keeps a named subset of calls."""
    grammar = get_grammar(surface)
    names = list(grammar.calls)
    if only is not None:
        keep = set(only)
        unknown = keep - set(names)
        if unknown:
            raise ValueError(f"{sorted(unknown)} are not calls of the {surface} surface; it has {names}.")
        names = [n for n in names if n in keep]
    lines = [COORDINATE_NOTE]
    for name in names:
        spec = grammar.calls[name]
        lines += [f"- {signature(spec, grammar)}", f"> {spec.meaning}"]
    return "\n".join(lines)
