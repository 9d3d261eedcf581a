"""Models on the android surface as on the others: venus-nano in process and a model served behind the OpenAI wire
format (the real openai client) each run a world task over adb on the stand-in; the episode is recorded in the
normal format, with the device (and what the stand-in does not model) in its manifest, and judged by the task's
contract."""

from __future__ import annotations

import pytest

from venuskit.agent.nano import NanoPolicy
from venuskit.agent.policy import VenusPolicy
from venuskit.agent.runner import RunConfig
from venuskit.agent.session import AgentJob, run_episode
from venuskit.envs.android import AndroidConfig, AndroidEnv
from venuskit.models.nano import load_default
from venuskit.models.openai_backend import ModelConfig, OpenAIBackend
from venuskit.models.serve import ChatServer
from venuskit.record.formats import export_offline
from venuskit.record.store import load_episode
from venuskit.tasks.run import WorldTask

pytestmark = [pytest.mark.browser, pytest.mark.slow]

TASK, SEED, STEPS = "mail.star_message", 5000, 4


def run_on_android(world, adb_server, standin, tmp_path, make_policy):
    wt = WorldTask.start(world, TASK, SEED)
    try:
        policy = make_policy(wt.inst.goal)
        config = AndroidConfig(serial=standin.serial, adb_port=adb_server.port, start_server=False)
        job = AgentJob(goal=wt.inst.goal, surface="mobile", out=tmp_path, run=RunConfig(max_steps=STEPS))
        with AndroidEnv(config) as env:
            episode, folder = run_episode(env, policy, job, wt.env_task(), on_step=wt.on_step)
        verdict = wt.verdict(episode.outcome.reason, episode.outcome.answer)
    finally:
        wt.close()
    return load_episode(folder), verdict


def assert_recorded_on_the_stand_in(episode, verdict) -> None:
    assert verdict.verdict in ("completed", "partial", "failed")  # judged by the contract, whatever the model did
    assert episode.surface == "mobile" and tuple(episode.screen) == (540, 1200)
    assert episode.steps and all(s.screenshot for s in episode.steps) and not episode.problems
    device = episode.config["device"]
    assert device["model"] == "venuskit-standin" and "notifications" in device["standin"]["not_modelled"]
    taps = [s.executed for s in episode.steps if s.executed and s.executed.get("op") == "tap"]
    assert all(0 <= t["x"] < 540 and 0 <= t["y"] < 1200 for t in taps)  # device pixels of the screenshot


def test_venus_nano_runs_a_world_task_over_adb_and_exports(world, adb_server, standin, tmp_path) -> None:
    model = load_default()
    episode, verdict = run_on_android(world, adb_server, standin, tmp_path / "runs",
                                      lambda goal: NanoPolicy("mobile", goal, model))  # fmt: skip
    assert_recorded_on_the_stand_in(episode, verdict)
    assert episode.model["policy"] == "venus-nano"
    exported = export_offline("androidcontrol", tmp_path / "runs", tmp_path / "ac")  # AndroidControl's own layout
    assert exported["episodes"] == 1 and any((tmp_path / "ac").iterdir())


def test_a_served_model_runs_a_world_task_over_adb(world, adb_server, standin, tmp_path) -> None:
    with ChatServer(load_default()) as server:
        backend = OpenAIBackend(ModelConfig(base_url=server.base_url, model="venus-nano", max_tokens=256))
        episode, verdict = run_on_android(world, adb_server, standin, tmp_path,
                                          lambda goal: VenusPolicy(backend, "mobile", goal))  # fmt: skip
    assert_recorded_on_the_stand_in(episode, verdict)
    assert all(s.raw_output and "<action>" in s.raw_output for s in episode.steps)
    assert "mobile" in episode.config["system_prompt"].lower() or "GUI Agent" in episode.config["system_prompt"]
