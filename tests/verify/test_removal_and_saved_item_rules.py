"""Acts the rules left undecided (or failed wrongly) on synthesised and bundled training tasks, and answers they
credited wrongly on a fresh training sample: a Chinese delete (a file's row, a post behind a confirmation), "keep
your other posts", an attachment saved to Drive (in Chinese, or with a button whose label wraps) and then opened from
Drive, a cart item removed with a button below its name, a Chinese cart quantity, a file name whose dot OCR reads as
a dash, a filtered list and the figure it ranks, an order placed with its item, address and options, a count read
from a table's cell; and the answers that are no answer: the day of a date, a field's own placeholder, the apps'
frame. Side effects: the "Trash" folder's link is no deletion, and "back from Trash" asks for none. Each test's near
misses must not be credited. Drawn screens, read by the real OCR. Every test fails on the rules before the change
that added it."""

from __future__ import annotations

from PIL import Image, ImageDraw, ImageFont
from verify_helpers import S, cjk_font_path, png, record, screen, why, zh_screen
from verify_helpers import verify_rules as verify

from venuskit.actions.types import Click, Finished, Point, PressEnter, Type
from venuskit.verify import text as T

APP = "http://127.0.0.1:8000"
SIZE = (640, 400)


def zh_at(line: int, text: str) -> Point:
    """The centre of `text` drawn by `zh_screen` as line `line` (26 px CJK font, at x 30, y 30 + 50 line)."""
    width = ImageFont.truetype(cjk_font_path(), 26).getlength(text)
    return Point((30 + width / 2) / SIZE[0], (30 + 50 * line + 15) / SIZE[1])


# ---- a Chinese delete ---------------------------------------------------------------------------------------------

FILES = ["我的云盘", "旧版标志草稿.pdf", "入职清单.docx", "团建议程.pdf"]


def trash_run(folder, pick: int):
    """Click file row `pick` on Drive's list; the next screen lacks it and says it went to the trash."""
    after = [f for i, f in enumerate(FILES) if i != pick] + ["文件已移至回收站。"]
    url, title = f"{APP}/drive/", "我的云盘 · 林晓"
    steps = [S(zh_screen(FILES), Click(point=zh_at(pick, FILES[pick])), url, title),
             S(zh_screen(after), Finished(content=""), url, title)]  # fmt: skip
    return verify(record(folder, steps, "从云盘删除文件“旧版标志草稿.pdf”。"))


def test_a_chinese_delete_of_the_file_is_done_and_of_another_file_is_not(tmp_path):
    """Before: "删除" was no removal, so the file missing after the click made the keypoint `contradicted`."""
    right = trash_run(tmp_path / "right", 1)
    assert right.verdict == "completed", why(right)
    other = trash_run(tmp_path / "other", 2)
    assert other.verdict == "failed", why(other)


POST = "免费送：书架"


def delete_post_run(folder, confirm: bool, extra: bool = False):
    """On the post's page click 删除帖子; on the confirmation click 删除 (or stop there); with `extra`, delete another
    post of the user's as well."""
    goal = f"删除你在论坛发的帖子“{POST}”，东西已经送出去了。保留你的其他帖子。"
    post, ask = ["北风同事圈", POST, "删除帖子"], ["确定删除这条帖子？", POST, "删除", "取消"]
    group = ["北风同事圈", "周末读书会", "咖啡机求推荐"]
    steps = [S(zh_screen(post), Click(point=zh_at(2, "删除帖子")), f"{APP}/forum/p/23", f"{POST} · 林晓")]
    ask_url, ask_title = f"{APP}/forum/p/23/delete", "删除帖子 · 林晓"
    if not confirm:
        steps.append(S(zh_screen(ask), Finished(content=""), ask_url, ask_title))
        return verify(record(folder, steps, goal))
    steps.append(S(zh_screen(ask), Click(point=zh_at(2, "删除")), ask_url, ask_title))
    if extra:  # another of the user's posts deleted from its own page
        steps += [S(zh_screen(group), Click(point=zh_at(1, "周末读书会")), f"{APP}/forum/g/7", "北风同事圈 · 林晓"),
                  S(zh_screen(["周末读书会", "删除帖子"]), Click(point=zh_at(1, "删除帖子")), f"{APP}/forum/p/31",
                    "周末读书会 · 林晓"),
                  S(zh_screen(["确定删除这条帖子？", "周末读书会", "删除"]), Click(point=zh_at(2, "删除")),
                    f"{APP}/forum/p/31/delete", "删除帖子 · 林晓")]  # fmt: skip
        group = ["北风同事圈", "咖啡机求推荐"]
    steps.append(S(zh_screen(group), Finished(content=""), f"{APP}/forum/g/7", "北风同事圈 · 林晓"))
    return verify(record(folder, steps, goal))


