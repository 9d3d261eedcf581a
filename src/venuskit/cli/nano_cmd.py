"""`venus nano train|eval|ensemble|curves|icons|info`: venus-nano, the embedded default policy."""

from __future__ import annotations

import json
import logging
from pathlib import Path

import typer

from venuskit.cli.common import fail, interrupts_raise

app = typer.Typer(no_args_is_help=True, pretty_exceptions_enable=False)


@app.command("train")
def train(
    seed: int = typer.Option(..., "--seed", help="Seed of every stage (same seed, same checkpoint)."),
    stages: str = typer.Option("sft,grpo,mopd", "--stages", help="sft | sft,grpo | sft,grpo,mopd."),
    budget_min: float = typer.Option(120.0, "--budget-min", help="Safety cap in minutes; stages run fixed epochs."),
    out: Path = typer.Option(Path("runs/nano"), "--out", help="Run folder (a rerun resumes it)."),
    sft_epochs: int = typer.Option(15, help="SFT passes over the examples."),
    seeds_per_variant: int = typer.Option(2, help="Oracle episodes per template variant and surface."),
    rollouts: int = typer.Option(60, help="Policy rollouts per round (GRPO and MOPD states)."),
    grounding_n: int = typer.Option(400, help="Synthetic grounding samples (0: none)."),
    captcha_per_type: int = typer.Option(6, help="CAPTCHA instances per training type (0: none)."),
    validation: bool = typer.Option(True, "--validation/--no-validation",
                                    help="Keep the validation templates out of training (learning curves)."),
    tasks: list[Path] = typer.Option([], "--tasks", help="Synthesised task files (`venus tasks synth --split train`); "
                                     "their train-split tasks join the training templates. Repeatable."),
    workers: int = typer.Option(1, "--workers", help="Collection workers (each a browser and a world "
                                "server), and the processes that read the rows."),
    categories: str = typer.Option("short,medium,infeasible", "--categories", help="World task categories to train "
                                   "on (short, medium, long, interrupt, infeasible); a task file's tasks alike."),
    install_it: bool = typer.Option(False, "--install", help="Copy the result over the shipped checkpoint."),
    icon_names: bool = typer.Option(False, "--icon-names/--no-icon-names", help="The network reads the icon namer's "
                                    "names of icons (docs/nano.md); off, as the shipped checkpoint."),
    skins: str = typer.Option("0", "--skins", help="World skins the training episodes are spread over, e.g. "
                              "'0-99' (training skins 0-899 only; held-out skins are refused)."),  # fmt: skip
    world_rows: int = typer.Option(0, "--world-rows", help="World step rows trained on (0: all): a sample spread "
                                   "evenly over the tasks, rows already read first."),  # fmt: skip
) -> None:
    """Collect training data, then SFT -> per-domain GRPO -> MOPD; writes OUT/venus-nano.pt + summary.json."""
    from venuskit.flywheel.nano import NanoTrainConfig, install, run_all
    from venuskit.models.nano import NanoError
    from venuskit.world.skins import parse as parse_skins

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    try:
        cfg = NanoTrainConfig(out=out, seed=seed, stages=tuple(s.strip() for s in stages.split(",") if s.strip()),
                              budget_min=budget_min, sft_epochs=sft_epochs, seeds_per_variant=seeds_per_variant,
                              rollouts=rollouts, grounding_n=grounding_n, captcha_per_type=captcha_per_type,
                              validation=validation, tasks=tuple(tasks), workers=workers,
                              categories=tuple(c.strip() for c in categories.split(",") if c.strip()),
                              skins=tuple(parse_skins(skins)), world_rows=world_rows,
                              icon_names=icon_names)  # fmt: skip
    except ValueError as exc:
        fail(str(exc))
    try:
        with interrupts_raise():
            summary = run_all(cfg)
    except KeyboardInterrupt:
        fail(f"interrupted: the episodes collected and the rows read are kept in {cfg.out}; the same command resumes "
             "from them.", code=130)  # fmt: skip
    except NanoError as exc:  # a screenshot the reader cannot read, a reading process that died
        fail(str(exc))
    if install_it:
        summary["installed"] = str(install(cfg.out / summary["final"]))
    typer.echo(json.dumps({k: summary[k] for k in ("final", "minutes", "installed") if k in summary}))


