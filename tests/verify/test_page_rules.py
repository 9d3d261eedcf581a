"""Keypoint rules from what any page shows (verify/page_rules.py), on recorded episodes with rendered screens read by
the real OCR: the words under the red dot, the page's own task box, values in their fields when the form was
committed, the order the goal states, drags to a rank, and `uncertain` when no rule can tell.

Every test here fails on the rules as they were before them (named in each): a click on one word of a paragraph
was never credited, a value typed into the wrong field or a step done out of order was credited, a prefix typed for
"an item that starts with" was credited, and a keypoint nobody could decide made the run `failed`."""

from __future__ import annotations

from PIL import ImageFont
from verify_helpers import S, cjk_font_path, record, screen, zh_screen

from venuskit.actions.types import Click, Drag, Finished, Point, PressEnter, SelectOption, Type
from venuskit.record.episode import Outcome
from venuskit.verify import SGVConfig, make_judges, verify_episode

SIZE = (640, 400)
ENDED = Outcome(terminated=True, reason="env_done")  # the page ended the episode (MiniWoB++ does, either way)


def at(lines: list[str], i: int, word: str | None = None, dx: float = 0.0) -> Point:
    """The normalised centre of `word` on line `i` as `screen` renders it (the whole line without a word)."""
    font = ImageFont.load_default(size=24)
    line = lines[i]
    start = line.index(word) if word else 0
    left = 30 + font.getlength(line[:start])
    width = font.getlength(word or line)
    return Point((left + width / 2 + dx) / SIZE[0], (30 + 50 * i + 12) / SIZE[1])


def rules():
    return make_judges("ocr,log")


def verify(folder):
    return verify_episode(folder, rules(), SGVConfig())


def statuses(report):
    return [k.status for k in report.keypoints]


def why(kp) -> str:
    """The reason of the decisive vote that decided a keypoint (the rule names its evidence there)."""
    return " | ".join(v.reason for v in kp.votes if v.status == kp.status or kp.status == "open")


# ---- the words under the red dot ------------------------------------------------------------------------

LINK_GOAL = 'Switch between the tabs to find and click on the link "auctor".'
LINK_PAGE = ["Switch between the tabs to find", 'and click on the link "auctor".', "Tab #1      Tab #2",
             "Mollis consectetur arcu", "massa auctor eget eu tellus", "orci ut. Mauris elementum"]  # fmt: skip


def test_a_click_on_one_link_word_of_a_paragraph_is_the_click_the_goal_names(tmp_path):
    """Before: the text under a click was the whole OCR line ("massa auctor eget eu tellus"), so the link was never
    credited, and a value with no screen after the first action was called never shown: `failed`."""
    steps = [S(screen(LINK_PAGE), Click(point=at(LINK_PAGE, 4, "auctor")))]
    report = verify(record(tmp_path, steps, LINK_GOAL, finish=ENDED))
    assert report.verdict == "completed", report.reason
    (kp,) = report.keypoints
    assert kp.text == 'Click on the link "auctor"'  # the tab switching is the way there, not a keypoint
    assert "'auctor' at step 0" in why(kp)


def test_a_click_on_the_goal_text_the_page_shows_is_not_a_click_on_the_item(tmp_path):
    steps = [S(screen(LINK_PAGE), Click(point=at(LINK_PAGE, 1, '"auctor"')))]
    report = verify(record(tmp_path, steps, LINK_GOAL, finish=ENDED))
    assert report.verdict == "failed"  # the link stood on the page, off the task box, and was not clicked
    assert "stood on a screen the agent saw" in why(report.keypoints[0])


def test_a_click_on_another_link_word_is_contradicted(tmp_path):
    steps = [S(screen(LINK_PAGE), Click(point=at(LINK_PAGE, 4, "tellus")))]
    report = verify(record(tmp_path, steps, LINK_GOAL, finish=ENDED))
    assert report.verdict == "failed" and statuses(report) == ["contradicted"]


# ---- the order the goal states, and the items it names --------------------------------------------------

ORDER_GOAL = "Click button ONE, then click button TWO."
ORDER_PAGE = ["Click button ONE, then click", "button TWO.", "", "TWO", "ONE"]


def test_two_clicks_in_the_wrong_order_are_not_completed(tmp_path):
    """Before: each click was credited on its own, in any order: `completed`."""
    after = screen([*ORDER_PAGE[:3], "TWO pressed", "ONE"])
    right = record(tmp_path / "right", [S(screen(ORDER_PAGE), Click(point=at(ORDER_PAGE, 4, "ONE"))),
                                        S(after, Click(point=at(ORDER_PAGE, 3, "TWO")))], ORDER_GOAL, finish=ENDED)
    assert verify(right).verdict == "completed"
    wrong = record(tmp_path / "wrong", [S(screen(ORDER_PAGE), Click(point=at(ORDER_PAGE, 3, "TWO"))),
                                        S(after, Click(point=at(ORDER_PAGE, 4, "ONE")))], ORDER_GOAL, finish=ENDED)
    report = verify(wrong)
    assert report.verdict == "partial" and report.keypoints[1].decided_by == "order"
    assert "the goal puts it after" in why(report.keypoints[1])


