"""Seeded skins: the look of the world's apps, drawn from a skin number as part of an episode's world instance.

Without skins every episode renders one layout, one set of labels and one icon set, so a policy can learn where a
control is instead of what it is. Skin `k` draws, from `skins.toml`, `lexicon.toml` and `icon_sets.json`:

- a palette (world.css's colour variables; some paint the top bar in the accent colour) and a font stack;
- a density (body font size; row heights, paddings and gaps scaled);
- an icon set: the default hand-drawn one, or Bootstrap's outline or solid glyphs;
- a label mode: as designed, icon-only buttons, or icon buttons that also show their name;
- the placement of row and toolbar actions (left or right) and an order for toolbar and form controls;
- label synonyms, per control, from a bilingual lexicon ("Delete forever" / "Delete permanently" / "彻底删除").

Skin 0 is the default: no extra stylesheet, the default icons, the default wording, so its pages are the pages
world.css and the templates make without skins. Each aspect of a skin is drawn from its own stream, seeded by
(skin, aspect), so a skin keeps its look when a data file gains an entry elsewhere. Contracts and oracles never
depend on a skin: they read state and stable selectors (ids, form values, `data-ctl`), and reordering is CSS
`order`, which moves what the screenshot shows, not the DOM. Nothing a skin adds names the skin.

    from venuskit.world import skins
    s = skins.get(7)
    s.css                                   # the <style> a skinned page adds after world.css ("" for skin 0)
    s.text("en", "delete_forever")          # "Delete permanently", or None for the default wording
    s.icon("star", "sm")                    # an inline <svg> from the skin's icon set, or None for the default
"""

from __future__ import annotations

import functools
import html
import json
import random
import re
import tomllib
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

DEFAULT = 0
ICON_SETS = ("default", "outline", "solid")
LABEL_MODES = ("default", "icons", "words")  # as designed / icon-only buttons / icon buttons with their name
ROW_MODES = ("default", "left")  # row and toolbar actions where the page puts them, or on the other side
ORDER_SLOTS = 6  # control groups are reordered by a permutation of their first ORDER_SLOTS children
ORDER_RATE = 0.6  # share of skins that reorder controls
WORD_RATE = 0.5  # share of lexicon entries a skin words differently
WIDE = "@media (min-width: 761px)"  # world.css's phone breakpoint is max-width 760px
_COLOUR = re.compile(r"#[0-9a-fA-F]{3,8}")
_PX = re.compile(r"[0-9]{1,3}px")
_DIGITS = re.compile(r"[0-9]{1,9}")  # ASCII digits only ("²".isdigit() is True)
MAX_LISTED = 10_000


@dataclass(frozen=True)
class Skin:
    """One look of the world. Build with `get(k)`; `Skin(k)` with no other field is the default look."""

    id: int
    palette: str = "default"
    font: str = "default"
    density: str = "default"
    icons: str = "default"
    labels: str = "default"
    rows: str = "default"
    order: tuple[int, ...] = ()  # the order value of each of the first ORDER_SLOTS controls; () keeps the page's
    words: dict[str, int] = field(default_factory=dict)  # lexicon key -> draw; the synonym is draw % len(synonyms)

    @property
    def is_default(self) -> bool:
        return self == Skin(self.id)

    def describe(self) -> dict[str, Any]:
        """What the skin changes (for docs and reports; never shown to the agent)."""
        return {"skin": self.id, "palette": self.palette, "font": self.font, "density": self.density,
                "icons": self.icons, "labels": self.labels, "rows": self.rows, "reordered": bool(self.order),
                "synonyms": sorted(self.words)}  # fmt: skip

    def text(self, locale: str, key: str) -> str | None:
        """The skin's wording of i18n `key` in `locale`, or None where it keeps the default wording."""
        draw = self.words.get(key)
        options = lexicon().get(key, {}).get(locale, [])
        return None if draw is None or not options else options[draw % len(options)]

    def icon(self, name: str, cls: str = "") -> str | None:
        """The inline <svg> of icon `name` in the skin's set (same class and size hooks as the default set), or
        None where the default set draws it."""
        if self.icons == "default":
            return None
        data = icon_sets()
        body = data["sets"][self.icons].get(name)
        if body is None:
            return None
        return (f'<svg class="ic {html.escape(cls)}" viewBox="{data["view_box"]}" aria-hidden="true" '
                f'fill="currentColor">{body}</svg>')  # fmt: skip

    @functools.cached_property
    def css(self) -> str:
        """The stylesheet this skin adds after world.css; empty for the default look."""
        if self.is_default:
            return ""
        data = _data()
        parts = [_palette_css(data["palettes"][self.palette]) if self.palette != "default" else "",
                 _font_css(data["fonts"][self.font]) if self.font != "default" else "",
                 _density_css(data["densities"][self.density], data["density_rules"])
                 if self.density != "default" else "",
                 _labels_css(self.labels), _rows_css(self.rows, self.labels), _order_css(self.order)]  # fmt: skip
        return "\n".join(p for p in parts if p)


