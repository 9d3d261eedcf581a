"""`venus eval miniwob`: a policy over MiniWoB++ tasks (all 103 deterministic ones by default), reward from the
page itself (MiniWoB++'s raw reward; success = reward > 0, the MiniWoB++ convention).

MiniWoB++ is never training data in venuskit (tasks/splits.toml): it is the out-of-domain test. One job is
(task, seed); each worker owns one browser (two envs: the 160x210 task area and FlightWoB's 375x667 frame).
"""

from __future__ import annotations

import contextlib
import fnmatch
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from venuskit.eval.suites.common import EPISODES, move_attempt, run_suite, slug, viewer_link
from venuskit.infra.config import help_text, option
from venuskit.runs.failures import infra_error
from venuskit.runs.parallel import Parallel
from venuskit.runs.policies import Metered, PolicySpec


@dataclass(frozen=True)
class MiniWobSuiteConfig:
    """One MiniWoB++ suite run."""

    out: str = field(metadata=help_text("Run folder (ledger, episodes, report)."))
    policy: PolicySpec = field(default_factory=lambda: PolicySpec("nano"))
    tasks: str = field(default="*", metadata=help_text("Task name globs, comma-separated (e.g. 'click-*')."))
    all_tasks: bool = option("Include the nondeterministic tasks too.", default=False)
    seeds: tuple[int, ...] = option("Episode seeds per task.", default=(0,))
    max_steps: int = option("Step limit per episode.", default=10)
    n_img: int = 2

    def __post_init__(self) -> None:
        if self.policy.kind == "oracle":
            raise ValueError("MiniWoB++ has no oracle in venuskit; pass --model nano or a model server URL.")
        if not self.seeds:
            raise ValueError("Pass at least one seed.")
        if self.max_steps < 1:
            raise ValueError(f"--max-steps must be at least 1, got {self.max_steps}.")

    def public(self) -> dict[str, Any]:
        return {"suite": "miniwob", "policy": self.policy.public(), "tasks": self.tasks, "all_tasks": self.all_tasks,
                "seeds": list(self.seeds), "max_steps": self.max_steps}  # fmt: skip


def miniwob_jobs(config: MiniWobSuiteConfig) -> list[dict[str, Any]]:
    from venuskit.envs.miniwob import list_tasks

    globs = [g.strip() for g in config.tasks.split(",") if g.strip()] or ["*"]
    names = [t for t in list_tasks(deterministic_only=not config.all_tasks) if any(fnmatch.fnmatchcase(t, g)
                                                                                  for g in globs)]  # fmt: skip
    if not names:
        raise ValueError(f"No MiniWoB++ task matches {config.tasks!r}; see `venus miniwob list`.")
    return [{"key": f"{name}/{seed}", "task": name, "seed": seed} for name in names for seed in config.seeds]


@dataclass(frozen=True)
class MiniWobWorkerConfig:
    suite: MiniWobSuiteConfig

    def __call__(self) -> MiniWobWorker:
        return MiniWobWorker(self.suite)


class MiniWobWorker:
    def __init__(self, config: MiniWobSuiteConfig) -> None:
        self.config, self.out = config, Path(config.out)
        self.envs: dict[bool, Any] = {}  # flight task? -> env

    def _env(self, task: str) -> Any:
        from venuskit.envs.miniwob import MiniWobEnv, default_config, get_task

        flight = get_task(task).flight
        if flight not in self.envs:
            chromium = os.environ.get("VENUS_CHROMIUM")
            overrides = {"executable_path": chromium} if chromium else {}
            self.envs[flight] = MiniWobEnv(config=default_config(task, **overrides))
        return self.envs[flight]

    def run(self, job: dict[str, Any]) -> dict[str, Any]:
        from venuskit.agent.runner import RunConfig
        from venuskit.agent.session import AgentJob, run_episode
        from venuskit.record.store import load_episode

        t0 = time.perf_counter()
        try:
            env = self._env(job["task"])
            # The goal is the task's utterance, known after reset; the runner hands it to the policy then.
            agent_job = AgentJob(goal=f"MiniWoB++ {job['task']}", surface="browser",
                                 out=self.out / EPISODES / slug(job["key"]), n_img=self.config.n_img,
                                 run=RunConfig(max_steps=self.config.max_steps))  # fmt: skip
            policy = Metered(self.config.policy.build("browser", agent_job.goal))
            _, folder = run_episode(env, policy, agent_job, {"miniwob": job["task"], "seed": job["seed"]})
        except Exception:
            self.close()
            raise
        episode = load_episode(folder)
        problem = infra_error(episode)
        if problem:
            self.close()
            move_attempt(self.out, folder)
            return {"key": job["key"], "infra_error": problem}
        o = episode.outcome
        return {**job, "reward": float(o.reward or 0.0) if o.reason == "env_done" else 0.0,
                "done_by_page": o.reason == "env_done", "end": o.reason, "steps": len(episode.steps),
                "utterance": episode.goal, **policy.counts(), "seconds": round(time.perf_counter() - t0, 3),
                "pid": os.getpid(),
                "episode_dir": str(folder.relative_to(self.out)), "viewer": viewer_link(folder, self.out)}  # fmt: skip

    def close(self) -> None:
        for env in self.envs.values():
            with contextlib.suppress(Exception):  # a crashed browser may fail to close; it is gone either way
                env.close()
        self.envs = {}


def run_miniwob_suite(
    config: MiniWobSuiteConfig,
    parallel: Parallel = Parallel(),
    *,
    resume: bool = False,
    on_result: Callable[[dict[str, Any]], None] | None = None,
) -> dict[str, Any]:
    from venuskit.eval.suites.report import write_suite_report
    from venuskit.eval.suites.summary import miniwob_summary

    jobs = miniwob_jobs(config)
    run = run_suite(Path(config.out), config.public(), jobs, MiniWobWorkerConfig(config), parallel, resume=resume,
                    on_result=on_result)  # fmt: skip
    summary = miniwob_summary(run.rows, total_jobs=len(jobs))
    summary.update(wall_s=run.wall_s, ran_now=run.ran_now)
    write_suite_report(Path(config.out), "MiniWoB++ suite", summary, run.rows, config.public())
    return summary
