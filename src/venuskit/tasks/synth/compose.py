"""Composition: a plan (capabilities in order, with parameter values and data flow) becomes one task table.

A plan's steps run in order. A parameter either holds a drawn value or is bound to a value an earlier step
read (`flows`): the consumer then acts on the hidden value, and its goal clause points at it with the
producer's phrase ("the IBAN in Lakeside Plumbing's payment request email") instead of spelling it out.

The task table has the shape of a hand-written `[[task]]` (venuskit.tasks.spec): goal (template text), one
parameter variant (its locale), setup rows, keypoints and forbidden effects from the capabilities' checks,
consequential actions, and an oracle made of the capabilities' fragments joined by app navigation.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from dataclasses import dataclass, field
from decimal import Decimal
from typing import Any

from venuskit.tasks.synth.catalog import PLACEHOLDER, Capability
from venuskit.tasks.synth.surface import Surface, get_surface

Flow = tuple[int, int]  # (producer step index, index into that capability's `produces`)


@dataclass
class Step:
    cap: Capability
    values: dict[str, Any] = field(default_factory=dict)  # raw values: str, or a record (dict) from a pool
    flows: dict[str, Flow] = field(default_factory=dict)  # parameter -> the produced value it is bound to
    seeded: set[str] = field(default_factory=set)  # parameters whose value names a row the seeded world has

    def provided(self, name: str) -> bool:
        """Whether the thing `name` names exists without this step's own setup rows (`unless = name`)."""
        return bool(name) and (name in self.flows or name in self.seeded)


@dataclass
class Plan:
    steps: list[Step]
    locale: str = "en"
    answer: Flow | None = None  # the produced value the task asks for as its final answer

    @property
    def surface(self) -> Surface:
        return get_surface(self.steps[0].cap.surface if self.steps else "browser")

    @property
    def apps(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(a for s in self.steps for a in s.cap.apps))

    def produced(self, flow: Flow) -> tuple[str, str]:
        """(value, the goal's phrase for it) of one produced value."""
        step = self.steps[flow[0]]
        pr = step.cap.produces[flow[1]]
        return fmt(pr.value, step.values), fmt(pr.ref[self.locale], step.values)

    def hidden(self, flow: Flow) -> bool:
        """Whether a produced value is one the goal cannot say literally (its phrase is not the value itself)."""
        value, ref = self.produced(flow)
        return value != ref

    def consumed(self, index: int) -> bool:
        """Whether some later step needs the value a read finds (or the task asks for it). A value whose phrase
        is the value itself (a payee's name) does not need the read."""
        return any(f[0] == index and self.hidden(f) for s in self.steps for f in s.flows.values()) or (
            self.answer is not None and self.answer[0] == index
        )

    def key(self) -> str:
        """Identity of the plan's content: capabilities, values, data flow and the asked value."""
        body = [
            self.locale,
            [[s.cap.id, s.values, sorted(s.flows.items()), sorted(s.seeded)] for s in self.steps],
            self.answer,
        ]
        if self.surface.name != "browser":  # the world's ids stay what they were
            body.append(self.surface.name)
        return hashlib.sha1(json.dumps(body, sort_keys=True, ensure_ascii=False).encode()).hexdigest()


# ---- rendering ----------------------------------------------------------------------------------


def fmt(template: str, values: dict[str, Any]) -> str:
    """Fill `{param}` and `{param.field}` from values; a placeholder without a value is a catalog bug."""

    def one(m) -> str:
        name, fld = m.group(1), m.group(2)
        if name not in values:
            raise KeyError(f"no value for {{{name}}} in {template!r}")
        v = values[name]
        if fld:
            return str(v[fld])
        if isinstance(v, dict):
            raise KeyError(f"{{{name}}} is a record; name one of its fields ({', '.join(v)}) in {template!r}")
        return str(v)

    return PLACEHOLDER.sub(one, template)


def fill(value: Any, values: dict[str, Any]) -> Any:
    """`fmt` through nested setup rows and check arguments (lists, tables); other values stay."""
    if isinstance(value, str):
        return fmt(value, values)
    if isinstance(value, list | tuple):
        return [fill(v, values) for v in value]
    if isinstance(value, dict):
        return {k: fill(v, values) for k, v in value.items()}
    return value


def derive(step: Step) -> None:
    """Compute derived parameters (an end time from a start, a total from a price) in place."""
    for p in step.cap.params:
        if not p.derive:
            continue
        name, _, fld = p.derive.partition(".")
        base = step.values[name][fld] if fld else step.values[name]
        if p.minutes:
            t = dt.datetime.strptime(str(base), "%H:%M") + dt.timedelta(minutes=p.minutes)
            step.values[p.name] = t.strftime("%H:%M")
        else:
            step.values[p.name] = f"{Decimal(str(base)) + Decimal(p.add):.2f}"


