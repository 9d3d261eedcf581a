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
        ep = Episode(
            episode_id=f"{kind.name.lower()}-{seed}-{e}",
            task={"goal": "press the red square"},
            surface="mobile",
            screen=(W, H),
            config={"system_prompt": SYSTEM},
        )
        with store.create(ep) as w:
            for i in range(steps):
                x, y = round(rng.uniform(0.15, 0.85), 2), round(rng.uniform(0.15, 0.85), 2)
                action = kind(point=Point(x, y))
                w.add_step(
                    Step(index=i, screenshot=None, raw_output=reply(action), thought="ok", action=action),
                    screen_png(x, y),
                )
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
    base = dict(
        output_dir=str(out),
        use_cpu=True,
        bf16=False,
        report_to=[],
        logging_steps=1,
        save_strategy="no",
        per_device_train_batch_size=4,
        gradient_accumulation_steps=1,
        seed=0,
        data_seed=0,
        dataloader_num_workers=0,
        disable_tqdm=True,
        gradient_checkpointing=False,
    )
    base.update(kw)
    return base


def sft_warm(
    base: Path,
    episodes: Path,
    out: Path,
    steps: int = 30,
    eval_episodes: Path | None = None,
    lr: float = 3e-3,
    rows: list | None = None,
):
    """SFT `base` on `episodes` (the format and action type of their replies); returns (model dir, eval losses
    before and after when eval_episodes is given)."""
    from venuskit.record.store import iter_episode_dirs
    from venuskit.train import trainers as T
    from venuskit.train.data import build_rows, to_dataset

    held_ds = None
    if eval_episodes is not None:  # built before the trainer: a second TRL config would reset accelerate's state
        held, _ = build_rows(list(iter_episode_dirs(eval_episodes)), "sft")
        held_ds = to_dataset([{k: r[k] for k in ("prompt", "completion", "images")} for r in held])
    cfg = T.VenusSFTConfig(
        model=str(base),
        data=str(episodes),
        **fast_args(
            out, max_steps=steps, learning_rate=lr, lr_scheduler_type="constant", per_device_eval_batch_size=4
        ),
    )
    trainer = T.make_sft_trainer(cfg, rows)
    losses = None
    if held_ds is not None:
        before = trainer.evaluate(eval_dataset=held_ds)["eval_loss"]
    T.train(trainer, cfg)
    if held_ds is not None:
        losses = (before, trainer.evaluate(eval_dataset=held_ds)["eval_loss"])
    return out, losses


@pytest.fixture(scope="session")
def click_episodes(tmp_path_factory) -> Path:
    """One-step mobile episodes: 12 answered with Click and 4 with LongPress (a student that knows both)."""
    root = tmp_path_factory.mktemp("click") / "eps"
    record_episodes(root, 12, Click, seed=0, steps=1)
    record_episodes(root, 4, LongPress, seed=5, steps=1)
    return root


@pytest.fixture(scope="session")
def warm_click(tiny_model, click_episodes, tmp_path_factory):
    """The tiny model after SFT on click_episodes: (model dir, (held-out loss before, after))."""
    held = tmp_path_factory.mktemp("held") / "eps"
    record_episodes(held, 3, Click, seed=9, steps=1)
    record_episodes(held, 1, LongPress, seed=8, steps=1)
    return sft_warm(
        tiny_model, click_episodes, tmp_path_factory.mktemp("warm_click") / "model", steps=100, eval_episodes=held
    )


@pytest.fixture(scope="session")
def warm_longpress(tiny_model, tmp_path_factory):
    """The tiny model after SFT on LongPress replies only (a teacher whose type distribution differs)."""
    root = tmp_path_factory.mktemp("longpress") / "eps"
    record_episodes(root, 12, LongPress, seed=3, steps=1)
    return sft_warm(tiny_model, root, tmp_path_factory.mktemp("warm_longpress") / "model", steps=100)[0], root


def grounding_rows(root: Path, n: int, seed: int = 0, box=None) -> list[dict]:
    """`n` grounding rows (UI-Venus-2 no-think format) over saved screenshots. The SFT answer is the square's
    centre on the 0-1000 grid; the target box is the square, or `box` when given."""
    from venuskit.train.data import grounding_row

    rng = random.Random(seed)
    root.mkdir(parents=True, exist_ok=True)
    rows = []
    for i in range(n):
        x, y = round(rng.uniform(0.1, 0.9), 2), round(rng.uniform(0.1, 0.9), 2)
        path = root / f"g{seed}_{i}.png"
        path.write_bytes(screen_png(x, y))
        target = box or [x - 0.1, y - 0.1, x + 0.1, y + 0.1]
        rows.append(
            grounding_row(str(path), "the red square", target, answer=f"[{round(x * 1000)},{round(y * 1000)}]")
        )
    return rows


@pytest.fixture(scope="session")
def warm_grounding(tiny_model, tmp_path_factory):
    """The tiny model after SFT on grounding answers "[x,y]" spread over the whole screen."""
    root = tmp_path_factory.mktemp("grounding")
    rows = grounding_rows(root, 24)
    return sft_warm(tiny_model, root, tmp_path_factory.mktemp("warm_grounding") / "model", steps=150, rows=rows)[
        0
    ], root
