"""G. Drag-to-match, swap and assemble (8 types)."""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence

from PIL import Image, ImageDraw

from venuskit.synth.captcha import draw as D
from venuskit.synth.captcha.build import W, click_puzzle, drag_puzzle, line_puzzle, swap_puzzle
from venuskit.synth.captcha.registry import register
from venuskit.synth.captcha.spec import Puzzle

SYMBOLS = [
    ("star", "orange"),
    ("heart", "red"),
    ("moon", "blue"),
    ("bolt", "purple"),
    ("drop", "teal"),
    ("tree", "green"),
]


def _icon_piece(name: str, colour: D.RGB, size: int = 48) -> Image.Image:
    tile = Image.new("RGBA", (size, size), (0, 0, 0, 0))
    D.draw_icon(ImageDraw.Draw(tile), name, size / 2, size / 2, size * 0.42, colour + (255,))
    return tile


def _symbol_tile(sym: tuple[str, str], side: int, bg: D.RGB) -> Image.Image:
    t = Image.new("RGB", (side, side), bg)
    d = ImageDraw.Draw(t)
    d.rounded_rectangle((1, 1, side - 2, side - 2), 6, outline=(200, 200, 205), width=2)
    D.draw_icon(d, sym[0], side / 2, side / 2, side * 0.32, D.COLORS[sym[1]])
    return t


def swapped(order: Sequence[int], a: int, b: int) -> list[int]:
    out = list(order)
    out[a], out[b] = out[b], out[a]
    return out


@register("drag_to_slot", "drag", "drag", "drag the item into its matching outline")
def drag_to_slot(rng: random.Random) -> Puzzle:
    h, tray = 150, 70
    names = rng.sample(D.ICON_NAMES, 3)
    img = D.background(rng, W, h)
    d = ImageDraw.Draw(img)
    boxes = []
    for i, n in enumerate(names):
        x, y = 55 + i * 105 + rng.uniform(-12, 12), 75 + rng.uniform(-25, 25)
        D.draw_icon(d, n, x, y, 22, (150, 150, 160))
        boxes.append((x - 10, y - 10, x + 10, y + 10))
    k = rng.randrange(3)
    colour = D.COLORS[rng.choice(["red", "blue", "green", "orange"])]
    start = (rng.randint(20, W - 70), h + 11)
    label = D.icon_label(names[k])
    return drag_puzzle(
        f"Drag the {label} onto the grey outline of the same shape.",
        img,
        tray,
        [_icon_piece(names[k], colour)],
        [start],
        [boxes[k]],
        [f"the {label}"],
    )


LINES3 = [(0, 1, 2), (3, 4, 5), (6, 7, 8), (0, 3, 6), (1, 4, 7), (2, 5, 8), (0, 4, 8), (2, 4, 6)]


def _has_line(symbols: Sequence[int]) -> bool:
    return any(symbols[a] == symbols[b] == symbols[c] for a, b, c in LINES3)


@register("swap_bingo", "drag", "swap", "swap two tiles to make a line of three")
def swap_bingo(rng: random.Random) -> Puzzle:
    while True:
        board = [rng.randrange(4) for _ in range(9)]
        line = rng.choice(LINES3)
        s = rng.randrange(4)
        hole = rng.choice(line)
        for p in line:
            board[p] = s if p != hole else (s + 1 + rng.randrange(3)) % 4
        outside = [p for p in range(9) if p not in line]
        board[rng.choice(outside)] = s
        if _has_line(board):
            continue
        wins = [
            swapped(range(9), a, b)
            for a, b in itertools.combinations(range(9), 2)
            if _has_line([board[i] for i in swapped(range(9), a, b)])
        ]
        if wins:
            break
    bg, syms = D.random_light(rng), rng.sample(SYMBOLS, 4)
    tiles = [_symbol_tile(syms[v], 92, bg) for v in board]
    return swap_puzzle(
        "Drag one tile onto another to swap them and make a line of three identical pictures.",
        tiles,
        3,
        3,
        6,
        wins,
        "a tile to swap",
    )


def _five(stones: dict[tuple[int, int], int], r: int, c: int, n: int) -> bool:
    for dr, dc in ((0, 1), (1, 0), (1, 1), (1, -1)):
        run = 1
        for sign in (1, -1):
            k = 1
            while stones.get((r + sign * k * dr, c + sign * k * dc)) == 1:
                run, k = run + 1, k + 1
        if run >= 5:
            return True
    return False


