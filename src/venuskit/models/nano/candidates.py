"""The screen read into candidate targets: every text line and icon the reader found, the regions (rows, cards,
fields) that hold them, and a coarse grid of cells for what reading finds nothing on; with the geometry the
features join them by (rows, containers, a field's label, the element under a point) and their pixels (mean
colour, icon patches).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from venuskit.models.nano.entities import words
from venuskit.models.nano.reader import Line, Screen

CAND_KINDS = ("text", "icon", "region", "cell")
ICON_PX = 16
MAX_CANDS = 220
CELLS = (4, 3)  # a coarse grid of fallback targets for what reading finds nothing on (pictures, canvases)


@dataclass
class Candidate:
    box: tuple[int, int, int, int]
    text: str
    kind: str  # one of CAND_KINDS


def candidates(screen: Screen) -> list[Candidate]:
    w, h = screen.width, screen.height
    lines = [Candidate(e.box, e.text, e.kind) for e in screen.lines]
    regions = [Candidate(e.box, e.text, "region") for e in screen.regions]
    if len(lines) + len(regions) > MAX_CANDS - 12:  # a dense grid: keep the regions that hold text, then the largest
        regions.sort(key=lambda c: (not c.text, -(c.box[2] - c.box[0]) * (c.box[3] - c.box[1])))
        regions = regions[: max(0, MAX_CANDS - 12 - len(lines))]
    return (lines + regions)[: MAX_CANDS - 12] + _cells(w, h)


def _cells(w: int, h: int) -> list[Candidate]:
    cols, rows = CELLS
    return [Candidate((w * i // cols, h * j // rows, w * (i + 1) // cols, h * (j + 1) // rows), "", "cell")
            for j in range(rows) for i in range(cols)]  # fmt: skip


def row_mates(cands: list[Candidate]) -> list[list[int]]:
    """For each candidate, the others on its row (vertical centres within half a line)."""
    cy = np.array([(c.box[1] + c.box[3]) / 2 for c in cands])
    hh = np.array([max(6.0, (c.box[3] - c.box[1]) / 2) for c in cands])
    small = np.array([c.kind in ("text", "icon") for c in cands])
    near = (np.abs(cy[:, None] - cy[None, :]) <= hh[:, None]) & small[None, :]
    np.fill_diagonal(near, False)
    return [list(np.flatnonzero(r)) for r in near]


def containers(cands: list[Candidate]) -> list[int | None]:
    """For each text/icon candidate, the smallest region that holds it (a list row, a card, a field)."""
    regions = [(i, c.box) for i, c in enumerate(cands) if c.kind == "region"]
    out: list[int | None] = []
    for c in cands:
        if c.kind not in ("text", "icon"):
            out.append(None)
            continue
        cx, cy = (c.box[0] + c.box[2]) / 2, (c.box[1] + c.box[3]) / 2
        best, area = None, 1e18
        for i, (x1, y1, x2, y2) in regions:
            a = (x2 - x1) * (y2 - y1)
            if x1 <= cx <= x2 and y1 <= cy <= y2 and a < area:
                best, area = i, a
        out.append(best)
    return out


def visual(screen: Screen, box: tuple[int, int, int, int]) -> list[float]:
    """A box's mean colour, contrast, and whether it is saturated (a coloured button) or dark."""
    img = screen.color
    if img is None:
        return [0.0] * 6
    x1, y1, x2, y2 = box
    crop = img[y1:y2:2, x1:x2:2]
    if crop.size == 0:
        return [0.0] * 6
    mean = crop.reshape(-1, 3).mean(0) / 255.0
    std = float(crop.std()) / 128.0
    sat = float(mean.max() - mean.min() > 0.15)
    return [*mean.tolist(), std, sat, float(mean.mean() < 0.4)]


def icon_patch(gray: np.ndarray | None, box: tuple[int, int, int, int]) -> np.ndarray:
    """The box's grey pixels at ICON_PX x ICON_PX, mean removed (what the network's icon encoder sees)."""
    if gray is None:
        return np.zeros((ICON_PX, ICON_PX), np.float32)
    import cv2

    x1, y1, x2, y2 = box
    crop = gray[y1:y2, x1:x2]
    if crop.size == 0:
        return np.zeros((ICON_PX, ICON_PX), np.float32)
    patch = cv2.resize(crop, (ICON_PX, ICON_PX), interpolation=cv2.INTER_AREA).astype(np.float32) / 255.0
    return patch - patch.mean()


def page_instruction(screen: Screen) -> str:
    """The instruction a page shows in sentences (a CAPTCHA's "Type the characters you see."): on that surface
    the task text is generic and the real task is on the screen."""
    said = [e.text for e in screen.lines if e.kind == "text" and len(words(e.text)) >= 3
            and e.text.rstrip().endswith((".", "?", "。", "？", ")"))]  # fmt: skip
    return " ".join(said)


def under(screen: Screen, x: float, y: float) -> Line | None:
    """The element under a point: the smallest read element holding it."""
    px, py = x * screen.width, y * screen.height
    hits = [e for e in [*screen.lines, *screen.regions]
            if e.box[0] - 3 <= px <= e.box[2] + 3 and e.box[1] - 3 <= py <= e.box[3] + 3]  # fmt: skip
    if not hits:
        return None
    return min(hits, key=lambda e: (e.kind == "region", (e.box[2] - e.box[0]) * (e.box[3] - e.box[1])))


def label_of(screen: Screen, box: tuple[int, int, int, int]) -> str:
    """The text just above a box, or just left of it on its row (a field's label)."""
    x1, y1, x2, y2 = box
    best, best_d = "", 1e9
    for c in screen.lines:
        if not c.text:
            continue
        cx1, cy1, cx2, cy2 = c.box
        if cy2 <= y1 + 4 and y1 - cy2 < 40 and cx1 < x2 and cx2 > x1:
            d = y1 - cy2
        elif abs((cy1 + cy2) / 2 - (y1 + y2) / 2) < 12 and cx2 <= x1 + 4 and x1 - cx2 < 200:
            d = x1 - cx2
        else:
            continue
        if d < best_d:
            best, best_d = c.text, d
    return best
