"""The rows stage: world rows tagged with their task and skin, and a row sample spread over the tasks."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from venuskit.flywheel.collect import Job, world_oracle_episodes
from venuskit.flywheel.rows import spread, world_rows


def _rows(counts: dict[str, int]) -> list[dict]:
    return [{"task": task, "step": i} for task, n in counts.items() for i in range(n)]


def test_spread_keeps_every_task_and_balances_them():
    rows = _rows({"big": 40, "mid": 9, "small": 2, "one": 1})
    kept = spread(rows, 12, seed=0)
    per = Counter(r["task"] for r in kept)
    assert len(kept) == 12 and set(per) == {"big", "mid", "small", "one"}
    # The short tasks give every row they have; the others share the rest evenly.
    assert per["small"] == 2 and per["one"] == 1 and abs(per["big"] - per["mid"]) <= 1
    assert [rows.index(r) for r in kept] == sorted(rows.index(r) for r in kept)  # collection order kept
    assert spread(rows, 0, seed=0) == rows and spread(rows, 100, seed=0) == rows
    assert spread(rows, 12, seed=0) == kept and spread(rows, 12, seed=1) != kept


def test_spread_prefers_rows_already_read_and_resumes_as_the_same_sample():
    rows = _rows({f"t{i}": 10 for i in range(6)})
    read = {id(r) for r in rows[:10]}  # every row of t0 was read before the sample was drawn
    kept = spread(rows, 18, seed=3, first=lambda r: id(r) in read)
    assert sum(id(r) in read for r in kept) == 3  # t0's three rows are rows already read
    # Interrupted after reading part of the sample: the rerun draws the same sample.
    half = read | {id(r) for r in kept[::2]}
    assert spread(rows, 18, seed=3, first=lambda r: id(r) in half) == kept


@pytest.mark.browser
def test_world_rows_are_tagged_when_the_run_folder_is_relative(tmp_path: Path, monkeypatch: pytest.MonkeyPatch):
    monkeypatch.chdir(tmp_path)  # `venus nano train --out runs/x`: the index names folders relative to here
    index = world_oracle_episodes(Path("runs/x/world"), [Job("mail.star_message", 0, "browser", skin=3)])
    assert not Path(index[0]["episode_dir"]).is_absolute()
    rows = world_rows(index, relabelled=False)
    assert rows and {(r["task"], r["skin"]) for r in rows} == {("mail.star_message", 3)}
