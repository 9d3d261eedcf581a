"""AndroidControl's layout: gzip TFRecord files of `tf.train.Example` episodes (google-research/android_control).

Fields of one episode (an Example):
    episode_id           int64
    goal                 bytes: the high-level instruction
    screenshots          bytes list: PNGs, one per observation
    accessibility_trees  bytes list: one serialized android_env AndroidAccessibilityForest per observation
    screenshot_widths / screenshot_heights   int64 lists
    actions              bytes list: JSON dicts, len(screenshots) - 1 of them (an action joins two screenshots)
    step_instructions    bytes list: the low-level instruction of each action

Actions (`action_type` and its fields; x, y in screenshot pixels): click(x, y), long_press(x, y),
scroll(direction: up/down/left/right — the way the view scrolls, i.e. a finger swipe the other way),
open_app(app_name), type(x, y, text: click, type, enter), input_text(text), navigate_home, navigate_back, wait.

Writing venuskit episodes in this layout (`write_androidcontrol`): every non-terminal step becomes an action,
its thought the step instruction; the screenshot of the closing step (Finished / Answer / CallUser) is the
last observation. An episode holding an action this space cannot express (PressEnter, Hotkey, Drag, GetUrl,
TakeNote, ...) is skipped whole and counted by reason, so every written episode is exact. venuskit records no
accessibility tree, so each observation gets an empty forest; readers then match taps by distance only.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from google.protobuf import descriptor_pb2, descriptor_pool, message_factory

from venuskit.actions import coords
from venuskit.actions.types import (
    Action,
    Answer,
    CallUser,
    Click,
    Finished,
    LaunchApp,
    LongPress,
    Point,
    PressBack,
    PressHome,
    Scroll,
    Sequence,
    Swipe,
    Type,
    Wait,
)
from venuskit.record.formats.tfrecord import TFRecordError, decode_example, encode_example, read_records, write_records
from venuskit.record.store import EpisodeStoreError, load_episode, step_png

ACTION_TYPES = ("click", "long_press", "scroll", "open_app", "type", "input_text", "navigate_home", "navigate_back",
                "wait")  # fmt: skip
DIRECTIONS = ("up", "down", "left", "right")
FILE_NAME = "android_control-00000-of-00001"
# A scroll as the swipe that performs it: the finger moves against the scroll direction, over 40% of the screen.
_SWIPES = {"down": ((0.5, 0.7), (0.5, 0.3)), "up": ((0.5, 0.3), (0.5, 0.7)),
           "right": ((0.7, 0.5), (0.3, 0.5)), "left": ((0.3, 0.5), (0.7, 0.5))}  # fmt: skip
Box = tuple[float, float, float, float]  # left, top, right, bottom in screenshot pixels


class Unexportable(ValueError):
    """An episode that this layout cannot express exactly (the reason says which step and why)."""


@dataclass
class ACEpisode:
    episode_id: int
    goal: str
    screenshots: list[bytes]
    widths: list[int]
    heights: list[int]
    actions: list[dict[str, Any]]
    step_instructions: list[str]
    accessibility_trees: list[bytes] = field(default_factory=list)

    def check(self, where: str = "episode") -> ACEpisode:
        n = len(self.screenshots)
        if not n or len(self.widths) != n or len(self.heights) != n:
            raise TFRecordError(f"{where}: {n} screenshots but {len(self.widths)} widths and {len(self.heights)} "
                                "heights; they must be equal and non-zero.")  # fmt: skip
        if len(self.actions) != n - 1 or len(self.step_instructions) != n - 1:
            raise TFRecordError(f"{where}: {len(self.actions)} actions and {len(self.step_instructions)} step "
                                f"instructions for {n} screenshots; AndroidControl has one fewer action than "
                                "screenshots.")  # fmt: skip
        return self

    def to_example(self) -> bytes:
        trees = self.accessibility_trees or [b""] * len(self.screenshots)
        return encode_example({
            "episode_id": [int(self.episode_id)], "goal": [self.goal], "screenshots": list(self.screenshots),
            "accessibility_trees": list(trees), "screenshot_widths": [int(w) for w in self.widths],
            "screenshot_heights": [int(h) for h in self.heights],
            "actions": [json.dumps(a, ensure_ascii=False) for a in self.actions],
            "step_instructions": list(self.step_instructions),
        })  # fmt: skip

    @classmethod
    def from_example(cls, data: bytes, where: str = "record") -> ACEpisode:
        f = decode_example(data, where)
        missing = [k for k in ("episode_id", "goal", "screenshots", "actions") if k not in f]
        if missing:
            raise TFRecordError(f"{where}: not an AndroidControl episode (no {', '.join(missing)}).")
        try:
            actions = [json.loads(_text(a)) for a in f["actions"]]
        except (json.JSONDecodeError, UnicodeDecodeError) as e:
            raise TFRecordError(f"{where}: an action is not JSON ({e}).") from e
        if not all(isinstance(a, dict) and isinstance(a.get("action_type"), str) for a in actions):
            raise TFRecordError(f"{where}: every action must be a JSON object with an action_type.")
        goal = f["goal"][0] if f["goal"] else b""
        return cls(int(f["episode_id"][0]) if f["episode_id"] else 0, _text(goal), list(f["screenshots"]),
                   [int(w) for w in f.get("screenshot_widths", [])], [int(h) for h in f.get("screenshot_heights", [])],
                   actions, [_text(s) for s in f.get("step_instructions", [])],
                   list(f.get("accessibility_trees", [])),).check(where)  # fmt: skip


def _text(value: Any) -> str:
    return value.decode("utf-8") if isinstance(value, bytes) else str(value)


# ---- actions ------------------------------------------------------------------------------------------


def swipe_direction(start: Point, end: Point) -> str:
    """The finger's direction along its main axis."""
    dx, dy = end.x - start.x, end.y - start.y
    if abs(dx) > abs(dy):
        return "right" if dx > 0 else "left"
    return "down" if dy > 0 else "up"


