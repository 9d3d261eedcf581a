"""The flywheel's curves from one finished `venus nano train` run: how held-out and validation short success move
with the number of training tasks (`scaling`), and with each of the report's three axes turned down alone
(`axes`: one skin instead of many, the hand-written templates instead of the synthesised set; the verification
axis is `venus loop --keep all` against `--keep sgv`, measured by the loop).

Every point is venus-nano's SFT stage trained from scratch with the same seed and the same budget (the same number
of examples seen: a smaller set gets proportionally more epochs), on rows read from the run's own feature cache;
grounding and CAPTCHA rows stay in every point. Each checkpoint is evaluated by the world suite: held-out short
templates on evaluation seeds, and the validation slice's short templates on training seeds no collection uses,
both on the default skin and scored by the task contracts. A rerun of the same folder reuses every point done.

    out/points/<name>/venus-nano.pt, metrics.json, heldout/, validation/   one folder per point
    out/curves.json                                                        every point's figures
"""

from __future__ import annotations

import json
import math
import random
import shutil
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from venuskit.eval.suites.world import WorldSuiteConfig, run_world_suite
from venuskit.infra.atomic import write_json
from venuskit.runs.parallel import Parallel
from venuskit.runs.policies import PolicySpec
from venuskit.train.nano.data import Example

HAND = "hand-written"


class CurveError(RuntimeError):
    """A point could not be measured (its evaluation episodes did not run); the points done are kept."""


@dataclass(frozen=True)
class CurveConfig:
    """`flywheel.curves`: the scaling curve and the axes ablation of one recipe run."""

    run: Path  # a finished `venus nano train` folder
    out: Path
    points: int = 4  # scaling points: the hand-written templates alone, then synthesised tasks added in equal steps
    epochs: int = 10  # SFT epochs of the largest set; smaller sets see as many examples in all
    seed: int = 0
    eval_seeds: int = 1
    workers: int = 2
    max_steps: int = 15
    environments: bool = True  # the one-skin point (collects the run's jobs again on the default skin)

    def __post_init__(self) -> None:
        if self.points < 2 or self.epochs < 1 or self.eval_seeds < 1 or self.workers < 1:
            raise ValueError("points must be at least 2; epochs, eval_seeds and workers at least 1.")


def synthesised(task_id: str) -> bool:
    """A task from a task file (`venus tasks synth`), not a hand-written template."""
    from venuskit.tasks.spec import bundled

    return task_id not in bundled()


def task_order(world: list[Example], seed: int) -> list[str]:
    """The synthesised tasks of the world rows in a seeded order: the scaling curve adds them in this order, so
    every point's set holds the previous point's."""
    tasks = sorted({e.row["task"] for e in world if synthesised(e.row["task"])})
    random.Random(f"scaling:{seed}").shuffle(tasks)
    return tasks


def scaling_sets(world: list[Example], points: int, seed: int) -> list[tuple[str, int, list[Example]]]:
    """(name, training tasks, world examples) per point: the hand-written templates alone, then with the first
    k of the synthesised tasks for `points - 1` equal steps up to all of them."""
    hand = [e for e in world if not synthesised(e.row["task"])]
    order = task_order(world, seed)
    n_hand = len({e.row["task"] for e in hand})
    out = []
    for i in range(points):
        k = round(len(order) * i / (points - 1))
        chosen = set(order[:k])
        exs = world if k == len(order) else hand + [e for e in world if e.row["task"] in chosen]
        out.append((f"tasks-{n_hand + k}", n_hand + k, exs))  # the last point is the run's own set, in its order
    return out


def one_skin(cfg: CurveConfig) -> list[Example]:
    """The environments axis turned down: the run's own world jobs (same templates, variants, seeds and surfaces)
    collected again on the default skin alone, into out/world-one-skin (resumable), read with the run's caches."""
    from venuskit.flywheel import collect, rows
    from venuskit.flywheel.nano import run_config, run_featurise, templates_of

    run = run_config(cfg.run)
    jobs = collect.world_jobs(templates_of(run), run.surfaces, seeds_per_variant=run.seeds_per_variant, skins=(0,))
    episodes = collect.world_oracle_episodes(cfg.out / "world-one-skin", jobs, parallel=Parallel(workers=cfg.workers),
                                             task_files=run.task_files())  # fmt: skip
    return run_featurise(cfg.run, "one_skin", rows.world_rows(episodes, False), cfg.workers)


def _train(name: str, exs: list[Example], cfg: CurveConfig, budget: int) -> Path:
    from venuskit.flywheel.nano import run_config
    from venuskit.train.nano.sft import SFTConfig, sft

    folder = cfg.out / "points" / name
    if (folder / "venus-nano.pt").is_file() and (folder / "metrics.json").is_file():
        return folder / "venus-nano.pt"
    epochs = max(1, math.ceil(budget / max(1, len(exs))))  # the same examples seen at every point
    if _is_run_sft(cfg, len(exs), epochs):  # the full set at the run's own epochs and seed: the run's SFT stage
        folder.mkdir(parents=True, exist_ok=True)
        for name_ in ("venus-nano.pt", "metrics.json"):
            shutil.copyfile(Path(cfg.run) / "sft" / name_, folder / name_)
        return folder / "venus-nano.pt"
    run = run_config(cfg.run)  # the run's own network: its size and whether it reads the icon-name block
    return sft(exs, folder, SFTConfig(epochs=epochs, seed=cfg.seed, size=run.size, icon_names=run.icon_names,
                                      max_minutes=60.0)).checkpoint  # fmt: skip


