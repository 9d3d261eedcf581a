"""Rows from recorded episodes: formats, filters, rejections, dedup, mix, datasets layout."""

from __future__ import annotations

import json

import pytest
from train_fixtures import SYSTEM, record_episodes, screen_png

from venuskit.actions.types import Click, Point
from venuskit.record.episode import Step
from venuskit.record.store import EpisodeWriter
from venuskit.train import data as D


def test_sft_and_rl_rows_from_recorded_episodes(tmp_path):
    dirs = record_episodes(tmp_path, 2, steps=3)
    sft, rej = D.build_rows(dirs, "sft", n_img=1)
    assert len(sft) == 6 and rej.total == 0
    last = sft[2]
    assert last["prompt"][0]["content"][0]["text"] == SYSTEM
    assert len(last["images"]) == 2  # n_img=1 past screenshot + the current one
    assert last["completion"][0]["content"][0]["text"].startswith("<think>ok</think>\n<action>Click(point=(")
    rl, _ = D.build_rows(dirs, "rl")
    gt = json.loads(rl[0]["gt_actions"])
    assert gt[0]["type"] == "Click" and json.loads(rl[0]["gt_boxes"]) == [None]
    assert {r["domain"] for r in rl} == {"mobile"}


def test_bad_rows_are_rejected_with_a_count_per_reason(tmp_path):
    dirs = record_episodes(tmp_path, 2, steps=2)
    (dirs[0] / "step_0001.png").unlink()  # a missing screenshot
    w = EpisodeWriter.open(dirs[1])
    w.add_step(Step(index=2, screenshot=None, raw_output="<action>Clik(</action>", action=None), screen_png(0.5, 0.5))
    w.close()
    rows, rej = D.build_rows(dirs, "sft")
    assert len(rows) == 3
    assert rej.counts == {"missing_image": 1, "unparsable_gt_action": 1}
    bad_row = dict(rows[0], completion=[{"role": "assistant", "content": [{"type": "text", "text": "Click here"}]}])
    kept = D.validate_rows([bad_row, rows[0]], rej, "sft")
    assert kept == [rows[0]] and rej.counts["unparsable_gt_action"] == 2


def test_verdict_filter_keeps_successes_and_good_prefixes(tmp_path):
    ok = record_episodes(tmp_path, 1, seed=1, steps=3, verdict={"verdict": "success"})
    prefix = record_episodes(tmp_path, 1, seed=2, steps=3, verdict={"verdict": "fail", "good_prefix": 2})
    bad = record_episodes(tmp_path, 1, seed=3, steps=3, verdict="fail")
    rows, rej = D.build_rows(ok + prefix + bad, "sft", verdict=D.VerdictFilter(slot="contract"))
    assert len(rows) == 3 + 2
    assert rej.counts == {"after_good_prefix": 1, "verdict": 3}


def test_an_uncertain_verdict_never_trains(tmp_path):
    """SGV's `uncertain` (no rule and no judge could decide) is neither a success nor a failure: its episode is
    dropped under its own count, and a filter asked to accept it is refused with a clear message."""
    ok = record_episodes(tmp_path, 1, seed=1, steps=2, verdict={"verdict": "completed"})
    unsure = record_episodes(tmp_path, 1, seed=2, steps=3, verdict={"verdict": "uncertain", "forced": "completed"})
    rows, rej = D.build_rows(ok + unsure, "sft", verdict=D.VerdictFilter(slot="contract"))
    assert len(rows) == 2 and rej.counts == {"verdict_uncertain": 3}
    with pytest.raises(ValueError, match="may not accept 'uncertain'"):
        D.VerdictFilter(accept=("completed", "uncertain"))


def test_dedup_and_domain_mix(tmp_path):
    dirs = record_episodes(tmp_path, 1, steps=2)
    rows, _ = D.build_rows(dirs + dirs, "rl")  # the same episode twice
    assert len(rows) == 2
    g = D.grounding_row(str(dirs[0] / "step_0000.png"), "the red square", [0.1, 0.1, 0.3, 0.3])
    mixed = D.mix_domains(rows + [g], {"mobile": 1, "grounding": 3}, total=8, seed=0)
    assert sum(r["domain"] == "grounding" for r in mixed) == 6
    with pytest.raises(ValueError, match="no rows for them"):
        D.mix_domains(rows, {"captcha": 1})


def test_dataset_has_images_as_a_top_level_column(tmp_path):
    import datasets

    rows, _ = D.build_rows(record_episodes(tmp_path, 1), "sft")
    ds = D.to_dataset(rows)
    assert isinstance(ds.features["images"], (datasets.Sequence, datasets.List))
    first = ds[0]["images"][0]
    assert first.size == (112, 84)  # decoded to a PIL image, not a dict nested in the messages
    with pytest.raises(ValueError, match="No training rows"):
        D.to_dataset([])


def test_grounding_rows_validate_answers():
    rej = D.Rejections()
    good = D.grounding_row(None, "x", [0, 0, 1, 1], answer="[500,500]")
    good["images"] = [b"png"]
    bad = dict(good, completion=[{"role": "assistant", "content": [{"type": "text", "text": "there"}]}])
    assert D.validate_rows([good, bad], rej, "sft") == [good]
    assert rej.counts == {"unparsable_gt_action": 1}
    _ = Click(point=Point(0.5, 0.5))
