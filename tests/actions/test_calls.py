"""One table of calls drives what a surface accepts, how its grammar reads and what its prompt lists."""

from __future__ import annotations

import pytest

from venuskit.actions.calls import CALLS
from venuskit.actions.describe import describe_actions
from venuskit.actions.grammar import GRAMMARS, signature
from venuskit.actions.surfaces import SURFACES


@pytest.mark.parametrize("surface", sorted(SURFACES))
def test_surface_grammar_and_prompt_come_from_the_same_rows(surface: str) -> None:
    rows = CALLS[surface]
    assert GRAMMARS[surface].calls is rows
    assert SURFACES[surface].actions == {cls.name for spec in rows.values() for cls in spec.handles}
    prompt = describe_actions(surface).splitlines()
    for spec in rows.values():
        assert spec.meaning, f"{surface}.{spec.call} has no meaning for the prompt"
        assert prompt[prompt.index(f"- {signature(spec, GRAMMARS[surface])}") + 1] == f"> {spec.meaning}"
    assert len(prompt) == 1 + 2 * len(rows)  # the coordinate note, then two lines per call and nothing else
