"""Text from screenshots for the verifier: one shared reader (venus-nano's, `venuskit.models.nano.reader`:
cheap line finding, PP-OCR recognition of each line, a cache by line crop), so the OCR rules, the clicked-target
reading and the trained judge all read a screen the same way and never twice.

    lines(png)          -> [(box, text)] in screenshot pixels
    text(png)           -> the screen's text, one line per line
    text_at(png, point) -> the text under a normalised point (what a click there hits), or None
    screen_words(png)   -> every text box of PP-OCR's full pipeline (looking for a leaked secret)
    looks_like(w, s)    -> OCR text that is, or nearly is, a secret
    words_at(png, point)-> the words of the text row under a point, each read alone, and which one the point is on
    icon_at(png, point) -> what the icon under a point draws ("star", "trash"…: venus-nano's icon namer), or ""

`words_at` reads the region under the red dot itself, not the line finder's lines: the line finder joins a
paragraph's words into one line (and OCR of a whole line drops spaces: "fermentumleoconsectetur"), so the one
link word a click hit would be lost in it.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

Box = tuple[int, int, int, int]
_NEAR = 6  # pixels: a click this close to a line's box counts as on it (padding around a label)
_LABEL = 40  # pixels: a click on no text takes the line that starts this close to its right on the same row
_LOCK = threading.Lock()
_CACHE: dict[bytes, tuple[tuple[Box, str], ...]] = {}
_CACHE_SIZE = 50_000  # screens; a few hundred bytes each
_UNDER: dict[tuple, Any] = {}  # (screen digest, point) -> Under | None
_ICON: dict[tuple, str] = {}  # (screen digest, point) -> the icon's name or ""
_ICON_NEAR = 3  # pixels: a click this close to an icon's box is on it (the button's padding)


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


@dataclass(frozen=True)
class Under:
    """The text row under a point: its words (each recognised alone, left to right) and the index of the word the
    point is on (-1: between words). `label`: a click on a box with no text (a checkbox, a radio) takes the word
    just right of it, as `text_at` does."""

    words: tuple[str, ...]
    at: int
    boxes: tuple[Box, ...] = ()

    @property
    def line(self) -> str:
        return " ".join(self.words)


_BAND = 48  # pixels above and below the point searched for its text row
_REACH = 220  # pixels left and right of the point searched for the row's words
_MAX_WORDS = 12


def words_at(png: bytes, point: Any) -> Under | None:
    """The words of the text row under a normalised point, or None when the point is on no text row (a picture,
    the background). Words are split where the ink leaves a gap of a fifth of the row's height (a space; letters
    sit closer)."""
    return _at_point(_UNDER, png, point, _words_under)


def _words_under(img: Any, x: int, y: int) -> Under | None:
    import cv2

    h, w = img.shape[:2]
    ink = _strokes(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY))
    row = _row(ink, x, y)
    if row is None:
        return None
    y1, y2 = row
    boxes = _word_boxes(ink[y1:y2], x, y1, max(3, round(0.2 * (y2 - y1))))
    if not boxes:
        return None
    crops = [img[max(0, b[1] - 2):min(h, b[3] + 2), max(0, b[0] - 2):min(w, b[2] + 2)] for b in boxes]
    texts = [t if score >= 0.5 else "" for t, score in _reader().recognize(crops)]
    return Under(tuple(texts), _word_under(boxes, texts, x), tuple(boxes))


def icon_at(png: bytes, point: Any) -> str:
    """The name venus-nano's icon namer gives the icon under a normalised point ("star", "trash", "undo"…; see
    `models/nano/icon_names.toml`), or "" when the point is on no icon, the namer is unsure, or none ships. OCR reads
    an icon's glyph as a stray character ("☆" as "立"); the namer says what it draws, from its pixels alone."""
    from venuskit.models.nano.icons import default_namer

    return _at_point(_ICON, png, point, _icon_name) if default_namer() is not None else ""


def _icon_name(img: Any, x: int, y: int) -> str:
    import cv2

    from venuskit.models.nano import reader as nano_reader
    from venuskit.models.nano.candidates import icon_patch
    from venuskit.models.nano.icons import MIN_PROB, OTHER, default_namer

    n = _ICON_NEAR
    boxes = [b for b in nano_reader.icon_boxes(img) if b[0] - n <= x <= b[2] + n and b[1] - n <= y <= b[3] + n]
    if not boxes:
        return ""
    box = min(boxes, key=lambda b: (b[2] - b[0]) * (b[3] - b[1]))
    [(best, prob)] = default_namer().name(icon_patch(cv2.cvtColor(img, cv2.COLOR_BGR2GRAY), box)[None])
    return best if best != OTHER and prob >= MIN_PROB else ""


def _at_point(cache: dict, png: bytes, point: Any, read: Callable[[Any, int, int], Any]) -> Any:
    """`read(image, x, y)` at a normalised point of a screenshot (BGR pixels), once per screen and point."""
    from venuskit.actions import coords
    from venuskit.models.nano import reader as nano_reader

    key = (hashlib.blake2b(png, digest_size=16).digest(), round(point.x, 4), round(point.y, 4))
    with _LOCK:
        if key in cache:
            return cache[key]
    try:
        img = nano_reader.decode_png(png)
    except nano_reader.ReaderError as exc:
        raise OcrUnavailable(str(exc)) from exc
    h, w = img.shape[:2]
    found = read(img, *coords.point_to_pixels((point.x, point.y), w, h))
    with _LOCK:
        if len(cache) >= _CACHE_SIZE:
            cache.pop(next(iter(cache)))
        cache[key] = found
    return found