def test_a_chinese_post_deleted_through_its_confirmation_is_done_and_a_confirmation_left_open_is_not(tmp_path):
    """Before: "删除" was no one-click verb in Chinese, and "保留你的其他帖子" no keypoint any rule decided."""
    right = delete_post_run(tmp_path / "right", confirm=True)
    assert right.verdict == "completed", why(right)
    assert "no click deleted anything the goal does not name" in why(right)
    left = delete_post_run(tmp_path / "left", confirm=False)  # the dialog's own page is no deletion
    assert left.verdict != "completed", why(left)
    more = delete_post_run(tmp_path / "more", confirm=True, extra=True)  # another post of the user's went too
    assert more.verdict == "failed", why(more)


# ---- an attachment saved to Drive, then opened from Drive ------------------------------------------------------------

MAIL = ["会议门票", "开发者大会门票.pdf", "保存到云盘"]
DRIVE = ["我的云盘", "开发者大会门票.pdf", "入职清单.docx"]


def save_attachment_run(folder, said: bool = True, opened: int = 1):
    """Click 保存到云盘 on the mail's page (the page then says so, or not), go to Drive, open file line `opened`."""
    goal = "把邮件“会议门票”的附件保存到云盘，然后在云盘中打开确认。"
    mail_url, mail_title = f"{APP}/mail/m/45", "会议门票 · 林晓"
    after = [*MAIL, "已保存到云盘"] if said else MAIL
    steps = [S(zh_screen(MAIL), Click(point=zh_at(2, "保存到云盘")), mail_url, mail_title),
             S(zh_screen(after), Click(point=Point(0.9, 0.9)), mail_url, mail_title),
             S(zh_screen(DRIVE), Click(point=zh_at(opened, DRIVE[opened])), f"{APP}/drive/", "我的云盘 · 林晓"),
             S(zh_screen([DRIVE[opened], "下载"]), Finished(content=""), f"{APP}/drive/f/9",
               f"{DRIVE[opened]} · 林晓")]  # fmt: skip
    return verify(record(folder, steps, goal))


def test_an_attachment_saved_to_drive_and_opened_there_is_done_and_another_file_or_no_word_is_not(tmp_path):
    """Before: neither the Chinese save nor "open it from Drive" was a keypoint any rule decided."""
    right = save_attachment_run(tmp_path / "right")
    assert right.verdict == "completed", why(right)
    other = save_attachment_run(tmp_path / "other", opened=2)  # another file opened
    assert other.verdict != "completed", why(other)
    silent = save_attachment_run(tmp_path / "silent", said=False)  # the page never said it was saved
    assert silent.verdict != "completed", why(silent)


def wrapped_button(lines: list[str], label: tuple[str, str]) -> bytes:
    """`screen`'s lines, and a narrow button whose label wraps: its two words stacked 23 px apart at x 400."""
    img = Image.open(__import__("io").BytesIO(screen(lines))).convert("RGB")
    draw, font = ImageDraw.Draw(img), ImageFont.load_default(size=22)
    draw.rectangle((390, 190, 500, 260), outline="gray")
    draw.text((400, 196), label[0], fill="black", font=font)
    draw.text((400, 219), label[1], fill="black", font=font)
    return png(img)


