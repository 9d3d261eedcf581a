"""World reset speed, concurrency and server memory.

  reset_ms_median        median ms of a full task reset in real Chromium: snapshot restore + the task's setup
                         rows + env.reset (the world's recycled browser context: cookies and storage cleared,
                         history dropped; bind URL, redirect, page load) + the first screenshot in hand. Goal <= 150.
  reset_fresh_context_ms_median  the same with a brand-new browser context per episode (BrowserEnv's default).
  state_reset_ms_median  the snapshot restore + setup part alone.
  concurrent_episodes    world episodes run at the same time, each by its own Chromium in its own thread (the
                         oracle of a short task) against ONE world server in its own process, that ended
                         `completed` with zero server errors for the episode and verified isolation: its state
                         changed exactly as one solo run of the task changes it (same rows changed per table,
                         same logged actions), so no write landed in another episode. Goal 8.
  concurrent_completed   of those, the episodes whose contract said `completed` (before the two checks above).
  concurrent_server_errors  requests of the concurrent episodes that the server failed on (500s).
  server_peak_rss_mb     the world server process's peak resident memory (VmHWM) over the concurrent phase: its
                         own process, so neither the harness nor Playwright is counted.
  server_rss_mb          resident memory of a world server process holding that many live, idle episodes.

    .venv/bin/python benchmarks/world_reset.py [--resets 20] [--episodes 8] [--task mail.star_message]

The machine's load average is printed with the figures: on a shared machine they move with it.
Human-readable lines first; the last line is one JSON object.
"""

from __future__ import annotations

import argparse
import collections
import json
import multiprocessing
import os
import statistics
import subprocess
import sys
import threading
import time
from multiprocessing.managers import BaseManager
from pathlib import Path
from tempfile import TemporaryDirectory
from typing import Any

from parts import PartTimer  # benchmarks/ is this script's folder

from venuskit.agent.runner import RunConfig
from venuskit.agent.session import AgentJob, run_episode
from venuskit.envs.browser import BrowserConfig, BrowserEnv
from venuskit.infra.proc import peak_rss_mb
from venuskit.runs.policies import OraclePolicy
from venuskit.tasks import Oracle, WorldTask, get_task
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


RESET_PARTS = {"_open_context": "context", "_goto": "navigation", "_observe": "screenshot"}


def reset_times(server: WorldServer, env: BrowserEnv, task_id: str, n: int,
                parts: dict[str, list[float]] | None = None) -> tuple[list[float], list[float]]:  # fmt: skip
    """(full reset ms, state-only ms) for n resets of the same episode slot; with `parts`, each reset's ms by part
    (state, context, navigation, screenshot, other) appended to it."""
    full, state_only = [], []
    episode = server.new_episode()
    timer = PartTimer(env, RESET_PARTS) if parts is not None else None
    for i in range(n + 1):  # the first round warms the snapshot cache and the browser; it is dropped
        if timer is not None:
            timer.clear()
        t0 = time.perf_counter()
        wt = WorldTask.start(server, task_id, seed=i % 2, episode_id=episode)
        t1 = time.perf_counter()
        obs = env.reset(wt.env_task())
        t2 = time.perf_counter()
        assert obs.png and obs.url and "/_bind/" not in obs.url
        if i:
            full.append((t2 - t0) * 1000)
            state_only.append((t1 - t0) * 1000)
            if timer is not None and parts is not None:
                got = {"state": (t1 - t0) * 1000, **timer.ms}
                got["other"] = full[-1] - sum(got.values())  # history reset, held dialogs, the page's checks
                for k, v in got.items():
                    parts.setdefault(k, []).append(v)
    return full, state_only


class WorldHost:
    """The world server and its task state, in a process of their own (served by a multiprocessing manager): the
    harness in this process reaches it over HTTP (the browsers) and this small proxy API (setup, interrupts,
    contract verdicts, footprints)."""

    def __init__(self) -> None:
        self.server = WorldServer().start()
        self.tasks: dict[str, WorldTask] = {}
        self.before: dict[str, dict[str, collections.Counter]] = {}

    def start(self, task_id: str, seed: int) -> tuple[str, dict[str, Any]]:
        wt = WorldTask.start(self.server, task_id, seed)
        self.tasks[wt.episode_id] = wt
        self.before[wt.episode_id] = _tables(wt)
        return wt.episode_id, wt.env_task()

    def on_step(self, episode_id: str, index: int) -> None:
        self.tasks[episode_id].on_step(index)

    def verdict(self, episode_id: str, end_reason: str | None, answer: str | None) -> str:
        return self.tasks[episode_id].verdict(end_reason, answer).verdict

    def footprint(self, episode_id: str) -> tuple[tuple[str, int], ...]:
        """How the episode's state changed: rows changed per table (the action log included)."""
        before, after = self.before[episode_id], _tables(self.tasks[episode_id])
        changed = {t: sum(((after[t] - before.get(t, collections.Counter())) +
                           (before.get(t, collections.Counter()) - after[t])).values()) for t in after}  # fmt: skip
        return tuple(sorted((t, n) for t, n in changed.items() if n))

    def errors(self, episode_id: str) -> int:
        return self.server.errors_for(episode_id)

    def peak_rss_mb(self) -> float:
        return peak_rss_mb()


