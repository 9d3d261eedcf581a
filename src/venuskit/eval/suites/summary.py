"""Suite summaries: rates with 95% Wilson intervals, broken down by group, and the cost of the episodes.

Rates count only episodes with a verdict; an episode whose infrastructure failed after its retries has none
and is counted under `infra_errors` instead (it says nothing about the policy).

World rates (each over the episodes of the group):
    success     the task is solved: contract `completed` on a feasible task, `infeasible` on an infeasible one
    partial     contract `partial`
    infeasible  contract `infeasible` (on infeasible tasks this is the right answer)
    completed   contract `completed`
An episode counts in every app its task touches (`by_app`), so app groups overlap.
"""

from __future__ import annotations

import statistics
from collections.abc import Callable, Iterable
from typing import Any

from venuskit.eval import metrics as M
from venuskit.tasks.contract import solved

VERDICTS = ("completed", "partial", "infeasible", "failed")
WORLD_GROUPS = ("app", "category", "horizon", "locale", "surface", "skins")  # skins: default / train / heldout


def rate(rows: list[dict[str, Any]], hit: Callable[[dict[str, Any]], bool]) -> dict[str, Any]:
    """k of n rows with a 95% Wilson interval."""
    k, n = sum(1 for r in rows if hit(r)), len(rows)
    low, high = M.wilson(k, n)
    return {"rate": M.rounded(M.div(k, n)), "ci95": [M.rounded(low), M.rounded(high)], "k": k, "n": n}


def spread(values: Iterable[float]) -> dict[str, float]:
    vals = [float(v) for v in values]
    if not vals:
        return {"mean": 0.0, "median": 0.0, "total": 0.0}
    return {"mean": M.rounded(statistics.fmean(vals)), "median": M.rounded(statistics.median(vals)),
            "total": M.rounded(sum(vals))}  # fmt: skip


def groups(rows: list[dict[str, Any]], field: str) -> dict[str, list[dict[str, Any]]]:
    """Rows by the value of `field` (a list value puts the row in each of its groups)."""
    out: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        values = r.get(field)
        for v in values if isinstance(values, list) else [values]:
            out.setdefault(str(v), []).append(r)
    return dict(sorted(out.items()))


def world_rates(rows: list[dict[str, Any]]) -> dict[str, Any]:
    return {"success": rate(rows, solved_row), "partial": rate(rows, lambda r: r["contract"] == "partial"),
            "infeasible": rate(rows, lambda r: r["contract"] == "infeasible"),
            "completed": rate(rows, lambda r: r["contract"] == "completed")}  # fmt: skip


def world_summary(rows: list[dict[str, Any]], total_jobs: int | None = None) -> dict[str, Any]:
    """The world suite's JSON summary (headline keys first: episodes, success, partial, infeasible,
    sgv_agreement, by_app, infra_errors)."""
    ok = [r for r in rows if not r.get("infra_error")]
    failed_infra = [r for r in rows if r.get("infra_error")]
    overall = world_rates(ok)
    by = {g: {name: {**world_rates(rs), "n": len(rs)} for name, rs in groups(ok, g if g != "app" else "apps").items()}
          for g in WORLD_GROUPS}  # fmt: skip
    sgv = sgv_agreement(ok)
    summary = {
        "episodes": len(ok), "success": overall["success"]["rate"], "partial": overall["partial"]["rate"],
        "infeasible": overall["infeasible"]["rate"], "sgv_agreement": sgv["agreement"],
        "by_app": {k: {"success": v["success"]["rate"], "ci95": v["success"]["ci95"], "n": v["n"]}
                   for k, v in by["app"].items()},
        "by_skins": {k: {"success": v["success"]["rate"], "ci95": v["success"]["ci95"], "n": v["n"]}
                     for k, v in by["skins"].items()},
        "infra_errors": len(failed_infra),
        "rates": overall, "by": by, "sgv": sgv, "verdicts": {v: sum(r["contract"] == v for r in ok) for v in VERDICTS},
        "steps": spread(r["steps"] for r in ok), "seconds": spread(r["seconds"] for r in ok),
        "model_calls": spread(r.get("model_calls", 0) for r in ok),
        "tokens": spread(r.get("prompt_tokens", 0) + r.get("completion_tokens", 0) for r in ok),
        "retried": sum(1 for r in rows if r.get("attempts", 1) > 1),
        "infra_failures": [{"key": r["key"], "error": r["infra_error"]} for r in failed_infra],
    }  # fmt: skip
    if total_jobs is not None:
        summary["missing"] = total_jobs - len(rows)
    return summary


