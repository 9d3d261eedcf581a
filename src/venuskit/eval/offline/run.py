"""`venus eval offline`: a policy on every step of an offline benchmark, scored by that benchmark's matching.

Each step is one model call: the step's screenshot, the goal (High) or the goal plus the step's instruction
(Low, AndroidControl only: the other two have no step instructions), and the ground-truth actions before it
replayed as the model's own earlier turns (the UI-Venus-2 history protocol, N_IMG screenshots). Details go to
`details.jsonl` as they finish (a rerun resumes), the summary to `report.json` and `summary.html`.

Metrics per setting, each with a 95% Wilson interval:
    type_acc       the action type is right
    grounding_acc  of the steps whose ground truth has a location (taps, long presses, Mind2Web elements):
                   the type and the location are right
    step_sr        the whole action is right (type and every argument)
Mind2Web adds op_f1 (mean). Top-level figures pool all settings; per setting under `settings`.
"""

from __future__ import annotations

import statistics
import threading
import time
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from venuskit.eval import metrics as M
from venuskit.eval.offline import matching
from venuskit.eval.offline.data import HAS_STEP_INSTRUCTIONS, SURFACE, Sample, samples
from venuskit.eval.suites.common import Ledger
from venuskit.infra.config import help_text, option
from venuskit.runs.policies import PolicySpec

SETTINGS = ("high", "low")



@dataclass(frozen=True)
class OfflineConfig:
    format: str = field(metadata=help_text("androidcontrol, guiodyssey or mind2web."))
    data: str = field(metadata=help_text("A TFRecord file or folder, a GUI-Odyssey root, a parquet file or folder."))
    out: str = field(metadata=help_text("Results folder (details.jsonl, report.json, summary.html)."))
    policy: PolicySpec = field(default_factory=lambda: PolicySpec("nano"))
    settings: tuple[str, ...] = option("high and/or low (default: every one it has).", default=())
    split: str | None = option("A split of the data (splits.json / splits/<name>).", default=None)
    limit: int | None = option("Only the first N episodes.", default=None)
    workers: int = option("Model calls in flight at once.", default=4)

    def __post_init__(self) -> None:
        if self.policy.kind == "oracle":
            raise ValueError("Offline benchmarks have no oracle policy; pass --model nano or a model server URL.")
        bad = [s for s in self.settings if s not in SETTINGS]
        if bad:
            raise ValueError(f"--settings takes high and/or low; got {bad}.")
        if "low" in self.settings and not HAS_STEP_INSTRUCTIONS.get(self.format, False):
            raise ValueError(f"{self.format} has no step instructions, so no Low setting; use --settings high.")
        if self.workers < 1:
            raise ValueError(f"--workers must be at least 1, got {self.workers}.")

    @property
    def active_settings(self) -> tuple[str, ...]:
        return self.settings or (SETTINGS if HAS_STEP_INSTRUCTIONS.get(self.format) else ("high",))


def goal_for(sample: Sample, setting: str) -> str:
    """High: the goal alone. Low: the goal, then the step's instruction."""
    if setting == "low" and sample.instruction:
        return f"{sample.goal}\nCurrent step: {sample.instruction}"
    return sample.goal


class _Policies:
    """One policy per thread and goal (a nano model loads once per thread; a URL client is cheap)."""

    def __init__(self, spec: PolicySpec, surface: str) -> None:
        self.spec, self.surface, self.local = spec, surface, threading.local()

    def get(self, goal: str) -> Any:
        policy = getattr(self.local, "policy", None)
        if policy is None:
            policy = self.local.policy = self.spec.build(self.surface, goal)
        else:
            policy.set_goal(goal)
        return policy


def score_sample(fmt: str, sample: Sample, actions: list[Any]) -> matching.Match:
    if fmt == "androidcontrol":
        return matching.match_androidcontrol(actions, sample.gt["action"], sample.size, sample.gt["box"])
    if fmt == "guiodyssey":
        return matching.match_guiodyssey(actions, sample.gt["action"], sample.gt["info"])
    return matching.match_mind2web(actions, sample.gt, sample.size)