BOX_GOAL = "Select BQrG, MH and click Submit."


def test_an_item_the_goal_does_not_name_picked_too_is_contradicted(tmp_path):
    """Before: the named boxes were clicked, so the keypoint held whatever else was ticked: `completed`."""
    page = ["Select BQrG, MH and click", "Submit.", "BQrG", "MH", "Dcw", "Submit"]
    ticked = [page[:2] + ["* BQrG", "MH", "Dcw", "Submit"], page[:2] + ["* BQrG", "* MH", "Dcw", "Submit"],
              page[:2] + ["* BQrG", "* MH", "* Dcw", "Submit"]]  # fmt: skip
    steps = [S(screen(page), Click(point=at(page, 2, "BQrG"))), S(screen(ticked[0]), Click(point=at(page, 3, "MH"))),
             S(screen(ticked[1]), Click(point=at(page, 4, "Dcw"))),
             S(screen(ticked[2]), Click(point=at(page, 5, "Submit")))]  # fmt: skip
    report = verify(record(tmp_path, steps, BOX_GOAL, finish=ENDED))
    assert report.verdict == "partial" and statuses(report) == ["contradicted", "satisfied"]
    assert "also picked 'Dcw'" in why(report.keypoints[0])


# ---- values in their fields when the form was committed ---------------------------------------------------

LOGIN_GOAL = 'Enter the username "emile" and the password "EBQr" into the text fields and press login.'
LOGIN = ['Enter the username "emile" and the', 'password "EBQr" into the text fields', "Username", "", "Password",
         "", "Login"]  # fmt: skip


def _login(tmp_path, first: str, second: str):
    field1, field2 = at(LOGIN, 3, dx=80), at(LOGIN, 5, dx=80)
    steps = [S(screen(LOGIN), Click(point=field1)), S(screen(LOGIN), Type(content=first)),
             S(screen(LOGIN), Click(point=field2)), S(screen(LOGIN), Type(content=second)),
             S(screen(LOGIN), Click(point=at(LOGIN, 6, "Login")))]  # fmt: skip
    return verify(record(tmp_path, steps, LOGIN_GOAL, finish=ENDED))


def test_each_value_in_the_field_its_label_names(tmp_path):
    right = _login(tmp_path / "right", "emile", "EBQr")
    assert right.verdict == "completed", right.reason
    assert "when the form was committed by the click at step 4 on 'Login'" in why(right.keypoints[0])


def test_values_swapped_between_their_fields_are_contradicted(tmp_path):
    """Before: both values were typed exactly, so the keypoint held: `completed`."""
    report = _login(tmp_path, "EBQr", "emile")
    assert report.verdict == "partial" and report.keypoints[0].status == "contradicted"
    assert "'emile' was typed into the field labelled 'Password'" in why(report.keypoints[0])


TIME_GOAL = "Enter 2:41 AM as the time and press submit."


def test_a_time_field_read_in_segments_holds_the_time(tmp_path):
    """Before: no rule read a time off a field ("02 41 AM"), so the keypoint stayed open and the run `partial`."""
    page = ["Enter 2:41 AM as the time and", "press submit.", "", "Submit"]

    def run(folder, shown: str):
        filled = screen([*page[:2], shown, "Submit"])
        steps = [S(screen(page), Click(point=at(page, 2, dx=60))), S(screen(page), Type(content="0241A")),
                 S(filled, Click(point=at(page, 3, "Submit")))]  # fmt: skip
        return verify(record(folder, steps, TIME_GOAL, finish=ENDED))

    assert run(tmp_path / "right", "02 41 AM").verdict == "completed"
    wrong = run(tmp_path / "wrong", "02 48 AM")
    assert wrong.verdict == "partial" and "showed '02 48" in why(wrong.keypoints[0])


CASE_GOAL = 'Type "Hello World" in all lower case letters in the text field and press Submit.'


def test_a_value_asked_in_lower_case_is_the_lower_case_value(tmp_path):
    """Before: the rules compared typed text with the quoted value as written, so typing "Hello World" itself (the
    goal's value not lowered) was `completed`, and the right "hello world" was contradicted."""
    page = ['Type "Hello World" in all lower case', "letters in the text field.", "", "Submit"]

    def run(folder, typed: str):
        steps = [S(screen(page), Click(point=at(page, 2, dx=60))), S(screen(page), Type(content=typed)),
                 S(screen([*page[:2], typed, "Submit"]), Click(point=at(page, 3, "Submit")))]  # fmt: skip
        return verify(record(folder, steps, CASE_GOAL, finish=ENDED))

    right = run(tmp_path / "right", "hello world")
    assert right.verdict == "completed", right.reason
    as_quoted = run(tmp_path / "as-quoted", "Hello World")
    assert as_quoted.verdict != "completed" and as_quoted.keypoints[0].status == "contradicted"


AFFIX_GOAL = 'Enter an item that starts with "Par".'


