"""Puzzle builders: one per widget kind, so a generator only draws and states its answer.

Boxes and points are in pixels of the widget part they refer to (the puzzle image, unless noted).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from PIL import Image

from venuskit.synth.captcha.draw import png
from venuskit.synth.captcha.spec import Box, Puzzle, Target, Widget

W = 320  # the standard puzzle width


def _box(b: Sequence[float]) -> list[float]:
    return [round(float(v), 1) for v in b]


def size(img: Image.Image) -> dict[str, int]:
    return {"w": img.width, "h": img.height}


def text_puzzle(
    prompt: str,
    img: Image.Image,
    text: str,
    *,
    case: bool = False,
    alts: Sequence[str] = (),
    region: Box | None = None,
) -> Puzzle:
    answer = {"check": "text", "text": text, "case": case, "alts": list(alts)}
    targets = (Target("the answer field", "input"),) + (
        (Target("the text to read", "image", region),) if region else ()
    )
    return Puzzle(prompt, Widget("text", size(img)), {"image": png(img)}, answer, targets)


def int_puzzle(prompt: str, img: Image.Image, value: int) -> Puzzle:
    answer = {"check": "int", "value": int(value)}
    return Puzzle(
        prompt, Widget("text", size(img)), {"image": png(img)}, answer, (Target("the answer field", "input"),)
    )


def click_puzzle(
    prompt: str, img: Image.Image, answer: dict[str, Any], targets: Sequence[tuple[str, Box]], max_clicks: int = 12
) -> Puzzle:
    answer = {**answer, "size": [img.width, img.height]}
    tg = tuple(Target(label, "image", tuple(_box(b))) for label, b in targets)  # type: ignore[arg-type]
    return Puzzle(prompt, Widget("click", {**size(img), "max": max_clicks}), {"image": png(img)}, answer, tg)


def point_puzzle(prompt: str, img: Image.Image, box: Box, label: str, extra: Sequence[Box] = ()) -> Puzzle:
    """Exactly one click inside `box` (or any of `extra`)."""
    return click_puzzle(
        prompt, img, {"check": "point", "boxes": [_box(box)] + [_box(b) for b in extra]}, [(label, box)]
    )


def points_puzzle(prompt: str, img: Image.Image, boxes: Sequence[Box], labels: Sequence[str], ordered: bool) -> Puzzle:
    answer = {"check": "points_ordered" if ordered else "points_set", "boxes": [_box(b) for b in boxes]}
    return click_puzzle(prompt, img, answer, list(zip(labels, boxes, strict=False)))


def grid_cells(
    rows: int, cols: int, cell: int | tuple[int, int], gap: int, x0: int = 0, y0: int = 0
) -> list[list[int]]:
    cw, ch = (cell, cell) if isinstance(cell, int) else cell
    return [[x0 + c * (cw + gap), y0 + r * (ch + gap), cw, ch] for r in range(rows) for c in range(cols)]


def grid_puzzle(
    prompt: str,
    img: Image.Image,
    cells: Sequence[Sequence[int]],
    required: Sequence[int],
    optional: Sequence[int] = (),
    label: str = "a matching square",
    robot: bool = False,
) -> Puzzle:
    answer: dict[str, Any] = {"check": "cells", "required": sorted(required), "optional": sorted(optional)}
    if robot:
        answer = {"check": "all", "parts": [{"check": "robot"}, answer]}
    targets = tuple(Target(label, f"cell-{i}") for i in sorted(required))
    if robot:
        targets = (Target("the 'I'm not a robot' checkbox", "robot"),) + targets
    widget = Widget("grid", {**size(img), "cells": [list(c) for c in cells]}, robot=robot)
    return Puzzle(prompt, widget, {"image": png(img)}, answer, targets)


def slider_puzzle(
    prompt: str,
    img: Image.Image | None,
    *,
    mode: str,
    target: int,
    tol: float,
    track: int = 300,
    piece: Image.Image | None = None,
    piece_xy: tuple[int, int] = (0, 0),
    extra: dict[str, Any] | None = None,
    assets: dict[str, bytes] | None = None,
    period: float | None = None,
    at_least: bool = False,
    goal_label: str = "",
    goal_box: Box | None = None,
    label: str = "Slide to complete",
) -> Puzzle:
    params: dict[str, Any] = {
        "w": img.width if img else 0,
        "h": img.height if img else 0,
        "track": track,
        "mode": mode,
        "label": label,
        **(extra or {}),
    }
    files = dict(assets or {})
    if img is not None:
        files["image"] = png(img)
    if piece is not None:
        params["piece"] = [piece_xy[0], piece_xy[1], piece.width, piece.height]
        files["piece"] = png(piece)
    answer: dict[str, Any] = {"check": "value", "target": int(target), "tol": tol, "range": track - 44}
    if period:
        answer["period"] = period
    if at_least:
        answer["at_least"] = True
    targets = [Target("the slider handle", "handle")]
    if goal_box is not None:
        targets.append(Target(goal_label or "where the piece belongs", "image", tuple(_box(goal_box))))  # type: ignore[arg-type]
    return Puzzle(prompt, Widget("slider", params), files, answer, tuple(targets))


def drag_puzzle(
    prompt: str,
    img: Image.Image,
    tray_h: int,
    pieces: Sequence[Image.Image],
    starts: Sequence[tuple[int, int]],
    boxes: Sequence[Box | None],
    labels: Sequence[str],
) -> Puzzle:
    """Pieces start at `starts` (board px, top-left); piece i must end with its centre in boxes[i] (board px)."""
    params = {
        **size(img),
        "board_h": img.height + tray_h,
        "pieces": [[x, y, p.width, p.height] for p, (x, y) in zip(pieces, starts, strict=False)],
    }
    files = {"image": png(img)} | {f"piece-{i}": png(p) for i, p in enumerate(pieces)}
    answer = {
        "check": "pieces",
        "boxes": [None if b is None else _box(b) for b in boxes],
        "size": [img.width, img.height + tray_h],
    }
    targets: list[Target] = []
    for i, (b, label) in enumerate(zip(boxes, labels, strict=False)):
        if b is not None:
            targets += [Target(label, f"piece-{i}"), Target(f"where {label} goes", "board", tuple(_box(b)))]  # type: ignore[arg-type]
    return Puzzle(prompt, Widget("drag", params), files, answer, tuple(targets))


def swap_puzzle(
    prompt: str,
    tiles: Sequence[Image.Image],
    rows: int,
    cols: int,
    gap: int,
    accept: Sequence[Sequence[int]],
    label: str = "a tile to move",
) -> Puzzle:
    tw, th = tiles[0].size
    params = {"rows": rows, "cols": cols, "tile": [tw, th], "gap": gap}
    files = {f"tile-{i}": png(t) for i, t in enumerate(tiles)}
    answer = {"check": "order", "accept": [list(a) for a in accept]}
    first = list(accept[0])
    moved = [i for i in range(len(first)) if first[i] != i]
    targets = tuple(Target(label, f"slot-{i}") for i in moved)
    return Puzzle(prompt, Widget("swap", params), files, answer, targets)


def line_puzzle(prompt: str, img: Image.Image, answer: dict[str, Any], targets: Sequence[tuple[str, Box]]) -> Puzzle:
    tg = tuple(Target(label, "image", tuple(_box(b))) for label, b in targets)  # type: ignore[arg-type]
    return Puzzle(
        prompt, Widget("line", size(img)), {"image": png(img)}, {**answer, "size": [img.width, img.height]}, tg
    )


def arrows_puzzle(
    prompt: str,
    img: Image.Image | None,
    params: dict[str, Any],
    answer: dict[str, Any],
    assets: dict[str, bytes],
    targets: Sequence[Target] = (),
) -> Puzzle:
    files = dict(assets)
    if img is not None:
        files["image"] = png(img)
    return Puzzle(prompt, Widget("arrows", params), files, answer, tuple(targets))
