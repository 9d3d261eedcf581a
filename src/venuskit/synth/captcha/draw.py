"""PIL drawing helpers shared by the generators: fonts, colours, backgrounds, noise, warps, shapes,
icons and dice. Everything is a pure function of its arguments and the `random.Random` it is given,
so a (type, seed) pair always draws the same pixels (on a machine with the same fonts)."""

from __future__ import annotations

import io
import math
import random
from collections.abc import Iterable, Sequence
from functools import cache
from pathlib import Path

from PIL import Image, ImageChops, ImageDraw, ImageFont

RGB = tuple[int, int, int]
Pt = tuple[float, float]

FONT_DIRS = ("/usr/share/fonts/truetype/dejavu", "/usr/share/fonts/truetype/liberation")
_FONT_FILES = {
    "sans": "DejaVuSans.ttf",
    "sans-bold": "DejaVuSans-Bold.ttf",
    "serif": "DejaVuSerif.ttf",
    "serif-bold": "DejaVuSerif-Bold.ttf",
    "mono": "DejaVuSansMono.ttf",
    "mono-bold": "DejaVuSansMono-Bold.ttf",
    "condensed-bold": "DejaVuSansCondensed-Bold.ttf",
    "oblique-bold": "DejaVuSans-BoldOblique.ttf",
}
FONT_STYLES = tuple(_FONT_FILES)

# Named colours: names a prompt may use, each far from the others.
COLORS: dict[str, RGB] = {
    "red": (214, 39, 40),
    "green": (44, 160, 44),
    "blue": (31, 90, 200),
    "orange": (255, 127, 14),
    "purple": (140, 70, 180),
    "yellow": (230, 190, 20),
    "black": (30, 30, 30),
    "pink": (240, 110, 190),
    "teal": (23, 160, 170),
    "brown": (140, 86, 60),
}
PALE: tuple[RGB, ...] = ((250, 246, 238), (238, 245, 250), (244, 250, 240), (250, 240, 246), (246, 244, 252))


@cache
def font(size: int, style: str = "sans-bold") -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    """A TrueType font from Debian's DejaVu set (Pillow's own default font if it is missing)."""
    name = _FONT_FILES[style]
    for folder in FONT_DIRS:
        path = Path(folder) / name
        if path.is_file():
            return ImageFont.truetype(str(path), size)
    return ImageFont.load_default(size)


def png(img: Image.Image) -> bytes:
    """PNG bytes with no metadata chunks (nothing but pixels leaves the server)."""
    buf = io.BytesIO()
    img.save(buf, "PNG", compress_level=1)
    return buf.getvalue()


def mix(a: RGB, b: RGB, t: float) -> RGB:
    return tuple(round(x + (y - x) * t) for x, y in zip(a, b, strict=False))  # type: ignore[return-value]


def jitter(rng: random.Random, c: RGB, amount: int = 18) -> RGB:
    return tuple(max(0, min(255, v + rng.randint(-amount, amount))) for v in c)  # type: ignore[return-value]


def random_dark(rng: random.Random) -> RGB:
    return (rng.randint(10, 120), rng.randint(10, 120), rng.randint(10, 120))


def random_light(rng: random.Random) -> RGB:
    return (rng.randint(200, 250), rng.randint(200, 250), rng.randint(200, 250))


def gradient(w: int, h: int, a: RGB, b: RGB, vertical: bool = True) -> Image.Image:
    """A linear gradient from colour a to colour b (resampled from a two-pixel image: fast)."""
    tiny = Image.new("RGB", (1, 2) if vertical else (2, 1))
    tiny.putpixel((0, 0), a)
    tiny.putpixel((0, 1) if vertical else (1, 0), b)
    return tiny.resize((w, h), Image.BILINEAR)


def background(rng: random.Random, w: int, h: int, kind: str | None = None) -> Image.Image:
    """A light background: plain, gradient, blotches or dots."""
    kind = kind or rng.choice(("plain", "gradient", "blotches", "dots"))
    base = rng.choice(PALE)
    if kind == "gradient":
        return gradient(w, h, random_light(rng), random_light(rng), rng.random() < 0.5)
    img = Image.new("RGB", (w, h), base)
    d = ImageDraw.Draw(img)
    if kind == "blotches":
        for _ in range(10):
            x, y, r = rng.uniform(0, w), rng.uniform(0, h), rng.uniform(15, 60)
            d.ellipse((x - r, y - r, x + r, y + r), fill=random_light(rng))
    elif kind == "dots":
        noise_dots(d, rng, w, h, 120, [mix(base, random_dark(rng), 0.25)])
    return img


