"""eval.parallel: the same jobs give the same results serially and on worker processes; infrastructure failures
(returned, raised, or a worker process that dies) are retried up to the cap and then reported, never lost."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

import pytest

from venuskit.runs.parallel import Parallel, run_jobs


@dataclass(frozen=True)
class ToyFactory:
    """Workers whose result is a pure function of the job; `flaky` lists how each job misbehaves first."""

    marks: str  # a folder: a job misbehaves only until its marker file exists (so a retry succeeds)
    mode: str = "ok"  # ok | return | raise | die | always

    def __call__(self) -> ToyWorker:
        return ToyWorker(self)


class ToyWorker:
    def __init__(self, factory: ToyFactory) -> None:
        self.f = factory
        self.pid = os.getpid()

    def run(self, job: dict) -> dict:
        mark = Path(self.f.marks) / job["key"]
        first = not mark.exists()
        mark.touch()
        if self.f.mode == "always" or (first and job["n"] % 3 == 0):
            if self.f.mode in ("return", "always"):
                return {"key": job["key"], "infra_error": "world server down"}
            if self.f.mode == "raise":
                raise ConnectionError("model server unreachable")
            if self.f.mode == "die":
                os._exit(7)  # the worker process dies mid-job, as a segfaulting browser driver would take it
        return {"key": job["key"], "value": job["n"] ** 2, "pid": self.pid}

    def close(self) -> None:
        pass


def jobs(n: int = 7) -> list[dict]:
    return [{"key": f"job-{i}", "n": i} for i in range(n)]


def collect(factory: ToyFactory, parallel: Parallel) -> dict[str, dict]:
    got: dict[str, dict] = {}
    run_jobs(jobs(), factory, parallel, lambda r: got.setdefault(r["key"], r))
    return got


@pytest.mark.parametrize("mode", ["return", "raise"])
def test_infra_failures_are_retried_serially(tmp_path, mode):
    got = collect(ToyFactory(str(tmp_path), mode), Parallel(workers=1))
    assert sorted(got) == sorted(j["key"] for j in jobs())
    assert all(r["value"] == int(k.split("-")[1]) ** 2 for k, r in got.items())
    retried = {k for k, r in got.items() if r["attempts"] == 2}
    assert retried == {"job-0", "job-3", "job-6"}
    assert all("infra_error" not in r for r in got.values())
    assert all(r["infra_errors_seen"] for k, r in got.items() if k in retried)


def test_processes_give_the_serial_results_and_survive_a_dying_worker(tmp_path):
    (tmp_path / "a").mkdir()
    (tmp_path / "b").mkdir()
    serial = collect(ToyFactory(str(tmp_path / "a")), Parallel(workers=1))
    pool = collect(ToyFactory(str(tmp_path / "b"), "die"), Parallel(workers=2))
    assert {k: r["value"] for k, r in pool.items()} == {k: r["value"] for k, r in serial.items()}
    assert len({r["pid"] for r in pool.values()}) >= 2, "the jobs ran on more than one process"
    assert os.getpid() not in {r["pid"] for r in pool.values()}
    died = {k: r for k, r in pool.items() if r["attempts"] > 1}
    assert set(died) == {"job-0", "job-3", "job-6"}
    assert all("worker process died (exit code 7)" in r["infra_errors_seen"][0] for r in died.values())


def test_retries_are_capped_and_the_failure_is_reported(tmp_path):
    got = collect(ToyFactory(str(tmp_path), "always"), Parallel(workers=1, max_infra_retries=1))
    assert len(got) == len(jobs())
    assert all(r["infra_error"] == "world server down" and r["attempts"] == 2 for r in got.values())


def test_bad_job_lists_and_settings_are_refused(tmp_path):
    with pytest.raises(ValueError, match="unique 'key'"):
        run_jobs([{"key": "a"}, {"key": "a"}], ToyFactory(str(tmp_path)))
    with pytest.raises(ValueError, match="workers must be at least 1"):
        Parallel(workers=0)
    assert run_jobs([], ToyFactory(str(tmp_path))) == 0
