"""GUI-Odyssey's layout (OpenGVLab/GUI-Odyssey): one JSON per episode under `annotations/`, the screenshots under
`screenshots/`, and split files under `splits/` ({"train": [...], "test": [...]} of annotation file names).

An episode: {"episode_id", "device_info": {"h", "w", "device_name", ...}, "task_info": {"category", "app",
"meta_task", "task", "instruction"}, "step_length", "steps": [{"step", "screenshot", "action", "info", "ps"}]}.
Actions and their `info` (coordinates on the 0-1000 grid of the screen):
    CLICK       [[x, y]], or "KEY_HOME" / "KEY_BACK" / "KEY_APPSELECT" for the system keys
    LONG_PRESS  [[x, y]]
    SCROLL      [[x1, y1], [x2, y2]]: the finger's start and end (its direction is what the eval compares)
    TEXT        the text typed
    COMPLETE    "" (the task is done; `ps` may say more)       INCOMPLETE  "" (it cannot be done)

Written from venuskit episodes (`write_guiodyssey`): every step becomes a step with its own screenshot;
Finished / Answer close with COMPLETE (the answer in `ps`), CallUser with INCOMPLETE. An episode holding an
action this space cannot express is skipped whole and counted by reason.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from venuskit.actions import coords
from venuskit.actions.types import (
    Action,
    Answer,
    CallUser,
    Click,
    Finished,
    LongPress,
    Point,
    PressBack,
    PressHome,
    PressRecent,
    Swipe,
    Type,
)
from venuskit.record.store import EpisodeStoreError, load_episode, step_png

ACTIONS = ("CLICK", "LONG_PRESS", "SCROLL", "TEXT", "COMPLETE", "INCOMPLETE")
KEYS = {"KEY_HOME": PressHome, "KEY_BACK": PressBack, "KEY_APPSELECT": PressRecent}
_SAFE = re.compile(r"^[A-Za-z0-9._-]{1,200}$")
_MAX_JSON = 16 << 20  # one annotation file; the real ones are a few KB


class Unexportable(ValueError):
    """An episode this layout cannot express exactly."""


@dataclass
class GOStep:
    screenshot: Path
    action: str
    info: Any
    ps: str = ""


@dataclass
class GOEpisode:
    episode_id: str
    instruction: str
    width: int
    height: int
    steps: list[GOStep]
    category: str = ""


def _grid(point: Point) -> list[int]:
    return [coords.to_grid(point.x, 1000), coords.to_grid(point.y, 1000)]


def to_go(action: Action | None) -> tuple[str, Any, str] | None:
    """(action, info, ps) for a venuskit action, or None when GUI-Odyssey has no such action."""
    if isinstance(action, Click) and action.point is not None:
        return "CLICK", [_grid(action.point)], ""
    if isinstance(action, LongPress):
        return "LONG_PRESS", [_grid(action.point)], ""
    if isinstance(action, Swipe):
        return "SCROLL", [_grid(action.start), _grid(action.end)], ""
    if isinstance(action, Type):
        return "TEXT", action.content, ""
    for key, cls in KEYS.items():
        if isinstance(action, cls):
            return "CLICK", key, ""
    if isinstance(action, (Finished, Answer)):
        return "COMPLETE", "", action.content
    if isinstance(action, CallUser):
        return "INCOMPLETE", "", action.content
    return None


def _point(value: Any) -> Point:
    if not (isinstance(value, list | tuple) and len(value) == 2 and all(isinstance(v, int | float) for v in value)):
        raise ValueError(f"expected [x, y] on the 0-1000 grid, got {value!r}")
    return Point(coords.from_grid(value[0], 1000), coords.from_grid(value[1], 1000))


# The dataset card names some actions differently from the annotation files; both are read.
ALIASES = {"TYPE": "TEXT", "IMPOSSIBLE": "INCOMPLETE", "HOME": ("CLICK", "KEY_HOME"), "BACK": ("CLICK", "KEY_BACK")}


def from_go(action: str, info: Any, ps: str = "") -> Action:
    """A GUI-Odyssey step action as the venuskit action a mobile model would write for it."""
    alias = ALIASES.get(action)
    if isinstance(alias, tuple):
        action, info = alias
    elif alias:
        action = alias
    if action in ("CLICK", "LONG_PRESS") and isinstance(info, str):
        if info not in KEYS:
            raise ValueError(f"unknown key {info!r} in a {action} step")
        return KEYS[info]()
    if action in ("CLICK", "LONG_PRESS"):
        point = _point(info[0] if isinstance(info, list) and info else info)
        return Click(point=point) if action == "CLICK" else LongPress(point=point)
    if action == "SCROLL":
        if not (isinstance(info, list) and len(info) == 2):
            raise ValueError(f"a SCROLL needs [[x1, y1], [x2, y2]], got {info!r}")
        return Swipe(start=_point(info[0]), end=_point(info[1]))
    if action == "TEXT":
        return Type(content=str(info))
    if action == "COMPLETE":
        return Finished(content=ps or "")
    if action == "INCOMPLETE":
        return CallUser(content=ps or "The task cannot be completed.")
    raise ValueError(f"unknown GUI-Odyssey action {action!r}; expected one of {ACTIONS}")


# ---- reading -----------------------------------------------------------------------------------------------


def read_guiodyssey(root: str | Path, split: str | None = None, part: str = "test") -> Iterator[GOEpisode]:
    """Episodes under `root` (annotations/, screenshots/). `split` names a file in splits/ (e.g. random_split) and
    `part` its list (test/train); without `split`, every annotation file. Paths never leave `root`."""
    root = Path(root)
    ann = root / "annotations"
    if not ann.is_dir():
        raise FileNotFoundError(f"{root} is not a GUI-Odyssey folder (no annotations/).")
    if split:
        split_file = root / "splits" / f"{split.removesuffix('.json')}.json"
        if not split_file.is_file():
            raise FileNotFoundError(f"No split file {split_file}.")
        names = json.loads(split_file.read_text(encoding="utf-8")).get(part, [])
    else:
        names = sorted(p.name for p in ann.glob("*.json"))
    for name in names:
        yield _episode(root, str(name) if str(name).endswith(".json") else f"{name}.json")


def _episode(root: Path, name: str) -> GOEpisode:
    path = root / "annotations" / name
    if not _SAFE.match(name) or not path.is_file():
        raise ValueError(f"{name!r} is not an annotation file under {root / 'annotations'}.")
    if path.stat().st_size > _MAX_JSON:
        raise ValueError(f"{path} is larger than {_MAX_JSON} bytes; not an episode annotation.")
    d = json.loads(path.read_text(encoding="utf-8"))
    try:
        device, task = d["device_info"], d["task_info"]
        steps = [GOStep(_shot(root, s["screenshot"]), str(s["action"]), s.get("info", ""), str(s.get("ps") or ""))
                 for s in d["steps"]]  # fmt: skip
        return GOEpisode(str(d["episode_id"]), str(task.get("instruction") or task.get("task") or ""),
                         int(device["w"]), int(device["h"]), steps, str(task.get("category", "")))  # fmt: skip
    except (KeyError, TypeError, ValueError) as e:
        raise ValueError(f"{path}: not a GUI-Odyssey episode ({type(e).__name__}: {e}).") from e


def _shot(root: Path, name: Any) -> Path:
    name = str(name)
    if not _SAFE.match(Path(name).name) or Path(name).name != name:
        raise ValueError(f"screenshot {name!r} is not a plain file name")
    return root / "screenshots" / name


# ---- writing -----------------------------------------------------------------------------------------------


def episode_to_go(folder: str | Path) -> tuple[dict[str, Any], list[tuple[str, bytes]]]:
    """(annotation, [(screenshot name, png)]) for one recorded episode; raises Unexportable."""
    try:
        ep = load_episode(folder)
    except EpisodeStoreError as e:  # a corrupt or tampered manifest: this episode is skipped, the others written
        raise Unexportable(str(e)) from e
    if not ep.steps:
        raise Unexportable("the episode has no steps")
    width, height = ep.screen
    steps, shots = [], []
    for step in ep.steps:
        converted = to_go(step.action)
        if converted is None:
            name = step.action.name if step.action is not None else "an unparsed reply"
            raise Unexportable(f"{name} has no GUI-Odyssey action")
        png = step_png(folder, step)
        if png is None:
            raise Unexportable(f"step {step.index} has no screenshot")
        shot = f"{ep.episode_id}_{step.index}.png"
        shots.append((shot, png))
        action, info, ps = converted
        steps.append({"step": step.index, "screenshot": shot, "action": action, "info": info, "ps": ps})
    task = ep.task.get("world_task") or ""
    annotation = {
        "episode_id": ep.episode_id,
        "device_info": {"product": "venuskit", "release_version": "", "sdk_version": "", "h": height, "w": width,
                        "device_name": f"venuskit {ep.surface}"},
        "task_info": {"category": str(ep.task.get("category", "")), "app": list(ep.task.get("apps", [])),
                      "meta_task": str(task), "task": ep.goal, "instruction": ep.goal},
        "step_length": len(steps), "steps": steps,
    }  # fmt: skip
    return annotation, shots


def write_guiodyssey(folders: Iterable[str | Path], out: str | Path) -> dict[str, Any]:
    """Write episodes under `out/` (annotations/, screenshots/, splits/random_split.json with all under test)."""
    out = Path(out)
    written, skipped, n_steps = [], {}, 0
    for folder in folders:
        try:
            annotation, shots = episode_to_go(folder)
        except Unexportable as e:
            skipped[str(e)] = skipped.get(str(e), 0) + 1
            continue
        (out / "screenshots").mkdir(parents=True, exist_ok=True)
        (out / "annotations").mkdir(parents=True, exist_ok=True)
        for name, png in shots:
            (out / "screenshots" / name).write_bytes(png)
        (out / "annotations" / f"{annotation['episode_id']}.json").write_text(
            json.dumps(annotation, ensure_ascii=False, indent=1), encoding="utf-8")  # fmt: skip
        written.append(f"{annotation['episode_id']}.json")
        n_steps += annotation["step_length"]
    if not written:
        raise Unexportable(f"none of the episodes can be written as GUI-Odyssey (skipped: {skipped}).")
    (out / "splits").mkdir(parents=True, exist_ok=True)
    (out / "splits" / "random_split.json").write_text(json.dumps({"train": [], "test": written}), encoding="utf-8")
    return {"episodes": len(written), "steps": n_steps, "skipped": skipped, "files": [str(out)]}
