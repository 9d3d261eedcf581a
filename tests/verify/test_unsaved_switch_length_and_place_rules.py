"""Three wrong completions found on a fresh training sample (seed 9), scored before it was read: a setting switched
and left unsaved, credited by a Save in the calendar later; an event moved "keeping its 45 minutes" saved before
its end was changed; a code given as "the place X proposes"; a switch met by a reply that typed the sender's name
it mentions. And right runs not completed: a post's field at the spot where a mail's body had been read as that
body; a deletion the goal asks by description taken for a side effect. Drawn screens, read by the real OCR; each wrong run must not be
`completed` and each right one must be. Each test fails on the rules as they were before."""

from __future__ import annotations

from test_settings_and_sheet_rules import SAVE, URL, box, settings
from verify_helpers import S, middle, record, screen, why, zh_screen
from verify_helpers import verify_rules as verify

from venuskit.actions.types import Click, Finished, Point, Type
from venuskit.verify.text import kept_length_end

APP = "http://127.0.0.1:8000"
EVENT = f"{APP}/calendar/e/5"


def event_edit(start: str, end: str) -> list[S]:
    """Edit "Roadmap review": type the start, then (if `end`) the end, then Save."""
    form = ["Edit Roadmap review", "Start", "End", "Save", "Date 2024-04-03"]
    steps = [S(screen(["Roadmap review", "Wed, 3 Apr 2024, 10:00 - 10:45", "Edit"]), Click(point=middle(2, "Edit")),
               EVENT, "Roadmap review"),
             S(screen(form), Click(point=middle(1, "Start")), EVENT + "/edit", "Roadmap review"),
             S(screen(form), Type(content=start), EVENT + "/edit", "Roadmap review")]  # fmt: skip
    if end:
        steps += [S(screen(form), Click(point=middle(2, "End")), EVENT + "/edit", "Roadmap review"),
                  S(screen(form), Type(content=end), EVENT + "/edit", "Roadmap review")]  # fmt: skip
    return steps + [S(screen(form), Click(point=middle(3, "Save")), EVENT + "/edit", "Roadmap review")]


def test_a_switch_left_unsaved_is_not_saved_by_a_save_in_another_app(tmp_path):
    """Before: a Save anywhere later (the calendar's) counted as the switch's; the setting was never saved."""
    goal = "Turn on push notifications, then move \"Roadmap review\" to start at 14:45."
    saved = tmp_path / "saved"

    def run(folder, save_first: bool):
        steps = [S(settings(True, False), Click(point=box(1)), url=URL, title="Settings")]
        if save_first:
            steps.append(S(settings(True, True), Click(point=SAVE), url=URL, title="Settings"))
        steps += [S(settings(True, True, saved=save_first), Click(point=Point(0.05, 0.95)), url=URL, title="Settings"),
                  *event_edit("14:45", ""),
                  S(screen(["Roadmap review", "Wed, 3 Apr 2024, 14:45 - 15:30", "Saved."]), Finished(content="Done."),
                    EVENT, "Roadmap review")]  # fmt: skip
        return verify(record(folder, steps, goal))

    right = run(saved, save_first=True)
    assert right.verdict == "completed", why(right)
    unsaved = run(tmp_path / "unsaved", save_first=False)
    assert unsaved.verdict != "completed", why(unsaved)


