"""The verifier bench: metrics checked against hand-computed examples, the episode transforms, and a small
labelled set built in real Chromium whose labels are the contracts' verdicts; then `venus verify` and
`venus verify bench` on it, with the rule judges and with the VLM judge against a loopback stand-in."""

from __future__ import annotations

import json
import time

import pytest
from typer.testing import CliRunner

from venuskit.eval import verify_bench as vb
from venuskit.record.store import load_episode
from venuskit.tasks.spec import get_task

# ---- metrics, by hand ----------------------------------------------------------------------------
#
#   i   label       prediction   adversarial
#   0   completed   completed
#   1   completed   completed
#   2   completed   failed
#   3   partial     completed    yes
#   4   partial     partial
#   5   infeasible  infeasible
#   6   failed      failed
#   7   failed      completed    yes
#   8   failed      failed       yes
#   9   failed      partial      yes
#
# completed vs rest: TP 2 (0,1), FN 1 (2), FP 2 (3,7), TN 5 -> precision 1/2, recall 2/3, F1 4/7, FPR 2/7.
# 4-way: observed agreement 6/10; row sums 3,2,1,4 and column sums 4,2,1,3 -> chance (12+4+1+12)/100 = .29,
# kappa = (.6-.29)/(1-.29) = 31/71. Per-class F1: completed 4/7, partial 1/2, infeasible 1, failed 4/7
# -> macro (8/7 + 3/2)/4 = 37/56. Adversarial: 4, of which 3 and 7 were called completed -> caught 2/4.

LABELS = ["completed"] * 3 + ["partial"] * 2 + ["infeasible"] + ["failed"] * 4
PREDS = ["completed", "completed", "failed", "completed", "partial", "infeasible", "failed", "completed", "failed",
         "partial"]  # fmt: skip
ADVERSARIAL = [False, False, False, True, False, False, False, True, True, True]


def test_confusion_matrix_rows_are_labels_and_columns_predictions():
    assert vb.confusion(LABELS, PREDS) == [[2, 0, 0, 1], [1, 1, 0, 0], [0, 0, 1, 0], [1, 1, 0, 2]]


def test_completed_vs_rest_scores():
    s = vb.binary_scores(LABELS, PREDS)
    assert (s["tp"], s["fp"], s["fn"], s["tn"]) == (2, 2, 1, 5)
    assert s["precision"] == pytest.approx(1 / 2) and s["recall"] == pytest.approx(2 / 3)
    assert s["f1"] == pytest.approx(4 / 7) and s["fpr"] == pytest.approx(2 / 7)


def test_kappa_macro_f1_and_adversarial_catch():
    assert vb.cohen_kappa(LABELS, PREDS) == pytest.approx(31 / 71)
    assert vb.macro_f1(LABELS, PREDS) == pytest.approx(37 / 56)
    assert vb.adversarial_catch(ADVERSARIAL, PREDS) == pytest.approx(1 / 2)


def test_metric_edge_cases():
    # A verifier that never says completed: precision is 0 by convention, not a ZeroDivisionError.
    assert vb.binary_scores(["completed", "failed"], ["failed", "failed"])["precision"] == 0.0
    assert vb.cohen_kappa(["failed"] * 3, ["failed"] * 3) == 1.0  # one class on both sides, all agree
    assert vb.cohen_kappa(["completed", "failed"], ["failed", "completed"]) == pytest.approx(-1.0)
    assert vb.macro_f1(["failed", "failed"], ["failed", "failed"]) == 1.0  # absent classes are not averaged in
    with pytest.raises(ValueError, match="must be in"):
        vb.confusion(["completed"], ["error"])


def test_cost_summary_median_and_mean():
    costs = [{"calls": 1, "seconds": 1.0, "tokens": 0}, {"calls": 3, "seconds": 2.0, "tokens": 30},
             {"calls": 2, "seconds": 6.0, "tokens": 60}]  # fmt: skip
    c = vb.cost_summary(costs)
    assert c["calls"] == {"median": 2, "mean": 2, "total": 6}
    assert c["seconds"]["median"] == 2.0 and c["seconds"]["mean"] == 3.0 and c["tokens"]["mean"] == 30


