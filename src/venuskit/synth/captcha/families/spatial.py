"""J. Spatial and temporal reasoning, audio-free and solvable from one screenshot (6 types)."""

from __future__ import annotations

import random

from PIL import Image, ImageDraw

from venuskit.synth.captcha import draw as D
from venuskit.synth.captcha.build import W, click_puzzle, int_puzzle, point_puzzle
from venuskit.synth.captcha.registry import register
from venuskit.synth.captcha.spec import Puzzle

Cells = frozenset[tuple[int, int]]


def normalise(cells: set[tuple[int, int]] | Cells) -> Cells:
    r0, c0 = min(r for r, _ in cells), min(c for _, c in cells)
    return frozenset((r - r0, c - c0) for r, c in cells)


def rotations(cells: Cells) -> list[Cells]:
    out, cur = [], cells
    for _ in range(4):
        cur = normalise({(c, -r) for r, c in cur})
        out.append(cur)
    return out


def mirror(cells: Cells) -> Cells:
    return normalise({(r, -c) for r, c in cells})


def grow_polyomino(rng: random.Random, n: int) -> Cells:
    cells = {(0, 0)}
    while len(cells) < n:
        r, c = rng.choice(sorted(cells))
        dr, dc = rng.choice(((0, 1), (1, 0), (0, -1), (-1, 0)))
        cells.add((r + dr, c + dc))
    return normalise(cells)


def draw_cells(
    d: ImageDraw.ImageDraw,
    cells: Cells,
    cx: float,
    cy: float,
    unit: int,
    fill: D.RGB,
    mark: tuple[int, int] | None = None,
) -> tuple[float, float, float, float]:
    rows, cols = max(r for r, _ in cells) + 1, max(c for _, c in cells) + 1
    x0, y0 = cx - cols * unit / 2, cy - rows * unit / 2
    for r, c in cells:
        d.rectangle(
            (x0 + c * unit, y0 + r * unit, x0 + (c + 1) * unit - 1, y0 + (r + 1) * unit - 1),
            fill=fill,
            outline=(30, 30, 30),
            width=1,
        )
    if mark is not None:
        r, c = mark
        d.ellipse(
            (x0 + c * unit + 3, y0 + r * unit + 3, x0 + (c + 1) * unit - 4, y0 + (r + 1) * unit - 4),
            fill=(255, 255, 255),
        )
    return (x0, y0, x0 + cols * unit, y0 + rows * unit)


@register("mirror_pick", "spatial", "click", "click the mirror image of the reference shape")
def mirror_pick(rng: random.Random) -> Puzzle:
    while True:
        shape = grow_polyomino(rng, rng.randint(5, 6))
        rots = rotations(shape)
        if mirror(shape) not in rots and max(max(r, c) for r, c in shape) <= 3:
            break
    img = Image.new("RGB", (W, 170), D.random_light(rng))
    d = ImageDraw.Draw(img)
    colour = D.COLORS[rng.choice(["blue", "green", "purple", "orange"])]
    draw_cells(d, shape, W / 2, 38, 12, colour)
    d.text((12, 38), "Shape:", font=D.font(13, "sans-bold"), fill=(60, 60, 70), anchor="lm")
    d.line((8, 80, W - 8, 80), fill=(170, 170, 180), width=1)
    k = rng.randrange(4)
    others = rng.sample(rots, 3)
    boxes = []
    for i in range(4):
        cells = rng.choice(rotations(mirror(shape))) if i == k else others.pop()
        cx = 40 + i * 80
        draw_cells(d, cells, cx, 125, 11, colour)
        boxes.append((cx - 36, 88, cx + 36, 164))
    return point_puzzle(
        "Click the mirror image of the shape at the top (turning is allowed, flipping is what counts).",
        img,
        boxes[k],
        "the mirror image",
    )


