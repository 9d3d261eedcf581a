"""Text from screenshots for the verifier: one shared reader (venus-nano's, `venuskit.models.nano.reader`:
cheap line finding, PP-OCR recognition of each line, a cache by line crop), so the OCR rules, the clicked-target
reading and the trained judge all read a screen the same way and never twice.

    lines(png)          -> [(box, text)] in screenshot pixels
    text(png)           -> the screen's text, one line per line
    text_at(png, point) -> the text under a normalised point (what a click there hits), or None
    screen_words(png)   -> every text box of PP-OCR's full pipeline (looking for a leaked secret)
    looks_like(w, s)    -> OCR text that is, or nearly is, a secret
"""

from __future__ import annotations

import hashlib
import threading
from typing import Any

Box = tuple[int, int, int, int]
_NEAR = 6  # pixels: a click this close to a line's box counts as on it (padding around a label)
_LABEL = 40  # pixels: a click on no text takes the line that starts this close to its right on the same row
_LOCK = threading.Lock()
_CACHE: dict[bytes, tuple[tuple[Box, str], ...]] = {}
_CACHE_SIZE = 50_000  # screens; a few hundred bytes each


class OcrUnavailable(RuntimeError):
    """The reader cannot run here (its OCR package is missing or the image cannot be decoded)."""


def _reader() -> Any:
    try:
        from venuskit.models.nano.reader import default_reader
    except ImportError as exc:  # the reader needs opencv and rapidocr_onnxruntime (the verify extra)
        raise OcrUnavailable(f"The verifier's OCR needs 'venuskit[verify]': {exc}") from exc
    return default_reader()


def lines(png: bytes) -> tuple[tuple[Box, str], ...]:
    """The text lines on a screenshot, top to bottom: (box in pixels, text). Cached by the image's digest (a
    screen is read once however many rules, windows and judges look at it)."""
    from venuskit.models.nano.reader import ReaderError

    key = hashlib.blake2b(png, digest_size=16).digest()
    with _LOCK:  # one recognizer, one thread: parallel judges would only queue inside it
        if key not in _CACHE:
            try:
                screen = _reader().read(png)
            except ReaderError as exc:
                raise OcrUnavailable(str(exc)) from exc
            if len(_CACHE) >= _CACHE_SIZE:
                _CACHE.pop(next(iter(_CACHE)))
            _CACHE[key] = tuple((tuple(int(v) for v in line.box), line.text) for line in screen.lines if line.text)
        return _CACHE[key]


def text(png: bytes) -> str:
    return "\n".join(t for _, t in lines(png))


def size(png: bytes) -> tuple[int, int]:
    from venuskit.verify.images import png_size

    return png_size(png)


def text_at(png: bytes, point: Any) -> str | None:
    """The text of the line under a normalised point (x, y in [0, 1]), or of the nearest line within a few
    pixels of it; None when the point is on no text (an icon, an empty field, the background)."""
    from venuskit.actions import coords

    w, h = size(png)
    x, y = coords.point_to_pixels((point.x, point.y), w, h)
    best, dist = None, float(_NEAR + 1)
    label, gap = None, float(_LABEL + 1)
    for (x1, y1, x2, y2), t in lines(png):
        d = max(x1 - x, 0, x - x2) + max(y1 - y, 0, y - y2)
        if d < dist:
            best, dist = t, d
        if y1 - _NEAR <= y <= y2 + _NEAR and 0 <= x1 - x < gap:  # a checkbox's or radio's label, to its right
            label, gap = t, x1 - x
    return best or label


_OCR: list[Any] = []  # the full PP-OCR pipeline, started once per process


def screen_words(png: bytes) -> list[str]:
    """Every text box PP-OCR (rapidocr, detection and recognition) finds on a screenshot. The full pipeline, not
    the verifier's fast line reader: looking for a leaked secret, a dropped character must not hide it."""
    if not _OCR:
        from rapidocr_onnxruntime import RapidOCR

        _OCR.append(RapidOCR())
    found, _ = _OCR[0](png)
    return [str(box[1]) for box in found or []]


def looks_like(word: str, secret: str, threshold: float = 0.8) -> bool:
    """OCR text that is, or nearly is, the secret (OCR misreads a character now and then), inside a longer box
    too: a leak must not hide behind one misread letter."""
    import difflib

    norm = lambda s: "".join(s.split()).casefold()  # noqa: E731
    w, s = norm(word), norm(secret)
    if s in w:
        return True
    if len(w) < len(s) * threshold:
        return False
    matcher = difflib.SequenceMatcher(None, w, s)
    return matcher.find_longest_match().size >= len(s) * threshold or matcher.ratio() >= threshold
