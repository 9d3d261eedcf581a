"""Tiny offline Qwen2.5-VL, Qwen3-VL and Qwen3.5: each builds without the hub, sees its image, trains, generates,
saves and reloads; the SFT and MOPD trainers update every parameter of the Qwen3 families too (real TRL, CPU)."""

from __future__ import annotations

import json

import pytest
import torch  # noqa: E402
from train_fixtures import H, W, fast_args, record_episodes, screen_png  # noqa: E402

from venuskit.train import trainers as T  # noqa: E402
from venuskit.train.processing import load_processor  # noqa: E402
from venuskit.train.tiny import KINDS, build_tiny  # noqa: E402

MODEL_TYPES = {"qwen2.5-vl": "qwen2_5_vl", "qwen3-vl": "qwen3_vl", "qwen3.5": "qwen3_5"}


def _image(x: float, y: float):
    import io

    from PIL import Image

    return Image.open(io.BytesIO(screen_png(x, y))).convert("RGB")


def _encode(proc, image, text="Where is the red square?"):
    messages = [{"role": "user", "content": [{"type": "image"}, {"type": "text", "text": text}]}]
    prompt = proc.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
    return proc(images=[image], text=[prompt], return_tensors="pt")


@pytest.mark.parametrize("kind", KINDS)
def test_tiny_model_sees_its_image_trains_generates_and_reloads(kind, tmp_path):
    from transformers import AutoModelForImageTextToText

    out = build_tiny(kind, tmp_path / kind, seed=0)
    assert json.loads((out / "config.json").read_text())["model_type"] == MODEL_TYPES[kind]
    proc = load_processor(out)
    model = AutoModelForImageTextToText.from_pretrained(out).eval()
    text = "<action>Click(box=(1,2))</action> é"
    assert proc.tokenizer.decode(proc.tokenizer(text)["input_ids"]) == text  # byte-level: any text round-trips

    enc = _encode(proc, _image(0.3, 0.3))
    image_tokens = int((enc["input_ids"] == model.config.image_token_id).sum())
    assert image_tokens == 12, f"a {W}x{H} screen should become 12 image tokens, got {image_tokens}"
    with torch.no_grad():
        logits = model(**enc).logits
        other = model(**_encode(proc, _image(0.7, 0.7))).logits
    assert not torch.allclose(logits[0, -1], other[0, -1]), "the image does not reach the language model"

    model.train()
    model(**enc, labels=enc["input_ids"]).loss.backward()
    vision_grads = [p.grad for n, p in model.named_parameters() if "visual" in n and p.grad is not None]
    assert vision_grads and any(g.abs().sum() > 0 for g in vision_grads), "no gradient reaches the vision tower"

    model.eval()
    generated = model.generate(**enc, max_new_tokens=6, do_sample=False)
    n_prompt = enc["input_ids"].shape[1]
    assert torch.equal(generated[0, :n_prompt], enc["input_ids"][0]) and generated.shape[1] > n_prompt

    model.save_pretrained(tmp_path / "saved")
    proc.save_pretrained(tmp_path / "saved")
    reloaded = AutoModelForImageTextToText.from_pretrained(tmp_path / "saved").eval()
    with torch.no_grad():
        again = reloaded(**_encode(load_processor(tmp_path / "saved"), _image(0.3, 0.3))).logits
    torch.testing.assert_close(again, logits)


def test_build_tiny_refuses_an_unknown_family(tmp_path):
    with pytest.raises(ValueError, match="is not a tiny model family"):
        build_tiny("llava", tmp_path)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def tiny_models(tmp_path_factory):
    root = tmp_path_factory.mktemp("q3")
    return {kind: build_tiny(kind, root / kind, seed=0) for kind in ("qwen3-vl", "qwen3.5")}


def _changed(trainer, label: str) -> None:
    before = {n: p.detach().clone() for n, p in trainer.model.named_parameters() if p.requires_grad}
    trainer.train()
    after = dict(trainer.model.named_parameters())
    unchanged = [n for n in before if torch.equal(before[n], after[n].detach())]
    assert not unchanged, f"{label} left parameters unchanged: {unchanged}"


@pytest.mark.parametrize("kind", ["qwen3-vl", "qwen3.5"])
@pytest.mark.parametrize("stage", ["sft", "mopd"])
def test_trainers_update_every_parameter_of_qwen3_families(stage, kind, tiny_models, tmp_path):
    """SFT (TRL's VLM collator) and MOPD (TRL GRPO generation + the hinted teacher forward + the GRPO loss) on the
    other two families. A random student's replies do not parse, so MOPD supervises every token (weight 1)."""
    model = tiny_models[kind]
    record_episodes(tmp_path / "eps", 2)
    args = fast_args(tmp_path / "run", max_steps=1, learning_rate=1e-2)
    common = dict(model=str(model), data=str(tmp_path / "eps"))
    if stage == "sft":
        trainer = T.make_sft_trainer(T.VenusSFTConfig(**common, **args))
    else:
        cfg = T.VenusMOPDConfig(
            **common, teachers=f"mobile={model}", num_generations=2, max_completion_length=16, **args
        )
        trainer = T.make_mopd_trainer(cfg)
    _changed(trainer, f"{stage} on {kind}")
