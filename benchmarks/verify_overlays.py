"""What drawing overlays costs a rules-only verification: SGV's overlays (each step's action drawn on its
screenshot, PNG-encoded) are drawn when a model judge first looks at them, against drawing every one up front.

  lazy    `venus verify bench --judges ocr,log` as it runs now: a rules-only run draws no overlay (the WebJudge
          cost count uses the screenshots' sizes, which are the overlays' sizes);
  eager   the same run with every step's overlay drawn as its view is made, as SGV did before (the anchor:
          the same code with `step_views` touching every `annotated`).

Each run is a fresh process over the same episodes (cold OCR caches, as a user's run starts); the two alternate,
`--repeats` times each. The verdicts of both must match item for item. Human-readable lines first; the last
line is one JSON object: median wall seconds of each, their ratio, the per-episode medians and the load.

    .venv/bin/python benchmarks/verify_overlays.py [--set runs/verify-bench] [--episodes 30] [--repeats 3]

A set missing on disk is built first (held-out templates, real Chromium; `--episodes` picks the first items).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from pathlib import Path

CHILD = """
import json, sys, time
from venuskit.eval.verify_bench import run_bench
from venuskit.verify import make_judges
import venuskit.verify.sgv as sgv
set_dir, limit, eager = sys.argv[1], int(sys.argv[2]), sys.argv[3] == "eager"
if eager:
    views = sgv.step_views
    def drawn_up_front(*a, **kw):  # every overlay drawn as its view is made, as SGV did before
        made = views(*a, **kw)
        for v in made:
            v.annotated
        return made
    sgv.step_views = drawn_up_front
t0 = time.perf_counter()
r = run_bench(set_dir, make_judges("ocr,log"), limit=limit, methods=("sgv",))
print(json.dumps({"wall": time.perf_counter() - t0, "items": [[i["id"], i["sgv"]] for i in r["items"]],
                  "tokens_vs_webjudge": r.get("tokens_vs_webjudge")}))
"""


def run(set_dir: Path, episodes: int, mode: str) -> dict:
    out = subprocess.run([sys.executable, "-c", CHILD, str(set_dir), str(episodes), mode], capture_output=True,
                         text=True, check=True)  # fmt: skip
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--set", type=Path, default=Path("runs/verify-bench"), help="A judge set (built if absent)")
    ap.add_argument("--episodes", type=int, default=30, help="The first N items of the set.")
    ap.add_argument("--repeats", type=int, default=3, help="Runs of each variant (alternating).")
    args = ap.parse_args()
    if not (args.set / "index.json").exists():
        from venuskit.eval.verify_bench import build_set

        build_set(args.set, 4, 0, split="heldout")
    load0 = os.getloadavg()
    runs: dict[str, list[dict]] = {"lazy": [], "eager": []}
    for r in range(args.repeats):
        for mode in ("lazy", "eager") if r % 2 == 0 else ("eager", "lazy"):
            runs[mode].append(run(args.set, args.episodes, mode))
            print(f"{mode:5s} run {r}: {runs[mode][-1]['wall']:.1f} s", flush=True)
    verdicts = {json.dumps(x["items"]) for xs in runs.values() for x in xs}
    if len(verdicts) != 1:
        raise SystemExit("The lazy and eager runs gave different verdicts: the overlays changed a decision.")
    n = len(runs["lazy"][0]["items"])
    lazy, eager = (statistics.median(x["wall"] for x in runs[m]) for m in ("lazy", "eager"))
    out = {"episodes": n, "repeats": args.repeats, "lazy_s": round(lazy, 2), "eager_s": round(eager, 2),
           "speedup_vs_eager": round(eager / lazy, 3), "lazy_ms_per_episode": round(1000 * lazy / n, 1),
           "eager_ms_per_episode": round(1000 * eager / n, 1), "verdicts_equal": True,
           "load_before": [round(v, 2) for v in load0], "load_after": [round(v, 2) for v in os.getloadavg()],
           "cpus": os.cpu_count(), "set": str(args.set)}  # fmt: skip
    print(f"{n} episodes, rules only: lazy {lazy:.1f} s, eager {eager:.1f} s ({eager / lazy:.2f}x)")
    print(json.dumps(out))


if __name__ == "__main__":
    main()