_OPPOSITE = {"up": "down", "down": "up", "left": "right", "right": "left"}
_KEYS = {"PressHome": "navigate_home", "PressBack": "navigate_back", "Wait": "wait"}


def to_ac(action: Action | None, width: int, height: int) -> dict[str, Any] | None:
    """A venuskit action as an AndroidControl action dict, or None when the space has no such action."""

    def at(point: Point) -> dict[str, int]:
        x, y = coords.point_to_pixels(point.as_tuple(), width, height)
        return {"x": x, "y": y}

    if isinstance(action, Click) and action.point is not None:
        return {"action_type": "click", **at(action.point)}
    if isinstance(action, LongPress):
        return {"action_type": "long_press", **at(action.point)}
    if isinstance(action, Swipe):  # a swipe scrolls the view the other way
        return {"action_type": "scroll", "direction": _OPPOSITE[swipe_direction(action.start, action.end)]}
    if isinstance(action, Scroll):
        return {"action_type": "scroll", "direction": action.direction}
    if isinstance(action, Type):
        return {"action_type": "input_text", "text": action.content}
    if isinstance(action, LaunchApp):
        return {"action_type": "open_app", "app_name": action.app}
    if isinstance(action, (PressHome, PressBack, Wait)):
        return {"action_type": _KEYS[action.name]}
    if isinstance(action, Sequence) and [a.name for a in action.actions] == ["Click", "Type"]:
        click, typed = action.actions
        return {"action_type": "type", **at(click.point), "text": typed.content}
    return None


def from_ac(action: dict[str, Any], width: int, height: int) -> Action:
    """An AndroidControl action dict as the venuskit action a mobile model would write for it."""
    kind = action.get("action_type")

    def point() -> Point:
        try:
            return Point(*coords.point_from_pixels(float(action["x"]), float(action["y"]), width, height))
        except (KeyError, TypeError, ValueError) as e:
            raise ValueError(f"AndroidControl {kind} action without usable x, y: {action!r}.") from e

    if kind == "click":
        return Click(point=point())
    if kind == "long_press":
        return LongPress(point=point())
    if kind == "scroll":
        direction = str(action.get("direction", "")).lower()
        if direction not in DIRECTIONS:
            raise ValueError(f"AndroidControl scroll with direction {direction!r}; expected one of {DIRECTIONS}.")
        (x1, y1), (x2, y2) = _SWIPES[direction]
        return Swipe(start=Point(x1, y1), end=Point(x2, y2))
    if kind in ("type", "input_text"):  # a `type` also clicks its field first; the mobile grammar types only
        return Type(content=str(action.get("text", "")))
    if kind == "open_app":
        return LaunchApp(app=str(action.get("app_name", "")))
    simple = {"navigate_home": PressHome, "navigate_back": PressBack, "wait": Wait}
    if kind in simple:
        return simple[kind]()
    raise ValueError(f"Unknown AndroidControl action_type {kind!r}; expected one of {ACTION_TYPES}.")