def noise_dots(d: ImageDraw.ImageDraw, rng: random.Random, w: int, h: int, n: int, colors: Sequence[RGB]) -> None:
    for _ in range(n):
        x, y, r = rng.uniform(0, w), rng.uniform(0, h), rng.uniform(0.6, 1.8)
        d.ellipse((x - r, y - r, x + r, y + r), fill=rng.choice(colors))


def noise_curve(d: ImageDraw.ImageDraw, rng: random.Random, w: int, h: int, color: RGB, width: int = 2) -> None:
    """A sine curve across the image (the classic text-CAPTCHA strike)."""
    amp, period, phase, mid = rng.uniform(4, h / 5), rng.uniform(w / 2, w * 1.5), rng.uniform(0, 6.3), h / 2
    mid += rng.uniform(-h / 6, h / 6)
    pts = [(x, mid + amp * math.sin(2 * math.pi * x / period + phase)) for x in range(0, w + 4, 4)]
    d.line(pts, fill=color, width=width, joint="curve")


def sine_warp(img: Image.Image, amp: float, period: float, phase: float, fill: RGB) -> Image.Image:
    """Shift columns up and down along a sine (a cheap mesh warp, 8-px strips)."""
    w, h = img.size
    mesh = []
    for x0 in range(0, w, 8):
        x1 = min(w, x0 + 8)
        dy0 = amp * math.sin(2 * math.pi * x0 / period + phase)
        dy1 = amp * math.sin(2 * math.pi * x1 / period + phase)
        mesh.append(((x0, 0, x1, h), (x0, -dy0, x0, h - dy0, x1, h - dy1, x1, -dy1)))
    return img.transform(img.size, Image.MESH, mesh, Image.BILINEAR, fillcolor=fill)


def glyph(
    ch: str,
    fnt: ImageFont.FreeTypeFont | ImageFont.ImageFont,
    fill: RGB | tuple[int, int, int, int],
    angle: float = 0.0,
    stroke: int = 0,
    stroke_fill: RGB | None = None,
) -> Image.Image:
    """One character on a transparent tile, tight-cropped then rotated (counter-clockwise, degrees)."""
    left, top, right, bottom = fnt.getbbox(ch, stroke_width=stroke)
    tile = Image.new("RGBA", (right - left + 4, bottom - top + 4), (0, 0, 0, 0))
    ImageDraw.Draw(tile).text(
        (2 - left, 2 - top), ch, font=fnt, fill=fill, stroke_width=stroke, stroke_fill=stroke_fill
    )
    return tile.rotate(angle, resample=Image.BICUBIC, expand=True) if angle else tile


def paste_center(img: Image.Image, tile: Image.Image, cx: float, cy: float) -> tuple[int, int, int, int]:
    """Alpha-paste `tile` centred at (cx, cy); returns the pasted box (x1, y1, x2, y2)."""
    x, y = round(cx - tile.width / 2), round(cy - tile.height / 2)
    img.paste(tile, (x, y), tile)
    return (x, y, x + tile.width, y + tile.height)


def ink_box(tile: Image.Image, x: int, y: int) -> tuple[int, int, int, int]:
    """The box of a tile's opaque pixels once pasted at (x, y)."""
    bb = tile.getchannel("A").getbbox() or (0, 0, tile.width, tile.height)
    return (x + bb[0], y + bb[1], x + bb[2], y + bb[3])


def text_center(
    d: ImageDraw.ImageDraw,
    xy: Pt,
    s: str,
    fnt: ImageFont.FreeTypeFont | ImageFont.ImageFont,
    fill: RGB,
    stroke: int = 0,
    stroke_fill: RGB | None = None,
) -> None:
    d.text(xy, s, font=fnt, fill=fill, anchor="mm", stroke_width=stroke, stroke_fill=stroke_fill)


# ---- geometry --------------------------------------------------------------------------------------


def rotate_pts(pts: Iterable[Pt], angle_deg: float, cx: float = 0.0, cy: float = 0.0) -> list[Pt]:
    """Rotate points clockwise on screen (y down) by angle_deg around (cx, cy)."""
    a = math.radians(angle_deg)
    ca, sa = math.cos(a), math.sin(a)
    return [(cx + (x - cx) * ca - (y - cy) * sa, cy + (x - cx) * sa + (y - cy) * ca) for x, y in pts]


