"""Writers: ScreenSpot-Pro and ScreenSpot-v2 annotation layouts, and Parquet rows for the grounding RL domain.

ScreenSpot-Pro (likaixin/ScreenSpot-Pro): `images/<app>_<platform>/<page>.png` and one JSON list per app and
platform in `annotations/<app>_<platform>.json`; `bbox` is [x1, y1, x2, y2] in image pixels, with `img_size`
[w, h], `instruction`, `instruction_cn`, `id`, `application`, `platform`, `ui_type` (text|icon) and `group`.
ScreenSpot-v2 (OS-Copilot/ScreenSpot-v2): `screenspotv2_image/<file>.png` and `screenspot_{mobile,desktop,web}_v2
.json`; `bbox` is [x, y, w, h] in pixels, with `img_filename`, `instruction`, `data_type` (text|icon) and
`data_source` (ios, android, windows, macos, linux, or the site's name for web).
Both get extra fields the upstream readers ignore (`instruction_style`, `element_type`, `img_size`...). A refusal
(no target on the screen) is written as ScreenSpot-Pro marks one, `gt_type: "negative"` (its eval scores a
negative sample correct when the model says the target is not there), with bbox [-1, -1, -1, -1] so that readers
which always read a bbox (UI-Venus's eval, where a -1 box means a refusal) read it the same way.
`convert_refusals` rewrites files written before, whose refusals said `gt_type: "positive"`.
Parquet rows follow `venuskit.train.data.grounding_row` (prompt, images, surface, domain, gt_actions, gt_boxes)
plus the metadata columns.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pyarrow as pa
import pyarrow.parquet as pq

from venuskit.actions.coords import normalise_box
from venuskit.actions.grounding import GT_NEGATIVE as NEGATIVE
from venuskit.actions.grounding import GT_POSITIVE as POSITIVE
from venuskit.actions.prompts import grounding_prompt
from venuskit.synth.grounding.boxes import xyxy_to_xywh
from venuskit.synth.grounding.render import Rendered
from venuskit.synth.grounding.spec import FORMATS, PageSpec, Sample, SynthError, ensure_dir

REFUSAL_BOX = [-1, -1, -1, -1]
V2_SPLITS = {
    "android": "mobile",
    "ios": "mobile",
    "windows": "desktop",
    "macos": "desktop",
    "linux": "desktop",
    "web": "web",
}
V2_PREFIX = {"mobile": "mobile", "desktop": "pc", "web": "web"}


def write_json(path: Path, data: Any) -> None:
    """Write JSON atomically (a crash leaves the old file or the new one, never half of one)."""
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(json.dumps(data, ensure_ascii=False, indent=1), encoding="utf-8")
    os.replace(tmp, path)


def _extras(s: Sample, size: tuple[int, int]) -> dict[str, Any]:
    extra = {
        "instruction_style": s.style,
        "element_type": s.element_type,
        "family": s.family,
        "ui_language": s.page.language,
        "dsf": s.page.resolution.dsf,
        "page_seed": s.page.seed,
        "theme": s.page.theme,
        "gt_type": NEGATIVE if s.refusal else POSITIVE,
    }
    if s.point is not None:
        extra["point"] = [round(s.point[0], 2), round(s.point[1], 2)]
    return extra


class ScreenSpotProWriter:
    def __init__(self, out: Path) -> None:
        self.out = out
        self.files: dict[str, list[dict[str, Any]]] = {}
        ensure_dir(out / "annotations")

    def add_page(self, spec: PageSpec, rendered: Rendered, samples: list[Sample]) -> None:
        key = f"{spec.application}_{spec.platform}"
        rel = f"{key}/{spec.page_id}.png"
        ensure_dir(self.out / "images" / key)
        (self.out / "images" / rel).write_bytes(rendered.png)
        records = self.files.setdefault(key, [])
        for s in samples:
            records.append(
                {
                    "img_filename": rel,
                    "bbox": list(s.box) if s.box else REFUSAL_BOX,
                    "instruction": s.instruction,
                    "instruction_cn": s.instruction_cn,
                    "id": s.sample_id,
                    "application": spec.application,
                    "platform": spec.platform,
                    "img_size": list(rendered.size),
                    "ui_type": s.ui_type,
                    "group": spec.group,
                    **_extras(s, rendered.size),
                }
            )

    def close(self) -> None:
        for key, records in self.files.items():
            write_json(self.out / "annotations" / f"{key}.json", records)


class ScreenSpotV2Writer:
    def __init__(self, out: Path) -> None:
        self.out = out
        self.splits: dict[str, list[dict[str, Any]]] = {"mobile": [], "desktop": [], "web": []}
        ensure_dir(out / "screenspotv2_image")

    def add_page(self, spec: PageSpec, rendered: Rendered, samples: list[Sample]) -> None:
        split = V2_SPLITS[spec.platform]
        name = f"{V2_PREFIX[split]}_{spec.page_id}.png"
        (self.out / "screenspotv2_image" / name).write_bytes(rendered.png)
        source = spec.application if split == "web" else spec.platform
        for s in samples:
            self.splits[split].append(
                {
                    "img_filename": name,
                    "bbox": xyxy_to_xywh(s.box) if s.box else REFUSAL_BOX,
                    "instruction": s.instruction,
                    "data_type": s.ui_type,
                    "data_source": source,
                    "instruction_cn": s.instruction_cn,
                    "id": s.sample_id,
                    "application": spec.application,
                    "platform": spec.platform,
                    "group": spec.group,
                    "img_size": list(rendered.size),
                    **_extras(s, rendered.size),
                }
            )

    def close(self) -> None:
        for split, records in self.splits.items():
            if records:
                write_json(self.out / f"screenspot_{split}_v2.json", records)


_TEXT_PART = pa.struct([("type", pa.string()), ("text", pa.string())])
_MESSAGE = pa.struct([("role", pa.string()), ("content", pa.list_(_TEXT_PART))])
PARQUET_SCHEMA = pa.schema(
    [
        ("prompt", pa.list_(_MESSAGE)),
        ("images", pa.list_(pa.string())),
        ("surface", pa.string()),
        ("domain", pa.string()),
        ("gt_actions", pa.string()),
        ("gt_boxes", pa.string()),
        ("id", pa.string()),
        ("instruction", pa.string()),
        ("instruction_cn", pa.string()),
        ("instruction_style", pa.string()),
        ("ui_type", pa.string()),
        ("element_type", pa.string()),
        ("family", pa.string()),
        ("platform", pa.string()),
        ("application", pa.string()),
        ("group", pa.string()),
        ("bbox", pa.list_(pa.int32())),
        ("gt_type", pa.string()),
        ("img_size", pa.list_(pa.int32())),
        ("page_seed", pa.int64()),
    ]
)


class ParquetWriter:
    """Rows in `grounding.parquet`; images beside it in `images/`, referenced by absolute path."""

    def __init__(self, out: Path, flush_rows: int = 2000) -> None:
        self.out = out
        ensure_dir(out / "images")
        self.rows: list[dict[str, Any]] = []
        self.flush_rows = flush_rows
        self._writer: pq.ParquetWriter | None = None

    def add_page(self, spec: PageSpec, rendered: Rendered, samples: list[Sample]) -> None:
        path = (self.out / "images" / f"{spec.page_id}.png").resolve()
        path.write_bytes(rendered.png)
        for s in samples:
            self.rows.append(_row(s, str(path), rendered.size))
        if len(self.rows) >= self.flush_rows:
            self._flush()

    def _flush(self) -> None:
        if not self.rows:
            return
        if self._writer is None:
            self._writer = pq.ParquetWriter(self.out / "grounding.parquet", PARQUET_SCHEMA)
        self._writer.write_table(pa.Table.from_pylist(self.rows, schema=PARQUET_SCHEMA))
        self.rows = []

    def close(self) -> None:
        self._flush()
        if self._writer is not None:
            self._writer.close()


def _row(s: Sample, image: str, size: tuple[int, int]) -> dict[str, Any]:
    """A grounding RL row: the UI-Venus-2 grounding prompt (image first), the normalised target box."""
    box = [round(v, 6) for v in normalise_box(s.box, size)] if s.box else [-1, -1, -1, -1]
    prompt = [
        {
            "role": "user",
            "content": [{"type": "image", "text": None}, {"type": "text", "text": grounding_prompt(s.instruction)}],
        }
    ]
    return {
        "prompt": prompt,
        "images": [image],
        "surface": "grounding",
        "domain": "grounding",
        "gt_actions": None,
        "gt_boxes": json.dumps([box]),
        "id": s.sample_id,
        "instruction": s.instruction,
        "instruction_cn": s.instruction_cn,
        "instruction_style": s.style,
        "ui_type": s.ui_type,
        "element_type": s.element_type,
        "family": s.family,
        "platform": s.page.platform,
        "application": s.page.application,
        "group": s.page.group,
        "bbox": list(s.box) if s.box else REFUSAL_BOX,
        "gt_type": NEGATIVE if s.refusal else POSITIVE,
        "img_size": list(size),
        "page_seed": s.page.seed,
    }


def make_writer(fmt: str, out: str | Path) -> ScreenSpotProWriter | ScreenSpotV2Writer | ParquetWriter:
    out = ensure_dir(out)
    if fmt == "screenspot-pro":
        return ScreenSpotProWriter(out)
    if fmt == "screenspot-v2":
        return ScreenSpotV2Writer(out)
    if fmt == "parquet":
        return ParquetWriter(out)
    raise SynthError(f"Unknown output format {fmt!r}; use one of {', '.join(FORMATS)}.")


# ---- files written before refusals said "negative" ---------------------------------------------------


def is_refusal_box(box: Any) -> bool:
    return isinstance(box, list) and len(box) == 4 and all(v == -1 for v in box)


def convert_refusals(folder: str | Path) -> dict[str, int]:
    """Rewrite, in place and atomically, the ScreenSpot-Pro (`annotations/*.json`) or ScreenSpot-v2
    (`screenspot_*.json`) files of `folder` so that every refusal sample (bbox all -1) says `gt_type: "negative"`
    and every other sample `"positive"`. Returns counts: files, samples, and how many gt_types changed. Running it
    again changes nothing. Every file is read before any is written, so a folder with a broken file is left whole
    (the error names each one) rather than half converted."""
    folder = Path(folder)
    files = sorted((folder / "annotations").rglob("*.json")) or sorted(folder.glob("screenspot_*.json"))
    if not files:
        raise SynthError(
            f"{folder} holds no ScreenSpot files: expected annotations/*.json (ScreenSpot-Pro) or "
            "screenspot_*.json (ScreenSpot-v2)."
        )
    loaded: dict[Path, list[dict[str, Any]]] = {}
    errors: list[str] = []
    for path in files:
        try:
            loaded[path] = _read_records(path)
        except SynthError as e:
            errors.append(str(e))
    if errors:
        raise SynthError(" ".join(errors) + " Nothing in the folder was changed.")
    counts = {"files": 0, "samples": 0, "negative": 0, "changed": 0}
    for path, records in loaded.items():
        changed = 0
        for rec in records:
            want = NEGATIVE if is_refusal_box(rec.get("bbox")) or rec.get("gt_type") == NEGATIVE else POSITIVE
            changed += rec.get("gt_type") != want
            rec["gt_type"] = want
            counts["negative"] += want == NEGATIVE
        counts["files"] += 1
        counts["samples"] += len(records)
        counts["changed"] += changed
        if changed:
            write_json(path, records)
    return counts


def _read_records(path: Path) -> list[dict[str, Any]]:
    try:
        records = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, json.JSONDecodeError) as e:
        raise SynthError(f"Could not read {path}: {e}.") from e
    if not isinstance(records, list) or not all(isinstance(r, dict) for r in records):
        raise SynthError(f"{path} must hold a JSON list of sample objects.")
    return records
