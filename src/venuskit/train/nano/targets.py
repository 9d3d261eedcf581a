"""What venus-nano should have chosen: a training row's reference action as supervision of the network's parts
(its type, the right candidates, the right text options, the trailing newline).

Several candidates can be right (a list row and the line inside it); the pointer learns the mass on all of them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from venuskit.actions.types import Action
from venuskit.models.nano.action_types import POINTER_TYPES, TYPE_INDEX, action_type
from venuskit.models.nano.entities import containment, norm
from venuskit.models.nano.features import Features


@dataclass
class Target:
    """Supervision for one decision (None fields are not supervised)."""

    type: int
    ptr: np.ndarray | None  # (N,) bool: candidates that are right
    text: np.ndarray | None  # (M,) bool
    newline: float | None


def target_for(f: Features, action: Action, box: tuple[float, float, float, float] | None) -> Target | None:
    """What the network should have chosen for `action` (box: the target element, normalised, when known).
    None when venus-nano cannot express the action."""
    t = action_type(action)
    if t is None:
        return None
    ptr = text = nl = None
    if t in POINTER_TYPES:
        ptr = _pointer_positives(f, action, box)
    if t == "Type":
        content = action.content  # type: ignore[attr-defined]
        nl = float(content.endswith("\n"))
        text = _text_positives(f, content.rstrip("\n"), exact=True)
    elif t == "Finished":
        content = (action.content or "").strip()  # type: ignore[attr-defined]
        text = _done_positive(f) if content in ("", "Done.", "Done") else _text_positives(f, content, exact=False)
    elif t == "SelectOption":
        idx = action.index  # type: ignore[attr-defined]
        text = np.array([o.index == idx for o in f.texts], bool)
    if text is not None and not text.any():
        text = None
    return Target(TYPE_INDEX[t], ptr, text, nl)


def _pointer_positives(f: Features, action: Action, box: tuple[float, float, float, float] | None) -> np.ndarray:
    w, h = f.size
    p = action.point  # type: ignore[attr-defined]
    px, py = p.x * w, p.y * h
    if box is not None:
        bx1, by1, bx2, by2 = box[0] * w, box[1] * h, box[2] * w, box[3] * h
    else:
        bx1, by1, bx2, by2 = px - 3, py - 3, px + 3, py + 3
    pos = []
    for c in f.cands:
        cx, cy = (c.box[0] + c.box[2]) / 2, (c.box[1] + c.box[3]) / 2
        inside_target = bx1 <= cx <= bx2 and by1 <= cy <= by2
        holds_point = c.box[0] - 2 <= px <= c.box[2] + 2 and c.box[1] - 2 <= py <= c.box[3] + 2
        pos.append(c.kind != "cell" and (inside_target or (holds_point and box is None)))
    out = np.array(pos, bool)
    if out.sum() > 1:
        # A row holds several lines (sender, subject, time): any click in it works, but the policy should learn to
        # point at the line that matches the task, not at the row's first line (which only works when the row
        # happens to be first).
        strong = (f.cand_x[:, 0:5].max(1) >= 0.8) | (f.cand_x[:, 5] >= 1.0)
        if (out & strong).any():
            out = out & strong
    if not out.any():  # nothing read there (an empty field, a picture): the coarse cell holding the point
        out = np.array([c.kind == "cell" and c.box[0] <= px < c.box[2] and c.box[1] <= py < c.box[3]
                        for c in f.cands], bool)  # fmt: skip
    return out


def _text_positives(f: Features, content: str, exact: bool) -> np.ndarray:
    want = norm(content)
    if not want:
        return np.zeros(len(f.texts), bool)
    same = np.array([norm(o.text) == want for o in f.texts], bool)
    if same.any() or exact:
        return same
    return np.array([o.source != "done" and containment(content, o.text) >= 0.9 and
                     len(norm(o.text)) <= 2 * len(want) for o in f.texts], bool)  # fmt: skip


def _done_positive(f: Features) -> np.ndarray:
    return np.array([o.source == "done" for o in f.texts], bool)
