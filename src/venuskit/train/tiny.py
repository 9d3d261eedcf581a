"""Tiny random-weight Qwen-VL models built offline, so tests can run real tokenizers, processors, HF models and a
real vLLM server on a CPU without any hub access.

Nothing here downloads: the tokenizer is a byte-level BPE with no merges (every byte is a token, so any text
round-trips) plus the Qwen special tokens, the chat template is our own, and the weights are random.
torch/transformers are imported inside the builders, so `import venuskit.train.tiny` needs neither.

    python -m venuskit.train.tiny .cache/tiny-qwen25vl          # the vLLM-CPU-compatible Qwen2.5-VL
    python -m venuskit.train.tiny .cache/tiny-qwen3vl --kind qwen3-vl   # HF-only Qwen3-VL (or qwen3.5)

`build_tiny(kind, out_dir)` builds any of the three families (Qwen2.5-VL with the HF-only dims) for tests.
"""

from __future__ import annotations

import argparse
import importlib.util
import json
import os
from pathlib import Path
from typing import Any, Literal

QWEN_SPECIAL_TOKENS = (
    "<|endoftext|>",
    "<|im_start|>",
    "<|im_end|>",
    "<|vision_start|>",
    "<|vision_end|>",
    "<|vision_pad|>",
    "<|image_pad|>",
    "<|video_pad|>",
)

# Qwen-style chat template. Accepts string content or lists of parts: text, image / image_url (one placeholder the
# processor expands to the image's tokens) and video. `enable_thinking=False` pre-closes an empty think block like
# the Qwen3 templates do, so chat_template_kwargs have an observable effect in tests.
CHAT_TEMPLATE = (
    "{%- for message in messages -%}"
    "{{- '<|im_start|>' + message['role'] + '\\n' -}}"
    "{%- if message['content'] is string -%}{{- message['content'] -}}"
    "{%- else -%}{%- for part in message['content'] -%}"
    "{%- if part['type'] == 'text' -%}{{- part['text'] -}}"
    "{%- elif part['type'] in ['image', 'image_url'] -%}{{- '<|vision_start|><|image_pad|><|vision_end|>' -}}"
    "{%- elif part['type'] in ['video', 'video_url'] -%}{{- '<|vision_start|><|video_pad|><|vision_end|>' -}}"
    "{%- endif -%}{%- endfor -%}{%- endif -%}"
    "{{- '<|im_end|>\\n' -}}"
    "{%- endfor -%}"
    "{%- if add_generation_prompt -%}{{- '<|im_start|>assistant\\n' -}}"
    "{%- if enable_thinking is defined and enable_thinking is false -%}{{- '<think>\\n\\n</think>\\n\\n' -}}{%- endif -%}"  # noqa: E501
    "{%- endif -%}"
)

# Qwen2/2.5-VL vision: 14-px patches, 2x2 merge -> one LLM token per 28x28 pixels. Small pixel bounds keep a
# 1280x800 screenshot at a few dozen image tokens.
PATCH, MERGE, TEMPORAL = 14, 2, 2
MIN_PIXELS, MAX_PIXELS = 28 * 28 * 4, 28 * 28 * 64

# vLLM's CPU attention supports head sizes {32, 64, 80, ...}: hence head_dim 32 in both towers when vLLM serves it.
# mrope_section sums to head_dim / 2.
VLLM_DIMS = {
    "text_hidden": 128,
    "text_heads": 4,
    "kv_heads": 2,
    "mrope": [4, 6, 6],
    "vision_hidden": 64,
    "vision_heads": 2,
}
HF_DIMS = {
    "text_hidden": 64,
    "text_heads": 4,
    "kv_heads": 2,
    "mrope": [2, 3, 3],
    "vision_hidden": 32,
    "vision_heads": 2,
}


def has_torchvision() -> bool:
    return importlib.util.find_spec("torchvision") is not None


