"""Oracle solvers: venuskit actions derived from the server-side answer and the measured layout,
executed through the real browser env. A type its own oracle cannot pass is broken.

    with CaptchaServer() as srv, BrowserEnv(cfg) as env:
        attempt = solve(env, srv, "slider_jigsaw", seed=3)
        attempt.result.passed
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from venuskit.actions.types import Action, Click, DoubleClick, Drag, LongPress, Type
from venuskit.synth.captcha.harness import Layout, measure_layout, open_instance, submit
from venuskit.synth.captcha.page import HANDLE_W
from venuskit.synth.captcha.server import CaptchaServer
from venuskit.synth.captcha.spec import CheckResult, Instance

Answer = dict[str, Any]
Plan = Callable[[Answer, Instance, Layout], list[Action]]
_PLANS: dict[str, Plan] = {}


def _plan(*names: str) -> Callable[[Plan], Plan]:
    def deco(fn: Plan) -> Plan:
        for n in names:
            _PLANS[n] = fn
        return fn

    return deco


def plan(instance: Instance, layout: Layout) -> list[Action]:
    """The actions that solve `instance` on a page laid out as `layout`."""
    answer = instance.answer
    return _PLANS[answer["check"]](answer, instance, layout)


def _center(box: Any) -> tuple[float, float]:
    return ((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)


def _click(layout: Layout, xy: Any, part: str = "image") -> Click:
    return Click(point=layout.point(part, *xy))


def _drags(layout: Layout, pts: Any, part: str = "image") -> list[Action]:
    return [Drag(start=layout.point(part, *a), end=layout.point(part, *b)) for a, b in zip(pts, pts[1:], strict=False)]


@_plan("text")
def _text(a: Answer, inst: Instance, lay: Layout) -> list[Action]:
    return [Click(point=lay.point("input")), Type(content=a["text"])]


@_plan("int")
def _int(a: Answer, inst: Instance, lay: Layout) -> list[Action]:
    return [Click(point=lay.point("input")), Type(content=str(a["value"]))]


@_plan("point", "point_mask", "point_avoid", "point_near")
def _point(a: Answer, inst: Instance, lay: Layout) -> list[Action]:
    hint = a.get("oracle", {})
    xy = hint.get("point") or a.get("point") or _center(a["boxes"][0])
    return [_click(lay, xy)]


@_plan("points_ordered", "points_set")
def _points(a: Answer, inst: Instance, lay: Layout) -> list[Action]:
    pts = a.get("oracle", {}).get("points") or [_center(b) for b in a["boxes"]]
    return [_click(lay, p) for p in pts]


@_plan("dbl")
def _dbl(a: Answer, inst: Instance, lay: Layout) -> list[Action]:
    return [DoubleClick(point=lay.point("image", *_center(a["boxes"][0])))]


@_plan("cells")
def _cells(a: Answer, inst: Instance, lay: Layout) -> list[Action]:
    return [Click(point=lay.point(f"cell-{i}")) for i in a["required"]]


@_plan("value")
def _value(a: Answer, inst: Instance, lay: Layout) -> list[Action]:
    top = inst.widget.params["track"] - HANDLE_W
    target = min(top, a["target"] + 3) if a.get("at_least") else a["target"]
    handle = lay.rect("handle")
    y = handle.h / 2
    return [Drag(start=lay.point("handle", HANDLE_W / 2, y), end=lay.point("handle", HANDLE_W / 2 + target, y))]


@_plan("pieces")
def _pieces(a: Answer, inst: Instance, lay: Layout) -> list[Action]:
    """Drag each piece that has a place (decoys have None) from its centre to its box's centre on the board."""
    return [
        Drag(start=lay.point(f"piece-{i}"), end=lay.point("board", *_center(box)))
        for i, box in enumerate(a["boxes"])
        if box is not None
    ]


@_plan("order")
def _order(a: Answer, inst: Instance, lay: Layout) -> list[Action]:
    target = a["accept"][0]
    cur = list(range(len(target)))
    out: list[Action] = []
    for slot, tile in enumerate(target):
        if cur[slot] == tile:
            continue
        src = cur.index(tile)
        out.append(Drag(start=lay.point(f"slot-{src}"), end=lay.point(f"slot-{slot}")))
        cur[src], cur[slot] = cur[slot], tile
    return out


@_plan("arrows")
def _arrows(a: Answer, inst: Instance, lay: Layout) -> list[Action]:
    return [Click(point=lay.point(f"btn-{op}")) for op in a["oracle"]["ops"]]


@_plan("hold")
def _hold(a: Answer, inst: Instance, lay: Layout) -> list[Action]:
    return [LongPress(point=lay.point("hold"), duration=round((a["min_ms"] + 600) / 1000, 2))]


@_plan("robot")
def _robot(a: Answer, inst: Instance, lay: Layout) -> list[Action]:
    return [Click(point=lay.point("robot"))]


@_plan("all")
def _all(a: Answer, inst: Instance, lay: Layout) -> list[Action]:
    return [act for part in a["parts"] for act in _PLANS[part["check"]](part, inst, lay)]


@_plan("gesture")
def _gesture(a: Answer, inst: Instance, lay: Layout) -> list[Action]:
    return _drags(lay, a["points"])


@_plan("maze")
def _maze(a: Answer, inst: Instance, lay: Layout) -> list[Action]:
    return _drags(lay, a["oracle"]["points"])


@_plan("pairs")
def _pairs(a: Answer, inst: Instance, lay: Layout) -> list[Action]:
    return [Drag(start=lay.point("image", *_center(p)), end=lay.point("image", *_center(q))) for p, q in a["pairs"]]


# ---- running it ----------------------------------------------------------------------------------------


@dataclass
class Attempt:
    """One oracle (or policy) attempt at one instance."""

    type: str
    seed: int
    result: CheckResult
    actions: list[Action] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    seconds: float = 0.0


def run_actions(env: Any, actions: list[Action]) -> list[str]:
    """Execute actions in order; returns the env errors (an error does not stop the sequence)."""
    return execute(env, actions)[1]


def execute(env: Any, actions: list[Action]) -> tuple[list[dict[str, Any] | None], list[str]]:
    """Execute actions in order: (what the env ran for each, the env errors). An error does not stop the sequence."""
    executed, errors = [], []
    for act in actions:
        res = env.step(act)
        executed.append(res.executed)
        if res.error is not None:
            errors.append(f"{act.name}: {res.error}")
    return executed, errors


def solve(env: Any, server: CaptchaServer, type_name: str, seed: int) -> Attempt:
    """Open (type, seed), plan from the hidden answer, act through the env, submit, return the verdict."""
    started = time.monotonic()
    issued, _ = open_instance(env, server, type_name, seed)
    layout = measure_layout(env.page)
    hidden = [
        n
        for n in layout.parts
        if n.startswith(("image", "input", "handle", "board", "hold", "btn-")) and not layout.visible(n)
    ]
    actions = plan(issued.instance, layout)
    errors = [f"part {n} is outside the viewport" for n in hidden] + run_actions(env, actions)
    result = submit(env, server, issued)
    return Attempt(type_name, seed, result, actions, errors, time.monotonic() - started)
