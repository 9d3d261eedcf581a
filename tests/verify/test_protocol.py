"""The honest protocol, proven on recorded episodes: what SGV may read of a record, and what never reaches a
judge or a rule — the world's success flashes (under generic evidence), the label's source (a contract verdict
in the manifest, a MiniWoB++ reward in the outcome or step info), the agent's success claims, the contract's
keypoint texts (under goal keypoints)."""

from __future__ import annotations

import dataclasses
import json

import pytest
from verify_helpers import S, record, screen

from venuskit.actions.types import Answer, CallUser, Click, Finished, Point, Type
from venuskit.record.episode import Outcome
from venuskit.record.store import EpisodeWriter, load_episode
from venuskit.verify import SGVConfig, verify_episode, verify_final_screenshot
from venuskit.verify import rules as R
from venuskit.verify.evidence import OUTCOME_PARAMS, public_url
from venuskit.verify.sgv import IMPOSSIBLE, evidence_view
from venuskit.verify.webjudge import verify_webjudge, webjudge_cost

SECRET = "LABEL-SOURCE-7731"  # planted wherever the record holds a label; no verifier may ever see it
CLAIM = "All done, the task is complete."
APP = "http://127.0.0.1:8000"
GOAL = 'Reply to the email "Team lunch on Friday" saying "Count me in".'


def _leaky(tmp_path, *, last=None, goal: str = GOAL):
    """A reply episode whose record is full of things no verifier may read: flash parameters in URLs, the
    contract's verdict and a reward in the manifest, a reward and a verdict in step info, thoughts, a claim."""
    steps = [
        S(screen(["Inbox", "Team lunch on Friday"]), Click(point=Point(0.3, 0.1)), f"{APP}/mail/inbox?flash=archived",
          "Inbox", thought=f"thinking {SECRET}"),
        S(screen(["Team lunch on Friday", "Reply"]), Click(point=Point(0.5, 0.3)), f"{APP}/mail/m/45", "Team lunch"),
        S(screen(["New message"]), Type(content="Count me in"), f"{APP}/mail/compose?reply=45&err=missing",
          "New message"),
        S(screen(["Inbox", "Message sent"]), last or Finished(content=CLAIM), f"{APP}/mail/inbox?flash=mail_sent",
          "Inbox"),
    ]  # fmt: skip
    folder = record(tmp_path, steps, goal, finish=Outcome(terminated=True, reason="finished", answer=CLAIM,
                                                          reward=1.0))  # fmt: skip
    with EpisodeWriter.open(folder) as w:  # the label's sources, as runs store them
        w.update_manifest(verdicts={"contract": {"verdict": "completed", "reason": SECRET,
                                                  "keypoints": [{"desc": f'The reply says "{SECRET}"', "ok": True}]}},
                          task={"goal": goal, "world_task": "mail.reply_lunch", "secret": SECRET})  # fmt: skip
    lines = (folder / "steps.jsonl").read_text().splitlines()
    spiked = [json.dumps({**json.loads(x), "info": {"raw_reward": 1.0, "reason": SECRET}}) for x in lines]
    (folder / "steps.jsonl").write_text("\n".join(spiked) + "\n")
    return folder


def _dump(obj) -> str:
    """Everything reachable from what a judge was handed, as text (bytes left out: pixels carry no text here)."""
    if dataclasses.is_dataclass(obj) and not isinstance(obj, type):
        return " ".join(_dump(getattr(obj, f.name)) for f in dataclasses.fields(obj))
    if isinstance(obj, (list, tuple)):
        return " ".join(_dump(x) for x in obj)
    if isinstance(obj, dict):
        return " ".join(f"{k} {_dump(v)}" for k, v in obj.items())
    return "" if isinstance(obj, bytes) else repr(obj)


class Spy:
    """A judge (rule or model) that records everything it is handed and decides nothing."""

    def __init__(self, name: str, is_rule: bool) -> None:
        self.name, self.is_rule, self.seen = name, is_rule, []

    def check_window(self, window, keypoints):
        self.seen.append((window, keypoints))
        return []

    def final(self, goal, evidence, keypoints, history=""):
        self.seen.append((goal, evidence, keypoints, history))
        return []


def _seen(*spies) -> str:
    return " ".join(_dump(s.seen) for s in spies)


def test_under_generic_evidence_no_judge_sees_flashes_labels_or_claims(tmp_path):
    folder = _leaky(tmp_path)
    rule, model = Spy("rule", True), Spy("model", False)
    report = verify_episode(folder, [rule, model], SGVConfig(timeout_s=30))
    seen = _seen(rule, model)
    assert rule.seen and model.seen and "mail/compose" in seen  # they were shown the steps...
    for leak in ("flash", "mail_sent", "err=", SECRET, CLAIM, "raw_reward", "1.0"):
        assert leak not in seen, leak  # ...and none of these
    assert "flash" not in json.dumps(report.to_dict())  # nor does the report carry them
    with pytest.raises(ValueError, match="evidence"):
        SGVConfig(evidence="everything")


def test_world_evidence_is_an_explicit_switch(tmp_path):
    folder = _leaky(tmp_path)
    spy = Spy("rule", True)
    verify_episode(folder, [spy], SGVConfig(timeout_s=30, evidence="world"))
    seen = _seen(spy)
    assert "flash=mail_sent" in seen  # the switch shows the world's flashes to the rules...
    assert SECRET not in seen and CLAIM not in seen  # ...but never the label or the agent's claim


