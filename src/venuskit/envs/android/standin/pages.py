"""The stand-in's page thread: Playwright's sync API works from the one thread that started it, so every page
operation — the device's commands and an in-process oracle's reads — runs there, one at a time, in order."""

from __future__ import annotations

import queue
import threading
from collections.abc import Callable
from typing import Any


class _Job:
    def __init__(self, fn: Callable[[], Any]) -> None:
        self.fn, self.done = fn, threading.Event()
        self.value: Any = None
        self.error: BaseException | None = None

    def run(self) -> None:
        try:
            self.value = self.fn()
        except BaseException as e:  # noqa: BLE001 - handed to the caller, who raises it in its own thread
            self.error = e
        finally:
            self.done.set()


class PageThread:
    """Runs callables on the thread that called `loop()`."""

    def __init__(self) -> None:
        self._jobs: queue.Queue[_Job | None] = queue.Queue()
        self._owner: int | None = None
        self._stopped = threading.Event()

    def call(self, fn: Callable[[], Any]) -> Any:
        """fn() on the page thread; its exception is raised here."""
        if threading.get_ident() == self._owner:
            return fn()
        if self._stopped.is_set():
            raise RuntimeError("The stand-in device has been shut down.")
        job = _Job(fn)
        self._jobs.put(job)
        while not job.done.wait(0.5):
            if self._stopped.is_set():
                raise RuntimeError("The stand-in device shut down while a command was running.")
        if job.error is not None:
            raise job.error
        return job.value

    def loop(self, boot: Callable[[], None], shutdown: Callable[[], None], ready: threading.Event) -> None:
        """Serve jobs until `stop()`: `boot` first (its error ends the loop at once), `shutdown` last."""
        self._owner = threading.get_ident()
        try:
            boot()
            ready.set()
            while (job := self._jobs.get()) is not None:
                job.run()
        finally:
            self._stopped.set()
            ready.set()
            try:
                shutdown()
            finally:
                while not self._jobs.empty():  # callers that queued behind the stop: release them
                    leftover = self._jobs.get_nowait()
                    if leftover is not None:
                        leftover.error = RuntimeError("The stand-in device shut down.")
                        leftover.done.set()

    def stop(self) -> None:
        self._jobs.put(None)


class Remote:
    """A Playwright object that lives on the page thread, used from another thread: each attribute read and each
    call runs there, and Playwright objects it returns come back wrapped the same way. What the in-process oracle
    reads the stand-in's page through."""

    def __init__(self, get: Callable[[], Any], pages: PageThread) -> None:
        self._get, self._pages = get, pages

    def __getattr__(self, name: str) -> Any:
        if name.startswith("_"):
            raise AttributeError(name)
        value = self._pages.call(lambda: getattr(self._get(), name))
        if callable(value):
            return lambda *a, **k: _wrap(self._pages.call(lambda: value(*a, **k)), self._pages)
        return _wrap(value, self._pages)


def _wrap(value: Any, pages: PageThread) -> Any:
    if type(value).__module__.startswith("playwright."):
        return Remote(lambda: value, pages)
    return value
