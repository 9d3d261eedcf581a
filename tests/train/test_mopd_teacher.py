"""The MOPD teacher forward: one hinted prompt per GRPO group, the student's processed images reused, and the
group's completions scored from the prompt's KV cache give the same teacher log-probs as one full forward per
sample with the processor's own encoding of the hinted prompt (all three tiny families, CPU)."""

from __future__ import annotations

import pytest
import torch  # noqa: E402
from train_fixtures import fast_args, record_episodes  # noqa: E402
from trl import GRPOTrainer  # noqa: E402

from venuskit.train import losses as L  # noqa: E402
from venuskit.train import trainers as T  # noqa: E402
from venuskit.train.rewards import gt_actions_of  # noqa: E402
from venuskit.train.tiny import build_tiny  # noqa: E402


@pytest.fixture(scope="module")
def episodes(tmp_path_factory):
    root = tmp_path_factory.mktemp("teacher") / "eps"
    record_episodes(root, 2, steps=2)  # step 0 rows carry one screenshot, step 1 rows two (history)
    return root


def _batch(kind, episodes, tmp_path):
    model = build_tiny(kind, tmp_path / kind, seed=1)
    cfg = T.VenusMOPDConfig(
        model=str(model),
        data=str(episodes),
        teachers=f"mobile={model}",
        **fast_args(tmp_path / "run", num_generations=2, max_completion_length=12),
    )
    trainer = T.make_mopd_trainer(cfg)
    rows = [trainer.train_dataset[i] for i in range(len(trainer.train_dataset))]
    one, two = (next(r for r in rows if len(r["images"]) == n) for n in (1, 2))
    inputs = [one, one, two, two]  # two GRPO groups of 2 whose prompts differ in length (left padding)
    torch.manual_seed(0)
    out = GRPOTrainer._generate_and_score_completions(trainer, inputs)
    return trainer, inputs, out


def _processor_encoding(trainer, x):
    """The hinted teacher prompt as the processor encodes it from the raw images (the pre-reuse path)."""
    from trl.data_utils import apply_chat_template, prepare_multimodal_messages

    hint = L.action_type_hint([a.name for a in gt_actions_of(x["gt_actions"])])
    prompt = prepare_multimodal_messages(L.hinted_messages(x["prompt"], hint), images=x["images"])
    text = apply_chat_template({"prompt": prompt}, trainer.processing_class)["prompt"]
    return trainer.processing_class(images=x["images"], text=[text], return_tensors="pt")


@pytest.mark.parametrize("kind", ["qwen2.5-vl", "qwen3-vl", "qwen3.5"])
def test_shared_prefix_teacher_matches_full_forwards(kind, episodes, tmp_path):
    trainer, inputs, out = _batch(kind, episodes, tmp_path)
    prompts = trainer._teacher_prompts(out, inputs)
    assert prompts.owner == [0, 0, 1, 1], "each GRPO group should share one teacher prompt"
    for row, x in enumerate((inputs[0], inputs[2])):
        ref = _processor_encoding(trainer, x)
        real = prompts.attention_mask[row].bool()
        assert torch.equal(prompts.input_ids[row][real], ref["input_ids"][0]), "teacher prompt tokens differ"
        assert torch.equal(prompts.mm_token_type_ids[row][real], ref["mm_token_type_ids"][0].long())
    assert torch.equal(
        prompts.pixel_values,
        torch.cat([_processor_encoding(trainer, x)["pixel_values"] for x in (inputs[0], inputs[2])]),
    )

    shared = trainer._teacher_logps(out, inputs, prompts)
    trainer.mopd.teacher_prefix_sharing = False
    full = trainer._teacher_logps(out, inputs, prompts)
    mask = out["completion_mask"].bool()
    assert mask.sum() > 0 and torch.all(shared[mask] < 0)
    torch.testing.assert_close(shared[mask], full[mask], atol=1e-5, rtol=1e-5)

    full_vocab = trainer._teacher_full_logprobs(out, inputs, prompts)
    trainer.mopd.teacher_prefix_sharing = True
    shared_vocab = trainer._teacher_full_logprobs(out, inputs, prompts)
    torch.testing.assert_close(shared_vocab[mask], full_vocab[mask], atol=1e-5, rtol=1e-5)
    sampled = full_vocab.gather(-1, out["completion_ids"].unsqueeze(-1)).squeeze(-1)
    torch.testing.assert_close(sampled[mask], full[mask], atol=1e-5, rtol=1e-5)  # both estimators see one teacher
