"""`venus loop`: the closed loop in rounds, with venus-nano as the policy.

Each round:
  1. rollouts: the current checkpoint on training templates (train split, a fresh train seed per round), drawn
     with the sampling weights of the previous round's failures, through the world suite (workers or Ray);
  2. verdicts: SGV judges every rollout from its trajectory alone; the contract verdict is recorded beside it,
     only to measure the verifier inside the loop (never to pick training data);
  3. rows: the steps of SGV-verified successes become training rows (their own actions are the references):
     SFT rows, and the same states as step groups for GRPO;
  4. training: venus-nano's SFT stage from the current checkpoint, then its GRPO stage (venuskit.train.nano);
  5. evaluation: the new checkpoint on held-out templates (eval seeds), contract verdicts;
  6. failure write-back: which templates and contract keypoints failed in the rollouts, turned into the next
     round's template weights by the task synthesis coverage model (venuskit.tasks.synth.coverage).

The run folder holds `rounds.jsonl` (one line per round: the round table), `rounds.html` with the learning
curves, and per round `round_<k>/` with the rollout and eval suite folders, `data.json` (every training row's
episode and step: each round's data is traceable to its episodes), the stage checkpoints and `failures.json`.
A rerun of the same folder resumes after the last finished round.
"""

from __future__ import annotations

import json
import random
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from venuskit.eval.parallel import Parallel
from venuskit.eval.suites.common import PolicySpec
from venuskit.eval.suites.world import WorldSuiteConfig, run_world_suite, solved
from venuskit.infra.atomic import append_line, write_json, write_text

ROUNDS = "rounds.jsonl"


def _help(text: str) -> dict[str, str]:
    return {"help": text}


@dataclass(frozen=True)
class LoopConfig:
    """The closed loop's rounds."""

    out: str = field(metadata=_help("Run folder (round table, curves, each round's data and checkpoints)."))
    rounds: int = field(default=3, metadata=_help("Rounds to run (a rerun resumes after the last finished one)."))
    rollouts: int = field(default=16, metadata=_help("Rollout episodes per round (training templates)."))
    templates: str = field(default="*", metadata=_help("Training template globs to draw rollouts from."))
    eval_templates: str = field(default="*", metadata=_help("Held-out template globs for each round's evaluation."))
    eval_seeds: int = field(default=1, metadata=_help("Eval seeds per held-out template."))
    surface: str = field(default="browser", metadata=_help("browser or mobile."))
    max_steps: int = field(default=15, metadata=_help("Step limit of rollout and eval episodes."))
    sgv: str = field(default="ocr,log", metadata=_help("SGV judges that pick the verified successes."))
    init: str = field(default="", metadata=_help("Starting checkpoint (default: the shipped venus-nano)."))
    sft_epochs: int = field(default=5, metadata=_help("SFT epochs per round."))
    grpo_epochs: int = field(default=1, metadata=_help("GRPO epochs per round."))
    group_size: int = field(default=4, metadata=_help("GRPO samples per state (G)."))
    stage_minutes: float = field(default=3.0, metadata=_help("Time cap of each training stage per round."))
    seed: int = field(default=0, metadata=_help("Seed of template sampling and training."))

    def __post_init__(self) -> None:
        if self.rounds < 1 or self.rollouts < 1 or self.eval_seeds < 1:
            raise ValueError("--rounds, --rollouts and --eval-seeds must be at least 1.")
        if self.surface not in ("browser", "mobile"):
            raise ValueError(f"--surface takes browser or mobile; got {self.surface!r}.")
        if self.sgv == "off":
            raise ValueError("The loop picks its training data by SGV verdicts; --sgv cannot be off.")


def _checkpoint(config: LoopConfig) -> str:
    from venuskit.models.nano import default_checkpoint

    return config.init or str(default_checkpoint())


def template_pool(config: LoopConfig) -> list[str]:
    import fnmatch

    from venuskit.tasks import splits
    from venuskit.tasks.spec import get_task

    globs = [g.strip() for g in config.templates.split(",") if g.strip()] or ["*"]
    pool = [t for t in splits.world_templates("train") if any(fnmatch.fnmatchcase(t, g) for g in globs)
            and config.surface in get_task(t).surfaces]  # fmt: skip
    if not pool:
        raise ValueError(f"No training template matches {config.templates!r} on the {config.surface} surface.")
    return pool


def draw(pool: list[str], weights: dict[str, float], k: int, rng: random.Random) -> list[str]:
    """k templates without replacement (all of them when k >= the pool), each drawn in proportion to its weight."""
    left, picked = list(pool), []
    while left and len(picked) < k:
        t = rng.choices(left, weights=[max(1e-6, weights.get(x, 1.0)) for x in left])[0]
        picked.append(t)
        left.remove(t)
    return picked


