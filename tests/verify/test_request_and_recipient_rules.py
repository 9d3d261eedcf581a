"""Acts the rules left undecided on synthesised training tasks (their right runs were `uncertain`, never SFT rows):
a new recipient saved with an IBAN written outside quotes, a reaction picked by its label, a request with its reason
("Request a return … because it arrived damaged"), a sort point where no page offers a sort; and the near misses
each must not credit: a click away from the form, a wrong IBAN, money sent when the keypoint forbids it, another
reaction, another reason, a sort offered and not used. Drawn screens, read by the real OCR. Every test fails on the
rules as they were before."""

from __future__ import annotations

from verify_helpers import S, middle, record, screen, why, zh_screen
from verify_helpers import verify_rules as verify

from venuskit.actions.types import Click, Finished, Point, Type
from venuskit.verify import page_rules as P

APP = "http://127.0.0.1:8000"
SIZE = (640, 400)


# ---- a new recipient saved with an IBAN -----------------------------------------------------------------------

IBAN = "DE21 3007 0010 0541 2277 00"
SAVE_GOAL = f"Save Sofia Larsen with the IBAN {IBAN} as a new recipient in the bank, without sending money."


def test_an_iban_outside_quotes_is_one_value_and_no_count():
    """Before: the IBAN was split into digit groups, "00 as" read as "into each field", and the name glued to the
    verb ("Save Sofia Larsen") was no value."""
    assert P.entry_values(SAVE_GOAL.rstrip(".")) == [IBAN, "Sofia Larsen"]
    assert not P._each(SAVE_GOAL)
    assert P._each('Type "abc" into both fields') and P._each("Archive the 3 newsletters")


def recipient_run(folder, iban: str, commit: str = "Add recipient", then: str | None = None):
    """Type the name and the IBAN into the recipient form, click `commit`; with `then`, click it on the saved list."""
    url, title = f"{APP}/bank/payees", "Saved recipients"
    form = ["Saved recipients", "Name", "IBAN", "Add recipient", "Settings"]
    typed = ["Saved recipients", "Sofia Larsen", iban, "Add recipient", "Settings"]
    saved = ["Saved recipients", f"Sofia Larsen  {iban}", "Send money", "Recipient saved."]
    steps = [S(screen(form), Click(point=middle(1, "Name")), url, title),
             S(screen(form), Type(content="Sofia Larsen"), url, title),
             S(screen(form[:1] + typed[1:2] + form[2:]), Click(point=middle(2, "IBAN")), url, title),
             S(screen(form[:1] + typed[1:2] + form[2:]), Type(content=iban), url, title),
             S(screen(typed), Click(point=middle(typed.index(commit), commit)), url, title)]  # fmt: skip
    if commit == "Settings":
        steps.append(S(screen(["Settings", "Profile"]), Finished(content="Done."), f"{APP}/settings/", "Settings"))
    elif then:
        steps += [S(screen(saved), Click(point=middle(2, then)), url, title),
                  S(screen(["Send money", "Amount"]), Finished(content="Done."), f"{APP}/bank/transfer", then)]
    else:
        steps.append(S(screen(saved), Finished(content="Done."), url, title))
    return verify(record(folder, steps, SAVE_GOAL))


def test_a_new_recipient_saved_with_its_iban_is_done_and_a_click_away_or_a_payment_is_not(tmp_path):
    right = recipient_run(tmp_path / "right", IBAN)
    assert right.verdict == "completed", why(right)
    away = recipient_run(tmp_path / "away", IBAN, commit="Settings")  # typed, then left the page: nothing saved
    assert away.verdict != "completed", why(away)
    wrong = recipient_run(tmp_path / "wrong", IBAN.replace("2277", "2771"))
    assert wrong.verdict != "completed", why(wrong)
    paid = recipient_run(tmp_path / "paid", IBAN, then="Send money")  # the keypoint forbids sending money
    assert paid.verdict != "completed", why(paid)
    assert "forbids" in why(paid)


# ---- a reaction picked by its label -----------------------------------------------------------------------------

POST = "我的第一个超级马拉松完赛了！"


def reaction_run(folder, goal: str, post: str, pick: int, labels: list[str], zh: bool = True):
    """On the post's page, click reaction line `pick` (each reaction a line of its own); the page then counts it."""
    draw = zh_screen if zh else screen
    page = [post, *labels]
    after = [post, *[f"{x} 1" if i == pick else x for i, x in enumerate(labels)]]
    at = Point((30 + 13 * len(labels[pick])) / SIZE[0], (30 + 50 * (pick + 1) + 13) / SIZE[1]) if zh else \
        middle(pick + 1, labels[pick])  # a 26 px CJK glyph is 26 px wide
    url = f"{APP}/forum/p/7"
    steps = [S(draw(page), Click(point=at), url, post), S(draw(after), Finished(content=""), url, post)]
    return verify(record(folder, steps, goal))


