"""Browser temporary folders: a process killed with SIGKILL leaves no profile folder in the system temp folder
for good. Everything its browsers made is inside its own folder, which the next process to start a browser
removes; a running process's folder is never touched."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from venuskit.envs.browser import scratch

# Start a browser, open a page, print this process's folder and wait to be killed.
KILLED = """
import sys
from venuskit.envs.browser import BrowserEnv, scratch
env = BrowserEnv()
env.reset({"start_url": "about:blank"})
print(scratch.run_dir(), flush=True)
sys.stdin.read()
"""
# Start a browser and close it cleanly.
CLEAN = """
from venuskit.envs.browser import BrowserEnv
with BrowserEnv() as env:
    env.reset({"start_url": "about:blank"})
"""


def _python(code: str, tmp: Path) -> subprocess.CompletedProcess:
    env = {**os.environ, "TMPDIR": str(tmp)}  # this test's own system temp folder
    return subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120,
                          check=False)  # fmt: skip


@pytest.mark.browser
def test_a_sigkilled_run_leaves_nothing_after_the_next_start(tmp_path: Path) -> None:
    """SIGKILL to the whole process group (what an OOM killer or a scheduler does): the Playwright driver dies
    with Python and cannot remove the browser profile either."""
    killed = subprocess.Popen([sys.executable, "-c", KILLED], env={**os.environ, "TMPDIR": str(tmp_path)},
                              stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, start_new_session=True)  # fmt: skip
    left = Path(killed.stdout.readline().strip())
    os.killpg(killed.pid, signal.SIGKILL)
    killed.wait(timeout=30)
    assert left.parent == tmp_path / scratch.ROOT_NAME
    # What the killed run left is all inside its folder: a Playwright profile, the env's downloads folder.
    names = [p.name for p in left.iterdir()]
    assert any(n.startswith("playwright_chromiumdev_profile-") for n in names), names
    assert any(n.startswith("venuskit-browser-") for n in names), names
    assert [p.name for p in tmp_path.iterdir()] == [scratch.ROOT_NAME]

    clean = _python(CLEAN, tmp_path)
    assert clean.returncode == 0, clean.stderr
    assert list(tmp_path.iterdir()) == [tmp_path / scratch.ROOT_NAME]
    assert list((tmp_path / scratch.ROOT_NAME).iterdir()) == []  # the stale folder swept, its own removed


def test_the_sweep_spares_the_folder_of_a_live_process(tmp_path: Path) -> None:
    base = tmp_path / scratch.ROOT_NAME
    base.mkdir()
    holder = subprocess.Popen([sys.executable, "-c", f"""
import os, sys, tempfile
tempfile.tempdir = {str(tmp_path)!r}
from venuskit.envs.browser import scratch
print(scratch.run_dir(), flush=True)
sys.stdin.read()
"""], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)  # fmt: skip
    try:
        live = Path(holder.stdout.readline().strip())
        dead = base / "run-dead"
        dead.mkdir()
        (dead / scratch.LOCK_NAME).touch()  # a lock file nobody holds: its process is gone
        assert scratch.sweep(base) == [dead] and live.is_dir()
    finally:
        holder.communicate("", timeout=30)
    assert not live.exists()  # the live process removed its own folder when it exited
