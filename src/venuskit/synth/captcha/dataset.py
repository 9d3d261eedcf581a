"""`venus captcha synth`: images, grounding labels and RL rows from generated instances.

With a browser (the default) every row holds the page screenshot the model would see, the exact
boxes of the puzzle's targets in screenshot pixels, the UI-Venus-2 CAPTCHA prompt, the oracle's
reference response (an SFT target) and the hidden answer spec for reward. Without one, rows hold the
puzzle assets with image-space boxes (fast, no Chromium).
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from venuskit.actions import format_response
from venuskit.actions.prompts import system_prompt
from venuskit.synth.captcha.registry import make_instance, select_types
from venuskit.synth.captcha.spec import TRAIN_SEEDS, Instance, check_seeds


@dataclass
class SynthConfig:
    n: int
    out: Path
    types: list[str] | None = None
    seed_start: int = TRAIN_SEEDS.start  # training data: seeds from TRAIN_SEEDS only, never an eval puzzle
    browser: bool = True
    preset: str = "desktop"

    def __post_init__(self) -> None:
        if self.n < 1:
            raise ValueError(f"--n must be at least 1, got {self.n}.")
        if self.seed_start < 0:
            raise ValueError(f"--seed-start must be non-negative, got {self.seed_start}.")
        if self.preset not in ("desktop", "mobile"):
            raise ValueError(f"--preset must be desktop or mobile, got {self.preset!r}.")
        per_type = -(-self.n // len(select_types(self.types)))
        check_seeds(range(self.seed_start, self.seed_start + per_type), TRAIN_SEEDS, "Synthesis (--seed-start, --n)")


def plan_jobs(cfg: SynthConfig) -> Iterator[tuple[str, int]]:
    """(type, seed) pairs: types round-robin, seeds counting up from seed_start."""
    names = [t.name for t in select_types(cfg.types)]
    for i in range(cfg.n):
        yield names[i % len(names)], cfg.seed_start + i // len(names)


def _base_row(inst: Instance) -> dict[str, Any]:
    return {
        "id": f"{inst.type}-{inst.seed}",
        "type": inst.type,
        "family": inst.family,
        "seed": inst.seed,
        "prompt": inst.prompt,
        "widget": inst.widget.kind,
        "answer": inst.answer,
    }


def asset_row(inst: Instance, images: Path) -> dict[str, Any]:
    files = []
    for name, data in sorted(inst.puzzle.assets.items()):
        path = images / f"{inst.type}-{inst.seed}-{name}.png"
        path.write_bytes(data)
        files.append(path.name)
    targets = [
        {"instruction": t.label, "part": t.part, "bbox": list(t.box) if t.box else None} for t in inst.puzzle.targets
    ]
    return {**_base_row(inst), "images": files, "labels": targets}


def synthesise(cfg: SynthConfig) -> dict[str, Any]:
    """Write out/images/*.png and out/rows.jsonl; returns a summary."""
    images = cfg.out / "images"
    images.mkdir(parents=True, exist_ok=True)
    rows_path = cfg.out / "rows.jsonl"
    jobs = list(plan_jobs(cfg))
    with rows_path.open("w", encoding="utf-8") as fh:
        rows = (
            _browser_rows(cfg, jobs, images)
            if cfg.browser
            else (asset_row(make_instance(t, s), images) for t, s in jobs)
        )
        count = 0
        for row in rows:
            fh.write(json.dumps(row, ensure_ascii=False) + "\n")
            count += 1
    return {"rows": count, "out": str(cfg.out), "rows_file": str(rows_path), "browser": cfg.browser}


def _browser_rows(cfg: SynthConfig, jobs: list[tuple[str, int]], images: Path) -> Iterator[dict[str, Any]]:
    from venuskit.envs.browser import BrowserConfig, BrowserEnv
    from venuskit.synth.captcha.harness import labels, measure_layout, open_instance
    from venuskit.synth.captcha.oracle import plan
    from venuskit.synth.captcha.server import CaptchaServer

    system = system_prompt("captcha", "")
    with CaptchaServer() as server, BrowserEnv(BrowserConfig(preset=cfg.preset)) as env:  # type: ignore[arg-type]
        for type_name, seed in jobs:
            issued, obs = open_instance(env, server, type_name, seed)
            layout = measure_layout(env.page)
            inst = issued.instance
            path = images / f"{type_name}-{seed}-{cfg.preset}.png"
            path.write_bytes(obs.png)
            scale = obs.width / layout.viewport[0]
            yield {
                **_base_row(inst),
                "image": path.name,
                "size": [obs.width, obs.height],
                "preset": cfg.preset,
                "labels": labels(inst, layout, scale),
                "system": system,
                "reference_response": format_response(None, plan(inst, layout), "captcha"),
            }