# ---- accessibility forests (android_env/proto/a11y), the fields matching needs --------------------------------


def _forest_descriptor() -> descriptor_pb2.FileDescriptorProto:
    fd = descriptor_pb2.FileDescriptorProto(name="venuskit_a11y_forest.proto", package="android_env", syntax="proto3")
    F = descriptor_pb2.FieldDescriptorProto
    i32, s, b, msg = F.TYPE_INT32, F.TYPE_STRING, F.TYPE_BOOL, F.TYPE_MESSAGE
    opt, rep = F.LABEL_OPTIONAL, F.LABEL_REPEATED
    specs = {
        "ProtoRect": [("left", 1, i32, opt), ("top", 2, i32, opt), ("right", 3, i32, opt), ("bottom", 4, i32, opt)],
        "AndroidAccessibilityNodeInfo": [
            ("unique_id", 1, i32, opt), ("bounds_in_screen", 2, ".android_env.ProtoRect", opt),
            ("class_name", 3, s, opt), ("content_description", 4, s, opt), ("text", 7, s, opt),
            ("view_id_resource_name", 10, s, opt), ("is_clickable", 14, b, opt), ("is_editable", 15, b, opt),
            ("is_visible_to_user", 23, b, opt), ("child_ids", 25, i32, rep), ("depth", 27, i32, opt)],
        "AndroidAccessibilityTree": [("nodes", 1, ".android_env.AndroidAccessibilityNodeInfo", rep)],
        "AndroidAccessibilityWindowInfo": [
            ("bounds_in_screen", 1, ".android_env.ProtoRect", opt), ("id", 3, i32, opt), ("title", 5, s, opt),
            ("window_type", 6, i32, opt), ("tree", 11, ".android_env.AndroidAccessibilityTree", opt)],
        "AndroidAccessibilityForest": [("windows", 1, ".android_env.AndroidAccessibilityWindowInfo", rep)],
    }  # fmt: skip
    for name, fields in specs.items():
        m = fd.message_type.add(name=name)
        for fname, number, ftype, label in fields:
            f = m.field.add(name=fname, number=number, label=label)
            if isinstance(ftype, str):
                f.type, f.type_name = msg, ftype
            else:
                f.type = ftype
    return fd


_POOL = descriptor_pool.DescriptorPool()
_POOL.Add(_forest_descriptor())
Forest = message_factory.GetMessageClass(_POOL.FindMessageTypeByName("android_env.AndroidAccessibilityForest"))


def forest_boxes(data: bytes) -> list[Box]:
    """The screen boxes of the visible nodes of a serialized forest (empty for empty or unreadable bytes)."""
    forest = Forest()
    try:
        forest.ParseFromString(data)
    except Exception:  # noqa: BLE001 - an unreadable tree costs box matching for this step, not the eval
        return []
    boxes = []
    for window in forest.windows:
        for node in window.tree.nodes:
            r = node.bounds_in_screen
            if node.is_visible_to_user and r.right > r.left and r.bottom > r.top:
                boxes.append((float(r.left), float(r.top), float(r.right), float(r.bottom)))
    return boxes


def forest_bytes(boxes: Iterable[Box], texts: Iterable[str] = ()) -> bytes:
    """A one-window forest with one visible, clickable node per box (for fixtures and converters)."""
    forest = Forest()
    tree = forest.windows.add(id=1, window_type=1).tree
    for i, (box, text) in enumerate(zip(boxes, list(texts) or [""] * 10**6, strict=False)):
        node = tree.nodes.add(unique_id=i, text=text, is_clickable=True, is_visible_to_user=True)
        node.bounds_in_screen.left, node.bounds_in_screen.top = int(box[0]), int(box[1])
        node.bounds_in_screen.right, node.bounds_in_screen.bottom = int(box[2]), int(box[3])
    return forest.SerializeToString(deterministic=True)


