"""`venus loop`: two tiny rounds end to end in real Chromium (relabelled rollouts, SGV, rows aggregated across
rounds, training, the judge refit each round and measured on held-out templates, held-out evaluation, failure
write-back, round table and curves, resume), from an untrained network; and the rows seam: only SGV-kept
successes give own-action rows."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from venuskit.cli.main import app
from venuskit.eval.verify_bench.miniwob_set import build_miniwob_set
from venuskit.eval.verify_bench.world_set import build_set, load_index
from venuskit.flywheel import collect
from venuskit.flywheel.judge import rollout_rows
from venuskit.flywheel.loop import LoopConfig, _train, draw, label, round_rows, template_pool
from venuskit.flywheel.rows import world_rows
from venuskit.models.nano import NanoModel, default_checkpoint
from venuskit.record.store import load_episode
from venuskit.train.nano.common import step_accuracy
from venuskit.train.nano.data import FeatureCache, examples

pytestmark = [pytest.mark.browser, pytest.mark.slow]
TRAIN = "mail.star_message,drive.star_file"
# Teacher-forced step accuracy on the training templates' oracle states at seeds no round used, that two tiny
# rounds from an untrained network must gain (measured here: see the closing assertion's message).
MARGIN = 0.2


def test_two_rounds_from_an_untrained_network(tmp_path):
    out, bench, miniwob = tmp_path / "loop", tmp_path / "judge-bench", tmp_path / "judge-miniwob"
    build_set(bench, tasks=[("bank.txn_category", 5000)], kinds=["oracle", "null", "claimed_done"])
    build_miniwob_set(miniwob, tasks=["click-button"], seeds=[5000], kinds=["oracle", "cut_short"])
    args = ["loop", "--policy", "nano", "--init", "untrained", "--rounds", "2", "--rollouts", "2", "--templates",
            TRAIN, "--eval-templates", "bank.txn_category", "--max-steps", "4", "--sft-epochs", "20",
            "--stage-minutes", "0.5", "--no-validation", "--validation-seeds", "0", "--out", str(out),
            "--sgv", "ocr,log,nano", "--judge", "--judge-bench", str(bench), "--judge-miniwob", str(miniwob),
            "--json"]  # fmt: skip
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    head = json.loads(result.output.strip().splitlines()[-1])
    table = [json.loads(line) for line in (out / "rounds.jsonl").read_text().splitlines()]
    assert head["rounds"] == len(table) == 2
    assert table[1]["checkpoint_in"] == table[0]["checkpoint"]  # round 2 starts from round 1's policy
    for k, row in enumerate(table):
        folder = out / f"round_{k}"
        rollouts = collect.read_index(folder / "rollouts")
        assert len(rollouts) == row["rollouts"] == 2 and set(row["templates"]) == set(TRAIN.split(","))
        assert {r["seed"] for r in rollouts} == {row["seed"]} and len({t["seed"] for t in table}) == 2
        for r in rollouts:  # every state the policy visited is either labelled by the oracle or says why not
            episode = load_episode(r["episode_dir"])
            targets = json.loads((Path(r["episode_dir"]) / collect.TARGETS).read_text())
            assert episode.verdicts["sgv"] and episode.verdicts["contract"]
            assert len(targets) == r["states"] and all(t["action"] or t["why"] for t in targets)
        assert 0 < row["rows_relabelled"] <= row["labelled_states"]
        data = json.loads((folder / "data.json").read_text())
        assert row["rows"] == len(data["rows"])  # every training row names its episode, step and source
        evaluated = [json.loads(line) for line in (folder / "eval" / "results.jsonl").read_text().splitlines()]
        assert [r["split"] for r in evaluated] == ["heldout"] and row["eval_episodes"] == 1
        failures = json.loads((folder / "failures.json").read_text())
        assert set(failures["template_weights"]) == set(TRAIN.split(","))
    # DAgger aggregates: round 2 trains on round 1's relabelled states as well as its own.
    second = json.loads((out / "round_1" / "data.json").read_text())["rows"]
    first_ids = {load_episode(r["episode_dir"]).episode_id for r in collect.read_index(out / "round_0" / "rollouts")}
    assert any(r["round"] == 0 and r["source"] == "relabelled" and r["episode_id"] in first_ids for r in second)
    assert any(r["round"] == 1 for r in second)
    assert 'src="data:image/png;base64,' in (out / "rounds.html").read_text()

    # The judge on the same flywheel: refit each round on every round's contract-labelled rollouts; the next round's
    # SGV asks the previous round's judge; each is measured on the held-out set.
    assert [r["judge_episodes"] for r in table] == [2, 4]
    assert table[0]["judge_rows_added"] > 0 and table[1]["judge_rows_added"] > 0
    assert table[1]["judge_rows"] == table[0]["judge_rows"] + table[1]["judge_rows_added"]
    cards = [json.loads(Path(r["judge"]).with_suffix(".json").read_text()) for r in table]
    assert cards[0]["sha256"] != cards[1]["sha256"] and cards[1]["training"]["episodes"] == 4
    assert "rounds 0-1 (4 episodes" in Path(table[1]["judge"]).with_name("MODEL_CARD.md").read_text()
    assert table[0]["sgv_judge"] == "shipped" and table[1]["sgv_judge"] == table[0]["judge"]
    asked = [{load_episode(r["episode_dir"]).verdicts["sgv"]["judges"]["nano"]["checkpoint"]["sha256"]
              for r in collect.read_index(out / f"round_{k}" / "rollouts")} for k in (0, 1)]  # fmt: skip
    assert asked[1] == {cards[0]["sha256"]} and asked[0] != asked[1]
    n_bench = len(load_index(bench)["items"])
    for k, row in enumerate(table):
        measured = json.loads((out / f"round_{k}" / "judge" / "bench.json").read_text())
        assert row["judge_bench_episodes"] == measured["n_episodes"] == n_bench >= 2
        assert set(row["judge_bench_ci95"]) == {"precision", "recall"}
        on_miniwob = json.loads((out / f"round_{k}" / "judge" / "bench_miniwob.json").read_text())
        assert on_miniwob["set_kind"] == "miniwob" and row["judge_miniwob_episodes"] == on_miniwob["n_episodes"] == 2
        assert row["judge_miniwob_precision"] == on_miniwob["precision"]
    assert len(head["judge_miniwob_recall"]) == 2 and "judge_miniwob_precision" in (out / "rounds.html").read_text()
    again = CliRunner().invoke(app, args)  # resumes after the last finished round: nothing left to do
    assert again.exit_code == 0 and len((out / "rounds.jsonl").read_text().splitlines()) == 2

    # The short budget beats the untrained network on the same templates' states at unseen seeds.
    jobs = collect.world_jobs(TRAIN.split(","), ["browser"], seed_offset=900)
    exs, _ = examples(world_rows(collect.world_oracle_episodes(tmp_path / "fresh", jobs), relabelled=False),
                      NanoModel.load(default_checkpoint()), FeatureCache(None))  # fmt: skip
    assert len(exs) >= 4
    before = step_accuracy(NanoModel.load(out / "untrained.pt").net, exs)["step_acc"]
    after = step_accuracy(NanoModel.load(table[-1]["checkpoint"]).net, exs)["step_acc"]
    assert after >= before + MARGIN, (before, after)


def test_rows_are_sgv_kept_successes_and_training_runs(tmp_path):
    # Oracle episodes of two training templates; SGV (rule judges, goal keypoints) verifies the question task's
    # answer on screen and not the Drive tidy-up (files deleted, restored and starred by their rows' unlabelled
    # icons, which no rule reads), so only the former gives own-action rows.
    jobs = [collect.Job("settings.account_email", 0, "browser"), collect.Job("drive.tidy_up", 0, "browser")]
    index = collect.world_oracle_episodes(tmp_path / "round_0" / "rollouts", jobs)
    labelled = label(index, LoopConfig(out=str(tmp_path)))
    kept = [r for r in labelled if r["sgv"]["verdict"] == "completed"]
    assert kept and len(kept) < len(labelled), "SGV keeps some oracle episodes and not others"
    rows = round_rows(tmp_path, 0, relabel=False)
    ids = {load_episode(r["episode_dir"]).episode_id: r for r in labelled}
    assert rows and all(ids[r["episode_id"]]["sgv"]["verdict"] == "completed" for r in rows)
    assert {r["source"] for r in rows} == {"sgv_kept"}
    every = round_rows(tmp_path, 0, relabel=False, keep="all")  # the verification axis turned down
    assert {r["source"] for r in every} == {"unfiltered"} and len(every) > len(rows)
    assert {r["episode_id"] for r in every} == set(ids)  # both episodes, whatever SGV said
    config = LoopConfig(out=str(tmp_path), sft_epochs=1, grpo_epochs=1, stage_minutes=0.3)
    checkpoint, info = _train(config, tmp_path / "round_0", rows, str(default_checkpoint()), 0)
    assert info["trained"] == "sft+grpo" and info["examples"] > 0 and info["rows_sgv_kept"] == len(rows)
    assert Path(checkpoint).is_file() and Path(checkpoint) != default_checkpoint()
    NanoModel.load(checkpoint)  # a loadable venus-nano checkpoint
    # The judge's rows from the same rollouts: labelled by each one's contract (both completed here).
    judge = rollout_rows(labelled)
    assert len(set(judge.groups)) == 2 and 1.0 in judge.labels
    with pytest.raises(ValueError, match="training templates and train seeds only"):
        rollout_rows([{**labelled[0], "template": "bank.txn_category"}])  # a held-out template never trains it


def test_the_judge_options_refuse_sets_of_the_wrong_split(tmp_path):
    def world_set(name: str, tasks: list[str]) -> str:
        folder = tmp_path / name
        folder.mkdir()
        items = [{"id": f"{t}-{i}", "task": t, "seed": 0} for i, t in enumerate(tasks)]
        (folder / "index.json").write_text(json.dumps({"format": 2, "request": {}, "items": items}))
        return str(folder)

    train, heldout = world_set("train", ["mail.star_message"]), world_set("heldout", ["bank.txn_category"])
    LoopConfig(out="x", judge=True, judge_set=train, judge_bench=heldout)
    with pytest.raises(ValueError, match="belong to a loop that trains the judge"):
        LoopConfig(out="x", judge_bench=heldout)
    with pytest.raises(ValueError, match="--judge-bench .*heldout templates only; 1 of its 1 are not"):
        LoopConfig(out="x", judge=True, judge_bench=train)  # never measured on what it may train on
    with pytest.raises(ValueError, match="--judge-set .*train templates only"):
        LoopConfig(out="x", judge=True, judge_set=heldout)
    with pytest.raises(ValueError, match="not a labelled world set"):
        LoopConfig(out="x", judge=True, judge_set=str(tmp_path / "nowhere"))
    with pytest.raises(ValueError, match="--judge-miniwob .*must be a non-empty MiniWoB.. set"):
        LoopConfig(out="x", judge=True, judge_miniwob=heldout)  # a world set measured as MiniWoB++ is refused
    with pytest.raises(ValueError, match="belong to a loop that trains the judge"):
        LoopConfig(out="x", judge_miniwob=heldout)


def test_sampling_follows_the_weights():
    import random

    pool = template_pool(LoopConfig(out="x", templates="mail.*"))
    assert pool and all(t.startswith("mail.") for t in pool)
    heavy = {pool[0]: 1000.0}
    picks = [draw(pool, heavy, 1, random.Random(s))[0] for s in range(20)]
    assert picks.count(pool[0]) >= 18
    assert sorted(draw(pool, {}, len(pool) + 5, random.Random(0))) == sorted(pool)
    with pytest.raises(ValueError, match="cannot be off"):
        LoopConfig(out="x", sgv="off")
    with pytest.raises(ValueError, match="--keep"):
        LoopConfig(out="x", keep="some")
    with pytest.raises(ValueError, match="not a `venus nano train` run folder"):
        LoopConfig(out="x", base="no/such/run")


def test_the_validation_slice_stays_out_of_the_rounds_while_it_is_measured():
    from venuskit.tasks import spec
    from venuskit.tasks.splits import validation_templates

    val = set(validation_templates())
    tasks = str(Path(__file__).parents[1] / "flywheel" / "two_synth_tasks.toml")
    try:
        on = set(template_pool(LoopConfig(out="x", tasks=(tasks,))))
        off = set(template_pool(LoopConfig(out="x", tasks=(tasks,), validation=False, validation_seeds=0)))
    finally:  # registered tasks are process-wide
        spec.unregister(["synth.68f957eba472", "synth.12366989eb47"])
    assert val and not val & on and val <= off
    # the synthesised task composing a validation-only function (shop.read_order_total) is out while measured
    assert "synth.68f957eba472" in on and "synth.12366989eb47" not in on and "synth.12366989eb47" in off
