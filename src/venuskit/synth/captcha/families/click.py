"""E. Point-and-click localisation, including click-in-order (12 types)."""

from __future__ import annotations

import math
import random

from PIL import Image, ImageChops, ImageDraw, ImageFilter

from venuskit.synth.captcha import draw as D
from venuskit.synth.captcha.build import W, click_puzzle, point_puzzle, points_puzzle
from venuskit.synth.captcha.registry import register
from venuskit.synth.captcha.spec import Puzzle

HINT_H = 40
LETTERS = "ABDEFGHKMNPRTY"


def _hint_strip(img: Image.Image, label: str) -> ImageDraw.ImageDraw:
    d = ImageDraw.Draw(img)
    d.rectangle((0, 0, img.width, HINT_H), fill=(235, 238, 244))
    d.line((0, HINT_H, img.width, HINT_H), fill=(170, 170, 180), width=1)
    d.text((10, HINT_H / 2), label, font=D.font(13, "sans-bold"), fill=(60, 60, 70), anchor="lm")
    return d


@register("click_chars_order", "click", "click", "click the characters in the order shown")
def click_chars_order(rng: random.Random) -> Puzzle:
    h = 200
    img = D.background(rng, W, h, "plain")
    chars = rng.sample(LETTERS + "2345789", 6)
    order = chars[:4]
    d = _hint_strip(img, "Order:")
    for i, ch in enumerate(order):
        D.text_center(d, (80 + i * 34, HINT_H / 2), ch, D.font(22, "sans-bold"), (30, 30, 30))
    boxes = {}
    for ch, (x, y) in zip(chars, D.spread(rng, 6, W, h - HINT_H, 26, 60), strict=False):
        tile = D.glyph(
            ch,
            D.font(rng.randint(30, 38), rng.choice(["sans-bold", "serif-bold"])),
            D.random_dark(rng),
            rng.uniform(-30, 30),
        )
        x1, y1, _, _ = D.paste_center(img, tile, x, y + HINT_H)
        boxes[ch] = D.grow(D.ink_box(tile, x1, y1), 4)
    return points_puzzle(
        "Click the characters in the order shown at the top.",
        img,
        [boxes[c] for c in order],
        [f"the character {c}" for c in order],
        True,
    )


@register("click_icons_order", "click", "click", "click the icons in the order of the hint strip")
def click_icons_order(rng: random.Random) -> Puzzle:
    h = 200
    img = D.background(rng, W, h, "plain")
    names = rng.sample(D.ICON_NAMES, 5)
    order = names[: rng.randint(3, 4)]
    d = _hint_strip(img, "Order:")
    for i, name in enumerate(order):
        D.draw_icon(d, name, 82 + i * 36, HINT_H / 2, 13, (50, 50, 60))
    boxes = {}
    for name, (x, y) in zip(names, D.spread(rng, 5, W, h - HINT_H, 28, 64), strict=False):
        box = D.draw_icon(
            d, name, x, y + HINT_H, rng.uniform(17, 23), D.COLORS[rng.choice(list(D.COLORS))], rng.uniform(-40, 40)
        )
        boxes[name] = D.grow(box, 3)
    return points_puzzle(
        "Click the icons in the order shown at the top.",
        img,
        [boxes[n] for n in order],
        [f"the {D.icon_label(n)} icon" for n in order],
        True,
    )


@register("click_numbers_asc", "click", "click", "click the numbers from smallest to largest")
def click_numbers_asc(rng: random.Random) -> Puzzle:
    h, n = 180, rng.randint(4, 5)
    img = D.background(rng, W, h)
    d = ImageDraw.Draw(img)
    nums = rng.sample(range(1, 100), n)
    boxes = {}
    for v, (x, y) in zip(nums, D.spread(rng, n, W, h, 30, 66), strict=False):
        r = rng.uniform(22, 27)
        d.ellipse((x - r, y - r, x + r, y + r), fill=D.random_light(rng), outline=D.random_dark(rng), width=2)
        D.text_center(d, (x, y), str(v), D.font(20, "sans-bold"), D.random_dark(rng))
        boxes[v] = (x - r, y - r, x + r, y + r)
    order = sorted(nums)
    return points_puzzle(
        "Click the numbers from the smallest to the largest.",
        img,
        [boxes[v] for v in order],
        [f"the number {v}" for v in order],
        True,
    )


