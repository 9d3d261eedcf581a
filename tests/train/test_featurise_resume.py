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
