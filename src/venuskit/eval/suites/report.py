"""A suite's report: `report.json` (summary + one row per episode) and one self-contained `report.html` with
matplotlib plots (embedded as PNG data URLs), the headline figures, and a table of every episode with a link to
its viewer page (relative, so the run folder can be moved or served as is).
"""

from __future__ import annotations

import html
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

from venuskit.eval.report import png_data_url, pyplot
from venuskit.infra.atomic import write_json, write_text

_CSS = """body{font:14px/1.45 system-ui,'DejaVu Sans',sans-serif;margin:24px auto;max-width:1100px;color:#1f2328}
h1{font-size:22px}h2{font-size:16px;margin:26px 0 8px}.head{display:flex;flex-wrap:wrap;gap:10px 26px;
padding:12px 16px;background:#f6f8fa;border:1px solid #d0d7de;border-radius:8px}.head b{display:block;font-size:20px}
table{border-collapse:collapse;font-size:12px;width:100%}td,th{border-bottom:1px solid #d0d7de;padding:3px 6px;
text-align:left}.ok{color:#1a7f37}.bad{color:#cf222e}.mid{color:#9a6700}img{max-width:100%}
pre{background:#f6f8fa;padding:10px;border-radius:6px;overflow:auto;font-size:12px}"""
_CLASS = {"completed": "ok", "infeasible": "ok", "partial": "mid", "failed": "bad", "error": "bad", "uncertain": "mid"}


def write_suite_report(out: Path, title: str, summary: Mapping[str, Any], rows: list[dict[str, Any]],
                       config: Mapping[str, Any]) -> tuple[Path, Path]:  # fmt: skip
    """Write report.json and report.html into `out`; returns their paths."""
    out = Path(out)
    report_json = write_json(out / "report.json", {"summary": summary, "config": config, "rows": rows},
                             durable=False)  # fmt: skip
    plots = _world_plots(summary) if "by" in summary else _miniwob_plots(summary)
    page = _page(title, summary, rows, config, plots)
    return report_json, write_text(out / "report.html", page, durable=False)


# ---- plots ---------------------------------------------------------------------------------------------


def _rate_bars(ax: Any, groups: Mapping[str, Mapping[str, Any]], key: str, title: str) -> None:
    names = list(groups)
    vals = [groups[n][key]["rate"] for n in names]
    lows = [v - groups[n][key]["ci95"][0] for n, v in zip(names, vals, strict=True)]
    highs = [groups[n][key]["ci95"][1] - v for n, v in zip(names, vals, strict=True)]
    ax.barh(names, vals, xerr=[lows, highs], color="#2563eb", ecolor="#57606a", capsize=3)
    ax.set_xlim(0, 1)
    ax.invert_yaxis()
    ax.set_title(title, fontsize=10)
    for i, n in enumerate(names):
        ax.text(1.01, i, f"n={groups[n]['n']}", va="center", fontsize=8, transform=ax.get_yaxis_transform())


def _world_plots(summary: Mapping[str, Any]) -> list[tuple[str, str]]:
    plt = pyplot()
    plots = []
    by = summary["by"]
    for group in ("app", "category", "horizon", "locale", "surface", "skins"):
        if not by.get(group) or (group == "skins" and len(by[group]) < 2):  # skins: only when a run mixes them
            continue
        fig, axes = plt.subplots(1, 2, figsize=(10, 0.45 * len(by[group]) + 1.2), sharey=True)
        _rate_bars(axes[0], by[group], "success", f"success by {group} (95% CI)")
        _rate_bars(axes[1], by[group], "partial", f"partial by {group}")
        plots.append((f"by {group}", png_data_url(fig)))
    sgv = summary.get("sgv") or {}
    if sgv.get("confusion"):
        fig, ax = plt.subplots(figsize=(4.2, 3.6))
        matrix, classes = sgv["confusion"]["rows_contract_cols_sgv"], sgv["confusion"]["classes"]
        ax.imshow(matrix, cmap="Blues")
        ax.set_xticks(range(len(classes)), classes, rotation=30, fontsize=8)
        ax.set_yticks(range(len(classes)), classes, fontsize=8)
        ax.set_xlabel("SGV")
        ax.set_ylabel("contract")
        for i, row in enumerate(matrix):
            for j, v in enumerate(row):
                ax.text(j, i, str(v), ha="center", va="center", fontsize=9)
        ax.set_title(f"contract vs SGV (agreement {sgv['agreement']:.0%}, kappa {sgv['kappa']:.2f})", fontsize=9)
        plots.append(("contract vs SGV", png_data_url(fig)))
    return plots


