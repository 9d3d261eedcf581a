"""From a plan to a checked candidate task: compose, validate with the task loader, run the static checks.

What is left after `build_candidate` is the proving run in real Chromium (venuskit.flywheel.synth): the
oracle must reach `completed`. A candidate's tags record its provenance, read by coverage and splits:

    synth                      every synthesised task
    split:train|heldout        its split (see `plan_split`)
    cap:<capability id>        one per step, in order
    flow:<producer>><consumer>.<param>   a value read by one step and used by another
    param:<capability>.<param>=<value>   the drawn values (a record by its first field)
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from venuskit.tasks.spec import TaskFileError
from venuskit.tasks.splits import Split, load
from venuskit.tasks.synth import reject
from venuskit.tasks.synth.catalog import Capability, Catalog
from venuskit.tasks.synth.compose import Plan, task_table
from venuskit.tasks.synth.reject import Rejected, SeedWorlds


@dataclass
class Candidate:
    plan: Plan
    spec: Any  # a TaskSpec, or a DesktopTaskSpec (computer)
    table: dict[str, Any]  # the [[task]] table written to the task file


def cap_split(cap: Capability) -> Split:
    """A capability is held out when every hand-written template it was cold-started from is held out: its function
    is then one no training template exercises, which held-out evaluation is meant to test. A capability that a
    training template also exercises is not unseen; what a held-out template itself holds (its goal, its values,
    its contract's shape) is kept out of training by `reject.check_heldout_leak` and `reject.check_duplicate`."""
    held = set(cap.templates) & load().world_heldout
    return "heldout" if held and held == set(cap.templates) else "train"


def plan_split(plan: Plan) -> Split:
    """A synthesised task is held out when any of its capabilities is (the strict rule: nothing a held-out
    template tests reaches training through a composition)."""
    return "heldout" if any(cap_split(s.cap) == "heldout" for s in plan.steps) else "train"


def train_capabilities(catalog: Catalog) -> frozenset[str]:
    """Composable capabilities whose tasks may be used for training (`venus tasks synth --split train`)."""
    return frozenset(c.id for c in catalog.composable() if cap_split(c) == "train")


def tags(plan: Plan) -> list[str]:
    out = ["synth", f"split:{plan_split(plan)}"] + [f"cap:{s.cap.id}" for s in plan.steps]
    for s in plan.steps:
        out += [f"flow:{plan.steps[j].cap.id}>{s.cap.id}.{p}" for p, (j, _) in s.flows.items()]
    for s in plan.steps:
        for p in s.cap.params:
            if p.name in s.flows or p.derive:
                continue
            v = s.values.get(p.name)
            v = next(iter(v.values())) if isinstance(v, dict) else v
            out.append(f"param:{s.cap.id}.{p.name}={v}")
    return out


def build_candidate(plan: Plan, catalog: Catalog, worlds: SeedWorlds, seen: set[str],
                    hand: dict[tuple, str] | None = None) -> Candidate:  # fmt: skip
    """Compose and check one plan; raises Rejected with the first reason that applies."""
    reject.check_supported(plan)
    reject.check_verifiable(plan)
    table = task_table(plan, tags(plan))
    try:
        spec = plan.surface.parse_task(table, "<synth>")
    except TaskFileError as e:  # a catalog bug (a placeholder left, an unknown field): never a silent task
        raise AssertionError(f"composed task does not load: {e}") from e
    reject.check_goal_states(plan, table["goal"])
    reject.check_duplicate(plan, spec, catalog, seen, hand)
    if plan_split(plan) == "train" and plan.surface.name == "browser":  # the held-out templates are the world's
        reject.check_heldout_leak(plan, table["goal"])
    plan.surface.check_state(plan, spec, worlds)
    return Candidate(plan, spec, table)


def with_goal(cand: Candidate, goal: str) -> Candidate:
    """The same candidate with another goal text (a paraphrase that kept every stated value)."""
    table = {**cand.table, "goal": goal, **({"goal_zh": goal} if cand.plan.locale == "zh" else {})}
    return Candidate(cand.plan, cand.plan.surface.parse_task(table, "<synth>"), table)


__all__ = ["Candidate", "Rejected", "build_candidate", "cap_split", "plan_split", "tags", "train_capabilities",
           "with_goal"]  # fmt: skip
