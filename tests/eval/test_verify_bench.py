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

# ---- scoring (the arithmetic is venuskit.eval.metrics, tested in test_metrics.py) ---------------------
#
#   i   label       prediction   adversarial
#   0-2 completed   completed x2, failed
#   3   partial     completed    yes
#   4   partial     partial
#   5   infeasible  infeasible
#   6-9 failed      failed, completed (yes), failed (yes), partial (yes)
# completed vs rest: TP 2, FP 2, FN 1 -> precision 1/2, recall 2/3; kappa 31/71; adversarial caught 2 of 4.

LABELS = ["completed"] * 3 + ["partial"] * 2 + ["infeasible"] + ["failed"] * 4
PREDS = ["completed", "completed", "failed", "completed", "partial", "infeasible", "failed", "completed", "failed",
         "partial"]  # fmt: skip
ADVERSARIAL = [False, False, False, True, False, False, False, True, True, True]


def test_score_puts_it_together():
    items = [{"id": str(i), "kind": "k", "label": y, "adversarial": a} for i, (y, a) in
             enumerate(zip(LABELS, ADVERSARIAL, strict=True))]  # fmt: skip
    costs = [{"calls": 1, "seconds": 0.5, "images": 2, "prompt_tokens": 100}] * 10
    m = vb.score(items, PREDS, costs)
    assert m["n_episodes"] == 10 and m["n_adversarial"] == 4 and m["accuracy"] == 0.6 and m["n_completed"] == 3
    assert m["precision"] == 0.5 and m["recall"] == pytest.approx(2 / 3, abs=1e-4)
    assert m["kappa"] == pytest.approx(31 / 71, abs=1e-4) and m["by_kind"]["k"]["called_completed"] == 4
    assert m["adversarial_catch"] == 0.5 and vb.adversarial_catch(ADVERSARIAL, PREDS) == 0.5
    assert m["confusion"]["rows_true_cols_pred"] == [[2, 0, 0, 1], [1, 1, 0, 0], [0, 0, 1, 0], [1, 1, 0, 2]]
    assert m["cost"]["images"] == {"median": 2, "mean": 2, "total": 20} and m["cost"]["prompt_tokens"]["mean"] == 100
    lo, hi = m["ci95"]["precision"]  # Wilson interval of 2/4
    assert lo < 0.5 < hi and m["ci95"]["kappa"][0] <= m["kappa"] <= m["ci95"]["kappa"][1]


def test_uncertain_verdicts_count_as_undecided_and_as_forced():
    """Two of the ten said `uncertain` (forced: the same verdicts as PREDS): coverage 0.8; on the eight decided,
    TP 1 (item 0), FP 2 (items 3, 7), FN 1 (item 2) -> precision 1/3, recall 1/2; the forced view is PREDS's."""
    items = [{"id": str(i), "kind": "k", "label": y, "adversarial": a, "family": "f" if i < 5 else "g"}
             for i, (y, a) in enumerate(zip(LABELS, ADVERSARIAL, strict=True))]  # fmt: skip
    said = ["completed", "uncertain", *PREDS[2:8], "uncertain", "partial"]
    m = vb.score(items, said, [{}] * 10, forced=PREDS, n_boot=20)
    assert m["coverage"] == 0.8 and m["n_uncertain"] == 2
    assert m["decided"]["n"] == 8 and m["decided"]["precision"] == pytest.approx(1 / 3, abs=1e-4)
    assert m["decided"]["recall"] == 0.5
    assert m["precision"] == 0.5 and m["recall"] == pytest.approx(2 / 3, abs=1e-4)  # forced: as PREDS
    assert m["adversarial_catch"] == 0.5 and m["adversarial_false_completed"] == 0.5
    assert m["by_family"]["f"]["uncertain"] == 1 and m["by_family"]["g"]["coverage"] == 0.8


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


