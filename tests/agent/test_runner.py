"""The recorded loop on real Chromium: scripted replies go through the real parser, the real env
and the real episode store; what a user would see is asserted on the page and on disk."""

from __future__ import annotations

import pytest
from agent_helpers import ADD, FINISH, NAME, PAGES, H, W

from venuskit.agent.hooks import CheckResult, GateDecision
from venuskit.agent.policy import ScriptedPolicy
from venuskit.agent.runner import RunConfig
from venuskit.agent.session import AgentJob, run_episode
from venuskit.envs.browser import BrowserConfig, BrowserEnv
from venuskit.record.store import load_episode

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def env():
    with BrowserEnv(BrowserConfig(viewport=(W, H), wait_default_s=0.1)) as e:
        yield e


@pytest.fixture(scope="module")
def site(serve_dir):
    return serve_dir(PAGES)


def run(env, site, tmp_path, replies, *, max_steps=10, **hooks):
    policy = ScriptedPolicy(replies, "browser")
    job = AgentJob(goal="Add one and type a name.", out=tmp_path, run=RunConfig(max_steps=max_steps))
    episode, folder = run_episode(env, policy, job, {"start_url": f"{site}/counter.html"}, **hooks)
    return episode, folder, policy


def count(env) -> str:
    return env.page.inner_text("#count")


def test_scripted_episode_changes_the_page_and_is_recorded(env, site, tmp_path):
    typed = "<think>Type.</think>\n<action>Type(content='Ada')</action>"
    episode, folder, _ = run(env, site, tmp_path, [ADD, NAME, typed, FINISH])
    assert episode.outcome.reason == "finished" and episode.outcome.terminated and not episode.outcome.truncated
    assert count(env) == "1"
    assert env.page.input_value("#name") == "Ada"
    stored = load_episode(folder)
    assert [s.action.name for s in stored.steps] == ["Click", "Click", "Type", "Finished"]
    assert stored.screen == (W, H) and stored.finished and not stored.problems
    assert stored.steps[0].executed["x"] == pytest.approx(200, abs=1)
    assert all((folder / s.screenshot).stat().st_size > 0 for s in stored.steps)
    assert "### User Task" in stored.config["system_prompt"]


def test_unparsable_reply_is_reasked_once_then_recorded(env, site, tmp_path):
    episode, folder, policy = run(env, site, tmp_path, ["Click the button", ADD, "nonsense", "<action>Click(", FINISH])
    steps = load_episode(folder).steps
    assert steps[0].action.name == "Click" and steps[0].attempts[0]["rejected_by"] == "parser"
    assert steps[1].action is None and steps[1].error["type"] == "ActionParseError"
    assert len(steps[1].attempts) == 1  # one re-ask, then the failure is recorded
    assert "failed" in (policy.calls[1]["feedback"] or "")  # the re-ask told the model why
    assert "failed" in (steps[2].feedback or "")  # and the next step starts with the error text
    assert episode.outcome.reason == "finished" and count(env) == "1"


def test_five_identical_actions_truncate(env, site, tmp_path):
    episode, folder, _ = run(env, site, tmp_path, [ADD] * 8)
    assert episode.outcome.truncated and episode.outcome.reason == "repeated_action"
    assert len(load_episode(folder).steps) == 5 and count(env) == "5"


def test_step_limit_truncates(env, site, tmp_path):
    episode, folder, _ = run(env, site, tmp_path, [ADD, NAME, ADD, NAME], max_steps=3)
    assert episode.outcome.truncated and episode.outcome.reason == "step_limit" and not episode.outcome.terminated
    assert len(load_episode(folder).steps) == 3


def test_call_user_without_a_user_ends_needs_user(env, site, tmp_path):
    ask = "<think>Which name?</think>\n<action>CallUser(content='Which name should I type?')</action>"
    episode, _, _ = run(env, site, tmp_path, [ask, FINISH])
    assert episode.outcome.needs_user and episode.outcome.reason == "call_user"
    assert episode.outcome.answer == "Which name should I type?"


def test_call_user_reply_is_fed_back_and_the_run_goes_on(env, site, tmp_path):
    ask = "<think>Which name?</think>\n<action>CallUser(content='Which name?')</action>"
    episode, folder, policy = run(env, site, tmp_path, [ask, FINISH], call_user=lambda q: "Grace")
    assert episode.outcome.reason == "finished"
    assert "Grace" in policy.calls[1]["feedback"]
    assert load_episode(folder).steps[0].info["user_reply"] == "Grace"


