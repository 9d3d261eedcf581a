"""SGV end to end on small recorded episodes: keypoints, windows, voting, failures of judges, missing
records, parallel window checks against the stand-in server, and the report in the manifest."""

from __future__ import annotations

import json
import time

import pytest
from verify_helpers import GOAL, S, ScriptedJudge, record, screen, transfer

from venuskit.actions.types import CallUser, Click, Finished, Point
from venuskit.models.standin_server import Reply, StandinServer
from venuskit.record.episode import Outcome
from venuskit.record.store import load_episode
from venuskit.verify import (
    SGVConfig,
    VLMJudge,
    extract_keypoints,
    make_judges,
    make_windows,
    verify_episode,
    verify_final_screenshot,
    write_report,
)
from venuskit.verify.keypoints import split_goal

FAST = SGVConfig(timeout_s=30)  # OCR on a loaded 2-core machine can take seconds per window
WORLD = SGVConfig(timeout_s=30, evidence="world")  # URL done-flags read too (the transfer's "?sent=1")
WINDOWS = SGVConfig(timeout_s=30, model_windows=True)  # model judges check every window, as the SGV paper does


def clicks(tmp_path, n: int, goal: str = "Open the settings and turn on dark mode.", **kw):
    steps = [S(screen([f"Screen {i}"]), Click(point=Point(0.5, 0.5)), thought="secret plan") for i in range(n - 1)]
    steps.append(S(screen([f"Screen {n - 1}"]), Finished(content="Dark mode is on, success!")))
    return record(tmp_path, steps, goal, **kw)


def test_rule_keypoints_come_from_the_goal_alone():
    assert split_goal("Reply to the email from Ann about lunch and say yes.") == [
        "Reply to the email from Ann about lunch",
        "Say yes",
    ]
    assert split_goal("Add milk and eggs to the list.") == ["Add milk and eggs to the list"]  # one point
    q = split_goal("How much was the Tesco charge on 2024-03-05? Answer with the amount in EUR.")
    assert q == ["Answer: How much was the Tesco charge on 2024-03-05? (with the amount in EUR)"]
    cheap = split_goal('Find the cheapest flight to "Oslo" and book it.')
    assert cheap[:2] == ['Find the cheapest flight to "Oslo"', "Book it"]
    assert "sorted by price, lowest first" in cheap[2]
    quoted = split_goal('Create a doc titled "Plan. And then go" containing "hi".')
    assert quoted == ['Create a doc titled "Plan. And then go" containing "hi"']  # quotes are never split
    assert extract_keypoints(GOAL) == [GOAL.rstrip(".")]
    assert extract_keypoints("   ") == []


def test_a_model_lists_keypoints_and_garbage_falls_back_to_rules():
    listed = json.dumps({"keypoints": ["Transfer 1150.00 EUR to Green Leaf Landlord", 'Reference "Rent April"']})
    with StandinServer([listed, "no idea"]) as srv:
        judge = VLMJudge.from_url(srv.base_url, srv.model_name, timeout_s=5)
        assert extract_keypoints(GOAL, judge) == json.loads(listed)["keypoints"]
        assert extract_keypoints(GOAL, judge) == [GOAL.rstrip(".")]
        assert GOAL in srv.chat_requests()[0].json["messages"][0]["content"]


def test_windows_cover_every_step_with_drawn_actions_and_no_thoughts(tmp_path):
    folder = clicks(tmp_path, 7)
    windows = make_windows(load_episode(folder), folder, 3, 3)
    assert [[s.index for s in w.steps] for w in windows] == [[0, 1, 2], [3, 4, 5], [6]]
    assert [w.is_last for w in windows] == [False, False, True]
    overlapping = make_windows(load_episode(folder), folder, 3, 2)
    assert [w.steps[0].index for w in overlapping] == [0, 2, 4]
    step = windows[0].steps[0]
    assert step.annotated != step.png and "red dot" in step.action
    text = " ".join(s.header() for w in windows for s in w.steps)
    assert "secret plan" not in text and "success" not in text and "withheld" in text
    with pytest.raises(ValueError, match="stride"):
        make_windows(load_episode(folder), folder, 2, 3)


