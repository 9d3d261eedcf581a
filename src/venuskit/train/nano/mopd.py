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
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch

from venuskit.actions import ActionParseError, ActionSpan, parse_response
from venuskit.actions.types import action_from_dict
from venuskit.models.nano.model import NanoModel
from venuskit.models.nano.net import NanoNet
from venuskit.train.losses import mopd_sampled_loss, mopd_token_weights
from venuskit.train.nano.common import (
    StageResult,
    hint_of,
    part_logps,
    part_mask,
    repeat_encoded,
    save_stage,
    seed_everything,
)
from venuskit.train.nano.data import Example
from venuskit.train.nano.onpolicy import LossFn, OnPolicyConfig, Rollout, on_policy, replies
from venuskit.train.rewards import grounding_reward, gt_boxes_of, judge


@dataclass
class MOPDConfig(OnPolicyConfig):
    """Multi-teacher on-policy distillation into one student."""

    samples: int = field(default=4, metadata={"help": "Student samples per state."})
    lam: float = field(default=1.0, metadata={"help": "λ: extra weight on a params_wrong action's arguments."})
    hint: bool = field(default=True, metadata={"help": "Give the teacher the reference action (teacher only)."})
    hint_strength: float = field(default=4.0, metadata={"help": "Logit bonus the hinted teacher gives right parts."})

    def __post_init__(self) -> None:
        super().__post_init__()
        if self.samples < 1 or self.lam < 0:
            raise ValueError("MOPD needs samples >= 1 and lam >= 0.")


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


class _MOPD:
    """MOPD's part of the loop: each row's teacher scores the student's samples (hinted with the reference), the
    reply's verdicts weight its parts, and the loss is the reverse-KL policy gradient on the sampled parts."""

    def __init__(self, student: NanoModel, teachers: dict[str, Path], cfg: MOPDConfig) -> None:
        self.student, self.teachers, self.cfg = student, teachers, cfg
        loaded = {d: NanoModel.load(p) for d, p in teachers.items()}
        self.tnets: dict[str, NanoNet] = {d: m.net.eval() for d, m in loaded.items()}
        # Teachers by their folder and file name and their digests: a path of the machine that trained is no
        # provenance anywhere else (and it would reach every episode the student acts in).
        self.refs = {d: {**m.checkpoint, "name": f"{Path(teachers[d]).parent.name}/{Path(teachers[d]).name}"}
                     for d, m in loaded.items()}  # type: ignore[dict-item]  # fmt: skip
        self.samples, self.temperature, self.iterations = cfg.samples, 1.0, 1
        self.supervised = self.total = 0

    def score(self, roll: Rollout) -> LossFn | None:
        exs, k, s, batch = roll.exs, roll.g, roll.sampled, roll.batch
        hint = hint_of(exs, batch.cand_mask.shape[1], batch.text_mask.shape[1], k, self.cfg.hint_strength) \
            if self.cfg.hint else None  # fmt: skip
        teacher = torch.zeros_like(roll.old)
        for dom, tnet in self.tnets.items():
            rows = torch.tensor([teacher_key(ex.domain, self.teachers) == dom for ex in exs]).repeat_interleave(k, 0)
            if rows.any():
                lp = part_logps(tnet, repeat_encoded(tnet.encode(batch), k), s, hint=hint)
                teacher = torch.where(rows[:, None], lp, teacher)
        texts = replies(self.student, exs, s, k)
        w = torch.tensor([part_weights(t, exs[j // k].row.get("surface", "browser"), exs[j // k].row, self.cfg.lam)
                          for j, t in enumerate(texts)])  # fmt: skip
        mask = part_mask(s.types)
        w = w * mask
        self.supervised += int((w > 0).any(-1).sum())
        self.total += len(texts)
        if not (w > 0).any():
            return None
        eps = self.cfg.eps
        return lambda new: mopd_sampled_loss(new, roll.old, teacher, w, mask, eps_low=eps, eps_high=eps)

    def summary(self, losses: list[float]) -> dict[str, Any]:
        point = {"loss": sum(losses) / max(1, len(losses)), "supervised_share": self.supervised / max(1, self.total)}
        self.supervised = self.total = 0
        return point


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
    student = NanoModel.load_trainable(init)
    stage = _MOPD(student, teachers, cfg)
    curve = on_policy(student.net, states, cfg, stage, gen, val)
    meta = {**student.meta, "stage": "mopd", "teachers": stage.refs}
    return save_stage(student.net, out, "mopd", meta, {"curve": curve, "states": len(states),
                                                       "teachers": sorted(teachers)}, cfg)  # fmt: skip
