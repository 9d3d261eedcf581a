"""Drawing plans: which capabilities, in which order, with which values and which data flow.

The sampler draws from the whole catalog, weighted: composable capabilities by their sampling weight
(`venuskit.tasks.synth.coverage.sampling_weights`: coverage holes and failed capabilities weigh more), and,
at a small `probe` weight, the functions no contract can check (view) and those the help pages say an app
lacks (unsupported). Parameter domains that the help page bounds (shipping methods, payment means) also keep
the values it rules out, drawn at `unsupported_value_p`. Those candidates are what the filter rejects: the
sampler proposes what a person reading the help pages might ask for, the filter keeps what can be proved.
"""

from __future__ import annotations

import random
from dataclasses import dataclass, field
from typing import Any

from venuskit.tasks.synth.catalog import Capability, Catalog, Param
from venuskit.tasks.synth.compose import Plan, Step, derive
from venuskit.tasks.synth.reject import Rejected, SeedWorlds, value_strings
from venuskit.tasks.synth.surface import get_surface

HORIZONS = {"short": (1, 2), "medium": (2, 3), "long": (3, 5)}
MIX = (("short", 0.4), ("medium", 0.4), ("long", 0.2))  # when no horizon is asked for


@dataclass
class SamplerConfig:
    horizon: str | None = None  # short | medium | long; None mixes them (MIX)
    apps: tuple[str, ...] = ()  # only capabilities of these apps (empty: all)
    caps: frozenset[str] | None = None  # only these capabilities (e.g. those of one split); None: all
    flow_p: float = 0.9  # a parameter that can take an earlier read's value takes it with this probability
    feed_p: float = 0.8  # after a read, the next capability is drawn among those that can use its value
    cross_app_p: float = 0.5  # a second capability is drawn from another app at least this often
    probe: float = 0.08  # weight of view-only and unsupported functions, relative to 1 for composable ones
    unsupported_value_p: float = 0.03  # chance of a help-page value the app rules out, where a domain has one
    avoid: frozenset[str] = frozenset()  # values never drawn (casefolded), e.g. those only held-out templates use


class Domains:
    """Parameter values: pools from the catalog, `state:` queries over the seeded world, inline lists."""

    def __init__(self, catalog: Catalog, worlds: SeedWorlds) -> None:
        self.catalog, self.worlds = catalog, worlds
        self._rows: dict[tuple[str, str], list[dict[str, Any]]] = {}

    def state_rows(self, name: str, locale: str) -> list[dict[str, Any]]:
        """Rows of a state domain, read from the first check seed's world (names there are seed-invariant;
        what varies with the seed is checked as a precondition on every check seed)."""
        key = (name, locale)
        if key not in self._rows:
            st = self.worlds.state(self.worlds.seeds[0], locale)
            try:
                self._rows[key] = st.rows(self.catalog.queries[name])
            finally:
                st.close()
        return self._rows[key]

    def items(self, param: Param, locale: str) -> list[Any]:
        kind, _, ref = param.domain.partition(":")
        if kind == "pool":
            pool = self.catalog.pools[ref]
            return list(pool.get(locale) or pool["en"])
        if kind == "state":
            return list(self.state_rows(ref, locale))
        return list(param.values)