def test_step_check_rejections_resample_and_are_recorded(env, site, tmp_path):
    verdicts = iter([CheckResult(ok=False, label="wrong", reason="that is the name field")] * 2 + [CheckResult()] * 9)
    episode, folder, policy = run(
        env, site, tmp_path, [NAME, NAME, ADD, FINISH], step_check=lambda ctx: next(verdicts)
    )
    first = load_episode(folder).steps[0]
    assert [a["rejected_by"] for a in first.attempts] == ["step_check", "step_check"]
    assert first.action.name == "Click" and count(env) == "1"  # only the accepted click ran
    assert "that is the name field" in policy.calls[1]["feedback"]


def test_the_step_check_sees_the_recorded_steps_before_it(env, site, tmp_path):
    seen: list[list[str]] = []

    def check(ctx):
        seen.append([f"{s.index}:{s.action.name}" for s in ctx.history])
        return CheckResult()

    run(env, site, tmp_path, [ADD, NAME, FINISH], step_check=check)
    assert seen == [[], ["0:Click"], ["0:Click", "1:Click"]]


def test_safety_gate_block_keeps_the_action_from_running(env, site, tmp_path):
    gate = lambda ctx: GateDecision("block", "clicking is consequential here")  # noqa: E731
    episode, folder, _ = run(env, site, tmp_path, [ADD, FINISH], safety_gate=gate)
    first = load_episode(folder).steps[0]
    assert first.error["type"] == "SafetyBlocked" and count(env) == "0"


def test_a_browser_dead_under_the_gate_is_the_steps_error_and_the_suite_retries_it(env, site, tmp_path):
    """Not a fail-closed verdict: the action never ran, the crash is recorded as the step's error (which a suite
    reads as infrastructure and re-runs), and the episode goes on from the relaunched browser."""
    from venuskit.envs import BrowserCrashed
    from venuskit.runs.failures import infra_error

    calls: list[int] = []

    def gate(ctx):  # the browser dies during the first inspection only
        calls.append(1)
        if len(calls) == 1:
            raise BrowserCrashed("The browser died during inspect; it was relaunched at the last URL.")
        return GateDecision("allow", "")

    episode, folder, _ = run(env, site, tmp_path, [ADD, ADD, FINISH], safety_gate=gate)
    steps = load_episode(folder).steps
    assert steps[0].error["type"] == "BrowserCrashed" and "safety_gate" not in steps[0].info
    assert episode.outcome.reason == "finished" and count(env) == "1"  # only the second click ran
    assert (infra_error(load_episode(folder)) or "").startswith("BrowserCrashed at step 0")


def test_fuzzed_replies_are_recorded_and_the_run_goes_on(env, site, tmp_path):
    junk = [
        "",
        "<action></action>",
        "<action>Click(point=(5000, 1))</action>",
        "<action>__import__('os')</action>",
        "<think>x</think><action>Click(point=(1,2)) Click(point=(1,2))</action>",
        "\x00\uffff",
        "<action>Swipe(start=(1,2), end=(3,4))</action>",
    ]
    episode, folder, _ = run(env, site, tmp_path, junk * 2 + [FINISH], max_steps=20)
    steps = load_episode(folder).steps
    assert episode.outcome.reason == "finished"
    assert sum(s.error is not None and s.error["type"] == "ActionParseError" for s in steps) == 7


def test_mobile_surface_taps_and_types_on_a_touch_page(site, tmp_path):
    from venuskit.actions import Click, Point, format_call

    def tap(x: float, y: float) -> str:  # CSS px of the 412x915 mobile viewport
        return f"<action>{format_call(Click(point=Point((x + 0.5) / 412, (y + 0.5) / 915)), 'mobile')}</action>"

    replies = [tap(200, 140), tap(300, 320), "<action>Type(content='Lin')</action>", FINISH]
    job = AgentJob(goal="Add one and type a name.", surface="mobile", out=tmp_path)
    with BrowserEnv(BrowserConfig(preset="mobile")) as mob:
        episode, folder = run_episode(
            mob, ScriptedPolicy(replies, "mobile"), job, {"start_url": f"{site}/counter.html"}
        )
        assert episode.outcome.reason == "finished"
        assert mob.page.inner_text("#count") == "1" and mob.page.input_value("#name") == "Lin"
    stored = load_episode(folder)
    assert stored.screen == (824, 1830)  # screenshots at device scale factor 2
    assert "**You are a GUI Agent.**" in stored.config["system_prompt"]