def test_adversaries_aimed_at_the_evidence():
    send = get_task("mail.compose_new").instance(0)
    steps = send.oracle[:-1]
    undone = vb.plan_for("undone", send).steps
    assert undone[: len(steps)] == steps and undone[len(steps) :] == (
        ("goto", "/mail/sent"), ("click", "a.mail-row"), ("click", "button[value=trash]"), ("finish",))
    wrong = vb.plan_for("wrong_recipient", send).steps
    assert ("fill", "#to", vb.DECOY_ADDRESS) in wrong and wrong[2:] == (*steps[2:], ("finish",))  # all else right
    trace = vb.Trace(("http://w/mail/inbox", "http://w/mail/compose", "http://w/mail/inbox?flash=mail_sent"))
    banner = vb.plan_for("banner_only", send, trace=trace).steps
    assert ("click", "button[value=send]") not in banner and banner[-2:] == (
        ("goto", "/mail/inbox?flash=mail_sent"), ("finish", vb.CLAIM))
    assert vb.plan_for("banner_only", send) is None and vb.plan_for("banner_only", send, "mobile", trace) is None
    three = get_task("mail.archive_three").instance(0)
    items = vb.plan_for("partial_items", three).steps
    assert "Trailhead Weekly #43" not in str(items) and "Trailhead Weekly #42" in str(items)
    star = get_task("mail.star_message").instance(0)
    look = vb.plan_for("lookalike", star).steps
    assert look[0] == ("goto", "/drive/") and ("fill", "input.doc-title", "Contract renewal deadline") in look
    assert vb.plan_for("undone", star).steps[-2] == ("click", "button[value=unstar]")
    # a near miss: another value of the same shape on the same screen, else two digits swapped
    charge = get_task("bank.find_charge").instance(0)
    seen = vb.Trace(last_screen_text="SKYLINE AIRWAYS -312.80\nTESCO -31.28 ... balance 1,204.15\nFIXIT -412.50")
    assert vb.plan_for("near_miss", charge, trace=seen).steps[-1] == ("finish", "412.50")  # same shape: 999.99
    assert vb.near_miss_value("312.80", "") == "312.08" and vb.near_miss_value("Pets", "") is None
    assert vb.near_miss_value("TX61200457", "TX61200475 TX61200457") == "TX61200475"


def test_noisy_runs_are_seeded_and_keep_any_label():
    inst = get_task("mail.compose_new").instance(0)
    for kind in ("noisy_extra", "noisy_omit", "noisy_swap"):
        a, b = vb.plan_for(kind, inst), vb.plan_for(kind, inst)
        assert a == b and a.steps != inst.oracle and vb.KIND_BY_NAME[kind].intended == vb.LABELS
    extra = vb.plan_for("noisy_extra", inst).steps
    assert len(extra) == len(inst.oracle) + 1 and extra[-1] == ("finish",)
    assert len(vb.plan_for("noisy_omit", inst).steps) == len(inst.oracle) - 1
    assert sorted(vb.plan_for("noisy_swap", inst).steps) == sorted(inst.oracle)


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


def test_pick_tasks_keeps_to_the_split():
    from venuskit.tasks import splits

    s = splits.load()
    held = vb.pick_tasks(48, seed=0)  # the default: held-out templates on eval seeds
    assert {splits.world_split(t) for t, _, _ in held} == {"heldout"}
    assert all(splits.in_range(seed, s.world_eval_seeds) for _, seed, _ in held)
    train = vb.pick_tasks(20, seed=0, split="train")
    assert {splits.world_split(t) for t, _, _ in train} == {"train"}
    assert all(splits.in_range(seed, s.world_train_seeds) for _, seed, _ in train)
    assert len(held) == 48 + 12 and len({t for t, _, _ in held}) < len(held)  # the pool is drawn again when short
    with pytest.raises(ValueError, match="Unknown split"):
        vb.pick_tasks(4, seed=0, split="test")


