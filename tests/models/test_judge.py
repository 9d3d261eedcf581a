"""The nano judge: how it counts tokens, reads the verifier's requests off the wire, trains, saves and refuses a
broken checkpoint, answers as a chat model, and serves real `openai` clients and SGV through `ChatServer`."""

from __future__ import annotations

import base64
import io
import json
import pickle
import random
import sys
from pathlib import Path

import numpy as np
import pytest
from PIL import Image, ImageDraw, ImageFont

from venuskit.actions.types import Click, Finished, Point, Type
from venuskit.models.judge import JudgeError, JudgeModel, WireError, count_prompt_tokens
from venuskit.models.judge import features as F
from venuskit.models.judge import model as M
from venuskit.models.judge.tokens import image_tokens, text_tokens
from venuskit.models.judge.wire import parse_request, parse_step
from venuskit.train.judge import JudgeTrainConfig, Rows, fit, grouped_folds, threshold

sys.path.insert(0, str(Path(__file__).parents[1] / "verify"))
from verify_helpers import S, record  # noqa: E402


def _screen(lines: list[str], size=(640, 400)) -> bytes:
    img = Image.new("RGB", size, "white")
    draw = ImageDraw.Draw(img)
    font = ImageFont.load_default(size=24)
    for i, line in enumerate(lines):
        draw.text((30, 30 + 50 * i), line, fill="black", font=font)
    buf = io.BytesIO()
    img.save(buf, format="PNG")
    return buf.getvalue()


