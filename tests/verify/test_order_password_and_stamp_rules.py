"""What the rules credited wrongly, or left undecided, on a fresh training sample (seed 8) read after it was scored:
an order "placed" by typing the item's name into the shop's price filter, a new password typed where it shows (an
event's form), a Chinese question for a total answered with one line's amount, a time asked from a post answered
with the post's own time stamp, a Chinese start time asked "in HH:MM" answered with the range's end, and an order
whose checkout address OCR cut at a comma. Each test's near misses must not be credited. Drawn screens, read by the
real OCR. Every test fails on the rules before the change that added it."""

from __future__ import annotations

from PIL import Image, ImageDraw, ImageFont
from verify_helpers import S, cjk_font_path, middle, png, record, screen, why, zh_screen
from verify_helpers import verify_rules as verify

from venuskit.actions.types import Click, Finished, Point, Type

APP = "http://127.0.0.1:8000"
SIZE = (640, 400)


# ---- an order is a click, never a typed name --------------------------------------------------------------------

ZH_ORDER_GOAL = "为公司订 1 件“极光白板笔”：寄到已保存的公司地址，选标准配送，用 Visa 支付。"


def test_an_item_name_typed_into_the_price_filter_orders_nothing(tmp_path):
    """Before: the order keypoint was met as a submitted form: the item's name typed into the price filter, "应用"
    clicked, and the results page's title named "Visa" (searched before), so the run was `completed`."""
    url, title = f"{APP}/shop/?q=Visa", "“Visa”的搜索结果 · 林晓"
    shop = ["“Visa”的搜索结果", "价格 最低", "应用"]
    steps = [S(zh_screen(shop), Click(point=Point(0.3, 0.2)), url, title),
             S(zh_screen(shop), Type(content="极光白板笔"), url, title),
             S(zh_screen(shop), Click(point=Point(0.1, 0.33)), url, title),
             S(zh_screen(["没有结果"]), Finished(content=""), f"{url}&min=极光白板笔&stock=1", title)]  # fmt: skip
    report = verify(record(tmp_path, steps, ZH_ORDER_GOAL))
    assert report.keypoints[0].status != "satisfied", why(report)
    assert report.verdict != "completed", why(report)


def zh_checkout(split: bool) -> bytes:
    """The checkout: "公司 · 林晓" over its address, which OCR reads as two boxes when `split` (a gap after the
    comma), then Place order."""
    img = Image.new("RGB", SIZE, "white")
    draw, font = ImageDraw.Draw(img), ImageFont.truetype(cjk_font_path(), 26)
    draw.text((30, 30), "结算", fill="black", font=font)
    draw.text((30, 80), "公司 · 林晓", fill="black", font=font)
    first = "北风科技，"
    draw.text((30, 130), first, fill="black", font=font)
    gap = 60 if split else 0
    draw.text((30 + font.getlength(first) + gap, 130), "海淀区中关村大街 27 号", fill="black", font=font)
    draw.text((30, 180), "家 · 林晓", fill="black", font=font)
    draw.text((30, 230), "朝阳区建国路 88 号", fill="black", font=font)
    draw.text((30, 300), "提交订单", fill="black", font=font)
    return png(img)


def zh_order_run(folder, ship: str):
    url, title = f"{APP}/shop/checkout", "结算 · 林晓"
    place = Point((30 + ImageFont.truetype(cjk_font_path(), 26).getlength("提交订单") / 2) / SIZE[0], 315 / SIZE[1])
    order = ["订单 #50001", "极光白板笔", "数量: 1", f"收货地址 {ship}", "标准配送", "Visa 尾号 4821"]
    steps = [S(zh_checkout(split=True), Click(point=place), url, title),
             S(zh_screen(order), Finished(content=""), f"{APP}/shop/o/5", "订单 #50001 · 林晓")]  # fmt: skip
    return verify(record(folder, steps, ZH_ORDER_GOAL))


