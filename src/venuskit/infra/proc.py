"""Process trees and their memory, through psutil: find a process family, measure it, kill it.

Chromium is a tree (browser, zygotes, renderers, GPU and utility processes), and so are a Playwright driver,
a vLLM server and a world server run in its own process. Memory figures here are summed over a tree:
- RSS counts a shared page once per process that maps it, so it overstates what forked processes cost;
- PSS divides each shared page among its sharers, so the sum is what the tree costs the machine;
- the peak (VmHWM) is the most RSS one process ever held, which only the kernel knows after the fact.

Every function tolerates processes that exit while it looks at them. `Watchdog` ends calls that wait on a
process that hangs (a browser, an X server), by killing it.
"""

from __future__ import annotations

import contextlib
import os
import resource
import signal
import threading
import time
from collections.abc import Callable, Iterable
from typing import NamedTuple

import psutil

MB = 1024 * 1024
_GONE = (psutil.NoSuchProcess, psutil.AccessDenied, psutil.ZombieProcess, ProcessLookupError, PermissionError)


class ProcInfo(NamedTuple):
    ppid: int
    argv: list[str]


def proc_table() -> dict[int, ProcInfo]:
    """pid -> (parent pid, argv) for every process this user can see."""
    table: dict[int, ProcInfo] = {}
    for p in psutil.process_iter(["ppid", "cmdline"]):
        info = p.info
        if info.get("ppid") is not None:
            table[p.pid] = ProcInfo(info["ppid"], list(info.get("cmdline") or []))
    return table


def cpu_s() -> float:
    """User + system CPU seconds of this process and its reaped descendants (a pool's workers once it has joined
    them, their browsers): the CPU a run cost, beside its wall time."""
    me, kids = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return me.ru_utime + me.ru_stime + kids.ru_utime + kids.ru_stime


def process_tree(root: int, table: dict[int, ProcInfo] | None = None) -> list[int]:
    """`root` and all its descendants (root first), from `table` or a fresh `proc_table()`."""
    table = table if table is not None else proc_table()
    children: dict[int, list[int]] = {}
    for pid, (ppid, _) in table.items():
        children.setdefault(ppid, []).append(pid)
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo.extend(children.get(pid, []))
    return out


def children(pid: int) -> list[int]:
    """Every descendant of `pid` (not `pid` itself)."""
    return process_tree(pid)[1:]


def find_by_tag(tag: str, table: dict[int, ProcInfo] | None = None) -> list[int]:
    """Processes with `tag` as one whole argument of their command line (a marker switch such as
    `--venuskit-env=3f2a…` given at launch), in pid order."""
    table = table if table is not None else proc_table()
    return sorted(pid for pid, info in table.items() if tag in info.argv)


def alive(pid: int | None) -> bool:
    """Whether `pid` runs (a zombie waiting for its parent does not)."""
    if not pid:
        return False
    try:
        return psutil.Process(pid).status() not in (psutil.STATUS_ZOMBIE, psutil.STATUS_DEAD)
    except _GONE:
        return False


def kill_tree(root: int, sig: int = signal.SIGKILL, table: dict[int, ProcInfo] | None = None) -> list[int]:
    """Send `sig` to `root` and all its descendants (found first, so children reparented by the kill are
    still reached). Returns the pids signalled. Safe from any thread: it only reads /proc and sends signals."""
    sent = []
    for pid in process_tree(root, table):
        try:
            os.kill(pid, sig)
            sent.append(pid)
        except (ProcessLookupError, PermissionError):  # already gone
            pass
    return sent


def rss_mb(pids: Iterable[int] | None = None) -> float:
    """Summed resident set size, in MB, of `pids` (default: this process and its descendants)."""
    total = 0
    for pid in process_tree(os.getpid()) if pids is None else pids:
        with contextlib.suppress(*_GONE):
            total += psutil.Process(pid).memory_info().rss
    return total / MB


def pss_mb(pids: Iterable[int] | None = None) -> float:
    """Summed proportional set size, in MB (shared pages divided among their sharers): what the processes
    cost the machine together. Default: this process and its descendants."""
    total = 0
    for pid in process_tree(os.getpid()) if pids is None else pids:
        try:
            total += psutil.Process(pid).memory_full_info().pss
        except (*_GONE, AttributeError):  # AttributeError: a kernel without smaps (no pss field)
            pass
    return total / MB


def peak_rss_mb(pid: int | None = None) -> float:
    """The highest RSS `pid` (default: this process) ever had, in MB (VmHWM from /proc; 0.0 if it is gone)."""
    try:
        with open(f"/proc/{pid or os.getpid()}/status", "rb") as fh:
            for line in fh:
                if line.startswith(b"VmHWM:"):
                    return int(line.split()[1]) / 1024
    except OSError:
        pass
    return 0.0


class Watchdog:
    """Ends calls that hang: `on_fire` runs when an armed deadline passes (it kills the process the call waits on:
    a hung renderer or X server never answers on its own), and `on_stuck`, if given, `stuck_s` later if the call
    is still running (killing the process did not end it: the last resort, e.g. killing a Playwright driver that
    lost track of the call). One thread per watchdog, armed and disarmed around every guarded call (a
    threading.Timer per call started a thread each time, three per browser step). Not re-entrant: one guarded
    call at a time. Both callbacks run on the watchdog's thread, under its lock, so they must only send signals."""

    IDLE_EXIT_S = 30.0  # an idle thread exits (and is restarted by the next arm), so an owner that is never
    # closed does not hold a thread, and through it the owner, forever

    def __init__(self, on_fire: Callable[[], None], on_stuck: Callable[[], None] | None = None, stuck_s: float = 5.0,
                 name: str = "venuskit-watchdog") -> None:  # fmt: skip
        self._on_fire, self._on_stuck, self.stuck_s, self._name = on_fire, on_stuck, stuck_s, name
        self._cond = threading.Condition()
        self._deadline: float | None = None
        self._wake_at = 0.0  # when the thread's current wait ends
        self._fired = self._stopped = False
        self._thread: threading.Thread | None = None

    def arm(self, budget_s: float) -> None:
        with self._cond:
            self._deadline, self._fired, self._stopped = time.monotonic() + budget_s, False, False
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name=self._name, daemon=True)
                self._thread.start()
            elif self._deadline < self._wake_at:  # else it wakes in time anyway: waking it costs ~0.3 ms a step
                self._cond.notify()

    def disarm(self) -> bool:
        """Stop the clock. True if it had fired (the process has been killed)."""
        with self._cond:
            self._deadline = None
            return self._fired

    def stop(self) -> None:
        """Let the thread exit now (the owner is closed)."""
        with self._cond:
            self._deadline, self._stopped = None, True
            self._cond.notify()

    def _run(self) -> None:
        with self._cond:
            while not self._stopped:
                now = time.monotonic()
                if self._deadline is None:
                    self._wake_at = now + self.IDLE_EXIT_S
                    if not self._cond.wait(self.IDLE_EXIT_S) and self._deadline is None:
                        break
                    continue
                if self._deadline > now:
                    self._wake_at = self._deadline
                    self._cond.wait(self._deadline - now)
                    continue
                # Under the lock, so disarm() cannot miss that it fired.
                if not self._fired:
                    self._deadline, self._fired = time.monotonic() + self.stuck_s, True
                    self._on_fire()
                    if self._on_stuck is None:
                        self._deadline = None
                else:
                    self._deadline = None
                    if self._on_stuck is not None:
                        self._on_stuck()
            self._thread, self._wake_at = None, 0.0
