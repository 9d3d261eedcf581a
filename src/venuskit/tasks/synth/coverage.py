"""Coverage of a task set, where policies fail, and the sampling weights that follow from both.

Coverage counts what a set of tasks exercises: capabilities, parameter values, app pairs (apps that meet in
one task) and data flows. Synthesised tasks say it in their tags (venuskit.tasks.synth.build); a
hand-written template counts for the capabilities that were cold-started from it (their `templates`).

Failures come from recorded runs: per capability, how many episodes touched it and how many of those failed
it. An episode that ends `completed` succeeds at all its capabilities; otherwise the capabilities whose
effect checks failed are the failed ones (all of them when no keypoint says which).

    cov = coverage_of(specs, catalog)
    fails = failures_of(outcomes, catalog)          # outcomes: (TaskSpec, contract verdict dict) pairs
    weights = sampling_weights(cov, fails)          # capability id -> weight, mean 1 over the catalog
    template_weights(weights, catalog)              # hand-written template id -> weight (for `venus loop`)

`sampling_weights` is the failure write-back of the closed loop: the next round's synthesis
(`Sampler.weights`) or template sampling draws holes and failed capabilities more often.
"""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from venuskit.tasks.spec import TaskSpec
from venuskit.tasks.synth.catalog import Catalog, bundled_catalog
from venuskit.tasks.synth.reject import template_caps

HOLE_CAP = 4.0  # an uncovered capability weighs at most this much more than an average one
FLOOR = 0.25  # a heavily covered one at least this much
FAIL_GAIN = 2.0  # a capability failed in every run weighs (1 + FAIL_GAIN) times more


@dataclass
class Coverage:
    caps: Counter = field(default_factory=Counter)  # capability id -> tasks
    values: dict[str, Counter] = field(default_factory=dict)  # "cap.param" -> value -> tasks
    app_pairs: Counter = field(default_factory=Counter)  # (app, app) sorted -> tasks
    flows: Counter = field(default_factory=Counter)  # "producer>consumer.param" -> tasks
    tasks: int = 0
    cross_app: int = 0

    def add(self, caps: list[str], apps: tuple[str, ...], values: list[tuple[str, str]], flows: list[str]) -> None:
        self.tasks += 1
        self.caps.update(set(caps))
        for key, v in values:
            self.values.setdefault(key, Counter())[v] += 1
        apps = tuple(sorted(set(apps)))
        self.cross_app += len(apps) > 1
        self.app_pairs.update((a, b) for i, a in enumerate(apps) for b in apps[i + 1 :])
        self.flows.update(set(flows))

    def holes(self, catalog: Catalog) -> list[str]:
        return sorted(c.id for c in catalog.composable() if not self.caps[c.id])

    def summary(self, catalog: Catalog) -> dict[str, Any]:
        composable = [c.id for c in catalog.composable()]
        apps = sorted({c.app for c in catalog.composable()})
        pairs = [(a, b) for i, a in enumerate(apps) for b in apps[i + 1 :]]
        return {
            "tasks": self.tasks, "capabilities_covered": sum(1 for c in composable if self.caps[c]),
            "capabilities_total": len(composable), "holes": self.holes(catalog),
            "cross_app_share": round(self.cross_app / self.tasks, 3) if self.tasks else 0.0,
            "app_pairs_covered": sum(1 for p in pairs if self.app_pairs[p]), "app_pairs_total": len(pairs),
            "parameter_values": sum(len(v) for v in self.values.values()), "flows": len(self.flows),
        }  # fmt: skip


def spec_caps(spec: TaskSpec, catalog: Catalog) -> list[str]:
    """The capabilities a task exercises: from its tags when synthesised, else via the template links."""
    tagged = [t[4:] for t in spec.tags if t.startswith("cap:")]
    if tagged:
        return tagged
    return sorted(template_caps(catalog).get(spec.id, ()))


