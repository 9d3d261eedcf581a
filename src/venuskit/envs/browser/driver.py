"""The Playwright driver shared by the envs of one thread, and CDP calls sent together."""

from __future__ import annotations

import asyncio
import contextlib
import inspect
import logging
import os
import threading
from dataclasses import dataclass
from typing import Any

from playwright.sync_api import CDPSession, Playwright, sync_playwright
from playwright.sync_api import Error as PlaywrightError

from venuskit.envs.base import EnvError
from venuskit.envs.browser import scratch
from venuskit.envs.browser.config import DRIVER_MALLOC_ARENA_MAX, DRIVER_NODE_OPTIONS
from venuskit.infra.proc import alive

# ---- one Playwright driver per thread, and the browsers envs share ---------------------------------


@dataclass
class Launched:
    """A Chromium that envs with `BrowserConfig.share_browser` share: its processes, temporary folders, users."""

    browser: Any
    root_pid: int | None
    browser_pid: int | None
    dirs: tuple[str | None, ...]
    users: int = 1


class Driver:
    """One Playwright driver (a node process) per thread, shared by the envs of that thread: Playwright's sync
    API allows no more. A driver that died (the watchdog kills one whose call hung) is replaced for the
    next env that launches; the envs still holding it move on when they relaunch."""

    _local = threading.local()

    def __init__(self, playwright: Playwright) -> None:
        self.playwright = playwright
        self.pid: int | None = None  # learnt from the first browser it launches (their parent)
        self.users = 0
        self.shared: dict[tuple[str, ...], Launched] = {}  # launch settings -> the browser envs share

    @classmethod
    def acquire(cls) -> Driver:
        driver = getattr(cls._local, "driver", None)
        if driver is None or not driver.alive():
            driver = cls._local.driver = cls(start_playwright())
        driver.users += 1
        return driver

    def alive(self) -> bool:
        return self.pid is None or alive(self.pid)

    def release(self) -> None:
        self.users -= 1
        if self.users > 0:
            return
        if getattr(self._local, "driver", None) is self:
            self._local.driver = None
        with contextlib.suppress(PlaywrightError):  # a killed driver has nothing left to stop
            self.playwright.stop()


class _OneLine(logging.Filter):
    """Playwright logs an error of its dispatcher with its traceback, then raises the same error at the next call,
    where the env classifies it. The usual one is a Ctrl-C or SIGTERM landing while the dispatcher handles a
    reply ("Cannot find command to respond"): a stopped run must end on its one-line message, so the log keeps
    the error's first line only."""

    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info and record.exc_info[1] is not None:
            record.msg, record.args = f"{record.getMessage()}: {first_line(record.exc_info[1])}", None
            record.exc_info, record.exc_text = None, None
        return True


_PLAYWRIGHT_LOG = logging.getLogger("playwright")
if not any(isinstance(f, _OneLine) for f in _PLAYWRIGHT_LOG.filters):
    _PLAYWRIGHT_LOG.addFilter(_OneLine())


def start_playwright() -> Playwright:
    # The driver inherits this process's environment, changed only while it starts: its V8 options, its malloc
    # arenas, and a temporary folder of this process's own (scratch.py) for its browsers' profiles.
    node = os.environ.get("NODE_OPTIONS")
    changes = {"NODE_OPTIONS": f"{node} {DRIVER_NODE_OPTIONS}" if node else DRIVER_NODE_OPTIONS,
               "MALLOC_ARENA_MAX": os.environ.get("MALLOC_ARENA_MAX", DRIVER_MALLOC_ARENA_MAX),
               "TMPDIR": str(scratch.run_dir())}  # fmt: skip
    saved = {name: os.environ.get(name) for name in changes}
    os.environ.update(changes)
    try:
        return sync_playwright().start()
    except PlaywrightError as e:
        raise EnvError(f"Could not start the Playwright driver: {first_line(e)}") from e
    finally:
        for name, value in saved.items():
            if value is None:
                del os.environ[name]
            else:
                os.environ[name] = value


def first_line(e: BaseException) -> str:
    return (str(e).strip().splitlines() or [type(e).__name__])[0]


def send_together(session: CDPSession, calls: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    """Send several CDP commands on `session` without waiting for each answer, and return each answer or the
    error it raised, in order: one round trip to the driver for all of them. The public sync API sends one
    command per call, so this runs the async implementation on the sync wrapper's own event loop; where a
    Playwright release changes that machinery the commands go one after another (slower, same answers), and
    a test fails until this is brought up to date."""
    impl, run = getattr(session, "_impl_obj", None), getattr(session, "_sync", None)
    if impl is None or run is None or not inspect.iscoroutinefunction(getattr(impl, "send", None)):
        return [_send_one(session, method, params) for method, params in calls]

    async def together() -> list[Any]:
        return await asyncio.gather(*(impl.send(m, p, None) for m, p in calls), return_exceptions=True)

    return run(together())  # errors are the classes the sync API raises (it re-exports them)


def _send_one(session: CDPSession, method: str, params: dict[str, Any]) -> Any:
    try:
        return session.send(method, params)
    except PlaywrightError as e:
        return e
