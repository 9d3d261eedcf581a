"""Nothing is lost: a dead model server, a killed browser and SIGINT each leave a valid, resumable
episode with the failure recorded as a typed step error."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time

import pytest
from agent_helpers import ADD, FINISH, NAME, PAGES, H, W

from venuskit.agent.policy import ScriptedPolicy, VenusPolicy
from venuskit.agent.runner import RunConfig
from venuskit.agent.session import AgentJob, run_episode
from venuskit.envs.browser import BrowserConfig, BrowserEnv
from venuskit.models.openai_backend import ModelConfig, OpenAIBackend
from venuskit.models.standin_server import Reply, StandinServer
from venuskit.record.store import load_episode

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def site(serve_dir):
    return serve_dir(PAGES)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def venus_policy(base_url: str, goal: str) -> VenusPolicy:
    cfg = ModelConfig(base_url=base_url, model="standin", max_retries=1, backoff_base_s=0.05, timeout_s=5)
    return VenusPolicy(OpenAIBackend(cfg), "browser", goal)


def test_dead_model_server_is_recorded_and_the_episode_resumes(site, tmp_path):
    goal = "Add one."
    job = AgentJob(goal=goal, out=tmp_path, run=RunConfig(max_steps=5))
    task = {"start_url": f"{site}/counter.html"}
    with BrowserEnv(BrowserConfig(viewport=(W, H))) as env:
        dead = venus_policy(f"http://127.0.0.1:{free_port()}/v1", goal)
        episode, folder = run_episode(env, dead, job, task)
        assert episode.outcome.reason == "error" and episode.outcome.error["type"] == "ModelUnavailable"
        stored = load_episode(folder)
        assert not stored.finished and stored.steps[0].error["type"] == "ModelUnavailable"
        with StandinServer([ADD, FINISH]) as srv:
            episode, folder2 = run_episode(env, venus_policy(srv.base_url, "ignored"), job, task, resume_dir=folder)
            assert "### User Task\nAdd one." in srv.chat_requests()[0].json["messages"][0]["content"]
        assert folder2 == folder and episode.outcome.reason == "finished"
        assert env.page.inner_text("#count") == "1"
    steps = load_episode(folder).steps
    assert [s.index for s in steps] == [0, 1, 2] and steps[1].action.name == "Click"


def test_killed_browser_is_a_recorded_step_error_and_the_run_goes_on(site, tmp_path):
    job = AgentJob(goal="Add one twice.", out=tmp_path, run=RunConfig(max_steps=6))
    with BrowserEnv(BrowserConfig(viewport=(W, H))) as env:
        policy = ScriptedPolicy([ADD, NAME, ADD, FINISH], "browser")
        killed = []

        def kill_after_first(step):
            if step.index == 0 and not killed:
                killed.append(env.browser_pid)
                os.kill(env.browser_pid, signal.SIGKILL)

        episode, folder = run_episode(
            env, policy, job, {"start_url": f"{site}/counter.html"}, on_step=kill_after_first
        )
        assert episode.outcome.reason == "finished"
        assert env.browser_pid != killed[0]  # relaunched
        assert env.page.inner_text("#count") == "1"  # a fresh page after the relaunch, then one more click
    steps = load_episode(folder).steps
    assert steps[1].error is not None and steps[1].error["type"] == "BrowserCrashed"
    assert steps[3].action.name == "Finished"


def test_sigint_leaves_a_resumable_episode(site, tmp_path):
    with StandinServer([Reply(text=r, delay_s=0.3) for r in [ADD, NAME] * 20]) as srv:
        cmd = [
            sys.executable,
            "-m",
            "venuskit.cli.main",
            "run",
            "--task",
            "Add one.",
            "--start-url",
            f"{site}/counter.html",
            "--model",
            srv.base_url,
            "--model-name",
            "standin",
            "--out",
            str(tmp_path),
            "--non-interactive",
            "--max-steps",
            "30",
        ]
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not list(tmp_path.glob("*/step_0002.png")):
            time.sleep(0.1)
        proc.send_signal(signal.SIGINT)
        out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, err
    assert "resume" in err and "Traceback" not in err
    (folder,) = [p for p in tmp_path.iterdir() if p.is_dir()]
    ep = load_episode(folder)
    assert ep.outcome.reason == "interrupted" and not ep.finished and not ep.problems
    assert len(ep.steps) >= 3
