"""Names a keypoint requires: capitalised runs, and Chinese values set into an English sentence."""

from __future__ import annotations

from venuskit.verify.text import proper_names


def test_chinese_values_inside_an_english_keypoint_are_names():
    assert proper_names("冰川登山水壶 0.5 升 went into the cart") == ["冰川登山水壶 0.5 升"]
    assert proper_names("Its location is 北辰会议室") == ["北辰会议室"]


def test_an_all_chinese_keypoint_is_not_one_big_name():
    assert proper_names("把文件移到回收站") == []


def test_quoted_values_are_left_to_the_quote_rules():
    assert proper_names('An event "季度规划会" is in the calendar') == []
