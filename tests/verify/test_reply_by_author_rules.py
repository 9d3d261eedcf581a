"""A reply to a forum post named by its author ("Reply to Julian Kim's post with a comment that gives the start
time"), its title only in the scene before it ("Julian Kim asked in the forum "Q"") and its content described: the
rules left the right run `contradicted` (the scene's quoted titles and its author's name read as values to type, and
the search box that held a title as the field they went into). Drawn screens, read by the real OCR; the right run
must be `completed`, and a comment on another post or one whose time no screen showed must not. Each test fails on
the rules as they were before."""

from __future__ import annotations

from test_toggle_and_form_rules import last_word
from verify_helpers import S, middle, record, screen, why
from verify_helpers import verify_rules as verify

from venuskit.actions.types import Click, Finished, Point, Type
from venuskit.verify.keypoints import split_goal
from venuskit.verify.page_rules import entry_values
from venuskit.verify.text import described, post_title

APP = "http://127.0.0.1:8000"
GOAL = ('Julian Kim asked in the forum "When does the spring seed swap begin?". The time is in Nora Becker\'s post '
        '"Programme for the spring seed swap". Reply to Julian Kim\'s post with a comment that gives the start time.')
QUESTION, INFO = "When does the spring seed swap begin?", "Programme for the spring seed swap"


def reply_run(folder, typed: str, on: str = QUESTION):
    """Read the programme post, open the post `on`, comment `typed` there."""
    forum = f"{APP}/forum/"
    post, info = f"{APP}/forum/p/{4 if on == QUESTION else 2}", f"{APP}/forum/p/2"
    author = "Julian Kim" if on == QUESTION else "Nora Becker"
    page = [on, author, "0 comments", "Write a comment...   Comment"]
    listing = ["Forum", INFO, QUESTION]
    steps = [S(screen(listing), Click(point=middle(1, INFO)), forum, "Forum"),
             S(screen([INFO, "Nora Becker", "The swap starts at 14:15 in the hall."]), Click(point=Point(0.1, 0.9)),
               info, INFO),
             S(screen(listing), Click(point=middle(listing.index(on), on)), forum, "Forum"),
             S(screen(page), Click(point=middle(3, "Write a comment...")), post, on),
             S(screen(page), Type(content=typed), post, on),
             S(screen([*page[:3], f"{typed}   Comment"]), Click(point=last_word(3, f"{typed}   Comment")), post, on),
             S(screen([on, author, "1 comment", f"You: {typed}", "Comment added."]), Finished(content="Done."),
               post + "#comments", on)]  # fmt: skip
    return verify(record(folder, steps, GOAL))


def test_the_reply_is_read_as_described_content_on_the_post_the_scene_names():
    point = split_goal(GOAL)[0]
    entry, about = described(point)
    assert entry == "Reply to Julian Kim's post" and about.startswith("the start time")
    assert entry_values(entry) == []  # the author is no value to type
    assert post_title(point) == QUESTION


def test_a_reply_with_the_time_read_from_the_other_post_is_done(tmp_path):
    right = reply_run(tmp_path / "right", "It begins at 14:15.")
    assert right.verdict == "completed", why(right)


def test_a_reply_on_the_wrong_post_or_with_an_unseen_time_is_not_done(tmp_path):
    elsewhere = reply_run(tmp_path / "elsewhere", "It begins at 14:15.", on=INFO)
    assert elsewhere.verdict != "completed", why(elsewhere)
    unseen = reply_run(tmp_path / "unseen", "It begins at 09:30.")
    assert unseen.verdict != "completed", why(unseen)
