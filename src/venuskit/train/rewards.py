"""Rule rewards for step-level GUI RL: pure, batched functions with the TRL reward signature.

Every public `*_reward` function is `f(completions, **columns) -> list[float | None]`: `completions` is the batch of
model replies (strings, or TRL's conversational `[{"role": "assistant", "content": ...}]`), and each keyword is a
dataset column with one value per completion (TRL passes every extra column, repeated per generation). A sample
that cannot be scored (no ground truth for this reward) gets None, which TRL leaves out of the group baseline.

Ground truth comes from the step-level RL rows of `venuskit.train.data`:
    surface     "mobile" | "browser" | "computer" | "captcha" | "grounding"
    gt_actions  JSON list of `Action.to_dict()` (one action per step; a CAPTCHA answer is several)
    gt_boxes    JSON list, one entry per gt action: a normalised [x1, y1, x2, y2] target box, or null

The navigation reward (GUI-R1 / UI-R1 shape, parameters gated on the type, reference/training.md §3):
    r = w_f·R_format + R_type·(w_t + w_p·R_param)
is the weighted sum of `format_reward` (w_f, keep it small: a format reward gets hacked on untuned bases),
`action_type_reward` (w_t) and `action_param_reward` (w_p, already multiplied by R_type). `navigation_rewards()`
returns the three functions with their weights for GRPOTrainer(reward_funcs=..., reward_weights=...).
Replies are parsed with `venuskit.actions.grammar.parse_response` only (ast, never eval).
"""

from __future__ import annotations

import json
import math
import re
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Literal

from venuskit.actions.grammar import ActionParseError, Response, parse_response
from venuskit.actions.grounding import parse_grounding
from venuskit.actions.types import (
    KEY_ACTIONS,
    POINTER_ACTIONS,
    TEXT_ACTIONS,
    Action,
    ActionError,
    Point,
    action_from_dict,
)

Box = tuple[float, float, float, float]
Verdict = Literal["correct", "params_wrong", "type_wrong"]
RewardFunc = Callable[..., list["float | None"]]

_KEY_ALIASES = {
    "control": "ctrl",
    "command": "cmd",
    "meta": "cmd",
    "win": "cmd",
    "super": "cmd",
    "escape": "esc",
    "return": "enter",
    "del": "delete",
    "option": "alt",
}


@dataclass(frozen=True)
class RewardOptions:
    """Tolerances of the parameter checks. Distances are in normalised screenshot units ([0, 1] per axis)."""

    point_tol: float = 0.05  # a point counts as a hit within this distance of the gt point when no box is given
    endpoint_tol: float = 0.1  # Drag / Swipe endpoints within this distance of the gt endpoints
    swipe_mode: Literal["direction", "endpoints"] = "direction"  # Swipe: same dominant direction, or endpoints
    text_f1: float = 0.5  # τ: Type/Finished/CallUser/Answer/TakeNote/LaunchApp content needs token-F1 >= τ
    shaping: Literal["none", "gaussian"] = "none"  # pointer miss: 0, or 0.5·exp(-d²/2σ²) with d = distance to box
    sigma: float = 0.05
    require_think: bool = True  # format: navigation replies need <think>…</think> before <action>

    def __post_init__(self) -> None:
        for name in ("point_tol", "endpoint_tol", "sigma"):
            if not getattr(self, name) > 0:
                raise ValueError(f"RewardOptions.{name} must be positive, got {getattr(self, name)!r}.")
        if not 0.0 <= self.text_f1 <= 1.0:
            raise ValueError(f"RewardOptions.text_f1 is a threshold in [0, 1], got {self.text_f1!r}.")


DEFAULT_OPTIONS = RewardOptions()


# ---- reading completions and ground truth ---------------------------------------------------------


