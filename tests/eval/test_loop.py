"""`venus loop`: two tiny rounds end to end with venus-nano in real Chromium (rollouts, SGV, rows, training,
held-out evaluation, failure write-back, round table and curves, resume), and the training seam on SGV-verified
oracle episodes, so SFT and GRPO are exercised whatever the shipped checkpoint solves."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from venuskit.cli.main import app
from venuskit.eval.suites.world import WorldSuiteConfig, run_world_suite
from venuskit.flywheel.loop import LoopConfig, _train, draw, template_pool
from venuskit.models.nano import NanoModel, default_checkpoint
from venuskit.record.store import load_episode
from venuskit.runs.parallel import Parallel

pytestmark = [pytest.mark.browser, pytest.mark.slow]
TRAIN = "mail.star_message,drive.star_file"


def test_two_rounds_end_to_end(tmp_path):
    out = tmp_path / "loop"
    args = ["loop", "--policy", "nano", "--rounds", "2", "--rollouts", "2", "--templates", TRAIN, "--eval-templates",
            "bank.txn_category", "--max-steps", "4", "--sft-epochs", "1", "--stage-minutes", "0.3", "--out", str(out),
            "--json"]  # fmt: skip
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    head = json.loads(result.output.strip().splitlines()[-1])
    table = [json.loads(line) for line in (out / "rounds.jsonl").read_text().splitlines()]
    assert head["rounds"] == len(table) == 2
    assert table[1]["checkpoint_in"] == table[0]["checkpoint"]  # round 2 starts from round 1's policy
    for k, row in enumerate(table):
        folder = out / f"round_{k}"
        rollouts = [json.loads(line) for line in (folder / "rollouts" / "results.jsonl").read_text().splitlines()]
        assert len(rollouts) == row["rollouts"] == 2 and set(row["templates"]) == set(TRAIN.split(","))
        assert all(r["split"] == "train" and r["seed"] == k for r in rollouts)  # a fresh train seed per round
        assert all(load_episode(folder / "rollouts" / r["episode_dir"]).verdicts["sgv"] for r in rollouts)
        assert row["verified"] == sum(r["sgv"]["verdict"] == "completed" for r in rollouts)
        data = json.loads((folder / "data.json").read_text())
        assert row["rows"] == len(data["rows"])  # every training row names its episode and step
        evaluated = [json.loads(line) for line in (folder / "eval" / "results.jsonl").read_text().splitlines()]
        assert [r["split"] for r in evaluated] == ["heldout"] and row["eval_episodes"] == 1
        failures = json.loads((folder / "failures.json").read_text())
        assert set(failures["template_weights"]) == set(TRAIN.split(","))
        assert set(failures["failed_templates"]) == {r["template"] for r in rollouts if r["contract"] != "completed"}
    assert 'src="data:image/png;base64,' in (out / "rounds.html").read_text()
    again = CliRunner().invoke(app, args)  # resumes after the last finished round: nothing left to do
    assert again.exit_code == 0 and len((out / "rounds.jsonl").read_text().splitlines()) == 2


def test_training_on_verified_successes(tmp_path):
    # Oracle episodes of two training templates; SGV (rule judges, goal keypoints) verifies the question task's
    # answer on screen and not the rename, so only the former may become training rows.
    suite = WorldSuiteConfig(out=str(tmp_path / "rollouts"), templates="settings.account_email,settings.rename_profile",
                             split="train", seeds=(0,), sgv="ocr,log")  # fmt: skip
    run_world_suite(suite, Parallel(workers=1))
    rows = [json.loads(line) for line in (tmp_path / "rollouts" / "results.jsonl").read_text().splitlines()]
    verified = [r for r in rows if r["sgv"]["verdict"] == "completed"]
    assert verified and len(verified) < len(rows), "SGV verifies some oracle episodes and not others"
    dirs = [tmp_path / "rollouts" / r["episode_dir"] for r in rows]
    config = LoopConfig(out=str(tmp_path), sft_epochs=1, grpo_epochs=1, stage_minutes=0.3)
    checkpoint, info = _train(config, tmp_path, dirs, str(default_checkpoint()))
    assert info["trained"] == "sft+grpo" and info["examples"] > 0
    assert Path(checkpoint).is_file() and Path(checkpoint) != default_checkpoint()
    NanoModel.load(checkpoint)  # a loadable venus-nano checkpoint
    data = json.loads((tmp_path / "data.json").read_text())
    ids = {load_episode(d).episode_id: load_episode(d) for d in dirs}
    assert data["rows"] and all(ids[r["episode_id"]].verdicts["sgv"]["verdict"] == "completed" for r in data["rows"])


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
