"""Names a keypoint requires: capitalised runs, and Chinese values set into an English sentence."""

from __future__ import annotations

from venuskit.verify.text import needles, proper_names


def test_chinese_values_inside_an_english_keypoint_are_names():
    assert proper_names("冰川登山水壶 0.5 升 went into the cart") == ["冰川登山水壶 0.5 升"]
    assert proper_names("Its location is 北辰会议室") == ["北辰会议室"]


def test_an_all_chinese_keypoint_is_not_one_big_name():
    assert proper_names("把文件移到回收站") == []


def test_quoted_values_are_left_to_the_quote_rules():
    assert proper_names('An event "季度规划会" is in the calendar') == []


def test_an_address_in_a_chinese_keypoint_does_not_make_it_english():
    """Before: the address's letters outnumbered the Chinese characters, so the sentence's own words ("写一封主题为 的邮件")
    became names it required, and no run could ever show them."""
    kp = "给 na.wang@northwind.example 写一封主题为“团建预算”的邮件"
    assert proper_names(kp) == []
    assert needles(kp) == ["团建预算", "na.wang@northwind.example"]
