"""The step verifier reads the env's focus fact (`observation.info["focus_editable"]`) before guessing."""

from __future__ import annotations

from verify_helpers import screen

from venuskit.actions.types import Click, Point, Type
from venuskit.agent.hooks import StepContext
from venuskit.envs.base import Observation
from venuskit.record.episode import Step
from venuskit.verify import StepVerifier

URL = "http://127.0.0.1/form"


def ctx(index: int, history: tuple, focus_editable: bool | None) -> StepContext:
    info = {} if focus_editable is None else {"focus_editable": focus_editable}
    obs = Observation(png=screen(["Name: [      ]"]), width=640, height=400, url=URL, info=info)
    return StepContext("Type a name", "browser", index, obs, Type(content="Lin"), "", "", history)


CLICKED = (Step(index=0, screenshot=None, url=URL, action=Click(point=Point(0.3, 0.2))),)


def test_a_click_that_focused_no_text_field_does_not_license_typing():
    verdict = StepVerifier()(ctx(1, CLICKED, focus_editable=False))
    assert not verdict.ok and verdict.label == "invalid" and "does not take text" in verdict.reason


def test_an_autofocused_field_takes_typing_without_a_click():
    assert StepVerifier()(ctx(0, (), focus_editable=True)).ok


def test_without_the_fact_the_history_rule_decides():
    assert not StepVerifier()(ctx(0, (), focus_editable=None)).ok
    assert StepVerifier()(ctx(1, CLICKED, focus_editable=None)).ok