def build_byte_tokenizer() -> Any:
    """A byte-level BPE tokenizer with no merges and the Qwen special tokens (264 tokens, no files needed)."""
    from tokenizers import Tokenizer, decoders, models, pre_tokenizers
    from transformers import PreTrainedTokenizerFast

    alphabet = sorted(pre_tokenizers.ByteLevel.alphabet())
    tok = Tokenizer(models.BPE(vocab={ch: i for i, ch in enumerate(alphabet)}, merges=[]))
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    tok.decoder = decoders.ByteLevel()
    tok.add_special_tokens(list(QWEN_SPECIAL_TOKENS))
    return PreTrainedTokenizerFast(
        tokenizer_object=tok,
        eos_token="<|im_end|>",
        pad_token="<|endoftext|>",
        padding_side="left",
        chat_template=CHAT_TEMPLATE,
        model_max_length=4096,
    )


def build_image_processor() -> Any:
    """The PIL-backend Qwen2-VL image processor (needs no torchvision)."""
    from transformers.models.qwen2_vl.image_processing_pil_qwen2_vl import Qwen2VLImageProcessorPil

    size = {"shortest_edge": MIN_PIXELS, "longest_edge": MAX_PIXELS}
    return Qwen2VLImageProcessorPil(size=size, patch_size=PATCH, temporal_patch_size=TEMPORAL, merge_size=MERGE)


def build_processor(tokenizer: Any) -> Any:
    """The full Qwen2_5_VLProcessor (vLLM loads it with from_pretrained); its video processor needs torchvision."""
    from transformers import Qwen2_5_VLProcessor
    from transformers.models.qwen2_vl.video_processing_qwen2_vl import Qwen2VLVideoProcessor

    video = Qwen2VLVideoProcessor(
        size={"shortest_edge": MIN_PIXELS, "longest_edge": MAX_PIXELS},
        patch_size=PATCH,
        temporal_patch_size=TEMPORAL,
        merge_size=MERGE,
    )
    return Qwen2_5_VLProcessor(
        image_processor=build_image_processor(),
        tokenizer=tokenizer,
        video_processor=video,
        chat_template=CHAT_TEMPLATE,
    )


def qwen25vl_config(tokenizer: Any, dims: dict[str, Any]) -> Any:
    from transformers import Qwen2_5_VLConfig

    ids = {t: tokenizer.convert_tokens_to_ids(t) for t in QWEN_SPECIAL_TOKENS}
    text = {
        "vocab_size": len(tokenizer),
        "hidden_size": dims["text_hidden"],
        "intermediate_size": 2 * dims["text_hidden"],
        "num_hidden_layers": 2,
        "num_attention_heads": dims["text_heads"],
        "num_key_value_heads": dims["kv_heads"],
        "max_position_embeddings": 32768,  # RoPE: long agent prompts (byte tokens) cost nothing here
        "rope_parameters": {"rope_type": "default", "rope_theta": 10000.0, "mrope_section": dims["mrope"]},
        "bos_token_id": ids["<|endoftext|>"],
        "eos_token_id": ids["<|im_end|>"],
        "pad_token_id": ids["<|endoftext|>"],
    }
    vision = {
        "depth": 2,
        "hidden_size": dims["vision_hidden"],
        "intermediate_size": 2 * dims["vision_hidden"],
        "num_heads": dims["vision_heads"],
        "out_hidden_size": dims["text_hidden"],
        "patch_size": PATCH,
        "spatial_merge_size": MERGE,
        "temporal_patch_size": TEMPORAL,
        "window_size": 56,
        "fullatt_block_indexes": [1],
    }
    return Qwen2_5_VLConfig(
        text_config=text,
        vision_config=vision,
        image_token_id=ids["<|image_pad|>"],
        video_token_id=ids["<|video_pad|>"],
        vision_start_token_id=ids["<|vision_start|>"],
        vision_end_token_id=ids["<|vision_end|>"],
        tie_word_embeddings=False,
    )


