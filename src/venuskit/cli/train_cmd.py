"""`venus train sft|grpo|mopd|rows`: the three training stages on TRL, and the row export they read.

Each stage verb hands its flags to `transformers.HfArgumentParser` over the stage's config dataclass
(`venuskit.train.trainers.Venus{SFT,GRPO,MOPD}Config`, which subclass TRL's), so every TRL option works as a flag
(`--use_vllm`, `--save_steps`, `--resume_from_checkpoint last`, ...) and `--help` lists every field with its help.
Scale out by launching the same command under `accelerate launch --config_file configs/accelerate/<cfg>.yaml -m
venuskit.cli.main train ...`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer

from venuskit.cli.common import fail

app = typer.Typer(no_args_is_help=True, help="Train: mid-training SFT, step-level GRPO and MOPD (TRL 1.16).")

_PASS_THROUGH = {"allow_extra_args": True, "ignore_unknown_options": True, "help_option_names": []}


def _parse(config_cls: type, name: str, args: list[str]) -> Any:
    from transformers import HfArgumentParser

    parser = HfArgumentParser(config_cls, prog=f"venus train {name}", description=config_cls.__doc__)
    try:
        (cfg,) = parser.parse_args_into_dataclasses(args=args)
    except ValueError as exc:  # __post_init__ refusals: the message names the field and the fix
        fail(str(exc))
    return cfg


def _run(stage: str, args: list[str]) -> None:
    from venuskit.train import trainers as T

    config_cls, make = {
        "sft": (T.VenusSFTConfig, T.make_sft_trainer),
        "grpo": (T.VenusGRPOConfig, T.make_grpo_trainer),
        "mopd": (T.VenusMOPDConfig, T.make_mopd_trainer),
    }[stage]
    cfg = _parse(config_cls, stage, args)
    try:
        trainer = make(cfg)
    except ValueError as exc:  # data or teacher problems found before any model loads
        fail(str(exc))
    try:
        result = T.train(trainer, cfg)
        if trainer.is_world_process_zero():  # one result line per run, not one per process
            typer.echo(json.dumps({"output_dir": cfg.output_dir, "global_step": result.global_step,
                                   "train_loss": result.training_loss}))  # fmt: skip
    finally:
        T.leave_process_group()


@app.command(context_settings=_PASS_THROUGH, add_help_option=False)
def sft(ctx: typer.Context) -> None:
    """Mid-training SFT (completion-only loss). Required: --model --data --output_dir. --help lists every option."""
    _run("sft", ctx.args)


@app.command(context_settings=_PASS_THROUGH, add_help_option=False)
def grpo(ctx: typer.Context) -> None:
    """Step-level GRPO with one domain's rule rewards. Required: --model --data --domain --output_dir."""
    _run("grpo", ctx.args)


@app.command(context_settings=_PASS_THROUGH, add_help_option=False)
def mopd(ctx: typer.Context) -> None:
    """Multi-teacher on-policy distillation. Required: --model --data --teachers d=path,... --output_dir."""
    _run("mopd", ctx.args)


@app.command()
def rows(
    episodes: Path = typer.Argument(..., help="Folder of recorded episodes (one sub-folder per episode)."),
    out: Path = typer.Option(..., "--out", help="Rows file to write (.jsonl)."),
    kind: str = typer.Option("sft", help="sft (prompt + completion) or rl (prompt + ground truth)."),
    n_img: int = typer.Option(2, help="Past screenshots kept per prompt (UI-Venus-2 N_IMG)."),
    verdict_slot: str = typer.Option("", help="Keep only episodes whose verdicts[slot] is a success (or prefix)."),
) -> None:
    """Export training rows from recorded episodes; bad rows are counted per reason and left out."""
    from venuskit.record.store import iter_episode_dirs
    from venuskit.train.data import VerdictFilter, build_rows

    if kind not in ("sft", "rl"):
        fail(f"--kind must be sft or rl, got {kind!r}.")
    verdict = VerdictFilter(slot=verdict_slot) if verdict_slot else None
    found, rejected = build_rows(list(iter_episode_dirs(episodes)), kind, n_img=n_img, verdict=verdict)
    out.parent.mkdir(parents=True, exist_ok=True)
    with open(out, "w", encoding="utf-8") as f:
        for row in found:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")
    typer.echo(json.dumps({"rows": len(found), "rejected": dict(rejected.counts), "out": str(out)}))
