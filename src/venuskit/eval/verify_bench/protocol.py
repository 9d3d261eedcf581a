"""Running verifiers over a labelled set, under a stated protocol.

The protocol says what a verifier may be given, and every result names it:
- `keypoint_source`: "goal" (default: SGV extracts keypoints from the goal, as it must on a real task) or
  "contract" (the task contract's keypoint texts: they can carry the answer, so never a headline);
- `evidence`: "generic" (default: pixels, the action log, URL and title as any site has them) or "world"
  (also the world's own success flashes in URLs: `SGVConfig.evidence`).

Whatever in a record is the label's source (the contract verdict in the manifest, a MiniWoB++ reward in the
outcome or step info) is never handed to a verifier: SGV reads episodes through `verify.sgv.evidence_view`.

Methods, scored side by side on the same items: SGV (`verify_episode`); the final screenshot only
(`verify_final_screenshot`); and, with a model judge, a WebJudge-shaped run (`verify_webjudge`: one call per
screenshot, then one final call). Cost is counted in model calls, images and prompt tokens per episode;
`images_vs_webjudge` / `tokens_vs_webjudge` divide SGV's totals by WebJudge's N+2 calls on the same episodes
and keypoints (`webjudge_cost`: one screenshot per scoring call plus the final screen).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from venuskit.eval import metrics as M
from venuskit.eval.verify_bench.kinds import KIND_BY_NAME
from venuskit.eval.verify_bench.scoring import score
from venuskit.eval.verify_bench.world_set import load_index

KEYPOINT_SOURCES = ("goal", "contract")
EVIDENCE = ("generic", "world")
METHODS = ("sgv", "final_screenshot", "webjudge")
Verify = Callable[[Path, "list[str] | None"], Any]  # (episode dir, keypoints or None) -> venuskit.verify Report


def item_keypoints(item: dict[str, Any], source: str = "goal") -> list[str] | None:
    """The keypoints a verifier is given for an item: None under "goal" (SGV extracts them from the goal);
    the contract's descriptions under "contract" (None for an infeasible task, which has none, so that the
    verifier splits the goal instead of calling zero keypoints trivially satisfied)."""
    if source not in KEYPOINT_SOURCES:
        raise ValueError(f"Unknown keypoint source {source!r}; use one of {', '.join(KEYPOINT_SOURCES)}.")
    return (list(item.get("keypoints") or []) or None) if source == "contract" else None


def run_verifier(
    set_dir: Path | str,
    items: Sequence[dict[str, Any]],
    verify: Verify,
    *,
    keypoint_source: str = "goal",
    on_item: Callable[[dict[str, Any], Any], None] | None = None,
) -> dict[str, Any]:
    """Verify every item; returns the scored metrics plus each item's prediction. A verifier that raises on
    one episode does not lose the bench: the item is left out of the metrics and listed under `errors`."""
    kept, preds, forced, costs, rows, errors = [], [], [], [], [], []
    for item in items:
        try:
            report = verify(Path(set_dir) / item["episode_dir"], item_keypoints(item, keypoint_source))
        except Exception as e:  # noqa: BLE001 - one broken episode or judge must not throw the run away
            errors.append({"id": item["id"], "error": f"{type(e).__name__}: {e}"})
            continue
        kept.append(item)
        preds.append(report.verdict)
        forced.append(getattr(report, "forced", "") or report.verdict)
        c = report.cost
        cost = {"calls": c.calls, "images": c.images, "tokens": c.tokens, "prompt_tokens": c.prompt_tokens,
                "seconds": c.seconds}  # fmt: skip
        costs.append(cost)
        rows.append({"id": item["id"], "verdict": report.verdict, "forced": forced[-1], "reason": report.reason,
                     **cost})
        if on_item is not None:
            on_item(item, report)
    return {**score(kept, preds, costs, forced=forced), "errors": errors, "predictions": rows}


def select_items(index: dict[str, Any], kinds: Sequence[str] | None = None) -> list[dict[str, Any]]:
    unknown = set(kinds or ()) - set(KIND_BY_NAME)
    if unknown:
        raise ValueError(f"Unknown episode kind {sorted(unknown)[0]!r}; known kinds: {', '.join(KIND_BY_NAME)}.")
    return [i for i in index["items"] if not kinds or i["kind"] in kinds]


def run_bench(set_dir: Path | str, judges: Sequence[Any], *, config: Any = None, keypoint_source: str = "goal",
              evidence: str = "generic", methods: Sequence[str] = ("sgv", "final_screenshot"),
              kinds: Sequence[str] | None = None, limit: int = 0,
              on_item: Callable[[str, dict[str, Any], Any], None] | None = None) -> dict[str, Any]:  # fmt: skip
    """SGV and, side by side, the other `methods` with the same judges, keypoints and evidence, over the set's
    items (those of `kinds` if given; the first `limit` if > 0). Returns SGV's metrics at the top level, each
    other method's under its name, the protocol, cost ratios against WebJudge and per-item verdicts."""
    import dataclasses

    from venuskit.verify.sgv import SGVConfig, verify_episode, verify_final_screenshot
    from venuskit.verify.webjudge import verify_webjudge

    if evidence not in EVIDENCE:
        raise ValueError(f"Unknown evidence mode {evidence!r}; use one of {', '.join(EVIDENCE)}.")
    item_keypoints({}, keypoint_source)  # validates the source before any work
    bad = [m for m in methods if m not in METHODS]
    if bad or "sgv" not in methods:
        raise ValueError(f"Methods must include sgv and come from {', '.join(METHODS)}; got {list(methods)}.")
    index = load_index(set_dir)
    items = select_items(index, kinds)
    items = items[:limit] if limit > 0 else items
    cfg = dataclasses.replace(config or SGVConfig(), evidence=evidence)
    verifiers: dict[str, Verify] = {
        "sgv": lambda d, kp: verify_episode(d, judges, config=cfg, keypoints=kp),
        "final_screenshot": lambda d, kp: verify_final_screenshot(d, judges, keypoints=kp, evidence=evidence),
        "webjudge": lambda d, kp: verify_webjudge(d, judges, keypoints=kp, evidence=evidence),
    }
    scored = {}
    for method in methods:
        progress = None if on_item is None else (lambda i, r, m=method: on_item(m, i, r))
        scored[method] = run_verifier(set_dir, items, verifiers[method], keypoint_source=keypoint_source,
                                      on_item=progress)  # fmt: skip
    result: dict[str, Any] = {**_public(scored["sgv"]), "set": str(set_dir), "set_kind": set_kind(index),
                              "split": index["request"].get("split", "?"), "set_counts": index["counts"],
                              "rejected": len(index["rejected"]), "keypoint_source": keypoint_source,
                              "evidence": evidence}  # fmt: skip
    for method in (m for m in methods if m != "sgv"):
        result["baseline" if method == "final_screenshot" else method] = _public(scored[method])
    result.update(vs_webjudge(set_dir, items, scored["sgv"]["predictions"], keypoint_source, evidence))
    per_item = {i["id"]: {} for i in items}
    for method, s in scored.items():
        for r in s["predictions"]:
            per_item[r["id"]][method] = r["verdict"]
            if r["forced"] != r["verdict"]:
                per_item[r["id"]][f"{method}_forced"] = r["forced"]
    result["items"] = [{"id": i["id"], "kind": i["kind"], "adversarial": i["adversarial"], "label": i["label"],
                        **{f: i[f] for f in ("family", "share") if f in i}, **per_item[i["id"]]}
                       for i in items]  # fmt: skip
    return result


