"""Generic eval reports: an atomic JSON report and a one-page HTML summary with per-category bar charts.

Shared by every eval (grounding, CAPTCHA, ...). The HTML is self-contained: inline CSS and inline SVG, no
scripts, no network.

    write_json_report(out / "report.json", {"metrics": ..., "details": ...})
    write_html_summary("Grounding: ui-venus-2", {"platform": {"web": 0.81, "macos": 0.64}}, out / "summary.html",
                       headline={"accuracy": 0.77, "samples": 1581})
"""

from __future__ import annotations

import html
import json
import os
from collections.abc import Mapping
from pathlib import Path
from typing import Any

BAR_H, GAP, LABEL_W, CHART_W = 22, 6, 190, 420


def write_json_report(path: str | Path, report: Mapping[str, Any]) -> Path:
    """Write `report` as indented JSON, atomically (a crash never leaves half a file)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(report, ensure_ascii=False, indent=2), encoding="utf-8")
    os.replace(tmp, path)
    return path


def pyplot() -> Any:
    """matplotlib's pyplot on the Agg backend: no display, no Tk (reports are written by servers and CI)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def png_data_url(fig: Any) -> str:
    """A matplotlib figure as a PNG data URL for a self-contained page; the figure is closed."""
    import base64
    import io

    plt = pyplot()
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90, bbox_inches="tight")
    plt.close(fig)
    return "data:image/png;base64," + base64.b64encode(buf.getvalue()).decode("ascii")


def bar_chart_svg(values: Mapping[str, float], counts: Mapping[str, int] | None = None, *, scale: float = 1.0) -> str:
    """A horizontal bar chart as inline SVG. Values are fractions of `scale` (1.0 = a full bar, shown as %)."""
    rows = list(values.items())
    height = len(rows) * (BAR_H + GAP) + GAP
    width = LABEL_W + CHART_W + 120
    parts = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" role="img">']
    for i, (name, value) in enumerate(rows):
        y = GAP + i * (BAR_H + GAP)
        frac = max(0.0, min(1.0, value / scale if scale else 0.0))
        n = f" · n={counts[name]}" if counts and name in counts else ""
        parts.append(
            f'<text x="{LABEL_W - 8}" y="{y + BAR_H * 0.7:.1f}" text-anchor="end">{html.escape(_short(name))}</text>'
            f'<rect x="{LABEL_W}" y="{y}" width="{CHART_W}" height="{BAR_H}" class="track"/>'
            f'<rect x="{LABEL_W}" y="{y}" width="{CHART_W * frac:.1f}" height="{BAR_H}" class="bar"/>'
            f'<text x="{LABEL_W + CHART_W + 8}" y="{y + BAR_H * 0.7:.1f}">{100 * frac:.1f}%{html.escape(n)}</text>'
        )
    parts.append("</svg>")
    return "".join(parts)


def _short(name: str, limit: int = 28) -> str:
    return name if len(name) <= limit else name[: limit - 1] + "…"


_CSS = """body{font:14px/1.45 system-ui,'DejaVu Sans',sans-serif;margin:24px auto;max-width:860px;color:#1f2328}
h1{font-size:22px;margin:0 0 12px}h2{font-size:16px;margin:26px 0 8px;text-transform:capitalize}
.head{display:flex;flex-wrap:wrap;gap:10px 26px;padding:12px 16px;background:#f6f8fa;border:1px solid #d0d7de;
border-radius:8px}.head b{display:block;font-size:20px}
svg text{font-size:12px;fill:#1f2328}svg .track{fill:#eaeef2}svg .bar{fill:#2563eb}
pre{background:#f6f8fa;padding:10px;border-radius:6px;overflow:auto;font-size:12px}"""


def write_html_summary(
    title: str,
    metrics_by_category: Mapping[str, Mapping[str, float]],
    out: str | Path,
    *,
    headline: Mapping[str, Any] | None = None,
    counts_by_category: Mapping[str, Mapping[str, int]] | None = None,
    config: Mapping[str, Any] | None = None,
) -> Path:
    """One HTML page: the title, headline numbers, one bar chart per category (values are fractions 0..1),
    and the run config. Categories with no values are left out."""
    out = Path(out)
    body = [f"<h1>{html.escape(title)}</h1>"]
    if headline:
        cells = "".join(f"<div><b>{html.escape(_fmt(v))}</b>{html.escape(str(k))}</div>" for k, v in headline.items())
        body.append(f'<div class="head">{cells}</div>')
    for category, values in metrics_by_category.items():
        if values:
            counts = (counts_by_category or {}).get(category)
            body.append(f"<h2>{html.escape(category.replace('_', ' '))}</h2>{bar_chart_svg(values, counts)}")
    if config:
        body.append(f"<h2>run</h2><pre>{html.escape(json.dumps(config, ensure_ascii=False, indent=2))}</pre>")
    doc = (
        f'<!doctype html><html><head><meta charset="utf-8"><title>{html.escape(title)}</title><style>{_CSS}</style>'
        f"</head><body>{''.join(body)}</body></html>"
    )
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(doc, encoding="utf-8")
    return out


def _fmt(value: Any) -> str:
    if isinstance(value, float):
        return f"{100 * value:.1f}%" if 0.0 <= value <= 1.0 else f"{value:.2f}"
    return str(value)