def target_box(boxes: list[Box], x: float, y: float) -> Box | None:
    """The smallest box holding the point: the element the ground-truth tap hit."""
    holding = [b for b in boxes if b[0] <= x <= b[2] and b[1] <= y <= b[3]]
    return min(holding, key=lambda b: (b[2] - b[0]) * (b[3] - b[1])) if holding else None


# ---- reading and writing -----------------------------------------------------------------------------------


def data_files(path: str | Path) -> list[Path]:
    """A TFRecord file, or the AndroidControl shards (android_control-*) / *.tfrecord* files of a folder."""
    path = Path(path)
    if path.is_file():
        return [path]
    if not path.is_dir():
        raise FileNotFoundError(f"{path} does not exist.")
    files = sorted(p for p in path.iterdir() if p.is_file() and (p.name.startswith("android_control")
                                                                 or ".tfrecord" in p.name))  # fmt: skip
    if not files:
        raise FileNotFoundError(f"{path} holds no android_control-* or *.tfrecord* file.")
    return files


def read_androidcontrol(path: str | Path) -> Iterator[ACEpisode]:
    for file in data_files(path):
        for i, record in enumerate(read_records(file)):
            yield ACEpisode.from_example(record, f"{file} record {i}")


def numeric_id(episode_id: str) -> int:
    """A stable int64 id for a venuskit episode id (AndroidControl ids are integers)."""
    return int(hashlib.sha256(episode_id.encode("utf-8")).hexdigest()[:15], 16)


def episode_to_ac(folder: str | Path) -> ACEpisode:
    """One recorded venuskit episode as an AndroidControl episode; raises Unexportable when it cannot be exact."""
    try:
        ep = load_episode(folder)
    except EpisodeStoreError as e:  # a corrupt or tampered manifest: this episode is skipped, the others written
        raise Unexportable(str(e)) from e
    if not ep.steps:
        raise Unexportable("the episode has no steps")
    shots, actions, instructions = [], [], []
    width, height = ep.screen
    for step in ep.steps:
        png = step_png(folder, step)
        if png is None:
            raise Unexportable(f"step {step.index} has no screenshot")
        shots.append(png)
        if step.action is not None and (step.action.terminal or _ends(step.action)):
            break
        converted = to_ac(step.action, width, height)
        if converted is None:
            name = step.action.name if step.action is not None else "an unparsed reply"
            raise Unexportable(f"{name} has no AndroidControl action")
        actions.append(converted)
        instructions.append(step.thought or "")
    else:  # no closing step (a step limit): the last action's outcome was never observed, so it goes
        actions.pop()
        instructions.pop()
    if not actions:
        raise Unexportable("no action before the episode ended")
    return ACEpisode(numeric_id(ep.episode_id), ep.goal, shots, [width] * len(shots), [height] * len(shots),
                     actions, instructions, [forest_bytes([])] * len(shots))  # fmt: skip


def _ends(action: Action) -> bool:
    last = action.actions[-1] if isinstance(action, Sequence) and action.actions else None
    return isinstance(last, (Finished, Answer, CallUser))


def write_androidcontrol(folders: Iterable[str | Path], out: str | Path) -> dict[str, Any]:
    """Write episodes into `out/` as one gzip TFRecord shard plus splits.json (every id under "test").
    Returns {"episodes": n, "steps": n, "skipped": {reason: count}, "files": [...]}."""
    out = Path(out)
    episodes, skipped = [], {}
    for folder in folders:
        try:
            episodes.append(episode_to_ac(folder))
        except Unexportable as e:
            skipped[str(e)] = skipped.get(str(e), 0) + 1
    if not episodes:
        raise Unexportable(f"none of the episodes can be written as AndroidControl (skipped: {skipped}).")
    out.mkdir(parents=True, exist_ok=True)
    shard = out / FILE_NAME
    write_records(shard, (e.to_example() for e in episodes), compress=True)
    splits = out / "splits.json"
    splits.write_text(json.dumps({"train": [], "validation": [], "test": [e.episode_id for e in episodes]}),
                      encoding="utf-8")  # fmt: skip
    return {"episodes": len(episodes), "steps": sum(len(e.actions) for e in episodes), "skipped": skipped,
            "files": [str(shard), str(splits)]}  # fmt: skip
