"""Acts the rules left undecided (or wrongly contradicted) on synthesised training tasks, so their right runs never
became SFT rows: a new recipient saved with an IBAN written outside quotes, a reaction picked by its label, a request
with its reason, a sort point where no page offers a sort and a Chinese sort step, a step placed after ", and
finally", a subject asked for, each of several items done "by archiving them", a cart's quantity, an ISO date
answered from a page that writes the day its own way, money sent (or transferred) whose amount is described, a line
at a document's end that is described, one item put in the cart. And the near misses each must not credit: a click
away from the form, a wrong IBAN, money sent when the keypoint forbids it, another reaction, another reason, a sort
offered and not used or used the other way, one item left, another day, another payment's amount or reference, a
transfer left on its review, another count, an item's name typed into a mail, another item added. Drawn screens,
read by the real OCR. Every test fails on the rules as they were before."""

from __future__ import annotations

from PIL import Image, ImageDraw, ImageFont
from verify_helpers import S, middle, png, record, screen, why, zh_screen
from verify_helpers import verify_rules as verify

from venuskit.actions.types import Click, Finished, Point, Type
from venuskit.verify import page_rules as P
from venuskit.verify.keypoints import split_goal

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


def test_a_sort_point_met_only_because_no_sort_was_offered_is_no_progress(tmp_path):
    """A run that ends at once meets the sort point (nothing offered a sort) and nothing else: that is `failed`, not
    `partial`, as a run that only met "still there" points is."""
    steps = [S(screen(["Accounts", "Everyday Checking"]), Finished(content=""), f"{APP}/bank/", "Accounts")]
    null = verify(record(tmp_path, steps, GOAL_LARGEST))
    assert null.verdict == "failed", why(null)


# ---- a Chinese sort step ---------------------------------------------------------------------------------------

ZH_SHOP_GOAL = "在商城搜索“冰川”，按价格从低到高排序，告诉我最便宜的商品叫什么。"


def test_a_chinese_sort_is_its_own_step_and_the_last_sort_used_decides_it():
    """Before: "在商城搜索“冰川”，按价格从低到高排序" was one keypoint, a search and a sort that no rule decided."""
    assert split_goal(ZH_SHOP_GOAL) == ["在商城搜索“冰川”", "按价格从低到高排序", "Answer: 告诉我最便宜的商品叫什么"]


def sorted_run(folder, chip: str, param: str):
    """Search 冰川, click the sort chip `chip` on the results (a 排序 bar), answer from the sorted list."""
    results = ["“冰川”的搜索结果", "排序  综合", chip, "冰川登山水壶 19.90", "冰川保温杯 24.50"]
    url = f"{APP}/shop/search?q=冰川"
    steps = [S(zh_screen(["商城", "搜索商品"]), Click(point=Point(0.1, (30 + 50 + 13) / SIZE[1])), f"{APP}/shop/", "商城"),
             S(zh_screen(["商城", "搜索商品"]), Type(content="冰川\n"), f"{APP}/shop/", "商城"),
             S(zh_screen(results), Click(point=Point((30 + 13 * len(chip)) / SIZE[0], (30 + 100 + 13) / SIZE[1])),
               url, "“冰川”的搜索结果"),
             S(zh_screen(results), Finished(content="冰川登山水壶"), f"{url}&sort={param}", "“冰川”的搜索结果")]
    return verify(record(folder, steps, ZH_SHOP_GOAL))


def test_a_chinese_sort_is_met_by_the_order_asked_and_not_by_the_opposite(tmp_path):
    right = sorted_run(tmp_path / "up", "价格从低到高", "price_asc")
    sort = next(k for k in right.keypoints if k.text == "按价格从低到高排序")
    assert sort.status == "satisfied", why(right)
    unsorted = verify(record(tmp_path / "null", [S(zh_screen(["商城"]), Finished(content=""), f"{APP}/shop/", "商城")],
                             ZH_SHOP_GOAL))  # fmt: skip
    assert unsorted.verdict == "failed", why(unsorted)  # a sort asked outright is not met by there being none
    down = sorted_run(tmp_path / "down", "价格从高到低", "price_desc")
    sort = next(k for k in down.keypoints if k.text == "按价格从低到高排序")
    assert sort.status == "contradicted", why(down)
    assert down.verdict != "completed"


# ---- how goals are read ----------------------------------------------------------------------------------------


def test_a_step_with_its_place_first_after_and_finally_is_a_step_of_its_own():
    """Before: ", and finally in the spreadsheet "X", set cell B4 …" stayed inside the password step before it, so
    that keypoint asked for both and no rule decided it."""
    goal = 'Change your password from "a-1" to "b-2", and finally in the spreadsheet "Costs.xlsx", set cell B4 to ' \
           '88.25 and save.'  # fmt: skip
    assert split_goal(goal) == ['Change your password from "a-1" to "b-2"',
                                'In the spreadsheet "Costs.xlsx", set cell B4 to 88.25, then save']  # fmt: skip


