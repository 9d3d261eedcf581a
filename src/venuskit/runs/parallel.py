"""Running many episodes at once: in this process, on a pool of worker processes, or as Ray actors.

A suite is a list of jobs (JSON-able dicts with a unique "key") and a worker factory. Each worker owns what
an episode needs (a browser env, a world server, a policy) for its whole life and runs one job at a time:

    run_jobs(jobs, WorldWorkerConfig(...), Parallel(workers=4), on_result=ledger.write)
    run_jobs(jobs, factory, Parallel(workers=4, ray="auto"))     # the same workers as Ray actors

The three backends run the same `Worker.run`, so their verdicts are identical for a deterministic policy.
Infrastructure failures (a browser that crashed, a world server that went down, a model server that cannot be
reached, a worker process that died) are not agent failures: the job is run again, on a fresh worker process or
actor, up to `max_infra_retries` times, and if it still fails its result carries `infra_error` so reports count it
apart from the agent's failures. Results reach `on_result` in the calling process as they finish; nothing is
kept in memory that the caller has not already been handed (the suites write each one to their ledger at once,
which is what makes a run resumable).
"""

from __future__ import annotations

import contextlib
import multiprocessing as mp
import os
import socket
import time
import traceback
from collections import deque
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from multiprocessing.connection import Connection, wait
from typing import Any, Protocol

from venuskit.infra.config import help_text, option

Job = dict[str, Any]
Result = dict[str, Any]


class Worker(Protocol):
    def run(self, job: Job) -> Result:
        """Run one job. An infrastructure failure is returned as {"key": ..., "infra_error": "..."} (or raised);
        the worker must be usable again afterwards (rebuilding what broke)."""

    def close(self) -> None: ...


WorkerFactory = Callable[[], Worker]  # must pickle (a frozen dataclass with __call__): it crosses processes



@dataclass(frozen=True)
class Parallel:
    """Where a suite's episodes run."""

    workers: int = option("Workers at once; each owns its browser env and world server.", default=1)
    ray: str | None = field(
        default=None,
        metadata=help_text("Run the workers as Ray actors: a cluster address (host:port), 'auto' (the cluster this "
                       "machine belongs to) or 'local' (start a private one-machine Ray). None: processes."),
    )  # fmt: skip
    max_infra_retries: int = option("Re-runs of a job whose infrastructure failed.", default=2)
    ray_cpus_per_worker: float = option("CPUs Ray reserves for each worker actor.", default=1.0)

    def __post_init__(self) -> None:
        if self.workers < 1:
            raise ValueError(f"workers must be at least 1, got {self.workers}; use 1 to run serially.")
        if self.max_infra_retries < 0:
            raise ValueError(f"max_infra_retries cannot be negative, got {self.max_infra_retries}.")
        if self.ray is not None and not self.ray.strip():
            raise ValueError("--ray needs an address (host:port), 'auto' or 'local'.")
        if self.ray_cpus_per_worker < 0:
            raise ValueError(f"ray_cpus_per_worker cannot be negative, got {self.ray_cpus_per_worker}.")

    @property
    def backend(self) -> str:
        return "ray" if self.ray else ("processes" if self.workers > 1 else "serial")

    def public(self) -> dict[str, Any]:
        """What a run's saved config records of where it ran."""
        return {"workers": self.workers, "ray": self.ray, "backend": self.backend,
                "max_infra_retries": self.max_infra_retries}  # fmt: skip


@dataclass
class _Pending:
    job: Job
    attempt: int = 1
    errors: list[str] = field(default_factory=list)


def run_jobs(
    jobs: Iterable[Job],
    factory: WorkerFactory,
    parallel: Parallel = Parallel(),
    on_result: Callable[[Result], None] = lambda r: None,
) -> int:
    """Run every job; hand each final result to `on_result` (in this process) as it finishes. Returns the
    number of results. A result that still failed after the retries carries `infra_error` and `attempts`."""
    queue = deque(_Pending(dict(j)) for j in jobs)
    if not queue:
        return 0
    keys = [p.job.get("key") for p in queue]
    if None in keys or len(set(keys)) != len(keys):
        raise ValueError("Every job needs a unique 'key'.")
    runner = {"serial": _run_serial, "processes": _run_processes, "ray": _run_ray}[parallel.backend]
    done = 0

    def finish(pending: _Pending, result: Result) -> None:
        nonlocal done
        error = result.get("infra_error")
        if error:
            pending.errors.append(str(error))
            if pending.attempt <= parallel.max_infra_retries:
                pending.attempt += 1
                queue.append(pending)
                return
        result = {**result, "attempts": pending.attempt}
        if pending.errors:
            result["infra_errors_seen"] = list(pending.errors)
        done += 1
        on_result(result)

    runner(queue, factory, parallel, finish)
    return done