@register("shadow_wrong", "spatial", "click", "click the object whose shadow points the wrong way")
def shadow_wrong(rng: random.Random) -> Puzzle:
    h, ground = 170, 130
    img = D.gradient(W, h, (170, 205, 240), (230, 240, 250))
    d = ImageDraw.Draw(img)
    d.rectangle((0, ground, W, h), fill=(150, 190, 110))
    sun_left = rng.random() < 0.5
    sx = 28 if sun_left else W - 28
    d.ellipse((sx - 16, 14, sx + 16, 46), fill=(250, 200, 40))
    away = 1 if sun_left else -1
    k = rng.randrange(4)
    box = (0.0, 0.0, 0.0, 0.0)
    for i in range(4):
        x = 60 + i * 66 + rng.uniform(-5, 5)
        ph = rng.uniform(45, 75)
        direction = -away if i == k else away
        length = rng.uniform(34, 44)
        d.polygon(
            [
                (x - 6, ground + 1),
                (x + 6, ground + 1),
                (x + direction * length + 4, ground + 16),
                (x + direction * length - 4, ground + 16),
            ],
            fill=(55, 75, 45),
        )
        d.rectangle((x - 5, ground - ph, x + 5, ground), fill=(120, 80, 50))
        d.ellipse((x - 14, ground - ph - 20, x + 14, ground - ph + 6), fill=(40, 130, 60))
        if i == k:
            box = (x - 16, ground - ph - 22, x + 16, ground + 2)
    return point_puzzle(
        "The sun lights every tree the same way. Click the tree whose shadow is wrong.",
        img,
        box,
        "the tree with the wrong shadow",
    )


_ROLL = {  # direction -> how (top, bottom, north, south, east, west) are permuted by rolling one cell that way
    (0, 1): lambda f: (f[5], f[4], f[2], f[3], f[0], f[1]),
    (0, -1): lambda f: (f[4], f[5], f[2], f[3], f[1], f[0]),
    (1, 0): lambda f: (f[2], f[3], f[1], f[0], f[4], f[5]),
    (-1, 0): lambda f: (f[3], f[2], f[0], f[1], f[4], f[5]),
}


def folds_to_cube(cells: Cells) -> bool:
    """Roll a die over the net: the net folds into a cube iff every cell lands on a different face."""
    start = min(cells)
    seen = {start: (0, 1, 2, 3, 4, 5)}
    todo = [start]
    while todo:
        cur = todo.pop()
        for (dr, dc), roll in _ROLL.items():
            nxt = (cur[0] + dr, cur[1] + dc)
            if nxt in cells and nxt not in seen:
                seen[nxt] = roll(seen[cur])
                todo.append(nxt)
    return len({faces[1] for faces in seen.values()}) == 6


def _free(cells: Cells) -> Cells:
    return min((rot for base in (cells, mirror(cells)) for rot in rotations(base)), key=sorted)


@register("cube_net", "spatial", "click", "click the pattern that folds into a cube")
def cube_net(rng: random.Random) -> Puzzle:
    valid: Cells | None = None
    invalid: list[Cells] = []
    while valid is None or len(invalid) < 3:
        cells = grow_polyomino(rng, 6)
        if max(max(r, c) for r, c in cells) > 4:
            continue
        if folds_to_cube(cells):
            valid = valid or cells
        elif all(_free(cells) != _free(o) for o in invalid):
            invalid.append(cells)
    img = Image.new("RGB", (W, 110), D.random_light(rng))
    d = ImageDraw.Draw(img)
    k = rng.randrange(4)
    colour = D.COLORS[rng.choice(["orange", "teal", "blue", "green"])]
    boxes = []
    for i in range(4):
        cells = valid if i == k else invalid.pop()
        cx = 40 + i * 80
        draw_cells(d, cells, cx, 55, 13, colour)
        boxes.append((cx - 38, 8, cx + 38, 102))
    return point_puzzle(
        "Click the flat pattern that can be folded into a closed cube.",
        img,
        boxes[k],
        "the pattern that folds into a cube",
    )


def _cup(d: ImageDraw.ImageDraw, x: float, y: float, colour: D.RGB) -> tuple[float, float, float, float]:
    d.polygon(
        [(x - 24, y + 20), (x + 24, y + 20), (x + 16, y - 18), (x - 16, y - 18)], fill=colour, outline=(40, 40, 40)
    )
    return (x - 26, y - 20, x + 26, y + 22)


@register("cup_shuffle", "spatial", "click", "follow the swaps and click the cup hiding the ball")
def cup_shuffle(rng: random.Random) -> Puzzle:
    m = rng.randint(2, 3)
    xs = [70, 160, 250]
    h = 58 + m * 30 + 58
    img = Image.new("RGB", (W, h), (248, 246, 240))
    d = ImageDraw.Draw(img)
    colour = D.COLORS[rng.choice(["red", "blue", "purple", "teal"])]
    ball = rng.randrange(3)
    d.ellipse((xs[ball] - 9, 38, xs[ball] + 9, 56), fill=(250, 200, 40), outline=(120, 90, 10))
    for x in xs:
        _cup(d, x, 14, colour)  # lifted
    y = 70
    for _ in range(m):
        a, b = sorted(rng.sample(range(3), 2))
        d.line((xs[a] + 4, y, xs[b] - 4, y), fill=(60, 60, 60), width=3)
        for tip, sign in ((xs[a], 1), (xs[b], -1)):
            d.polygon([(tip, y), (tip + sign * 10, y - 6), (tip + sign * 10, y + 6)], fill=(60, 60, 60))
        ball = b if ball == a else (a if ball == b else ball)
        y += 30
    boxes = [_cup(d, x, h - 30, colour) for x in xs]
    return point_puzzle(
        "The ball starts under the lifted cup at the top. Follow the swaps and click the bottom cup "
        "that hides the ball.",
        img,
        boxes[ball],
        "the cup with the ball",
    )