def test_a_save_button_whose_label_wraps_is_read_whole(tmp_path):
    """Before: the text under the click was "Drive" alone, which does not start with the verb "save"."""
    goal = 'Save the attachment of the email "Contract renewal" to Drive.'
    page = ["Contract renewal", "Quote_Q-8817.pdf"]
    at = Point(425 / SIZE[0], 233 / SIZE[1])  # on "Drive", the button's second line
    url, title = f"{APP}/mail/m/45", "Contract renewal · Alex Morgan"

    def run(folder, said: bool):
        after = [*page, "", "", "", "Saved to Drive" if said else ""]
        steps = [S(wrapped_button(page, ("Save to", "Drive")), Click(point=at), url, title),
                 S(wrapped_button(after, ("Save to", "Drive")), Finished(content=""), url, title)]  # fmt: skip
        return verify(record(folder, steps, goal))

    right = run(tmp_path / "right", said=True)
    assert right.verdict == "completed", why(right)
    silent = run(tmp_path / "silent", said=False)
    assert silent.verdict != "completed", why(silent)


# ---- a cart: an item removed with a button below its name, a Chinese quantity -------------------------------------


def cart_run(folder, drop: str, plus: bool = True):
    """Remove `drop` with the 移除 button under its name, then (with `plus`) raise the other item from 1 to 2."""
    goal = "在购物车里删掉“冰川滑雪镜”，把“冰川羊毛袜”改成 2 件。"
    keep = "冰川羊毛袜" if drop == "冰川滑雪镜" else "冰川滑雪镜"
    url, title = f"{APP}/shop/cart", "购物车 · 林晓"
    steps = [S(zh_screen(["购物车", keep, "1", drop, "移除"]), Click(point=zh_at(4, "移除")), url, title)]
    if plus:
        steps.append(S(zh_screen(["购物车", keep, "1", "+"]), Click(point=zh_at(3, "+")), url, title))
    steps.append(S(zh_screen(["购物车", keep, "2" if plus else "1", "+"]), Finished(content=""), url, title))
    return verify(record(folder, steps, goal))


def test_a_cart_item_removed_and_a_chinese_quantity_raised_is_done_and_near_misses_are_not(tmp_path):
    """Before: the 移除 click was a side effect (the cart's title names no item), and "改成 2 件" no quantity."""
    right = cart_run(tmp_path / "right", "冰川滑雪镜")
    assert right.verdict == "completed", why(right)
    kept = cart_run(tmp_path / "kept", "冰川滑雪镜", plus=False)  # the socks left at 1
    assert kept.verdict != "completed", why(kept)
    wrong = cart_run(tmp_path / "wrong", "冰川羊毛袜", plus=False)  # the socks removed instead of the goggles
    assert wrong.verdict != "completed", why(wrong)


def test_a_file_names_dot_read_as_a_dash_is_still_the_file():
    """OCR reads "（已签署）.pdf" as "（已签署)" and "-pdf"; an amount's minus sign stays a minus sign."""
    assert T.ocr_contains("Atlas保密协议\n（已签署)\n-pdf\n08:30", "Atlas 保密协议（已签署）.pdf")
    assert not T.ocr_contains("Atlas保密协议\n（已签署)\n-pdf", "Atlas 保密协议（草稿）.pdf")
    assert not T.ocr_contains("-312.80", "312.80 EUR")


# ---- a list filtered, and the figure it ranks -------------------------------------------------------------------

FILTER_GOAL = ("Show only the money coming in on your checking account since 2024-03-01, and tell me the largest "
               "incoming amount.")
ROWS = [("1 Mar", "SALARY", "4,200.00"), ("5 Mar", "REFUND SHOP", "35.20"), ("9 Mar", "INTEREST", "12.05")]