@register("gobang", "drag", "click", "place the stone that completes five in a row")
def gobang(rng: random.Random) -> Puzzle:
    n, cell, m = 9, 32, 16
    while True:
        stones: dict[tuple[int, int], int] = {}
        dr, dc = rng.choice(((0, 1), (1, 0), (1, 1), (1, -1)))
        r0, c0 = rng.randrange(n), rng.randrange(n)
        run = [(r0 + k * dr, c0 + k * dc) for k in range(4)]
        if not all(0 <= r < n and 0 <= c < n for r, c in run):
            continue
        for p in run:
            stones[p] = 1
        for _ in range(rng.randint(5, 8)):
            stones.setdefault((rng.randrange(n), rng.randrange(n)), 2)
        for _ in range(rng.randint(2, 4)):
            stones.setdefault((rng.randrange(n), rng.randrange(n)), 1)
        wins = [(r, c) for r in range(n) for c in range(n) if (r, c) not in stones and _five(stones, r, c, n)]
        if wins:
            break
    img = Image.new("RGB", (W, n * cell + 2 * m - 16), (222, 184, 135))
    d = ImageDraw.Draw(img)
    x0 = (W - n * cell) / 2
    y0 = m - 8
    for i in range(n + 1):
        d.line((x0 + i * cell, y0, x0 + i * cell, y0 + n * cell), fill=(90, 60, 30), width=1)
        d.line((x0, y0 + i * cell, x0 + n * cell, y0 + i * cell), fill=(90, 60, 30), width=1)
    for (r, c), who in stones.items():
        cx, cy = x0 + c * cell + cell / 2, y0 + r * cell + cell / 2
        d.ellipse(
            (cx - 12, cy - 12, cx + 12, cy + 12),
            fill=(20, 20, 20) if who == 1 else (245, 245, 245),
            outline=(60, 60, 60),
        )
    boxes = [(x0 + c * cell + 3, y0 + r * cell + 3, x0 + (c + 1) * cell - 3, y0 + (r + 1) * cell - 3) for r, c in wins]
    answer = {"check": "point", "boxes": [[round(v, 1) for v in b] for b in boxes]}
    return click_puzzle(
        "You play black: click the empty square that makes five black stones in a row.",
        img,
        answer,
        [("a winning square", b) for b in boxes],
    )


def _runs(board: Sequence[int], rows: int, cols: int) -> bool:
    for r in range(rows):
        for c in range(cols):
            v = board[r * cols + c]
            if c + 2 < cols and board[r * cols + c + 1] == v == board[r * cols + c + 2]:
                return True
            if r + 2 < rows and board[(r + 1) * cols + c] == v == board[(r + 2) * cols + c]:
                return True
    return False


@register("match3", "drag", "swap", "swap two neighbouring gems to line up three")
def match3(rng: random.Random) -> Puzzle:
    rows = cols = 5
    while True:
        board = [rng.randrange(5) for _ in range(rows * cols)]
        if _runs(board, rows, cols):
            continue
        pairs = [(i, i + 1) for i in range(rows * cols) if (i + 1) % cols] + [
            (i, i + cols) for i in range(rows * (cols - 1))
        ]
        wins = [
            swapped(range(rows * cols), a, b)
            for a, b in pairs
            if board[a] != board[b] and _runs([board[i] for i in swapped(range(rows * cols), a, b)], rows, cols)
        ]
        if 1 <= len(wins) <= 4:
            break
    gems = [("circle", "red"), ("square", "blue"), ("triangle", "green"), ("diamond", "yellow"), ("star", "purple")]
    tiles = []
    for v in board:
        t = Image.new("RGB", (56, 56), (40, 44, 60))
        D.draw_shape(ImageDraw.Draw(t), gems[v][0], 28, 28, 20, D.COLORS[gems[v][1]], 0, (255, 255, 255), 2)
        tiles.append(t)
    return swap_puzzle(
        "Swap two neighbouring gems so that three of the same line up.", tiles, rows, cols, 4, wins, "a gem to swap"
    )


