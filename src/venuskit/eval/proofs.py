"""Proving synthesised tasks on the real surface: a pool of worker threads, each with its own env, and the desktop's
proof (the task's oracle must reach `completed`, and a run that does nothing must score `failed`, both under Xvfb
with the real apps; `run_desktop_task`, the harness every desktop run uses, judges each).

    pool = ProofPool(2, DesktopEnv, desktop_prover(keep=None))
    pool.submit(job)            # job: anything with .candidate.spec (registered with the desktop task set)
    done = pool.results.get()   # the job with verdict, reason, idle, infra, seconds set (or the exception that
                                # killed a worker)
    pool.close()

Each worker owns its env for its whole life: Playwright objects belong to the thread that made them, and a desktop
env's X connection is used by one thread only.
"""

from __future__ import annotations

import queue
import shutil
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

INFRA_RETRIES = 1  # a proof the env itself broke (not the task) runs once more
DESKTOP_ENV_ERRORS = ("EnvError", "ActionTimeout", "DesktopCrashed", "AppCrashed", "InputNotSeen")
IDLE_REPLY = "<think>Looks done already.</think><action>Finished(content='Done.')</action>"


class ProofPool:
    """Worker threads proving jobs; `make_env()` builds one env per worker, `prove(env, job)` proves one job."""

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


def desktop_pool(workers: int, keep: Path | None = None, config: Any = None) -> ProofPool:
    """Desktop envs proving desktop candidates (DesktopProver), one per worker thread."""
    return ProofPool(workers, desktop_env_factory(config), DesktopProver(keep))


def first_env_error(episode_dir: Path, kinds: tuple[str, ...]) -> str | None:
    """The first step error of these kinds in a recorded episode (the env's own failure, not the oracle's)."""
    from venuskit.record.store import load_episode

    for step in load_episode(episode_dir).steps:
        if step.error and step.error.get("type") in kinds:
            return f"{step.error['type']}: {step.error.get('message', '')}"
    return None


class DesktopProver:
    """Proves one desktop candidate on a worker's DesktopEnv: the oracle (retried once when the desktop itself broke
    the run), then, when the oracle completed, a run whose only action is Finished. Episodes go to `keep`, or to a
    temporary folder that is deleted with the prover."""

    def __init__(self, keep: Path | None = None) -> None:
        self.keep = keep
        self.tmp = Path(tempfile.mkdtemp(prefix="venus-desktop-proofs-"))

    def __call__(self, env: Any, job: Any) -> Any:
        from venuskit.eval.desktop import run_desktop_task

        t0 = time.perf_counter()
        out = self.keep if self.keep is not None else self.tmp
        task_id = job.candidate.spec.id
        job.idle = ""
        for attempt in range(1 + INFRA_RETRIES):
            try:
                run = run_desktop_task(task_id, 0, env=env, out=out)
            except Exception as e:  # noqa: BLE001 - a snapshot or a window the env cannot make rejects this task only
                job.verdict, job.reason, job.infra = "error", f"{type(e).__name__}: {e}", None
                break
            job.verdict, job.reason = run.verdict.verdict, run.oracle_error or run.verdict.reason
            job.infra = first_env_error(run.episode_dir, DESKTOP_ENV_ERRORS) if job.verdict != "completed" else None
            self._drop(run.episode_dir, retry=job.infra is not None and attempt < INFRA_RETRIES)
            if job.infra is None:
                break
        if job.verdict == "completed":
            self._idle(env, job, out)
        job.seconds = time.perf_counter() - t0
        return job

    def _idle(self, env: Any, job: Any, out: Path) -> None:
        """The do-nothing run: its only action is Finished; it must score `failed`. A run the desktop itself broke
        (the env raised) runs once more; a second failure is recorded as `error`."""
        from venuskit.agent.policy import ScriptedPolicy
        from venuskit.eval.desktop import run_desktop_task

        for _ in range(1 + INFRA_RETRIES):
            try:
                idle = run_desktop_task(job.candidate.spec.id, 0, env=env, out=out,
                                        policy=ScriptedPolicy([IDLE_REPLY], "computer"))  # fmt: skip
            except Exception as e:  # noqa: BLE001 - recorded on the job, never a dead worker
                job.idle, job.reason = "error", f"the do-nothing run could not run: {type(e).__name__}: {e}"
                continue
            job.idle = idle.verdict.verdict
            if job.idle != "failed":
                job.reason = f"doing nothing under Xvfb scores {job.idle!r}: {idle.verdict.reason}"
            self._drop(idle.episode_dir, retry=False)
            return

    def _drop(self, folder: Path, retry: bool) -> None:
        if self.keep is None or retry:
            shutil.rmtree(folder, ignore_errors=True)

    def close(self) -> None:
        shutil.rmtree(self.tmp, ignore_errors=True)


def desktop_env_factory(config: Any = None) -> Callable[[], Any]:
    """A function that opens one DesktopEnv (Xvfb, openbox) per proving worker."""

    def make() -> Any:
        from venuskit.envs.desktop import DesktopEnv

        return DesktopEnv(config)

    return make
