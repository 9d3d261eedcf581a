"""Running world tasks: one world task, the real browser env and a policy joined into a recorded episode that
carries the task contract's verdict.

`venus world oracle`, `venus run --world`, the suites, the flywheel's collection, the verifier bench, the oracle
tests and the reset benchmark all run world tasks through `run_world_task`. It joins rooms that never import each
other (tasks, agent, envs, world, record): that is what `venuskit.runs` is for; the CLI only calls it.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Any

from venuskit.runs.policies import OraclePolicy


@dataclass
class WorldRun:
    verdict: Any  # venuskit.tasks.Verdict
    episode_dir: Path
    episode: Any  # venuskit.record.Episode
    interrupts: list[dict[str, Any]] = field(default_factory=list)
    oracle_error: str | None = None
    seconds: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        v = self.verdict.to_dict()
        return {"task": self.episode.task.get("world_task"), "verdict": v["verdict"], "reason": v["reason"],
                "keypoints": v["keypoints"], "forbidden": v["forbidden"], "episode_dir": str(self.episode_dir),
                "steps": _count_steps(self.episode_dir), "end": self.episode.outcome.reason,
                "interrupts": self.interrupts,
                "oracle_error": self.oracle_error, "seconds": round(self.seconds, 2)}  # fmt: skip


def world_task_start(
    server: Any, task_id: str, seed: int = 0, skin: int = 0
) -> tuple[dict[str, Any], Any, Callable[[Any], Any]]:
    """For `venus run --world`: (task dict for env.reset and the record, on_step hook, verdict(episode) -> dict).
    The verdict function also needs the episode's outcome: pass the Episode that run_episode returned."""
    from venuskit.tasks.run import WorldTask

    wt = WorldTask.start(server, task_id, seed, skin=skin)

    def verdict(episode: Any) -> dict[str, Any]:
        v = wt.verdict(episode.outcome.reason, episode.outcome.answer).to_dict()
        return {**v, "interrupts": wt.fired}

    return wt.env_task(), wt.on_step, verdict


