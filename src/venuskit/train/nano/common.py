"""What the venus-nano stages share: the supervised loss, per-part log-probs, sampling, step metrics, results."""

from __future__ import annotations

import json
import random
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F

from venuskit.models.nano.action_types import POINTER_TYPES, TEXT_TYPES, TYPE_INDEX, TYPES
from venuskit.models.nano.model import NanoModel
from venuskit.models.nano.net import NEG, Encoded, EnsembleEncoded, NanoNet, collate, logsumexp_positive
from venuskit.train.nano.data import Example

PTR_TYPES = torch.tensor([t in POINTER_TYPES for t in TYPES])
TXT_TYPES = torch.tensor([t in TEXT_TYPES for t in TYPES])
TYPE_OF_TEXT = TYPE_INDEX["Type"]


@dataclass
class StageResult:
    """What a stage returns (and writes next to its checkpoint as metrics.json)."""

    stage: str
    checkpoint: Path
    metrics: dict[str, Any] = field(default_factory=dict)

    def to_dict(self) -> dict[str, Any]:
        return {"stage": self.stage, "checkpoint": str(self.checkpoint), "metrics": self.metrics}


def seed_everything(seed: int) -> torch.Generator:
    random.seed(seed)
    np.random.seed(seed % (2**32))
    torch.manual_seed(seed)
    return torch.Generator().manual_seed(seed)


def save_stage(net: NanoNet, out: Path, stage: str, meta: dict[str, Any], metrics: dict[str, Any],
               config: Any) -> StageResult:  # fmt: skip
    """Write the stage's checkpoint (`out/venus-nano.pt`, with `meta`) and `out/metrics.json`; its result."""
    out.mkdir(parents=True, exist_ok=True)
    result = StageResult(stage, NanoModel(net).save(out / "venus-nano.pt", meta), metrics)
    write_metrics(out, result, config)
    return result


def write_metrics(folder: Path, result: StageResult, config: Any) -> None:
    from venuskit.infra.atomic import write_json

    cfg = asdict(config) if hasattr(config, "__dataclass_fields__") else config
    write_json(folder / "metrics.json", {**result.to_dict(), "config": json.loads(json.dumps(cfg, default=str))},
               durable=False)  # fmt: skip


def _mask(examples: list[Example], attr: str, width: int) -> tuple[torch.Tensor, torch.Tensor]:
    """(positives (B, width) bool, has (B,) bool) of a target field that may be missing."""
    pos = torch.zeros(len(examples), width, dtype=torch.bool)
    has = torch.zeros(len(examples), dtype=torch.bool)
    for i, ex in enumerate(examples):
        v = getattr(ex.target, attr)
        if v is not None and v.any():
            pos[i, : len(v)] = torch.from_numpy(v)
            has[i] = True
    return pos, has


def supervised_loss(net: NanoNet, examples: list[Example]) -> tuple[torch.Tensor, dict[str, float]]:
    """Cross-entropy of the type, the pointer (log of the mass on every right candidate), the text option and
    the newline flag; the heads are conditioned on the reference type (teacher forcing)."""
    batch = collate([ex.features for ex in examples])
    e = net.encode(batch)
    types = torch.tensor([ex.target.type for ex in examples])
    type_loss = F.cross_entropy(net.type_logits(e), types)
    ptr, txt, nl = net.heads(e, types)
    ppos, phas = _mask(examples, "ptr", ptr.shape[1])
    tpos, thas = _mask(examples, "text", txt.shape[1])
    ptr_loss = -(logsumexp_positive(F.log_softmax(ptr, -1), ppos)[phas]).mean() if phas.any() else ptr.sum() * 0
    txt_loss = -(logsumexp_positive(F.log_softmax(txt, -1), tpos)[thas]).mean() if thas.any() else txt.sum() * 0
    nl_t = torch.tensor([ex.target.newline if ex.target.newline is not None else -1.0 for ex in examples])
    nl_has = nl_t >= 0
    nl_loss = F.binary_cross_entropy_with_logits(nl[nl_has], nl_t[nl_has]) if nl_has.any() else nl.sum() * 0
    loss = type_loss + ptr_loss + txt_loss + 0.5 * nl_loss
    parts = {"type": type_loss, "ptr": ptr_loss, "text": txt_loss, "newline": nl_loss}
    return loss, {k: float(v.detach()) for k, v in parts.items()}


@torch.no_grad()
def step_accuracy(net: NanoNet, examples: list[Example], batch_size: int = 64) -> dict[str, float]:
    """Greedy decisions against the references: type, pointer (given the type), text, and all parts right."""
    net.eval()
    n = len(examples)
    if not n:
        return {"n": 0}
    right = {"type": 0, "ptr": 0, "ptr_n": 0, "text": 0, "text_n": 0, "all": 0}
    for i in range(0, n, batch_size):
        chunk = examples[i : i + batch_size]
        e = net.encode(collate([ex.features for ex in chunk]))
        tpred = net.type_logits(e).argmax(-1)
        types = torch.tensor([ex.target.type for ex in chunk])
        ptr, txt, _ = net.heads(e, types)
        for k, ex in enumerate(chunk):
            ok = bool(tpred[k] == types[k])
            right["type"] += ok
            if ex.target.ptr is not None:
                right["ptr_n"] += 1
                hit = bool(ex.target.ptr[int(ptr[k].argmax())])
                right["ptr"] += hit
                ok = ok and hit
            if ex.target.text is not None:
                right["text_n"] += 1
                hit = bool(ex.target.text[int(txt[k].argmax())])
                right["text"] += hit
                ok = ok and hit
            right["all"] += ok
    return {"n": n, "type_acc": right["type"] / n, "ptr_acc": right["ptr"] / max(1, right["ptr_n"]),
            "text_acc": right["text"] / max(1, right["text_n"]), "step_acc": right["all"] / n}  # fmt: skip


