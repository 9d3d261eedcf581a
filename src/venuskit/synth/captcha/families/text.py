"""A. Text recognition: type the characters (10 types)."""

from __future__ import annotations

import math
import random
from collections.abc import Sequence

from PIL import Image, ImageDraw

from venuskit.synth.captcha import draw as D
from venuskit.synth.captcha.build import W, text_puzzle
from venuskit.synth.captcha.registry import register
from venuskit.synth.captcha.spec import Puzzle

H = 100
ALNUM = "abcdefghjkmnpqrstuvwxyz23456789"  # no 0/o, 1/l/i: a reader could not tell them apart
WORDS = (
    "garden",
    "window",
    "bridge",
    "pencil",
    "rocket",
    "castle",
    "planet",
    "silver",
    "forest",
    "basket",
    "candle",
    "dragon",
    "island",
    "jacket",
    "kitten",
    "ladder",
    "marble",
    "needle",
    "orange",
    "pepper",
    "rabbit",
    "saddle",
    "tunnel",
    "violet",
    "walnut",
    "yellow",
    "anchor",
    "butter",
    "copper",
    "falcon",
    "guitar",
    "hammer",
    "lemon",
    "mirror",
    "napkin",
    "parrot",
    "puzzle",
    "ribbon",
    "spider",
    "turtle",
)
GREEK = "ΣΩΨΞΔ"
CYRILLIC = "ЖШЯБИЦФЛ"
LATIN_UP = "ADEFGHKMNPRTUWY"
# Upside down none reads as another character (P would read as d, U as n, 7 and L as each other).
INVERTIBLE = "ABCDEFGJKQRTVY34"
CASE_LETTERS = "abdefghjmnqrty"  # upper and lower case look different


def layout_glyphs(
    rng: random.Random,
    img: Image.Image,
    chars: Sequence[str],
    *,
    fills: Sequence[tuple],
    sizes: tuple[int, int] = (34, 44),
    rot: float = 25,
    spacing: float = 1.0,
    styles: Sequence[str] = (),
    stroke: int = 0,
    stroke_fills: Sequence[tuple] | None = None,
    angles: Sequence[float] | None = None,
    wave: float = 0.0,
) -> list[tuple[int, int, int, int]]:
    """Paste chars left to right, centred; returns each glyph's ink box."""
    styles = styles or ("sans-bold", "serif-bold", "mono-bold", "condensed-bold", "oblique-bold")
    tiles = []
    for i, ch in enumerate(chars):
        fnt = D.font(rng.randint(*sizes), rng.choice(list(styles)))
        angle = angles[i] if angles is not None else rng.uniform(-rot, rot)
        sf = stroke_fills[i] if stroke_fills else None
        tiles.append(D.glyph(ch, fnt, fills[i], angle, stroke, sf))
    advance = [t.width * spacing for t in tiles]
    x = (img.width - sum(advance) + advance[-1] * (1 - spacing)) / 2
    phase, boxes = rng.uniform(0, 6.3), []
    for i, t in enumerate(tiles):
        cy = img.height / 2 + rng.uniform(-6, 6) + wave * math.sin(phase + i * 1.1)
        px, py = round(x), round(cy - t.height / 2)
        img.paste(t, (px, py), t)
        boxes.append(D.ink_box(t, px, py))
        x += advance[i]
    return boxes


def union(boxes: Sequence[Sequence[float]]) -> tuple[float, float, float, float]:
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))


def _code(rng: random.Random, n: int, alphabet: str = ALNUM) -> str:
    return "".join(rng.choice(alphabet) for _ in range(n))


def _show_case(rng: random.Random, s: str) -> str:
    return "".join(c.upper() if rng.random() < 0.4 else c for c in s)


