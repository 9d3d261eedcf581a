"""The one grounding reader: strict for rewards, lenient for the eval, and the same reading where both read."""

from __future__ import annotations

import pytest

from venuskit.actions.grounding import parse_grounding
from venuskit.eval.grounding import GroundingItem, score
from venuskit.train.rewards import grounding_reward


@pytest.mark.parametrize(
    ("reply", "strict_kind", "lenient_kind"),
    [
        ("[100,200]", "point", "point"),
        (" [100, 200, 300, 400] ", "box", "box"),
        ("[100,200],[300,400]", "two_points", "two_points"),
        ("[-1,-1]", "point", "point"),
        ("<think>top left</think>[600,400]", None, "point"),  # strict: no think block in no-think mode
        ("The button is at [600,400].", None, "point"),
        ("(250, 750)", None, "point"),
        ("x: 120 y: 880", None, "scrape_point"),
        ("[1200,50]", None, "point"),  # strict: off the grid; lenient: clamped
        ("[-1,-1,5,5]", None, "box"),
        ("no idea", None, None),
    ],
)
def test_strict_reads_only_the_exact_format_lenient_reads_what_upstream_reads(reply, strict_kind, lenient_kind):
    strict, lenient = parse_grounding(reply, strict=True), parse_grounding(reply, strict=False)
    assert (strict.kind if strict else None) == strict_kind
    assert (lenient.kind if lenient else None) == lenient_kind
    if strict is not None:  # where both read, they read the same point
        assert strict == lenient


def test_a_box_counts_through_its_centre_and_minus_one_refuses():
    box = parse_grounding("[300,400,100,200]", strict=True)
    assert (box.point.x, box.point.y) == pytest.approx((0.2, 0.3)) and box.box == pytest.approx((0.1, 0.2, 0.3, 0.4))
    refusal = parse_grounding("[-1,-1,-1,-1]", strict=True)
    assert refusal.refused and refusal.point is None
    assert parse_grounding("[5,5]", strict=True, grid=4) is None  # the grid bounds strict values


@pytest.mark.parametrize("reply", ["[150,150]", "[99,150]", "[-1,-1]", "[100,100,200,200]", "[0,0],[300,300]"])
def test_the_reward_and_the_eval_score_agree_on_exact_replies(reply):
    item = GroundingItem("k", "x.png", "i", (100, 100, 200, 200), img_size=(1000, 1000))
    reward = grounding_reward([reply], gt_boxes=[[0.1, 0.1, 0.2, 0.2]])[0]
    assert reward == float(score(item, parse_grounding(reply, strict=False)) == "correct")