def test_a_reaction_clicked_by_its_label_on_the_post_is_done_and_another_is_not(tmp_path):
    """Before: "点一个“庆祝”" and "React with Celebrate to …" named no verb any rule knew."""
    goal = f"在论坛里给陈静的帖子“{POST}”点一个“庆祝”。"
    labels = ["赞", "爱心", "庆祝"]
    right = reaction_run(tmp_path / "right", goal, POST, 2, labels)
    assert right.verdict == "completed", why(right)
    other = reaction_run(tmp_path / "other", goal, POST, 0, labels)  # 赞, not 庆祝
    assert other.verdict != "completed", why(other)
    en = 'React with Celebrate to Lucas Walsh\'s forum post "First ultra finished".'
    en_labels = ["Like", "Funny", "Celebrate"]
    assert reaction_run(tmp_path / "en", en, "First ultra finished", 2, en_labels, zh=False).verdict == "completed"
    off = reaction_run(tmp_path / "off", en, "Another post", 2, en_labels, zh=False)  # the right label, another post
    assert off.verdict != "completed", why(off)


# ---- a request with its reason ---------------------------------------------------------------------------------

RETURN = ["Return items from order #71508", "Quartz Wall Clock", "Arrived damaged", "Doesn't fit", "Request return"]


def return_run(folder, reason: str, done: bool = True):
    """Pick the item and `reason`, click Request return; the order page then says it was requested (`done`) or not."""
    goal = "Request a return of the Quartz Wall Clock from order #71508 because it arrived damaged."
    url, title = f"{APP}/shop/orders/71508/return", "Return items"
    said = ["Return requested · " + reason, "We'll email you a label."] if done else ["Return not requested.",
                                                                                    "The return window closed."]
    order = ["Order #71508", "Quartz Wall Clock", *said]
    steps = [S(screen(RETURN), Click(point=middle(1, RETURN[1])), url, title),
             S(screen(RETURN), Click(point=middle(RETURN.index(reason), reason)), url, title),
             S(screen(RETURN), Click(point=middle(4, RETURN[4])), url, title),
             S(screen(order), Finished(content=""), f"{APP}/shop/orders/71508", "Order #71508")]  # fmt: skip
    return verify(record(folder, steps, goal))


def test_a_request_with_its_reason_picked_is_done_and_another_reason_is_not(tmp_path):
    right = return_run(tmp_path / "right", "Arrived damaged")
    assert right.verdict == "completed", why(right)
    assert "Arrived damaged" in why(right)
    other = return_run(tmp_path / "other", "Doesn't fit")
    assert other.verdict != "completed", why(other)
    refused = return_run(tmp_path / "refused", "Arrived damaged", done=False)
    assert refused.verdict != "completed", why(refused)


# ---- a sort point -----------------------------------------------------------------------------------------------

GOAL_LARGEST = "Tell me the largest incoming amount on your checking account."


def list_run(folder, page: list[str], answer: str, url: str = f"{APP}/bank/a/1"):
    steps = [S(screen(["Accounts", "Everyday Checking"]), Click(point=middle(1, "Everyday Checking")),
               f"{APP}/bank/", "Accounts"),
             S(screen(page), Finished(content=answer), url, "Everyday Checking")]  # fmt: skip
    return verify(record(folder, steps, GOAL_LARGEST))


def test_a_sort_point_is_met_where_no_page_offers_a_sort_and_not_where_one_went_unused(tmp_path):
    """Before: the sort point's quoted "largest" had to show on a screen, which no sort control says: every run
    that answered a superlative was `partial`."""
    rows = ["Everyday Checking", "1 Mar  Salary  4,200.00", "4 Mar  Refund  35.00"]
    plain = list_run(tmp_path / "plain", rows, "4,200.00")
    assert plain.verdict == "completed", why(plain)
    offered = list_run(tmp_path / "offered", rows[:1] + ["Sort by: Date"] + rows[1:], "4,200.00")
    assert offered.verdict != "completed", why(offered)  # a sort was there to use (WebJudge's rule)
    used = list_run(tmp_path / "used", rows[:1] + ["Sort by: Amount"] + rows[1:], "4,200.00",
                    url=f"{APP}/bank/a/1?sort=amount_desc")  # fmt: skip
    assert used.verdict == "completed", why(used)
