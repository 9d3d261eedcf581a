"""The done check: venus-nano says Finished only with evidence on its own screenshots that the goal's action happened
(a flash of that action, the goal's object gone or flashed, a control of that action clicked, a toggle under the last
click), and answers a question with a value, never "Done."."""

import numpy as np
import pytest
from nano_scripted import scripted_model

from venuskit.models.nano.candidates import Candidate
from venuskit.models.nano.done import answer_options, asked_acts, done_evidence
from venuskit.models.nano.features import CAND_DIM, STATE_DIM, TEXT_DIM, Features, TextOption
from venuskit.models.nano.history import Past
from venuskit.models.nano.model import NanoModel
from venuskit.models.nano.reader import Line, Screen


def _screen(texts: list[str], gray: np.ndarray | None = None) -> Screen:
    lines = [Line((10, 20 + 30 * i, 300, 40 + 30 * i), t, 1.0, "text") for i, t in enumerate(texts)]
    return Screen(1000, 800, lines, gray if gray is not None else np.full((800, 1000), 255, np.uint8))


def _evidence(goal: str, before: list[str], after: list[str], clicked: tuple[str, ...] = (),
              last_click: tuple[float, float] | None = None, grays=(None, None)) -> str:  # fmt: skip
    prev = _screen(before, grays[0])
    past = Past([last_click or (0.5, 0.5)] * max(1, len(clicked)), list(clicked) or [""], [], prev)
    return done_evidence(goal, _screen(after, grays[1]), past, last_click)


def test_a_flash_of_the_asked_action_is_evidence_and_a_flash_of_another_is_not():
    inbox = ["Inbox", "Quarterly budget", "Team lunch"]
    archive = 'Archive the email "Team lunch".'
    assert "archived" in _evidence(archive, inbox, [*inbox, "Conversation archived."])
    star = 'Star the email "Quarterly budget".'
    assert _evidence(star, inbox, [*inbox, "Conversation moved to Trash."]) == ""
    assert _evidence("把邮件“Quarterly budget”归档", ["收件箱"], ["收件箱", "邮件已归档。"]) != ""
    # "Saved" names no action of its own: it ends any edit, even one whose verb the lexicon does not know.
    assert _evidence("Switch the workspace language to Chinese.", ["Language"], ["语言", "设置已保存。"]) != ""


def test_opening_another_page_is_not_evidence_even_when_it_shows_a_sent_folder_or_snippets():
    goal = 'Reply to the post "Tripod tips" with a comment saying: carbon is light.'
    feed = ["Home feed", "Tripod tips", "Write a comment..."]
    inbox = ["Inbox", "Re: Q2 roadmap draft — Thanks for the draft. I left comments, all done...", "Drafts"]
    assert _evidence(goal, feed, inbox, clicked=("Mail",)) == ""


def test_the_goal_object_gone_and_a_clicked_control_of_the_goal_action_are_evidence():
    goal = 'Move the email "Signed offer letter" to the trash.'
    assert "gone" in _evidence(goal, ["Inbox", "Signed offer letter", "Team lunch"], ["Inbox", "Team lunch"])
    goal = 'Mark the email "Feedback on your proposal" as unread.'
    assert "Mark as unread" in _evidence(goal, ["Feedback on your proposal"], ["Inbox"],
                                         clicked=("Feedback on your proposal — Hi", "Mark as unread"))  # fmt: skip
    # A long clicked text is a list row or a snippet, not a control: its words are not an action.
    assert _evidence(goal, ["x"], ["y"], clicked=("Feedback on your proposal — Hi, I read it twice. A few",)) == ""


