"""`venus loop`: the closed loop in rounds, with venus-nano as the policy (DAgger with a verifier).

Each round, in the order the code runs it:
  1. collect: the current checkpoint's rollouts on training tasks (a fresh train seed per round; the rollouts
     take the training skins in `skins` in turn), drawn with the sampling weights of the previous round's failures;
     the task's oracle watches every rollout and labels every state the policy visits, re-planning from the live
     page where the policy left its path (`flywheel.collect.RelabelPolicy`; a state it cannot label says why);
  2. label: SGV judges every rollout from its trajectory alone; the contract verdict is recorded beside it, only
     to measure SGV's precision on what it kept (never to pick training data);
  2b. judge (--judge): the nano judge refit on keypoint rows of every round's rollouts, labelled by their contracts
     (the judge's training data, as `venus verify train-judge` makes it), with the --judge-set's rows; the next
     round's SGV uses it where --sgv names nano, and --judge-bench measures it on held-out templates;
  3. rows: the steps of SGV-kept successes (the policy's own actions) and every relabelled state (the oracle's
     action), of this round and every earlier one (DAgger aggregates);
  4. train: venus-nano's SFT stage from the current checkpoint on all rows, then its GRPO stage on this round's;
  5. evaluate: the new checkpoint on held-out templates (eval seeds, contract verdicts), and its teacher-forced
     step accuracy on the validation slice's oracle states;
  6. write back: which templates and contract keypoints failed, turned into the next round's template weights by
     the task-synthesis coverage model (venuskit.tasks.synth.coverage).

The run folder holds `rounds.jsonl` (the round table), `rounds.html` (the curves), `features.pkl` (every row read
once, whichever round asks), `validation/` and per round `round_<k>/`: `rollouts/` (index.jsonl, episodes with
`nano_targets.json` and SGV's report), `judge_rows.pkl` and `judge/` (with --judge), `data.json` (every training
row's episode, step and source), the stage checkpoints, `eval/` and `failures.json`. A rerun of the same folder
resumes after the last finished round.
"""

from __future__ import annotations

import json
import random
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any

from venuskit.eval.suites.summary import solved_row
from venuskit.eval.suites.world import WorldSuiteConfig, run_world_suite
from venuskit.flywheel import collect
from venuskit.infra.atomic import append_line, write_json, write_text
from venuskit.infra.config import option
from venuskit.runs.parallel import Parallel
from venuskit.runs.policies import PolicySpec

ROUNDS = "rounds.jsonl"
UNTRAINED = "untrained"