# ---- sampling whole actions, and their per-part log-probs ----------------------------------------------------


@dataclass
class Sampled:
    types: torch.Tensor  # (B,)
    ptr: torch.Tensor  # (B,) candidate index (valid where the type points)
    text: torch.Tensor  # (B,)
    newline: torch.Tensor  # (B,) float 0/1


def part_mask(types: torch.Tensor) -> torch.Tensor:
    """(B, 3): which parts an action has — type always, target for pointer types, text for text types."""
    return torch.stack([torch.ones_like(types, dtype=torch.bool), PTR_TYPES[types], TXT_TYPES[types]], -1)


@dataclass
class Hint:
    """A teacher-only hint: the reference action type and which targets / text options are right. The hinted
    teacher keeps its own preferences among the right ones (its logits plus `strength` on them)."""

    types: torch.Tensor  # (B,) reference type
    ptr: torch.Tensor | None = None  # (B, N) bool, right candidates (rows without any: no hint)
    text: torch.Tensor | None = None  # (B, M) bool
    strength: float = 4.0


def part_logps(net: NanoNet, e: Encoded, s: Sampled, hint: Hint | None = None) -> torch.Tensor:
    """(B, 3) log-probs of the sampled type, target and text (+ newline) under `net`. With a `hint` (teacher only),
    the target and text heads are conditioned on the reference type and lean towards the right parts, and the type
    part is scored by a distribution that puts its mass on the reference type."""
    tlog = F.log_softmax(net.type_logits(e), -1)
    cond = s.types if hint is None else hint.types
    ptr, txt, nl = net.heads(e, cond)
    lp_type = tlog.gather(1, s.types[:, None]).squeeze(1)
    if hint is not None:
        hinted = torch.full_like(tlog, np.log(0.02 / max(1, len(TYPES) - 1)))
        hinted.scatter_(1, hint.types[:, None], np.log(0.98))
        lp_type = hinted.gather(1, s.types[:, None]).squeeze(1)
        if hint.ptr is not None:
            ptr = ptr + hint.strength * hint.ptr[:, : ptr.shape[1]].float()
        if hint.text is not None:
            txt = txt + hint.strength * hint.text[:, : txt.shape[1]].float()
    lp_ptr = F.log_softmax(ptr, -1).gather(1, s.ptr[:, None].clamp(min=0)).squeeze(1)
    lp_txt = F.log_softmax(txt, -1).gather(1, s.text[:, None].clamp(min=0)).squeeze(1)
    nl_lp = -F.binary_cross_entropy_with_logits(nl, s.newline, reduction="none")
    lp_txt = lp_txt + torch.where(s.types == TYPE_OF_TEXT, nl_lp, torch.zeros_like(nl_lp))
    mask = part_mask(s.types)
    out = torch.stack([lp_type, lp_ptr, lp_txt], -1)
    return torch.where(mask, out, torch.zeros_like(out)).clamp(min=NEG / 1e6)


def hint_of(examples: list[Example], width_ptr: int, width_text: int, g: int, strength: float) -> Hint:
    """The teacher-only hint of each example, repeated for its g samples."""
    types = torch.tensor([ex.target.type for ex in examples]).repeat_interleave(g, 0)
    ptr, _ = _mask(examples, "ptr", width_ptr)
    text, _ = _mask(examples, "text", width_text)
    return Hint(types, ptr.repeat_interleave(g, 0), text.repeat_interleave(g, 0), strength)


@torch.no_grad()
def sample(net: NanoNet, e: Encoded, allowed: torch.Tensor, generator: torch.Generator,
           temperature: float = 1.0) -> Sampled:  # fmt: skip
    """One action per row from the network's distributions (`allowed`: (B, T) types the surface accepts)."""
    tl = net.type_logits(e).masked_fill(~allowed, NEG) / temperature
    types = torch.multinomial(torch.softmax(tl, -1), 1, generator=generator).squeeze(1)
    ptr, txt, nl = net.heads(e, types)
    p = torch.multinomial(torch.softmax(ptr / temperature, -1), 1, generator=generator).squeeze(1)
    t = torch.multinomial(torch.softmax(txt / temperature, -1), 1, generator=generator).squeeze(1)
    n = (torch.rand(types.shape, generator=generator) < torch.sigmoid(nl)).float()
    return Sampled(types, p, t, n)


def repeat_encoded(e: Encoded | EnsembleEncoded, g: int) -> Encoded | EnsembleEncoded:
    """Each row repeated g times, adjacent (a GRPO group per state); an ensemble teacher's members alike."""
    if isinstance(e, EnsembleEncoded):
        return EnsembleEncoded([repeat_encoded(x, g) for x in e.members], e.batch.repeat(g))  # type: ignore[misc]
    return Encoded(e.cands.repeat_interleave(g, 0), e.state.repeat_interleave(g, 0),
                   e.pooled.repeat_interleave(g, 0), e.batch.repeat(g), e.cand_x.repeat_interleave(g, 0))  # fmt: skip


def split_by_template(examples: list[Example], val_share: float, seed: int) -> tuple[list[Example], list[Example]]:
    """A validation slice of *training* templates (by template, so it measures transfer, never held-out data)."""
    names = sorted({_template(ex) for ex in examples})
    rng = random.Random(seed)
    rng.shuffle(names)
    val = set(names[: max(1, int(len(names) * val_share))]) if val_share > 0 and len(names) > 3 else set()
    return [ex for ex in examples if _template(ex) not in val], [ex for ex in examples if _template(ex) in val]


def _template(ex: Example) -> str:
    return str(ex.row.get("task") or ex.row.get("episode_id") or "")