def completion_text(completion: Any) -> str:
    """The reply text of one completion: a string, or TRL's list of assistant messages (content str or parts)."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, dict):
        completion = [completion]
    parts: list[str] = []
    for message in completion or []:
        content = message.get("content", "") if isinstance(message, dict) else message
        if isinstance(content, str):
            parts.append(content)
        else:
            parts.extend(p.get("text", "") for p in content if isinstance(p, dict) and p.get("type") == "text")
    return "".join(parts)


def _load(value: Any) -> Any:
    return json.loads(value) if isinstance(value, (str, bytes)) else value


def gt_actions_of(value: Any) -> list[Action] | None:
    """The ground-truth actions of one row (JSON list of action dicts, or Actions), or None when absent."""
    value = _load(value)
    if value is None:
        return None
    items = value if isinstance(value, list) else [value]
    return [a if isinstance(a, Action) else action_from_dict(a) for a in items] or None


def gt_boxes_of(value: Any, n: int) -> list[Box | None]:
    """`n` target boxes (normalised x1, y1, x2, y2) or None each; a box with negative corners means none."""
    value = _load(value)
    if value is None:
        return [None] * n
    if value and not isinstance(value[0], (list, tuple, type(None))):
        value = [value]  # a single box given for a single action
    boxes = [_as_box(b) for b in value]
    return (boxes + [None] * n)[:n]


def _as_box(b: Any) -> Box | None:
    if b is None or len(b) != 4 or min(b) < 0:
        return None
    x1, y1, x2, y2 = (float(v) for v in b)
    return (min(x1, x2), min(y1, y2), max(x1, x2), max(y1, y2))


def parse_reply(text: str, surface: str) -> Response | None:
    """The parsed reply (actions and their character spans), or None when it does not parse or validate."""
    try:
        return parse_response(text, surface)
    except (ActionParseError, ActionError):
        return None


def parse_actions(text: str, surface: str) -> list[Action] | None:
    """The actions of a reply, or None when it does not parse or validate for `surface`."""
    response = parse_reply(text, surface)
    return list(response.actions) if response is not None and response.actions else None


# ---- geometry and text ----------------------------------------------------------------------------


def in_box(p: Point | None, box: Box) -> bool:
    return p is not None and box[0] <= p.x <= box[2] and box[1] <= p.y <= box[3]


def dist(p: Point, q: Point) -> float:
    return math.hypot(p.x - q.x, p.y - q.y)


def dist_to_box(p: Point, box: Box) -> float:
    dx = max(box[0] - p.x, 0.0, p.x - box[2])
    dy = max(box[1] - p.y, 0.0, p.y - box[3])
    return math.hypot(dx, dy)


def direction_of(start: Point, end: Point) -> str | None:
    """The dominant direction of a start→end movement (finger direction), None for no movement."""
    dx, dy = end.x - start.x, end.y - start.y
    if dx == 0 and dy == 0:
        return None
    if abs(dx) >= abs(dy):
        return "right" if dx > 0 else "left"
    return "down" if dy > 0 else "up"


def token_f1(pred: str, gt: str) -> float:
    """F1 = 2PR/(P+R) over lower-cased word tokens (multisets). Both empty → 1.
    When both sides are a single token (a name, a CJK phrase without spaces) the F1 is taken over characters
    instead, so "a" vs "apple" scores low rather than passing a substring test."""
    p, g = re.findall(r"\w+", pred.lower()), re.findall(r"\w+", gt.lower())
    if not p and not g:
        return 1.0
    if len(p) <= 1 and len(g) <= 1:
        p, g = list("".join(p)), list("".join(g))
    common = sum((Counter(p) & Counter(g)).values())
    if common == 0:
        return 0.0
    precision, recall = common / len(p), common / len(g)
    return 2 * precision * recall / (precision + recall)


def _keys(keys: Sequence[str]) -> frozenset[str]:
    return frozenset(_KEY_ALIASES.get(k.strip().lower(), k.strip().lower()) for k in keys)


# ---- one action against its ground truth ----------------------------------------------------------


def param_score(pred: Action, gt: Action, box: Box | None, opts: RewardOptions = DEFAULT_OPTIONS) -> float:
    """R_param in [0, 1] for a prediction whose type equals the gt type (1 = parameters right).

    pointer    1[p ∈ box] (box given), else 1[‖p − p_gt‖ ≤ point_tol]; a miss scores 0.5·exp(−d²/2σ²) with
               shaping="gaussian" (d = distance to the box or gt point), so a hit always beats a near miss
    Drag       end ∈ box (box given) or ‖end − end_gt‖ ≤ endpoint_tol; and start within tolerance when both have one
    Swipe      same dominant direction (swipe_mode="direction") or both endpoints within endpoint_tol
    Scroll     same direction
    text       token-F1(content, content_gt) ≥ τ;  Launch: same URL (case and trailing "/" ignored)
    keys       same key set (aliases folded) and same repeat;  SelectOption: same index
    Sequence   fraction of children right: Σ_i 1[child_i right] / max(|pred|, |gt|)
    others     1 (Wait, PressBack, … carry no parameters that matter)
    """
    name = gt.name
    if name in POINTER_ACTIONS:
        return _pointer_score(pred.point, gt.point, box, opts)
    if name == "Drag":
        return float(_drag_hit(pred, gt, box, opts))
    if name == "Swipe":
        return float(_swipe_hit(pred, gt, opts))
    if name == "Scroll":
        return float(pred.direction == gt.direction)  # type: ignore[attr-defined]
    if name in TEXT_ACTIONS:
        field = "app" if name == "LaunchApp" else "content"
        return float(token_f1(getattr(pred, field), getattr(gt, field)) >= opts.text_f1)
    if name == "Launch":
        return float(_url(pred.url) == _url(gt.url))  # type: ignore[attr-defined]
    if name in KEY_ACTIONS:
        same = _keys(pred.keys) == _keys(gt.keys)  # type: ignore[attr-defined]
        return float(same and getattr(pred, "repeat", 1) == getattr(gt, "repeat", 1))
    if name == "SelectOption":
        return float(pred.index == gt.index)  # type: ignore[attr-defined]
    if name == "Sequence":
        return sequence_score(list(pred.actions), list(gt.actions), [None] * len(gt.actions), opts)  # type: ignore[attr-defined]
    return 1.0


def _pointer_score(p: Point | None, g: Point | None, box: Box | None, opts: RewardOptions) -> float:
    if p is None or (box is None and g is None):
        return float(p is None and g is None and box is None)  # "at the cursor" is right only if the gt says so
    if box is not None:
        d, hit = dist_to_box(p, box), in_box(p, box)
    else:
        d = dist(p, g)  # type: ignore[arg-type]
        hit = d <= opts.point_tol
    if hit:
        return 1.0
    return 0.5 * math.exp(-(d**2) / (2 * opts.sigma**2)) if opts.shaping == "gaussian" else 0.0


def _drag_hit(pred: Any, gt: Any, box: Box | None, opts: RewardOptions) -> bool:
    end_ok = in_box(pred.end, box) if box is not None else dist(pred.end, gt.end) <= opts.endpoint_tol
    if pred.start is None or gt.start is None:
        return end_ok and pred.start is None and gt.start is None
    return end_ok and dist(pred.start, gt.start) <= opts.endpoint_tol


def _swipe_hit(pred: Any, gt: Any, opts: RewardOptions) -> bool:
    if opts.swipe_mode == "direction":
        return direction_of(pred.start, pred.end) == direction_of(gt.start, gt.end)
    return dist(pred.start, gt.start) <= opts.endpoint_tol and dist(pred.end, gt.end) <= opts.endpoint_tol


def _url(u: str) -> str:
    return u.strip().lower().rstrip("/")


def action_verdict(pred: Action | None, gt: Action, box: Box | None, opts: RewardOptions = DEFAULT_OPTIONS) -> Verdict:
    """correct (type and parameters right), params_wrong (type right) or type_wrong (including no action)."""
    if pred is None or pred.name != gt.name:
        return "type_wrong"
    return "correct" if param_score(pred, gt, box, opts) >= 1.0 else "params_wrong"


def judge(
    pred: Sequence[Action] | None,
    gt: Sequence[Action],
    boxes: Sequence[Box | None],
    opts: RewardOptions = DEFAULT_OPTIONS,
) -> list[Verdict]:
    """One verdict per predicted action, position by position (a predicted action beyond the gt is type_wrong).
    None (unparsable) gives an empty list; callers treat that as its own case."""
    if pred is None:
        return []
    return [action_verdict(p, gt[i], boxes[i], opts) if i < len(gt) else "type_wrong" for i, p in enumerate(pred)]


def sequence_score(
    pred: Sequence[Action], gt: Sequence[Action], boxes: Sequence[Box | None], opts: RewardOptions = DEFAULT_OPTIONS
) -> float:
    """Fraction of positions right: Σ_i 1[pred_i correct] / max(|pred|, |gt|), so extra or missing actions cost."""
    verdicts = judge(pred, gt, boxes, opts)
    return sum(v == "correct" for v in verdicts) / max(len(pred), len(gt), 1)


# ---- TRL reward functions: navigation -------------------------------------------------------------

_THINK_ACTION = re.compile(r"^\s*<think>.*?</think>\s*<action>.*?</action>\s*$", re.S)
_ACTION_ONLY = re.compile(r"^\s*(<think>.*?</think>\s*)?<action>.*?</action>\s*$", re.S)


def _surfaces(surface: Any, n: int) -> list[str]:
    if surface is None:
        raise ValueError("The reward functions need a `surface` column (mobile, browser, computer, captcha).")
    return [surface] * n if isinstance(surface, str) else list(surface)


def _column(value: Any, n: int) -> list[Any]:
    """A dataset column as TRL passes it (one value per completion), or one value meant for every completion."""
    return value if isinstance(value, list) else [value] * n


def _nav_rows(
    completions: list[Any], gt_actions: Any, gt_boxes: Any, surface: Any
) -> Iterator[tuple[str, list[Action] | None, Any, str]]:
    """Per completion: (reply text, its gt actions or None, its raw gt boxes, its surface)."""
    n = len(completions)
    yield from zip(map(completion_text, completions), map(gt_actions_of, _column(gt_actions, n)),
                   _column(gt_boxes, n), _surfaces(surface, n), strict=True)  # fmt: skip


def format_reward(
    completions: list[Any], surface: Any = None, opts: RewardOptions = DEFAULT_OPTIONS, **_: Any
) -> list[float | None]:
    """R_format = 1[reply is `<think>…</think><action>…</action>` (think optional if not opts.require_think)
    and the action parses and validates for the row's surface], else 0."""
    pattern = _THINK_ACTION if opts.require_think else _ACTION_ONLY
    out: list[float | None] = []
    for text, surf in zip(map(completion_text, completions), _surfaces(surface, len(completions)), strict=True):
        out.append(float(bool(pattern.match(text)) and parse_actions(text, surf) is not None))
    return out


def action_type_reward(
    completions: list[Any], gt_actions: Any = None, surface: Any = None, **_: Any
) -> list[float | None]:
    """R_type = 1[the predicted action types equal the gt types, in order] (None when the row has no gt)."""
    out: list[float | None] = []
    for text, gt, _, surf in _nav_rows(completions, gt_actions, None, surface):
        if gt is None:
            out.append(None)
            continue
        pred = parse_actions(text, surf)
        out.append(float(pred is not None and [a.name for a in pred] == [a.name for a in gt]))
    return out


def action_param_reward(
    completions: list[Any],
    gt_actions: Any = None,
    gt_boxes: Any = None,
    surface: Any = None,
    opts: RewardOptions = DEFAULT_OPTIONS,
    **_: Any,
) -> list[float | None]:
    """R_type·R_param: the parameter score (see `param_score`) only when every type is right, else 0.
    Several actions (a CAPTCHA answer) score the mean of their parameter scores."""
    out: list[float | None] = []
    for text, gt, box_raw, surf in _nav_rows(completions, gt_actions, gt_boxes, surface):
        if gt is None:
            out.append(None)
            continue
        pred = parse_actions(text, surf)
        if pred is None or [a.name for a in pred] != [a.name for a in gt]:
            out.append(0.0)
            continue
        boxes = gt_boxes_of(box_raw, len(gt))
        out.append(sum(param_score(p, g, b, opts) for p, g, b in zip(pred, gt, boxes, strict=True)) / len(gt))
    return out


def captcha_reward(
    completions: list[Any],
    gt_actions: Any = None,
    gt_boxes: Any = None,
    surface: Any = "captcha",
    mode: Literal["fraction", "all"] = "fraction",
    opts: RewardOptions = DEFAULT_OPTIONS,
    **_: Any,
) -> list[float | None]:
    """CAPTCHA answers are one comma-separated action sequence. fraction: Σ_i 1[a_i right] / max(|pred|, |gt|);
    all: 1 iff every action is right and the lengths match. Unparsable → 0."""
    out: list[float | None] = []
    for text, gt, box_raw, surf in _nav_rows(completions, gt_actions, gt_boxes, surface):
        if gt is None:
            out.append(None)
            continue
        pred = parse_actions(text, surf) or []
        frac = sequence_score(pred, gt, gt_boxes_of(box_raw, len(gt)), opts)
        out.append(frac if mode == "fraction" else float(frac == 1.0))
    return out


# ---- grounding (no-think): "[x,y]" or "[x1,y1,x2,y2]" on the 0-1000 grid, read by actions.parse_grounding --


def _gt_box(value: Any) -> tuple[bool, Box | None]:
    """(has ground truth, box): a box of -1s (or null inside a list) marks a negative sample (answer: refuse)."""
    value = _load(value)
    if value is None:
        return False, None
    if value and isinstance(value[0], (list, tuple)):
        value = value[0]
    return True, _as_box(value) if value is not None else None


def grounding_reward(completions: list[Any], gt_boxes: Any = None, **_: Any) -> list[float | None]:
    """R = 1[predicted point (or box centre) ∈ gt box]; on a negative sample (gt box all −1) R = 1[refused].
    No ground truth → None. The reply must be exactly the point/box (no-think mode), anything else scores 0."""
    out: list[float | None] = []
    boxes_col = _column(gt_boxes, len(completions))
    for text, raw in zip(map(completion_text, completions), boxes_col, strict=True):
        has_gt, box = _gt_box(raw)
        ans = parse_grounding(text, strict=True)
        if not has_gt:
            out.append(None)
        elif ans is None:
            out.append(0.0)
        else:
            out.append(float(ans.refused) if box is None else float(in_box(ans.point, box)))
    return out


def iou(a: Box, b: Box) -> float:
    ix = max(0.0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0.0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    union = (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter
    return inter / union if union > 0 else 0.0


def box_size_term(pred: Box, gt: Box) -> float:
    """GUI-G1's box-size constraint: 4 / Σ_k 1/c_k with c_k = 1 − |gt_k − pred_k| (normalised, so W = H = 1);
    the harmonic mean of per-side closeness, 1 only when every side matches."""
    closeness = [1.0 - abs(g - p) for g, p in zip(gt, pred, strict=True)]
    if min(closeness) <= 0:
        return 0.0
    return 4.0 / sum(1.0 / c for c in closeness)


def gui_g1_reward(completions: list[Any], gt_boxes: Any = None, **_: Any) -> list[float | None]:
    """GUI-G1 for predicted boxes: R = 1[centre ∈ gt] + 0.25·IoU + 0.125·box_size_term. The hit term alone
    rewards shrinking boxes and IoU alone rewards growing them; the size term pins the box to the target.
    A point answer gets only the hit term; no ground truth or a negative sample → None."""
    out: list[float | None] = []
    boxes_col = _column(gt_boxes, len(completions))
    for text, raw in zip(map(completion_text, completions), boxes_col, strict=True):
        _, gt = _gt_box(raw)
        ans = parse_grounding(text, strict=True)
        if gt is None:
            out.append(None)
        elif ans is None or ans.point is None:
            out.append(0.0)
        else:
            hit = float(in_box(ans.point, gt))
            extra = 0.25 * iou(ans.box, gt) + 0.125 * box_size_term(ans.box, gt) if ans.box else 0.0
            out.append(hit + extra)
    return out


def grounding_format_reward(completions: list[Any], **_: Any) -> list[float | None]:
    """1 when the reply is exactly one point or box in the grounding format (no think, no prose), else 0."""
    return [float(parse_grounding(completion_text(c), strict=True) is not None) for c in completions]


# ---- reward sets per domain -----------------------------------------------------------------------


@dataclass(frozen=True)
class RewardWeights:
    """w_f, w_t, w_p of r = w_f·R_format + R_type·(w_t + w_p·R_param)."""

    format: float = 0.1
    type: float = 0.3
    param: float = 0.6


def domain_rewards(
    domain: str, weights: RewardWeights = RewardWeights(), opts: RewardOptions = DEFAULT_OPTIONS
) -> tuple[list[RewardFunc], list[float]]:
    """(reward_funcs, reward_weights) for GRPOTrainer for one domain: grounding, captcha, or a navigation
    domain (mobile, web, computer). The functions close over `opts` and carry readable __name__s for TRL logs."""
    if domain == "grounding":
        return [_named(grounding_format_reward, "format"), _named(grounding_reward, "point_in_box")], [
            weights.format,
            1.0 - weights.format,
        ]
    if domain == "captcha":
        captcha = _named(lambda c, **kw: captcha_reward(c, opts=opts, **kw), "captcha_fraction")
        fmt = _named(lambda c, **kw: format_reward(c, opts=opts, **kw), "format")
        return [fmt, captcha], [weights.format, 1.0 - weights.format]
    if domain in NAVIGATION_DOMAINS:
        fmt = _named(lambda c, **kw: format_reward(c, opts=opts, **kw), "format")
        param = _named(lambda c, **kw: action_param_reward(c, opts=opts, **kw), "action_param")
        return [fmt, _named(action_type_reward, "action_type"), param], [weights.format, weights.type, weights.param]
    raise ValueError(f"Unknown domain {domain!r}; expected one of {sorted(DOMAINS)}.")


NAVIGATION_DOMAINS = frozenset({"mobile", "web", "computer"})
DOMAINS = NAVIGATION_DOMAINS | {"grounding", "captcha"}


def _named(fn: Callable[..., list[float | None]], name: str) -> RewardFunc:
    def wrapped(completions: list[Any], **kw: Any) -> list[float | None]:
        return fn(completions, **kw)

    wrapped.__name__ = wrapped.__qualname__ = name
    return wrapped
