"""H. Navigation and paged arrows (5 types)."""

from __future__ import annotations

import math
import random
from collections import deque

from PIL import Image, ImageDraw

from venuskit.synth.captcha import draw as D
from venuskit.synth.captcha.build import arrows_puzzle, int_puzzle, line_puzzle
from venuskit.synth.captcha.registry import register
from venuskit.synth.captcha.spec import Puzzle, Target

Cell = tuple[int, int]
MOVES = {"up": (-1, 0), "down": (1, 0), "left": (0, -1), "right": (0, 1)}


def bfs(start: Cell, goal: Cell, ok: callable) -> list[Cell] | None:  # type: ignore[valid-type]
    """Shortest path of cells from start to goal; ok(a, b) says whether one may step from a to b."""
    prev: dict[Cell, Cell | None] = {start: None}
    todo = deque([start])
    while todo:
        cur = todo.popleft()
        if cur == goal:
            path = [cur]
            while prev[path[-1]] is not None:
                path.append(prev[path[-1]])  # type: ignore[arg-type]
            return path[::-1]
        for dr, dc in MOVES.values():
            nxt = (cur[0] + dr, cur[1] + dc)
            if nxt not in prev and ok(cur, nxt):
                prev[nxt] = cur
                todo.append(nxt)
    return None


def ops_of(path: list[Cell]) -> list[str]:
    inv = {v: k for k, v in MOVES.items()}
    return [inv[(b[0] - a[0], b[1] - a[1])] for a, b in zip(path, path[1:], strict=False)]


@register("path_finder", "navigation", "arrows", "move the token with arrow buttons to the flag")
def path_finder(rng: random.Random) -> Puzzle:
    rows, cols, cell, x0, y0 = 4, 6, 48, 6, 4
    while True:
        start, goal = (rng.randrange(rows), 0), (rng.randrange(rows), cols - 1 - rng.randrange(2))
        walls = {(rng.randrange(rows), rng.randrange(1, cols)) for _ in range(rng.randint(5, 8))} - {start, goal}
        path = bfs(start, goal, lambda a, b, w=walls: 0 <= b[0] < rows and 0 <= b[1] < cols and b not in w)
        if path and len(path) >= 5:
            break
    img = Image.new("RGB", (300, 200), D.random_light(rng))
    d = ImageDraw.Draw(img)
    for r in range(rows):
        for c in range(cols):
            box = (x0 + c * cell, y0 + r * cell, x0 + (c + 1) * cell - 1, y0 + (r + 1) * cell - 1)
            d.rectangle(box, fill=(90, 90, 100) if (r, c) in walls else (245, 245, 240), outline=(190, 190, 190))
    fx, fy = x0 + goal[1] * cell + cell / 2, y0 + goal[0] * cell + cell / 2
    d.line((fx - 8, fy - 16, fx - 8, fy + 16), fill=(60, 40, 20), width=3)
    d.polygon([(fx - 7, fy - 16), (fx + 14, fy - 9), (fx - 7, fy - 2)], fill=(220, 40, 40))
    params = {
        "w": 300,
        "h": 200,
        "mode": "grid",
        "rows": rows,
        "cols": cols,
        "cell": cell,
        "x0": x0,
        "y0": y0,
        "walls": sorted(map(list, walls)),
        "grid_start": list(start),
        "token": 30,
    }
    answer = {"check": "arrows", "pos": list(goal), "span": rows + cols, "oracle": {"ops": ops_of(path)}}
    flag = (x0 + goal[1] * cell, y0 + goal[0] * cell, x0 + (goal[1] + 1) * cell, y0 + (goal[0] + 1) * cell)
    return arrows_puzzle(
        "Use the arrow buttons to move the blue token onto the red flag (grey blocks are walls).",
        img,
        params,
        answer,
        {},
        (Target("the flag", "image", flag),),
    )


