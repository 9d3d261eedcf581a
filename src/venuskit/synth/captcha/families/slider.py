"""C. Slider and alignment (7 types)."""

from __future__ import annotations

import io
import random

from PIL import Image, ImageDraw, ImageFilter

from venuskit.synth.captcha import draw as D
from venuskit.synth.captcha.build import W, drag_puzzle, slider_puzzle
from venuskit.synth.captcha.registry import register
from venuskit.synth.captcha.spec import Puzzle

TRACK = 300
MAX_VALUE = TRACK - 44


def notch_mask(s: int = 44, tab: int = 7) -> Image.Image:
    """A jigsaw piece: a square body with round tabs on its top and right edges."""
    size = s + 2 * tab
    m = Image.new("L", (size, size), 0)
    d = ImageDraw.Draw(m)
    d.rectangle((0, 2 * tab, s, size - 1), fill=255)
    d.ellipse((s / 2 - tab, tab - 1, s / 2 + tab, 3 * tab - 1), fill=255)
    d.ellipse((s - tab, tab + s / 2 - tab + tab, s + tab, tab + s / 2 + tab + tab), fill=255)
    return m


@register("slider_jigsaw", "slider", "slider", "slide the jigsaw piece into its notch")
def slider_jigsaw(rng: random.Random) -> Puzzle:
    h = 160
    img = D.texture(rng, W, h)
    mask = notch_mask()
    pw = mask.width
    gx, gy = rng.randint(80, 6 + MAX_VALUE - 2), rng.randint(8, h - pw - 8)
    piece = img.crop((gx, gy, gx + pw, gy + pw)).convert("RGBA")
    piece.putalpha(mask)
    shade = Image.new("RGBA", (pw, pw), (0, 0, 0, 130))
    img.paste(shade, (gx, gy), mask)
    edge = mask.filter(ImageFilter.FIND_EDGES)
    img.paste((255, 255, 255), (gx, gy), edge)
    return slider_puzzle(
        "Drag the slider so the piece fills the gap.",
        img,
        mode="piece",
        target=gx - 6,
        tol=5,
        piece=piece,
        piece_xy=(6, gy),
        goal_box=(gx, gy, gx + pw, gy + pw),
        goal_label="the gap",
    )


@register("slider_unlock", "slider", "slider", "slide to unlock", image_only=False)
def slider_unlock(rng: random.Random) -> Puzzle:
    label = rng.choice(("Slide to unlock", "Slide to verify", "Swipe right to continue"))
    track = rng.choice((240, 260, 280, 300))
    return slider_puzzle(
        "Slide the button all the way to the right.",
        None,
        mode="none",
        target=track - 44,
        tol=6,
        at_least=True,
        label=label,
        track=track,
    )


def _bars(rng: random.Random, w: int, h: int) -> Image.Image:
    """A picture of tall slanted bars and rings: misalignment between halves is easy to see."""
    img = D.gradient(w, h, D.random_light(rng), D.random_light(rng), False)
    d = ImageDraw.Draw(img)
    for _ in range(7):
        x, dx = rng.uniform(0, w), rng.uniform(-25, 25)
        d.line((x, 0, x + dx, h), fill=rng.choice(list(D.COLORS.values())), width=rng.randint(6, 12))
    for _ in range(3):
        x, r = rng.uniform(30, w - 30), rng.uniform(18, 34)
        d.ellipse((x - r, h / 2 - r, x + r, h / 2 + r), outline=rng.choice(list(D.COLORS.values())), width=6)
    return img