def test_its_own_typing_gone_and_a_control_naming_another_thing_are_not_evidence():
    """The goal's title typed into a search box and then cleared is not the object gone; a control that says the
    goal's verb about something else ("Change password" for a display name, "Search posts" for a reaction to a post)
    is not the goal's action. The object gone while the query stays, and a control about the goal's own thing,
    still are."""
    goal = 'Move the archived email "Tax documents 2023" back to the inbox.'
    rows = ["Inbox", "Team lunch", "Quarterly budget", "Offsite agenda"]
    past = Past([(0.3, 0.05)], ["Search mail"], ["Tax documents 2023"], _screen(["Tax documents 2023", *rows]))
    assert done_evidence(goal, _screen(["Search mail", *rows]), past, None) == ""
    goal = 'Delete the file "Tax documents 2023".'
    found = ["Tax documents 2023", "Tax documents 2023.pdf — 2 MB", "My Drive"]
    past = Past([(0.5, 0.5)], ["Tax documents 2023.pdf — 2 MB"], ["Tax documents 2023"], _screen(found))
    assert "gone" in done_evidence(goal, _screen(["Tax documents 2023", "My Drive"]), past, None)
    rename = "把显示名称改为“林晓（产品）”，部门改为 Sales。"
    assert _evidence(rename, ["个人资料"], ["修改密码"], clicked=("修改密码",)) == ""
    react = 'React with "Celebrate" to Maya Larsen\'s post "Finished my first ultramarathon!"'
    assert _evidence(react, ["Forum"], ["Forum", "Results"], clicked=("Search posts",)) == ""
    assert "Join event" in _evidence('Join the event "Design review".', ["x"], ["y"], clicked=("Join event",))
    assert "Attach file" in _evidence('Attach the file "a.pdf" to the draft.', ["x"], ["y"], clicked=("Attach file",))


def test_a_toggle_under_the_last_click_is_evidence_and_a_new_page_is_not():
    goal = 'Star the file "Q2 roadmap.docx".'
    before = np.full((800, 1000), 255, np.uint8)
    toggled = before.copy()
    toggled[390:410, 490:510] = 0  # the star under the click filled in
    page = toggled.copy()
    page[100:700, 200:900] = 40  # everything else changed too: another page opened
    files = ["My Drive", "Q2 roadmap.docx"]
    assert "toggled" in _evidence(goal, files, files, last_click=(0.5, 0.5), grays=(before, toggled))
    assert _evidence(goal, files, files, last_click=(0.5, 0.5), grays=(before, page)) == ""
    assert _evidence(goal, files, files, last_click=None, grays=(before, toggled)) == ""  # the last action typed
    # The icon namer's name of what toggled: a star is evidence of starring (and unstarring), not of deleting.
    def icon(goal: str, name: str) -> str:
        past = Past([(0.5, 0.5)], [""], [], _screen(files, before))
        return done_evidence(goal, _screen(files, toggled), past, (0.5, 0.5), name)

    assert "toggled" in icon(goal, "star") and "toggled" in icon('Unstar the file "Q2 roadmap.docx".', "star")
    assert icon('Delete the file "Q2 roadmap.docx" from Drive.', "star") == ""
    assert icon("从云盘删除文件“Q2 roadmap.docx”。", "star") == ""
    assert "toggled" in icon('Delete the file "Q2 roadmap.docx" from Drive.', "trash delete")
    assert "toggled" in icon('Delete the file "Q2 roadmap.docx" from Drive.', "")  # an unnamed box may be anything