def test_an_event_moved_keeping_its_length_needs_its_new_end_saved_too(tmp_path):
    """Before: the start typed and saved was the whole keypoint; an end typed after the save (never saved) left the
    event 2 hours long, and the run was `completed`."""
    goal = 'Move "Roadmap review" on 2024-04-03 to start at 14:45 on the same day, keeping its 45 minutes.'
    assert kept_length_end(goal) == "15:30"
    assert kept_length_end("把2024-04-03的“Roadmap review”改到当天14:45开始，时长仍为 45 分钟。") == "15:30"
    done = S(screen(["Roadmap review", "Wed, 3 Apr 2024", "Saved."]), Finished(content="Done."), EVENT,
             "Roadmap review")  # fmt: skip
    right = verify(record(tmp_path / "right", [*event_edit("14:45", "15:30"), done], goal))
    assert right.verdict == "completed", why(right)
    late = [*event_edit("14:45", ""),
            S(screen(["Roadmap review", "Wed, 3 Apr 2024", "Saved.", "End"]), Click(point=middle(3, "End")), EVENT,
              "Roadmap review"),
            S(screen(["Roadmap review", "Wed, 3 Apr 2024", "Saved.", "End"]), Type(content="15:30"), EVENT,
              "Roadmap review"),
            done]  # fmt: skip
    unsaved_end = verify(record(tmp_path / "late", late, goal))
    assert unsaved_end.verdict != "completed", why(unsaved_end)


def test_a_figure_alone_is_no_place(tmp_path):
    """Before: "the place X proposes" had no kind, so an order number read in the inbox (another mail's preview)
    was a right answer."""
    goal = 'Tell me the place Felix Larsen proposes in the email "Review of the Q2 numbers".'
    mail = ["Review of the Q2 numbers", "Felix Larsen", "Could we meet in Library room?", "Mail"]
    inbox = ["Inbox", "Your parcel is on its way: order #4821", "Review of the Q2 numbers"]

    def run(folder, answer: str):
        steps = [S(screen(inbox), Click(point=middle(2, inbox[2])), f"{APP}/mail/", "Inbox"),
                 S(screen(mail), Click(point=middle(3, "Mail")), f"{APP}/mail/m/8", "Review of the Q2 numbers"),
                 S(screen(inbox), Finished(content=answer), f"{APP}/mail/", "Inbox")]  # fmt: skip
        return verify(record(folder, steps, goal))

    assert run(tmp_path / "right", "Library room").verdict == "completed"
    code = run(tmp_path / "code", "#4821")
    assert code.verdict == "failed", why(code)


def field(line: int) -> Point:
    """A spot in the empty line `line` (under a label on the line above it)."""
    return Point(0.3, (30 + 50 * line + 12) / 400)


def draft_then_post_run(folder, price: str):
    """Read the price, send a described email, then post in a group: the post's text field stands where the mail's
    body stood."""
    goal = 'Write an email to legal@northwind.example with the subject "Desk move on Friday" saying the shop\'s price ' \
           'of the Zephyr Travel Pillow, then post in the "Trail Runners" group with the title "Hello from a new ' \
           'member" and the text "I can make it, see you there.".'  # fmt: skip
    mail, group = f"{APP}/mail/compose", f"{APP}/forum/g/3/new"
    compose = ["New message", "To:", "", "Subject:", "", "Message:", "", "Send"]
    post = ["New post in Trail Runners", "Title:", "", "", "", "Text:", "", "Post"]
    steps = [S(screen(["Zephyr Travel Pillow", "21.40 EUR", "Add to cart"]), Click(point=Point(0.05, 0.95)),
               f"{APP}/shop/p/7", "Zephyr Travel Pillow"),
             S(screen(compose), Click(point=field(2)), mail, "New message"),
             S(screen(compose), Type(content="legal@northwind.example"), mail, "New message"),
             S(screen(compose), Click(point=field(4)), mail, "New message"),
             S(screen(compose), Type(content="Desk move on Friday"), mail, "New message"),
             S(screen(compose), Click(point=field(6)), mail, "New message"),
             S(screen(compose), Type(content=price), mail, "New message"),
             S(screen(compose), Click(point=middle(7, "Send")), mail, "New message"),
             S(screen(["Inbox", "Message sent."]), Click(point=Point(0.05, 0.95)), f"{APP}/mail/", "Inbox"),
             S(screen(post), Click(point=field(2)), group, "New post"),
             S(screen(post), Type(content="Hello from a new member"), group, "New post"),
             S(screen(post), Click(point=field(6)), group, "New post"),
             S(screen(post), Type(content="I can make it, see you there."), group, "New post"),
             S(screen(post), Click(point=middle(7, "Post")), group, "New post"),
             S(screen(["Hello from a new member", "I can make it, see you there.", "Posted."]),
               Finished(content="Done."), f"{APP}/forum/p/40", "Hello from a new member")]  # fmt: skip
    return verify(record(folder, steps, goal))