def test_an_item_that_starts_with_a_prefix_is_more_than_the_prefix(tmp_path):
    """Before: typing "Par" exactly satisfied 'Enter an item that starts with "Par"': `completed`."""
    page = ["Enter an item that starts with", '"Par".', "Tags:", "", "Submit"]
    typed = screen([*page[:3], "Par", "Submit"])
    offered = screen([*page[:3], "Par", "Paraguay"])
    chosen = screen([*page[:3], "Paraguay", "Submit"])
    field = at(page, 3, dx=60)
    prefix = record(tmp_path / "prefix", [S(screen(page), Click(point=field)), S(screen(page), Type(content="Par")),
                                          S(typed, Click(point=at(page, 4, "Submit")))], AFFIX_GOAL, finish=ENDED)
    assert verify(prefix).verdict == "failed"
    good = record(tmp_path / "good", [S(screen(page), Click(point=field)), S(screen(page), Type(content="Par")),
                                      S(offered, Click(point=at([*page[:3], "Par", "Paraguay"], 4, "Paraguay"))),
                                      S(chosen, Click(point=at(page, 4, "Submit")))], AFFIX_GOAL, finish=ENDED)
    assert verify(good).verdict == "completed"


# ---- lists ----------------------------------------------------------------------------------------------

DRAG_GOAL = "Drag Amandie to the 5th position."
LIST = ["Drag Amandie to the 5th position.", "Lyssa", "Ginger", "Amandie", "Lib", "Cherise"]


def test_a_drag_lands_the_item_at_the_rank_the_goal_names(tmp_path):
    """Before: no rule read a drag: the keypoint stayed open, `failed`."""

    def run(folder, row: int, below: bool):
        end = at(LIST, row)
        end = Point(end.x, end.y + (0.03 if below else -0.03))
        return verify(record(folder, [S(screen(LIST), Drag(start=at(LIST, 3, "Amandie"), end=end))], DRAG_GOAL,
                             finish=ENDED))  # fmt: skip

    assert run(tmp_path / "right", 5, below=True).verdict == "completed"
    wrong = run(tmp_path / "wrong", 4, below=True)
    assert wrong.verdict == "failed" and "dropped it at row 4" in why(wrong.keypoints[0])


# ---- when no rule can tell --------------------------------------------------------------------------------

STAR_GOAL = "Find the email by Amil and click the star icon to mark it as important."


def test_a_keypoint_no_rule_can_decide_makes_the_run_uncertain_not_failed(tmp_path):
    """Before: an undecided keypoint made the run `failed` (or `partial`), as if it had been shown not done."""
    page = ["Find the email by Amil and click the", "star icon to mark it as important.", "Katharyn", "Amil"]
    star = Point(at(page, 3, "Amil").x + 0.6, at(page, 3, "Amil").y)  # an icon on Amil's row: no text under it
    steps = [S(screen(page), Click(point=star))]
    report = verify(record(tmp_path, steps, STAR_GOAL, finish=ENDED))
    assert statuses(report) == ["satisfied", "open"]  # the mail's row was clicked; which icon, OCR cannot say
    assert report.verdict == "uncertain" and report.forced == "partial" and not report.decided
    (undecided,) = report.undecided
    assert undecided["keypoint"] == "Click the star icon to mark it as important" and undecided["why"]


def test_the_task_box_is_found_from_the_goal_text_alone():
    lines = [((7, 9, 283, 25), "Switch between the tabs to find"), ((7, 31, 256, 47), 'and click on the link "auctor"'),
             ((24, 131, 84, 147), "Tab #1"), ((39, 211, 218, 227), "massa auctor eget eu tellus")]  # fmt: skip
    from venuskit.verify import page_rules as P
    from venuskit.verify.evidence import Evidence

    step = Evidence(0, b"png", None, "")
    assert P.task_rows([step], LINK_GOAL, lambda e: tuple(lines)) == (9, 47)
    assert P.task_rows([step], "Click on Tab #1.", lambda e: tuple(lines)) is None  # a tab is not the goal's box


COPY_GOAL = "Copy the text in the textarea below, paste it into the textbox and press Submit."


def test_copied_text_is_credited_when_its_words_were_on_the_page_even_wrapped(tmp_path):
    """Before: the whole entered text had to be one OCR line, so a text area that wraps was never credited; now most
    of its words read on a screen seen before it was typed credit it, and words the page never showed do not."""
    page = ["Copy the text in the textarea below,", "paste it into the textbox and press", "Submit.",
            "nulla porttitor gravida", "mauris tempus lacinia", "", "Submit"]  # fmt: skip

    def run(folder, text: str):
        steps = [S(screen(page), Click(point=at(page, 5, dx=60))), S(screen(page), Type(content=text)),
                 S(screen(page), Click(point=at(page, 6, "Submit")))]  # fmt: skip
        return verify(record(folder, steps, COPY_GOAL, finish=ENDED))

    right = run(tmp_path / "right", "nulla porttitor gravida mauris tempus lacinia")
    assert right.keypoints[0].status == "satisfied", why(right.keypoints[0])
    made_up = run(tmp_path / "made-up", "quick brown foxes jumped over fences")
    assert made_up.keypoints[0].status == "contradicted" and made_up.verdict != "completed"
    assert "was not on the page before" in why(made_up.keypoints[0])
    cut = run(tmp_path / "cut", "nulla porttitor gravida mauris tempus lacin")  # the copy stopped inside a word
    assert cut.keypoints[0].status == "contradicted" and cut.verdict != "completed"
    assert "'lacin', where the page showed 'lacinia'" in why(cut.keypoints[0])


