"""Seconds per training step of `venus train grpo` and `venus train mopd` vs a plain TRL GRPOTrainer.

All three run on the same tiny offline Qwen2.5-VL, the same rows (recorded synthetic mobile episodes), the same
batch (per_device_train_batch_size 4, num_generations 4, max_completion_length 48) and the same seed, so the
sampled completions match and the difference is what venuskit adds:
    grpo   the rule rewards (parsing every reply with the UI-Venus-2 grammar) instead of a trivial reward;
    mopd   the action-aware weights, the hinted teacher prompt and one teacher forward per batch.
Rounds are interleaved (plain, grpo, mopd, plain, ...) so the three share the machine's load; each round
trains `--steps` steps and the first step of every run is dropped (compilation, caches). TRL's own `step_time`
metric is the measurement.

    .venv/bin/python benchmarks/train_overhead.py [--rounds 3] [--steps 6]

Human-readable lines first; the last line is one JSON object with `mopd_vs_trl_grpo` and `grpo_vs_trl_grpo`
(ratios of median seconds per step; goal <= 1.15) and the raw medians.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "train"))  # the synthetic-episode recorder


def _args(out: Path, steps: int) -> dict[str, Any]:
    return dict(
        output_dir=str(out),
        use_cpu=True,
        bf16=False,
        report_to=[],
        logging_steps=1,
        save_strategy="no",
        per_device_train_batch_size=4,
        num_generations=4,
        max_completion_length=48,
        max_steps=steps,
        learning_rate=1e-5,
        seed=0,
        data_seed=0,
        gradient_checkpointing=False,
        disable_tqdm=True,
    )


def _length_reward(completions: list[Any], **_: Any) -> list[float]:
    return [float(len(str(c))) / 100 for c in completions]


def _plain(model: Path, data: Path, rows: list[dict[str, Any]], out: Path, steps: int) -> Any:
    from trl import GRPOConfig, GRPOTrainer

    from venuskit.train.data import to_dataset
    from venuskit.train.processing import load_processor
    from venuskit.train.trainers import load_model

    cfg = GRPOConfig(**_args(out, steps))
    return GRPOTrainer(
        model=load_model(model),
        reward_funcs=[_length_reward],
        args=cfg,
        train_dataset=to_dataset(rows),
        processing_class=load_processor(model),
    )


def _grpo(model: Path, data: Path, rows: list[dict[str, Any]], out: Path, steps: int) -> Any:
    from venuskit.train import trainers as T

    return T.make_grpo_trainer(
        T.VenusGRPOConfig(model=str(model), data=str(data), domain="mobile", **_args(out, steps)), rows
    )


def _mopd(model: Path, data: Path, rows: list[dict[str, Any]], out: Path, steps: int) -> Any:
    from venuskit.train import trainers as T

    cfg = T.VenusMOPDConfig(model=str(model), data=str(data), teachers=f"mobile={model}", **_args(out, steps))
    return T.make_mopd_trainer(cfg, rows)


def step_times(trainer: Any) -> list[float]:
    trainer.train()
    return [h["step_time"] for h in trainer.state.log_history if "step_time" in h][1:]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="Interleaved rounds of the three trainers.")
    parser.add_argument("--steps", type=int, default=6, help="Training steps per run (the first is dropped).")
    args = parser.parse_args(argv)

    from train_fixtures import record_episodes

    from venuskit.record.store import iter_episode_dirs
    from venuskit.train.data import build_rows
    from venuskit.train.tiny import build_tiny_qwen25vl

    with tempfile.TemporaryDirectory(prefix="venus-train-bench-") as tmp:
        root = Path(tmp)
        model = build_tiny_qwen25vl(root / "model", vllm_compatible=False, seed=0)
        record_episodes(root / "eps", 4, steps=2)
        rows, _ = build_rows(list(iter_episode_dirs(root / "eps")), "rl")
        times: dict[str, list[float]] = {"trl_grpo": [], "grpo": [], "mopd": []}
        makers = {"trl_grpo": _plain, "grpo": _grpo, "mopd": _mopd}
        for r in range(args.rounds):
            for name, make in makers.items():
                times[name] += step_times(make(model, root / "eps", rows, root / f"{name}{r}", args.steps))
        med = {k: statistics.median(v) for k, v in times.items()}
    for k, v in med.items():
        print(f"{k:9s} median {v * 1000:7.1f} ms/step over {len(times[k])} steps")
    result = {
        "mopd_vs_trl_grpo": round(med["mopd"] / med["trl_grpo"], 3),
        "grpo_vs_trl_grpo": round(med["grpo"] / med["trl_grpo"], 3),
        "median_s_per_step": {k: round(v, 4) for k, v in med.items()},
        "rounds": args.rounds,
        "steps_per_run": args.steps,
    }
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