def test_a_subject_is_no_field_a_screen_labels():
    """Before: "(answer with the subject)" / "请回答主题" asked for a label no mail page shows, so every right answer was
    undecided; a subject, like a title, is the item's own heading."""
    assert P.asked_field("Which email mentions PRJ-7741? (answer with the subject)") is None
    assert P.asked_field("提到它的那封邮件主题是什么？ (请回答主题)") is None
    assert P.asked_field("What is the status of ER-2024-0032? (answer with the status)") == "status"


# ---- each of several items, by the act's means -----------------------------------------------------------------

LETTERS = ["Trailhead Weekly #41", "Trailhead Weekly #42"]


def archive_run(folder, archived: list[str]):
    """From the inbox, open each of `archived` and click Archive on its page."""
    goal = 'Clear your inbox of Trailhead Weekly\'s two newsletters ("Trailhead Weekly #41", "Trailhead Weekly #42") ' \
           "by archiving them."  # fmt: skip
    inbox = f"{APP}/mail/inbox"
    left = list(LETTERS)
    steps = []
    for name in archived:
        page = f"{APP}/mail/m/{41 + LETTERS.index(name)}"
        steps += [S(screen(["Inbox", *left]), Click(point=middle(1 + left.index(name), name)), inbox, "Inbox"),
                  S(screen([name, "Archive   Delete", "Hi there, this week on the trail..."]),
                    Click(point=middle(1, "Archive")), page, name)]  # fmt: skip
        left.remove(name)
    steps.append(S(screen(["Inbox", *left, "Archived."]), Finished(content="Done."), inbox, "Inbox"))
    return verify(record(folder, steps, goal))


def test_each_item_done_by_the_means_the_keypoint_names_is_done_and_one_left_is_not(tmp_path):
    """Before: the keypoint's verb ("Clear") was no one-click act; "by archiving them" names it."""
    both = archive_run(tmp_path / "both", LETTERS)
    assert both.verdict == "completed", why(both)
    one = archive_run(tmp_path / "one", LETTERS[:1])
    assert one.verdict != "completed", why(one)


# ---- an ISO date answered from a page that writes the day its own way ------------------------------------------


def date_run(folder, answer: str):
    goal = 'Tell me the date of "Architecture deep dive" in your calendar.'
    steps = [S(screen(["March 2024", "08:30 Architecture deep dive"]),
               Click(point=middle(1, "08:30 Architecture deep dive")), f"{APP}/calendar/", "March 2024"),
             S(screen(["Architecture deep dive", "Mon, 18 Mar 2024, 08:30 - 11:00", "Cafe Lumen"]),
               Finished(content=answer), f"{APP}/calendar/e/16", "Architecture deep dive")]  # fmt: skip
    return verify(record(folder, steps, goal))


def test_an_iso_date_answer_is_seen_where_the_page_writes_that_day_another_way(tmp_path):
    """Before: "2024-03-18" was "never shown" beside "Mon, 18 Mar 2024", so every right answer was contradicted."""
    right = date_run(tmp_path / "right", "2024-03-18")
    assert right.verdict == "completed", why(right)
    assert date_run(tmp_path / "day", "2024-03-19").verdict != "completed"
    assert date_run(tmp_path / "year", "2023-03-18").verdict != "completed"


# ---- money sent, its amount described; a transfer confirmed on its review ---------------------------------------

STATEMENT = ["Everyday Checking", "13 Mar  CEDAR BAKERY  -249.90", "12 Mar  RIVERSIDE VET  -80.00"]


SEND_GOAL = 'Send the amount of the CEDAR BAKERY payment on 2024-03-13 in your checking account to Noah Ivanova ' \
            'with the reference "Ticket refund".'  # fmt: skip


def transfer_run(folder, amount: str, confirm: bool = True, goal: str = SEND_GOAL, first: list[str] = STATEMENT):
    """Read the `first` screen, fill the transfer form (recipient, amount, reference), Continue; on the review,
    confirm."""
    url, title = f"{APP}/bank/transfer", "Transfer"
    labels = ["Transfer", "Recipient", "Amount", "Reference", "Continue"]
    values = ["Noah Ivanova", amount, "Ticket refund"]
    steps = [S(screen(first), Click(point=Point(0.05, 0.95)), f"{APP}/bank/a/1", first[0])]
    shown = list(labels)
    for i, value in enumerate(values):
        steps += [S(screen(shown), Click(point=middle(1 + i, shown[1 + i])), url, title),
                  S(screen(shown), Type(content=value), url, title)]  # fmt: skip
        shown[1 + i] = value
    review = ["Review your transfer", "To: Noah Ivanova", f"Amount: {amount}", "Ticket refund", "Confirm transfer"]
    steps.append(S(screen(shown), Click(point=middle(4, "Continue")), url, title))
    if confirm:
        steps += [S(screen(review), Click(point=middle(4, "Confirm transfer")), f"{url}/review", "Review"),
                  S(screen(["Everyday Checking", "Transfer sent."]), Finished(content="Done."),
                    f"{APP}/bank/a/1?flash=transfer_done", "Everyday Checking")]  # fmt: skip
    else:
        steps.append(S(screen(review), Finished(content="Done."), f"{url}/review", "Review"))
    return verify(record(folder, steps, goal))


