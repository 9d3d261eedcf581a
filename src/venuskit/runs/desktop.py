"""Running desktop tasks: the harness that joins a desktop task, the real desktop env (Xvfb + apps), a policy and
the episode store, and stores the task contract's verdict in the recorded episode.

`venus desktop oracle`, `venus run --surface computer --desktop-task`, the oracle tests and the desktop benchmark
all go through `run_desktop_task`. Like runs/world.py it joins rooms that never import each other (tasks, agent,
envs, record).
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from venuskit.runs.policies import DesktopOraclePolicy

SURFACE = "computer"


@dataclass
class DesktopRun:
    verdict: Any  # venuskit.tasks.Verdict
    episode_dir: Path
    episode: Any  # venuskit.record.Episode
    oracle_error: str | None = None
    seconds: float = 0.0
    reset_s: float = 0.0

    def to_dict(self) -> dict[str, Any]:
        from venuskit.record.store import load_episode

        v = self.verdict.to_dict()
        return {"task": self.episode.task.get("desktop_task"), "verdict": v["verdict"], "reason": v["reason"],
                "keypoints": v["keypoints"], "forbidden": v["forbidden"], "episode_dir": str(self.episode_dir),
                "steps": len(load_episode(self.episode_dir).steps), "end": self.episode.outcome.reason,
                "oracle_error": self.oracle_error, "seconds": round(self.seconds, 2)}  # fmt: skip


def run_desktop_task(
    task_id: str,
    seed: int = 0,
    *,
    policy: Any = "oracle",
    out: Path = Path("runs/desktop"),
    env: Any = None,
    config: Any = None,
    max_steps: int | None = None,
    n_img: int = 2,
    stop_at_progress: bool = False,
    on_step: Callable[[Any], None] | None = None,
    call_user: Callable[[str], str | None] | None = None,
    step_check: Callable[[Any], Any] | None = None,
    server: Any = None,
    safety_gate: Callable[[Any], Any] | None = None,
) -> DesktopRun:
    """Run one desktop task on the real desktop and store the contract verdict in the recorded episode (manifest
    `verdicts.contract`).

    `policy`: "oracle" (the task's scripted solution), a venuskit Policy, or a factory `policy(goal) -> Policy`.
    `env`: a DesktopEnv to reuse (left open: its X server stays up for the next task); else one is made from
    `config` (a DesktopConfig) and closed at the end. `server`: the WorldServer for a task that uses the world's web
    apps in the desktop's browser (else one is started for the run and stopped after it)."""
    from venuskit.agent.runner import RunConfig
    from venuskit.agent.session import AgentJob, run_episode
    from venuskit.envs.desktop import DesktopEnv
    from venuskit.record.store import EpisodeWriter
    from venuskit.tasks.contract import Verdict
    from venuskit.tasks.desktop.oracle import DesktopOracle
    from venuskit.tasks.desktop.run import DesktopTask
    from venuskit.tasks.desktop.spec import get_task

    t0 = time.perf_counter()
    own_server = server is None and get_task(task_id).world is not None
    if own_server:
        from venuskit.world.server import WorldServer

        server = WorldServer().start()
    try:
        dt = DesktopTask.start(task_id, seed, server)
    except BaseException:
        if own_server:
            server.stop()
        raise
    own_env = env is None
    env = env or DesktopEnv(config)
    try:
        if policy == "oracle":
            stop = (lambda: dt.progress(env.home, env.facts(), env.start_home)) if stop_at_progress else None
            policy = DesktopOraclePolicy(env, DesktopOracle(dt.inst.oracle), stop)
        elif callable(policy) and not hasattr(policy, "act"):
            policy = policy(dt.inst.goal)
        job = AgentJob(goal=dt.inst.goal, surface=SURFACE, out=Path(out), n_img=n_img,
                       run=RunConfig(max_steps=max_steps or dt.inst.spec.max_steps))  # fmt: skip
        hooks = (("call_user", call_user), ("step_check", step_check), ("safety_gate", safety_gate))
        extra = {k: v for k, v in hooks if v is not None}
        timed = _TimedReset(env)
        episode, folder = run_episode(timed, policy, job, dt.env_task(), on_step=on_step, **extra)
        if env.session is None:  # the desktop could not be reset (or died for good): nothing to judge
            error = (episode.outcome.error or {}).get("message", "the desktop is not running")
            verdict = Verdict("error", [], [], f"no desktop state to judge: {error}")
        else:
            verdict = dt.verdict(env.home, env.facts(), episode.outcome.reason, episode.outcome.answer,
                                 env.start_home)  # fmt: skip
        with EpisodeWriter.open(folder) as writer:
            writer.update_manifest(verdicts={**episode.verdicts, "contract": verdict.to_dict()})
        return DesktopRun(verdict, folder, episode, getattr(policy, "error", None), time.perf_counter() - t0,
                          timed.reset_s)  # fmt: skip
    finally:
        dt.close()
        if own_env:
            env.close()
        if own_server:
            server.stop()


class _TimedReset:
    """The env as the runner sees it, timing reset (the desktop benchmark's reset figure)."""

    def __init__(self, env: Any) -> None:
        self.env, self.surface, self.reset_s = env, env.surface, 0.0

    def reset(self, task: dict[str, Any]) -> Any:
        t0 = time.perf_counter()
        try:
            return self.env.reset(task)
        finally:
            self.reset_s = time.perf_counter() - t0

    def step(self, action: Any) -> Any:
        return self.env.step(action)

    def observe(self) -> Any:
        return self.env.observe()

    def close(self) -> None:
        self.env.close()
