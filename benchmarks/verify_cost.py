"""What SGV costs, on the contract-labelled world episodes of the verifier bench (`venus verify bench`).

  calls_vs_webjudge   median over episodes of SGV's model calls (one VLM judge next to the OCR and log
                      rules; keypoints extracted from the goal by the model, as WebJudge does) divided by
                      WebJudge's N+2 for the same episode (one key-point call, one call per screenshot,
                      one final call). The VLM judge points at a loopback StandinServer: a stand-in that
                      answers every call, so the CALL COUNT is measured, but accuracy is not: whether SGV
                      matches WebJudge's accuracy cannot be measured offline without a real VLM.
  rule_settled_share  share of all keypoints over the bench set that the rule judges (OCR, action log)
                      settled without a model call (the contract's keypoint texts, as the bench passes).
  parallel_speedup    median wall time per episode with serial window checks (workers=1) over the same
                      with parallel windows (workers=4), the stand-in replying after a fixed delay to stand
                      in for VLM latency; judges log+vlm so OCR's CPU time does not blur a latency figure.

    .venv/bin/python benchmarks/verify_cost.py [--set runs/verify-bench] [--n-tasks 10] [--delay 0.25]

Human-readable lines first; the last line is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from pathlib import Path
from typing import Any

from venuskit.eval.verify_bench import INDEX, build_set, item_keypoints, load_index
from venuskit.models.standin_server import Reply, StandinServer
from venuskit.record.store import load_episode
from venuskit.verify import SGVConfig, make_judges, verify_episode

RULES = {"ocr", "log"}
LONG_STEPS = 6  # episodes at least this long are also reported apart: SGV's windows pay off with length
NOTE = ("Model calls are counted against a loopback stand-in server, not a model: accuracy equality with "
        "WebJudge cannot be measured offline without a real VLM.")  # fmt: skip


def standin_script(delay_s: float):  # noqa: ANN201 - a StandinServer script
    """Text-only requests are keypoint extraction; the rest are judgments that decide nothing (so every
    stage that would call a real model still calls this one)."""

    def reply(request: dict[str, Any]) -> Reply:
        content = request["messages"][-1]["content"]
        if isinstance(content, str):
            return Reply(text=json.dumps({"keypoints": ["The change the goal asks for is visible"]}), delay_s=delay_s)
        votes = [{"id": i, "status": "not_visible", "reason": "stand-in"} for i in range(1, 13)]
        return Reply(text=json.dumps({"keypoints": votes}), delay_s=delay_s)

    return reply


def calls_and_rules(set_dir: Path, items: list[dict[str, Any]], url: str, model: str) -> dict[str, Any]:
    """Per episode: SGV model calls vs WebJudge's N+2; and keypoints settled by rules (contract keypoints)."""
    judges = make_judges("ocr,log,vlm", model_url=url, model_name=model, timeout_s=30)
    ratios, sgv_calls, wj_calls, settled, total = [], [], [], 0, 0
    for item in items:
        folder = set_dir / item["episode_dir"]
        n_steps = len(load_episode(folder).steps)
        calls = verify_episode(folder, judges, keypoints=None).cost.calls
        sgv_calls.append(calls)
        wj_calls.append(n_steps + 2)
        ratios.append(calls / (n_steps + 2))
        report = verify_episode(folder, judges, keypoints=item_keypoints(item))
        total += len(report.keypoints)
        settled += sum(_rule_settled(k) for k in report.keypoints)
    long = [r for r, n in zip(ratios, wj_calls, strict=True) if n - 2 >= LONG_STEPS] or [0.0]
    return {"calls_vs_webjudge": statistics.median(ratios), "sgv_calls_median": statistics.median(sgv_calls),
            "calls_vs_webjudge_long": statistics.median(long),
            "webjudge_calls_median": statistics.median(wj_calls), "keypoints": total, "rule_settled": settled,
            "rule_settled_share": settled / total if total else 0.0}  # fmt: skip


def _rule_settled(kp: Any) -> bool:
    return kp.status in ("satisfied", "contradicted") and set(kp.decided_by.split(",")) <= RULES


def parallel_speedup(set_dir: Path, items: list[dict[str, Any]], url: str, model: str, n: int) -> dict[str, Any]:
    """Median seconds per episode, serial windows vs parallel windows, on the n longest episodes."""
    longest = sorted(items, key=lambda i: -len(load_episode(set_dir / i["episode_dir"]).steps))[:n]
    judges = make_judges("log,vlm", model_url=url, model_name=model, timeout_s=30)
    times: dict[int, list[float]] = {1: [], 4: []}
    for item in longest:
        for workers in times:
            t0 = time.perf_counter()
            verify_episode(set_dir / item["episode_dir"], judges, SGVConfig(workers=workers), item_keypoints(item))
            times[workers].append(time.perf_counter() - t0)
    serial, parallel = statistics.median(times[1]), statistics.median(times[4])
    steps = [len(load_episode(set_dir / i["episode_dir"]).steps) for i in longest]
    return {"parallel_speedup": serial / parallel, "serial_s_median": serial, "parallel_s_median": parallel,
            "speedup_episodes": len(longest), "speedup_steps_median": statistics.median(steps)}  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--set", type=Path, default=Path("runs/verify-bench"), help="The bench set (built if missing).")
    ap.add_argument("--n-tasks", type=int, default=10, help="Feasible tasks when the set has to be built.")
    ap.add_argument("--delay", type=float, default=0.25, help="Seconds the stand-in waits before each reply.")
    ap.add_argument("--speedup-episodes", type=int, default=6, help="Longest episodes timed serial vs parallel.")
    ap.add_argument("--limit", type=int, default=0, help="Only the first N bench episodes for calls (0: all).")
    args = ap.parse_args()
    load = os.getloadavg()
    if not (args.set / INDEX).exists():
        print(f"building the bench set in {args.set} (real Chromium)...", flush=True)
        build_set(args.set, args.n_tasks)
    items = load_index(args.set)["items"]
    items = items[: args.limit] if args.limit else items
    with StandinServer(standin_script(0.0)) as fast:
        cr = calls_and_rules(args.set, items, fast.base_url, fast.model_name)
    with StandinServer(standin_script(args.delay)) as slow:
        sp = parallel_speedup(args.set, items, slow.base_url, slow.model_name, args.speedup_episodes)
    print(f"{len(items)} episodes: SGV {cr['sgv_calls_median']} model calls (median) vs WebJudge N+2 = "
          f"{cr['webjudge_calls_median']} -> ratio {cr['calls_vs_webjudge']:.2f} (median per episode; "
          f"{cr['calls_vs_webjudge_long']:.2f} on episodes of >= {LONG_STEPS} steps)")  # fmt: skip
    print(f"rules settled {cr['rule_settled']} of {cr['keypoints']} keypoints ({cr['rule_settled_share']:.1%}) "
          "without a model call")  # fmt: skip
    print(f"windows: serial {sp['serial_s_median']:.2f} s vs parallel {sp['parallel_s_median']:.2f} s per episode "
          f"(stand-in delay {args.delay} s; {sp['speedup_episodes']} episodes, median {sp['speedup_steps_median']} "
          f"steps) -> speedup {sp['parallel_speedup']:.2f}x; load average {load[0]:.2f}")  # fmt: skip
    print(NOTE)
    figures = {k: round(v, 4) if isinstance(v, float) else v for k, v in {**cr, **sp}.items()}
    out = {**figures, "episodes": len(items), "stand_in_delay_s": args.delay, "load_avg_1m": round(load[0], 2),
           "note": NOTE}  # fmt: skip
    print(json.dumps(out))


if __name__ == "__main__":
    main()
