"""What GRPO and MOPD share: one config base and one loop over the policy's own samples.

    for each epoch, for each batch of states (shuffled by the seed):
        sample G actions per state from the current policy (no dropout) and keep their per-part log-probs
        the stage scores the samples and returns its loss of the new log-probs (or None: nothing to learn here)
        `iterations` optimiser steps on that loss (clipped gradients)
    one curve point per epoch: the stage's own figures, the minutes, whether the safety cap ended it, validation

A stage keeps only what differs: how samples are scored (rewards and group advantages; teachers and part weights)
and what it reports.
"""

from __future__ import annotations

import random
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Protocol

import torch

from venuskit.models.nano.action_types import TYPES, allowed_types
from venuskit.models.nano.model import Choice, NanoModel
from venuskit.models.nano.net import Batch, NanoNet, collate
from venuskit.train.nano.common import Sampled, part_logps, repeat_encoded, sample, step_accuracy
from venuskit.train.nano.data import Example


@dataclass
class OnPolicyConfig:
    """The fields every on-policy stage has; GRPOConfig and MOPDConfig add their own."""

    states_per_batch: int = field(default=16, metadata={"help": "States per optimiser batch."})
    epochs: int = field(default=3, metadata={"help": "Passes over the states."})
    lr: float = field(default=5e-4, metadata={"help": "AdamW learning rate."})
    eps: float = field(default=0.2, metadata={"help": "Clip range of the ratio."})
    seed: int = field(default=0, metadata={"help": "Seed of sampling and batch order."})
    max_minutes: float = field(default=60.0, metadata={"help": "Safety cap in minutes (a capped run says so; "
                                                                "epochs are the budget)."})

    def __post_init__(self) -> None:
        if self.states_per_batch < 1 or self.epochs < 1 or self.lr <= 0 or self.max_minutes <= 0:
            raise ValueError("states_per_batch and epochs must be >= 1; lr and max_minutes must be positive.")


@dataclass
class Rollout:
    """One batch of states and the actions sampled at them: `g` samples per state, rows of a state adjacent."""

    exs: list[Example]
    batch: Batch
    sampled: Sampled
    old: torch.Tensor  # (B * g, 3) per-part log-probs under the policy that sampled
    g: int


LossFn = Callable[[torch.Tensor], torch.Tensor]  # the new per-part log-probs (B * g, 3) -> the loss


class Stage(Protocol):
    """What one on-policy stage adds to the loop: `samples` per state, drawn at `temperature`; `score(rollout)`
    runs once per sampled batch, without gradients, and returns the loss of the new log-probs (taken
    `iterations` optimiser steps) or None (nothing to learn from this batch); `summary(losses)` gives the epoch's
    own figures (the loop adds the epoch, minutes, capped and val) and starts the next epoch's counts."""

    samples: int
    temperature: float
    iterations: int

    def score(self, roll: Rollout) -> LossFn | None: ...

    def summary(self, losses: list[float]) -> dict[str, Any]: ...


def on_policy(net: NanoNet, states: list[Example], cfg: OnPolicyConfig, stage: Stage, gen: torch.Generator,
              val: list[Example] | None = None) -> list[dict[str, Any]]:  # fmt: skip
    """Train `net` in place on its own samples at `states`; returns the learning curve."""
    opt = torch.optim.AdamW(net.parameters(), lr=cfg.lr)
    rng = random.Random(cfg.seed)
    curve: list[dict[str, Any]] = []
    t0 = time.monotonic()
    capped = lambda: time.monotonic() - t0 > cfg.max_minutes * 60  # noqa: E731 - read at each batch and epoch end
    for epoch in range(cfg.epochs):
        order = states[:]
        rng.shuffle(order)
        losses: list[float] = []
        for i in range(0, len(order), cfg.states_per_batch):
            roll = _roll_out(net, order[i : i + cfg.states_per_batch], stage, gen)
            with torch.no_grad():
                loss_of = stage.score(roll)
            # The loss runs without dropout (the net stays in eval mode): the ratio must compare the same function.
            for _ in range(stage.iterations if loss_of is not None else 0):
                e = repeat_encoded(net.encode(roll.batch), roll.g)
                loss = loss_of(part_logps(net, e, roll.sampled))  # type: ignore[misc]
                opt.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
                opt.step()
                losses.append(float(loss.detach()))
            if capped():
                break
        net.eval()
        point = {"epoch": epoch + 1, **stage.summary(losses), "minutes": (time.monotonic() - t0) / 60,
                 "capped": capped()}  # fmt: skip
        if val:
            point["val"] = step_accuracy(net, val)
        curve.append(point)
        if capped():
            break
    return curve


@torch.no_grad()
def _roll_out(net: NanoNet, exs: list[Example], stage: Stage, gen: torch.Generator) -> Rollout:
    g = stage.samples
    batch = collate([ex.features for ex in exs])
    allowed = torch.stack([allowed_types(ex.row.get("surface", "browser")) for ex in exs])
    net.eval()
    e_old = repeat_encoded(net.encode(batch), g)
    s = sample(net, e_old, allowed.repeat_interleave(g, 0), gen, stage.temperature)
    return Rollout(exs, batch, s, part_logps(net, e_old, s), g)


def replies(model: NanoModel, exs: list[Example], s: Sampled, g: int) -> list[str]:
    """The UI-Venus-2 text of each sampled action (rows of a group adjacent)."""
    out = []
    for i in range(len(s.types)):
        ex = exs[i // g]
        c = Choice(TYPES[int(s.types[i])], int(s.ptr[i]), int(s.text[i]), bool(s.newline[i]))
        out.append(model.reply(ex.features, c, ex.row.get("surface", "browser")))
    return out