def place(pts: Iterable[Pt], cx: float, cy: float, scale: float, angle: float = 0.0) -> list[Pt]:
    """Unit-frame points -> image points: scale, rotate (clockwise degrees), translate."""
    return [(cx + x, cy + y) for x, y in rotate_pts([(x * scale, y * scale) for x, y in pts], angle)]


def bbox(pts: Iterable[Pt]) -> tuple[float, float, float, float]:
    xs, ys = zip(*pts, strict=False)
    return (min(xs), min(ys), max(xs), max(ys))


def grow(box: Sequence[float], by: float) -> tuple[float, float, float, float]:
    return (box[0] - by, box[1] - by, box[2] + by, box[3] + by)


def regular(n: int, r: float = 1.0, rot: float = -90.0) -> list[Pt]:
    return [
        (r * math.cos(math.radians(rot + 360 * i / n)), r * math.sin(math.radians(rot + 360 * i / n)))
        for i in range(n)
    ]


def star(n: int = 5, inner: float = 0.45) -> list[Pt]:
    outer, inn = regular(n), regular(n, inner, -90 + 180 / n)
    return [p for pair in zip(outer, inn, strict=False) for p in pair]


def circle_poly(cx: float = 0, cy: float = 0, r: float = 1, n: int = 28) -> list[Pt]:
    return [(cx + r * math.cos(2 * math.pi * i / n), cy + r * math.sin(2 * math.pi * i / n)) for i in range(n)]


# Shapes a prompt can name. Unit-frame polygons (radius ~1).
SHAPES: dict[str, list[Pt]] = {
    "circle": circle_poly(),
    "square": [(-0.85, -0.85), (0.85, -0.85), (0.85, 0.85), (-0.85, 0.85)],
    "triangle": regular(3, 1.05, -90),
    "pentagon": regular(5),
    "hexagon": regular(6, 1.0, 0),
    "star": star(),
    "diamond": [(0, -1), (0.7, 0), (0, 1), (-0.7, 0)],
    "cross": [
        (-0.3, -1),
        (0.3, -1),
        (0.3, -0.3),
        (1, -0.3),
        (1, 0.3),
        (0.3, 0.3),
        (0.3, 1),
        (-0.3, 1),
        (-0.3, 0.3),
        (-1, 0.3),
        (-1, -0.3),
        (-0.3, -0.3),
    ],
}


def draw_shape(
    d: ImageDraw.ImageDraw,
    kind: str,
    cx: float,
    cy: float,
    r: float,
    fill: RGB | int | None,
    angle: float = 0.0,
    outline: RGB | int | None = None,
    width: int = 0,
) -> tuple[float, float, float, float]:
    """Draw a named shape; returns its bounding box."""
    pts = place(SHAPES[kind], cx, cy, r, angle)
    d.polygon(pts, fill=fill, outline=outline, width=width)
    return bbox(pts)


# ---- icons: unit-frame primitives ("poly", points) / ("circle", (x, y, r)) ---------------------------


def _heart() -> list[Pt]:
    pts = []
    for i in range(32):
        t = 2 * math.pi * i / 32
        x = 16 * math.sin(t) ** 3
        y = 13 * math.cos(t) - 5 * math.cos(2 * t) - 2 * math.cos(3 * t) - math.cos(4 * t)
        pts.append((x / 17, -y / 17 - 0.05))
    return pts


def _moon() -> list[Pt]:
    outer = [(math.cos(a), math.sin(a)) for a in (math.radians(d) for d in range(60, 301, 10))]
    inner = [(0.45 + 0.75 * math.cos(a), 0.75 * math.sin(a)) for a in (math.radians(d) for d in range(250, 109, -10))]
    return outer + inner


def _drop() -> list[Pt]:
    arc = [(0.6 * math.cos(math.radians(d)), 0.35 + 0.6 * math.sin(math.radians(d))) for d in range(-20, 201, 10)]
    return arc + [(0, -1)]


