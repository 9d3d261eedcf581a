"""Acts of several-part goals the rules left undecided on a fresh training sample (seed 8), so their right runs were
`uncertain` and never became SFT rows: cells saved in a sheet before an event saved in the calendar, a comment
posted before a search in the shop, a language switched after the user's name was changed, a bank transfer (its
verb and its amount), a guest added to an event, a line at a document's end named as an email's reference number. Drawn screens, read by the real OCR; each right run must be
`completed` and each near miss must not. Each test fails on the rules as they were before."""

from __future__ import annotations

from test_request_and_recipient_rules import described_append_run
from test_settings_and_sheet_rules import sheet_run
from verify_helpers import S, middle, record, screen, why
from verify_helpers import verify_rules as verify

from venuskit.actions.types import Click, Finished, Point, Type

APP = "http://127.0.0.1:8000"


def test_cells_saved_before_an_event_saved_in_the_calendar_are_read_on_the_sheet(tmp_path):
    """Before: the last Save of the episode (the event's) was taken as the sheet's, and its screen has no grid."""
    goal = 'In "Q2 targets.xlsx", change B2 to 140 and save, then add the event "Design crit" to the calendar.'
    form, url = ["New event", "Title", "Save"], f"{APP}/calendar/new"
    later = (S(screen(form), Click(point=middle(1, "Title")), url=url, title="New event"),
             S(screen(form), Type(content="Design crit"), url=url, title="New event"),
             S(screen(form), Click(point=middle(2, "Save")), url=url, title="New event"),
             S(screen(["Design crit", "Fri, 15 Mar 2024", "Saved."]), Finished(content="Done."),
               url=f"{APP}/calendar/e/9", title="Design crit"))  # fmt: skip
    right = sheet_run(tmp_path / "right", goal, [("B2", "140")], after=later)
    assert right.verdict == "completed", why(right)
    wrong = sheet_run(tmp_path / "wrong", goal, [("B2", "104")], after=later)
    assert wrong.verdict != "completed", why(wrong)


def comment_then_search_run(folder, typed: str):
    """Comment `typed` on the post, then search the shop (the goal's next part types there too)."""
    goal = 'Comment on Nora Silva\'s forum post "Lost and found: grey scarf" with the reference number in the email ' \
           '"Your access request", then search the shop for "maps".'  # fmt: skip
    post, shop = f"{APP}/forum/p/3", f"{APP}/shop/"
    page = ["Lost and found: grey scarf", "Nora Silva", "0 comments", "Write a comment...   Comment"]
    filled = [*page[:3], f"{typed}   Comment"]
    steps = [S(screen(["Inbox", "Your access request"]), Click(point=middle(1, "Your access request")),
               f"{APP}/mail/", "Inbox"),
             S(screen(["Your access request", "Your reference number is SR-19305."]), Click(point=Point(0.1, 0.9)),
               f"{APP}/mail/m/4", "Your access request"),
             S(screen(page), Click(point=middle(3, "Write a comment...")), post, "Lost and found: grey scarf"),
             S(screen(page), Type(content=typed), post, "Lost and found: grey scarf"),
             S(screen(filled), Click(point=middle(3, filled[3])), post, "Lost and found: grey scarf"),
             S(screen(["Lost and found: grey scarf", "1 comment", f"You: {typed}", "Comment added."]),
               Click(point=Point(0.1, 0.95)), post + "#comments", "Lost and found: grey scarf"),
             S(screen(["Shop", "Search products"]), Click(point=middle(1, "Search products")), shop, "Shop"),
             S(screen(["Shop", "Search products"]), Type(content="maps\n"), shop, "Shop"),
             S(screen(["Results for “maps”", "A Short History of Maps  18.00"]), Finished(content="Done."),
               shop + "?q=maps", "Results for “maps”")]  # fmt: skip
    return verify(record(folder, steps, goal))


def test_a_described_comment_is_found_before_the_goals_later_typing(tmp_path):
    """Before: only the episode's last typing (the shop's search) was taken as the comment's, so it was not found."""
    right = comment_then_search_run(tmp_path / "right", "SR-19305")
    assert right.verdict == "completed", why(right)
    wrong = comment_then_search_run(tmp_path / "wrong", "SR-11111")  # a number no screen showed
    assert wrong.verdict != "completed", why(wrong)


