"""Acts the rules left undecided on synthesised training tasks, so their right runs were `uncertain` and never
became SFT rows: a star set with a row's icon, "Mark … as unread", a password changed in masked fields, a comment on
a post (quoted or described), a line added at a document's end, an option picked from a list, an attachment saved to
Drive, a Chinese search, a scene before a semicolon, a Chinese unstar; and three that were credited wrongly: a delete that only opened
its confirmation, a value named by its source, a Chinese search whose "告诉我…" went unanswered. Drawn screens, read
by the real OCR; each right run must be `completed` and each near miss must not. Every test fails on the rules as
they were before."""

from __future__ import annotations

import math

from PIL import Image, ImageDraw, ImageFont
from verify_helpers import S, middle, png, record, screen, why, zh_screen
from verify_helpers import verify_rules as verify

from venuskit.actions.types import Click, Finished, Point, PressEnter, SelectOption, Type
from venuskit.verify.keypoints import split_goal
from venuskit.verify.text import needles

SIZE = (640, 400)
FONT = ImageFont.load_default(size=24)
APP = "http://127.0.0.1:8000"


def last_word(line: int, text: str) -> Point:
    """The centre of the last word of `text` drawn by `screen` as line `line`."""
    word = text.split()[-1]
    x = 30 + FONT.getlength(text) - FONT.getlength(word) / 2
    return Point(x / SIZE[0], (30 + 50 * line + 12) / SIZE[1])


# ---- a star set with the icon on the item's row -------------------------------------------------------------

FILES = ["Q2 roadmap.docx", "Offsite agenda.pdf", "Team budget.xlsx"]


def _star(draw: ImageDraw.ImageDraw, cx: float, cy: float, filled: bool) -> None:
    points = [(cx + (12 if k % 2 == 0 else 5.4) * math.cos(-math.pi / 2 + k * math.pi / 5),
               cy + (12 if k % 2 == 0 else 5.4) * math.sin(-math.pi / 2 + k * math.pi / 5)) for k in range(10)]
    draw.polygon(points, fill=(245, 180, 0) if filled else None, outline=(245, 180, 0) if filled else (90, 90, 90),
                 width=2)  # fmt: skip


def drive(starred: set[str]) -> bytes:
    """A file list: each row's name, then its star icon (gold and filled when starred, a grey outline when not)."""
    img = Image.new("RGB", SIZE, "white")
    draw = ImageDraw.Draw(img)
    draw.text((30, 30), "My Drive", fill="black", font=FONT)
    for i, name in enumerate(FILES):
        draw.text((30, 80 + 50 * i), name, fill="black", font=FONT)
        _star(draw, 560, 94 + 50 * i, name in starred)
    return png(img)


def star_run(folder, goal: str, row: int, before: set[str]):
    """Click row `row`'s star icon (which flips it), then finish."""
    name = FILES[row]
    after = before ^ {name}
    steps = [S(drive(before), Click(point=Point(560 / SIZE[0], (94 + 50 * row) / SIZE[1])), f"{APP}/drive/", "My Drive"),
             S(drive(after), Finished(content="Done."), f"{APP}/drive/?view=mydrive", "My Drive")]  # fmt: skip
    return verify(record(folder, steps, goal))


def test_a_star_set_with_the_rows_icon_is_done_and_the_wrong_row_or_way_is_not(tmp_path):
    """Before: the click on the icon read no label, so no rule decided "Star the Drive file "X"" at all."""
    goal = 'Star the Drive file "Q2 roadmap.docx".'
    right = star_run(tmp_path / "right", goal, 0, set())
    assert right.verdict == "completed", why(right)
    assert "filled it in" in why(right)
    assert star_run(tmp_path / "other", goal, 1, set()).verdict != "completed"  # another file's star
    unstarred = star_run(tmp_path / "off", goal, 0, {"Q2 roadmap.docx"})  # it was starred: the click emptied it
    assert unstarred.verdict != "completed", why(unstarred)
    assert star_run(tmp_path / "unstar", 'Unstar the Drive file "Q2 roadmap.docx".', 0,
                    {"Q2 roadmap.docx"}).verdict == "completed"  # fmt: skip