@register("click_shape", "click", "click", "click the named geometric shape")
def click_shape(rng: random.Random) -> Puzzle:
    h = 170
    kinds = rng.sample(list(D.SHAPES), 6)
    img = D.background(rng, W, h)
    d = ImageDraw.Draw(img)
    boxes = [
        D.draw_shape(d, k, x, y, rng.uniform(18, 24), D.COLORS[rng.choice(list(D.COLORS))], rng.uniform(-20, 20))
        for k, (x, y) in zip(kinds, D.spread(rng, 6, W, h, 30, 64), strict=False)
    ]
    return point_puzzle(f"Click the {kinds[0]}.", img, D.grow(boxes[0], 2), f"the {kinds[0]}")


ODD_PAIRS = (("E", "F"), ("O", "Q"), ("P", "R"), ("C", "G"), ("M", "N"), ("V", "Y"), ("8", "B"), ("6", "G"))


@register("click_odd_one", "click", "click", "click the one item that differs from the rest")
def click_odd_one(rng: random.Random) -> Puzzle:
    h, rows, cols = 180, 3, 5
    img = D.background(rng, W, h, "plain")
    d = ImageDraw.Draw(img)
    mode = rng.choice(("letter", "shade", "turn"))
    k = rng.randrange(rows * cols)
    colour = D.COLORS[rng.choice(["blue", "green", "purple", "red", "teal"])]
    normal, odd = rng.choice(ODD_PAIRS) if mode == "letter" else ("", "")
    icon = rng.choice(("arrow", "bolt", "moon", "heart", "drop", "tree"))
    base_angle = rng.choice((0, 90, 180, 270))
    box = (0, 0, 0, 0)
    for i in range(rows * cols):
        cx, cy = 32 + (i % cols) * 64, 30 + (i // cols) * 60
        if mode == "letter":
            D.text_center(d, (cx, cy), odd if i == k else normal, D.font(34, "sans-bold"), colour)
            b = (cx - 20, cy - 22, cx + 20, cy + 22)
        elif mode == "shade":
            b = D.draw_icon(
                d, icon, cx, cy, 20, D.mix(colour, (255, 255, 255), 0.45) if i == k else colour, base_angle
            )
        else:
            b = D.draw_icon(d, icon, cx, cy, 20, colour, base_angle + (180 if i == k else 0))
        if i == k:
            box = D.grow(b, 4)
    return point_puzzle("Click the one that is different from all the others.", img, box, "the odd one out")


@register("click_vowels", "click", "click", "click every vowel")
def click_vowels(rng: random.Random) -> Puzzle:
    h, n = 170, 8
    img = D.background(rng, W, h, "plain")
    nv = rng.randint(2, 3)
    chars = rng.sample("AEOU", nv) + rng.sample("BDFGHKMNPRTWY", n - nv)
    rng.shuffle(chars)
    boxes, labels = [], []
    for ch, (x, y) in zip(chars, D.spread(rng, n, W, h, 24, 52), strict=False):
        tile = D.glyph(
            ch,
            D.font(rng.randint(30, 36), rng.choice(["sans-bold", "serif-bold"])),
            D.random_dark(rng),
            rng.uniform(-20, 20),
        )
        x1, y1, _, _ = D.paste_center(img, tile, x, y)
        if ch in "AEOU":
            boxes.append(D.grow(D.ink_box(tile, x1, y1), 4))
            labels.append(f"the vowel {ch}")
    return points_puzzle("Click every vowel.", img, boxes, labels, False)


def _bezier(p0: D.Pt, p1: D.Pt, p2: D.Pt, p3: D.Pt, n: int = 40) -> list[D.Pt]:
    out = []
    for i in range(n + 1):
        t = i / n
        a, b, c, e = (1 - t) ** 3, 3 * (1 - t) ** 2 * t, 3 * (1 - t) * t**2, t**3
        out.append((a * p0[0] + b * p1[0] + c * p2[0] + e * p3[0], a * p0[1] + b * p1[1] + c * p2[1] + e * p3[1]))
    return out


@register("click_path_end", "click", "click", "click where the path from a coloured dot ends")
def click_path_end(rng: random.Random) -> Puzzle:
    h = 190
    img = D.background(rng, W, h, "plain")
    d = ImageDraw.Draw(img)
    names = rng.sample(["red", "blue", "green", "orange"], 3)
    starts = [(26, 35 + i * 60 + rng.uniform(-8, 8)) for i in range(3)]
    ends_y = rng.sample([35, 95, 155], 3)
    ends = [(W - 30 - rng.uniform(0, 20), y + rng.uniform(-8, 8)) for y in ends_y]
    ink = D.random_dark(rng)
    for s, e in zip(starts, ends, strict=False):
        c1 = (rng.uniform(80, 160), rng.uniform(10, h - 10))
        c2 = (rng.uniform(160, 240), rng.uniform(10, h - 10))
        d.line(_bezier(s, c1, c2, e), fill=ink, width=3, joint="curve")
        d.ellipse((e[0] - 6, e[1] - 6, e[0] + 6, e[1] + 6), outline=ink, width=2, fill=(255, 255, 255))
    for (x, y), name in zip(starts, names, strict=False):
        d.ellipse((x - 9, y - 9, x + 9, y + 9), fill=D.COLORS[name], outline=(255, 255, 255), width=2)
    ex, ey = ends[0]
    answer = {"check": "point_near", "point": [round(ex, 1), round(ey, 1)], "tol": 14}
    return click_puzzle(
        f"Click where the line starting at the {names[0]} dot ends.",
        img,
        answer,
        [("the end of the line", (ex - 8, ey - 8, ex + 8, ey + 8))],
    )


def _area(pts: list[D.Pt]) -> float:
    return abs(sum(x1 * y2 - x2 * y1 for (x1, y1), (x2, y2) in zip(pts, pts[1:] + pts[:1], strict=False))) / 2


@register("click_largest_region", "click", "click", "click the largest shape")
def click_largest_region(rng: random.Random) -> Puzzle:
    h, n = 180, 5
    img = D.background(rng, W, h)
    d = ImageDraw.Draw(img)
    while True:
        radii = [rng.uniform(12, 30) for _ in range(n)]
        kinds = [rng.choice(["circle", "square", "hexagon", "pentagon", "diamond"]) for _ in range(n)]
        areas = [_area(D.place(D.SHAPES[k], 0, 0, r)) for k, r in zip(kinds, radii, strict=False)]
        top = sorted(areas)
        if top[-1] >= 1.35 * top[-2]:
            break
    k = areas.index(top[-1])
    boxes = [
        D.draw_shape(d, kind, x, y, r, D.COLORS[rng.choice(list(D.COLORS))], rng.uniform(0, 40))
        for kind, r, (x, y) in zip(kinds, radii, D.spread(rng, n, W, h, 34, 70), strict=False)
    ]
    return point_puzzle("Click the largest shape.", img, D.grow(boxes[k], 1), "the largest shape")


@register("click_misleading", "click", "click", "click anywhere except the tempting button")
def click_misleading(rng: random.Random) -> Puzzle:
    h = 170
    img = D.background(rng, W, h)
    d = ImageDraw.Draw(img)
    bw, bh = 150, 56
    x, y = rng.uniform(10, W - bw - 10), rng.uniform(10, h - bh - 10)
    d.rounded_rectangle((x, y, x + bw, y + bh), 10, fill=(220, 38, 38), outline=(120, 0, 0), width=2)
    D.text_center(
        d,
        (x + bw / 2, y + bh / 2),
        rng.choice(["CLICK HERE", "PRESS ME", "VERIFY"]),
        D.font(18, "sans-bold"),
        (255, 255, 255),
    )
    avoid = D.grow((x, y, x + bw, y + bh), 6)
    corners = [(20, 20), (W - 20, 20), (20, h - 20), (W - 20, h - 20)]
    safe = max(
        corners,
        key=lambda p: min(
            math.dist(p, (avoid[0], avoid[1])),
            math.dist(p, (avoid[2], avoid[3])),
            abs(p[0] - (x + bw / 2)) + abs(p[1] - (y + bh / 2)),
        ),
    )
    answer = {
        "check": "point_avoid",
        "avoid": [[round(v, 1) for v in avoid]],
        "area": [0, 0, W, h],
        "oracle": {"point": list(safe)},
    }
    return click_puzzle(
        "Click anywhere in the picture except on the red button.",
        img,
        answer,
        [("a free spot in the picture", (safe[0] - 10, safe[1] - 10, safe[0] + 10, safe[1] + 10))],
    )


@register("click_grid_coord", "click", "click", "click the cell named by its coordinates")
def click_grid_coord(rng: random.Random) -> Puzzle:
    cols, rows, cw, ch, x0, y0 = 6, 5, 48, 30, 26, 24
    img = Image.new("RGB", (W, y0 + rows * ch + 4), D.random_light(rng))
    d = ImageDraw.Draw(img)
    fnt = D.font(13, "sans-bold")
    for c in range(cols):
        D.text_center(d, (x0 + c * cw + cw / 2, y0 / 2), "ABCDEF"[c], fnt, (40, 40, 40))
    for r in range(rows):
        D.text_center(d, (x0 / 2, y0 + r * ch + ch / 2), str(r + 1), fnt, (40, 40, 40))
    for c in range(cols + 1):
        d.line((x0 + c * cw, y0, x0 + c * cw, y0 + rows * ch), fill=(120, 120, 130), width=1)
    for r in range(rows + 1):
        d.line((x0, y0 + r * ch, x0 + cols * cw, y0 + r * ch), fill=(120, 120, 130), width=1)
    for _ in range(6):  # decoration inside random cells
        c, r = rng.randrange(cols), rng.randrange(rows)
        D.draw_icon(
            d,
            rng.choice(D.ICON_NAMES),
            x0 + c * cw + cw / 2,
            y0 + r * ch + ch / 2,
            9,
            D.COLORS[rng.choice(list(D.COLORS))],
        )
    c, r = rng.randrange(cols), rng.randrange(rows)
    name = f"{'ABCDEF'[c]}{r + 1}"
    box = (x0 + c * cw + 1, y0 + r * ch + 1, x0 + (c + 1) * cw - 1, y0 + (r + 1) * ch - 1)
    return point_puzzle(f"Click the cell {name} (column {name[0]}, row {name[1]}).", img, box, f"cell {name}")


@register("click_identical_pair", "click", "click", "click the two identical icons")
def click_identical_pair(rng: random.Random) -> Puzzle:
    h, n = 170, 7
    colours = ["red", "blue", "green", "orange", "purple"]
    combos = [(i, c) for i in D.ICON_NAMES for c in colours]
    rng.shuffle(combos)
    pair, rest = combos[0], combos[1 : n - 1]
    items = [pair, pair] + rest
    rng.shuffle(items)
    img = D.background(rng, W, h, "plain")
    d = ImageDraw.Draw(img)
    angle = rng.uniform(-15, 15)
    boxes = [
        D.grow(D.draw_icon(d, name, x, y, 20, D.COLORS[c], angle), 3)
        for (name, c), (x, y) in zip(items, D.spread(rng, n, W, h, 28, 60), strict=False)
    ]
    hits = [b for it, b in zip(items, boxes, strict=False) if it == pair]
    return points_puzzle(
        "Click the two pictures that are exactly the same.",
        img,
        hits,
        [f"a {pair[1]} {D.icon_label(pair[0])}"] * 2,
        False,
    )


MASK_CELL = 2


def _all_cover_first(shapes: list[tuple], w: int, h: int) -> bool:
    """Every later shape overlaps the first one, so 'the one at the back' has one reading."""

    def mask(kind: str, x: float, y: float, r: float, ang: float) -> Image.Image:
        m = Image.new("L", (w, h), 0)
        D.draw_shape(ImageDraw.Draw(m), kind, x, y, r, 255, ang)
        return m

    first = mask(*shapes[0])
    return all(D.mask_coverage(ImageChops.multiply(first, mask(*s)), (0, 0, w, h)) * w * h > 150 for s in shapes[1:])


@register("click_backmost", "click", "click", "click the shape at the very back of a stack")
def click_backmost(rng: random.Random) -> Puzzle:
    h = 180
    while True:
        img = D.background(rng, W, h, "plain")
        d = ImageDraw.Draw(img)
        labels = Image.new("L", (W, h), 0)
        ld = ImageDraw.Draw(labels)
        cx, cy = rng.uniform(120, 200), rng.uniform(70, 110)
        colours = rng.sample(list(D.COLORS), 4)
        shapes = [
            (
                rng.choice(["circle", "square", "hexagon", "diamond"]),
                rng.uniform(-45, 45) + cx,
                rng.uniform(-30, 30) + cy,
                rng.uniform(34, 46),
                rng.uniform(0, 60),
            )
            for _ in range(4)
        ]
        for i, (kind, x, y, r, ang) in enumerate(shapes):  # drawn back to front
            D.draw_shape(d, kind, x, y, r, D.COLORS[colours[i]], ang, (255, 255, 255), 2)
            D.draw_shape(ld, kind, x, y, r, i + 1, ang)
        back = labels.point(lambda v: 255 if v == 1 else 0)
        core = back.filter(ImageFilter.MinFilter(11))
        if core.getbbox() and _all_cover_first(shapes, W, h):
            break
    bx = core.getbbox()
    px, py = next((x, y) for y in range(bx[1], bx[3]) for x in range(bx[0], bx[2]) if core.getpixel((x, y)))
    small = back.resize((W // MASK_CELL, h // MASK_CELL), Image.BOX)
    rows = [
        "".join("1" if small.getpixel((c, r)) >= 128 else "0" for c in range(small.width)) for r in range(small.height)
    ]
    box = back.getbbox()
    answer = {"check": "point_mask", "cell": MASK_CELL, "rows": rows, "box": list(box), "oracle": {"point": [px, py]}}
    return click_puzzle("Click the shape that is at the very back.", img, answer, [("the shape at the back", box)])
