"""venuskit.eval.metrics, checked against hand-computed examples and an independent count."""

from __future__ import annotations

import random

import pytest

from venuskit.eval import metrics as M

# ---- a worked example ----------------------------------------------------------------------------
#
#   i   label       prediction
#   0   completed   completed
#   1   completed   completed
#   2   completed   failed
#   3   partial     completed
#   4   partial     partial
#   5   infeasible  infeasible
#   6   failed      failed
#   7   failed      completed
#   8   failed      failed
#   9   failed      partial
#
# completed vs rest: TP 2 (0,1), FN 1 (2), FP 2 (3,7), TN 5 -> precision 1/2, recall 2/3, F1 4/7, FPR 2/7.
# 4-way: observed agreement 6/10; row sums 3,2,1,4 and column sums 4,2,1,3 -> chance (12+4+1+12)/100 = .29,
# kappa = (.6-.29)/(1-.29) = 31/71. Per-class F1: completed 4/7, partial 1/2, infeasible 1, failed 4/7
# -> macro (8/7 + 3/2)/4 = 37/56.

CLASSES = ("completed", "partial", "infeasible", "failed")
LABELS = ["completed"] * 3 + ["partial"] * 2 + ["infeasible"] + ["failed"] * 4
PREDS = ["completed", "completed", "failed", "completed", "partial", "infeasible", "failed", "completed", "failed",
         "partial"]  # fmt: skip


def test_confusion_rows_are_labels_and_columns_predictions():
    assert M.confusion(LABELS, PREDS, CLASSES) == [[2, 0, 0, 1], [1, 1, 0, 0], [0, 0, 1, 0], [1, 1, 0, 2]]
    # without classes: order of first appearance over labels, then predictions
    assert M.classes_of(LABELS, PREDS) == list(CLASSES)
    with pytest.raises(ValueError, match="must be in"):
        M.confusion(["completed"], ["error"], CLASSES)
    with pytest.raises(ValueError):
        M.confusion(["completed"], [], CLASSES)  # lengths must match


def test_binary_scores_by_hand():
    s = M.binary_scores(LABELS, PREDS, "completed")
    assert (s["tp"], s["fp"], s["fn"], s["tn"]) == (2, 2, 1, 5)
    assert s["precision"] == pytest.approx(1 / 2) and s["recall"] == pytest.approx(2 / 3)
    assert s["f1"] == pytest.approx(4 / 7) and s["fpr"] == pytest.approx(2 / 7)
    assert M.prf(0, 0, 3) == {"precision": 0.0, "recall": 0.0, "f1": 0.0, "fpr": 0.0}  # never positive: 0, no error


def test_kappa_macro_f1_accuracy_by_hand():
    assert M.cohen_kappa(LABELS, PREDS, CLASSES) == pytest.approx(31 / 71)
    assert M.macro_f1(LABELS, PREDS, CLASSES) == pytest.approx(37 / 56)
    assert M.accuracy(LABELS, PREDS) == pytest.approx(0.6)
    pc = M.per_class(LABELS, PREDS, CLASSES)
    assert pc["partial"] == {"precision": 0.5, "recall": 0.5, "f1": 0.5, "support": 2}
    assert pc["infeasible"]["f1"] == 1.0


def test_edge_cases():
    assert M.cohen_kappa(["failed"] * 3, ["failed"] * 3) == 1.0  # one class on both sides, all agree
    assert M.cohen_kappa(["completed", "failed"], ["failed", "completed"]) == pytest.approx(-1.0)
    assert M.cohen_kappa([], []) == 0.0
    assert M.macro_f1(["failed", "failed"], ["failed", "failed"], CLASSES) == 1.0  # absent classes not averaged
    assert M.macro_f1([], []) == 0.0
    assert M.div(3, 0) == 0.0


def _kappa_by_counting(y, p):
    """Kappa written the long way, from per-class counts (an independent check of the matrix arithmetic)."""
    n = len(y)
    observed = sum(a == b for a, b in zip(y, p, strict=True)) / n
    chance = sum((y.count(c) / n) * (p.count(c) / n) for c in set(y) | set(p))
    return (observed - chance) / (1 - chance)


def test_kappa_and_confusion_on_random_labels():
    rng = random.Random(3)
    for _ in range(20):
        y = [rng.choice(CLASSES) for _ in range(60)]
        p = [rng.choice(CLASSES) for _ in range(60)]
        assert M.cohen_kappa(y, p, CLASSES) == pytest.approx(_kappa_by_counting(y, p))
        matrix = M.confusion(y, p, CLASSES)
        assert sum(map(sum, matrix)) == 60 and [sum(r) for r in matrix] == [y.count(c) for c in CLASSES]
        assert M.accuracy(y, p) == pytest.approx(sum(matrix[i][i] for i in range(4)) / 60)


# ---- intervals -----------------------------------------------------------------------------------


def test_wilson_interval_known_values():
    # 10/10: the interval does not reach 1 - 0 width; its lower end is n/(n+z^2) = 10/13.8415 = 0.7225
    lo, hi = M.wilson(10, 10)
    assert lo == pytest.approx(0.7225, abs=1e-4) and hi == pytest.approx(1.0)
    lo, hi = M.wilson(0, 10)
    assert lo == 0.0 and hi == pytest.approx(0.2775, abs=1e-4)
    # 50/100: centre 0.5, half-width z*sqrt(.25/100 + z^2/40000)/(1 + z^2/100) = 0.0962
    lo, hi = M.wilson(50, 100)
    assert (lo + hi) / 2 == pytest.approx(0.5) and hi - lo == pytest.approx(2 * 0.0962, abs=1e-3)
    assert M.wilson(0, 0) == (0.0, 1.0)
    with pytest.raises(ValueError, match="successes"):
        M.wilson(5, 3)


def test_bootstrap_is_seeded_paired_and_covers_the_estimate():
    ci = M.bootstrap(M.accuracy, LABELS, PREDS, n_boot=500, seed=1)
    assert ci == M.bootstrap(M.accuracy, LABELS, PREDS, n_boot=500, seed=1)  # same seed, same interval
    assert ci[0] <= 0.6 <= ci[1] and ci[0] < ci[1]
    # a paired difference of a verifier with itself is exactly zero in every resample
    same = M.bootstrap(lambda y, a, b: M.accuracy(y, a) - M.accuracy(y, b), LABELS, PREDS, PREDS, n_boot=200)
    assert same == (0.0, 0.0)
    # a constant statistic has a zero-width interval; more data narrows an interval
    wide = M.bootstrap(M.accuracy, LABELS, PREDS, n_boot=400)
    narrow = M.bootstrap(M.accuracy, LABELS * 10, PREDS * 10, n_boot=400)
    assert narrow[1] - narrow[0] < wide[1] - wide[0]
    with pytest.raises(ValueError, match="equal lengths"):
        M.bootstrap(M.accuracy, LABELS, PREDS[:3])
    with pytest.raises(ValueError, match="non-empty"):
        M.bootstrap(M.accuracy, [], [])


def test_summary():
    assert M.summary([1, 3, 2]) == {"median": 2, "mean": 2, "total": 6}
    assert M.summary([]) == {"median": 0.0, "mean": 0.0, "total": 0.0}
