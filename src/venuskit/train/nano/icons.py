"""Training venus-nano's icon namer (`models.nano.icons`) on rendered icon sheets.

A sheet's icons are found by the reader itself (`reader.icon_boxes`) and cut by the same `icon_patch` the policy's
features use, so the namer learns from exactly what it will see; a drawn icon the reader does not find as one is
left out (it would not be a candidate at inference either) and counted.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field

import numpy as np
import torch
import torch.nn.functional as F

from venuskit.models.nano.candidates import icon_patch
from venuskit.models.nano.icons import IconNamer, IconNet, classes
from venuskit.models.nano.reader import decode_png, icon_boxes

Box = tuple[int, int, int, int]


@dataclass
class Patches:
    x: np.ndarray  # (K, P, P) float32
    y: list[str]  # the drawn icon's label
    source: list[str]  # its library file ("bootstrap:star-fill")
    missed: Counter = field(default_factory=Counter)  # drawn icons the reader found no icon box on, by label


def _overlap(a: Box, b: Box) -> float:
    ix = max(0, min(a[2], b[2]) - max(a[0], b[0]))
    iy = max(0, min(a[3], b[3]) - max(a[1], b[1]))
    inter = ix * iy
    return inter / max(1, (a[2] - a[0]) * (a[3] - a[1]) + (b[2] - b[0]) * (b[3] - b[1]) - inter)


def sheet_patches(sheets: Iterable[tuple[bytes, list[tuple[Box, str, str]]]]) -> Patches:
    """(png, [(drawn box, label, source)]) → the reader's patch of each drawn icon it finds."""
    import cv2

    xs, ys, srcs, missed = [], [], [], Counter()
    for png, items in sheets:
        img = decode_png(png)
        gray = cv2.cvtColor(img, cv2.COLOR_BGR2GRAY)
        found = icon_boxes(img)
        for box, label, source in items:
            best = max(found, key=lambda f: _overlap(f, box), default=None)
            if best is None or _overlap(best, box) < 0.3:
                missed[label] += 1
                continue
            xs.append(icon_patch(gray, best))
            ys.append(label)
            srcs.append(source)
    x = np.stack(xs).astype(np.float32) if xs else np.zeros((0, 16, 16), np.float32)
    return Patches(x, ys, srcs, missed)


@dataclass
class NamerConfig:
    epochs: int = 30
    batch: int = 128
    lr: float = 2e-3
    width: int = 32
    seed: int = 0
    other_weight: float = 0.5  # "other" is most of the pictures; it should not drown the names


def train_namer(data: Patches, cfg: NamerConfig | None = None) -> IconNamer:
    cfg = cfg or NamerConfig()
    torch.manual_seed(cfg.seed)
    names = classes()
    index = {n: i for i, n in enumerate(names)}
    x = torch.from_numpy(data.x)
    y = torch.tensor([index[v] for v in data.y], dtype=torch.long)
    weight = torch.ones(len(names))
    weight[index["other"]] = cfg.other_weight
    net = IconNet(len(names), cfg.width)
    opt = torch.optim.AdamW(net.parameters(), lr=cfg.lr, weight_decay=1e-4)
    steps = cfg.epochs * max(1, (len(y) + cfg.batch - 1) // cfg.batch)
    sched = torch.optim.lr_scheduler.OneCycleLR(opt, cfg.lr, total_steps=steps)
    rng = random.Random(cfg.seed)
    net.train()
    for _ in range(cfg.epochs):
        order = list(range(len(y)))
        rng.shuffle(order)
        for k in range(0, len(order), cfg.batch):
            idx = torch.tensor(order[k : k + cfg.batch])
            xb = x[idx]
            # Shift by up to a pixel: the reader's box is not always tight on the glyph.
            sx, sy = rng.randint(-1, 1), rng.randint(-1, 1)
            xb = torch.roll(xb, (sy, sx), (1, 2))
            loss = F.cross_entropy(net(xb), y[idx], weight=weight)
            opt.zero_grad()
            loss.backward()
            opt.step()
            sched.step()
    return IconNamer(net, names)


def accuracy(namer: IconNamer, data: Patches, min_prob: float = 0.0) -> dict[str, float | int]:
    """Top-1 accuracy over named pictures, how often "other" is called a name, and coverage at `min_prob`."""
    if not len(data.y):
        return {"n": 0}
    got = namer.name(data.x)
    named = [(g, y) for g, y in zip(got, data.y, strict=True) if y != "other"]
    others = [g for g, y in zip(got, data.y, strict=True) if y == "other"]
    sure = [(g, y) for g, y in named if g[1] >= min_prob]
    return {
        "n": len(named),
        "acc": sum(g[0] == y for g, y in named) / max(1, len(named)),
        "covered": len(sure) / max(1, len(named)),
        "acc_covered": sum(g[0] == y for g, y in sure) / max(1, len(sure)),
        "other_n": len(others),
        "other_named": sum(g[0] != "other" and g[1] >= min_prob for g in others) / max(1, len(others)),
    }