def _tables(wt: WorldTask) -> dict[str, collections.Counter]:
    state = wt.state
    names = [r["name"] for r in state.rows("SELECT name FROM sqlite_master WHERE type = 'table'")]
    return {n: collections.Counter(tuple(r.values()) for r in state.rows(f'SELECT * FROM "{n}"')) for n in names}


class _Hosts(BaseManager):
    pass


_Hosts.register("WorldHost", WorldHost)


def concurrent(task_id: str, n: int, out: Path) -> dict[str, Any]:
    """A solo reference run, then n oracle episodes at once (one Chromium per thread), against one world server in
    its own process; an episode counts when it completed with no server error and the reference's footprint."""
    with _Hosts(ctx=multiprocessing.get_context("spawn")) as manager:
        host = manager.WorldHost()
        ends: dict[str, tuple[str | None, str | None]] = {}

        def one(seed: int) -> None:
            inst = get_task(task_id).instance(seed)
            episode_id, task = host.start(task_id, seed)
            with BrowserEnv(BrowserConfig(reuse_context=True)) as env:
                policy = OraclePolicy(env, Oracle(inst.oracle, "browser"), "browser")
                job = AgentJob(goal=inst.goal, surface="browser", out=out,
                               run=RunConfig(max_steps=inst.spec.max_steps))  # fmt: skip
                episode, _ = run_episode(env, policy, job, task, on_step=lambda s: host.on_step(episode_id, s.index))
            ends[episode_id] = (episode.outcome.reason, episode.outcome.answer)

        one(10_000)  # the solo reference (a seed no concurrent episode uses)
        (reference_id,) = ends
        reference = host.footprint(reference_id)
        ends.clear()
        t0 = time.perf_counter()
        threads = [threading.Thread(target=one, args=(i,)) for i in range(n)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        wall = time.perf_counter() - t0
        rows = [(host.verdict(e, *end), host.errors(e), host.footprint(e) == reference) for e, end in ends.items()]
        return {
            "clean": sum(v == "completed" and not err and same for v, err, same in rows),
            "completed": sum(v == "completed" for v, _, _ in rows),
            "errors": sum(err for _, err, _ in rows),
            "isolated": sum(same for _, _, same in rows),
            "verdicts": [v for v, _, _ in rows],
            "ends": [end[0] for end in ends.values()],
            "ran": len(rows),
            "wall_s": wall,
            "peak_rss_mb": host.peak_rss_mb(),
            "reference": reference,
        }


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
    with WorldServer() as server:
        parts: dict[str, list[float]] = {}
        with BrowserEnv(BrowserConfig(reuse_context=True)) as env:
            full, state_only = reset_times(server, env, args.task, args.resets, parts)
        with BrowserEnv(BrowserConfig()) as env:
            fresh, _ = reset_times(server, env, args.task, args.resets)
    with TemporaryDirectory() as tmp:
        conc = concurrent(args.task, args.episodes, Path(tmp))
    rss = server_rss(args.task, args.episodes)
    load = os.getloadavg()[0]
    print(
        f"reset (restore, setup, recycled context, load, screenshot): median {statistics.median(full):.1f} ms, "
        f"p90 {sorted(full)[int(len(full) * 0.9)]:.1f} ms over {len(full)} resets (goal <= {GOAL_RESET_MS})"
    )
    breakdown = {k: round(statistics.median(v), 1) for k, v in parts.items()}
    print(f"  where it goes (medians, ms): {breakdown}")
    print(f"with a new browser context per episode instead: median {statistics.median(fresh):.1f} ms")
    print(f"state reset alone: median {statistics.median(state_only):.2f} ms")
    print(
        f"concurrent episodes against a world server in its own process: {conc['clean']}/{args.episodes} clean "
        f"(completed {conc['completed']}, isolation verified {conc['isolated']}, server errors {conc['errors']}) "
        f"in {conc['wall_s']:.1f} s wall (verdicts {conc['verdicts']}, episode ends {conc['ends']}); "
        f"solo footprint {conc['reference']}"
    )
    print(f"world server process peak RSS over the concurrent phase: {conc['peak_rss_mb']:.1f} MB")
    print(f"world server RSS with {args.episodes} live idle episodes: {rss:.1f} MB; load average {load:.2f}")
    print(json.dumps({"reset_ms_median": round(statistics.median(full), 1), "reset_ms_by_part": breakdown,
                      "reset_fresh_context_ms_median": round(statistics.median(fresh), 1),
                      "state_reset_ms_median": round(statistics.median(state_only), 2),
                      "concurrent_episodes": conc["clean"], "concurrent_completed": conc["completed"],
                      "concurrent_isolated": conc["isolated"], "concurrent_server_errors": conc["errors"],
                      "concurrent_wall_s": round(conc["wall_s"], 1),
                      "server_peak_rss_mb": round(conc["peak_rss_mb"], 1), "server_process": "own",
                      "server_rss_mb": round(rss, 1), "load_avg_1m": round(load, 2)}))  # fmt: skip


if __name__ == "__main__":
    main()
