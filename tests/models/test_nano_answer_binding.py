"""A question's answer is the value of the key or column the question names: venus-nano's text options say which
line's key ("Category  Pets"), column header ("Stat." over "REJECTED") or own line ("仅剩 3 件") the question asks
about, and which lines are keys, so a policy can learn to answer "Pets", not "Reference" or the amount."""

import numpy as np

from venuskit.models.nano.features import _TEXT_COL, NanoInput, build
from venuskit.models.nano.history import Past
from venuskit.models.nano.reader import Line, Screen


def _options(goal: str, lines: list[tuple[tuple[int, int, int, int], str]]) -> dict[str, dict[str, float]]:
    screen = Screen(1024, 768, [Line(box, t, 1.0, "text") for box, t in lines], np.full((768, 1024), 255, np.uint8))
    f = build(NanoInput(b"", goal), screen, Past([], [], [], None))
    names = ("key_asked", "line_asked", "column_asked", "is_key")
    return {o.text: {n: float(x[_TEXT_COL[n]]) for n in names} for o, x in zip(f.texts, f.text_x, strict=True)}


def _pairs(rows: list[tuple[str, str]], top: int = 258) -> list[tuple[tuple[int, int, int, int], str]]:
    out = []
    for k, (key, value) in enumerate(rows):
        y = top + 28 * k
        out += [((269, y, 269 + 9 * len(key), y + 13), key), ((465, y, 465 + 9 * len(value), y + 13), value)]
    return out


def test_a_value_whose_key_the_question_names_is_told_apart_from_the_keys_and_the_other_values():
    detail = [((272, 157, 497, 174), "RIVERSIDE VET CLINIC")] + _pairs(
        [("Posted", "14 Mar"), ("Account", "Everyday Checking"), ("Category", "Pets"), ("Reference", "TX55501234")])
    o = _options("Under which category is today's RIVERSIDE VET CLINIC payment filed? Answer with the category.", detail)
    assert o["Pets"]["key_asked"] == 1.0 and o["Pets"]["is_key"] == 0.0
    assert o["Reference"]["is_key"] == 1.0 and o["Reference"]["key_asked"] == 0.0
    assert o["Everyday Checking"]["key_asked"] == 0.0  # the title's words are the goal's, not what it asks
    # Another question over the same screen binds another value.
    o = _options("What is the reference of today's RIVERSIDE VET CLINIC payment?", detail)
    assert o["TX55501234"]["key_asked"] == 1.0 and o["Pets"]["key_asked"] == 0.0


def test_a_table_cell_under_the_asked_column_and_a_number_inside_its_line():
    table = []
    for col, (x, head) in enumerate([(163, "Rpt No."), (283, "Bus. Purp."), (879, "Stat.")]):
        cells = [("ER-2024-0033", "ER-2024-0032"), ("Team offsite", "Conference Lisbon"), ("REJECTED", "APPROVED")][col]
        table.append(((x, 118, x + 60, 130), head))
        table += [((x, 135 + 20 * r, x + 90, 147 + 20 * r), cell) for r, cell in enumerate(cells)]
    o = _options("What is the status of expense report ER-2024-0033 in FinPortal? Answer with the status.", table)
    assert o["REJECTED"]["column_asked"] == 1.0 and o["APPROVED"]["column_asked"] == 1.0
    assert o["Team offsite"]["column_asked"] < 0.5 and o["Conference Lisbon"]["column_asked"] < 0.5
    stock = [((741, 190, 800, 204), "€44.00"), ((741, 220, 800, 234), "仅剩 3 件")]
    o = _options("“极光陶瓷花瓶”还剩多少件库存？请回答数字。", stock)
    assert o["3"]["line_asked"] > 0.5 and o.get("44.00", o.get("€44.00", {"line_asked": 0.0}))["line_asked"] == 0.0


def test_goals_that_ask_nothing_bind_nothing():
    o = _options('Star the email "Quarterly budget".', _pairs([("Category", "Pets")]))
    assert all(v == 0.0 for feats in o.values() for v in feats.values())