@app.command("eval")
def evaluate(
    checkpoint: Path | None = typer.Option(None, "--checkpoint", help="A checkpoint (default: the shipped one)."),
    category: str = typer.Option("short", help="World category: short or medium."),
    seeds: int = typer.Option(3, help="Evaluation seeds per template."),
    split: str = typer.Option("heldout", help="heldout (the figures) or validation (training templates kept out of "
                                              "training, on unused training seeds: the one to develop against)."),
    surface: str = typer.Option("browser", help="browser or mobile."),
    out: Path = typer.Option(Path("runs/nano-eval"), "--out", help="Folder for the episodes."),
    json_out: bool = typer.Option(False, "--json", help="Print every row as JSON."),
    done_check: bool = typer.Option(True, "--done-check/--no-done-check", help="Finished only with evidence on "
                                    "screen that the goal's action happened (off: the network's own decision)."),
    action_check: bool = typer.Option(True, "--action-check/--no-action-check", help="No click on a control whose "
                                      "label or icon commits an action the goal does not ask for (delete, buy...)."),
) -> None:
    """venus-nano on the held-out world templates (evaluation seeds), scored by the task contracts."""
    from venuskit.eval.nano_eval import validation_success, world_success
    from venuskit.models.nano import CheckpointError, NanoModel, load_default
    from venuskit.tasks import splits

    try:
        model = NanoModel.load(checkpoint) if checkpoint else load_default()
    except CheckpointError as exc:
        fail(str(exc))
    model.done_check, model.action_check = done_check, action_check
    if surface not in ("browser", "mobile"):
        fail(f"--surface must be browser or mobile, got {surface!r}.")
    if split not in ("heldout", "validation"):
        fail(f"--split must be heldout or validation, got {split!r}.")
    if split == "validation":
        result = validation_success(model, out, seeds, surface, category)
    else:
        templates = splits.world_templates("heldout", category)
        if not templates:
            fail(f"No held-out templates in the category {category!r}.")
        result = world_success(model, templates, splits.eval_seeds(splits.load().world_eval_seeds, seeds), surface,
                               out)  # fmt: skip
    if json_out:
        typer.echo(json.dumps(result))
    else:
        for r in result["rows"]:
            typer.echo(f"{r['verdict']:10s} {r['task']} seed={r['seed']} -> {r['episode_dir']}")
        low, high = result["ci95"]
        typer.echo(f"success {result['success']:.1%} ({result['solved']} of {result['n']} episodes; 95% interval "
                   f"{low:.1%}-{high:.1%}); Finished/Answer without solving: {result['premature_finish']}; "
                   f"forbidden side effects: {result['side_effects']}")  # fmt: skip


@app.command("ensemble")
def ensemble(
    checkpoints: list[Path] = typer.Argument(..., help="Single-network checkpoints of one config (training seeds)."),
    out: Path = typer.Option(..., "--out", help="The ensemble checkpoint to write."),
    install_it: bool = typer.Option(False, "--install", help="Copy it over the shipped checkpoint."),
) -> None:
    """One checkpoint whose networks decide as one (each head the members' mean distribution)."""
    from venuskit.flywheel.nano import install
    from venuskit.models.nano import NanoError
    from venuskit.models.nano.model import build_ensemble

    try:
        path = build_ensemble(list(checkpoints), out)
    except NanoError as exc:  # a missing or damaged member, mixed configs, too few or too many
        fail(str(exc))
    result = {"out": str(path), "members": len(checkpoints), "bytes": path.stat().st_size}
    if install_it:
        result["installed"] = str(install(path))
    typer.echo(json.dumps(result))