def test_overlays_are_drawn_only_for_a_judge_that_looks_and_a_broken_screenshot_is_missing(tmp_path, monkeypatch):
    import venuskit.verify.evidence as evidence_module

    drawn = []
    draw = evidence_module.draw_action
    monkeypatch.setattr(evidence_module, "draw_action", lambda png, *a, **kw: drawn.append(1) or draw(png, *a, **kw))
    folder = clicks(tmp_path, 4)
    shot = folder / load_episode(folder).steps[1].screenshot
    shot.write_bytes(shot.read_bytes()[:-40])  # cut short: the IEND chunk and part of the data are gone
    report = verify_episode(folder, make_judges("ocr,log"), config=FAST)
    assert drawn == []  # rules read the raw screenshots; no overlay is encoded for them
    assert any("Step 1 has no readable screenshot" in m for m in report.missing)
    steps = [s for w in make_windows(load_episode(folder), folder, 4, 4) for s in w.steps]
    assert [s.png is None for s in steps] == [False, True, False, False]
    first = steps[0].annotated
    assert first is not None and first != steps[0].png and steps[0].annotated is first and len(drawn) == 1
    assert steps[1].annotated is None and len(drawn) == 1


def test_ocr_and_log_verify_a_submitted_transfer_as_completed(tmp_path):
    report = verify_episode(transfer(tmp_path), make_judges("ocr,log"), WORLD)
    assert report.verdict == "completed", report.reason
    (kp,) = report.keypoints
    assert kp.status == "satisfied" and kp.evidence_step == 5 and kp.decided_by == "ocr"
    assert report.cost.calls == 0 and report.method == "sgv" and not report.missing


def test_an_unsubmitted_form_is_not_completed(tmp_path):
    report = verify_episode(transfer(tmp_path, submitted=False), make_judges("ocr,log"), FAST)
    assert report.keypoints[0].status == "open"
    assert report.verdict == "uncertain" and report.forced == "failed" and not report.decided
    assert report.undecided[0]["keypoint"] == report.keypoints[0].text and report.undecided[0]["why"]


def asked_user(tmp_path, goal: str, second_screen: list[str], question: str):
    """One click, then a CallUser: an agent that did nothing committing and asked the user."""
    steps = [S(screen(["Accounts"]), Click(point=Point(0.3, 0.3))), S(screen(second_screen), CallUser(content=question))]
    return record(tmp_path, steps, goal, finish=Outcome(terminated=True, needs_user=True, reason="call_user"))


def test_calluser_without_consequential_actions_is_infeasible(tmp_path):
    folder = asked_user(tmp_path, "Buy 0.05 Bitcoin with money from your checking account.",
                        ["Accounts", "No crypto here"], "I cannot buy Bitcoin here.")  # fmt: skip
    report = verify_episode(folder, make_judges("ocr,log"), FAST)
    assert report.verdict == "infeasible", report.reason


def test_a_judge_that_finds_everything_done_does_not_outweigh_the_agents_own_report_that_it_did_nothing(tmp_path):
    # A model judge calls the keypoint satisfied, but the agent only clicked once and then asked the user: its own
    # report says the task was not done, and no committing action says otherwise.
    folder = asked_user(tmp_path, "Send Sofia Rossi the money I owe her.", ["Transfer", "Payee"],
                        "How much do you owe Sofia? I have not sent anything.")  # fmt: skip
    report = verify_episode(folder, [ScriptedJudge("model", {0: "satisfied"})], FAST)
    assert report.keypoints[0].status == "satisfied"
    assert report.verdict == "infeasible", report.reason


