"""Seconds per training step of `venus train grpo` and `venus train mopd` vs a plain TRL GRPOTrainer.

All run on the same tiny offline model (Qwen2.5-VL by default, `--kind` for the others), first SFT'd briefly on
recorded synthetic mobile episodes (`--warm-steps`) so that it answers in the UI-Venus-2 format: the rewards then
parse real actions and score real types and points, and MOPD's action-aware weights and teacher scoring see real
action spans (a random tiny model's replies never parse, which would time only the rejection path). The share of
replies that parse is reported (`parse_share`, the GRPO run's mean format reward) and must reach --min-parse.
Then every trainer trains on the same rows with the same batch (per_device_train_batch_size 4, num_generations 4,
max_completion_length 72), the same seed and learning rate 0, so the policy never moves and every trainer samples
exactly the same completions at every step: equal completion lengths are enforced, not hoped for (the run is
refused when any step's mean length differs). The difference is what venuskit adds:
    grpo        the rule rewards (parsing every reply with the UI-Venus-2 grammar) instead of a trivial reward;
    mopd        the action-aware weights, the hinted teacher prompt and the teacher forward: the group's shared
                prompt runs once and its KV cache scores the group's completions (teacher_prefix_sharing=True);
    mopd_full   the same with teacher_prefix_sharing=False (one full teacher forward per sample), for reference.
The teacher is a second copy of the warmed model. Rounds are interleaved (plain, grpo, mopd, mopd_full, plain, ...)
so all share the machine's load; each round trains `--steps` steps and the first step of every run is dropped
(compilation, caches). The measurement is the time of each training step (TRL's `training_step`: generation,
scoring, teacher, loss, backward and the optimizer step):
    --clock wall  TRL's own `step_time` metric (wall clock), torch's default threads. On a shared machine other
                  processes' load leaks into it; read it with the load average the JSON reports.
    --clock cpu   this process's CPU seconds per step, with torch on one thread, so waiting for a core shared with
                  other processes does not count. Use it when the machine is busy.

    .venv/bin/python benchmarks/train_overhead.py [--rounds 3] [--steps 6] [--kind qwen2.5-vl] [--clock wall]

Human-readable lines first; the last line is one JSON object with `mopd_vs_trl_grpo`, `grpo_vs_trl_grpo` and
`mopd_full_vs_trl_grpo` (ratios of median seconds per step; goal <= 1.15), the raw medians, `parse_share`,
`mopd_supervised_token_frac`, `same_completion_lengths` and the 1-minute load average before and after (the
machine is shared: read the ratios with it). The exit status is 1 when the lengths differ or too few replies parse.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

os.environ.setdefault("HF_HUB_OFFLINE", "1")
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "train"))  # the synthetic-episode recorder


MAX_COMPLETION = 72


def _args(out: Path, steps: int) -> dict[str, Any]:
    from train_fixtures import fast_args  # the training tests' CPU settings (batch 4, seed 0, no saving)

    # learning rate 0: the policy stays put, so every trainer samples the same completions at every step.
    # 72 tokens: the tiny tokenizer spends one token per byte, and a full reply such as
    # "<think>ok</think>\n<action>Click(point=(520, 370))</action>" is 58-60 bytes; a shorter cap cuts every
    # reply before </action>, and no reply could ever parse.
    return fast_args(out, num_generations=4, max_completion_length=MAX_COMPLETION, max_steps=steps, learning_rate=0.0)


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


def _mopd(model: Path, data: Path, rows: list[dict[str, Any]], out: Path, steps: int, share: bool = True) -> Any:
    from venuskit.train import trainers as T

    cfg = T.VenusMOPDConfig(
        model=str(model), data=str(data), teachers=f"mobile={model}", teacher_prefix_sharing=share, **_args(out, steps)
    )
    return T.make_mopd_trainer(cfg, rows)


def _mopd_full(model: Path, data: Path, rows: list[dict[str, Any]], out: Path, steps: int) -> Any:
    return _mopd(model, data, rows, out, steps, share=False)


def run(trainer: Any, clock: str = "wall") -> tuple[list[float], list[float], dict[str, float]]:
    """Seconds per step (first dropped), the mean completion length of every step, and the run's mean of the
    logged format reward and MOPD supervised-token share (where the trainer logs them)."""
    cpu: list[float] = []
    if clock == "cpu":
        step = trainer.training_step

        def timed(*args: Any, **kwargs: Any) -> Any:
            start = time.process_time()
            try:
                return step(*args, **kwargs)
            finally:
                cpu.append(time.process_time() - start)

        trainer.training_step = timed
    trainer.train()
    history = trainer.state.log_history
    lengths = [h["completions/mean_length"] for h in history if "completions/mean_length" in h]
    wall = [h["step_time"] for h in history if "step_time" in h]
    logged = {}
    for key, name in (("rewards/format/mean", "parse_share"), ("mopd/supervised_token_frac", "supervised")):
        values = [h[key] for h in history if key in h]
        if values:
            logged[name] = statistics.mean(values)
    return (cpu if clock == "cpu" else wall)[1:], lengths, logged


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rounds", type=int, default=3, help="Interleaved rounds of the three trainers.")
    parser.add_argument("--steps", type=int, default=6, help="Training steps per run (the first is dropped).")
    parser.add_argument("--kind", default="qwen2.5-vl", help="Tiny model family: qwen2.5-vl, qwen3-vl or qwen3.5.")
    parser.add_argument("--clock", choices=("wall", "cpu"), default="wall", help="What a step's time is (see above).")
    parser.add_argument("--warm-steps", type=int, default=100, help="SFT steps that teach the tiny model the format.")
    parser.add_argument("--min-parse", type=float, default=0.5, help="Least share of replies that must parse.")
    args = parser.parse_args(argv)
    if args.clock == "cpu":
        import torch

        torch.set_num_threads(1)  # process CPU time then counts work, not threads spinning for a busy core

    from train_fixtures import record_episodes, sft_warm

    from venuskit.record.store import iter_episode_dirs
    from venuskit.train.data import build_rows
    from venuskit.train.tiny import build_tiny

    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="venus-train-bench-") as tmp:
        root = Path(tmp)
        base = build_tiny(args.kind, root / "base", seed=0)  # type: ignore[arg-type]
        record_episodes(root / "eps", 12, steps=1)  # Click replies at a red square, as in the training tests
        model, _ = sft_warm(base, root / "eps", root / "model", steps=args.warm_steps)
        rows, _ = build_rows(list(iter_episode_dirs(root / "eps")), "rl")
        makers = {"trl_grpo": _plain, "grpo": _grpo, "mopd": _mopd, "mopd_full": _mopd_full}
        times: dict[str, list[float]] = {k: [] for k in makers}
        lengths: dict[tuple[str, int], list[float]] = {}
        logged: dict[str, dict[str, float]] = {}
        for r in range(args.rounds):
            for name, make in makers.items():
                steps, lens, logs = run(make(model, root / "eps", rows, root / f"{name}{r}", args.steps), args.clock)
                times[name] += steps
                lengths[(name, r)] = lens
                logged.setdefault(name, logs)
        med = {k: statistics.median(v) for k, v in times.items()}
    same_batches = len({tuple(v) for v in lengths.values()}) == 1
    parse_share = logged["grpo"].get("parse_share", 0.0)
    supervised = logged["mopd"].get("supervised", 0.0)
    for k, v in med.items():
        print(f"{k:9s} median {v * 1000:7.1f} ms/step ({args.clock} clock) over {len(times[k])} steps")
    print(f"same completion lengths at every step of every run: {same_batches} ({lengths[('trl_grpo', 0)]})")
    print(f"replies that parse (GRPO format reward): {parse_share:.2f}; MOPD supervised-token share {supervised:.2f}")
    valid = same_batches and parse_share >= args.min_parse
    result = {
        "mopd_vs_trl_grpo": round(med["mopd"] / med["trl_grpo"], 3),
        "grpo_vs_trl_grpo": round(med["grpo"] / med["trl_grpo"], 3),
        "mopd_full_vs_trl_grpo": round(med["mopd_full"] / med["trl_grpo"], 3),
        "median_s_per_step": {k: round(v, 4) for k, v in med.items()},
        "same_completion_lengths": same_batches,
        "parse_share": round(parse_share, 3),
        "mopd_supervised_token_frac": round(supervised, 3),
        "warm_steps": args.warm_steps,
        "valid": valid,
        "kind": args.kind,
        "clock": args.clock,
        "rounds": args.rounds,
        "steps_per_run": args.steps,
        "load_1min_before_after": [round(load_before, 2), round(os.getloadavg()[0], 2)],
    }
    if not valid:
        print("INVALID: the trainers did not time the same work (see same_completion_lengths and parse_share).")
    print(json.dumps(result))
    return 0 if valid else 1


if __name__ == "__main__":
    raise SystemExit(main())
