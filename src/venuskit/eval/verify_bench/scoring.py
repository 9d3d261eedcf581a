"""Scoring verdicts against the set's labels (pure; the arithmetic is `venuskit.eval.metrics`).

A verifier may say `uncertain` (SGV: no rule and no judge could decide a keypoint on which completion hinges).
Two views of the same run:
- decided: `coverage` (share of episodes given a decided verdict) and precision / recall / F1 of `completed` on the
  decided episodes only (`decided`), which is what a user who routes the uncertain ones elsewhere gets;
- forced: every uncertain episode takes the verdict SGV gives when forced to choose (open keypoints as not met):
  completed-vs-rest precision / recall / F1 / FPR with Wilson intervals, Cohen's kappa and macro-F1 over the four
  verdicts with bootstrap intervals, the 4x4 confusion matrix (the top-level figures, comparable with earlier runs).
Both ways: the adversarial episodes not called completed (`adversarial_catch`; an uncertain one is not accepted)
and those called completed (`adversarial_false_completed`), overall and per kind; per family and per share of the
set when its items name them; cost per episode (model calls, images, prompt tokens, seconds).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from venuskit.eval import metrics as M
from venuskit.eval.verify_bench.kinds import LABELS
from venuskit.verify.report import UNCERTAIN

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
          forced: Sequence[str] | None = None, n_boot: int = 500) -> dict[str, Any]:  # fmt: skip
    """Every bench metric for one verifier over the labelled items (in item order). `preds`: the verdicts given
    (`uncertain` included); `forced`: the decided verdict of each when forced to choose (default: `preds`)."""
    forced = list(forced) if forced is not None else list(preds)
    labels = [i["label"] for i in items]
    b = M.binary_scores(labels, forced, "completed")
    adversarial = [bool(i.get("adversarial")) for i in items]
    caught = sum(a and p != "completed" for a, p in zip(adversarial, preds, strict=True))
    ci = {"precision": _interval(M.wilson(b["tp"], b["tp"] + b["fp"])),
          "recall": _interval(M.wilson(b["tp"], b["tp"] + b["fn"])),
          "adversarial_catch": _interval(M.wilson(caught, sum(adversarial)))}  # fmt: skip
    if items:
        ci["kappa"] = _interval(M.bootstrap(lambda y, p: M.cohen_kappa(y, p, LABELS), labels, forced,
                                            n_boot=n_boot))  # fmt: skip
        ci["macro_f1_4way"] = _interval(M.bootstrap(lambda y, p: M.macro_f1(y, p, LABELS), labels, forced,
                                                    n_boot=n_boot))  # fmt: skip
    return {"n_episodes": len(items), "n_completed": labels.count("completed"),
            "precision": M.rounded(b["precision"]), "recall": M.rounded(b["recall"]), "f1": M.rounded(b["f1"]),
            "fpr": M.rounded(b["fpr"]), "kappa": M.rounded(M.cohen_kappa(labels, forced, LABELS)),
            "macro_f1_4way": M.rounded(M.macro_f1(labels, forced, LABELS)),
            "accuracy": M.rounded(M.accuracy(labels, forced)),
            "adversarial_catch": M.rounded(adversarial_catch(adversarial, preds)),
            "adversarial_false_completed": M.rounded(M.div(sum(adversarial) - caught, sum(adversarial))),
            "n_adversarial": sum(adversarial), "ci95": ci,
            "coverage": M.rounded(M.div(sum(p != UNCERTAIN for p in preds), len(preds))),
            "n_uncertain": sum(p == UNCERTAIN for p in preds), "decided": decided_scores(labels, preds),
            "confusion": {"classes": list(LABELS), "rows_true_cols_pred": M.confusion(labels, forced, LABELS)},
            "cost": cost_summary(costs), "by_kind": _by(items, preds, "kind"),
            **{f"by_{f}": _by(items, preds, f) for f in ("family", "share") if any(f in i for i in items)},
            }  # fmt: skip


def decided_scores(labels: Sequence[str], preds: Sequence[str]) -> dict[str, Any]:
    """Precision / recall / F1 of `completed` on the episodes given a decided verdict, with Wilson intervals."""
    kept = [(y, p) for y, p in zip(labels, preds, strict=True) if p != UNCERTAIN]
    b = M.binary_scores([y for y, _ in kept], [p for _, p in kept], "completed")
    return {"n": len(kept), "n_completed": sum(y == "completed" for y, _ in kept),
            "precision": M.rounded(b["precision"]), "recall": M.rounded(b["recall"]), "f1": M.rounded(b["f1"]),
            "ci95": {"precision": _interval(M.wilson(b["tp"], b["tp"] + b["fp"])),
                     "recall": _interval(M.wilson(b["tp"], b["tp"] + b["fn"]))}}  # fmt: skip


def _by(items: Sequence[dict[str, Any]], preds: Sequence[str], field: str) -> dict[str, dict[str, Any]]:
    """Per value of an item field (kind, family, share): episodes, labelled completed, verdicts right (decided and
    matching the label), called completed, uncertain, coverage, and precision / recall of completed on decided."""
    groups: dict[str, list[tuple[dict[str, Any], str]]] = {}
    for item, p in zip(items, preds, strict=True):
        groups.setdefault(str(item.get(field, "?")), []).append((item, p))
    out = {}
    for key, rows in sorted(groups.items()):
        labels, got = [i["label"] for i, _ in rows], [p for _, p in rows]
        adv = [p for i, p in rows if i.get("adversarial")]
        d = decided_scores(labels, got)
        out[key] = {"n": len(rows), "n_completed": labels.count("completed"),
                    "correct": sum(p == y for y, p in zip(labels, got, strict=True)),
                    "called_completed": got.count("completed"), "uncertain": got.count(UNCERTAIN),
                    "coverage": M.rounded(M.div(len(got) - got.count(UNCERTAIN), len(got))),
                    "precision_decided": d["precision"], "recall_decided": d["recall"],
                    "n_adversarial": len(adv), "adversarial_false_completed": adv.count("completed")}  # fmt: skip
    return out