def run_world_task(
    task_id: str,
    seed: int = 0,
    *,
    policy: Any = "oracle",
    out: Path = Path("runs/world"),
    surface: str = "browser",
    stop_at_progress: bool = False,
    server: Any = None,
    env: Any = None,
    browser: Any = None,
    max_steps: int | None = None,
    on_step: Callable[[Any], None] | None = None,
    call_user: Callable[[str], str | None] | None = None,
    step_check: Callable[[Any], Any] | None = None,
    safety_gate: Callable[[Any], Any] | None = None,
    skin: int = 0,
) -> WorldRun:
    """Run one world task in real Chromium and store the contract verdict in the recorded episode
    (manifest `verdicts.contract`).

    `surface`: browser, mobile (the mobile-web preset) or android (the mobile grammar over adb: pass `env`, an
    AndroidEnv; the oracle needs a stand-in device running in this process, see venuskit.runs.android).
    `policy`: "oracle" (the task's scripted solution), a venuskit Policy, or a factory
    `policy(goal, today) -> Policy` (today: the simulated date, for the browser prompt's "Today is ...").
    `env`: a browser env to reuse (left open); else one is made from `browser` (a BrowserConfig) or the
    surface's preset, and closed at the end. `on_step` runs after the task's own interrupt hook (e.g. a
    progress display); `call_user` answers CallUser;
    `step_check` checks each proposal before it runs (e.g. a venuskit.verify StepVerifier); `safety_gate` classifies
    it before it executes (a venuskit.agent.safety SafetyGate). `skin`: the world's look (venuskit.world.skins; 0
    is the default), recorded in the manifest's `task.skin`."""
    from venuskit.agent.runner import RunConfig
    from venuskit.agent.session import AgentJob, run_episode
    from venuskit.record.store import EpisodeWriter
    from venuskit.tasks.oracle import Oracle
    from venuskit.tasks.run import WorldTask
    from venuskit.world.server import WorldServer

    t0 = time.perf_counter()
    own_server, own_env = server is None, env is None
    server = server or WorldServer().start()
    wt = None
    try:
        wt = WorldTask.start(server, task_id, seed, skin=skin)
        grammar = grammar_of(surface)
        if grammar not in wt.inst.spec.surfaces:
            raise ValueError(f"Task {task_id} supports the surfaces {list(wt.inst.spec.surfaces)}, not {surface!r}.")
        env = env or world_browser(surface, browser)
        if policy == "oracle":
            stop = wt.progress if stop_at_progress else None
            policy = OraclePolicy(env, Oracle(wt.inst.oracle, grammar), grammar, stop)
            if surface == "android":
                oracle_page(env)  # a device without a page the oracle can read is refused before anything runs
        elif callable(policy) and not hasattr(policy, "act"):
            policy = policy(wt.inst.goal, wt.state.today.isoformat())
        job = AgentJob(goal=wt.inst.goal, surface=grammar, out=Path(out),
                       run=RunConfig(max_steps=max_steps or wt.inst.spec.max_steps))  # fmt: skip
        hooks = [h for h in (wt.on_step, on_step) if h is not None]
        extra = {k: v for k, v in (("call_user", call_user), ("step_check", step_check), ("safety_gate", safety_gate))
                 if v is not None}  # fmt: skip
        episode, folder = run_episode(env, policy, job, wt.env_task(), on_step=lambda s: [h(s) for h in hooks],
                                      **extra)  # fmt: skip
        verdict = wt.verdict(episode.outcome.reason, episode.outcome.answer)
        with EpisodeWriter.open(folder) as writer:
            contract = {**verdict.to_dict(), "interrupts": wt.fired}
            writer.update_manifest(verdicts={**episode.verdicts, "contract": contract})
        return WorldRun(verdict, folder, episode, list(wt.fired), getattr(policy, "error", None),
                        time.perf_counter() - t0)  # fmt: skip
    finally:
        if wt is not None:
            wt.close()
        if own_env and env is not None:
            env.close()
        if own_server:
            server.stop()


def grammar_of(surface: str) -> str:
    """The grammar a surface's model speaks: android is the mobile grammar on an adb device."""
    return "mobile" if surface == "android" else surface


def oracle_page(env: Any) -> Any:
    """The page the oracle plans from; over adb, the page of a stand-in running in this process (see
    venuskit.runs.android). Raises ValueError for a device that has none."""
    from venuskit.envs.base import EnvError

    try:
        return env.page
    except EnvError as e:
        raise ValueError(str(e)) from None


def world_operations() -> Any:
    """The bundled world's declared consequential operations (and look-alikes), for the safety gate."""
    from venuskit.agent.safety.ops import load_operations

    return load_operations(Path(str(resources.files("venuskit.world").joinpath("operations.toml"))))


def close_envs(envs: dict[str, Any]) -> None:
    """Close a worker's browser envs (one per surface); a crashed browser may fail to close, and is gone either way."""
    import contextlib

    for env in envs.values():
        with contextlib.suppress(Exception):
            env.close()
    envs.clear()


def world_browser(surface: str = "browser", config: Any = None) -> Any:
    """The browser env for world runs: `config` (a BrowserConfig) or the preset for `surface`, recycling one
    context across episodes — world episodes are bound by cookie, so a cleaned context is as isolated as a
    new one and resets faster. The android surface has no browser env: its runs pass an AndroidEnv."""
    from venuskit.envs.browser import BrowserConfig, BrowserEnv

    if surface == "android":
        raise ValueError("A world run on the android surface needs an AndroidEnv (env=...): venuskit.runs.android.")

    config = config or BrowserConfig(preset="mobile" if surface == "mobile" else "desktop")
    return BrowserEnv(dataclasses.replace(config, reuse_context=True))


def _count_steps(folder: Path) -> int:
    from venuskit.record.store import load_episode

    return len(load_episode(folder).steps)
