"""The oracle and leak audit over many seeds (`venus captcha audit`, the CI oracle test)."""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import asdict, dataclass, field
from typing import Any

from venuskit.synth.captcha.audit import PageView, capture_view, find_leaks
from venuskit.synth.captcha.harness import measure_layout, open_instance, submit
from venuskit.synth.captcha.oracle import plan, run_actions
from venuskit.synth.captcha.registry import select_types
from venuskit.synth.captcha.server import CaptchaServer

PASS_RATE_BAR = 0.99


@dataclass
class TypeAudit:
    type: str
    family: str
    n: int = 0
    passed: int = 0
    failures: list[str] = field(default_factory=list)  # "seed 3: reason"
    leaks: list[str] = field(default_factory=list)
    seconds: float = 0.0

    @property
    def pass_rate(self) -> float:
        return self.passed / self.n if self.n else 0.0

    @property
    def ok(self) -> bool:
        return self.pass_rate >= PASS_RATE_BAR and not self.leaks


def audit_type(env: Any, server: CaptchaServer, type_name: str, seeds: list[int], leaks: bool = True) -> TypeAudit:
    """Solve every seed with the oracle; with `leaks`, scan each page first (the next seed's page is the
    baseline that tells page furniture from a leak)."""
    started = time.monotonic()
    views: list[tuple[Any, PageView]] = []
    audit: TypeAudit | None = None
    for seed in seeds:
        issued, _ = open_instance(env, server, type_name, seed)
        audit = audit or TypeAudit(type_name, issued.instance.family)
        if leaks:
            views.append((issued.instance, capture_view(env.page)))
        layout = measure_layout(env.page)
        errors = run_actions(env, plan(issued.instance, layout))
        result = submit(env, server, issued)
        audit.n += 1
        audit.passed += result.passed
        if not result.passed:
            audit.failures.append(f"seed {seed}: {result.reason} {errors}".strip())
    assert audit is not None, "audit_type needs at least one seed"
    for i, (inst, view) in enumerate(views):
        baseline = views[(i + 1) % len(views)][1] if len(views) > 1 else None
        if baseline is not None and views[(i + 1) % len(views)][0].answer == inst.answer:
            baseline = None  # the same answer twice: the baseline would hide a leak
        audit.leaks += [f"seed {inst.seed}: {leak}" for leak in find_leaks(view, inst, baseline)]
    audit.seconds = time.monotonic() - started
    return audit


def run_audit(
    types: list[str],
    seeds: list[int],
    preset: str = "desktop",
    leaks: bool = True,
    progress: Callable[[str], None] | None = None,
) -> dict[str, Any]:
    """Audit every selected type; returns per-type results, `ok` and a one-line summary."""
    from venuskit.envs.browser import BrowserConfig, BrowserEnv

    if preset not in ("desktop", "mobile"):
        raise ValueError(f"preset must be desktop or mobile, got {preset!r}.")
    chosen = select_types(types)
    results: list[TypeAudit] = []
    with CaptchaServer() as server, BrowserEnv(BrowserConfig(preset=preset, settle_s=0.05)) as env:  # type: ignore[arg-type]
        for t in chosen:
            a = audit_type(env, server, t.name, seeds, leaks)
            results.append(a)
            if progress is not None:
                progress(
                    f"{'ok  ' if a.ok else 'FAIL'} {a.type:24s} {a.passed}/{a.n} {a.seconds:.1f}s "
                    + "; ".join(a.failures[:2] + a.leaks[:2])
                )
    bad = [a.type for a in results if not a.ok]
    total, passed = sum(a.n for a in results), sum(a.passed for a in results)
    summary = (
        f"{len(results)} types, {total} instances, oracle pass {passed}/{total}; "
        f"{len(bad)} type(s) under {PASS_RATE_BAR:.0%} or leaking" + (f": {', '.join(bad)}" if bad else "")
    )
    return {
        "ok": not bad,
        "summary": summary,
        "preset": preset,
        "seeds": seeds,
        "types": [asdict(a) | {"pass_rate": round(a.pass_rate, 4)} for a in results],
    }
