"""Atomic writes: a reader never sees part of a file; a failed write leaves the old file and no temp file."""

from __future__ import annotations

import errno
import json
import os
import threading
from pathlib import Path

import pytest

from venuskit.infra import atomic


@pytest.mark.parametrize("durable", [True, False])
def test_write_replaces_whole_file(tmp_path: Path, durable: bool) -> None:
    path = tmp_path / "manifest.json"
    atomic.write_json(path, {"a": "é"}, durable=durable)
    atomic.write_json(path, {"b": [1, 2]}, durable=durable)
    assert json.loads(path.read_text("utf-8")) == {"b": [1, 2]}
    assert "é" in json.dumps(json.loads(atomic.write_json(path, {"a": "é"}, durable=durable).read_text("utf-8")),
                             ensure_ascii=False)  # fmt: skip
    assert sorted(p.name for p in tmp_path.iterdir()) == ["manifest.json"]


def test_durable_write_fsyncs_file_and_directory(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    synced: list[int] = []
    real_fsync = os.fsync
    monkeypatch.setattr(os, "fsync", lambda fd: (synced.append(fd), real_fsync(fd)))
    atomic.write_bytes(tmp_path / "a.bin", b"x", durable=False)
    assert synced == []
    atomic.write_bytes(tmp_path / "a.bin", b"y", durable=True)
    assert len(synced) == 2  # the data, then the directory entry
    atomic.append_line(tmp_path / "log.jsonl", b"{}", durable=True)
    assert len(synced) == 3


def test_failed_write_keeps_old_file_and_leaves_no_temp(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    path = tmp_path / "state.json"
    path.write_bytes(b"old")

    def full_disk(fd: int, data: object) -> int:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(os, "write", full_disk)
    with pytest.raises(OSError, match="No space"):
        atomic.write_bytes(path, b"new", durable=True)
    monkeypatch.undo()
    assert path.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["state.json"]


def test_append_line_adds_complete_lines(tmp_path: Path) -> None:
    path = tmp_path / "steps.jsonl"
    atomic.append_line(path, b'{"i": 0}\n', durable=True)
    atomic.append_line(path, b'{"i": 1}', durable=False)
    assert path.read_bytes() == b'{"i": 0}\n{"i": 1}\n'


def test_concurrent_writers_never_show_a_partial_file(tmp_path: Path) -> None:
    path = tmp_path / "shared.bin"
    payloads = [bytes([i]) * 200_000 for i in range(4)]
    atomic.write_bytes(path, payloads[0], durable=False)
    seen: set[bytes] = set()
    stop = threading.Event()

    def reader() -> None:
        while not stop.is_set():
            data = path.read_bytes()
            seen.add(data[:1] * len(data))
            assert data in payloads

    t = threading.Thread(target=reader)
    t.start()
    writers = [threading.Thread(target=lambda p=p: [atomic.write_bytes(path, p, durable=False) for _ in range(20)])
               for p in payloads]  # fmt: skip
    for w in writers:
        w.start()
    for w in writers:
        w.join()
    stop.set()
    t.join()
    assert path.read_bytes() in payloads
    assert [p.name for p in tmp_path.iterdir()] == ["shared.bin"]
