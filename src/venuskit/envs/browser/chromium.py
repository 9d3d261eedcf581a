"""One BrowserEnv's Chromium process: launch it (or join the one another env of the thread shares), know its
processes, run calls under a watchdog that kills it when a call hangs, close or kill it, remove its temporary
folders, and measure what it costs.

A call that even a killed browser does not end (the Playwright driver lost track of it) is ended by killing the
driver as well; the envs of that thread then relaunch on a new one (`driver.Driver`).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import tempfile
import uuid
from collections.abc import Callable
from typing import Any

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from venuskit.envs.base import ActionRefused, ActionTimeout, BrowserCrashed, EnvError
from venuskit.envs.browser import scratch
from venuskit.envs.browser.config import (
    BASE_ARGS,
    LOW_MEMORY_ARGS,
    LOW_MEMORY_FEATURES,
    PLAYWRIGHT_FEATURES,
    BrowserConfig,
)
from venuskit.envs.browser.driver import Driver, Launched, first_line
from venuskit.envs.netguard import WEBRTC_ARGS, NetPolicy, proxy_args
from venuskit.infra.proc import Watchdog, alive, kill_tree, proc_table, process_tree, pss_mb, rss_mb

_OUR_DIRS = ("venuskit-browser-", "playwright_chromiumdev_profile-")


class Chromium:
    """The browser process tree of one env: launched lazily by `launch`, replaced after a crash or a hang."""

    def __init__(self, config: BrowserConfig, policy: NetPolicy) -> None:
        self.config, self._policy = config, policy
        self.driver: Driver | None = None
        self.browser: Any = None  # the Playwright Browser
        self.root_pid: int | None = None  # the top of our process tree (a wrapper script, or the browser)
        self.browser_pid: int | None = None  # the Chromium browser process itself
        self.watchdog = Watchdog(self.kill, self.kill_driver)
        self._shared: Launched | None = None  # the browser this env shares (BrowserConfig.share_browser)
        self._tag = ""
        self._scratch: str | None = None
        self._profile_dir: str | None = None

    # -- life --

    def alive(self) -> bool:
        # A killed driver leaves is_connected() True, so the driver's own process is checked too.
        driver_ok = self.driver is not None and self.driver.alive()
        return driver_ok and self.browser is not None and self.browser.is_connected() and alive(self.browser_pid)

    def launch(self) -> None:
        """A browser for this env: only ever replaces a dead or hung one. Raises EnvError if Chromium cannot start."""
        self.teardown(graceful=False)
        if self.driver is not None and not self.driver.alive():
            self.driver, dead = None, self.driver
            dead.release()
        if self.driver is None:
            self.driver = Driver.acquire()
        exe = self.config.resolve_executable()
        if not os.access(exe, os.X_OK):
            raise EnvError(f"No Chromium at {exe}; install Debian's chromium (apt-get install chromium) or set "
                           "BrowserConfig.executable_path.")  # fmt: skip
        if self.config.share_browser and self._join_shared(exe):
            return
        self._tag = f"--venuskit-env={uuid.uuid4().hex[:16]}"  # finds our processes in /proc
        # Playwright gives every launch a fresh temporary user-data dir; its artifacts go to our own
        # scratch dir. Playwright removes both on a clean close, teardown after a kill.
        self._scratch = tempfile.mkdtemp(prefix="venuskit-browser-", dir=scratch.run_dir())
        try:
            self.browser = self.driver.playwright.chromium.launch(
                executable_path=exe, headless=self.config.headless, args=self._chromium_args(),
                downloads_path=self._scratch,
                timeout=self.config.navigation_timeout_s * 1000,
            )  # fmt: skip
        except PlaywrightError as e:
            self._remove_dirs()
            raise EnvError(f"Chromium ({exe}) failed to start: {first_line(e)}") from e
        self._find_pids()
        if self.config.share_browser:
            dirs = (self._scratch, self._profile_dir)
            self._shared = Launched(self.browser, self.root_pid, self.browser_pid, dirs)
            self.driver.shared[self._share_key(exe)] = self._shared

    def teardown(self, graceful: bool = True, context: Any = None) -> None:
        """Close and forget the browser: gracefully when asked and healthy (the watchdog kills it if closing
        hangs), else by SIGKILL. Then remove its temporary directories. A shared browser that other envs still
        use is left running; only this env's `context` is closed."""
        if not self._leave_shared(graceful, context):
            if graceful and self.browser is not None and self.alive():
                self.attempt(self.browser.close, self.config.action_timeout_s, "close")
            self.kill()
            if self.browser is not None:
                with contextlib.suppress(PlaywrightError):  # already gone, which is the point
                    self.browser.close()  # a no-op on a dead browser, but lets the driver let go of it
            self._remove_dirs()
        self.browser = self.root_pid = self.browser_pid = None

    def close(self) -> None:
        """Tear down and let go of the driver and the watchdog's thread."""
        self.teardown()
        self.watchdog.stop()
        if self.driver is not None:
            self.driver, driver = None, self.driver
            driver.release()

    def kill(self) -> None:
        """SIGKILL our Chromium tree. Safe from the watchdog thread: it touches only /proc and signals."""
        if self.root_pid is not None:
            kill_tree(self.root_pid)

    def kill_driver(self) -> None:
        """SIGKILL the Playwright driver, whose calls then all fail at once: the last resort for a call that
        Chromium's death did not end. Other envs of this thread lose their browser too and relaunch."""
        pid = self.driver.pid if self.driver is not None else None
        if pid is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)

    # -- calls under the watchdog, and what their errors mean --

    def guarded(self, fn: Callable[[], Any], budget_s: float, what: str) -> Any:
        """Run `fn` with the watchdog armed: past `budget_s` it kills Chromium, which makes the blocked
        Playwright call return (a hung renderer never answers an input event on its own)."""
        self.watchdog.arm(budget_s)
        try:
            result = fn()
        except PlaywrightError as e:
            raise self._classify(e, self.watchdog.disarm(), what, budget_s) from e
        finally:
            fired = self.watchdog.disarm()
        if fired:  # it finished just as the watchdog fired: the browser is dead all the same
            raise ActionTimeout(f"{what} did not finish within {budget_s:g} s; the browser was restarted.")
        return result

    def attempt(self, fn: Callable[[], Any], budget_s: float, what: str) -> EnvError | None:
        """`guarded`, with the error returned instead of raised."""
        try:
            self.guarded(fn, budget_s, what)
        except EnvError as e:
            return e
        return None

    def _classify(self, e: PlaywrightError, fired: bool, what: str, budget_s: float) -> EnvError:
        msg = first_line(e)
        if fired or isinstance(e, PlaywrightTimeoutError):
            return ActionTimeout(
                f"{what} did not finish within {budget_s:g} s (a hung page, browser or server); "
                "the browser was restarted."
            )
        if not self.alive() or "Target crashed" in msg or "has been closed" in msg:
            return BrowserCrashed(f"The browser died during {what} ({msg}); it was relaunched at the last URL.")
        if "net::ERR_BLOCKED_BY_CLIENT" in msg or "net::ERR_PROXY" in msg or "net::ERR_TUNNEL" in msg:
            return ActionRefused(
                f"{what} tried to reach a host outside the allowlist; the network guard blocked it ({msg})."
            )
        if "Unknown key" in msg:
            return ActionRefused(f"{what}: {msg}. Use names like ctrl, shift, alt, enter, esc, tab, a-z, f1-f12.")
        return EnvError(f"{what} failed in the browser: {msg}")

    # -- memory --

    def memory_pids(self) -> list[int]:
        """This Python process, the Playwright driver and this env's Chromium process tree."""
        table = proc_table()
        pids, me, pid = [os.getpid()], os.getpid(), self.root_pid
        if pid is None:
            return pids
        parent = table.get(pid, (0, []))[0]
        while parent and parent != me and parent in table:  # the driver (and any wrapper) between us
            pids.append(parent)
            parent = table[parent][0]
        return pids + process_tree(pid, table)

    def rss_mb(self) -> float:
        return rss_mb(self.memory_pids())

    def pss_mb(self) -> float:
        return pss_mb(self.memory_pids())

    # -- sharing one browser among the envs of a thread --

    def _share_key(self, exe: str) -> tuple[str, ...]:
        return (exe, str(self.config.headless), *self._chromium_args()[:-1])  # the args without the env's tag

    def _join_shared(self, exe: str) -> bool:
        """Use the browser another env of this thread launched with the same settings, if it still runs."""
        assert self.driver is not None
        key = self._share_key(exe)
        entry = self.driver.shared.get(key)
        if entry is None or not (entry.browser.is_connected() and alive(entry.browser_pid)):
            self.driver.shared.pop(key, None)
            return False
        entry.users += 1
        self._shared, self.browser = entry, entry.browser
        self.root_pid, self.browser_pid = entry.root_pid, entry.browser_pid
        return True

    def _leave_shared(self, graceful: bool, context: Any) -> bool:
        """Let go of a shared browser: True if others still use it (then only this env's context is closed)."""
        entry, self._shared = self._shared, None
        if entry is None:
            return False
        entry.users -= 1
        if graceful and entry.users > 0 and self.alive():
            if context is not None:
                self.attempt(context.close, self.config.action_timeout_s, "close")
            return True
        for key, value in list(self.driver.shared.items() if self.driver else ()):
            if value is entry:  # a browser that is killed or that nobody uses leaves the pool
                del self.driver.shared[key]
        self._scratch, self._profile_dir = entry.dirs
        return False

    # -- launch details --

    def _chromium_args(self) -> list[str]:
        """Our switches after Playwright's; every --enable-features merged into one (see PLAYWRIGHT_FEATURES)."""
        low = self.config.low_memory
        guard = [*proxy_args(self._policy), *WEBRTC_ARGS]
        args = [*BASE_ARGS, *(LOW_MEMORY_ARGS if low else ()), *guard, *self.config.extra_args]
        enable = "--enable-features="
        features = [f for a in args if a.startswith(enable) for f in a[len(enable) :].split(",") if f]
        features += LOW_MEMORY_FEATURES if low else ()
        args = [a for a in args if not a.startswith(enable)]
        if features:
            args.append(enable + ",".join(dict.fromkeys([*PLAYWRIGHT_FEATURES, *features])))
        return [*args, self._tag]

    def _find_pids(self) -> None:
        table = proc_table()
        ours = [
            p for p, (_, argv) in table.items() if self._tag in argv and not any(a.startswith("--type=") for a in argv)
        ]
        top = [p for p in ours if table[p][0] not in ours]
        self.root_pid = top[0] if top else None
        real = [p for p in ours if os.path.basename(table[p][1][0]).startswith("chrom")]
        self.browser_pid = real[-1] if real else self.root_pid
        argv = table[self.browser_pid][1] if self.browser_pid in table else []
        profiles = [a.split("=", 1)[1] for a in argv if a.startswith("--user-data-dir=")]
        self._profile_dir = profiles[0] if profiles else None
        parent = table.get(self.root_pid, (0, []))[0] if self.root_pid else 0
        if self.driver is not None and self.driver.pid is None and table.get(parent, (0,))[0] == os.getpid():
            self.driver.pid = parent  # Playwright's node driver launched it

    def _remove_dirs(self) -> None:
        for path in (self._scratch, self._profile_dir):
            if path and os.path.basename(path).startswith(_OUR_DIRS):
                shutil.rmtree(path, ignore_errors=True)
        self._scratch = self._profile_dir = None
