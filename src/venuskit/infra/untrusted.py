"""What venuskit reads from outside, bounded before it is parsed: JSON and images.

Every request body, episode file, dataset and uploaded picture may be hostile. Parsing is where a small input
costs a lot: a 30,000-deep JSON array raises RecursionError inside `json.loads`, and a 1.1 MB PNG that declares
20000x20000 pixels decodes to 1.2 GB. So:

- `json_depth(data)` measures nesting without parsing (a linear scan), and `loads(data, max_depth)` parses only
  what is shallow enough (`TooDeep` otherwise);
- `image_size(data)` reads an image's size from its header (PNG, JPEG, GIF, WebP, BMP), and every decode of an
  outside image goes through `open_image` (a PIL image) or `decode_bgr` (an OpenCV array), which refuse a
  picture over `MAX_PIXELS` before a byte of it is decoded (`ImageRejected`), and set PIL's and OpenCV's own
  limits to the same bound for anything the header check cannot see. Pillow and OpenCV are imported there, and
  only there in this room, lazily: this module stays importable with the standard library alone.
"""

from __future__ import annotations

import io
import json
import os
import re
import struct
from typing import Any

MAX_JSON_DEPTH = 64
# 50 M pixels: an 8K screen (33 M) fits; decoded as RGB it is 150 MB. ScreenSpot-Pro's largest screenshot is
# 6016x3384 (20 M).
MAX_PIXELS = 50_000_000


class UntrustedError(ValueError):
    """Outside data refused before it was parsed; the message says why."""


class TooDeep(UntrustedError):
    """JSON nested deeper than allowed."""


class ImageRejected(UntrustedError):
    """An image that is not one, is of a kind not read here, or is larger than `MAX_PIXELS`."""


# ---- JSON --------------------------------------------------------------------------------------------------

_JSON_STRING = re.compile(rb'"(?:[^"\\]++|\\.)*+"', re.DOTALL)
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")


def json_depth(data: bytes | str) -> int:
    """The deepest nesting of arrays/objects in a JSON text, without parsing it (brackets in strings ignored)."""
    raw = data.encode("utf-8", "surrogatepass") if isinstance(data, str) else data
    brackets = _JSON_STRING.sub(b"", raw).translate(None, _NOT_BRACKETS)
    depth = deepest = 0
    for b in brackets:
        depth += 1 if b in b"[{" else -1
        deepest = max(deepest, depth)
    return deepest


def loads(data: bytes | str, max_depth: int = MAX_JSON_DEPTH) -> Any:
    """`json.loads` of outside text: `TooDeep` past `max_depth` levels, ValueError (JSONDecodeError,
    UnicodeDecodeError) for text that is not JSON."""
    if json_depth(data) > max_depth:
        raise TooDeep(f"the JSON nests deeper than {max_depth} levels")
    try:
        return json.loads(data)
    except RecursionError as e:  # not reached after the depth check; kept so no RecursionError ever escapes
        raise TooDeep(f"the JSON nests deeper than {max_depth} levels") from e


# ---- images ------------------------------------------------------------------------------------------------

_PNG = b"\x89PNG\r\n\x1a\n"
_JPEG_SIZE_MARKERS = frozenset({*range(0xC0, 0xC4), *range(0xC5, 0xC8), *range(0xC9, 0xCC), *range(0xCD, 0xD0)})


def image_size(data: bytes) -> tuple[str, int, int]:
    """(format, width, height) from an image's header, without decoding it. ImageRejected for anything that is
    not a PNG, JPEG, GIF, WebP or BMP with a readable header."""
    try:
        if data.startswith(_PNG) and data[12:16] == b"IHDR":
            return ("png", *struct.unpack(">II", data[16:24]))
        if data[:6] in (b"GIF87a", b"GIF89a"):
            return ("gif", *struct.unpack("<HH", data[6:10]))
        if data[:2] == b"BM":
            w, h = struct.unpack("<ii", data[18:26])
            return "bmp", abs(w), abs(h)
        if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
            return ("webp", *_webp_size(data))
        if data[:2] == b"\xff\xd8":
            return ("jpeg", *_jpeg_size(data))
    except (struct.error, IndexError) as e:
        raise ImageRejected("the image's header is cut short") from e
    raise ImageRejected("not an image of a kind read here (PNG, JPEG, GIF, WebP or BMP)")


def _webp_size(data: bytes) -> tuple[int, int]:
    chunk = data[12:16]
    if chunk == b"VP8X":
        return 1 + int.from_bytes(data[24:27], "little"), 1 + int.from_bytes(data[27:30], "little")
    if chunk == b"VP8L":
        bits = int.from_bytes(data[21:25], "little")
        return 1 + (bits & 0x3FFF), 1 + ((bits >> 14) & 0x3FFF)
    if chunk == b"VP8 ":
        w, h = struct.unpack("<HH", data[26:30])
        return w & 0x3FFF, h & 0x3FFF
    raise ImageRejected("a WebP image with an unknown first chunk")


def _jpeg_size(data: bytes) -> tuple[int, int]:
    i = 2
    while i + 9 < len(data):
        if data[i] != 0xFF:
            raise ImageRejected("a JPEG whose markers do not follow each other")
        marker = data[i + 1]
        if marker == 0xFF:  # fill byte
            i += 1
            continue
        length = struct.unpack(">H", data[i + 2 : i + 4])[0]
        if marker in _JPEG_SIZE_MARKERS:
            h, w = struct.unpack(">HH", data[i + 5 : i + 9])
            return w, h
        i += 2 + length
    raise ImageRejected("a JPEG without a frame header")


def check_image(data: bytes, max_pixels: int = MAX_PIXELS) -> tuple[int, int]:
    """(width, height) of an outside image whose header says it is at most `max_pixels`; else ImageRejected."""
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise ImageRejected(f"an image must be bytes, not {type(data).__name__}")
    kind, width, height = image_size(bytes(data))
    if width <= 0 or height <= 0:
        raise ImageRejected(f"the {kind.upper()} header gives no size ({width}x{height})")
    if width * height > max_pixels:
        raise ImageRejected(f"the {kind.upper()} is {width}x{height} pixels ({width * height / 1e6:.0f} M), over "
                            f"the {max_pixels / 1e6:.0f} M a screenshot may have")  # fmt: skip
    return width, height


def open_image(data: bytes, max_pixels: int = MAX_PIXELS) -> Any:
    """A PIL image of outside bytes, after `check_image` (call `.convert`/`.load` on it as usual). PIL's own
    bomb limit is set to the same bound, so a format whose size the header check missed still stops there."""
    check_image(data, max_pixels)
    from PIL import Image

    Image.MAX_IMAGE_PIXELS = max_pixels  # PIL warns past this and raises DecompressionBombError past twice it
    try:
        return Image.open(io.BytesIO(data))
    except (OSError, SyntaxError, ValueError, Image.DecompressionBombError) as e:
        raise ImageRejected(f"the image cannot be read ({e})") from e


def decode_bgr(data: bytes, max_pixels: int = MAX_PIXELS) -> Any:
    """A BGR uint8 array (OpenCV) of outside bytes, after `check_image`; OpenCV's own limit is the same bound."""
    check_image(data, max_pixels)
    os.environ.setdefault("CV_IO_MAX_IMAGE_PIXELS", str(max_pixels))  # read by OpenCV at its first decode
    import cv2
    import numpy as np

    img = cv2.imdecode(np.frombuffer(data, np.uint8), cv2.IMREAD_COLOR)
    if img is None:
        raise ImageRejected("the image cannot be decoded")
    return img
