"""Rule rewards on hand-made replies, including reward-hacking attempts."""

from __future__ import annotations

import json

import pytest

from venuskit.actions.grammar import format_response
from venuskit.actions.types import (
    Click,
    Drag,
    Finished,
    Hotkey,
    Point,
    PressBack,
    Scroll,
    Swipe,
    Type,
    Wait,
)
from venuskit.train import rewards as R


def gt(*actions):
    return json.dumps([a.to_dict() for a in actions])


def reply(action, surface="mobile", thought="ok"):
    return format_response(thought, action, surface)


BOX = [0.4, 0.4, 0.6, 0.5]
CLICK = Click(point=Point(0.5, 0.45))


def total(completions, **cols):
    funcs, weights = R.domain_rewards("mobile")
    per = [f(completions, **cols) for f in funcs]
    return [sum(w * (v[i] or 0.0) for w, v in zip(weights, per, strict=True)) for i in range(len(completions))]


def test_navigation_reward_gates_parameters_on_type_and_keeps_format_small():
    cols = dict(gt_actions=[gt(CLICK)] * 4, gt_boxes=[json.dumps([BOX])] * 4, surface=["mobile"] * 4)
    replies = [
        reply(Click(point=Point(0.45, 0.42))),  # right type, inside the box
        reply(Click(point=Point(0.9, 0.9))),  # right type, outside
        reply(Wait()),  # format-only: valid reply, wrong type
        "I will click the button.",  # no envelope at all
    ]
    r = total(replies, **cols)
    assert r[0] == pytest.approx(1.0)
    assert r[1] == pytest.approx(0.1 + 0.3)
    assert r[2] == pytest.approx(0.1)  # a format-only reply earns only the small format weight
    assert r[3] == 0.0
    assert R.action_param_reward([reply(Wait())], **{k: v[:1] for k, v in cols.items()}) == [0.0]


def test_point_in_box_edges_and_gaussian_shaping():
    box = (0.4, 0.4, 0.6, 0.5)
    assert R.param_score(Click(point=Point(0.4, 0.5)), CLICK, box) == 1.0  # the border counts
    assert R.param_score(Click(point=Point(0.61, 0.45)), CLICK, box) == 0.0
    shaped = R.RewardOptions(shaping="gaussian", sigma=0.05)
    near = R.param_score(Click(point=Point(0.61, 0.45)), CLICK, box, shaped)
    far = R.param_score(Click(point=Point(0.9, 0.45)), CLICK, box, shaped)
    assert 0.4 < near < 0.5 and far < 1e-6  # a near miss earns some, never as much as a hit
    # no box: distance to the gt point within point_tol
    assert R.param_score(Click(point=Point(0.53, 0.45)), CLICK, None) == 1.0
    assert R.param_score(Click(point=Point(0.6, 0.45)), CLICK, None) == 0.0


def test_swipe_direction_drag_endpoints_and_scroll():
    up = Swipe(start=Point(0.5, 0.8), end=Point(0.5, 0.2))
    assert R.param_score(Swipe(start=Point(0.1, 0.9), end=Point(0.2, 0.5)), up, None) == 1.0
    assert R.param_score(Swipe(start=Point(0.5, 0.2), end=Point(0.5, 0.8)), up, None) == 0.0
    strict = R.RewardOptions(swipe_mode="endpoints")
    assert R.param_score(Swipe(start=Point(0.1, 0.9), end=Point(0.2, 0.5)), up, None, strict) == 0.0
    drag = Drag(start=Point(0.1, 0.5), end=Point(0.8, 0.5))
    assert R.param_score(Drag(start=Point(0.12, 0.5), end=Point(0.85, 0.52)), drag, None) == 1.0
    assert R.param_score(Drag(start=Point(0.12, 0.5), end=Point(0.5, 0.5)), drag, None) == 0.0
    assert R.param_score(Drag(start=Point(0.12, 0.5), end=Point(0.5, 0.5)), drag, (0.45, 0.4, 0.55, 0.6)) == 1.0
    down = Scroll(point=Point(0.5, 0.5), direction="down")
    assert R.param_score(Scroll(point=Point(0.1, 0.1), direction="down"), down, None) == 1.0
    assert R.param_score(Scroll(point=Point(0.5, 0.5), direction="up"), down, None) == 0.0


