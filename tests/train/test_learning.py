"""Learning, not just running: each stage moves a tiny Qwen2.5-VL in the intended direction (seeded, CPU).

Margins measured when written are in the comments; the asserted margins are about half of them.
"""

from __future__ import annotations

import statistics

import pytest

pytest.importorskip("trl")

import torch  # noqa: E402
from train_fixtures import fast_args  # noqa: E402

from venuskit.record.store import iter_episode_dirs  # noqa: E402
from venuskit.train import trainers as T  # noqa: E402
from venuskit.train.data import build_rows  # noqa: E402

pytestmark = pytest.mark.slow
LEFT_HALF = [0.0, 0.0, 0.5, 1.0]


def test_sft_lowers_held_out_loss(warm_click):
    _, (before, after) = warm_click
    assert after < before - 2.0, (before, after)  # measured: 5.59 -> ~1.4


def test_grpo_raises_mean_reward_on_a_grounding_set(warm_click, click_episodes, tmp_path):
    """Every target is the left half of the screen; the SFT'd policy clicks anywhere. GRPO with the mobile rule
    rewards (format 0.1, type 0.3, point-in-box 0.6) must raise the mean reward."""
    rows, _ = build_rows(list(iter_episode_dirs(click_episodes)), "rl", boxes_of=lambda row: [LEFT_HALF])
    cfg = T.VenusGRPOConfig(model=str(warm_click[0]), data=str(click_episodes), domain="mobile",
                            **fast_args(tmp_path / "grpo", max_steps=24, learning_rate=3e-3, num_generations=8,
                                        per_device_train_batch_size=8, max_completion_length=64,
                                        lr_scheduler_type="constant"))  # fmt: skip
    trainer = T.make_grpo_trainer(cfg, rows)
    trainer.train()
    rewards = [h["reward"] for h in trainer.state.log_history if "reward" in h]
    first, last = statistics.mean(rewards[:6]), statistics.mean(rewards[-6:])
    assert last > first + 0.1, rewards  # measured: see report


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
        text = apply_chat_template({"prompt": prepare_multimodal_messages(row["prompt"], images=images)}, proc)["prompt"]
        enc = proc(text=[text + prefix], images=images, return_tensors="pt")
        with torch.no_grad():
            logits = model(**enc).logits[0, -1]
        out.append(torch.log_softmax(logits.float(), -1)[target].item())
    return statistics.mean(out)


@pytest.mark.parametrize("estimator", ["sampled", "exact"])
def test_mopd_moves_student_action_type_toward_the_teacher(estimator, warm_click, warm_longpress, tmp_path):
    """Student answers Click, the mobile teacher answers LongPress and the data's ground truth is LongPress: the
    replies are type_wrong, so only the name tokens are supervised, and the student's name must move to 'L…'."""
    teacher, lp_episodes = warm_longpress
    rows, _ = build_rows(list(iter_episode_dirs(lp_episodes)), "rl")
    before = _type_logprob(warm_click[0], rows[:4])
    out = tmp_path / "mopd"
    cfg = T.VenusMOPDConfig(model=str(warm_click[0]), data=str(lp_episodes), teachers=f"mobile={teacher}",
                            estimator=estimator,
                            **fast_args(out, max_steps=12, learning_rate=3e-3, num_generations=2,
                                        max_completion_length=64, lr_scheduler_type="constant"))  # fmt: skip
    trainer = T.make_mopd_trainer(cfg, rows)
    T.train(trainer, cfg)
    after = _type_logprob(out, rows[:4])
    assert after > before + 1.0, (before, after)  # measured: see report
