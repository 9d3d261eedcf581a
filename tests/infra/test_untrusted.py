"""Outside JSON and images, bounded before they are parsed: a decompression bomb (a few kB of PNG declaring 60 M
pixels) is refused by every reader of outside images before a byte of it is decoded, and a real screenshot of any
format venuskit reads still goes through."""

from __future__ import annotations

import io
import struct
import time
import zlib
from pathlib import Path

import pytest
from PIL import Image

from venuskit.infra import untrusted

BOMB_SIZE = (12_000, 5_000)  # 60 M pixels: over the 50 M cap; 180 MB once decoded as RGB


def bomb(width: int = BOMB_SIZE[0], height: int = BOMB_SIZE[1]) -> bytes:
    """A valid 1-bit PNG of width x height black pixels, a few kB long."""
    row = b"\x00" * (1 + (width + 7) // 8)
    comp = zlib.compressobj(9)
    idat = b"".join(comp.compress(row) for _ in range(height)) + comp.flush()

    def chunk(kind: bytes, data: bytes) -> bytes:
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))

    header = struct.pack(">IIBBBBB", width, height, 1, 0, 0, 0, 0)
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + chunk(b"IDAT", idat) + chunk(b"IEND", b"")


def picture(fmt: str, size: tuple[int, int] = (321, 123)) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", size, (200, 30, 30)).save(buf, format=fmt)
    return buf.getvalue()


def test_the_bomb_is_small_and_decodes_to_what_it_says() -> None:
    data = bomb(2000, 1000)
    assert len(data) < 5_000
    with Image.open(io.BytesIO(data)) as im:
        assert im.size == (2000, 1000)
    assert len(bomb()) < 50_000


@pytest.mark.parametrize("fmt", ["PNG", "JPEG", "GIF", "WEBP", "BMP"])
def test_the_header_gives_the_size_pil_decodes(fmt: str) -> None:
    data = picture(fmt)
    assert untrusted.image_size(data)[1:] == (321, 123)
    assert untrusted.check_image(data) == (321, 123)
    assert untrusted.open_image(data).convert("RGB").size == (321, 123)
    assert untrusted.decode_bgr(data).shape == (123, 321, 3)


def test_what_is_no_image_is_refused() -> None:
    for data in (b"", b"hello", b"\x89PNG\r\n\x1a\n\x00", picture("PNG")[:20], b"<svg/>"):
        with pytest.raises(untrusted.ImageRejected):
            untrusted.check_image(data)


def test_every_reader_of_outside_images_refuses_the_bomb_before_decoding(tmp_path: Path) -> None:
    from venuskit.models.nano.reader import ReaderError, decode_png
    from venuskit.record.overlay import draw_action
    from venuskit.record.store import read_image
    from venuskit.verify import images

    data = bomb()
    t0 = time.monotonic()
    for decode in (untrusted.check_image, untrusted.open_image, untrusted.decode_bgr):
        with pytest.raises(untrusted.ImageRejected, match="12000x5000"):
            decode(data)
    with pytest.raises(ReaderError, match="12000x5000"):
        decode_png(data)  # the reader: venus serve nano, venus serve judge, the verifier's OCR
    with pytest.raises(untrusted.ImageRejected):
        images.changed_fraction(data, data)  # the verifier's screen comparisons
    with pytest.raises(untrusted.ImageRejected):
        draw_action(data, None)  # the viewer's overlays
    (tmp_path / "step_0000.png").write_bytes(data)
    assert read_image(tmp_path, "step_0000.png") is None  # exports, the viewer, resume: not a screenshot
    assert time.monotonic() - t0 < 5  # nothing was decoded


def test_json_nested_past_the_bound_is_refused_unparsed() -> None:
    assert untrusted.loads(b'{"a": [1, {"b": "[[["}]}') == {"a": [1, {"b": "[[["}]}
    with pytest.raises(untrusted.TooDeep):
        untrusted.loads("[" * 100_000 + "]" * 100_000)
