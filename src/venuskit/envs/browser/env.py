"""The real browser environment: Chromium driven through Playwright's sync API.

One `BrowserEnv` is one Chromium process (launched lazily, relaunched after a crash or hang; shared with the
thread's other envs under `BrowserConfig.share_browser`) and one fresh browser context per episode. Two presets:

- `desktop` (surface "browser"): a 1024x768 CSS viewport, the size UI-Venus-2's browser harness
  uses (models/browser/venus_browser.py), mouse and keyboard input.
- `mobile` (surface "mobile"): a 412x915 CSS viewport at device scale factor 2 (screenshots are
  824x1830), touch events, a mobile user agent. Taps, swipes and long presses are touch input.

Frames. `Observation.width/height` are screenshot pixels (CSS size x device scale factor). Actions
arrive as normalised points, which `actions.coords` maps onto the CSS viewport; every coordinate in
`StepResult.executed` is a CSS pixel of the viewport (mouse and touch input are in CSS pixels).

Errors. `step()` never raises for a recoverable failure: it returns a `StepResult` whose `error` is an
`EnvError` (ActionRefused, ActionTimeout, BrowserCrashed, or a plain EnvError for e.g. a failed
navigation) and whose observation is valid. After ActionTimeout or BrowserCrashed the env has killed
the browser, launched a new one and navigated back to the last URL (`info["relaunched"]`).
`reset()` raises EnvError subclasses; `observe()` raises ActionTimeout/BrowserCrashed after it has
recovered, so the next call works. Only a browser that cannot be relaunched at all raises from step().
A call that even a killed browser does not end (the Playwright driver lost track of it) is ended by
killing the driver as well; the envs of that thread then relaunch on a new one (see `driver.Watchdog`).

Speed. A step is the action, one page read and one capture: the page read (js.READ_PAGE_JS) gets the title,
a clicked <select>'s options, the visual viewport and a wrapping env's `page_probe` result in one
Runtime.evaluate, and the capture is one Page.captureScreenshot with the clip page.screenshot would send,
both on the env's own CDP session (page.screenshot and page.title cost ~4 more round trips per step); at
device scale 1 the two go out together, one round trip (`_read_and_capture`).

The action handlers live in `actions.py`, the JavaScript in `js.py`, the launch switches in `config.py`.
"""

from __future__ import annotations

import base64
import contextlib
import json
import os
import shutil
import signal
import struct
import tempfile
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Self

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from venuskit.actions.surfaces import get_surface
from venuskit.actions.types import Action
from venuskit.envs.base import ActionRefused, ActionTimeout, BrowserCrashed, EnvError, Observation, StepResult
from venuskit.envs.browser import scratch
from venuskit.envs.browser.actions import HANDLERS, hold_s
from venuskit.envs.browser.config import (
    BASE_ARGS,
    LAUNCH_SCHEMES,
    LOW_MEMORY_ARGS,
    LOW_MEMORY_FEATURES,
    MOBILE_UA,
    PLAYWRIGHT_FEATURES,
    BrowserConfig,
)
from venuskit.envs.browser.driver import Driver, Launched, Watchdog, first_line, send_together
from venuskit.envs.browser.js import SELECT_AT_JS, page_read_js
from venuskit.envs.netguard import WEBRTC_ARGS, NetGuard, NetPolicy, proxy_args, url_allowed
from venuskit.infra.proc import alive, kill_tree, proc_table, process_tree, pss_mb, rss_mb

_WEB_STORAGE = "local_storage,indexeddb,websql,service_workers,cache_storage,file_systems"
# page.screenshot waited for web fonts; the observation does too, but never longer than this (or half the
# action timeout): a stalled font request then shows fallback text instead of hanging every step.
FONTS_WAIT_S = 2.0
CAPTURE_RETRY_S = 0.05  # between captures of a tab that has no frame yet
_NAVIGATING = frozenset({"Launch", "PressBack", "PressHome"})


@dataclass(frozen=True)
class ProbeResult:
    """What `BrowserEnv(page_probe=...)`'s function returned in the page (ok), or the error it threw."""

    ok: bool
    value: Any  # the function's JSON-able return value, or the error's text when ok is False