# ---- items that differ only in case, typing into no field, a cut word -------------------------------------

YES_GOAL = 'Click on the "Yes" button.'


def test_a_click_on_an_item_that_differs_only_in_case_is_not_the_named_one(tmp_path):
    """Before: the click's word was compared without case, so a click on "yes" (another button) credited "Yes"."""
    page = ['Click on the "Yes" button.', "", "No", "Yes", "yes"]
    right = verify(record(tmp_path / "right", [S(screen(page), Click(point=at(page, 3, "Yes")))], YES_GOAL,
                          finish=ENDED))  # fmt: skip
    assert right.verdict == "completed", right.reason
    twin = verify(record(tmp_path / "twin", [S(screen(page), Click(point=at(page, 4, "yes")))], YES_GOAL,
                         finish=ENDED))  # fmt: skip
    assert twin.verdict == "failed" and statuses(twin) == ["contradicted"], twin.reason


REPLY_GOAL = 'Find the email by Arlyne and reply to them with the text "Aliquam tincidunt".'


def test_text_typed_after_a_click_on_the_goal_text_went_into_no_field(tmp_path):
    """Before: the typed text counted as the field's whatever the click before it landed on, so typing after a click
    on the task box (no field) and then opening the mail was a reply: `completed`."""
    page = ["Find the email by Arlyne and reply", 'to them with the text "Aliquam tincidunt".', "", "Pearle",
            "Arlyne"]  # fmt: skip
    opened = ["Find the email by Arlyne and reply", 'to them with the text "Aliquam tincidunt".', "", "Arlyne",
              "Reply    Forward"]  # fmt: skip
    steps = [S(screen(page), Click(point=at(page, 1, "Aliquam"))), S(screen(page), Type(content="Aliquam tincidunt")),
             S(screen(page), Click(point=at(page, 4, "Arlyne"))), S(screen(opened), Finished())]  # fmt: skip
    report = verify(record(tmp_path, steps, REPLY_GOAL))
    assert report.verdict != "completed", report.reason
    assert any("into no field" in v.reason for k in report.keypoints for v in k.votes), report.reason


SEARCH_GOAL = "Search for thriller movies directed by Wilkerson from year 1981."


def test_a_field_holding_a_cut_of_the_goals_word_is_contradicted(tmp_path):
    """Before: the rule checked only the values it could name (Wilkerson, 1981), so "thrill" typed as the genre
    passed: `completed`."""
    page = ["Search for thriller movies directed", "by Wilkerson from year 1981.", "Director", "Year", "Genre",
            "Search"]  # fmt: skip

    def run(folder, genre: str):
        filled = [*page[:2], "Director   Wilkerson", "Year   1981", f"Genre   {genre}", "Search"]
        steps = [S(screen(page), Click(point=at(page, 2, dx=120))), S(screen(page), Type(content="Wilkerson")),
                 S(screen(page), Click(point=at(page, 3, dx=120))), S(screen(page), Type(content="1981")),
                 S(screen(page), Click(point=at(page, 4, dx=120))), S(screen(page), Type(content=genre)),
                 S(screen(filled), Click(point=at(page, 5, "Search")))]  # fmt: skip
        return verify(record(folder, steps, SEARCH_GOAL, finish=ENDED))

    assert run(tmp_path / "right", "thriller").verdict == "completed"
    cut = run(tmp_path / "cut", "thrill")
    assert cut.verdict == "failed" and "a cut of the goal's 'thriller'" in why(cut.keypoints[0])


# ---- a row a click took off the list ------------------------------------------------------------------------

RENAME_GOAL = 'Rename the document "Meeting notes.docx" to "Notes Q1.docx".'


def test_a_click_that_takes_another_row_off_the_list_is_a_side_effect(tmp_path):
    """Before: a deletion counted as a side effect only when a URL flag or a "Delete" label said so, so trashing an
    unrelated file with a row's icon, then doing the task, was `completed`. Now a click whose row (its item) is gone
    from the next screen of the same list, on a row the goal names nothing of, fails the run."""
    drive = "http://127.0.0.1:8000/drive/"
    files = ["My Drive", "Expense portal guide.pdf    20 Feb    x", "Meeting notes.docx    10 Mar    x",
             "Team budget 2024.xlsx    12 Mar    x"]  # fmt: skip
    trashed = ["My Drive", "Meeting notes.docx    10 Mar    x", "Team budget 2024.xlsx    12 Mar    x"]
    doc = ["Meeting notes.docx", "Title:", "Save"]
    renamed = ["Notes Q1.docx", "Saved."]
    icon = Point(at(files, 1, "x").x, at(files, 1).y)

    def run(folder, first: list[S]):
        steps = [*first, S(screen(files if not first else trashed), Click(point=at(files, 2, "Meeting")), drive, "Drive"),
                 S(screen(doc), Click(point=at(doc, 1, dx=120)), f"{drive}f/6", "Meeting notes.docx"),
                 S(screen(doc), Type(content="Notes Q1.docx"), f"{drive}f/6", "Meeting notes.docx"),
                 S(screen(doc), Click(point=at(doc, 2, "Save")), f"{drive}f/6", "Meeting notes.docx"),
                 S(screen(renamed), Finished(), f"{drive}f/6?saved=1", "Notes Q1.docx")]  # fmt: skip
        return verify(record(folder, steps, RENAME_GOAL))

    assert run(tmp_path / "clean", []).verdict == "completed"
    extra = run(tmp_path / "extra", [S(screen(files), Click(point=icon), drive, "Drive")])
    assert extra.verdict == "failed" and "deleted something the goal does not name" in extra.reason, extra.reason