def get(skin_id: int) -> Skin:
    """Skin `skin_id` (a whole number; 0 is the default look). Raises ValueError for anything else."""
    if isinstance(skin_id, bool) or not isinstance(skin_id, int) or skin_id < 0:
        raise ValueError(f"A skin is a whole number >= 0 (0 is the default look); got {skin_id!r}.")
    return _draw(skin_id)


def parse(text: str) -> list[int]:
    """Skins from a command line: "0,3,7" or a range "0-9" (or both, "0,10-12"), in order, each once; ValueError
    with the reason (at most MAX_LISTED skins: a run over more is a typing error)."""
    out: dict[int, None] = {}
    for part in (p.strip() for p in text.split(",")):
        low, dash, high = part.partition("-")
        if not _DIGITS.fullmatch(low) or (dash and not _DIGITS.fullmatch(high)):
            raise ValueError(f"Skins are whole numbers or ranges like '0,3,7' or '0-9'; cannot read {part!r}.")
        lo, hi = int(low), int(high) if dash else int(low)
        if hi < lo:
            raise ValueError(f"The skin range {part!r} ends before it starts.")
        if hi - lo + 1 + len(out) > MAX_LISTED:
            raise ValueError(f"{text!r} names more than {MAX_LISTED} skins.")
        out.update(dict.fromkeys(range(lo, hi + 1)))
    return list(out)


@functools.lru_cache(maxsize=1024)
def _draw(skin_id: int) -> Skin:
    if skin_id == DEFAULT:
        return Skin(DEFAULT)
    data = _data()

    def rng(aspect: str) -> random.Random:
        return random.Random(f"venuskit-skin:{skin_id}:{aspect}")

    order_rng = rng("order")
    order = tuple(order_rng.sample(range(ORDER_SLOTS), ORDER_SLOTS)) if order_rng.random() < ORDER_RATE else ()
    words = {}
    for key in lexicon():
        r = rng(f"word:{key}")
        if r.random() < WORD_RATE:
            words[key] = r.randrange(1 << 16)
    return Skin(
        id=skin_id,
        palette=rng("palette").choice(sorted(data["palettes"])),  # never the default: a skin always looks new
        font=rng("font").choice(["default", *sorted(data["fonts"])]),
        density=rng("density").choice(["default", *sorted(data["densities"])]),
        icons=rng("icons").choice(ICON_SETS),
        labels=rng("labels").choice(LABEL_MODES),
        rows=rng("rows").choice(ROW_MODES),
        order=order,
        words=words,
    )


# -- data --


@functools.cache
def _data() -> dict[str, Any]:
    raw = tomllib.loads(resources.files("venuskit.world").joinpath("skins.toml").read_text("utf-8"))
    for name, pal in raw["palettes"].items():
        bad = [k for k, v in pal.items() if k not in ("radius", "topbar") and not _COLOUR.fullmatch(v)]
        if bad or not _PX.fullmatch(pal["radius"]) or pal["topbar"] not in ("surface", "accent"):
            raise ValueError(f"skins.toml: palette {name!r} has a malformed value ({bad or 'radius/topbar'}).")
    for name, stack in raw["fonts"].items():
        if not re.fullmatch(r'[\w" ,-]+', stack):
            raise ValueError(f"skins.toml: font {name!r} is not a plain font-family list.")
    return raw


@functools.cache
def lexicon() -> dict[str, dict[str, list[str]]]:
    """i18n key -> {"en": [synonyms], "zh": [synonyms]} (the default wording is i18n's, not listed here)."""
    return tomllib.loads(resources.files("venuskit.world").joinpath("lexicon.toml").read_text("utf-8"))


@functools.cache
def icon_sets() -> dict[str, Any]:
    return json.loads(resources.files("venuskit.world").joinpath("icon_sets.json").read_text("utf-8"))


# -- stylesheets: each aspect is a few rules over world.css's own selectors --


def _palette_css(p: dict[str, str]) -> str:
    rules = [
        f"body.app {{ --bg: {p['bg']}; --surface: {p['surface']}; --line: {p['line']}; --text: {p['text']}; "
        f"--muted: {p['muted']}; --soft: {p['soft']}; --accent: {p['accent']}; --accent-soft: {p['accent_soft']}; "
        f"--radius: {p['radius']}; }}",
        # world.css writes some greys and blues out; repaint them from the palette so the skin is one look
        ".brand, .nav-item, .btn, .seg-btn, .event-line, .picker summary, .cart-btn { color: var(--text); }",
        ".searchbox { background: var(--soft); } .mail-row.read { background: var(--bg); }",
        ".mail-row.unread { background: var(--surface); color: var(--text); }",
        ".btn.fab { background: var(--accent-soft); color: var(--text); }",
        ".nav-item:hover, .btn:hover { background: var(--soft); }",
        ".ev { background: var(--accent-soft); color: var(--text); }",
        f".btn, .seg, .searchbox, .att, .picker {{ border-radius: {p['radius']}; }}",
        ".legacy .lg-top { background: linear-gradient(var(--lg-accent), #1b1b1b); }",
        f"body.legacy {{ --lg-accent: {p['accent']}; }} .legacy .lg-menu .mh {{ background: {p['accent']}; }}",
    ]
    if p["topbar"] == "accent":
        rules += [".topbar { background: var(--accent); border-bottom-color: transparent; }",
                  ".topbar .brand, .topbar .icon-btn, .topbar .cart-btn { color: #fff; }",
                  ".topbar .sim-date { background: rgba(255, 255, 255, .18); color: #fff; }",
                  ".topbar .searchbox { background: #fff; }"]  # fmt: skip
    return "\n".join(rules)


