"""What every suite shares: the one suite skeleton (`run_suite`), the ledger that makes a run resumable and the
run folder's layout. The policies a worker builds are `venuskit.runs.policies`'; how an episode's infrastructure
failure is told from the agent's is `venuskit.runs.failures`'.

A suite's run folder:

    <out>/suite.json        the suite config (policy, filters, parallelism) and the job list
    <out>/results.jsonl     the ledger: one line per finished episode (appended and fsynced as it finishes)
    <out>/episodes/<key>/<episode_id>/   each episode's folder (manifest, steps, screenshots, episode.html)
    <out>/attempts/         episode folders of attempts that an infrastructure failure or an interrupt cut short
    <out>/report.json, report.html

`--resume` reads the ledger and runs only the jobs without a line there (and those whose line is an
infrastructure failure); episodes an interrupt left half-done are moved to `attempts/` first, never deleted.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import shutil
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from venuskit.infra.atomic import append_line, write_json
from venuskit.runs.parallel import Parallel, WorkerFactory, preflight, run_jobs

LEDGER = "results.jsonl"
CONFIG = "suite.json"
EPISODES = "episodes"
ATTEMPTS = "attempts"



def slug(key: str) -> str:
    """A job key as a folder name."""
    return re.sub(r"[^A-Za-z0-9._-]+", "_", key).strip("_")[:150] or "job"


# ---- the run folder and its ledger ------------------------------------------------------------------


class Ledger:
    """`results.jsonl`: one JSON line per finished job, appended and fsynced as each finishes."""

    def __init__(self, out: Path, name: str = LEDGER) -> None:
        self.path = Path(out) / name

    def rows(self) -> dict[str, dict[str, Any]]:
        """The latest line per key (a re-run after an infrastructure failure supersedes the failure). A line cut
        by a crash (the last one, without a newline) is ignored; its job runs again."""
        if not self.path.exists():
            return {}
        rows: dict[str, dict[str, Any]] = {}
        for line in self.path.read_text(encoding="utf-8").splitlines(keepends=True):
            if not line.endswith("\n"):
                break
            try:
                row = json.loads(line)
            except json.JSONDecodeError:
                continue
            if isinstance(row, dict) and isinstance(row.get("key"), str):
                rows[row["key"]] = row
        return rows

    def write(self, row: dict[str, Any]) -> None:
        append_line(self.path, json.dumps(row, ensure_ascii=False).encode("utf-8"), durable=True)


def open_run(out: Path, config: dict[str, Any], jobs: list[dict[str, Any]], resume: bool) -> dict[str, dict]:
    """Prepare the run folder; returns the ledger rows already final (done, not an infrastructure failure).
    Without `resume` a folder that already holds a run is refused (nothing is overwritten); with it, the stored
    config must name the same policy, or the report would mix two policies."""
    out = Path(out)
    ledger = Ledger(out)
    stored = out / CONFIG
    if not resume and (ledger.path.exists() or stored.exists()):
        raise ValueError(f"{out} already holds a suite run; pass --resume to finish it, or choose another --out.")
    if resume and stored.exists():
        before = json.loads(stored.read_text(encoding="utf-8"))
        if before.get("policy") != config.get("policy"):
            raise ValueError(f"{out} was run with the policy {before.get('policy')}, not {config.get('policy')}; "
                             "resume it with the same --model, or choose another --out.")  # fmt: skip
    out.mkdir(parents=True, exist_ok=True)
    created = json.loads(stored.read_text(encoding="utf-8")).get("created") if stored.exists() else None
    stamp = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    write_json(stored, {**config, "created": created or stamp, "resumed": stamp if resume else None,
                        "jobs": jobs}, durable=True)  # fmt: skip
    done = {k: r for k, r in ledger.rows().items() if not r.get("infra_error")}
    set_aside(out, (j["key"] for j in jobs if j["key"] not in done))
    return done


def set_aside(out: Path, keys: Iterable[str]) -> None:
    """Move the episode folders of jobs about to run (again) to `attempts/`: kept, out of the suite's way."""
    for key in keys:
        slot = Path(out) / EPISODES / slug(key)
        if not slot.is_dir():
            continue
        for folder in sorted(p for p in slot.iterdir() if p.is_dir()):
            move_attempt(out, folder)


def move_attempt(out: Path, folder: Path) -> Path:
    target = Path(out) / ATTEMPTS / f"{folder.parent.name}--{folder.name}"
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.move(str(folder), str(target))
    return target


def final_rows(out: Path, jobs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """The ledger rows of `jobs`, in job order (jobs without a row are left out)."""
    rows = Ledger(out).rows()
    return [rows[j["key"]] for j in jobs if j["key"] in rows]


@dataclass
class SuiteRun:
    rows: list[dict[str, Any]]  # the ledger's final row of every job that has one, in job order
    ran_now: int  # jobs run by this call (the rest were final already: a resumed run)
    wall_s: float


def run_suite(out: Path, config: dict[str, Any], jobs: list[dict[str, Any]], factory: WorkerFactory,
              parallel: Parallel, *, resume: bool = False,
              on_result: Callable[[dict[str, Any]], None] | None = None) -> SuiteRun:  # fmt: skip
    """The one suite skeleton: refuse a missing Ray before anything is written, prepare (or resume) the run folder,
    run the jobs that have no final row yet, append each result to the ledger as it finishes (and hand it to
    `on_result`), and return the final rows. Summaries and reports are the suite's own."""
    preflight(parallel)
    out = Path(out)
    done = open_run(out, {**config, "parallel": parallel.public()}, jobs, resume)
    ledger = Ledger(out)
    todo = [j for j in jobs if j["key"] not in done]
    t0 = time.perf_counter()

    def record(row: dict[str, Any]) -> None:
        ledger.write(row)
        if on_result is not None:
            on_result(row)

    run_jobs(todo, factory, parallel, record)
    return SuiteRun(final_rows(out, jobs), len(todo), round(time.perf_counter() - t0, 2))


def viewer_link(folder: Path, out: Path) -> str | None:
    """The episode's viewer page, relative to the run folder (None when it cannot be written: the link is lost,
    nothing else)."""
    from venuskit.record.viewer import render_html

    try:
        return str(render_html(folder).relative_to(out))
    except (OSError, ValueError):
        return None
