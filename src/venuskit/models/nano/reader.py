"""Reading a screenshot's pixels: cheap element finding, PP-OCR recognition, and caches that make repeated screens
nearly free.

rapidocr's full pipeline (DBNet detection + recognition of every box) costs seconds on a 1024x768 screen on
two cores. What makes reading cheap enough to run at every agent step:

- Elements are found with OpenCV in tens of milliseconds, on flat UI backgrounds as well as a detector would:
  * text lines: edges of the image with the long straight rules removed (table grids, row separators and card
    borders would otherwise glue a table's text into one block), joined horizontally into lines;
  * icons: compact square blobs (a hamburger's three bars, a star, a checkbox, a single CJK character);
  * regions: flat areas closed by faint borders — empty input fields, text areas, table cells, calendar slots,
    list rows — the flood-fill components of the background between edges. A region carries the text read
    inside it (a field's placeholder or content).
- Only text lines and icons are recognised (PP-OCRv4 rec, shipped inside rapidocr_onnxruntime). An icon keeps
  its text only when the recogniser is sure (a lone "日" button is text; a star is not).
- Recognition results are cached by a hash of the crop's pixels. World chrome repeats across steps and
  episodes, so after the first screens most crops are cache hits; only what changed is read. The cache can be
  saved and loaded (training runs reuse it). Whole screens are cached too (the agent reads its previous screen
  again to see what its last action changed).
- Phone screenshots (portrait, device pixel ratio 2) are read at half size: the text is as large as a desktop
  page's there, and a quarter of the pixels is a quarter of the work.

    reader = Reader()
    screen = reader.read(png)              # Screen(width, height, lines=[Line(box, text, score, kind)], regions)
    [l.text for l in screen.lines if l.kind == "text"]

The verifier uses the same reader for its OCR rules (`Reader.text(png)` joins the lines).
"""

from __future__ import annotations

import hashlib
import json
import threading
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import numpy as np

from venuskit.infra import untrusted

Box = tuple[int, int, int, int]  # x1, y1, x2, y2 in screenshot pixels, x2/y2 exclusive
Kind = Literal["text", "icon", "region"]

MIN_LINE_H, MAX_LINE_H = 6, 64
ICON_MIN, ICON_MAX = 10, 48  # square blobs with sides in this range are icons (or a lone character)
MAX_REC_W = 420  # wider lines are read from their first MAX_REC_W pixels (long snippets; the start is what matters)
PAD = 2
TEXT_EDGE, REGION_EDGE = 40, 6  # edge strength of text strokes, and of the faintest border that closes a region
ICON_TEXT_SCORE = 0.9  # an icon keeps recognised text only above this confidence
SCREENS = 16  # whole screens kept in memory by image digest


class ReaderError(RuntimeError):
    """The reader cannot run (rapidocr missing) or the image cannot be decoded."""


@dataclass(frozen=True)
class Line:
    box: Box
    text: str
    score: float
    kind: Kind

    @property
    def center(self) -> tuple[float, float]:
        return (self.box[0] + self.box[2]) / 2, (self.box[1] + self.box[3]) / 2


@dataclass
class Screen:
    width: int
    height: int
    lines: list[Line]  # text lines and icons, top to bottom
    gray: Any = field(default=None, repr=False)  # the grayscale image (numpy uint8), for visual features
    stats: dict[str, int] = field(default_factory=dict)  # lines, recognised, cache_hits
    regions: list[Line] = field(default_factory=list)  # flat bordered areas; text = what is read inside them
    color: Any = field(default=None, repr=False)  # the BGR image (numpy uint8)

    def text(self) -> str:
        return "\n".join(line.text for line in self.lines if line.text)


def decode_png(png: bytes) -> np.ndarray:
    """PNG (or any image) bytes from outside -> BGR uint8 array; a picture over `untrusted.MAX_PIXELS` is refused
    before it is decoded."""
    try:
        return untrusted.decode_bgr(png)
    except untrusted.ImageRejected as exc:
        raise ReaderError(f"The screenshot cannot be read: {exc}.") from exc


def read_scale(width: int, height: int) -> float:
    """Phones render at device pixel ratio 2 or more: read them at half size."""
    return 0.5 if height > 1.3 * width and width >= 700 else 1.0


def _edges(gray: np.ndarray, threshold: int) -> np.ndarray:
    import cv2

    grad = cv2.morphologyEx(gray, cv2.MORPH_GRADIENT, cv2.getStructuringElement(cv2.MORPH_RECT, (2, 2)))
    return (grad > threshold).astype(np.uint8) * 255


def _rect(w: int, h: int) -> Any:
    import cv2

    return cv2.getStructuringElement(cv2.MORPH_RECT, (w, h))


