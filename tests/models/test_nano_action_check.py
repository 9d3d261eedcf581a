"""The action check: venus-nano does not click a control whose label or icon commits an action the goal does not ask
for (the trash can when asked to star, Accept when asked to decline, Buy when asked how many are left)."""

import numpy as np
import pytest
import torch
from nano_scripted import scripted_model

from venuskit.models.nano.candidates import Candidate
from venuskit.models.nano.done import asked_acts, refused_acts, unwritten
from venuskit.models.nano.entities import concepts, lexicon
from venuskit.models.nano.features import CAND_DIM, STATE_DIM, TEXT_DIM, Features, TextOption
from venuskit.models.nano.guard import commits, unasked, wanted_acts, with_glyphs
from venuskit.models.nano.model import NanoModel

CONTROLS = ["Delete", "Accept", "Decline", "Buy now", "Archive", "Delete forever", "Pay", "trash delete", "Leave group",
            "Join", "Star", "Reply", "Send", "Save"]  # fmt: skip


def _held(goal: str, question: bool = False) -> set[str]:
    return {CONTROLS[i] for i in unasked(goal, CONTROLS, question)}


def test_a_control_commits_what_its_label_says_and_a_place_a_state_or_an_answer_commits_nothing():
    assert commits("Delete forever") == {"delete", "forever"} and commits("永久删除") == {"delete", "forever"}
    assert commits("Place order") == {"buy"} and commits("立即购买") == {"buy"} and commits("Decline") == {"decline"}
    assert commits("取消订阅") == {"leave"}  # the longer word wins: unsubscribing is no subscribing
    # Folders, states, rows, a dialog's answer and a field's placeholder are not consequential controls.
    for label in ("Trash", "Deleted items", "已删除", "Order #1042", "Payments", "OK", "Confirm", "Enter amount",
                  "Archived", "已归档"):  # fmt: skip
        assert commits(label) == frozenset(), label


def test_each_consequential_word_is_a_word_of_its_lexicon_concept():
    """One vocabulary: the action check's words are a subset of the concepts the features and the done check use."""
    lex = lexicon()
    for concept, forms in lex.consequential.items():
        assert concept in lex.concepts, concept
        for form in forms:
            assert concept in concepts(form.lstrip("^")), (concept, form)


def test_controls_committing_what_the_goal_does_not_ask_for_are_held_back():
    # Asked to star: the trash can, Delete, Archive, Accept... are held back; Star, Reply, Send, Save are not.
    assert _held('Star the email "Quarterly budget".') == set(CONTROLS) - {"Star", "Reply", "Save"}
    # Accept for Decline, not Decline.
    held = _held("Decline the invitation to Team sync.")
    assert "Accept" in held and "Decline" not in held
    # Moving to the trash is no deleting forever.
    held = _held("Move the file report.pdf to the trash.")
    assert "Delete forever" in held and "Delete" not in held and "trash delete" not in held
    # A question asks for no action: nothing consequential is clicked to answer it, whatever words say how to answer
    # ("Answer with" is no reply to send) or name its object (the payment it asks about).
    assert _held("How many Blue Mugs are left in stock?", question=True) >= {"Buy now", "Delete", "Pay", "Join"}
    assert _held("Who booked the room? Answer with their e-mail address.", question=True) >= {"Send", "Pay"}
    assert _held("What was the reference of the payment to Acme on 2 May? Answer with it.", question=True) >= {"Pay"}
    # A question mark inside quotes is a title, not a question: replying to that post may end with Send.
    assert "Send" not in _held('Reply to the post "Anyone selling a lamp?" with a comment saying: yes, I am.', True)
    assert "Buy now" not in _held('Buy the cheapest lamp that comes up when you search for "Nimbus".', True)  # "when"
    # A payment is a transfer and a reply is sent; so may be a comment, a form or a new event. Deleting, archiving or
    # starring alone never sends anything (the agent that typed "删除" into a new mail and sent it).
    assert "Pay" not in _held("Send 20 EUR to Bob Stone.") and "Send" not in _held("Reply to Bob saying thanks.")
    assert "Send" not in _held('Add a comment to the post "Tripod tips" saying: carbon is light.')
    assert "Send" in _held('Delete the email "Old password reset link" forever.')
    assert commits("Move to trash") == {"delete"} and commits("移到回收站") == {"delete"} and commits("Submit") == {"send"}
    # The archived email's state is not an action the goal asks for.
    assert "Archive" in _held("Move the archived email about taxes back to the inbox.")