@pytest.mark.parametrize(
    ("votes", "status", "verdict"),
    [
        (["satisfied", "satisfied", "not_visible"], "satisfied", "completed"),
        (["satisfied", "abstain", "abstain"], "satisfied", "completed"),  # abstentions do not count
        (["satisfied", "contradicted", "abstain"], "contradicted", "failed"),  # ties never complete
        (["satisfied", "not_visible", "abstain"], "open", "uncertain"),  # a tie stays open, and SGV says so
        (["abstain", "abstain", "abstain"], "open", "uncertain"),  # nobody could tell: open, not failed
        (["satisfied", "satisfied", "contradicted"], "satisfied", "partial"),  # a dissent blocks completed
    ],
)
def test_votes_decide_keypoints_conservatively(tmp_path, votes, status, verdict):
    judges = [ScriptedJudge(f"m{i}", {0: v}) for i, v in enumerate(votes)]
    report = verify_episode(clicks(tmp_path, 4), judges, FAST, keypoints=["Dark mode is on"])
    assert report.keypoints[0].status == status
    assert report.verdict == verdict
    assert report.forced == ("failed" if verdict == "uncertain" else verdict)
    assert all(j.finals == 1 for j in judges)  # one final judgment per model judge


def test_rules_settle_before_models_are_asked(tmp_path):
    rule = ScriptedJudge("rule", {0: "satisfied"}, is_rule=True)
    model = ScriptedJudge("model", {0: "contradicted", 1: "satisfied"})
    report = verify_episode(clicks(tmp_path, 4), [rule, model], WINDOWS, keypoints=["a", "b"])
    assert report.keypoints[0].decided_by == "rule" and report.keypoints[0].status == "satisfied"
    assert report.keypoints[1].decided_by == "model" and report.keypoints[1].status == "satisfied"
    assert model.asked == {1}  # the rule-settled keypoint never reaches the model
    assert model.finals == 0  # its window votes already stood unanimous: no final call to repeat them


def test_the_final_judgment_is_asked_only_where_models_disagree_or_abstain(tmp_path):
    sure = ScriptedJudge("m1", {0: "satisfied", 1: "satisfied"})
    unsure = ScriptedJudge("m2", {0: "satisfied", 1: "not_visible"})
    finals: list[list[int]] = []
    for j in (sure, unsure):
        final = j.final
        j.final = lambda goal, evidence, kps, final=final: (
            finals.append([k for k, _ in kps]) or final(goal, evidence, kps)
        )
    verify_episode(clicks(tmp_path, 4), [sure, unsure], WINDOWS, keypoints=["a", "b"])
    assert finals == [[1], [1]]  # keypoint "a" was unanimous in the windows


def test_one_window_is_the_whole_trajectory_so_no_final_call(tmp_path):
    model = ScriptedJudge("model", {0: "not_visible"})
    verify_episode(clicks(tmp_path, 3), [model], WINDOWS, keypoints=["a"])
    assert model.asked == {0} and model.finals == 0
    direct = ScriptedJudge("model", {0: "not_visible"})  # by default a model makes one final judgment only
    verify_episode(clicks(tmp_path / "d", 3), [direct], FAST, keypoints=["a"])
    assert direct.asked == set() and direct.finals == 1


def test_failing_judges_abstain_and_the_run_goes_on(tmp_path):
    good = ScriptedJudge("good", {0: "satisfied"})
    broken = ScriptedJudge("broken", fail=RuntimeError("model exploded"))
    slow = ScriptedJudge("slow", {0: "contradicted"}, delay_s=2.0)
    garbage = ScriptedJudge("garbage", garbage=True)
    t0 = time.monotonic()
    report = verify_episode(clicks(tmp_path, 3), [good, broken, slow, garbage],
                            SGVConfig(timeout_s=0.4, workers=4), keypoints=["x"])  # fmt: skip
    assert time.monotonic() - t0 < 1.8  # the slow judge was not waited for
    reasons = {v.judge: v.reason for v in report.keypoints[0].votes if v.status == "abstain"}
    assert "model exploded" in reasons["broken"]
    assert "did not answer within" in reasons["slow"]
    assert "not a list of votes" in reasons["garbage"]
    assert report.keypoints[0].status == "satisfied" and report.verdict == "completed"