# ---- "Mark … as unread" and a delete that asks to confirm ----------------------------------------------------


def click_run(folder, goal: str, title: str, label: str, next_title: str | None = None):
    """On the item's page, click `label`; the page changes (to `next_title`'s page, if given); finish."""
    url = f"{APP}/mail/m/14"
    steps = [S(screen([title, label, "Back"]), Click(point=middle(1, label)), url, f"{title} · Alex Morgan"),
             S(screen([next_title or title, "Done"]), Finished(content="Done."), url + "?x=1",
               f"{next_title or title} · Alex Morgan")]  # fmt: skip
    return verify(record(folder, steps, goal))


def test_mark_as_unread_is_the_click_on_the_label_that_names_that_state(tmp_path):
    """Before: "mark" was no one-click act, so "Mark the email "X" as unread" was undecided."""
    goal = 'Mark the email "Team photo retake" from Omar Haddad as unread.'
    right = click_run(tmp_path / "unread", goal, "Team photo retake", "Mark as unread")
    assert right.verdict == "completed", why(right)
    assert click_run(tmp_path / "read", goal, "Team photo retake", "Mark as read").verdict != "completed"
    assert click_run(tmp_path / "other", goal, "Lunch on Friday", "Mark as unread").verdict != "completed"


def test_a_delete_button_that_opens_its_own_confirmation_has_not_deleted_yet(tmp_path):
    """Before: the click on "Delete post" counted as the deletion although it only opened the page "Delete post"
    that asks to confirm, so a run that stopped there was `completed`."""
    goal = 'Delete your own forum post "Finished my first ultramarathon!".'
    title = "Finished my first ultramarathon!"
    stopped = click_run(tmp_path / "stopped", goal, title, "Delete post", next_title="Delete post")
    assert stopped.verdict != "completed", why(stopped)
    assert click_run(tmp_path / "gone", goal, title, "Delete post").verdict == "completed"


# ---- a password changed in masked fields ----------------------------------------------------------------------

PASSWORD = ["Current password", "New password", "Confirm new password", "Change password"]


def password_page(filled: int, said: str | None = None) -> bytes:
    """The password form: `filled` fields show dots; under it the page's answer, if any."""
    img = Image.new("RGB", SIZE, "white")
    draw = ImageDraw.Draw(img)
    for i, label in enumerate(PASSWORD[:3]):
        draw.text((30, 30 + 80 * i), label, fill="black", font=FONT)
        draw.rectangle((30, 62 + 80 * i, 330, 92 + 80 * i), outline=(150, 150, 150), width=2)
        if i < filled:
            for k in range(8):
                draw.ellipse((40 + 14 * k, 72 + 80 * i, 48 + 14 * k, 80 + 80 * i), fill="black")
    draw.text((30, 270), PASSWORD[3], fill="black", font=FONT)
    if said:
        draw.text((30, 340), said, fill="black", font=FONT)
    return png(img)


def password_run(folder, typed: list[str], said: str | None):
    goal = 'Change your password from "northwind-2024" to "Lagoon-Otter-58".'
    url = f"{APP}/settings/?s=password"
    steps = []
    for i, text in enumerate(typed):
        field = Point(180 / SIZE[0], (77 + 80 * i) / SIZE[1])
        steps += [S(password_page(i), Click(point=field), url, "Settings"),
                  S(password_page(i), Type(content=text), url, "Settings")]  # fmt: skip
    change = Point((30 + FONT.getlength(PASSWORD[3]) / 2) / SIZE[0], 282 / SIZE[1])
    steps += [S(password_page(len(typed)), Click(point=change), url, "Settings"),
              S(password_page(len(typed), said), Finished(content="Done."), url, "Settings")]  # fmt: skip
    return verify(record(folder, steps, goal))