@register("orbit_match", "navigation", "arrows", "move the planet around its orbit to the marked spot")
def orbit_match(rng: random.Random) -> Puzzle:
    n, size, r = 8, 220, 80
    c = size / 2
    img = Image.new("RGB", (size, size), (20, 24, 48))
    d = ImageDraw.Draw(img)
    for _ in range(40):
        x, y = rng.uniform(0, size), rng.uniform(0, size)
        d.point((x, y), fill=(200, 200, 220))
    d.ellipse((c - r, c - r, c + r, c + r), outline=(120, 130, 170), width=2)
    d.ellipse((c - 18, c - 18, c + 18, c + 18), fill=(250, 200, 40))
    target, start = rng.sample(range(n), 2)
    for k in range(n):
        a = 2 * math.pi * k / n - math.pi / 2
        x, y = c + r * math.cos(a), c + r * math.sin(a)
        if k == target:
            D.draw_icon(d, "star", x, y, 17, (255, 90, 90))
        else:
            d.ellipse((x - 5, y - 5, x + 5, y + 5), fill=(120, 130, 170))
    steps = (target - start) % n
    ops = ["cw"] * steps if steps <= n // 2 else ["ccw"] * (n - steps)
    params = {"w": size, "h": size, "mode": "orbit", "n": n, "start": start, "cx": c, "cy": c, "r": r, "token": 26}
    answer = {"check": "arrows", "value": target, "period": n, "oracle": {"ops": ops}}
    a = 2 * math.pi * target / n - math.pi / 2
    tx, ty = c + r * math.cos(a), c + r * math.sin(a)
    return arrows_puzzle(
        "Use the arrows to move the blue planet along its orbit onto the red star.",
        img,
        params,
        answer,
        {},
        (Target("the red star", "image", (tx - 17, ty - 17, tx + 17, ty + 17)),),
    )


def _dice_pair(rng: random.Random, pair: tuple[int, int], w: int, h: int) -> Image.Image:
    img = D.background(rng, w, h, "plain")
    d = ImageDraw.Draw(img)
    values = list(pair)
    rng.shuffle(values)
    for i, v in enumerate(values):
        D.draw_die(
            d,
            w * (0.3 + 0.4 * i),
            h / 2 + rng.uniform(-20, 20),
            min(w, h) * 0.32,
            v,
            (255, 255, 255),
            (20, 20, 20),
            rng.uniform(-25, 25),
        )
    return img


@register("pager_dice", "navigation", "arrows", "page through options to the dice matching the reference")
def pager_dice(rng: random.Random) -> Puzzle:
    n = 6
    pairs: list[tuple[int, int]] = []
    while len(pairs) < n:
        p = tuple(sorted((rng.randint(1, 6), rng.randint(1, 6))))
        if p not in pairs:
            pairs.append(p)  # type: ignore[arg-type]
    j = rng.randrange(1, n)
    ref = _dice_pair(rng, pairs[j], 100, 150)
    frames = {f"frame-{i}": D.png(_dice_pair(rng, p, 200, 150)) for i, p in enumerate(pairs)}
    params = {"w": 200, "h": 150, "mode": "index", "n": n, "start": 0, "ref": [100, 150]}
    ops = ["next"] * j if j <= n // 2 else ["prev"] * (n - j)
    answer = {"check": "arrows", "value": j, "period": n, "oracle": {"ops": ops}}
    return arrows_puzzle(
        "Use the arrows until the right picture shows the same two dice as the left one.",
        None,
        params,
        answer,
        frames | {"ref": D.png(ref)},
        (Target("the next arrow", "btn-next"),),
    )


def _maze(rng: random.Random, rows: int, cols: int) -> set[tuple[Cell, Cell]]:
    """A perfect maze by randomised depth-first search: the set of open passages (both directions)."""
    opened: set[tuple[Cell, Cell]] = set()
    seen, stack = {(0, 0)}, [(0, 0)]
    while stack:
        cur = stack[-1]
        nbrs = [(cur[0] + dr, cur[1] + dc) for dr, dc in MOVES.values()]
        nbrs = [p for p in nbrs if 0 <= p[0] < rows and 0 <= p[1] < cols and p not in seen]
        if not nbrs:
            stack.pop()
            continue
        nxt = rng.choice(nbrs)
        opened |= {(cur, nxt), (nxt, cur)}
        seen.add(nxt)
        stack.append(nxt)
    return opened


def _corners(path: list[Cell]) -> list[Cell]:
    keep = [path[0]]
    for a, b, c in zip(path, path[1:], path[2:], strict=False):
        if (b[0] - a[0], b[1] - a[1]) != (c[0] - b[0], c[1] - b[1]):
            keep.append(b)
    return keep + [path[-1]]


