"""The judge's training sets draw synthesised tasks of the training split (`venus verify train-judge --tasks`), and
a held-out synthesised task only ever reaches a held-out set."""

from __future__ import annotations

from pathlib import Path

from venuskit.eval.verify_bench.world_set import pick_tasks
from venuskit.flywheel.judge import check_training_items
from venuskit.tasks import spec

FIXTURE = Path(__file__).with_name("two_synth_tasks.toml")
TRAIN_ID, HELD_ID = "synth.12366989eb47", "synth.0000000000aa"


def test_synthesised_tasks_join_the_pool_of_their_split_only(tmp_path):
    text = FIXTURE.read_text(encoding="utf-8")
    start = text.index('[[task]]\nid = "synth.12366989eb47"')
    end = text.index("[[task]]", start + 1) if "[[task]]" in text[start + 1:] else len(text)
    held = text[start:end].replace(TRAIN_ID, HELD_ID).replace('"split:train"', '"split:heldout"')
    (tmp_path / "held.toml").write_text(held, encoding="utf-8")
    before = {t for t, _, _ in pick_tasks(400, 0, split="train", surfaces=("browser",))}
    try:
        spec.register_file(FIXTURE)
        spec.register_file(tmp_path / "held.toml")
        train = pick_tasks(400, 0, split="train", surfaces=("browser",))
        heldout = {t for t, _, _ in pick_tasks(400, 0, split="heldout", surfaces=("browser",))}
        check_training_items([{"id": t, "task": t, "seed": s} for t, s, _ in train])  # every pick may train
    finally:  # registered tasks are process-wide
        spec.unregister(["synth.68f957eba472", TRAIN_ID, HELD_ID])
    picked = {t for t, _, _ in train}
    assert TRAIN_ID in picked and TRAIN_ID not in before
    assert HELD_ID not in picked and HELD_ID in heldout and TRAIN_ID not in heldout