def build_tiny_qwen25vl(out_dir: str | os.PathLike[str], *, vllm_compatible: bool = True, seed: int = 0) -> Path:
    """Build and save a random-weight Qwen2.5-VL (tokenizer, chat template, processor, config, weights) offline.

    vllm_compatible=True picks dims that vLLM's CPU attention accepts and saves the full Qwen2_5_VLProcessor,
    which needs torchvision. False picks the smallest HF-only dims and, without torchvision, saves the tokenizer and
    the PIL image processor instead of the full processor. Returns the output directory.
    """
    os.environ.setdefault("HF_HUB_OFFLINE", "1")  # nothing below should touch the hub; make sure it cannot
    if vllm_compatible and not has_torchvision():
        raise RuntimeError(
            "A vLLM-compatible tiny model needs the full Qwen2_5_VLProcessor, whose video processor needs "
            "torchvision; run this inside .venv-vllm (scripts/setup-vllm.sh) or pass vllm_compatible=False."
        )
    import torch
    from transformers import GenerationConfig, Qwen2_5_VLForConditionalGeneration

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    tokenizer = build_byte_tokenizer()
    config = qwen25vl_config(tokenizer, VLLM_DIMS if vllm_compatible else HF_DIMS)
    torch.manual_seed(seed)
    model = Qwen2_5_VLForConditionalGeneration(config).eval()
    model.generation_config = GenerationConfig(
        bos_token_id=tokenizer.pad_token_id,
        eos_token_id=[tokenizer.eos_token_id, tokenizer.pad_token_id],
        pad_token_id=tokenizer.pad_token_id,
    )
    model.save_pretrained(out)
    if has_torchvision():
        build_processor(tokenizer).save_pretrained(out)
    else:
        tokenizer.save_pretrained(out)
        build_image_processor().save_pretrained(out)
    _write_card(out, model, vllm_compatible=vllm_compatible, seed=seed)
    return out


def _write_card(out: Path, model: Any, *, vllm_compatible: bool, seed: int) -> None:
    card = {
        "built_by": "venuskit.train.tiny.build_tiny_qwen25vl",
        "kind": "qwen2_5_vl",
        "weights": "random",
        "seed": seed,
        "vllm_compatible": vllm_compatible,
        "num_parameters": sum(p.numel() for p in model.parameters()),
    }
    (out / "venuskit_tiny.json").write_text(json.dumps(card, indent=2) + "\n")


# ---- Qwen3-VL and Qwen3.5 -------------------------------------------------------------------------

TinyKind = Literal["qwen2.5-vl", "qwen3-vl", "qwen3.5"]
KINDS: tuple[str, ...] = ("qwen2.5-vl", "qwen3-vl", "qwen3.5")

# Qwen3-VL / Qwen3.5 vision: 16-px patches, 2x2 merge -> one LLM token per 32x32 pixels (a 112x84 screen becomes
# a 96x128 grid of 6x8 patches: 48 patches, 12 image tokens). Their processors normalise with mean = std = 0.5.
Q3_PATCH = 16
Q3_MIN_PIXELS, Q3_MAX_PIXELS = 32 * 32 * 4, 32 * 32 * 64
Q3_NORM = [0.5, 0.5, 0.5]

# Smallest dims the Qwen3 modelling code accepts (reference/training.md §6). mrope_section sums to the rotary
# half-width: head_dim/2 for Qwen3-VL, head_dim*partial_rotary_factor/2 for Qwen3.5.
Q3VL_TEXT = {
    "hidden_size": 64,
    "intermediate_size": 128,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "head_dim": 16,
    "rope_parameters": {
        "rope_type": "default",
        "rope_theta": 10000.0,
        "mrope_section": [4, 2, 2],
        "mrope_interleaved": True,
    },
}
Q35_TEXT = {
    "hidden_size": 64,
    "intermediate_size": 128,
    "num_attention_heads": 4,
    "num_key_value_heads": 2,
    "head_dim": 32,
    # One Gated-DeltaNet layer and one full-attention layer, like the real 3:1 pattern in miniature.
    "layer_types": ["linear_attention", "full_attention"],
    "linear_key_head_dim": 16,
    "linear_value_head_dim": 16,
    "linear_num_key_heads": 2,
    "linear_num_value_heads": 4,
    "linear_conv_kernel_dim": 4,
    "rope_parameters": {
        "rope_type": "default",
        "rope_theta": 10000.0,
        "partial_rotary_factor": 0.25,
        "mrope_section": [2, 1, 1],
        "mrope_interleaved": True,
    },
}
Q3_VISION = {
    "depth": 2,
    "hidden_size": 32,
    "intermediate_size": 64,
    "num_heads": 2,
    "out_hidden_size": 64,  # = the text hidden size
    "patch_size": Q3_PATCH,
    "spatial_merge_size": MERGE,
    "temporal_patch_size": TEMPORAL,
    "num_position_embeddings": 64,  # an 8x8 learned grid, interpolated to each image's patch grid
}


