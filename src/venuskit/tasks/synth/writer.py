"""Goal text: the template writer (the composer's clauses) and the checks on a model's paraphrase.

`--writer URL` asks an OpenAI-compatible model to paraphrase a composed goal (the call is made by
venuskit.flywheel.synth; this module builds the request and judges the reply). A paraphrase is kept only if
it still states every value the contract pins (the same check a composed goal passes) and brings in no number
or quoted text the template goal did not have: a model may reword a task, never change what it asks for.
Otherwise the template goal stays.
"""

from __future__ import annotations

import re
from importlib import resources

from venuskit.tasks.synth.compose import Plan
from venuskit.tasks.synth.reject import Rejected, check_goal_states

_NUMBER = re.compile(r"\d+(?:[.,:]\d+)*")
_QUOTED = re.compile(r"[\"“]([^\"”]+)[\"”]")


def stated_values(goal: str) -> list[str]:
    """The values a goal spells out: quoted text and numbers (dates, times, amounts, IBAN groups)."""
    return list(dict.fromkeys(_QUOTED.findall(goal) + _NUMBER.findall(goal)))


def paraphrase_messages(goal: str, locale: str) -> list[dict[str, str]]:
    template = resources.files("venuskit.tasks.synth").joinpath("prompts/paraphrase.md").read_text("utf-8")
    values = "; ".join(stated_values(goal)) or "(none)"
    text = template.format(language="Chinese" if locale == "zh" else "English", values=values, goal=goal)
    return [{"role": "user", "content": text}]


def clean_reply(text: str) -> str:
    """The paraphrase out of a model reply: reasoning dropped, one line, surrounding quotes stripped."""
    text = re.sub(r"<think>.*?</think>", "", text, flags=re.DOTALL).strip()
    text = " ".join(text.split())
    return text.strip("\"'“”")


def paraphrase_problem(plan: Plan, template_goal: str, paraphrase: str) -> str | None:
    """Why a paraphrase cannot replace the template goal, or None if it can."""
    if not paraphrase or len(paraphrase) > 3 * len(template_goal) + 80:
        return "empty or far longer than the template goal"
    try:
        check_goal_states(plan, paraphrase)
    except Rejected as e:
        return f"it drops a value: {e.detail}"
    for value in stated_values(template_goal):
        if value not in paraphrase:
            return f"it does not keep {value!r} verbatim"
    known = set(stated_values(template_goal))
    for value in stated_values(paraphrase):
        if value not in known and not any(value in k for k in known):
            return f"it adds {value!r}, which the template goal does not state"
    return None
