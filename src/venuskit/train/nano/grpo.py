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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch

from venuskit.models.nano.model import NanoModel
from venuskit.train.losses import group_advantages, grpo_loss
from venuskit.train.nano.common import StageResult, part_logps, part_mask, repeat_encoded, save_stage, seed_everything
from venuskit.train.nano.data import Example
from venuskit.train.nano.onpolicy import LossFn, OnPolicyConfig, Rollout, on_policy, replies
from venuskit.train.rewards import domain_rewards


@dataclass
class GRPOConfig(OnPolicyConfig):
    """Step-level GRPO of one domain's policy."""

    group_size: int = field(default=8, metadata={"help": "Samples per state (G)."})
    iterations: int = field(default=2, metadata={"help": "Optimiser steps per sampled batch (the ratio moves off 1)."})
    beta: float = field(default=0.02, metadata={"help": "k3 KL weight towards the initial (SFT) policy."})
    temperature: float = field(default=1.0, metadata={"help": "Sampling temperature."})

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.group_size < 2:
            raise ValueError("GRPO needs group_size >= 2 (advantages are relative to the group).")
        if self.iterations < 1:
            raise ValueError("GRPO needs iterations >= 1 (optimiser steps per sampled batch).")


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


class _GRPO:
    """GRPO's part of the loop: each sample scored by its row's domain rewards, advantages within the group, the
    clipped surrogate with a k3 KL towards the starting policy."""

    def __init__(self, model: NanoModel, cfg: GRPOConfig) -> None:
        self.model, self.cfg = model, cfg
        self.ref = copy.deepcopy(model.net).eval()
        self.samples, self.temperature, self.iterations = cfg.group_size, cfg.temperature, cfg.iterations
        self.rewards: list[float] = []
        self.zero_std = self.groups = 0

    def score(self, roll: Rollout) -> LossFn:
        g, s = roll.g, roll.sampled
        ref_lp = part_logps(self.ref, repeat_encoded(self.ref.encode(roll.batch), g), s)
        r = rewards_of(roll.exs, replies(self.model, roll.exs, s, g), g)
        self.rewards.append(float(r.mean()))
        self.zero_std += int((r.view(-1, g).std(1) < 1e-6).sum())
        self.groups += len(roll.exs)
        adv, mask, eps = group_advantages(r, g), part_mask(s.types), self.cfg.eps
        return lambda new: grpo_loss(new, roll.old, adv, mask, eps_low=eps, eps_high=eps, beta=self.cfg.beta,
                                     ref_logps=ref_lp, mode="dapo")  # fmt: skip

    def summary(self, losses: list[float]) -> dict[str, Any]:
        point = {"mean_reward": sum(self.rewards) / max(1, len(self.rewards)), "zero_std_groups": self.zero_std,
                 "signal_share": 1 - self.zero_std / max(1, self.groups)}  # fmt: skip
        self.rewards, self.zero_std, self.groups = [], 0, 0
        return point


def grpo(states: list[Example], init: Path, out: Path, config: GRPOConfig | None = None, *, domain: str = "web",
         val: list[Example] | None = None) -> StageResult:  # fmt: skip
    """GRPO from the `init` checkpoint on `states` (one domain's policy: `domain` names it; each row is scored by its
    own domain's rewards); writes `out/venus-nano.pt` and `out/metrics.json`."""
    cfg = config or GRPOConfig()
    if not states:
        raise ValueError(f"GRPO ({domain}) got no states; run the policy's rollouts first.")
    gen = seed_everything(cfg.seed)
    model = NanoModel.load_trainable(init)
    curve = on_policy(model.net, states, cfg, _GRPO(model, cfg), gen, val)
    return save_stage(model.net, out, f"grpo-{domain}", {**model.meta, "stage": "grpo", "domain": domain},
                      {"curve": curve, "states": len(states), "domain": domain}, cfg)  # fmt: skip
