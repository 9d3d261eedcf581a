"""Task synthesis at scale: `venus tasks synth --n 300` as a figure.

  accepted                 tasks accepted (each proved by its oracle to `completed` in real Chromium). Goal 300.
  rejected_by_reason       candidates rejected, by reason (venuskit.tasks.synth.reject.REASONS)
  oracle_completed_share   share of accepted tasks whose proving run reached `completed`. Goal 1.0.
  proof_completed_share    share of proving runs that reached `completed` (the rest: oracle_failed)
  capabilities_covered / capabilities_total   composable capabilities used by some accepted task. Goal: all.
  cross_app_share          accepted tasks that use two or more apps. Goal >= 0.3.
  duplicates               accepted tasks that duplicate a hand-written template (re-checked). Goal 0.
  tasks_per_s              accepted tasks per second of the whole run, proofs included. Goal >= 1.
  cpu_s / cores_busy       CPU seconds (user + system) of this process and the workers and browsers it started and
                           reaped, and that over the wall time: how much of the machine the run kept busy.

    .venv/bin/python benchmarks/task_synth.py [--n 300] [--seed 0] [--workers 2] [--locale en]

The machine's load average is printed with the figures: on a shared machine they move with it.
Human-readable lines first; the last line is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import time

from venuskit.flywheel.synth import SynthConfig, synthesize
from venuskit.infra.proc import cpu_s


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--n", type=int, default=300, help="tasks to accept")
    ap.add_argument("--seed", type=int, default=0, help="sampler seed")
    ap.add_argument("--workers", type=int, default=2, help="proving browsers")
    ap.add_argument("--locale", default="en", help="en or zh")
    ap.add_argument("--out", default=None, help="also write the task file here")
    args = ap.parse_args()
    load_before = os.getloadavg()[0]
    t0, c0 = time.perf_counter(), cpu_s()
    last = [0.0]

    def progress(p: dict) -> None:
        if time.perf_counter() - last[0] > 30:
            last[0] = time.perf_counter()
            elapsed = time.perf_counter() - t0
            print(f"  {p['accepted']}/{args.n} accepted, {p['drawn']} drawn, {elapsed:.0f} s", flush=True)

    config = SynthConfig(n=args.n, seed=args.seed, workers=args.workers, locale=args.locale, out=args.out)
    s = synthesize(config, progress=progress).summary
    s["load_avg_1m_before"] = round(load_before, 2)
    s["cpu_s"] = round(cpu_s() - c0, 1)
    s["cores_busy"] = round(s["cpu_s"] / (time.perf_counter() - t0), 2)
    print(f"accepted {s['accepted']} of {s['drawn']} drawn in {s['seconds']} s ({s['tasks_per_s']} tasks/s)")
    print(f"rejected: {s['rejected_by_reason']}")
    print(
        f"capabilities {s['capabilities_covered']}/{s['capabilities_total']}, cross-app {s['cross_app_share']}, "
        f"data flow {s['data_flow_share']}, duplicates {s['duplicates']}, load {load_before:.1f} -> "
        f"{s['load_avg_1m']:.1f}; {s['cpu_s']} CPU-s ({s['cores_busy']} cores busy)"
    )
    print(json.dumps(s))


if __name__ == "__main__":
    main()
