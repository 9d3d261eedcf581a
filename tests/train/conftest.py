"""Fixtures for the training tests: synthetic screenshots, episodes recorded through the real store, tiny models.

Screens are 112x84 PNGs (12 image tokens on the tiny Qwen2.5-VL) with a red square at a known place. System
prompts are kept short on purpose: the byte-level tokenizer makes every character a token.
"""

from __future__ import annotations

import io
import os
import random
from pathlib import Path

import pytest

os.environ.setdefault("HF_HUB_OFFLINE", "1")

from venuskit.actions.grammar import format_response  # noqa: E402
from venuskit.actions.types import Click, LongPress, Point  # noqa: E402
from venuskit.record.episode import Episode, Outcome, Step  # noqa: E402
from venuskit.record.store import EpisodeStore  # noqa: E402

W, H = 112, 84
SYSTEM = "You are a GUI Agent. Task: press the red square."


def screen_png(x: float, y: float, size: float = 0.2) -> bytes:
    from PIL import Image, ImageDraw

    img = Image.new("RGB", (W, H), (200, 200, 200))
    d = ImageDraw.Draw(img)
    d.rectangle([(x - size / 2) * W, (y - size / 2) * H, (x + size / 2) * W, (y + size / 2) * H], fill=(220, 20, 20))
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return buf.getvalue()


def reply(action) -> str:
    return format_response("ok", action, "mobile")


def record_episodes(root: Path, n: int, kind=Click, seed: int = 0, steps: int = 2, verdict=None) -> list[Path]:
    """`n` finished mobile episodes of `steps` steps whose every action is `kind` at the square's centre."""
    rng = random.Random(seed)
    store = EpisodeStore(root)
    dirs = []
    for e in range(n):
        ep = Episode(episode_id=f"{kind.name.lower()}-{seed}-{e}", task={"goal": "press the red square"},
                     surface="mobile", screen=(W, H), config={"system_prompt": SYSTEM})  # fmt: skip
        with store.create(ep) as w:
            for i in range(steps):
                x, y = round(rng.uniform(0.15, 0.85), 2), round(rng.uniform(0.15, 0.85), 2)
                action = kind(point=Point(x, y))
                w.add_step(Step(index=i, screenshot=None, raw_output=reply(action), thought="ok", action=action),
                           screen_png(x, y))  # fmt: skip
            if verdict is not None:
                w.update_manifest(verdicts={"contract": verdict})
            w.finish(Outcome(terminated=True, reason="finished"))
        dirs.append(root / ep.episode_id)
    return dirs


@pytest.fixture(scope="session")
def tiny_model(tmp_path_factory) -> Path:
    """A random-weight tiny Qwen2.5-VL saved offline (HF-only dims)."""
    from venuskit.train.tiny import build_tiny_qwen25vl

    return build_tiny_qwen25vl(tmp_path_factory.mktemp("tiny") / "model", vllm_compatible=False, seed=0)


def fast_args(out: Path, **kw) -> dict:
    """TRL arguments that keep a CPU run to a few seconds."""
    base = dict(output_dir=str(out), use_cpu=True, bf16=False, report_to=[], logging_steps=1, save_strategy="no",
                per_device_train_batch_size=4, gradient_accumulation_steps=1, seed=0, data_seed=0,
                dataloader_num_workers=0, disable_tqdm=True)  # fmt: skip
    base.update(kw)
    return base
