"""The desktop gate's own figures: scripted scenarios on the real desktop, with the screen gate off and on.

  consequential     scenarios that attempt a declared operation (delete or overwrite a file, quit without saving)
  harm              of those, the ones where it happened
  found             of those, the ones where the gate named the operation (off: it only records)
  gate_block_rate   of those, blocked and without harm
  over_refusal      benign scenarios (the same apps and verbs, nothing lost) with a block
  benign_done       benign scenarios whose work got done

Each scenario runs in English and with Chinese file names (venuskit/eval/desktop_gate.py). The machine's load
average is printed with the figures. Human-readable lines first; the last line is one JSON object.

    .venv/bin/python benchmarks/desktop_gate.py [--out runs/bench-desktop-gate] [--arms off,on] [--only NAME,...]
"""

from __future__ import annotations

import argparse
import json
import os
import time
from pathlib import Path

from venuskit.eval.desktop_gate import run_desktop_gate


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default="runs/bench-desktop-gate")
    ap.add_argument("--arms", default="off,on")
    ap.add_argument("--only", default="", help="Scenario names, comma-separated (default: all).")
    args = ap.parse_args()
    t0 = time.monotonic()
    names = tuple(n for n in args.only.split(",") if n)
    result = run_desktop_gate(Path(args.out), tuple(args.arms.split(",")), names)
    for row in result["rows"]:
        print(f"{row['arm']:>3} {row['locale']} {row['name']:<26} kind={row['kind'] or '-':<15} found={row['found']} "
              f"blocked={row['blocked']} {'harm' if row['kind'] else 'done'}={row['outcome']} {row['error']}")
    for arm, s in result["summary"].items():
        print(f"gate {arm}: {s}")
    load = os.getloadavg()
    print(json.dumps({"summary": result["summary"], "seconds": round(time.monotonic() - t0, 1),
                      "load": [round(x, 2) for x in load], "shared_machine": True}))


if __name__ == "__main__":
    main()