@dataclass(frozen=True)
class LoopConfig:
    """The closed loop's rounds."""

    out: str = option("Run folder (round table, curves, each round's data and checkpoints).")
    rounds: int = option("Rounds to run (a rerun resumes after the last finished one).", 3)
    rollouts: int = option("Rollout episodes per round (training tasks).", 16)
    templates: str = option("Training template globs to draw rollouts from.", "*")
    tasks: tuple[str, ...] = option("Synthesised task files whose train-split tasks join the pool.", ())
    eval_templates: str = option("Held-out template globs for each round's evaluation.", "*")
    eval_seeds: int = option("Eval seeds per held-out template.", 1)
    surface: str = option("browser or mobile.", "browser")
    max_steps: int = option("Step limit of rollout and eval episodes.", 15)
    sgv: str = option("SGV judges that pick the kept successes.", "ocr,log")
    init: str = option("Starting checkpoint (default: the shipped venus-nano; 'untrained': a fresh network).", "")
    relabel: bool = option("Relabelled states join the rows (DAgger); off: SGV-kept successes only.", True)
    validation: bool = option("Measure step accuracy on the validation slice's oracle states each round.", True)
    sft_epochs: int = option("SFT epochs per round.", 5)
    # The recipe's 2e-3 trains a fresh network; continuing the shipped checkpoint at that rate on a few hundred
    # rollout rows moved teacher-forced validation step accuracy from 0.461 to 0.376 in one round (issue 22's run),
    # so a continuation may ask for less. Default unchanged: the rate the recipe trains with.
    sft_lr: float = option("SFT learning rate per round (AdamW, cosine decay to 10%).", 2e-3)
    grpo_epochs: int = option("GRPO epochs per round.", 1)
    group_size: int = option("GRPO samples per state (G).", 4)
    stage_minutes: float = option("Time cap of each training stage per round.", 3.0)
    seed: int = option("Seed of template sampling and training.", 0)
    skins: tuple[int, ...] = option("World skins the rollouts take in turn (training skins only; 0: the default).",
                                    (0,))  # fmt: skip
    base: str = option("A `venus nano train` run folder whose off-policy rows (oracle episodes, grounding, CAPTCHA) "
                       "join every round's SFT, so rounds add to the data instead of replacing it.", "")
    keep: str = option("Which rollouts' own steps train: sgv (SGV-kept successes) or all (every rollout, unfiltered: "
                       "the verification axis turned down).", "sgv")
    validation_seeds: int = option("Unused training seeds per validation template for each round's validation "
                                   "success (0: not measured).", 1)
    judge: bool = option("Retrain the nano judge each round on every round's contract-labelled rollouts (and the "
                         "--judge-set's rows); the next round's SGV uses it where --sgv names nano.", False)
    judge_set: str = option("A judge training set (`venus verify train-judge`'s folder: training templates, train "
                            "seeds) whose rows join every round's judge.", "")
    judge_bench: str = option("A held-out world set (`venus verify bench`'s folder) on which each round's judge is "
                              "measured: SGV with the rule judges and it, honest protocol.", "")
    judge_miniwob: str = option("A MiniWoB++ set (`venus verify bench --set-kind miniwob`'s folder; never training "
                                "data) on which each round's judge is measured the same way.", "")

    def __post_init__(self) -> None:
        from venuskit.tasks import splits

        if not self.skins:
            raise ValueError("--skins needs at least one skin (0 is the default look).")
        for skin in self.skins:
            splits.require_train_skin(skin)  # rollouts are training data: a held-out skin never enters
        if self.rounds < 1 or self.rollouts < 1 or self.eval_seeds < 1:
            raise ValueError("--rounds, --rollouts and --eval-seeds must be at least 1.")
        if self.surface not in ("browser", "mobile"):
            raise ValueError(f"--surface takes browser or mobile; got {self.surface!r}.")
        if self.sgv == "off":
            raise ValueError("The loop picks its training data by SGV verdicts; --sgv cannot be off.")
        if self.keep not in ("sgv", "all"):
            raise ValueError(f"--keep takes sgv or all; got {self.keep!r}.")
        if self.sft_lr <= 0:
            raise ValueError("--sft-lr must be positive.")
        if self.validation_seeds < 0:
            raise ValueError("--validation-seeds cannot be negative.")
        if self.base and not (Path(self.base) / "summary.json").is_file():
            raise ValueError(f"--base {self.base}: not a `venus nano train` run folder (no summary.json).")
        from venuskit.tasks.synth.taskfile import task_file

        # A shipped file's name resolves inside the package; a missing file is a ValueError that names it.
        object.__setattr__(self, "tasks", tuple(str(task_file(p)) for p in self.tasks))  # a frozen config
        if (self.judge_set or self.judge_bench or self.judge_miniwob) and not self.judge:
            raise ValueError("--judge-set, --judge-bench and --judge-miniwob belong to a loop that trains the judge "
                             "(--judge).")
        _check_set(self.judge_set, "train", "--judge-set")
        _check_set(self.judge_bench, "heldout", "--judge-bench")
        _check_miniwob(self.judge_miniwob)


def _check_miniwob(folder: str) -> None:
    """A labelled MiniWoB++ set (its index says so): a world set there would be measured as if it were MiniWoB++."""
    if not folder:
        return
    from venuskit.eval.verify_bench.protocol import set_kind
    from venuskit.eval.verify_bench.world_set import load_index

    try:
        index = load_index(folder)
        kind = set_kind(index)
    except (OSError, ValueError, KeyError, AttributeError) as e:
        raise ValueError(f"--judge-miniwob {folder}: not a labelled set ({e}).") from e
    if kind != "miniwob" or not index.get("items"):
        raise ValueError(f"--judge-miniwob {folder}: it must be a non-empty MiniWoB++ set (`venus verify bench "
                         f"--set-kind miniwob`); its index says set_kind {kind!r}.")