def _failure(job: Job, exc: BaseException) -> Result:
    return {"key": job["key"], "infra_error": f"{type(exc).__name__}: {exc}"}


def call_worker(worker: Worker, job: Job) -> Result:
    """Worker.run with anything it raises turned into an infrastructure failure of that job."""
    try:
        return worker.run(job)
    except Exception as exc:  # noqa: BLE001 - agents never raise (the runner records them); this is the harness
        return {**_failure(job, exc), "traceback": traceback.format_exc(limit=8)}


# ---- serial -------------------------------------------------------------------------------------------


def _run_serial(queue: deque[_Pending], factory: WorkerFactory, parallel: Parallel, finish) -> None:
    worker = factory()
    try:
        while queue:
            pending = queue.popleft()
            finish(pending, call_worker(worker, pending.job))
    finally:
        worker.close()


# ---- processes ----------------------------------------------------------------------------------------


def _process_main(conn: Connection, factory: WorkerFactory) -> None:
    """A worker process: build the worker once, then run jobs until told to stop (None) or the pipe closes."""
    import signal

    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C is the parent's to handle; it stops us cleanly
    worker = factory()
    try:
        while True:
            try:
                job = conn.recv()
            except EOFError:
                return
            if job is None:
                return
            conn.send(call_worker(worker, job))
    finally:
        worker.close()


@dataclass
class _Proc:
    process: Any
    conn: Connection
    pending: _Pending | None = None


def _spawn(ctx: Any, factory: WorkerFactory, index: int) -> _Proc:
    parent, child = ctx.Pipe()
    p = ctx.Process(target=_process_main, args=(child, factory), name=f"venus-worker-{index}", daemon=True)
    p.start()
    child.close()
    return _Proc(p, parent)


def _run_processes(queue: deque[_Pending], factory: WorkerFactory, parallel: Parallel, finish) -> None:
    # spawn, not fork: a forked child would inherit the parent's threads' locks (Playwright, rich) half-held.
    ctx = mp.get_context("spawn")
    procs = [_spawn(ctx, factory, i) for i in range(min(parallel.workers, len(queue)))]
    try:
        while queue or any(p.pending for p in procs):
            for p in procs:
                if p.pending is None and queue:
                    p.pending = queue.popleft()
                    p.conn.send(p.pending.job)
            busy = [p for p in procs if p.pending is not None]
            ready = set(wait([p.conn for p in busy] + [p.process.sentinel for p in busy]))
            for i, p in enumerate(procs):
                if p.pending is None:
                    continue
                if p.conn in ready:
                    try:
                        result = p.conn.recv()
                    except (EOFError, OSError):
                        result = None
                    if result is not None:
                        pending, p.pending = p.pending, None
                        finish(pending, result)
                        if result.get("infra_error"):  # a fresh process: nothing broken survives into the retry
                            _stop_processes([p])
                            procs[i] = _spawn(ctx, factory, i)
                        continue
                if p.conn in ready or p.process.sentinel in ready:  # the process died mid-job
                    p.process.join(timeout=5)
                    pending, p.pending = p.pending, None
                    code = p.process.exitcode
                    finish(pending, {"key": pending.job["key"],
                                     "infra_error": f"worker process died (exit code {code})"})  # fmt: skip
                    p.conn.close()
                    procs[i] = _spawn(ctx, factory, i)
    finally:
        _stop_processes(procs)


def _stop_processes(procs: list[_Proc]) -> None:
    for p in procs:
        with contextlib.suppress(OSError, ValueError):  # a dead worker's pipe is closed
            p.conn.send(None)
    deadline = time.monotonic() + 30
    for p in procs:
        p.process.join(timeout=max(0.1, deadline - time.monotonic()))
        if p.process.is_alive():  # a worker stuck in a job: take it down with its browser
            from venuskit.infra.proc import kill_tree

            kill_tree(p.process.pid)
            p.process.join(timeout=5)
        p.conn.close()


# ---- Ray ----------------------------------------------------------------------------------------------


class _ActorShim:
    """The Ray actor: holds one worker for its whole life (its env and world server stay warm)."""

    def __init__(self, factory: WorkerFactory) -> None:
        self.worker = factory()

    def run(self, job: Job) -> Result:
        return {**call_worker(self.worker, job), "node": os.uname().nodename, "pid": os.getpid()}

    def close(self) -> None:
        self.worker.close()


def connect_ray(address: str) -> bool:
    """Connect to Ray (`address`: host:port, 'auto' or 'local'); True when this call started the connection (so
    the caller shuts it down). Raises ValueError with the fix when Ray is missing or no cluster answers."""
    try:
        import ray
    except ImportError as e:
        raise ValueError("--ray needs the ray package: pip install 'venuskit[ray]'.") from e
    if ray.is_initialized():
        return False
    _reachable(address)
    kwargs: dict[str, Any] = {"log_to_driver": False, "configure_logging": False}
    try:
        if address == "local":
            ray.init(include_dashboard=False, **kwargs)
        else:
            ray.init(address=address, **kwargs)
    except (ConnectionError, RuntimeError) as e:
        raise ValueError(f"Could not connect to the Ray cluster at {address!r}: {e}. Start one with "
                         "`ray start --head` or pass --ray local.") from e  # fmt: skip
    return True


