"""B. Arithmetic, counting and logic (10 types)."""

from __future__ import annotations

import math
import random

from PIL import Image, ImageDraw

from venuskit.synth.captcha import draw as D
from venuskit.synth.captcha.build import W, arrows_puzzle, int_puzzle, point_puzzle, text_puzzle
from venuskit.synth.captcha.families.text import WORDS, layout_glyphs, union
from venuskit.synth.captcha.registry import register
from venuskit.synth.captcha.spec import Puzzle, Target

NUMBER_WORDS = (
    "zero",
    "one",
    "two",
    "three",
    "four",
    "five",
    "six",
    "seven",
    "eight",
    "nine",
    "ten",
    "eleven",
    "twelve",
    "thirteen",
    "fourteen",
    "fifteen",
    "sixteen",
    "seventeen",
    "eighteen",
    "nineteen",
    "twenty",
)
DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
COLOR_WORDS = ("red", "green", "blue", "yellow", "purple", "orange", "brown", "pink")
THINGS = ("table", "horse", "spoon", "river", "chair", "cloud", "pencil", "window", "apple", "train")
ORDINALS = ("first", "second", "third", "fourth", "fifth")


def text_block(
    img: Image.Image, lines: list[str], size: int = 20, fill: D.RGB = (30, 30, 30), style: str = "sans-bold"
) -> tuple[float, float, float, float]:
    """Centred lines of text; returns the block's box."""
    d = ImageDraw.Draw(img)
    fnt = D.font(size, style)
    step = size * 1.35
    top = img.height / 2 - step * (len(lines) - 1) / 2
    boxes = []
    for i, line in enumerate(lines):
        D.text_center(d, (img.width / 2, top + i * step), line, fnt, fill)
        boxes.append(d.textbbox((img.width / 2, top + i * step), line, font=fnt, anchor="mm"))
    return union(boxes)


def wrap(text: str, width: int = 28) -> list[str]:
    lines, cur = [], ""
    for word in text.split():
        if cur and len(cur) + 1 + len(word) > width:
            lines.append(cur)
            cur = word
        else:
            cur = f"{cur} {word}".strip()
    return lines + [cur]


def _expr(rng: random.Random) -> tuple[int, str, int, int]:
    op = rng.choice("+-x")
    if op == "+":
        a, b = rng.randint(10, 89), rng.randint(2, 49)
        return a, op, b, a + b
    if op == "-":
        a = rng.randint(20, 99)
        b = rng.randint(2, a - 5)
        return a, op, b, a - b
    a, b = rng.randint(2, 12), rng.randint(2, 9)
    return a, op, b, a * b


@register("math_image", "arithmetic", "text", "a distorted equation: type the result")
def math_image(rng: random.Random) -> Puzzle:
    a, op, b, value = _expr(rng)
    shown = f"{a}{'×' if op == 'x' else ('−' if op == '-' else '+')}{b}=?"
    img = D.background(rng, W, 100)
    ink = D.random_dark(rng)
    layout_glyphs(
        rng, img, shown, fills=[ink] * len(shown), sizes=(34, 40), rot=12, styles=("sans-bold", "serif-bold")
    )
    d = ImageDraw.Draw(img)
    D.noise_curve(d, rng, W, 100, ink, 1)
    D.noise_dots(d, rng, W, 100, 60, [ink])
    return int_puzzle("Solve the equation and type the result.", img, value)


@register("math_words", "arithmetic", "text", "arithmetic written in words and digits")
def math_words(rng: random.Random) -> Puzzle:
    op = rng.choice(("plus", "minus", "times"))
    a, b = (rng.randint(2, 12), rng.randint(2, 9)) if op == "times" else (rng.randint(5, 20), rng.randint(1, 9))
    value = a + b if op == "plus" else (a - b if op == "minus" else a * b)
    sa = NUMBER_WORDS[a] if rng.random() < 0.6 else str(a)
    sb = NUMBER_WORDS[b] if sa.isdigit() or rng.random() < 0.5 else str(b)
    img = D.background(rng, W, 100, rng.choice(("plain", "gradient")))
    text_block(img, [f"What is {sa} {op} {sb}?"], 22, D.random_dark(rng))
    D.noise_dots(ImageDraw.Draw(img), rng, W, 100, 40, [D.random_dark(rng)])
    return int_puzzle("Answer the question in the picture with a number.", img, value)


def _question(rng: random.Random) -> tuple[str, str, list[str]]:
    kind = rng.randrange(6)
    if kind == 0:
        colour, things = rng.choice(COLOR_WORDS), rng.sample(THINGS, 2)
        opts = [colour, *things]
        rng.shuffle(opts)
        return f"Which of these is a colour: {', '.join(opts)}?", colour, []
    if kind == 1:
        nums = rng.sample(range(10, 99), 3)
        return f"Type the largest number: {', '.join(map(str, nums))}", str(max(nums)), []
    if kind == 2:
        word, k = rng.choice(WORDS).upper(), rng.randrange(5)
        return f"What is the {ORDINALS[k]} letter of the word {word}?", word[k].lower(), []
    if kind == 3:
        i = rng.randrange(7)
        return f"Which day comes after {DAYS[i]}?", DAYS[(i + 1) % 7].lower(), []
    if kind == 4:
        word = rng.choice(WORDS)
        return f"Type the word {word.upper()} backwards.", word[::-1], []
    word = rng.choice(WORDS)
    return f"How many letters are in the word {word.upper()}?", str(len(word)), [NUMBER_WORDS[len(word)]]


