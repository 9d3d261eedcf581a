"""From a fresh Chinese training sample: a figure is the value of the label it stands under when it stands alone on
its row (an account card's name above its balance), so a balance read off another card is no answer; a number read
off a search list's row of another sender, beside the row of the sender the question names, is no answer either."""

from __future__ import annotations

from pathlib import Path

from PIL import Image, ImageDraw, ImageFont
from verify_helpers import S, cjk_font_path, placed, png, screen, verdict_of

from venuskit.actions.types import Click, Finished, Point

BASE = "http://127.0.0.1:8000"
SIZE = (640, 400)
CARDS = [("日常活期账户", "€8,869.28"), ("储蓄账户", "€12,800.00"), ("信用卡", "-€1,014.28")]
CARDS_EN = [("Everyday Checking", "€8,869.28"), ("Savings", "€12,800.00"), ("Credit card", "-€1,014.28")]


def _cards(cards: list[tuple[str, str]]) -> bytes:
    """Account cards: each name in small type, its balance alone on the line below in large type."""
    img = Image.new("RGB", SIZE, "white")
    draw = ImageDraw.Draw(img)
    small, large = (ImageFont.truetype(cjk_font_path(), size, index=2) for size in (20, 34))
    for i, (name, balance) in enumerate(cards):
        draw.text((30, 20 + 125 * i), name, fill="black", font=small)
        draw.text((30, 60 + 125 * i), balance, fill="black", font=large)
    return png(img)


def _balance(tmp: Path, answer: str, cards: list[tuple[str, str]], goal: str) -> tuple[str, str]:
    """The cards page, then the page of the account whose balance is `answer` (its name as a heading, the balance
    under a label that every account's page shows), then the answer."""
    name, balance = next((n, b) for n, b in cards if b.endswith(answer))
    label = "余额" if "账户" in cards[0][0] else "Balance"
    account = _cards([(name, ""), (label, balance)])
    url, title = f"{BASE}/bank/", "账户 · 林晓"
    steps = [S(_cards(cards), Click(point=Point(0.3, 0.36 if name == cards[1][0] else 0.05)), url, title),
             S(account, Finished(content=answer), f"{url}a/1", title)]  # fmt: skip
    return verdict_of(tmp, steps, goal)


def test_a_balance_is_the_figure_under_the_card_the_question_names(tmp_path: Path):
    goal = "你的储蓄账户现在余额是多少？请回答金额。"
    right = _balance(tmp_path / "right", "12,800.00", CARDS, goal)
    assert right[0] == "completed", right
    other = _balance(tmp_path / "checking", "8,869.28", CARDS, goal)  # the everyday account's card
    assert other[0] == "failed" and "储蓄账户" in other[1], other
    english = "What is the current balance of your savings account? Answer with the amount."
    right_en = _balance(tmp_path / "right_en", "12,800.00", CARDS_EN, english)
    assert right_en[0] == "completed", right_en
    other_en = _balance(tmp_path / "checking_en", "8,869.28", CARDS_EN, english)
    assert other_en[0] == "failed" and "Savings" in other_en[1], other_en


ORDER_GOAL = "包裹侠 发来的发货确认邮件里的订单号是多少？请回答订单号。"


def _text(texts: list[tuple[int, int, str]]) -> bytes:
    return placed(texts, (800, 400), 20)


def _order_number(tmp: Path, answer: str, *, open_it: bool) -> tuple[str, str]:
    """A mail search for the sender 包裹侠: other senders' mails quote one order number, 包裹侠's own row another;
    answered from the list, or after opening 包裹侠's mail."""
    rows = [("王静", "您的包裹已发货 — 您的订单 #48213 已发货", "3月12日"), ("包裹侠", "Shipped: your order PX-77120", "3月11日"),
            ("吴勇", "您的包裹已发货 — 您的订单 #48213 已发货", "3月5日")]  # fmt: skip
    found = _text([(30, 20, "“包裹侠”的搜索结果")] + [(x, 70 + 50 * i, t) for i, row in enumerate(rows)
                                                   for x, t in zip((30, 130, 680), row, strict=True)])  # fmt: skip
    url, title = "http://127.0.0.1:8000/mail/inbox?q=包裹侠", "收件箱 · 林晓"
    steps = [S(found, Click(point=Point(0.3, 0.3)), url, title)]
    if open_it:
        mail = _text([(30, 20, "Shipped: your order PX-77120"), (30, 70, "发件人：包裹侠"),
                      (30, 120, "Good news! Your order PX-77120 is on its way.")])  # fmt: skip
        steps.append(S(mail, Finished(content=answer), "http://127.0.0.1:8000/mail/m/2", title))
    else:
        steps.append(S(found, Finished(content=answer), url, title))
    return verdict_of(tmp, steps, ORDER_GOAL)


def test_a_number_is_read_off_the_row_of_the_sender_the_question_names(tmp_path: Path):
    right = _order_number(tmp_path / "right", "PX-77120", open_it=True)
    assert right[0] == "completed", right
    other = _order_number(tmp_path / "other_sender", "#48213", open_it=False)
    assert other[0] == "failed" and "包裹侠" in other[1], other


def test_a_total_with_shipping_included_is_the_total_row_not_the_shipping_row(tmp_path: Path):
    """"Shipping" in the question names a part of what is asked, not whose it is: the Total row stays the answer's."""
    goal = "What is the total of order #70422, shipping included? Answer with the amount."
    page = screen(["Order #70422", "Subtotal   14.90", "Shipping   9.90", "Total   24.80"])
    url, title = f"{BASE}/shop/orders/70422", "Order #70422 · Alex Morgan"

    def answer(value: str) -> tuple[str, str]:
        steps = [S(page, Click(point=Point(0.1, 0.1)), url, title), S(page, Finished(content=value), url, title)]
        return verdict_of(tmp_path / value, steps, goal)

    right = answer("24.80")
    assert right[0] == "completed", right
    subtotal = answer("14.90")
    assert subtotal[0] != "completed", subtotal
