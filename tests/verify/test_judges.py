"""Judges: OCR on rendered screenshots, action-log rules, and the model judge against the loopback
stand-in server (what it sends, how it parses, what it costs, and how it fails)."""

from __future__ import annotations

import json
import time

import pytest
from verify_helpers import GOAL, S, pixel, record, screen, transfer

from venuskit.actions.types import Finished
from venuskit.models.standin_server import Reply, StandinServer
from venuskit.record.episode import Outcome
from venuskit.record.store import load_episode
from venuskit.verify import LogJudge, OcrJudge, VLMJudge, make_judges, make_windows
from venuskit.verify.judges import parse_votes, proper_names
from venuskit.verify.text import needles, normalise

KP = [(0, GOAL.rstrip("."))]


@pytest.fixture(scope="module")
def ocr():
    return OcrJudge()


def test_text_rules_find_needles_and_ignore_dropped_spaces():
    assert needles(GOAL) == ["Rent April", "1150.00"]
    assert proper_names(GOAL) == ["Green Leaf Landlord"]
    assert normalise("Transfer sent to Green Leaf") in normalise("TransfersenttoGreenLeafLandlord")
    assert normalise("1,150.00 EUR") == normalise("1150.00EUR")


def test_ocr_reads_text_on_a_rendered_screenshot(ocr):
    text = ocr.read(screen(["Transfer sent to Green Leaf Landlord", "Amount: 1150.00 EUR"]))
    assert "greenleaflandlord" in normalise(text)
    assert "1150.00" in text


def test_ocr_satisfies_typed_text_seen_after_the_page_changed(tmp_path, ocr):
    windows = make_windows(load_episode(transfer(tmp_path)), transfer_dir(tmp_path), 3, 3, evidence="world")
    votes = [v for w in windows for v in ocr.check_window(w, KP)]
    sat = [v for v in votes if v.status == "satisfied"]
    assert [v.step for v in sat] == [5]  # the list page after the submit, not the filled form
    assert "Rent April" in sat[0].reason


def test_ocr_does_not_count_text_still_sitting_in_the_field(tmp_path, ocr):
    folder = transfer(tmp_path, submitted=False)
    windows = make_windows(load_episode(folder), folder, 3, 3)
    votes = [v for w in windows for v in ocr.check_window(w, KP)]
    assert "satisfied" not in {v.status for v in votes}  # filled, never submitted: the keypoint stays open


def test_ocr_abstains_on_deletions_and_on_text_that_was_there_before(tmp_path, ocr):
    windows = make_windows(load_episode(transfer(tmp_path)), transfer_dir(tmp_path), 6, 6)
    (vote,) = ocr.check_window(windows[0], [(0, 'Delete the transfer "Rent April"')])
    assert vote.status == "abstain" and "gone" in vote.reason
    (vote,) = ocr.check_window(windows[0], [(0, 'Pay "Green Leaf Landlord"')])  # never typed
    assert vote.status == "abstain"


def transfer_dir(tmp_path):
    return tmp_path / "ep"


def test_log_judge_reads_pages_typing_and_missing_answers(tmp_path):
    folder = transfer(tmp_path)
    windows = make_windows(load_episode(folder), folder, 10, 10)
    log = LogJudge()
    kps = [(0, 'Type "Rent April" as the reference'), (1, "Open 127.0.0.1/bank/transfers"), (2, "Answer: how much?")]
    votes = {v.keypoint: v for v in log.check_window(windows[0], kps)}
    assert votes[0].status == "satisfied" and votes[0].step == 3
    assert votes[1].status == "satisfied" and votes[1].step == 5
    # The goal asks no question, so the Finished text is not an answer: the answer keypoint is contradicted.
    assert votes[2].status == "contradicted"


# ---- the model judge ---------------------------------------------------------------------------------

WINDOW_REPLY = json.dumps({"keypoints": [{"id": 1, "status": "satisfied", "step": 5, "reason": "list shows it"}]})


