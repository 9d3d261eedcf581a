"""Helpers for record tests: small real PNGs made with PIL and recorded episodes."""

from __future__ import annotations

import io
from pathlib import Path

from PIL import Image

from venuskit.actions.types import Action
from venuskit.record.episode import Episode, Outcome, Step
from venuskit.record.store import EpisodeWriter


def make_png(width: int = 64, height: int = 48, color: tuple[int, int, int] = (255, 255, 255)) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", (width, height), color).save(buf, format="PNG")
    return buf.getvalue()


def png_pixel(png: bytes, x: int, y: int) -> tuple[int, int, int]:
    with Image.open(io.BytesIO(png)) as im:
        return im.convert("RGB").getpixel((x, y))


def record_episode(
    root: Path,
    steps: list[tuple[str | None, Action | None, dict | None]],
    *,
    episode_id: str = "ep1",
    surface: str = "mobile",
    goal: str = "Turn on dark mode",
    size: tuple[int, int] = (64, 48),
    finish: Outcome | None = None,
    step_extra: dict[int, dict] | None = None,
) -> Path:
    """Record an episode: steps are (raw_output, action, error); step i's screenshot is filled with
    colour (i * 40, 100, 200) so tests can tell the images apart."""
    ep = Episode(episode_id=episode_id, task={"goal": goal}, surface=surface, screen=size)
    with EpisodeWriter.create(root, ep) as w:
        for i, (raw, action, error) in enumerate(steps):
            extra = (step_extra or {}).get(i, {})
            step = Step(index=i, screenshot=None, raw_output=raw, action=action, error=error, **extra)
            w.add_step(step, make_png(*size, color=(i * 40 % 256, 100, 200)))
        if finish is not None:
            w.finish(finish)
    return root / episode_id