def test_a_password_typed_into_masked_fields_in_order_and_changed_is_done(tmp_path):
    """Before: the fields show dots, so no rule saw the values, and the change was undecided."""
    right = password_run(tmp_path / "right", ["northwind-2024", "Lagoon-Otter-58", "Lagoon-Otter-58"],
                         "Password changed.")  # fmt: skip
    assert right.verdict == "completed", why(right)
    assert "masked" in why(right)
    refused = password_run(tmp_path / "refused", ["northwind-2024", "Lagoon-Otter-58", "Lagoon-Otter-58"], None)
    assert refused.verdict != "completed", why(refused)  # the page never said it changed
    swapped = password_run(tmp_path / "swapped", ["Lagoon-Otter-58", "northwind-2024", "northwind-2024"],
                           "Password changed.")  # fmt: skip
    assert swapped.verdict != "completed", why(swapped)
    typed = ["northwind-2024", "Lagoon-Otter-58", "Lagoon-Otter-58"]
    must = password_run(tmp_path / "must", typed, "The new password must have 10 characters.")
    assert must.verdict != "completed", why(must)  # the fresh line names the password, and refuses it


# ---- a comment on a post, a line added at a document's end ---------------------------------------------------


def comment_run(folder, post: str):
    goal = 'Comment on Lucas Walsh\'s forum post "Anyone selling a spare Catan expansion?" with "Count me in".'
    url, title = f"{APP}/forum/p/22", f"{post} · Alex Morgan"
    page = [post, "Lucas Walsh", "0 comments", "Write a comment...   Comment"]
    done = [post, "Lucas Walsh", "1 comment", "You: Count me in", "Comment added."]
    steps = [S(screen(page), Click(point=middle(3, "Write a comment...")), url, title),
             S(screen(page), Type(content="Count me in"), url, title),
             S(screen([*page[:3], "Count me in   Comment"]), Click(point=last_word(3, "Count me in   Comment")), url,
               title),
             S(screen(done), Finished(content="Done."), url + "#comments", title)]  # fmt: skip
    return verify(record(folder, steps, goal))


def test_a_comment_committed_on_the_named_post_is_done_and_on_another_post_is_not(tmp_path):
    """Before: "comment" was no entry verb, so the run was undecided; the post's title is the item commented on,
    not a value to type."""
    right = comment_run(tmp_path / "right", "Anyone selling a spare Catan expansion?")
    assert right.verdict == "completed", why(right)
    other = comment_run(tmp_path / "other", "Board games for rainy days")
    assert other.verdict != "completed", why(other)


def append_run(folder, saved_body: list[str]):
    goal = 'Add the line "Owner: Alex Morgan" at the end of the document "Retro notes.docx" and save it.'
    url, title = f"{APP}/drive/f/8", "Retro notes.docx · Drive"
    body = ["Save", "1. Goals", "2. Milestones"]
    steps = [S(screen(body), Click(point=Point(0.3, 0.55)), url, title),
             S(screen(body), Type(content="Owner: Alex Morgan"), url, title),
             S(screen([*body, "Owner: Alex Morgan"]), Click(point=middle(0, "Save")), url, title),
             S(screen(["Save", *saved_body, "Saved."]), Finished(content="Done."), url, title)]
    return verify(record(folder, steps, goal))


def test_a_line_saved_at_the_documents_end_is_done_and_one_saved_above_a_line_is_not(tmp_path):
    """Before: "Add the line …" matched no rule, so the run was undecided."""
    right = append_run(tmp_path / "end", ["1. Goals", "2. Milestones", "Owner: Alex Morgan"])
    assert right.verdict == "completed", why(right)
    top = append_run(tmp_path / "top", ["Owner: Alex Morgan", "1. Goals", "2. Milestones"])
    assert top.verdict != "completed", why(top)