def test_the_baselines_read_the_same_view(tmp_path):
    folder = _leaky(tmp_path)
    spy = Spy("model", False)
    verify_final_screenshot(folder, [spy], keypoints=None)
    verify_webjudge(folder, [spy], keypoints=None)
    seen = _seen(spy)
    assert spy.seen and not any(leak in seen for leak in ("flash", SECRET, CLAIM))
    with pytest.raises(ValueError, match="model judge"):
        verify_webjudge(folder, [Spy("rule", True)])


def test_evidence_view_keeps_what_any_site_gives_and_nothing_else(tmp_path):
    ep = evidence_view(load_episode(_leaky(tmp_path)))
    assert ep.verdicts == {} and ep.task == {"goal": GOAL} and ep.outcome.reward is None and ep.outcome.answer is None
    assert all(s.info == {} and s.thought is None and s.raw_output is None for s in ep.steps)
    assert [s.url for s in ep.steps] == [f"{APP}/mail/inbox", f"{APP}/mail/m/45", f"{APP}/mail/compose?reply=45",
                                         f"{APP}/mail/inbox"]  # fmt: skip
    assert ep.steps[-1].action == Finished(content="")  # a success claim is withheld
    world = evidence_view(load_episode(_leaky(tmp_path / "w")), "world")
    assert world.steps[-1].url.endswith("?flash=mail_sent") and world.verdicts == {}


def test_an_impossibility_report_keeps_the_fact_not_the_words(tmp_path):
    said = "I cannot do this: the mail was recalled. " + CLAIM
    ep = evidence_view(load_episode(_leaky(tmp_path, last=Finished(content=said))))
    assert ep.steps[-1].action == Finished(content=IMPOSSIBLE)
    ep = evidence_view(load_episode(_leaky(tmp_path / "c", last=CallUser(content=f"help {SECRET}"))))
    assert ep.steps[-1].action == CallUser()


def test_an_answer_to_a_question_is_the_deliverable_and_is_kept(tmp_path):
    q = "What is the order number in the mail from Parcelly? Answer with the number."
    ep = evidence_view(load_episode(_leaky(tmp_path, last=Answer(content="PX-58213"), goal=q)))
    assert ep.steps[-1].action == Answer(content="PX-58213")


def test_outcome_parameters_are_dropped_other_query_parameters_kept():
    url = "http://h/shop/search?q=flask&sort=price&flash=added_to_cart&status=ok#top"
    assert public_url(url) == "http://h/shop/search?q=flask&sort=price#top"
    assert public_url(url, "world") == url and public_url(None) is None
    assert {"flash", "err", "error", "status"} <= OUTCOME_PARAMS
    with pytest.raises(ValueError, match="evidence"):
        public_url(url, "all")


def test_the_world_flashes_are_all_outcome_parameters():
    """Every query parameter the bundled world's handlers put in a redirect to report an outcome is dropped."""
    import re
    from pathlib import Path

    import venuskit.world.apps as apps

    found = set()
    for path in Path(apps.__file__).parent.glob("*.py"):
        found |= set(re.findall(r"redirect\(f?\"[^\"]*[?&](\w+)=", path.read_text()))
    ui_state = {"view", "m", "s", "sort", "cat", "date", "q", "draft", "reply", "forward"}  # what the page shows
    assert found - ui_state, "no outcome parameter found: the scan is broken"
    assert found - ui_state <= OUTCOME_PARAMS, found - ui_state - OUTCOME_PARAMS


def test_a_success_banner_reached_by_typed_url_satisfies_no_rule(tmp_path):
    from venuskit.actions.types import Launch

    steps = [S(screen(["New message", "To: ann@example.org"]), Launch(url=f"{APP}/mail/inbox?flash=mail_sent"),
               f"{APP}/mail/compose", "New message"),
             S(screen(["Inbox", "Message sent"]), Finished(content=CLAIM), f"{APP}/mail/inbox?flash=mail_sent",
               "Inbox")]  # fmt: skip
    folder = record(tmp_path, steps, 'Send "hello" to ann@example.org.')
    for evidence in ("generic", "world"):
        from venuskit.verify import make_judges

        report = verify_episode(folder, make_judges("ocr,log"), SGVConfig(timeout_s=30, evidence=evidence))
        assert report.verdict != "completed", evidence


def test_webjudge_cost_counts_n_plus_two_calls(tmp_path):
    folder = _leaky(tmp_path)
    cost = webjudge_cost(folder)
    assert cost.calls == 4 + 2 and cost.images == 4 + 1  # one per screenshot, and the final screen
    assert cost.prompt_tokens > 4 * 300  # each 640x400 screenshot alone is ~345 Qwen2.5-VL tokens
    given = webjudge_cost(folder, keypoints=["a"])
    assert given.prompt_tokens < cost.prompt_tokens  # no key-point call when the keypoints are given


def test_rules_never_read_the_label_even_when_asked_for_world_evidence(tmp_path):
    """A rule reading a record attribute that holds a label finds nothing there: the view has none."""
    ep = evidence_view(load_episode(_leaky(tmp_path)), "world")
    views = __import__("venuskit.verify.sgv", fromlist=["step_views"]).step_views(ep, _leaky(tmp_path / "x"))
    assert all(SECRET not in _dump(v) for v in views)
    assert R.final_answer(views) is None  # the claim in Finished was withheld: no rule can read it
