"""Stage 2, step-level GRPO per domain, on the policy's own samples at states from its own rollouts.

For each state (a row whose reference is the oracle's action at a state the policy visited, or an oracle state),
G actions are sampled from the policy's distributions, written as UI-Venus-2 text, and scored by
`venuskit.train.rewards.domain_rewards(domain)` — the same reward functions the TRL trainers use. Advantages and
the clipped surrogate come from `venuskit.train.losses` (`group_advantages`, `grpo_loss`). An action's "tokens"
are its parts: the type, the target and the text argument; an action without a target or a text has those parts
masked out of the loss.
"""

from __future__ import annotations

import copy
import random
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch

from venuskit.models.nano.action_types import TYPES, allowed_types
from venuskit.models.nano.model import Choice, NanoModel
from venuskit.models.nano.net import collate
from venuskit.train.losses import group_advantages, grpo_loss
from venuskit.train.nano.common import (
    Sampled,
    StageResult,
    part_logps,
    part_mask,
    repeat_encoded,
    sample,
    seed_everything,
    step_accuracy,
    write_metrics,
)
from venuskit.train.nano.data import Example
from venuskit.train.rewards import domain_rewards


@dataclass
class GRPOConfig:
    """Step-level GRPO of one domain's policy."""

    group_size: int = field(default=8, metadata={"help": "Samples per state (G)."})
    states_per_batch: int = field(default=16, metadata={"help": "States per optimiser batch."})
    epochs: int = field(default=3, metadata={"help": "Passes over the states."})
    iterations: int = field(default=2, metadata={"help": "Optimiser steps per sampled batch (the ratio moves off 1)."})
    lr: float = field(default=5e-4, metadata={"help": "AdamW learning rate."})
    eps: float = field(default=0.2, metadata={"help": "Clip range of the ratio."})
    beta: float = field(default=0.02, metadata={"help": "k3 KL weight towards the initial (SFT) policy."})
    temperature: float = field(default=1.0, metadata={"help": "Sampling temperature."})
    seed: int = field(default=0, metadata={"help": "Seed of sampling and batch order."})
    max_minutes: float = field(default=60.0, metadata={"help": "Safety cap in minutes (a capped run says so; "
                                                                "epochs are the budget)."})

    def __post_init__(self) -> None:
        if self.group_size < 2:
            raise ValueError("GRPO needs group_size >= 2 (advantages are relative to the group).")
        if self.states_per_batch < 1 or self.epochs < 1 or self.iterations < 1 or self.lr <= 0:
            raise ValueError("states_per_batch, epochs and iterations must be >= 1 and lr positive.")


def replies(model: NanoModel, exs: list[Example], s: Sampled, g: int) -> list[str]:
    """The UI-Venus-2 text of each sampled action (rows of a group adjacent)."""
    out = []
    for i in range(len(s.types)):
        ex = exs[i // g]
        c = Choice(TYPES[int(s.types[i])], int(s.ptr[i]), int(s.text[i]), bool(s.newline[i]))
        out.append(model.reply(ex.features, c, ex.row.get("surface", "browser")))
    return out


def rewards_of(exs: list[Example], texts: list[str], g: int) -> torch.Tensor:
    """Σ_k w_k·R_k over each row's domain reward functions (`domain_rewards(row domain)`: web, mobile, grounding,
    captcha), with the rows' ground-truth columns repeated per sample."""
    total = torch.zeros(len(texts))
    for domain in sorted({ex.domain for ex in exs}):
        idx = [i for i in range(len(texts)) if exs[i // g].domain == domain]
        funcs, weights = domain_rewards(domain)
        cols = {k: [exs[i // g].row.get(k) for i in idx] for k in ("gt_actions", "gt_boxes", "surface")}
        for fn, w in zip(funcs, weights, strict=True):
            vals = fn([texts[i] for i in idx], **cols)
            total[idx] += w * torch.tensor([0.0 if v is None else float(v) for v in vals])
    return total


def grpo(states: list[Example], init: Path, out: Path, config: GRPOConfig | None = None, *, domain: str = "web",
         val: list[Example] | None = None) -> StageResult:  # fmt: skip
    """GRPO from the `init` checkpoint on `states` (one domain's policy: `domain` names it; each row is scored by its
    own domain's rewards); writes `out/venus-nano.pt` and `out/metrics.json`."""
    cfg = config or GRPOConfig()
    if not states:
        raise ValueError(f"GRPO ({domain}) got no states; run the policy's rollouts first.")
    gen = seed_everything(cfg.seed)
    model = NanoModel.load(init)
    ref = copy.deepcopy(model.net).eval()
    net = model.net
    opt = torch.optim.AdamW(net.parameters(), lr=cfg.lr)
    rng = random.Random(cfg.seed)
    curve: list[dict[str, Any]] = []
    t0 = time.monotonic()
    g = cfg.group_size
    for epoch in range(cfg.epochs):
        order = states[:]
        rng.shuffle(order)
        rewards_seen, zero_std, groups = [], 0, 0
        for i in range(0, len(order), cfg.states_per_batch):
            exs = order[i : i + cfg.states_per_batch]
            batch = collate([ex.features for ex in exs])
            allowed = torch.stack([allowed_types(ex.row.get("surface", "browser")) for ex in exs])
            with torch.no_grad():
                net.eval()
                e_old = repeat_encoded(net.encode(batch), g)
                s = sample(net, e_old, allowed.repeat_interleave(g, 0), gen, cfg.temperature)
                old = part_logps(net, e_old, s)
                ref_lp = part_logps(ref, repeat_encoded(ref.encode(batch), g), s)
            r = rewards_of(exs, replies(model, exs, s, g), g)
            rewards_seen.append(float(r.mean()))
            zero_std += int((r.view(-1, g).std(1) < 1e-6).sum())
            groups += len(exs)
            adv = group_advantages(r, g)
            mask = part_mask(s.types)
            # The loss runs without dropout: the ratio must compare the same function of the weights.
            for _ in range(cfg.iterations):
                e = repeat_encoded(net.encode(batch), g)
                loss = grpo_loss(part_logps(net, e, s), old, adv, mask, eps_low=cfg.eps, eps_high=cfg.eps,
                                 beta=cfg.beta, ref_logps=ref_lp, mode="dapo")  # fmt: skip
                opt.zero_grad()
                loss.backward()
                torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
                opt.step()
            if time.monotonic() - t0 > cfg.max_minutes * 60:
                break
        net.eval()
        point = {
            "epoch": epoch + 1,
            "mean_reward": sum(rewards_seen) / max(1, len(rewards_seen)),
            "zero_std_groups": zero_std,
            "signal_share": 1 - zero_std / max(1, groups),
            "minutes": (time.monotonic() - t0) / 60,
            "capped": time.monotonic() - t0 > cfg.max_minutes * 60,
        }
        if val:
            point["val"] = step_accuracy(net, val)
        curve.append(point)
        if time.monotonic() - t0 > cfg.max_minutes * 60:
            break
    out.mkdir(parents=True, exist_ok=True)
    ckpt = NanoModel(net).save(out / "venus-nano.pt", {**model.meta, "stage": "grpo", "domain": domain})
    result = StageResult(f"grpo-{domain}", ckpt, {"curve": curve, "states": len(states), "domain": domain})
    write_metrics(out, result, cfg)
    return result
