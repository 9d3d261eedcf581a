"""I. Timing, behaviour and widget mechanics (5 types)."""

from __future__ import annotations

import math
import random

from PIL import Image, ImageDraw

from venuskit.synth.captcha import draw as D
from venuskit.synth.captcha.build import W, click_puzzle, line_puzzle, points_puzzle
from venuskit.synth.captcha.families.grid import icon_grid
from venuskit.synth.captcha.registry import register
from venuskit.synth.captcha.spec import Puzzle, Target, Widget

HOLD_MAX_MS = 8000


@register("hold_button", "mechanics", "hold", "press and hold until the bar fills", image_only=False)
def hold_button(rng: random.Random) -> Puzzle:
    fill_ms = rng.choice((600, 700, 800))
    label = rng.choice(("Press and hold", "Hold to verify", "Hold me"))
    widget = Widget("hold", {"w": 0, "h": 0, "label": label, "fill_ms": fill_ms})
    answer = {"check": "hold", "min_ms": fill_ms, "max_ms": HOLD_MAX_MS}
    return Puzzle(
        "Press and hold the button until the bar is full, then let go.",
        widget,
        {},
        answer,
        (Target("the hold button", "hold"),),
    )


@register("robot_grid", "mechanics", "grid", "tick 'I'm not a robot' and solve the nested image grid")
def robot_grid(rng: random.Random) -> Puzzle:
    return icon_grid(rng, robot=True)


@register("double_click", "mechanics", "click", "double-click the named icon")
def double_click(rng: random.Random) -> Puzzle:
    h, n = 160, 5
    names = rng.sample(D.ICON_NAMES, n)
    img = D.background(rng, W, h)
    d = ImageDraw.Draw(img)
    boxes = [
        D.grow(D.draw_icon(d, name, x, y, 22, D.COLORS[rng.choice(list(D.COLORS))], rng.uniform(-20, 20)), 3)
        for name, (x, y) in zip(names, D.spread(rng, n, W, h, 30, 70), strict=False)
    ]
    label = D.icon_label(names[0])
    return click_puzzle(
        f"Double-click the {label}.",
        img,
        {"check": "dbl", "boxes": [[round(v, 1) for v in boxes[0]]]},
        [(f"the {label}", boxes[0])],
    )


@register("pin_pad", "mechanics", "click", "enter a code on a scrambled keypad")
def pin_pad(rng: random.Random) -> Puzzle:
    code = rng.sample("0123456789", 4)
    keys = list("0123456789") + ["", ""]
    rng.shuffle(keys)
    img = Image.new("RGB", (W, 232), (238, 240, 245))
    d = ImageDraw.Draw(img)
    d.text((12, 20), "Code:", font=D.font(16, "sans-bold"), fill=(70, 70, 80), anchor="lm")
    for i, ch in enumerate(code):
        D.text_center(d, (92 + i * 34, 20), ch, D.font(24, "serif-bold"), D.random_dark(rng))
    boxes = {}
    for i, ch in enumerate(keys):
        x, y = 40 + (i % 3) * 82, 44 + (i // 3) * 46
        box = (x, y, x + 74, y + 40)
        d.rounded_rectangle(box, 6, fill=(255, 255, 255), outline=(150, 150, 160), width=2)
        if ch:
            D.text_center(d, (x + 37, y + 20), ch, D.font(20, "sans-bold"), (30, 30, 40))
            boxes[ch] = box
    return points_puzzle(
        "Type the code shown at the top by clicking the keys on the keypad.",
        img,
        [boxes[c] for c in code],
        [f"the key {c}" for c in code],
        True,
    )


@register("gesture_trace", "mechanics", "line", "trace a dotted shape through numbered points")
def gesture_trace(rng: random.Random) -> Puzzle:
    h = 190
    while True:
        pts = D.spread(rng, rng.randint(3, 4), W, h, 30, 70)
        if all(math.dist(a, b) >= 70 for a, b in zip(pts, pts[1:], strict=False)):
            break
    pts = [(round(x), round(y)) for x, y in pts]
    img = D.background(rng, W, h, "plain")
    d = ImageDraw.Draw(img)
    for (x1, y1), (x2, y2) in zip(pts, pts[1:], strict=False):
        n = max(2, int(math.dist((x1, y1), (x2, y2)) / 9))
        for i in range(n + 1):
            x, y = x1 + (x2 - x1) * i / n, y1 + (y2 - y1) * i / n
            d.ellipse((x - 2, y - 2, x + 2, y + 2), fill=(110, 110, 120))
    for i, (x, y) in enumerate(pts):
        d.ellipse((x - 11, y - 11, x + 11, y + 11), fill=(255, 255, 255), outline=(60, 60, 70), width=2)
        D.text_center(d, (x, y), str(i + 1), D.font(12, "sans-bold"), (40, 40, 50))
    answer = {"check": "gesture", "points": [list(p) for p in pts], "tol": 14}
    return line_puzzle(
        "Trace the dotted line from point 1 through the numbered points in order, one stroke each.",
        img,
        answer,
        [(f"point {i + 1}", (x - 11, y - 11, x + 11, y + 11)) for i, (x, y) in enumerate(pts)],
    )
