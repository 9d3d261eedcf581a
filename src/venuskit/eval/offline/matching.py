"""Each offline benchmark's canonical step matching, as its authors' code defines it.

Every matcher takes the model's parsed actions and the step's ground truth and returns a `Match`:
`type_ok` (the action type), `ground_ok` (the target location, for steps that have one; None otherwise) and
`step_ok` (type and every argument: the step counts towards Step SR).

- AndroidControl uses AITW's action matching (google-research android_in_the_wild/action_matching.py): a tap
  matches when the two points lie within 0.14 of each other in normalised screen coordinates (each axis divided
  by its own length: "fraction of the screen"), or both inside one ground-truth element box grown by 1.4× its
  size (AITW's augment fraction: 0.7 of the width and height added on each side). The element box is the
  smallest visible accessibility node holding the ground-truth point. Scrolls match by direction, typed text
  and app names by case-insensitive equality after trimming.
- GUI-Odyssey (src/eval_mm/GUIOdyssey_action_matching.py): the action name must be equal; CLICK / LONG_PRESS
  match within an L2 distance of 0.14 on the 0-1000 grid divided by 1000; TYPE when one text contains the
  other or ANLS >= 0.5; SCROLL by direction (of the finger).
- Multimodal-Mind2Web (SeeClick's protocol for screenshots): the element is right when the click lies inside
  the target's bounding box; Op F1 is the token F1 of "OP value" against the ground truth; a step succeeds when
  the element is right and Op F1 is 1.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from venuskit.actions.types import Action, Click, SelectOption, Type
from venuskit.actions.types import Sequence as ActionSequence
from venuskit.record.formats import androidcontrol as AC
from venuskit.record.formats import guiodyssey as GO

AITW_TAP_DISTANCE = 0.14
AITW_BOX_AUGMENT = 1.4
ODYSSEY_CLICK_DISTANCE = 0.14
ODYSSEY_ANLS = 0.5


@dataclass(frozen=True)
class Match:
    type_ok: bool
    ground_ok: bool | None  # None: the ground truth has no location to hit
    step_ok: bool
    pred: Any  # the prediction in the benchmark's own action language, for the details file

    def to_dict(self) -> dict[str, Any]:
        return {"type_ok": self.type_ok, "ground_ok": self.ground_ok, "step_ok": self.step_ok, "pred": self.pred}


def one_action(actions: list[Action]) -> Action | None:
    """A reply's actions as one: none, the single one, or [Click, Type] as a click-then-type sequence."""
    if not actions:
        return None
    if len(actions) == 1:
        return actions[0]
    return ActionSequence(actions=tuple(actions))


# ---- AndroidControl (AITW matching) ------------------------------------------------------------------------

_AC_TYPE_GROUP = {"input_text": "type", "type": "type"}  # typing with or without the click counts as typing


def tap_matches(pred_xy: tuple[float, float], gt_xy: tuple[float, float], box: AC.Box | None,
                size: tuple[int, int]) -> bool:  # fmt: skip
    """AITW's tap rule on pixel points: both inside the grown element box, or within 0.14 normalised."""
    w, h = size
    dist = math.hypot((pred_xy[0] - gt_xy[0]) / w, (pred_xy[1] - gt_xy[1]) / h)
    if dist <= AITW_TAP_DISTANCE:
        return True
    if box is None:
        return False
    bw, bh = box[2] - box[0], box[3] - box[1]
    grow_w, grow_h = AITW_BOX_AUGMENT * bw / 2, AITW_BOX_AUGMENT * bh / 2
    big = (max(0.0, box[0] - grow_w), max(0.0, box[1] - grow_h), box[2] + grow_w, box[3] + grow_h)
    inside = lambda p: big[0] <= p[0] <= big[2] and big[1] <= p[1] <= big[3]  # noqa: E731
    return inside(pred_xy) and inside(gt_xy)


def match_androidcontrol(actions: list[Action], gt: dict[str, Any], size: tuple[int, int],
                         box: AC.Box | None = None) -> Match:  # fmt: skip
    action = one_action(actions)
    pred = AC.to_ac(action, *size) if action is not None else None
    if pred is None:
        pred = {"action_type": action.name if action is not None else "none"}
    gt_kind, pred_kind = gt["action_type"], pred["action_type"]
    type_ok = _AC_TYPE_GROUP.get(gt_kind, gt_kind) == _AC_TYPE_GROUP.get(pred_kind, pred_kind)
    located = "x" in gt and "y" in gt
    ground_ok = None
    if located:
        ground_ok = type_ok and "x" in pred and tap_matches((pred["x"], pred["y"]), (gt["x"], gt["y"]), box, size)
    args_ok = type_ok
    if type_ok and gt_kind == "scroll":
        args_ok = str(pred.get("direction", "")).lower() == str(gt.get("direction", "")).lower()
    elif type_ok and gt_kind in ("type", "input_text"):
        args_ok = _norm(pred.get("text")) == _norm(gt.get("text"))
    elif type_ok and gt_kind == "open_app":
        args_ok = _norm(pred.get("app_name")) == _norm(gt.get("app_name"))
    if gt_kind == "type" and "x" not in pred:  # typed without clicking a field: the field is not located
        ground_ok = False
    step_ok = bool(args_ok and (ground_ok is not False))
    return Match(type_ok, ground_ok, step_ok, pred)


