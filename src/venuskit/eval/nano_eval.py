"""Evaluating a venus-nano checkpoint through venuskit's real paths (never a private shortcut):

- world tasks: `venuskit.runs.world.run_world_task` with `NanoPolicy`, scored by the task contracts, on
  held-out templates and evaluation seeds (`venuskit.tasks.splits`);
- grounding: `venuskit.eval.grounding.run_grounding_eval` (ScreenSpot-Pro protocol) on pages synthesised from the
  held-out element families and an evaluation seed;
- CAPTCHA: `venuskit.eval.captcha.run_captcha_eval` on the held-out types and evaluation seeds;
- MiniWoB++: the browser env's MiniWoB++ tasks (never training data), the raw reward;
- speed: one `act` per recorded world screen (decode, reading, network, formatting), and the process RSS.

The eval modules take any backend with `complete(messages) -> .text`; `NanoBackend` is venus-nano in process.
The world, synthesis and browser packages are imported inside the functions (importing this module stays cheap).
"""

from __future__ import annotations

import statistics
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from venuskit.models.nano.model import NanoModel


@dataclass(frozen=True)
class _Usage:
    prompt_tokens: int
    completion_tokens: int


@dataclass(frozen=True)
class _Completion:
    text: str
    usage: _Usage
    latency_s: float
    reasoning: str | None = None
    finish_reason: str = "stop"


class NanoBackend:
    """venus-nano with the backend interface the eval modules call (`complete(messages)`)."""

    def __init__(self, model: NanoModel) -> None:
        self.model = model

    def complete(self, messages: list[dict[str, Any]]) -> _Completion:
        t0 = time.perf_counter()
        text, usage = self.model.complete(messages)
        return _Completion(text, _Usage(usage["prompt_tokens"], usage["completion_tokens"]), time.perf_counter() - t0)


def world_success(model: NanoModel, templates: list[str], seeds: list[int], surface: str, out: Path,
                  max_steps: int | None = None) -> dict[str, Any]:  # fmt: skip
    """Contract verdicts of venus-nano on every (template, seed); success = `completed` (or `infeasible` on an
    infeasible task, which is the right answer there)."""
    from venuskit.tasks import splits

    lo, hi = splits.load().world_eval_seeds
    if any(not lo <= s <= hi for s in seeds):
        raise ValueError(f"World evaluation uses evaluation seeds {lo}..{hi} only, got {seeds}.")
    return _world_runs(model, templates, seeds, surface, out, max_steps)


def _world_runs(model: NanoModel, templates: list[str], seeds: list[int], surface: str, out: Path,
                max_steps: int | None = None) -> dict[str, Any]:  # fmt: skip
    from venuskit.agent.nano import nano_policy_factory
    from venuskit.runs.world import run_world_task, world_browser
    from venuskit.tasks.contract import solved
    from venuskit.tasks.spec import get_task
    from venuskit.world.server import WorldServer

    rows = []
    env = world_browser(surface)
    try:
        with WorldServer() as server:
            for tid in templates:
                if surface not in get_task(tid).surfaces:
                    continue
                for seed in seeds:
                    t0 = time.perf_counter()
                    forbidden: list[str] = []
                    try:
                        run = run_world_task(tid, seed, policy=nano_policy_factory(surface, model), out=out,
                                             surface=surface, server=server, env=env, max_steps=max_steps)  # fmt: skip
                        verdict, folder, end = run.verdict.verdict, str(run.episode_dir), run.episode.outcome.reason
                        forbidden = list(run.verdict.forbidden)
                    except Exception as exc:  # noqa: BLE001 - a crashed episode is a failed one, and is reported
                        verdict, folder, end = "error", None, f"{type(exc).__name__}: {exc}"
                    ok = solved(verdict, get_task(tid).feasible)
                    rows.append({"task": tid, "seed": seed, "verdict": verdict, "success": ok, "end": end,
                                 "premature_finish": end in ("finished", "answer") and not ok,
                                 "side_effect": bool(forbidden), "forbidden": forbidden[:3],
                                 "episode_dir": folder, "seconds": round(time.perf_counter() - t0, 2)})  # fmt: skip
    finally:
        env.close()
    return world_tally(rows)


