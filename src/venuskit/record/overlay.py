"""Draw an action on a copy of the screenshot the model saw: the viewer's and the verifiers' overlay.

A red dot marks a click (rings tell double/long-press/hover apart), an arrow marks drag, swipe and
scroll, a caret box marks where text was typed (the last focused point, when known) and a banner names
actions without a place on screen (keys, Wait, PressBack...). Points convert through actions.coords only.
"""

from __future__ import annotations

import io
import math
from dataclasses import dataclass, field

from PIL import Image, ImageDraw, ImageFont

from venuskit.actions import coords
from venuskit.actions.types import (
    Action,
    DoubleClick,
    Drag,
    Hotkey,
    Hover,
    KeyDown,
    KeyUp,
    LongPress,
    Point,
    Scroll,
    Sequence,
    Swipe,
    TripleClick,
    Type,
)
from venuskit.infra import untrusted

RED = (230, 30, 30)
WHITE = (255, 255, 255)
BLACK = (0, 0, 0)
_SCROLL_FRACTION = 0.2  # arrow length of a Scroll, as a share of the screen side it moves along


@dataclass
class _Canvas:
    draw: ImageDraw.ImageDraw
    width: int
    height: int
    color: tuple[int, int, int]
    font: ImageFont.ImageFont | ImageFont.FreeTypeFont
    banners: int = 0  # banners already stacked at the top-left
    labels: list[tuple[tuple[float, float], str]] = field(default_factory=list)  # drawn last, over all shapes

    @property
    def unit(self) -> int:  # stroke and dot size that stays visible on small and large screenshots
        return max(3, min(self.width, self.height) // 80)

    def px(self, p: Point) -> tuple[int, int]:
        return coords.point_to_pixels(p.as_tuple(), self.width, self.height)


def draw_action(
    png: bytes,
    action: Action | None,
    *,
    cursor: Point | None = None,
    color: tuple[int, int, int] = RED,
    label: str | None = None,
) -> bytes:
    """PNG bytes of `png` with `action` drawn on it. `cursor` is where the pointer (or text focus) was
    before the action: used by actions without a point of their own (computer clicks at the cursor,
    Type). `label` adds a banner text (for example the step number)."""
    with untrusted.open_image(png) as im:
        img = im.convert("RGB")
    canvas = _Canvas(ImageDraw.Draw(img), img.width, img.height, color, _font(img))
    if label:
        _banner(canvas, label)
    if action is not None:
        _draw(canvas, action, cursor, number=None)
    for xy, text in canvas.labels:
        _text(canvas, xy, text)
    out = io.BytesIO()
    img.save(out, format="PNG")
    return out.getvalue()


def focus_after(action: Action | None, cursor: Point | None) -> Point | None:
    """Where the pointer / text focus is after `action` (for the next step's Type marker)."""
    if isinstance(action, Sequence):
        for child in action.actions:
            cursor = focus_after(child, cursor)
        return cursor
    if isinstance(action, (Drag, Swipe)):
        return action.end
    p = getattr(action, "point", None)
    return p if isinstance(p, Point) else cursor


def _font(img: Image.Image) -> ImageFont.ImageFont | ImageFont.FreeTypeFont:
    size = max(10, min(img.width, img.height) // 40)
    try:
        return ImageFont.load_default(size=size)
    except (TypeError, OSError):  # Pillow without FreeType: fixed bitmap font
        return ImageFont.load_default()


def _draw(c: _Canvas, action: Action, cursor: Point | None, number: int | None) -> None:
    tag = f"{number}. " if number is not None else ""
    if isinstance(action, Sequence):
        for i, child in enumerate(action.actions, start=1):
            _draw(c, child, cursor, i)
            cursor = focus_after(child, cursor)
    elif isinstance(action, (Drag, Swipe)):
        start = action.start or cursor
        if start is None:
            _banner(c, f"{tag}{action.name} to ({action.end.x:.3f}, {action.end.y:.3f})")
        else:
            _arrow(c, c.px(start), c.px(action.end), f"{tag}{action.name}")
    elif isinstance(action, Scroll):
        _scroll(c, action, action.point or cursor, tag)
    elif isinstance(action, Type):
        _typed(c, action, cursor, tag)
    elif hasattr(action, "point"):  # clicks, hover, long-press, mouse down/up
        point = action.point or cursor
        if point is None:
            _banner(c, f"{tag}{action.name} at the cursor")
        else:
            _dot(c, c.px(point), action, f"{tag}{action.name}")
    else:
        _banner(c, tag + _describe(action))


def _describe(action: Action) -> str:
    if isinstance(action, (Hotkey, KeyDown, KeyUp)):
        repeat = f" x{action.repeat}" if isinstance(action, Hotkey) and action.repeat > 1 else ""
        return f"{action.name} {'+'.join(action.keys)}{repeat}"
    text = getattr(action, "content", None) or getattr(action, "url", None) or getattr(action, "app", None)
    return f"{action.name} {_short(text)}" if text else action.name


def _short(text: str, limit: int = 60) -> str:
    one_line = text.replace("\n", "\u21b5")
    return repr(one_line if len(one_line) <= limit else one_line[: limit - 1] + "\u2026")


def _dot(c: _Canvas, xy: tuple[int, int], action: Action, text: str) -> None:
    x, y = xy
    r = c.unit * 2
    if not isinstance(action, Hover):  # hover is only a ring: nothing was pressed
        c.draw.ellipse((x - r, y - r, x + r, y + r), fill=c.color, outline=WHITE, width=max(1, c.unit // 2))
    rings = {Hover: 1, DoubleClick: 2, TripleClick: 3, LongPress: 1}.get(type(action), 0)
    outer = r
    for i in range(1, rings + 1):
        outer = r + i * (c.unit + 2) + (c.unit * 2 if isinstance(action, LongPress) else 0)
        c.draw.ellipse((x - outer, y - outer, x + outer, y + outer), outline=c.color, width=max(2, c.unit // 2 + 1))
    c.labels.append(((x + outer + c.unit, y - r), text))


def _arrow(c: _Canvas, a: tuple[int, int], b: tuple[int, int], text: str) -> None:
    w = max(2, c.unit)
    c.draw.line((a, b), fill=c.color, width=w)
    r = c.unit * 2
    c.draw.ellipse((a[0] - r, a[1] - r, a[0] + r, a[1] + r), outline=c.color, width=w)
    angle = math.atan2(b[1] - a[1], b[0] - a[0])
    head = c.unit * 5
    left = (b[0] - head * math.cos(angle - 0.45), b[1] - head * math.sin(angle - 0.45))
    right = (b[0] - head * math.cos(angle + 0.45), b[1] - head * math.sin(angle + 0.45))
    c.draw.polygon((b, left, right), fill=c.color)
    # Label beside the start, off the shaft: below a horizontal arrow, right of a vertical one.
    if abs(b[0] - a[0]) >= abs(b[1] - a[1]):
        c.labels.append(((a[0] - r, a[1] + r + c.unit), text))
    else:
        c.labels.append(((a[0] + r + c.unit, a[1] - r), text))


def _scroll(c: _Canvas, action: Scroll, point: Point | None, tag: str) -> None:
    x, y = c.px(point) if point is not None else (c.width // 2, c.height // 2)
    dx, dy = {"up": (0, -1), "down": (0, 1), "left": (-1, 0), "right": (1, 0)}[action.direction]
    length = _SCROLL_FRACTION * (c.width if dx else c.height)
    end = (round(x + dx * length), round(y + dy * length))
    amount = f" {action.amount}" if action.amount else ""
    where = "" if point is not None else " (at the cursor)"
    _arrow(c, (x, y), end, f"{tag}Scroll {action.direction}{amount}{where}")


def _typed(c: _Canvas, action: Type, focus: Point | None, tag: str) -> None:
    text = f"{tag}Type {_short(action.content)}"
    if focus is None:
        _banner(c, text)
        return
    x, y = c.px(focus)
    h = c.unit * 4
    c.draw.rectangle((x - c.unit, y - h // 2, x + c.unit, y + h // 2), outline=c.color, width=max(2, c.unit // 2))
    c.draw.line((x, y - h, x, y + h), fill=c.color, width=max(2, c.unit // 2))  # a caret: text goes here
    c.labels.append(((x + c.unit * 2, y + h // 2), text))


def _text(c: _Canvas, xy: tuple[float, float], text: str) -> None:
    x, y = xy
    box = c.draw.textbbox((0, 0), text, font=c.font)
    tw, th = box[2] - box[0], box[3] - box[1]
    x = min(max(0, x), max(0, c.width - tw - 4))  # keep the label on the image
    y = min(max(0, y), max(0, c.height - th - 4))
    c.draw.rectangle((x, y, x + tw + 4, y + th + 4), fill=WHITE)
    c.draw.text((x + 2 - box[0], y + 2 - box[1]), text, fill=BLACK, font=c.font)


def _banner(c: _Canvas, text: str) -> None:
    box = c.draw.textbbox((0, 0), text, font=c.font)
    th = box[3] - box[1] + 8
    y = c.banners * (th + 2)
    c.banners += 1
    c.draw.rectangle((0, y, min(c.width, box[2] - box[0] + 12), y + th), fill=c.color)
    c.draw.text((6 - box[0], y + 4 - box[1]), text, fill=WHITE, font=c.font)