def preflight(parallel: Parallel) -> None:
    """Refuse a Ray run whose package or cluster is missing before anything is written."""
    if parallel.ray:
        try:
            import ray  # noqa: F401
        except ImportError as e:
            raise ValueError("--ray needs the ray package: pip install 'venuskit[ray]'.") from e
        _reachable(parallel.ray)


def _reachable(address: str) -> None:
    """Fail in seconds on a host:port nobody listens on (ray.init would retry for minutes)."""
    host, sep, port = address.rpartition(":")
    if not sep or not port.isdigit():
        return  # auto, local, ray://...: Ray resolves those itself
    try:
        socket.create_connection((host.strip("[]") or "127.0.0.1", int(port)), timeout=5).close()
    except OSError as e:
        raise ValueError(f"Could not connect to the Ray cluster at {address!r}: {e}. Start one with "
                         "`ray start --head` or pass --ray local.") from e  # fmt: skip


def _run_ray(queue: deque[_Pending], factory: WorkerFactory, parallel: Parallel, finish) -> None:
    import ray
    from ray.exceptions import RayActorError, RayTaskError

    owned = connect_ray(parallel.ray or "auto")
    actor_cls = ray.remote(num_cpus=parallel.ray_cpus_per_worker, max_restarts=0)(_ActorShim)
    actors = [actor_cls.remote(factory) for _ in range(min(parallel.workers, len(queue)))]
    in_flight: dict[Any, tuple[int, _Pending]] = {}
    try:
        while queue or in_flight:
            busy = {i for i, _ in in_flight.values()}
            for i in range(len(actors)):
                if i not in busy and queue:
                    pending = queue.popleft()
                    in_flight[actors[i].run.remote(pending.job)] = (i, pending)
            ready, _ = ray.wait(list(in_flight), num_returns=1)
            for ref in ready:
                i, pending = in_flight.pop(ref)
                try:
                    result = ray.get(ref)
                except (RayActorError, RayTaskError) as e:  # the actor died (its process, its node) mid-job
                    result = {"key": pending.job["key"], "infra_error": f"Ray worker died: {type(e).__name__}"}
                if result.get("infra_error"):  # a fresh actor: nothing broken survives into the retry
                    ray.kill(actors[i], no_restart=True)
                    actors[i] = actor_cls.remote(factory)
                finish(pending, result)
    finally:
        for a in actors:
            with contextlib.suppress(Exception):  # a dead actor has nothing left to close
                ray.get(a.close.remote(), timeout=30)
            ray.kill(a, no_restart=True)
        if owned:
            ray.shutdown()


@contextlib.contextmanager
def local_ray_head(num_cpus: int = 2, timeout_s: float = 120.0) -> Iterator[str]:
    """A private one-machine Ray cluster for tests and benchmarks: `ray start --head --block` on a free port with
    its own temp dir, yielding its address; on exit every process of it is stopped (they all name the temp dir)."""
    import shutil
    import signal
    import subprocess
    import sys
    import tempfile
    from pathlib import Path

    from venuskit.infra.proc import find_by_tag, kill_tree

    temp = tempfile.mkdtemp(prefix="vkray", dir="/tmp")  # short: Ray's socket paths must fit in 107 bytes
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    log_path = Path(temp) / "head.log"
    cmd = [str(Path(sys.executable).with_name("ray")), "start", "--head", "--block", f"--port={port}",
           f"--num-cpus={num_cpus}", "--include-dashboard=false", f"--temp-dir={temp}", "--disable-usage-stats"]
    with open(log_path, "wb") as log:
        head = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        deadline = time.monotonic() + timeout_s
        while b"Ray runtime started" not in log_path.read_bytes():
            if head.poll() is not None or time.monotonic() > deadline:
                raise RuntimeError(f"The Ray head did not start: {log_path.read_text(errors='replace')[-2000:]}")
            time.sleep(0.5)
        yield f"127.0.0.1:{port}"
    finally:
        os.killpg(head.pid, signal.SIGTERM)
        with contextlib.suppress(subprocess.TimeoutExpired):  # it drains for up to 30 s; what is left is killed
            head.wait(timeout=10)
        for pid in [head.pid, *find_by_tag(temp)]:
            kill_tree(pid)
        with contextlib.suppress(subprocess.TimeoutExpired):
            head.wait(timeout=10)
        shutil.rmtree(temp, ignore_errors=True)
