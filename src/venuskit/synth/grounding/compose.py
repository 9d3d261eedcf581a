"""Compose one page from its seed: platform, application, language, resolution and theme, a frame, a grid of
panels filled by element families, an optional overlay, and the refusal instructions that fit the page.

Everything random comes from `random.Random(page_seed)`, so a page is rebuilt exactly from its seed (the pixel
check and `venus synth` rely on that).
"""

from __future__ import annotations

import random
from functools import cache
from pathlib import Path

from venuskit.synth.grounding import chrome
from venuskit.synth.grounding.context import Ctx, esc
from venuskit.synth.grounding.families import (
    OVERLAY_FAMILIES,
    PANEL_FAMILIES,
    TALL,
    WIDE,
    App,
    apps_for,
)
from venuskit.synth.grounding.instructions import quote_en, quote_zh
from venuskit.synth.grounding.spec import GroundingConfig, PageSpec
from venuskit.synth.grounding.themes import MOBILE_PLATFORMS, base_css, pick_resolution, pick_theme
from venuskit.synth.grounding.vocab import IconSet, icon_actions, vocab
from venuskit.synth.grounding.widgets import BAR_SCRIPT

_ASSETS = Path(__file__).resolve().parents[1] / "assets"
PANEL_MIN_W, PANEL_MIN_H = 360, 230  # CSS px a panel needs to hold a family comfortably
GENERIC = ("button", "icon_button", "link", "tab", "input", "checkbox", "radio", "toggle", "dropdown", "slider")
GENERIC += ("list", "image", "text", "tree", "svg_chart", "table")


@cache
def runtime_js() -> str:
    return (_ASSETS / "grounding_runtime.js").read_text(encoding="utf-8")


def page_seed(run_seed: int, index: int) -> int:
    """The seed of page `index` of a run: distinct across runs and pages, and stable."""
    return (run_seed % 1_000_000) * 1_000_000 + index


def compose_page(seed: int, config: GroundingConfig, icons: IconSet) -> PageSpec:
    rng = random.Random(seed)
    platform = rng.choice(config.platforms)
    app = _pick_app(rng, platform, config)
    language = "zh" if rng.random() < config.zh_share else "en"
    resolution = pick_resolution(rng, platform, config.resolutions)
    theme = pick_theme(rng, language)
    mobile = platform in MOBILE_PLATFORMS
    ctx = Ctx(rng, language, theme, icons, icon_actions(icons), mobile=mobile)
    ctx.w, ctx.h = float(resolution.width), float(resolution.height)
    title = ctx.t(vocab()["app_titles"][app.name])
    body = _grid(ctx, app, config, resolution.width, resolution.height - _frame_height(ctx, platform))
    ctx.w, ctx.h = float(resolution.width), float(resolution.height)  # the frame spans the whole screen
    if mobile:
        frame = chrome.mobile_frame(ctx, title, body)
    elif platform == "web":
        frame = chrome.web_frame(ctx, title, body)
    else:
        frame = chrome.window_frame(ctx, platform, title, body)
    html = _document(ctx, platform, language, frame)
    return PageSpec(
        seed=seed,
        html=html,
        resolution=resolution,
        platform=platform,
        application=app.name,
        group=app.group,
        language=language,
        theme=theme.name,
        mobile=mobile,
        targets=ctx.targets,
        absent=_refusals(ctx),
    )


def _pick_app(rng: random.Random, platform: str, config: GroundingConfig) -> App:
    apps = apps_for(platform)
    if config.families:  # prefer apps that show the requested families
        wanted = set(config.families)
        fitting = [a for a in apps if wanted & set(a.core + a.extra)]
        apps = fitting or apps
    return rng.choice(apps)


def _frame_height(ctx: Ctx, platform: str) -> float:
    fs = ctx.theme.fs
    if platform in MOBILE_PLATFORMS:
        return fs * 10.5
    if platform == "web":
        return fs * 4
    return fs * 9.5