def _iou(a: Box, b: Box) -> float:
    ix = max(0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    return inter / ((a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter + 1e-9)


def find_lines(gray: np.ndarray) -> list[tuple[Box, Kind]]:
    """Text lines, icons and regions on a UI screenshot, top to bottom, left to right."""
    import cv2

    bw = _edges(gray, TEXT_EDGE)
    rules = cv2.bitwise_or(cv2.morphologyEx(bw, cv2.MORPH_OPEN, _rect(41, 1)),
                           cv2.morphologyEx(bw, cv2.MORPH_OPEN, _rect(1, 25)))  # fmt: skip
    strokes = cv2.bitwise_and(bw, cv2.bitwise_not(rules))
    out: list[tuple[Box, Kind]] = []
    n, _, stats, _ = cv2.connectedComponentsWithStats(cv2.morphologyEx(strokes, cv2.MORPH_CLOSE, _rect(9, 1)), 8)
    for i in range(1, n):
        x, y, w, h, _ = (int(v) for v in stats[i])
        if h < MIN_LINE_H or h > MAX_LINE_H or w < 4:
            continue
        kind: Kind = "icon" if 0.7 <= w / h <= 1.4 and ICON_MIN <= max(w, h) <= ICON_MAX else "text"
        if kind == "text" and h > 40 and w / h < 2.0:
            continue  # big blocks (pictures, avatars with borders) are neither
        out.append(((x, y, x + w, y + h), kind))
    # Compound icons (a hamburger's bars, a grid of dots) are several components: close the gaps, keep squares.
    have = [b for b, _ in out]
    n, _, stats, _ = cv2.connectedComponentsWithStats(cv2.morphologyEx(strokes, cv2.MORPH_CLOSE, _rect(7, 9)), 8)
    for i in range(1, n):
        x, y, w, h, _ = (int(v) for v in stats[i])
        box = (x, y, x + w, y + h)
        if (
            0.7 <= w / max(h, 1) <= 1.4
            and ICON_MIN <= max(w, h) <= ICON_MAX
            and all(_iou(box, o) <= 0.6 for o in have)
        ):
            out.append((box, "icon"))
            have.append(box)
    out += find_regions(gray)
    out.sort(key=lambda b: (b[0][1] // 8, b[0][0]))
    return out


def find_regions(gray: np.ndarray) -> list[tuple[Box, Kind]]:
    """Flat areas closed by borders, however faint: the connected components of the background between edges
    (an empty input field, a text area, a table cell, a calendar slot, a list row)."""
    import cv2

    h, w = gray.shape
    free = cv2.bitwise_not(cv2.dilate(_edges(gray, REGION_EDGE), _rect(2, 2)))
    n, _, stats, _ = cv2.connectedComponentsWithStats(free, connectivity=4)
    out: list[tuple[Box, Kind]] = []
    for i in range(1, n):
        x, y, bw, bh, area = (int(v) for v in stats[i])
        if bw < 30 or bh < 14 or x <= 0 or y <= 0 or x + bw >= w or y + bh >= h:
            continue  # too small to be a target, or open to the page background
        if bw * bh > 0.2 * w * h or area < 0.5 * bw * bh:
            continue  # a page section, or a ragged gap between elements
        out.append(((x, y, x + bw, y + bh), "region"))
    return out


def icon_boxes(img: np.ndarray) -> list[Box]:
    """The icon boxes the reader finds on a BGR screenshot, in its pixels (what `Reader.read` makes candidates of,
    without reading any text)."""
    import cv2

    h, w = img.shape[:2]
    f = read_scale(w, h)
    work = img if f == 1.0 else cv2.resize(img, (int(w * f), int(h * f)), interpolation=cv2.INTER_AREA)
    found = find_lines(cv2.cvtColor(work, cv2.COLOR_BGR2GRAY))
    return [_scaled(box, f) for box, kind in found if kind == "icon"]


def _inside(box: Box, outer: Box) -> bool:
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    return outer[0] <= cx <= outer[2] and outer[1] <= cy <= outer[3]


def _scaled(box: Box, f: float) -> Box:
    if f == 1.0:
        return box
    return (int(box[0] / f), int(box[1] / f), int(round(box[2] / f)), int(round(box[3] / f)))


class Reader:
    """Element finding + PP-OCR recognition with a crop cache. Thread-safe; one instance per process is enough."""

    def __init__(self, cache: dict[str, tuple[str, float]] | None = None, threads: int = 1) -> None:
        self.cache: dict[str, tuple[str, float]] = dict(cache or {})
        self.threads = threads
        self._rec: Any = None
        self._lock = threading.Lock()
        self._build_lock = threading.Lock()  # a warm-up thread and a first read build one recognizer, not two
        self._screens: OrderedDict[bytes, Screen] = OrderedDict()

    def warm(self, threads: int | None = None) -> threading.Thread:
        """Build the recognizer (an ONNX session: ~0.4 s) on a background thread, so that it is ready when the
        first screen comes instead of costing the first decision; the caller starts its browser meanwhile.
        `threads`: PP-OCR's intra-op threads, for a process that runs one episode on an otherwise idle machine
        (a worker of a pool keeps one: the pool already fills the cores)."""
        if threads is not None and self._rec is None:
            self.threads = max(1, threads)
        thread = threading.Thread(target=self._recognizer, name="reader-warm", daemon=True)
        thread.start()
        return thread

    def _recognizer(self) -> Any:
        with self._build_lock:
            return self._build()

    def _build(self) -> Any:
        if self._rec is None:
            try:
                from rapidocr_onnxruntime import RapidOCR
            except ImportError as exc:
                raise ReaderError(
                    "venus-nano reads text with rapidocr_onnxruntime: pip install 'venuskit[verify]'."
                ) from exc
            engine = RapidOCR(intra_op_num_threads=self.threads, inter_op_num_threads=1)
            self._rec = engine.text_rec
            self._rec.rec_batch_num = 1  # a batch pads every crop to its widest; one at a time is faster here
        return self._rec

    def read(self, png: bytes | np.ndarray) -> Screen:
        if isinstance(png, (bytes, bytearray)):
            key = hashlib.blake2b(png, digest_size=16).digest()
            with self._lock:
                hit = self._screens.get(key)
                if hit is not None:
                    self._screens.move_to_end(key)
                    return hit
            screen = self._read(decode_png(png))
            with self._lock:
                self._screens[key] = screen
                while len(self._screens) > SCREENS:
                    self._screens.popitem(last=False)
            return screen
        return self._read(png)

    def _read(self, img: np.ndarray) -> Screen:
        import cv2

        h, w = img.shape[:2]
        f = read_scale(w, h)
        work = img if f == 1.0 else cv2.resize(img, (int(w * f), int(h * f)), interpolation=cv2.INTER_AREA)
        gray = cv2.cvtColor(work, cv2.COLOR_BGR2GRAY)
        wh, ww = gray.shape
        found = find_lines(gray)
        keys: list[str | None] = []
        todo: dict[str, np.ndarray] = {}
        hits = 0
        for box, kind in found:
            if kind == "region":
                keys.append(None)
                continue
            x1, y1, x2, y2 = box
            crop = work[
                max(0, y1 - PAD) : min(wh, y2 + PAD), max(0, x1 - PAD) : min(ww, min(x2, x1 + MAX_REC_W) + PAD)
            ]
            key = hashlib.blake2b(crop.tobytes() + bytes(str(crop.shape), "ascii"), digest_size=12).hexdigest()
            keys.append(key)
            if key in self.cache:
                hits += 1
            elif key not in todo:
                todo[key] = np.ascontiguousarray(crop)
        if todo:
            with self._lock:
                results, _ = self._recognizer()(list(todo.values()))
            for key, (text, score) in zip(todo, results, strict=True):
                self.cache[key] = (str(text).strip(), float(score))
        lines: list[Line] = []
        boxes: list[Box] = []
        for (box, kind), key in zip(found, keys, strict=True):
            if kind == "region":
                boxes.append(box)
                continue
            text, score = self.cache[key]  # type: ignore[index]
            if kind == "text" and (not text or score < 0.5):
                continue
            if kind == "icon" and score < ICON_TEXT_SCORE:
                text = ""
            lines.append(Line(_scaled(box, f), text, score if text else 1.0, kind))
        regions = []
        for box in boxes:
            sbox = _scaled(box, f)
            inner = " ".join(line.text for line in lines if line.text and _inside(line.box, sbox))
            regions.append(Line(sbox, inner[:80], 1.0, "region"))
        full_gray = gray if f == 1.0 else cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
        stats = {"lines": len(found), "recognised": len(todo), "cache_hits": hits}
        return Screen(w, h, lines, full_gray, stats, regions, img)

    def text(self, png: bytes) -> str:
        return self.read(png).text()

    def recognize(self, crops: list[np.ndarray]) -> list[tuple[str, float]]:
        """(text, score) of each crop (BGR images of one line or word each), through the same crop cache."""
        keys = [hashlib.blake2b(c.tobytes() + bytes(str(c.shape), "ascii"), digest_size=12).hexdigest() for c in crops]
        todo = {k: np.ascontiguousarray(c) for k, c in zip(keys, crops, strict=True) if k not in self.cache}
        if todo:
            with self._lock:
                results, _ = self._recognizer()(list(todo.values()))
            for key, (text, score) in zip(todo, results, strict=True):
                self.cache[key] = (str(text).strip(), float(score))
        return [self.cache[k] for k in keys]

    # ---- the cache on disk ----

    def save_cache(self, path: str | Path) -> None:
        from venuskit.infra.atomic import write_text

        write_text(path, json.dumps(self.cache, ensure_ascii=False), durable=False)

    def load_cache(self, path: str | Path) -> None:
        p = Path(path)
        if p.is_file():
            data = json.loads(p.read_text("utf-8"))
            self.cache.update({k: (str(v[0]), float(v[1])) for k, v in data.items()})


_DEFAULT: Reader | None = None


def default_reader() -> Reader:
    """One shared reader per process, so its cache serves every policy and judge in it."""
    global _DEFAULT
    if _DEFAULT is None:
        _DEFAULT = Reader()
    return _DEFAULT
