"""Process trees and memory, on real child processes."""

from __future__ import annotations

import os
import subprocess
import sys
import time
import uuid

from venuskit.infra import proc

# A parent that starts a child holding ~60 MB and both sleep; the tag finds them. The child names a file
# once its 60 MB are written: RSS passes 55 MB while the bytes are still being zeroed (the interpreter's
# shared pages count in full there), so memory is only read once that file exists.
_FAMILY = """
import subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", "import pathlib, sys, time; b = bytearray(60 * 2**20); pathlib.Path(sys.argv[2]).touch(); time.sleep(60)", sys.argv[1], sys.argv[2]])
time.sleep(60)
"""


def _wait_for(predicate, timeout: float = 10.0) -> None:
    end = time.monotonic() + timeout
    while not predicate():
        assert time.monotonic() < end, "timed out"
        time.sleep(0.05)


def test_tree_memory_and_kill(tmp_path) -> None:
    tag = f"--venuskit-test={uuid.uuid4().hex}"
    ready = tmp_path / "allocated"
    parent = subprocess.Popen([sys.executable, "-c", _FAMILY, tag, str(ready)])
    try:
        _wait_for(lambda: len(proc.find_by_tag(tag)) == 2)  # the tag is on both command lines
        (child,) = [p for p in proc.find_by_tag(tag) if p != parent.pid]
        assert proc.process_tree(parent.pid) == [parent.pid, child]
        assert proc.children(parent.pid) == [child]
        _wait_for(ready.exists)
        assert proc.rss_mb([child]) > 55
        assert proc.pss_mb([child]) > 55
        assert proc.peak_rss_mb(child) >= proc.rss_mb([child]) - 1
        assert proc.rss_mb([parent.pid, child]) > proc.rss_mb([child])
        assert proc.alive(child)
        assert sorted(proc.kill_tree(parent.pid)) == sorted([parent.pid, child])
        parent.wait(timeout=10)
        _wait_for(lambda: not proc.alive(child))
        assert proc.find_by_tag(tag) == []
    finally:
        proc.kill_tree(parent.pid)
        parent.wait(timeout=10)


def test_this_process_and_gone_processes() -> None:
    assert proc.rss_mb() > 10 and proc.peak_rss_mb() >= proc.rss_mb([os.getpid()]) - 1
    done = subprocess.Popen([sys.executable, "-c", "pass"])
    done.wait()
    assert not proc.alive(done.pid) and not proc.alive(None)
    assert proc.rss_mb([done.pid]) == 0.0 and proc.peak_rss_mb(done.pid) == 0.0
    assert proc.kill_tree(done.pid) == []
    table = proc.proc_table()
    assert table[os.getpid()].ppid == os.getppid()
    assert os.path.basename(table[os.getpid()].argv[0]).startswith("python")