def _check_set(folder: str, split: str, flag: str) -> None:
    """A labelled world set whose every episode is of a template of `split` (the judge never trains on held-out
    templates, and is never measured on training ones)."""
    if not folder:
        return
    from venuskit.eval.verify_bench.world_set import load_index
    from venuskit.tasks import splits

    try:
        items = [i for i in load_index(folder)["items"] if isinstance(i, dict)]
        wrong = [str(i["task"]) for i in items if splits.world_split(str(i["task"])) != split]
    except (OSError, ValueError, KeyError) as e:
        raise ValueError(f"{flag} {folder}: not a labelled world set ({e}).") from e
    if not items or wrong:
        why = f"{len(wrong)} of its {len(items)} are not (e.g. {wrong[0]})." if wrong else "it is empty."
        raise ValueError(f"{flag} {folder}: it must hold episodes of {split} templates only; {why}")


def _checkpoint(config: LoopConfig) -> str:
    """The starting checkpoint: --init, the shipped venus-nano, or a fresh network saved in the run folder."""
    from venuskit.models.nano import default_checkpoint

    if config.init != UNTRAINED:
        return config.init or str(default_checkpoint())
    import torch

    from venuskit.models.nano.model import NanoModel
    from venuskit.models.nano.net import NanoNet, NetConfig

    torch.manual_seed(config.seed)
    return str(NanoModel(NanoNet(NetConfig())).save(Path(config.out) / "untrained.pt", {"stage": UNTRAINED}))


def template_pool(config: LoopConfig) -> list[str]:
    import fnmatch

    from venuskit.flywheel.nano import capabilities_of, validation_capabilities
    from venuskit.tasks import splits
    from venuskit.tasks.spec import get_task, register_file

    for path in config.tasks:
        register_file(path)
    globs = [g.strip() for g in config.templates.split(",") if g.strip()] or ["*"]
    # The validation slice never enters a round while it is measured (teacher-forced or as episodes), nor does a
    # synthesised task that composes a function only validation templates exercise (flywheel.nano's rule).
    measured = config.validation or config.validation_seeds
    kept_out = set(splits.validation_templates()) if measured else set()
    only_val = validation_capabilities() if measured else set()
    pool = [t for t in splits.world_templates("train") if any(fnmatch.fnmatchcase(t, g) for g in globs)
            and config.surface in get_task(t).surfaces and t not in kept_out
            and not capabilities_of(t) & only_val]  # fmt: skip
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


# ---- 1-2. collect and label ----------------------------------------------------------------------------------


def collect_round(config: LoopConfig, folder: Path, chosen: list[str], seed: int, checkpoint: str,
                  parallel: Parallel) -> list[dict[str, Any]]:  # fmt: skip
    """The policy's rollouts, every visited state labelled by the oracle (the policy is never stopped for being off
    the oracle's path; only when the oracle has been unable to label three states in a row)."""
    jobs = [collect.Job(t, seed, config.surface, config.skins[i % len(config.skins)]) for i, t in enumerate(chosen)]
    return collect.world_relabel_rollouts(folder / "rollouts", jobs, checkpoint, max_off=None,
                                          max_steps=config.max_steps, parallel=parallel,
                                          task_files=config.tasks)  # fmt: skip


def label(index: list[dict[str, Any]], config: LoopConfig, judge: str | None = None) -> list[dict[str, Any]]:
    """SGV's verdict of every rollout (from its trajectory alone; kept in the manifest's verdicts.sgv, so a resumed
    round does not judge again), beside the contract's, one row per rollout. `judge`: the nano judge's weights
    where --sgv names nano (the previous round's, when the loop trains it; default the shipped ones)."""
    from venuskit.record.store import load_episode
    from venuskit.tasks.spec import get_task
    from venuskit.verify.judges import make_judges
    from venuskit.verify.sgv import verify_episode, write_report

    judges = None
    rows = []
    for r in index:
        if not r.get("episode_dir"):
            rows.append({**r, "template": r["task"], "infra_error": r.get("oracle_error") or "no episode"})
            continue
        folder = Path(r["episode_dir"])
        verdicts = load_episode(folder).verdicts
        if "sgv" not in verdicts:
            judges = judges or make_judges(config.sgv, nano_weights=judge)
            report = verify_episode(folder, judges)
            write_report(folder, report, slot="sgv")
            verdicts = load_episode(folder).verdicts
        contract = verdicts["contract"]
        rows.append({**r, "template": r["task"], "feasible": get_task(r["task"]).feasible,
                     "contract": contract["verdict"], "keypoints": contract.get("keypoints", []),
                     "sgv": {"verdict": verdicts["sgv"].get("verdict"), "reason": verdicts["sgv"].get("reason")}})
    return rows