def test_the_state_the_goal_names_its_object_by_is_not_an_action_it_asks_for():
    """"The archived email" says which email, not what to do with it: clicking Archive is no evidence that it went
    back to the inbox, nor is a line gone after that click (opening the Archive folder clears the search header)."""
    goal = 'Move the archived email "Tax documents 2023" back to the inbox.'
    assert asked_acts(goal) == {"restore"} and asked_acts("把已归档的邮件“2023 年纳税材料”移回收件箱。") == frozenset()
    assert asked_acts('Restore the deleted file "Q3 plan.pdf".') == {"restore"}
    assert asked_acts('Delete the starred email "Team lunch".') == {"delete"}
    assert asked_acts('Archive the email "Budget".') == {"archive"}  # the verb itself stays
    results = ["Inbox", "Search results for “Tax documents 2023”", "Archive", "Trash", "Sent"]
    assert _evidence(goal, results, results, clicked=("Archive",)) == ""
    zh = "把已归档的邮件“2023 年纳税材料”移回收件箱。"
    header = ["收件箱", "“2023年纳税材料”的搜索结果", "归档", "已删除", "已发送"]
    assert _evidence(zh, header, ["收件箱", "归档", "已删除", "已发送"], clicked=("归档",), last_click=(0.1, 0.3)) == ""
    # The same line gone after a click on the goal's own action is evidence, as before.
    trash = 'Move the email "Signed offer letter" to the trash.'
    rows = ["Inbox", "Signed offer letter", "Team lunch", "Drafts"]
    assert "gone" in _evidence(trash, rows, ["Inbox", "Team lunch", "Drafts"], clicked=("Delete",),
                               last_click=(0.1, 0.1))  # fmt: skip


def test_a_verb_the_goal_refuses_or_defers_is_no_evidence():
    """"标为未读，提醒自己稍后回复": a reply sent is no evidence that the mail was marked unread; the mark is."""
    goal = "邮件“关于你的方案的反馈”你已经读过了，请把它标为未读，提醒自己稍后回复。"
    assert asked_acts(goal) == {"read"}
    assert asked_acts('Archive the email "FYI" from Gao; it needs no answer.') == {"archive"}
    page = ["收件箱", "关于你的方案的反馈", "回复", "转发"]
    assert _evidence(goal, page, page, clicked=("回复",)) == ""
    assert "clicked" in _evidence(goal, page, page, clicked=("标为未读",))


def test_a_reply_sent_without_the_words_the_goal_dictates_is_not_done():
    goal = 'Reply to "Budget review" with "Looks good, thanks."'
    thread = ["Inbox", "Budget review", "Reply", "Send"]
    sent = ["Inbox", "Budget review", "Message sent."]
    clicked = ("Reply", "Send")
    past = Past([(0.5, 0.5), (0.5, 0.6)], list(clicked), [], _screen(thread))
    assert done_evidence(goal, _screen(sent), past, (0.5, 0.6)) == ""  # the flash and the clicks say sent; no words
    typed = Past([(0.5, 0.5), (0.5, 0.6)], list(clicked), ["Looks good, thanks."], _screen(thread))
    assert done_evidence(goal, _screen(sent), typed, (0.5, 0.6)) != ""
    # An item the goal names by a title, gone without anything typed, is evidence as before.
    assert "gone" in _evidence('Delete the email "Your alert: new flights".', ["Inbox", "Your alert: new flights",
                                                                            "Team lunch"], ["Inbox", "Team lunch"])


def test_nothing_is_evidence_before_the_first_action():
    goal = 'Star the email "Quarterly budget".'
    assert done_evidence(goal, _screen(["Conversation starred."]), Past([], [], [], None), None) == ""


def _features(evidence: str | None, asks_answer: bool, texts: list[TextOption] | None = None,
              kind: str | None = None) -> Features:  # fmt: skip
    cands_n = 3
    texts = texts or [TextOption("Done.", "done"), TextOption("42.50", "s_amount")]
    cands = [Candidate((10, 10 + 20 * i, 100, 25 + 20 * i), f"line {i}", "text") for i in range(cands_n)]
    return Features((1000, 800), cands, np.zeros((cands_n, CAND_DIM), np.float16), [[1]] * cands_n,
                    np.zeros((0, 16, 16), np.float16), [], [1], np.zeros(STATE_DIM, np.float32), texts,
                    np.zeros((len(texts), TEXT_DIM), np.float16), evidence, asks_answer, kind)  # fmt: skip


def _finishing_model(done_check: bool = True) -> NanoModel:
    """A network whose type head always prefers Finished and whose text head prefers "Done."."""
    return scripted_model("Finished", text={0: 50.0}, done_check=done_check)


