"""Rules for what a page shows of a setting and of a spreadsheet (verify/rules.py `switched`, `language_switched`,
`one_click`; verify/page_rules.py `cells_hold`), on recorded episodes with drawn screens read by the real OCR.

Each test fails on the rules as they were before (named in each): a switched-off notification, a language switch
under a Chinese user name, a decline after the reason for it, and cells set and saved were all left undecided, so
the runs were `uncertain`; a "Delete" on a mail asked to be deleted for good was not told apart from "Delete
forever" only because neither was credited."""

from __future__ import annotations

from PIL import Image, ImageDraw, ImageFont
from verify_helpers import S, middle, png, record, screen, why, zh_screen
from verify_helpers import verify_rules as verify

from venuskit.actions.types import Click, Finished, Point, SelectOption, Type
from venuskit.verify.keypoints import split_goal
from venuskit.verify.page_rules import cell_values

SIZE = (640, 400)


# ---- a setting switched on or off --------------------------------------------------------------------------

ROWS = ["Email me about new messages", "Push notifications on this device"]
BOX_Y = [110, 170]  # each row's box and label, below a "Notifications" heading; Save under them


def settings(email: bool, push: bool, saved: bool = False) -> bytes:
    """The notifications page: a filled blue box is ticked, a grey outline is not."""
    img = Image.new("RGB", SIZE, "white")
    draw = ImageDraw.Draw(img)
    font = ImageFont.load_default(size=24)
    draw.text((30, 40), "Notifications", fill="black", font=font)
    for y, label, on in zip(BOX_Y, ROWS, (email, push), strict=True):
        draw.rectangle((30, y, 54, y + 24), fill=(37, 99, 235) if on else "white", outline=(150, 150, 150), width=2)
        draw.text((70, y), label, fill="black", font=font)
    draw.text((30, 240), "Save", fill="black", font=font)
    if saved:
        draw.text((30, 330), "Saved.", fill="black", font=font)
    return png(img)


def box(row: int) -> Point:
    return Point(42 / SIZE[0], (BOX_Y[row] + 12) / SIZE[1])


SAVE = Point(60 / SIZE[0], 252 / SIZE[1])
URL = "http://127.0.0.1/settings/?s=notifications"


def switch_run(folder, goal: str, row: int, before: tuple[bool, bool]):
    """Click row `row`'s box (which flips it), click Save, finish on the saved page."""
    after = tuple(not v if i == row else v for i, v in enumerate(before))
    steps = [S(settings(*before), Click(point=box(row)), url=URL, title="Settings"),
             S(settings(*after), Click(point=SAVE), url=URL, title="Settings"),
             S(settings(*after, saved=True), Finished(content="Done."), url=URL, title="Settings")]  # fmt: skip
    return verify(record(folder, steps, goal))


def test_a_setting_switched_as_asked_and_saved_is_done_and_the_wrong_row_or_way_is_not(tmp_path):
    """Before: no rule read a box's state, so "Stop email notifications" was undecided whatever the clicks did."""
    goal = "Stop email notifications about new messages (leave push notifications as they are)."
    right = switch_run(tmp_path / "right", goal, 0, (True, False))
    assert right.verdict == "completed", right.reason
    assert "switched" in why(right) and "off" in why(right)
    other_row = switch_run(tmp_path / "other", goal, 1, (True, True))  # the push box was switched off instead
    assert other_row.verdict != "completed", why(other_row)
    turned_on = switch_run(tmp_path / "on", goal, 0, (False, False))  # email was off: the click switched it on
    assert turned_on.verdict != "completed", why(turned_on)


def test_a_switch_that_was_never_saved_is_not_done(tmp_path):
    goal = "Turn on push notifications on this device."
    steps = [S(settings(True, False), Click(point=box(1)), url=URL, title="Settings"),
             S(settings(True, True), Finished(content="Done."), url=URL, title="Settings")]  # fmt: skip
    report = verify(record(tmp_path, steps, goal))
    assert report.verdict != "completed", why(report)


# ---- the workspace's language --------------------------------------------------------------------------------