@register("logic_qa", "arithmetic", "text", "a common-sense or logic question from a templated bank")
def logic_qa(rng: random.Random) -> Puzzle:
    question, answer, alts = _question(rng)
    img = D.background(rng, W, 110, "plain")
    box = text_block(img, wrap(question, 26), 19, D.random_dark(rng))
    return text_puzzle("Answer the question in the picture.", img, answer, alts=alts, region=box)


@register("dice_sum", "arithmetic", "text", "add up the dice")
def dice_sum(rng: random.Random) -> Puzzle:
    n = rng.randint(2, 4)
    values = [rng.randint(1, 6) for _ in range(n)]
    img = D.background(rng, W, 150)
    d = ImageDraw.Draw(img)
    step = W / n  # one column per die: they never overlap
    spots = [(step * (i + 0.5) + rng.uniform(-8, 8), 75 + rng.uniform(-28, 28)) for i in range(n)]
    for (x, y), v in zip(spots, values, strict=False):
        face = rng.choice([(255, 255, 255), (250, 240, 200), (220, 235, 255), (255, 220, 220)])
        D.draw_die(
            d,
            x,
            y,
            rng.randint(42, 50),
            v,
            face,
            rng.choice([(20, 20, 20), (180, 20, 20), (20, 60, 160)]),
            rng.uniform(-35, 35),
        )
    return int_puzzle("Type the sum of all the dice.", img, sum(values))


RING_POINTS = (10, 5, 2)  # bull, middle, outer


def _board(d: ImageDraw.ImageDraw, rng: random.Random, cx: float, cy: float, r: float, hits: list[int]) -> None:
    """A dartboard: bull (10), middle ring (5), outer ring (2), each value written at the ring's top;
    darts land in the lower half, well inside their ring."""
    bands = [(0.0, 0.33), (0.33, 0.66), (0.66, 1.0)]  # bull, middle, outer as fractions of r
    for (_, hi), col in zip(reversed(bands), [(40, 120, 60), (245, 245, 235), (220, 60, 60)], strict=False):
        d.ellipse((cx - hi * r, cy - hi * r, cx + hi * r, cy + hi * r), fill=col, outline=(30, 30, 30), width=1)
    fnt = D.font(11, "sans-bold")
    for (lo, hi), pts in zip(bands, RING_POINTS, strict=False):
        y = cy - (lo + hi) / 2 * r if lo else cy - 0.12 * r
        D.text_center(d, (cx, y), str(pts), fnt, (0, 0, 0), 2, (255, 255, 255))
    for ring in hits:
        lo, hi = bands[ring]
        ang = rng.uniform(0.35, 2.8)  # below the centre: never over the labels
        rad = r * (rng.uniform(0.12, 0.22) if ring == 0 else rng.uniform(lo + 0.1, hi - 0.1))
        x, y = cx + rad * math.cos(ang), cy + rad * math.sin(ang)
        d.line((x, y, x + 9, y - 9), fill=(60, 60, 60), width=2)
        d.ellipse((x - 3, y - 3, x + 3, y + 3), fill=(20, 20, 200), outline=(255, 255, 255))


@register("dart_pick", "arithmetic", "click", "click the board whose darts sum to N")
def dart_pick(rng: random.Random) -> Puzzle:
    while True:
        hits = [[rng.randrange(3) for _ in range(3)] for _ in range(3)]
        sums = [sum(RING_POINTS[h] for h in hs) for hs in hits]
        if len(set(sums)) == 3:
            break
    k = rng.randrange(3)
    img = D.background(rng, W, 130, "plain")
    d = ImageDraw.Draw(img)
    for i, hs in enumerate(hits):
        _board(d, rng, 55 + i * 105, 65, 48, hs)
    box = (55 + k * 105 - 50, 15, 55 + k * 105 + 50, 115)
    return point_puzzle(f"Click the board whose darts add up to {sums[k]}.", img, box, "the matching dartboard")


@register("color_count", "arithmetic", "text", "count the shapes of one colour and kind")
def color_count(rng: random.Random) -> Puzzle:
    colours, shapes = ["red", "blue", "green", "orange"], ["circle", "square", "triangle", "star"]
    colour, shape = rng.choice(colours), rng.choice(shapes)
    k, n = rng.randint(2, 6), rng.randint(11, 14)
    items = [(colour, shape)] * k
    while len(items) < n:
        c, s = rng.choice(colours), rng.choice(shapes)
        if (c, s) != (colour, shape):
            items.append((c, s))
    img = D.background(rng, W, 170, "plain")
    d = ImageDraw.Draw(img)
    for (x, y), (c, s) in zip(D.spread(rng, n, W, 170, 18, 36), items, strict=False):
        D.draw_shape(d, s, x, y, 14, D.COLORS[c], rng.uniform(0, 360) if s != "circle" else 0)
    return int_puzzle(f"How many {colour} {shape}s are in the picture?", img, k)