@register("slider_halves", "slider", "slider", "align the bottom half of the picture with the top half")
def slider_halves(rng: random.Random) -> Puzzle:
    h = 160
    pic = _bars(rng, W, h)
    shift = rng.randint(50, 200)
    # The offset lives in the PNG, not in the page: the strip always starts at left = -MAX_VALUE, and
    # its picture is pasted so that it lines up after `shift` pixels of travel.
    bottom = Image.new("RGBA", (W + MAX_VALUE, h - h // 2), (225, 228, 232, 255))
    bottom.paste(pic.crop((0, h // 2, W, h)), (MAX_VALUE - shift, 0))
    bg = pic.copy()
    ImageDraw.Draw(bg).rectangle((0, h // 2, W, h), fill=(225, 228, 232))
    return slider_puzzle(
        "Slide until the bottom half lines up with the top half.",
        bg,
        mode="piece",
        target=shift,
        tol=5,
        piece=bottom,
        piece_xy=(-MAX_VALUE, h // 2),
    )


@register("slider_value", "slider", "slider", "move the marker to a value on a ruler")
def slider_value(rng: random.Random) -> Puzzle:
    h, spacing = 90, rng.choice((16, 20, 24))
    x0, unit, v0 = rng.randint(14, 30), rng.choice((1, 2, 5, 10)), rng.choice((0, 10, 20, 50, 100))
    n = min((W - x0 - 10) // spacing, MAX_VALUE // spacing) + 1
    img = Image.new("RGB", (W, h), D.random_light(rng))
    d = ImageDraw.Draw(img)
    d.line((x0, 50, x0 + (n - 1) * spacing, 50), fill=(40, 40, 40), width=2)
    fnt = D.font(12, "sans-bold")
    for i in range(n):
        x = x0 + i * spacing
        d.line((x, 50, x, 38 if i % 2 == 0 else 44), fill=(40, 40, 40), width=2)
        if i % 2 == 0:
            D.text_center(d, (x, 26), str(v0 + i * unit), fnt, (30, 30, 30))
    k = rng.randrange(2, n)
    value = v0 + k * unit
    return slider_puzzle(
        f"Move the red line to {value} on the ruler.",
        img,
        mode="marker",
        target=k * spacing,
        tol=4,
        extra={"marker": x0},
        goal_box=(x0 + k * spacing - 3, 38, x0 + k * spacing + 3, 52),
        goal_label=f"the {value} mark",
    )


def _piece(kind: str, colour: D.RGB, size: int = 44) -> Image.Image:
    tile = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    D.draw_shape(
        ImageDraw.Draw(tile), kind, size / 2, size / 2, size / 2 - 3, colour + (255,), 0, (255, 255, 255, 255), 2
    )
    return tile


@register("drag_to_point", "slider", "drag", "drag a shape onto its outline")
def drag_to_point(rng: random.Random) -> Puzzle:
    h, tray = 160, 70
    kind = rng.choice(["circle", "square", "triangle", "star", "pentagon", "hexagon"])
    colour = D.COLORS[rng.choice(["red", "blue", "green", "orange", "purple"])]
    img = D.background(rng, W, h)
    tx, ty = rng.uniform(40, W - 40), rng.uniform(35, h - 35)
    D.draw_shape(ImageDraw.Draw(img), kind, tx, ty, 19, None, 0, (60, 60, 60), 2)
    start = (rng.randint(10, W - 54), h + 13)
    return drag_puzzle(
        f"Drag the {kind} onto its outline.",
        img,
        tray,
        [_piece(kind, colour)],
        [start],
        [(tx - 8, ty - 8, tx + 8, ty + 8)],
        [f"the {kind}"],
    )


@register("slider_kaleidoscope", "slider", "slider", "slide until the scrambled picture is restored")
def slider_kaleidoscope(rng: random.Random) -> Puzzle:
    n, h = 7, 160
    step = MAX_VALUE // n
    pic = D.scene(rng, W, h)
    tiles = [pic.crop((c * 80, r * 80, c * 80 + 80, r * 80 + 80)) for r in range(2) for c in range(4)]
    good = rng.randrange(1, n)
    grains = rng.sample(range(1, 2 * n + 1, 2), n)
    frames = {}
    for k in range(n):
        order = list(range(8))
        while k != good and sum(a != b for a, b in enumerate(order)) < 5:
            rng.shuffle(order)
        img = Image.new("RGB", (W, h))
        for slot, t in enumerate(order):
            img.paste(tiles[t], ((slot % 4) * 80, (slot // 4) * 80))
        # Each frame gets its own grain strength, spaced widely: file sizes then rank by grain, not by how
        # scrambled a frame is (the whole picture compresses best and would otherwise give itself away).
        frames[f"frame-{k}"] = D.png(D.grain(rng, img, grains[k]))
    first = Image.open(io.BytesIO(frames["frame-0"]))
    return slider_puzzle(
        "Slide until the picture looks right.",
        first,
        mode="frames",
        target=good * step + step // 2,
        tol=step // 2 - 2,
        extra={"frames": n, "step": step},
        assets=frames,
    )


@register("jigsaw_multi", "slider", "drag", "drag every piece into its matching hole")
def jigsaw_multi(rng: random.Random) -> Puzzle:
    h, tray = 160, 70
    kinds = rng.sample(["circle", "square", "triangle", "star", "hexagon", "diamond", "cross"], 3)
    img = D.texture(rng, W, h, 10)
    d = ImageDraw.Draw(img)
    boxes = []
    for kind, (x, y) in zip(kinds, D.spread(rng, 3, W, h, 32, 80), strict=False):
        D.draw_shape(d, kind, x, y, 19, (70, 70, 80), 0, (255, 255, 255), 2)
        boxes.append((x - 8, y - 8, x + 8, y + 8))
    colours = rng.sample(["red", "blue", "green", "orange", "purple"], 3)
    slots = rng.sample(range(3), 3)
    starts = [(20 + s * 100 + rng.randint(0, 20), h + 13) for s in slots]
    pieces = [_piece(k, D.COLORS[c]) for k, c in zip(kinds, colours, strict=False)]
    return drag_puzzle(
        "Drag each piece into the hole of the same shape.",
        img,
        tray,
        pieces,
        starts,
        boxes,
        [f"the {k} piece" for k in kinds],
    )