@register("trajectory_next", "spatial", "click", "click where the moving ball will be next")
def trajectory_next(rng: random.Random) -> Puzzle:
    h = 180
    while True:
        p0 = (rng.uniform(20, 80), rng.uniform(30, h - 30))
        v = (rng.uniform(35, 55), rng.uniform(-30, 30))
        a = (0.0, rng.choice((0.0, rng.uniform(-9, 9))))
        pts = [(p0[0] + v[0] * t + a[0] * t * t / 2, p0[1] + v[1] * t + a[1] * t * t / 2) for t in range(5)]
        if all(18 <= x <= W - 18 and 18 <= y <= h - 18 for x, y in pts):
            break
    img = D.background(rng, W, h, "plain")
    d = ImageDraw.Draw(img)
    for i, (x, y) in enumerate(pts[:4]):
        shade = D.mix((220, 60, 60), (255, 255, 255), 0.6 - 0.18 * i)
        d.ellipse((x - 11, y - 11, x + 11, y + 11), fill=shade, outline=(120, 40, 40))
        D.text_center(d, (x, y), str(i + 1), D.font(11, "sans-bold"), (255, 255, 255))
    x, y = pts[4]
    answer = {"check": "point_near", "point": [round(x, 1), round(y, 1)], "tol": 16}
    return click_puzzle(
        "The ball moved through positions 1 to 4 at a steady rhythm. Click where it will be at step 5.",
        img,
        answer,
        [("where the ball will be next", (x - 11, y - 11, x + 11, y + 11))],
    )


def _iso(x: float, y: float, z: float, ox: float, oy: float) -> tuple[float, float]:
    return (ox + (x - y) * 17, oy + (x + y) * 10 - z * 20)


def _cube(
    d: ImageDraw.ImageDraw, at: tuple[int, int, int], origin: tuple[float, float], shades: tuple[D.RGB, D.RGB, D.RGB]
) -> None:
    """The three faces of the unit cube at grid position `at` a viewer above the front corner sees."""
    i, j, z = at

    def p(a: int, b: int, c: int) -> tuple[float, float]:
        return _iso(i + a, j + b, z + c, *origin)

    top, left, right = shades
    d.polygon([p(0, 0, 1), p(1, 0, 1), p(1, 1, 1), p(0, 1, 1)], fill=top, outline=(30, 30, 30))
    d.polygon([p(0, 1, 0), p(1, 1, 0), p(1, 1, 1), p(0, 1, 1)], fill=left, outline=(30, 30, 30))
    d.polygon([p(1, 0, 0), p(1, 1, 0), p(1, 1, 1), p(1, 0, 1)], fill=right, outline=(30, 30, 30))


@register("cube_count", "spatial", "text", "count the cubes in an isometric stack")
def cube_count(rng: random.Random) -> Puzzle:
    n = 3
    heights = [[0] * n for _ in range(n)]
    for i in range(n):  # non-increasing towards the viewer: every column's top is visible
        for j in range(n):
            cap = min(heights[i - 1][j] if i else 3, heights[i][j - 1] if j else 3)
            heights[i][j] = rng.randint(0 if (i, j) != (0, 0) else 1, cap)
    img = Image.new("RGB", (W, 170), (246, 246, 250))
    d = ImageDraw.Draw(img)
    base = D.COLORS[rng.choice(["blue", "orange", "teal", "purple"])]
    top, left, right = D.mix(base, (255, 255, 255), 0.45), base, D.mix(base, (0, 0, 0), 0.3)
    ox, oy = W / 2, 90
    for s in range(2 * n - 1):  # back to front, bottom to top
        for i in range(n):
            j = s - i
            if not 0 <= j < n:
                continue
            for z in range(heights[i][j]):
                _cube(d, (i, j, z), (ox, oy), (top, left, right))
    total = sum(map(sum, heights))
    return int_puzzle("How many cubes are in the stack? Every cube rests on the floor or on another cube.", img, total)