ICONS: dict[str, list[tuple[str, object]]] = {
    "star": [("poly", star())],
    "heart": [("poly", _heart())],
    "moon": [("poly", _moon())],
    "sun": [("circle", (0, 0, 0.5))]
    + [("poly", place([(-0.12, -0.65), (0.12, -0.65), (0, -1)], 0, 0, 1, a)) for a in range(0, 360, 45)],
    "bolt": [("poly", [(0.15, -1), (-0.55, 0.1), (-0.05, 0.1), (-0.2, 1), (0.55, -0.15), (0.05, -0.15)])],
    "drop": [("poly", _drop())],
    "house": [
        ("poly", [(-0.75, -0.05), (0, -0.85), (0.75, -0.05), (0.6, -0.05), (0.6, 0.85), (-0.6, 0.85), (-0.6, -0.05)])
    ],
    "cloud": [
        ("circle", (-0.45, 0.15, 0.4)),
        ("circle", (0.05, -0.15, 0.5)),
        ("circle", (0.5, 0.2, 0.35)),
        ("poly", [(-0.45, 0.2), (0.5, 0.2), (0.5, 0.55), (-0.45, 0.55)]),
    ],
    "arrow": [("poly", [(-0.9, -0.25), (0.2, -0.25), (0.2, -0.6), (0.95, 0), (0.2, 0.6), (0.2, 0.25), (-0.9, 0.25)])],
    "tree": [
        ("poly", [(0, -1), (0.7, 0.35), (-0.7, 0.35)]),
        ("poly", [(-0.15, 0.3), (0.15, 0.3), (0.15, 1), (-0.15, 1)]),
    ],
}
ICON_NAMES = tuple(ICONS)
ICON_LABELS = {"bolt": "lightning bolt"}


def icon_label(name: str) -> str:
    return ICON_LABELS.get(name, name)


def draw_icon(
    d: ImageDraw.ImageDraw, name: str, cx: float, cy: float, s: float, fill: RGB | int, angle: float = 0.0
) -> tuple[float, float, float, float]:
    """Draw icon `name` with radius `s` at (cx, cy); returns its bounding box."""
    boxes = []
    for kind, data in ICONS[name]:
        if kind == "poly":
            pts = place(data, cx, cy, s, angle)  # type: ignore[arg-type]
            d.polygon(pts, fill=fill)
            boxes.append(bbox(pts))
        else:
            x, y, r = data  # type: ignore[misc]
            (px, py), rr = place([(x, y)], cx, cy, s, angle)[0], r * s
            d.ellipse((px - rr, py - rr, px + rr, py + rr), fill=fill)
            boxes.append((px - rr, py - rr, px + rr, py + rr))
    return (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))


# ---- dice ------------------------------------------------------------------------------------------

_PIPS = {
    1: [(0, 0)],
    2: [(-1, -1), (1, 1)],
    3: [(-1, -1), (0, 0), (1, 1)],
    4: [(-1, -1), (1, -1), (-1, 1), (1, 1)],
    5: [(-1, -1), (1, -1), (0, 0), (-1, 1), (1, 1)],
    6: [(-1, -1), (1, -1), (-1, 0), (1, 0), (-1, 1), (1, 1)],
}


def draw_die(
    d: ImageDraw.ImageDraw, cx: float, cy: float, size: float, value: int, face: RGB, pip: RGB, angle: float = 0.0
) -> tuple[float, float, float, float]:
    """A die face showing `value` (1-6), rotated by `angle`; returns its bounding box."""
    half = size / 2
    corners = place([(-1, -1), (1, -1), (1, 1), (-1, 1)], cx, cy, half, angle)
    d.polygon(corners, fill=face, outline=(40, 40, 40), width=2)
    r = size * 0.09
    for px, py in place(_PIPS[value], cx, cy, size * 0.27, angle):
        d.ellipse((px - r, py - r, px + r, py + r), fill=pip)
    return bbox(corners)


def spread(
    rng: random.Random, n: int, w: float, h: float, margin: float, min_dist: float, tries: int = 2000
) -> list[Pt]:
    """n points in [margin, w-margin] x [margin, h-margin] at least min_dist apart (a jittered grid if
    rejection sampling runs out of tries, so it never fails)."""
    pts: list[Pt] = []
    for _ in range(tries):
        if len(pts) == n:
            return pts
        p = (rng.uniform(margin, w - margin), rng.uniform(margin, h - margin))
        if all(math.dist(p, q) >= min_dist for q in pts):
            pts.append(p)
    # Rejection sampling ran out: a jittered grid with the roomiest cells for n points.
    best = max(
        ((c, math.ceil(n / c)) for c in range(1, n + 1)),
        key=lambda cr: min((w - 2 * margin) / cr[0], (h - 2 * margin) / cr[1]),
    )
    cols, rows = best
    cells = [(c, r) for r in range(rows) for c in range(cols)]
    rng.shuffle(cells)
    cw, ch = (w - 2 * margin) / cols, (h - 2 * margin) / rows
    return [(margin + (c + 0.5) * cw, margin + (r + 0.5) * ch) for c, r in cells[:n]]


