"""`venus loop`: the closed loop in rounds (relabelled rollouts -> SGV -> rows -> SFT + GRPO -> held-out eval ->
write-back)."""

from __future__ import annotations

import json
from pathlib import Path

import typer

from venuskit.cli.common import console, fail


def loop(
    policy: str = typer.Option("nano", "--policy", help="The policy the loop trains: nano (venus-nano)."),
    rounds: int = typer.Option(3, "--rounds", help="Rounds to run; a rerun of --out resumes after the last one."),
    rollouts: int = typer.Option(16, "--rollouts", help="Rollout episodes per round on training templates."),
    templates: str = typer.Option("*", "--templates", help="Training template globs, comma-separated."),
    tasks: list[Path] = typer.Option([], "--tasks", help="Synthesised task files whose train-split tasks join the "
                                     "pool. Repeatable."),  # fmt: skip
    eval_templates: str = typer.Option("*", "--eval-templates", help="Held-out template globs for evaluation."),
    eval_seeds: int = typer.Option(1, "--eval-seeds", help="Eval seeds per held-out template."),
    surface: str = typer.Option("browser", "--surface", help="browser or mobile."),
    max_steps: int = typer.Option(15, "--max-steps", help="Step limit per episode."),
    sgv: str = typer.Option("ocr,log", "--sgv", help="SGV judges that pick the verified successes."),
    init: str = typer.Option("", "--init", help="Starting checkpoint (default: the shipped venus-nano; 'untrained': "
                             "a fresh network)."),  # fmt: skip
    relabel: bool = typer.Option(True, "--relabel/--no-relabel", help="Oracle-relabelled states join the rows "
                                 "(DAgger); off: SGV-kept successes only."),  # fmt: skip
    validation: bool = typer.Option(True, "--validation/--no-validation", help="Teacher-forced step accuracy on the "
                                    "validation slice each round."),  # fmt: skip
    sft_epochs: int = typer.Option(5, "--sft-epochs", help="SFT epochs per round."),
    sft_lr: float = typer.Option(2e-3, "--sft-lr", help="SFT learning rate per round (lower to continue a trained "
                                 "checkpoint gently)."),  # fmt: skip
    grpo_epochs: int = typer.Option(1, "--grpo-epochs", help="GRPO epochs per round."),
    stage_minutes: float = typer.Option(3.0, "--stage-minutes", help="Time cap of each training stage per round."),
    seed: int = typer.Option(0, "--seed", help="Seed of template sampling and training."),
    workers: int = typer.Option(1, "--workers", help="Rollout workers (processes)."),
    ray: str | None = typer.Option(None, "--ray", help="Run the rollout workers as Ray actors: ADDRESS, auto, local."),
    out: Path = typer.Option(Path("runs/loop"), "--out", help="Run folder."),
    json_out: bool = typer.Option(False, "--json", help="Print the round table as JSON (last line: one object)."),
    skins: str = typer.Option("0", "--skins", help="World skins the rollouts take in turn, e.g. '0-99' (training "
                              "skins 0-899 only; held-out skins are refused)."),  # fmt: skip
    base: str = typer.Option("", "--base", help="A `venus nano train` run folder whose oracle, grounding and CAPTCHA "
                             "rows join every round's SFT."),  # fmt: skip
    keep: str = typer.Option("sgv", "--keep", help="Rollouts whose own steps train: sgv (SGV-kept successes) or all "
                             "(unfiltered)."),  # fmt: skip
    validation_seeds: int = typer.Option(1, "--validation-seeds", help="Seeds per validation short template for "
                                         "each round's validation success (0: not measured)."),  # fmt: skip
    judge: bool = typer.Option(False, "--judge/--no-judge", help="Retrain the nano judge each round on the "
                               "rollouts' contract labels; the next round's SGV uses it where --sgv names nano."),
    judge_set: str = typer.Option("", "--judge-set", help="A `venus verify train-judge` set whose rows join every "
                                  "round's judge."),  # fmt: skip
    judge_bench: str = typer.Option("", "--judge-bench", help="A held-out `venus verify bench` set on which each "
                                    "round's judge is measured (SGV: rules + judge)."),  # fmt: skip
    judge_miniwob: str = typer.Option("", "--judge-miniwob", help="A `venus verify bench --set-kind miniwob` set on "
                                      "which each round's judge is measured the same way."),  # fmt: skip
) -> None:
    """Run the closed loop for venus-nano in rounds; writes the round table and learning curves to --out."""
    from venuskit.flywheel.loop import LoopConfig, run_loop
    from venuskit.runs.parallel import Parallel
    from venuskit.world.skins import parse as parse_skins

    if policy != "nano":
        fail(f"--policy {policy!r}: the loop trains venus-nano only (--policy nano); served models train with "
             "`venus train`.")  # fmt: skip
    try:
        config = LoopConfig(out=str(out), rounds=rounds, rollouts=rollouts, templates=templates,
                            eval_templates=eval_templates, eval_seeds=eval_seeds, surface=surface,
                            max_steps=max_steps, sgv=sgv, init=init, sft_epochs=sft_epochs, sft_lr=sft_lr,
                            grpo_epochs=grpo_epochs,
                            stage_minutes=stage_minutes, seed=seed, tasks=tuple(str(p) for p in tasks),
                            relabel=relabel, validation=validation, skins=tuple(parse_skins(skins)), base=base,
                            keep=keep, validation_seeds=validation_seeds, judge=judge, judge_set=judge_set,
                            judge_bench=judge_bench, judge_miniwob=judge_miniwob)  # fmt: skip
        parallel = Parallel(workers=workers, ray=ray)
        show = None if json_out else lambda r: console.print(
            f"round {r['round']}: rollouts {r['rollout_success']:.0%} ({r['verified']} kept by SGV, precision "
            f"{r['sgv_precision']}), {r['rows_added']} rows added ({r['rows_relabelled']} relabelled), "
            f"validation step acc {r['val_step_acc']}, validation {r.get('validation_success')}, held-out "
            f"{r['eval_success']:.0%}" + (f"; judge: {r['judge_rows']} rows of {r['judge_episodes']} episodes, "
                                          f"held-out precision {r.get('judge_bench_precision')} recall "
                                          f"{r.get('judge_bench_recall')}" if "judge" in r else ""))  # fmt: skip
        table = run_loop(config, parallel, on_round=show)
    except ValueError as e:
        fail(str(e))
    last = table[-1]
    head = {"rounds": len(table), "eval_success": [r["eval_success"] for r in table],
            "rollout_success": [r["rollout_success"] for r in table],
            "val_step_acc": [r["val_step_acc"] for r in table],
            "validation_success": [r.get("validation_success") for r in table], "checkpoint": last["checkpoint"],
            "out": str(out), "curves": str(out / "rounds.html")}  # fmt: skip
    if "judge" in last:
        head.update(judge=last["judge"], **{k: [r.get(k) for r in table] for k in (
            "judge_bench_precision", "judge_bench_recall", "judge_miniwob_precision", "judge_miniwob_recall")})
    typer.echo(json.dumps(head) if json_out else f"{len(table)} rounds -> {out}/rounds.html")