class BrowserEnv:
    """A Chromium tab the agent drives with venuskit actions. Use as a context manager or call close()."""

    def __init__(self, config: BrowserConfig | None = None, page_probe: str | None = None) -> None:
        """`page_probe`: the source of a JavaScript function without arguments that is run in the page right
        before every screenshot, in the same call that reads the title (so it costs no extra round trip);
        its result is `last_probe`. A wrapping env reads its page state this way (MiniWobEnv's reward)."""
        self.config = config or BrowserConfig()
        self.last_probe: ProbeResult | None = None  # None: the last observation could not run the probe
        self._read_js = page_read_js(page_probe)
        self.surface = "mobile" if self.config.mobile else "browser"
        self._policy = NetPolicy(self.config.allow_hosts, self.config.allow_file)
        self._driver: Driver | None = None
        self._browser: Any = None
        self._context: Any = None
        self._origins: set[str] = set()  # origins this episode's main frame visited (reuse_context clears them)
        self._page: Any = None
        self._cdp: Any = None
        self._guard = NetGuard(self._policy)
        self._tag = ""
        self._shared: Launched | None = None  # the browser this env shares (BrowserConfig.share_browser)
        self._root_pid: int | None = None
        self._browser_pid: int | None = None
        self._scratch: str | None = None
        self._profile_dir: str | None = None
        self._start_url: str | None = None
        self._last_url: str | None = None
        self._last_select: Any = None
        self._clicked_at: tuple[int, int] | None = None  # the point of this step's click, for the <select> check
        self._doc_id: float | None = None  # performance.timeOrigin of the document last observed
        self._loaded = False  # the page's 'load' was seen and nothing navigated since
        self._executed: dict[str, Any] | None = None
        self._dialogs: list[dict[str, str]] = []
        self._watchdog = Watchdog(self._kill_browser, self._kill_driver)
        self._closed = False

    # -- public API --

    @property
    def page(self) -> Any:
        """The live Playwright Page, for tests and oracles only; a policy never sees it."""
        if self._page is None:
            raise EnvError("The browser env has no page yet; call reset(task) first.")
        return self._page

    @property
    def browser_pid(self) -> int | None:
        """The Chromium browser process (for diagnostics and crash tests)."""
        return self._browser_pid

    def reset(self, task: dict[str, Any]) -> Observation:
        """Start an episode at task["start_url"] in a fresh browser context (or a cleaned one, with
        `reuse_context`). Raises EnvError subclasses."""
        url = self._reset_url(task)
        self._require_open()
        try:
            if not self._browser_alive():
                self._launch()
            self._guarded(self._open_context, self._nav_budget(), "reset")
            self._start_url = self._last_url = url
            self._guarded(lambda: self._goto(url), self._nav_budget(), "reset")
            # The start page is the first history entry: PressBack must reach neither the blank tab nor,
            # in a recycled context, the previous episode.
            self._guarded(lambda: self._session().send("Page.resetNavigationHistory"), self._nav_budget(), "reset")
            obs = self._guarded(self._observe, self._obs_budget(), "reset")
        except (ActionTimeout, BrowserCrashed):
            self._teardown(graceful=False)  # the next reset launches a fresh browser
            raise
        self._add_feedback(obs.info)
        return obs

    def step(self, action: Action) -> StepResult:
        """Run one action; see the module docstring for how errors are returned."""
        info: dict[str, Any] = {}
        obs, error = self._act(action, info)
        if obs is None and not _fatal(error):
            try:
                obs = self._guarded(lambda: self._observe(info), self._obs_budget(), action.name)
            except EnvError as e:
                error = e
        if obs is None:
            obs = self._recover(info)
        self._add_feedback(info)
        return StepResult(observation=obs, executed=self._executed, info=info, error=error)

    def act(self, action: Action) -> tuple[dict[str, Any] | None, dict[str, Any], EnvError | None]:
        """`step` without its screenshot: (executed, info, error), errors as step returns them. For a wrapper
        that reads the screen at other times than after each action (the Android stand-in device, whose
        screencap is a command of its own); `observe()` then takes the screenshot."""
        info: dict[str, Any] = {}
        obs, error = self._act(action, info)
        if obs is None and _fatal(error):
            self._recover(info)
        self._add_feedback(info)
        return self._executed, info, error

    def _act(self, action: Action, info: dict[str, Any]) -> tuple[Observation | None, EnvError | None]:
        """Run the action and wait for the page to settle: (None, error), or (the observation of a relaunched
        browser, error) when the page had gone before the action, which then did not run."""
        self._executed = self._clicked_at = None
        if not self._page_ready():  # Chromium died (or the tab closed itself) since the last step
            obs = self._recover(info)  # the action was planned on a page that is gone: do not run it
            return obs, _gone_error(action.name)
        error = self._refusal(action) or self._attempt(
            lambda: self._run(action, info), self._budget(action), action.name
        )
        if not _fatal(error):
            error = self._attempt(self._settle, self._nav_budget(), action.name) or error
        return None, error

    def observe(self) -> Observation:
        """A fresh screenshot observation. After a hang or crash it relaunches, then raises the error."""
        if not self._page_ready():
            self._recover({})
            raise _gone_error("observe")
        try:
            return self._guarded(self._observe, self._obs_budget(), "observe")
        except (ActionTimeout, BrowserCrashed):
            self._recover({})
            raise

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._teardown()
        self._watchdog.stop()
        if self._driver is not None:
            self._driver, driver = None, self._driver
            driver.release()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def memory_pids(self) -> list[int]:
        """This Python process, the Playwright driver and this env's Chromium process tree."""
        table = proc_table()
        pids, me, pid = [os.getpid()], os.getpid(), self._root_pid
        if pid is None:
            return pids
        parent = table.get(pid, (0, []))[0]
        while parent and parent != me and parent in table:  # the driver (and any wrapper) between us
            pids.append(parent)
            parent = table[parent][0]
        return pids + process_tree(pid, table)

    def rss_mb(self) -> float:
        """Summed RSS of memory_pids(), in MB (overcounts pages shared between Chromium processes)."""
        return rss_mb(self.memory_pids())

    def pss_mb(self) -> float:
        """Summed PSS of memory_pids(), in MB: what this env costs the machine."""
        return pss_mb(self.memory_pids())

    # -- the page inspector: read by the harness's safety gate and secrets mask, never by a policy --

    def describe_point(self, point: tuple[float, float]) -> Any:
        """The control under a normalised point, with the link or form it activates (`inspect.Target`)."""
        from venuskit.envs.browser import inspect

        return inspect.describe_point(self, point)

    def describe_focus(self) -> Any:
        """What Enter would act on: the focused control and the form it submits (`inspect.Target`)."""
        from venuskit.envs.browser import inspect

        return inspect.describe_focus(self)

    def value_boxes(self, needles: list[str], size: tuple[int, int]) -> list[tuple[int, int, int, int]]:
        """Screenshot-pixel boxes of every field and text run on the page that shows one of `needles`."""
        from venuskit.envs.browser import inspect

        return inspect.value_boxes(self, needles, size)

    # -- launch, contexts, recovery --

    def _require_open(self) -> None:
        if self._closed:
            raise EnvError("This BrowserEnv is closed; create a new one.")

    def _page_ready(self) -> bool:
        """Raise if no episode was started; else whether the tab is usable as it is."""
        self._require_open()
        if self._start_url is None:
            raise EnvError("The browser env has no episode yet; call reset(task) first.")
        return self._page is not None and not self._page.is_closed() and self._browser_alive()

    def _launch(self) -> None:
        self._teardown(graceful=False)  # only ever replaces a dead or hung browser
        if self._driver is not None and not self._driver.alive():
            self._driver, dead = None, self._driver
            dead.release()
        if self._driver is None:
            self._driver = Driver.acquire()
        exe = self.config.resolve_executable()
        if not os.access(exe, os.X_OK):
            raise EnvError(f"No Chromium at {exe}; install Debian's chromium (apt-get install chromium) or set "
                           "BrowserConfig.executable_path.")  # fmt: skip
        if self.config.share_browser and self._join_shared(exe):
            return
        self._tag = f"--venuskit-env={uuid.uuid4().hex[:16]}"  # finds our processes in /proc
        # Playwright gives every launch a fresh temporary user-data dir; its artifacts go to our own
        # scratch dir. Playwright removes both on a clean close, _teardown after a kill.
        self._scratch = tempfile.mkdtemp(prefix="venuskit-browser-", dir=scratch.run_dir())
        try:
            self._browser = self._driver.playwright.chromium.launch(
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
            self._shared = Launched(self._browser, self._root_pid, self._browser_pid, dirs)
            self._driver.shared[self._share_key(exe)] = self._shared

    def _share_key(self, exe: str) -> tuple[str, ...]:
        return (exe, str(self.config.headless), *self._chromium_args()[:-1])  # the args without the env's tag

    def _join_shared(self, exe: str) -> bool:
        """Use the browser another env of this thread launched with the same settings, if it still runs."""
        assert self._driver is not None
        key = self._share_key(exe)
        entry = self._driver.shared.get(key)
        if entry is None or not (entry.browser.is_connected() and alive(entry.browser_pid)):
            self._driver.shared.pop(key, None)
            return False
        entry.users += 1
        self._shared, self._browser = entry, entry.browser
        self._root_pid, self._browser_pid = entry.root_pid, entry.browser_pid
        return True

    def _leave_shared(self, graceful: bool) -> bool:
        """Let go of a shared browser: True if others still use it (then only this env's context is closed)."""
        entry, self._shared = self._shared, None
        if entry is None:
            return False
        entry.users -= 1
        if graceful and entry.users > 0 and self._browser_alive():
            if self._context is not None:
                self._attempt(self._context.close, self.config.action_timeout_s, "close")
            return True
        for key, value in list(self._driver.shared.items() if self._driver else ()):
            if value is entry:  # a browser that is killed or that nobody uses leaves the pool
                del self._driver.shared[key]
        self._scratch, self._profile_dir = entry.dirs
        return False

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
        self._root_pid = top[0] if top else None
        real = [p for p in ours if os.path.basename(table[p][1][0]).startswith("chrom")]
        self._browser_pid = real[-1] if real else self._root_pid
        argv = table[self._browser_pid][1] if self._browser_pid in table else []
        profiles = [a.split("=", 1)[1] for a in argv if a.startswith("--user-data-dir=")]
        self._profile_dir = profiles[0] if profiles else None
        parent = table.get(self._root_pid, (0, []))[0] if self._root_pid else 0
        if self._driver is not None and self._driver.pid is None and table.get(parent, (0,))[0] == os.getpid():
            self._driver.pid = parent  # Playwright's node driver launched it

    def _browser_alive(self) -> bool:
        # A killed driver leaves is_connected() True, so the driver's own process is checked too.
        driver_ok = self._driver is not None and self._driver.alive()
        return driver_ok and self._browser is not None and self._browser.is_connected() and alive(self._browser_pid)

    def _kill_browser(self) -> None:
        """SIGKILL our Chromium tree. Safe from the watchdog thread: it touches only /proc and signals."""
        if self._root_pid is not None:
            kill_tree(self._root_pid)

    def _kill_driver(self) -> None:
        """SIGKILL the Playwright driver, whose calls then all fail at once: the last resort for a call that
        Chromium's death did not end. Other envs of this thread lose their browser too and relaunch."""
        pid = self._driver.pid if self._driver is not None else None
        if pid is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)

    def _teardown(self, graceful: bool = True) -> None:
        """Close and forget the browser: gracefully when asked and healthy (a watchdog kills it if
        closing hangs), else by SIGKILL. Then remove its temporary directories. A shared browser that other
        envs still use is left running, without this env's context."""
        if self._leave_shared(graceful):
            self._browser = self._context = self._page = self._cdp = self._last_select = None
            self._root_pid = self._browser_pid = None
            return
        if graceful and self._browser is not None and self._browser_alive():
            self._attempt(self._browser.close, self.config.action_timeout_s, "close")
        self._kill_browser()
        if self._browser is not None:
            with contextlib.suppress(PlaywrightError):  # already gone, which is the point
                self._browser.close()  # a no-op on a dead browser, but lets the driver let go of it
        self._remove_dirs()
        self._browser = self._context = self._page = self._cdp = self._last_select = None
        self._root_pid = self._browser_pid = None

    def _remove_dirs(self) -> None:
        for path in (self._scratch, self._profile_dir):
            if path and os.path.basename(path).startswith(("venuskit-browser-", "playwright_chromiumdev_profile-")):
                shutil.rmtree(path, ignore_errors=True)
        self._scratch = self._profile_dir = None

    def _context_options(self) -> dict[str, Any]:
        width, height = self.config.css_viewport()
        opts: dict[str, Any] = {
            "viewport": {"width": width, "height": height},
            "device_scale_factor": self.config.scale(),
            "accept_downloads": False,
            "service_workers": "block",  # a service worker's fetches bypass context.route
        }
        if self.config.mobile:
            opts.update(is_mobile=True, has_touch=True)
        ua = self.config.user_agent
        if ua is None and self.config.mobile:
            ua = MOBILE_UA.format(major=self._browser.version.split(".")[0])
        if ua:
            opts["user_agent"] = ua
        return opts

    def _open_context(self) -> None:
        if self.config.reuse_context and self._context is not None and self._recycle_context():
            return
        if self._context is not None:
            with contextlib.suppress(PlaywrightError):  # the old episode's tab may be dead or hung
                self._context.close()
        self._page = self._cdp = self._last_select = None
        self._guard = NetGuard(self._policy)
        self._dialogs = []
        ctx = self._browser.new_context(**self._context_options())
        ctx.set_default_timeout(self.config.action_timeout_s * 1000)
        ctx.set_default_navigation_timeout(self.config.navigation_timeout_s * 1000)
        self._guard.install(ctx, webrtc=self.config.webrtc)
        ctx.on("page", self._adopt_page)
        self._context = ctx
        self._adopt_page(ctx.new_page())

    def _recycle_context(self) -> bool:
        """Clear what an episode left in the context and keep its one tab; False (a new context, then) if the
        tab died or the episode opened another tab."""
        if self._page is None or self._page.is_closed():
            return False  # a tab that died with the last episode: start over with a new context
        try:
            if self._tab_count() > 1:
                return False  # a popup, perhaps not yet announced to us, must not surface in the next episode
            for origin in self._origins:
                self._session().send("Storage.clearDataForOrigin", {"origin": origin, "storageTypes": _WEB_STORAGE})
            self._context.clear_cookies()
            self._guard.drain()
            self._dialogs, self._origins, self._last_select, self._loaded = [], set(), None, False
        except PlaywrightError:
            return False
        return True

    def _tab_count(self) -> int:
        """Tabs in this context as the browser sees them: a window.open target exists there before Playwright
        announces its page."""
        session = self._session()
        context_id = session.send("Target.getTargetInfo")["targetInfo"]["browserContextId"]
        targets = session.send("Target.getTargets")["targetInfos"]
        return sum(t["type"] == "page" and t.get("browserContextId") == context_id for t in targets)

    def _adopt_page(self, page: Any) -> None:
        """A new tab (ours, or a popup the page opened) becomes the one the agent sees."""
        if page is self._page or page.is_closed() or page.context is not self._context:
            return  # a late announcement of a tab of a closed (earlier episode's) context
        self._page, self._cdp, self._last_select, self._loaded = page, None, None, False
        page.on("dialog", self._on_dialog)
        page.on("close", self._on_page_close)
        page.on("framenavigated", self._on_navigated)

    def _on_navigated(self, frame: Any) -> None:
        # Any main-frame navigation (a new document or a same-document URL change) means the next settle
        # asks Playwright for the load state again instead of trusting the last answer.
        if frame.parent_frame is None and frame.page is self._page:
            self._loaded = False
            if frame.url.startswith(("http://", "https://")):  # web storage a recycled context must clear
                self._origins.add("/".join(frame.url.split("/")[:3]))

    def _on_page_close(self, page: Any) -> None:
        if page is self._page and self._context is not None:
            alive = [p for p in self._context.pages if not p.is_closed()]
            self._page = alive[-1] if alive else None
            self._cdp = self._last_select = None
            self._loaded = False

    def _on_dialog(self, dialog: Any) -> None:
        # Headless screenshots do not show dialogs, so the message goes to info. Confirm/prompt are
        # dismissed (the safe answer); alerts and beforeunload are accepted so the page can go on.
        self._dialogs.append({"type": dialog.type, "message": dialog.message})
        if dialog.type in ("alert", "beforeunload"):
            dialog.accept()
        else:
            dialog.dismiss()

    def _recover(self, info: dict[str, Any]) -> Observation:
        """Relaunch after a hang or crash and go back to the last URL; if that page hangs or kills the
        browser again, start from a blank tab. Raises BrowserCrashed only if Chromium cannot start."""
        url = self._last_url
        try:
            obs = self._restore(url, info)
            if obs is None:
                url, obs = None, self._restore(None, info)
            if obs is None:
                raise EnvError(info.get("relaunch_error", "even a blank tab hung"))
        except EnvError as e:
            self._teardown(graceful=False)
            raise BrowserCrashed(f"The browser died and could not be relaunched: {e}") from e
        info.update(relaunched=True, restored_url=url)
        return obs

    def _restore(self, url: str | None, info: dict[str, Any]) -> Observation | None:
        """A new browser at `url` (None: a blank tab) and its observation; None if it hung or died again."""
        self._launch()
        self._guarded(self._open_context, self._nav_budget(), "relaunch")
        error = self._attempt(lambda: self._goto(url), self._nav_budget(), "relaunch") if url else None
        if error is not None:
            info["relaunch_error"] = str(error)  # e.g. the server has gone: the error page is observed
        if _fatal(error):
            return None
        try:
            return self._guarded(self._observe, self._obs_budget(), "relaunch")
        except (ActionTimeout, BrowserCrashed) as e:
            info["relaunch_error"] = str(e)
            return None

    # -- the watchdog and error classification --

    def _guarded(self, fn: Callable[[], Any], budget_s: float, what: str) -> Any:
        """Run `fn` with the watchdog armed: past `budget_s` it kills Chromium, which makes the blocked
        Playwright call return (a hung renderer never answers an input event on its own)."""
        self._watchdog.arm(budget_s)
        try:
            result = fn()
        except PlaywrightError as e:
            raise self._classify(e, self._watchdog.disarm(), what, budget_s) from e
        finally:
            fired = self._watchdog.disarm()
        if fired:  # it finished just as the watchdog fired: the browser is dead all the same
            raise ActionTimeout(f"{what} did not finish within {budget_s:g} s; the browser was restarted.")
        return result

    def _attempt(self, fn: Callable[[], Any], budget_s: float, what: str) -> EnvError | None:
        try:
            self._guarded(fn, budget_s, what)
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
        if not self._browser_alive() or "Target crashed" in msg or "has been closed" in msg:
            return BrowserCrashed(f"The browser died during {what} ({msg}); it was relaunched at the last URL.")
        if "net::ERR_BLOCKED_BY_CLIENT" in msg or "net::ERR_PROXY" in msg or "net::ERR_TUNNEL" in msg:
            return ActionRefused(
                f"{what} tried to reach a host outside the allowlist; the network guard blocked it ({msg})."
            )
        if "Unknown key" in msg:
            return ActionRefused(f"{what}: {msg}. Use names like ctrl, shift, alt, enter, esc, tab, a-z, f1-f12.")
        return EnvError(f"{what} failed in the browser: {msg}")

    def _budget(self, action: Action) -> float:
        budget = self.config.action_timeout_s + hold_s(self.config, action)
        return budget + (self.config.navigation_timeout_s if action.name in _NAVIGATING else 0.0)

    def _nav_budget(self) -> float:
        return self.config.navigation_timeout_s + self.config.action_timeout_s

    def _obs_budget(self) -> float:
        return self.config.action_timeout_s

    # -- observation --

    def _observe(self, info: dict[str, Any] | None = None) -> Observation:
        """Read the page (READ_PAGE_JS) and capture the viewport in one round trip: both CDP commands go out
        together. The capture is the one page.screenshot makes, without its other round trips (layout
        metrics, preparing and restoring every frame for caret and animation options this env does not use)."""
        title, png, editable = self._read_and_capture(info)
        width, height = png_size(png)
        url = self.page.url
        if url.split(":", 1)[0] in LAUNCH_SCHEMES:  # not chrome-error:// or about:blank
            self._last_url = url
        vw, vh = self.config.css_viewport()
        obs_info = {"viewport": [vw, vh], "device_scale_factor": self.config.scale(), "focus_editable": editable}
        return Observation(png=png, width=width, height=height, url=url, title=title, info=obs_info)

    def _read_and_capture(self, info: dict[str, Any] | None) -> tuple[str | None, bytes, bool | None]:
        """(title, PNG, focus fact). At device scale 1 the capture needs no clip (the visible viewport is the
        picture), so it goes out together with the read, in one round trip; it is taken again if the read finds
        the page pinch-zoomed or web fonts still loading (the read waited for them), so the PNG always shows
        what the read describes. At other scales the capture's clip carries the scale, which Chromium applies as
        a passing emulation change, so it waits for the read (two round trips; overlapping them disturbed the
        touch input that followed, measured)."""
        point, self._clicked_at, self.last_probe = self._clicked_at, None, None
        fonts_ms = min(FONTS_WAIT_S, self.config.action_timeout_s / 2) * 1000
        read_call = ("Runtime.evaluate", self._page_call(self._read_js, [point, self._doc_id, fonts_ms]))
        shot: Any = None
        if self.config.scale() == 1:
            read, shot = send_together(self._session(), [read_call, ("Page.captureScreenshot", {"format": "png"})])
        else:
            read = send_together(self._session(), [read_call])[0]
        read = self._page_value(read)
        if isinstance(shot, BaseException):
            if not isinstance(shot, PlaywrightError) or not self._browser_alive() or "has been closed" in str(shot):
                raise shot
            shot = None  # it met a navigation half way (an error page replacing the tab): taken again below
        if read is None:  # a navigation replaced the document mid-call: ask the browser where the viewport is
            self._doc_id = None
            vv = self._session().send("Page.getLayoutMetrics")["cssVisualViewport"]
            view, waited, title, editable = [vv["pageX"], vv["pageY"], vv["scale"]], False, None, None
        else:
            title, self._doc_id, options, probe, view, editable, waited = read
            if probe is not None:
                self.last_probe = ProbeResult(ok=bool(probe[0]), value=probe[1])
            if options is not None and point is not None and info is not None:
                self._note_select(point, options, info)
        params = self._capture_params(view)
        if shot is None or waited or "clip" in params:
            shot = self._capture(params)
        return title, base64.b64decode(shot["data"]), editable

    def _capture(self, params: dict[str, Any]) -> dict[str, Any]:
        """Page.captureScreenshot, taken again while Chromium answers "Unable to capture screenshot": a tab
        that is swapping documents (an error page replacing a refused redirect) has no frame for a moment."""
        deadline = time.monotonic() + self.config.action_timeout_s
        while True:
            try:
                return self._session().send("Page.captureScreenshot", params)
            except PlaywrightError as e:
                if "Unable to capture screenshot" not in str(e) or time.monotonic() > deadline:
                    raise
            time.sleep(CAPTURE_RETRY_S)

    def _page_call(self, fn_js: str, args: list[Any]) -> dict[str, Any]:
        """Runtime.evaluate parameters for `fn_js(args)` in the page's main world: plain JSON, one round trip
        on this env's own CDP session (~1 ms less than page.evaluate, measured)."""
        return {"expression": f"({fn_js})({json.dumps(args)})", "returnByValue": True, "awaitPromise": True}

    def _page_value(self, reply: Any) -> Any:
        """The value of a Runtime.evaluate reply; None if the document went away mid-call or the call threw.
        Raises if the page or the browser is gone."""
        if isinstance(reply, PlaywrightError):
            if not self._browser_alive() or "has been closed" in str(reply):
                raise reply
            return None
        if isinstance(reply, BaseException):
            raise reply
        return None if "exceptionDetails" in reply else reply["result"].get("value")

    def _capture_params(self, view: list[float] | None) -> dict[str, Any]:
        """Page.captureScreenshot of the viewport in screenshot pixels: the visual viewport (document CSS px at
        its pinch zoom) scaled by the device scale factor. This CDP session has no device-metrics override of
        its own, so without the clip's scale Chromium would capture at CSS size; at scale 1 and no zoom the
        plain viewport capture is the same picture. Byte-identical to page.screenshot() either way (checked
        for desktop and a zoomed, scrolled mobile page)."""
        x, y, zoom = view or (0.0, 0.0, 1.0)
        scale = self.config.scale()
        if scale == 1 and zoom == 1:
            return {"format": "png"}
        vw, vh = self.config.css_viewport()
        clip = {"x": x, "y": y, "width": vw / zoom, "height": vh / zoom, "scale": zoom * scale}
        return {"format": "png", "clip": clip}

    def _note_select(self, point: tuple[int, int], options: list[dict[str, Any]], info: dict[str, Any]) -> None:
        """The click landed on a native <select>: list its options (headless screenshots do not show the
        open dropdown) and keep the element for SelectOption."""
        info["select_options"] = options
        try:
            handle = self.page.evaluate_handle(SELECT_AT_JS, list(point))
        except PlaywrightError:
            return  # the page moved on between the two calls; the list is still what was clicked
        element = handle.as_element()
        if element is None:
            handle.dispose()
            return
        self._last_select = element

    def _session(self) -> Any:
        """The page's CDP session (screenshots, touch input), opened on first use."""
        if self._cdp is None:
            self._cdp = self._context.new_cdp_session(self.page)
        return self._cdp

    def _settle(self) -> None:
        if self.config.settle_s:
            self.page.wait_for_timeout(self.config.settle_s * 1000)
        if not self._loaded:  # else nothing navigated since 'load' was seen: there is nothing to wait for
            self._wait_loaded()

    def _wait_loaded(self) -> None:
        """Wait for the document, then give subresources a bounded time: a page whose 'load' never
        fires (a stalled image, a long poll) must not cost every step the full navigation timeout."""
        page = self.page
        try:
            page.wait_for_load_state("domcontentloaded", timeout=self.config.navigation_timeout_s * 1000)
            page.wait_for_load_state("load", timeout=self.config.action_timeout_s * 1000)
        except PlaywrightTimeoutError:
            return  # still loading: the screenshot shows what there is, and the next step waits again
        self._loaded = True  # a navigation event handled after this line sets it back

    def _add_feedback(self, info: dict[str, Any]) -> None:
        blocked = self._guard.drain()
        if blocked:
            info["blocked"] = blocked
        if self._dialogs:
            info["dialogs"], self._dialogs = self._dialogs, []

    # -- URLs --

    def _reset_url(self, task: dict[str, Any]) -> str:
        url = task.get("start_url") if isinstance(task, dict) else None
        if not isinstance(url, str) or not url:
            raise EnvError(f"The task needs a 'start_url' string, got {url!r}.")
        if url != "about:blank":
            self._check_url(url, "reset")
        return url

    def _check_url(self, url: str, what: str) -> None:
        scheme = url.split(":", 1)[0].lower() if ":" in url else ""
        if scheme not in LAUNCH_SCHEMES:
            raise ActionRefused(f"{what} opens only http, https and file URLs (with the scheme written out); "
                                f"{url!r} is refused.")  # fmt: skip
        if not url_allowed(url, self._policy):
            self._guard.blocked.append({"url": url, "type": "document", "reason": "host not in the allowlist"})
            raise ActionRefused(f"{what}: {url!r} is outside the allowed hosts {list(self._policy.allow_hosts)}.")

    def _goto(self, url: str) -> None:
        self.page.goto(url, wait_until="domcontentloaded")
        self._wait_loaded()

    # -- actions --

    def _refusal(self, action: Action) -> ActionRefused | None:
        spec = get_surface(self.surface)
        if action.name in self.config.extra_actions and action.name in HANDLERS:
            return None
        if action.name not in spec.actions or action.name not in HANDLERS:
            accepted = ", ".join(sorted(spec.actions | set(self.config.extra_actions)))
            return ActionRefused(
                f"{action.name} is not an action of the {self.surface} surface; it accepts: {accepted}."
            )
        return None

    def _run(self, action: Action, info: dict[str, Any]) -> None:
        HANDLERS[action.name](self, action, info)


def _gone_error(what: str) -> BrowserCrashed:
    return BrowserCrashed(f"The browser had died (or its tab closed) before {what}; it was relaunched at the last "
                          f"URL and {what} was not run.")  # fmt: skip


def _fatal(error: EnvError | None) -> bool:
    """Errors after which the browser has been killed and must be relaunched."""
    return isinstance(error, (ActionTimeout, BrowserCrashed))


def png_size(png: bytes) -> tuple[int, int]:
    """(width, height) from a PNG's IHDR chunk."""
    if png[:8] != b"\x89PNG\r\n\x1a\n":
        raise EnvError("The browser returned a screenshot that is not a PNG.")
    return struct.unpack(">II", png[16:24])