def goal_values(plan: Plan, step: Step) -> dict[str, Any]:
    """What a goal clause says for each parameter: the producer's phrase for a bound one, else the value as
    the parameter's `say` template puts it."""
    out: dict[str, Any] = {}
    for p in step.cap.params:
        raw = step.values[p.name]
        if p.name in step.flows:
            out[p.name] = plan.produced(step.flows[p.name])[1]
        elif p.say and not isinstance(raw, dict):
            out[p.name] = fmt(p.say[plan.locale], step.values)
        else:
            out[p.name] = raw
    return out


def clauses(plan: Plan) -> list[str]:
    """One clause per step the goal asks for: acts and answers; reads speak through their consumers."""
    out = []
    for i, step in enumerate(plan.steps):
        if step.cap.kind in ("act", "answer", "view"):
            out.append(fmt(step.cap.goal[plan.locale], goal_values(plan, step)))
        elif plan.answer is not None and plan.answer[0] == i:
            out.append(("tell me " if plan.locale == "en" else "告诉我") + plan.produced(plan.answer)[1])
    return out


def join_goal(parts: list[str], locale: str) -> str:
    if not parts:
        return ""
    if locale == "zh":
        if len(parts) == 1:
            return parts[0] + "。"
        return "先" + "，然后".join(parts[:-1]) + "，最后" + parts[-1] + "。"
    if len(parts) == 1:
        text = parts[0]
    elif len(parts) == 2:
        text = f"{parts[0]}, then {parts[1]}"
    else:
        text = ", then ".join(parts[:-1]) + f", and finally {parts[-1]}"
    return text[0].upper() + text[1:] + "."


# ---- the task table -------------------------------------------------------------------------------


def oracle(plan: Plan) -> list[list[Any]]:
    """The capabilities' fragments in order, joined by the surface's way into the next app."""
    steps: list[list[Any]] = []
    prev = None
    for s in plan.steps:
        steps += plan.surface.enter(prev, s)
        steps += [fill(list(o), s.values) for o in s.cap.oracle]
        prev = s
    if plan.answer is not None:
        steps.append(["finish", plan.produced(plan.answer)[0]])
    elif plan.steps[-1].cap.kind != "answer":  # an answer fragment ends with its own finish_from
        steps.append(["finish"])
    return steps


def setup_rows(step: Step) -> list[dict[str, Any]]:
    """The world setup rows of one step (an op with `unless` is skipped when that thing is already provided)."""
    ops = [dict(op) for op in step.cap.setup if not step.provided(op.get("unless", ""))]
    for op in ops:
        op.pop("unless", None)
    return [fill(op, step.values) for op in ops]


def _keypoint(e: Any, values: dict[str, Any]) -> dict[str, Any]:
    kp = {"desc": fmt(e.desc, values), "check": e.check, "args": fill(e.args, values)}
    if e.progress:
        kp["progress"] = True
    return kp


def category(n_steps: int) -> str:
    """The hand-written catalog's bands: short (1-5 oracle steps), medium (6-15), long (more)."""
    return "short" if n_steps <= 5 else "medium" if n_steps <= 15 else "long"


def task_table(plan: Plan, tags: list[str]) -> dict[str, Any]:
    """The `[[task]]` table of a plan (goal in the plan's locale; `goal_zh` too for a Chinese task), with the
    surface's own fields (the world's start page and setup rows; the desktop's files, settings and windows)."""
    goal = join_goal(clauses(plan), plan.locale)
    steps = oracle(plan)
    keypoints = [_keypoint(e, s.values) for s in plan.steps for e in s.cap.effect]
    if plan.answer is not None:
        value = plan.produced(plan.answer)[0]
        keypoints.append({"desc": f"The final answer gives {value}", "check": "answer.contains",
                          "args": {"text": value}})  # fmt: skip
    raw: dict[str, Any] = {
        "id": f"synth.{plan.key()[:12]}", "apps": list(plan.apps), "category": category(len(steps)),
        "goal": goal, **plan.surface.table(plan), "steps": len(steps),
        "max_steps": 2 * len(steps) + 6, "tags": tags, "oracle": steps,
        "params": [{"locale": plan.locale}] if plan.locale != "en" else [{}], "keypoints": keypoints,
        "forbid": [_keypoint(e, s.values) for s in plan.steps for e in s.cap.forbid],
        "consequential": list(dict.fromkeys(c for s in plan.steps for c in s.cap.consequential)),
    }  # fmt: skip
    if plan.locale == "zh":
        raw["goal_zh"] = goal
    return raw