def test_the_screen_an_action_ended_on_is_recorded(env, site, tmp_path):
    """Truncated right after a click: the step holds the screen before it, the final observation the one after
    (the count shows 1); the viewer and the Parquet export show it. After Finished nothing is added."""
    import io

    from PIL import Image

    from venuskit.record.export import export_parquet
    from venuskit.record.viewer import page_html

    episode, folder, _ = run(env, site, tmp_path / "cut", [ADD, FINISH], max_steps=1)
    stored = load_episode(folder)
    assert episode.outcome.reason == "step_limit" and stored.final is not None and stored.final.after_step == 0
    assert stored.final.url.endswith("/counter.html") and stored.final.title == "Counter"
    before, after = (folder / "step_0000.png").read_bytes(), (folder / "final.png").read_bytes()
    assert before != after  # the counter went from 0 to 1 between them
    assert "Final screen" in page_html(folder) and "after the action of step 0" in page_html(folder)
    export_parquet([folder], tmp_path / "rows.parquet")
    import pyarrow.parquet as pq

    final_image = pq.read_table(tmp_path / "rows.parquet").column("final_image").to_pylist()[0]
    assert Image.open(io.BytesIO(final_image["bytes"])).size == (W, H) and final_image["bytes"] == after

    _, done, _ = run(env, site, tmp_path / "done", [ADD, FINISH])
    assert load_episode(done).final is None and not (done / "final.png").exists()


def test_caller_episode_id_and_pauses_without_steps(env, site, tmp_path):
    import time

    policy = ScriptedPolicy([ADD, 0.4, FINISH], "browser")
    job = AgentJob(goal="Add one.", out=tmp_path)
    t0 = time.monotonic()
    episode, folder = run_episode(env, policy, job, {"start_url": f"{site}/counter.html"}, episode_id="mine-1")
    assert folder == tmp_path / "mine-1" and episode.episode_id == "mine-1"
    assert [s.action.name for s in load_episode(folder).steps] == ["Click", "Finished"]  # no Wait step
    assert time.monotonic() - t0 >= 0.4
    with pytest.raises(FileExistsError):
        run_episode(env, ScriptedPolicy([FINISH], "browser"), job, {"start_url": f"{site}/counter.html"},
                    episode_id="mine-1")  # fmt: skip


def test_a_refused_start_url_leaves_no_episode_folder(env, tmp_path):
    from venuskit.envs.base import ActionRefused

    with pytest.raises(ActionRefused, match="outside the allowed hosts"):
        run(env, "http://example.invalid", tmp_path, [FINISH])
    assert list(tmp_path.iterdir()) == []


def test_resume_reopens_the_final_screen_or_the_page_it_is_given(env, site, tmp_path):
    import threading

    stop = threading.Event()  # what the CLI's Ctrl-C handler sets: stop at the next step boundary
    episode, folder, _ = run(env, site, tmp_path, [ADD, ADD], stop=stop, on_step=lambda step: stop.set())
    interrupted = load_episode(folder)
    assert episode.outcome.reason == "interrupted" and not interrupted.finished
    assert interrupted.final is not None and interrupted.final.after_step == 0
    # Resume the truncated episode at a page the caller names: that page, not the last one, is opened.
    other = f"{site}/counter.html?again"
    job = AgentJob(goal="ignored", out=tmp_path, run=RunConfig(max_steps=3))
    episode, _ = run_episode(env, ScriptedPolicy([FINISH], "browser"), job, {"start_url": other}, resume_dir=folder)
    stored = load_episode(folder)
    assert episode.outcome.reason == "finished" and stored.steps[1].url == other
    assert stored.final is None and not (folder / "final.png").exists()  # resuming went on from there


def test_requests_blocked_while_the_start_page_loads_are_recorded(env, site, tmp_path):
    """The guard blocks a start page's outside fetch and WebRTC attempt before the first step; the episode keeps
    both (the same attempt a step later lands in that step's info)."""
    policy = ScriptedPolicy([FINISH], "browser")
    job = AgentJob(goal="Look.", out=tmp_path, run=RunConfig(max_steps=3))
    _, folder = run_episode(env, policy, job, {"start_url": f"{site}/leaky_start.html"})
    blocked = load_episode(folder).reset.get("blocked", [])
    kinds = {(b["type"], b["url"].split("?")[0]) for b in blocked}
    assert ("webrtc", "stun:198.51.100.7:3478") in kinds
    assert any(b["url"].startswith("http://198.51.100.7/beacon") for b in blocked), blocked
