"""The flywheel's curves: the scaling points are nested sets that add synthesised tasks to the hand-written
templates in a fixed order, and a run folder's config comes back as the run was made (so its data is read, not
collected again)."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace as NS

import pytest

from venuskit.flywheel.curves import CurveConfig, scaling_sets, synthesised
from venuskit.flywheel.nano import NanoTrainConfig, run_config, templates_of, validation_capabilities


def _world() -> list[NS]:
    hand = [NS(row={"task": t}) for t in ("mail.star_message", "drive.star_file") for _ in range(3)]
    synth = [NS(row={"task": f"synth.{i:04x}"}) for i in range(9) for _ in range(2)]
    return hand + synth


def test_scaling_points_are_nested_and_start_from_the_hand_written_templates():
    assert not synthesised("mail.star_message") and synthesised("synth.0001")
    sets = scaling_sets(_world(), 4, seed=0)
    assert [n for _, n, _ in sets] == [2, 5, 8, 11]  # 2 templates, then 9 synthesised tasks in three steps
    tasks = [{e.row["task"] for e in exs} for _, _, exs in sets]
    assert tasks[0] == {"mail.star_message", "drive.star_file"}
    assert all(a < b for a, b in zip(tasks, tasks[1:], strict=False))  # each point holds the previous one's tasks
    assert [len(exs) for _, _, exs in sets] == [6, 12, 18, 24]
    assert scaling_sets(_world(), 4, seed=0)[1][2] == sets[1][2]  # a fixed order: the same seed, the same sets
    with pytest.raises(ValueError, match="points"):
        CurveConfig(run=NS(), out=NS(), points=1)


def test_a_run_folders_config_comes_back_as_made(tmp_path):
    cfg = NanoTrainConfig(out=tmp_path / "elsewhere", seed=3, sft_epochs=7, skins=(0, 1, 2), grounding_n=0,
                          stages=("sft",))  # fmt: skip
    run = tmp_path / "run"
    run.mkdir()
    (run / "summary.json").write_text(json.dumps({"config": json.loads(json.dumps(vars(cfg), default=str))}))
    back = run_config(run)
    assert (back.seed, back.sft_epochs, back.skins, back.grounding_n, back.stages) == (3, 7, (0, 1, 2), 0, ("sft",))
    assert back.out == run  # the folder it is read from, wherever it was made
    with pytest.raises(ValueError, match="not a `venus nano train` run folder"):
        run_config(tmp_path)
    (tmp_path / "summary.json").write_text("{torn")
    with pytest.raises(ValueError, match="not a `venus nano train` summary"):
        run_config(tmp_path)


def test_synthesised_tasks_that_compose_a_validation_only_function_stay_out_while_validation_is_measured(tmp_path):
    from venuskit.tasks import spec, splits

    tasks = Path(__file__).with_name("two_synth_tasks.toml")
    try:
        on = templates_of(NanoTrainConfig(out=tmp_path, tasks=(tasks,)))
        off = templates_of(NanoTrainConfig(out=tmp_path, tasks=(tasks,), validation=False))
    finally:  # registered tasks are process-wide: leave the registry as other tests expect it
        spec.unregister(["synth.68f957eba472", "synth.12366989eb47"])
    assert "shop.read_order_total" in validation_capabilities()  # cold-started from a validation template only
    assert "synth.68f957eba472" in on and "synth.12366989eb47" not in on  # composes shop.read_order_total
    assert {"synth.68f957eba472", "synth.12366989eb47"} <= set(off)
    assert not set(on) & set(splits.validation_templates()) and set(splits.validation_templates()) <= set(off)


def test_a_point_trains_the_runs_own_network(tmp_path, monkeypatch):
    """A scaling point differs from the run only in its data: a run trained with the icon-name block (or a larger
    network) gets points that read it too, else the curve would compare two recipes."""
    import importlib

    from venuskit.flywheel import curves

    sft_mod = importlib.import_module("venuskit.train.nano.sft")  # the module: the package exports its function

    cfg = NanoTrainConfig(out=tmp_path, seed=3, sft_epochs=2, icon_names=True, size="large", stages=("sft",))
    run = tmp_path / "run"
    run.mkdir()
    (run / "summary.json").write_text(json.dumps({"config": json.loads(json.dumps(vars(cfg), default=str))}))
    seen = []
    monkeypatch.setattr(sft_mod, "sft", lambda exs, folder, c: seen.append(c) or NS(checkpoint=folder / "x.pt"))
    curves._train("tasks-2", [NS()] * 4, CurveConfig(run=run, out=tmp_path / "out", seed=3), budget=8)
    assert [(c.icon_names, c.size, c.epochs, c.seed) for c in seen] == [(True, "large", 2, 3)]


def test_a_point_whose_evaluation_did_not_run_is_an_error_not_a_zero(tmp_path, monkeypatch):
    """Workers that die before an episode (a broken install, a process that cannot start) leave no episodes: the
    curve must not record that point as 0% success."""
    from venuskit.flywheel import curves

    dead = {"episodes": 0, "success": 0.0, "rates": {"success": {"ci95": [0.0, 1.0]}},
            "infra_failures": [{"key": "mail.star_message/browser/5000", "error": "worker process died (exit code 1)"}]}
    monkeypatch.setattr(curves, "run_world_suite", lambda *a, **k: dead)
    cfg = CurveConfig(run=tmp_path, out=tmp_path / "out")
    (tmp_path / "ck.pt").write_bytes(b"")  # the suite's config names the checkpoint; no episode opens it here
    with pytest.raises(curves.CurveError, match="1 evaluation episodes did not run .worker process died"):
        curves._suite(tmp_path / "ck.pt", tmp_path / "h", ["mail.star_message"], "heldout", (5000,), cfg)
    ok = {"episodes": 3, "success": 1 / 3, "rates": {"success": {"ci95": [0.06, 0.79]}}, "infra_failures": []}
    monkeypatch.setattr(curves, "run_world_suite", lambda *a, **k: ok)
    assert curves._suite(tmp_path / "ck.pt", tmp_path / "h", ["mail.star_message"], "heldout", (5000,), cfg)["n"] == 3


def test_every_point_is_measured_on_validation_states_none_of_them_trains_on(tmp_path, monkeypatch):
    """run_curves: the points grow by synthesised tasks, each is scored on the same validation oracle states
    (teacher-forced), and no validation state is ever in a point's training set."""
    from venuskit.flywheel import curves, nano

    val = [NS(row={"task": "mail.unarchive"}) for _ in range(3)]
    extra = [NS(row={"task": "grounding"})]
    monkeypatch.setattr(nano, "run_examples", lambda run: {"world": _world(), "validation": val, "grounding": extra})
    trained, scored = [], []
    monkeypatch.setattr(curves, "_train", lambda name, exs, cfg, budget: trained.append(exs) or tmp_path / name)
    monkeypatch.setattr(curves, "evaluate", lambda ck, folder, cfg: {"heldout_short": {"n": 1, "success": 0.0},
                                                                      "validation_short": {"n": 1, "success": 0.0}})
    monkeypatch.setattr(curves, "teacher_forced", lambda ck, v: scored.append(v) or {"n": len(v), "step_acc": 0.5})
    monkeypatch.setattr(nano, "run_config", lambda run: NS(skins=(0,)))
    out = curves.run_curves(CurveConfig(run=tmp_path, out=tmp_path / "out", points=3))
    assert [p["tasks"] for p in out["scaling"]] == [2, 6, 11]
    assert all(p["validation_teacher_forced"] == {"n": 3, "step_acc": 0.5} for p in out["scaling"])
    assert all(v is val for v in scored) and not any(e in exs for exs in trained for e in val)
    assert all(extra[0] in exs for exs in trained)  # grounding rows stay in every point
    assert json.loads((tmp_path / "out" / "curves.json").read_text())["axes"]["tasks"]["examples"] == 7