def test_finished_is_withheld_without_evidence_and_a_question_is_answered_with_a_value():
    model = _finishing_model()
    assert model.decide(_features("", False), "browser").type != "Finished"
    assert model.decide(_features("new on screen: 'Starred'", False), "browser").type == "Finished"
    assert model.decide(_features(None, False), "browser").type == "Finished"  # features cached before the check
    answer = model.decide(_features(None, True), "browser")
    assert answer.type == "Finished" and _features(None, True).texts[answer.text].text == "42.50"
    # Only the question's own value, a success flash and "Done." to answer with: no answer yet, so no Finished.
    echo = [TextOption("Done.", "done"), TextOption("PRJ-7741", "code"), TextOption("Saved.", "screen")]
    assert model.decide(_features(None, True, echo), "browser").type != "Finished"
    off = _finishing_model(done_check=False)
    assert off.decide(_features("", False), "browser").type == "Finished"
    assert _features(None, True).texts[off.decide(_features(None, True), "browser").text].text == "Done."


def test_a_question_asking_for_a_shaped_value_is_answered_with_a_value_of_that_shape():
    model = _finishing_model()
    screen = [TextOption("Done.", "done"), TextOption("Choose Files", "screen"), TextOption("8,945.52", "s_amount"),
              TextOption("maya.ross@northwind.example", "s_email"), TextOption("Saved.", "screen")]  # fmt: skip
    asks = {"email": "maya.ross@northwind.example", "amount": "8,945.52"}
    for kind, value in asks.items():
        answer = model.decide(_features(None, True, screen, kind), "browser")
        assert answer.type == "Finished" and screen[answer.text].text == value
    # Nothing of the asked shape on screen: no answer yet, the agent acts on.
    no_email = [o for o in screen if o.source != "s_email"]
    assert model.decide(_features(None, True, no_email, "email"), "browser").type != "Finished"
    # A title or a status has no shape: any value read from the screen may answer; a person is named, never given by
    # an e-mail address or an amount ("Who asked …? Answer with their full name").
    assert answer_options(screen, "word") == answer_options(screen) == [1, 2, 3]
    assert answer_options(screen, "person") == [1]
    # A search box's placeholder, or a search control, is never the value asked for.
    boxes = [TextOption("Search mail", "screen"), TextOption("Searchmail", "screen"), TextOption("搜索商品", "screen"),
             TextOption("Access request approved", "screen"), TextOption("Research budget", "screen")]  # fmt: skip
    assert answer_options(boxes, "word") == [3, 4]
    assert answer_options(screen, "number") == [] and answer_options(screen, "code") == []
    computed = [TextOption("57.90", "computed")]  # a total summed from the screen's amounts
    assert answer_options(computed, "amount") == [0]
    # A clock time the reader took for a number (glued to a Chinese date) still has a time's shape.
    glued = [TextOption("16:00", "s_time"), TextOption("14:30", "s_number"), TextOption("00", "s_word")]
    assert answer_options(glued, "time") == [0, 1] and answer_options(glued, "number") == [1]
    # "When does it end? Answer with the time (HH:MM)" is a "when" question: a date or a time answers it.
    when = [TextOption("11 Mar 2024", "s_date"), TextOption("17:50", "s_time"), TextOption("Release retro", "screen")]
    assert answer_options(when, "date") == [0, 1] and answer_options(when, "time") == [1]


@pytest.mark.browser
@pytest.mark.parametrize("task", ["mail.star_message", "drive.trash_file", "calendar.accept_invite",
                                  "mail.restore_from_trash", "settings.language_zh"])  # fmt: skip
