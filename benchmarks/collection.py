"""The flywheel's collection and featurising, as the loop runs them: oracle episodes a minute, rows a second.

  episodes_per_min_<w>   oracle episodes of world short training templates (browser, training seeds, the default
                         look) per minute of `flywheel.collect.world_oracle_episodes` on w worker processes, from
                         the workers' start to the last index row written (goal on 2 workers: >= 30).
  cpu_s_per_episode      CPU time (user + system) of this process and the processes it started and reaped, over
                         the 1-worker run, per episode.
  rows_per_s             training rows (one per oracle step) featurised per second by `train.nano.data.examples`
                         with the shipped venus-nano and empty feature and crop caches, in one process with as
                         many PP-OCR intra-op threads as the largest --workers: screenshot decode, the reader
                         (line finding + PP-OCR of crops it has not read), candidates and features (goal >= 20).
  reader_share           the part of featurising spent in the reader's `read` (the rest: decode, features).
  rows_per_s_cached      the same rows again through the feature cache a run keeps (`features.pkl`): what a
                         second stage or round pays for rows it has already read.
  rows_per_s_procs_2     the same rows read afresh (empty feature and crop caches) in 2 processes of one thread
                         each (`examples(..., workers=2)`, what `venus nano train --workers 2` does), and
  read_speedup_2         its ratio to rows_per_s: the anchor is the serial read with as many intra-op threads.

    .venv/bin/python benchmarks/collection.py [--episodes 24] [--workers 1,2]

The machine's load average is printed with the figures: on a shared machine they move with it.
Human-readable lines first; the last line is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
import time
from pathlib import Path

from parts import PartTimer  # benchmarks/ is this script's folder

from venuskit.flywheel.collect import world_jobs, world_oracle_episodes
from venuskit.flywheel.rows import world_rows
from venuskit.infra.proc import cpu_s
from venuskit.models.nano import NanoModel, Reader, default_checkpoint
from venuskit.runs.parallel import Parallel
from venuskit.tasks import splits
from venuskit.train.nano.data import FeatureCache, examples


def collect(out: Path, episodes: int, workers: int) -> tuple[list[dict], dict[str, float]]:
    jobs = world_jobs(splits.world_templates("train", category="short"), ["browser"])[:episodes]
    t0, c0 = time.perf_counter(), cpu_s()
    index = world_oracle_episodes(out, jobs, parallel=Parallel(workers=workers))
    wall, cpu = time.perf_counter() - t0, cpu_s() - c0
    ok = sum(1 for r in index if r.get("episode_dir"))
    rate = 60 * len(index) / wall
    print(f"collect workers={workers}: {len(index)} episodes ({ok} recorded) in {wall:.1f} s -> {rate:.1f}/min, "
          f"{cpu / max(1, len(index)):.2f} CPU-s/episode", flush=True)  # fmt: skip
    return index, {"episodes": len(index), "recorded": ok, "wall_s": round(wall, 2), "per_min": round(rate, 2),
                   "cpu_s": round(cpu, 2)}  # fmt: skip


def fresh_model(threads: int) -> NanoModel:
    """The shipped venus-nano with a reader of its own (an empty crop cache)."""
    return NanoModel.load(default_checkpoint(), reader=Reader(threads=threads))


def featurise(index: list[dict], scratch: Path, threads: int) -> dict[str, float]:
    rows = world_rows(index, relabelled=False)
    model = fresh_model(threads)
    cache = FeatureCache(scratch / "features.pkl")
    reader = PartTimer(model.reader, {"read": "reader"})  # the model's own reader instance, timed
    t0, c0 = time.perf_counter(), cpu_s()
    exs, skipped = examples(rows, model, cache, log_every=0)
    wall, cpu = time.perf_counter() - t0, cpu_s() - c0
    read_s = reader.ms.get("reader", 0.0) / 1000
    t1 = time.perf_counter()
    again, _ = examples(rows, model, FeatureCache(scratch / "features.pkl"), log_every=0)
    cached = time.perf_counter() - t1
    print(f"featurise: {len(rows)} rows ({len(exs)} examples, skipped {skipped}) in {wall:.1f} s -> "
          f"{len(rows) / wall:.2f} rows/s, {cpu / max(1, len(rows)):.3f} CPU-s/row, reader {read_s:.1f} s "
          f"({read_s / wall:.0%}); from the cache: {len(rows) / cached:.0f} rows/s", flush=True)  # fmt: skip
    assert len(again) == len(exs)
    return {"rows": len(rows), "examples": len(exs), "wall_s": round(wall, 2),
            "rows_per_s": round(len(rows) / wall, 3), "cpu_s_per_row": round(cpu / max(1, len(rows)), 4),
            "reader_share": round(read_s / wall, 3),
            "rows_per_s_cached": round(len(rows) / cached, 1)}  # fmt: skip


def featurise_procs(index: list[dict], scratch: Path, workers: int) -> dict[str, float]:
    rows = world_rows(index, relabelled=False)
    t0 = time.perf_counter()
    exs, _ = examples(rows, fresh_model(workers), FeatureCache(scratch / "features-procs.pkl"), log_every=0,
                      workers=workers)  # fmt: skip
    wall = time.perf_counter() - t0
    print(f"featurise in {workers} processes: {len(rows)} rows in {wall:.1f} s -> {len(rows) / wall:.2f} rows/s",
          flush=True)  # fmt: skip
    return {"examples": len(exs), "wall_s": round(wall, 2), "rows_per_s": round(len(rows) / wall, 3)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--episodes", type=int, default=24)
    ap.add_argument("--workers", default="1,2")
    args = ap.parse_args()
    counts = [int(w) for w in args.workers.split(",")]
    load_before = os.getloadavg()
    scratch = Path(tempfile.mkdtemp(prefix="collection-"))
    runs: dict[str, dict[str, float]] = {}
    try:
        index: list[dict] = []
        for w in counts:
            index, runs[f"workers_{w}"] = collect(scratch / f"w{w}", args.episodes, w)
        # The anchor reads as the recipe did before it had reading processes: one process, as many intra-op threads.
        feats = featurise(index, scratch, max(counts))
        procs = featurise_procs(index, scratch, max(counts)) if max(counts) > 1 else None
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    first = runs[f"workers_{counts[0]}"]
    out = {
        **{f"episodes_per_min_{w}": runs[f"workers_{w}"]["per_min"] for w in counts},
        "cpu_s_per_episode": round(first["cpu_s"] / max(1, first["episodes"]), 3),
        **{k: feats[k] for k in ("rows_per_s", "cpu_s_per_row", "reader_share", "rows_per_s_cached")},
        **({f"rows_per_s_procs_{max(counts)}": procs["rows_per_s"],
            f"read_speedup_{max(counts)}": round(procs["rows_per_s"] / feats["rows_per_s"], 2)} if procs else {}),
        "rows": feats["rows"], "episodes": args.episodes, "runs": runs, "cpus": os.cpu_count(),
        "workload": "oracle, world short train templates, browser, default look",
        "load_before": [round(x, 2) for x in load_before], "load_after": [round(x, 2) for x in os.getloadavg()],
    }  # fmt: skip
    print(json.dumps(out))


if __name__ == "__main__":
    main()
