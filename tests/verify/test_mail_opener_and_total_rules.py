"""From a fresh training sample: a total adds up the rows of what the question names; a mail goes by its Send and a
reply or forward is written in the form its own control opens; a possessive names a source, not a value to type; a
form that holds another step's values (and a worked-out end time) is that step's form."""

from __future__ import annotations

from pathlib import Path

from PIL import Image, ImageDraw, ImageFont
from verify_helpers import S, cjk_font_path, middle, png, record, screen, verify_rules, why, zh_screen

from venuskit.actions.types import Click, Finished, Point, SelectOption, Type

ROWS = ["13 Feb PARCELLY SHOP -20.45", "24 Feb FIXIT HARDWARE -55.25", "12 Feb CORNER PHARMACY -37.64",
        "3 Feb FIXIT HARDWARE -41.20"]  # fmt: skip
FIXIT_ONLY = ["FIXIT HARDWARE    -55.25", "FIXIT HARDWARE    -41.20"]  # a list filtered to the payee, dates aside
TOTAL_GOAL = "How much did you pay FIXIT HARDWARE between 2024-02-01 and 2024-02-29? Answer with the total in EUR."


def _answer(tmp: Path, answer: str, rows: list[str] = ROWS, goal: str = TOTAL_GOAL) -> tuple[str, str]:
    page = screen(["Everyday Checking", *rows])
    steps = [S(page, Click(point=middle(0, "Everyday Checking")), None, "Everyday Checking"),
             S(page, Finished(content=answer), None, "Everyday Checking")]  # fmt: skip
    report = verify_rules(record(tmp, steps, goal))
    return report.verdict, why(report)


def test_a_total_adds_up_the_rows_of_the_payee_the_question_names(tmp_path: Path):
    right = _answer(tmp_path / "right", "96.45")  # 55.25 + 41.20, the two FIXIT HARDWARE rows
    assert right[0] == "completed", right
    other = _answer(tmp_path / "other", "58.09")  # 20.45 + 37.64: two other payees' charges
    assert other[0] != "completed", other
    # the list filtered to the payee's charges: one of its two charges is no total
    in_all = "How much have you paid FIXIT HARDWARE in all? Answer with the total in EUR."
    one = _answer(tmp_path / "one", "55.25", FIXIT_ONLY, in_all)
    assert one[0] != "completed", one
    both = _answer(tmp_path / "both", "96.45", FIXIT_ONLY, in_all)
    assert both[0] == "completed", both


BASE = "http://127.0.0.1:8000"
MAIL = "priya.patel@northwind.example"
FWD_GOAL = f'Forward the email "Expense policy update" to {MAIL}.'


def _forward(tmp: Path, last: str) -> tuple[str, str]:
    """Open the mail, click Forward, type the address, then click `last` (Send, or the menu)."""
    mail = screen(["Expense policy update", "From: Omar Haddad", "Forward"])
    form = screen(["Menu", f"To: {MAIL}", "Fwd: Expense policy update", "Send"])
    empty = screen(["Menu", "To:", "Fwd: Expense policy update", "Send"])
    at = {"Send": middle(3, "Send"), "Menu": middle(0, "Menu")}[last]
    after = screen(["Inbox", "Mail sent"]) if last == "Send" else screen(["Inbox", "Drafts", "Sent", "Forum"])
    opened = [S(mail, Click(point=middle(2, "Forward")), f"{BASE}/mail/m/45", "Expense policy update")]
    return _mail_form(tmp, opened, (empty, form), f"{BASE}/mail/compose?forward=45", MAIL, at, after, FWD_GOAL)


def _mail_form(tmp: Path, opened: list[S], screens: tuple[bytes, bytes], url: str, text: str, commit: Point,
               after: bytes, goal: str) -> tuple[str, str]:  # fmt: skip
    """After the `opened` steps, on the form at `url`: click its first field, type `text`, click `commit`."""
    empty, filled = screens
    steps = [*opened,
             S(empty, Click(point=Point(0.5, (80 + 12) / 400)), url, "New message"),
             S(empty, Type(content=text), url, "New message"),
             S(filled, Click(point=commit), url, "New message"),
             S(after, Finished(), f"{BASE}/mail/inbox", "Inbox")]  # fmt: skip
    report = verify_rules(record(tmp, steps, goal))
    return report.verdict, why(report)