def test_the_oracle_real_episodes_give_evidence_at_their_end_and_none_at_their_start(tmp_path, task):
    """Real Chromium, the world server and the task oracle: on the oracle's own solved episode, venus-nano's features
    find evidence that the goal's action happened on the last screen (where the oracle says Finished), and none on
    the first (nothing done yet). The kinds differ by task: a toggle, a flash, an object gone, a generic "saved"."""
    from venuskit.actions import parse_response
    from venuskit.models.nano import load_default
    from venuskit.models.nano.features import NanoInput
    from venuskit.record.store import load_episode
    from venuskit.runs.world import run_world_task

    run = run_world_task(task, 11, out=tmp_path)
    assert run.verdict.verdict == "completed"
    episode = load_episode(run.episode_dir)
    model = load_default()
    goal, steps = episode.task["goal"], episode.steps
    pngs = [(run.episode_dir / s.screenshot).read_bytes() for s in steps]
    history = [a for s in steps[:-1] for a in parse_response(s.raw_output, "browser").actions]
    shots = [png for s, png in zip(steps[:-1], pngs, strict=False)
             for _ in parse_response(s.raw_output, "browser").actions]  # fmt: skip
    assert steps[-1].action is not None and steps[-1].action.name == "Finished"
    end = model.features(NanoInput(pngs[-1], goal, "browser", history, None, shots))
    assert end.done_evidence, f"{task}: no evidence on the oracle's last screen"
    start = model.features(NanoInput(pngs[0], goal, "browser", [], None, []))
    assert start.done_evidence == "" and not start.asks_answer


def test_a_question_is_answered_from_the_row_that_names_its_subject():
    """Saved recipients listed as cards, each with its IBAN: the IBAN asked for is the one inside the card that names
    the recipient, not the one of the card below; a page with no card naming the subject restricts nothing."""
    from venuskit.models.nano.done import bound_answers
    from venuskit.models.nano.entities import goal_entities

    names = ["City Power & Light", "Harbor MusicSchool", "Sofia Rossi"]  # the reader drops a space now and then
    ibans = ["DE12 3704 0044 0532 0130 00", "DE02 1203 0000 0000 2020 51", "IT60 X054 2811 1010 0000 0123 456"]
    cands, texts = [], [TextOption("Done.", "done")]
    for k, (name, iban) in enumerate(zip(names, ibans, strict=True)):
        top = 130 + 64 * k
        cands += [Candidate((246, top, 1006, top + 60), f"{name} {iban}", "region"),
                  Candidate((312, top + 12, 440, top + 28), name, "text"),
                  Candidate((313, top + 32, 488, top + 44), iban, "text")]  # fmt: skip
        texts.append(TextOption(iban, "s_iban", None, len(cands) - 1))
    goal = "Which IBAN do you have saved for Harbor Music School? Answer with the IBAN."
    bound = bound_answers(goal_entities(goal), cands, texts, "code")
    assert [texts[i].text for i in bound] == ["DE02 1203 0000 0000 2020 51"]
    assert bound_answers(goal_entities("Which IBAN do you have saved for Nora Brooks?"), cands, texts, "code") is None
    # A status or a title has no shape: any line may be it, so nothing is restricted.
    assert bound_answers(goal_entities(goal), cands, texts, "word") is None
    # The subject also named outside every region (a page title): the page is about it, nothing is restricted.
    titled = [*cands, Candidate((292, 84, 430, 110), "Saved for Harbor Music School", "text")]
    assert bound_answers(goal_entities(goal), titled, texts, "code") is None
    # At decision time the bound answer wins over the network's preference for another row's value.
    model = _finishing_model()
    heads = model.net.heads

    def prefers_the_last_card(e, types):  # the network's own pick: the IBAN of the card below
        ptr, txt, nl = heads(e, types)
        txt = txt.clone()
        txt[0, 3] = 60.0
        return ptr, txt, nl

    model.net.heads = prefers_the_last_card  # type: ignore[method-assign]
    f = _features(None, True, texts, "code")
    assert texts[model.decide(f, "browser").text].text == "IT60 X054 2811 1010 0000 0123 456"
    f.bound = bound
    assert texts[model.decide(f, "browser").text].text == "DE02 1203 0000 0000 2020 51"
