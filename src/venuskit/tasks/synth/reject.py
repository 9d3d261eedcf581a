"""Rejection: every reason a composed task is not kept, each decided by one check.

    unsupported_function  the plan uses a function (or a parameter value) the app's help page says it lacks
    unverifiable_result   a step no check can confirm: a view-only function, a value read and then never used,
                          or a contract that already holds before the agent does anything
    ambiguous_goal        the goal's words fit more than one end state: a value the contract pins that the
                          goal never states, or a name that picks out several rows of the seeded world
    precondition_unmet    the seeded world lacks what the goal acts on, or a capability's precondition fails
    duplicate             a hand-written template already covers the same composition (or contract), or the
                          set already holds this task
    heldout_leak          a training task would carry a held-out template's goal or one of the values only
                          held-out templates use
    oracle_failed         the composed scripted solution did not reach `completed` in real Chromium

The static checks here run in-process on the seeded worlds (no browser); `oracle_failed` is decided by the
proving run (`venuskit.flywheel.synth`). Preconditions and referents are checked on several seeds
(`SeedWorlds.seeds`), because a task must hold on any seed it is run with, as hand-written ones do. The desktop's
counterparts (on the composed home folder, before any X server) are in venuskit.tasks.synth.computer.
"""

from __future__ import annotations

import datetime as dt
import functools
from dataclasses import dataclass
from typing import Any

from venuskit.tasks import setup as setup_ops
from venuskit.tasks.checks import CheckContext, run_check
from venuskit.tasks.contract import judge
from venuskit.tasks.spec import TaskInstance, TaskSpec, bundled
from venuskit.tasks.synth import refs
from venuskit.tasks.synth.catalog import PLACEHOLDER, Catalog
from venuskit.tasks.synth.compose import Plan, fill, fmt
from venuskit.tasks.synth.surface import get_surface
from venuskit.world.server import DEFAULT_TODAY
from venuskit.world.state import EpisodeState, Snapshots

REASONS = ("unsupported_function", "unverifiable_result", "ambiguous_goal", "precondition_unmet", "duplicate",
           "heldout_leak", "oracle_failed")  # fmt: skip


class Rejected(Exception):
    """A candidate task that is not kept; `reason` is one of REASONS, `detail` says what exactly."""

    def __init__(self, reason: str, detail: str) -> None:
        assert reason in REASONS, reason
        super().__init__(f"{reason}: {detail}")
        self.reason, self.detail = reason, detail


@dataclass
class SeedWorlds:
    """Seeded background worlds to check candidates on, restored from cached snapshots (about a millisecond)."""

    seeds: tuple[int, ...] = (0, 1, 2, 3)
    today: dt.date = DEFAULT_TODAY

    def __post_init__(self) -> None:
        self._snapshots = Snapshots()

    def state(self, seed: int, locale: str, inst: TaskInstance | None = None) -> EpisodeState:
        """A fresh state of (seed, locale) with the task's setup rows applied. Close it when done."""
        st = EpisodeState(f"check-{seed}")
        self._snapshots.restore(st, seed, locale, self.today)
        for op in inst.setup if inst is not None else ():
            setup_ops.apply(st, op)
        return st


# ---- checks on the plan -----------------------------------------------------------------------------


def check_supported(plan: Plan) -> None:
    for s in plan.steps:
        if not s.cap.supported:
            raise Rejected("unsupported_function", f"{s.cap.id}: {s.cap.reason}")


def check_verifiable(plan: Plan) -> None:
    for i, s in enumerate(plan.steps):
        if s.cap.kind == "view":
            raise Rejected("unverifiable_result", f"{s.cap.id} changes nothing and yields no value a check can read")
        if s.cap.kind == "read" and not plan.consumed(i):
            raise Rejected("unverifiable_result", f"the value {s.cap.id} reads (step {i + 1}) is used by no later "
                                                  "step and not asked for, so no check sees it")  # fmt: skip


def check_goal_states(plan: Plan, goal: str) -> None:
    """Every value the contract pins must be stated by the goal (literally, or as the phrase of a value read
    earlier); otherwise other end states satisfy the text as well."""
    text = goal.casefold()
    for s in plan.steps:
        pinned = {n for e in s.cap.effect if not e.progress for n, _ in PLACEHOLDER.findall(repr(e.args))}
        for name in sorted(pinned):
            if not _stated(plan, s, name, text):
                raise Rejected("ambiguous_goal", f"{s.cap.id}: the goal never states {name!r}, which the contract "
                                                 f"pins to {s.values[name]!r}")  # fmt: skip
    if plan.answer is not None and plan.produced(plan.answer)[1].casefold() not in text:
        raise Rejected("ambiguous_goal", "the goal does not say which value it asks for")


def _stated(plan: Plan, step: Any, name: str, text: str) -> bool:
    param = step.cap.param(name)
    if name in step.cap.implied:
        return True
    if name in step.flows:
        return plan.produced(step.flows[name])[1].casefold() in text
    if param.derive:
        return _stated(plan, step, param.derive.split(".")[0], text)
    value = step.values[name]
    fields = value.values() if isinstance(value, dict) else [value]
    return any(str(v).casefold() in text for v in fields if isinstance(v, str))


# ---- duplicates -------------------------------------------------------------------------------------