def test_pick_tasks_is_seeded_and_mixed():
    a, b = vb.pick_tasks(12, seed=3, split="all"), vb.pick_tasks(12, seed=3, split="all")
    assert a == b and len(a) == 12 + 3 and a != vb.pick_tasks(12, seed=4, split="all")
    specs = {t: get_task(t) for t, _, _ in a}
    types = [vb.task_type(specs[t]) for t, _, _ in a]
    assert types.count("question") == 4 and types.count("infeasible") == 3
    assert {specs[t].variant(s).get("locale", "en") for t, s, _ in a} == {"en", "zh"}
    assert all(surface in specs[t].surfaces for t, _, surface in a)
    english = vb.pick_tasks(6, seed=3, split="all", locales=["en"], surfaces=["browser"], questions=False)
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
# Few tasks, chosen so that every kind below applies somewhere: a star (undone: unstarred; lookalike: a Drive
# document of the mail's name starred), a new mail (wrong recipient, the success banner opened by URL, undone:
# moved to the trash from Sent), a question answered with a near miss, an infeasible task.

SMALL = [("mail.star_message", 0), ("mail.compose_new", 0), ("bank.find_charge", 0), ("infeasible.recall_mail", 0)]
KINDS = ["oracle", "null", "noisy_extra", "claimed_done", "wrong_item", "undone", "wrong_recipient", "banner_only",
         "lookalike", "near_miss", "infeasible_right"]  # fmt: skip
NEW_ADVERSARIES = {"undone", "wrong_recipient", "banner_only", "lookalike", "near_miss"}
BENCH_KEYS = ("precision", "recall", "f1", "fpr", "kappa", "adversarial_catch", "macro_f1_4way", "n_episodes",
              "confusion", "cost", "ci95")  # fmt: skip


@pytest.fixture(scope="module")
def small_set(tmp_path_factory):
    folder = tmp_path_factory.mktemp("verify-bench")
    return folder, vb.build_set(folder, tasks=SMALL, kinds=KINDS)


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
    items = {i["id"]: i for i in index["items"]}
    assert {i["task"] for i in items.values()} == {t[0] for t in SMALL}
    for item in items.values():
        contract = load_episode(folder / item["episode_dir"]).verdicts["contract"]
        assert item["label"] == contract["verdict"], item["id"]  # the label is the contract's, nothing else
        assert item["label"] in item["intended"] and item["adversarial"] == vb.KIND_BY_NAME[item["kind"]].adversarial
        assert item["keypoints"] == [k.desc for k in get_task(item["task"]).instance(item["seed"]).keypoints]
    assert {i["kind"] for i in items.values() if i["adversarial"]} >= NEW_ADVERSARIES, index["rejected"]
    assert all(i["label"] != "completed" for i in items.values() if i["adversarial"])
    assert items["mail.compose_new@0#oracle"]["label"] == "completed"
    assert "mail.compose_new@0#undone" in items, index["rejected"]
    assert items["mail.compose_new@0#undone"]["label"] == "failed"  # sent, then moved to the trash
    assert items["bank.find_charge@0#near_miss"]["label"] == "failed"
    assert items["infeasible.recall_mail@0#infeasible_right"]["label"] == "infeasible"
    banner = load_episode(folder / items["mail.compose_new@0#banner_only"]["episode_dir"])
    assert "flash=mail_sent" in banner.steps[-1].url  # the success page, reached without the write
    assert all(r["why"] for r in index["rejected"])  # anything left out says why
    on_disk = json.loads((folder / vb.INDEX).read_text())
    assert on_disk["counts"]["episodes"] == len(items) and on_disk["format"] == vb.SET_FORMAT


@pytest.mark.browser
@pytest.mark.slow
def test_the_set_is_cached(small_set):
    folder, index = small_set
    t0 = time.perf_counter()
    again = vb.build_set(folder, tasks=SMALL, kinds=KINDS)
    assert again["created"] == index["created"] and time.perf_counter() - t0 < 1.0  # read back, nothing rerun
    with pytest.raises(ValueError, match="already holds"):
        vb.build_set(folder, tasks=SMALL[:1])


