"""The judge's training rows: made on worker processes they are the rows one process makes, and an episode read
once for its three SGV passes gives the requests three fresh reads give."""

from __future__ import annotations

import numpy as np
import pytest

from venuskit.eval import verify_bench as vb
from venuskit.flywheel.judge import CaptureJudge, build_rows, train_judge
from venuskit.verify.judges import make_judges
from venuskit.verify.sgv import SGVConfig, prepare, verify_episode

TASKS = [("mail.trash_message", 98, "mobile"), ("bank.find_charge", 117, "browser")]
KINDS = ["oracle", "null", "partial", "wrong_target", "noisy_omit"]


@pytest.fixture(scope="module")
def train_set(tmp_path_factory):
    folder = tmp_path_factory.mktemp("judge-rows")
    vb.build_set(folder, tasks=TASKS, kinds=KINDS)
    return folder


def _same(a, b) -> None:
    assert len(a) == len(b) > 0
    assert a.labels == b.labels and a.groups == b.groups and a.bags == b.bags
    assert all(np.array_equal(x, y) for x, y in zip(a.feats, b.feats, strict=True))


@pytest.mark.browser
@pytest.mark.slow
def test_rows_made_by_two_workers_are_the_rows_of_one(train_set):
    one = build_rows(train_set)
    two = build_rows(train_set, workers=2)
    assert set(one) == set(two) == {"keypoints", "steps"}
    _same(one["keypoints"], two["keypoints"])
    _same(one["steps"], two["steps"])
    assert set(one["keypoints"].labels) == {0.0, 1.0}  # completed and failed episodes both teach


@pytest.mark.browser
@pytest.mark.slow
def test_an_episode_prepared_once_is_verified_as_a_fresh_read(train_set):
    index = vb.load_index(train_set)
    oracle = next(i for i in index["items"] if i["kind"] == "oracle")
    folder = train_set / oracle["episode_dir"]
    prepared, rules = prepare(folder), make_judges("ocr,log")
    for judges in (rules, []):
        fresh, again = CaptureJudge(), CaptureJudge()
        a = verify_episode(folder, [*judges, fresh])
        b = verify_episode(prepared, [*judges, again])
        assert a.verdict == b.verdict and [k.status for k in a.keypoints] == [k.status for k in b.keypoints]
        assert [t for t, _ in fresh.asked] == [t for t, _ in again.asked]
        assert [(e.ocr, e.targets, e.urls) for _, e in fresh.asked] == [(e.ocr, e.targets, e.urls) for _, e in again.asked]
    with pytest.raises(ValueError, match="prepared with evidence"):
        verify_episode(prepared, rules, config=SGVConfig(evidence="world"))  # read as it was not prepared


@pytest.mark.browser
@pytest.mark.slow
def test_a_fit_reads_the_rows_kept_in_each_set_it_names(train_set, tmp_path):
    import pickle
    import shutil

    from venuskit.models.judge import model as M
    from venuskit.train.judge import Rows

    one = train_judge(train_set, build=False, out=tmp_path / "one" / "judge.pt")
    kept = train_set / f"judge_rows.v{M.FEATURE_VERSION}.pkl"
    rows = pickle.loads(kept.read_bytes())["keypoints"]
    assert one["rows"]["keypoints"] == len(rows) and any(rows.beside_rules) and not all(rows.beside_rules)
    assert one["out_of_fold"]["keypoints_beside_rules"]["n"] == sum(rows.beside_rules)
    other = tmp_path / "other"
    shutil.copytree(train_set, other)
    few = {"keypoints": rows.take([0, 1, 2]), "steps": Rows()}  # kept rows are read, never made again
    (other / kept.name).write_bytes(pickle.dumps(few))
    two = train_judge(train_set, build=False, out=tmp_path / "two" / "judge.pt", also=[other], fit_seed=3)
    assert two["rows"]["keypoints"] == len(rows) + 3
    card = M.load_card(tmp_path / "two" / "judge.pt")
    assert card.training["config"]["seed"] == 3 and [a["set"] for a in card.training["also"]] == ["other"]
    assert "--also runs/judge-other --fit-seed 3`" in (tmp_path / "two" / "MODEL_CARD.md").read_text()
    with pytest.raises(FileNotFoundError, match="No training set at .*nowhere"):
        train_judge(train_set, build=False, out=tmp_path / "three.pt", also=[tmp_path / "nowhere"])
    with pytest.raises(ValueError, match="named more than once"):  # its rows would count twice
        train_judge(train_set, build=False, out=tmp_path / "four.pt", also=[other, other / ".." / "other"])
    assert not (tmp_path / "four.pt").exists()
