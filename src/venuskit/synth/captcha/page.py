"""Host pages: each CAPTCHA is embedded in a realistic page (login, sign-up, checkout, ...) with decoy
fields, links and a submit button, in a desktop (side by side) or mobile (stacked) layout chosen by
CSS media queries, so one URL serves both presets.

`render_page` takes the instance id, the prompt and the public `Widget` only: it has no way to see
the hidden answer. Every element an oracle or a grounding label needs carries a `data-part` name
("image", "input", "handle", "cell-3", ...); the names say what an element is, never whether it is right.
"""

from __future__ import annotations

import html
import json
import random
from dataclasses import dataclass

from venuskit.synth.captcha.spec import Widget

HANDLE_W = 44  # slider handle width (CSS px); the handle travels track - HANDLE_W
CARD_INNER = 320  # widget content width; every puzzle part fits in it


@dataclass(frozen=True)
class PageStyle:
    template: str
    site: str
    brand: str
    accent: str
    page_bg: str
    font: str


_SITES = (
    "Northwind",
    "Acme Cloud",
    "Blue Harbor",
    "Ticketly",
    "Parcelio",
    "Greenleaf Market",
    "Orbit Mail",
    "Lumen Bank",
    "Quillpad",
    "Fairway Travel",
)
_BRANDS = ("SecureCheck", "HumanGate", "VerifyMe", "GuardPass", "TrustPoint")
_ACCENTS = ("#2563eb", "#0f766e", "#7c3aed", "#b45309", "#be123c", "#15803d", "#1d4ed8")
_BGS = ("#f3f4f6", "#eef2f7", "#f5f3ee", "#f1f5f4", "#f6f1f5")
_FONTS = ("'DejaVu Sans', sans-serif", "'Liberation Sans', sans-serif", "'DejaVu Serif', serif")
TEMPLATES = ("login", "signup", "checkout", "comment", "ticket", "transfer")


def page_style(type_name: str, seed: int) -> PageStyle:
    rng = random.Random(f"page:{type_name}:{seed}")
    return PageStyle(
        rng.choice(TEMPLATES),
        rng.choice(_SITES),
        rng.choice(_BRANDS),
        rng.choice(_ACCENTS),
        rng.choice(_BGS),
        rng.choice(_FONTS),
    )


# ---- host page templates: (heading, fields, submit label, extra decoy html) -----------------------------


def _field(label: str, kind: str = "text", placeholder: str = "") -> str:
    ph = f' placeholder="{html.escape(placeholder)}"' if placeholder else ""
    return (
        f'<label class="hp-field"><span>{html.escape(label)}</span>'
        f'<input type="{kind}" autocomplete="off"{ph}></label>'
    )


def _host(style: PageStyle) -> tuple[str, str, str, str]:
    t = style.template
    if t == "login":
        return (
            f"Sign in to {style.site}",
            _field("Email", "email", "you@example.com") + _field("Password", "password"),
            "Sign in",
            '<label class="hp-check"><input type="checkbox"> Remember me</label>'
            '<a class="hp-link" href="#">Forgot password?</a>',
        )
    if t == "signup":
        return (
            "Create your account",
            _field("Full name", "text", "Jane Doe") + _field("Email", "email"),
            "Create account",
            '<a class="hp-link" href="#">Already have an account? Sign in</a>',
        )
    if t == "checkout":
        return (
            "Checkout",
            _field("Card number", "text", "1234 5678 9012 3456") + _field("Name on card"),
            "Pay now",
            '<div class="hp-summary"><span>Order total</span><b>$48.90</b></div>',
        )
    if t == "comment":
        return (
            "Leave a comment",
            _field("Your name") + '<label class="hp-field"><span>Comment</span><textarea rows="2"></textarea></label>',
            "Post comment",
            '<a class="hp-link" href="#">Community rules</a>',
        )
    if t == "ticket":
        return (
            "Book tickets",
            _field("Event date", "date") + '<label class="hp-field"><span>Tickets</span><select>'
            "<option>1</option><option>2</option><option>3</option></select></label>",
            "Continue",
            '<a class="hp-link" href="#">Seating plan</a>',
        )
    return (
        "Send money",
        _field("Recipient IBAN", "text", "DE00 0000 0000") + _field("Amount", "text", "0.00"),
        "Send",
        '<a class="hp-link" href="#">Transfer limits</a>',
    )


# ---- widget bodies -------------------------------------------------------------------------------------