@register("text_warped", "text", "text", "warped alphanumerics with a noise curve and dots")
def text_warped(rng: random.Random) -> Puzzle:
    code = _code(rng, rng.randint(5, 6))
    img = D.background(rng, W, H)
    ink = D.random_dark(rng)
    boxes = layout_glyphs(rng, img, _show_case(rng, code), fills=[D.jitter(rng, ink, 30) for _ in code])
    img = D.sine_warp(img, rng.uniform(3, 6), rng.uniform(90, 160), rng.uniform(0, 6.3), img.getpixel((0, 0)))
    d = ImageDraw.Draw(img)
    D.noise_curve(d, rng, W, H, ink, 2)
    D.noise_dots(d, rng, W, H, 90, [ink, D.random_dark(rng)])
    return text_puzzle("Type the characters you see in the picture.", img, code, region=union(boxes))


@register("text_multicolor", "text", "text", "multicoloured glyphs on a multicoloured background")
def text_multicolor(rng: random.Random) -> Puzzle:
    code = _code(rng, rng.randint(5, 6))
    img = D.background(rng, W, H, "blotches")
    d = ImageDraw.Draw(img)
    for _ in range(8):
        x, y, r = rng.uniform(0, W), rng.uniform(0, H), rng.uniform(20, 50)
        d.ellipse(
            (x - r, y - r, x + r, y + r), fill=D.mix(D.random_light(rng), rng.choice(list(D.COLORS.values())), 0.3)
        )
    fills = [D.mix(rng.choice(list(D.COLORS.values())), (0, 0, 0), 0.15) for _ in code]
    boxes = layout_glyphs(rng, img, _show_case(rng, code), fills=fills)
    D.noise_dots(d, rng, W, H, 140, list(D.COLORS.values()))
    return text_puzzle("Type the characters shown in the image.", img, code, region=union(boxes))


@register("text_overlap", "text", "text", "crowded, overlapping glyphs")
def text_overlap(rng: random.Random) -> Puzzle:
    code = _code(rng, rng.randint(5, 6))
    img = D.background(rng, W, H, "plain")
    ink = D.random_dark(rng)
    boxes = layout_glyphs(
        rng,
        img,
        _show_case(rng, code),
        fills=[ink] * len(code),
        sizes=(42, 50),
        rot=15,
        spacing=0.72,
        styles=("sans-bold", "condensed-bold", "serif-bold"),
    )
    D.noise_curve(ImageDraw.Draw(img), rng, W, H, ink, 1)
    return text_puzzle("Enter the characters, even where they overlap.", img, code, region=union(boxes))


@register("text_strike", "text", "text", "text struck through by occluding lines")
def text_strike(rng: random.Random) -> Puzzle:
    code = _code(rng, rng.randint(5, 6))
    img = D.background(rng, W, H)
    ink = D.random_dark(rng)
    boxes = layout_glyphs(rng, img, _show_case(rng, code), fills=[ink] * len(code))
    band = union(boxes)
    d = ImageDraw.Draw(img)
    for _ in range(rng.randint(2, 3)):
        y1, y2 = rng.uniform(band[1] + 8, band[3] - 8), rng.uniform(band[1] + 8, band[3] - 8)
        d.line((band[0] - 20, y1, band[2] + 20, y2), fill=ink, width=rng.randint(2, 3))
    return text_puzzle("Type the text behind the lines.", img, code, region=band)


@register("text_hollow", "text", "text", "outline (hollow) font")
def text_hollow(rng: random.Random) -> Puzzle:
    code = _code(rng, rng.randint(5, 6))
    img = D.background(rng, W, H, rng.choice(("plain", "gradient")))
    ink = D.random_dark(rng)
    boxes = layout_glyphs(
        rng,
        img,
        _show_case(rng, code),
        fills=[(0, 0, 0, 0)] * len(code),
        sizes=(46, 54),
        rot=15,
        stroke=2,
        stroke_fills=[ink] * len(code),
        styles=("sans-bold", "serif-bold"),
    )
    D.noise_dots(ImageDraw.Draw(img), rng, W, H, 60, [ink])
    return text_puzzle("Type the outlined characters.", img, code, region=union(boxes))


