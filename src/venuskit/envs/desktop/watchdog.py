"""The watchdog of the desktop env: a hung X server never answers, so a python-xlib call would wait forever."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable


class Deadline:
    """Runs `on_fire` (kill the X server) if an armed call is still running after its budget: a hung X server
    never answers, and a python-xlib call would wait forever. One thread per env, armed around each guarded call."""

    def __init__(self, on_fire: Callable[[], None]) -> None:
        self._on_fire, self._cond = on_fire, threading.Condition()
        self._deadline: float | None = None
        self._fired = self._stopped = False
        self._thread: threading.Thread | None = None

    def arm(self, budget_s: float) -> None:
        with self._cond:
            self._deadline, self._fired = time.monotonic() + budget_s, False
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="venuskit-desktop-watchdog", daemon=True)
                self._thread.start()
            self._cond.notify()

    def disarm(self) -> bool:
        with self._cond:
            self._deadline = None
            return self._fired

    def stop(self) -> None:
        with self._cond:
            self._stopped, self._deadline = True, None
            self._cond.notify()

    def _run(self) -> None:
        with self._cond:
            while not self._stopped:
                if self._deadline is None:
                    self._cond.wait()
                    continue
                left = self._deadline - time.monotonic()
                if left > 0:
                    self._cond.wait(left)
                    continue
                self._deadline, self._fired = None, True
                self._on_fire()