def template_caps(catalog: Catalog) -> dict[str, frozenset[str]]:
    """Hand-written template -> the capabilities that were cold-started from it (the inverse of `templates`)."""
    out: dict[str, set[str]] = {}
    for c in catalog.caps.values():
        for t in c.templates:
            out.setdefault(t, set()).add(c.id)
    return {t: frozenset(v) for t, v in out.items()}


def signature(spec: TaskSpec) -> tuple:
    """A contract's shape: the apps and the multiset of (check, argument names) of its keypoints."""
    return (frozenset(spec.apps), tuple(sorted((k.check, tuple(sorted(k.args))) for k in spec.keypoints)))


def hand_signatures(surface: str = "browser") -> dict[tuple, str]:
    """Contract shape -> the feasible hand-written template of the surface that has it."""
    return {signature(t): t.id for t in get_surface(surface).hand().values() if t.feasible}


def check_duplicate(plan: Plan, spec: TaskSpec, catalog: Catalog, seen: set[str],
                    hand: dict[tuple, str] | None = None) -> None:  # fmt: skip
    if spec.id in seen:
        raise Rejected("duplicate", f"the set already holds {spec.id} (same capabilities, values and data flow)")
    caps = frozenset(s.cap.id for s in plan.steps)
    templates = plan.surface.hand()
    for t, linked in template_caps(catalog).items():
        # the template is made of exactly these capabilities: the same ones, and no app they do not use
        if caps == linked and set(templates[t].apps) <= set(plan.apps):
            raise Rejected("duplicate", f"the hand-written template {t} already composes {', '.join(sorted(caps))}")
    hand = hand_signatures(plan.surface.name) if hand is None else hand
    if signature(spec) in hand:
        raise Rejected("duplicate", f"the contract has the shape of the hand-written template {hand[signature(spec)]}")


def value_strings(value: Any) -> list[str]:
    """Every string (casefolded) inside a drawn value: a plain value, or a record's fields."""
    if isinstance(value, dict):
        return [x for v in value.values() for x in value_strings(v)]
    if isinstance(value, (list, tuple)):
        return [x for v in value for x in value_strings(v)]
    return [str(value).strip().casefold()] if isinstance(value, str | int | float) and str(value).strip() else []


@functools.cache
def heldout_only() -> tuple[frozenset[str], frozenset[str]]:
    """(goals, values) that only held-out templates hold: their goal texts (every variant) and the parameter values
    no training template also uses (a value a training template uses is already in training data)."""
    from venuskit.tasks.splits import load

    held = load().world_heldout
    specs = bundled().values()
    train_values = {v for t in specs if t.id not in held for p in t.params for v in value_strings(p)}
    values = {v for t in specs if t.id in held for p in t.params for v in value_strings(p)} - train_values
    goals = {t.instance(seed).goal.strip().casefold() for t in specs if t.id in held for seed in range(len(t.params))}
    return frozenset(goals), frozenset(v for v in values if len(v) >= 3)


def check_heldout_leak(plan: Plan, goal: str) -> None:
    """A training task must not carry a held-out template's goal or a value only held-out templates use."""
    goals, values = heldout_only()
    if goal.strip().casefold() in goals:
        raise Rejected("heldout_leak", "the goal is a held-out template's goal")
    leaked = sorted({v for s in plan.steps for v in value_strings(s.values)} & values)
    if leaked:
        raise Rejected("heldout_leak", f"the values {leaked[:3]} are only held-out templates'")


# ---- checks on the seeded worlds --------------------------------------------------------------------


def check_world(plan: Plan, spec: TaskSpec, worlds: SeedWorlds) -> None:
    """Referents exactly once and preconditions on every check seed; and a do-nothing run must fail."""
    inst = spec.instance(0)
    for seed in worlds.seeds:
        st = worlds.state(seed, plan.locale, inst)
        try:
            _referents(plan, st, seed)
            _preconditions(plan, st, seed)
            if seed == worlds.seeds[0]:
                v = judge(inst, st, "finished", "Done.")
                if v.verdict != "failed":
                    raise Rejected("unverifiable_result", f"doing nothing already gives {v.verdict!r} ({v.reason})")
        finally:
            st.close()


def _referents(plan: Plan, st: EpisodeState, seed: int) -> None:
    for s in plan.steps:
        for t in s.cap.targets:
            if t.unless in s.flows:
                continue
            text = fmt(t.text, s.values)
            n = refs.count(st, t.kind, text)
            if n == 0:
                raise Rejected("precondition_unmet", f"{s.cap.id}: no {t.kind} {text!r} in the world of seed {seed}")
            if n > 1:
                raise Rejected("ambiguous_goal", f"{s.cap.id}: {n} rows of kind {t.kind} match {text!r} in the world "
                                                 f"of seed {seed}")  # fmt: skip


def _preconditions(plan: Plan, st: EpisodeState, seed: int) -> None:
    ctx = CheckContext(st)
    for s in plan.steps:
        for c in s.cap.pre:
            if c.unless in s.flows:
                continue
            args = fill(c.args, s.values)
            if run_check(c.check, ctx, args) == c.negate:
                want = "not " if c.negate else ""
                raise Rejected("precondition_unmet", f"{s.cap.id}: {want}{c.check}({args}) fails in the world of "
                                                     f"seed {seed}")  # fmt: skip
