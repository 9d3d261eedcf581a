"""Rollout throughput of the world suite: episodes per minute on 1, 2 and 4 worker processes and on Ray actors.

The workload is what `venus eval world --model oracle --split train --sgv off` runs: the oracle policy (no model
calls, so the figure is the harness's) on short world tasks (train templates, category short, browser surface,
train seeds). Each configuration runs the same N episodes as a user runs a suite: the wall time covers starting
the workers (process spawn, Chromium, world server) up to the report written. Ray runs on a private local
cluster started beforehand (a user's cluster is already running), with the same number of workers.

Memory: the summed PSS of this benchmark's process tree (workers, their Chromium and the world servers), sampled
every 0.25 s during a run; `mem_per_extra_worker_mb` is (peak at 2 workers - peak at 1 worker).

    .venv/bin/python benchmarks/rollout_scaling.py [--episodes 16] [--no-ray] [--workers 1,2,4]

Human-readable lines first; the last line is one JSON object: episodes_per_min_1, speedup_2_workers,
speedup_4_workers, ray_overhead (1 - Ray's rate / the process pool's rate at 2 workers: 0.05 = 5% slower),
mem_per_extra_worker_mb, the raw rates and the machine's load before and after. Goals on a 2-core machine:
speedup_2_workers >= 1.6; ray_overhead <= 0.10.

CPU: `cpu_s_per_episode` is the CPU time (user + system) of this process and every process it started and reaped
(workers, their Chromium and world servers) over the 1-worker run, divided by its episodes; `cpu_bound_per_min` =
cores x 60 / cpu_s_per_episode is the most episodes a minute this machine can run whatever the parallelism, and
`bound_share_2_workers` = the 2-worker rate / that bound (goal >= 0.9). Ray actors are not this process's children,
so Ray runs report no CPU time.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import tempfile
import threading
import time
from pathlib import Path

from venuskit.eval.suites.world import WorldSuiteConfig, run_world_suite
from venuskit.infra.proc import cpu_s, process_tree, pss_mb
from venuskit.runs.parallel import Parallel, local_ray_head
from venuskit.runs.policies import PolicySpec
from venuskit.tasks import splits


class PeakMemory:
    """Samples the PSS of this process's tree in a thread; `peak` in MB."""

    def __init__(self, every_s: float = 0.25) -> None:
        self.every_s, self.peak, self._stop = every_s, 0.0, threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.is_set():
            self.peak = max(self.peak, pss_mb(process_tree(os.getpid())))
            self._stop.wait(self.every_s)

    def __enter__(self) -> PeakMemory:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()


def workload(episodes: int) -> tuple[str, tuple[int, ...]]:
    """Short train templates, one train seed each (cycling seeds when more episodes than templates are asked)."""
    templates = splits.world_templates("train", category="short")
    low = splits.load().world_train_seeds[0]
    n_seeds = -(-episodes // len(templates))
    picked = templates[: min(episodes, len(templates))]
    return ",".join(picked), tuple(range(low, low + n_seeds))


def run(out: Path, templates: str, seeds: tuple[int, ...], parallel: Parallel, limit: int) -> dict[str, float]:
    config = WorldSuiteConfig(out=str(out), policy=PolicySpec("oracle"), templates=templates, split="train",
                              seeds=seeds, sgv="off")  # fmt: skip
    t0, c0 = time.perf_counter(), cpu_s()
    with PeakMemory() as mem:
        summary = run_world_suite(config, parallel)
    wall, cpu = time.perf_counter() - t0, cpu_s() - c0
    assert summary["episodes"] >= limit, summary
    assert summary["infra_errors"] == 0, summary["infra_failures"]
    rate = 60 * summary["episodes"] / wall
    print(f"{parallel.backend:9s} workers={parallel.workers}: {summary['episodes']} episodes in {wall:.1f} s -> "
          f"{rate:.1f}/min, {cpu / summary['episodes']:.2f} CPU-s/episode, success {summary['success']:.0%}, "
          f"peak PSS {mem.peak:.0f} MB", flush=True)  # fmt: skip
    return {"episodes": summary["episodes"], "wall_s": round(wall, 2), "per_min": round(rate, 2),
            "cpu_s": None if parallel.ray else round(cpu, 2),
            "peak_pss_mb": round(mem.peak, 1), "success": summary["success"]}  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--episodes", type=int, default=16)
    ap.add_argument("--workers", default="1,2,4")
    ap.add_argument("--no-ray", action="store_true")
    args = ap.parse_args()
    templates, seeds = workload(args.episodes)
    counts = [int(w) for w in args.workers.split(",")]
    load_before = os.getloadavg()
    scratch = Path(tempfile.mkdtemp(prefix="rollout-scaling-"))
    results: dict[str, dict[str, float]] = {}
    try:
        for w in counts:
            results[f"processes_{w}"] = run(scratch / f"p{w}", templates, seeds, Parallel(workers=w), args.episodes)
        if not args.no_ray:
            with local_ray_head(num_cpus=max(counts)) as address:
                results["ray_2"] = run(scratch / "ray2", templates, seeds, Parallel(workers=2, ray=address),
                                       args.episodes)  # fmt: skip
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    base = results["processes_1"]["per_min"]
    speed = {w: round(results[f"processes_{w}"]["per_min"] / base, 3) for w in counts}
    two = results.get("processes_2")
    extra_mb = round(two["peak_pss_mb"] - results["processes_1"]["peak_pss_mb"], 1) if two else None
    cpu_per_ep = round(results["processes_1"]["cpu_s"] / results["processes_1"]["episodes"], 3)
    bound = round(60 * (os.cpu_count() or 1) / cpu_per_ep, 2)
    out = {
        "episodes_per_min_1": base,
        "cpu_s_per_episode": cpu_per_ep, "cpu_bound_per_min": bound,
        "bound_share_2_workers": round(two["per_min"] / bound, 3) if two else None,
        "speedup_2_workers": speed.get(2),
        "speedup_4_workers": speed.get(4),
        "ray_overhead": (round(1 - results["ray_2"]["per_min"] / results["processes_2"]["per_min"], 3)
                         if "ray_2" in results and "processes_2" in results else None),
        "mem_per_extra_worker_mb": extra_mb,
        "episodes": args.episodes, "workload": "oracle, world short train templates, browser, SGV off",
        "runs": results, "cpus": os.cpu_count(),
        "load_before": [round(x, 2) for x in load_before], "load_after": [round(x, 2) for x in os.getloadavg()],
    }  # fmt: skip
    print(json.dumps(out))


if __name__ == "__main__":
    main()
