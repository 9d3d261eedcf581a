"""Icon sheets: pages of icons from SVG icon libraries, rendered in Chromium, with the box and name of each.

They teach venus-nano's icon namer (`models.nano.icons`) what common icons mean. A sheet draws each icon as a CSS
mask filled with a colour, so every library (filled or stroked, any source colour) is drawn alike: at a drawn size,
in a drawn colour, on a drawn background, alone or inside a bordered or filled button, spaced so that the reader
sees each on its own. Pages are self-contained (`grounding.render.Renderer`: no request leaves the page).

`library_icons(folder)` reads one library: Bootstrap Icons' files by name, Adwaita's `*-symbolic.svg` by the name
before `-symbolic`. An SVG is inlined as a data URL; nothing in it runs (mask images are never scripted).
"""

from __future__ import annotations

import base64
import random
import re
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from venuskit.actions.coords import css_to_pixels
from venuskit.synth.grounding.render import Renderer
from venuskit.synth.grounding.spec import PageSpec, Resolution, SynthError

BOOTSTRAP = Path("/usr/share/bootstrap-icons/svg")
ADWAITA = Path("/usr/share/icons/Adwaita")
MAX_SVG_BYTES = 64_000  # an icon file is a few KB; anything larger is not one


@dataclass(frozen=True)
class Icon:
    label: str  # the name it teaches ("star"), or "other"
    source: str  # "bootstrap:star-fill", "adwaita:starred", ...
    svg: str  # standalone SVG markup


@dataclass
class Sheet:
    png: bytes
    size: tuple[int, int]
    items: list[tuple[tuple[int, int, int, int], Icon]]  # screenshot-pixel box of each drawn icon
    dsf: float


def library_icons(kind: str, folder: Path | None = None) -> dict[str, str]:
    """Icon name → SVG markup for one library ("bootstrap" or "adwaita"); {} where it is not installed."""
    if kind == "bootstrap":
        root = folder or BOOTSTRAP
        files = {p.stem: p for p in sorted(root.glob("*.svg"))} if root.is_dir() else {}
    elif kind == "adwaita":
        root = folder or ADWAITA
        files = {}
        for p in sorted(root.rglob("*-symbolic.svg")) if root.is_dir() else []:
            files.setdefault(p.name[: -len("-symbolic.svg")], p)
    else:
        raise SynthError(f"Unknown icon library {kind!r}; expected bootstrap or adwaita.")
    out = {}
    for name, p in files.items():
        if p.stat().st_size <= MAX_SVG_BYTES:
            out[name] = p.read_text("utf-8", errors="replace")
    return out


def stroke_svg(inner: str, view_box: str = "0 0 24 24", width: float = 1.8) -> str:
    """Stroke-drawn icon shapes (`<path>`s without fill) as standalone SVG."""
    return (f'<svg xmlns="http://www.w3.org/2000/svg" viewBox="{view_box}" fill="none" stroke="black" '
            f'stroke-width="{width}" stroke-linecap="round" stroke-linejoin="round">{inner}</svg>')  # fmt: skip


_PALETTE = [  # (icon colour, background) pairs that UIs use: dark on light, light on dark, coloured
    ("#202124", "#ffffff"), ("#5f6368", "#ffffff"), ("#1a73e8", "#ffffff"), ("#444", "#f1f3f4"),
    ("#d93025", "#ffffff"), ("#188038", "#f8f9fa"), ("#ffffff", "#1a73e8"), ("#e8eaed", "#202124"),
    ("#ffffff", "#3c4043"), ("#f9ab00", "#ffffff"), ("#6b4fbb", "#f3effc"), ("#333", "#e8f0fe"),
]  # fmt: skip


def _data_url(svg: str) -> str:
    svg = re.sub(r"<\?xml[^>]*\?>", "", svg).strip()
    return "data:image/svg+xml;base64," + base64.b64encode(svg.encode("utf-8")).decode("ascii")


def _cell(i: int, icon: Icon, rng: random.Random) -> str:
    fg, bg = rng.choice(_PALETTE)
    size = rng.choice((12, 14, 16, 16, 18, 20, 20, 22, 24, 24, 28, 32))
    frame = rng.choices(("none", "border", "fill", "round"), (5, 2, 2, 1))[0]
    pad = rng.choice((4, 6, 8))
    box = ""
    if frame == "border":
        box = f"border:1px solid {rng.choice(('#dadce0', '#c4c7c5', '#999'))};border-radius:{rng.choice((4, 6, 8))}px;"
    elif frame in ("fill", "round"):
        tint = rng.choice(("#e8f0fe", "#f1f3f4", "#fce8e6", "#e6f4ea")) if bg.startswith("#f") else "#5f6368"
        box = f"background:{tint};border-radius:{'50%' if frame == 'round' else '6px'};"
    dx, dy = rng.randint(0, 10), rng.randint(0, 10)
    url = _data_url(icon.svg)
    mask = f"mask:url({url}) center/contain no-repeat;-webkit-mask:url({url}) center/contain no-repeat;"
    return (f'<div class="c" style="background:{bg}"><div style="margin:{dy}px 0 0 {dx}px;padding:{pad}px;'
            f'display:inline-block;{box}"><span id="i{i}" style="display:block;width:{size}px;height:{size}px;'
            f'background:{fg};{mask}"></span></div></div>')  # fmt: skip


def sheet_pages(icons: Sequence[Icon], seed: int, per_page: int = 48, mobile_share: float = 0.25) -> Iterator[
        tuple[PageSpec, list[Icon]]]:  # fmt: skip
    """Pages of `per_page` icons each, in a seeded order and look."""
    rng = random.Random(seed)
    order = list(icons)
    rng.shuffle(order)
    for k in range(0, len(order), per_page):
        part = order[k : k + per_page]
        mobile = rng.random() < mobile_share
        res = Resolution(412, 915, 2.0) if mobile else Resolution(1024, 768, 1.0)
        cols = 6 if mobile else 8
        cells = "".join(_cell(i, icon, rng) for i, icon in enumerate(part))
        page = (f"<!doctype html><html><head><style>body{{margin:0;font-family:sans-serif;background:#fff}}"
                f".g{{display:grid;grid-template-columns:repeat({cols},1fr)}}.c{{height:{'100' if mobile else '96'}px;"
                f"padding:16px;box-sizing:border-box}}</style></head>"
                f'<body><div class="g">{cells}</div></body></html>')  # fmt: skip
        yield PageSpec(seed * 100_000 + k, page, res, "android" if mobile else "web", "icons", "icons", "en",
                       "light", mobile, {}), part  # fmt: skip


def render_sheets(icons: Sequence[Icon], seed: int, renderer: Renderer, per_page: int = 48) -> Iterator[Sheet]:
    """Render the sheets; each drawn icon's CSS box is scaled to screenshot pixels."""
    for spec, part in sheet_pages(icons, seed, per_page):
        page = renderer.load(spec)
        rects = page.evaluate(
            "(n) => Array.from({length: n}, (_, i) => { const r = document.getElementById('i' + i)"
            ".getBoundingClientRect(); return [r.x, r.y, r.width, r.height]; })",
            len(part),
        )
        png = page.screenshot(type="png", animations="disabled", caret="hide")
        size = spec.resolution.shot_size
        items = []
        for (x, y, w, h), icon in zip(rects, part, strict=True):
            if y + h > spec.resolution.height:
                continue  # below the fold: not in the screenshot
            items.append((css_to_pixels(x, y, w, h, spec.resolution.dsf, size), icon))
        yield Sheet(png, size, items, spec.resolution.dsf)