def test_a_forward_goes_by_its_send_and_not_by_a_click_on_the_menu(tmp_path: Path):
    sent = _forward(tmp_path / "sent", "Send")
    assert sent[0] == "completed", sent
    left = _forward(tmp_path / "menu", "Menu")  # the form left unsent: the screen changed, nothing went
    assert left[0] != "completed", left


REPLY_GOAL = "Reply \"Yes, go ahead\" to Daniel's email from this morning."


def _reply(tmp: Path, control: str) -> tuple[str, str]:
    """From the inbox: open Daniel's mail and click Reply, or click Compose; type the text; Send."""
    inbox = screen(["Inbox", "Compose", "Daniel Weber  Budget question"])
    mail = screen(["Budget question", "From: Daniel Weber", "Reply"])
    form = screen(["To: daniel.weber@northwind.example", "Message:", "Send"])
    done = screen(["Inbox", "Mail sent"])
    opened = [S(inbox, Click(point=middle(2, "Daniel Weber  Budget question")), f"{BASE}/mail/inbox", "Inbox"),
              S(mail, Click(point=middle(2, "Reply")), f"{BASE}/mail/m/3", "Budget question")] if control == "Reply" \
        else [S(inbox, Click(point=middle(1, "Compose")), f"{BASE}/mail/inbox", "Inbox")]  # fmt: skip
    url = f"{BASE}/mail/compose?reply=3" if control == "Reply" else f"{BASE}/mail/compose"
    return _mail_form(tmp, opened, (form, form), url, "Yes, go ahead", middle(2, "Send"), done, REPLY_GOAL)


def test_a_reply_is_written_in_the_form_its_reply_control_opens(tmp_path: Path):
    replied = _reply(tmp_path / "reply", "Reply")
    assert replied[0] == "completed", replied
    composed = _reply(tmp_path / "compose", "Compose")  # a new message with the same text answers no mail
    assert composed[0] != "completed", composed


IBAN = "DE21 3007 0010 0541 2277 00"
PAYEE_GOAL = ("Save Greenway Gardening with the IBAN in Greenway Gardening's payment request email as a new recipient "
              "in the bank, without sending money.")  # fmt: skip


def _payee(tmp: Path, typed_iban: str) -> tuple[str, str]:
    mail = screen(["Payment request from Greenway Gardening", "Please pay 84.00 EUR", "to Greenway Gardening,",
                   f"IBAN: {IBAN}"])  # fmt: skip
    form = screen(["Saved recipients", "Name:", "IBAN:", "Add recipient"])
    filled = screen(["Saved recipients", "Name: Greenway Gardening", f"IBAN: {typed_iban}", "Add recipient"])
    done = screen(["Saved recipients", "Recipient added", "Greenway Gardening", typed_iban])
    steps = [S(mail, Click(point=Point(0.05, 0.95)), None, "Payment request from Greenway Gardening"),
             S(form, Click(point=Point(0.5, (80 + 12) / 400)), None, "Saved recipients"),
             S(form, Type(content="Greenway Gardening"), None, "Saved recipients"),
             S(form, Click(point=Point(0.5, (130 + 12) / 400)), None, "Saved recipients"),
             S(form, Type(content=typed_iban), None, "Saved recipients"),
             S(filled, Click(point=middle(3, "Add recipient")), None, "Saved recipients"),
             S(done, Finished(), None, "Saved recipients · added")]  # fmt: skip
    report = verify_rules(record(tmp, steps, PAYEE_GOAL))
    return report.verdict, why(report)


def test_a_name_in_the_possessive_is_a_source_and_the_value_from_it_must_be_the_mails(tmp_path: Path):
    right = _payee(tmp_path / "right", IBAN)  # "Greenway Gardening's" is where the IBAN is, not a value to type
    assert right[0] == "completed", right
    wrong = _payee(tmp_path / "wrong", "DE89 3704 0044 0532 0130 00")  # an IBAN that mail never showed
    assert wrong[0] != "completed", wrong


TWO_GOAL = ('Set the department in your profile to Finance, then add a one-hour event "Analytics office hours" to the '
            "calendar on 2024-03-20 starting at 16:15, with the location Room Borealis.")  # fmt: skip