def test_a_question_or_an_action_in_place_makes_nothing_new():
    """The agent that opened "New document" to find which file mentions a phrase, and composed a mail when asked to
    move one back to the inbox: a label whose first word makes something is held back where nothing is to be made."""
    makers = ["New document", "Compose", "写邮件", "新建文档", "Create folder"]
    assert all(commits(m) == {"create"} for m in makers)
    for label in ("What's new", "Blue Mug NEW", "Newsletter", "News", "Renew"):  # not a first word, or another word
        assert "create" not in commits(label), label
    assert set(unasked('Which file mentions "wifi password"? Answer with its name.', makers, True)) == set(range(5))
    assert len(unasked('Move the archived email "Tax documents 2023" back to the inbox.', makers, False)) == 5
    assert len(unasked('云盘里哪个文件提到了“wifi 密码”？请回答文件名。', makers, True)) == 5
    # Editing is no commitment: an old app opens a record by its Edit link (FinPortal's draft report, read to answer
    # a question), and a calendar moves an event through Edit for a goal whose verb the lexicon does not know.
    assert unasked("What is the total amount of the draft report? Answer with the amount.", ["Edit", "编辑"], True) == []
    # A goal that sends, posts, pays or edits may make something on the way; one that makes asks for it.
    for goal in ('Email Bob "see you at noon".', 'Post in "City Photography" with the title "Hi".',
                 "Send 20 EUR to Bob Stone.", 'Create a folder named "Taxes".', 'Change your display name to "Al".'):
        assert unasked(goal, makers, False) == [], goal
    # "Email" heading a clause is a verb that sends (a synthesised task's oracle composed and sent that mail); a
    # mail named as a thing is no sending.
    goal = 'Delete the event "Partner call", then email the file "Lease.pdf" to noah@northwind.example.'
    assert unasked(goal, ["Compose", "Send"], False) == [] and unasked("给 Bob 发邮件。", ["写邮件", "发送"], False) == []
    assert "Send" in _held("Star the email from Ann Lee.") and _held("What is the email address of Ann?", True)
    # The rest of an instruction after its colon says actions, not a value: this long goal submits, attaches and
    # replies (its oracle's "Submit for Approval" and Send were held back when the words after the colon were
    # taken for a dictated text). A dictated text after a colon is still no action.
    claim = ("Claim your flight to Stockholm: Sofia's email says which approver to use. File and submit the report "
             "with the receipt attached, then reply to Sofia with the report number.")  # fmt: skip
    assert unasked(claim, ["Submit for Approval", "Send", "Delete"], True) == [2]
    assert wanted_acts('Reply to "Budget review" saying: I agree, please delete it.', False) >= {"reply"}
    assert "delete" not in wanted_acts('Reply to "Budget review" saying: I agree, please delete it.', False)


