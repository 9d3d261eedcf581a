"""GRPO and MOPD math on hand-computed examples."""

from __future__ import annotations

import math

import pytest
import torch  # noqa: E402

from venuskit.actions.grammar import parse_response  # noqa: E402
from venuskit.actions.types import Click, Point  # noqa: E402
from venuskit.train import losses as L  # noqa: E402
from venuskit.train.rewards import judge  # noqa: E402
from venuskit.train.tiny import build_byte_tokenizer  # noqa: E402

# ---- GRPO ----------------------------------------------------------------------------------------


def test_group_advantages_hand_computed():
    r = torch.tensor([1.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0])
    adv = L.group_advantages(r, group_size=4)
    std = math.sqrt(4 * 0.25 / 3)  # unbiased std of {1, 0, 0, 1}
    a = 0.5 / (std + 1e-4)
    assert adv[:4].tolist() == pytest.approx([a, -a, -a, a])
    assert adv[4:].tolist() == [0.0] * 4  # a zero-variance group carries no signal
    assert L.group_advantages(r, 4, scale="none")[:4].tolist() == [0.5, -0.5, -0.5, 0.5]
    with_nan = L.group_advantages(torch.tensor([1.0, float("nan"), 0.0, 0.0]), 4, scale="none")
    assert with_nan.tolist() == pytest.approx([2 / 3, 0.0, -1 / 3, -1 / 3])  # NaN leaves the baseline, gets 0


def test_asymmetric_clipping_hand_computed():
    logps = torch.log(torch.tensor([[1.5, 0.5, 1.5, 0.5]])).requires_grad_()
    old = torch.zeros(1, 4)
    adv = torch.tensor([[1.0, -1.0, -1.0, 1.0]])
    loss = L.clipped_surrogate(logps, old, adv, eps_low=0.2, eps_high=0.28)
    # ρ=1.5,A=+1 → clipped to 1.28; ρ=0.5,A=−1 → clipped to 0.8; ρ=1.5,A=−1 and ρ=0.5,A=+1 → unclipped (pessimistic)
    assert loss[0].tolist() == pytest.approx([-1.28, 0.8, 1.5, -0.5])
    loss.sum().backward()
    assert logps.grad[0].tolist() == pytest.approx([0.0, 0.0, 1.5, -0.5])  # clipped tokens get no gradient


def test_k3_kl_and_aggregation_modes():
    p = torch.tensor([[-1.0, -2.0]])
    assert L.k3_kl(p, p).tolist() == [[0.0, 0.0]]
    assert (L.k3_kl(p, p + 0.3) > 0).all()
    per_token = torch.tensor([[1.0, 2.0, 3.0], [4.0, 0.0, 0.0]])
    mask = torch.tensor([[1, 1, 1], [1, 0, 0]])
    assert L.aggregate(per_token, mask, "grpo").item() == pytest.approx((2.0 + 4.0) / 2)
    assert L.aggregate(per_token, mask, "bnpo").item() == pytest.approx(10.0 / 4)
    assert L.aggregate(per_token, mask, "dr_grpo", max_completion_length=5).item() == pytest.approx(10.0 / 10)
    assert L.aggregate(per_token, mask, "dapo", num_items=8).item() == pytest.approx(10.0 / 8)
    with pytest.raises(ValueError, match="grpo, bnpo"):
        L.aggregate(per_token, mask, "mean")  # type: ignore[arg-type]


def test_grpo_loss_with_kl_needs_reference():
    lp = torch.zeros(2, 3)
    with pytest.raises(ValueError, match="ref_logps"):
        L.grpo_loss(lp, lp, torch.ones(2), torch.ones(2, 3), beta=0.1)
    assert L.grpo_loss(lp, lp, torch.ones(2), torch.ones(2, 3), beta=0.1, ref_logps=lp).item() == pytest.approx(-1.0)


# ---- MOPD weights --------------------------------------------------------------------------------

TOK = None


def tokenizer():
    global TOK
    if TOK is None:
        TOK = build_byte_tokenizer()
    return TOK


def weights_for(text: str, gt: Click, box, lam=1.0):
    tok = tokenizer()
    ids = tok(text, add_special_tokens=False)["input_ids"] + [tok.eos_token_id]
    offsets = L.token_char_offsets(tok, ids)
    resp = parse_response(text, "mobile")
    verdicts = judge(resp.actions, [gt], [box])
    return offsets, L.mopd_token_weights(offsets, verdicts, resp.action_spans, 1, lam=lam)


GT = Click(point=Point(0.5, 0.45))
BOX = (0.4, 0.4, 0.6, 0.5)


def supervised_chars(text, offsets, w, value=None):
    return "".join(text[s:e] for (s, e), x in zip(offsets, w, strict=True) if (x > 0 if value is None else x == value))


def test_weights_correct_params_wrong_type_wrong_exact_token_sets():
    right = "<think>ok é</think>\n<action>Click(point=(500, 450))</action>"
    offsets, w = weights_for(right, GT, BOX)
    assert sum(w) == 0.0 and len(w) == len(offsets)

    params = "<think>ok é</think>\n<action>Click(point=(900, 900))</action>"
    offsets, w = weights_for(params, GT, BOX, lam=0.5)
    assert supervised_chars(params, offsets, w, 1.5) == "Click(point=(900, 900))"
    assert supervised_chars(params, offsets, w, 1.0) == "<think>ok é</think>\n<action></action>"
    assert w[-1] == 1.0  # the end-of-turn token stays supervised (weight 1 everywhere)

    typ = "<think>ok é</think>\n<action>LongPress(point=(500, 450))</action>"
    offsets, w = weights_for(typ, GT, BOX)
    assert supervised_chars(typ, offsets, w) == "LongPress"  # only the call name; parameters masked
    assert set(w) == {0.0, 1.0}