def test_money_sent_is_the_amount_its_description_names_and_counts_once_confirmed(tmp_path):
    """Before: "2024" of the day read as a value to type, so the right transfer was `contradicted`; and a transfer
    left on its review ("Continue" clicked, "Confirm transfer" never) was credited as sent."""
    right = transfer_run(tmp_path / "right", "249.90")
    assert right.verdict == "completed", why(right)
    other = transfer_run(tmp_path / "other", "80.00")  # another payment's amount
    assert other.verdict != "completed", why(other)
    review = transfer_run(tmp_path / "review", "249.90", confirm=False)
    assert review.verdict != "completed", why(review)


def test_a_transfer_of_a_total_a_quoted_item_names_is_described_content(tmp_path):
    """Before: "transfer" was no entry verb, and a description with a quoted name in it ("the total of your FinPortal
    draft "X"") was none: the right transfer was undecided."""
    goal = 'Transfer the total of your FinPortal draft "Audit visit Zurich" from your checking account to Noah ' \
           'Ivanova with the reference "Ticket refund".'  # fmt: skip
    draft = ["Audit visit Zurich", "Hotel  180.00", "Meals  69.90", "Total  249.90"]
    right = transfer_run(tmp_path / "right", "249.90", goal=goal, first=draft)
    assert right.verdict == "completed", why(right)
    other = transfer_run(tmp_path / "other", "180.00", goal=goal, first=draft)  # one line of it, not the total
    assert other.verdict != "completed", why(other)


# ---- a line added at a document's end, described ----------------------------------------------------------------

ROWS = ["Everyday Checking", "8 Mar  SKYLINE AIRWAYS  TX55012345", "9 Mar  CITY PARKING  TX55099999"]


def described_append_run(folder, typed: str, goal: str = "", source: S | None = None):
    goal = goal or 'Add the bank reference of the SKYLINE AIRWAYS payment on 2024-03-08 at the end of the document ' \
                   '"Retro notes.docx" and save it.'  # fmt: skip
    url, title = f"{APP}/drive/f/8", "Retro notes.docx · Drive"
    body = ["Save", "1. Goals", "2. Milestones"]
    steps = [source or S(screen(ROWS), Click(point=Point(0.05, 0.95)), f"{APP}/bank/a/1", "Everyday Checking"),
             S(screen(body), Click(point=Point(0.3, 0.55)), url, title),
             S(screen(body), Type(content=typed), url, title),
             S(screen([*body, typed]), Click(point=middle(0, "Save")), url, title),
             S(screen(["Save", *body[1:], typed, "Saved."]), Finished(content="Done."), url, title)]  # fmt: skip
    return verify(record(folder, steps, goal))


def test_a_described_line_at_a_documents_end_is_the_value_its_description_names(tmp_path):
    """Before: only a quoted line ("Add the line "X" …") was checked; a described one was undecided."""
    right = described_append_run(tmp_path / "right", "TX55012345")
    assert right.verdict == "completed", why(right)
    other = described_append_run(tmp_path / "other", "TX55099999")  # the reference of another day's payment
    assert other.verdict != "completed", why(other)


def test_a_described_line_may_name_its_source_by_a_quoted_item(tmp_path):
    """Before: a description holding a quoted name ("the start time of "Analytics office hours" in your calendar")
    was no described line, and that name was taken for the document's: the right run was undecided. Found on a
    training-split episode (seed 7)."""
    goal = 'Add the start time of "Analytics office hours" in your calendar at the end of the document ' \
           '"Retro notes.docx" and save it.'  # fmt: skip
    event = S(screen(["Analytics office hours", "Thu 14 Mar", "Starts 08:30", "Ends 09:30"]),
              Click(point=Point(0.05, 0.95)), f"{APP}/calendar/e/4", "Analytics office hours")  # fmt: skip
    right = described_append_run(tmp_path / "right", "08:30", goal, event)
    assert right.verdict == "completed", why(right)
    end = described_append_run(tmp_path / "end", "09:30", goal, event)  # the end time, not the start
    assert end.verdict != "completed", why(end)


