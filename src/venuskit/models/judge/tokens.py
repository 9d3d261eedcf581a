"""How the judge server counts a request's prompt tokens, so a cost figure means the same thing for every
verifier that talks to it (SGV, the WebJudge-shaped baseline, the step verifier).

Text: a token per word, per digit, per Chinese character and per other symbol — close to what a byte-level
BPE vocabulary gives for English UI text and the way Qwen tokenizers split digits. Images: what Qwen2.5-VL's
processor makes of them: the image resized by the smart-resize rule (28-pixel patches after the 2x2 merge,
default pixel bounds), one token per 28x28 patch, plus the vision start and end tokens.
"""

from __future__ import annotations

import base64
import re
import struct
from typing import Any

from venuskit.actions import coords

_TEXT_TOKEN = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]|[A-Za-z]+|\d|[^\sA-Za-z\d]")
IMAGE_EXTRA = 2  # <|vision_start|> and <|vision_end|>
MESSAGE_EXTRA = 4  # role and turn markers around each message


def text_tokens(text: str) -> int:
    return len(_TEXT_TOKEN.findall(text))


def png_dimensions(data: bytes) -> tuple[int, int]:
    """(width, height) from a PNG header, without decoding the image."""
    if data[:8] != b"\x89PNG\r\n\x1a\n" or len(data) < 24:
        raise ValueError("Not a PNG image: the judge server reads PNG screenshots only.")
    return struct.unpack(">II", data[16:24])


def image_tokens(width: int, height: int) -> int:
    h, w = coords.smart_resize(height, width, factor=coords.QWEN25_FACTOR)
    return (h // coords.QWEN25_FACTOR) * (w // coords.QWEN25_FACTOR) + IMAGE_EXTRA


def data_url_png(url: str) -> bytes:
    """The PNG bytes of a `data:image/png;base64,...` URL (ValueError for anything else)."""
    head, _, body = url.partition(",")
    if not head.startswith("data:image/png;base64"):
        raise ValueError("Image parts must be data:image/png;base64 URLs (the judge fetches nothing).")
    return base64.b64decode(body, validate=True)


def count_prompt_tokens(messages: list[dict[str, Any]]) -> int:
    """Prompt tokens of a chat request: every text part and image part, plus a few per message."""
    total = 0
    for message in messages:
        total += MESSAGE_EXTRA
        content = message.get("content")
        parts = [{"type": "text", "text": content}] if isinstance(content, str) else content or []
        for part in parts:
            if part.get("type") == "text":
                total += text_tokens(str(part.get("text", "")))
            elif part.get("type") == "image_url":
                total += image_tokens(*png_dimensions(data_url_png(part["image_url"]["url"])))
    return total