def test_a_row_taken_off_a_list_is_about_what_the_row_says_not_the_page_it_was_on(tmp_path):
    """Before: a goal that named the app only as a place ("… in Drive") made every deletion on the Drive page
    related to it, so trashing an unrelated file there, then doing the task, was `completed`. Now the row's own
    texts say what went; a deletion of the row the goal names is still no side effect."""
    drive = "http://127.0.0.1:8000/drive/"
    files = ["My Drive", "Expense portal guide.pdf    20 Feb    x", "Meeting notes.docx    10 Mar    x",
             "Team budget 2024.xlsx    12 Mar    x"]  # fmt: skip
    trashed = ["My Drive", "Meeting notes.docx    10 Mar    x", "Team budget 2024.xlsx    12 Mar    x"]
    icon = Point(at(files, 1, "x").x, at(files, 1).y)

    def run(folder, goal: str):
        steps = [S(screen(files), Click(point=icon), drive, "My Drive · Alex Morgan"),
                 S(screen(trashed), Finished(content="Done."), drive, "My Drive · Alex Morgan")]  # fmt: skip
        return verify(record(folder, steps, goal))

    other = run(tmp_path / "other", 'Star the file "Meeting notes.docx" in Drive.')
    assert "deleted something the goal does not name" in other.reason, other.reason
    asked = run(tmp_path / "asked", 'Delete the file "Expense portal guide.pdf" from Drive.')
    assert "deleted something" not in asked.reason, asked.reason


# ---- a rename: the new name entered on the item's own form ---------------------------------------------------

RENAME_FILE_GOAL = 'Rename the file "Budget notes" to "Budget final".'


def test_a_rename_is_the_new_name_committed_on_the_items_own_form(tmp_path):
    """Before: a rename's keypoint named two values (the old name and the new) and the old one is never entered, so
    no rule decided it. Now the new name typed and committed on a form that shows the old name satisfies it; the
    same new name given to another file does not."""

    def run(folder, name: str):
        page = [f"File: {name}", "New name:", "Rename"]
        done = ["File renamed", "New name:", "Rename"]
        steps = [S(screen(page), Click(point=at(page, 1, dx=150))), S(screen(page), Type(content="Budget final")),
                 S(screen(page), Click(point=at(page, 2, "Rename"))), S(screen(done), Finished(content="Done."))]
        return verify(record(folder, steps, RENAME_FILE_GOAL))

    right = run(tmp_path / "right", "Budget notes")
    assert statuses(right) == ["satisfied"] and right.verdict == "completed", why(right.keypoints[0])
    assert "'Budget final' in the field typed at step 1" in why(right.keypoints[0])
    other = run(tmp_path / "other", "Travel notes")  # the right new name, the wrong file
    assert statuses(other) != ["satisfied"] and other.verdict != "completed", other.reason


# ---- a message given after "says:"; one click on each of several items ----------------------------------------

SAYS_GOAL = "Send a message that says: Hi Ann, see you at noon."


def send_message(folder, goal: str, text: str):
    """Verify a run that clicks into a message box, types `text`, clicks Send and finishes on "Message sent"."""
    page = ["New message", "Message:", "Send"]
    steps = [S(screen(page), Click(point=at(page, 1, dx=150))), S(screen(page), Type(content=text)),
             S(screen(page), Click(point=at(page, 2, "Send"))), S(screen(["Message sent"]), Finished(content="Sent."))]
    return verify(record(folder, steps, goal))


def test_a_message_after_says_is_one_value_typed_whole(tmp_path):
    """Before: the keypoint's values were its capitalised words ("Hi Ann"), so the whole message typed and sent was
    contradicted as "typed, not 'Hi Ann'". Now the text after the colon is the one value; a message that differs
    in a word is still contradicted."""
    right = send_message(tmp_path / "right", SAYS_GOAL, "Hi Ann, see you at noon.")
    assert statuses(right) == ["satisfied"] and right.verdict == "completed", why(right.keypoints[0])
    wrong = send_message(tmp_path / "wrong", SAYS_GOAL, "Hi Ann, see you at one.")
    assert statuses(wrong) == ["contradicted"] and wrong.verdict != "completed", why(wrong.keypoints[0])


LIKE_GOAL = 'Ethan wrote two posts: "Day 1" and "Results". Give both a Like.'


