"""The shared lexicon: each value shape is written once, reads what pages and tasks write, and venus-nano's
features, the judge's features and the verifier's text rules read the same values from the same sentence."""

import pytest

from venuskit.models.judge import features as J
from venuskit.models.lexicon import (
    CODE,
    CODE_LIKE,
    DATE,
    EMAIL,
    IBAN,
    ISO_DATE,
    QUOTE_MARKS,
    QUOTED,
    TIME,
    URL,
    quoted_spans,
)
from venuskit.models.nano.entities import concepts, goal_entities, goal_words, says_done
from venuskit.verify import text as T


@pytest.mark.parametrize(("text", "spans"), [
    ('Star "Budget"', [("Budget", 6)]),
    ("Open “Team lunch” now", [("Team lunch", 6)]),
    ("Open ‘Team lunch’ now", [("Team lunch", 6)]),
    ("Payez «Loyer» demain", [("Loyer", 7)]),
    ("删除「预算」和『草稿』", [("预算", 3), ("草稿", 8)]),
    ("Click 'Add to cart'.", [("Add to cart", 7)]),
    ("Type ('Budget') then 'Notes':", [("Budget", 7), ("Notes", 22)]),
    ("Don't archive Anna's mail", []),  # apostrophes open no span
    ('Clear "" then type "X"', [("X", 20)]),  # an empty pair is a pair: it does not swallow the next quote
])  # fmt: skip
def test_quoted_spans_read_every_quote_pair_and_no_apostrophe(text, spans):
    assert quoted_spans(text) == spans
    assert all(text[start : start + len(span)] == span for span, start in spans)


def test_quote_marks_hold_every_pair():
    assert all(c in QUOTE_MARKS for c in "\"“”‘’«»「」『』'")
    assert QUOTED.sub(" ", "a «b» c").split() == ["a", "c"]


def test_value_shapes():
    assert IBAN.findall("to NO93 8601 1117 947 now") == ["NO93 8601 1117 947"]  # the shortest IBAN, 15 characters
    assert IBAN.findall("IBAN GB33 BUKB 2020 1555 5555 55.") == ["GB33 BUKB 2020 1555 5555 55"]  # letters in groups
    assert IBAN.findall("DE89370400440532013000") == ["DE89370400440532013000"]  # printed without spaces
    assert IBAN.findall("DE89 and 2020") == []
    assert EMAIL.findall("Cc: legal@northwind.example.") == ["legal@northwind.example"]
    assert URL.findall('see "https://a.example/x?y=1" here') == ["https://a.example/x?y=1"]
    assert CODE.findall("ER-2024-0031, CC-4300 and A-12; not TX66130001") == ["ER-2024-0031", "CC-4300", "A-12"]
    assert CODE_LIKE.findall("#70315 TX66130001 MX-OPS INV-AB12 CC-4300") == [
        "#70315", "TX66130001", "MX-OPS", "INV-AB12", "CC-4300"]  # fmt: skip
    assert ISO_DATE.findall("on 2026-03-12 at 9:05") == ["2026-03-12"] and TIME.findall("at 9:05") == ["9:05"]
    assert DATE.findall("12 Mar 2024, 2026-03-12, 3月12日") == ["12 Mar 2024", "2026-03-12", "3月12日"]


def test_nano_judge_and_verifier_read_the_same_values():
    goal = 'Pay «Loyer» to Marcus Chen (IBAN NL91 ABNA 0417 1643 00) with the reference “Rent April”.'
    nano = {e.text for e in goal_entities(goal)}
    judge = set(J.values(goal))
    verify = set(T.needles(goal))
    for value in ("Loyer", "Rent April", "NL91 ABNA 0417 1643 00"):
        assert value in nano and value in judge and value in verify, value
    assert T.quoted(goal) == ["Loyer", "Rent April"]
    # The goal's words stop at every quote mark, as the quoted spans do.
    assert ("Loyer", goal.index("Loyer")) in goal_words(goal)
    assert J.norm("«Loyer»") == J.norm("Loyer") and T.normalise("『草稿』") == T.normalise("草稿")


@pytest.mark.parametrize(("text", "has", "lacks"), [
    ("Starred", {"star"}, set()),
    ("Tell me the start time", set(), {"star"}),  # "start" begins like "star" and is not one
    ("Is the order ready?", {"buy"}, {"read"}),
    ("Only one", set(), {"on"}),
    ("Address", {"address"}, {"create"}),  # "add" is no prefix of it
    ("Payee", {"contact"}, {"pay"}),
    ("Not now", {"today"}, {"decline"}),  # "no" is no prefix of "not" / "now"
    ("Deleting replies", {"delete", "reply"}, set()),
    ("Permanently stopped", {"forever", "off"}, set()),
    ("Searches", {"search"}, set()),
    ("已删除", {"delete"}, set()),
])  # fmt: skip
def test_lexicon_words_match_their_inflections_not_every_word_they_begin(text, has, lacks):
    found = concepts(text)
    assert has <= found and not lacks & found


def test_done_words_read_adverbs_but_not_words_that_merely_begin_alike():
    assert says_done("Payment successful") and says_done("Saved successfully") and says_done("已保存")
    assert not says_done("Sentence") and not says_done("Leftover items")