def test_missing_screenshots_and_torn_records_are_reported(tmp_path):
    folder = clicks(tmp_path, 4)
    (folder / "step_0001.png").unlink()
    with open(folder / "steps.jsonl", "ab") as f:
        f.write(b'{"index": 4, "screensh')  # a write cut by a crash
    report = verify_episode(folder, make_judges("ocr,log"), FAST, keypoints=['Type "dark"'])
    text = " ".join(report.missing)
    assert "step_0001.png is missing" in text and "torn line" in text
    assert report.verdict == "failed"


def test_an_episode_without_a_folder_is_verified_on_its_log(tmp_path):
    episode = load_episode(clicks(tmp_path, 3))
    report = verify_episode(episode, make_judges("log"), FAST)
    assert any("no screenshot could be read" in m for m in report.missing)


def window_reply(request):
    n = request["messages"][1]["content"][0]["text"].count("\n1. ")
    return Reply(text=json.dumps({"keypoints": [{"id": 1, "status": "satisfied", "step": 11}]}),
                 delay_s=0.6, prompt_tokens=10, completion_tokens=n + 1)  # fmt: skip


def test_windows_run_in_parallel_against_a_slow_model_server(tmp_path):
    folder = clicks(tmp_path, 12)
    with StandinServer(window_reply) as srv:
        judge = VLMJudge.from_url(srv.base_url, srv.model_name, timeout_s=5)
        config = SGVConfig(workers=4, timeout_s=5, model_windows=True, click_targets=False)  # no OCR: latency only
        report = verify_episode(folder, [judge], config, keypoints=["Dark mode is on"])
        requests = srv.chat_requests()
    # 4 windows; every window said satisfied, so there is no final judgment to ask
    assert report.cost.calls == 4 and len(requests) == 4
    assert report.cost.tokens == 4 * 12
    assert report.cost.seconds < 1.9  # serial would be 4 x 0.6 = 2.4 s
    assert all(len(r.images()) <= SGVConfig().window for r in requests)
    assert report.verdict == "completed"


def test_final_screenshot_baseline_sends_one_image(tmp_path):
    folder = clicks(tmp_path, 5)
    with StandinServer([json.dumps({"keypoints": [{"id": 1, "status": "not_visible"}]})]) as srv:
        judge = VLMJudge.from_url(srv.base_url, srv.model_name, timeout_s=5)
        report = verify_final_screenshot(folder, [judge], keypoints=["Dark mode is on"])
        (request,) = srv.chat_requests()
    assert len(request.images()) == 1 and report.method == "final_screenshot"
    assert report.verdict == "uncertain" and report.forced == "failed" and report.keypoints[0].status == "open"


def test_report_goes_into_the_manifest_slot(tmp_path):
    folder = transfer(tmp_path)
    report = verify_episode(folder, make_judges("log"), FAST)
    write_report(folder, report)
    write_report(folder, report, slot="baseline")
    verdicts = load_episode(folder).verdicts
    assert verdicts["sgv"]["verdict"] == report.verdict and "baseline" in verdicts
    assert verdicts["sgv"]["keypoints"][0]["text"] == GOAL.rstrip(".")


def test_config_refuses_bad_values_with_the_fix():
    with pytest.raises(ValueError, match="stride"):
        SGVConfig(window=2, stride=3)
    with pytest.raises(ValueError, match="workers=1"):
        SGVConfig(workers=0)
    with pytest.raises(ValueError, match="timeout_s"):
        SGVConfig(timeout_s=0)
    assert "window" in SGVConfig.help()