def test_a_language_switch_reads_the_titles_past_the_users_name(tmp_path):
    """Before: the title "Settings · 林晓" held Han characters (the signed-in user's name), so a switch to English
    never counted. The part every title shares says nothing of the language."""
    goal = "把工作区语言切换为英文。"
    page = ["Language", "English", "Save"]

    def run(folder, after: str):
        url = "http://127.0.0.1/settings/?s=language"
        steps = [S(screen(page), Click(point=Point(0.1, 0.85)), url=url, title="设置 · 林晓"),
                 S(screen(["Saved"]), Finished(content="Done."), url=url, title=after)]
        return verify(record(folder, steps, goal))

    assert run(tmp_path / "switched", "Settings · 林晓").verdict == "completed"
    assert run(tmp_path / "stayed", "设置 · 林晓").verdict != "completed"


# ---- one click on the item's page ---------------------------------------------------------------------------


def one_click_run(folder, goal: str, title: str, label: str):
    """On the item's page, click `label`; the page changes; finish."""
    page = [title, label, "Back"]
    url = "http://127.0.0.1/item/14"
    middle = 30 + ImageFont.load_default(size=24).getlength(label) / 2  # `screen` draws line i at y = 30 + 50 i
    steps = [S(screen(page), Click(point=Point(middle / SIZE[0], 92 / SIZE[1])), url=url, title=title),
             S(screen([title, "Done"]), Finished(content="Done."), url=url + "?x=1", title=title)]  # fmt: skip
    return verify(record(folder, steps, goal))


def test_the_act_after_the_reason_for_it_is_the_click_asked_for(tmp_path):
    """Before: the verb was the keypoint's first word ("You"), so a Decline on the event's page decided nothing."""
    goal = 'You can\'t make it to "Vendor demo": decline the invitation.'
    assert one_click_run(tmp_path / "decline", goal, "Vendor demo", "Decline").verdict == "completed"
    assert one_click_run(tmp_path / "accept", goal, "Vendor demo", "Accept").verdict != "completed"


def test_a_deletion_for_good_needs_the_label_that_says_so(tmp_path):
    """Before: "Permanently" was read as the verb, so neither click counted. Now "Delete forever" does, and a
    plain "Delete" (a move to Trash) does not."""
    goal = 'Permanently delete the email "Old reset link" that is already in Trash.'
    assert one_click_run(tmp_path / "forever", goal, "Old reset link", "Delete forever").verdict == "completed"
    assert one_click_run(tmp_path / "trash", goal, "Old reset link", "Delete").verdict != "completed"


# ---- a spreadsheet's cells ------------------------------------------------------------------------------------

COLS, ROWS_Y = {"A": 150, "B": 270, "C": 390}, {1: 130, 2: 180, 3: 230}  # header centres; cells 120 x 50


def sheet(cells: dict[str, str], saved: bool = False) -> bytes:
    """A spreadsheet: column letters over the grid, row numbers left of it, values left-aligned in their cells."""
    img = Image.new("RGB", SIZE, "white")
    draw = ImageDraw.Draw(img)
    font = ImageFont.load_default(size=22)
    draw.text((30, 20), "Q2 targets.xlsx", fill="black", font=font)
    draw.text((520, 20), "Save", fill="black", font=font)
    for c, x in COLS.items():
        draw.text((x - 6, 80), c, fill="black", font=font)
    for r, y in ROWS_Y.items():
        draw.text((50, y - 11), str(r), fill="black", font=font)
    for cell, value in cells.items():
        draw.text((COLS[cell[0]] - 52, ROWS_Y[int(cell[1:])] - 11), value, fill="black", font=font)
    if saved:
        draw.text((30, 340), "Saved.", fill="black", font=font)
    return png(img)


def cell(name: str) -> Point:
    return Point(COLS[name[0]] / SIZE[0], ROWS_Y[int(name[1:])] / SIZE[1])


