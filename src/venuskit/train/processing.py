"""Loading a Qwen-VL processor for training, with or without torchvision.

The Qwen-VL processors require a video processor, and the video processors require torchvision; without it
`AutoProcessor.from_pretrained` quietly returns the bare tokenizer (reference/training.md §6). Our trainers use
images only, so without torchvision we build the model's own processor class with the video slot removed.
"""

from __future__ import annotations

import importlib.util
import json
from functools import cache
from pathlib import Path
from typing import Any

_PROCESSORS = {
    "qwen2_5_vl": ("transformers", "Qwen2_5_VLProcessor"),
    "qwen2_vl": ("transformers", "Qwen2VLProcessor"),
    "qwen3_vl": ("transformers", "Qwen3VLProcessor"),
    "qwen3_5": ("transformers", "Qwen3VLProcessor"),
}


def has_torchvision() -> bool:
    return importlib.util.find_spec("torchvision") is not None


@cache
def image_only(processor_cls: type) -> type:
    """A subclass of a Qwen-VL processor class that takes no video processor (images and text only)."""
    from transformers import ProcessorMixin

    def __init__(
        self: Any, image_processor: Any = None, tokenizer: Any = None, chat_template: Any = None, **kw: Any
    ) -> None:
        self.image_token = getattr(tokenizer, "image_token", None) or "<|image_pad|>"
        self.video_token = getattr(tokenizer, "video_token", None) or "<|video_pad|>"
        self.image_token_id = tokenizer.convert_tokens_to_ids(self.image_token)
        self.video_token_id = tokenizer.convert_tokens_to_ids(self.video_token)
        if hasattr(processor_cls, "vision_start_token") or "Qwen3" in processor_cls.__name__:
            self.vision_start_token = "<|vision_start|>"
            self.vision_end_token = "<|vision_end|>"
            self.vision_start_token_id = tokenizer.convert_tokens_to_ids(self.vision_start_token)
            self.vision_end_token_id = tokenizer.convert_tokens_to_ids(self.vision_end_token)
        ProcessorMixin.__init__(self, image_processor, tokenizer, chat_template=chat_template)

    return type(f"ImageOnly{processor_cls.__name__}", (processor_cls,), {"__init__": __init__})


def model_type(path: str | Path) -> str:
    config = json.loads((Path(path) / "config.json").read_text())
    return str(config.get("model_type", ""))


def load_processor(path: str | Path) -> Any:
    """The processor saved with a model folder: AutoProcessor when torchvision is installed, else the model's
    Qwen-VL processor class without its video part (PIL image processor + tokenizer + chat template)."""
    from transformers import AutoProcessor, AutoTokenizer

    path = Path(path)
    kind = model_type(path)
    if has_torchvision() or kind not in _PROCESSORS:
        return AutoProcessor.from_pretrained(path)
    import transformers
    from transformers.models.qwen2_vl.image_processing_pil_qwen2_vl import Qwen2VLImageProcessorPil

    cls = image_only(getattr(transformers, _PROCESSORS[kind][1]))
    tokenizer = AutoTokenizer.from_pretrained(path)
    image_processor = Qwen2VLImageProcessorPil.from_pretrained(path)
    return cls(image_processor=image_processor, tokenizer=tokenizer, chat_template=tokenizer.chat_template)