def write_back(rollout_rows: list[dict[str, Any]], pool: list[str], out: Path) -> dict[str, float]:
    """The failure write-back: failed templates and keypoints (to `failures.json`) and the next round's template
    weights from the task-synthesis coverage model (capability holes and failure rates)."""
    from venuskit.tasks.spec import get_task
    from venuskit.tasks.synth.catalog import bundled_catalog
    from venuskit.tasks.synth.coverage import coverage_of, failures_of, sampling_weights, template_weights

    catalog = bundled_catalog()
    outcomes = []
    failed: dict[str, dict[str, Any]] = {}
    for r in rollout_rows:
        if r.get("infra_error"):
            continue
        contract = json.loads((out.parent / "rollouts" / r["episode_dir"] / "manifest.json").read_text())["verdicts"]
        outcomes.append((get_task(r["template"]), contract["contract"]))
        if not solved(r):
            entry = failed.setdefault(r["template"], {"episodes": 0, "keypoints": {}})
            entry["episodes"] += 1
            for kp in r.get("keypoints", []):
                if not kp["ok"]:
                    entry["keypoints"][kp["desc"]] = entry["keypoints"].get(kp["desc"], 0) + 1
    weights = sampling_weights(coverage_of([get_task(t) for t in pool], catalog), failures_of(outcomes, catalog))
    tw = template_weights(weights, catalog, pool)
    write_json(out, {"failed_templates": failed, "template_weights": tw}, durable=True)
    return tw


def _train(config: LoopConfig, folder: Path, episode_dirs: list[Path], init: str) -> tuple[str, dict[str, Any]]:
    """SFT then GRPO from `init` on the verified successes; returns the new checkpoint and what happened."""
    from venuskit.models.nano import NanoModel
    from venuskit.train.data import VerdictFilter, build_rows
    from venuskit.train.nano import GRPOConfig, SFTConfig, examples, grpo, sft

    rows, rejected = build_rows(episode_dirs, "rl", n_img=50, verdict=VerdictFilter("sgv", ("completed",)))
    write_json(folder / "data.json", {"rows": [{"episode_id": r["episode_id"], "step": r["step"]} for r in rows],
               "episode_dirs": [str(d) for d in episode_dirs], "rejected": dict(rejected.counts)},
               durable=True)  # fmt: skip
    exs, skipped = examples(rows, NanoModel.load(init))
    info: dict[str, Any] = {"rows": len(rows), "examples": len(exs), "skipped": skipped}
    if not exs:
        info["trained"] = "no verified success gave a usable example: the checkpoint is kept"
        return init, info
    first = sft(exs, folder / "sft", SFTConfig(epochs=config.sft_epochs, seed=config.seed,
                                               max_minutes=config.stage_minutes), init=Path(init))  # fmt: skip
    second = grpo(exs, first.checkpoint, folder / "grpo",
                  GRPOConfig(group_size=config.group_size, epochs=config.grpo_epochs, seed=config.seed,
                             max_minutes=config.stage_minutes),
                  domain="web" if config.surface == "browser" else "mobile")  # fmt: skip
    info.update(sft_train_acc=first.metrics.get("train_acc"), grpo=_small(second.metrics), trained="sft+grpo")
    return str(second.checkpoint), info


def _small(metrics: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in metrics.items() if not isinstance(v, list)}