def _predict(config: OfflineConfig, policies: _Policies, sample: Sample, setting: str) -> dict[str, Any]:
    from venuskit.actions import format_response
    from venuskit.actions.history import Turn
    from venuskit.envs.base import Observation

    surface = SURFACE[config.format]
    history = [Turn(png=png, response=format_response(None, action, surface)) for png, action in sample.history]
    t0 = time.perf_counter()
    out = policies.get(goal_for(sample, setting)).act(Observation(sample.png, *sample.size), history, None)
    match = score_sample(config.format, sample, [] if out.error else list(out.actions))
    usage = out.usage or {}
    return {"key": f"{setting}/{sample.key}", "setting": setting, "episode": sample.episode, "step": sample.step,
            "gt": dict(sample.gt), **match.to_dict(), "raw": out.raw,
            "parse_error": str(out.error) if out.error else None, "seconds": round(time.perf_counter() - t0, 3),
            "tokens": int(usage.get("prompt_tokens") or 0) + int(usage.get("completion_tokens") or 0)}  # fmt: skip


def run_offline_eval(config: OfflineConfig,
                     on_progress: Callable[[int], None] | None = None) -> dict[str, Any]:  # fmt: skip
    """Score every step (resuming from details.jsonl), write the report and return the summary."""
    from venuskit.eval.report import write_html_summary
    from venuskit.infra.atomic import write_json

    out = Path(config.out)
    out.mkdir(parents=True, exist_ok=True)
    ledger = Ledger(out, "details.jsonl")
    done = ledger.rows()
    policies = _Policies(config.policy, SURFACE[config.format])
    n = 0
    with ThreadPoolExecutor(max_workers=config.workers, thread_name_prefix="offline") as pool:
        for sample in samples(config.format, config.data, split=config.split, limit=config.limit):
            todo = [s for s in config.active_settings if f"{s}/{sample.key}" not in done]
            for row in pool.map(lambda s, sample=sample: _predict(config, policies, sample, s), todo):
                ledger.write(row)
                done[row["key"]] = row
            n += 1
            if on_progress is not None:
                on_progress(n)
    rows = list(done.values())
    if not rows:
        raise ValueError(f"{config.data} holds no {config.format} step to evaluate.")
    summary = offline_summary(rows, config.active_settings)
    summary.update(format=config.format, data=str(config.data), model=config.policy.public())
    write_json(out / "report.json", {"summary": summary, "config": {**config.policy.public(), "format": config.format,
               "data": config.data, "settings": list(config.active_settings)}}, durable=False)  # fmt: skip
    per = {s: {k: summary["settings"][s][k] for k in ("type_acc", "grounding_acc", "step_sr")}
           for s in summary["settings"]}  # fmt: skip
    write_html_summary(f"Offline {config.format}", {f"setting {s}": v for s, v in per.items()},
                       out / "summary.html", headline={k: summary[k] for k in ("type_acc", "grounding_acc", "step_sr",
                                                                               "steps")})  # fmt: skip
    return summary


def _metrics(rows: list[dict[str, Any]]) -> dict[str, Any]:
    located = [r for r in rows if r["ground_ok"] is not None]

    def share(rs: list[dict[str, Any]], key: str) -> tuple[float, list[float]]:
        k = sum(bool(r[key]) for r in rs)
        low, high = M.wilson(k, len(rs))
        return M.rounded(M.div(k, len(rs))), [M.rounded(low), M.rounded(high)]

    type_acc, type_ci = share(rows, "type_ok")
    ground, ground_ci = share(located, "ground_ok")
    step, step_ci = share(rows, "step_ok")
    out = {"type_acc": type_acc, "grounding_acc": ground, "step_sr": step, "steps": len(rows),
           "grounding_steps": len(located), "ci95": {"type_acc": type_ci, "grounding_acc": ground_ci,
                                                     "step_sr": step_ci},
           "parse_errors": sum(1 for r in rows if r.get("parse_error"))}  # fmt: skip
    f1 = [r["pred"]["op_f1"] for r in rows if isinstance(r.get("pred"), dict) and "op_f1" in r["pred"]]
    if f1:
        out["op_f1"] = M.rounded(statistics.fmean(f1))
    return out


def offline_summary(rows: list[dict[str, Any]], settings: tuple[str, ...]) -> dict[str, Any]:
    per = {s: _metrics([r for r in rows if r["setting"] == s]) for s in settings
           if any(r["setting"] == s for r in rows)}  # fmt: skip
    by_type: dict[str, list[dict[str, Any]]] = {}
    for r in rows:
        gt = r["gt"].get("action")
        kind = gt.get("action_type") if isinstance(gt, dict) else (gt or r["gt"].get("op"))
        by_type.setdefault(str(kind), []).append(r)
    return {**_metrics(rows), "settings": per,
            "by_action_type": {k: {"n": len(v), "step_sr": M.rounded(M.div(sum(r["step_ok"] for r in v), len(v)))}
                               for k, v in sorted(by_type.items())}}  # fmt: skip