def test_score_puts_it_together():
    items = [{"id": str(i), "kind": "k", "label": y, "adversarial": a} for i, (y, a) in
             enumerate(zip(LABELS, ADVERSARIAL, strict=True))]  # fmt: skip
    m = vb.score(items, PREDS, [{"calls": 1, "seconds": 0.5}] * 10)
    assert m["n_episodes"] == 10 and m["n_adversarial"] == 4 and m["accuracy"] == 0.6
    assert m["kappa"] == pytest.approx(31 / 71, abs=1e-4) and m["by_kind"]["k"]["called_completed"] == 4


# ---- transforms of the oracle --------------------------------------------------------------------


def test_transforms_change_exactly_the_intended_step():
    inst = get_task("mail.reply_lunch").instance(0)
    core = inst.oracle[:-1]
    wrong = vb.plan_for("wrong_item", inst).steps
    assert wrong[0][1] == "a.mail-row:not(:has-text('Team lunch on Friday'))" and wrong[1:] == inst.oracle[1:]
    assert vb.plan_for("wrong_target", inst).steps == (wrong[0], ("finish",))
    unsent = vb.plan_for("not_submitted", inst).steps
    assert ("click", "button[value=send]") not in unsent and unsent[:-1] == core[:-1]
    typed = vb.plan_for("typed_claim", inst).steps
    assert typed[2][0] == "type" and typed[2][2].startswith(vb.TYPED_CLAIM) and typed[-1] == ("finish", vb.CLAIM)
    side = vb.plan_for("side_effect", inst).steps
    assert side[0] == ("goto", "/drive/") and side[-len(inst.oracle) :] == inst.oracle
    assert vb.plan_for("partial", inst).stop_at_progress and vb.plan_for("infeasible_right", inst) is None


def test_kinds_apply_only_where_they_make_sense():
    trash = get_task("drive.trash_file").instance(0)  # declares drive.trash: the side effect trashes a mail
    assert vb.plan_for("side_effect", trash).steps[0] == ("goto", "/mail/inbox")
    assert vb.plan_for("partial", trash) is None  # no progress keypoint
    other = ".file-row:not(:has-text('Old logo draft.pdf')):has-text('.pdf') button[value=trash]"
    assert vb.plan_for("wrong_item", trash).steps[0] == ("click", other)  # another file of the same type
    assert vb.plan_for("wrong_target", trash) is None  # picking the item is the whole task: that is wrong_item
    infeasible = get_task("infeasible.recall_mail").instance(0)
    assert vb.plan_for("oracle", infeasible) is None and vb.plan_for("infeasible_right", infeasible) is not None
    assert vb.plan_for("infeasible_wrong", infeasible).steps[-1] == ("finish", vb.CLAIM)
    assert not any(m in vb.CLAIM.casefold() for m in ("cannot", "unable", "not "))  # stays `failed`, not infeasible


def test_pick_tasks_is_seeded_and_mixed():
    a, b = vb.pick_tasks(12, seed=3), vb.pick_tasks(12, seed=3)
    assert a == b and len(a) == 12 + 3 and a != vb.pick_tasks(12, seed=4)
    specs = {t: get_task(t) for t, _, _ in a}
    types = [vb.task_type(specs[t]) for t, _, _ in a]
    assert types.count("question") == 4 and types.count("infeasible") == 3
    assert {specs[t].variant(s).get("locale", "en") for t, s, _ in a} == {"en", "zh"}
    assert all(surface in specs[t].surfaces for t, _, surface in a)
    english = vb.pick_tasks(6, seed=3, locales=["en"], surfaces=["browser"], questions=False)
    assert all(
        get_task(t).variant(s).get("locale", "en") == "en" and surface == "browser" for t, s, surface in english
    )
    assert "question" not in {vb.task_type(get_task(t)) for t, _, _ in english}
    with pytest.raises(ValueError, match="Unknown locale 'fr'"):
        vb.pick_tasks(6, seed=3, locales=["fr"])


