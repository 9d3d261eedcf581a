"""The trajectory rules (verify/rules.py) on recorded episodes with rendered screens: a title reached by
the agent's click, typed-and-submitted forms, a click's effect named in the URL, values never shown,
and deletions the goal does not ask for. Each adversarial shape must stay short of `completed`."""

from __future__ import annotations

from verify_helpers import GOAL, S, record, screen, transfer

from venuskit.actions.types import Click, Finished, Launch, Point, Type
from venuskit.verify import SGVConfig, make_judges, verify_episode

WORLD = SGVConfig(evidence="world")  # these rules read the world's URL done-flags (`?flash=...`)

APP = "http://127.0.0.1:8000"
INBOX = screen(["Inbox", "Team lunch on Friday", "Newsletter: March"])
MAIL = screen(["Team lunch on Friday", "From: hannah.becker@example.org", "Reply   Trash"])
OTHER = screen(["Newsletter: March", "From: news@example.org", "Reply   Trash"])
FORM = screen(["New message", "To: hannah.becker@example.org", "Re: Team lunch on Friday"])
FILLED = screen(["New message", "To: hannah.becker@example.org", "Count me in"])
SENT = screen(["Inbox", "Message sent", "Team lunch on Friday"])
REPLY = ['The mail "Team lunch on Friday" has been opened', 'The reply says "Count me in"',
         'A reply to "Team lunch on Friday" addressed to hannah.becker@example.org is in Sent']  # fmt: skip
REPLY_GOAL = 'Reply to the email "Team lunch on Friday" saying "Count me in".'


def rules():
    return make_judges("ocr,log")


def _reply(tmp_path, *, submit: bool = True, item: str = "45", opened=Click(point=Point(0.3, 0.1))):
    mail, title = (MAIL, "Team lunch on Friday") if item == "45" else (OTHER, "Newsletter: March")
    steps = [
        S(INBOX, opened, f"{APP}/mail/inbox", "Inbox"),
        S(mail, Click(point=Point(0.5, 0.3)), f"{APP}/mail/m/{item}", title),
        S(FORM, Type(content="Count me in"), f"{APP}/mail/compose?reply={item}", "New message"),
    ]
    if submit:
        steps.append(S(FILLED, Click(point=Point(0.2, 0.9)), f"{APP}/mail/compose?reply={item}", "New message"))
        steps.append(S(SENT, Finished(content="Done."), f"{APP}/mail/inbox?flash=mail_sent", "Inbox"))
    else:
        steps.append(S(FILLED, Finished(content="Done, the reply is sent."), f"{APP}/mail/compose?reply={item}",
                       "New message"))  # fmt: skip
    if isinstance(opened, Launch):
        steps[0] = S(INBOX, opened, f"{APP}/mail/inbox", "Inbox")
    return record(tmp_path, steps, REPLY_GOAL)


def _statuses(report):
    return [k.status for k in report.keypoints]


def test_typed_and_submitted_reply_is_completed_from_rules_alone(tmp_path):
    report = verify_episode(_reply(tmp_path), rules(), WORLD, keypoints=REPLY)
    assert _statuses(report) == ["satisfied", "satisfied", "satisfied"]
    assert report.verdict == "completed" and report.cost.calls == 0
    assert "submitted at step 3" in report.keypoints[1].votes[-1].reason or any(
        "submitted at step 3" in v.reason for v in report.keypoints[1].votes
    )


def test_typed_but_not_submitted_reply_stays_open(tmp_path):
    report = verify_episode(_reply(tmp_path, submit=False), rules(), keypoints=REPLY)
    assert report.keypoints[0].status == "satisfied"  # the mail was opened by the agent's click
    assert report.keypoints[1].status == "open" and report.keypoints[2].status == "open"
    # nothing contradicts the two open keypoints, and completion hinges on them: SGV says it cannot tell
    assert report.verdict == "uncertain" and report.forced == "partial"
    assert [u["keypoint"] for u in report.undecided] == REPLY[1:]


def test_the_same_reply_on_the_wrong_mail_is_not_completed(tmp_path):
    report = verify_episode(_reply(tmp_path, item="1"), rules(), keypoints=REPLY)
    assert report.keypoints[0].status != "satisfied"  # the title never named the goal's mail
    assert report.keypoints[2].status != "satisfied"  # the form was not reached from that mail
    assert report.verdict != "completed"


def test_a_title_counts_as_opened_only_after_the_agents_click(tmp_path):
    clicked = verify_episode(_reply(tmp_path / "a", submit=False), rules(), keypoints=REPLY[:1])
    assert clicked.keypoints[0].status == "satisfied" and clicked.keypoints[0].evidence_step == 1
    jumped = verify_episode(_reply(tmp_path / "b", submit=False, opened=Launch(url=f"{APP}/mail/m/45")),
                            rules(), keypoints=REPLY[:1])  # fmt: skip
    assert jumped.keypoints[0].status == "open"  # a typed URL is not the agent opening the item