@pytest.mark.browser
@pytest.mark.slow
def test_two_workers_build_the_serial_set(small_set, tmp_path):
    from venuskit.runs.parallel import Parallel

    folder, index = small_set
    kinds = ["oracle", "null", "claimed_done", "near_miss", "infeasible_right"]
    built = vb.build_set(tmp_path, tasks=SMALL, kinds=kinds, parallel=Parallel(workers=2))
    serial = {i["id"]: i for i in index["items"] if i["kind"] in kinds}
    # Each worker owns its own world server and Chromium; the index lists the picks in order, as a serial
    # build does, with every label, reason and step count equal.
    assert [i["id"] for i in built["items"]] == [i for i in serial]
    for item in built["items"]:
        assert {k: item[k] for k in ("label", "reason", "steps", "end")} == \
            {k: serial[item["id"]][k] for k in ("label", "reason", "steps", "end")}  # fmt: skip
        assert (tmp_path / item["episode_dir"]).is_dir()
    assert not (tmp_path / "progress.jsonl").exists()  # a finished build leaves only its index


@pytest.mark.browser
def test_a_pick_drawn_twice_runs_once_and_is_listed_twice(tmp_path):
    from venuskit.runs.parallel import Parallel

    twice = [("mail.star_message", 3), ("bank.find_charge", 3), ("mail.star_message", 3)]
    index = vb.build_set(tmp_path, tasks=twice, kinds=["null"], parallel=Parallel(workers=2))
    assert [i["id"] for i in index["items"]] == ["mail.star_message@3#null", "bank.find_charge@3#null",
                                                 "mail.star_message@3#null"]  # fmt: skip
    assert index["items"][0]["episode_dir"] == index["items"][2]["episode_dir"]
    assert len(list((tmp_path / "episodes").iterdir())) == 2


@pytest.mark.browser
def test_a_limited_set_is_the_first_picks_a_build_runs(tmp_path):
    picks = [("mail.star_message", 3), ("bank.find_charge", 3), ("mail.compose_new", 4), ("bank.find_charge", 5)]
    first = set(vb.run_order([(t, s, "browser") for t, s in picks])[:2])
    index = vb.build_set(tmp_path, tasks=picks, kinds=["null"], limit=2)
    assert {(i["task"], i["seed"], "browser") for i in index["items"]} == first
    assert [i["id"] for i in index["items"]] == [f"{t}@{s}#null" for t, s in picks if (t, s, "browser") in first]
    assert index["request"]["limit"] == 2
    with pytest.raises(ValueError, match="limit must be at least 1"):
        vb.build_set(tmp_path / "none", tasks=picks, limit=0)


class _Spy:
    """A model-slot judge that records the keypoint texts it is asked about and decides nothing."""

    is_rule = False

    def __init__(self):
        from venuskit.verify.report import Cost

        self.name, self.cost, self.keypoints = "spy", Cost(), set()

    def check_window(self, window, keypoints):
        self.keypoints |= {t for _, t in keypoints}
        return []

    def final(self, goal, evidence, keypoints, history=""):
        self.keypoints |= {t for _, t in keypoints}
        return []


@pytest.mark.browser
@pytest.mark.slow
def test_under_the_default_protocol_no_contract_text_reaches_a_judge(small_set):
    from venuskit.verify.keypoints import split_goal

    folder, index = small_set
    spy = _Spy()
    result = vb.run_bench(folder, [spy], methods=["sgv"])
    contract = {k for i in index["items"] for k in i["keypoints"]}
    goals = {k for i in index["items"] for k in split_goal(i["goal"])}
    assert result["keypoint_source"] == "goal" and result["evidence"] == "generic"
    assert spy.keypoints and spy.keypoints <= goals and not spy.keypoints & contract
    told = _Spy()
    vb.run_bench(folder, [told], methods=["sgv"], keypoint_source="contract")
    assert told.keypoints & contract  # the old protocol, only when asked for by name