def test_a_verb_the_goal_says_not_to_do_or_to_leave_for_later_is_not_asked_for():
    """The agent that replied to a mail it was asked to archive ("不用回复") or to mark unread "to answer later", and
    sent the reply: a verb the goal refuses or defers brings no Send in with it (Reply itself commits nothing: the
    reply is sent by Send), and a refused Send is held back whatever else the goal asks for."""
    labels = ["回复", "发送", "归档", "标为未读", "Reply", "Send", "Archive", "Mark as unread", "Pay", "Save draft"]

    def held(goal: str) -> set[str]:
        return {labels[i] for i in unasked(goal, labels, False)}

    for goal in ("把高平发来的邮件“知悉：新的停车规定”归档；不用回复，但要保留。",
                 'Archive the email "FYI: new parking rules" from Gao Ping; it needs no answer but keep it.'):
        assert held(goal) >= {"发送", "Send"} and not held(goal) & {"归档", "Archive"}, goal
    for goal in ("邮件“关于你的方案的反馈”你已经读过了，请把它标为未读，提醒自己稍后回复。",
                 'You already read the email "Feedback"; mark it as unread so you remember to answer it later.'):
        assert held(goal) >= {"发送", "Send"} and not held(goal) & {"标为未读", "Mark as unread"}, goal
    # Refusing a verb holds it back even where another verb would bring it in: a reply kept as a draft is not sent.
    assert held("Write a reply to Ann and save it as a draft; do not send it.") & {"Send", "发送", "Reply"} == {
        "Send", "发送"}  # fmt: skip
    assert {"Send", "Pay"} <= held("Add ann@example.com as a new payee, without sending money.")
    # A refusal holds back even where the goal names no verb the lexicon knows (加一件 is no known verb).
    assert unasked("在商城里找到“冰川保温壶”，加一件到购物车，先不要下单。", ["下单", "加入购物车"], False) == [0]
    assert unasked("Add one Glacier flask to the cart; do not check out yet.", ["Checkout", "Add to cart"], False) == [0]
    # "No longer" is a state: it refuses nothing and declines nothing.
    assert refused_acts('Remove the star from "Notes.docx"; it is no longer important.') == frozenset()
    assert "decline" not in asked_acts('Leave the "Chess" group; you no longer want its posts.')
    # What says when, or another clause's verb, is still asked for; so is "can't make it", a way of declining.
    assert "reply" in wanted_acts("Archive the thread first, then reply to it later today.", False)
    assert "Send" not in held("Archive the thread first, then reply to it later today.")
    assert "reply" in wanted_acts("先归档，之后再回复他。", False) and "发送" not in held("先归档，之后再回复他。")
    assert "decline" in wanted_acts("Tell Bob you can't make it.", False)
    assert "decline" in wanted_acts("No, I can't come: decline the invitation.", False)


def test_a_glyph_inside_a_held_control_is_held_with_it():
    """The reader splits a Send button into its icon, read as "?", and "发送"; the region around both is the button.
    Asked to archive a mail that needs no answer, the agent clicked the "?" and sent a reply: what has no word of its
    own does what its button says."""
    goal = "把高平发来的邮件“知悉：新的停车规定”归档；不用回复，但要保留。"
    # 0 "?" and 1 an unnamed icon inside the Send button (2); 3 "存草稿" and 4 "→" inside the Save-draft button (5).
    labels = ["?", "", "? 发送", "存草稿", "→", "存草稿 →"]
    container: list[int | None] = [2, 2, None, 5, 5, None]
    held = unasked(goal, labels, False)
    assert held == [2]  # only the button's own label says what it commits
    assert with_glyphs(held, labels, container) == [0, 1, 2]
    # A word inside a held region is judged by its own label; nothing inside a button that commits nothing is held.
    assert with_glyphs([2], ["?", "存草稿", "? 发送 存草稿"], [2, 2, None]) == [0, 2]
    assert with_glyphs([], labels, container) == []


def test_nothing_is_held_back_when_the_goal_names_no_action_the_lexicon_knows_or_the_control_names_its_value():
    assert wanted_acts("Get rid of the draft.", question=False) is None
    assert _held("Get rid of the draft.") == set()
    # A row whose text says "delete" but names the goal's value is the object, not a control of another action.
    rows = ["Delete old drafts", "Delete"]
    assert unasked('Star the email "Delete old drafts".', rows, False) == [1]


def test_sending_waits_for_the_text_the_goal_dictates():
    """The agent that opened the reply and clicked Send: a goal dictating words holds Send back until the agent has
    typed something. The mail's subject the goal names is on the screen; the reply's words are not, yet."""
    goal = 'Reply to "Budget review" with "Looks good, thanks."'
    shown = ["Inbox", "Budget review", "Mia Chen", "Reply", "Send"]
    assert unwritten(goal, [], shown)
    assert "Send" in {CONTROLS[i] for i in unasked(goal, CONTROLS, False, unsent=True)}
    assert not unwritten(goal, ["Looks good, thanks."], shown + ["Looks good, thanks."])
    assert not unwritten(goal, ["Looks"], shown)  # something typed: the check cannot tell what is missing
    assert not unwritten('Reply to "Budget review".', [], shown)  # the only value is the mail on the screen
    assert not unwritten("Reply to Mia saying thanks.", [], shown)  # nothing quoted: no dictated text it can tell
    assert unwritten("回复“预算评审”：我同意，谢谢。", [], ["预算评审", "回复", "发送"])  # the words after the colon
    # A name is no dictated text: the item removed before the order is submitted is gone without anything typed.
    assert not unwritten("在购物车里删掉“冰川滑雪镜”，然后提交订单。", [], ["购物车", "提交订单"])
    assert not unwritten('Star the file "release v2.1 notes".', [], ["Files"])
    assert not unwritten('Delete the email "Your price alert: Lisbon flights".', [], ["Inbox"])  # a title's colon
    assert not unwritten('Tidy up Drive: delete "a.txt", then star "b.txt".', [], ["Trash"])  # an instruction's
    # A verb the lexicon does not know holds only sending back, and only while the text is unwritten.
    assert {CONTROLS[i] for i in unasked('Tell Mia "see you at noon".', CONTROLS, False, unsent=True)} == {"Send"}
    assert unasked('Tell Mia "see you at noon".', CONTROLS, False, unsent=False) == []


