"""The temporary folders of the browsers this process runs, all inside one folder per process:

    <system temp>/venuskit-browsers/run-XXXX/    Playwright's profile folders (the driver's TMPDIR), Chromium's
                                                 own temporary files, each env's downloads folder

A browser closed cleanly removes what it made, and the process removes its folder when it exits. A process
killed with SIGKILL cannot: its folder stays, and the next process that starts a browser removes it. Each
folder holds a lock file its process keeps locked while it lives (the kernel drops the lock when it dies), so
the sweep never touches the folder of a running process, whatever its pid.
"""

from __future__ import annotations

import atexit
import contextlib
import fcntl
import os
import shutil
import tempfile
import threading
import time
from pathlib import Path

ROOT_NAME = "venuskit-browsers"
LOCK_NAME = ".owner.lock"
MAKING_STALE_S = 600.0  # a folder still being made after this long belongs to a process killed mid-start

_lock = threading.Lock()
_mine: tuple[int, Path, object] | None = None  # (pid, folder, its open lock file), made on first use


def root() -> Path:
    return Path(tempfile.gettempdir()) / ROOT_NAME


def run_dir() -> Path:
    """This process's folder (made, and stale folders of dead processes swept, on the first call)."""
    global _mine
    with _lock:
        if _mine is not None and _mine[0] == os.getpid():  # a forked child makes its own
            return _mine[1]
        base = root()
        base.mkdir(mode=0o700, exist_ok=True)
        sweep(base)
        # Made under a name the sweep skips, locked, then renamed: a folder is never visible as `run-*`
        # without its lock held (else another process's sweep could take the free lock and remove it).
        making = Path(tempfile.mkdtemp(prefix="making-", dir=base))
        lock = open(making / LOCK_NAME, "wb")  # noqa: SIM115 - held open for the process's lifetime
        fcntl.flock(lock.fileno(), fcntl.LOCK_EX)
        folder = making.with_name("run-" + making.name.removeprefix("making-"))
        making.rename(folder)
        _mine = (os.getpid(), folder, lock)
        atexit.register(_remove, folder)
        return folder


def sweep(base: Path | None = None) -> list[Path]:
    """Remove the folders of processes that are gone; returns them."""
    removed = []
    base = base or root()
    stale_making = [f for f in base.glob("making-*") if _age_s(f) > MAKING_STALE_S]  # killed while starting
    for folder in sorted([*base.glob("run-*"), *stale_making]):
        if folder.is_dir() and not _owned(folder):
            shutil.rmtree(folder, ignore_errors=True)
            removed.append(folder)
    return removed


def _age_s(path: Path) -> float:
    try:
        return time.time() - path.stat().st_mtime
    except OSError:
        return 0.0


def _owned(folder: Path) -> bool:
    """Whether a live process holds the folder's lock (a folder being made has no lock file yet: owned)."""
    try:
        fd = os.open(folder / LOCK_NAME, os.O_RDONLY)
    except FileNotFoundError:
        return True  # between mkdtemp and the lock: its process is starting
    except OSError:
        return True
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        return True
    finally:
        os.close(fd)  # closing drops a lock we took
    return False


def _remove(folder: Path) -> None:
    if _mine is not None and _mine[1] == folder and _mine[0] == os.getpid():
        shutil.rmtree(folder, ignore_errors=True)
        with contextlib.suppress(OSError):
            _mine[2].close()  # type: ignore[attr-defined]
