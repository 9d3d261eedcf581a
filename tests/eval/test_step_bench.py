"""The step-verifier bench: metrics by hand, faulty proposals built from a hand-made record, then the real thing
on a small set of world episodes recorded in Chromium: rules only, `venus verify steps --json`, and the VLM
step judge against the loopback stand-in."""

from __future__ import annotations

import io
import json

import pytest
from PIL import Image, ImageDraw
from typer.testing import CliRunner

from venuskit.actions.surfaces import check_surface
from venuskit.actions.types import ActionError, Click, Finished, Point, Type
from venuskit.eval import step_bench as sb
from venuskit.eval import verify_bench as vb
from venuskit.record.episode import Episode, Step
from venuskit.verify.step import StepVerifier

# ---- metrics, by hand ----------------------------------------------------------------------------
#
#   kind                 ok     label
#   right                True   correct
#   right                True   explore
#   right                False  invalid   <- a false rejection
#   right                True   correct
#   type_without_focus   False  invalid
#   type_without_focus   False  invalid
#   blank_click          True   correct   <- missed
#   wrong_item           False  wrong
#
# right: 4, one rejected -> FRR 1/4. Faults: 4, caught 3 -> catch (= recall) 3/4; precision 3/(3+1) = 3/4.
# Per kind: type_without_focus 2/2, blank_click 0/1, wrong_item 1/1 -> macro (1 + 0 + 1)/3 = 2/3.

ROWS = [("right", True, "correct"), ("right", True, "explore"), ("right", False, "invalid"), ("right", True, "correct"),
        ("type_without_focus", False, "invalid"), ("type_without_focus", False, "invalid"),
        ("blank_click", True, "correct"), ("wrong_item", False, "wrong")]  # fmt: skip


def _rows():
    return [{"kind": k, "ok": ok, "label": lab, "checked_by": "rules" if ok else "rule:x", "seconds": 0.5 * i,
             "calls": i % 2, "tokens": 10} for i, (k, ok, lab) in enumerate(ROWS)]  # fmt: skip


def test_score_by_hand():
    m = sb.score_steps(_rows())
    assert (m["n_right_steps"], m["n_faults"], m["false_rejections"], m["caught"]) == (4, 4, 1, 3)
    assert m["false_rejection_rate"] == 0.25 and m["catch_rate"] == m["recall"] == 0.75 and m["precision"] == 0.75
    assert m["catch_rate_macro"] == pytest.approx(2 / 3, abs=1e-4) and m["f1"] == 0.75
    tw = m["catch_by_kind"]["type_without_focus"]
    assert (tw["n"], tw["caught"], tw["rate"], tw["labels"]) == (2, 2, 1.0, {"invalid": 2})
    assert m["catch_by_kind"]["repeated_failure"] == {"n": 0, "caught": 0, "rate": 0.0, "labels": {}}  # listed
    assert m["labels_right"] == {"correct": 2, "explore": 1, "invalid": 1}
    # cost: seconds 0, .5, ..., 3.5 -> total 14, mean 1.75, median 1.75; calls 1 on odd rows -> 4
    c = m["cost"]
    assert (c["proposals"], c["calls"], c["calls_per_step"], c["tokens"]) == (8, 4, 0.5, 80)
    assert c["seconds_total"] == 14.0 and c["seconds_per_step"] == {"mean": 1.75, "median": 1.75, "max": 3.5}


def test_empty_scores_are_zero_not_errors():
    m = sb.score_steps([])
    assert m["false_rejection_rate"] == m["catch_rate"] == m["precision"] == m["catch_rate_macro"] == 0.0


# ---- faulty proposals from a hand-made record ----------------------------------------------------

BG = (246, 248, 252)


def _png(marks=(), size=(400, 300)) -> bytes:
    """A page of background colour with dark boxes where the content is."""
    im = Image.new("RGB", size, BG)
    draw = ImageDraw.Draw(im)
    for box in marks:
        draw.rectangle(box, fill=(30, 30, 30))
    buf = io.BytesIO()
    im.save(buf, format="PNG")
    return buf.getvalue()


