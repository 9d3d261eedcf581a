"""Coverage of task sets, failure attribution, and the sampling weights the closed loop writes back."""

from __future__ import annotations

import random

from venuskit.tasks.spec import bundled
from venuskit.tasks.synth import build
from venuskit.tasks.synth.catalog import bundled_catalog
from venuskit.tasks.synth.coverage import (
    FLOOR,
    HOLE_CAP,
    Coverage,
    attribute,
    coverage_of,
    failures_of,
    sampling_weights,
    template_weights,
)
from venuskit.tasks.synth.reject import Rejected, SeedWorlds
from venuskit.tasks.synth.sample import Domains, Sampler

CAT = bundled_catalog()
WORLDS = SeedWorlds()


def _candidates(n: int, seed: int = 5) -> list:
    sampler = Sampler(CAT, Domains(CAT, WORLDS), random.Random(seed))
    out, seen = [], set()
    while len(out) < n:
        try:
            out.append(build.build_candidate(sampler.plan(), CAT, WORLDS, seen))
            seen.add(out[-1].spec.id)
        except Rejected:
            pass
    return out


def test_coverage_counts_capabilities_values_app_pairs_and_flows():
    cands = _candidates(40)
    cov = coverage_of([c.spec for c in cands], CAT)
    assert cov.tasks == 40
    for c in cands:
        for s in c.plan.steps:
            assert cov.caps[s.cap.id] >= 1
    multi = [c for c in cands if len(c.spec.apps) > 1]
    assert cov.cross_app == len(multi) and multi
    a, b = sorted(multi[0].spec.apps)[:2]
    assert cov.app_pairs[(a, b)] >= 1
    flows = {t[5:] for c in cands for t in c.spec.tags if t.startswith("flow:")}
    assert set(cov.flows) == flows and flows
    key = next(t[6:].split("=", 1) for t in cands[0].spec.tags if t.startswith("param:"))
    assert cov.values[key[0]][key[1]] >= 1
    summary = cov.summary(CAT)
    assert summary["capabilities_total"] == len(CAT.composable())
    assert summary["capabilities_covered"] + len(summary["holes"]) == summary["capabilities_total"]


def test_the_hand_written_catalog_covers_capabilities_through_template_links():
    cov = coverage_of(list(bundled().values()), CAT)
    star = [t for t in bundled() if t == "mail.star_message"]
    assert star and cov.caps["mail.star"] >= 1
    # reads that only long, cross-app templates exercise are still counted, and holes are listed by id
    assert cov.caps["mail.read_invoice"] >= 1
    assert all(h in CAT.caps for h in cov.summary(CAT)["holes"])


def test_failures_are_attributed_to_the_capabilities_whose_checks_failed():
    cand = next(c for c in _candidates(60) if {"mail.star", "drive.trash"} <= {s.cap.id for s in c.plan.steps}
                or len({s.cap.id for s in c.plan.steps}) >= 2)  # fmt: skip
    caps = [s.cap.id for s in cand.plan.steps]
    spec = cand.spec
    done = {"verdict": "completed", "keypoints": [{"check": k.check, "ok": True} for k in spec.keypoints]}
    assert attribute(spec, done, CAT) == dict.fromkeys(caps, False)
    first = next(s.cap for s in cand.plan.steps if s.cap.effect)
    failed_check = next(e.check for e in first.effect if not e.progress)
    partial = {"verdict": "partial", "keypoints": [{"check": k.check, "ok": k.check != failed_check}
                                                   for k in spec.keypoints]}  # fmt: skip
    blame = attribute(spec, partial, CAT)
    assert blame[first.id] is True
    assert all(not v for c, v in blame.items() if failed_check not in {e.check for e in CAT.caps[c].effect})
    nothing = {"verdict": "failed", "keypoints": [], "reason": "undeclared consequential action"}
    assert all(attribute(spec, nothing, CAT).values())  # no keypoint says which: all are blamed
    fails = failures_of([(spec, done), (spec, partial)], CAT)
    assert fails.episodes == 2 and fails.runs[first.id] == 2 and fails.failed[first.id] == 1
    assert fails.rate(first.id) == 0.5 and fails.table()[0]["capability"] == first.id


def test_sampling_weights_favour_holes_and_failed_capabilities():
    cov = Coverage()
    covered = [c.id for c in CAT.composable()][:30]
    for _ in range(5):
        cov.add(covered, ("mail",), [], [])
    w = sampling_weights(cov, None, CAT)
    assert abs(sum(w.values()) / len(w) - 1.0) < 1e-3
    hole = next(c.id for c in CAT.composable() if c.id not in covered)
    assert w[hole] > w[covered[0]]
    assert w[hole] / w[covered[0]] <= HOLE_CAP / FLOOR + 1e-6
    # the same coverage, plus runs in which one covered capability always failed
    spec = next(s for s in bundled().values() if s.id == "mail.star_message")
    fails = failures_of(
        [(spec, {"verdict": "failed", "keypoints": [{"check": "mail.starred", "ok": False}]})] * 3, CAT
    )
    wf = sampling_weights(cov, fails, CAT)
    assert wf["mail.star"] / wf[covered[1]] > w["mail.star"] / w[covered[1]]
    tw = template_weights(wf, CAT, ["mail.star_message", "settings.which_department", "no.such"])
    assert tw["mail.star_message"] == wf["mail.star"] and tw["no.such"] == 1.0


def test_synthesis_steered_by_weights_fills_holes():
    """Drawn with the weights recomputed from what was drawn so far, coverage grows faster than uniform."""

    def covered(steer: bool) -> int:
        sampler = Sampler(CAT, Domains(CAT, WORLDS), random.Random(9))
        cov, seen = Coverage(), set()
        while cov.tasks < 40:
            if steer:
                sampler.weights = sampling_weights(cov, None, CAT)
            try:
                cand = build.build_candidate(sampler.plan(), CAT, WORLDS, seen)
            except Rejected:
                continue
            seen.add(cand.spec.id)
            one = coverage_of([cand.spec], CAT)
            cov.add(list(one.caps), cand.spec.apps, [], [])
        return sum(1 for c in CAT.composable() if cov.caps[c.id])

    assert covered(True) > covered(False)