def test_a_form_with_another_steps_values_and_a_worked_out_end_is_that_steps_form(tmp_path: Path):
    profile = screen(["Settings", "Department", "Sales", "Save"])
    chosen = screen(["Settings", "Department", "Finance", "Save"])
    saved = screen(["Settings", "Department", "Finance", "Saved"])
    event = screen(["New event", "Title:", "Start: End:", "Location:", "Save"])
    filled = screen(["New event", "Title: Analytics office hours", "2024-03-20 16:15 17:15", "Room Borealis", "Save"])
    done = screen(["Analytics office hours", "2024-03-20 16:15-17:15", "Room Borealis"])
    field = [Point(0.5, (30 + 50 * i + 12) / 400) for i in range(5)]
    typed = [("Analytics office hours", 1), ("2024-03-20", 2), ("16:15", 2), ("17:15", 2), ("Room Borealis", 3)]
    steps = [S(profile, Click(point=field[2]), None, "Settings"),
             S(profile, SelectOption(index=2), None, "Settings"),
             S(chosen, Click(point=middle(3, "Save")), None, "Settings"),
             S(saved, Click(point=Point(0.05, 0.95)), None, "Settings · saved")]  # fmt: skip
    for text, row in typed:
        steps += [S(event, Click(point=field[row]), None, "New event"), S(event, Type(content=text), None, "New event")]
    steps += [S(filled, Click(point=middle(4, "Save")), None, "New event"),
              S(done, Finished(), None, "Analytics office hours")]  # fmt: skip
    report = verify_rules(record(tmp_path, steps, TWO_GOAL))
    assert report.verdict == "completed", why(report)


UNREAD_GOAL = "邮件“关于你的方案的反馈”你已经读过了，请把它标为未读，提醒自己稍后回复。"


def _unread(tmp: Path, label: str) -> tuple[str, str]:
    """On the mail's page, click `label` ("标为未读", or another of its buttons); the inbox opens."""
    mail = zh_screen(["关于你的方案的反馈", "发件人：王芳", "回复  归档  标为未读"])
    font = ImageFont.truetype(cjk_font_path(), 26)
    row = "回复  归档  标为未读"
    start = font.getlength(row[: row.index(label)])
    x = (30 + start + font.getlength(label) / 2) / 640
    steps = [S(zh_screen(["收件箱", "王芳  关于你的方案的反馈"]), Click(point=Point(0.4, (80 + 13) / 400)),
               f"{BASE}/mail/inbox", "收件箱 · 林晓"),
             S(mail, Click(point=Point(x, (130 + 13) / 400)), f"{BASE}/mail/m/7", "关于你的方案的反馈 · 林晓"),
             S(zh_screen(["收件箱", "王芳  关于你的方案的反馈  未读"]), Finished(), f"{BASE}/mail/inbox",
               "收件箱 · 林晓")]  # fmt: skip
    report = verify_rules(record(tmp, steps, UNREAD_GOAL, surface="mobile"))
    return report.verdict, why(report)


def test_a_mail_marked_unread_by_its_chinese_label(tmp_path: Path):
    marked = _unread(tmp_path / "unread", "标为未读")
    assert marked[0] == "completed", marked
    archived = _unread(tmp_path / "archive", "归档")
    assert archived[0] != "completed", archived


MOVE_GOALS = {"en": "In next week's calendar, move \"Supplier audit\" from 2024-03-19 to 2024-03-21, keeping the same time.",
              "zh": "在下周的日历中，把“供应商审计”从 2024-03-19 改到 2024-03-21，时间不变。"}  # fmt: skip