def _is_run_sft(cfg: CurveConfig, n: int, epochs: int) -> bool:
    """Whether a point is exactly the run's SFT stage (same examples, epochs and seed), so its checkpoint is reused
    instead of trained again to the same weights."""
    from venuskit.flywheel.nano import run_config

    metrics = Path(cfg.run) / "sft" / "metrics.json"
    if not metrics.is_file():
        return False
    run = run_config(cfg.run)
    info = json.loads(metrics.read_text("utf-8"))
    return (run.seed, run.sft_epochs) == (cfg.seed, epochs) and info.get("metrics", {}).get("train_examples") == n


def _suite(checkpoint: Path, out: Path, templates: list[str], split: str, seeds: tuple[int, ...],
           cfg: CurveConfig) -> dict[str, Any]:  # fmt: skip
    config = WorldSuiteConfig(out=str(out), policy=PolicySpec("nano", checkpoint=str(checkpoint)),
                              templates=",".join(templates), split=split, seeds=seeds, surfaces=("browser",),
                              max_steps=cfg.max_steps, sgv="off")  # fmt: skip
    done = run_world_suite(config, Parallel(workers=cfg.workers), resume=(out / "suite.json").exists())
    failed = done.get("infra_failures") or []
    if failed or done.get("missing"):  # a point measured on the episodes that happened to run is no point
        first = failed[0]["error"] if failed else "episodes missing"
        raise CurveError(f"{out}: {len(failed) or done['missing']} evaluation episodes did not run ({first}); the "
                         "same command runs them again and keeps the rest.")  # fmt: skip
    return {"n": done["episodes"], "success": done["success"], "ci95": done["rates"]["success"]["ci95"]}


def evaluate(checkpoint: Path, folder: Path, cfg: CurveConfig) -> dict[str, Any]:
    """Held-out short (evaluation seeds) and validation short (unused training seeds) success, default skin."""
    from venuskit.eval.nano_eval import VALIDATION_SEED_OFFSET
    from venuskit.tasks import splits
    from venuskit.tasks.spec import get_task

    heldout = [t for t in splits.world_templates("heldout", "short") if "browser" in get_task(t).surfaces]
    val = [t for t in splits.validation_templates() if get_task(t).category == "short"]
    lo = splits.load().world_train_seeds[0] + VALIDATION_SEED_OFFSET
    return {"heldout_short": _suite(checkpoint, folder / "heldout", heldout, "heldout",
                                    tuple(splits.eval_seeds(splits.load().world_eval_seeds, cfg.eval_seeds)), cfg),
            "validation_short": _suite(checkpoint, folder / "validation", val, "train",
                                       tuple(range(lo, lo + cfg.eval_seeds)), cfg)}  # fmt: skip


def teacher_forced(checkpoint: Path, val: list[Example]) -> dict[str, Any] | None:
    """Greedy decisions on the validation templates' oracle states against the oracle's actions (type, target,
    text, all three): how well a point transfers, measured without rolling out."""
    if not val:
        return None
    from venuskit.models.nano.model import NanoModel
    from venuskit.train.nano.common import step_accuracy

    acc = step_accuracy(NanoModel.load(checkpoint).net, val)
    return {k: round(v, 4) if isinstance(v, float) else v for k, v in acc.items()}


def _point(name: str, exs: list[Example], extra: list[Example], cfg: CurveConfig, budget: int,
           info: dict[str, Any], val: list[Example]) -> dict[str, Any]:  # fmt: skip
    checkpoint = _train(name, exs + extra, cfg, budget)
    figures = evaluate(checkpoint, cfg.out / "points" / name, cfg)
    return {"name": name, **info, "examples": len(exs) + len(extra), "checkpoint": str(checkpoint), **figures,
            "validation_teacher_forced": teacher_forced(checkpoint, val)}  # fmt: skip


def run_curves(cfg: CurveConfig) -> dict[str, Any]:
    """Every scaling point and axis point (each resumable); writes and returns out/curves.json."""
    from venuskit.flywheel.nano import run_config, run_examples

    data = run_examples(cfg.run)
    world = data["world"]
    extra = data.get("grounding", []) + data.get("captcha", [])
    sets = scaling_sets(world, cfg.points, cfg.seed)
    if len({len(exs) for _, _, exs in sets}) < 2:
        raise ValueError(f"{cfg.run} trained on no synthesised task (`venus nano train --tasks`): no scaling curve.")
    val = data.get("validation", [])  # the validation templates' oracle states: never trained on by any point
    budget = cfg.epochs * (len(world) + len(extra))
    scaling = [_point(name, exs, extra, cfg, budget, {"tasks": n}, val) for name, n, exs in sets]
    keys = ("name", "examples", "heldout_short", "validation_short", "validation_teacher_forced")
    full = scaling[-1]
    axes: dict[str, Any] = {"full": {k: full[k] for k in keys}}
    if cfg.environments and len(set(run_config(cfg.run).skins)) > 1:
        one = _point("one-skin", one_skin(cfg), extra, cfg, budget, {"skins": 1}, val)
        axes["environments"] = {k: one[k] for k in keys}
    axes["tasks"] = {k: scaling[0][k] for k in keys}
    result = {"run": str(cfg.run), "seed": cfg.seed, "budget_examples": budget, "eval_seeds": cfg.eval_seeds,
              "scaling": [{"tasks": p["tasks"], **{k: p[k] for k in keys[1:]}} for p in scaling],
              "axes": axes}  # fmt: skip
    Path(cfg.out).mkdir(parents=True, exist_ok=True)
    write_json(cfg.out / "curves.json", result, durable=False)
    return result


def read_curves(out: Path) -> dict[str, Any]:
    path = Path(out) / "curves.json"
    if not path.is_file():
        raise ValueError(f"{out} holds no curves.json (run flywheel.curves.run_curves first).")
    return json.loads(path.read_text("utf-8"))
