"""World reset speed, concurrency and server memory.

  reset_ms_median        median ms of a full task reset in real Chromium: snapshot restore + the task's setup
                         rows + env.reset (the world's recycled browser context: cookies and storage cleared,
                         history dropped; bind URL, redirect, page load) + the first screenshot in hand. Goal <= 150.
  reset_fresh_context_ms_median  the same with a brand-new browser context per episode (BrowserEnv's default).
  state_reset_ms_median  the snapshot restore + setup part alone.
  concurrent_episodes    world episodes run at the same time, each by its own Chromium in its own thread
                         (the oracle of a short task), that ended `completed` with no write leaking into
                         another episode. Goal 8.
  server_rss_mb          resident memory of a world server process holding that many live episodes.

    .venv/bin/python benchmarks/world_reset.py [--resets 20] [--episodes 8] [--task mail.star_message]

The machine's load average is printed with the figures: on a shared machine they move with it.
Human-readable lines first; the last line is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import threading
import time
from pathlib import Path
from tempfile import TemporaryDirectory

from venuskit.envs.browser import BrowserConfig, BrowserEnv
from venuskit.eval.world import run_world_task
from venuskit.tasks import WorldTask
from venuskit.world import WorldServer

GOAL_RESET_MS = 150
GOAL_EPISODES = 8

_SERVER_RSS = """
import sys
from venuskit.world import WorldServer
from venuskit.tasks import WorldTask
w = WorldServer().start()
for i in range(int(sys.argv[1])):
    WorldTask.start(w, sys.argv[2], seed=i)
print(next(int(l.split()[1]) for l in open('/proc/self/status') if l.startswith('VmRSS:')) / 1024)
"""


def reset_times(server: WorldServer, env: BrowserEnv, task_id: str, n: int) -> tuple[list[float], list[float]]:
    """(full reset ms, state-only ms) for n resets of the same episode slot."""
    full, state_only = [], []
    episode = server.new_episode()
    for i in range(n + 1):  # the first round warms the snapshot cache and the browser; it is dropped
        t0 = time.perf_counter()
        wt = WorldTask.start(server, task_id, seed=i % 2, episode_id=episode)
        t1 = time.perf_counter()
        obs = env.reset(wt.env_task())
        t2 = time.perf_counter()
        assert obs.png and obs.url and "/_bind/" not in obs.url
        if i:
            full.append((t2 - t0) * 1000)
            state_only.append((t1 - t0) * 1000)
    return full, state_only


def concurrent(server: WorldServer, task_id: str, n: int, out: Path) -> tuple[int, float, list[str]]:
    """Run n oracle episodes at once, one Chromium per thread; count those that completed cleanly."""
    results: list[str] = [""] * n

    def one(i: int) -> None:
        with BrowserEnv(BrowserConfig(reuse_context=True)) as env:
            run = run_world_task(task_id, seed=i, out=out, server=server, env=env)
            results[i] = run.verdict.verdict

    t0 = time.perf_counter()
    threads = [threading.Thread(target=one, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return sum(r == "completed" for r in results), time.perf_counter() - t0, results


def server_rss(task_id: str, n: int) -> float:
    out = subprocess.run([sys.executable, "-c", _SERVER_RSS, str(n), task_id], capture_output=True, text=True,
                         check=True, timeout=120)  # fmt: skip
    return float(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--resets", type=int, default=20)
    ap.add_argument("--episodes", type=int, default=GOAL_EPISODES)
    ap.add_argument("--task", default="mail.star_message")
    args = ap.parse_args()
    with WorldServer() as server, TemporaryDirectory() as tmp:
        with BrowserEnv(BrowserConfig(reuse_context=True)) as env:
            full, state_only = reset_times(server, env, args.task, args.resets)
        with BrowserEnv(BrowserConfig()) as env:
            fresh, _ = reset_times(server, env, args.task, args.resets)
        ok, wall, verdicts = concurrent(server, args.task, args.episodes, Path(tmp))
        leaks = server.errors
    rss = server_rss(args.task, args.episodes)
    load = os.getloadavg()[0]
    print(
        f"reset (restore, setup, recycled context, load, screenshot): median {statistics.median(full):.1f} ms, "
        f"p90 {sorted(full)[int(len(full) * 0.9)]:.1f} ms over {len(full)} resets (goal <= {GOAL_RESET_MS})"
    )
    print(f"with a new browser context per episode instead: median {statistics.median(fresh):.1f} ms")
    print(f"state reset alone: median {statistics.median(state_only):.2f} ms")
    print(
        f"concurrent episodes: {ok}/{args.episodes} completed in {wall:.1f} s wall ({verdicts}); server errors: "
        f"{len(leaks)}"
    )
    print(f"world server RSS with {args.episodes} live episodes: {rss:.1f} MB; load average {load:.2f}")
    print(json.dumps({"reset_ms_median": round(statistics.median(full), 1),
                      "reset_fresh_context_ms_median": round(statistics.median(fresh), 1),
                      "state_reset_ms_median": round(statistics.median(state_only), 2),
                      "concurrent_episodes": ok, "concurrent_wall_s": round(wall, 1),
                      "server_rss_mb": round(rss, 1), "load_avg_1m": round(load, 2)}))  # fmt: skip


if __name__ == "__main__":
    main()
