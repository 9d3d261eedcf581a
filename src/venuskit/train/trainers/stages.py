"""Rows and models for every stage, the SFT and GRPO trainers, and the run itself (resume, final save)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import torch
from trl import GRPOTrainer, SFTTrainer

from venuskit.record.store import iter_episode_dirs
from venuskit.train.data import Rejections, VerdictFilter, build_rows, dedup, mix_domains, to_dataset, validate_rows
from venuskit.train.processing import load_processor
from venuskit.train.rewards import RewardWeights, domain_rewards
from venuskit.train.trainers.configs import VenusGRPOConfig, VenusSFTConfig, _DataFields, parse_weights


def load_rows(cfg: _DataFields, kind: str) -> list[dict[str, Any]]:
    """Rows for `kind` ("sft" or "rl") from cfg.data (episodes folder or rows .jsonl); bad rows are logged."""
    path = Path(cfg.data)
    weights = parse_weights(cfg.domain_weights) or None
    verdict = VerdictFilter(slot=cfg.verdict_slot) if cfg.verdict_slot else None
    if path.is_dir():
        rows, _ = build_rows(
            list(iter_episode_dirs(path)), kind, n_img=cfg.n_img, verdict=verdict, domain_weights=weights
        )
    else:
        rej = Rejections()
        raw = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        rows = dedup(validate_rows(raw, rej, kind), rej)
        rows = mix_domains(rows, weights) if weights else rows
        rej.log(f"{kind} rows")
    if not rows:
        raise ValueError(f"No usable {kind} rows in {cfg.data}; see the rejection counts logged above.")
    return rows


def load_model(path: str | Path, dtype: torch.dtype = torch.float32) -> Any:
    """A trainable model keeps float32 master weights (mixed precision computes in bf16/fp16 under autocast)."""
    from transformers import AutoModelForImageTextToText

    return AutoModelForImageTextToText.from_pretrained(path, dtype=dtype)


def teacher_dtype(cfg: Any) -> torch.dtype:
    """Frozen teachers need no float32 master copy: they are stored in the run's compute precision (a 9B teacher
    is 18 GB in bf16 instead of 36 GB; its matmuls ran in bf16 under autocast anyway)."""
    return torch.bfloat16 if cfg.bf16 else torch.float16 if cfg.fp16 else torch.float32


def resolve_resume(cfg: Any) -> str | None:
    """cfg.resume_from_checkpoint: None, a checkpoint path, or "last" (the newest checkpoint in output_dir)."""
    from transformers.trainer_utils import get_last_checkpoint

    value = cfg.resume_from_checkpoint
    if value in (None, "", False):
        return None
    if value in ("last", True, "true", "True"):
        last = get_last_checkpoint(cfg.output_dir) if Path(cfg.output_dir).is_dir() else None
        if last is None:
            raise ValueError(f"resume_from_checkpoint='last' but {cfg.output_dir} holds no checkpoint-* folder.")
        return last
    return str(value)


# ---- SFT and GRPO -----------------------------------------------------------------------------------


def make_sft_trainer(cfg: VenusSFTConfig, rows: list[dict[str, Any]] | None = None) -> SFTTrainer:
    rows = rows if rows is not None else load_rows(cfg, "sft")
    dataset = to_dataset([{k: r[k] for k in ("prompt", "completion", "images")} for r in rows])
    return SFTTrainer(
        model=load_model(cfg.model), args=cfg, train_dataset=dataset, processing_class=load_processor(cfg.model)
    )


def make_grpo_trainer(cfg: VenusGRPOConfig, rows: list[dict[str, Any]] | None = None) -> GRPOTrainer:
    rows = rows if rows is not None else load_rows(cfg, "rl")
    rows = [r for r in rows if r["domain"] == cfg.domain] or _no_domain_rows(cfg.domain, rows)
    weights = RewardWeights(cfg.format_weight, cfg.type_weight, cfg.param_weight)
    funcs, reward_weights = domain_rewards(cfg.domain, weights, cfg.reward_options())
    cfg.reward_weights = reward_weights
    return GRPOTrainer(
        model=load_model(cfg.model),
        reward_funcs=funcs,
        args=cfg,
        train_dataset=to_dataset(rows),
        processing_class=load_processor(cfg.model),
    )


def _no_domain_rows(domain: str, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    present = sorted({r["domain"] for r in rows})
    raise ValueError(f"`domain`={domain!r} but the data has no rows of that domain; it holds {present}.")


def train(trainer: Any, cfg: Any) -> Any:
    """Run training (resuming if asked), save the final model and processor to output_dir; returns TRL's output."""
    checkpoint = resolve_resume(cfg)
    if checkpoint is not None:
        _restore_weights(trainer, checkpoint)
    result = trainer.train(resume_from_checkpoint=checkpoint)
    trainer.save_model(cfg.output_dir)  # every rank takes part (ZeRO-3 gathers the shards); rank 0 writes
    if trainer.args.should_save:
        trainer.processing_class.save_pretrained(cfg.output_dir)
    return result


def leave_process_group() -> None:
    """Every rank waits for the others, then leaves the process group, before the interpreter exits. A group left
    to the exit's own teardown can abort a rank that has finished its work ("terminate called without an active
    exception", SIGABRT: seen on a 2-process MOPD resume), failing a run that succeeded. One process: nothing."""
    import torch.distributed as dist

    if dist.is_available() and dist.is_initialized():
        dist.barrier()
        dist.destroy_process_group()


def _restore_weights(trainer: Any, checkpoint: str) -> None:
    """Load a checkpoint's weights through from_pretrained. transformers 5.x saves Qwen-VL weights in the
    checkpoint key layout (visual.*, model.layers.*), which Trainer's raw state-dict loader does not convert back:
    it warns about missing keys and silently keeps the old weights. Optimizer, scheduler and RNG state are still
    restored by Trainer."""
    restored = load_model(checkpoint).state_dict()
    trainer.accelerator.unwrap_model(trainer.model).load_state_dict(restored)
    trainer._load_from_checkpoint = lambda *args, **kwargs: None
