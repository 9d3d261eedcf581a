"""The pure checkers: pass/fail and the partial score a user (or an RL trainer) would see."""

from __future__ import annotations

import pytest

from venuskit.synth.captcha.checker import check, edit_distance, hausdorff
from venuskit.synth.captcha.families.navigation import _corners, _maze, bfs
from venuskit.synth.captcha.registry import make_instance

BOX_A, BOX_B, BOX_C = [0, 0, 10, 10], [20, 0, 30, 10], [40, 0, 50, 10]


def test_text_is_case_folded_unless_case_matters_and_scores_edit_distance() -> None:
    ans = {"check": "text", "text": "k7mQ", "case": False}
    assert check(ans, {"text": " K7mq "}, []).passed
    near = check(ans, {"text": "k7m"}, [])
    assert not near.passed and near.partial == pytest.approx(0.75)
    assert not check({**ans, "case": True}, {"text": "K7mq"}, []).passed
    assert check({**ans, "alts": ["four"]}, {"text": "FOUR"}, []).passed


def test_greek_and_cyrillic_lookalikes_count_as_latin() -> None:
    assert check({"check": "text", "text": "ΩБPЖΔA"}, {"text": "ΩБРЖΔА"}, []).passed  # Cyrillic Р and А typed
    assert edit_distance("kitten", "sitting") == 3


def test_int_needs_the_exact_number() -> None:
    assert check({"check": "int", "value": 42}, {"text": " 42"}, []).passed
    for text in ("41", "forty-two", "4 2x", "", "9" * 40):
        assert not check({"check": "int", "value": 42}, {"text": text}, []).passed


def test_single_click_rules() -> None:
    ans = {"check": "point", "boxes": [BOX_A], "size": [320, 200]}
    assert check(ans, {"points": [[5, 5]]}, []).passed
    assert not check(ans, {"points": [[5, 5], [6, 6]]}, []).passed, "one click is the answer, not a spray"
    miss = check(ans, {"points": [[100, 100]]}, [])
    assert not miss.passed and 0 < miss.partial < 1
    near = {"check": "point_near", "point": [50, 50], "tol": 10, "size": [320, 200]}
    assert check(near, {"points": [[57, 56]]}, []).passed and not check(near, {"points": [[62, 50]]}, []).passed
    avoid = {"check": "point_avoid", "avoid": [BOX_A], "area": [0, 0, 100, 100]}
    assert check(avoid, {"points": [[50, 50]]}, []).passed
    assert not check(avoid, {"points": [[5, 5]]}, []).passed and not check(avoid, {"points": [[150, 5]]}, []).passed


def test_point_mask_follows_the_visible_pixels() -> None:
    ans = {"check": "point_mask", "cell": 2, "rows": ["0110", "0010"], "box": [2, 0, 6, 4], "size": [8, 4]}
    assert check(ans, {"points": [[3, 1]]}, []).passed and check(ans, {"points": [[5, 3]]}, []).passed
    assert not check(ans, {"points": [[3, 3]]}, []).passed  # inside the box, but that part is hidden


def test_ordered_clicks_score_the_fraction_in_order() -> None:
    ans = {"check": "points_ordered", "boxes": [BOX_A, BOX_B, BOX_C]}
    assert check(ans, {"points": [[5, 5], [25, 5], [45, 5]]}, []).passed
    swapped = check(ans, {"points": [[25, 5], [5, 5], [45, 5]]}, [])
    assert not swapped.passed and swapped.partial == pytest.approx(1 / 3)
    assert check(ans, {"points": [[5, 5], [25, 5]]}, []).partial == pytest.approx(2 / 3)


def test_unordered_clicks_match_each_target_once() -> None:
    ans = {"check": "points_set", "boxes": [BOX_A, BOX_B]}
    assert check(ans, {"points": [[25, 5], [5, 5]]}, []).passed
    twice = check(ans, {"points": [[5, 5], [6, 6]]}, [])
    assert not twice.passed and twice.partial == pytest.approx(1 / 3)  # Jaccard: 1 hit, 2 clicks, 2 targets
    assert not check(ans, {"points": [[5, 5], [25, 5], [45, 5]]}, []).passed


def test_double_click_needs_one_double_click_on_the_target() -> None:
    ans = {"check": "dbl", "boxes": [BOX_A]}
    assert check(ans, {"points": [[5, 5], [5, 5]], "dbl": [[5, 5]]}, []).passed
    assert not check(ans, {"points": [[5, 5]], "dbl": []}, []).passed
    assert not check(ans, {"points": [], "dbl": [[5, 5], [25, 5]]}, []).passed