@dataclass
class Sampler:
    catalog: Catalog
    domains: Domains
    rng: random.Random
    config: SamplerConfig = field(default_factory=SamplerConfig)
    weights: dict[str, float] = field(default_factory=dict)  # capability id -> sampling weight

    def plan(self, locale: str = "en") -> Plan:
        """One candidate plan. Raises Rejected (unsupported_function) for a value the help page rules out."""
        k = self._length()
        caps = self._caps(k)
        plan = Plan([Step(c) for c in caps], locale)
        if all(s.cap.supported for s in plan.steps):
            used: dict[str, set[int]] = {}
            for i in range(len(plan.steps)):
                self._bind(plan, i, used)
            last = len(plan.steps) - 1
            if plan.steps[last].cap.kind == "read":
                asked = [(last, k) for k in range(len(plan.steps[last].cap.produces)) if plan.hidden((last, k))]
                plan.answer = self.rng.choice(asked)
        return plan

    # -- which capabilities --

    def _length(self) -> int:
        horizon = self.config.horizon or self.rng.choices([h for h, _ in MIX], [w for _, w in MIX])[0]
        lo, hi = (get_surface(self.catalog.surface).horizons or HORIZONS)[horizon]
        return self.rng.randint(lo, hi)

    def _allowed(self) -> list[Capability]:
        cfg = self.config
        in_split = lambda c: cfg.caps is None or c.id in cfg.caps or not c.composable  # noqa: E731
        return [c for c in self.catalog.caps.values() if (not cfg.apps or c.app in cfg.apps) and in_split(c)]

    def _weight(self, cap: Capability) -> float:
        return self.weights.get(cap.id, 1.0) if cap.composable else self.config.probe

    def _caps(self, k: int) -> list[Capability]:
        allowed = self._allowed()
        distinct = get_surface(self.catalog.surface).distinct_apps
        chosen: list[Capability] = []
        for i in range(k):
            cands = [c for c in allowed if (not c.last or i == k - 1)
                     and not (distinct and c.app in {x.app for x in chosen})]  # fmt: skip
            if not cands:
                break
            pending = _pending_types(chosen)
            if pending and self.rng.random() < self.config.feed_p:
                feeding = [c for c in cands if any(_accepts(p, pending) for p in c.params)]
                cands = feeding or cands
            weights = [self._weight(c) for c in cands]
            if chosen and self.rng.random() < self.config.cross_app_p:
                apps = {c.app for c in chosen}
                weights = [w * (1.0 if c.app in apps else 4.0) for c, w in zip(cands, weights, strict=True)]
            chosen.append(self.rng.choices(cands, weights)[0])
            if chosen[-1].last:
                break
        return chosen

    # -- which values --

    def _bind(self, plan: Plan, i: int, used: dict[str, set[int]]) -> None:
        step = plan.steps[i]
        for p in step.cap.params:
            if p.derive:
                continue
            flows = [f for f in _producers(plan, i) if _accepts(p, {plan.steps[f[0]].cap.produces[f[1]].type})]
            if flows and self.rng.random() < self.config.flow_p:
                fresh = [f for f in flows if not plan.consumed(f[0]) and plan.hidden(f)]
                flow = self.rng.choice(fresh or [f for f in flows if plan.hidden(f)] or flows)
                step.flows[p.name] = flow
                step.values[p.name] = plan.produced(flow)[0]
            elif p.also and self.rng.random() < p.also_p:
                row = self.rng.choice(self.domains.state_rows(p.also.partition(":")[2], plan.locale))
                step.values[p.name] = str(next(iter(row.values())))
                step.seeded.add(p.name)
            else:
                step.values[p.name] = self._draw(step.cap, p, plan.locale, used)
        derive(step)

    def _draw(self, cap: Capability, p: Param, locale: str, used: dict[str, set[int]]) -> Any:
        if p.unsupported and self.rng.random() < self.config.unsupported_value_p:
            value = self.rng.choice(sorted(p.unsupported))
            raise Rejected("unsupported_function", f"{cap.id}: {p.name} = {value!r}: {p.unsupported[value]}")
        items = self.domains.items(p, locale)
        if self.config.avoid:  # a domain made only of avoided values is kept: the leak check then rejects the plan
            items = [x for x in items if not set(value_strings(x)) & self.config.avoid] or items
        taken = used.setdefault(p.domain if p.domain != "values" else f"{cap.id}.{p.name}", set())
        free = [j for j in range(len(items)) if j not in taken] or list(range(len(items)))
        j = self.rng.choice(free)
        taken.add(j)
        return items[j]


def _pending_types(chosen: list[Capability]) -> set[str]:
    """Value types read by the chosen reads that no later chosen capability can take yet."""
    pending: set[str] = set()
    for c in chosen:
        if pending and any(_accepts(p, pending) for p in c.params):
            pending = set()
        if c.kind == "read":
            pending |= {pr.type for pr in c.produces}
    return pending


def _accepts(p: Param, types: set[str]) -> bool:
    return bool(p.accepts) and ("*" in p.accepts or bool(types & set(p.accepts)))


def _producers(plan: Plan, i: int) -> list[tuple[int, int]]:
    return [(j, k) for j in range(i) for k in range(len(plan.steps[j].cap.produces))]