def _moved(tmp: Path, locale: str, typed: str) -> tuple[str, str]:
    """The event's page, its Edit form: the date field typed, Save; the event's page again."""
    title = {"en": "Supplier audit", "zh": "供应商审计"}[locale]
    draw = zh_screen if locale == "zh" else screen
    edit, save = {"en": ("Edit", "Save"), "zh": ("编辑", "保存")}[locale]
    form = draw([title, "2024-03-19  10:00-11:00", save])
    ev = f"{BASE}/calendar/e/20"
    steps = [S(draw([title, "2024-03-19  10:00-11:00", edit]), Click(point=Point(0.06, (130 + 12) / 400)), ev, title),
             S(form, Click(point=Point(0.2, (80 + 12) / 400)), f"{ev}/edit", title),
             S(form, Type(content=typed), f"{ev}/edit", title),
             S(draw([title, f"{typed}  10:00-11:00", save]), Click(point=Point(0.06, (130 + 12) / 400)), f"{ev}/edit",
               title),
             S(draw([title, f"{typed}  10:00-11:00", edit]), Finished(), f"{ev}?flash=saved", title)]  # fmt: skip
    report = verify_rules(record(tmp, steps, MOVE_GOALS[locale]))
    return report.verdict, why(report)


def test_an_event_moved_from_one_day_to_another_needs_only_the_new_day_typed(tmp_path: Path):
    for locale in ("en", "zh"):
        moved = _moved(tmp_path / f"{locale}-moved", locale, "2024-03-21")  # the old day is what was there
        assert moved[0] == "completed", (locale, moved)
        elsewhere = _moved(tmp_path / f"{locale}-other", locale, "2024-03-22")
        assert elsewhere[0] != "completed", (locale, elsewhere)


ES_IBAN = "ES91 2100 0418 4502 0005 1332"
SEND_GOAL = (f'Send the Venue hire amount in the spreadsheet "Travel estimates.xlsx" to Sofia Larsen at the IBAN {ES_IBAN} '
             'with the reference "Service call 77".')  # fmt: skip


def _sent(tmp: Path, amount: str) -> tuple[str, str]:
    """Read the sheet, then fill a transfer (name, IBAN, amount, reference) and send it."""
    sheet = screen(["Travel estimates.xlsx", "Flights       1,240.00", "Venue hire      450.00", "Catering        310.00"])
    source = S(sheet, Click(point=Point(0.05, 0.97)), f"{BASE}/drive/f/8", "Travel estimates.xlsx")
    return _transfer(tmp, source, ["Sofia Larsen", ES_IBAN, amount, "Service call 77"], SEND_GOAL)


def _transfer(tmp: Path, source: S, values: list[str], goal: str) -> tuple[str, str]:
    """After the `source` step, the transfer form: name, IBAN, amount and reference typed in that order, sent."""
    form = screen(["Transfer", "Name:", "IBAN:", "Amount:", "Reference:", "Send"])
    name, iban, amount, reference = values
    filled = screen(["Transfer", f"Name: {name}", f"IBAN: {iban}", f"Amount: {amount}", f"Reference: {reference}",
                     "Send"])  # fmt: skip
    url = f"{BASE}/bank/transfer"
    steps = [source]
    for row, text in enumerate(values, start=1):
        steps += [S(form, Click(point=Point(0.6, (30 + 50 * row + 12) / 400)), url, "Transfer"),
                  S(form, Type(content=text), url, "Transfer")]  # fmt: skip
    steps += [S(filled, Click(point=middle(5, "Send")), url, "Transfer"),
              S(screen(["Everyday Checking", "Transfer sent"]), Finished(), f"{BASE}/bank/a/1?flash=transfer_done",
                "Everyday Checking")]  # fmt: skip
    report = verify_rules(record(tmp, steps, goal))
    return report.verdict, why(report)


def test_an_amount_sent_that_is_described_by_its_row_in_a_sheet(tmp_path: Path):
    right = _sent(tmp_path / "right", "450.00")  # "the Venue hire amount": the row's figure
    assert right[0] == "completed", right
    wrong = _sent(tmp_path / "wrong", "310.00")  # another row's figure
    assert wrong[0] != "completed", wrong


SAVE_GOAL = 'Save the attachment of Samuel Rossi\'s email "Recycling bins moved" to Drive.'


