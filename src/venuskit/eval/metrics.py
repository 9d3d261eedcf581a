"""The one metrics module of venuskit's evaluations: confusion matrices, precision / recall / F1, Cohen's kappa,
macro-F1, and confidence intervals (Wilson for a proportion, percentile bootstrap for any statistic).

Pure functions over label sequences; no numpy needed. Conventions, stated once:
- a ratio with an empty denominator is 0.0 (precision of a classifier that never says "positive");
- `confusion` rows are the true labels and columns the predictions, both in `classes` order;
- `macro_f1` averages the classes that occur in the labels or the predictions (as scikit-learn does);
- a bootstrap is seeded, so a report re-run on the same data gives the same interval.

    from venuskit.eval import metrics as M
    M.binary_scores(labels, preds, positive="completed")["precision"]
    M.wilson(tp, tp + fp)                      # (low, high) at 95%
    M.bootstrap(M.cohen_kappa, labels, preds)  # (low, high) at 95%
"""

from __future__ import annotations

import math
import random
import statistics
from collections.abc import Callable, Hashable, Sequence
from typing import Any

Z95 = 1.959963984540054  # the standard normal's 97.5% quantile


def div(num: float, den: float) -> float:
    """num/den, and 0.0 for an empty denominator (the usual convention for precision with no positives)."""
    return num / den if den else 0.0


def rounded(x: float, places: int = 4) -> float:
    """A figure as reports print it."""
    return round(float(x), places)


def classes_of(*seqs: Sequence[Hashable]) -> list[Hashable]:
    """The distinct values of the sequences, in order of first appearance."""
    return list(dict.fromkeys(v for seq in seqs for v in seq))


def confusion(labels: Sequence[Hashable], preds: Sequence[Hashable],
              classes: Sequence[Hashable] | None = None) -> list[list[int]]:  # fmt: skip
    """Rows: the true label; columns: the prediction, both in `classes` order (default: order of appearance).
    A label or prediction outside `classes` is a ValueError, never silently dropped."""
    classes = list(classes) if classes is not None else classes_of(labels, preds)
    pos = {c: i for i, c in enumerate(classes)}
    matrix = [[0] * len(classes) for _ in classes]
    for y, p in zip(labels, preds, strict=True):
        if y not in pos or p not in pos:
            raise ValueError(f"Labels and predictions must be in {list(classes)}; got {y!r} -> {p!r}.")
        matrix[pos[y]][pos[p]] += 1
    return matrix


def counts(labels: Sequence[Hashable], preds: Sequence[Hashable], positive: Hashable) -> dict[str, int]:
    """tp / fp / fn / tn of `positive` against every other value."""
    pairs = list(zip(labels, preds, strict=True))
    tp = sum(y == positive and p == positive for y, p in pairs)
    fp = sum(y != positive and p == positive for y, p in pairs)
    fn = sum(y == positive and p != positive for y, p in pairs)
    return {"tp": tp, "fp": fp, "fn": fn, "tn": len(pairs) - tp - fp - fn}


def prf(tp: int, fp: int, fn: int, tn: int = 0) -> dict[str, float]:
    """Precision, recall, F1 and false-positive rate from counts."""
    precision, recall = div(tp, tp + fp), div(tp, tp + fn)
    return {"precision": precision, "recall": recall, "f1": div(2 * precision * recall, precision + recall),
            "fpr": div(fp, fp + tn)}  # fmt: skip


def binary_scores(labels: Sequence[Hashable], preds: Sequence[Hashable], positive: Hashable) -> dict[str, Any]:
    """Precision, recall, F1 and false-positive rate of `positive` against every other value, with the counts."""
    c = counts(labels, preds, positive)
    return {**prf(c["tp"], c["fp"], c["fn"], c["tn"]), **c}


def accuracy(labels: Sequence[Hashable], preds: Sequence[Hashable]) -> float:
    return div(sum(y == p for y, p in zip(labels, preds, strict=True)), len(labels))


