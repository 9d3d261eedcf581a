"""venus-nano's model card is written from the flywheel's records and names the very file it describes."""

from __future__ import annotations

import hashlib
import json

from provenance_helpers import absolute_paths

from venuskit.flywheel.card import write_nano_card
from venuskit.models.nano.model import NanoModel
from venuskit.models.nano.net import NanoNet, NetConfig


def test_the_card_names_its_file_and_quotes_the_records(tmp_path):
    ckpt = NanoModel(NanoNet(NetConfig())).save(tmp_path / "venus-nano.pt", {"stage": "grpo", "seed": 0})
    run, loop, curves = tmp_path / "run", tmp_path / "loop", tmp_path / "curves"
    for d in (run, loop, curves):
        d.mkdir()
    cfg = {"seed": 0, "stages": ["sft"], "sft_epochs": 10, "seeds_per_variant": 1, "categories": ["short"],
           "surfaces": ["browser"], "skins": [0, 1], "tasks": [str(tmp_path / "synth-train.toml")],
           "world_rows": 120}  # fmt: skip
    (run / "summary.json").write_text(json.dumps({"config": cfg, "data": {"world": {"rows": 120, "examples": 110},
                                                                          "world_collected": 900}}))  # fmt: skip
    (loop / "loop.json").write_text(json.dumps({"rollouts": 16, "skins": [0, 1], "sft_epochs": 2, "seed": 0}))
    (loop / "rounds.jsonl").write_text(json.dumps({"round": 0, "eval_success": 0.25, "eval_episodes": 4,
                                                   "eval_ci95": [0.05, 0.7], "validation_success": 0.5,
                                                   "validation_episodes": 2, "rows_added": 37, "sgv_precision": 1.0,
                                                   "sgv_recall": 0.5, "val_step_acc": 0.61}) + "\n")  # fmt: skip
    (loop / "round_0" / "eval").mkdir(parents=True)
    (loop / "round_0" / "eval" / "results.jsonl").write_text("".join(json.dumps(r) + "\n" for r in (
        {"category": "short", "contract": "completed", "feasible": True},
        {"category": "short", "contract": "failed", "feasible": True},
        {"category": "medium", "contract": "completed", "feasible": True})))  # fmt: skip
    point = {"name": "tasks-3", "tasks": 3, "examples": 50, "heldout_short": {"success": 0.1, "n": 10, "ci95": [0, 1]},
             "validation_short": {"success": 0.2, "n": 5, "ci95": [0, 1]}}  # fmt: skip
    (curves / "curves.json").write_text(json.dumps({"scaling": [point], "axes": {"tasks": point}}))
    card = write_nano_card(tmp_path / "MODEL_CARD.md", ckpt, run=run, loop=loop, curves=curves,
                           report=tmp_path / "none.json", notes=["Measured on a shared machine."])  # fmt: skip
    text = card.read_text("utf-8")
    assert hashlib.sha256(ckpt.read_bytes()).hexdigest() in text
    assert "| 0 | 1 / 2 | 25.0% of 4 [5, 70] | 50.0% of 2 | 37 | 1.0 / 0.5 | 0.61 |" in text  # short: 1 of 2
    assert "| 3 | 50 | 10.0% of 10 [0, 100] | 20.0% of 5 [0, 100] |" in text
    assert "world: 120 rows, 110 examples." in text and "synth-train.toml" in text
    assert "a sample of the 900 collected, spread evenly over the tasks (`--world-rows 120`)" in text
    assert absolute_paths(text) == []  # the task file is named, not its path


def test_an_ensembles_card_names_every_member(tmp_path):
    from venuskit.models.nano.model import build_ensemble

    paths = []
    for seed in (0, 1):
        (tmp_path / f"seed{seed}").mkdir()
        paths.append(NanoModel(NanoNet(NetConfig()), {"stage": "sft", "seed": seed}).save(
            tmp_path / f"seed{seed}" / "venus-nano.pt"))  # fmt: skip
    ckpt = build_ensemble(paths, tmp_path / "ens.pt")
    run = tmp_path / "run"
    run.mkdir()
    cfg = {"seed": 0, "stages": ["sft"], "sft_epochs": 10, "seeds_per_variant": 1, "categories": ["short"],
           "surfaces": ["browser"], "skins": [0], "tasks": []}  # fmt: skip
    (run / "summary.json").write_text(json.dumps({"config": cfg, "data": {}}))
    text = write_nano_card(tmp_path / "MODEL_CARD.md", ckpt, run=run, loop=tmp_path / "no-loop",
                           curves=tmp_path / "no-curves", report=tmp_path / "none.json", notes=[]).read_text("utf-8")
    assert "stage `ensemble`, seed `[0, 1]`" in text
    for i, p in enumerate(paths):
        digest = hashlib.sha256(p.read_bytes()).hexdigest()
        assert f"- Member {i}: `seed{i}/venus-nano.pt`, SHA-256 `{digest}`, stage `sft`, seed `{i}`." in text
    assert absolute_paths(text) == []
