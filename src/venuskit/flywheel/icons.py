"""Train venus-nano's icon namer: icon sheets of two general libraries → the reader's patches → a small network.

`venus nano icons --out runs/icons [--install]`. The names and the library files that draw them are
`models/nano/icon_names.toml`. Pictures: every named file in Bootstrap Icons and Adwaita's symbolic icons, drawn
`variants` times each in seeded looks, plus `others` files of the same libraries that draw none of the names (the
"other" class). Measured, never trained on:

- `library_heldout`: the same files drawn in looks of another seed;
- `world_default`: the world's own hand-drawn icons (`world/templates/_icons.html`, a third style no training
  picture shows), for the world names that have a namer name (`WORLD_NAMES`, used for this measurement only).
"""

from __future__ import annotations

import json
import random
import re
import shutil
import time
from collections.abc import Iterator
from dataclasses import asdict, dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from venuskit.infra.atomic import write_json
from venuskit.models.nano.icons import OTHER, IconNamer, default_path, icon_names
from venuskit.synth.grounding.render import Renderer
from venuskit.synth.grounding.spec import SynthError
from venuskit.synth.icons import Icon, library_icons, render_sheets, stroke_svg
from venuskit.train.nano.icons import NamerConfig, Patches, accuracy, sheet_patches, train_namer

# The world's hand-drawn icon → the namer's name, where one means the same (evaluation only).
WORLD_NAMES = {"star": "star", "trash": "trash", "reply": "reply", "forward": "forward", "plus": "plus",
               "clip": "attach", "search": "search", "settings": "settings", "menu": "menu", "filter": "filter",
               "cart": "cart", "mail": "mail", "send": "send", "calendar": "calendar", "clock": "clock",
               "back": "back", "left": "back", "right": "next", "home": "home", "folder": "folder", "file": "file",
               "pin": "pin", "help": "help", "comment": "comment", "love": "heart", "download": "download",
               "grid": "grid", "draft": "edit"}  # fmt: skip


@dataclass
class IconsConfig:
    seed: int = 0
    variants: int = 24  # looks per named file
    others: int = 600  # files that draw none of the names
    other_variants: int = 3
    test_variants: int = 4
    namer: NamerConfig | None = None


def library_set() -> tuple[dict[str, Icon], list[Icon]]:
    """The named files of both libraries (source → Icon) and every other file of them."""
    libs = {"bootstrap": library_icons("bootstrap"), "adwaita": library_icons("adwaita")}
    if not libs["bootstrap"]:
        raise SynthError("Bootstrap Icons are not installed (apt-get install bootstrap-icons); the namer needs them.")
    named: dict[str, Icon] = {}
    for n in icon_names():
        for lib, files in (("bootstrap", n.bootstrap), ("adwaita", n.adwaita)):
            for f in files:
                if f in libs[lib]:
                    named[f"{lib}:{f}"] = Icon(n.name, f"{lib}:{f}", libs[lib][f])
    heads = {s.split(":", 1)[1].split("-")[0] for s in named}
    others = [Icon(OTHER, f"{lib}:{f}", svg) for lib, files in libs.items() for f, svg in files.items()
              if f"{lib}:{f}" not in named and f.split("-")[0] not in heads]  # fmt: skip
    return named, others


def world_icons() -> list[Icon]:
    """The world's default icons that have a namer name, as standalone SVG."""
    text = resources.files("venuskit.world").joinpath("templates/_icons.html").read_text("utf-8")
    out = []
    for name, inner in re.findall(r'name == "([a-z_]+)" %\}(.*)', text):
        if name in WORLD_NAMES:
            out.append(Icon(WORLD_NAMES[name], f"world:{name}", stroke_svg(inner)))
    return out


def _patches(icons: list[Icon], seed: int, renderer: Renderer) -> Patches:
    def sheets() -> Iterator[tuple[bytes, list]]:
        for s in render_sheets(icons, seed, renderer):
            yield s.png, [(box, icon.label, icon.source) for box, icon in s.items]

    return sheet_patches(sheets())


def train_icons(out: Path, cfg: IconsConfig | None = None, install: bool = False) -> dict[str, Any]:
    cfg = cfg or IconsConfig()
    out.mkdir(parents=True, exist_ok=True)
    t0 = time.monotonic()
    named, others = library_set()
    rng = random.Random(cfg.seed)
    other_pick = rng.sample(others, min(cfg.others, len(others)))
    train_set = [i for i in named.values() for _ in range(cfg.variants)] + \
        [i for i in other_pick for _ in range(cfg.other_variants)]  # fmt: skip
    rest = [i for i in others if i not in set(other_pick)]
    test_lib = [i for i in named.values() for _ in range(cfg.test_variants)] + rng.sample(rest, min(300, len(rest)))
    with Renderer() as renderer:
        train = _patches(train_set, cfg.seed * 10 + 1, renderer)
        t_render = time.monotonic() - t0
        heldout = _patches(test_lib, cfg.seed * 10 + 2, renderer)
        world = _patches([i for i in world_icons() for _ in range(cfg.test_variants * 4)], cfg.seed * 10 + 3,
                         renderer)  # fmt: skip
    namer = train_namer(train, cfg.namer)
    namer.save(out / "icon-namer.pt")
    namer = IconNamer.load(out / "icon-namer.pt")  # measured as stored (fp16)
    t_total = time.monotonic() - t0
    metrics = {
        "pictures": {"train": len(train.y), "named_files": len(named), "other_files": len(other_pick),
                     "missed_by_reader": sum(train.missed.values())},
        "library_heldout": accuracy(namer, heldout), "library_heldout_p50": accuracy(namer, heldout, 0.5),
        "world_default": accuracy(namer, world), "world_default_p50": accuracy(namer, world, 0.5),
        "world_per_icon": _per_source(namer, world),
        "seconds": {"render_train": round(t_render, 1), "total": round(t_total, 1)},
        "config": {**asdict(cfg), "namer": asdict(cfg.namer or NamerConfig())},
    }
    namer.meta = {"trained": time.strftime("%Y-%m-%d"), "metrics": {k: metrics[k] for k in
                  ("pictures", "library_heldout", "world_default")}}  # fmt: skip
    namer.save(out / "icon-namer.pt")
    write_json(out / "metrics.json", metrics, durable=True)
    if install:
        shutil.copyfile(out / "icon-namer.pt", default_path())
    return metrics


def _per_source(namer: IconNamer, data: Patches) -> dict[str, str]:
    """For each world icon: the name given most often and how often it was right."""
    got = namer.name(data.x)
    by: dict[str, list[tuple[str, str]]] = {}
    for (g, _), y, s in zip(got, data.y, data.source, strict=True):
        by.setdefault(s.split(":", 1)[1], []).append((g, y))
    out = {}
    for src, pairs in sorted(by.items()):
        right = sum(g == y for g, y in pairs)
        common = max({g for g, _ in pairs}, key=lambda n: sum(g == n for g, _ in pairs))
        out[src] = f"{right}/{len(pairs)} ({common})"
    return out


def main(out: str, seed: int = 0, install: bool = False) -> None:  # pragma: no cover - manual use
    print(json.dumps(train_icons(Path(out), IconsConfig(seed=seed), install), indent=1))
