"""F. Image-selection grids (9 types). Checker: exact set (optional tiles allowed for segmentation)."""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence

from PIL import Image, ImageDraw, ImageOps

from venuskit.synth.captcha import draw as D
from venuskit.synth.captcha.build import grid_cells, grid_puzzle
from venuskit.synth.captcha.registry import register
from venuskit.synth.captcha.spec import Puzzle

G = 300  # grid image side
CELL3 = 96  # 3x3 tile side (gap 6)


def compose(
    tiles: Sequence[Image.Image], cells: Sequence[Sequence[int]], size: tuple[int, int] = (G, G)
) -> Image.Image:
    img = Image.new("RGB", size, (255, 255, 255))
    for tile, (x, y, w, h) in zip(tiles, cells, strict=False):
        img.paste(tile.resize((w, h)) if tile.size != (w, h) else tile, (x, y))
    return img


def tile_bg(rng: random.Random, side: int = CELL3) -> Image.Image:
    return D.background(rng, side, side, rng.choice(("plain", "gradient", "dots")))


def icon_tile(rng: random.Random, name: str, side: int = CELL3) -> Image.Image:
    img = tile_bg(rng, side)
    D.draw_icon(
        ImageDraw.Draw(img),
        name,
        side / 2 + rng.uniform(-8, 8),
        side / 2 + rng.uniform(-8, 8),
        rng.uniform(24, 32),
        D.COLORS[rng.choice(list(D.COLORS))],
        rng.uniform(-30, 30),
    )
    return img


def pick_targets(rng: random.Random, n: int = 9, lo: int = 2, hi: int = 4) -> set[int]:
    return set(rng.sample(range(n), rng.randint(lo, hi)))


def icon_grid(rng: random.Random, robot: bool = False) -> Puzzle:
    """3x3 'select all squares with a X' (also the nested challenge of `robot_grid`)."""
    target = rng.choice(D.ICON_NAMES)
    others = [n for n in D.ICON_NAMES if n != target]
    hits = pick_targets(rng)
    tiles = [icon_tile(rng, target if i in hits else rng.choice(others)) for i in range(9)]
    cells = grid_cells(3, 3, CELL3, 6)
    label = D.icon_label(target)
    prompt = f"Select all squares with {D.a_an(label)}."
    if robot:
        prompt = f"Tick 'I'm not a robot', then select all squares with {D.a_an(label)}."
    return grid_puzzle(
        prompt, compose(tiles, cells), cells, sorted(hits), label=f"a square with {D.a_an(label)}", robot=robot
    )


@register("grid_select_icon", "grid", "grid", "3x3: select all squares with an icon")
def grid_select_icon(rng: random.Random) -> Puzzle:
    return icon_grid(rng)


@register("grid_segment", "grid", "grid", "4x4 over one picture: select every square the object covers")
def grid_segment(rng: random.Random) -> Puzzle:
    img = D.texture(rng, G, G, 14)
    img = Image.blend(img, Image.new("RGB", img.size, (255, 255, 255)), 0.45)
    name = rng.choice(["star", "heart", "house", "tree", "bolt", "moon"])
    mask = Image.new("L", (G, G), 0)
    cx, cy, s, ang = rng.uniform(110, 190), rng.uniform(110, 190), rng.uniform(75, 100), rng.uniform(-25, 25)
    D.draw_icon(ImageDraw.Draw(img), name, cx, cy, s, D.COLORS[rng.choice(["red", "blue", "purple", "black"])], ang)
    D.draw_icon(ImageDraw.Draw(mask), name, cx, cy, s, 255, ang)
    cells = grid_cells(4, 4, 72, 4)
    d = ImageDraw.Draw(img)
    for k in (1, 2, 3):  # the tile boundaries, as the page shows them
        d.rectangle((k * 76 - 4, 0, k * 76 - 1, G), fill=(255, 255, 255))
        d.rectangle((0, k * 76 - 4, G, k * 76 - 1), fill=(255, 255, 255))
    cover = [D.mask_coverage(mask, (x, y, x + w, y + h)) for x, y, w, h in cells]
    required = [i for i, c in enumerate(cover) if c >= 0.15]
    optional = [i for i, c in enumerate(cover) if 0.0 < c < 0.15]
    label = D.icon_label(name)
    return grid_puzzle(
        f"Select all squares that contain part of the {label}.",
        img,
        cells,
        required,
        optional,
        label=f"a square with part of the {label}",
    )