def account_screen(form: bool) -> bytes:
    """An account page: its balance under a label, a filter form, and the transactions with a right-aligned Amount
    column."""
    img = Image.new("RGB", SIZE, "white")
    draw, font = ImageDraw.Draw(img), ImageFont.load_default(size=20)

    def right(x: int, y: int, text: str) -> None:
        draw.text((x - font.getlength(text), y), text, fill="black", font=font)

    draw.text((30, 20), "Everyday Checking", fill="black", font=font)
    draw.text((30, 60), "Balance", fill="black", font=font)
    draw.text((30, 88), "9,185.63", fill="black", font=font)
    draw.text((300, 60), "From  2024-03-01" if form else "From", fill="black", font=font)
    draw.text((300, 95), "Filter", fill="black", font=font)
    draw.text((250, 170), "Date", fill="black", font=font)
    draw.text((340, 170), "Description", fill="black", font=font)
    right(610, 170, "Amount")
    for i, (day, what, amount) in enumerate(ROWS if form else [*ROWS, ("2 Mar", "RENT", "-1,150.00")]):
        y = 210 + 40 * i
        draw.text((250, y), day, fill="black", font=font)
        draw.text((340, y), what, fill="black", font=font)
        right(610, y, amount)
    return png(img)


def filter_run(folder, answer: str, query: str = "from=2024-03-01&dir=in"):
    """Type the date, click Filter; the page's URL then carries `query`; answer `answer`."""
    base, title = f"{APP}/bank/a/1", "Everyday Checking · Alex Morgan"
    steps = [S(account_screen(False), Click(point=Point(330 / SIZE[0], 106 / SIZE[1])), base, title),
             S(account_screen(True), Finished(content=answer), f"{base}?{query}", title)]  # fmt: skip
    return verify(record(folder, steps, FILTER_GOAL))


def test_a_filtered_list_and_its_largest_figure_are_done_and_the_balance_or_a_smaller_figure_are_not(tmp_path):
    """Before: the filter was no keypoint any rule decided, and any figure seen on a screen answered "the largest"."""
    right = filter_run(tmp_path / "right", "4,200.00")
    assert right.verdict == "completed", why(right)
    balance = filter_run(tmp_path / "balance", "9,185.63")  # on screen, but it is no incoming amount
    assert balance.verdict != "completed", why(balance)
    smaller = filter_run(tmp_path / "smaller", "35.20")  # in the column, but not its largest
    assert smaller.verdict != "completed", why(smaller)
    assert "also shows 4200" in why(smaller)
    unfiltered = filter_run(tmp_path / "unfiltered", "4,200.00", query="from=2024-03-01")  # no direction chosen
    assert unfiltered.verdict != "completed", why(unfiltered)


# ---- an order placed with its options ----------------------------------------------------------------------------

BUY_GOAL = "Buy one Juniper Desk Plant with standard delivery to your home address, paid with your saved Visa card."
CHECKOUT = ["Checkout", "Home · Alex Morgan", "12 Elm Street, 10115 Berlin", "Office · Alex Morgan",
            "Northwind Labs, 5 Dock Road", "Place order"]  # fmt: skip


def order_run(folder, item: str = "Juniper Desk Plant", ship: str = "12 Elm Street, 10115 Berlin",
              delivery: str = "Standard delivery", placed: bool = True):  # fmt: skip
    """Click Place order on the checkout screen; the order's page then shows what was ordered, where and how."""
    url, title = f"{APP}/shop/checkout", "Checkout · Alex Morgan"
    width = ImageFont.load_default(size=24).getlength("Place order")
    place = Point((30 + width / 2) / SIZE[0], (30 + 50 * 5 + 12) / SIZE[1])  # `screen` draws line i at y 30 + 50 i
    steps = [S(screen(CHECKOUT), Click(point=place) if placed else Finished(content=""), url, title)]
    if placed:
        order = ["Order #50001", item, "Quantity: 1 · 24.90 each", f"Ship to: {ship}", f"Delivery: {delivery}",
                 "Paid with: Visa ending in 4821", "Thank you! Your order has been placed."]  # fmt: skip
        steps.append(S(screen(order), Finished(content=""), f"{APP}/shop/o/5", "Order #50001 · Alex Morgan"))
    return verify(record(folder, steps, BUY_GOAL))