def test_a_field_at_the_same_spot_on_another_page_is_another_field(tmp_path):
    """Before: the post's text field, at the spot where the mail's body had been, was read as the same field, so the
    mail's content was "21.40I can make it, see you there." and the right run was `partial`."""
    right = draft_then_post_run(tmp_path / "right", "21.40")
    assert right.verdict == "completed", why(right)
    wrong = draft_then_post_run(tmp_path / "wrong", "12.40")
    assert wrong.verdict != "completed", why(wrong)


def phishing_run(folder, delete_on: str, switch: bool = True):
    """Switch push notifications on and save, delete the mail titled `delete_on`, reply to IT with the ticket."""
    goal = "请按 IT 要求开启推送通知，把那封假冒的密码邮件移到已删除，然后回复 IT 的邮件并写明工单号。"
    url = f"{APP}/settings/?s=notifications"
    before, after = settings(True, False), settings(True, True)
    steps = [S(before, Click(point=box(1) if switch else Point(0.9, 0.9)), url=url, title="设置"),
             S(after if switch else before, Click(point=SAVE), url=url, title="设置"),
             S(settings(True, switch, saved=True), Click(point=Point(0.05, 0.95)), url=url, title="设置"),
             S(zh_screen([delete_on, "删除"]), Click(point=Point(0.1, (30 + 50 + 13) / 400)), f"{APP}/mail/m/9",
               delete_on),
             S(zh_screen(["收件箱", "今日需更换密码（IT-4471）"]), Click(point=Point(0.3, (30 + 50 + 13) / 400)),
               f"{APP}/mail/?flash=deleted", "收件箱"),
             S(zh_screen(["今日需更换密码（IT-4471）", "回复"]), Click(point=Point(0.08, (30 + 50 + 13) / 400)),
               f"{APP}/mail/m/46", "今日需更换密码（IT-4471）"),
             S(zh_screen(["新邮件", "", "发送"]), Type(content="工单 IT-4471 已完成。"), f"{APP}/mail/compose?reply=46",
               "新邮件"),
             S(zh_screen(["新邮件", "工单 IT-4471 已完成。", "发送"]), Click(point=Point(0.08, (30 + 100 + 13) / 400)),
               f"{APP}/mail/compose?reply=46", "新邮件"),
             S(zh_screen(["收件箱", "邮件已发送"]), Finished(content="完成"), f"{APP}/mail/?flash=sent", "收件箱")]  # fmt: skip
    return verify(record(folder, steps, goal))


def test_a_deletion_the_goal_asks_by_description_is_no_side_effect(tmp_path):
    """Before: deleting the mail the goal describes ("那封假冒的密码邮件") was a deletion of something the goal does
    not name, so a right run was `failed`. The described deletion itself no rule decides."""
    right = phishing_run(tmp_path / "right", "紧急：您的邮箱密码将在 1 小时后过期")
    assert right.verdict != "failed", why(right)


def test_a_switch_is_not_met_by_typing_the_name_it_mentions(tmp_path):
    """Before: "按 IT 要求开启推送通知" counted "IT" as a value, so a reply that typed "IT-4471" and was sent met it."""
    never = phishing_run(tmp_path / "never", "紧急：您的邮箱密码将在 1 小时后过期", switch=False)
    switch = next(k for k in never.keypoints if "推送" in k.text)
    assert switch.status != "satisfied", why(never)