def test_a_language_switch_after_the_user_renamed_themselves_reads_the_titles_past_the_new_name(tmp_path):
    """Before: the new name "林晓晓" is in the titles only after the rename, so it did not count as a name, and the
    English title "Settings · 林晓晓" read as Chinese."""
    goal = "把显示名称改为“林晓晓”，并把工作区语言切换为英文。"
    url = f"{APP}/settings/"

    def run(folder, after: str):
        steps = [S(screen(["Profile", "Display name", "Save"]), Click(point=middle(1, "Display name")), url,
                   "设置 · 林晓"),
                 S(screen(["Profile", "Display name", "Save"]), Type(content="林晓晓"), url, "设置 · 林晓"),
                 S(screen(["Profile", "Display name", "Save"]), Click(point=middle(2, "Save")), url, "设置 · 林晓"),
                 S(screen(["Profile", "Saved", "Language"]), Click(point=middle(2, "Language")), url, "设置 · 林晓晓"),
                 S(screen(["Language", "English", "Save"]), Click(point=middle(2, "Save")), url + "?s=language",
                   "设置 · 林晓晓"),
                 S(screen(["Language", "Saved"]), Finished(content="Done."), url + "?s=language", after)]  # fmt: skip
        return verify(record(folder, steps, goal))

    switched = run(tmp_path / "switched", "Settings · 林晓晓")
    assert next(k for k in switched.keypoints if "语言" in k.text).status == "satisfied", why(switched)
    stayed = run(tmp_path / "stayed", "设置 · 林晓晓")
    assert next(k for k in stayed.keypoints if "语言" in k.text).status != "satisfied", why(stayed)


def transfer_run(folder, amount: str):
    goal = 'Transfer 35.00 EUR from your checking account to Green Leaf Landlord, a saved recipient, with the ' \
           'reference "Repair 0412".'  # fmt: skip
    url = f"{APP}/bank/transfer"
    form = ["Transfer", "To: Green Leaf Landlord", "Amount", "Reference", "Continue"]
    review = ["Review your transfer", "Green Leaf Landlord", amount, "Repair 0412", "Confirm transfer"]
    steps = [S(screen(form), Click(point=middle(2, "Amount")), url, "Transfer"),
             S(screen(form), Type(content=amount), url, "Transfer"),
             S(screen(form), Click(point=middle(3, "Reference")), url, "Transfer"),
             S(screen(form), Type(content="Repair 0412"), url, "Transfer"),
             S(screen(form), Click(point=middle(4, "Continue")), url, "Transfer"),
             S(screen(review), Click(point=middle(4, "Confirm transfer")), url, "Transfer"),
             S(screen(["Everyday Checking", "TRANSFER TO GREEN LEAF LANDLORD", f"-{amount}"]), Finished(content="Done."),
               f"{APP}/bank/a/1", "Everyday Checking")]  # fmt: skip
    return verify(record(folder, steps, goal))


def test_a_transfer_is_an_entry_whose_amount_is_one_of_its_values(tmp_path):
    """Before: "Transfer" was no entry verb and an amount with cents no value of a money form's, so a transfer of
    the wrong amount was left undecided (`uncertain`, a run no one can learn from) instead of `failed`."""
    right = transfer_run(tmp_path / "right", "35.00")
    assert right.verdict == "completed", why(right)
    wrong = transfer_run(tmp_path / "wrong", "53.00")
    assert wrong.verdict == "failed", why(wrong)


def guest_run(folder, event: str):
    """Open `event`, edit it, add the guest to its attendees, save."""
    goal = 'Add isabel.silva@northwind.example as a guest to "Roadmap review" this Friday.'
    url = f"{APP}/calendar/e/14"
    page = [event, "Fri, 15 Mar 2024, 12:00 - 13:00", "dan@acme.example", "Edit"]
    form = [f"Edit {event}", "Guests: dan@acme.example", "Save"]
    after = [event, "Fri, 15 Mar 2024, 12:00 - 13:00", "dan@acme.example", "isabel.silva@northwind.example", "Saved."]
    steps = [S(screen(["11 - 17 Mar 2024", "Design crit", event]), Click(point=middle(2, event)),
               f"{APP}/calendar/?view=week", "11 - 17 Mar 2024"),
             S(screen(page), Click(point=middle(3, "Edit")), url, event),
             S(screen(form), Click(point=middle(1, form[1])), url + "/edit", event),
             S(screen(form), Type(content=", isabel.silva@northwind.example"), url + "/edit", event),
             S(screen(form), Click(point=middle(2, "Save")), url + "/edit", event),
             S(screen(after), Finished(content="Done."), url, event)]  # fmt: skip
    return verify(record(folder, steps, goal))