def test_a_line_asked_to_be_saved_is_committed_by_save_and_not_by_a_click_away(tmp_path):
    """Before: "…, and save it" was merged into the line's keypoint, and any click that changed the screen committed
    it: a click on the Mail app, whose inbox happened to show the same words, counted as the save."""
    goal = 'Add the line "Owner: Alex Morgan" at the end of the document "Retro notes.docx" and save it.'
    url, title = f"{APP}/drive/f/8", "Retro notes.docx · Drive"
    body = ["Save", "1. Goals", "2. Milestones", "Mail"]
    steps = [S(screen(body), Click(point=Point(0.3, 0.55)), url, title),
             S(screen(body), Type(content="Owner: Alex Morgan"), url, title),
             S(screen([*body[:3], "Owner: Alex Morgan", "Mail"]), Click(point=middle(4, "Mail")), url, title),
             S(screen(["Inbox", "Owner: Alex Morgan", "Re: roles"]), Finished(content="Done."), f"{APP}/mail/inbox",
               "Inbox · Mail")]  # fmt: skip
    away = verify(record(tmp_path / "away", steps, goal))
    assert away.verdict != "completed", why(away)


def test_a_form_left_on_another_page_is_not_the_last_committed_form(tmp_path):
    """Before: the password form typed the goal's other values, and the forward's recipient field, typed on another
    page, kept the rule from looking past it, so the sent forward was `contradicted` by the password form."""
    goal = 'Forward the email "Lunch on Friday" to noah@northwind.example, then change your password from ' \
           '"northwind-2024" to "Lagoon-Otter-58".'  # fmt: skip
    mail, compose, pw = f"{APP}/mail/m/4", f"{APP}/mail/compose?forward=4", f"{APP}/settings/?s=password"
    to_line = ["New message", "To:", "Fwd: Lunch on Friday", "Send"]
    steps = [S(screen(["Lunch on Friday", "Reply   Forward"]), Click(point=middle(1, "Reply   Forward")), mail,
               "Lunch on Friday"),
             S(screen(to_line), Click(point=middle(1, "To:")), compose, "New message"),
             S(screen(to_line), Type(content="noah@northwind.example"), compose, "New message"),
             S(screen(["New message", "To: noah@northwind.example", "Fwd: Lunch on Friday", "Send"]),
               Click(point=middle(3, "Send")), compose, "New message"),
             S(screen(["Inbox", "Message sent."]), Click(point=middle(0, "Inbox")), f"{APP}/mail/inbox?flash=sent",
               "Inbox")]  # fmt: skip
    for i, text in enumerate(["northwind-2024", "Lagoon-Otter-58"]):
        steps += [S(password_page(i), Click(point=Point(180 / SIZE[0], (77 + 80 * i) / SIZE[1])), pw, "Settings"),
                  S(password_page(i), Type(content=text), pw, "Settings")]  # fmt: skip
    change = Point((30 + FONT.getlength(PASSWORD[3]) / 2) / SIZE[0], 282 / SIZE[1])
    steps += [S(password_page(2), Click(point=change), pw, "Settings"),
              S(password_page(2, "Password changed."), Finished(content="Done."), pw, "Settings")]  # fmt: skip
    report = verify(record(tmp_path, steps, goal))
    forward = next(k for k in report.keypoints if k.text.startswith("Forward"))
    assert forward.status == "satisfied", why(report)


# ---- a value picked from a drop-down, an attachment saved to Drive, a comment whose text is described --------


def profile(value: str, saved: bool = False, picked: bool = False) -> bytes:
    """The profile form: the Department label, its value under it; the option list drawn over the form after a pick
    (as the world's screenshots show it), and the page's "Saved." after a save."""
    lines = ["Profile", "Department", value, "Save"]
    if picked:
        lines = ["Profile", "Department", value, "Product   Engineering   Sales"]
    if saved:
        lines += ["", "Saved."]
    return screen(lines)


def pick_run(folder, value: str):
    goal = "Set the department in your profile to Sales."
    url = f"{APP}/settings/"
    steps = [S(profile("Product"), Click(point=middle(2, "Product")), url, "Settings"),
             S(profile("Product"), SelectOption(index=2), url, "Settings"),
             S(profile(value, picked=True), Click(point=middle(3, "Save")), url, "Settings"),
             S(profile(value, saved=True), Finished(content="Done."), url, "Settings")]  # fmt: skip
    return verify(record(folder, steps, goal))


def test_a_value_picked_from_a_list_and_saved_reads_under_its_label(tmp_path):
    """Before: the click on Save read as a click on the option list drawn over it, so no rule saw a commit and the
    run was undecided."""
    right = pick_run(tmp_path / "sales", "Sales")
    assert right.verdict == "completed", why(right)
    assert pick_run(tmp_path / "finance", "Finance").verdict != "completed"


