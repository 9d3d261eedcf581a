"""Scoring verdicts against the set's labels (pure; the arithmetic is `venuskit.eval.metrics`).

completed-vs-rest precision / recall / F1 / FPR with Wilson intervals, Cohen's kappa and macro-F1 over the four
verdicts with bootstrap intervals, the 4x4 confusion matrix, the share of adversarial episodes not called
completed (overall and per kind), and cost per episode (model calls, images, prompt tokens, seconds).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from venuskit.eval import metrics as M
from venuskit.eval.verify_bench.kinds import LABELS

COST_FIELDS = ("calls", "images", "tokens", "prompt_tokens", "seconds")


def adversarial_catch(adversarial: Sequence[bool], preds: Sequence[str]) -> float:
    """Share of adversarial episodes (all of which are not completed) that the verifier did not call completed."""
    caught = [p != "completed" for a, p in zip(adversarial, preds, strict=True) if a]
    return M.div(sum(caught), len(caught))


def cost_summary(costs: Sequence[dict[str, float]]) -> dict[str, dict[str, float]]:
    """Median, mean and total per episode of each cost field."""
    return {f: M.summary([c.get(f, 0) for c in costs]) for f in COST_FIELDS}


def _interval(ci: tuple[float, float]) -> list[float]:
    return [M.rounded(ci[0]), M.rounded(ci[1])]


def score(items: Sequence[dict[str, Any]], preds: Sequence[str], costs: Sequence[dict[str, float]], *,
          n_boot: int = 500) -> dict[str, Any]:  # fmt: skip
    """Every bench metric for one verifier over the labelled items (in item order)."""
    labels = [i["label"] for i in items]
    b = M.binary_scores(labels, preds, "completed")
    by_kind: dict[str, dict[str, int]] = {}
    for item, p in zip(items, preds, strict=True):
        row = by_kind.setdefault(item["kind"], {"n": 0, "correct": 0, "called_completed": 0})
        row["n"] += 1
        row["correct"] += p == item["label"]
        row["called_completed"] += p == "completed"
    adversarial = [bool(i.get("adversarial")) for i in items]
    ci = {"precision": _interval(M.wilson(b["tp"], b["tp"] + b["fp"])),
          "recall": _interval(M.wilson(b["tp"], b["tp"] + b["fn"])),
          "adversarial_catch": _interval(M.wilson(sum(a and p != "completed" for a, p in zip(adversarial, preds,
                                                                                           strict=True)),
                                                  sum(adversarial)))}  # fmt: skip
    if items:
        ci["kappa"] = _interval(M.bootstrap(lambda y, p: M.cohen_kappa(y, p, LABELS), labels, list(preds),
                                            n_boot=n_boot))  # fmt: skip
        ci["macro_f1_4way"] = _interval(M.bootstrap(lambda y, p: M.macro_f1(y, p, LABELS), labels, list(preds),
                                                    n_boot=n_boot))  # fmt: skip
    return {"n_episodes": len(items), "n_completed": labels.count("completed"),
            "precision": M.rounded(b["precision"]), "recall": M.rounded(b["recall"]), "f1": M.rounded(b["f1"]),
            "fpr": M.rounded(b["fpr"]), "kappa": M.rounded(M.cohen_kappa(labels, preds, LABELS)),
            "macro_f1_4way": M.rounded(M.macro_f1(labels, preds, LABELS)),
            "accuracy": M.rounded(M.accuracy(labels, preds)),
            "adversarial_catch": M.rounded(adversarial_catch(adversarial, preds)),
            "n_adversarial": sum(adversarial), "ci95": ci,
            "confusion": {"classes": list(LABELS), "rows_true_cols_pred": M.confusion(labels, preds, LABELS)},
            "cost": cost_summary(costs), "by_kind": by_kind}  # fmt: skip
