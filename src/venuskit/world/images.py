"""Pictures with text in them (a photographed notice, a whiteboard, a scanned letter), drawn with Pillow.

A task puts one in a document page as `{img_text = "..."}`; the viewer shows the PNG, so the words exist only as
pixels: nothing in the page's DOM says them. Fonts are the system's Noto CJK (Latin and Chinese) or DejaVu.
"""

from __future__ import annotations

import base64
import io
import textwrap
from functools import cache
from pathlib import Path

FONTS = ("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc", "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")
WIDTH = 680
MARGIN = 28
SIZE = 22


@cache
def _font(size: int):  # noqa: ANN202 - PIL's FreeTypeFont
    from PIL import ImageFont

    for path in FONTS:
        if Path(path).is_file():
            return ImageFont.truetype(path, size)
    raise RuntimeError(f"No font for images with text; install fonts-noto-cjk (looked for {', '.join(FONTS)}).")


def _lines(text: str, width_chars: int) -> list[str]:
    out: list[str] = []
    for para in text.splitlines() or [""]:
        wide = sum(ord(c) > 0x2E80 for c in para) > len(para) / 3  # Chinese wraps per character, twice as wide
        out += textwrap.wrap(para, width_chars // 2 if wide else width_chars) or [""]
    return out


def text_png(text: str, *, background: str = "#fdfbf3", ink: str = "#1f2430") -> bytes:
    """A PNG of `text` on a paper-like card, wrapped to the viewer's page width."""
    from PIL import Image, ImageDraw

    font = _font(SIZE)
    lines = _lines(text, 52)
    line_h = SIZE + 12
    image = Image.new("RGB", (WIDTH, 2 * MARGIN + line_h * len(lines)), background)
    draw = ImageDraw.Draw(image)
    draw.rectangle((4, 4, WIDTH - 5, image.height - 5), outline="#c9c3ad", width=2)
    for i, line in enumerate(lines):
        draw.text((MARGIN, MARGIN + i * line_h), line, font=font, fill=ink)
    out = io.BytesIO()
    image.save(out, format="PNG", optimize=True)
    return out.getvalue()


def text_png_b64(text: str) -> str:
    return base64.b64encode(text_png(text)).decode("ascii")