def _special_ids(tokenizer: Any) -> dict[str, int]:
    return {t: tokenizer.convert_tokens_to_ids(t) for t in QWEN_SPECIAL_TOKENS}


def _text_ids(ids: dict[str, int]) -> dict[str, int]:
    return {
        "bos_token_id": ids["<|endoftext|>"],
        "eos_token_id": ids["<|im_end|>"],
        "pad_token_id": ids["<|endoftext|>"],
    }


def qwen3_config(tokenizer: Any, kind: str) -> Any:
    """The tiny Qwen3VLConfig ("qwen3-vl") or Qwen3_5Config ("qwen3.5"); token ids match `tokenizer`."""
    from transformers import Qwen3_5Config, Qwen3VLConfig

    ids = _special_ids(tokenizer)
    shared = {"vocab_size": len(tokenizer), "num_hidden_layers": 2, "max_position_embeddings": 32768}
    if kind == "qwen3-vl":
        cls, text, vision = Qwen3VLConfig, Q3VL_TEXT, dict(Q3_VISION, deepstack_visual_indexes=[1])
    else:
        cls, text, vision = Qwen3_5Config, Q35_TEXT, dict(Q3_VISION)
    return cls(
        text_config={**shared, **text, **_text_ids(ids)},
        vision_config=vision,
        image_token_id=ids["<|image_pad|>"],
        video_token_id=ids["<|video_pad|>"],
        vision_start_token_id=ids["<|vision_start|>"],
        vision_end_token_id=ids["<|vision_end|>"],
        tie_word_embeddings=False,
    )


def build_q3_image_processor() -> Any:
    """The PIL-backend Qwen2-VL image processor with Qwen3-VL's 16-px patches and 0.5 normalisation."""
    from transformers.models.qwen2_vl.image_processing_pil_qwen2_vl import Qwen2VLImageProcessorPil

    return Qwen2VLImageProcessorPil(
        size={"shortest_edge": Q3_MIN_PIXELS, "longest_edge": Q3_MAX_PIXELS},
        patch_size=Q3_PATCH,
        temporal_patch_size=TEMPORAL,
        merge_size=MERGE,
        image_mean=Q3_NORM,
        image_std=Q3_NORM,
    )


def build_q3_processor(tokenizer: Any) -> Any:
    """The full Qwen3VLProcessor (Qwen3.5 uses it too); its video processor needs torchvision."""
    from transformers import Qwen3VLProcessor
    from transformers.models.qwen3_vl.video_processing_qwen3_vl import Qwen3VLVideoProcessor

    video = Qwen3VLVideoProcessor(
        size={"shortest_edge": Q3_MIN_PIXELS, "longest_edge": Q3_MAX_PIXELS},
        patch_size=Q3_PATCH,
        temporal_patch_size=TEMPORAL,
        merge_size=MERGE,
        image_mean=Q3_NORM,
        image_std=Q3_NORM,
    )
    return Qwen3VLProcessor(
        image_processor=build_q3_image_processor(),
        tokenizer=tokenizer,
        video_processor=video,
        chat_template=CHAT_TEMPLATE,
    )


