"""Stage 3, MOPD: the per-domain GRPO policies teach one student, on the student's own samples.

At every state (from the student's own rollouts, relabelled by the oracle, and oracle states) the student samples
actions; the domain's teacher (web and mobile rows: the world teacher) scores the same action parts with a
teacher-only hint — the reference action type, which conditions the teacher's target and text heads and
concentrates its type distribution, and which elements and text options are right, which the teacher's own
preferences then rank (the student never sees any of it). The action-aware weights are
`venuskit.train.losses.mopd_token_weights` over the reply's three
part "tokens" (type = the call name span, target / text = the argument span), from the reply's verdicts
(`venuskit.train.rewards.judge`): a correct action teaches nothing, a wrong type is corrected on the type part only,
wrong parameters get the whole action with the argument part weighted 1 + λ. The loss is
`venuskit.train.losses.mopd_sampled_loss` (reverse-KL policy gradient on the sampled parts).
"""

from __future__ import annotations

import json
import random
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch

from venuskit.actions import ActionParseError, ActionSpan, parse_response
from venuskit.actions.types import action_from_dict
from venuskit.models.nano.action_types import allowed_types
from venuskit.models.nano.model import NanoModel
from venuskit.models.nano.net import NanoNet, collate
from venuskit.train.losses import mopd_sampled_loss, mopd_token_weights
from venuskit.train.nano.common import (
    StageResult,
    hint_of,
    part_logps,
    part_mask,
    repeat_encoded,
    sample,
    seed_everything,
    step_accuracy,
    write_metrics,
)
from venuskit.train.nano.data import Example
from venuskit.train.nano.grpo import replies
from venuskit.train.rewards import grounding_reward, gt_boxes_of, judge


@dataclass
class MOPDConfig:
    """Multi-teacher on-policy distillation into one student."""

    samples: int = field(default=4, metadata={"help": "Student samples per state."})
    states_per_batch: int = field(default=16, metadata={"help": "States per optimiser batch."})
    epochs: int = field(default=3, metadata={"help": "Passes over the states."})
    lr: float = field(default=5e-4, metadata={"help": "AdamW learning rate."})
    lam: float = field(default=1.0, metadata={"help": "λ: extra weight on a params_wrong action's arguments."})
    eps: float = field(default=0.2, metadata={"help": "Clip range of the ratio."})
    hint: bool = field(default=True, metadata={"help": "Give the teacher the reference action (teacher only)."})
    hint_strength: float = field(default=4.0, metadata={"help": "Logit bonus the hinted teacher gives right parts."})
    seed: int = field(default=0, metadata={"help": "Seed of sampling and batch order."})
    max_minutes: float = field(default=60.0, metadata={"help": "Safety cap in minutes (a capped run says so; "
                                                                "epochs are the budget)."})

    def __post_init__(self) -> None:
        if self.samples < 1 or self.states_per_batch < 1 or self.epochs < 1 or self.lr <= 0 or self.lam < 0:
            raise ValueError("samples, states_per_batch and epochs must be >= 1, lr positive, lam >= 0.")


def part_weights(text: str, surface: str, row: dict[str, Any], lam: float) -> list[float]:
    """The action-aware weights of one reply's (type, target, text) parts."""
    if surface == "grounding":  # the reply is only a point: its one part to teach is the target
        hit = grounding_reward([text], gt_boxes=[row.get("gt_boxes")])[0]
        span = ActionSpan((0, 0), (0, len(text)))
        return mopd_token_weights([(0, 0), span.args_span, (0, 0)], ["correct" if hit else "params_wrong"], [span], 1,
                                  lam=lam)  # fmt: skip
    gt = [action_from_dict(a) for a in json.loads(row["gt_actions"])] if row.get("gt_actions") else []
    try:
        resp = parse_response(text, surface)
    except ActionParseError:
        return mopd_token_weights([(0, 1), (1, 2), (2, 3)], None, [], len(gt), unparsable_weight=1.0)
    verdicts = judge(resp.actions, gt, gt_boxes_of(row.get("gt_boxes"), len(gt)))
    span = resp.action_spans[0]
    offsets = [span.name_span, span.args_span, span.args_span]  # the target and the text are the argument list
    return mopd_token_weights(offsets, verdicts, resp.action_spans, len(gt), lam=lam)


def teacher_key(domain: str, teachers: dict[str, Any]) -> str | None:
    """The teacher of a row's domain: its own, else the world teacher for web and mobile rows."""
    if domain in teachers:
        return domain
    return "world" if domain in ("web", "mobile") and "world" in teachers else None