def test_a_guest_added_to_the_named_event_is_done_and_to_another_event_is_not(tmp_path):
    """Before: "Add X as a guest to "E"" was no entry and no click, so no rule read it."""
    right = guest_run(tmp_path / "right", "Roadmap review")
    assert right.verdict == "completed", why(right)
    other = guest_run(tmp_path / "other", "Design crit")
    assert other.verdict != "completed", why(other)


def test_a_line_described_as_the_reference_number_in_an_email_is_that_emails_code(tmp_path):
    """Before: a value named by its source ("… in the email "Q"") was always left undecided, as a time a mail
    "proposes" must be; an identifier is one code the source's screen shows."""
    goal = 'Add the reference number in the email "Locker key issued" at the end of the document "Retro notes.docx" ' \
           'and save it.'  # fmt: skip
    mail = S(screen(["Locker key issued", "Hello, your reference number is RMA-5127."]), Click(point=Point(0.05, 0.95)),
             f"{APP}/mail/m/3", "Locker key issued")  # fmt: skip
    right = described_append_run(tmp_path / "right", "RMA-5127", goal, mail)
    assert right.verdict == "completed", why(right)
    unseen = described_append_run(tmp_path / "unseen", "RMA-7777", goal, mail)
    assert unseen.verdict != "completed", why(unseen)


def test_a_forms_values_are_read_where_they_were_committed_not_at_a_later_steps_save(tmp_path):
    """Before: the transfer's commit was taken to be the last form's (the document's Save at the end, which typed a
    code no part of the goal quotes), so the transfer seemed done after the invitation it comes before, and the
    right run was `partial`."""
    goal = 'Send 35.00 EUR to Green Leaf Landlord with the reference "Repair 0412", then accept the invitation to ' \
           '"Design crit", and finally add the reference number in the email "Locker key issued" at the end of the ' \
           'document "Vendor review.docx" and save it.'  # fmt: skip
    bank, event, doc = f"{APP}/bank/transfer", f"{APP}/calendar/e/3", f"{APP}/drive/f/8"
    form = ["Transfer", "To", "Amount", "Reference", "Continue"]
    review = ["Review your transfer", "Green Leaf Landlord", "35.00", "Repair 0412", "Confirm transfer"]
    body = ["Save", "1. Goals", "2. Milestones"]
    steps = [S(screen(form), Click(point=Point(0.7, middle(1, "To").y)), bank, "Transfer"),
             S(screen(form), Type(content="Green Leaf Landlord"), bank, "Transfer"),
             S(screen(form), Click(point=Point(0.7, middle(2, "Amount").y)), bank, "Transfer"),
             S(screen(form), Type(content="35.00"), bank, "Transfer"),
             S(screen(form), Click(point=Point(0.7, middle(3, "Reference").y)), bank, "Transfer"),
             S(screen(form), Type(content="Repair 0412"), bank, "Transfer"),
             S(screen(form), Click(point=middle(4, "Continue")), bank, "Transfer"),
             S(screen(review), Click(point=middle(4, "Confirm transfer")), bank, "Transfer"),
             S(screen(["Everyday Checking", "TRANSFER TO GREEN LEAF LANDLORD", "-35.00"]),
               Click(point=Point(0.05, 0.95)), f"{APP}/bank/a/1", "Everyday Checking"),
             S(screen(["Design crit", "Thu, 14 Mar 2024", "Accept"]), Click(point=middle(2, "Accept")), event,
               "Design crit"),
             S(screen(["Design crit", "Thu, 14 Mar 2024", "Accepted"]), Click(point=Point(0.05, 0.95)), event,
               "Design crit"),
             S(screen(["Locker key issued", "Your reference number is RMA-5127."]), Click(point=Point(0.05, 0.95)),
               f"{APP}/mail/m/3", "Locker key issued"),
             S(screen(body), Click(point=Point(0.3, 0.55)), doc, "Vendor review.docx"),
             S(screen(body), Type(content="RMA-5127"), doc, "Vendor review.docx"),
             S(screen([*body, "RMA-5127"]), Click(point=middle(0, "Save")), doc, "Vendor review.docx"),
             S(screen(["Save", *body[1:], "RMA-5127", "Saved."]), Finished(content="Done."), doc,
               "Vendor review.docx")]  # fmt: skip
    report = verify(record(tmp_path, steps, goal))
    assert report.verdict == "completed", why(report)