def test_blank_point_is_far_from_content():
    full = _png([(0, 0, 399, 200)])  # content everywhere but the bottom third
    p = sb.blank_point(full)
    assert p is not None and p.y > 200 / 300 + 0.06  # the box's centre, well below the content
    assert sb.blank_point(_png([(0, 0, 399, 290)])) is None  # background only in a thin strip
    assert sb.blank_point(_png([(40 * i, 0, 40 * i + 5, 299) for i in range(10)])) is None  # stripes: too narrow


def test_out_of_vocabulary_is_never_accepted():
    for surface in ("browser", "mobile", "computer", "captcha"):
        action = sb.out_of_vocabulary(Click(point=Point(0.2, 0.3)), surface)
        with pytest.raises(ActionError):
            check_surface(action, surface)


def test_faults_from_a_record_and_the_rules_on_them():
    # step 0: fresh form page, click the field; 1: Type; 2: a click that failed; 3: Finished.
    form, typed = _png([(20, 20, 380, 60)]), _png([(20, 20, 380, 60), (25, 25, 120, 55)])
    field, fails = Click(point=Point(0.5, 0.13)), Click(point=Point(0.5, 0.5))
    steps = [Step(0, "step_0000.png", url="http://x/form", action=field),
             Step(1, "step_0001.png", url="http://x/form", action=Type(content="Ada")),
             Step(2, "step_0002.png", url="http://x/form", action=fails, error={"message": "Element is disabled"}),
             Step(3, "step_0003.png", url="http://x/form", action=Finished(content="ok"))]  # fmt: skip
    episode = Episode("e", {"goal": "Type Ada"}, "browser", (400, 300), steps=steps)
    pngs = [form, typed, typed, typed]
    props = sb.episode_proposals(episode, pngs, partial=True)
    kinds = [(p.step, p.kind) for p in props]
    assert (0, "type_without_focus") in kinds and (0, "premature_finish") in kinds and (0, "blank_click") in kinds
    assert (1, "blank_click_repeat") in kinds and (0, "out_of_vocabulary") in kinds
    assert (3, "repeated_failure") in kinds and (3, "premature_finish") in kinds  # partial: its Finished is a fault
    assert not any(p.kind == "type_without_focus" and p.step in (1, 2, 3) for p in props)  # the field has focus
    assert [p.step for p in props if p.kind == sb.RIGHT] == [0, 1, 2]
    rows = []
    verifier = StepVerifier()
    for p in props:
        rows.append({"kind": p.kind, **sb.verify_proposal(verifier, None, episode, p)})
    caught = {r["kind"]: not r["ok"] for r in rows if r["kind"] != sb.RIGHT}
    assert caught["type_without_focus"] and caught["repeated_failure"] and caught["blank_click_repeat"]
    assert not caught["blank_click"]  # the rules cannot know a first click will do nothing
    assert all(r["ok"] for r in rows if r["kind"] == sb.RIGHT)


# ---- a small set in real Chromium ----------------------------------------------------------------

SMALL = [("mail.reply_lunch", 0), ("settings.email_notifications_off", 0)]
KEYS = ("false_rejection_rate", "catch_rate", "catch_by_kind", "precision", "recall", "n_right_steps", "n_faults",
        "cost")  # fmt: skip


@pytest.fixture(scope="module")
def small_set(tmp_path_factory):
    folder = tmp_path_factory.mktemp("step-bench")
    vb.build_set(folder, tasks=SMALL, kinds=["oracle", "partial", "wrong_target"])
    return folder


def _app():
    from venuskit.cli.main import app

    return app


@pytest.mark.browser
@pytest.mark.slow
def test_rules_accept_the_oracle_and_catch_constructed_faults(small_set):
    r = sb.run_step_bench(small_set)
    assert r["n_episodes"] == 3 and not r["errors"]  # two oracles and reply_lunch's partial
    assert r["n_right_steps"] >= 8 and r["false_rejection_rate"] <= 0.1
    by = r["catch_by_kind"]
    assert by["type_without_focus"]["n"] >= 3 and by["type_without_focus"]["rate"] == 1.0
    assert by["out_of_vocabulary"]["n"] >= 5 and by["out_of_vocabulary"]["rate"] == 1.0
    assert by["wrong_item"]["n"] >= 1 and by["premature_finish"]["n"] >= 3 and by["blank_click_repeat"]["n"] >= 1
    assert r["n_faults"] == sum(k["n"] for k in by.values()) and r["cost"]["calls"] == 0
    assert r["precision"] >= 0.9