def test_question_kinds_answer_wrong_or_not_at_all():
    inst = get_task("bank.find_charge").instance(0)  # oracle ends with ("finish", "312.80")
    assert vb.task_type(inst.spec) == "question" and vb.plan_for("partial", inst) is None
    assert vb.plan_for("wrong_answer", inst).steps == (*inst.oracle[:-1], ("finish", "312.13"))
    assert vb.plan_for("no_answer", inst).steps == (*inst.oracle[:-1], ("finish",))
    status = get_task("shop.order_status").instance(2)  # zh, answered off the page (finish_from): a decoy
    assert vb.plan_for("wrong_answer", status).steps[-1] == ("finish", vb.DECOY["zh"])
    assert vb.wrong_value("TX61200457") == "TX61200480" and vb.wrong_value("14:30") == "14:63"


# ---- a small labelled set in real Chromium -------------------------------------------------------
# Tasks with little typing keep the OCR judge's work (and the suite) short; together they still give every
# adversarial kind: drive.rename_file has the only text field (typed_claim).

# calendar.when_is seed 2 is a Chinese question task on the mobile preset (four short episodes).
SMALL = [("mail.star_message", 0), ("mail.trash_message", 0), ("drive.rename_file", 0), ("infeasible.recall_mail", 0),
         ("calendar.when_is", 2, "mobile")]  # fmt: skip
ADVERSARIAL_KINDS = {k.name for k in vb.KINDS if k.adversarial}
BENCH_KEYS = ("precision", "recall", "f1", "fpr", "kappa", "adversarial_catch", "macro_f1_4way", "n_episodes",
              "confusion", "cost")  # fmt: skip


@pytest.fixture(scope="module")
def small_set(tmp_path_factory):
    folder = tmp_path_factory.mktemp("verify-bench")
    return folder, vb.build_set(folder, tasks=SMALL)


@pytest.fixture(scope="module")
def runner():
    return CliRunner()


def _app():
    from venuskit.cli.main import app

    return app


@pytest.mark.browser
@pytest.mark.slow
def test_the_set_is_labelled_by_the_contracts(small_set):
    folder, index = small_set
    items = index["items"]
    assert {i["task"] for i in items} == {t[0] for t in SMALL}
    question = {i["kind"]: i for i in items if i["task"] == "calendar.when_is"}
    assert {k: i["label"] for k, i in question.items()} == {
        "oracle": "completed",
        "null": "failed",
        "no_answer": "failed",
        "wrong_answer": "failed",
    }
    assert all(i["locale"] == "zh" and i["surface"] == "mobile" and i["type"] == "question" for i in question.values())
    assert question["wrong_answer"]["adversarial"] and question["oracle"]["id"] == "calendar.when_is@2/mobile#oracle"
    assert index["counts"]["by_locale"]["zh"] == 4 and index["counts"]["by_surface"]["mobile"] == 4
    for item in items:
        contract = load_episode(folder / item["episode_dir"]).verdicts["contract"]
        assert item["label"] == contract["verdict"], item["id"]  # the label is the contract's, nothing else
        assert item["label"] in item["intended"] and item["adversarial"] == (item["kind"] in ADVERSARIAL_KINDS)
        assert item["keypoints"] == [k.desc for k in get_task(item["task"]).instance(item["seed"]).keypoints]
    kinds = {i["kind"] for i in items}
    assert kinds >= ADVERSARIAL_KINDS, f"missing adversarial kinds: {ADVERSARIAL_KINDS - kinds}"
    assert {"oracle", "partial", "null", "infeasible_right", "infeasible_wrong"} <= kinds
    assert all(i["label"] != "completed" for i in items if i["adversarial"])
    labels = {i["label"] for i in items}
    assert labels == {"completed", "partial", "infeasible", "failed"}
    assert all(r["why"] for r in index["rejected"])  # anything left out says why
    on_disk = json.loads((folder / vb.INDEX).read_text())
    assert on_disk["counts"]["episodes"] == len(items) and on_disk["counts"]["adversarial"] >= 9


@pytest.mark.browser
@pytest.mark.slow
def test_the_set_is_cached(small_set):
    folder, index = small_set
    t0 = time.perf_counter()
    again = vb.build_set(folder, tasks=SMALL)
    assert again["created"] == index["created"] and time.perf_counter() - t0 < 1.0  # read back, nothing rerun
    with pytest.raises(ValueError, match="already holds"):
        vb.build_set(folder, tasks=SMALL[:1])