def _strokes(gray: Any) -> Any:
    """Text strokes: the reader's edges without long straight rules (borders, separators)."""
    import cv2

    from venuskit.models.nano import reader as nano_reader

    bw = nano_reader._edges(gray, nano_reader.TEXT_EDGE)
    rules = cv2.bitwise_or(cv2.morphologyEx(bw, cv2.MORPH_OPEN, nano_reader._rect(41, 1)),
                           cv2.morphologyEx(bw, cv2.MORPH_OPEN, nano_reader._rect(1, 25)))  # fmt: skip
    return cv2.bitwise_and(bw, cv2.bitwise_not(rules)) > 0


def _row(ink: Any, x: int, y: int) -> tuple[int, int] | None:
    """Rows [y1, y2) of the run of inked rows (near x) that holds y, or the nearest within a few pixels."""
    h, w = ink.shape
    top, bottom = max(0, y - _BAND), min(h, y + _BAND)
    cols = ink[top:bottom, max(0, x - 80):min(w, x + 80)].any(axis=1)
    runs, start = [], None
    for i, on in enumerate([*cols, False]):
        if on and start is None:
            start = i
        elif not on and start is not None:
            runs.append((start + top, i + top))
            start = None
    best = min(runs, key=lambda r: 0 if r[0] <= y < r[1] else min(abs(r[0] - y), abs(r[1] - 1 - y)), default=None)
    if best is None or not (best[0] - _NEAR <= y < best[1] + _NEAR):
        return None
    height = best[1] - best[0]
    return best if 6 <= height <= 64 else None


def _word_boxes(strip: Any, x: int, y1: int, gap: int) -> list[Box]:
    """Word boxes of one text row: runs of inked columns split at gaps of `gap` pixels or more; the row is cut
    where a gap is as wide as three row heights (another element on the same row)."""
    w = strip.shape[1]
    lo, hi = max(0, x - _REACH), min(w, x + _REACH)
    cols = strip[:, lo:hi].any(axis=0)
    spans, start, blank = [], None, 0
    for i, on in enumerate([*cols, False]):
        if on:
            if start is None:
                start = i
            blank = 0
        elif start is not None:
            blank += 1
            if blank >= gap or i == len(cols):
                spans.append((start + lo, i - blank + 1 + lo))
                start, blank = None, 0
    height = strip.shape[0]
    boxes = [(a, y1, b, y1 + height) for a, b in spans if b - a >= 2]
    return _same_element(boxes, x, 3 * height)[:_MAX_WORDS]


def _same_element(boxes: list[Box], x: int, far: int) -> list[Box]:
    """The boxes joined to the one nearest x by gaps narrower than `far`."""
    if not boxes:
        return []
    i = min(range(len(boxes)), key=lambda k: 0 if boxes[k][0] <= x < boxes[k][2] else
            min(abs(boxes[k][0] - x), abs(boxes[k][2] - x)))  # fmt: skip
    a = i
    while a > 0 and boxes[a][0] - boxes[a - 1][2] < far:
        a -= 1
    b = i
    while b < len(boxes) - 1 and boxes[b + 1][0] - boxes[b][2] < far:
        b += 1
    keep = boxes[a:b + 1]
    if len(keep) > _MAX_WORDS:  # a long row: the words around the point
        j = i - a
        keep = keep[max(0, j - _MAX_WORDS // 2):max(0, j - _MAX_WORDS // 2) + _MAX_WORDS]
    return keep


def _word_under(boxes: list[Box], texts: list[str], x: int) -> int:
    """The index of the word under x (within a few pixels); a textless box (a checkbox) hands over to the word
    just right of it."""
    hit = next((i for i, b in enumerate(boxes) if b[0] - 3 <= x < b[2] + 3), None)
    if hit is None:
        near = min(range(len(boxes)), key=lambda i: min(abs(boxes[i][0] - x), abs(boxes[i][2] - x)))
        gap = min(abs(boxes[near][0] - x), abs(boxes[near][2] - x))
        row_end = near == len(boxes) - 1 and x > boxes[near][2]
        if gap > _NEAR and not (row_end and gap <= 6 * (boxes[near][3] - boxes[near][1])):
            return -1  # between words, or far off; a click just past a row's end is on that row (a list item)
        hit = near
    if _control(boxes[hit], texts[hit]) and hit + 1 < len(boxes) and boxes[hit + 1][0] - boxes[hit][2] <= _LABEL:
        return hit + 1
    return hit


def _control(box: Box, text: str) -> bool:
    """A small square with no text or a lone glyph (a checkbox read as "口", a radio as "O"): a control, whose
    label is the word to its right. (A wide box OCR cannot read, such as "♥♥♥", is a label of its own.)"""
    w, h = box[2] - box[0], box[3] - box[1]
    return len(text.strip()) <= 1 and 0.7 <= w / max(h, 1) <= 1.4


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