@register("hole_count", "arithmetic", "text", "count the shapes that have a hole")
def hole_count(rng: random.Random) -> Puzzle:
    n, k = rng.randint(7, 9), rng.randint(1, 5)
    img = D.background(rng, W, 170, "plain")
    bg = img.getpixel((0, 0))
    d = ImageDraw.Draw(img)
    holed = set(rng.sample(range(n), k))
    for i, (x, y) in enumerate(D.spread(rng, n, W, 170, 24, 46)):
        kind = rng.choice(["circle", "square", "hexagon", "pentagon"])
        col, ang = D.COLORS[rng.choice(["red", "blue", "green", "purple", "orange"])], rng.uniform(0, 90)
        D.draw_shape(d, kind, x, y, 20, col, ang)
        if i in holed:
            D.draw_shape(d, rng.choice(["circle", "square"]), x, y, rng.uniform(7, 10), bg, ang)
    return int_puzzle("How many shapes have a hole in them?", img, k)


@register("arith_tile", "arithmetic", "click", "click the tile whose expression equals N")
def arith_tile(rng: random.Random) -> Puzzle:
    while True:
        exprs = [_expr(rng) for _ in range(6)]
        vals = [e[3] for e in exprs]
        k = rng.randrange(6)
        if vals.count(vals[k]) == 1:
            break
    img = D.background(rng, W, 150, "plain")
    d = ImageDraw.Draw(img)
    fnt = D.font(20, "sans-bold")
    boxes = []
    for i, (a, op, b, _) in enumerate(exprs):
        x, y = 8 + (i % 3) * 104, 8 + (i // 3) * 70
        box = (x, y, x + 96, y + 62)
        d.rounded_rectangle(box, 8, fill=D.random_light(rng), outline=(120, 120, 120), width=2)
        D.text_center(
            d,
            (x + 48, y + 31),
            f"{a} {'×' if op == 'x' else ('−' if op == '-' else '+')} {b}",
            fnt,
            D.random_dark(rng),
        )
        boxes.append(box)
    return point_puzzle(f"Click the tile whose result is {vals[k]}.", img, boxes[k], "the tile with the right result")


def _sequence(rng: random.Random) -> list[int]:
    kind = rng.randrange(5)
    if kind == 0:
        a, step = rng.randint(1, 20), rng.randint(2, 9)
        return [a + step * i for i in range(5)]
    if kind == 1:
        a, r = rng.randint(1, 5), rng.choice((2, 3))
        return [a * r**i for i in range(5)]
    if kind == 2:
        a = rng.randint(1, 5)
        return [(a + i) ** 2 for i in range(5)]
    if kind == 3:
        a, b = rng.randint(1, 5), rng.randint(1, 5)
        seq = [a, b]
        while len(seq) < 5:
            seq.append(seq[-1] + seq[-2])
        return seq
    a, p, q = rng.randint(1, 10), rng.randint(2, 6), rng.randint(1, 4)
    seq = [a]
    for i in range(4):
        seq.append(seq[-1] + (p if i % 2 == 0 else -q))
    return seq


@register("sequence_next", "arithmetic", "text", "complete the number sequence")
def sequence_next(rng: random.Random) -> Puzzle:
    seq = _sequence(rng)
    img = D.background(rng, W, 100)
    text_block(img, [", ".join(map(str, seq[:4])) + ", ?"], 26, D.random_dark(rng))
    D.noise_dots(ImageDraw.Draw(img), rng, W, 100, 40, [D.random_dark(rng)])
    return int_puzzle("Type the number that comes next.", img, seq[4])


def _stars(rng: random.Random, k: int, w: int, h: int) -> Image.Image:
    img = D.background(rng, w, h, "plain")
    d = ImageDraw.Draw(img)
    for x, y in D.spread(rng, k, w, h, 14, 26):
        D.draw_icon(d, "star", x, y, 11, D.COLORS[rng.choice(["orange", "blue", "red", "purple"])], rng.uniform(0, 70))
    return img


@register("count_match_pager", "arithmetic", "arrows", "page with arrows to the picture with the same count")
def count_match_pager(rng: random.Random) -> Puzzle:
    n = 6
    counts = rng.sample(range(1, 10), n)
    j = rng.randrange(1, n)
    ref = _stars(rng, counts[j], 100, 150)
    frames = {f"frame-{i}": D.png(_stars(rng, c, 200, 150)) for i, c in enumerate(counts)}
    params = {"w": 200, "h": 150, "mode": "index", "n": n, "start": 0, "ref": [100, 150]}
    ops = ["next"] * j if j <= n // 2 else ["prev"] * (n - j)
    answer = {"check": "arrows", "value": j, "period": n, "oracle": {"ops": ops}}
    return arrows_puzzle(
        "Use the arrows until the right picture has as many stars as the left one.",
        None,
        params,
        answer,
        frames | {"ref": D.png(ref)},
        (Target("the next arrow", "btn-next"),),
    )