def _miniwob_plots(summary: Mapping[str, Any]) -> list[tuple[str, str]]:
    plt = pyplot()
    tasks = summary.get("by_task") or {}
    if not tasks:
        return []
    names = sorted(tasks, key=lambda n: -tasks[n]["success"])
    fig, ax = plt.subplots(figsize=(8, 0.22 * len(names) + 1))
    ax.barh(names, [tasks[n]["success"] for n in names], color="#2563eb")
    ax.set_xlim(0, 1)
    ax.invert_yaxis()
    ax.tick_params(axis="y", labelsize=7)
    ax.set_title("success by task", fontsize=10)
    return [("by task", png_data_url(fig))]


# ---- the page -------------------------------------------------------------------------------------------


def _fmt(v: Any) -> str:
    if isinstance(v, float):
        return f"{100 * v:.1f}%" if 0 <= v <= 1 else f"{v:.2f}"
    return "—" if v is None else str(v)


def _headline(summary: Mapping[str, Any]) -> str:
    keys = [k for k in ("episodes", "success", "partial", "infeasible", "sgv_agreement", "reward", "tasks",
                        "infra_errors", "missing") if k in summary]  # fmt: skip
    cells = "".join(f"<div><b>{html.escape(_fmt(summary[k]))}</b>{html.escape(k)}</div>" for k in keys)
    extra = ""
    for name in ("steps", "seconds", "model_calls", "tokens"):
        if name in summary:
            s = summary[name]
            extra += f"<div><b>{s['median']:g}</b>{name} (median; mean {s['mean']:g})</div>"
    return f'<div class="head">{cells}{extra}</div>'


def _row_html(r: Mapping[str, Any]) -> str:
    sgv = (r.get("sgv") or {}).get("verdict")
    verdict = r.get("contract") or ("infra error" if r.get("infra_error") else "")
    what = r.get("template") or r.get("task") or r["key"]
    link = f'<a href="{html.escape(r["viewer"])}">view</a>' if r.get("viewer") else ""
    cells = [html.escape(str(what)), html.escape(str(r.get("seed", ""))), html.escape(str(r.get("surface", ""))),
             html.escape(str(r.get("locale", ""))),
             f'<span class="{_CLASS.get(verdict, "")}">{html.escape(str(verdict))}</span>'
             if "contract" in r or r.get("infra_error") else html.escape(_fmt(r.get("reward"))),
             f'<span class="{_CLASS.get(sgv or "", "")}">{html.escape(str(sgv or "—"))}</span>',
             html.escape(str(r.get("steps", ""))), html.escape(f"{r.get('seconds', 0):.1f}"),
             html.escape(str(r.get("model_calls", ""))), html.escape(str(r.get("end", ""))), link]  # fmt: skip
    return "<tr>" + "".join(f"<td>{c}</td>" for c in cells) + "</tr>"


def _page(title: str, summary: Mapping[str, Any], rows: list[dict[str, Any]], config: Mapping[str, Any],
          plots: list[tuple[str, str]]) -> str:  # fmt: skip
    body = [f"<h1>{html.escape(title)}</h1>", _headline(summary)]
    for name, url in plots:
        body.append(f'<h2>{html.escape(name)}</h2><img alt="{html.escape(name)}" src="{url}">')
    head = ("<tr><th>task</th><th>seed</th><th>surface</th><th>locale</th><th>contract / reward</th><th>SGV</th>"
            "<th>steps</th><th>s</th><th>calls</th><th>end</th><th></th></tr>")  # fmt: skip
    body.append(f"<h2>episodes</h2><table>{head}{''.join(_row_html(r) for r in rows)}</table>")
    if summary.get("infra_failures"):
        items = "".join(f"<li>{html.escape(f['key'])}: {html.escape(f['error'])}</li>"
                        for f in summary["infra_failures"])  # fmt: skip
        body.append(f"<h2>infrastructure failures (not counted as agent failures)</h2><ul>{items}</ul>")
    body.append(f"<h2>run</h2><pre>{html.escape(json.dumps(config, ensure_ascii=False, indent=2))}</pre>")
    return (f'<!doctype html><html><head><meta charset="utf-8"><title>{html.escape(title)}</title>'
            f"<style>{_CSS}</style></head><body>{''.join(body)}</body></html>")  # fmt: skip
