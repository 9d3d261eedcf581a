"""Every task's scripted solution in real Chromium, judged by its contract.

- the oracle of every feasible template reaches `completed` (every variant's locale at least once);
- the oracle stopped right after its first progress keypoint gives `partial`;
- an agent that does nothing gets `failed`;
- an infeasible task answered with CallUser gets `infeasible`;
- mobile-web runs for the templates that declare the mobile surface.
Episodes are recorded in the normal format with the verdict in `verdicts.contract`. A run that falls short is
run once more before it fails (see `_run`).
"""

from __future__ import annotations

import json

import pytest

from venuskit.agent.policy import ScriptedPolicy
from venuskit.envs.browser import BrowserConfig, BrowserEnv
from venuskit.record.store import load_episode
from venuskit.runs.world import run_world_task
from venuskit.tasks import bundled
from venuskit.world import WorldServer

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SETTLE_S = 0.1  # the world answers on loopback in milliseconds; the env still waits for every load event
TASKS = bundled()
FEASIBLE = sorted(t for t, s in TASKS.items() if s.feasible)
INFEASIBLE = sorted(t for t, s in TASKS.items() if not s.feasible)
ZH_ALL = sorted(
    (t, i)
    for t, s in TASKS.items()
    if s.feasible
    for i, p in enumerate(s.params)
    if p.get("locale") == "zh" and i == next(j for j, q in enumerate(s.params) if q.get("locale") == "zh")
)
ZH = ZH_ALL[::4]  # a quarter of the Chinese variants keeps the suite short; `venus world oracle` runs any of them
WITH_PROGRESS = sorted(t for t in FEASIBLE if any(k.progress for k in TASKS[t].keypoints))
MOBILE = sorted(t for t in FEASIBLE if "mobile" in TASKS[t].surfaces)


@pytest.fixture(scope="module")
def world():
    with WorldServer() as w:
        yield w


@pytest.fixture(scope="module")
def desktop():
    env = BrowserEnv(BrowserConfig(settle_s=SETTLE_S, reuse_context=True))
    yield env
    env.close()


@pytest.fixture(scope="module")
def mobile():
    env = BrowserEnv(BrowserConfig(preset="mobile", settle_s=SETTLE_S, reuse_context=True))
    yield env
    env.close()


def _run(world, env, tmp_path, task_id, seed=0, expect="completed", **kw):
    """The oracle's run, run once more before it fails: on a loaded machine (CI's parallel test processes) Chromium
    now and then drops a click on a page that has only just been laid out, more often than the oracle's replay can
    see; a template whose oracle or contract is wrong falls short both times."""
    tries = []
    for attempt in range(2):
        run = run_world_task(task_id, seed, out=tmp_path / str(attempt), server=world, env=env, **kw)
        if run.oracle_error is None and run.verdict.verdict == expect:
            return run
        tries.append((run.verdict.verdict, run.oracle_error, _explain(run)[:600]))
    pytest.fail(f"{task_id} seed {seed}: not {expect} twice: {tries}")


def _explain(run) -> str:
    return json.dumps(run.to_dict(), ensure_ascii=False)[:1500]


@pytest.mark.parametrize("task_id", FEASIBLE)
def test_oracle_completes(world, desktop, tmp_path, task_id):
    run = _run(world, desktop, tmp_path, task_id)
    assert run.verdict.verdict == "completed", _explain(run)
    ep = load_episode(run.episode_dir)
    assert ep.verdicts["contract"]["verdict"] == "completed"
    assert ep.task["world_task"] == task_id and ep.finished and ep.outcome.reason == "finished"
    assert len(ep.steps) >= 1 and all(s.screenshot for s in ep.steps) and not ep.problems
    if TASKS[task_id].interrupts:
        assert ep.verdicts["contract"]["interrupts"], "the interrupt never fired"


@pytest.mark.parametrize(("task_id", "seed"), ZH)
def test_oracle_completes_in_chinese(world, desktop, tmp_path, task_id, seed):
    run = _run(world, desktop, tmp_path, task_id, seed)
    assert run.episode.task["locale"] == "zh"
    assert run.verdict.verdict == "completed", _explain(run)


@pytest.mark.parametrize("task_id", WITH_PROGRESS)
def test_oracle_stopped_after_first_progress_is_partial(world, desktop, tmp_path, task_id):
    run = _run(world, desktop, tmp_path, task_id, expect="partial", stop_at_progress=True)
    assert run.verdict.verdict == "partial", _explain(run)
    assert run.episode.outcome.reason == "finished"


@pytest.mark.parametrize("task_id", FEASIBLE[::6])
def test_an_agent_that_does_nothing_fails(world, desktop, tmp_path, task_id):
    policy = ScriptedPolicy(["<think>Nothing to do.</think><action>Finished(content='Done.')</action>"], "browser")
    run = run_world_task(task_id, 0, out=tmp_path, server=world, env=desktop, policy=policy)
    assert run.verdict.verdict == "failed", _explain(run)


@pytest.mark.parametrize("task_id", INFEASIBLE)
def test_infeasible_task_answered_with_call_user_is_infeasible(world, desktop, tmp_path, task_id):
    run = _run(world, desktop, tmp_path, task_id, expect="infeasible")
    assert run.verdict.verdict == "infeasible", _explain(run)
    ep = load_episode(run.episode_dir)
    assert ep.outcome.reason in ("call_user", "finished")


def test_infeasible_task_done_anyway_fails(world, desktop, tmp_path):
    """Pushing on (here: sending money without knowing the amount) is a failure, not infeasible."""
    replies = ["<think>Just pay.</think><action>Click(point=(100, 120))</action>",
               "<think>Done.</think><action>Finished(content='Paid.')</action>"]  # fmt: skip
    run = run_world_task("infeasible.pay_ambiguous", 0, out=tmp_path, server=world, env=desktop,
                         policy=ScriptedPolicy(replies, "browser"))  # fmt: skip
    assert run.verdict.verdict == "failed"


@pytest.mark.parametrize("task_id", MOBILE[::3])
def test_oracle_completes_on_the_mobile_web_preset(world, mobile, tmp_path, task_id):
    run = _run(world, mobile, tmp_path, task_id, surface="mobile")
    assert run.verdict.verdict == "completed", _explain(run)
    assert load_episode(run.episode_dir).surface == "mobile"


def test_a_policy_factory_gets_the_goal_and_the_simulated_date(world, desktop, tmp_path):
    seen: dict[str, str] = {}

    def factory(goal: str, today: str) -> ScriptedPolicy:
        seen.update(goal=goal, today=today)
        return ScriptedPolicy(["<think>Done.</think><action>Finished(content='Done.')</action>"], "browser")

    steps: list[int] = []
    run = run_world_task("mail.star_message", 0, out=tmp_path, server=world, env=desktop, policy=factory,
                         on_step=lambda s: steps.append(s.index))  # fmt: skip
    assert seen["today"] == "2024-03-14" and seen["goal"].startswith("Star the email")
    assert steps == [0] and run.verdict.verdict == "failed"
