"""The episode store: atomic writes, resume after a crash, tolerant loading."""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from record_helpers import make_png, png_pixel, record_episode

from venuskit.actions.types import Click, Point, TakeNote
from venuskit.record import EpisodeStore, EpisodeStoreError, EpisodeWriter, iter_episodes, load_episode
from venuskit.record.episode import Episode, Outcome, Step


def new_episode(episode_id: str = "ep1") -> Episode:
    return Episode(episode_id=episode_id, task={"goal": "Open settings"}, surface="mobile", screen=(64, 48))


def click_step(i: int) -> Step:
    return Step(index=i, screenshot=None, raw_output=f"<think>{i}</think><action>Click(point=(1, 2))</action>",
                thought=str(i), action=Click(point=Point(0.25, 0.5)), info={"n": i})  # fmt: skip


def test_round_trip_of_steps_pngs_and_outcome(tmp_path):
    with EpisodeWriter.create(tmp_path, new_episode()) as w:
        stored = w.add_step(click_step(0), make_png(color=(10, 20, 30)))
        w.add_step(Step(index=1, screenshot=None, action=TakeNote(content="price: 12 €")), make_png())
        w.add_step(Step(index=2, screenshot=None, error={"type": "EnvError", "message": "no screenshot"}), None)
        w.finish(Outcome(terminated=True, reason="finished", answer="done"))
    assert stored.screenshot == "step_0000.png"
    ep = load_episode(tmp_path / "ep1")
    assert ep.problems == []
    assert [s.index for s in ep.steps] == [0, 1, 2]
    assert ep.steps[0].action == Click(point=Point(0.25, 0.5)) and ep.steps[0].info == {"n": 0}
    assert ep.steps[1].action == TakeNote(content="price: 12 €")
    assert ep.steps[2].screenshot is None and ep.steps[2].error["message"] == "no screenshot"
    assert png_pixel((tmp_path / "ep1" / "step_0000.png").read_bytes(), 3, 3) == (10, 20, 30)
    assert ep.finished and ep.outcome.reason == "finished" and ep.outcome.answer == "done"
    assert ep.created and ep.goal == "Open settings" and ep.screen == (64, 48)
    manifest = json.loads((tmp_path / "ep1" / "manifest.json").read_text())
    assert "steps" not in manifest and "problems" not in manifest and manifest["format"] == 1


def test_add_step_refuses_bad_input_and_leaves_nothing_behind(tmp_path):
    with EpisodeWriter.create(tmp_path, new_episode()) as w:
        with pytest.raises(ValueError, match="out of order; the next step of this episode is 0"):
            w.add_step(click_step(1), make_png())
        with pytest.raises(ValueError, match="not PNG data"):
            w.add_step(click_step(0), b"GIF89a")
        bad = click_step(0)
        bad.info = {"blob": b"\x00"}
        with pytest.raises(ValueError, match="JSON cannot store"):
            w.add_step(bad, make_png())
        assert sorted(p.name for p in (tmp_path / "ep1").iterdir()) == [".lock", "manifest.json", "steps.jsonl"]
        w.add_step(click_step(0), make_png())
        assert w.next_index == 1


def test_create_refuses_existing_episode_and_unsafe_ids(tmp_path):
    EpisodeWriter.create(tmp_path, new_episode()).close()
    with pytest.raises(FileExistsError, match="EpisodeWriter.open"):
        EpisodeWriter.create(tmp_path, new_episode())
    with pytest.raises(ValueError, match="cannot name a folder"):
        EpisodeWriter.create(tmp_path, new_episode("../escape"))


def test_update_manifest_persists_and_refuses_unknown_fields(tmp_path):
    with EpisodeWriter.create(tmp_path, new_episode()) as w:
        w.update_manifest(verdicts={"contract": {"passed": True}}, outcome={"truncated": True, "reason": "step_limit"})
        with pytest.raises(ValueError, match="Unknown manifest field"):
            w.update_manifest(stepz=[])
    ep = load_episode(tmp_path / "ep1")
    assert ep.verdicts == {"contract": {"passed": True}}
    assert ep.outcome.truncated and ep.outcome.reason == "step_limit" and not ep.finished


def test_one_writer_at_a_time(tmp_path):
    w = EpisodeWriter.create(tmp_path, new_episode())
    with pytest.raises(EpisodeStoreError, match="Another process is writing"):
        EpisodeWriter.open(tmp_path / "ep1")
    w.close()
    EpisodeWriter.open(tmp_path / "ep1").close()


def test_open_repairs_torn_line_orphan_png_and_temp_files(tmp_path):
    d = record_episode(tmp_path, [("a", None, None), ("b", None, None)])
    with open(d / "steps.jsonl", "ab") as f:
        f.write(b'{"index": 2, "screenshot": "step_0002.png", "raw_out')  # a crash mid-line
    (d / "step_0002.png").write_bytes(make_png())
    (d / "step_0007.png").write_bytes(make_png())
    (d / ".step_0003.png.999.tmp").write_bytes(b"\x89PNG partial")
    (d / ".manifest.json.999.tmp").write_bytes(b'{"episode_id": ')

    before = load_episode(d)  # loading is read-only and tolerant
    assert [s.index for s in before.steps] == [0, 1]
    assert any("torn line" in p for p in before.problems)
    assert (d / "step_0007.png").exists()

    with EpisodeWriter.open(d) as w:
        assert w.next_index == 2
        assert len(w.recovered) == 5, w.recovered
        w.add_step(click_step(2), make_png(color=(1, 2, 3)))
    after = load_episode(d)
    assert after.problems == [] and [s.index for s in after.steps] == [0, 1, 2]
    names = sorted(p.name for p in d.iterdir())
    assert names == [".lock", "manifest.json", "step_0000.png", "step_0001.png", "step_0002.png", "steps.jsonl"]
    assert png_pixel((d / "step_0002.png").read_bytes(), 0, 0) == (1, 2, 3)