def test_cells_allow_optional_tiles_and_score_jaccard() -> None:
    ans = {"check": "cells", "required": [1, 2], "optional": [3]}
    assert check(ans, {"selected": [2, 1]}, []).passed and check(ans, {"selected": [1, 2, 3]}, []).passed
    wrong = check(ans, {"selected": [1, 4]}, [])
    assert not wrong.passed and wrong.partial == pytest.approx(1 / 3)


def test_slider_values_tolerance_period_and_one_sided() -> None:
    ans = {"check": "value", "target": 100, "tol": 5, "range": 256}
    assert check(ans, {"value": 104.5}, []).passed and not check(ans, {"value": 106}, []).passed
    ring = {"check": "value", "target": 2, "tol": 5, "period": 256, "range": 256}
    assert check(ring, {"value": 254}, []).passed, "angles wrap around"
    unlock = {"check": "value", "target": 256, "tol": 6, "at_least": True}
    assert check(unlock, {"value": 251}, []).passed and not check(unlock, {"value": 200}, []).passed


def test_pieces_orders_arrows_hold_robot_and_all() -> None:
    pieces = {"check": "pieces", "boxes": [BOX_A, None], "size": [100, 100]}
    assert check(pieces, {"pieces": [[5, 5], [90, 90]]}, []).passed
    assert check(pieces, {"pieces": [[15, 5], [90, 90]]}, []).partial > 0.5
    order = {"check": "order", "accept": [[1, 0, 2], [0, 2, 1]]}
    assert check(order, {"order": [0, 2, 1]}, []).passed and not check(order, {"order": [0, 1, 2]}, []).passed
    assert check({"check": "arrows", "value": 3, "period": 8}, {"value": 11, "pos": [0, 0]}, []).passed
    assert not check({"check": "arrows", "pos": [1, 5]}, {"value": 0, "pos": [1, 4]}, []).passed
    hold = {"check": "hold", "min_ms": 700, "max_ms": 8000}
    assert check(hold, {"held_ms": 1000, "presses": 1}, []).passed
    assert (
        not check(hold, {"held_ms": 300, "presses": 1}, []).passed
        and not check(hold, {"held_ms": 9000, "presses": 1}, []).passed
    )
    both = {"check": "all", "parts": [{"check": "robot"}, {"check": "cells", "required": [0]}]}
    assert check(both, {"robot": True, "selected": [0]}, []).passed
    half = check(both, {"robot": False, "selected": [0]}, [])
    assert not half.passed and "robot" in half.reason and half.partial == pytest.approx(0.5)


def test_strokes_gesture_pairs_and_maze() -> None:
    assert hausdorff([(0, 0), (10, 0)], [(0, 3), (10, 3)]) == pytest.approx(3)
    gesture = {"check": "gesture", "points": [[10, 10], [100, 10], [100, 80]], "tol": 12}
    assert check(gesture, {"segments": [[12, 11, 98, 12], [98, 12, 101, 79]]}, []).passed
    assert not check(gesture, {"segments": [[12, 11, 98, 12]]}, []).passed, "half a trace"
    assert not check(gesture, {"segments": [[12, 11, 98, 12], [60, 60, 101, 79]]}, []).passed, "not one chain"
    pairs = {"check": "pairs", "pairs": [[BOX_A, BOX_C]]}
    assert check(pairs, {"segments": [[45, 5, 5, 5]]}, []).passed
    assert not check(pairs, {"segments": [[5, 5, 25, 5]]}, []).passed


def test_maze_rule_accepts_the_corridor_and_refuses_walls() -> None:
    import random

    inst = make_instance("maze_trace", 4)
    ans = inst.answer
    pts = ans["oracle"]["points"]
    segs = [[*a, *b] for a, b in zip(pts, pts[1:], strict=False)]
    assert check(ans, {"segments": segs}, []).passed
    cell, (x0, _y0) = ans["cell"], ans["origin"]
    straight = [[pts[0][0], pts[0][1], x0 + ans["cols"] * cell - cell / 2, pts[0][1]]]  # through every wall on the row
    opened = {(tuple(a), tuple(b)) for a, b in ans["open"]}
    row = ans["start"][0]
    if any(((row, c), (row, c + 1)) not in opened for c in range(ans["cols"] - 1)):
        assert not check(ans, {"segments": straight}, []).passed
    assert not check(ans, {"segments": segs[:-1]}, []).passed, "stopping short of the goal"
    maze = _maze(random.Random(1), 3, 3)
    path = bfs((0, 0), (2, 2), lambda a, b: (a, b) in maze)
    assert path and path[0] == (0, 0) and _corners(path)[-1] == (2, 2)


def test_unknown_rule_is_an_error() -> None:
    with pytest.raises(ValueError, match="unknown check rule"):
        check({"check": "telepathy"}, {}, [])