def _verifier_in_loop(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """How SGV's picks compare with the contract: the precision of a kept success is what training relies on."""
    judged = [r for r in rows if r.get("sgv") and not r.get("infra_error")]
    picked = [r for r in judged if r["sgv"]["verdict"] == "completed"]  # decided successes only: never "uncertain"
    good = sum(solved_row(r) for r in picked)
    completed = sum(solved_row(r) for r in judged)
    return {"verified": len(picked), "contract_completed": completed,
            "uncertain": sum(r["sgv"]["verdict"] == "uncertain" for r in judged),
            "verified_and_completed": good,
            "sgv_precision": round(good / len(picked), 4) if picked else None,
            "sgv_recall": round(good / completed, 4) if completed else None}  # fmt: skip


# ---- 2b. the judge on the same flywheel ---------------------------------------------------------------------

JUDGE_ROWS = "judge_rows.pkl"


def train_judge_round(config: LoopConfig, folder: Path, k: int, labelled: list[dict[str, Any]]) -> dict[str, Any]:
    """The round's judge: keypoint rows from this round's contract-labelled rollouts (read once, kept in
    `judge_rows.pkl`), joined with every earlier round's and the --judge-set's, fit from scratch (thresholds from
    folds grouped by template), written to `judge/judge.pt` with its card; measured on --judge-bench if given.
    The contract is the label here: this is the judge's training data, and no verifier of this round reads it."""
    from venuskit.flywheel.judge import bench_judge, build_rows, cached_rows, merge_rows, rollout_rows
    from venuskit.models.judge import model as M
    from venuskit.train.judge import JudgeTrainConfig, fit

    out = Path(config.out)
    own = cached_rows(folder / JUDGE_ROWS, lambda: {"keypoints": rollout_rows(labelled)})
    rounds = [own if j == k else cached_rows(out / f"round_{j}" / JUDGE_ROWS) for j in range(k + 1)]
    base = cached_rows(out / JUDGE_ROWS, lambda: build_rows(config.judge_set)) if config.judge_set else {}
    rows = merge_rows([base, *rounds])
    net, card, metrics = fit(rows, JudgeTrainConfig(seed=config.seed))
    base_episodes, rollouts = _judge_episodes(config, out, k)
    card.training.update({"set": f"venus loop {out.name}", "episodes": base_episodes + rollouts,
                          "loop": {"run": out.name, "rounds": k + 1, "rollout_episodes": rollouts,
                                   "rows_by_round": [len(r["keypoints"]) for r in rounds],
                                   "judge_set": config.judge_set, "judge_set_episodes": base_episodes,
                                   "judge_set_rows": {h: len(r) for h, r in base.items()}}})  # fmt: skip
    path = folder / "judge" / "judge.pt"
    M.save(net, path, card)
    oof = metrics["out_of_fold"]["keypoints"]
    info = {"judge": str(path), "judge_episodes": base_episodes + rollouts, "judge_rows": len(rows["keypoints"]),
            "judge_rows_added": len(own["keypoints"]), "judge_oof_precision": oof["precision"],
            "judge_oof_recall": oof["recall"]}  # fmt: skip
    if config.judge_bench:
        info.update(bench_judge(config.judge_bench, str(path), folder / "judge" / "bench.json"))
    if config.judge_miniwob:
        info.update(bench_judge(config.judge_miniwob, str(path), folder / "judge" / "bench_miniwob.json",
                                key="judge_miniwob"))  # fmt: skip
    return info


def _judge_episodes(config: LoopConfig, out: Path, k: int) -> tuple[int, int]:
    """Contract-labelled episodes the round's judge learned from: the --judge-set's, and every round's rollouts."""
    from venuskit.eval.verify_bench.world_set import load_index

    base = len(load_index(config.judge_set)["items"]) if config.judge_set else 0
    return base, sum(1 for j in range(k + 1) for r in collect.read_index(out / f"round_{j}" / "rollouts")
                     if r.get("episode_dir"))  # fmt: skip


# ---- 3. rows -------------------------------------------------------------------------------------------------


def round_rows(out: Path, k: int, relabel: bool, keep: str = "sgv") -> list[dict[str, Any]]:
    """The training rows of rounds 0..k: the steps of SGV-kept successes (own actions; with keep="all", of every
    rollout, unfiltered) and, with `relabel`, every state the oracle labelled. Each row carries `round` and
    `source`."""
    from venuskit.train.data import VerdictFilter, build_rows
    from venuskit.train.nano.data import reference_rows

    rows: list[dict[str, Any]] = []
    for j in range(k + 1):
        index = collect.read_index(out / f"round_{j}" / "rollouts")
        dirs = [r["episode_dir"] for r in index if r.get("episode_dir")]
        kept, _ = build_rows(dirs, "rl", n_img=50, verdict=None if keep == "all" else
                             VerdictFilter("sgv", ("completed",)))  # fmt: skip
        relabelled = reference_rows(dirs) if relabel else []
        for source, rs in (("sgv_kept" if keep == "sgv" else "unfiltered", kept), ("relabelled", relabelled)):
            rows += [{**r, "round": j, "source": source} for r in rs]
    return rows


# ---- 4-5. train and evaluate ---------------------------------------------------------------------------------


def _train(config: LoopConfig, folder: Path, rows: list[dict[str, Any]], init: str, k: int,
           workers: int = 1) -> tuple[str, dict]:  # fmt: skip
    """SFT from `init` on every round's rows, then GRPO on this round's; returns the new checkpoint and what
    happened. Rows are read once for the whole run (`features.pkl`)."""
    from venuskit.models.nano import NanoModel
    from venuskit.train.nano import GRPOConfig, SFTConfig, examples, grpo, sft
    from venuskit.train.nano.data import FeatureCache

    write_json(folder / "data.json", {"rows": [{"episode_id": r["episode_id"], "step": r["step"], "round": r["round"],
                                                "source": r["source"]} for r in rows]}, durable=True)  # fmt: skip
    exs, skipped = examples(rows, NanoModel.load(init), FeatureCache(Path(config.out) / "features.pkl"),
                            workers=workers)  # fmt: skip
    own = "sgv_kept" if config.keep == "sgv" else "unfiltered"
    sources = {s: sum(r["source"] == s and r["round"] == k for r in rows) for s in (own, "relabelled")}
    info: dict[str, Any] = {"rows": len(rows), "rows_added": sum(sources.values()), **{f"rows_{s}": n for s, n in
                            sources.items()}, "examples": len(exs), "skipped": skipped}  # fmt: skip
    base = _base_examples(config.base)
    info["base_examples"] = len(base)
    if not exs:
        info["trained"] = "no usable example: the checkpoint is kept"
        return init, info
    first = sft(exs + base, folder / "sft", SFTConfig(epochs=config.sft_epochs, seed=config.seed, lr=config.sft_lr,
                                                      max_minutes=config.stage_minutes), init=Path(init))  # fmt: skip
    mine = [e for e in exs if e.row.get("round") == k] or exs
    second = grpo(mine, first.checkpoint, folder / "grpo",
                  GRPOConfig(group_size=config.group_size, epochs=config.grpo_epochs, seed=config.seed,
                             max_minutes=config.stage_minutes),
                  domain="web" if config.surface == "browser" else "mobile")  # fmt: skip
    info.update(sft_train_acc=first.metrics.get("train_acc"), grpo=_small(second.metrics), trained="sft+grpo")
    return str(second.checkpoint), info


def _base_examples(run: str) -> list[Any]:
    """The off-policy examples of the `--base` run (world oracle episodes, grounding, CAPTCHA; never its validation
    slice), read from its feature cache."""
    if not run:
        return []
    from venuskit.flywheel.nano import run_examples

    return [e for name, exs in run_examples(Path(run)).items() if name != "validation" for e in exs]


def _small(metrics: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in metrics.items() if not isinstance(v, list)}


def validation_examples(config: LoopConfig, parallel: Parallel) -> list[Any]:
    """The validation slice's oracle states on the loop's surface (training templates kept out of every round's
    pool), read once: the teacher-forced curve of the loop."""
    from venuskit.flywheel.rows import world_rows
    from venuskit.models.nano import NanoModel, default_checkpoint
    from venuskit.tasks import splits
    from venuskit.train.nano.data import FeatureCache, examples

    out = Path(config.out)
    jobs = collect.world_jobs(splits.validation_templates(), (config.surface,), seed_offset=4000)
    index = collect.world_oracle_episodes(out / "validation", jobs, parallel=parallel)
    exs, _ = examples(world_rows(index, relabelled=False), NanoModel.load(default_checkpoint()),
                      FeatureCache(out / "features.pkl"), workers=parallel.workers)  # fmt: skip
    return exs


def step_acc(checkpoint: str, exs: list[Any]) -> float | None:
    from venuskit.models.nano import NanoModel
    from venuskit.train.nano.common import step_accuracy

    return round(step_accuracy(NanoModel.load(checkpoint).net, exs)["step_acc"], 4) if exs else None


# ---- 6. write back -------------------------------------------------------------------------------------------


def write_back(rows: list[dict[str, Any]], pool: list[str], out: Path) -> dict[str, float]:
    """The failure write-back: failed templates and keypoints (to `failures.json`) and the next round's template
    weights from the task-synthesis coverage model (capability holes and failure rates)."""
    from venuskit.tasks.spec import get_task
    from venuskit.tasks.synth.catalog import bundled_catalog
    from venuskit.tasks.synth.coverage import coverage_of, failures_of, sampling_weights, template_weights

    catalog = bundled_catalog()
    outcomes = []
    failed: dict[str, dict[str, Any]] = {}
    for r in rows:
        if r.get("infra_error"):
            continue
        outcomes.append((get_task(r["template"]), {"verdict": r["contract"], "keypoints": r["keypoints"]}))
        if not solved_row(r):
            entry = failed.setdefault(r["template"], {"episodes": 0, "keypoints": {}})
            entry["episodes"] += 1
            for kp in r.get("keypoints", []):
                if not kp["ok"]:
                    entry["keypoints"][kp["desc"]] = entry["keypoints"].get(kp["desc"], 0) + 1
    weights = sampling_weights(coverage_of([get_task(t) for t in pool], catalog), failures_of(outcomes, catalog))
    tw = template_weights(weights, catalog, pool)
    write_json(out, {"failed_templates": failed, "template_weights": tw}, durable=True)
    return tw


# ---- a round, and the rounds ---------------------------------------------------------------------------------


def run_round(config: LoopConfig, k: int, checkpoint: str, weights: dict[str, float], parallel: Parallel,
              val: list[Any], judge: str | None = None) -> dict[str, Any]:  # fmt: skip
    from venuskit.tasks import splits

    t0 = time.perf_counter()
    folder = Path(config.out) / f"round_{k}"
    pool = template_pool(config)
    chosen = draw(pool, weights, config.rollouts, random.Random(config.seed * 1000 + k))
    seed = splits.load().world_train_seeds[0] + k  # a fresh training instance of each template every round
    labelled = label(collect_round(config, folder, chosen, seed, checkpoint, parallel), config, judge)
    judged = train_judge_round(config, folder, k, labelled) if config.judge else {}
    ok = [r for r in labelled if not r.get("infra_error")]
    rows = round_rows(Path(config.out), k, config.relabel, config.keep)
    new_checkpoint, trained = _train(config, folder, rows, checkpoint, k, parallel.workers)
    evaluation = WorldSuiteConfig(out=str(folder / "eval"), policy=PolicySpec("nano", checkpoint=new_checkpoint),
                                  templates=config.eval_templates, split="heldout", n_seeds=config.eval_seeds,
                                  surfaces=(config.surface,), max_steps=config.max_steps, sgv="off")  # fmt: skip
    evaluated = run_world_suite(evaluation, parallel, resume=(folder / "eval" / "suite.json").exists())
    validated = _validation_success(config, folder, new_checkpoint, parallel)
    next_weights = write_back(labelled, pool, folder / "failures.json")
    states = sum(r.get("states", 0) for r in ok)
    return {"round": k, "checkpoint_in": checkpoint, "checkpoint": new_checkpoint, "templates": chosen,
            "seed": seed, "rollouts": len(labelled), "rollout_success": round(sum(map(solved_row, ok)) / len(ok), 4)
            if ok else 0.0, "states": states, "labelled_states": sum(r.get("labelled", 0) for r in ok),
            **_verifier_in_loop(labelled), "sgv_judge": (judge or "shipped") if "nano" in config.sgv else None,
            **judged, **trained, "val_step_acc_in": step_acc(checkpoint, val),
            "val_step_acc": step_acc(new_checkpoint, val), "eval_episodes": evaluated["episodes"],
            "eval_success": evaluated["success"], "eval_ci95": evaluated["rates"]["success"]["ci95"],
            **validated,
            "infra_errors": len(labelled) - len(ok) + evaluated["infra_errors"], "next_weights": next_weights,
            "seconds": round(time.perf_counter() - t0, 1)}  # fmt: skip


def _validation_success(config: LoopConfig, folder: Path, checkpoint: str, parallel: Parallel) -> dict[str, Any]:
    """The round's checkpoint on the validation slice's short templates (training-split templates no round draws),
    on training seeds no collection uses: transfer to unseen templates, measured without a held-out one."""
    if not config.validation_seeds:
        return {}
    from venuskit.eval.nano_eval import VALIDATION_SEED_OFFSET
    from venuskit.tasks import splits
    from venuskit.tasks.spec import get_task

    templates = [t for t in splits.validation_templates() if get_task(t).category == "short"
                 and config.surface in get_task(t).surfaces]  # fmt: skip
    lo = splits.load().world_train_seeds[0] + VALIDATION_SEED_OFFSET
    cfg = WorldSuiteConfig(out=str(folder / "validation-eval"), policy=PolicySpec("nano", checkpoint=checkpoint),
                           templates=",".join(templates), split="train", surfaces=(config.surface,),
                           seeds=tuple(range(lo, lo + config.validation_seeds)), max_steps=config.max_steps,
                           sgv="off")  # fmt: skip
    done = run_world_suite(cfg, parallel, resume=(folder / "validation-eval" / "suite.json").exists())
    return {"validation_episodes": done["episodes"], "validation_success": done["success"],
            "validation_ci95": done["rates"]["success"]["ci95"]}


def run_loop(config: LoopConfig, parallel: Parallel = Parallel(), on_round=None) -> list[dict[str, Any]]:  # noqa: ANN001
    """Run the rounds (resuming after the last one in `rounds.jsonl`); returns the round table."""
    out = Path(config.out)
    out.mkdir(parents=True, exist_ok=True)
    table_path = out / ROUNDS
    table = [json.loads(line) for line in table_path.read_text().splitlines()] if table_path.exists() else []
    write_json(out / "loop.json", asdict(config), durable=True)
    checkpoint = table[-1]["checkpoint"] if table else _checkpoint(config)
    weights = table[-1]["next_weights"] if table else {}
    val = validation_examples(config, parallel) if config.validation and len(table) < config.rounds else []
    for k in range(len(table), config.rounds):
        row = run_round(config, k, checkpoint, weights, parallel, val, judge=table[-1].get("judge") if table else None)
        append_line(table_path, json.dumps(row, ensure_ascii=False).encode("utf-8"), durable=True)
        table.append(row)
        checkpoint, weights = row["checkpoint"], row["next_weights"]
        write_curves(out, table)
        if on_round is not None:
            on_round(row)
    return table


def write_curves(out: Path, table: list[dict[str, Any]]) -> Path:
    """rounds.html: the round table and the learning curves (held-out success with its 95% CI, rollout success,
    SGV's precision on its own picks, validation, the judges' precision and recall) as an embedded plot."""
    import html

    from venuskit.eval.flywheel_report import rounds_png

    img = rounds_png(table)
    cols = ("round", "rollouts", "rollout_success", "states", "labelled_states", "verified", "sgv_precision",
            "rows_added", "rows_sgv_kept", "rows_relabelled", "rows", "examples", "trained", "val_step_acc",
            "eval_episodes", "eval_success", "judge_episodes", "judge_rows", "judge_bench_precision",
            "judge_bench_recall", "judge_miniwob_precision", "judge_miniwob_recall", "infra_errors",
            "seconds")  # fmt: skip
    head = "".join(f"<th>{c}</th>" for c in cols)
    body = "".join("<tr>" + "".join(f"<td>{html.escape(str(r.get(c, '')))}</td>" for c in cols) + "</tr>"
                   for r in table)  # fmt: skip
    page = (f'<!doctype html><html><head><meta charset="utf-8"><title>venus loop</title></head><body>'
            f'<h1>venus loop: {len(table)} rounds</h1><img alt="learning curves" src="{img}">'
            f"<table border=1 cellspacing=0 cellpadding=3><tr>{head}</tr>{body}</table></body></html>")  # fmt: skip
    return write_text(out / "rounds.html", page, durable=False)