def test_unparsable_reply_is_supervised_everywhere():
    offsets = [(0, 1), (1, 2), (2, 2)]
    assert L.mopd_token_weights(offsets, None, [], 1) == [1.0, 1.0, 1.0]
    assert L.mopd_token_weights(offsets, None, [], 1, unparsable_weight=0.0) == [0.0, 0.0, 0.0]
    assert L.mopd_case(["correct"], n_gt=2) == "params_wrong"  # a missing action is not "correct"


def test_char_offsets_cover_multibyte_characters():
    tok = tokenizer()
    text = "é→Click"
    ids = tok(text, add_special_tokens=False)["input_ids"]
    offsets = L.token_char_offsets(tok, ids)
    assert len(ids) > len(text)  # byte-level: multi-byte characters span several tokens
    assert offsets[-1][1] == len(text)
    assert L.char_spans_to_token_mask(offsets, [(2, 7)]) == [False] * (len(ids) - 5) + [True] * 5


# ---- MOPD losses ---------------------------------------------------------------------------------


def _student(seed=0, B=2, T=5, V=7):
    g = torch.Generator().manual_seed(seed)
    return torch.randn(B, T, V, generator=g).requires_grad_(), torch.randint(0, V, (B, T), generator=g)


def test_zero_weights_give_zero_loss_and_zero_gradient():
    logits, ids = _student()
    teacher = torch.randn_like(logits)
    w = torch.zeros(2, 5)
    mask = torch.ones(2, 5)
    lp = L.token_logps(logits, ids)
    for loss in (
        L.mopd_sampled_loss(lp, lp.detach(), L.token_logps(teacher, ids), w, mask),
        L.mopd_exact_loss(logits, teacher, w, mask),
    ):
        assert loss.item() == 0.0
        (grad,) = torch.autograd.grad(loss, logits, allow_unused=False)
        assert torch.count_nonzero(grad) == 0


def test_sampled_loss_gradient_is_weighted_reverse_kl_policy_gradient():
    logits, ids = _student(1)
    teacher_lp = L.token_logps(torch.randn_like(logits), ids)
    w = torch.tensor([[0.0, 1.0, 2.0, 0.0, 1.0], [1.0, 1.0, 0.0, 0.0, 0.0]])
    mask = torch.ones(2, 5)
    lp = L.token_logps(logits, ids)
    loss = L.mopd_sampled_loss(lp, lp.detach(), teacher_lp, w, mask)
    (g1,) = torch.autograd.grad(loss, logits)
    lp2 = L.token_logps(logits, ids)
    expected = (w * (lp2.detach() - teacher_lp) * lp2).sum() / (w > 0).sum()  # Σ w δ ∇logπ / N_supervised
    (g2,) = torch.autograd.grad(expected, logits)
    assert torch.allclose(g1, g2, atol=1e-6)


def test_exact_reverse_kl_is_zero_for_equal_models_and_descends_toward_teacher():
    logits, _ = _student(2)
    assert L.exact_reverse_kl(logits, logits.detach()).abs().max().item() < 1e-6
    teacher = torch.randn_like(logits)
    w, mask = torch.ones(2, 5), torch.ones(2, 5)
    student = logits.detach().clone().requires_grad_()
    before = L.mopd_exact_loss(student, teacher, w, mask).item()
    opt = torch.optim.SGD([student], lr=20.0)
    for _ in range(30):
        opt.zero_grad()
        L.mopd_exact_loss(student, teacher, w, mask).backward()
        opt.step()
    assert L.mopd_exact_loss(student, teacher, w, mask).item() < 0.5 * before


def test_completion_positions_align_prompts_of_different_length():
    logits_short = torch.arange(6 * 2, dtype=torch.float).view(1, 6, 2)  # prompt 3 + completion 3
    logits_long = torch.arange(9 * 2, dtype=torch.float).view(1, 9, 2)  # hinted prompt 6 + completion 3
    assert L.completion_positions(logits_short, 3)[0, :, 0].tolist() == [4.0, 6.0, 8.0]  # positions 2, 3, 4
    assert L.completion_positions(logits_long, 3)[0, :, 0].tolist() == [10.0, 12.0, 14.0]  # positions 5, 6, 7


def test_hint_goes_only_to_the_teacher_copy():
    msgs = [
        {"role": "system", "content": [{"type": "text", "text": "You are a GUI Agent."}]},
        {"role": "user", "content": [{"type": "image"}]},
    ]
    hinted = L.hinted_messages(msgs, L.action_type_hint(["Click"]))
    assert hinted[0]["content"][-1]["text"].endswith("The correct action type is Click.")
    assert len(msgs[0]["content"]) == 1  # the student's prompt is untouched
    user_only = [{"role": "user", "content": "find the button"}]
    assert L.hinted_messages(user_only, "H")[0]["content"] == "find the button\n\nH"
    assert "in order: Click, Type" in L.action_type_hint(["Click", "Type"])