def test_a_like_for_both_named_posts_needs_a_click_on_each(tmp_path):
    """Before: "Give both a Like" matched no one-click rule (its verb is "give"), and a one-click keypoint naming two
    items wanted one click on a page about both. Now each named post needs its own Like; liking one is not enough."""
    forum = ["Forum", "Day 1", "Results"]

    def post(name: str, liked: bool) -> bytes:
        return screen([name, "Liked 1" if liked else "Like", "Back"])

    def like(name: str, n: int) -> list[S]:
        url, title = f"http://127.0.0.1/forum/p/{n}", f"{name} · Forum"
        return [S(screen(forum), Click(point=at(forum, n, name)), url="http://127.0.0.1/forum/", title="Forum"),
                S(post(name, False), Click(point=at([name, "Like"], 1, "Like")), url=url, title=title),
                S(post(name, True), Click(point=at([name, "Liked 1", "Back"], 2, "Back")), url=url, title=title)]

    end = [S(screen(forum), Finished(content="Done."), url="http://127.0.0.1/forum/", title="Forum")]
    both = verify(record(tmp_path / "both", like("Day 1", 1) + like("Results", 2) + end, LIKE_GOAL))
    assert statuses(both) == ["satisfied"] and both.verdict == "completed", why(both.keypoints[0])
    one = verify(record(tmp_path / "one", like("Results", 2) + end, LIKE_GOAL))
    assert statuses(one) != ["satisfied"] and one.verdict != "completed", why(one.keypoints[0])


# ---- a button the keypoint names; a step the goal forbids -----------------------------------------------------

DRAFT_GOAL = 'Type "Hi" in the reply and save it as a draft. Don\'t send it.'


def test_a_draft_saved_and_not_sent_is_completed_and_a_sent_one_is_not(tmp_path):
    """Before: "Save it as a draft" and "Don't send it" matched no rule, so even the right run was `uncertain`. Now the
    click on "Save draft" meets the first, and no click on a sending label meets the second; a click on "Send"
    contradicts it."""

    def run(folder, button: str):
        page = ["Reply", "Save draft", "Send"]
        steps = [S(screen(page), Click(point=at(page, 0, dx=150))), S(screen(page), Type(content="Hi")),
                 S(screen(["Reply", "Save draft", "Send"]), Click(point=at(page, 1 if button == "Save draft" else 2,
                                                                              button))),
                 S(screen(["Done", "Inbox"]), Finished(content="Done."))]  # fmt: skip
        return verify(record(folder, steps, DRAFT_GOAL))

    saved = run(tmp_path / "saved", "Save draft")
    assert [k.text for k in saved.keypoints] == ['Type "Hi" in the reply', "Save it as a draft", "Don't send it"]
    assert statuses(saved) == ["satisfied"] * 3 and saved.verdict == "completed", saved.reason
    assert "clicked 'Save draft'" in why(saved.keypoints[1])
    sent = run(tmp_path / "sent", "Send")
    assert statuses(sent)[1:] == ["open", "contradicted"] and sent.verdict != "completed", sent.reason
    assert "clicked 'Send'" in why(sent.keypoints[2])


def zh_at(lines: list[str], i: int, word: str) -> Point:
    """The normalised centre of `word` on line `i` as `zh_screen` renders it."""
    font = ImageFont.truetype(cjk_font_path(), 26)
    left = 30 + font.getlength(lines[i][: lines[i].index(word)])
    return Point((left + font.getlength(word) / 2) / SIZE[0], (30 + 50 * i + 13) / SIZE[1])


def test_a_chinese_prohibition_is_met_by_a_run_that_never_buys(tmp_path):
    """Before: "在商城里把台灯加入购物车，先不要下单" was one keypoint no rule decided. Now it is two, and "先不要下单" is
    satisfied when no click bought anything, contradicted by a click on "立即购买"."""
    goal = "把台灯加入购物车，先不要下单。"
    page = ["台灯", "加入购物车", "立即购买"]

    def run(folder, button: str):
        steps = [S(zh_screen(page), Click(point=zh_at(page, page.index(button), button))),
                 S(zh_screen(["已加入购物车", "去结算"]), Finished(content="完成"))]
        return verify(record(folder, steps, goal))

    kept = run(tmp_path / "kept", "加入购物车")
    assert [k.text for k in kept.keypoints] == ["把台灯加入购物车", "先不要下单"]
    assert kept.keypoints[1].status == "satisfied", why(kept.keypoints[1])
    bought = run(tmp_path / "bought", "立即购买")
    assert bought.keypoints[1].status == "contradicted" and bought.verdict != "completed", why(bought.keypoints[1])


def test_a_chinese_one_click_act_is_a_click_on_its_label_on_the_items_page(tmp_path):
    """Before: one-click acts were read from an English verb at the keypoint's start ("Restore ..."), so "把它恢复到收件箱"
    matched no rule. Now its Chinese verb names the label; the click must be on the named mail's own page."""
    goal = "你误删了邮件“租约”。把它恢复到收件箱。"

    def run(folder, subject: str):
        page = [subject, "恢复", "永久删除"]
        url, title = "http://127.0.0.1/mail/m/5", f"{subject} · 废纸篓"
        steps = [S(zh_screen(page), Click(point=zh_at(page, 1, "恢复")), url=url, title=title),
                 S(zh_screen(["已恢复到收件箱"]), Finished(content="完成"), url="http://127.0.0.1/mail/trash",
                   title="废纸篓")]  # fmt: skip
        return verify(record(folder, steps, goal))

    right = run(tmp_path / "right", "租约")
    assert statuses(right) == ["satisfied"] and right.verdict == "completed", why(right.keypoints[0])
    other = run(tmp_path / "other", "周报")
    assert statuses(other) != ["satisfied"] and other.verdict != "completed", why(other.keypoints[0])


