"""D. Rotation (6 types). Angles are clockwise on screen; a slider turns 360 degrees over its travel."""

from __future__ import annotations

import random

from PIL import Image, ImageDraw

from venuskit.synth.captcha import draw as D
from venuskit.synth.captcha.build import W, arrows_puzzle, point_puzzle, points_puzzle, slider_puzzle
from venuskit.synth.captcha.families.text import INVERTIBLE
from venuskit.synth.captcha.registry import register
from venuskit.synth.captcha.spec import Puzzle, Target

TRACK = 300
TRAVEL = TRACK - 44  # slider pixels for one full turn
DEG = 360 / TRAVEL


def _turn_target(rng: random.Random) -> tuple[int, float]:
    """A slider target (px) at least 30 degrees from upright, and its angle."""
    px = rng.randint(round(30 / DEG), round(330 / DEG))
    return px, px * DEG


@register("rotate_upright", "rotation", "slider", "turn the picture upright with a slider")
def rotate_upright(rng: random.Random) -> Puzzle:
    px, angle = _turn_target(rng)
    pic = D.scene(rng, 160, 160).rotate(angle, resample=Image.BICUBIC)  # counter-clockwise: clockwise undoes it
    return slider_puzzle(
        "Drag the slider to turn the picture upright.",
        D.circle_crop(pic),
        mode="rotate",
        target=px,
        tol=5,
        period=TRAVEL,
        extra={"deg": DEG, "round": True},
    )


FIGURES = ("arrow", "bolt", "moon", "heart", "drop", "house", "tree")


def _figure(rng: random.Random, name: str, colour: D.RGB, size: int, angle: float, bg: D.RGB) -> Image.Image:
    img = Image.new("RGB", (size, size), bg)
    d = ImageDraw.Draw(img)
    d.ellipse((2, 2, size - 3, size - 3), outline=(150, 150, 150), width=2)
    D.draw_icon(d, name, size / 2, size / 2, size * 0.36, colour, angle)
    return img


@register("rotate_match_buttons", "rotation", "arrows", "turn the figure in 45-degree steps to match the reference")
def rotate_match_buttons(rng: random.Random) -> Puzzle:
    name, colour, bg = (
        rng.choice(FIGURES),
        D.COLORS[rng.choice(["red", "blue", "green", "purple"])],
        D.random_light(rng),
    )
    alpha = 45 * rng.randrange(8)
    k = rng.randrange(1, 8)
    beta = (alpha - 45 * k) % 360
    ref = _figure(rng, name, colour, 100, alpha, bg)
    img = _figure(rng, name, colour, 150, beta, bg)
    params = {"w": 150, "h": 150, "mode": "rotate", "n": 8, "step": 45, "start": 0, "ref": [100, 100]}
    ops = ["cw"] * k if k <= 4 else ["ccw"] * (8 - k)
    answer = {"check": "arrows", "value": k, "period": 8, "oracle": {"ops": ops}}
    return arrows_puzzle(
        "Turn the right figure with the arrows until it matches the left one.",
        img,
        params,
        answer,
        {"ref": D.png(ref)},
        (Target("the turn clockwise button", "btn-cw"),),
    )