def test_an_order_with_the_asked_item_address_and_options_is_done_and_near_misses_are_not(tmp_path):
    """Before: no rule decided an order, so a right purchase was never an SFT row."""
    right = order_run(tmp_path / "right")
    assert right.verdict == "completed", why(right)
    express = order_run(tmp_path / "express", delivery="Express delivery")
    assert express.verdict != "completed", why(express)
    office = order_run(tmp_path / "office", ship="Northwind Labs, 5 Dock Road")
    assert office.verdict != "completed", why(office)
    other = order_run(tmp_path / "other", item="Marlin Notebook Set")
    assert other.verdict != "completed", why(other)
    left = order_run(tmp_path / "left", placed=False)
    assert left.verdict != "completed", why(left)


# ---- answers: a table's cell, a figure inside a date, a field's placeholder -----------------------------------------

SHEET_GOAL = 'Open the spreadsheet "Office inventory.xlsx". How many Monitors are in stock? Answer with the number.'


def sheet_screen() -> bytes:
    """A sheet: a header line with the day, then an Item / In stock table, each cell its own OCR line."""
    img = Image.new("RGB", SIZE, "white")
    draw, font = ImageDraw.Draw(img), ImageFont.load_default(size=20)
    draw.text((400, 10), "Thu, 14 Mar 2024", fill="black", font=font)
    draw.text((30, 50), "Office inventory.xlsx", fill="black", font=font)
    for i, (item, stock) in enumerate([("Item", "In stock"), ("Laptops", "9"), ("Monitors", "17"), ("Headsets", "31")]):
        draw.text((60, 110 + 40 * i), item, fill="black", font=font)
        draw.text((260, 110 + 40 * i), stock, fill="black", font=font)
    return png(img)


def sheet_run(folder, answer: str):
    drive = screen(["My Drive", "Office inventory.xlsx"])
    steps = [S(drive, Click(point=Point(0.3, 0.2)), f"{APP}/drive/", "My Drive · Alex Morgan"),
             S(sheet_screen(), Finished(content=answer), f"{APP}/drive/f/8", "Office inventory.xlsx · Alex Morgan")]
    return verify(record(folder, steps, SHEET_GOAL))


def test_a_count_read_from_its_table_cell_is_done_and_the_day_of_a_date_or_another_row_is_not(tmp_path):
    """Before: "17" stood only as a figure on its own, which the rules could not tell from a badge; and "14", the day
    in the page's header, would have been credited as soon as the cell was."""
    right = sheet_run(tmp_path / "right", "17")
    assert right.verdict == "completed", why(right)
    day = sheet_run(tmp_path / "day", "14")
    assert day.verdict != "completed", why(day)
    other = sheet_run(tmp_path / "other", "31")  # the Headsets row
    assert other.verdict != "completed", why(other)


def test_an_answer_that_is_the_placeholder_of_the_field_the_agent_typed_into_is_no_answer(tmp_path):
    """The agent typed the code into "Search mail" and answered with the box's own placeholder."""
    goal = 'Search your mail for "PRJ-7741". What is the subject of the message that mentions it? Answer with the subject.'
    inbox = ["Search mail", "Inbox", "Access request approved", "Lunch on Friday"]
    box = Point((30 + ImageFont.load_default(size=24).getlength("Search mail") / 2) / SIZE[0], 42 / SIZE[1])
    url, title = f"{APP}/mail/inbox", "Inbox · Alex Morgan"

    def run(folder, answer: str):
        steps = [S(screen(inbox), Click(point=box), url, title), S(screen(inbox), Type(content="PRJ-7741"), url, title),
                 S(screen(["PRJ-7741", "Inbox", "Access request approved"]), PressEnter(), url, title),
                 S(screen(inbox), Finished(content=answer), url, title)]  # fmt: skip
        return verify(record(folder, steps, goal))

    placeholder = run(tmp_path / "placeholder", "Search mail")
    assert placeholder.verdict != "completed", why(placeholder)
    assert "placeholder" in why(placeholder)
    right = run(tmp_path / "right", "Access request approved")
    assert "placeholder" not in why(right)


# ---- side effects: a folder's link, and "back from Trash" --------------------------------------------------------------