def sgv_agreement(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """SGV's verdict against the contract's over the episodes both judged and SGV decided: agreement (4-way),
    Cohen's kappa, completed-vs-rest precision/recall, and the confusion matrix (rows: contract, columns: SGV);
    `coverage`: the share of judged episodes SGV decided (the rest it called `uncertain`)."""
    judged = [r for r in rows if r.get("sgv") and r["contract"] in VERDICTS]
    pairs = [(r["contract"], r["sgv"]["verdict"]) for r in judged if r["sgv"].get("verdict") in VERDICTS]
    uncertain = sum(r["sgv"].get("verdict") == "uncertain" for r in judged)
    if not pairs:
        return {"agreement": None, "n": 0, "uncertain": uncertain, "coverage": 0.0 if judged else None}
    labels, preds = [p[0] for p in pairs], [p[1] for p in pairs]
    agree = sum(y == p for y, p in pairs)
    low, high = M.wilson(agree, len(pairs))
    b = M.binary_scores(labels, preds, "completed")
    return {"agreement": M.rounded(agree / len(pairs)), "ci95": [M.rounded(low), M.rounded(high)], "n": len(pairs),
            "uncertain": uncertain, "coverage": M.rounded(M.div(len(pairs), len(judged))),
            "kappa": M.rounded(M.cohen_kappa(labels, preds, VERDICTS)),
            "completed_precision": M.rounded(b["precision"]), "completed_recall": M.rounded(b["recall"]),
            "confusion": {"classes": list(VERDICTS), "rows_contract_cols_sgv": M.confusion(labels, preds, VERDICTS)},
            "calls": spread(r["sgv"].get("calls", 0) for r in rows if r.get("sgv")),
            "seconds": spread(r["sgv"].get("seconds", 0) for r in rows if r.get("sgv"))}  # fmt: skip


def miniwob_summary(rows: list[dict[str, Any]], total_jobs: int | None = None) -> dict[str, Any]:
    """MiniWoB++: success (raw reward > 0, the MiniWoB++ convention) and mean raw reward, overall and per task."""
    ok = [r for r in rows if not r.get("infra_error")]
    success = rate(ok, lambda r: (r.get("reward") or 0.0) > 0)
    per_task = {name: {"success": rate(rs, lambda r: (r.get("reward") or 0.0) > 0)["rate"],
                       "reward": M.rounded(statistics.fmean([r.get("reward") or 0.0 for r in rs])), "n": len(rs)}
                for name, rs in groups(ok, "task").items()}  # fmt: skip
    task_means = [v["success"] for v in per_task.values()]
    summary = {
        "episodes": len(ok), "success": success["rate"], "success_ci95": success["ci95"],
        "task_mean_success": M.rounded(statistics.fmean(task_means)) if task_means else 0.0,
        "reward": M.rounded(statistics.fmean([r.get("reward") or 0.0 for r in ok])) if ok else 0.0,
        "tasks": len(per_task), "by_task": per_task, "infra_errors": len(rows) - len(ok),
        "steps": spread(r["steps"] for r in ok), "seconds": spread(r["seconds"] for r in ok),
        "model_calls": spread(r.get("model_calls", 0) for r in ok),
        "tokens": spread(r.get("prompt_tokens", 0) + r.get("completion_tokens", 0) for r in ok),
        "infra_failures": [{"key": r["key"], "error": r["infra_error"]} for r in rows if r.get("infra_error")],
    }  # fmt: skip
    if total_jobs is not None:
        summary["missing"] = total_jobs - len(rows)
    return summary


def solved_row(row: dict[str, Any]) -> bool:
    """A suite row's task is solved (`venuskit.tasks.contract.solved` of its contract verdict)."""
    return solved(row.get("contract"), bool(row.get("feasible", True)))