@pytest.mark.browser
@pytest.mark.slow
def test_venus_verify_bench_json(small_set, runner):
    folder, index = small_set
    result = runner.invoke(_app(), ["verify", "bench", "--set", str(folder), "--judges", "ocr,log", "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout.strip().splitlines()[-1])
    for key in BENCH_KEYS:
        assert key in out and key in out["baseline"], key
    assert out["n_episodes"] + len(out["errors"]) == len(index["items"]) and not out["errors"]
    assert sum(map(sum, out["confusion"]["rows_true_cols_pred"])) == out["n_episodes"]
    assert out["cost"]["calls"]["total"] == 0  # rule judges call no model
    assert {i["label"] for i in out["items"]} == {i["label"] for i in index["items"]}
    assert (folder / "bench-ocr-log.json").exists()
    sgv = {i["id"]: i["sgv"] for i in out["items"]}  # the zh mobile question: right answer only
    assert sgv["calendar.when_is@2/mobile#oracle"] == "completed"
    assert all(sgv[f"calendar.when_is@2/mobile#{k}"] == "failed" for k in ("null", "no_answer", "wrong_answer"))
    only = runner.invoke(
        _app(), ["verify", "bench", "--set", str(folder), "--kinds", "null", "--no-baseline", "--json"]
    )
    out = json.loads(only.stdout.strip().splitlines()[-1])
    assert out["n_episodes"] == 4 and "baseline" not in out and {i["kind"] for i in out["items"]} == {"null"}
    bad = runner.invoke(_app(), ["verify", "bench", "--set", str(folder), "--kinds", "bogus"])
    assert bad.exit_code == 2 and "Unknown episode kind 'bogus'" in bad.output


@pytest.mark.browser
@pytest.mark.slow
def test_venus_verify_one_episode_json_and_write(small_set, runner):
    folder, index = small_set
    item = next(i for i in index["items"] if i["kind"] == "oracle" and i["task"] == "mail.star_message")
    episode = folder / item["episode_dir"]
    result = runner.invoke(_app(), ["verify", str(episode), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["method"] == "sgv" and report["verdict"] in vb.LABELS
    assert [k["text"] for k in report["keypoints"]] == item["keypoints"]  # the contract's keypoint texts
    verdicts = load_episode(episode).verdicts
    assert verdicts["sgv"]["verdict"] == report["verdict"] and verdicts["contract"]["verdict"] == "completed"
    table = runner.invoke(_app(), ["verify", "--no-write", "--no-keypoints-from-contract", str(episode)])
    assert table.exit_code == 0 and "SGV" in table.output and "cost" in table.output
    missing = runner.invoke(_app(), ["verify", str(folder / "nope"), "--json"])
    assert missing.exit_code == 2 and "not an episode folder" in missing.output


@pytest.mark.browser
@pytest.mark.slow
def test_the_vlm_judge_is_used_with_model(small_set, runner):
    from venuskit.models.standin_server import StandinServer

    def script(request):
        votes = [{"id": i, "status": "satisfied", "reason": "stand-in"} for i in range(1, 13)]
        return json.dumps({"keypoints": votes})

    folder, index = small_set
    item = next(i for i in index["items"] if i["kind"] == "claimed_done" and i["task"] == "mail.star_message")
    episode = str(folder / item["episode_dir"])
    with StandinServer(script) as srv:
        alone = runner.invoke(_app(), ["verify", episode, "--judges", "vlm", "--model", srv.base_url, "--no-write",
                                       "--json"])  # fmt: skip
        requests = srv.chat_requests()
        ruled = runner.invoke(_app(), ["verify", episode, "--model", srv.base_url, "--no-write", "--json"])
    assert alone.exit_code == 0 and ruled.exit_code == 0, alone.output + ruled.output
    report = json.loads(alone.stdout)
    assert report["cost"]["calls"] == len(requests) >= 1 and requests[0].images()  # screenshots went to the model
    assert any("vlm" in k["decided_by"] for k in report["keypoints"])
    # A stand-in that says "satisfied" to everything fools a model-only SGV: the contract says otherwise...
    assert report["verdict"] == "completed" and item["label"] != "completed"
    # ...but with the rule judges first (ocr,log + the model) the claim without the change is caught.
    assert json.loads(ruled.stdout)["verdict"] != "completed"