@register("text_wavy_word", "text", "text", "a dictionary word on a wavy baseline")
def text_wavy_word(rng: random.Random) -> Puzzle:
    word = rng.choice(WORDS)
    img = D.background(rng, W, H)
    ink = D.random_dark(rng)
    boxes = layout_glyphs(
        rng,
        img,
        word,
        fills=[ink] * len(word),
        sizes=(34, 40),
        rot=12,
        wave=12,
        styles=("serif-bold", "serif", "sans-bold"),
    )
    img = D.sine_warp(img, 3, 120, rng.uniform(0, 6.3), img.getpixel((0, 0)))
    D.noise_curve(ImageDraw.Draw(img), rng, W, H, D.mix(ink, (255, 255, 255), 0.4), 2)
    return text_puzzle("Type the word.", img, word, region=union(boxes))


@register("text_multiscript", "text", "text", "Latin, Greek and Cyrillic letters mixed")
def text_multiscript(rng: random.Random) -> Puzzle:
    chars = rng.sample(LATIN_UP, 2) + rng.sample(GREEK, 2) + rng.sample(CYRILLIC, 2)
    rng.shuffle(chars)
    img = D.background(rng, W, H)
    ink = D.random_dark(rng)
    boxes = layout_glyphs(rng, img, chars, fills=[ink] * 6, rot=15, styles=("sans-bold", "serif-bold", "mono-bold"))
    D.noise_dots(ImageDraw.Draw(img), rng, W, H, 70, [ink])
    return text_puzzle(
        "Type the letters exactly as shown (they come from several alphabets).",
        img,
        "".join(chars),
        region=union(boxes),
    )


@register("text_color_only", "text", "text", "type only the characters of one colour")
def text_color_only(rng: random.Random) -> Puzzle:
    names = rng.sample(["red", "blue", "green", "orange", "purple"], 2)
    n = rng.randint(7, 8)
    code = _code(rng, n)
    picks = set(rng.sample(range(n), rng.randint(3, 4)))
    fills = [D.COLORS[names[0]] if i in picks else D.COLORS[names[1]] for i in range(n)]
    img = D.background(rng, W, H, "plain")
    boxes = layout_glyphs(rng, img, code.upper(), fills=fills, sizes=(32, 38), rot=15)
    answer = "".join(c for i, c in enumerate(code) if i in picks)
    return text_puzzle(
        f"Type only the {names[0]} characters, from left to right.",
        img,
        answer,
        region=union([b for i, b in enumerate(boxes) if i in picks]),
    )


@register("text_inverted_only", "text", "text", "type only the upside-down characters")
def text_inverted_only(rng: random.Random) -> Puzzle:
    n = 7
    chars = [rng.choice(INVERTIBLE) for _ in range(n)]
    flipped = set(rng.sample(range(n), 3))
    angles = [180 + rng.uniform(-8, 8) if i in flipped else rng.uniform(-8, 8) for i in range(n)]
    img = D.background(rng, W, H, rng.choice(("plain", "gradient")))
    ink = D.random_dark(rng)
    boxes = layout_glyphs(
        rng, img, chars, fills=[ink] * n, sizes=(34, 38), angles=angles, styles=("sans-bold", "serif-bold")
    )
    answer = "".join(c for i, c in enumerate(chars) if i in flipped)
    return text_puzzle(
        "Type only the characters that are upside down, from left to right.",
        img,
        answer,
        region=union([b for i, b in enumerate(boxes) if i in flipped]),
    )


@register("text_case_sensitive", "text", "text", "mixed-case letters; case matters")
def text_case_sensitive(rng: random.Random) -> Puzzle:
    letters = [rng.choice(CASE_LETTERS) for _ in range(6)]
    upper = set(rng.sample(range(6), 3))
    code = "".join(c.upper() if i in upper else c for i, c in enumerate(letters))
    img = D.background(rng, W, H)
    ink = D.random_dark(rng)
    boxes = layout_glyphs(rng, img, code, fills=[ink] * 6, rot=10, styles=("sans-bold", "serif-bold"))
    D.noise_curve(ImageDraw.Draw(img), rng, W, H, ink, 1)
    return text_puzzle(
        "Type the letters exactly; upper and lower case matter.", img, code, case=True, region=union(boxes)
    )
