"""Offline benchmark data as one kind of sample: a screenshot, the goal, the step instruction (if the benchmark
has one), the ground-truth history before it, and the step's ground truth in the benchmark's own terms.

Readers: AndroidControl (gzip TFRecord shards, `venuskit.record.formats.androidcontrol`), GUI-Odyssey
(annotations/ + screenshots/, `venuskit.record.formats.guiodyssey`), Multimodal-Mind2Web (parquet rows:
action_uid, operation (JSON), pos_candidates (JSON strings with attributes.bounding_box_rect "x,y,w,h"),
annotation_id, confirmed_task, screenshot {bytes, path}, target_action_index, ...).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from venuskit.actions.types import Action, Click, Point, Type
from venuskit.infra import untrusted
from venuskit.record.formats import androidcontrol as AC
from venuskit.record.formats import guiodyssey as GO

FORMATS = ("androidcontrol", "guiodyssey", "mind2web")
SURFACE = {"androidcontrol": "mobile", "guiodyssey": "mobile", "mind2web": "browser"}
HAS_STEP_INSTRUCTIONS = {"androidcontrol": True, "guiodyssey": False, "mind2web": False}
MIND2WEB_COLUMNS = ("action_uid", "operation", "pos_candidates", "annotation_id", "confirmed_task", "screenshot")


@dataclass
class Sample:
    key: str  # "<episode>/<step>"
    episode: str
    step: int
    goal: str
    instruction: str
    png: bytes
    size: tuple[int, int]
    gt: dict[str, Any]  # the ground truth in the benchmark's terms
    history: list[tuple[bytes, Action]] = field(default_factory=list)  # earlier screenshots + ground-truth actions


def samples(fmt: str, data: str | Path, *, split: str | None = None, limit: int | None = None) -> Iterator[Sample]:
    """Every step of the first `limit` episodes."""
    if fmt not in FORMATS:
        raise ValueError(f"--format takes {', '.join(FORMATS)}; got {fmt!r}.")
    reader = {"androidcontrol": _androidcontrol, "guiodyssey": _guiodyssey, "mind2web": _mind2web}[fmt]
    for n, episode in enumerate(reader(Path(data), split)):
        if limit is not None and n >= limit:
            return
        yield from episode


def _androidcontrol(path: Path, split: str | None) -> Iterator[list[Sample]]:
    wanted = _split_ids(path, split)
    for ep in AC.read_androidcontrol(path):
        if wanted is not None and ep.episode_id not in wanted:
            continue
        out, history = [], []
        for i, action in enumerate(ep.actions):
            size = (ep.widths[i], ep.heights[i])
            trees = ep.accessibility_trees[i] if i < len(ep.accessibility_trees) else b""
            box = AC.target_box(AC.forest_boxes(trees), action["x"], action["y"]) if "x" in action else None
            gt = {"action": action, "box": box}
            out.append(Sample(f"{ep.episode_id}/{i}", str(ep.episode_id), i, ep.goal, ep.step_instructions[i],
                              ep.screenshots[i], size, gt, list(history)))  # fmt: skip
            history.append((ep.screenshots[i], AC.from_ac(action, *size)))
        yield out


def _split_ids(path: Path, split: str | None) -> set[int] | None:
    if not split:
        return None
    file = (path if path.is_dir() else path.parent) / "splits.json"
    if not file.is_file():
        raise FileNotFoundError(f"--split {split} needs {file}.")
    ids = json.loads(file.read_text(encoding="utf-8")).get(split)
    if ids is None:
        raise ValueError(f"{file} has no {split!r} list.")
    return {int(i) for i in ids}


def _guiodyssey(path: Path, split: str | None) -> Iterator[list[Sample]]:
    for ep in GO.read_guiodyssey(path, split):
        out, history = [], []
        for i, step in enumerate(ep.steps):
            png = step.screenshot.read_bytes()
            gt = {"action": step.action, "info": step.info}
            size = untrusted.check_image(png)
            out.append(Sample(f"{ep.episode_id}/{i}", ep.episode_id, i, ep.instruction, "", png, size, gt,
                              list(history)))  # fmt: skip
            history.append((png, GO.from_go(step.action, step.info, step.ps)))
        yield out


def _mind2web(path: Path, split: str | None) -> Iterator[list[Sample]]:
    import pyarrow.parquet as pq

    files = [path] if path.is_file() else sorted(path.glob("*.parquet"))
    if not files:
        raise FileNotFoundError(f"{path} holds no .parquet file.")
    for file in files:
        table = pq.read_table(file)
        missing = [c for c in MIND2WEB_COLUMNS if c not in table.column_names]
        if missing:
            raise ValueError(f"{file} is not Multimodal-Mind2Web (no column {', '.join(missing)}).")
        tasks: dict[str, list[dict[str, Any]]] = {}
        for row in table.to_pylist():
            tasks.setdefault(str(row["annotation_id"]), []).append(row)
        for task_id, rows in tasks.items():
            rows.sort(key=lambda r: int(r.get("target_action_index") or 0))
            yield _mind2web_task(task_id, rows, file)


def _mind2web_task(task_id: str, rows: list[dict[str, Any]], file: Path) -> list[Sample]:
    out, history = [], []
    for i, row in enumerate(rows):
        png = (row.get("screenshot") or {}).get("bytes")
        if not png:
            raise ValueError(f"{file}: action {row.get('action_uid')} has no screenshot bytes.")
        size = untrusted.check_image(png)  # from the header; ImageRejected for what is no image or too large
        try:
            operation = json.loads(row["operation"]) if isinstance(row["operation"], str) else row["operation"]
        except json.JSONDecodeError as e:
            raise ValueError(f"{file}: action {row.get('action_uid')} has an unreadable operation.") from e
        box = _candidate_box(row.get("pos_candidates") or [])
        gt = {"op": str(operation.get("op", "")).upper(), "value": str(operation.get("value", "")), "box": box,
              "action_uid": row.get("action_uid")}  # fmt: skip
        out.append(Sample(f"{task_id}/{i}", task_id, i, str(row["confirmed_task"]), "", png, size, gt, list(history)))
        history.append((png, _mind2web_history(gt, size)))
    return out


def _candidate_box(candidates: list[Any]) -> list[float] | None:
    """The first positive candidate's bounding_box_rect ("x,y,w,h" in screenshot pixels) as [x1, y1, x2, y2]."""
    for cand in candidates:
        try:
            c = json.loads(cand) if isinstance(cand, str) else cand
            attrs = json.loads(c["attributes"]) if isinstance(c.get("attributes"), str) else c.get("attributes", {})
            x, y, w, h = (float(v) for v in str(attrs["bounding_box_rect"]).split(","))
        except (KeyError, TypeError, ValueError, json.JSONDecodeError):
            continue
        return [x, y, x + w, y + h]
    return None


def _mind2web_history(gt: dict[str, Any], size: tuple[int, int]) -> Action:
    from venuskit.actions import coords

    if gt["op"] == "TYPE":
        return Type(content=gt["value"])
    box = gt["box"] or [0, 0, size[0], size[1]]
    cx, cy = (box[0] + box[2]) / 2, (box[1] + box[3]) / 2
    return Click(point=Point(*coords.point_from_pixels(min(cx, size[0] - 1), min(cy, size[1] - 1), *size)))
