"""The flywheel's rows stage: what collection made, as training rows (UI-Venus-2 prompts with their references).

World episodes (the oracle's, or a policy's states relabelled by the oracle), grounding pages and CAPTCHA
instances become the same row shape (`venuskit.train.data`), each tagged with its source (`task`) so a report
can say what trained on what. Nothing here runs an env; it only reads what `flywheel.collect` wrote.
"""

from __future__ import annotations

import json
import random
from collections.abc import Callable
from pathlib import Path
from typing import Any

from venuskit.actions import parse_response
from venuskit.actions.history import build_messages
from venuskit.tasks import splits
from venuskit.tasks.contract import solved
from venuskit.tasks.spec import get_task
from venuskit.train.data import build_rows, grounding_row
from venuskit.train.nano.data import reference_rows, targets_of


def world_rows(index_rows: list[dict[str, Any]], relabelled: bool) -> list[dict[str, Any]]:
    """Step rows of collected world episodes (oracle episodes that reached their verdict, or relabelled rollouts),
    each tagged with its template and skin."""
    episodes = [r for r in index_rows if r.get("episode_dir")]
    # Rows name their screenshots by absolute path, an index its folders as the run was given (often relative).
    tag_of = {_folder(r["episode_dir"]): (r["task"], int(r.get("skin") or 0)) for r in episodes}
    if relabelled:
        rows = reference_rows([r["episode_dir"] for r in episodes])
    else:
        dirs = [r["episode_dir"] for r in index_rows
                if r.get("episode_dir") and solved(r.get("verdict"), get_task(r["task"]).feasible)]  # fmt: skip
        rows, _ = build_rows(dirs, "rl", n_img=50, boxes_of=targets_of)
    for row in rows:
        row["task"], row["skin"] = tag_of.get(_folder(Path(row["images"][-1]).parent), ("", 0))
    return rows


def _folder(path: str | Path) -> str:
    return str(Path(path).resolve())


def spread(rows: list[dict[str, Any]], n: int, seed: int,
           first: Callable[[dict[str, Any]], bool] = lambda row: False) -> list[dict[str, Any]]:  # fmt: skip
    """At most `n` of the rows, spread evenly over their tasks (collection order kept): one row of every task, then
    a second of every task, and so on, tasks and rows in a seeded order. A task's `first` rows (e.g. rows already
    read) come ahead of its others, so a sample resumed after an interruption is the sample it began as.

    Many tasks with a few rows each teach more than a few tasks with every row; and reading every row of a large
    collection can take longer than a sitting."""
    if n <= 0 or len(rows) <= n:
        return rows
    rng = random.Random(f"spread:{seed}")
    by_task: dict[str, list[int]] = {}
    for i, row in enumerate(rows):
        by_task.setdefault(str(row.get("task", "")), []).append(i)
    queues = []
    for task in sorted(by_task):
        order = by_task[task][:]
        rng.shuffle(order)
        queues.append(sorted(order, key=lambda i: not first(rows[i])))  # stable: the seeded order within each part
    rng.shuffle(queues)
    kept: list[int] = []
    for depth in range(max(len(q) for q in queues)):
        kept += [q[depth] for q in queues if depth < len(q)][: n - len(kept)]
        if len(kept) == n:
            break
    return [rows[i] for i in sorted(kept)]


def grounding_rows(folder: Path) -> list[dict[str, Any]]:
    """Grounding rows (the UI-Venus-2 grounding request and the target box) of a synthesised ScreenSpot-Pro folder."""
    rows = []
    for path in sorted((folder / "annotations").glob("*.json")):
        for rec in json.loads(path.read_text("utf-8")):
            w, h = rec["img_size"]
            x1, y1, x2, y2 = rec["bbox"]
            row = grounding_row(str(folder / "images" / rec["img_filename"]), rec["instruction"],
                                [x1 / w, y1 / h, x2 / w, y2 / h])  # fmt: skip
            row["task"] = f"grounding:{rec.get('family') or rec.get('application')}"
            rows.append(row)
    return rows


def captcha_rows(folder: Path) -> list[dict[str, Any]]:
    """Step rows of the synthesised CAPTCHA instances: the UI-Venus-2 CAPTCHA prompt with the screenshot, and the
    oracle's action sequence as reference (with the box of each click's target where the puzzle labels one)."""
    path = folder / "rows.jsonl"
    if not path.is_file():
        return []
    rows = []
    for line in path.read_text("utf-8").splitlines():
        rec = json.loads(line)
        splits.require_train_captcha(rec["type"])
        image = str(folder / "images" / rec["image"])
        w, h = rec["size"]
        actions = parse_response(rec["reference_response"], "captcha").actions
        boxes = []
        for a in actions:
            p = getattr(a, "point", None)
            box = None
            if p is not None:
                for lab in rec.get("labels") or []:
                    x1, y1, x2, y2 = lab.get("bbox") or (0, 0, -1, -1)
                    if x1 <= p.x * w <= x2 and y1 <= p.y * h <= y2:
                        box = [x1 / w, y1 / h, x2 / w, y2 / h]
                        break
            boxes.append(box)
        # The eval's prompt: the puzzle's own instruction is only on the page, read from the screenshot.
        messages, _ = build_messages(rec["system"], [], b"", surface="captcha", inline_images=False)
        rows.append({"prompt": messages, "images": [image], "surface": "captcha", "domain": "captcha",
                     "gt_actions": json.dumps([a.to_dict() for a in actions]), "gt_boxes": json.dumps(boxes),
                     "task": f"captcha:{rec['type']}", "episode_id": rec["id"], "step": 0})  # fmt: skip
    return rows