def test_vlm_judge_sends_annotated_screens_without_thoughts_and_counts_cost(tmp_path):
    folder = transfer(tmp_path)
    windows = make_windows(load_episode(folder), folder, 3, 3)
    reply = Reply(text=WINDOW_REPLY, prompt_tokens=100, completion_tokens=20)
    with StandinServer([reply]) as srv:
        judge = VLMJudge.from_url(srv.base_url, srv.model_name, timeout_s=5)
        (vote,) = judge.check_window(windows[1], KP)
        (request,) = srv.chat_requests()
    assert vote.status == "satisfied" and vote.step == 5 and vote.judge == "vlm"
    assert judge.cost.calls == 1 and judge.cost.tokens == 120
    body = json.dumps(request.json)
    assert "I am sure it worked" not in body and "All done" not in body  # no thoughts, no success claim
    assert "withheld" in body and "Rent April" in body
    images = request.images()
    assert len(images) == 3  # steps 3, 4, 5
    raw = load_episode(folder).steps[4]
    assert images[1] != (folder / raw.screenshot).read_bytes()  # the click of step 4 is drawn on it
    r, g, b = pixel(images[1], int(0.2 * 640), int(0.9 * 400))
    assert r > 200 and g < 80 and b < 80  # the red dot sits where the agent clicked


def test_vlm_judge_abstains_on_garbage_errors_and_timeouts(tmp_path):
    folder = transfer(tmp_path)
    window = make_windows(load_episode(folder), folder, 3, 3)[0]
    script = ["I think it looks fine!", Reply(status=400), Reply(text=WINDOW_REPLY, delay_s=3)]
    with StandinServer(script) as srv:
        judge = VLMJudge.from_url(srv.base_url, srv.model_name, timeout_s=0.5)
        garbage, error = judge.check_window(window, KP), judge.check_window(window, KP)
        t0 = time.monotonic()
        late = judge.check_window(window, KP)
        assert time.monotonic() - t0 < 2.5
    assert garbage[0].status == "abstain" and "unparsable" in garbage[0].reason
    assert error[0].status == "abstain" and "judge error" in error[0].reason
    assert late[0].status == "abstain" and "judge error" in late[0].reason
    assert judge.cost.calls == 3


def test_vote_parser_reads_json_lines_and_rejects_unknown_steps():
    kps = [(4, "a"), (7, "b")]
    votes = parse_votes("j", "<think>hm</think>1: satisfied (step 2) shown\n2. not visible", kps, {1, 2})
    assert [(v.keypoint, v.status, v.step) for v in votes] == [(4, "satisfied", 2), (7, "not_visible", None)]
    votes = parse_votes(
        "j", '```json\n{"keypoints": [{"id": 2, "status": "contradicted", "step": 99}]}\n```', kps, {1}
    )
    assert [(v.status, v.step) for v in votes] == [("abstain", None), ("contradicted", None)]


def test_make_judges_parses_specs_and_refuses_with_the_fix():
    assert [j.name for j in make_judges("ocr,log")] == ["ocr", "log"]
    with pytest.raises(ValueError, match="model_url"):
        make_judges("vlm*3")
    judges = make_judges("vlm*3", model_url="http://127.0.0.1:9/v1", model_name="m")
    assert [j.name for j in judges] == ["vlm1", "vlm2", "vlm3"]
    assert {j.backend.config.extra_sampling["seed"] for j in judges} == {0, 1, 2}
    with pytest.raises(ValueError, match="Unknown judge"):
        make_judges("ocr,gpt")
    with pytest.raises(ValueError, match="whole number"):
        make_judges("vlm*x", model_url="http://127.0.0.1:9/v1", model_name="m")


def test_finished_content_is_shown_only_as_the_answer_to_a_question(tmp_path):
    png = screen(["Balance: 86.40 EUR"])
    folder = record(tmp_path, [S(png, Finished(content="86.40"))], "What is the balance? Answer with the amount.",
                    finish=Outcome(terminated=True, reason="finished", answer="86.40"))  # fmt: skip
    (window,) = make_windows(load_episode(folder), folder, 3, 3)
    assert "told the user '86.40'" in window.steps[0].action
    assert window.facts.answer == "86.40"