def _saved(tmp: Path, y: int) -> tuple[str, str]:
    """A mail whose "Save to" / "Drive" button label wraps onto two lines; the click at height `y` (pixels)."""
    font = ImageFont.load_default(size=24)

    def draw(extra: str) -> bytes:
        img = Image.new("RGB", (640, 400), "white")
        pen = ImageDraw.Draw(img)
        for i, text in enumerate(["Recycling bins moved", "Workshop_agenda.pdf", extra]):
            pen.text((30, 30 + 50 * i), text, fill="black", font=font)
        pen.text((300, 200), "Save to", fill="black", font=font)
        pen.text((314, 234), "Drive", fill="black", font=font)  # the label's second line, 16 px below the first
        return png(img)

    url = f"{BASE}/mail/m/45"
    steps = [S(draw(""), Click(point=Point(340 / 640, y / 400)), url, "Recycling bins moved"),
             S(draw("Saved to Drive"), Finished(), f"{url}?flash=saved_to_drive", "Recycling bins moved")]  # fmt: skip
    report = verify_rules(record(tmp, steps, SAVE_GOAL))
    return report.verdict, why(report)


def test_a_click_between_the_two_lines_of_a_wrapped_label_is_on_that_label(tmp_path: Path):
    between = _saved(tmp_path / "between", 233)  # the button's centre, in the gap between "Save to" and "Drive"
    assert between[0] == "completed", between
    below = _saved(tmp_path / "below", 330)  # far below the button: no label
    assert below[0] != "completed", below


COUNT_GOAL = 'How many comments does the forum post "Which sourdough starter do you use?" have?'


def _counted(tmp: Path, answer: str) -> tuple[str, str]:
    """Search results with another post's figures, then the post's own page with its count."""
    results = screen(["Results for sourdough", "Which sourdough starter do you use?", "Anna Berg  12 Mar",
                      "Sourdough in 6 steps", "Leo Tanaka  6 Mar"])  # fmt: skip
    post = screen(["Which sourdough starter do you use?", "Anna Berg  12 Mar", "I keep mine in the fridge.",
                   "3 comments"])  # fmt: skip
    steps = [S(results, Click(point=middle(1, "Which sourdough starter do you use?")),
               f"{BASE}/forum/search?q=sourdough", "Results for sourdough"),
             S(post, Finished(content=answer), f"{BASE}/forum/p/22", "Which sourdough starter do you use?")]  # fmt: skip
    report = verify_rules(record(tmp, steps, COUNT_GOAL))
    return report.verdict, why(report)


def test_a_count_of_a_quoted_item_is_read_on_its_page_not_anywhere(tmp_path: Path):
    right = _counted(tmp_path / "right", "3")
    assert right[0] == "completed", right
    elsewhere = _counted(tmp_path / "elsewhere", "6")  # another post's title and date hold a 6
    assert elsewhere[0] != "completed", elsewhere


PAY_GOAL = ("Send the amount Summit Movers's payment request email asks for to Summit Movers at the IBAN in Summit "
            "Movers's payment request email with the reference the reference Summit Movers's payment request email "
            "gives.")  # fmt: skip


def _paid(tmp: Path, amount: str) -> tuple[str, str]:
    """The payment request mail (its IBAN on the line where the form's IBAN field will be), then the transfer."""
    mail = screen(["Payment request from Summit Movers", "Please pay 180.00 EUR", f"IBAN: {ES_IBAN}",
                   "Reference: Ticket refund"])  # fmt: skip
    source = S(mail, Click(point=Point(0.05, 0.97)), f"{BASE}/mail/m/46", "Payment request from Summit Movers")
    return _transfer(tmp, source, ["Summit Movers", ES_IBAN, amount, "Ticket refund"], PAY_GOAL)


def test_each_described_value_of_a_form_is_the_typed_value_of_its_kind(tmp_path: Path):
    right = _paid(tmp_path / "right", "180.00")  # the amount is the amount typed, not the reference typed after it
    assert right[0] == "completed", right
    wrong = _paid(tmp_path / "wrong", "190.00")
    assert wrong[0] != "completed", wrong


def test_a_range_from_one_time_to_another_keeps_both_times():
    """Only a verb of change makes the value after "from" an old one: a new event's "from 10:00 to 11:00" (从 10:00 到
    11:00) needs both times, or a wrong start would pass."""
    from venuskit.verify import rules as R

    for goal in ('Add an event "Sync" to the calendar on 2024-03-20 from 10:00 to 11:00 at Room Borealis',
                 "在日历中添加“Sync”，时间从 10:00 到 11:00"):  # fmt: skip
        assert {"10:00", "11:00"} <= set(R.needles(goal)), goal
    assert "10:00" not in R.needles('Move "Design sync" from 10:00 to 11:30'), "the time it moves from"
