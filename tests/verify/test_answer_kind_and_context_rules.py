"""Fresh-sample findings (seed 10): answers of the wrong kind or about an item never shown, a stray click that made
a confirmation page forget the post it confirms, the signed-in user's name in titles taken for an item, and goals
split where a step follows ", and finally" or a scene that ends in 了 before a request that opens with 请.

Each right run or split asserted here was decided wrongly before, and each wrong answer was `completed`."""

from __future__ import annotations

from pathlib import Path

from verify_helpers import S, middle, record, screen, verify_rules, why

from venuskit.actions.types import Click, Finished, Point, Type
from venuskit.verify.keypoints import split_goal

APP = "http://127.0.0.1:8000"


def _answer(tmp: Path, goal: str, page: list[str], title: str, answer: str) -> tuple[str, str]:
    """Open one page from the app's list, then finish with `answer`."""
    steps = [S(screen(["Inbox", "Shop", "Search"]), Click(point=middle(0, "Inbox")), f"{APP}/home", "Home · Alex"),
             S(screen(page), Finished(content=answer), f"{APP}/p/7", f"{title} · Alex Morgan")]  # fmt: skip
    report = verify_rules(record(tmp, steps, goal))
    return report.verdict, why(report)


def test_a_reference_is_answered_with_a_code_not_a_word_the_page_shows(tmp_path: Path):
    goal = "Tell me the reference Pixel Repair Lab's payment request email gives."
    page = ["Payment request", "From Pixel Repair Lab", "Reference: PRL-2231", "Done"]
    right = _answer(tmp_path / "code", goal, page, "Payment request", "PRL-2231")
    assert right[0] == "completed", right
    done = _answer(tmp_path / "done", goal, page, "Payment request", "Done.")  # "Done" stands on the page too
    assert done[0] != "completed", done


def test_a_subject_is_answered_with_words_not_the_lists_date(tmp_path: Path):
    goal = "What is the subject of the newest message from Omar Haddad? Answer with the subject."
    page = ["Omar Haddad", "Access request approved", "18 Feb"]
    right = _answer(tmp_path / "subject", goal, page, "Inbox", "Access request approved")
    assert right[0] == "completed", right
    date = _answer(tmp_path / "date", goal, page, "Inbox", "18 Feb")
    assert date[0] != "completed", date


def test_a_price_of_a_named_product_is_read_where_the_product_shows(tmp_path: Path):
    goal = "What does the Nimbus Noise Machine cost in the shop?"
    other = _answer(tmp_path / "other", goal, ["Results for Machine", "Canvas Sneakers", "54.99"], "Results", "54.99")
    assert other[0] != "completed", other  # another product's card: the named one never showed
    right = _answer(tmp_path / "right", goal, ["Nimbus Noise Machine", "39.99", "Add to cart"],
                    "Nimbus Noise Machine", "39.99")  # fmt: skip
    assert right[0] == "completed", right


def test_a_stray_click_on_the_confirmation_page_does_not_lose_the_post_it_confirms(tmp_path: Path):
    goal = 'Delete your own forum post "Finished my first ultramarathon!".'
    title = "Finished my first ultramarathon!"
    confirm = screen(["Delete post", "This cannot be undone.", "Delete", "Thu, 14 Mar 2024"])
    steps = [S(screen([title, "Delete post"]), Click(point=middle(1, "Delete post")), f"{APP}/forum/p/23", title),
             S(confirm, Click(point=middle(3, "Thu, 14 Mar 2024")), f"{APP}/forum/p/23/delete", "Delete post"),
             S(confirm, Click(point=middle(2, "Delete")), f"{APP}/forum/p/23/delete", "Delete post"),
             S(screen(["City Photography", "New post"]), Finished(), f"{APP}/forum/g/2", "City Photography")]  # fmt: skip
    report = verify_rules(record(tmp_path, steps, goal))
    assert report.verdict == "completed", why(report)


def test_the_signed_in_users_new_name_in_titles_is_no_item_a_later_restore_undoes(tmp_path: Path):
    goal = 'Change your display name to "Alexandra Morgan", then bring the email "Budget review" back from Trash.'
    settings = ["Settings", "Display name", "Save"]
    field = Point(0.7, middle(1, "Display name").y)
    steps = [S(screen(settings), Click(point=field), f"{APP}/settings", "Settings · Alex Morgan"),
             S(screen(settings), Type(content="Alexandra Morgan"), f"{APP}/settings", "Settings · Alex Morgan"),
             S(screen(settings), Click(point=middle(2, "Save")), f"{APP}/settings", "Settings · Alex Morgan"),
             S(screen(["Settings", "Saved.", "Alexandra Morgan"]), Click(point=Point(0.1, 0.9)),
               f"{APP}/settings?saved=1", "Settings · Alexandra Morgan"),
             S(screen(["Budget review", "Restore"]), Click(point=middle(1, "Restore")), f"{APP}/mail/m/8",
               "Budget review · Alexandra Morgan"),
             S(screen(["Inbox", "Budget review"]), Finished(), f"{APP}/mail/inbox?restored=1",
               "Inbox · Alexandra Morgan")]  # fmt: skip
    report = verify_rules(record(tmp_path, steps, goal))
    assert report.verdict == "completed", why(report)


def test_a_step_after_and_finally_and_a_scene_before_a_polite_request_split_the_goal():
    assert split_goal('Delete the email "Parking permit" from Omar Haddad, and finally react with Like to Isabel '
                      'Moreau\'s forum post "Tips".') == [  # fmt: skip
        'Delete the email "Parking permit" from Omar Haddad', 'React with Like to Isabel Moreau\'s forum post "Tips"']
    points = split_goal("欧阳雪转发了三月电费账单。请把账单金额记在表格“家庭账单”里。")
    assert points == ["请把账单金额记在表格“家庭账单”里 (欧阳雪转发了三月电费账单)"], points