def _pattern(rng: random.Random, side: int = CELL3) -> Image.Image:
    img = Image.new("RGB", (side, side), D.random_light(rng))
    d = ImageDraw.Draw(img)
    for x, y in D.spread(rng, 3, side, side, 18, 26):
        D.draw_shape(
            d,
            rng.choice(["triangle", "square", "star", "diamond"]),
            x,
            y,
            rng.uniform(9, 14),
            D.COLORS[rng.choice(list(D.COLORS))],
            rng.uniform(0, 60),
        )
    return img


def _differs(a: Image.Image, b: Image.Image) -> bool:
    diff = Image.eval(Image.blend(a.convert("L"), ImageOps.invert(b.convert("L")), 0.5), lambda v: abs(v - 127) > 40)
    return D.mask_coverage(diff.convert("L"), (0, 0, a.width, a.height)) > 0.03


@register("grid_odd_tile", "grid", "grid", "select the one square that is mirrored")
def grid_odd_tile(rng: random.Random) -> Puzzle:
    while True:
        base = _pattern(rng)
        odd = ImageOps.mirror(base)
        if _differs(base, odd):
            break
    k = rng.randrange(9)
    cells = grid_cells(3, 3, CELL3, 6)
    tiles = [odd if i == k else base for i in range(9)]
    return grid_puzzle(
        "Select the one square that is different from the others.",
        compose(tiles, cells),
        cells,
        [k],
        label="the square that differs",
    )


CATEGORIES: dict[str, Callable[[str], bool]] = {
    "an even number": lambda s: s.isdigit() and int(s) % 2 == 0,
    "an odd number": lambda s: s.isdigit() and int(s) % 2 == 1,
    "a letter": lambda s: s.isalpha(),
    "a vowel": lambda s: s in "AEOU",
}


@register("grid_category", "grid", "grid", "select the squares of a category (even numbers, vowels, ...)")
def grid_category(rng: random.Random) -> Puzzle:
    name = rng.choice(list(CATEGORIES))
    test = CATEGORIES[name]
    while True:
        items = [str(rng.randint(1, 99)) if rng.random() < 0.55 else rng.choice("ABDEFGHKMNOPRTU") for _ in range(9)]
        hits = [i for i, s in enumerate(items) if test(s)]
        if 1 <= len(hits) <= 5:
            break
    tiles = []
    for s in items:
        t = tile_bg(rng)
        D.text_center(
            ImageDraw.Draw(t),
            (CELL3 / 2, CELL3 / 2),
            s,
            D.font(40, rng.choice(["sans-bold", "serif-bold"])),
            D.random_dark(rng),
        )
        tiles.append(t)
    cells = grid_cells(3, 3, CELL3, 6)
    return grid_puzzle(
        f"Select every square showing {name}.", compose(tiles, cells), cells, hits, label=f"a square showing {name}"
    )