@register("rotate_whirl", "rotation", "slider", "turn the inner disc to line up with the outer ring")
def rotate_whirl(rng: random.Random) -> Puzzle:
    size, r = 200, 62
    pic = D.circle_crop(D.scene(rng, size, size) if rng.random() < 0.5 else D.texture(rng, size, size, 14))
    px, angle = _turn_target(rng)
    box = (size // 2 - r, size // 2 - r, size // 2 + r, size // 2 + r)
    inner = D.circle_crop(pic.crop(box).rotate(angle, resample=Image.BICUBIC))
    ImageDraw.Draw(inner).ellipse((0, 0, 2 * r - 1, 2 * r - 1), outline=(255, 255, 255, 255), width=2)
    return slider_puzzle(
        "Drag the slider until the inner circle lines up with the outer ring.",
        pic,
        mode="inner",
        target=px,
        tol=4,
        period=TRAVEL,
        piece=inner,
        piece_xy=(box[0], box[1]),
        extra={"deg": DEG, "round": True},
    )


@register("rotate_pick_upright", "rotation", "click", "click the only picture that is upright")
def rotate_pick_upright(rng: random.Random) -> Puzzle:
    img = D.background(rng, W, 100, "plain")
    k = rng.randrange(4)
    angles = rng.sample([90, 180, 270, 45, 135, 225, 315], 3)
    boxes = []
    for i in range(4):
        pic = D.circle_crop(D.scene(rng, 72, 72).rotate(0 if i == k else angles.pop(), resample=Image.BICUBIC))
        x, y = 12 + i * 78, 14
        img.paste(pic, (x, y), pic)
        boxes.append((x, y, x + 72, y + 72))
    return point_puzzle("Click the picture that is the right way up.", img, boxes[k], "the upright picture")


ROT_LETTERS = "".join(c for c in INVERTIBLE if c.isalpha() and c not in "CU")  # C and U look rotated-alike


@register("rotate_letters_click", "rotation", "click", "click every rotated letter")
def rotate_letters_click(rng: random.Random) -> Puzzle:
    h, n = 170, 8
    img = D.background(rng, W, h, "plain")
    turned = set(rng.sample(range(n), rng.randint(2, 3)))
    boxes, labels = [], []
    for i, (x, y) in enumerate(D.spread(rng, n, W, h, 24, 50)):
        ch = rng.choice(ROT_LETTERS)
        angle = rng.choice((90, 180, 270)) + rng.uniform(-5, 5) if i in turned else rng.uniform(-6, 6)
        tile = D.glyph(ch, D.font(34, "sans-bold"), D.random_dark(rng), angle)
        x1, y1, _, _ = D.paste_center(img, tile, x, y)
        if i in turned:
            boxes.append(D.grow(D.ink_box(tile, x1, y1), 3))
            labels.append(f"the rotated letter {ch}")
    return points_puzzle("Click every letter that is turned sideways or upside down.", img, boxes, labels, False)


@register("rotate_dial_pointer", "rotation", "slider", "turn the needle to point at the red dot")
def rotate_dial_pointer(rng: random.Random) -> Puzzle:
    size = 180
    c = size / 2
    img = Image.new("RGB", (size, size), D.random_light(rng))
    d = ImageDraw.Draw(img)
    d.ellipse((4, 4, size - 5, size - 5), fill=(250, 250, 250), outline=(80, 80, 80), width=3)
    for a in range(0, 360, 30):
        (x1, y1), (x2, y2) = D.rotate_pts([(c, 14), (c, 24)], a, c, c)
        d.line((x1, y1, x2, y2), fill=(120, 120, 120), width=2)
    psi = rng.uniform(0, 360)
    px, turn = _turn_target(rng)
    phi = (psi + turn) % 360
    others = [phi + rng.choice((-1, 1)) * rng.uniform(60, 150), phi + 180 + rng.uniform(-30, 30)]
    dots = [(phi, D.COLORS["red"]), (others[0], D.COLORS["blue"]), (others[1], D.COLORS["green"])]
    for a, col in dots:
        ((x, y),) = D.rotate_pts([(c, 20)], a, c, c)
        d.ellipse((x - 7, y - 7, x + 7, y + 7), fill=col, outline=(255, 255, 255), width=2)
    needle = Image.new("RGBA", (120, 120), (0, 0, 0, 0))
    nd = ImageDraw.Draw(needle)
    nd.polygon(
        D.rotate_pts([(60, 8), (70, 34), (64, 34), (64, 66), (56, 66), (56, 34), (50, 34)], psi, 60, 60),
        fill=(30, 30, 30, 255),
    )
    nd.ellipse((52, 52, 68, 68), fill=(30, 30, 30, 255))
    return slider_puzzle(
        "Drag the slider until the arrow points at the red dot.",
        img,
        mode="inner",
        target=px,
        tol=4,
        period=TRAVEL,
        piece=needle,
        piece_xy=(30, 30),
        extra={"deg": DEG},
    )