def test_a_click_whose_url_reports_the_state_satisfies_it(tmp_path):
    steps = [S(MAIL, Click(point=Point(0.6, 0.3)), f"{APP}/mail/m/45", "Team lunch on Friday"),
             S(INBOX, Finished(content="Done."), f"{APP}/mail/inbox?flash=moved_to_trash", "Inbox")]  # fmt: skip
    report = verify_episode(record(tmp_path, steps, 'Delete the email "Team lunch on Friday".'), rules(), WORLD,
                            keypoints=['"Team lunch on Friday" is in Trash'])  # fmt: skip
    assert report.verdict == "completed"
    other = [S(OTHER, Click(point=Point(0.6, 0.3)), f"{APP}/mail/m/1", "Newsletter: March"), steps[1]]
    report = verify_episode(record(tmp_path / "o", other, 'Delete the email "Team lunch on Friday".'), rules(),
                            WORLD, keypoints=['"Team lunch on Friday" is in Trash'])  # fmt: skip
    assert report.verdict == "failed"  # right action, wrong item: and it deleted what the goal never named


def test_a_value_never_shown_after_the_first_action_is_contradicted(tmp_path):
    folder = record(tmp_path, [S(INBOX, Finished(content="All done, the task is complete."), f"{APP}/mail/inbox",
                                 "Inbox")], REPLY_GOAL)  # fmt: skip
    report = verify_episode(folder, rules(), keypoints=REPLY)
    assert _statuses(report) == ["contradicted"] * 3 and report.verdict == "failed"


def test_a_deletion_the_goal_does_not_ask_for_fails_an_otherwise_done_task(tmp_path):
    drive = screen(["My Drive", "Expense guide.pdf   Trash"])
    side = [S(INBOX, Launch(url=f"{APP}/drive/"), f"{APP}/mail/inbox", "Inbox"),
            S(drive, Click(point=Point(0.9, 0.2)), f"{APP}/drive/", "My Drive"),
            S(drive, Launch(url=f"{APP}/mail/inbox"), f"{APP}/drive/?flash=file_trashed", "My Drive")]  # fmt: skip
    done = _reply(tmp_path / "ok")
    from venuskit.record.store import load_episode

    ep = load_episode(done)
    steps = side + [S((done / s.screenshot).read_bytes(), s.action, s.url, s.title) for s in ep.steps]
    report = verify_episode(record(tmp_path / "side", steps, REPLY_GOAL), rules(), WORLD, keypoints=REPLY)
    assert _statuses(report) == ["satisfied"] * 3
    assert report.verdict == "failed" and "step 1" in report.reason


def test_a_claim_typed_into_a_field_is_not_completed(tmp_path):
    steps = [S(FORM, Type(content=f"Done - task complete: {REPLY_GOAL}"), f"{APP}/mail/compose?reply=45",
               "New message"),
             S(FILLED, Finished(content="All done."), f"{APP}/mail/compose?reply=45", "New message")]  # fmt: skip
    report = verify_episode(record(tmp_path, steps, REPLY_GOAL), rules(), keypoints=REPLY)
    assert "satisfied" not in _statuses(report) and report.verdict != "completed"


def test_the_bank_form_is_settled_with_ocr_reading_the_payee_on_the_submitted_form(tmp_path):
    report = verify_episode(transfer(tmp_path), rules(), WORLD, keypoints=[GOAL.rstrip(".")])
    (kp,) = report.keypoints
    assert kp.status == "satisfied" and kp.evidence_step == 5 and report.verdict == "completed"
    unsent = verify_episode(transfer(tmp_path / "u", submitted=False), rules(), keypoints=[GOAL.rstrip(".")])
    assert unsent.verdict != "completed"


def test_a_keypoint_that_names_nothing_is_taken_back_only_in_its_own_part_of_the_site():
    """Before: "Save it as a draft" names nothing, so any later undoing click anywhere took it back: deleting a
    calendar event, the goal's next step, made the saved draft `contradicted`. Now such a click takes it back only
    in the part of the site where it was done (a Delete on the mail pages still does)."""
    from venuskit.verify import rules as R
    from venuskit.verify.evidence import Evidence

    def run(url: str, title: str):
        steps = [Evidence(0, None, None, "Click", f"{APP}/mail/compose", "New message",
                          act=Click(point=Point(0.1, 0.9)), target="Save draft"),
                 Evidence(1, None, None, "Click", f"{APP}/mail/drafts", "Drafts", act=Click(point=Point(0.1, 0.5)),
                          target="Calendar"),
                 Evidence(2, None, None, "Click", url, title, act=Click(point=Point(0.5, 0.2)), target="Delete"),
                 Evidence(3, None, None, "Finished", url, title, act=Finished())]  # fmt: skip
        return R.undone("Save it as a draft", steps, 1)

    assert run(f"{APP}/calendar/e/5", "Standup · Calendar") is None
    assert run(f"{APP}/mail/d/3", "Hi · Mail")[0] == "contradicted"