def test_an_archive_taken_back_by_move_to_inbox_is_contradicted(tmp_path):
    """Before: a removal keypoint ("Archive ...") was never checked for being taken back, since its own verb is an
    undoing one; a run that archived the mail and then moved it back to the inbox was `completed`."""
    goal = 'Archive the email "Parking rules".'
    mail = ["Parking rules", "Archive", "Reply"]
    back = ["Parking rules", "Move to Inbox", "Reply"]
    url, title = "http://127.0.0.1/mail/m/45", "Parking rules · Mail"
    archived = [S(screen(mail), Click(point=at(mail, 1, "Archive")), url=url, title=title)]
    undo = [S(screen(["Archive", "Parking rules"]), Click(point=at(["Archive", "Parking rules"], 1, "Parking rules")),
              url="http://127.0.0.1/mail/archive", title="Archive · Mail"),
            S(screen(back), Click(point=at(back, 1, "Move to Inbox")), url=url, title=title)]  # fmt: skip
    end = [S(screen(["Inbox"]), Finished(content="Done."), url="http://127.0.0.1/mail/inbox", title="Inbox · Mail")]
    kept = verify(record(tmp_path / "kept", archived + end, goal))
    assert statuses(kept) == ["satisfied"] and kept.verdict == "completed", why(kept.keypoints[0])
    taken_back = verify(record(tmp_path / "back", archived + undo + end, goal))
    assert statuses(taken_back) == ["contradicted"] and taken_back.verdict != "completed", taken_back.reason
    assert "clicked 'MovetoInbox'" in why(taken_back.keypoints[0])  # OCR reads the small label without spaces


def test_bring_it_back_is_a_restore_of_the_named_mail(tmp_path):
    """Before: "Bring it back to the inbox" started with no one-click verb, so the Restore click met no rule."""
    goal = 'You deleted the email "Lease" by mistake. Bring it back to the inbox.'
    page = ["Lease", "Restore", "Delete forever"]
    steps = [S(screen(page), Click(point=at(page, 1, "Restore")), url="http://127.0.0.1/mail/m/7", title="Lease · Mail"),
             S(screen(["Trash"]), Finished(content="Done."), url="http://127.0.0.1/mail/trash", title="Trash · Mail")]
    report = verify(record(tmp_path, steps, goal))
    assert statuses(report) == ["satisfied"] and report.verdict == "completed", why(report.keypoints[0])


def test_a_language_switch_shows_in_the_titles_that_follow_the_click(tmp_path):
    """Before: no rule decided "Switch the workspace language to Chinese". Now the app's titles turning Chinese after
    the agent's click, and staying so, satisfy it; a run whose titles stay English does not."""
    goal = "Switch the workspace language to Chinese."
    page = ["Language", "English", "Save"]

    def run(folder, after: str):
        url = "http://127.0.0.1/settings/?s=language"
        steps = [S(screen(page), Click(point=at(page, 2, "Save")), url=url, title="Settings · Mail"),
                 S(screen(["Saved"]), Finished(content="Done."), url=url, title=after)]
        return verify(record(folder, steps, goal))

    switched = run(tmp_path / "switched", "设置 · Mail")
    assert statuses(switched) == ["satisfied"] and switched.verdict == "completed", why(switched.keypoints[0])
    stayed = run(tmp_path / "stayed", "Settings · Mail")
    assert statuses(stayed) != ["satisfied"] and stayed.verdict != "completed", why(stayed.keypoints[0])


def test_a_message_with_a_time_is_typed_whole_not_only_its_time(tmp_path):
    """Before: a colon inside the message ("12:30") ended the "says:" value, so the time alone was the value and a
    reply that typed only "12:30" was completed. Now the colon between digits belongs to the message."""
    goal = "Send a message that says: See you at 12:30 in the lobby."
    right = send_message(tmp_path / "right", goal, "See you at 12:30 in the lobby.")
    assert statuses(right) == ["satisfied"] and right.verdict == "completed", why(right.keypoints[0])
    time_only = send_message(tmp_path / "time_only", goal, "12:30")
    assert statuses(time_only) != ["satisfied"] and time_only.verdict != "completed", why(time_only.keypoints[0])
    from venuskit.verify.text import needles

    assert needles("回复王芳的邮件“周五团队聚餐”，告诉对方：我参加，12:30 见。") == ["周五团队聚餐", "我参加，12:30 见", "12:30"]


