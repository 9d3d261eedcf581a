"""GRPO and MOPD losses in plain torch, so the same math runs inside TRL now and a verl custom loss later.

Notation (reference/training.md §4): G samples o_1..o_G per prompt from π_old; per-token ratio
ρ_{i,t} = π_θ(o_{i,t}|·) / π_old(o_{i,t}|·); mask m_{i,t} (1 on real completion tokens). Tensors are (B, T)
with B = prompts × G, rows of one group adjacent (TRL's layout).

GRPO
    Â_i = (r_i − mean_g r) / (std_g r + ε)                          scale="group" ("batch": std over the batch,
                                                                     "none": no division = Dr.GRPO)
    ℓ_{i,t} = −min(ρ Â, clip(ρ, 1−ε_low, 1+ε_high) Â) + β·KL_{i,t}   KL = k3 = e^{q−p} − (q−p) − 1, q = log π_ref
    aggregation: grpo (mean over sequences of the per-sequence token mean), bnpo (token mean over the local
    batch), dr_grpo (Σ mℓ / (B·L_max)), dapo (Σ mℓ / number of tokens in the whole generation batch)

MOPD (multi-teacher on-policy distillation with action-aware weights)
    w_t from the parsed reply (see `mopd_token_weights`); δ_t = log π_θ(y_t|c_t) − log π_T(y_t|c̃_t) where the
    teacher context c̃ carries the hint "The correct action type is X" and the student's does not.
    sampled form: A_t = w_t·(log π_T − log π_old) fed to the GRPO surrogate on the tokens with w_t > 0;
                  at ρ = 1 its gradient is Σ_t w_t δ_t ∇log π_θ(y_t) / N, a weighted reverse-KL policy gradient
                  that needs only the teacher's log-probs of the sampled tokens (a vLLM teacher works).
    exact form:   ℓ_t = w_t·Σ_v π_θ(v|c_t)[log π_θ(v|c_t) − log π_T(v|c̃_t)] (needs the teacher's full logits).
    Both normalise by the number of supervised tokens (w_t > 0), so a fully correct reply gives loss 0, grad 0.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Literal

import torch
import torch.nn.functional as F

from venuskit.actions.grammar import ActionSpan
from venuskit.train.rewards import Verdict

LossType = Literal["grpo", "bnpo", "dr_grpo", "dapo"]
Span = tuple[int, int]  # [start, end) character offsets into the reply text


# ---- GRPO ---------------------------------------------------------------------------------------


def group_advantages(
    rewards: torch.Tensor, group_size: int, scale: Literal["group", "batch", "none"] = "group", eps: float = 1e-4
) -> torch.Tensor:
    """Â_i = (r_i − mean of its group) / (std + ε); NaN rewards (unscorable) leave the baseline and get Â = 0.
    std is the unbiased (n−1) estimate over the non-NaN members, as in TRL."""
    if rewards.dim() != 1 or rewards.numel() % group_size:
        raise ValueError(
            f"rewards must be 1-D with a multiple of group_size={group_size} items, got {tuple(rewards.shape)}."
        )
    grouped = rewards.view(-1, group_size)
    mean = torch.nanmean(grouped, dim=1, keepdim=True)
    adv = (grouped - mean).view(-1)
    if scale == "group":
        adv = adv / (_nanstd(grouped, dim=1, keepdim=True).expand_as(grouped).reshape(-1) + eps)
    elif scale == "batch":
        adv = adv / (_nanstd(rewards) + eps)
    elif scale != "none":
        raise ValueError(f"scale must be 'group', 'batch' or 'none', got {scale!r}.")
    return torch.nan_to_num(adv, nan=0.0)


def _nanstd(x: torch.Tensor, dim: int | None = None, keepdim: bool = False) -> torch.Tensor:
    valid = ~torch.isnan(x)
    n = valid.sum(dim=dim, keepdim=keepdim) if dim is not None else valid.sum()
    mean = torch.nanmean(x, dim=dim, keepdim=True) if dim is not None else torch.nanmean(x)
    sq = torch.where(valid, (x - mean) ** 2, torch.zeros_like(x))
    total = sq.sum(dim=dim, keepdim=keepdim) if dim is not None else sq.sum()
    return torch.sqrt(total / (n - 1).clamp(min=1))


def clipped_surrogate(
    logps: torch.Tensor,
    old_logps: torch.Tensor,
    advantages: torch.Tensor,
    eps_low: float = 0.2,
    eps_high: float = 0.2,
) -> torch.Tensor:
    """Per-token −min(ρÂ, clip(ρ, 1−ε_low, 1+ε_high)Â). `advantages` is (B,) (one per sequence) or (B, T)."""
    adv = advantages.unsqueeze(1) if advantages.dim() == 1 else advantages
    ratio = torch.exp(logps - old_logps)
    clipped = torch.clamp(ratio, 1 - eps_low, 1 + eps_high)
    return -torch.min(ratio * adv, clipped * adv)


def k3_kl(logps: torch.Tensor, ref_logps: torch.Tensor) -> torch.Tensor:
    """k3 ("low_var_kl") estimate of KL(π_θ‖π_ref) per token: e^{q−p} − (q−p) − 1 ≥ 0."""
    d = ref_logps - logps
    return torch.exp(d) - d - 1


def aggregate(
    per_token: torch.Tensor,
    mask: torch.Tensor,
    mode: LossType = "dapo",
    *,
    max_completion_length: int | None = None,
    num_items: float | torch.Tensor | None = None,
) -> torch.Tensor:
    """Reduce a (B, T) per-token loss to a scalar (see the module docstring). `num_items` is dapo's token count
    over the whole generation batch (default: the tokens in `mask`)."""
    m = mask.to(per_token.dtype)
    total = (per_token * m).sum()
    if mode == "grpo":
        return ((per_token * m).sum(-1) / m.sum(-1).clamp(min=1.0)).mean()
    if mode == "bnpo":
        return total / m.sum().clamp(min=1.0)
    if mode == "dr_grpo":
        length = max_completion_length if max_completion_length is not None else per_token.size(1)
        return total / (per_token.size(0) * length)
    if mode == "dapo":
        n = m.sum() if num_items is None else torch.as_tensor(num_items, dtype=per_token.dtype)
        return total / n.clamp(min=1.0)
    raise ValueError(f"Unknown loss aggregation {mode!r}; expected grpo, bnpo, dr_grpo or dapo.")


def grpo_loss(
    logps: torch.Tensor,
    old_logps: torch.Tensor,
    advantages: torch.Tensor,
    mask: torch.Tensor,
    *,
    eps_low: float = 0.2,
    eps_high: float = 0.2,
    beta: float = 0.0,
    ref_logps: torch.Tensor | None = None,
    mode: LossType = "dapo",
    max_completion_length: int | None = None,
) -> torch.Tensor:
    """The clipped GRPO objective with optional k3 KL, aggregated by `mode`."""
    per_token = clipped_surrogate(logps, old_logps, advantages, eps_low, eps_high)
    if beta:
        if ref_logps is None:
            raise ValueError("grpo_loss with beta > 0 needs ref_logps (the reference model's token log-probs).")
        per_token = per_token + beta * k3_kl(logps, ref_logps)
    return aggregate(per_token, mask, mode, max_completion_length=max_completion_length)


def token_logps(logits: torch.Tensor, ids: torch.Tensor) -> torch.Tensor:
    """log π(ids_t | ·) from (B, T, V) logits aligned with (B, T) ids."""
    return torch.gather(F.log_softmax(logits.float(), dim=-1), -1, ids.unsqueeze(-1)).squeeze(-1)


def completion_positions(logits: torch.Tensor, n_completion: int) -> torch.Tensor:
    """The logits that predict the last `n_completion` tokens of a prompt+completion forward: position p predicts
    token p+1, so `logits[:, -n-1:-1]`. Student and (hinted) teacher prompts differ in length; aligning both on
    their completion tokens this way makes the two forwards comparable token by token."""
    return logits[:, -n_completion - 1 : -1]


# ---- MOPD: action-aware token weights ---------------------------------------------------------------


def token_char_offsets(tokenizer: Any, ids: Sequence[int]) -> list[Span]:
    """[start, end) character offsets of each token in `tokenizer.decode(ids, skip_special_tokens=True)`.

    Incremental prefix decoding: robust for byte-level BPE, where one character can span several tokens (the
    first token of a split character gets it, the rest get empty spans) and special tokens decode to nothing."""
    offsets: list[Span] = []
    prev = 0
    for k in range(1, len(ids) + 1):
        cur = len(tokenizer.decode(list(ids[:k]), skip_special_tokens=True, clean_up_tokenization_spaces=False))
        cur = max(cur, prev)
        offsets.append((prev, cur))
        prev = cur
    return offsets


def char_spans_to_token_mask(offsets: Sequence[Span], spans: Sequence[Span]) -> list[bool]:
    """True for each token whose characters overlap any of `spans` (half-open intervals)."""
    return [any(s < b and e > a for a, b in spans) for s, e in offsets]


MOPDCase = Literal["correct", "params_wrong", "type_wrong", "unparsable"]


def mopd_case(verdicts: Sequence[Verdict] | None, n_gt: int) -> MOPDCase:
    """The reply's case: unparsable; type_wrong if any action's type is wrong (or extra); params_wrong if a
    parameter is wrong or gt actions are missing; else correct."""
    if verdicts is None or not verdicts:
        return "unparsable"
    if "type_wrong" in verdicts:
        return "type_wrong"
    if "params_wrong" in verdicts or len(verdicts) < n_gt:
        return "params_wrong"
    return "correct"


def mopd_token_weights(
    offsets: Sequence[Span],
    verdicts: Sequence[Verdict] | None,
    spans: Sequence[ActionSpan],  # the parser's spans (Response.action_spans), one per predicted action
    n_gt: int,
    *,
    lam: float = 1.0,
    unparsable_weight: float = 1.0,
) -> list[float]:
    """Action-aware weights w_t over the completion tokens (`offsets` from `token_char_offsets`):

    correct        w_t = 0 everywhere (nothing to learn; loss and gradient are exactly 0)
    params_wrong   w_t = 1 + λ·1[t ∈ action span of a params_wrong action], 1 elsewhere
    type_wrong     w_t = 1[t ∈ name span of a type_wrong action] (parameters and thought masked)
    unparsable     w_t = unparsable_weight everywhere (no spans to aim at)
    """
    case = mopd_case(verdicts, n_gt)
    n = len(offsets)
    if case == "correct":
        return [0.0] * n
    if case == "unparsable":
        return [float(unparsable_weight)] * n
    assert verdicts is not None
    if case == "type_wrong":
        names = [sp.name_span for sp, v in zip(spans, verdicts, strict=True) if v == "type_wrong"]
        return [float(b) for b in char_spans_to_token_mask(offsets, names)]
    wrong = [sp.call_span for sp, v in zip(spans, verdicts, strict=True) if v == "params_wrong"]
    return [1.0 + lam * b for b in char_spans_to_token_mask(offsets, wrong)]


# ---- MOPD: losses ----------------------------------------------------------------------------------


def mopd_advantages(teacher_logps: torch.Tensor, old_logps: torch.Tensor, weights: torch.Tensor) -> torch.Tensor:
    """Per-token advantages A_t = w_t·(log π_T(y_t|c̃_t) − log π_old(y_t|c_t)) (= −w_t·sg(δ_t))."""
    return weights * (teacher_logps - old_logps).detach()


def mopd_sampled_loss(
    logps: torch.Tensor,
    old_logps: torch.Tensor,
    teacher_logps: torch.Tensor,
    weights: torch.Tensor,
    mask: torch.Tensor,
    *,
    eps_low: float = 0.2,
    eps_high: float = 0.2,
    mode: LossType = "dapo",
) -> torch.Tensor:
    """Sampled-token reverse-KL policy-gradient MOPD loss: the GRPO surrogate with A_t from `mopd_advantages`,
    on the tokens with w_t > 0. Only the teacher's log-probs of the sampled tokens are needed."""
    adv = mopd_advantages(teacher_logps, old_logps, weights)
    per_token = clipped_surrogate(logps, old_logps, adv, eps_low, eps_high)
    return aggregate(per_token, mask * (weights > 0), mode)