def _font_css(stack: str) -> str:
    return (f"body.app {{ --font: {stack}; }}\n"
            f"body.legacy, .legacy input[type=text], .legacy select, .legacy input[type=submit], .legacy button "
            f"{{ font-family: {stack}; }}")  # fmt: skip


def _density_css(d: dict[str, Any], rules: list[dict[str, Any]]) -> str:
    scale = float(d["scale"])
    legacy_px = round(11 * d["font_px"] / 14)  # FinPortal's 11px scaled as the modern apps' 14px is
    every = [f"body.app {{ font-size: {int(d['font_px'])}px; }} body.legacy {{ font-size: {legacy_px}px; }}"]
    wide = []
    for r in rules:
        rule = f"{r['selector']} {{ {r['property']}: {round(r['px'] * scale)}px; }}"
        (wide if r.get("wide") else every).append(rule)
    return "\n".join(every + ([f"{WIDE} {{ {' '.join(wide)} }}"] if wide else []))


# icon buttons that show their name (title) beside the icon in the "words" mode: everywhere, and on wide screens
# only (a phone keeps its top bar and its file rows' buttons as icons: names would push the file names out)
_NAMED_ICON_BUTTONS = (".toolbar .icon-btn[title]", ".viewer-bar a[title]")
_NAMED_WHEN_WIDE = (".top-right .icon-btn[title]", ".file-row .icon-btn[title]")


def _named(selectors: tuple[str, ...]) -> str:
    after = ", ".join(f"{s}::after" for s in selectors)
    return (f"{', '.join(selectors)} {{ width: auto; gap: 6px; padding-inline: 10px; border-radius: 18px; }} "
            f"{after} {{ content: attr(title); font-size: 13px; white-space: nowrap; }}")  # fmt: skip


def _labels_css(mode: str) -> str:
    if mode == "icons":  # buttons that carry an icon show only the icon (their words shrink to nothing)
        return ".btn:has(.ic) { font-size: 0; gap: 0; padding-inline: 11px; }"
    if mode == "words":
        return f"{_named(_NAMED_ICON_BUTTONS)}\n{WIDE} {{ {_named(_NAMED_WHEN_WIDE)} }}"
    return ""


def _rows_css(mode: str, labels: str) -> str:
    # on wide screens the file row's action column fits the names it shows ("Remove star" and "Delete"; a fixed
    # width, since every row is a grid of its own), and the folder, date and size columns narrow so the file name
    # keeps its room
    actions, cells = ("220px", "100px 90px 70px") if labels == "words" else ("80px", "140px 160px 90px")
    if mode != "left":
        if labels != "words":
            return ""
        return f"{WIDE} {{ .file-row {{ grid-template-columns: 1fr {cells} {actions}; }} }}"
    return "\n".join(
        [
            # file rows: the star / delete / restore buttons before the name instead of after the size
            ".file-row { grid-template-columns: 80px 1fr; } .file-row > :last-child { order: -1; }",
            f"{WIDE} {{ .file-row {{ grid-template-columns: {actions} 1fr {cells}; }} }}",
            ".file-row form { justify-content: flex-start; }",
            ".payee-row > .btn { order: -1; } .stepper > form:last-child { order: -1; }",
            ".att-actions { flex-direction: row-reverse; }",
            # mail and calendar toolbars: the back arrow stays left, the actions move to the right
            ".app-mail .main > .toolbar > :first-child, .app-calendar .main > .toolbar > :first-child "
            "{ margin-right: auto; }",
            ".reply-bar { justify-content: flex-end; }",
        ]
    )


# control groups whose children are reordered (flex containers in world.css; the DOM keeps its order), with how
# many leading children stay put (a toolbar keeps its back arrow first)
_ORDERED = ((".top-right", 0), (".reply-bar", 0), (".actions", 0), (".app-mail .main > .toolbar", 1),
            (".app-calendar .main > .toolbar", 1))  # fmt: skip


def _order_css(order: tuple[int, ...]) -> str:
    if not order:
        return ""
    rules = []
    for i, value in enumerate(order, start=1):
        targets = ", ".join(f"{group} > :nth-child({i + keep})" for group, keep in _ORDERED)
        rules.append(f"{targets} {{ order: {value + 1}; }}")
    # the compose footer reorders Send and Save draft; Discard stays last
    rules.append(f".compose-foot > :nth-child(1) {{ order: {order[0] + 1}; }} "
                 f".compose-foot > :nth-child(2) {{ order: {order[1] + 1}; }} "
                 f".compose-foot > :nth-child(3) {{ order: {ORDER_SLOTS + 1}; }}")  # fmt: skip
    return "\n".join(rules)