def attachment_run(folder, after: list[str]):
    goal = 'Save the attachment of Leo Tanaka\'s email "Contract renewal deadline" to Drive.'
    url, title = f"{APP}/mail/m/9", "Contract renewal deadline · Alex Morgan"
    page = ["Contract renewal deadline", "Warranty.pdf   19 KB", "Download   Save to Drive"]
    steps = [S(screen(page), Click(point=Point((30 + FONT.getlength("Download   Save to Drive") * 0.8) / SIZE[0],
                                               (130 + 12) / SIZE[1])), url, title),
             S(screen([*page, *after]), Finished(content="Done."), url, title)]  # fmt: skip
    return verify(record(folder, steps, goal))


def test_an_attachment_saved_to_drive_is_the_click_the_page_then_confirms(tmp_path):
    """Before: "Save … to Drive" names an item, so no short-label rule took it, and the run was undecided."""
    right = attachment_run(tmp_path / "saved", ["Saved to Drive"])
    assert right.verdict == "completed", why(right)
    assert attachment_run(tmp_path / "silent", ["Loading"]).verdict != "completed"


def described_comment_run(folder, typed: str):
    goal = 'Comment on Lucas Walsh\'s forum post "Carpool to the lake" with the reference number in the email ' \
           '"Booking confirmed".'  # fmt: skip
    mail, post = f"{APP}/mail/m/7", f"{APP}/forum/p/3"
    page = ["Carpool to the lake", "Lucas Walsh", "0 comments", "Write a comment...   Comment"]
    steps = [S(screen(["Inbox", "Booking confirmed"]), Click(point=middle(1, "Booking confirmed")), f"{APP}/mail/",
               "Inbox"),
             S(screen(["Booking confirmed", "Your booking is confirmed.", "Reference number: TX73004518"]),
               Click(point=Point(0.1, 0.9)), mail, "Booking confirmed"),
             S(screen(page), Click(point=middle(3, "Write a comment...")), post, "Carpool to the lake"),
             S(screen(page), Type(content=typed), post, "Carpool to the lake"),
             S(screen([*page[:3], f"{typed}   Comment"]), Click(point=last_word(3, f"{typed}   Comment")), post,
               "Carpool to the lake"),
             S(screen(["Carpool to the lake", "Lucas Walsh", "1 comment", f"You: {typed}", "Comment added."]),
               Finished(content="Done."), post + "#comments", "Carpool to the lake")]  # fmt: skip
    return verify(record(folder, steps, goal))


def test_a_comment_whose_text_is_described_is_checked_as_the_answer_it_describes(tmp_path):
    """Before: the post's title and "2024" read as values to type, so a right comment was `contradicted`."""
    right = described_comment_run(tmp_path / "right", "TX73004518")
    assert right.verdict == "completed", why(right)
    wrong = described_comment_run(tmp_path / "wrong", "TX11110000")  # a code no screen showed
    assert wrong.verdict != "completed", why(wrong)


# ---- how goals are read --------------------------------------------------------------------------------------


def test_a_scene_before_a_semicolon_goes_with_the_request_after_it():
    """Before: "You already read the email "X"" was a keypoint of its own, which no run can meet, and the request
    after it lost the mail it is about."""
    points = split_goal('You already read the email "Feedback on your proposal"; mark it as unread so you remember '
                        "to answer it later.")  # fmt: skip
    assert points == ['Mark it as unread so you remember to answer it later (You already read the email '
                      '"Feedback on your proposal")']  # fmt: skip
    assert len(split_goal('Reply to "Lunch"; say thanks.')) == 2  # a request before the semicolon stays one
    # "请按…" is a request with its source before the verb, so the scene before it is context
    assert split_goal("人力资源部 发邮件通知你调动团队。请按邮件内容修改个人资料中的部门。") == \
        ["请按邮件内容修改个人资料中的部门 (人力资源部 发邮件通知你调动团队)"]  # fmt: skip