def test_load_reports_missing_screenshots_and_bad_lines(tmp_path):
    d = record_episode(tmp_path, [("a", None, None), ("b", None, None), ("c", None, None)])
    (d / "step_0001.png").unlink()
    lines = (d / "steps.jsonl").read_text().splitlines()
    lines[2] = "{not json"
    (d / "steps.jsonl").write_text("\n".join(lines) + "\n")
    ep = load_episode(d)
    assert [s.index for s in ep.steps] == [0, 1]
    assert "Step 1: screenshot step_0001.png is missing." in ep.problems
    assert any("line 3 is not a valid step" in p for p in ep.problems)
    with pytest.raises(EpisodeStoreError, match="Cannot resume"):
        EpisodeWriter.open(d)  # a damaged complete line is not something to silently drop


def test_load_of_a_non_episode_is_a_clear_error(tmp_path):
    with pytest.raises(EpisodeStoreError, match="not an episode folder"):
        load_episode(tmp_path)


def test_store_lists_and_iterates_episodes(tmp_path):
    store = EpisodeStore(tmp_path / "runs")
    assert store.ids() == [] and list(store) == []
    for name in ("b", "a"):
        with store.create(new_episode(name)) as w:
            w.add_step(click_step(0), make_png())
    (tmp_path / "runs" / "not-an-episode").mkdir()
    assert store.ids() == ["a", "b"]
    assert [e.episode_id for e in iter_episodes(tmp_path / "runs")] == ["a", "b"]
    assert store.load("a").steps[0].thought == "0"
    with store.open("a") as w:
        assert w.dir == tmp_path / "runs" / "a"
        steps = w.load_steps()
        assert [s.index for s in steps] == [0] and w.read_png(steps[0]).startswith(b"\x89PNG")


# ---- crash safety: SIGKILL a writer at random points and resume ---------------------------------

CHILD = r"""
import io, sys
from pathlib import Path
from PIL import Image
from venuskit.actions.types import Click, Point
from venuskit.record.episode import Episode, Outcome, Step
from venuskit.record.store import EpisodeWriter

root, limit = Path(sys.argv[1]), int(sys.argv[2])
d = root / "crash"
if (d / "manifest.json").exists():
    w = EpisodeWriter.open(d)
    w.update_manifest(config={"recorded": w.next_index})  # a run killed twice before this would lag by two
else:
    w = EpisodeWriter.create(root, Episode(episode_id="crash", task={"goal": "g"}, surface="mobile", screen=(40, 30)))
print("ready", flush=True)
while w.next_index < limit:
    i = w.next_index
    buf = io.BytesIO()
    Image.new("RGB", (40, 30), (i % 256, 7, 9)).save(buf, format="PNG")
    w.add_step(Step(index=i, screenshot=None, raw_output="r%d" % i, action=Click(point=Point(0.5, 0.5))), buf.getvalue())
    w.update_manifest(config={"recorded": i + 1})
w.finish(Outcome(terminated=True, reason="finished"))
print("done", flush=True)
"""


def _run_child(root: Path, limit: int, kill_after: float | None) -> bool:
    """Run the writer; SIGKILL it `kill_after` seconds after it is ready. True if it finished."""
    proc = subprocess.Popen([sys.executable, "-c", CHILD, str(root), str(limit)],
                            stdout=subprocess.PIPE, text=True)  # fmt: skip
    assert proc.stdout.readline().strip() == "ready"
    if kill_after is not None:
        time.sleep(kill_after)
        os.kill(proc.pid, signal.SIGKILL)
    out, _ = proc.communicate(timeout=60)
    return "done" in out


def _check_consistent(d: Path) -> int:
    ep = load_episode(d)
    assert ep.problems == [], ep.problems
    assert [s.index for s in ep.steps] == list(range(len(ep.steps)))
    for s in ep.steps:
        assert s.screenshot == f"step_{s.index:04d}.png" and s.raw_output == f"r{s.index}"
        assert png_pixel((d / s.screenshot).read_bytes(), 1, 1) == (s.index % 256, 7, 9)
    recorded = ep.config.get("recorded", 0)
    assert recorded in (len(ep.steps), len(ep.steps) - 1)  # the manifest lags by at most one step
    leftovers = [p.name for p in d.iterdir() if p.name.endswith(".tmp")]
    pngs = sorted(p.name for p in d.glob("step_*.png"))
    assert not leftovers and pngs == [s.screenshot for s in ep.steps]
    return len(ep.steps)


def test_sigkill_at_random_points_always_resumes(tmp_path):
    rng = random.Random(1234)
    limit, seen = 400, []
    for _ in range(8):
        finished = _run_child(tmp_path, limit, kill_after=rng.uniform(0.0, 0.08))
        if finished:
            break
        torn = load_episode(tmp_path / "crash")  # readable before any repair
        assert [s.index for s in torn.steps] == list(range(len(torn.steps)))
        with EpisodeWriter.open(tmp_path / "crash") as w:  # the resume path repairs what the kill left
            n = w.next_index
        assert _check_consistent(tmp_path / "crash") == n
        seen.append(n)
    assert seen == sorted(seen) and seen[-1] > 0, "a resumed run lost steps or never advanced"
    assert _run_child(tmp_path, limit, kill_after=None)
    assert _check_consistent(tmp_path / "crash") == limit
    assert load_episode(tmp_path / "crash").finished
