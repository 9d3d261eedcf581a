"""The synthesised task file shipped for the recipe (`--tasks synth-train-seed7`): training tasks only, proved on
the surfaces they declare, nothing of a held-out template in them, and found by name."""

from pathlib import Path

import pytest

from venuskit.tasks import splits
from venuskit.tasks.spec import load_file
from venuskit.tasks.synth.reject import heldout_only, value_strings
from venuskit.tasks.synth.taskfile import shipped_task_files, task_file

NAME = "synth-train-seed7"


def test_the_recipe_file_is_shipped_and_found_by_name(tmp_path: Path) -> None:
    assert NAME in shipped_task_files()
    path = task_file(NAME)
    assert path.is_file() and "venus tasks synth" in path.read_text("utf-8").splitlines()[0]
    own = tmp_path / "mine.toml"
    own.write_text(path.read_text("utf-8"))
    assert task_file(own) == own  # a path on disk wins over a name
    with pytest.raises(ValueError, match="not found.*synth-train-seed7"):
        task_file("synth-train-seed8")


def test_the_shipped_tasks_are_training_tasks_with_nothing_held_out_in_them() -> None:
    specs = load_file(task_file(NAME))
    assert len(specs) >= 250 and len({s.id for s in specs}) == len(specs)
    goals, values = heldout_only()
    held = splits.load().world_heldout
    for s in specs:
        assert "split:train" in s.tags and s.id not in held
        assert s.instance(0).goal.strip().casefold() not in goals
        params = [t.split("=", 1)[1] for t in s.tags if t.startswith("param:") and "=" in t]
        assert not {v for p in params for v in value_strings(p)} & values, s.id
        assert "browser" in s.surfaces
    assert sum("mobile" in s.surfaces for s in specs) >= len(specs) // 2  # proved on mobile where it works there


def test_a_recipe_config_keeps_the_name_and_reads_the_shipped_file(tmp_path: Path) -> None:
    from venuskit.flywheel.nano import NanoTrainConfig, templates_of
    from venuskit.tasks import spec

    cfg = NanoTrainConfig(out=tmp_path, tasks=(NAME,))
    assert cfg.task_files() == (str(task_file(NAME)),)
    try:
        trained = templates_of(cfg)  # short, medium and infeasible: the config's default categories
    finally:  # registered tasks are process-wide: leave the registry as other tests expect it
        spec.unregister([s.id for s in load_file(task_file(NAME))])
    synth = [t for t in trained if t.startswith("synth.")]
    assert len(synth) >= 150 and not set(trained) & splits.load().world_heldout
    with pytest.raises(ValueError, match="not found"):
        NanoTrainConfig(out=tmp_path, tasks=("no-such-file",))


def test_a_loop_config_takes_the_shipped_name() -> None:
    from venuskit.flywheel.loop import LoopConfig

    assert LoopConfig(out="x", tasks=(NAME,)).tasks == (str(task_file(NAME)),)
    with pytest.raises(ValueError, match="not found"):
        LoopConfig(out="x", tasks=("no-such-file",))
