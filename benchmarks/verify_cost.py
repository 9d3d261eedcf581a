"""What SGV costs and how it scores, under the honest protocol (keypoints from the goal, generic evidence), for
rules only / judge only / rules + judge (the trained nano judge, called for real through its server), on the
world's held-out templates and on the MiniWoB++ set no contract wrote.

  images_vs_webjudge  SGV's images over WebJudge's on the same episodes and keypoints: WebJudge makes N+2 calls
                      (key points; one call per screenshot; a final call shown at least the final screen), so it
                      sends N+1 screenshots per episode at the least; ratio of the totals (= of the means).
  tokens_vs_webjudge  the same for prompt tokens, as the judge server counts them (Qwen2.5-VL image tokens).
  calls_vs_webjudge   median per episode of SGV's model calls over N+2 (rules + judge).
  rule_settled_share  keypoints (from the goal) the rule judges settled without a model call.
  table               per configuration and set: precision and recall of `completed`, kappa and macro-F1 over
                      the four verdicts, adversarial catch, images / prompt tokens / calls per episode.
  webjudge            the WebJudge-shaped run with the same judge: its own scores and cost (`--webjudge`).

    .venv/bin/python benchmarks/verify_cost.py [--set runs/verify-bench] [--miniwob runs/verify-miniwob]

Sets missing on disk are built first (real Chromium): held-out templates (`venus verify bench` defaults) and
MiniWoB++ (13 tasks x 6 seeds); the world set's episodes include venus-nano's own rollouts (kind `agent`).
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

from venuskit.eval.verify_bench import INDEX, build_miniwob_set, build_set, load_index, run_bench
from venuskit.record.store import load_episode
from venuskit.verify import make_judges

CONFIGS = {"rules only": "ocr,log", "judge only": "nano", "rules + judge": "ocr,log,nano"}
RULES = {"ocr", "log"}
ROW = ("precision", "recall", "kappa", "macro_f1_4way", "adversarial_catch", "n_episodes", "n_completed")


def ensure(world: Path, miniwob: Path) -> None:
    if not (world / INDEX).exists():
        print(f"building the held-out world set in {world} (real Chromium)...", flush=True)
        build_set(world, 48, 0, split="heldout", others=4)
    if not (miniwob / INDEX).exists():
        print(f"building the MiniWoB++ set in {miniwob} (real Chromium)...", flush=True)
        build_miniwob_set(miniwob, seeds=range(5000, 5005))


def row(result: dict[str, Any]) -> dict[str, Any]:
    cost = result["cost"]
    return {**{k: result[k] for k in ROW}, "images_per_episode": cost["images"]["mean"],
            "prompt_tokens_per_episode": cost["prompt_tokens"]["mean"], "calls_per_episode": cost["calls"]["mean"],
            "images_vs_webjudge": result["images_vs_webjudge"], "tokens_vs_webjudge": result["tokens_vs_webjudge"],
            "ci95": result["ci95"]}  # fmt: skip


def settled_and_calls(set_dir: Path, result: dict[str, Any], reports: dict[str, Any]) -> dict[str, Any]:
    """Rule-settled share of the keypoints, and SGV's calls over N+2 per episode (rules + judge)."""
    kps = [k for r in reports.values() for k in r.keypoints]
    settled = sum(k.status in ("satisfied", "contradicted") and set(k.decided_by.split(",")) <= RULES for k in kps)
    ratios = []
    for item in load_index(set_dir)["items"]:
        if item["id"] in reports:
            n = len(load_episode(set_dir / item["episode_dir"]).steps)
            ratios.append(reports[item["id"]].cost.calls / (n + 2))
    share = round(settled / len(kps), 4) if kps else 0.0
    calls = round(statistics.median(ratios), 4) if ratios else 0.0
    return {"rule_settled_share": share, "keypoints": len(kps), "rule_settled": settled, "calls_vs_webjudge": calls}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--set", type=Path, default=Path("runs/verify-bench"), help="Held-out world set (built if absent)")
    ap.add_argument("--miniwob", type=Path, default=Path("runs/verify-miniwob"), help="The MiniWoB++ set")
    ap.add_argument("--webjudge", action="store_true", help="Also run the WebJudge-shaped baseline with the judge.")
    ap.add_argument("--limit", type=int, default=0, help="Only the first N items of each set (0: all).")
    args = ap.parse_args()
    load0 = os.getloadavg()[0]
    ensure(args.set, args.miniwob)
    t0 = time.perf_counter()
    table: dict[str, dict[str, Any]] = {}
    extra: dict[str, Any] = {}
    for name, spec in CONFIGS.items():
        for set_name, folder in (("world_heldout", args.set), ("miniwob", args.miniwob)):
            reports: dict[str, Any] = {}
            methods = ["sgv", "webjudge"] if args.webjudge and name == "judge only" else ["sgv"]
            result = run_bench(folder, make_judges(spec), methods=methods, limit=args.limit,
                               on_item=lambda m, i, r, reports=reports: reports.__setitem__(i["id"], r) if m == "sgv"
                               else None)  # fmt: skip
            table.setdefault(name, {})[set_name] = row(result)
            if "webjudge" in result:
                table.setdefault("webjudge (judge)", {})[set_name] = {k: result["webjudge"][k] for k in ROW} | {
                    "images_per_episode": result["webjudge"]["cost"]["images"]["mean"],
                    "prompt_tokens_per_episode": result["webjudge"]["cost"]["prompt_tokens"]["mean"]}
            if name == "rules + judge":
                extra[set_name] = settled_and_calls(folder, result, reports)
            r = table[name][set_name]
            print(f"{name:14s} {set_name:13s} P {r['precision']:.3f} R {r['recall']:.3f} kappa {r['kappa']:.3f} "
                  f"macro-F1 {r['macro_f1_4way']:.3f} adversarial {r['adversarial_catch']:.3f} | images/ep "
                  f"{r['images_per_episode']:.2f} ({r['images_vs_webjudge']:.3f}x WebJudge), tokens/ep "
                  f"{r['prompt_tokens_per_episode']:.0f} ({r['tokens_vs_webjudge']:.3f}x)", flush=True)  # fmt: skip
    head = table["rules + judge"]["world_heldout"]
    load1 = os.getloadavg()[0]
    print(f"load average {load0:.1f} -> {load1:.1f}; {time.perf_counter() - t0:.0f} s")
    out = {"images_vs_webjudge": head["images_vs_webjudge"], "tokens_vs_webjudge": head["tokens_vs_webjudge"],
           "calls_vs_webjudge": extra["world_heldout"]["calls_vs_webjudge"],
           "rule_settled_share": extra["world_heldout"]["rule_settled_share"], "evidence": "generic",
           "keypoint_source": "goal", "headline": "rules + judge, world held-out", "table": table, "settled": extra,
           "load_avg_1m": [round(load0, 2), round(load1, 2)],
           "seconds": round(time.perf_counter() - t0, 1)}  # fmt: skip
    print(json.dumps(out))


if __name__ == "__main__":
    main()