def _features(unasked_idx: list[int]) -> Features:
    n = 4
    cands = [Candidate((10, 10 + 20 * i, 100, 25 + 20 * i), f"line {i}", "text") for i in range(n)]
    texts = [TextOption("Done.", "done")]
    return Features((1000, 800), cands, np.zeros((n, CAND_DIM), np.float16), [[1]] * n,
                    np.zeros((0, 16, 16), np.float16), [], [1], np.zeros(STATE_DIM, np.float32), texts,
                    np.zeros((1, TEXT_DIM), np.float16), None, False, None, unasked_idx)  # fmt: skip


def _clicking_model(action_check: bool = True) -> NanoModel:
    """A network that always clicks, preferring candidate 0, then 1, then 2."""
    return scripted_model("Click", ptr=[30.0, 20.0, 10.0, 0.0], action_check=action_check)


def test_the_pointer_head_is_not_offered_held_back_candidates():
    model = _clicking_model()
    assert model.decide(_features([]), "browser").cand == 0
    assert model.decide(_features([0]), "browser").cand == 1
    assert model.decide(_features([0, 1]), "browser").cand == 2
    # Sampling never picks a held-back candidate either.
    gen = torch.Generator().manual_seed(3)
    picks = {model.decide(_features([0]), "browser", greedy=False, temperature=30.0, generator=gen).cand
             for _ in range(200)}  # fmt: skip
    assert 0 not in picks and len(picks) > 1
    assert _clicking_model(action_check=False).decide(_features([0]), "browser").cand == 0


@pytest.mark.browser
@pytest.mark.parametrize("task", ["calendar.accept_invite", "drive.trash_file", "mail.archive_message",
                                  "shop.buy_product", "calendar.delete_event", "mail.forward_to_colleague",
                                  "forum.comment_on_post"])  # fmt: skip
def test_the_oracle_consequential_clicks_are_never_held_back(tmp_path, task):
    """Real Chromium, the world server and the task oracle: on the oracle's own episode of a template whose goal asks
    for a consequential action, every click the oracle makes stays offered to the pointer head (the check holds
    back what the goal does not ask for, never the control that does it)."""
    from venuskit.actions import parse_response
    from venuskit.models.nano import load_default
    from venuskit.models.nano.features import NanoInput
    from venuskit.record.store import load_episode
    from venuskit.runs.world import run_world_task

    run = run_world_task(task, 11, out=tmp_path)
    assert run.verdict.verdict == "completed"
    episode = load_episode(run.episode_dir)
    model = load_default()
    goal, history, shots, clicks = episode.task["goal"], [], [], 0
    for step in episode.steps:
        png = (run.episode_dir / step.screenshot).read_bytes()
        actions = parse_response(step.raw_output, "browser").actions
        if actions and actions[0].name == "Click":
            f = model.features(NanoInput(png, goal, "browser", list(history), None, list(shots)))
            x, y = actions[0].point.x * f.size[0], actions[0].point.y * f.size[1]
            under = [i for i, c in enumerate(f.cands)
                     if c.kind != "cell" and c.box[0] <= x <= c.box[2] and c.box[1] <= y <= c.box[3]]  # fmt: skip
            held = [f.cands[i].text for i in under if i in f.unasked]
            assert not (under and len(held) == len(under)), (task, step.index, held)
            clicks += bool(under)  # a click on a blank spot of a card has no candidate to hold back
        history += actions
        shots += [png] * len(actions)
    assert clicks >= 1
