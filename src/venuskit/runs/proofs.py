"""Proving synthesised tasks on the real surface: one pool of worker threads, each with its own env, and a prover
per surface.

- the world's (`WorldProver`): the task's oracle in real Chromium against one shared world server
  (`run_world_task`) must reach `completed`;
- the desktop's (`DesktopProver`): the task's oracle under Xvfb with the real apps (`run_desktop_task`) must reach
  `completed`, and then a run whose only action is Finished must score `failed`.

    pool = ProofPool(2, desktop_env_factory(), DesktopProver(keep=None))
    pool.submit(job)            # job: anything with .candidate.spec (registered with the surface's task set)
    done = pool.results.get()   # the job with verdict, reason, idle, infra, seconds set (or the exception that
                                # killed a worker)
    pool.close()

Each worker owns its env for its whole life: Playwright objects belong to the thread that made them, and a desktop
env's X connection is used by one thread only. A proof the env itself broke (not the task) runs once more; a
second break rejects the candidate with the env's error in the detail — a false rejection, never a false
acceptance.
"""

from __future__ import annotations

import abc
import queue
import shutil
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

INFRA_RETRIES = 1
BROWSER_ENV_ERRORS = ("EnvError", "ActionTimeout", "BrowserCrashed")
DESKTOP_ENV_ERRORS = ("EnvError", "ActionTimeout", "DesktopCrashed", "AppCrashed", "InputNotSeen")
IDLE_REPLY = "<think>Looks done already.</think><action>Finished(content='Done.')</action>"


class ProofPool:
    """Worker threads proving jobs; `make_env()` builds one env per worker, `prove(env, job)` proves one job (and
    its `close()`, if any, runs when the pool closes)."""

    def __init__(self, workers: int, make_env: Callable[[], Any], prove: Callable[[Any, Any], Any]) -> None:
        self.make_env, self.prove = make_env, prove
        self.jobs: queue.Queue = queue.Queue()
        self.results: queue.Queue = queue.Queue()
        self.threads = [threading.Thread(target=self._work, name=f"prover-{i}", daemon=True) for i in range(workers)]
        for t in self.threads:
            t.start()

    def submit(self, job: Any) -> None:
        self.jobs.put(job)

    def _work(self) -> None:
        env = None
        try:
            env = self.make_env()
            while (job := self.jobs.get()) is not None:
                self.results.put(self.prove(env, job))
        except Exception as e:  # noqa: BLE001 - a dead env ends this worker; the caller sees the error
            self.results.put(e)
        finally:
            if env is not None:
                env.close()

    def close(self) -> None:
        for _ in self.threads:
            self.jobs.put(None)
        for t in self.threads:
            t.join(timeout=60)
        closing = getattr(self.prove, "close", None)
        if closing is not None:
            closing()


def first_env_error(episode_dir: Path, kinds: tuple[str, ...]) -> str | None:
    """The first step error of these kinds in a recorded episode (the env's own failure, not the oracle's)."""
    from venuskit.record.store import load_episode

    for step in load_episode(episode_dir).steps:
        if step.error and step.error.get("type") in kinds:
            return f"{step.error['type']}: {step.error.get('message', '')}"
    return None


class _Prover(abc.ABC):
    """Episodes go to `keep`, or to a temporary folder deleted with the prover; a surface says how to `run`."""

    env_errors: tuple[str, ...] = ()

    def __init__(self, keep: Path | None) -> None:
        self.keep = keep
        self.tmp = Path(tempfile.mkdtemp(prefix="venus-synth-proofs-"))

    @property
    def out(self) -> Path:
        return self.keep if self.keep is not None else self.tmp

    @abc.abstractmethod
    def run(self, env: Any, task_id: str) -> Any:
        """One oracle run of `task_id` in `env`, recorded under `self.out`."""

    def oracle(self, env: Any, job: Any) -> None:
        """The oracle's run, once more when the env broke it; sets verdict, reason and infra on the job."""
        for attempt in range(1 + INFRA_RETRIES):
            try:
                run = self.run(env, job.candidate.spec.id)
            except Exception as e:  # noqa: BLE001 - a setup row, a file or a page the run cannot make rejects this task only
                job.verdict, job.reason, job.infra = "error", f"{type(e).__name__}: {e}", None
                return
            job.verdict, job.reason = run.verdict.verdict, run.oracle_error or run.verdict.reason
            job.infra = first_env_error(run.episode_dir, self.env_errors) if job.verdict != "completed" else None
            self.drop(run.episode_dir, retry=job.infra is not None and attempt < INFRA_RETRIES)
            if job.infra is None:
                return

    def drop(self, folder: Path, retry: bool) -> None:
        if self.keep is None or retry:
            shutil.rmtree(folder, ignore_errors=True)

    def close(self) -> None:
        shutil.rmtree(self.tmp, ignore_errors=True)