def mopd(states: list[Example], teachers: dict[str, Path], init: Path, out: Path, config: MOPDConfig | None = None,
         *, val: list[Example] | None = None) -> StageResult:  # fmt: skip
    """Distil `teachers` (domain -> checkpoint) into the student loaded from `init`; rows pick their teacher by
    their `domain` (web and mobile rows fall back to a `world` teacher). Writes `out/venus-nano.pt` and
    `out/metrics.json`."""
    cfg = config or MOPDConfig()
    if not states:
        raise ValueError("MOPD got no states; run the student's rollouts first.")
    missing = sorted({ex.domain for ex in states if teacher_key(ex.domain, teachers) is None})
    if missing:
        raise ValueError(f"No teacher for the domains {missing}; teachers given: {sorted(teachers)}.")
    gen = seed_everything(cfg.seed)
    student = NanoModel.load(init)
    net = student.net
    tnets: dict[str, NanoNet] = {d: NanoModel.load(p).net.eval() for d, p in teachers.items()}
    opt = torch.optim.AdamW(net.parameters(), lr=cfg.lr)
    rng = random.Random(cfg.seed)
    curve: list[dict[str, Any]] = []
    t0 = time.monotonic()
    k = cfg.samples
    for epoch in range(cfg.epochs):
        order = states[:]
        rng.shuffle(order)
        supervised, total, losses = 0, 0, []
        for i in range(0, len(order), cfg.states_per_batch):
            exs = order[i : i + cfg.states_per_batch]
            batch = collate([ex.features for ex in exs])
            allowed = torch.stack([allowed_types(ex.row.get("surface", "browser")) for ex in exs])
            with torch.no_grad():
                net.eval()
                e_old = repeat_encoded(net.encode(batch), k)
                s = sample(net, e_old, allowed.repeat_interleave(k, 0), gen)
                old = part_logps(net, e_old, s)
                hint = hint_of(exs, batch.cand_mask.shape[1], batch.text_mask.shape[1], k, cfg.hint_strength) \
                    if cfg.hint else None  # fmt: skip
                teacher = torch.zeros_like(old)
                for dom, tnet in tnets.items():
                    rows = torch.tensor([teacher_key(ex.domain, teachers) == dom for ex in exs]).repeat_interleave(
                        k, 0
                    )
                    if rows.any():
                        lp = part_logps(tnet, repeat_encoded(tnet.encode(batch), k), s, hint=hint)
                        teacher = torch.where(rows[:, None], lp, teacher)
            texts = replies(student, exs, s, k)
            w = torch.tensor([part_weights(t, exs[j // k].row.get("surface", "browser"), exs[j // k].row, cfg.lam)
                              for j, t in enumerate(texts)])  # fmt: skip
            mask = part_mask(s.types)
            w = w * mask
            supervised += int((w > 0).any(-1).sum())
            total += len(texts)
            if not (w > 0).any():
                continue
            e = repeat_encoded(net.encode(batch), k)  # no dropout: the ratio compares the same function
            loss = mopd_sampled_loss(part_logps(net, e, s), old, teacher, w, mask, eps_low=cfg.eps, eps_high=cfg.eps)
            opt.zero_grad()
            loss.backward()
            torch.nn.utils.clip_grad_norm_(net.parameters(), 1.0)
            opt.step()
            losses.append(float(loss.detach()))
            if time.monotonic() - t0 > cfg.max_minutes * 60:
                break
        net.eval()
        point = {"epoch": epoch + 1, "loss": sum(losses) / max(1, len(losses)),
                 "supervised_share": supervised / max(1, total), "minutes": (time.monotonic() - t0) / 60,
                 "capped": time.monotonic() - t0 > cfg.max_minutes * 60}  # fmt: skip
        if val:
            point["val"] = step_accuracy(net, val)
        curve.append(point)
        if time.monotonic() - t0 > cfg.max_minutes * 60:
            break
    out.mkdir(parents=True, exist_ok=True)
    meta = {**student.meta, "stage": "mopd", "teachers": {d: str(p) for d, p in teachers.items()}}
    ckpt = NanoModel(net).save(out / "venus-nano.pt", meta)
    result = StageResult("mopd", ckpt, {"curve": curve, "states": len(states), "teachers": sorted(teachers)})
    write_metrics(out, result, cfg)
    return result
