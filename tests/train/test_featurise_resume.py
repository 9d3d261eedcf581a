"""Featurising tens of thousands of screens outlasts a sitting: an interrupted read keeps what it read, and the
rerun reads only the rest."""

from pathlib import Path

import pytest
from train_fixtures import grounding_rows

from venuskit.models.nano import NanoModel, Reader
from venuskit.models.nano.net import NanoNet
from venuskit.train.nano.data import FeatureCache, examples


class CountingModel:
    """A real featurizer that counts its reads and can be told to break after `stop_after` of them."""

    def __init__(self, stop_after: int | None = None) -> None:
        self.model = NanoModel(NanoNet(), reader=Reader())
        self.reads, self.stop_after = 0, stop_after

    def features(self, inp):  # noqa: ANN001, ANN201 - the NanoModel signature
        if self.stop_after is not None and self.reads == self.stop_after:
            raise KeyboardInterrupt
        self.reads += 1
        return self.model.features(inp)


def test_an_interrupted_read_keeps_its_rows_and_the_rerun_reads_only_the_rest(tmp_path: Path) -> None:
    rows = grounding_rows(tmp_path / "screens", 6)
    saved: list[int] = []
    broken = CountingModel(stop_after=4)
    with pytest.raises(KeyboardInterrupt):
        examples(rows, broken, FeatureCache(tmp_path / "features.pkl"), on_save=lambda: saved.append(1))
    assert len(FeatureCache(tmp_path / "features.pkl").data) == 4  # the four rows read before the interrupt
    assert saved, "the caller's own cache (the reader's) is saved too"

    rerun = CountingModel()
    exs, _ = examples(rows, rerun, FeatureCache(tmp_path / "features.pkl"))
    assert rerun.reads == 2 and len(exs) == 6


def test_a_long_read_saves_as_it_goes(tmp_path: Path) -> None:
    rows = grounding_rows(tmp_path / "screens", 3)
    sizes: list[int] = []
    cache = FeatureCache(tmp_path / "features.pkl")
    examples(rows, CountingModel(), cache, save_every_s=0.0,
             on_save=lambda: sizes.append(len(FeatureCache(tmp_path / "features.pkl").data)))  # fmt: skip
    assert sizes[0] == 1  # the first row is on disk before the run goes on (a zero interval)
    assert sizes[-1] == 3  # and every row at the end


def _list_rows(n_screens: int) -> list[dict]:
    """Two web rows on each of `n_screens` different list screens (text the reader must recognise)."""
    from nano_fixtures import WORDS, list_screen, web_row

    rows = []
    for i in range(n_screens):
        words = [f"{WORDS[(i + k) % len(WORDS)]} {i}" for k in range(4)]
        png, boxes = list_screen(words)
        rows += [web_row(png, f'Open the email "{words[k]}".', boxes[k]) for k in (0, 2)]
    return rows


def _same(a, b) -> bool:  # noqa: ANN001 - two Features
    import numpy as np

    return all(np.array_equal(getattr(a, f), getattr(b, f)) if isinstance(getattr(a, f), np.ndarray)
               else getattr(a, f) == getattr(b, f) for f in a.__dataclass_fields__)  # fmt: skip


@pytest.mark.slow
def test_rows_read_in_two_processes_get_the_features_a_serial_read_gets(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr("venuskit.train.nano.data.PROCESS_MIN_ROWS", 48)  # a short test: 52 rows start processes
    rows = _list_rows(26)
    serial = FeatureCache(None)
    one, _ = examples(rows, NanoModel(NanoNet(), reader=Reader()), serial)
    parent = NanoModel(NanoNet(), reader=Reader())
    two_cache = FeatureCache(tmp_path / "features.pkl")
    two, _ = examples(rows, parent, two_cache, workers=2)
    assert len(two) == len(one) == 52
    assert serial.data.keys() == two_cache.data.keys()
    assert all(_same(serial.data[k], two_cache.data[k]) for k in serial.data)
    assert [e.target.ptr.tolist() for e in two] == [e.target.ptr.tolist() for e in one]  # same order, same targets
    assert len(parent.reader.cache) > 50, "the crops the processes recognised come back to the run's reader"
    assert len(FeatureCache(tmp_path / "features.pkl").data) == 52  # and the features are on disk


@pytest.mark.slow
def test_a_broken_screenshot_in_a_reading_process_is_one_clear_error(tmp_path: Path, monkeypatch) -> None:
    from venuskit.models.nano import NanoError

    monkeypatch.setattr("venuskit.train.nano.data.PROCESS_MIN_ROWS", 48)
    rows = _list_rows(25)
    rows.append({**rows[0], "images": [b"not a png"]})
    with pytest.raises(NanoError) as err:
        examples(rows, NanoModel(NanoNet(), reader=Reader()), FeatureCache(tmp_path / "features.pkl"), workers=2)
    assert "\n" not in str(err.value)


def test_reading_chunks_keep_each_episode_whole() -> None:
    from venuskit.train.nano.data import CHUNK, _chunks

    rows = [{"images": [f"/runs/ep-{e}/step_{i:04d}.png"], "step": i} for e, n in enumerate((5, 30, 7, 20, 3))
            for i in range(n)]  # fmt: skip
    chunks = _chunks(rows)
    assert [r for c in chunks for r in c] == rows  # every row once, in order
    episodes = [{r["images"][0].split("/")[2] for r in c} for c in chunks]
    assert all(not (a & b) for a, b in zip(episodes, episodes[1:], strict=False))  # no episode cut in two
    assert all(len(c) >= CHUNK for c in chunks[:-1])
    in_memory = [{"images": [b"png"]}] * (3 * CHUNK)
    assert [len(c) for c in _chunks(in_memory)] == [CHUNK] * 3