def sheet_run(folder, goal: str, typed: list[tuple[str, str]], before: tuple[S, ...] = (), after: tuple[S, ...] = ()):
    """After the steps `before`, type each value into its cell, click Save; then the steps `after` (leaving the sheet
    from the saved one), or finish on the saved sheet."""
    base = {"A1": "Region", "A2": "North", "A3": "South", "B1": "Apr", "C1": "May", "B2": "125", "C3": "80"}
    url, title = "http://127.0.0.1/drive/f/8", "Q2 targets.xlsx"
    cells, steps = dict(base), list(before)
    for name, value in typed:
        steps += [S(sheet(cells), Click(point=cell(name)), url=url, title=title),
                  S(sheet(cells), Type(content=value), url=url, title=title)]  # fmt: skip
        cells[name] = value
    steps.append(S(sheet(cells), Click(point=Point(540 / SIZE[0], 31 / SIZE[1])), url=url, title=title))
    if after:
        steps += [S(sheet(cells, saved=True), Click(point=Point(0.05, 0.95)), url=url, title=title), *after]
    else:
        steps.append(S(sheet(cells, saved=True), Finished(content="Saved."), url=url, title=title))
    return verify(record(folder, steps, goal))


def test_cells_set_and_saved_read_in_their_cells_and_swapped_values_do_not(tmp_path):
    """Before: no rule read a grid, so "change B2 to 140 and C3 to 95" stayed undecided. Now each value is read at
    its column letter and row number on the screen after Save; the same values in each other's cells are not it."""
    goal = 'In "Q2 targets.xlsx", change B2 to 140 and C3 to 95, then save.'
    right = sheet_run(tmp_path / "right", goal, [("B2", "140"), ("C3", "95")])
    assert right.verdict == "completed", right.reason
    assert "B2=140" in why(right)
    swapped = sheet_run(tmp_path / "swapped", goal, [("B2", "95"), ("C3", "140")])
    assert swapped.verdict != "completed", why(swapped)


def test_the_cells_a_keypoint_names_are_paired_with_its_values_in_order():
    assert cell_values("在表格“销售.xlsx”中把 B2 改为 140，C3 改为 95") == [("B2", "140"), ("C3", "95")]
    assert cell_values('Create a sheet "Books" with the headers Title and Author in A1 and B1, and Dune / '
                       "Frank Herbert in A2 and B2") == [("A1", "Title"), ("B1", "Author"), ("A2", "Dune"),
                                                         ("B2", "Frank Herbert")]  # fmt: skip
    assert cell_values('Put "Total" in A5') == [("A5", "Total")]
    assert cell_values("Put the values in A1 and B1") == []  # two cells, one phrase: no pairing


def test_where_an_item_comes_from_is_not_the_state_it_is_asked_to_reach(tmp_path):
    """Before: "back from Trash to the inbox" made "Trash" the state to show, so opening the side menu on the mail's
    page (its folder list reads "Trash") completed the restore. Found on a training-template episode."""
    goal = 'Bring the email "Recycling bins moved" back from Trash to the inbox.'
    mail, url, title = ["Recycling bins moved", "Reply", "Restore"], "http://127.0.0.1/mail/m/45", "Recycling bins moved"
    steps = [S(screen(mail), Click(point=Point(0.05, 0.1)), url=url, title=title),
             S(screen(["Inbox", "Archive", "Trash", *mail]), Finished(content="Done."), url=url, title=title)]
    report = verify(record(tmp_path, steps, goal))
    assert report.verdict != "completed", why(report)


def test_typing_a_name_and_saving_it_is_no_star(tmp_path):
    """Before: "Star the document "X" you created" was satisfied by the submit rule (X typed, then Save), so a run
    that created the document and never starred it was `completed`. Found on a training-template episode."""
    goal = 'Create a document titled "Weekly priorities". Star the document "Weekly priorities" you created.'
    form, url = ["New document", "Title:", "Save"], "http://127.0.0.1/drive/new"
    steps = [S(screen(form), Click(point=Point(0.3, 0.23)), url=url, title="New document"),
             S(screen(form), Type(content="Weekly priorities"), url=url, title="New document"),
             S(screen(form), Click(point=Point(0.08, 0.36)), url=url, title="New document"),
             S(screen(["Weekly priorities", "Saved"]), Finished(content="Done."), url="http://127.0.0.1/drive/f/9?saved=1",
               title="Weekly priorities")]  # fmt: skip
    report = verify(record(tmp_path, steps, goal))
    assert report.verdict != "completed", why(report)
    assert report.keypoints[0].status == "satisfied", why(report)  # the document itself was made


