"""Stage 1, mid-training SFT: venus-nano learns the reference action of every training row."""

from __future__ import annotations

import random
import time
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import torch

from venuskit.models.nano.model import NanoModel
from venuskit.models.nano.net import NanoNet, NetConfig
from venuskit.train.nano.common import StageResult, save_stage, seed_everything, step_accuracy, supervised_loss
from venuskit.train.nano.data import Example


@dataclass
class SFTConfig:
    """Supervised training of venus-nano on reference actions."""

    epochs: int = field(default=40, metadata={"help": "Passes over the training examples."})
    batch_size: int = field(default=32, metadata={"help": "Examples per optimiser step."})
    lr: float = field(default=2e-3, metadata={"help": "AdamW learning rate (cosine decay to 10%)."})
    weight_decay: float = field(default=1e-4, metadata={"help": "AdamW weight decay."})
    size: str = field(default="small", metadata={"help": "Network size: small (shipped) or large (teachers)."})
    icon_names: bool = field(default=False, metadata={"help": "Read the icon-name features (models.nano.icons)."})
    seed: int = field(default=0, metadata={"help": "Seed of initialisation and batch order."})
    max_minutes: float = field(default=60.0, metadata={"help": "Safety cap in minutes (a capped run says so; "
                                                                "epochs are the budget)."})

    def __post_init__(self) -> None:
        if self.epochs < 1 or self.batch_size < 1 or self.lr <= 0 or self.max_minutes <= 0:
            raise ValueError("epochs and batch_size must be >= 1; lr and max_minutes must be positive.")
        NetConfig.named(self.size)


def train_supervised(net: NanoNet, train: list[Example], val: list[Example], cfg: SFTConfig,
                     gen: torch.Generator) -> dict[str, Any]:  # fmt: skip
    """The SFT loop (shared with the teachers' training); returns the learning curve."""
    opt = torch.optim.AdamW(net.parameters(), lr=cfg.lr, weight_decay=cfg.weight_decay)
    steps_per_epoch = max(1, (len(train) + cfg.batch_size - 1) // cfg.batch_size)
    total = cfg.epochs * steps_per_epoch
    sched = torch.optim.lr_scheduler.LambdaLR(opt, lambda s: 0.1 + 0.9 * 0.5 * (1 + torch.cos(
        torch.tensor(min(s, total) / total * 3.14159))).item())  # fmt: skip
    rng = random.Random(int(torch.randint(0, 2**31, (1,), generator=gen)))
    curve: list[dict[str, Any]] = []
    t0 = time.monotonic()
    for epoch in range(cfg.epochs):
        net.train()
        order = train[:]
        rng.shuffle(order)
        losses = []
        for i in range(0, len(order), cfg.batch_size):
            loss, _ = supervised_loss(net, order[i : i + cfg.batch_size])
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
            opt.step()
            sched.step()
            losses.append(float(loss.detach()))
        point = {
            "epoch": epoch + 1,
            "loss": sum(losses) / len(losses),
            "minutes": (time.monotonic() - t0) / 60,
            "capped": time.monotonic() - t0 > cfg.max_minutes * 60,
        }
        if val and (epoch % 5 == 4 or epoch == cfg.epochs - 1):
            point["val"] = step_accuracy(net, val)
        curve.append(point)
        if time.monotonic() - t0 > cfg.max_minutes * 60:
            break
    net.eval()
    return {"curve": curve, "train_examples": len(train), "val_examples": len(val),
            "train_acc": step_accuracy(net, train[:: max(1, len(train) // 500)]),  # a fixed 500-example slice
            "val_acc": step_accuracy(net, val) if val else None}  # fmt: skip


def sft(train: list[Example], out: Path, config: SFTConfig | None = None, *, val: list[Example] | None = None,
        init: Path | None = None) -> StageResult:  # fmt: skip
    """Train (from `init`, else from scratch) on `train`; write `out/venus-nano.pt` and `out/metrics.json`."""
    cfg = config or SFTConfig()
    if not train:
        raise ValueError("SFT got no training examples; collect episodes first (`venus nano train`).")
    gen = seed_everything(cfg.seed)
    fresh = replace(NetConfig.named(cfg.size), icon_names=cfg.icon_names)
    net = NanoModel.load_trainable(init).net if init else NanoNet(fresh)
    metrics = train_supervised(net, train, val or [], cfg, gen)
    return save_stage(net, out, "sft", {"stage": "sft", "seed": cfg.seed}, metrics, cfg)
