"""A few venus-nano training examples read from synthetic screens (no browser): list screens whose rows are words
at known places, with web rows (click the named row) and grounding rows (point at the named word).

The screens are read by the real reader, so the examples are exactly what the stages see from a real screen.
"""

from __future__ import annotations

import io
import json
import random

from PIL import Image, ImageDraw, ImageFont

from venuskit.actions.prompts import system_prompt
from venuskit.actions.types import Click, Point
from venuskit.models.nano import NanoModel, Reader
from venuskit.models.nano.net import NanoNet
from venuskit.train.data import grounding_row
from venuskit.train.nano.data import Example, examples

FONT = "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf"
W, H = 480, 320
WORDS = ["Budget review", "Team lunch", "Invoice 4412", "Flight change", "Garden plan", "Quarterly report",
         "Book club", "Tax forms", "Dentist visit", "Moving day"]  # fmt: skip


def list_screen(rows: list[str]) -> tuple[bytes, list[tuple[float, float, float, float]]]:
    """A white screen with one row of text every 40 px; the PNG and each row's normalised box."""
    im = Image.new("RGB", (W, H), "white")
    d = ImageDraw.Draw(im)
    font = ImageFont.truetype(FONT, 16)
    boxes = []
    for i, text in enumerate(rows):
        x, y = 40, 30 + 40 * i
        x1, y1, x2, y2 = d.textbbox((x, y), text, font=font)
        d.text((x, y), text, fill="black", font=font)
        boxes.append((x1 / W, y1 / H, x2 / W, y2 / H))
    buf = io.BytesIO()
    im.save(buf, format="PNG")
    return buf.getvalue(), boxes


def web_row(png: bytes, goal: str, box: tuple[float, float, float, float]) -> dict:
    click = Click(point=Point((box[0] + box[2]) / 2, (box[1] + box[3]) / 2))
    prompt = [{"role": "system", "content": [{"type": "text", "text": system_prompt("browser", goal,
                                                                                     current_date="2026-01-05")}]},
              {"role": "user", "content": [{"type": "image"}, {"type": "text", "text": "Current Screenshot:"}]}]
    return {"prompt": prompt, "images": [png], "surface": "browser", "domain": "web",
            "gt_actions": json.dumps([click.to_dict()]), "gt_boxes": json.dumps([list(box)])}  # fmt: skip


def nano_examples(n_screens: int = 4, seed: int = 0) -> list[Example]:
    """Two web rows and two grounding rows per screen, each screen five words drawn with `seed`."""
    rng = random.Random(seed)
    rows = []
    for _ in range(n_screens):
        words = rng.sample(WORDS, 5)
        png, boxes = list_screen(words)
        for k in rng.sample(range(5), 2):
            rows.append(web_row(png, f'Open the email "{words[k]}".', boxes[k]))
        for k in rng.sample(range(5), 2):
            rows.append(grounding_row(png, words[k], boxes[k]))
    out, skipped = examples(rows, NanoModel(NanoNet(), reader=Reader()))
    assert not skipped, skipped
    return out