@register("jigsaw_swap", "drag", "swap", "swap tiles back to restore the picture")
def jigsaw_swap(rng: random.Random) -> Puzzle:
    side = 96
    pic = D.scene(rng, side * 3, side * 3)
    pieces = [pic.crop((c * side, r * side, (c + 1) * side, (r + 1) * side)) for r in range(3) for c in range(3)]
    perm = list(range(9))
    while perm == list(range(9)):
        for _ in range(rng.randint(1, 2)):
            a, b = rng.sample(range(9), 2)
            perm = swapped(perm, a, b)
    tiles = [pieces[perm[i]] for i in range(9)]  # tile i shows picture piece perm[i]
    restore = [perm.index(s) for s in range(9)]  # slot s must hold the tile that shows piece s
    return swap_puzzle(
        "Drag tiles onto each other to swap them until the picture is whole.",
        tiles,
        3,
        3,
        4,
        [restore],
        "a misplaced tile",
    )


@register("connect_icons", "drag", "line", "draw a line joining the two identical icons")
def connect_icons(rng: random.Random) -> Puzzle:
    h, n = 180, 6
    combos = [(i, c) for i in D.ICON_NAMES for c in ("red", "blue", "green", "orange")]
    rng.shuffle(combos)
    items = [combos[0], combos[0]] + combos[1 : n - 1]
    rng.shuffle(items)
    img = D.background(rng, W, h, "plain")
    d = ImageDraw.Draw(img)
    boxes = [
        D.grow(D.draw_icon(d, name, x, y, 20, D.COLORS[c]), 4)
        for (name, c), (x, y) in zip(items, D.spread(rng, n, W, h, 30, 70), strict=False)
    ]
    a, b = [bx for it, bx in zip(items, boxes, strict=False) if it == combos[0]]
    return line_puzzle(
        "Drag a line from one picture to the picture that is identical to it.",
        img,
        {"check": "pairs", "pairs": [[[round(v, 1) for v in a], [round(v, 1) for v in b]]]},
        [("one of the identical pictures", a), ("the other identical picture", b)],
    )


@register("sort_by_size", "drag", "swap", "reorder tiles from smallest to largest")
def sort_by_size(rng: random.Random) -> Puzzle:
    n, side = 4, 72
    radii = sorted(rng.sample(range(8, 33, 3), n))
    order = list(range(n))
    while order == sorted(order):
        rng.shuffle(order)
    kind, colour, bg = (
        rng.choice(["circle", "square", "star", "hexagon"]),
        D.COLORS[rng.choice(["red", "blue", "green"])],
        D.random_light(rng),
    )
    tiles = []
    for i in range(n):
        t = Image.new("RGB", (side, side), bg)
        D.draw_shape(ImageDraw.Draw(t), kind, side / 2, side / 2, radii[order[i]], colour)
        tiles.append(t)
    target = [order.index(rank) for rank in range(n)]  # slot k must hold the tile of size rank k
    return swap_puzzle(
        "Drag the tiles so they go from smallest on the left to largest on the right.",
        tiles,
        1,
        n,
        8,
        [target],
        "a tile out of order",
    )


@register("drag_to_bins", "drag", "drag", "drag each ball into the bin of its colour")
def drag_to_bins(rng: random.Random) -> Puzzle:
    h, tray = 140, 70
    names = rng.sample(["red", "blue", "green", "orange", "purple"], 3)
    img = D.background(rng, W, h, "plain")
    d = ImageDraw.Draw(img)
    order = rng.sample(range(3), 3)
    boxes = {}
    for slot, k in enumerate(order):
        x = 12 + slot * 102
        d.rectangle((x, 30, x + 92, 128), fill=(235, 235, 238), outline=D.COLORS[names[k]], width=6)
        d.rectangle((x, 30, x + 92, 46), fill=D.COLORS[names[k]])
        boxes[k] = (x + 14, 54, x + 78, 116)
    pieces = []
    for k in range(3):
        t = Image.new("RGBA", (40, 40), (0, 0, 0, 0))
        ImageDraw.Draw(t).ellipse(
            (2, 2, 37, 37), fill=D.COLORS[names[k]] + (255,), outline=(255, 255, 255, 255), width=2
        )
        pieces.append(t)
    slots = rng.sample(range(3), 3)
    starts = [(30 + s * 100 + rng.randint(0, 20), h + 15) for s in slots]
    return drag_puzzle(
        "Drag each ball into the bin of the same colour.",
        img,
        tray,
        pieces,
        starts,
        [boxes[k] for k in range(3)],
        [f"the {names[k]} ball" for k in range(3)],
    )