class WorldProver(_Prover):
    """A world candidate's oracle in real Chromium, against one world server the prover starts (and stops)."""

    env_errors = BROWSER_ENV_ERRORS

    def __init__(self, seed: int = 0, keep: Path | None = None) -> None:
        from venuskit.world.server import WorldServer

        super().__init__(keep)
        self.seed, self.server = seed, WorldServer().start()

    def run(self, env: Any, task_id: str) -> Any:
        from venuskit.runs.world import run_world_task

        return run_world_task(task_id, self.seed, server=self.server, env=env, out=self.out)

    def __call__(self, env: Any, job: Any) -> Any:
        t0 = time.perf_counter()
        self.oracle(env, job)
        job.seconds = time.perf_counter() - t0
        return job

    def close(self) -> None:
        self.server.stop()
        super().close()


class DesktopProver(_Prover):
    """A desktop candidate on the worker's DesktopEnv: the oracle, then, when it completed, the do-nothing run."""

    env_errors = DESKTOP_ENV_ERRORS

    def run(self, env: Any, task_id: str, policy: Any = "oracle") -> Any:
        from venuskit.runs.desktop import run_desktop_task

        return run_desktop_task(task_id, 0, env=env, out=self.out, policy=policy)

    def __call__(self, env: Any, job: Any) -> Any:
        t0 = time.perf_counter()
        job.idle = ""
        self.oracle(env, job)
        if job.verdict == "completed":
            self.idle(env, job)
        job.seconds = time.perf_counter() - t0
        return job

    def idle(self, env: Any, job: Any) -> None:
        """The do-nothing run must score `failed`. A run the desktop itself broke (the env raised) runs once more;
        a second failure is recorded as `error`."""
        from venuskit.agent.policy import ScriptedPolicy

        for _ in range(1 + INFRA_RETRIES):
            try:
                run = self.run(env, job.candidate.spec.id, ScriptedPolicy([IDLE_REPLY], "computer"))
            except Exception as e:  # noqa: BLE001 - recorded on the job, never a dead worker
                job.idle, job.reason = "error", f"the do-nothing run could not run: {type(e).__name__}: {e}"
                continue
            job.idle = run.verdict.verdict
            if job.idle != "failed":
                job.reason = f"doing nothing under Xvfb scores {job.idle!r}: {run.verdict.reason}"
            self.drop(run.episode_dir, retry=False)
            return


def world_pool(workers: int, settle_s: float = 0.05, seed: int = 0, keep: Path | None = None) -> ProofPool:
    """Browsers proving world candidates against one shared world server."""

    def make() -> Any:
        from venuskit.envs.browser import BrowserConfig
        from venuskit.runs.world import world_browser

        return world_browser("browser", BrowserConfig(settle_s=settle_s))

    return ProofPool(workers, make, WorldProver(seed, keep))


def desktop_pool(workers: int, keep: Path | None = None, config: Any = None) -> ProofPool:
    """Desktop envs (Xvfb, openbox, the apps) proving desktop candidates, one per worker thread."""

    def make() -> Any:
        from venuskit.envs.desktop import DesktopEnv

        return DesktopEnv(config)

    return ProofPool(workers, make, DesktopProver(keep))