@pytest.mark.browser
@pytest.mark.slow
def test_venus_verify_steps_json(small_set, tmp_path):
    runner = CliRunner()
    out = tmp_path / "steps.json"
    result = runner.invoke(_app(), ["verify", "steps", "--set", str(small_set), "--json", "--out", str(out)])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.stdout.strip().splitlines()[-1])
    for key in KEYS:
        assert key in summary, key
    assert "rows" not in summary and len(json.loads(out.read_text())["rows"]) == summary["cost"]["proposals"]
    table = runner.invoke(_app(), ["verify", "steps", "--set", str(small_set)])
    assert table.exit_code == 0 and "type_without_focus" in table.output and "false rejections" in table.output
    missing = runner.invoke(_app(), ["verify", "steps", "--set", str(tmp_path / "none")])
    assert missing.exit_code == 2 and "no verifier bench set" in missing.output


@pytest.mark.browser
@pytest.mark.slow
def test_the_vlm_step_judge_runs_with_model(small_set):
    from venuskit.models.standin_server import StandinServer

    def script(request):  # a judge that calls every Finished wrong and everything else right
        text = json.dumps(request["messages"])
        return "INCORRECT: not done yet" if "Proposed action: Finished" in text else "CORRECT"

    with StandinServer(script) as srv:
        runner = CliRunner()
        result = runner.invoke(_app(), ["verify", "steps", "--set", str(small_set), "--model", srv.base_url,
                                        "--model-name", srv.model_name, "--out", str(small_set / "vlm.json")])  # fmt: skip
        requests = srv.chat_requests()
    assert result.exit_code == 0, result.output
    r = json.loads((small_set / "vlm.json").read_text())
    passed_rules = [row for row in r["rows"] if not row["checked_by"].startswith("rule:")]
    assert r["cost"]["calls"] == len(requests) == len(passed_rules) > 0  # the model judges what the rules let by
    assert r["catch_by_kind"]["premature_finish"]["rate"] == 1.0
    assert r["catch_by_kind"]["premature_finish"]["labels"] == {"wrong": r["catch_by_kind"]["premature_finish"]["n"]}
    right_finished = sum(1 for row in r["rows"] if row["kind"] == sb.RIGHT and row["action"]["type"] == "Finished")
    assert r["false_rejections"] == right_finished == 2  # the stand-in's "wrong" on the oracles' own Finished
    # the model saw the screenshot with the proposed click drawn on it (a red dot at the point)
    click = next(i for i, row in enumerate(passed_rules) if row["action"]["type"] == "Click")
    with Image.open(io.BytesIO(requests[click].images()[-1])) as im:
        x, y = passed_rules[click]["action"]["point"]
        red = im.convert("RGB").getpixel((int(x * im.width), int(y * im.height)))
    assert red[0] > 200 and red[1] < 80 and red[2] < 80


@pytest.mark.browser
@pytest.mark.slow
def test_the_nano_judge_fills_the_model_slot(small_set):
    """The shipped nano judge, over the wire, answers every proposal the rules let through."""
    from venuskit.verify.judges import nano_judge

    judge = nano_judge(timeout_s=120)
    r = sb.run_step_bench(small_set, judge)
    passed_rules = [row for row in r["rows"] if not row["checked_by"].startswith("rule:")]
    assert passed_rules and all(row["checked_by"] == "nano" for row in passed_rules)
    assert judge.cost.calls == len(passed_rules) == r["cost"]["calls"] and r["unjudged"] == 0
    assert judge.cost.images >= len(passed_rules) and judge.cost.prompt_tokens > 0
    assert {row["label"] for row in passed_rules} <= {"correct", "wrong"}
    cli = CliRunner().invoke(_app(), ["verify", "steps", "--set", str(small_set), "--nano", "--json"])
    assert cli.exit_code == 0, cli.output
    assert json.loads(cli.stdout.strip().splitlines()[-1])["verifier"] == "rules+nano"