def cohen_kappa(labels: Sequence[Hashable], preds: Sequence[Hashable],
                classes: Sequence[Hashable] | None = None) -> float:  # fmt: skip
    """Cohen's kappa: agreement beyond what the two marginal distributions give by chance."""
    matrix = confusion(labels, preds, classes)
    n = sum(map(sum, matrix))
    if n == 0:
        return 0.0
    k = len(matrix)
    observed = sum(matrix[i][i] for i in range(k)) / n
    chance = sum(sum(matrix[i]) * sum(row[i] for row in matrix) for i in range(k)) / n**2
    if chance == 1.0:  # both sides used one and the same class throughout
        return 1.0 if observed == 1.0 else 0.0
    return (observed - chance) / (1 - chance)


def macro_f1(labels: Sequence[Hashable], preds: Sequence[Hashable],
             classes: Sequence[Hashable] | None = None) -> float:  # fmt: skip
    """Mean per-class F1 over the classes (of `classes`, default all) that occur in the labels or predictions."""
    seen = set(labels) | set(preds)
    present = [c for c in (classes if classes is not None else classes_of(labels, preds)) if c in seen]
    return statistics.fmean(binary_scores(labels, preds, c)["f1"] for c in present) if present else 0.0


def per_class(labels: Sequence[Hashable], preds: Sequence[Hashable],
              classes: Sequence[Hashable] | None = None) -> dict[Hashable, dict[str, Any]]:  # fmt: skip
    """Precision, recall, F1 and support of each class."""
    out = {}
    for c in classes if classes is not None else classes_of(labels, preds):
        s = binary_scores(labels, preds, c)
        out[c] = {"precision": s["precision"], "recall": s["recall"], "f1": s["f1"], "support": s["tp"] + s["fn"]}
    return out


# ---- confidence intervals ------------------------------------------------------------------------


def wilson(successes: int, n: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval of a proportion (successes out of n); (0.0, 1.0) when n is 0. Unlike the
    normal approximation it stays inside [0, 1] and is honest at 0/n and n/n (a precision of 10/10 is not
    a certainty: its 95% interval starts at 0.72)."""
    if n < 0 or not 0 <= successes <= n:
        raise ValueError(f"A proportion needs 0 <= successes <= n; got {successes} of {n}.")
    if n == 0:
        return (0.0, 1.0)
    p = successes / n
    centre = (p + z * z / (2 * n)) / (1 + z * z / n)
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
    return (max(0.0, centre - half), min(1.0, centre + half))


def bootstrap(stat: Callable[..., float], *columns: Sequence[Any], n_boot: int = 1000, level: float = 0.95,
              seed: int = 0) -> tuple[float, float]:  # fmt: skip
    """Percentile bootstrap interval of `stat(*columns)`: the rows (one element of each column) are resampled
    with replacement `n_boot` times. Paired by construction: resampling rows keeps each label with its
    predictions, so `bootstrap(lambda y, a, b: f(y, a) - f(y, b), labels, preds_a, preds_b)` compares two
    verifiers on the same episodes."""
    if not columns or not columns[0]:
        raise ValueError("bootstrap needs at least one non-empty column.")
    n = len(columns[0])
    if any(len(c) != n for c in columns):
        raise ValueError(f"bootstrap columns must have equal lengths; got {[len(c) for c in columns]}.")
    if not 0 < level < 1 or n_boot < 1:
        raise ValueError(f"bootstrap needs 0 < level < 1 and n_boot >= 1; got level={level}, n_boot={n_boot}.")
    rng = random.Random(seed)
    values = []
    for _ in range(n_boot):
        rows = [rng.randrange(n) for _ in range(n)]
        values.append(stat(*([c[i] for i in rows] for c in columns)))
    values.sort()
    lo = values[int(math.floor((1 - level) / 2 * (n_boot - 1)))]
    hi = values[int(math.ceil((1 + level) / 2 * (n_boot - 1)))]
    return (lo, hi)


def summary(values: Sequence[float]) -> dict[str, float]:
    """Median, mean and total of per-item figures (a cost per episode, seconds per step); zeros when empty."""
    if not values:
        return {"median": 0.0, "mean": 0.0, "total": 0.0}
    return {"median": rounded(statistics.median(values)), "mean": rounded(statistics.fmean(values)),
            "total": rounded(sum(values))}  # fmt: skip