def test_a_trash_folder_link_is_no_deletion_and_back_from_trash_asks_for_none(tmp_path):
    """Before: a click on the sidebar's "Trash" link was a deletion (a wrong `failed`), and "bring … back from Trash"
    counted as a goal that asks for deletions, so a file trashed on the way was no side effect (a wrong `completed`)."""
    goal = 'Bring the email "Quarterly OKR check-in" back from Trash to the inbox.'
    inbox, trash = ["Inbox", "Lunch on Friday", "Trash"], ["Trash", "Quarterly OKR check-in"]
    mail = ["Quarterly OKR check-in", "Restore"]

    def run(folder, detour: bool):
        steps = []
        if detour:  # a file trashed from Drive on the way, which the goal never asked for
            files = ["My Drive", "Expense guide.pdf", "Team budget.xlsx", "Warranty card.pdf"]
            steps += [S(screen(files), Click(point=Point(0.3, 98 / SIZE[1])), f"{APP}/drive/", "My Drive · Alex Morgan"),
                      S(screen([files[0], *files[2:], "File moved to Trash."]), Click(point=Point(0.9, 0.9)),
                        f"{APP}/drive/", "My Drive · Alex Morgan")]  # fmt: skip
        width = ImageFont.load_default(size=24).getlength
        steps += [S(screen(inbox), Click(point=Point((30 + width("Trash") / 2) / SIZE[0], 142 / SIZE[1])),
                    f"{APP}/mail/inbox", "Inbox · Alex Morgan"),
                  S(screen(trash), Click(point=Point(0.2, 92 / SIZE[1])), f"{APP}/mail/trash", "Trash · Alex Morgan"),
                  S(screen(mail), Click(point=Point((30 + width("Restore") / 2) / SIZE[0], 92 / SIZE[1])),
                    f"{APP}/mail/m/7", "Quarterly OKR check-in · Alex Morgan"),
                  S(screen(["Trash", "Email restored."]), Finished(content=""), f"{APP}/mail/trash",
                    "Trash · Alex Morgan")]  # fmt: skip
        return verify(record(folder, steps, goal))

    right = run(tmp_path / "right", detour=False)
    assert right.verdict == "completed", why(right)
    detour = run(tmp_path / "detour", detour=True)
    assert detour.verdict == "failed", why(detour)


def test_an_answer_read_from_the_apps_fixed_frame_is_no_answer_and_a_count_in_a_fixed_place_still_is(tmp_path):
    """The avatar's letter "林" stands in the same place on every page: no one's name. A figure in a fixed place
    (a product's "only 3 left") keeps its credit."""
    goal = "是谁发邮件问你停车证的事？请回答此人的全名。"
    inbox, mail = ["林", "收件箱", "周婷  停车证申请"], ["林", "停车证申请", "周婷 <zhou.ting@northwind.example>"]

    def run(folder, answer: str):
        steps = [S(zh_screen(inbox), Click(point=zh_at(2, "周婷  停车证申请")), f"{APP}/mail/inbox", "收件箱 · 林晓"),
                 S(zh_screen(mail), Finished(content=answer), f"{APP}/mail/m/3", "停车证申请 · 林晓")]  # fmt: skip
        return verify(record(folder, steps, goal))

    avatar = run(tmp_path / "avatar", "林")
    assert avatar.verdict != "completed", why(avatar)
    assert "frame" in why(avatar) or "person's name" in why(avatar)  # one character is no one's full name either
    right = run(tmp_path / "right", "周婷")
    assert right.verdict == "completed", why(right)
    stock = 'How many "Aurora Vase" are left in stock? Answer with the number.'
    page = ["Aurora Vase", "Only 3 left in stock", "Add to cart"]
    steps = [S(screen(["Shop", "Aurora Vase"]), Click(point=Point(0.2, 92 / SIZE[1])), f"{APP}/shop/", "Shop"),
             S(screen(page), Finished(content="3"), f"{APP}/shop/p/4", "Aurora Vase · Alex Morgan")]  # fmt: skip
    counted = verify(record(tmp_path / "stock", steps, stock))
    assert "frame" not in why(counted)
