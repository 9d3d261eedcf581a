"""How much of a world screen venus-nano's reader sees: text recall against the DOM's text boxes, and the share of
the oracle's click targets that some read element lands in.

    .venv/bin/python benchmarks/nano_reader.py [--templates 24] [--surfaces browser,mobile] [--out runs/nano-reader]

The oracle runs training templates (a fixed, evenly spaced pick; training seeds); at every step the page's visible
text nodes (their client rects, in screenshot pixels) and the oracle's target element box are read from the DOM —
labels for this measurement only, never an input of the policy. A DOM text item counts as read when a reader line
overlaps its box and the two texts agree (character-trigram containment >= 0.7 of the text or of its first 20
characters — what a clipped text shows —, spaces and case ignored).
A click target counts as covered when the centre of some read element (text, icon, region) lies inside it.

Human-readable lines first; the last line is one JSON object: text_recall, text_recall_by_surface,
target_coverage, target_coverage_by_surface, screens, reader_ms_p50 (cold reads: OCR of unseen crops included).
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any

# Visible text nodes and their rects (CSS px); the caller scales them to screenshot pixels.
DOM_TEXT_JS = """() => {
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  const vw = window.innerWidth, vh = window.innerHeight;
  while (walker.nextNode()) {
    const node = walker.currentNode;
    const text = node.textContent.replace(/\\s+/g, ' ').trim();
    if (text.length < 2) continue;
    const el = node.parentElement;
    const st = el && getComputedStyle(el);
    if (!st || st.visibility === 'hidden' || st.display === 'none' || parseFloat(st.opacity) < 0.1) continue;
    const range = document.createRange();
    range.selectNodeContents(node);
    for (const r of range.getClientRects()) {
      if (r.width < 4 || r.height < 6 || r.right <= 0 || r.bottom <= 0 || r.left >= vw || r.top >= vh) continue;
      const hit = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);
      if (!hit || !(hit === el || el.contains(hit) || hit.contains(el))) continue;  // covered by something else
      out.push([text, r.left, r.top, r.right, r.bottom]);
    }
  }
  return out;
}"""


def _say(text: str) -> None:
    print(text, file=sys.stderr, flush=True)


def _pick(templates: list[str], n: int) -> list[str]:
    if n >= len(templates):
        return templates
    step = len(templates) / n
    return [templates[int(i * step)] for i in range(n)]


class _Probe:
    """The oracle as a policy that also records, before each action, the screen and its DOM text boxes."""

    def __init__(self, env: Any, steps: Any, surface: str) -> None:
        from venuskit.runs.policies import box_oracle

        self.env, self.surface = env, surface
        self.oracle = box_oracle(steps, surface)
        self.goal, self.system = "", None
        self.screens: list[dict[str, Any]] = []

    def act(self, observation: Any, history: list, feedback: str | None = None) -> Any:
        from venuskit.actions import format_response
        from venuskit.actions.types import CallUser, Click
        from venuskit.agent.policy import parse_output
        from venuskit.tasks.oracle import OracleError

        page = self.env.page
        try:
            thought, action = self.oracle.next(page)
        except OracleError as e:
            thought, action = "stop", CallUser(content=str(e))
        dom = page.evaluate(DOM_TEXT_JS)
        box = self.oracle.boxes.get(id(action)) if isinstance(action, Click) else None
        self.screens.append({"png": observation.png, "dom": dom, "css_w": page.viewport_size["width"], "target": box})
        return parse_output(format_response(thought, action, self.surface), self.surface)

    def set_goal(self, goal: str) -> None:
        self.goal = goal

    def describe(self) -> dict[str, Any]:
        return {"policy": "oracle", "probe": "nano-reader"}


def _score(reader: Any, shot: dict[str, Any]) -> dict[str, Any]:
    from venuskit.models.nano.entities import containment, norm

    t0 = time.perf_counter()
    screen = reader.read(shot["png"])
    ms = (time.perf_counter() - t0) * 1000
    k = screen.width / shot["css_w"]
    found = 0
    for text, x1, y1, x2, y2 in shot["dom"]:
        box = (x1 * k, y1 * k, x2 * k, y2 * k)
        for line in screen.lines:
            lx1, ly1, lx2, ly2 = line.box
            overlap = min(lx2, box[2]) > max(lx1, box[0]) and min(ly2, box[3]) > max(ly1, box[1])
            # A clipped text (an ellipsis, a row snippet) shows its start: compare that too.
            if (
                overlap
                and line.text
                and (
                    containment(text, line.text) >= 0.7
                    or containment(text[:20], line.text) >= 0.7
                    or (len(norm(line.text)) >= 4 and containment(line.text, text) >= 0.9)
                )
            ):
                found += 1
                break
    covered = None
    if shot["target"]:
        bx1, by1, bx2, by2 = (v * s for v, s in zip(shot["target"], (screen.width, screen.height) * 2, strict=True))
        covered = any(bx1 <= (e.box[0] + e.box[2]) / 2 <= bx2 and by1 <= (e.box[1] + e.box[3]) / 2 <= by2
                      for e in [*screen.lines, *screen.regions])  # fmt: skip
    return {"dom": len(shot["dom"]), "found": found, "covered": covered, "ms": ms}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--templates", type=int, default=24, help="Training templates (evenly spaced in the list).")
    ap.add_argument("--surfaces", default="browser,mobile")
    ap.add_argument("--out", type=Path, default=Path("runs/nano-reader"))
    args = ap.parse_args()

    from venuskit.models.nano.reader import Reader
    from venuskit.runs.world import run_world_task, world_browser
    from venuskit.tasks import splits
    from venuskit.tasks.spec import get_task
    from venuskit.world.server import WorldServer

    templates = _pick([t for c in ("short", "medium") for t in splits.world_templates("train", c)], args.templates)
    reader = Reader()
    seed = splits.load().world_train_seeds[0]
    rows: list[dict[str, Any]] = []
    with WorldServer() as server:
        for surface in args.surfaces.split(","):
            env = world_browser(surface)
            try:
                for tid in templates:
                    spec = get_task(tid)
                    if surface not in spec.surfaces:
                        continue
                    probe = _Probe(env, spec.instance(seed).oracle, surface)
                    try:
                        run_world_task(tid, seed, policy=lambda g, t, p=probe: p, out=args.out, surface=surface,
                                       server=server, env=env)  # fmt: skip
                    except Exception as exc:  # noqa: BLE001 - a broken task is reported, the rest still counts
                        _say(f"{tid} ({surface}): {type(exc).__name__}: {exc}")
                    for shot in probe.screens:
                        rows.append({"surface": surface, "task": tid, **_score(reader, shot)})
            finally:
                env.close()

    def recall(rs: list[dict[str, Any]]) -> float:
        return round(sum(r["found"] for r in rs) / max(1, sum(r["dom"] for r in rs)), 4)

    def coverage(rs: list[dict[str, Any]]) -> float | None:
        c = [r["covered"] for r in rs if r["covered"] is not None]
        return round(sum(c) / len(c), 4) if c else None

    surfaces = sorted({r["surface"] for r in rows})
    result = {"text_recall": recall(rows), "text_recall_by_surface": {s: recall([r for r in rows if r["surface"] == s])
                                                                       for s in surfaces},
              "target_coverage": coverage(rows),
              "target_coverage_by_surface": {s: coverage([r for r in rows if r["surface"] == s]) for s in surfaces},
              "screens": len(rows),
              "reader_ms_p50": round(statistics.median(r["ms"] for r in rows), 1) if rows else 0}  # fmt: skip
    for r in sorted(rows, key=lambda r: r["found"] / max(1, r["dom"]))[:8]:
        _say(f"lowest recall: {r['task']} ({r['surface']}) {r['found']}/{r['dom']}")
    args.out.mkdir(parents=True, exist_ok=True)
    (args.out / "reader.json").write_text(json.dumps({"result": result, "rows": rows}, indent=1))
    print(json.dumps(result))


if __name__ == "__main__":
    main()