def test_a_cell_set_to_a_described_value_holds_the_value_its_description_names(tmp_path):
    """Before: "set cell C3 to the amount …" read the whole description as the value, so no grid could hold it and
    every right run was undecided."""
    goal = 'In "Q2 targets.xlsx", set cell C3 to the amount Copperline Print\'s payment request email asks for, ' \
           "then save."  # fmt: skip
    mail = (S(screen(["Payment request", "From: Copperline Print", "Please pay 35.00 by Friday.", "Invoice 118 40.00"]),
              Click(point=Point(0.05, 0.95)), url="http://127.0.0.1/mail/m/3", title="Payment request"),)  # fmt: skip
    right = sheet_run(tmp_path / "right", goal, [("C3", "35.00")], before=mail)
    assert right.verdict == "completed", why(right)
    made_up = sheet_run(tmp_path / "made_up", goal, [("C3", "53.00")], before=mail)  # no screen showed it
    assert made_up.verdict != "completed", why(made_up)
    other_cell = sheet_run(tmp_path / "other_cell", goal, [("B3", "35.00")], before=mail)
    assert other_cell.verdict != "completed", why(other_cell)


def test_two_verbs_of_one_object_are_one_step():
    """Before: "File and submit a report …" made "File" a keypoint of its own, which no run can meet."""
    assert split_goal('File and submit the expense report "Workshop Vienna".') == [
        'File and submit the expense report "Workshop Vienna"']
    assert split_goal('Star the email "A" and archive it.') == ['Star the email "A"', "Archive it"]


def test_typing_on_another_page_after_the_save_leaves_the_saved_cells_as_they_are(tmp_path):
    """Before: any typing after the save (a search in the shop, the goal's next step) left the cells undecided."""
    goal = 'In "Q2 targets.xlsx", change B2 to 140, then save, then search the shop for "lamp".'
    shop = "http://127.0.0.1/shop/"
    later = (S(screen(["Shop", "Search products"]), Click(point=Point(0.1, 0.2)), url=shop, title="Shop"),
             S(screen(["Shop", "Search products"]), Type(content="lamp\n"), url=shop, title="Shop"),
             S(screen(["Results for “lamp”", "Desk lamp  24.00"]), Finished(content="Done."), url=shop + "search?q=lamp",
               title="Results for “lamp”"))  # fmt: skip
    report = sheet_run(tmp_path, goal, [("B2", "140")], after=later)
    cells = next(k for k in report.keypoints if "B2" in k.text)
    assert cells.status == "satisfied", why(report)


def display_name_run(folder, edit_page: tuple[str, str], saved_title: str):
    """Accept the event "Design crit", then type the new display name on `edit_page` (url, title) and save it (the
    saved page is titled `saved_title`)."""
    goal = 'Accept the invitation to "Design crit", then change your display name to "Alex Morgan-Lee".'
    event, event_url = ["Design crit", "Thu 14 Mar 10:00", "Accept   Decline", "Edit"], "http://127.0.0.1/cal/e/7"
    url, title = edit_page
    form = [title, "Name:", "Save"]
    steps = [S(screen(event), Click(point=middle(2, "Accept")), url=event_url, title="Design crit"),
             S(screen([*event, "Accepted"]), Click(point=Point(0.5, 0.5)), url=event_url, title="Design crit"),
             S(screen(form), Click(point=Point(0.3, 0.23)), url=url, title=title),
             S(screen(form), Type(content="Alex Morgan-Lee"), url=url, title=title),
             S(screen([title, "Name: Alex Morgan-Lee", "Save"]), Click(point=middle(2, "Save")), url=url, title=title),
             S(screen([saved_title, "Saved."]), Finished(content="Done."), url=url, title=saved_title)]  # fmt: skip
    return verify(record(folder, steps, goal))