def test_a_request_to_report_back_is_a_keypoint_of_its_own_in_chinese():
    """Before: "，告诉我…" stayed inside the search step before it, so a run whose typing was submitted anywhere (the
    price filter) was `completed` without ever answering."""
    points = split_goal("在商城搜索“冰川”，按价格从低到高排序，告诉我最便宜的商品叫什么。")
    assert points[-1] == "Answer: 告诉我最便宜的商品叫什么" and len(points) == 3  # the sort is a step of its own


def test_a_value_named_by_its_source_is_not_met_by_typing_the_sources_name(tmp_path):
    """Before: the event's date, named "the date Lucas Walsh proposes in the email "X"", counted as the values
    "Lucas Walsh" and "X": a run that typed those into the form and saved it was `completed`."""
    goal = 'Add a one-hour event "Supplier audit" to the calendar on the date Lucas Walsh proposes in the email ' \
           '"Review of the Q2 numbers".'  # fmt: skip
    url = f"{APP}/calendar/new"
    form = ["New event", "Title", "Date", "Save"]
    steps = [S(screen(form), Click(point=middle(1, "Title")), url, "New event"),
             S(screen(form), Type(content="Supplier audit"), url, "New event"),
             S(screen(form), Click(point=middle(2, "Date")), url, "New event"),
             S(screen(form), Type(content="Review of the Q2 numbers, Lucas Walsh"), url, "New event"),
             S(screen(form), Click(point=middle(3, "Save")), url, "New event"),
             S(screen(["March 2024", "Event saved."]), Finished(content="Done."), f"{APP}/calendar/?flash=saved",
               "March 2024")]  # fmt: skip
    report = verify(record(tmp_path, steps, goal))
    assert report.verdict != "completed", why(report)


def search_run(folder, after_url: str, after_title: str):
    goal = "在邮件中搜索“PRJ-7741”。"
    box = ["收件箱", "搜索邮件"]
    steps = [S(zh_screen(box), Click(point=Point(0.15, 92 / SIZE[1])), f"{APP}/mail/", "收件箱 · 林晓"),
             S(zh_screen(box), Type(content="PRJ-7741"), f"{APP}/mail/", "收件箱 · 林晓"),
             S(zh_screen(["收件箱", "PRJ-7741"]), PressEnter(), f"{APP}/mail/", "收件箱 · 林晓"),
             S(zh_screen(["收件箱", "权限申请已批准"]), Finished(content=""), after_url, after_title)]  # fmt: skip
    return verify(record(folder, steps, goal))


def test_a_search_is_the_typed_text_carried_by_the_page_as_its_search(tmp_path):
    """Before: a Chinese search keypoint matched no rule (the run was `uncertain`), and a search typed into a price
    filter and applied was credited as a submitted form."""
    right = search_run(tmp_path / "q", f"{APP}/mail/?q=PRJ-7741", "收件箱 · 林晓")
    assert right.verdict == "completed", why(right)
    assert "carries the search" in why(right)
    filtered = search_run(tmp_path / "min", f"{APP}/mail/?min=PRJ-7741&max=PRJ-7741", "收件箱 · 林晓")
    assert filtered.verdict != "completed", why(filtered)


def test_a_chinese_unstar_is_the_click_on_its_label_on_the_mails_page(tmp_path):
    """Before: "的星标" after the quoted subject read as a value the keypoint names, and 取消…星标 with the mail in
    between was not read as an unstar, so the run was undecided."""
    kp = "取消邮件“预订团建场地”的星标，这件事已经处理完了"
    assert needles(kp) == ["预订团建场地"]
    url = f"{APP}/mail/m/3"
    steps = [S(zh_screen(["预订团建场地", "取消星标", "返回"]), Click(point=Point(0.1, 92 / SIZE[1])), url, "预订团建场地 · 林晓"),
             S(zh_screen(["预订团建场地", "已取消"]), Finished(content=""), url + "?x=1", "预订团建场地 · 林晓")]  # fmt: skip
    report = verify(record(tmp_path, steps, kp + "。"))
    assert report.verdict == "completed", why(report)