@register("grid_binary", "grid", "grid", "answer yes or no: does the picture contain an icon?")
def grid_binary(rng: random.Random) -> Puzzle:
    name = rng.choice(D.ICON_NAMES)
    present = rng.random() < 0.5
    pool = [n for n in D.ICON_NAMES if n != name]
    shown = rng.sample(pool, 4) + ([name] if present else [rng.choice(pool)])
    img = Image.new("RGB", (G, 256), (255, 255, 255))
    pic = D.background(rng, G, 200)
    d = ImageDraw.Draw(pic)
    for n, (x, y) in zip(shown, D.spread(rng, 5, G, 200, 30, 62), strict=False):
        D.draw_icon(d, n, x, y, rng.uniform(18, 24), D.COLORS[rng.choice(list(D.COLORS))], rng.uniform(-30, 30))
    img.paste(pic, (0, 0))
    cells = [[6, 208, 140, 44], [154, 208, 140, 44]]
    d = ImageDraw.Draw(img)
    for (x, y, w, h), word in zip(cells, ("YES", "NO"), strict=False):
        d.rounded_rectangle((x, y, x + w, y + h), 8, fill=(240, 242, 246), outline=(130, 130, 140), width=2)
        D.text_center(d, (x + w / 2, y + h / 2), word, D.font(18, "sans-bold"), (40, 40, 50))
    label = D.icon_label(name)
    return grid_puzzle(
        f"Is there {D.a_an(label)} in the picture? Click YES or NO.",
        img,
        cells,
        [0 if present else 1],
        label="the right answer button",
    )


@register("grid_patch", "grid", "grid", "5x5 over one picture: select the squares holding a small object")
def grid_patch(rng: random.Random) -> Puzzle:
    cells = grid_cells(5, 5, 56, 5)
    img = D.background(rng, G, G)
    d = ImageDraw.Draw(img)
    target_colour, target_kind = rng.choice(["red", "blue", "green"]), rng.choice(["circle", "star", "triangle"])
    spots = rng.sample(range(25), 9)
    hits = spots[: rng.randint(2, 4)]
    for i in spots:
        x, y, w, h = cells[i]
        cx, cy = x + w / 2 + rng.uniform(-8, 8), y + h / 2 + rng.uniform(-8, 8)
        if i in hits:
            colour, kind = target_colour, target_kind
        else:
            colour, kind = rng.choice(
                [(target_colour, k) for k in ("square", "diamond")]
                + [(c, target_kind) for c in ("orange", "purple", "teal")]
            )
        D.draw_shape(d, kind, cx, cy, 13, D.COLORS[colour], rng.uniform(0, 30) if kind != "circle" else 0)
    for k in range(1, 5):
        d.rectangle((k * 61 - 5, 0, k * 61 - 1, G), fill=(255, 255, 255))
        d.rectangle((0, k * 61 - 5, G, k * 61 - 1), fill=(255, 255, 255))
    what = f"{target_colour} {target_kind}"
    return grid_puzzle(
        f"Select all squares with {D.a_an(what)}.", img, cells, hits, label=f"a square with {D.a_an(what)}"
    )


def _composition(rng: random.Random) -> list[tuple[str, str, float, float]]:
    names = rng.sample(D.ICON_NAMES, 3)
    pts = D.spread(rng, 3, 1.0, 1.0, 0.2, 0.3)
    colours = ["red", "blue", "green", "orange", "purple"]
    return [(n, rng.choice(colours), x, y) for n, (x, y) in zip(names, pts, strict=True)]


def _render(comp: list[tuple[str, str, float, float]], w: int, h: int, bg: D.RGB, mirror: bool = False) -> Image.Image:
    img = Image.new("RGB", (w, h), bg)
    d = ImageDraw.Draw(img)
    for n, c, x, y in comp:
        D.draw_icon(d, n, x * w, y * h, min(w, h) * 0.16, D.COLORS[c])
    return ImageOps.mirror(img) if mirror else img


def _variant(
    rng: random.Random, comp: list[tuple[str, str, float, float]], kind: int
) -> list[tuple[str, str, float, float]]:
    out = list(comp)
    i = rng.randrange(3)
    n, c, x, y = out[i]
    if kind == 0:
        out[i] = (n, rng.choice([k for k in ("red", "blue", "green", "orange", "purple") if k != c]), x, y)
    elif kind == 1:
        out[i] = (rng.choice([k for k in D.ICON_NAMES if k not in {m for m, *_ in comp}]), c, x, y)
    else:
        out[i] = (n, c, min(0.85, max(0.15, 1 - x)), min(0.85, max(0.15, 1 - y)))
    return out