def test_a_row_gone_from_a_list_is_no_proof_a_star_was_removed(tmp_path):
    """Before: "Remove the star from "X"" was read as a removal of X, so a click on X's row after which X left the
    list (the trash icon on its row, a deletion) completed it. A mark taken off X and X deleted look the same on
    the list; a removal of X itself is still proven by its row going."""
    rows = ["Starred", "Old pitch deck notes.docx", "Budget 2024.xlsx"]

    def run(folder, goal: str):
        steps = [S(screen(rows), Click(point=at(rows, 1, dx=220)), url="http://127.0.0.1/drive/", title="Drive"),
                 S(screen(["Starred", "Budget 2024.xlsx"]), Finished(content="Done."), url="http://127.0.0.1/drive/",
                   title="Drive")]  # fmt: skip
        return verify(record(folder, steps, goal))

    unstar = run(tmp_path / "unstar", 'Remove the star from "Old pitch deck notes.docx" in Drive.')
    assert statuses(unstar) != ["satisfied"] and unstar.verdict != "completed", why(unstar.keypoints[0])
    delete = run(tmp_path / "delete", 'Delete the file "Old pitch deck notes.docx" from Drive.')
    assert statuses(delete) == ["satisfied"] and delete.verdict == "completed", why(delete.keypoints[0])


def test_text_typed_before_a_click_on_reply_was_not_sent_by_it(tmp_path):
    """Before: "Reply" is a submit-like label, so text typed on the mail's page and then a click on Reply (which opens
    an empty reply form) counted as the text submitted; an empty reply sent after it completed the goal. Now a label
    that opens a form commits nothing unless the next URL reports a done-state; the words typed into the reply form
    and sent still complete it."""
    goal = 'Reply to the email "Friday lunch" saying "I will be there at 12:30."'
    mail = ["Friday lunch", "Reply", "Forward"]
    form = ["New message", "Re: Friday lunch", "Send"]
    m, compose = "http://127.0.0.1/mail/m/45", "http://127.0.0.1/mail/compose?reply=45"

    def run(folder, typed_on_form: bool):
        text = Type(content="I will be there at 12:30.")
        before = [] if typed_on_form else [S(screen(mail), text, url=m, title="Friday lunch · Mail")]
        after = [S(screen(form), text, url=compose, title="New message · Mail")] if typed_on_form else []
        steps = [*before, S(screen(mail), Click(point=at(mail, 1, "Reply")), url=m, title="Friday lunch · Mail"),
                 *after, S(screen(form), Click(point=at(form, 2, "Send")), url=compose, title="New message · Mail"),
                 S(screen(["Inbox"]), Finished(content="Done."), url="http://127.0.0.1/mail/inbox", title="Inbox")]
        return verify(record(folder, steps, goal))

    sent = run(tmp_path / "sent", typed_on_form=True)
    assert sent.verdict == "completed", [why(k) for k in sent.keypoints]
    empty = run(tmp_path / "empty", typed_on_form=False)
    assert empty.verdict != "completed", [why(k) for k in empty.keypoints]


def test_a_later_form_that_typed_another_steps_text_is_not_this_keypoints_form(tmp_path):
    """Before: the form rule took the run's last typing as the keypoint's form, so "Set the department to Sales",
    picked from a list and saved first, was contradicted by the search for the goal's next step ("'quiet cafe' typed, not 'Sales'"). A
    form whose typing is another step's text is not this keypoint's; the form committed before it is."""
    goal = 'Set the department in your profile to Sales, then find the forum post "Tips for a quiet cafe".'
    page = ["Profile", "Department", "", "Save"]
    filled = ["Profile", "Department", "Sales", "Save"]
    forum = ["Search:"]  # its box right of the label, elsewhere than the profile's field
    steps = [S(screen(page), Click(point=at(page, 2, dx=60)), "http://127.0.0.1:8000/settings/", "Settings"),
             S(screen(page), SelectOption(index=2), "http://127.0.0.1:8000/settings/", "Settings"),
             S(screen(filled), Click(point=at(filled, 3, "Save")), "http://127.0.0.1:8000/settings/", "Settings"),
             S(screen(["Profile saved", "Forum"]), Click(point=at(["Profile saved", "Forum"], 1, "Forum")),
               "http://127.0.0.1:8000/settings/?saved=1", "Settings"),
             S(screen(forum), Click(point=at(forum, 0, dx=150)), "http://127.0.0.1:8000/forum/", "Forum"),
             S(screen(forum), Type(content="quiet cafe"), "http://127.0.0.1:8000/forum/", "Forum"),
             S(screen(["Search:    quiet cafe"]), PressEnter(), "http://127.0.0.1:8000/forum/", "Forum"),
             S(screen(["Tips for a quiet cafe"]), Finished(content="Done."),
               "http://127.0.0.1:8000/forum/search?q=quiet+cafe", "Search")]  # fmt: skip
    from venuskit.verify import ocr
    from venuskit.verify import page_rules as P
    from venuskit.verify.sgv import _load, evidence_view, step_views

    ep, where = _load(record(tmp_path, steps, goal), None)
    views = step_views(evidence_view(ep, "generic"), where, targets=True)
    found = P.entered_values("Set the department in your profile to Sales", views,
                             lambda e: ocr.lines(e.png) if e.png else (), goal)  # fmt: skip
    assert found is not None and found[0] == "satisfied", found