@pytest.mark.browser
@pytest.mark.slow
def test_venus_verify_bench_json(small_set, runner):
    folder, index = small_set
    result = runner.invoke(_app(), ["verify", "bench", "--set", str(folder), "--judges", "ocr,log", "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout.strip().splitlines()[-1])
    for key in BENCH_KEYS:
        assert key in out and key in out["baseline"], key
    assert (out["evidence"], out["keypoint_source"], out["set_kind"]) == ("generic", "goal", "world")
    assert out["images_vs_webjudge"] == 0.0 and out["tokens_vs_webjudge"] == 0.0  # rules send no image
    assert out["webjudge_cost"]["images"]["mean"] > 2  # N + 1 screenshots per episode
    assert out["n_episodes"] + len(out["errors"]) == len(index["items"]) and not out["errors"]
    assert sum(map(sum, out["confusion"]["rows_true_cols_pred"])) == out["n_episodes"]
    assert out["cost"]["calls"]["total"] == 0  # rule judges call no model
    sgv = {i["id"]: i["sgv"] for i in out["items"]}
    assert all(sgv[i] != "completed" for i in sgv if i.endswith(("#null", "#claimed_done", "#banner_only")))
    assert (folder / "bench-ocr-log-goal-generic.json").exists()
    world = runner.invoke(_app(), ["verify", "bench", "--set", str(folder), "--evidence", "world", "--keypoints",
                                   "contract", "--kinds", "null", "--methods", "sgv", "--json"])  # fmt: skip
    out = json.loads(world.stdout.strip().splitlines()[-1])
    assert (out["evidence"], out["keypoint_source"]) == ("world", "contract") and "baseline" not in out
    assert {i["kind"] for i in out["items"]} == {"null"}
    bad = runner.invoke(_app(), ["verify", "bench", "--set", str(folder), "--kinds", "bogus"])
    assert bad.exit_code == 2 and "Unknown episode kind 'bogus'" in bad.output
    bad = runner.invoke(_app(), ["verify", "bench", "--set", str(folder), "--evidence", "all"])
    assert bad.exit_code == 2 and "evidence" in bad.output


@pytest.mark.browser
@pytest.mark.slow
def test_venus_verify_one_episode_json_and_write(small_set, runner):
    from venuskit.verify.keypoints import split_goal

    folder, index = small_set
    item = next(i for i in index["items"] if i["kind"] == "oracle" and i["task"] == "mail.star_message")
    episode = folder / item["episode_dir"]
    result = runner.invoke(_app(), ["verify", str(episode), "--json"])
    assert result.exit_code == 0, result.output
    report = json.loads(result.stdout)
    assert report["method"] == "sgv" and report["verdict"] in vb.LABELS
    assert [k["text"] for k in report["keypoints"]] == split_goal(item["goal"])  # from the goal, by default
    verdicts = load_episode(episode).verdicts
    assert verdicts["sgv"]["verdict"] == report["verdict"] and verdicts["contract"]["verdict"] == "completed"
    told = runner.invoke(_app(), ["verify", "--no-write", "--keypoints-from-contract", "--json", str(episode)])
    assert [k["text"] for k in json.loads(told.stdout)["keypoints"]] == item["keypoints"]
    table = runner.invoke(_app(), ["verify", "--no-write", str(episode)])
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
    assert report["cost"]["calls"] == len(requests) >= 1 and requests[-1].images()  # screenshots went to the model
    assert report["cost"]["images"] == sum(len(r.images()) for r in requests)
    assert any("vlm" in k["decided_by"] for k in report["keypoints"])
    # A stand-in that says "satisfied" to everything fools a model-only SGV: the contract says otherwise...
    assert report["verdict"] == "completed" and item["label"] != "completed"
    # ...but with the rule judges first (ocr,log + the model) the claim without the change is caught.
    assert json.loads(ruled.stdout)["verdict"] != "completed"


# ---- the external set: MiniWoB++ labelled by the page's own reward ---------------------------------


@pytest.fixture(scope="module")
def miniwob_set(tmp_path_factory):
    folder = tmp_path_factory.mktemp("verify-miniwob")
    return folder, vb.build_miniwob_set(folder, tasks=["click-button", "enter-text"], seeds=[5000],
                                        kinds=["oracle", "cut_short", "perturbed", "prefix_typed"])  # fmt: skip


@pytest.mark.browser
@pytest.mark.slow
def test_the_miniwob_set_is_labelled_by_the_pages_reward(miniwob_set, runner):
    folder, index = miniwob_set
    items = {i["id"]: i for i in index["items"]}
    assert not index["rejected"], index["rejected"]
    assert {k: items[f"enter-text@5000#{k}"]["label"] for k in ("oracle", "cut_short", "perturbed", "prefix_typed")} \
        == {"oracle": "completed", "cut_short": "failed", "perturbed": "failed", "prefix_typed": "failed"}  # fmt: skip
    assert items["click-button@5000#oracle"]["label"] == "completed"
    assert not any(i["kind"] == "prefix_typed" and i["task"] == "click-button" for i in index["items"])
    for item in items.values():
        episode = load_episode(folder / item["episode_dir"])
        assert (item["label"] == "completed") == (episode.outcome.reward is not None and episode.outcome.reward > 0)
    spy = _Spy()
    vb.run_bench(folder, [spy], methods=["sgv"])
    assert spy.keypoints  # SGV asked about the goals' keypoints, and never saw a reward (test_protocol proves how)
    out = runner.invoke(_app(), ["verify", "bench", "--set-kind", "miniwob", "--set", str(folder), "--json"])
    assert out.exit_code == 0, out.output
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["set_kind"] == "miniwob" and result["n_episodes"] == len(items)
    verdicts = {i["id"]: i["sgv"] for i in result["items"]}
    assert verdicts["enter-text@5000#prefix_typed"] != "completed"  # a prefix typed is not the text asked for
    assert verdicts["enter-text@5000#oracle"] == "completed" and verdicts["click-button@5000#oracle"] == "completed"


@pytest.mark.browser
@pytest.mark.slow
def test_a_set_extended_with_venus_nano_runs_only_the_new_episodes(tmp_path):
    """The agent kind (venus-nano rolled out on the task, any contract label kept) added to a built set: the
    episodes already there are kept as they were, only the new kind runs, and its label is the contract's."""
    task = [("mail.star_message", 0)]
    first = vb.build_set(tmp_path, tasks=task, kinds=["null"])
    (null_item,) = first["items"]
    grown = vb.build_set(tmp_path, tasks=task, kinds=["null", "agent"])
    items = {i["kind"]: i for i in grown["items"]}
    assert items["null"] == null_item  # kept, not rerun
    agent = items["agent"]
    episode = load_episode(tmp_path / agent["episode_dir"])
    assert agent["policy"] == "agent" and agent["label"] == episode.verdicts["contract"]["verdict"]
    assert episode.steps and agent["label"] in vb.LABELS
    with pytest.raises(ValueError, match="only add kinds"):
        vb.build_set(tmp_path, tasks=task, kinds=["agent"])  # a set is never shrunk in place


def test_an_extended_set_keeps_only_rows_whose_episodes_are_inside_it(tmp_path):
    from venuskit.eval.verify_bench.world_set import reusable_rows

    (tmp_path / "set" / "episodes" / "ep-1").mkdir(parents=True)
    (tmp_path / "elsewhere").mkdir()
    request = {"set_kind": "world", "kinds": ["null"], "tasks": [["t", 0, "browser"]]}
    cached = {"request": request, "items": [{"id": "a", "episode_dir": "episodes/ep-1"},
                                            {"id": "b", "episode_dir": "../elsewhere"},
                                            {"id": "c", "episode_dir": "episodes/gone"}]}  # fmt: skip
    kept = reusable_rows(tmp_path / "set", cached, {**request, "kinds": ["null", "agent"]}, grows=("kinds",))
    assert set(kept) == {"a"}  # outside the set or missing: run again, never trusted