@register("grid_image_match", "grid", "grid", "select the option identical to the reference")
def grid_image_match(rng: random.Random) -> Puzzle:
    comp, bg = _composition(rng), D.random_light(rng)
    img = Image.new("RGB", (G, G), (255, 255, 255))
    d = ImageDraw.Draw(img)
    img.paste(_render(comp, 110, 92, bg), (95, 4))
    d.rectangle((94, 3, 205, 96), outline=(60, 60, 60), width=1)
    d.text((8, 50), "Reference", font=D.font(13, "sans-bold"), fill=(60, 60, 70), anchor="lm")
    cells = grid_cells(2, 3, (96, 94), 6, 0, 104)
    k = rng.randrange(6)
    kinds = [0, 1, 2, 3, rng.randrange(3)]
    rng.shuffle(kinds)
    for i, (x, y, w, h) in enumerate(cells):
        if i == k:
            tile = _render(comp, w, h, bg)
        else:
            kind = kinds.pop()
            tile = _render(comp, w, h, bg, mirror=True) if kind == 3 else _render(_variant(rng, comp, kind), w, h, bg)
        img.paste(tile, (x, y))
    return grid_puzzle(
        "Select the picture that is exactly the same as the reference.", img, cells, [k], label="the identical picture"
    )


@register("grid_constraint", "grid", "grid", "select the squares matching colour, shape and size")
def grid_constraint(rng: random.Random) -> Puzzle:
    colours, kinds, sizes = ["red", "blue", "green"], ["triangle", "circle", "square"], ["small", "large"]
    want = (rng.choice(sizes), rng.choice(colours), rng.choice(kinds))
    hits = pick_targets(rng, 9, 1, 3)
    items = []
    for i in range(9):
        if i in hits:
            items.append(want)
            continue
        item = list(want)
        j = rng.randrange(3)  # a decoy differs in one attribute
        item[j] = rng.choice([v for v in (sizes, colours, kinds)[j] if v != want[j]])
        items.append(tuple(item))
    tiles = []
    for size_name, colour, kind in items:
        t = tile_bg(rng)
        D.draw_shape(
            ImageDraw.Draw(t),
            kind,
            CELL3 / 2 + rng.uniform(-6, 6),
            CELL3 / 2 + rng.uniform(-6, 6),
            14 if size_name == "small" else 34,
            D.COLORS[colour],
            0,
        )
        tiles.append(t)
    cells = grid_cells(3, 3, CELL3, 6)
    what = " ".join(want) + "s"
    return grid_puzzle(
        f"Select all squares with {what}.", compose(tiles, cells), cells, sorted(hits), label=f"a square with {what}"
    )


@register("grid_dot_count", "grid", "grid", "select every square with exactly N dots")
def grid_dot_count(rng: random.Random) -> Puzzle:
    n = rng.randint(2, 5)
    hits = pick_targets(rng, 9, 1, 3)
    tiles = []
    for i in range(9):
        k = n if i in hits else rng.choice([v for v in range(1, 7) if v != n])
        t = tile_bg(rng)
        d = ImageDraw.Draw(t)
        colour = D.COLORS[rng.choice(["red", "blue", "black", "purple"])]
        for x, y in D.spread(rng, k, CELL3, CELL3, 16, 22):
            d.ellipse((x - 7, y - 7, x + 7, y + 7), fill=colour)
        tiles.append(t)
    cells = grid_cells(3, 3, CELL3, 6)
    return grid_puzzle(
        f"Select every square with exactly {n} dots.",
        compose(tiles, cells),
        cells,
        sorted(hits),
        label=f"a square with {n} dots",
    )