def mask_coverage(mask: Image.Image, box: Sequence[int]) -> float:
    """Fraction of non-zero pixels of an 'L' mask inside box."""
    crop = mask.crop(tuple(box))
    hist = crop.histogram()
    total = crop.width * crop.height
    return (total - hist[0]) / total if total else 0.0


# ---- pictures --------------------------------------------------------------------------------------


def texture(rng: random.Random, w: int, h: int, n: int = 18) -> Image.Image:
    """A busy picture of overlapping shapes on a gradient (jigsaw and alignment backgrounds)."""
    img = gradient(w, h, random_light(rng), mix(random_light(rng), (90, 120, 160), 0.4), rng.random() < 0.5)
    d = ImageDraw.Draw(img)
    kinds = list(SHAPES)
    for _ in range(n):
        col = mix(rng.choice(list(COLORS.values())), (255, 255, 255), rng.uniform(0.1, 0.5))
        draw_shape(
            d, rng.choice(kinds), rng.uniform(0, w), rng.uniform(0, h), rng.uniform(12, 40), col, rng.uniform(0, 360)
        )
    return img


def scene(rng: random.Random, w: int, h: int) -> Image.Image:
    """A picture with an obvious up: sky above, ground below, a sun, a house and a tree standing on the ground."""
    sky = random_light(rng)
    img = gradient(w, h, mix(sky, (90, 150, 230), 0.5), sky)
    d = ImageDraw.Draw(img)
    ground_y = h * rng.uniform(0.68, 0.76)
    d.rectangle((0, ground_y, w, h), fill=mix((70, 150, 60), random_dark(rng), 0.2))
    sx, sy, sr = rng.uniform(0.12, 0.3) * w, h * 0.2, h * 0.1
    d.ellipse((sx - sr, sy - sr, sx + sr, sy + sr), fill=(250, 200, 40))
    hx, hw = rng.uniform(0.45, 0.6) * w, w * 0.22
    hh = h * 0.26
    d.rectangle(
        (hx - hw / 2, ground_y - hh, hx + hw / 2, ground_y), fill=random_light(rng), outline=(60, 40, 30), width=2
    )
    d.polygon(
        [(hx - hw / 2 - 6, ground_y - hh), (hx, ground_y - hh - h * 0.2), (hx + hw / 2 + 6, ground_y - hh)],
        fill=(170, 50, 40),
    )
    d.rectangle((hx - 7, ground_y - h * 0.14, hx + 7, ground_y), fill=(90, 60, 40))
    tx = hx + hw / 2 + w * 0.12
    d.rectangle((tx - 4, ground_y - h * 0.12, tx + 4, ground_y), fill=(100, 70, 40))
    d.polygon(
        [(tx, ground_y - h * 0.42), (tx + w * 0.07, ground_y - h * 0.1), (tx - w * 0.07, ground_y - h * 0.1)],
        fill=(30, 120, 50),
    )
    return img


def grain(rng: random.Random, img: Image.Image, amount: int = 4) -> Image.Image:
    """Seeded per-pixel noise of +-amount: the PNG's size is then set by the noise, not by how smooth the
    picture is (a scrambled frame would otherwise compress worse than the whole one and give it away)."""
    w, h = img.size
    noise = Image.frombytes("L", (w, h), rng.randbytes(w * h)).point(lambda v: 128 - amount + v % (2 * amount + 1))
    return ImageChops.add(img, Image.merge("RGB", (noise, noise, noise)), 1.0, -128)


def circle_crop(img: Image.Image) -> Image.Image:
    """An RGBA copy with everything outside the inscribed circle transparent."""
    mask = Image.new("L", img.size, 0)
    ImageDraw.Draw(mask).ellipse((0, 0, img.width - 1, img.height - 1), fill=255)
    out = img.convert("RGBA")
    out.putalpha(mask)
    return out


def a_an(phrase: str) -> str:
    """'a star', 'an arrow'."""
    return ("an " if phrase[:1].lower() in "aeiou" else "a ") + phrase
