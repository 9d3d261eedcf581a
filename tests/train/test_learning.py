"""Learning, not just running: each stage moves a tiny Qwen2.5-VL in the intended direction (seeded, CPU).

Margins measured when written are in the comments; the asserted margins are about half of them.
"""

from __future__ import annotations

import statistics

import pytest
import torch  # noqa: E402
from train_fixtures import fast_args, grounding_rows  # noqa: E402

from venuskit.record.store import iter_episode_dirs  # noqa: E402
from venuskit.train import trainers as T  # noqa: E402
from venuskit.train.data import build_rows  # noqa: E402

pytestmark = pytest.mark.slow
LEFT_HALF = [0.0, 0.0, 0.5, 1.0]


def test_sft_lowers_held_out_loss(warm_click):
    _, (before, after) = warm_click
    assert after < before - 2.0, (before, after)  # measured: 5.59 -> 0.28


def test_grpo_raises_mean_reward_on_a_grounding_set(warm_grounding, tmp_path):
    """Synthetic grounding rows whose target is the left half of the screen; the SFT'd policy points anywhere.
    GRPO with the grounding rewards (format 0.1, point-in-box 0.9) must raise the mean reward."""
    model, root = warm_grounding
    rows = grounding_rows(root, 24, seed=1, box=LEFT_HALF)
    cfg = T.VenusGRPOConfig(
        model=str(model),
        data=str(root),
        domain="grounding",
        **fast_args(
            tmp_path / "grpo",
            max_steps=40,
            learning_rate=3e-4,
            num_generations=8,
            per_device_train_batch_size=8,
            max_completion_length=12,
            lr_scheduler_type="constant",
        ),
    )
    trainer = T.make_grpo_trainer(cfg, rows)
    trainer.train()
    rewards = [h["reward"] for h in trainer.state.log_history if "reward" in h]
    first, last = statistics.mean(rewards[:10]), statistics.mean(rewards[-10:])
    assert last > first + 0.1, rewards  # measured: 0.58 -> 0.78


def _type_logprob(model_dir, rows, prefix="<think>ok</think>\n<action>", token="L"):
    """Mean log π(first character of the action name = `token` | prompt, prefix) over rows."""
    from PIL import Image
    from trl.data_utils import apply_chat_template, prepare_multimodal_messages

    from venuskit.train.processing import load_processor

    model, proc = T.load_model(model_dir).eval(), load_processor(model_dir)
    target = proc.tokenizer.convert_tokens_to_ids(token)
    out = []
    for row in rows:
        images = [Image.open(p) for p in row["images"]]
        text = apply_chat_template({"prompt": prepare_multimodal_messages(row["prompt"], images=images)}, proc)[
            "prompt"
        ]
        enc = proc(text=[text + prefix], images=images, return_tensors="pt")
        with torch.no_grad():
            logits = model(**enc).logits[0, -1]
        out.append(torch.log_softmax(logits.float(), -1)[target].item())
    return statistics.mean(out)


@pytest.mark.parametrize("estimator", ["sampled", "exact"])
def test_mopd_moves_student_action_type_toward_the_teacher(estimator, warm_click, warm_longpress, tmp_path):
    """The student answers mostly Click, the mobile teacher only LongPress, and the ground truth is LongPress:
    MOPD must raise the student's log-probability of a name starting with 'L' after the fixed thought."""
    teacher, lp_episodes = warm_longpress
    rows, _ = build_rows(list(iter_episode_dirs(lp_episodes)), "rl")
    before = _type_logprob(warm_click[0], rows[:4])
    out = tmp_path / "mopd"
    cfg = T.VenusMOPDConfig(
        model=str(warm_click[0]),
        data=str(lp_episodes),
        teachers=f"mobile={teacher}",
        estimator=estimator,
        **fast_args(
            out,
            # The sampled estimator learns only from the student's own draws, so how soon it moves depends on
            # them: 30 steps moved it -1.40 -> -0.47 where this test was written, and -1.40 -> -1.40 on another
            # 2-core machine (AVX-512 kernels draw other samples; deterministic there); 60 steps: -1.40 -> -0.32.
            max_steps=60 if estimator == "sampled" else 30,
            learning_rate=3e-4,
            num_generations=2,
            max_completion_length=64,
            lr_scheduler_type="constant",
        ),
    )
    trainer = T.make_mopd_trainer(cfg, rows)
    T.train(trainer, cfg)
    after = _type_logprob(out, rows[:4])
    assert after > before + 0.4, (before, after)  # measured: -1.40 -> -0.47 (sampled), -0.54 (exact)