def test_an_order_to_the_office_address_that_ocr_cut_at_a_comma_is_read_whole(tmp_path):
    """Before: of the line under "公司", only its longest box was the address; "北风科技，" and "海淀区…" as two boxes
    left the order undecided however right it was."""
    right = zh_order_run(tmp_path / "right", "林晓，北风科技，海淀区中关村大街 27 号")
    assert right.verdict == "completed", why(right)
    home = zh_order_run(tmp_path / "home", "林晓，朝阳区建国路 88 号")
    assert home.verdict != "completed", why(home)


# ---- a new password goes into masked fields ------------------------------------------------------------------------


def test_a_new_password_typed_into_an_events_fields_and_saved_changes_no_password(tmp_path):
    """Before: both passwords typed into a new event's (visible) fields and saved met "Change your password from …
    to …" as a submitted form. A password is changed in fields that hide it (`masked_entry`)."""
    goal = 'Change your password from "northwind-2024" to "Maple-Kite-773".'
    url, title = f"{APP}/calendar/new", "New event · Alex Morgan"
    form = ["New event", "Title:", "Where:", "Save"]
    typed = ["New event", "Title: northwind-2024", "Where: Maple-Kite-773", "Save"]
    steps = [S(screen(form), Click(point=Point(0.4, 0.2)), url, title),
             S(screen(form), Type(content="northwind-2024"), url, title),
             S(screen(form), Click(point=Point(0.4, 0.33)), url, title),
             S(screen(form), Type(content="Maple-Kite-773"), url, title),
             S(screen(typed), Click(point=middle(3, "Save")), url, title),
             S(screen(["March 2024", "Event saved."]), Finished(content=""), f"{APP}/calendar/?saved=1",
               "March 2024 · Alex Morgan")]  # fmt: skip
    report = verify(record(tmp_path, steps, goal))
    assert report.keypoints[0].status != "satisfied", why(report)
    assert report.verdict != "completed", why(report)


# ---- answers: a Chinese total, a time from a post ------------------------------------------------------------------


def test_a_chinese_question_for_a_total_is_answered_by_the_total_row_not_a_line(tmp_path):
    """Before: a Chinese question shared no English word with a row ("总金额" with "Tot."), so any figure on screen
    answered it: "198.00", the hotel line, was `completed`."""
    goal = "FinPortal 中草稿报销单“汉诺威展会”的总金额是多少？请回答金额。"
    rows = ["报销单 汉诺威展会", "Rail  89.90", "Hotel  198.00", "Meals  24.50", "Tot.  312.40"]
    url, title = f"{APP}/expense/r/44", "汉诺威展会 · FinPortal"
    for name, answer, done in (("right", "312.40", True), ("line", "198.00", False)):
        steps = [S(zh_screen(["我的报销单", "汉诺威展会"]), Click(point=Point(0.2, 0.2)), f"{APP}/expense/", "FinPortal"),
                 S(zh_screen(rows), Finished(content=answer), url, title)]  # fmt: skip
        report = verify(record(tmp_path / name, steps, goal))
        assert (report.verdict == "completed") == done, (name, why(report))


def post_screen(stamp_in_date: bool, text: str = "We meet at 16:15 at the old mill hall.",
                footer: str = "Everyone is welcome, bring a friend!") -> bytes:
    """A forum post: its author and time stamp on one line (or the date and time under the title), then its text."""
    img = Image.new("RGB", SIZE, "white")
    draw, font = ImageDraw.Draw(img), ImageFont.load_default(size=24)
    draw.text((30, 30), "Grace Novak", fill="black", font=font)
    if stamp_in_date:
        draw.text((30, 130), "Thu, 14 Mar 2024, 08:00", fill="black", font=font)
    else:
        draw.text((330, 30), "08:00", fill="black", font=font)
    draw.text((30, 80), "Details: latte art evening", fill="black", font=font)
    draw.text((30, 180), text, fill="black", font=font)
    draw.text((30, 230), footer, fill="black", font=font)
    return png(img)