def _norm(text: Any) -> str:
    return " ".join(str(text or "").split()).casefold()


# ---- GUI-Odyssey -------------------------------------------------------------------------------------------


_KEY_NAMES = {"KEY_HOME": "PRESS_HOME", "KEY_BACK": "PRESS_BACK", "KEY_APPSELECT": "PRESS_RECENT"}


def odyssey_canonical(action: str, info: Any) -> tuple[str, Any]:
    """(action, info) as GUI-Odyssey's evaluation compares them: keys as PRESS_*, SCROLL as a direction, TEXT as
    TYPE, INCOMPLETE as IMPOSSIBLE (its format_converter.decode_action)."""
    alias = GO.ALIASES.get(action)
    if isinstance(alias, tuple):
        action, info = alias
    elif alias:
        action = alias
    if action in ("CLICK", "LONG_PRESS") and isinstance(info, str):
        return _KEY_NAMES.get(info, info), ""
    if action in ("CLICK", "LONG_PRESS"):
        point = info[0] if isinstance(info, list) and info and isinstance(info[0], list) else info
        return action, list(point)
    if action == "SCROLL":
        (x1, y1), (x2, y2) = info
        dx, dy = x2 - x1, y2 - y1
        return "SCROLL", ("RIGHT" if dx > 0 else "LEFT") if abs(dx) > abs(dy) else ("DOWN" if dy > 0 else "UP")
    if action == "TEXT":
        return "TYPE", str(info)
    if action == "INCOMPLETE":
        return "IMPOSSIBLE", ""
    return action, ""


def anls(a: str, b: str) -> float:
    """1 - normalised Levenshtein distance."""
    a, b = a.strip(), b.strip()
    if not a and not b:
        return 1.0
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return 1.0 - prev[-1] / max(len(a), len(b))


def text_matches(gt: str, pred: str) -> bool:
    gt, pred = gt.strip(), pred.strip()
    return gt in pred or pred in gt or anls(gt, pred) >= ODYSSEY_ANLS


def match_guiodyssey(actions: list[Action], gt_action: str, gt_info: Any) -> Match:
    action = one_action(actions)
    converted = GO.to_go(action) if action is not None else None
    pred = odyssey_canonical(converted[0], converted[1]) if converted else (action.name if action else "none", "")
    gt = odyssey_canonical(gt_action, gt_info)
    type_ok = pred[0] == gt[0]
    ground_ok = None
    if gt[0] in ("CLICK", "LONG_PRESS"):
        dist = math.dist([v / 1000 for v in pred[1]], [v / 1000 for v in gt[1]]) if type_ok else math.inf
        ground_ok = dist <= ODYSSEY_CLICK_DISTANCE
    step_ok = type_ok
    if type_ok and gt[0] == "TYPE":
        step_ok = text_matches(gt[1], pred[1])
    elif type_ok and gt[0] == "SCROLL":
        step_ok = pred[1] == gt[1]
    elif ground_ok is not None:
        step_ok = ground_ok
    return Match(type_ok, ground_ok, step_ok, list(pred))


# ---- Multimodal-Mind2Web -------------------------------------------------------------------------------------


def mind2web_prediction(action: Action | None, size: tuple[int, int]) -> dict[str, Any]:
    """The model's action as a Mind2Web operation: {"op", "value", "point" (pixels, or None)}."""
    from venuskit.actions import coords

    def px(a: Any) -> list[int] | None:
        point = getattr(a, "point", None)
        return list(coords.point_to_pixels(point.as_tuple(), *size)) if point is not None else None

    if isinstance(action, ActionSequence):
        clicks = [a for a in action.actions if isinstance(a, Click)]
        typed = [a for a in action.actions if isinstance(a, Type)]
        if clicks and typed:
            return {"op": "TYPE", "value": typed[0].content, "point": px(clicks[0])}
        action = action.actions[0] if action.actions else None
    if isinstance(action, Click):
        return {"op": "CLICK", "value": "", "point": px(action)}
    if isinstance(action, Type):
        return {"op": "TYPE", "value": action.content, "point": None}
    if isinstance(action, SelectOption):
        return {"op": "SELECT", "value": str(action.index), "point": None}
    return {"op": action.name.upper() if action is not None else "NONE", "value": "", "point": px(action)}


def op_f1(pred: str, gt: str) -> float:
    """Token-level F1 of two operation strings ("TYPE new york")."""
    p, g = pred.lower().split(), gt.lower().split()
    common = sum(min(p.count(t), g.count(t)) for t in set(p))
    if not p or not g or not common:
        return float(p == g)
    precision, recall = common / len(p), common / len(g)
    return 2 * precision * recall / (precision + recall)


def match_mind2web(actions: list[Action], gt: dict[str, Any], size: tuple[int, int]) -> Match:
    pred = mind2web_prediction(one_action(actions), size)
    box = gt.get("box")
    point = pred["point"]
    ground_ok = bool(box and point and box[0] <= point[0] <= box[2] and box[1] <= point[1] <= box[3])
    f1 = op_f1(f"{pred['op']} {pred['value']}".strip(), f"{gt['op']} {gt.get('value', '')}".strip())
    return Match(pred["op"] == gt["op"], ground_ok, ground_ok and f1 == 1.0, {**pred, "op_f1": round(f1, 4)})
