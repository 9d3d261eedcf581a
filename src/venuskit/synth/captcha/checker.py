"""Pure checkers: `check(answer, state, log) -> CheckResult`, the rule picked by `answer["check"]`.

`answer` is the hidden answer a generator wrote; `state` is the widget's final state and `log` its
pointer log as the page posted them (already validated by `widgets.validate_submission`). Every rule
returns pass/fail and a partial score in [0, 1] for step-level RL: the fraction of ordered clicks
right, set Jaccard, 1 - normalised distance, 1 - normalised edit distance.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Callable, Sequence
from typing import Any

from venuskit.synth.captcha.spec import CheckResult

State = dict[str, Any]
Log = list[dict[str, Any]]
Rule = Callable[[dict[str, Any], State, Log], CheckResult]
_RULES: dict[str, Rule] = {}


def rule(name: str) -> Callable[[Rule], Rule]:
    def deco(fn: Rule) -> Rule:
        _RULES[name] = fn
        return fn

    return deco


def check(answer: dict[str, Any], state: State, log: Log) -> CheckResult:
    """The verdict for one submission (a pure function of its three arguments)."""
    fn = _RULES.get(answer.get("check", ""))
    if fn is None:
        raise ValueError(f"The answer names an unknown check rule {answer.get('check')!r}.")
    return fn(answer, state, log)


def rules() -> list[str]:
    return sorted(_RULES)


# ---- helpers -----------------------------------------------------------------------------------------


def inside(p: Sequence[float], box: Sequence[float]) -> bool:
    return box[0] <= p[0] <= box[2] and box[1] <= p[1] <= box[3]


def box_dist(p: Sequence[float], box: Sequence[float]) -> float:
    """Distance from a point to a box (0 inside)."""
    dx = max(box[0] - p[0], 0.0, p[0] - box[2])
    dy = max(box[1] - p[1], 0.0, p[1] - box[3])
    return math.hypot(dx, dy)


def _diag(answer: dict[str, Any]) -> float:
    w, h = answer.get("size", (320, 200))
    return math.hypot(w, h)


def _closeness(d: float, scale: float) -> float:
    return max(0.0, 1.0 - d / scale) if scale > 0 else 0.0


# Greek and Cyrillic letters drawn exactly like Latin ones: typing either spelling is right.
_HOMOGLYPHS = str.maketrans("АВЕКМНОРСТХУаеорсхуΑΒΕΖΗΙΚΜΝΟΡΤΥΧ", "ABEKMHOPCTXYaeopcxyABEZHIKMNOPTYX")


def normalise_text(s: str, case: bool) -> str:
    s = unicodedata.normalize("NFKC", s).translate(_HOMOGLYPHS)
    s = "".join(s.split())
    return s if case else s.casefold()


def edit_distance(a: str, b: str) -> int:
    prev = list(range(len(b) + 1))
    for i, ca in enumerate(a, 1):
        cur = [i]
        for j, cb in enumerate(b, 1):
            cur.append(min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (ca != cb)))
        prev = cur
    return prev[-1]


def _verdict(passed: bool, partial: float, why_not: str) -> CheckResult:
    partial = 1.0 if passed else min(max(partial, 0.0), 0.999)
    return CheckResult(passed, partial, "" if passed else why_not)


# ---- typing ------------------------------------------------------------------------------------------


@rule("text")
def _text(answer: dict[str, Any], state: State, log: Log) -> CheckResult:
    case = bool(answer.get("case"))
    got = normalise_text(state.get("text", ""), case)
    wanted = [normalise_text(t, case) for t in [answer["text"], *answer.get("alts", [])]]
    best = min(wanted, key=lambda w: edit_distance(got, w))
    partial = 1 - edit_distance(got, best) / max(len(best), len(got), 1)
    return _verdict(got in wanted, partial, "the typed text does not match")


@rule("int")
def _int(answer: dict[str, Any], state: State, log: Log) -> CheckResult:
    text = normalise_text(state.get("text", ""), False).lstrip("+")
    ok = text.lstrip("-").isdigit() and len(text) <= 12 and int(text) == answer["value"]
    return _verdict(ok, 0.0, "the typed number is wrong")


# ---- pointing ----------------------------------------------------------------------------------------


def _one_click(state: State) -> tuple[list[float] | None, str]:
    pts = state.get("points", [])
    if len(pts) != 1:
        return None, f"expected exactly one click, got {len(pts)}"
    return pts[0], ""


@rule("point")
def _point(answer: dict[str, Any], state: State, log: Log) -> CheckResult:
    p, why = _one_click(state)
    if p is None:
        return _verdict(False, 0.0, why)
    d = min(box_dist(p, b) for b in answer["boxes"])
    return _verdict(d == 0, _closeness(d, _diag(answer) / 2), "the click missed the target")


@rule("point_near")
def _point_near(answer: dict[str, Any], state: State, log: Log) -> CheckResult:
    p, why = _one_click(state)
    if p is None:
        return _verdict(False, 0.0, why)
    d = math.dist(p, answer["point"])
    return _verdict(d <= answer["tol"], _closeness(d, _diag(answer) / 2), "the click is too far from the target")


def mask_hit(answer: dict[str, Any], p: Sequence[float]) -> bool:
    cell, rows = answer["cell"], answer["rows"]
    r, c = int(p[1] // cell), int(p[0] // cell)
    return 0 <= r < len(rows) and 0 <= c < len(rows[r]) and rows[r][c] == "1"


@rule("point_mask")
def _point_mask(answer: dict[str, Any], state: State, log: Log) -> CheckResult:
    p, why = _one_click(state)
    if p is None:
        return _verdict(False, 0.0, why)
    d = box_dist(p, answer["box"])
    return _verdict(mask_hit(answer, p), _closeness(d, _diag(answer) / 2), "the click is not on the target")


@rule("point_avoid")
def _point_avoid(answer: dict[str, Any], state: State, log: Log) -> CheckResult:
    p, why = _one_click(state)
    if p is None:
        return _verdict(False, 0.0, why)
    ok = inside(p, answer["area"]) and not any(inside(p, b) for b in answer["avoid"])
    return _verdict(ok, 0.0, "the click landed on the forbidden object or outside the picture")


def _match_count(points: Sequence[Sequence[float]], boxes: Sequence[Sequence[float]]) -> int:
    """Size of a maximum matching of clicks to boxes (each click counts for one box at most)."""
    match: dict[int, int] = {}

    def augment(i: int, seen: set[int]) -> bool:
        for j, b in enumerate(boxes):
            if j in seen or not inside(points[i], b):
                continue
            seen.add(j)
            if j not in match or augment(match[j], seen):
                match[j] = i
                return True
        return False

    return sum(augment(i, set()) for i in range(len(points)))


@rule("points_set")
def _points_set(answer: dict[str, Any], state: State, log: Log) -> CheckResult:
    pts, boxes = state.get("points", []), answer["boxes"]
    m = _match_count(pts, boxes)
    jac = m / (len(boxes) + len(pts) - m) if (boxes or pts) else 1.0
    return _verdict(m == len(boxes) == len(pts), jac, f"{m} of {len(boxes)} targets hit with {len(pts)} clicks")


@rule("points_ordered")
def _points_ordered(answer: dict[str, Any], state: State, log: Log) -> CheckResult:
    pts, boxes = state.get("points", []), answer["boxes"]
    right = sum(1 for p, b in zip(pts, boxes, strict=False) if inside(p, b))
    frac = right / max(len(boxes), len(pts), 1)
    return _verdict(right == len(boxes) == len(pts), frac, f"{right} of {len(boxes)} clicks in the right order")


@rule("dbl")
def _dbl(answer: dict[str, Any], state: State, log: Log) -> CheckResult:
    dbl = state.get("dbl", [])
    hits = [p for p in dbl if any(inside(p, b) for b in answer["boxes"])]
    ok = len(dbl) == 1 and len(hits) == 1
    partial = 0.5 if hits else (0.25 if state.get("points") else 0.0)
    return _verdict(ok, partial, "expected one double-click on the target")


# ---- selections, values, pieces, orders ----------------------------------------------------------------


@rule("cells")
def _cells(answer: dict[str, Any], state: State, log: Log) -> CheckResult:
    sel, req, opt = set(state.get("selected", [])), set(answer["required"]), set(answer.get("optional", []))
    ok = req <= sel <= req | opt
    counted = sel - opt
    jac = len(counted & req) / len(counted | req) if counted | req else 1.0
    return _verdict(ok, jac, f"selected {sorted(sel)}; {len(req - sel)} missing, {len(sel - req - opt)} wrong")


@rule("value")
def _value(answer: dict[str, Any], state: State, log: Log) -> CheckResult:
    v, t, period = float(state.get("value", 0)), answer["target"], answer.get("period")
    err = abs(v - t)
    if period:
        err = min(err % period, period - err % period)
    if answer.get("at_least"):
        err = max(0.0, t - v)
    span = answer.get("range") or period or 300
    return _verdict(err <= answer["tol"], _closeness(err, span), f"off by {err:.1f} px")


@rule("pieces")
def _pieces(answer: dict[str, Any], state: State, log: Log) -> CheckResult:
    pieces, boxes = state.get("pieces", []), answer["boxes"]
    if len(pieces) != len(boxes):
        return _verdict(False, 0.0, f"expected {len(boxes)} pieces, got {len(pieces)}")
    scores = [
        1.0 if b is None or inside(p, b) else _closeness(box_dist(p, b), _diag(answer) / 2)
        for p, b in zip(pieces, boxes, strict=False)
    ]
    placed = sum(s == 1.0 for s in scores)
    return _verdict(placed == len(boxes), sum(scores) / len(scores), f"{placed} of {len(boxes)} pieces placed")


@rule("order")
def _order(answer: dict[str, Any], state: State, log: Log) -> CheckResult:
    order = list(state.get("order", []))
    accept = answer["accept"]
    best = max((sum(a == b for a, b in zip(order, acc, strict=False)) / len(acc) for acc in accept), default=0.0)
    return _verdict(order in accept, best, "the tiles are not in a solved arrangement")


@rule("arrows")
def _arrows(answer: dict[str, Any], state: State, log: Log) -> CheckResult:
    if "pos" in answer:
        pos, goal = list(state.get("pos", [])), answer["pos"]
        dist = abs(pos[0] - goal[0]) + abs(pos[1] - goal[1]) if len(pos) == 2 else 99
        return _verdict(dist == 0, _closeness(dist, answer.get("span", 10)), f"stopped {dist} cells from the goal")
    v, t, n = int(state.get("value", 0)), answer["value"], answer.get("period")
    ok = (v - t) % n == 0 if n else v == t
    return _verdict(ok, 0.0, "the control is not at the right setting")


@rule("hold")
def _hold(answer: dict[str, Any], state: State, log: Log) -> CheckResult:
    held = float(state.get("held_ms", 0))
    ok = answer["min_ms"] <= held <= answer["max_ms"] and state.get("presses", 0) >= 1
    why = f"held {held:.0f} ms; needed {answer['min_ms']}-{answer['max_ms']} ms"
    return _verdict(ok, min(held / answer["min_ms"], 0.9) if held < answer["min_ms"] else 0.5, why)


@rule("robot")
def _robot(answer: dict[str, Any], state: State, log: Log) -> CheckResult:
    return _verdict(state.get("robot") is True, 0.0, "the 'I'm not a robot' box is not ticked")


@rule("all")
def _all(answer: dict[str, Any], state: State, log: Log) -> CheckResult:
    parts = [check(a, state, log) for a in answer["parts"]]
    reasons = "; ".join(p.reason for p in parts if not p.passed)
    return _verdict(all(p.passed for p in parts), sum(p.partial for p in parts) / len(parts), reasons)


# ---- strokes -------------------------------------------------------------------------------------------


def chained(segments: Sequence[Sequence[float]], tol: float) -> bool:
    """Each stroke starts where the previous one ended (within tol px)."""
    return all(math.dist(a[2:4], b[0:2]) <= tol for a, b in zip(segments, segments[1:], strict=False))


def sample(points: Sequence[Sequence[float]], step: float = 3.0) -> list[tuple[float, float]]:
    out: list[tuple[float, float]] = []
    for (x1, y1), (x2, y2) in zip(points, points[1:], strict=False):
        n = max(1, int(math.dist((x1, y1), (x2, y2)) / step))
        out += [(x1 + (x2 - x1) * i / n, y1 + (y2 - y1) * i / n) for i in range(n)]
    if points:
        out.append((float(points[-1][0]), float(points[-1][1])))
    return out


def polyline(segments: Sequence[Sequence[float]]) -> list[tuple[float, float]]:
    if not segments:
        return []
    return [(segments[0][0], segments[0][1])] + [(s[2], s[3]) for s in segments]


def hausdorff(a: Sequence[tuple[float, float]], b: Sequence[tuple[float, float]]) -> float:
    if not a or not b:
        return math.inf

    def one_way(p: Sequence[tuple[float, float]], q: Sequence[tuple[float, float]]) -> float:
        return max(min(math.dist(x, y) for y in q) for x in p)

    return max(one_way(a, b), one_way(b, a))


@rule("gesture")
def _gesture(answer: dict[str, Any], state: State, log: Log) -> CheckResult:
    segs = state.get("segments", [])
    drawn = sample(polyline(segs), 4.0)
    template = sample(answer["points"], 4.0)
    d = hausdorff(drawn, template)
    ok = bool(segs) and chained(segs, answer["tol"]) and d <= answer["tol"]
    return _verdict(ok, _closeness(d, 4 * answer["tol"]) if segs else 0.0, f"the trace is {d:.0f} px off the shape")


@rule("pairs")
def _pairs(answer: dict[str, Any], state: State, log: Log) -> CheckResult:
    segs = state.get("segments", [])
    if len(segs) != len(answer["pairs"]):
        return _verdict(False, 0.0, f"expected {len(answer['pairs'])} line(s), got {len(segs)}")
    linked = 0
    for a, b in answer["pairs"]:
        ends = [(s[0:2], s[2:4]) for s in segs]
        if any((inside(p, a) and inside(q, b)) or (inside(p, b) and inside(q, a)) for p, q in ends):
            linked += 1
    return _verdict(linked == len(answer["pairs"]), linked / len(answer["pairs"]), "the line joins the wrong icons")


@rule("maze")
def _maze(answer: dict[str, Any], state: State, log: Log) -> CheckResult:
    segs = state.get("segments", [])
    cells = _maze_cells(answer, sample(polyline(segs), 2.0))
    on_path = {tuple(c) for c in answer["path"]}
    progress = len({c for c in (cells or []) if c in on_path}) / len(on_path)
    if not segs or cells is None:
        return _verdict(False, progress * 0.5, "the line leaves the corridors or crosses a wall")
    ok = chained(segs, answer["tol"]) and cells[0] == tuple(answer["start"]) and cells[-1] == tuple(answer["goal"])
    return _verdict(ok, progress, "the line does not join the start to the goal")


def _maze_cells(answer: dict[str, Any], pts: list[tuple[float, float]]) -> list[tuple[int, int]] | None:
    """The cells a sampled line visits, or None if it leaves the maze or crosses a wall."""
    cell, rows, cols = answer["cell"], answer["rows"], answer["cols"]
    x0, y0 = answer["origin"]
    opened = {(tuple(a), tuple(b)) for a, b in answer["open"]}
    out: list[tuple[int, int]] = []
    for x, y in pts:
        r, c = int((y - y0) // cell), int((x - x0) // cell)
        if not (0 <= r < rows and 0 <= c < cols):
            return None
        if out and out[-1] != (r, c):
            prev = out[-1]
            if abs(prev[0] - r) + abs(prev[1] - c) != 1 or (
                (prev, (r, c)) not in opened and ((r, c), prev) not in opened
            ):
                return None
        if not out or out[-1] != (r, c):
            out.append((r, c))
    return out