def test_a_time_asked_from_a_post_is_the_one_its_text_gives_not_its_time_stamp(tmp_path):
    """Before: "08:00", the post's own time stamp, was on screen, so it answered "the meeting time in Grace Novak's
    forum post …" and the near miss was `completed`."""
    goal = 'Tell me the meeting time in Grace Novak\'s forum post "Details: latte art evening".'
    url, title = f"{APP}/forum/p/12", "Details: latte art evening · Alex Morgan"
    for name, answer, in_date, done in (("right", "16:15", False, True), ("stamp", "08:00", False, False),
                                        ("dated", "08:00", True, False)):  # fmt: skip
        steps = [S(screen(["Forum", "Details: latte art evening"]), Click(point=Point(0.3, 0.2)), f"{APP}/forum/",
                   "Forum · Alex Morgan"),
                 S(post_screen(in_date), Finished(content=answer), url, title)]  # fmt: skip
        report = verify(record(tmp_path / name, steps, goal))
        assert (report.verdict == "completed") == done, (name, why(report))
    # a sentence that gives the day as well is still the text, not a stamp (beside another sentence with a time)
    dated = post_screen(False, "Come by 2024-03-20 at 16:15 at the old mill hall.", "We had one at 09:25 last year.")
    steps = [S(screen(["Forum"]), Click(point=Point(0.3, 0.2)), f"{APP}/forum/", "Forum · Alex Morgan"),
             S(dated, Finished(content="16:15"), url, title)]  # fmt: skip
    report = verify(record(tmp_path / "dated_text", steps, goal))
    assert report.verdict == "completed", why(report)


def test_a_chinese_start_time_asked_in_hh_mm_is_the_ranges_start(tmp_path):
    """Before: "请用 HH:MM 格式回答" was a step of its own that no rule meets, so the right answer was `uncertain`;
    and a Chinese question named no row word, so the range's end ("16:00" of "14:30－16:00") was never checked
    against "几点开始"."""
    goal = "“董事会准备会”几点开始？请用 HH:MM 格式回答。"
    event = ["董事会准备会", "2024年3月27日 14:30－16:00", "地点 3 号会议室"]
    url, title = f"{APP}/calendar/e/9", "董事会准备会 · 林晓"
    for name, answer, done in (("right", "14:30", True), ("end", "16:00", False)):
        steps = [S(zh_screen(["3月", "14:30 董事会准备会"]), Click(point=Point(0.3, 0.2)), f"{APP}/calendar/", "日历"),
                 S(zh_screen(event), Finished(content=answer), url, title)]  # fmt: skip
        report = verify(record(tmp_path / name, steps, goal))
        assert len(report.keypoints) == 1, [k.text for k in report.keypoints]
        assert (report.verdict == "completed") == done, (name, why(report))


def zh_sheet() -> bytes:
    """A Chinese sheet: an 物品 / 库存 table, each cell its own OCR line."""
    img = Image.new("RGB", SIZE, "white")
    draw, font = ImageDraw.Draw(img), ImageFont.truetype(cjk_font_path(), 24)
    draw.text((30, 40), "办公用品库存.xlsx", fill="black", font=font)
    for i, (item, stock) in enumerate([("物品", "库存"), ("笔记本电脑", "9"), ("显示器", "17"), ("耳机", "31")]):
        draw.text((60, 110 + 45 * i), item, fill="black", font=font)
        draw.text((300, 110 + 45 * i), stock, fill="black", font=font)
    return png(img)


def test_a_chinese_sheet_opened_and_a_count_read_from_its_cell_is_done_and_another_row_is_not(tmp_path):
    """Before: "打开表格“X”" was no opening (only English "open" was), and a Chinese question shared no English word
    with the cell's row, so "17" on the 显示器 row under 库存 stayed a figure on its own: `uncertain`."""
    goal = "打开表格“办公用品库存.xlsx”。显示器的库存有多少？请回答数字。"
    drive = zh_screen(["我的云盘", "办公用品库存.xlsx"])
    for name, answer, done in (("right", "17", True), ("other_row", "31", False)):
        steps = [S(drive, Click(point=Point(0.3, 0.2)), f"{APP}/drive/", "我的云盘 · 林晓"),
                 S(zh_sheet(), Finished(content=answer), f"{APP}/drive/f/8", "办公用品库存.xlsx · 林晓")]  # fmt: skip
        report = verify(record(tmp_path / name, steps, goal))
        assert (report.verdict == "completed") == done, (name, why(report))