# ---- a quantity changed in the cart ------------------------------------------------------------------------------


def cart(count: int) -> bytes:
    """A cart with one item: its name, and under it the quantity between − and + buttons, then Remove."""
    img = Image.new("RGB", SIZE, "white")
    draw = ImageDraw.Draw(img)
    font = ImageFont.load_default(size=24)
    draw.text((30, 30), "Cart", fill="black", font=font)
    draw.text((30, 80), "Juniper Desk Plant", fill="black", font=font)
    for x, text in ((30, "-"), (80, str(count)), (130, "+"), (200, "Remove")):
        draw.text((x, 130), text, fill="black", font=font)
    return png(img)


def cart_run(folder, clicks: int, goal: str = "Change the quantity of the Juniper Desk Plant in your cart from one to two."):
    url, plus = f"{APP}/shop/cart", Point(137 / SIZE[0], 142 / SIZE[1])
    steps = [S(cart(1 + i), Click(point=plus), url, "Cart") for i in range(clicks)]
    steps.append(S(cart(1 + clicks), Finished(content="Done."), url, "Cart"))
    return verify(record(folder, steps, goal))


def test_a_cart_quantity_changed_to_the_count_asked_is_done_and_another_count_is_not(tmp_path):
    """Before: no rule read a cart's quantity, so the change was undecided."""
    right = cart_run(tmp_path / "two", 1)
    assert right.verdict == "completed", why(right)
    three = cart_run(tmp_path / "three", 2)
    assert three.verdict != "completed", why(three)
    assert "not 2" in why(three)
    assert cart_run(tmp_path / "none", 0).verdict != "completed"  # never changed: still 1


def test_a_chinese_quantity_the_cart_needs_is_the_count_asked(tmp_path):
    """Before: "购物车里的“X”需要 2 件" named no change (only 改成/改为 … did), so the run was undecided."""
    goal = "购物车里的“Juniper Desk Plant”需要 2 件，而不是 1 件，请修改数量。"
    right = cart_run(tmp_path / "two", 1, goal)
    assert right.verdict == "completed", why(right)
    three = cart_run(tmp_path / "three", 2, goal)
    assert three.verdict != "completed" and "not 2" in why(three), why(three)


def test_a_cart_quantity_is_not_met_by_typing_the_items_name_into_a_form(tmp_path):
    """Before: the item's name counted as a value to type, so a mail with "Juniper Desk Plant" in its To line, sent,
    was `completed` (found on a fresh training sample)."""
    goal = "Change the quantity of the Juniper Desk Plant in your cart from one to two."
    url, title = f"{APP}/mail/compose", "New message"
    page = ["New message", "To:", "Subject:", "Send"]
    steps = [S(screen(page), Click(point=middle(1, "To:")), url, title),
             S(screen(page), Type(content="Juniper Desk Plant"), url, title),
             S(screen(["New message", "To: Juniper Desk Plant", "Subject:", "Send"]), Click(point=middle(3, "Send")),
               url, title),
             S(screen(["Inbox", "Message sent."]), Finished(content="Done."), f"{APP}/mail/inbox?flash=sent",
               "Inbox")]  # fmt: skip
    report = verify(record(tmp_path, steps, goal))
    assert report.verdict != "completed", why(report)


# ---- one item put in the cart ------------------------------------------------------------------------------------


def add_run(folder, page: str):
    goal = "Put one Gel Pens (10) in your shopping cart."
    url = f"{APP}/shop/p/{len(page)}"
    steps = [S(screen([page, "4.90", "Add to cart"]), Click(point=middle(2, "Add to cart")), url, page),
             S(screen([page, "4.90", "Add to cart", "Added to cart."]), Finished(content="Done."), url, page)]
    return verify(record(folder, steps, goal))


def test_one_item_added_to_the_cart_on_its_page_is_done_and_another_item_is_not(tmp_path):
    """Before: "Put one X in your shopping cart" matched no rule, so the run was undecided."""
    right = add_run(tmp_path / "right", "Gel Pens (10)")
    assert right.verdict == "completed", why(right)
    other = add_run(tmp_path / "other", "Gel Pens (24)")
    assert other.verdict != "completed", why(other)


def test_money_moved_without_a_figure_names_no_value_to_type():
    """"Pay her your share (the total divided by the number of people)": the context's names are no values to type (a
    draft of these rules made them so, and a later reply's text `contradicted` a right payment). Without a figure the
    amount is described, and no entry rule settles it; the rest of a described transfer is checked as a sent form."""
    assert P.entry_values("Pay her your share (the total divided by the number of people) (Lena paid the dinner)") == []
    assert P.entry_values("Send Sofia Rossi the money I owe her") == []
    assert P.entry_values("Send the amount 40 to Noah Ivanova") == ["40", "Noah Ivanova"]