def _verifier_in_loop(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """How SGV's picks compare with the contract: the precision of 'verified success' is what training relies on."""
    judged = [r for r in rows if r.get("sgv") and not r.get("infra_error")]
    picked = [r for r in judged if r["sgv"]["verdict"] == "completed"]  # decided successes only: never "uncertain"
    return {"verified": len(picked), "contract_completed": sum(r["contract"] == "completed" for r in judged),
            "uncertain": sum(r["sgv"]["verdict"] == "uncertain" for r in judged),
            "verified_and_completed": sum(r["contract"] == "completed" for r in picked),
            "sgv_precision": round(sum(r["contract"] == "completed" for r in picked) / len(picked), 4)
            if picked else None}  # fmt: skip


def run_round(config: LoopConfig, k: int, checkpoint: str, weights: dict[str, float],
              parallel: Parallel) -> dict[str, Any]:  # fmt: skip
    from venuskit.tasks import splits

    t0 = time.perf_counter()
    folder = Path(config.out) / f"round_{k}"
    pool = template_pool(config)
    chosen = draw(pool, weights, config.rollouts, random.Random(config.seed * 1000 + k))
    seed = splits.load().world_train_seeds[0] + k  # a fresh training instance of each template every round
    policy = PolicySpec("nano", checkpoint=checkpoint)
    rollout = WorldSuiteConfig(out=str(folder / "rollouts"), policy=policy, templates=",".join(chosen), split="train",
                               seeds=(seed,), surfaces=(config.surface,), max_steps=config.max_steps, sgv=config.sgv)
    summary = run_world_suite(rollout, parallel, resume=(folder / "rollouts" / "suite.json").exists())
    rows = [json.loads(line) for line in (folder / "rollouts" / "results.jsonl").read_text().splitlines()]
    dirs = [folder / "rollouts" / r["episode_dir"] for r in rows if not r.get("infra_error")]
    new_checkpoint, trained = _train(config, folder, dirs, checkpoint)
    evaluation = WorldSuiteConfig(out=str(folder / "eval"), policy=PolicySpec("nano", checkpoint=new_checkpoint),
                                  templates=config.eval_templates, split="heldout", n_seeds=config.eval_seeds,
                                  surfaces=(config.surface,), max_steps=config.max_steps, sgv="off")  # fmt: skip
    evaluated = run_world_suite(evaluation, parallel, resume=(folder / "eval" / "suite.json").exists())
    next_weights = write_back(rows, pool, folder / "failures.json")
    return {"round": k, "checkpoint_in": checkpoint, "checkpoint": new_checkpoint, "templates": chosen,
            "rollouts": summary["episodes"], "rollout_success": summary["success"],
            **_verifier_in_loop(rows), **trained, "eval_episodes": evaluated["episodes"],
            "eval_success": evaluated["success"], "eval_ci95": evaluated["rates"]["success"]["ci95"],
            "infra_errors": summary["infra_errors"] + evaluated["infra_errors"], "next_weights": next_weights,
            "seconds": round(time.perf_counter() - t0, 1)}  # fmt: skip


def run_loop(config: LoopConfig, parallel: Parallel = Parallel(), on_round=None) -> list[dict[str, Any]]:  # noqa: ANN001
    """Run the rounds (resuming after the last one in `rounds.jsonl`); returns the round table."""
    out = Path(config.out)
    out.mkdir(parents=True, exist_ok=True)
    table_path = out / ROUNDS
    table = [json.loads(line) for line in table_path.read_text().splitlines()] if table_path.exists() else []
    write_json(out / "loop.json", asdict(config), durable=True)
    checkpoint = table[-1]["checkpoint"] if table else _checkpoint(config)
    weights = table[-1]["next_weights"] if table else {}
    for k in range(len(table), config.rounds):
        row = run_round(config, k, checkpoint, weights, parallel)
        append_line(table_path, json.dumps(row, ensure_ascii=False).encode("utf-8"), durable=True)
        table.append(row)
        checkpoint, weights = row["checkpoint"], row["next_weights"]
        write_curves(out, table)
        if on_round is not None:
            on_round(row)
    return table


def write_curves(out: Path, table: list[dict[str, Any]]) -> Path:
    """rounds.html: the round table and the learning curves (held-out success with its 95% CI, rollout success,
    SGV's precision on its own picks) as an embedded matplotlib plot."""
    import base64
    import html
    import io

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    xs = [r["round"] for r in table]
    fig, ax = plt.subplots(figsize=(6.5, 3.6))
    ev = [r["eval_success"] for r in table]
    lo = [r["eval_success"] - r["eval_ci95"][0] for r in table]
    hi = [r["eval_ci95"][1] - r["eval_success"] for r in table]
    ax.errorbar(xs, ev, yerr=[lo, hi], marker="o", capsize=3, label="held-out success (contract, 95% CI)")
    ax.plot(xs, [r["rollout_success"] for r in table], marker="s", label="rollout success (train templates)")
    ax.plot(xs, [r["sgv_precision"] if r["sgv_precision"] is not None else float("nan") for r in table],
            marker="^", label="SGV precision of verified successes")  # fmt: skip
    ax.set_xlabel("round")
    ax.set_ylim(-0.05, 1.05)
    ax.set_xticks(xs)
    ax.legend(fontsize=7)
    buf = io.BytesIO()
    fig.savefig(buf, format="png", dpi=90, bbox_inches="tight")
    plt.close(fig)
    cols = ("round", "rollouts", "rollout_success", "verified", "sgv_precision", "rows", "examples", "trained",
            "eval_episodes", "eval_success", "infra_errors", "seconds")  # fmt: skip
    head = "".join(f"<th>{c}</th>" for c in cols)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(str(r.get(c, '')))}</td>" for c in cols) + "</tr>"
                   for r in table)  # fmt: skip
    img = base64.b64encode(buf.getvalue()).decode("ascii")
    page = (f'<!doctype html><html><head><meta charset="utf-8"><title>venus loop</title></head><body>'
            f'<h1>venus loop: {len(table)} rounds</h1><img alt="learning curves" src="data:image/png;base64,{img}">'
            f"<table border=1 cellspacing=0 cellpadding=3><tr>{head}</tr>{body}</table></body></html>")  # fmt: skip
    return write_text(out / "rounds.html", page, durable=False)