def vs_webjudge(set_dir: Path | str, items: Sequence[dict[str, Any]], sgv_rows: Sequence[dict[str, Any]],
                keypoint_source: str, evidence: str) -> dict[str, Any]:  # fmt: skip
    """SGV's images and prompt tokens over WebJudge's on the same episodes and keypoints (totals, so the
    figure is the ratio of the per-episode means), and WebJudge's own per-episode figures."""
    from venuskit.verify.webjudge import webjudge_cost

    by_id = {i["id"]: i for i in items}
    wj_images, wj_tokens, sgv_images, sgv_tokens = [], [], [], []
    for row in sgv_rows:
        item = by_id[row["id"]]
        cost = webjudge_cost(Path(set_dir) / item["episode_dir"], item_keypoints(item, keypoint_source), evidence)
        wj_images.append(cost.images)
        wj_tokens.append(cost.prompt_tokens)
        sgv_images.append(row["images"])
        sgv_tokens.append(row["prompt_tokens"])
    return {"images_vs_webjudge": M.rounded(M.div(sum(sgv_images), sum(wj_images))),
            "tokens_vs_webjudge": M.rounded(M.div(sum(sgv_tokens), sum(wj_tokens))),
            "webjudge_cost": {"images": M.summary(wj_images), "prompt_tokens": M.summary(wj_tokens),
                              "note": "N+2 calls: key points (text), one call per screenshot, and a final call "
                                      "shown at least the final screen"}}  # fmt: skip


def set_kind(index: dict[str, Any]) -> str:
    return str(index.get("request", {}).get("set_kind", "world"))


def _public(scored: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in scored.items() if k != "predictions"}