def _url(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode()


# ---- tokens ------------------------------------------------------------------------------------


def test_tokens_are_counted_as_a_qwen_vl_server_would():
    assert text_tokens("Send 42.50 EUR to Ann") == 9  # Send, 4, 2, ., 5, 0, EUR, to, Ann
    assert text_tokens("发送邮件") == 4
    # 640x400 -> smart resize to 644x392 (multiples of 28) -> 23 x 14 patches, plus vision start/end
    assert image_tokens(640, 400) == 23 * 14 + 2
    msgs = [{"role": "user", "content": [{"type": "text", "text": "Step 0"},
                                         {"type": "image_url", "image_url": {"url": _url(_screen(['x']))}}]}]  # fmt: skip
    assert count_prompt_tokens(msgs) == 4 + 2 + 23 * 14 + 2  # message markers, "Step" "0", the image
    with pytest.raises(ValueError, match="data:image/png"):
        count_prompt_tokens([{"role": "user", "content": [{"type": "image_url", "image_url": {"url": "http://x"}}]}])


# ---- the wire ----------------------------------------------------------------------------------


def _episode(tmp_path, submit: bool = True):
    app = "http://127.0.0.1:8000"
    steps = [S(_screen(["Inbox", "Team lunch on Friday"]), Click(point=Point(0.3, 0.1)), f"{app}/mail/inbox", "Inbox"),
             S(_screen(["New message"]), Type(content="Count me in"), f"{app}/mail/compose?reply=45", "New message"),
             S(_screen(["New message", "Send"]), Click(point=Point(0.09, 0.24)), f"{app}/mail/compose?reply=45",
               "New message")]  # fmt: skip
    if submit:
        steps.append(S(_screen(["Inbox", "Message sent"]), Finished(content="Done."), f"{app}/mail/inbox", "Inbox"))
    return record(tmp_path, steps, 'Reply to the email "Team lunch on Friday" saying "Count me in".')


def test_the_verifiers_requests_are_read_back(tmp_path):
    from venuskit.record.store import load_episode
    from venuskit.verify.judges import final_messages, step_messages, window_messages
    from venuskit.verify.sgv import evidence_view, make_windows, step_views

    folder = _episode(tmp_path)
    ep = evidence_view(load_episode(folder))
    views = step_views(ep, folder, targets=True)
    kps = [(0, 'Reply to the email "Team lunch on Friday"'), (1, 'Say "Count me in"')]
    req = parse_request(final_messages(ep.goal, views[-2:], kps, "\n".join(v.header() for v in views)))
    assert req.kind == "final" and req.goal == ep.goal and req.keypoints == [k for _, k in kps]
    assert [s.index for s in req.history] == [0, 1, 2, 3] and [s.index for s, _ in req.shown] == [2, 3]
    assert req.history[1].typed == "Count me in" and req.history[2].target == "Send"
    assert req.history[0].title == "Inbox" and req.history[0].url.endswith("/mail/inbox")
    window = parse_request(window_messages(make_windows(ep, folder, 3, 3)[0], kps))
    assert window.kind == "window" and window.total == 4 and len(window.shown) == 3
    step = parse_request(step_messages("Goal: g\nSurface: browser\nStep: 2\n\nRecent actions:\nStep 1: Type 'a' "
                                       "into the focused field\n\nProposed action: Click at the red dot (0.50, 0.25)",
                                       [("Current screenshot with the proposed action:", _screen(["x"]))]))  # fmt: skip
    assert step.kind == "step" and step.step == 2 and step.proposed.point == (0.5, 0.25) and len(step.images) == 1
    for bad in ([], [{"role": "user", "content": "hello"}], [{"role": "system", "content": "x"}]):
        with pytest.raises(WireError):
            parse_request(bad)
    assert parse_step("Step 3 page 'It\\'s done' <http://x/y>: Finished (withheld)").title == "It's done"


# ---- training ----------------------------------------------------------------------------------


def _synthetic_rows(seed: int = 0, n: int = 240) -> dict[str, Rows]:
    """Rows whose label is a function of two features (typed and seen on the final screen), across templates."""
    rng = random.Random(seed)
    kp, st = Rows(), Rows()
    for i in range(n):
        f = np.zeros(F.N_KEYPOINT, dtype=np.float32)
        f[2], f[6] = rng.random() < 0.5, rng.random() < 0.5
        kp.add(f, ([1 + i % 7], [1]), float(f[2] and f[6]), f"t{i % 12}")
        g = np.zeros(F.N_STEP, dtype=np.float32)
        g[8] = rng.random()  # blankness
        st.add(g, ([2],), float(g[8] > 0.8), f"t{i % 12}")
    return {"keypoints": kp, "steps": st}


def test_fit_learns_thresholds_out_of_fold_and_reproduces(tmp_path):
    config = JudgeTrainConfig(seed=1, epochs=25, lr=3e-3, keypoint_precision=0.97)  # a rule this clean: strict
    net, card, metrics = fit(_synthetic_rows(), config)
    assert metrics["out_of_fold"]["keypoints"]["precision"] >= 0.95 and metrics["out_of_fold"]["keypoints"]["recall"] > 0.8
    assert 0.0 < card.thresholds.lo < card.thresholds.hi < 1.0 and metrics["templates"]["keypoints"] == 12
    _, again, _ = fit(_synthetic_rows(), config)
    assert again.thresholds == card.thresholds  # same seed, same judge
    folds = grouped_folds([f"t{i % 5}" for i in range(50)], 3, 0)
    assert sorted(i for f in folds for i in f) == list(range(50))
    assert all(len({i % 5 for i in f}) == len({i % 5 for i in f} - {j % 5 for g in folds if g is not f for j in g})
               for f in folds)  # a template's rows never straddle folds  # fmt: skip
    probs, labels = np.array([0.1, 0.4, 0.6, 0.9]), np.array([0, 0, 1, 1])
    assert threshold(probs, labels, 1.0) == 0.6 and threshold(probs, labels, 1.0, positive=False) == 0.4
    with pytest.raises(ValueError, match="keypoint rows"):
        fit({"keypoints": Rows()}, config)


def _open_rows(n: int = 480, flag: bool = True) -> dict[str, Rows]:
    """Keypoint rows whose label follows one feature; the third asked beside the rules are harder: there the same
    feature holds the keypoint only higher up (the rules decided the easy ones)."""
    rng = random.Random(3)
    kp = Rows()
    for i in range(n):
        f = np.zeros(F.N_KEYPOINT, dtype=np.float32)
        f[2] = r = rng.random()
        beside = i % 3 == 0
        kp.add(f, ([1], [1]), float(r > (0.8 if beside else 0.3)), f"t{i % 12}", beside_rules=beside and flag)
    return {"keypoints": kp}


def test_the_card_reports_the_judges_precision_on_what_the_rules_leave_open():
    _, card, metrics = fit(_open_rows(), JudgeTrainConfig(seed=0, epochs=25, lr=3e-3))
    every, beside = metrics["out_of_fold"]["keypoints"], metrics["out_of_fold"]["keypoints_beside_rules"]
    assert every["precision"] >= 0.9 and (every["n"], beside["n"]) == (480, 160)
    assert beside["precision"] < 0.8  # the threshold that holds on every row does not hold on the open ones
    _, _, none = fit(_open_rows(flag=False), JudgeTrainConfig(seed=0, epochs=25, lr=3e-3))
    assert none["out_of_fold"]["keypoints_beside_rules"]["n"] == 0
    rows = _open_rows(60)["keypoints"]
    again = pickle.loads(pickle.dumps(rows))
    assert again.beside_rules == rows.beside_rules and again.take([0, 1]).beside_rules == [True, False]
    del again.__dict__["beside_rules"]  # rows pickled before the flag existed (a resumed loop's)
    assert pickle.loads(pickle.dumps(again)).beside_rules == [False] * 60


@pytest.fixture(scope="module")
def tiny_judge(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("judge") / "judge.pt"
    net, card, _ = fit(_synthetic_rows(), JudgeTrainConfig(seed=0, epochs=10))
    M.save(net, path, card)
    return path


def test_a_saved_judge_loads_and_a_broken_one_is_refused(tiny_judge, tmp_path):
    judge = JudgeModel.load(tiny_judge)
    assert judge.card.sha256 and tiny_judge.stat().st_size < 5_000_000
    bad = tmp_path / "judge.pt"
    data = bytearray(tiny_judge.read_bytes())
    data[len(data) // 2] ^= 0xFF
    bad.write_bytes(bytes(data))
    bad.with_suffix(".json").write_text(tiny_judge.with_suffix(".json").read_text())
    with pytest.raises(JudgeError, match="does not match the digest.*venus verify train-judge"):
        JudgeModel.load(bad)
    with pytest.raises(JudgeError, match="missing.*venus verify train-judge"):
        JudgeModel.load(tmp_path / "nope.pt")


def test_the_judge_answers_in_the_verifiers_reply_format(tiny_judge, tmp_path):
    from venuskit.record.store import load_episode
    from venuskit.verify.judges import final_messages, keypoint_messages, parse_votes
    from venuskit.verify.sgv import evidence_view, step_views

    judge = JudgeModel.load(tiny_judge)
    folder = _episode(tmp_path)
    ep = evidence_view(load_episode(folder))
    views = step_views(ep, folder, targets=True)
    kps = [(0, 'Reply to the email "Team lunch on Friday"'), (1, 'Say "Count me in"')]
    text, usage = judge.complete(final_messages(ep.goal, views[-2:], kps))
    votes = parse_votes("nano", text, kps, {2, 3})
    assert [v.keypoint for v in votes] == [0, 1] and all(v.status != "abstain" for v in votes)
    assert usage["prompt_tokens"] > 2 * 300 and usage["completion_tokens"] > 0
    assert json.loads(judge.complete(keypoint_messages(ep.goal))[0]) == {"keypoints": []}
    with pytest.raises(WireError):
        judge.complete([{"role": "user", "content": "Tell me a joke."}])


# ---- over the wire -------------------------------------------------------------------------------


@pytest.mark.slow
def test_served_judge_answers_openai_clients_and_sgv(tiny_judge, tmp_path):
    from openai import OpenAI

    from venuskit.models.serve import ChatServer
    from venuskit.verify import SGVConfig, make_judges, verify_episode
    from venuskit.verify.judges import final_messages, nano_judge

    folder = _episode(tmp_path)
    with ChatServer(JudgeModel.load(tiny_judge)) as server:
        client = OpenAI(base_url=server.base_url, api_key="EMPTY")
        assert [m.id for m in client.models.list()] == ["venus-judge"]
        msgs = final_messages("g", [], [(0, "a")])
        reply = client.chat.completions.create(model="venus-judge", messages=msgs)
        assert json.loads(reply.choices[0].message.content)["keypoints"][0]["id"] == 1
        assert reply.usage.prompt_tokens == count_prompt_tokens(msgs)
        judge = nano_judge(server.base_url)
        report = verify_episode(folder, [*make_judges("ocr,log"), judge], SGVConfig(timeout_s=60), keypoints=None)
    open_after_rules = [k for k in report.keypoints if "nano" in k.decided_by]
    assert report.cost.calls == judge.cost.calls <= 1  # rules first; at most one final call for what is left
    assert report.cost.images <= SGVConfig().max_evidence
    if open_after_rules:
        assert report.cost.prompt_tokens > 0


def test_the_served_judge_refuses_a_decompression_bomb_at_once(tiny_judge):
    import sys
    import time
    import urllib.error
    import urllib.request

    from venuskit.models.serve import ChatServer
    from venuskit.verify.judges import step_messages

    sys.path.insert(0, str(Path(__file__).parents[1] / "infra"))
    from test_untrusted import bomb

    msgs = step_messages("Goal: g\nSurface: browser\nStep: 1\n\nProposed action: Click at the red dot (0.50, 0.25)",
                         [("Current screenshot with the proposed action:", bomb())])  # fmt: skip
    with ChatServer(JudgeModel.load(tiny_judge)) as server:
        req = urllib.request.Request(server.base_url + "/chat/completions", headers={"Content-Type": "application/json"},
                                     data=json.dumps({"messages": msgs}).encode())  # fmt: skip
        t0 = time.monotonic()
        with pytest.raises(urllib.error.HTTPError) as err:
            urllib.request.urlopen(req, timeout=120)
        assert err.value.code == 400 and "12000x5000" in err.value.read().decode()
        assert time.monotonic() - t0 < 5


def test_the_model_card_says_how_to_rebuild_a_judge_of_synthesised_tasks():
    import dataclasses

    card = M.load_card()
    req = {**card.training["set_request"], "seed": 0, "n_tasks": 360, "limit": 111}
    training = {k: v for k, v in card.training.items() if k != "also"}
    card = dataclasses.replace(card, training={**training, "set_request": req, "config": {"seed": 0},
                                               "task_files": ["synth-train-seed7.toml"]})  # fmt: skip
    text = M.model_card(card)
    assert "`venus verify train-judge --seed 0 --n-tasks 360 --tasks synth-train-seed7 --max-tasks 111`" in text
    assert "from synth-train-seed7.toml join the hand-written training templates" in text
    zh = {"seed": 14, "n_tasks": 36, "others": 4, "locales": ["zh"], "tasks": [["mail.unstar", 3, "browser"]]}
    two = dataclasses.replace(card, training={**card.training, "config": {"seed": 0},
                                              "also": [{"set": "zh14", "request": zh, "counts": {"episodes": 321}}]})
    text = M.model_card(two)
    assert "`venus verify train-judge --seed 14 --n-tasks 36 --locales zh --set runs/judge-zh14 --out " in text
    assert "--also runs/judge-zh14 --fit-seed 0`" in text and "and the set `zh14` (seed 14, 36 tasks, locales zh)" in text