def exact_reverse_kl(student_logits: torch.Tensor, teacher_logits: torch.Tensor) -> torch.Tensor:
    """KL(π_θ(·|c_t) ‖ π_T(·|c̃_t)) at every position: (B, T, V) logits → (B, T)."""
    log_s = F.log_softmax(student_logits.float(), dim=-1)
    log_t = F.log_softmax(teacher_logits.float(), dim=-1)
    return (log_s.exp() * (log_s - log_t)).sum(-1)


def mopd_exact_loss(
    student_logits: torch.Tensor,
    teacher_logits: torch.Tensor,
    weights: torch.Tensor,
    mask: torch.Tensor,
    mode: LossType = "dapo",
) -> torch.Tensor:
    """Exact per-position reverse-KL MOPD loss: Σ_t w_t·KL_t over the supervised tokens (w_t > 0), aggregated
    like GRPO. The teacher runs locally (full logits); its logits are treated as constants."""
    per_token = weights * exact_reverse_kl(student_logits, teacher_logits.detach())
    return aggregate(per_token, mask * (weights > 0), mode)


# ---- MOPD: the teacher-only hint --------------------------------------------------------------------


def action_type_hint(type_names: Sequence[str]) -> str:
    """The hint only the teacher sees, e.g. "The correct action type is Click." """
    if not type_names:
        raise ValueError("action_type_hint needs at least one ground-truth action type.")
    if len(type_names) == 1:
        return f"The correct action type is {type_names[0]}."
    return f"The correct action types are, in order: {', '.join(type_names)}."


def hinted_messages(messages: list[dict[str, Any]], hint: str) -> list[dict[str, Any]]:
    """A copy of a chat prompt with `hint` appended to the system message (or, with no system message, to the
    last user message). Content may be a string or a list of parts; the input is not modified."""
    out = [dict(m) for m in messages]
    roles = [m.get("role") for m in out]
    idx = roles.index("system") if "system" in roles else len(roles) - 1 - roles[::-1].index("user")
    content = out[idx].get("content", "")
    if isinstance(content, str):
        out[idx]["content"] = f"{content}\n\n{hint}" if content else hint
    else:
        out[idx]["content"] = list(content) + [{"type": "text", "text": f"\n\n{hint}"}]
    return out
