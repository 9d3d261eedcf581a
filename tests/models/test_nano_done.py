"""venus-nano's done decision reads what changed on screen against the goal's verb and objects: a success flash of
another action (a file trashed when asked to star) is told from one of the asked action."""

from types import SimpleNamespace as NS

from venuskit.models.nano.features import DONE_NAMES, STATE_NAMES, Goal, _changes


def _changed(goal: str, before: list[str], after: list[str]) -> dict[str, float]:
    past = NS(prev=NS(lines=[NS(text=t) for t in before]))
    cands = [NS(kind="text", text=t) for t in after]
    return dict(zip(DONE_NAMES, _changes(Goal(goal), cands, past), strict=True))


def test_a_flash_of_the_asked_action_is_told_from_a_flash_of_another():
    goal = 'Archive the email "Quarterly budget".'
    inbox = ["Inbox", "Quarterly budget", "Team lunch"]
    right = _changed(goal, inbox, ["Inbox", "Team lunch", "Conversation archived."])
    wrong = _changed(goal, inbox, ["Inbox", "Team lunch", "Conversation moved to Trash."])
    assert right["done_goal_verb"] == 1 and right["done_other_verb"] == 0
    assert wrong["done_goal_verb"] == 0 and wrong["done_other_verb"] == 1
    zh = _changed("把邮件“Quarterly budget”归档", ["收件箱"], ["收件箱", "邮件已归档。"])
    assert zh["done_goal_verb"] == 1 and zh["done_other_verb"] == 0


def test_new_lines_naming_a_goal_entity_and_the_first_screen():
    goal = 'Send the report to "ops@example.com".'
    seen = _changed(goal, ["Compose"], ["Compose", "Email sent", "To: ops@example.com"])
    assert seen["done_goal_verb"] == 1 and seen["new_entity"] == 1 and seen["new_lines"] > 0
    first = dict(zip(DONE_NAMES, _changes(Goal(goal), [NS(kind="text", text="Email sent")], NS(prev=None)),
                     strict=True))  # fmt: skip
    assert set(first.values()) == {0.0}  # nothing has changed before the first action
    assert set(DONE_NAMES) <= set(STATE_NAMES)