def build_tiny_qwen3(out_dir: str | os.PathLike[str], kind: str = "qwen3-vl", *, seed: int = 0) -> Path:
    """Build and save a random-weight Qwen3-VL (kind="qwen3-vl") or Qwen3.5 (kind="qwen3.5") offline.

    Same pieces as `build_tiny_qwen25vl`: the byte-level tokenizer, our chat template, the PIL image processor
    (the full Qwen3VLProcessor when torchvision is installed), config, random weights. HF-only: vLLM's CPU
    attention rejects head_dim 16. Qwen3.5 runs its Gated-DeltaNet layer on the PyTorch fallback kernels on CPU.
    """
    if kind not in ("qwen3-vl", "qwen3.5"):
        raise ValueError(f"kind={kind!r}: build_tiny_qwen3 builds 'qwen3-vl' or 'qwen3.5'.")
    os.environ.setdefault("HF_HUB_OFFLINE", "1")
    import torch
    from transformers import AutoModelForImageTextToText

    out = Path(out_dir)
    out.mkdir(parents=True, exist_ok=True)
    tokenizer = build_byte_tokenizer()
    torch.manual_seed(seed)
    model = AutoModelForImageTextToText.from_config(qwen3_config(tokenizer, kind)).eval()
    model.generation_config = _generation_config(tokenizer)
    model.save_pretrained(out)
    if has_torchvision():
        build_q3_processor(tokenizer).save_pretrained(out)
    else:
        tokenizer.save_pretrained(out)
        build_q3_image_processor().save_pretrained(out)
    _write_tiny_card(out, model, kind=model.config.model_type, built_by="build_tiny_qwen3", seed=seed)
    return out


def build_tiny(kind: TinyKind, out_dir: str | os.PathLike[str], seed: int = 0) -> Path:
    """A tiny random-weight model of one family, for HF/TRL tests: "qwen2.5-vl" (HF-only dims), "qwen3-vl" or
    "qwen3.5". Returns the output directory, loadable with `venuskit.train.processing.load_processor` and
    `AutoModelForImageTextToText.from_pretrained`."""
    if kind == "qwen2.5-vl":
        return build_tiny_qwen25vl(out_dir, vllm_compatible=False, seed=seed)
    if kind in ("qwen3-vl", "qwen3.5"):
        return build_tiny_qwen3(out_dir, kind, seed=seed)
    raise ValueError(f"kind={kind!r} is not a tiny model family; use one of {list(KINDS)}.")


def _generation_config(tokenizer: Any) -> Any:
    from transformers import GenerationConfig

    return GenerationConfig(
        bos_token_id=tokenizer.pad_token_id,
        eos_token_id=[tokenizer.eos_token_id, tokenizer.pad_token_id],
        pad_token_id=tokenizer.pad_token_id,
    )


def _write_tiny_card(out: Path, model: Any, *, kind: str, built_by: str, seed: int) -> None:
    card = {
        "built_by": f"venuskit.train.tiny.{built_by}",
        "kind": kind,
        "weights": "random",
        "seed": seed,
        "vllm_compatible": False,
        "num_parameters": sum(p.numel() for p in model.parameters()),
    }
    (out / "venuskit_tiny.json").write_text(json.dumps(card, indent=2) + "\n")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description="Build a tiny random-weight Qwen-VL model offline.")
    parser.add_argument("out_dir", help="Directory to write the model into (created if missing).")
    parser.add_argument("--seed", type=int, default=0, help="Seed for the random weights.")
    parser.add_argument(
        "--kind", choices=KINDS, default="qwen2.5-vl", help="Model family (qwen3-vl and qwen3.5 are HF-only)."
    )
    parser.add_argument(
        "--hf-only", action="store_true", help="Smallest dims for HF-only tests (vLLM's CPU attention rejects them)."
    )
    args = parser.parse_args(argv)
    if args.kind == "qwen2.5-vl":
        out = build_tiny_qwen25vl(args.out_dir, vllm_compatible=not args.hf_only, seed=args.seed)
    else:
        out = build_tiny_qwen3(args.out_dir, args.kind, seed=args.seed)
    print(json.loads((out / "venuskit_tiny.json").read_text()) | {"path": str(out)})
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