def test_text_f1_threshold_and_hotkey_sets():
    target = Type(content="weather in Paris tomorrow")
    assert R.param_score(Type(content="Weather in paris"), target, None) == 1.0  # F1 = 0.857
    assert R.param_score(Type(content="tomorrow"), target, None) == 0.0  # F1 = 0.4 < 0.5
    assert R.token_f1("a", "apple") < 0.5  # no substring loophole for single tokens
    assert R.token_f1("", "") == 1.0
    assert R.param_score(Finished(content="done"), Finished(content="Done."), None) == 1.0
    hk = Hotkey(keys=("ctrl", "c"))
    assert R.param_score(Hotkey(keys=("C", "Control")), hk, None) == 1.0
    assert R.param_score(Hotkey(keys=("ctrl", "v")), hk, None) == 0.0
    assert R.param_score(Hotkey(keys=("ctrl", "c"), repeat=3), hk, None) == 0.0
    assert R.param_score(PressBack(), PressBack(), None) == 1.0


def test_unscorable_rows_get_none():
    comps = [reply(CLICK)] * 2
    assert R.action_type_reward(comps, gt_actions=[None, gt(CLICK)], surface="mobile") == [None, 1.0]
    assert R.grounding_reward(["[500,450]"], gt_boxes=[None]) == [None]


def test_conversational_completions_are_read():
    conv = [[{"role": "assistant", "content": reply(CLICK)}]]
    assert R.action_type_reward(conv, gt_actions=[gt(CLICK)], surface=["mobile"]) == [1.0]


def test_captcha_sequence_fraction_and_all_or_nothing():
    seq = [Click(point=Point(0.2, 0.9)), Type(content="10"), Click(point=Point(0.5, 0.9)), Type(content="7")]
    boxes = json.dumps([[0.15, 0.85, 0.25, 0.95], None, [0.45, 0.85, 0.55, 0.95], None])
    cols = dict(gt_actions=[gt(*seq)] * 3, gt_boxes=[boxes] * 3, surface="captcha")
    good = format_response("t", seq, "captcha")
    half = format_response("t", seq[:2] + [Click(point=Point(0.9, 0.1)), Type(content="8")], "captcha")
    longer = format_response("t", seq + [Click(point=Point(0.5, 0.5))], "captcha")
    assert R.captcha_reward([good, half, longer], **cols) == pytest.approx([1.0, 0.5, 0.8])
    assert R.captcha_reward([good, half, longer], mode="all", **cols) == [1.0, 0.0, 0.0]
    assert R.captcha_reward(
        ["<action>Click(</action>"], **{k: (v[:1] if isinstance(v, list) else v) for k, v in cols.items()}
    ) == [0.0]


def test_grounding_point_box_refusal_and_format():
    box = [[0.4, 0.4, 0.6, 0.5]]
    comps = ["[500,450]", "[100,100]", "[400,400,600,500]", "<think>x</think>[500,450]", "[1200,5]"]
    assert R.grounding_reward(comps, gt_boxes=[json.dumps(box)] * 5) == [1.0, 0.0, 1.0, 0.0, 0.0]
    assert R.grounding_format_reward(comps) == [1.0, 1.0, 1.0, 0.0, 0.0]
    negative = json.dumps([[-1, -1, -1, -1]])
    assert R.grounding_reward(["[-1,-1]", "[500,450]"], gt_boxes=[negative] * 2) == [1.0, 0.0]


def test_gui_g1_box_term_defeats_huge_boxes():
    gt_box = json.dumps([[0.45, 0.45, 0.55, 0.55]])
    tight, huge, point = "[450,450,550,550]", "[0,0,1000,1000]", "[500,500]"
    r_tight, r_huge, r_point = R.gui_g1_reward([tight, huge, point], gt_boxes=[gt_box] * 3)
    assert r_tight == pytest.approx(1.375)
    assert r_huge < r_tight - 0.25  # the huge box hits the centre but loses IoU and the size term
    assert r_point == 1.0
    assert R.box_size_term((0.45, 0.45, 0.55, 0.55), (0.45, 0.45, 0.55, 0.55)) == pytest.approx(1.0)


def test_domain_rewards_refuses_unknown_domain_and_options_are_checked():
    with pytest.raises(ValueError, match="Unknown domain 'desktop'"):
        R.domain_rewards("desktop")
    with pytest.raises(ValueError, match="text_f1"):
        R.RewardOptions(text_f1=2.0)
    names = [f.__name__ for f in R.domain_rewards("web")[0]]
    assert names == ["format", "action_type", "action_param"]