def coverage_of(specs: list[TaskSpec], catalog: Catalog) -> Coverage:
    cov = Coverage()
    for spec in specs:
        caps = [c for c in spec_caps(spec, catalog) if c in catalog.caps]
        if not caps:
            continue
        values = [tuple(t[6:].split("=", 1)) for t in spec.tags if t.startswith("param:") and "=" in t]
        flows = [t[5:] for t in spec.tags if t.startswith("flow:")]
        cov.add(caps, spec.apps, values, flows)  # type: ignore[arg-type]
    return cov


# ---- failures from runs ----------------------------------------------------------------------------


@dataclass
class Failures:
    runs: Counter = field(default_factory=Counter)  # capability id -> episodes that exercised it
    failed: Counter = field(default_factory=Counter)  # capability id -> episodes that failed it
    episodes: int = 0
    unattributed: int = 0  # episodes whose task maps to no capability

    def rate(self, cap: str) -> float:
        return self.failed[cap] / self.runs[cap] if self.runs[cap] else 0.0

    def table(self) -> list[dict[str, Any]]:
        rows = [{"capability": c, "runs": n, "failed": self.failed[c], "fail_rate": round(self.rate(c), 3)}
                for c, n in self.runs.items()]  # fmt: skip
        return sorted(rows, key=lambda r: (-r["fail_rate"], -r["runs"], r["capability"]))


def attribute(spec: TaskSpec, contract: dict[str, Any], catalog: Catalog) -> dict[str, bool]:
    """Capability -> failed?, for one judged episode of `spec` (`contract`: the `verdicts.contract` record)."""
    caps = [c for c in spec_caps(spec, catalog) if c in catalog.caps]
    if contract.get("verdict") in ("completed", "infeasible"):
        return {c: False for c in caps}
    bad = {kp["check"] for kp in contract.get("keypoints", []) if not kp.get("ok")}
    hit = {c for c in caps if bad & {e.check for e in catalog.caps[c].effect}}
    return {c: (c in hit) if hit else True for c in caps}


def failures_of(outcomes: list[tuple[TaskSpec, dict[str, Any]]], catalog: Catalog) -> Failures:
    f = Failures()
    for spec, contract in outcomes:
        f.episodes += 1
        blame = attribute(spec, contract, catalog)
        f.unattributed += not blame
        for cap, failed in blame.items():
            f.runs[cap] += 1
            f.failed[cap] += failed
    return f


# ---- sampling weights -------------------------------------------------------------------------------


def sampling_weights(coverage: Coverage, failures: Failures | None = None,
                     catalog: Catalog | None = None) -> dict[str, float]:  # fmt: skip
    """Capability id -> sampling weight (mean 1 over the composable catalog).

    hole factor: (mean count + 1) / (count + 1), clipped to [FLOOR, HOLE_CAP]: an uncovered capability is drawn
    up to HOLE_CAP times as often as an average one; failure factor: 1 + FAIL_GAIN x its failure rate in runs.
    `catalog`: the bundled capability catalogs by default.
    """
    catalog = catalog or bundled_catalog()
    ids = [c.id for c in catalog.composable()]
    mean = sum(coverage.caps[c] for c in ids) / len(ids)
    raw = {}
    for c in ids:
        hole = min(HOLE_CAP, max(FLOOR, (mean + 1) / (coverage.caps[c] + 1)))
        fail = 1.0 + FAIL_GAIN * (failures.rate(c) if failures is not None else 0.0)
        raw[c] = hole * fail
    norm = sum(raw.values()) / len(raw)
    return {c: round(w / norm, 4) for c, w in raw.items()}


def template_weights(weights: dict[str, float], catalog: Catalog, templates: list[str]) -> dict[str, float]:
    """Hand-written template id -> the mean weight of the capabilities cold-started from it (1.0 if none):
    the same write-back for a loop that samples hand-written templates rather than synthesising."""
    links = template_caps(catalog)
    out = {}
    for t in templates:
        ws = [weights[c] for c in links.get(t, ()) if c in weights]
        out[t] = round(sum(ws) / len(ws), 4) if ws else 1.0
    return out