def test_a_setting_of_the_users_own_is_not_changed_on_a_form_about_another_named_item(tmp_path):
    """Before: the submit rule credited "change your display name to "V"" with V typed into the event's own form
    and saved (the event was renamed), so the run was `completed`. Found on a training-split episode (seed 7)."""
    right = display_name_run(tmp_path / "right", ("http://127.0.0.1/settings/profile", "Settings · Alex Morgan"),
                             "Settings · Alex Morgan-Lee")
    assert right.keypoints[1].status == "satisfied", why(right)
    event_form = display_name_run(tmp_path / "event", ("http://127.0.0.1/cal/e/7/edit", "Edit event: Design crit"),
                                  "Alex Morgan-Lee")  # the event, renamed
    assert event_form.keypoints[1].status != "satisfied", why(event_form)
    assert event_form.verdict != "completed", why(event_form)


# The episode's field was "部门"; this font's 门 reads "內" to the OCR, so the drawn page names the team instead.
ZH_PROFILE_GOAL = "把显示名称改为“林晓（产品）”，团队改为 Sales。"


def zh_profile_run(folder, name: str, department: str):
    """Type `name` into the name field, pick `department` in the drop-down and click Save. The screenshot after the
    pick still shows the drop-down's list, drawn over the Save button (the click there reads "Engineering")."""
    url, title = "http://127.0.0.1/settings/", "设置 · 林晓"
    at = lambda line: Point(0.2, (30 + 50 * line + 13) / 400)  # noqa: E731 - a line of zh_screen
    form = ["个人资料", "姓名", "林晓", "团队", "Product", "保存"]
    listed = ["个人资料", "姓名", name, "团队", department, "Engineering", "Finance"]
    saved = ["个人资料", "姓名", name, "团队", department, "保存", "已保存。"]
    steps = [S(zh_screen(form), Click(point=at(2)), url=url, title=title),
             S(zh_screen(form), Type(content=name), url=url, title=title),
             S(zh_screen([*form[:2], name, *form[3:]]), Click(point=at(4)), url=url, title=title),
             S(zh_screen(listed), SelectOption(index=3), url=url, title=title),
             S(zh_screen(listed), Click(point=at(5)), url=url, title=title),
             S(zh_screen(saved), Finished(content="完成"), url=url, title=f"设置 · {name}")]  # fmt: skip
    return verify(record(folder, steps, ZH_PROFILE_GOAL))


def test_a_chinese_profile_change_of_two_fields_is_two_steps_each_read_from_the_saved_page(tmp_path):
    """Before: "，部门改为 Sales" was no step of its own (it starts with a noun), no rule read a Chinese field set with a
    drop-down, and a Save clicked while the list still covered it read "Engineering", so the form was never taken
    as submitted: the right run was `uncertain`. Found on a training-template episode (seed 7)."""
    assert split_goal(ZH_PROFILE_GOAL) == ["把显示名称改为“林晓（产品）”", "团队改为 Sales"]
    right = zh_profile_run(tmp_path / "right", "林晓（产品）", "Sales")
    assert right.verdict == "completed", why(right)
    other_department = zh_profile_run(tmp_path / "finance", "林晓（产品）", "Finance")
    assert other_department.keypoints[1].status != "satisfied", why(other_department)
    assert other_department.verdict != "completed", why(other_department)


def test_a_search_for_the_new_name_saves_no_name(tmp_path):
    """The title of a search's results names the typed text; that is no saved entry (the new done signal, a title
    that names what was typed, leaves results pages out)."""
    url = "http://127.0.0.1/shop/"
    steps = [S(zh_screen(["商城", "搜索"]), Click(point=Point(0.2, 0.1)), url=url, title="商城 · 林晓"),
             S(zh_screen(["商城", "搜索"]), Type(content="林晓（产品）"), url=url, title="商城 · 林晓"),
             S(zh_screen(["商城", "搜索"]), Click(point=Point(0.2, 0.2)), url=url, title="商城 · 林晓"),
             S(zh_screen(["没有结果"]), Finished(content="完成"), url=url + "?q=林晓（产品）",
               title="“林晓（产品）”的搜索结果 · 林晓")]  # fmt: skip
    report = verify(record(tmp_path, steps, ZH_PROFILE_GOAL))
    assert report.keypoints[0].status != "satisfied", why(report)
