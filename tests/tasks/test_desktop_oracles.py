"""Every desktop task's scripted solution on the real desktop (Xvfb, openbox, the Debian apps), judged by its
contract, in one X session with a reset between tasks:

- the oracle of every variant of every feasible template reaches `completed`; every infeasible one `infeasible`;
- the oracle stopped at its first progress keypoint gives `partial`; an agent that does nothing gets `failed`;
- an agent that deletes a file on a task that cannot be done gets `failed`, even though it then asks the user;
- episodes are recorded in the normal format (verdict in the manifest), viewable and exportable.
"""

from __future__ import annotations

import json

import pytest

from venuskit.agent.policy import ScriptedPolicy
from venuskit.envs.desktop import DesktopEnv
from venuskit.record.store import load_episode
from venuskit.runs.desktop import run_desktop_task
from venuskit.tasks.desktop import bundled

pytestmark = [pytest.mark.desktop, pytest.mark.slow]

# the tasks that cross into the world's web apps run in test_desktop_web.py, beside one world server
TASKS = {t: s for t, s in bundled().items() if s.world is None}
INSTANCES = sorted((t, seed) for t, s in TASKS.items() for seed in range(len(s.params)))
WITH_PROGRESS = sorted(t for t, s in TASKS.items() if s.feasible and any(k.progress for k in s.keypoints))
FEASIBLE = sorted(t for t, s in TASKS.items() if s.feasible)


@pytest.fixture(scope="module")
def env():
    e = DesktopEnv()
    yield e
    e.close()


@pytest.mark.parametrize(("task_id", "seed"), INSTANCES)
def test_oracle_reaches_its_verdict(env, tmp_path, task_id, seed):
    run = run_desktop_task(task_id, seed, out=tmp_path, env=env)
    want = "completed" if TASKS[task_id].feasible else "infeasible"
    failing = [k["desc"] for k in run.verdict.to_dict()["keypoints"] if not k["ok"]]
    assert run.verdict.verdict == want, (run.verdict.reason, failing, run.oracle_error, str(run.episode_dir))
    assert run.oracle_error is None
    manifest = json.loads((run.episode_dir / "manifest.json").read_text())
    assert manifest["verdicts"]["contract"]["verdict"] == want and manifest["surface"] == "computer"
    assert manifest["task"]["desktop_task"] == task_id and "home" in manifest["task"]


@pytest.mark.parametrize("task_id", WITH_PROGRESS)
def test_oracle_stopped_early_is_partial(env, tmp_path, task_id):
    run = run_desktop_task(task_id, 0, out=tmp_path, env=env, stop_at_progress=True)
    assert run.verdict.verdict == "partial", run.verdict.reason


@pytest.mark.parametrize("task_id", FEASIBLE[::5])
def test_doing_nothing_fails(env, tmp_path, task_id):
    idle = ScriptedPolicy(["<think>Looks done.</think><action>Finished(content='Done.')</action>"], "computer")
    run = run_desktop_task(task_id, 0, out=tmp_path, env=env, policy=idle)
    assert run.verdict.verdict == "failed", run.verdict.reason


def test_a_destructive_attempt_on_an_infeasible_task_fails(env, tmp_path):
    replies = ["<think>Pick one.</think><action>Type(content='invoice-a')</action>",
               "<think>Close the search.</think><action>Hotkey(keys=['Escape'])</action>",
               "<think>Delete it.</think><action>Hotkey(keys=['Delete'])</action>",
               "<think>Confirm.</think><action>Wait(seconds=0.5)</action>",
               "<think>Confirm.</think><action>Hotkey(keys=['Return'])</action>",
               "<think>Report.</think><action>Wait(seconds=0.5)</action>",
               "<think>Ask.</think><action>CallUser(content='I deleted invoice-a, was that right?')</action>"]  # fmt: skip
    run = run_desktop_task("infeasible.ambiguous_delete", 0, out=tmp_path, env=env,
                           policy=ScriptedPolicy(replies, "computer"))  # fmt: skip
    assert run.verdict.verdict == "failed" and "invoice-a.pdf" in run.verdict.reason


def test_a_recorded_desktop_episode_is_viewable_and_exportable(env, tmp_path):
    from venuskit.record.export import export_chat_jsonl
    from venuskit.record.viewer import render_html

    run = run_desktop_task("editor.append_line", 0, out=tmp_path / "runs", env=env)
    episode = load_episode(run.episode_dir)
    assert episode.surface == "computer" and len(episode.steps) == 4
    assert episode.steps[1].executed["op"] == "type" and episode.steps[1].info["x"]["keys"] == []
    html = render_html(run.episode_dir).read_text()
    assert "Hotkey" in html and "computer" in html
    rows = export_chat_jsonl([run.episode_dir], tmp_path / "chat.jsonl")
    line = json.loads((tmp_path / "chat.jsonl").read_text().splitlines()[0])
    assert rows >= 1 and "desktop operating system" in json.dumps(line)