def world_tally(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """Success rate with its 95% Wilson interval, and the two failure counts the done decision is judged by: a
    Finished/Answer that did not solve the task (premature), and an episode with a forbidden side effect."""
    from venuskit.eval import metrics as M

    n, k = len(rows), sum(r["success"] for r in rows)
    return {
        "success": k / n if n else 0.0,
        "n": n,
        "solved": k,
        "ci95": list(M.wilson(k, n)),
        "premature_finish": sum(r.get("premature_finish", False) for r in rows),
        "side_effects": sum(r.get("side_effect", False) for r in rows),
        "rows": rows,
    }


VALIDATION_SEED_OFFSET = 4500  # training seeds no collection uses (oracle data counts up from 0, rollouts from 2000)


def validation_success(model: NanoModel, out: Path, seeds: int = 2, surface: str = "browser",
                       category: str | None = None) -> dict[str, Any]:  # fmt: skip
    """Contract verdicts on the validation templates (training templates kept out of training while the recipe is
    developed), on training seeds that no collection uses: the figure to develop against, never a held-out one."""
    from venuskit.tasks import splits
    from venuskit.tasks.spec import get_task
    from venuskit.tasks.splits import validation_templates

    lo = splits.load().world_train_seeds[0] + VALIDATION_SEED_OFFSET
    templates = [t for t in validation_templates() if category is None or get_task(t).category == category]
    return _world_runs(model, templates, list(range(lo, lo + seeds)), surface, out)


def grounding_acc(model: NanoModel, out: Path, n: int = 100, seed: int | None = None) -> dict[str, Any]:
    """ScreenSpot-Pro accuracy on held-out element families, synthesised from an evaluation seed."""
    from venuskit.eval.grounding import GroundingEvalConfig, grounding_model_config, run_grounding_eval
    from venuskit.synth.grounding import GroundingConfig, generate
    from venuskit.tasks import splits

    s = splits.load()
    seed = s.grounding_eval_seeds[0] if seed is None else seed
    data = out / "data"
    if not (data / "manifest.json").is_file():
        generate(GroundingConfig(n=n, seed=seed, families=tuple(sorted(s.grounding_heldout_families)),
                                 refusal_share=0.0), data, fmt="screenspot-pro")  # fmt: skip
    cfg = GroundingEvalConfig(data=str(data), out=str(out / "eval"), workers=1,
                              model=grounding_model_config("http://127.0.0.1:1/v1", model.name))  # fmt: skip
    report = run_grounding_eval(cfg, backend=NanoBackend(model))
    metrics = report["metrics"]
    by = {c: {k: round(v["action_acc"], 4) for k, v in metrics["by_category"].get(c, {}).items()}
          for c in ("instruction_style", "application", "ui_type", "language")}  # fmt: skip
    return {"acc": metrics["overall"]["action_acc"], "n": metrics["overall"]["num_total"], **{f"by_{c}": v
            for c, v in by.items()}}  # fmt: skip


def captcha_pass1(model: NanoModel, out: Path, seeds: int = 2) -> dict[str, Any]:
    """CAPTCHA Pass@1 on the held-out types, evaluation seeds."""
    from venuskit.eval.captcha import CaptchaEvalConfig, run_captcha_eval
    from venuskit.tasks import splits

    s = splits.load()
    ev = splits.eval_seeds(s.captcha_eval_seeds, seeds)
    cfg = CaptchaEvalConfig(types=sorted(s.captcha_heldout_types), seeds=ev, out=out)
    report = run_captcha_eval(NanoBackend(model), cfg, model_info={"model": model.name})
    return {"pass1": report["overall"]["pass_at_1"], "n": report["overall"]["n"],
            "per_family": {f: v["pass_at_1"] for f, v in report["per_family"].items()},
            "per_type": {t: v["pass_at_1"] for t, v in report["per_type"].items()}}  # fmt: skip


def miniwob_success(model: NanoModel, out: Path, tasks: list[str] | None = None, seeds: int = 5,
                    max_steps: int = 8) -> dict[str, Any]:  # fmt: skip
    """Mean raw-reward success over deterministic MiniWoB++ tasks (the out-of-domain test)."""
    from venuskit.agent.nano import NanoPolicy
    from venuskit.agent.runner import RunConfig
    from venuskit.agent.session import AgentJob, run_episode
    from venuskit.envs.miniwob import MiniWobEnv, default_config, list_tasks

    tasks = tasks or list_tasks(deterministic_only=True)[:20]
    rows = []
    for task in tasks:
        env = MiniWobEnv(task, config=default_config(task))
        try:
            for seed in range(seeds):
                job = AgentJob(goal=f"MiniWoB++ {task}", surface="browser", out=out,
                               run=RunConfig(max_steps=max_steps))  # fmt: skip
                policy = NanoPolicy("browser", job.goal, model)
                episode, _ = run_episode(env, policy, job, {"miniwob": task, "seed": seed})
                reward = episode.outcome.reward
                rows.append({"task": task, "seed": seed, "reward": reward, "success": bool(reward and reward > 0)})
        finally:
            env.close()
    n = len(rows)
    return {"success": sum(r["success"] for r in rows) / n if n else 0.0, "n": n, "tasks": len(tasks), "rows": rows}


def step_speed(model: NanoModel, pngs: list[bytes], goal: str) -> dict[str, float]:
    """Milliseconds per decision over recorded screens (everything: decode, reading, network, reply) and RSS."""
    import psutil

    times = []
    for png in pngs:
        t0 = time.perf_counter()
        model.act(png, goal, [], "browser")
        times.append((time.perf_counter() - t0) * 1000)
    times.sort()
    p90 = times[min(len(times) - 1, int(0.9 * len(times)))] if times else 0.0
    return {"step_ms_p50": statistics.median(times) if times else 0.0, "step_ms_p90": p90,
            "rss_mb": psutil.Process().memory_info().rss / 2**20}  # fmt: skip
