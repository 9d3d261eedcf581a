"""The step verifier: its rules, its model protocol against the stand-in server, and its re-sample loop
through the real runner on a real Chromium page."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from verify_helpers import screen

from venuskit.actions import format_call
from venuskit.actions.coords import point_from_pixels
from venuskit.actions.types import Click, Launch, Point, Type
from venuskit.agent.hooks import CheckResult, StepContext
from venuskit.agent.policy import ScriptedPolicy
from venuskit.agent.runner import RunConfig
from venuskit.agent.session import AgentJob, run_episode
from venuskit.envs.base import Observation
from venuskit.envs.browser import BrowserConfig, BrowserEnv
from venuskit.models.standin_server import Reply, StandinServer
from venuskit.record.episode import Step
from venuskit.record.store import load_episode
from venuskit.verify import REFLECTION_MAP, StepVerdict, StepVerifier, VLMJudge

URL = "http://127.0.0.1/form"
PAGES = Path(__file__).parent / "pages"


def ctx(action, index=0, png=None, history=(), surface="browser", url=URL, goal="Type a name"):
    obs = Observation(png=png or screen(["Name: [      ]"]), width=640, height=400, url=url)
    return StepContext(goal, surface, index, obs, action, "my secret thought", "<action>...</action>", tuple(history))


def test_verdict_has_the_fields_of_the_runner_check_result():
    assert set(StepVerdict.__dataclass_fields__) == set(CheckResult.__dataclass_fields__)
    assert REFLECTION_MAP["INEFFECTIVE"] == "invalid" and REFLECTION_MAP["INCORRECT"] == "wrong"


def test_rules_reject_actions_outside_the_surface_and_repeated_failures():
    v = StepVerifier()
    bad = v(ctx(Launch(url="https://example.com"), surface="mobile"))
    assert not bad.ok and bad.label == "invalid" and "not an action of the mobile surface" in bad.reason
    click = Click(point=Point(0.5, 0.5))
    failed = Step(index=0, screenshot=None, url=URL, action=click, error={"message": "Element is disabled"})
    again = StepVerifier()(ctx(Click(point=Point(0.505, 0.5)), index=1, history=[failed]))
    assert (
        not again.ok
        and "Element is disabled" in again.reason
        and again.details["checked_by"] == "rule:repeated_failure"
    )


def test_typing_needs_a_click_on_this_page_first():
    typed = StepVerifier()(ctx(Type(content="Ada")))
    assert not typed.ok and "Click the field first" in typed.reason
    clicked = Step(index=0, screenshot=None, url=URL, action=Click(point=Point(0.3, 0.2)))
    assert StepVerifier()(ctx(Type(content="Ada"), index=1, history=[clicked])).ok
    elsewhere = Step(index=0, screenshot=None, url="http://127.0.0.1/other", action=Click(point=Point(0.3, 0.2)))
    assert not StepVerifier()(ctx(Type(content="Ada"), index=1, history=[elsewhere])).ok


def test_a_click_that_changed_nothing_is_not_repeated():
    v = StepVerifier()
    click = Click(point=Point(0.5, 0.5))
    assert v(ctx(click, index=0)).ok
    same = v(ctx(click, index=1))  # same screen as before the first click: it did nothing
    assert not same.ok and "changed nothing" in same.reason
    v2 = StepVerifier()
    v2(ctx(click, index=0))
    assert v2(ctx(click, index=1, png=screen(["Name: [ Ada  ]"]))).ok  # the screen changed: fine


def test_model_labels_map_to_verdicts_and_see_no_thoughts():
    replies = [
        json.dumps({"verdict": "INCORRECT", "reasoning": "That is the delete button."}),
        "EXPLORATORY: looking around",
        "hmm",
        Reply(status=500),
    ]
    history = [Step(index=0, screenshot=None, url=URL, action=Click(point=Point(0.3, 0.2)))]
    with StandinServer(replies) as srv:
        v = StepVerifier(VLMJudge.from_url(srv.base_url, srv.model_name, timeout_s=5))
        wrong = v(ctx(Type(content="Ada"), index=1, history=history))
        explore = v(ctx(Type(content="Ada"), index=1, history=history))
        garbage = v(ctx(Type(content="Ada"), index=1, history=history))
        dead = v(ctx(Type(content="Ada"), index=1, history=history))
        first = srv.chat_requests()[0]
    assert (wrong.ok, wrong.label, wrong.reason) == (False, "wrong", "That is the delete button.")
    assert explore.ok and explore.label == "explore"
    assert garbage.ok and "unparsable" in garbage.details["unjudged"]  # a confused verifier never blocks
    assert dead.ok and "judge error" in dead.details["unjudged"]
    assert "my secret thought" not in json.dumps(first.json)
    assert "Type 'Ada'" in json.dumps(first.json) and len(first.images()) == 1


# ---- through the real runner on a real page -------------------------------------------------------------


W, H = 1024, 768  # the desktop preset's CSS viewport


def reply(action) -> str:
    return f"<think>next</think>\n<action>{format_call(action, 'browser')}</action>"


def at(x: int, y: int) -> Click:
    return Click(point=Point(*point_from_pixels(x, y, W, H)))


@pytest.mark.browser
@pytest.mark.slow
def test_rejected_proposals_are_resampled_through_the_real_runner(tmp_path, serve_dir):
    type_ada, empty, field_ = reply(Type(content="Ada")), reply(at(800, 650)), reply(at(300, 320))
    finish = "<think>Done.</think>\n<action>Finished(content='done')</action>"
    policy = ScriptedPolicy([type_ada, empty, empty, field_, type_ada, finish], "browser")
    job = AgentJob(goal="Type the name Ada.", out=tmp_path, run=RunConfig(max_steps=8, step_check_retries=2))
    site = serve_dir(PAGES)
    with BrowserEnv(BrowserConfig(viewport=(W, H), wait_default_s=0.1)) as env:
        episode, folder = run_episode(env, policy, job, {"start_url": f"{site}/form.html"}, step_check=StepVerifier())
        typed = env.page.input_value("#name")
    steps = load_episode(folder).steps
    assert episode.outcome.reason == "finished" and typed == "Ada"
    assert [s.action.name for s in steps] == ["Click", "Click", "Type", "Finished"]
    # step 0: Type before any click was rejected, the re-sample (a click) ran
    assert [a["label"] for a in steps[0].attempts] == ["invalid"]
    assert steps[0].attempts[0]["rejected_by"] == "step_check" and "Type" in steps[0].attempts[0]["raw"]
    # step 1: the same click on empty space changed nothing, so it was rejected and the field click ran
    assert "changed nothing" in steps[1].attempts[0]["reason"]
    assert steps[1].info["step_check"]["label"] == "correct"
    # the rejection reasons reached the policy as feedback
    feedback = [c["feedback"] or "" for c in policy.calls]
    assert "judged this action invalid" in feedback[1] and "Click the field first" in feedback[1]
    assert "changed nothing" in feedback[3]
