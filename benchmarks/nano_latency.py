"""venus-nano in `venus run`, as a user runs it: the latency of every decision, the first screen's apart, and RSS.

Each episode is its own `venus run --world TEMPLATE --seed S` process (no --model: venus-nano in process), on
held-out short browser templates and evaluation seeds, so every first screen is one the reader has never seen
(its crop cache starts empty in each process, as in a user's run).

  first_screen_ms_p90   p90 over episodes of the policy's time on step 0 (`timings.model_s`: decode, reading,
                        candidates, network, reply text). Goal <= 400.
  step_ms_p50 / p90     the same over every step of every episode (all screens).
  rss_mb_peak           the largest peak resident memory of a `venus run` Python process (sampled every 50 ms;
                        its Chromium is a process of its own, reported apart as chromium_rss_mb_peak). Goal <= 500.

    .venv/bin/python benchmarks/nano_latency.py [--episodes 12] [--max-steps 8]

The machine's load average is printed with the figures. Human-readable lines first; the last line is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil

from venuskit.record.store import iter_episode_dirs, load_episode
from venuskit.tasks import splits


def p90(xs: list[float]) -> float:
    xs = sorted(xs)
    return xs[min(len(xs) - 1, int(0.9 * len(xs)))] if xs else 0.0


def one_run(template: str, seed: int, out: Path, max_steps: int) -> tuple[float, float, float]:
    """(peak RSS of the venus process, peak RSS of its Chromium tree, wall seconds) of one `venus run`."""
    cmd = [sys.executable, "-m", "venuskit.cli.main", "run", "--world", template, "--seed", str(seed),
           "--max-steps", str(max_steps), "--out", str(out)]  # fmt: skip
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    me, peak, browser = psutil.Process(proc.pid), 0.0, 0.0
    while proc.poll() is None:
        try:
            peak = max(peak, me.memory_info().rss / 2**20)
            kids = [k for k in me.children(recursive=True) if "chrom" in k.name().lower()]
            browser = max(browser, sum(k.memory_info().rss for k in kids) / 2**20)
        except psutil.Error:
            pass
        time.sleep(0.05)
    return peak, browser, time.perf_counter() - t0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--episodes", type=int, default=12)
    ap.add_argument("--max-steps", type=int, default=8)
    args = ap.parse_args()
    templates = [t for t in splits.world_templates("heldout", "short")][: args.episodes]
    low = splits.load().world_eval_seeds[0]
    load_before = os.getloadavg()
    scratch = Path(tempfile.mkdtemp(prefix="nano-latency-"))
    first, steps, rss, chrome = [], [], [], []
    try:
        for i, t in enumerate(templates):
            out = scratch / str(i)
            peak, browser, wall = one_run(t, low + i, out, args.max_steps)
            rss.append(peak)
            chrome.append(browser)
            for d in iter_episode_dirs(out):
                ms = [1000 * s.timings["model_s"] for s in load_episode(d).steps if "model_s" in s.timings]
                if ms:
                    first.append(ms[0])
                    steps.extend(ms)
                    print(f"{t} seed {low + i}: first screen {ms[0]:.0f} ms, {len(ms)} steps, median "
                          f"{statistics.median(ms):.0f} ms, peak RSS {peak:.0f} MB, {wall:.1f} s",
                          flush=True)  # fmt: skip
    finally:
        shutil.rmtree(scratch, ignore_errors=True)
    assert first, "no episode recorded a step"
    out = {
        "first_screen_ms_p90": round(p90(first), 1), "first_screen_ms_median": round(statistics.median(first), 1),
        "step_ms_p50": round(statistics.median(steps), 1), "step_ms_p90": round(p90(steps), 1),
        "rss_mb_peak": round(max(rss), 1), "rss_mb_median": round(statistics.median(rss), 1),
        "chromium_rss_mb_peak": round(max(chrome), 1), "episodes": len(first), "steps": len(steps),
        "cpus": os.cpu_count(),
        "load_before": [round(x, 2) for x in load_before], "load_after": [round(x, 2) for x in os.getloadavg()],
    }  # fmt: skip
    print(json.dumps(out))


if __name__ == "__main__":
    main()