def _img(src: str, w: int, h: int, cls: str = "vc-img", part: str = "", style: str = "") -> str:
    p = f' data-part="{part}"' if part else ""
    s = f' style="{style}"' if style else ""
    return f'<img class="{cls}" src="{src}" width="{w}" height="{h}" alt="" draggable="false"{p}{s}>'


def _stage(inner: str, w: int, h: int, cls: str = "vc-stage", part: str = "image") -> str:
    return f'<div class="{cls}" data-part="{part}" style="width:{w}px;height:{h}px">{inner}</div>'


def _abs(x: float, y: float, w: float, h: float) -> str:
    return f"left:{x:g}px;top:{y:g}px;width:{w:g}px;height:{h:g}px"


def _body(widget: Widget, a: str) -> str:
    p, k = widget.params, widget.kind
    img = lambda name="image": _img(f"{a}{name}.png", p["w"], p["h"])  # noqa: E731
    if k == "text":
        return (
            _stage(img(), p["w"], p["h"]) + '<input class="vc-input" data-part="input" type="text" '
            'autocomplete="off" autocapitalize="off" autocorrect="off" spellcheck="false" maxlength="40" '
            'placeholder="Type your answer">'
        )
    if k == "click":
        return _stage(img() + '<div class="vc-marks"></div>', p["w"], p["h"], "vc-stage vc-clickable")
    if k == "grid":
        cells = "".join(
            f'<div class="vc-cell" data-part="cell-{i}" style="{_abs(*c)}"></div>' for i, c in enumerate(p["cells"])
        )
        return _stage(img() + cells, p["w"], p["h"])
    if k == "line":
        svg = f'<svg class="vc-lines" width="{p["w"]}" height="{p["h"]}"></svg>'
        return _stage(img() + svg, p["w"], p["h"], "vc-stage vc-clickable")
    if k == "slider":
        return _slider(p, a)
    if k == "drag":
        return _drag(p, a)
    if k == "swap":
        return _swap(p, a)
    if k == "arrows":
        return _arrows(p, a)
    return _hold(p, a)


def _slider(p: dict, a: str) -> str:
    mode, out = p["mode"], ""
    if p["w"]:
        over = ""
        if mode in ("piece", "inner"):
            x, y, w, h = p["piece"]
            over = _img(f"{a}piece.png", w, h, "vc-piece", "piece", _abs(x, y, w, h))
        elif mode == "marker":
            over = f'<div class="vc-marker" data-part="marker" style="left:{p["marker"]}px"></div>'
        cls = "vc-stage vc-round" if p.get("round") else "vc-stage"
        out = _stage(_img(f"{a}image.png", p["w"], p["h"], "vc-img vc-bg") + over, p["w"], p["h"], cls)
    label = html.escape(p.get("label", "Slide to complete"))
    return out + (
        f'<div class="vc-track" data-part="track" style="width:{p["track"]}px"><div class="vc-fill"></div>'
        f'<span class="vc-track-label">{label}</span>'
        f'<div class="vc-handle" data-part="handle">&#10140;</div></div>'
    )


def _drag(p: dict, a: str) -> str:
    pieces = "".join(
        _img(f"{a}piece-{i}.png", w, h, "vc-piece", f"piece-{i}", _abs(x, y, w, h))
        for i, (x, y, w, h) in enumerate(p["pieces"])
    )
    tray = f'<div class="vc-tray" style="{_abs(0, p["h"], p["w"], p["board_h"] - p["h"])}"></div>'
    inner = _img(f"{a}image.png", p["w"], p["h"], "vc-img", "image", "position:absolute;left:0;top:0") + tray + pieces
    return _stage(inner, p["w"], p["board_h"], "vc-board", "board")


def swap_slots(p: dict) -> list[tuple[int, int, int, int]]:
    tw, th = p["tile"]
    return [(c * (tw + p["gap"]), r * (th + p["gap"]), tw, th) for r in range(p["rows"]) for c in range(p["cols"])]


def _swap(p: dict, a: str) -> str:
    slots = swap_slots(p)
    w, h = slots[-1][0] + slots[-1][2], slots[-1][1] + slots[-1][3]
    inner = "".join(
        f'<div class="vc-slot" data-part="slot-{i}" style="{_abs(*s)}"></div>' for i, s in enumerate(slots)
    )
    inner += "".join(
        _img(f"{a}tile-{i}.png", s[2], s[3], "vc-tile", f"tile-{i}", _abs(*s)) for i, s in enumerate(slots)
    )
    return _stage(inner, w, h, "vc-board", "board")


