"""The flywheel's figures drawn for an HTML report: the scaling curve (held-out and validation short success against
the number of training tasks), the axes ablation (each of the report's three axes turned down alone against the
full recipe), held-out against default skins, the loop's rounds and the stage ablation. Every success rate is drawn
with its 95% Wilson interval; a figure that was not measured says so instead of drawing nothing.

    page_part = figures_html(report["figures"])   # <h2> sections with inline PNGs
    png = rounds_png(table)                       # the loop's round table as one plot (rounds.html)
"""

from __future__ import annotations

import html
from collections.abc import Mapping, Sequence
from typing import Any

from venuskit.eval.metrics import wilson
from venuskit.eval.report import png_data_url, pyplot

Rate = tuple[float, float, float, int]  # rate, low, high, n


def rate_of(figure: Any, n: int | None = None) -> Rate | None:
    """A success figure as (rate, low, high, n): a suite summary ({success, n, ci95}), or a bare rate with its n
    (the interval then computed from the count). None when it was not measured."""
    if figure is None:
        return None
    if isinstance(figure, Mapping):
        value, n = figure.get("success", figure.get("world_short_success")), figure.get("n", n)
        if value is None:
            return None
        ci = figure.get("ci95")
        if ci is not None and n is not None:
            return float(value), float(ci[0]), float(ci[1]), int(n)
        figure = value
    if n is None or n <= 0:
        return float(figure), float(figure), float(figure), 0
    low, high = wilson(round(float(figure) * n), n)
    return float(figure), low, high, int(n)


def _errorbar(ax: Any, xs: Sequence[float], rates: Sequence[Rate | None], label: str, marker: str) -> None:
    pts = [(x, r) for x, r in zip(xs, rates, strict=True) if r is not None]
    if not pts:
        return
    ax.errorbar([x for x, _ in pts], [r[0] for _, r in pts], yerr=[[r[0] - r[1] for _, r in pts],
                [r[2] - r[0] for _, r in pts]], marker=marker, capsize=3, label=label)  # fmt: skip


def scaling_png(points: Sequence[Mapping[str, Any]]) -> str:
    """Held-out and validation short success against the number of training tasks (log axis)."""
    plt = pyplot()
    fig, ax = plt.subplots(figsize=(6.5, 3.6))
    xs = [p["tasks"] for p in points]
    _errorbar(ax, xs, [rate_of(p.get("heldout_short")) for p in points], "held-out short", "o")
    _errorbar(ax, xs, [rate_of(p.get("validation_short")) for p in points], "validation short", "s")
    forced = [(x, p["validation_teacher_forced"]["step_acc"]) for x, p in zip(xs, points, strict=True)
              if (p.get("validation_teacher_forced") or {}).get("step_acc") is not None]  # fmt: skip
    if forced:  # no interval: the states are not independent draws (a template's states move together)
        ax.plot([x for x, _ in forced], [a for _, a in forced], "^--", color="gray",
                label="validation states, teacher-forced step accuracy")  # fmt: skip
    ax.set_xscale("log")
    ax.set_xticks(xs, [str(x) for x in xs])
    ax.xaxis.set_minor_formatter(plt.NullFormatter())  # the log axis's own labels would overlap the points'
    ax.set_xlabel("training tasks (hand-written templates, then synthesised tasks added)")
    ax.set_ylabel("success (contract, 95% CI) / accuracy")
    ax.set_ylim(-0.05, 1.05)
    ax.legend(fontsize=8, loc="center left", bbox_to_anchor=(1.01, 0.5))
    return png_data_url(fig)


def bars_png(groups: Mapping[str, Rate | None], title: str) -> str:
    """One bar per group with its interval; a group not measured is drawn empty and labelled so."""
    plt = pyplot()
    names = list(groups)
    fig, ax = plt.subplots(figsize=(6.5, 0.5 * len(names) + 1.2))
    vals = [groups[n][0] if groups[n] else 0.0 for n in names]
    lows = [groups[n][0] - groups[n][1] if groups[n] else 0.0 for n in names]
    highs = [groups[n][2] - groups[n][0] if groups[n] else 0.0 for n in names]
    ax.barh(names, vals, xerr=[lows, highs], color="#2563eb", ecolor="#57606a", capsize=3)
    ax.set_xlim(0, 1)
    ax.invert_yaxis()
    ax.set_title(title, fontsize=10)
    for i, n in enumerate(names):
        note = f"n={groups[n][3]}" if groups[n] else "not measured"
        ax.text(1.01, i, note, va="center", fontsize=8, transform=ax.get_yaxis_transform())
    return png_data_url(fig)