def _grid(ctx: Ctx, app: App, config: GroundingConfig, width: float, height: float) -> str:
    """A grid of panels; each panel's family comes from the app (core first), restricted to config.families."""
    cols = 1 if ctx.mobile else max(1, min(6, int(width // PANEL_MIN_W)))
    rows = max(1, min(5, int(height // PANEL_MIN_H)))
    if ctx.mobile:
        rows = max(1, min(3, int(height // 260)))
    gap = ctx.theme.pad * 1.5
    cell_w, cell_h = (width - gap * (cols + 1)) / cols, (height - gap * (rows + 1)) / rows
    queue = _family_queue(ctx.rng, app, config, cols * rows)
    panels, free = [], [cols] * rows
    for r in range(rows):
        while free[r] > 0 and queue:
            family = queue.pop(0)
            span_c = 2 if family in WIDE and free[r] >= 2 and ctx.rng.random() < 0.7 else 1
            span_r = 2 if family in TALL and r + 1 < rows and free[r + 1] >= span_c and ctx.rng.random() < 0.5 else 1
            free[r] -= span_c
            if span_r == 2:
                free[r + 1] -= span_c
            panels.append(
                _panel(
                    ctx,
                    family,
                    span_c,
                    span_r,
                    cell_w * span_c + gap * (span_c - 1),
                    cell_h * span_r + gap * (span_r - 1),
                )
            )
    if _allowed("dialog", config) and ctx.rng.random() < 0.25:
        OVERLAY_FAMILIES["dialog"](ctx)
    style = (
        f"grid-template-columns:repeat({cols},minmax(0,1fr));grid-template-rows:repeat({rows},minmax(0,1fr));"
        "grid-auto-flow:dense"
    )
    return f'<main class="grid" style="{style}">{"".join(panels)}</main>'


def _allowed(family: str, config: GroundingConfig) -> bool:
    return config.families is None or family in config.families


def _family_queue(rng: random.Random, app: App, config: GroundingConfig, n: int) -> list[str]:
    """Panel families in order: the app's core, its extras, any other requested family, then generic ones."""
    core = [f for f in app.core if f in PANEL_FAMILIES and _allowed(f, config)]
    extra = [f for f in app.extra if f in PANEL_FAMILIES and _allowed(f, config)]
    rng.shuffle(extra)
    pool = core + extra
    requested = [f for f in (config.families or ()) if f in PANEL_FAMILIES and f not in pool]
    rng.shuffle(requested)
    pool += requested
    # Past those, fill with generic families: a second sheet or calendar on one screen would make "cell C4" or
    # "March 14" name two targets (and the ambiguity filter would drop both).
    generic = [f for f in GENERIC if f not in pool and _allowed(f, config)]
    rng.shuffle(generic)
    pool += generic or ([] if pool else list(app.core + app.extra))
    return [pool[i % len(pool)] for i in range(n)] if len(pool) < n else pool[:n]


def _panel(ctx: Ctx, family: str, span_c: int, span_r: int, w: float, h: float) -> str:
    pad = ctx.theme.pad * 1.5
    title_pair = ctx.pick("sections", 1)[0] if family not in ("code", "spreadsheet") else ("", "")
    ctx.title = ctx.t(title_pair)
    head = f"<h3>{esc(ctx.title)}</h3>" if ctx.title else ""
    ctx.w = w - 2 * pad - 2
    ctx.h = h - 2 * pad - (ctx.theme.fs * 2.4 if head else 0) - 2
    inner = PANEL_FAMILIES[family](ctx)
    style = f"grid-column:span {span_c};grid-row:span {span_r}"
    return f'<section class="panel f-{family}" style="{style}">{head}<div class="pbody">{inner}</div></section>'


def _document(ctx: Ctx, platform: str, language: str, frame: str) -> str:
    scripts = "".join(ctx.scripts)
    lang = "zh-CN" if language == "zh" else "en"
    return (
        f'<!doctype html><html lang="{lang}"><head><meta charset="utf-8">'
        f'<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<style>{ctx.theme.css_vars()}{base_css()}"
        f"</style><script>{runtime_js()}</script><script>{BAR_SCRIPT}</script></head>"
        f'<body class="{platform}{" dark" if ctx.theme.dark else ""}">{frame}{"".join(ctx.overlays)}'
        f"<script>{scripts}</script></body></html>"
    )


def _refusals(ctx: Ctx) -> list[tuple[str, str, tuple[str, ...]]]:
    """Instructions naming things that are not on this page: unused actions, sections and settings."""
    rng, out = ctx.rng, []
    acts = [a for a in ctx.acts if a.key not in ctx.used and a.en not in ctx.used and a.icon not in ctx.icons_used]
    for act in rng.sample(acts, min(3, len(acts))):
        # Named by label, not by function: a function ("sort the items") may be reachable through another
        # element (a sortable column header), a button labelled 'Sort' is checkably absent.
        label = ctx.t((act.en, act.zh))
        out.append(
            (f"{ctx.verb[0]} the {quote_en(label)} button", f"{ctx.verb[1]}{quote_zh(label)}按钮", (act.en, act.zh))
        )
    sections = [s for s in vocab()["sections"] if s[0] not in ctx.used]
    for en_l, zh_l in rng.sample(sections, min(2, len(sections))):
        label = ctx.t((en_l, zh_l))
        out.append((f"open the {quote_en(label)} tab", f"打开{quote_zh(label)}标签页", (en_l, zh_l)))
    settings = [s for s in vocab()["settings"] if s[0] not in ctx.used]
    for en_l, zh_l in rng.sample(settings, min(2, len(settings))):
        label = ctx.t((en_l, zh_l))
        out.append((f"turn on the {quote_en(label)} setting", f"打开{quote_zh(label)}设置", (en_l, zh_l)))
    return out