@app.command("icons")
def icons(
    out: Path = typer.Option(Path("runs/icons"), "--out", help="Folder for icon-namer.pt and metrics.json."),
    seed: int = typer.Option(0, "--seed", help="Seed of the sheets' looks and of training."),
    variants: int = typer.Option(24, help="Looks drawn per named icon file."),
    epochs: int = typer.Option(30, help="Training passes."),
    install_it: bool = typer.Option(False, "--install", help="Copy the namer over the shipped one (the features "
                                    "change: the shipped policy must then be trained again on them)."),
) -> None:
    """Train the icon namer on two icon libraries' sheets; measured on held-out looks and the world's own icons."""
    from venuskit.flywheel.icons import IconsConfig, train_icons
    from venuskit.synth.grounding.spec import SynthError
    from venuskit.train.nano.icons import NamerConfig

    try:
        cfg = IconsConfig(seed=seed, variants=variants, namer=NamerConfig(epochs=epochs, seed=seed))
        metrics = train_icons(out, cfg, install=install_it)
    except SynthError as exc:
        fail(str(exc))
    keys = ("pictures", "library_heldout", "world_default", "seconds")
    typer.echo(json.dumps({k: metrics[k] for k in keys}))


@app.command("curves")
def curves(
    run: Path = typer.Option(..., "--run", help="A finished `venus nano train --tasks ...` run folder."),
    out: Path = typer.Option(Path("runs/curves"), "--out", help="Folder for the points and curves.json (a rerun "
                             "reuses every point done)."),
    points: int = typer.Option(4, help="Scaling points: the hand-written templates alone, then synthesised tasks "
                               "added in equal steps up to all of them."),
    epochs: int = typer.Option(10, help="SFT epochs of the largest set; a smaller set sees as many examples in all."),
    seed: int = typer.Option(0, "--seed", help="Seed of every point (the run's own seed reuses its SFT checkpoint)."),
    eval_seeds: int = typer.Option(3, help="Evaluation seeds per held-out and validation short template."),
    workers: int = typer.Option(2, help="Evaluation (and one-skin collection) workers."),
    environments: bool = typer.Option(False, "--environments/--no-environments", help="Also the one-skin point: "
                                      "the run's world jobs collected again on the default skin (long)."),
) -> None:
    """The scaling curve and the axes ablation of one recipe run (read by `benchmarks/nano.py --curves OUT`)."""
    from venuskit.flywheel.curves import CurveConfig, CurveError, run_curves
    from venuskit.models.nano import NanoError

    logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
    try:
        cfg = CurveConfig(run=run, out=out, points=points, epochs=epochs, seed=seed, eval_seeds=eval_seeds,
                          workers=workers, environments=environments)  # fmt: skip
        with interrupts_raise():
            result = run_curves(cfg)
    except KeyboardInterrupt:
        fail(f"interrupted: every finished point is kept in {out}; the same command resumes from them.", code=130)
    except (ValueError, NanoError) as exc:
        fail(str(exc))
    except CurveError as exc:
        fail(str(exc), code=1)
    for p in result["scaling"]:
        h, v = p["heldout_short"], p["validation_short"]
        typer.echo(f"{p['tasks']:5d} tasks  held-out short {h['success']:.1%} of {h['n']}  "
                   f"validation short {v['success']:.1%} of {v['n']}")  # fmt: skip
    typer.echo(json.dumps({"out": str(out / "curves.json"), "points": len(result["scaling"])}))


@app.command("info")
def info(checkpoint: Path | None = typer.Option(None, "--checkpoint", help="A checkpoint (default: shipped).")) -> None:  # noqa: E501
    """What the checkpoint is: its path and size, its file and weights SHA-256, stage, seed, teachers."""
    from venuskit.models.nano import CheckpointError, NanoModel, default_checkpoint, load_default

    try:
        model = NanoModel.load(checkpoint) if checkpoint else load_default()
    except CheckpointError as exc:
        fail(str(exc))
    path = checkpoint or default_checkpoint()
    typer.echo(json.dumps({"path": str(path), "bytes": Path(path).stat().st_size, **model.describe()},
                          default=str))  # fmt: skip