def axes_groups(axes: Mapping[str, Any]) -> dict[str, Rate | None]:
    """Held-out short success of the full recipe and of each axis turned down alone."""
    names = {"full": "full recipe", "environments": "environments down (one skin)",
             "tasks": "tasks down (hand-written templates)"}  # fmt: skip
    groups = {label: rate_of((axes.get(key) or {}).get("heldout_short")) for key, label in names.items()}
    verification = axes.get("verification") or {}
    for key, label in (("sgv_kept", "loop, SGV-kept rows"), ("unfiltered", "verification down (unfiltered)")):
        row = verification.get(key)
        groups[label] = rate_of(row["heldout_short"], row.get("n")) if row else None
    return groups


def rounds_png(table: Sequence[Mapping[str, Any]]) -> str:
    """The loop's rounds: held-out success with its interval, rollout success, SGV's precision on its own picks,
    validation success and step accuracy, and each measured judge's precision and recall."""
    plt = pyplot()
    xs = [r["round"] for r in table]
    fig, ax = plt.subplots(figsize=(6.5, 3.6))
    held = [rate_of({"success": r.get("eval_success"), "n": r.get("eval_episodes"), "ci95": r.get("eval_ci95")})
            for r in table]  # fmt: skip
    _errorbar(ax, xs, held, "held-out success (contract, 95% CI)", "o")
    lines = (("rollout_success", "s", "rollout success (train templates)"),
             ("sgv_precision", "^", "SGV precision of kept successes"),
             ("validation_success", "P", "validation short success"),
             ("val_step_acc", "d", "validation step accuracy (teacher-forced)"),
             ("judge_bench_precision", "v", "judge on held-out set: precision"),
             ("judge_bench_recall", ">", "judge on held-out set: recall"),
             ("judge_miniwob_precision", "<", "judge on MiniWoB++: precision"),
             ("judge_miniwob_recall", "x", "judge on MiniWoB++: recall"))  # fmt: skip
    for key, mark, name in lines:
        if any(r.get(key) is not None for r in table):
            ax.plot(xs, [r[key] if r.get(key) is not None else float("nan") for r in table], marker=mark,
                    linestyle="--" if key.startswith("judge") else "-", label=name)  # fmt: skip
    ax.set_xlabel("round")
    ax.set_ylim(-0.05, 1.05)
    ax.set_xticks(xs)
    ax.legend(fontsize=7, loc="center left", bbox_to_anchor=(1.01, 0.5))  # beside the plot: never over a curve
    return png_data_url(fig)


def figures_html(figures: Mapping[str, Any]) -> str:
    """The curves and ablations of a venus-nano report (`benchmarks/nano.py`'s figures) as HTML sections."""
    parts = []

    def section(title: str, made: str | None, why: str) -> None:
        body = f'<img alt="{html.escape(title)}" src="{made}">' if made else f"<p>Not measured: {html.escape(why)}</p>"
        parts.append(f"<h2>{html.escape(title)}</h2>{body}")

    scaling = figures.get("scaling") or []
    section("Scaling: success against training tasks", scaling_png(scaling) if len(scaling) >= 2 else None,
            "no scaling curve (benchmarks/nano.py --curves DIR).")  # fmt: skip
    axes = figures.get("axes")
    section("Axes: each turned down alone", bars_png(axes_groups(axes), "held-out short success (95% CI)")
            if axes else None, "no axes ablation (--curves, --loop with --loop-unfiltered).")  # fmt: skip
    skins = figures.get("skins")
    section("Skins: default against held-out skins", bars_png({"default skin": rate_of(skins.get("default")),
            "held-out skins": rate_of(skins.get("heldout"))}, "held-out short success (95% CI)") if skins else None,
            "no skins figure (--skins K).")  # fmt: skip
    rounds = figures.get("rounds") or []
    section("Loop rounds", rounds_png(rounds) if rounds else None, "no loop (--loop DIR).")
    ablation = figures.get("ablation") or {}
    section("Stage ablation", bars_png({s: rate_of(v) for s, v in ablation.items()},
            "held-out short success by stage (95% CI)") if ablation else None, "no ablation (--run DIR).")  # fmt: skip
    return "".join(parts)