@register("maze_trace", "navigation", "line", "draw a path through the maze from start to goal")
def maze_trace(rng: random.Random) -> Puzzle:
    rows, cols, cell, x0, y0 = 4, 6, 48, 6, 4
    opened = _maze(rng, rows, cols)
    start, goal = (rng.randrange(rows), 0), (rng.randrange(rows), cols - 1)
    path = bfs(start, goal, lambda a, b: (a, b) in opened)
    assert path is not None  # a perfect maze joins every pair of cells
    img = Image.new("RGB", (300, 200), (250, 250, 245))
    d = ImageDraw.Draw(img)
    ink = D.random_dark(rng)
    d.rectangle((x0, y0, x0 + cols * cell, y0 + rows * cell), outline=ink, width=4)
    for r in range(rows):
        for c in range(cols):
            x, y = x0 + c * cell, y0 + r * cell
            if c + 1 < cols and ((r, c), (r, c + 1)) not in opened:
                d.line((x + cell, y, x + cell, y + cell), fill=ink, width=4)
            if r + 1 < rows and ((r, c), (r + 1, c)) not in opened:
                d.line((x, y + cell, x + cell, y + cell), fill=ink, width=4)
    centre = lambda p: (x0 + p[1] * cell + cell / 2, y0 + p[0] * cell + cell / 2)  # noqa: E731
    for p, col in ((start, (40, 170, 60)), (goal, (220, 40, 40))):
        x, y = centre(p)
        d.ellipse((x - 9, y - 9, x + 9, y + 9), fill=col)
    answer = {
        "check": "maze",
        "cell": cell,
        "rows": rows,
        "cols": cols,
        "origin": [x0, y0],
        "tol": 12,
        "open": [[list(a), list(b)] for a, b in sorted(opened) if a < b],
        "start": list(start),
        "goal": list(goal),
        "path": [list(p) for p in path],
        "oracle": {"points": [list(centre(p)) for p in _corners(path)]},
    }
    sx, sy = centre(start)
    gx, gy = centre(goal)
    return line_puzzle(
        "Draw a path through the maze from the green dot to the red dot, in straight strokes.",
        img,
        answer,
        [
            ("the green start dot", (sx - 9, sy - 9, sx + 9, sy + 9)),
            ("the red goal dot", (gx - 9, gy - 9, gx + 9, gy + 9)),
        ],
    )


@register("subway_count", "navigation", "text", "count the stations between two stops on a metro line")
def subway_count(rng: random.Random) -> Puzzle:
    w, h = 320, 180
    img = Image.new("RGB", (w, h), (250, 250, 252))
    d = ImageDraw.Draw(img)
    letters = list("ABCDEFGHJKLMNPRSTUVW")
    rng.shuffle(letters)
    n = rng.randint(6, 7)
    xs = [22 + i * (w - 44) / (n - 1) for i in range(n)]
    red = [(x, 72 + (rng.uniform(-14, 14) if 0 < i < n - 1 else 0)) for i, x in enumerate(xs)]
    k = rng.randrange(n - 1)  # the blue line crosses between red stations k and k + 1, with no shared stop
    bx = (xs[k] + xs[k + 1]) / 2
    blue = [
        (bx + rng.uniform(-30, 30), 26),
        (bx, 72),
        (bx + rng.uniform(-30, 30), 124),
        (bx + rng.uniform(-40, 40), 162),
    ]
    blue_stops = [blue[0], blue[2], blue[3]]
    d.line(red, fill=D.COLORS["red"], width=6, joint="curve")
    d.line(blue, fill=D.COLORS["blue"], width=6, joint="curve")
    fnt = D.font(12, "sans-bold")
    for (x, y), ch in list(zip(red, letters, strict=False)) + list(zip(blue_stops, letters[n:], strict=False)):
        d.ellipse((x - 8, y - 8, x + 8, y + 8), fill=(255, 255, 255), outline=(40, 40, 40), width=2)
        D.text_center(d, (x, y - 17), ch, fnt, (30, 30, 30))
    i, j = sorted(rng.sample(range(n), 2))
    while j - i < 2:
        i, j = sorted(rng.sample(range(n), 2))
    a, b = (letters[i], letters[j]) if rng.random() < 0.5 else (letters[j], letters[i])
    return int_puzzle(
        f"On the red line, how many stations are there between {a} and {b} (not counting {a} and {b})?", img, j - i - 1
    )