ARROW_BUTTONS = {
    "index": (("prev", "&#9664;"), ("next", "&#9654;")),
    "rotate": (("ccw", "&#8634;"), ("cw", "&#8635;")),
    "orbit": (("ccw", "&#8634;"), ("cw", "&#8635;")),
    "grid": (("left", "&#8592;"), ("up", "&#8593;"), ("down", "&#8595;"), ("right", "&#8594;")),
}


def _arrows(p: dict, a: str) -> str:
    mode = p["mode"]
    src = f"{a}frame-{p.get('start', 0)}.png" if mode == "index" else f"{a}image.png"
    inner = _img(src, p["w"], p["h"], "vc-img vc-turn" if mode == "rotate" else "vc-img")
    if mode in ("grid", "orbit"):
        inner += f'<div class="vc-token" data-part="token" style="width:{p["token"]}px;height:{p["token"]}px"></div>'
    row = _stage(inner, p["w"], p["h"])
    if p.get("ref"):
        rw, rh = p["ref"]
        row = f'<div class="vc-ref" data-part="ref">{_img(f"{a}ref.png", rw, rh)}</div>' + row
    buttons = "".join(
        f'<button type="button" class="vc-btn" data-part="btn-{op}" aria-label="{op}">{glyph}</button>'
        for op, glyph in ARROW_BUTTONS[mode]
    )
    return f'<div class="vc-row">{row}</div><div class="vc-buttons">{buttons}</div>'


def _hold(p: dict, a: str) -> str:
    out = _stage(_img(f"{a}image.png", p["w"], p["h"]), p["w"], p["h"]) if p.get("w") else ""
    label = html.escape(p.get("label", "Press and hold"))
    return out + (
        f'<button type="button" class="vc-hold" data-part="hold"><span class="vc-hold-fill"></span>'
        f'<span class="vc-hold-label">{label}</span></button>'
    )


_ROBOT = (
    '<div class="vc-robot"><span class="vc-check" data-part="robot" role="checkbox" aria-checked="false">'
    "</span><span>I'm not a robot</span></div>"
)


def widget_html(iid: str, prompt: str, widget: Widget, style: PageStyle) -> str:
    a = f"/a/{iid}/"
    robot = _ROBOT if widget.robot else ""
    return (
        f'<section class="vc" data-part="widget" aria-label="Security check">'
        f'<header class="vc-head"><div class="vc-brand"><span class="vc-shield"></span>{html.escape(style.brand)}'
        f'</div><p class="vc-prompt" data-part="prompt">{html.escape(prompt)}</p></header>'
        f'<div class="vc-body vc-{widget.kind}">{_body(widget, a)}</div>{robot}'
        '<footer class="vc-foot"><button type="button" class="vc-icon" data-part="decoy-refresh" '
        'title="New challenge">&#8635;</button><button type="button" class="vc-icon" data-part="decoy-help" '
        'title="Help">?</button><span class="vc-status" data-part="status" role="status"></span>'
        '<button type="button" class="vc-verify" data-part="verify">Verify</button></footer></section>'
    )


def _config(iid: str, widget: Widget) -> str:
    cfg = {
        "id": iid,
        "kind": widget.kind,
        "params": widget.params,
        "robot": widget.robot,
        "post": f"/api/answer/{iid}",
        "assets": f"/a/{iid}/",
    }
    return json.dumps(cfg, separators=(",", ":")).replace("</", "<\\/")


def render_page(iid: str, prompt: str, widget: Widget, style: PageStyle) -> str:
    """The whole HTML page for one instance."""
    heading, fields, submit, extra = _host(style)
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{html.escape(style.site)} - {html.escape(heading)}</title>
<link rel="stylesheet" href="/static/captcha.css">
<style>:root{{--accent:{style.accent};--page-bg:{style.page_bg};--font:{style.font}}}</style>
</head><body class="hp-{style.template}">
<nav class="hp-nav"><b class="hp-logo">{html.escape(style.site)}</b><span class="hp-menu"><a href="#">Help</a>
<a href="#">Contact</a></span></nav>
<main class="hp-main">
<form class="hp-card" onsubmit="return false">
<h1>{html.escape(heading)}</h1>{fields}<div class="hp-extra">{extra}</div>
<button type="button" class="hp-submit" data-part="page-submit">{html.escape(submit)}</button>
<p class="hp-note" data-part="page-note"></p>
</form>
{widget_html(iid, prompt, widget, style)}
</main>
<script type="application/json" id="vc-config">{_config(iid, widget)}</script>
<script src="/static/captcha.js"></script>
</body></html>
"""
