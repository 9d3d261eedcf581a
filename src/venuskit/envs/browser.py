"""The real browser environment: Chromium driven through Playwright's sync API.

One `BrowserEnv` is one Chromium process (launched lazily, relaunched after a crash or hang) and one
fresh browser context per episode. Two presets:

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
killing the driver as well; the envs of that thread then relaunch on a new one (see `_Watchdog`).

Speed. A step is the action, one page read and one capture: the page read (`_read_page`) gets the title,
a clicked <select>'s options, the visual viewport and a wrapping env's `page_probe` result in one
Runtime.evaluate, and the capture is one Page.captureScreenshot with the clip page.screenshot would send,
both on the env's own CDP session (page.screenshot and page.title cost ~4 more round trips per step).

Per-action semantics follow the upstream executors (reference/ui-venus.md §2.2, §2.4); where this
env must choose, the choice is written at the handler.
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
import threading
import time
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, fields
from typing import Any, Literal, Self

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import Playwright, sync_playwright
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from venuskit.actions import coords
from venuskit.actions.surfaces import get_surface
from venuskit.actions.types import Action, Point
from venuskit.envs.base import ActionRefused, ActionTimeout, BrowserCrashed, EnvError, Observation, StepResult
from venuskit.envs.netguard import LOOPBACK_HOSTS, NetGuard, NetPolicy, proxy_args, url_allowed

DEBIAN_CHROMIUM = "/usr/bin/chromium"
HEADLESS_SHELL = "/usr/lib/chromium/chromium-headless-shell"  # Debian package chromium-headless-shell
# Flags every launch gets: no sandbox (containers), no GPU, nothing phoning home, no smooth scrolling
# (a wheel step must be finished by the time we take the screenshot).
BASE_ARGS: tuple[str, ...] = (
    "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--no-first-run", "--disable-smooth-scrolling",
)  # fmt: skip
# Fewer processes (5 instead of 8 with the headless shell): ~130 MB less summed RSS; the PSS, what the
# machine really pays, stays about the same (~350 MB with the driver; measured on Chromium 156).
LOW_MEMORY_ARGS: tuple[str, ...] = ("--no-zygote", "--in-process-gpu", "--renderer-process-limit=1")
# And the network service in the browser process, as Chrome runs it on low-memory Android: one process
# fewer, ~65 MB less summed RSS (~12 MB PSS).
LOW_MEMORY_FEATURES: tuple[str, ...] = ("NetworkServiceInProcess2",)
# Playwright launches Chromium with its own --enable-features list, and Chromium honours only the last such
# switch, so a launch that enables features repeats Playwright's (a test checks this list against the
# installed Playwright's).
PLAYWRIGHT_FEATURES: tuple[str, ...] = ("CDPScreenshotNewSurface", "SkipListAccountsWithoutGaiaCookies")
# The driver's V8 young generation capped at 1 MB (default: up to 3 x 16 MB): ~25 MB less driver RSS and
# no slower per step (measured).
DRIVER_NODE_OPTIONS = "--max-semi-space-size=1"
MOBILE_UA = (
    "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/{major}.0.0.0 Mobile Safari/537.36"
)
LAUNCH_SCHEMES = ("http", "https", "file")
_WEB_STORAGE = "local_storage,indexeddb,websql,service_workers,cache_storage,file_systems"
MAX_HOTKEY_KEYS = 3  # the browser harness's limit (reference/ui-venus.md §2.4)
TOUCH_REST_S = 0.1  # pause at the end of a touch drag before lifting the finger
# page.screenshot waited for web fonts; the observation does too, but never longer than this (or half the
# action timeout): a stalled font request then shows fallback text instead of hanging every step.
FONTS_WAIT_S = 2.0


def _help(text: str, **kw: Any) -> Any:
    return field(metadata={"help": text}, **kw)


@dataclass
class BrowserConfig:
    """How to launch and drive the browser. Environment variables are read by the CLI, never here."""

    executable_path: str | None = _help(
        "Chromium binary. None: Debian's chromium-headless-shell when headless and installed (what Playwright "
        "itself runs headless; ~170 MB less memory), else /usr/bin/chromium.",
        default=None,
    )
    headless: bool = _help("Run without a window (needs no X display).", default=True)
    preset: Literal["desktop", "mobile"] = _help(
        "desktop: mouse + keyboard, surface 'browser'. mobile: touch, 412x915 CSS px at 2x, surface 'mobile'.",
        default="desktop",
    )
    viewport: tuple[int, int] | None = _help(
        "CSS viewport (width, height). None: 1024x768 desktop (as upstream's browser harness), 412x915 mobile.",
        default=None,
    )
    device_scale_factor: float | None = _help(
        "Screenshot pixels per CSS pixel. None: 1 desktop, 2 mobile.", default=None
    )
    user_agent: str | None = _help(
        "User agent. None: Chromium's own on desktop, a Pixel-like one on mobile.", default=None
    )
    action_timeout_s: float = _help(
        "Seconds one action (plus its own waiting) and one screenshot may take before the step is declared "
        "hung, the browser is killed and relaunched.",
        default=10.0,
    )
    navigation_timeout_s: float = _help("Seconds a navigation (reset, Launch, PressBack) may take.", default=30.0)
    settle_s: float = _help(
        "Pause after each action before waiting for 'load' and taking the screenshot.", default=0.15
    )
    wait_default_s: float | None = _help(
        "Wait() without seconds. None: 3 s desktop, 1 s mobile (upstream).", default=None
    )
    long_press_default_s: float | None = _help(
        "LongPress() without duration. None: 1 s mobile, 20 s desktop (upstream browser prompt).", default=None
    )
    max_wait_s: float = _help("Cap on any Wait or LongPress hold, in seconds.", default=30.0)
    drag_duration_s: float | None = _help(
        "Seconds a Drag takes from press to release. None: 0.5 desktop, 1.0 mobile (upstream).", default=None
    )
    swipe_duration_s: float = _help("Seconds a mobile Swipe takes.", default=0.3)
    allow_hosts: tuple[str, ...] = _help(
        "Hosts pages may reach (exact names or '*.suffix'); everything else is aborted by the network guard.",
        default=LOOPBACK_HOSTS,
    )
    allow_file: bool = _help("Allow file: URLs (local fixture pages, MiniWoB++ HTML).", default=True)
    extra_actions: tuple[str, ...] = _help(
        "Action names accepted beyond the surface vocabulary (e.g. 'RightClick' for a harness-driven page).",
        default=(),
    )
    low_memory: bool = _help(
        "Launch with fewer Chromium processes (no zygote, GPU and network service in the browser process, one "
        "renderer).",
        default=True,
    )
    extra_args: tuple[str, ...] = _help("More Chromium switches, appended last.", default=())
    reuse_context: bool = _help(
        "Reset in the same browser context: clear its cookies and the web storage of every origin the episode "
        "visited, then open a fresh tab (new history). Saves the context set-up and keeps the HTTP cache warm; "
        "for trusted local apps such as the bundled world, whose episodes are bound by cookie. False: a new "
        "context per episode (nothing at all carries over).",
        default=False,
    )

    def __post_init__(self) -> None:
        if self.preset not in ("desktop", "mobile"):
            raise ValueError(f"BrowserConfig.preset must be 'desktop' or 'mobile', got {self.preset!r}.")
        if self.viewport is not None:
            vp = tuple(self.viewport)
            if len(vp) != 2 or not all(isinstance(v, int) and 16 <= v <= 8192 for v in vp):
                raise ValueError(f"BrowserConfig.viewport must be (width, height) in CSS px, 16..8192; got {vp!r}.")
            self.viewport = (vp[0], vp[1])
        for name in ("action_timeout_s", "navigation_timeout_s", "max_wait_s", "swipe_duration_s"):
            if not getattr(self, name) > 0:
                raise ValueError(f"BrowserConfig.{name} must be positive, got {getattr(self, name)!r}.")
        for name in ("wait_default_s", "long_press_default_s", "drag_duration_s", "device_scale_factor"):
            v = getattr(self, name)
            if v is not None and not v > 0:
                raise ValueError(f"BrowserConfig.{name} must be positive or None, got {v!r}.")
        if self.settle_s < 0:
            raise ValueError(f"BrowserConfig.settle_s must be >= 0, got {self.settle_s!r}.")
        self.allow_hosts = NetPolicy(tuple(self.allow_hosts)).allow_hosts
        self.extra_actions = tuple(self.extra_actions)
        self.extra_args = tuple(self.extra_args)
        if any(a.startswith(("--proxy-server", "--proxy-bypass-list", "--no-proxy-server")) for a in self.extra_args):
            raise ValueError("BrowserConfig.extra_args may not set a proxy: the network guard owns it. "
                             "Widen BrowserConfig.allow_hosts instead.")  # fmt: skip

    @property
    def mobile(self) -> bool:
        return self.preset == "mobile"

    def css_viewport(self) -> tuple[int, int]:
        return self.viewport or ((412, 915) if self.mobile else (1024, 768))

    def scale(self) -> float:
        return self.device_scale_factor or (2.0 if self.mobile else 1.0)

    def resolve_executable(self) -> str:
        if self.executable_path:
            return self.executable_path
        if self.headless and os.access(HEADLESS_SHELL, os.X_OK):
            return HEADLESS_SHELL
        return DEBIAN_CHROMIUM

    @classmethod
    def help(cls) -> dict[str, str]:
        """Field name -> help text (the CLI builds its options from this)."""
        return {f.name: f.metadata.get("help", "") for f in fields(cls)}


# ---- processes and memory (from /proc; psutil is not a dependency) ---------------------------------


def _read(path: str) -> str | None:
    try:
        with open(path, "rb") as fh:
            return fh.read().decode(errors="replace")
    except OSError:  # the process exited between listing and reading
        return None


def _proc_table() -> dict[int, tuple[int, list[str]]]:
    """pid -> (parent pid, argv) for every process we can see."""
    table: dict[int, tuple[int, list[str]]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        stat, cmdline = _read(f"/proc/{name}/stat"), _read(f"/proc/{name}/cmdline")
        if stat is None or cmdline is None:
            continue
        ppid = int(stat[stat.rindex(")") + 2 :].split()[1])  # the comm field may contain spaces
        table[int(name)] = (ppid, [a for a in cmdline.split("\0") if a])
    return table


def process_tree(root: int, table: dict[int, tuple[int, list[str]]] | None = None) -> list[int]:
    """`root` and all its descendants."""
    table = table if table is not None else _proc_table()
    children: dict[int, list[int]] = {}
    for pid, (ppid, _) in table.items():
        children.setdefault(ppid, []).append(pid)
    out, todo = [], [root]
    while todo:
        pid = todo.pop()
        out.append(pid)
        todo.extend(children.get(pid, []))
    return out


def _kb(path: str, key: str) -> int:
    text = _read(path) or ""
    for line in text.splitlines():
        if line.startswith(key):
            return int(line.split()[1])
    return 0


def rss_mb(pids: Iterable[int] | None = None) -> float:
    """Summed resident set size, in MB, of `pids` (default: this Python process and all its descendants,
    i.e. the Playwright driver and every Chromium process). Shared pages count once per process, so
    this overstates what a forked Chromium really costs; see `pss_mb`."""
    pids = process_tree(os.getpid()) if pids is None else pids
    return sum(_kb(f"/proc/{p}/status", "VmRSS:") for p in pids) / 1024


def pss_mb(pids: Iterable[int] | None = None) -> float:
    """Summed proportional set size, in MB: shared pages divided among their sharers, so the sum is
    what the processes cost the machine together."""
    pids = process_tree(os.getpid()) if pids is None else pids
    return sum(_kb(f"/proc/{p}/smaps_rollup", "Pss:") for p in pids) / 1024


def _alive(pid: int | None) -> bool:
    stat = _read(f"/proc/{pid}/stat") if pid else None
    return stat is not None and stat[stat.rindex(")") + 2] not in "ZX"


def png_size(png: bytes) -> tuple[int, int]:
    """(width, height) from a PNG's IHDR chunk."""
    if png[:8] != b"\x89PNG\r\n\x1a\n":
        raise EnvError("The browser returned a screenshot that is not a PNG.")
    return struct.unpack(">II", png[16:24])


# ---- the watchdog -------------------------------------------------------------------------------


class _Watchdog:
    """Calls `on_fire` (which kills Chromium) when an armed deadline passes, and `on_stuck` (which kills the
    Playwright driver) if the call is still running `stuck_s` later: killing Chromium makes a blocked call
    return, except where the driver itself loses track of it (a browser that dies during new_page leaves
    new_page pending forever; reproduced with Playwright 1.65). One thread per env, armed and disarmed
    around every guarded call: a threading.Timer per call started a thread each time, three per step.
    Not re-entrant: one guarded call at a time, which is how BrowserEnv uses it."""

    IDLE_EXIT_S = 30.0  # an idle thread exits (and is restarted by the next arm), so an env that is never
    # closed does not hold a thread, and through it the env, forever

    def __init__(self, on_fire: Callable[[], None], on_stuck: Callable[[], None], stuck_s: float = 5.0) -> None:
        self._on_fire, self._on_stuck, self.stuck_s = on_fire, on_stuck, stuck_s
        self._cond = threading.Condition()
        self._deadline: float | None = None
        self._wake_at = 0.0  # when the thread's current wait ends
        self._fired = self._stopped = False
        self._thread: threading.Thread | None = None

    def arm(self, budget_s: float) -> None:
        with self._cond:
            self._deadline, self._fired, self._stopped = time.monotonic() + budget_s, False, False
            if self._thread is None:
                self._thread = threading.Thread(target=self._run, name="venuskit-watchdog", daemon=True)
                self._thread.start()
            elif self._deadline < self._wake_at:  # else it wakes in time anyway: waking it costs ~0.3 ms a step
                self._cond.notify()

    def disarm(self) -> bool:
        """Stop the clock. True if it had fired (the browser has been killed)."""
        with self._cond:
            self._deadline = None
            return self._fired

    def stop(self) -> None:
        """Let the thread exit now (the env is closed)."""
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
                if self._fired:
                    self._deadline = None
                    self._on_stuck()
                else:
                    self._deadline, self._fired = time.monotonic() + self.stuck_s, True
                    self._on_fire()
            self._thread, self._wake_at = None, 0.0


# ---- one Playwright driver per thread --------------------------------------------------------------


class _Driver:
    """One Playwright driver (a node process) per thread, shared by the envs of that thread: Playwright's sync
    API allows no more. A driver that died (the watchdog kills one whose call hung) is replaced for the
    next env that launches; the envs still holding it move on when they relaunch."""

    _local = threading.local()

    def __init__(self, playwright: Playwright) -> None:
        self.playwright = playwright
        self.pid: int | None = None  # learnt from the first browser it launches (their parent)
        self.users = 0

    @classmethod
    def acquire(cls) -> _Driver:
        driver = getattr(cls._local, "driver", None)
        if driver is None or not driver.alive():
            driver = cls._local.driver = cls(_start_playwright())
        driver.users += 1
        return driver

    def alive(self) -> bool:
        return self.pid is None or _alive(self.pid)

    def release(self) -> None:
        self.users -= 1
        if self.users > 0:
            return
        if getattr(self._local, "driver", None) is self:
            self._local.driver = None
        with contextlib.suppress(PlaywrightError):  # a killed driver has nothing left to stop
            self.playwright.stop()


def _start_playwright() -> Playwright:
    # The driver inherits this process's environment; NODE_OPTIONS is changed only while it starts.
    old = os.environ.get("NODE_OPTIONS")
    os.environ["NODE_OPTIONS"] = f"{old} {DRIVER_NODE_OPTIONS}" if old else DRIVER_NODE_OPTIONS
    try:
        return sync_playwright().start()
    except PlaywrightError as e:
        raise EnvError(f"Could not start the Playwright driver: {_first_line(e)}") from e
    finally:
        if old is None:
            del os.environ["NODE_OPTIONS"]
        else:
            os.environ["NODE_OPTIONS"] = old


def _first_line(e: BaseException) -> str:
    return (str(e).strip().splitlines() or [type(e).__name__])[0]


# ---- keys ------------------------------------------------------------------------------------------

_KEY_ALIASES = {
    "ctrl": "Control", "control": "Control", "cmd": "Meta", "command": "Meta", "meta": "Meta", "win": "Meta",
    "super": "Meta", "alt": "Alt", "option": "Alt", "shift": "Shift", "enter": "Enter", "return": "Enter",
    "esc": "Escape", "escape": "Escape", "tab": "Tab", "space": "Space", "backspace": "Backspace",
    "delete": "Delete", "del": "Delete", "insert": "Insert", "home": "Home", "end": "End", "pageup": "PageUp",
    "pgup": "PageUp", "pagedown": "PageDown", "pgdn": "PageDown", "up": "ArrowUp", "down": "ArrowDown",
    "left": "ArrowLeft", "right": "ArrowRight", "arrowup": "ArrowUp", "arrowdown": "ArrowDown",
    "arrowleft": "ArrowLeft", "arrowright": "ArrowRight", "capslock": "CapsLock",
}  # fmt: skip


def playwright_key(name: str) -> str:
    """A model's key name ('ctrl', 'Enter', 'f5', 'C') -> Playwright's ('Control', 'Enter', 'F5', 'c')."""
    low = name.strip().lower()
    if low in _KEY_ALIASES:
        return _KEY_ALIASES[low]
    if len(low) in (2, 3) and low[0] == "f" and low[1:].isdigit():
        return low.upper()
    if len(name) == 1:
        return low  # shortcuts speak lowercase letters; Playwright applies Shift itself
    return name.strip()  # already a Playwright/DOM key name (e.g. 'ArrowUp'); unknown ones fail loudly


# ---- the env ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ProbeResult:
    """What `BrowserEnv(page_probe=...)`'s function returned in the page (ok), or the error it threw."""

    ok: bool
    value: Any  # the function's JSON-able return value, or the error's text when ok is False


Handler = Callable[["BrowserEnv", Any, dict[str, Any]], None]
_NAVIGATING = frozenset({"Launch", "PressBack", "PressHome"})


class BrowserEnv:
    """A Chromium tab the agent drives with venuskit actions. Use as a context manager or call close()."""

    def __init__(self, config: BrowserConfig | None = None, page_probe: str | None = None) -> None:
        """`page_probe`: the source of a JavaScript function without arguments that is run in the page right
        before every screenshot, in the same call that reads the title (so it costs no extra round trip);
        its result is `last_probe`. A wrapping env reads its page state this way (MiniWobEnv's reward)."""
        self.config = config or BrowserConfig()
        self.last_probe: ProbeResult | None = None  # None: the last observation could not run the probe
        self._read_js = _page_read_js(page_probe)
        self.surface = "mobile" if self.config.mobile else "browser"
        self._policy = NetPolicy(self.config.allow_hosts, self.config.allow_file)
        self._driver: _Driver | None = None
        self._browser: Any = None
        self._context: Any = None
        self._origins: set[str] = set()  # origins this episode's main frame visited (reuse_context clears them)
        self._page: Any = None
        self._cdp: Any = None
        self._guard = NetGuard(self._policy)
        self._tag = ""
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
        self._watchdog = _Watchdog(self._kill_browser, self._kill_driver)
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
        self._executed = self._clicked_at = None
        if not self._page_ready():  # Chromium died (or the tab closed itself) since the last step
            obs = self._recover(info)  # the action was planned on a page that is gone: do not run it
            return StepResult(observation=obs, info=info, error=_gone_error(action.name))
        error = self._refusal(action) or self._attempt(
            lambda: self._run(action, info), self._budget(action), action.name
        )
        if not _fatal(error):
            error = self._attempt(self._settle, self._nav_budget(), action.name) or error
        obs = None
        if not _fatal(error):
            try:
                obs = self._guarded(lambda: self._observe(info), self._obs_budget(), action.name)
            except EnvError as e:
                error = e
        if obs is None:
            obs = self._recover(info)
        self._add_feedback(info)
        return StepResult(observation=obs, executed=self._executed, info=info, error=error)

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
        table = _proc_table()
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
            self._driver = _Driver.acquire()
        exe = self.config.resolve_executable()
        if not os.access(exe, os.X_OK):
            raise EnvError(f"No Chromium at {exe}; install Debian's chromium (apt-get install chromium) or set "
                           "BrowserConfig.executable_path.")  # fmt: skip
        self._tag = f"--venuskit-env={uuid.uuid4().hex[:16]}"  # finds our processes in /proc
        # Playwright gives every launch a fresh temporary user-data dir; its artifacts go to our own
        # scratch dir. Playwright removes both on a clean close, _teardown after a kill.
        self._scratch = tempfile.mkdtemp(prefix="venuskit-browser-")
        try:
            self._browser = self._driver.playwright.chromium.launch(
                executable_path=exe, headless=self.config.headless, args=self._chromium_args(),
                downloads_path=self._scratch,
                timeout=self.config.navigation_timeout_s * 1000,
            )  # fmt: skip
        except PlaywrightError as e:
            self._remove_dirs()
            raise EnvError(f"Chromium ({exe}) failed to start: {_first_line(e)}") from e
        self._find_pids()

    def _chromium_args(self) -> list[str]:
        """Our switches after Playwright's; every --enable-features merged into one (see PLAYWRIGHT_FEATURES)."""
        low = self.config.low_memory
        args = [*BASE_ARGS, *(LOW_MEMORY_ARGS if low else ()), *proxy_args(self._policy), *self.config.extra_args]
        enable = "--enable-features="
        features = [f for a in args if a.startswith(enable) for f in a[len(enable) :].split(",") if f]
        features += LOW_MEMORY_FEATURES if low else ()
        args = [a for a in args if not a.startswith(enable)]
        if features:
            args.append(enable + ",".join(dict.fromkeys([*PLAYWRIGHT_FEATURES, *features])))
        return [*args, self._tag]

    def _find_pids(self) -> None:
        table = _proc_table()
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
        return driver_ok and self._browser is not None and self._browser.is_connected() and _alive(self._browser_pid)

    def _kill_browser(self) -> None:
        """SIGKILL our Chromium tree. Safe from the watchdog thread: it touches only /proc and signals."""
        root = self._root_pid
        if root is None:
            return
        for pid in process_tree(root):
            with contextlib.suppress(ProcessLookupError, PermissionError):  # already gone
                os.kill(pid, signal.SIGKILL)

    def _kill_driver(self) -> None:
        """SIGKILL the Playwright driver, whose calls then all fail at once: the last resort for a call that
        Chromium's death did not end. Other envs of this thread lose their browser too and relaunch."""
        pid = self._driver.pid if self._driver is not None else None
        if pid is not None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)

    def _teardown(self, graceful: bool = True) -> None:
        """Close and forget the browser: gracefully when asked and healthy (a watchdog kills it if
        closing hangs), else by SIGKILL. Then remove its temporary directories."""
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
        self._guard.install(ctx)
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
        msg = _first_line(e)
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
        budget = self.config.action_timeout_s + self._hold_s(action)
        return budget + (self.config.navigation_timeout_s if action.name in _NAVIGATING else 0.0)

    def _nav_budget(self) -> float:
        return self.config.navigation_timeout_s + self.config.action_timeout_s

    def _obs_budget(self) -> float:
        return self.config.action_timeout_s

    # -- observation --

    def _observe(self, info: dict[str, Any] | None = None) -> Observation:
        """Read the page in one call (`_read_page`), then capture the viewport through CDP: the same capture
        and clip page.screenshot sends, without its other round trips (layout metrics, preparing and
        restoring every frame for a caret and animation options this env does not use)."""
        title, view, editable = self._read_page(info)
        png = self._capture(view)
        width, height = png_size(png)
        url = self.page.url
        if url.split(":", 1)[0] in LAUNCH_SCHEMES:  # not chrome-error:// or about:blank
            self._last_url = url
        vw, vh = self.config.css_viewport()
        obs_info = {"viewport": [vw, vh], "device_scale_factor": self.config.scale(), "focus_editable": editable}
        return Observation(png=png, width=width, height=height, url=url, title=title, info=obs_info)

    def _read_page(self, info: dict[str, Any] | None) -> tuple[str | None, list[float] | None, bool | None]:
        """One call in the page: wait for web fonts, the <select> under this step's click, the title, the
        probe, the visual viewport (document offset and pinch zoom) to clip the capture to, and whether the
        focused element takes text."""
        point, self._clicked_at, self.last_probe = self._clicked_at, None, None
        fonts_ms = min(FONTS_WAIT_S, self.config.action_timeout_s / 2) * 1000
        read = self._call_in_page(self._read_js, [point, self._doc_id, fonts_ms])
        if read is None:  # a navigation replaced the document mid-call; the screenshot is still good
            self._doc_id = None
            return None, None, None
        title, self._doc_id, options, probe, view, editable = read
        if probe is not None:
            self.last_probe = ProbeResult(ok=bool(probe[0]), value=probe[1])
        if options is not None and point is not None and info is not None:
            self._note_select(point, options, info)
        return title, view, editable

    def _call_in_page(self, fn_js: str, args: list[Any]) -> Any:
        """`fn_js(args)` in the page's main world through this env's CDP session: one round trip of plain
        JSON, ~1 ms less than page.evaluate (measured). None if the document went away mid-call or the
        call threw; raises if the page or browser is gone."""
        expression = f"({fn_js})({json.dumps(args)})"
        params = {"expression": expression, "returnByValue": True, "awaitPromise": True}
        try:
            reply = self._session().send("Runtime.evaluate", params)
        except PlaywrightError as e:
            if not self._browser_alive() or "has been closed" in str(e):
                raise
            return None
        return None if "exceptionDetails" in reply else reply["result"].get("value")

    def _capture(self, view: list[float] | None) -> bytes:
        """A PNG of the viewport in screenshot pixels: the visual viewport (document CSS px at its pinch
        zoom) scaled by the device scale factor. This CDP session has no device-metrics override of its
        own, so without the clip's scale Chromium would capture at CSS size. Byte-identical to
        page.screenshot(), which sends the same clip (checked for desktop and a zoomed, scrolled mobile page)."""
        cdp = self._session()
        if view is None:  # the page read failed: ask the browser (one more round trip)
            vv = cdp.send("Page.getLayoutMetrics")["cssVisualViewport"]
            view = [vv["pageX"], vv["pageY"], vv["scale"]]
        x, y, zoom = view
        vw, vh = self.config.css_viewport()
        clip = {"x": x, "y": y, "width": vw / zoom, "height": vh / zoom, "scale": zoom * self.config.scale()}
        shot = cdp.send("Page.captureScreenshot", {"format": "png", "clip": clip})
        return base64.b64decode(shot["data"])

    def _note_select(self, point: tuple[int, int], options: list[dict[str, Any]], info: dict[str, Any]) -> None:
        """The click landed on a native <select>: list its options (headless screenshots do not show the
        open dropdown) and keep the element for SelectOption."""
        info["select_options"] = options
        try:
            handle = self.page.evaluate_handle(_SELECT_AT_JS, list(point))
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
        if action.name in self.config.extra_actions and action.name in _HANDLERS:
            return None
        if action.name not in spec.actions or action.name not in _HANDLERS:
            accepted = ", ".join(sorted(spec.actions | set(self.config.extra_actions)))
            return ActionRefused(
                f"{action.name} is not an action of the {self.surface} surface; it accepts: {accepted}."
            )
        return None

    def _run(self, action: Action, info: dict[str, Any]) -> None:
        _HANDLERS[action.name](self, action, info)

    def _xy(self, point: Point | None, name: str = "point") -> tuple[int, int]:
        if point is None:
            raise ActionRefused(f"This action needs {name}=(x, y) on the {self.surface} surface.")
        width, height = self.config.css_viewport()
        return coords.point_to_pixels(point.as_tuple(), width, height)

    def _hold_s(self, action: Action) -> float:
        """Seconds an action waits on purpose (Wait, LongPress, Drag/Swipe), capped by max_wait_s."""
        c, mobile = self.config, self.config.mobile
        name = action.name
        if name == "Wait":
            s = action.seconds or c.wait_default_s or (1.0 if mobile else 3.0)  # type: ignore[attr-defined]
        elif name == "LongPress":
            s = action.duration or c.long_press_default_s or (1.0 if mobile else 20.0)  # type: ignore[attr-defined]
        elif name == "Drag":
            s = c.drag_duration_s or (1.0 if mobile else 0.5)
        elif name == "Swipe":
            s = c.swipe_duration_s
        else:
            return 0.0
        return min(float(s), c.max_wait_s)

    def _pause(self, seconds: float) -> None:
        # wait_for_timeout, not time.sleep: the driver keeps dispatching events (route handlers) meanwhile.
        self.page.wait_for_timeout(seconds * 1000)

    def _touch(self, kind: str, x: float | None = None, y: float | None = None) -> None:
        """One CDP touch event, so touch pages see real touchstart/touchmove/touchend."""
        points = [] if x is None else [{"x": x, "y": y}]
        self._session().send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})

    def _click(self, action: Any, info: dict[str, Any], button: str = "left", count: int = 1) -> None:
        x, y = self._xy(action.point)
        page = self.page
        if self.config.mobile:
            self._executed = {"op": "tap", "x": x, "y": y, "count": count}
            for _ in range(count):
                page.touchscreen.tap(x, y)
        else:
            self._executed = {"op": "click", "x": x, "y": y, "button": button, "count": count}
            page.mouse.click(x, y, button=button, click_count=count)
        self._clicked_at = (x, y)  # the observation's page read reports a <select> there (_read_page)

    def _double_click(self, action: Any, info: dict[str, Any]) -> None:
        self._click(action, info, count=2)

    def _triple_click(self, action: Any, info: dict[str, Any]) -> None:
        self._click(action, info, count=3)

    def _right_click(self, action: Any, info: dict[str, Any]) -> None:
        self._click(action, info, button="right")

    def _middle_click(self, action: Any, info: dict[str, Any]) -> None:
        self._click(action, info, button="middle")

    def _hover(self, action: Any, info: dict[str, Any]) -> None:
        x, y = self._xy(action.point)
        self._executed = {"op": "move", "x": x, "y": y}
        self.page.mouse.move(x, y)

    def _drag(self, action: Any, info: dict[str, Any]) -> None:
        (x1, y1), (x2, y2) = self._xy(action.start, "start"), self._xy(action.end, "end")
        duration = self._hold_s(action)
        if self.config.mobile:
            self._touch_drag(x1, y1, x2, y2, duration)
            return
        self._executed = {"op": "drag", "x1": x1, "y1": y1, "x2": x2, "y2": y2, "duration_s": duration}
        mouse = self.page.mouse
        mouse.move(x1, y1)
        mouse.down()
        steps = _steps(duration)
        for i in range(1, steps + 1):
            self._pause(duration / steps)
            mouse.move(x1 + (x2 - x1) * i / steps, y1 + (y2 - y1) * i / steps)
        mouse.up()

    def _swipe(self, action: Any, info: dict[str, Any]) -> None:
        (x1, y1), (x2, y2) = self._xy(action.start, "start"), self._xy(action.end, "end")
        self._touch_drag(x1, y1, x2, y2, self._hold_s(action))

    def _touch_drag(self, x1: int, y1: int, x2: int, y2: int, duration: float) -> None:
        # The finger rests at the end point before lifting, so the page does not fling on: a swipe
        # scrolls by exactly its length and the screenshot after it is reproducible.
        self._executed = {"op": "touch_drag", "x1": x1, "y1": y1, "x2": x2, "y2": y2, "duration_s": duration}
        self._touch("touchStart", x1, y1)
        steps = _steps(duration)
        for i in range(1, steps + 1):
            self._pause(duration / steps)
            self._touch("touchMove", x1 + (x2 - x1) * i / steps, y1 + (y2 - y1) * i / steps)
        self._pause(TOUCH_REST_S)
        self._touch("touchEnd")

    def _long_press(self, action: Any, info: dict[str, Any]) -> None:
        x, y = self._xy(action.point)
        duration = self._hold_s(action)
        kind = "touch" if self.config.mobile else "mouse"
        self._executed = {"op": "long_press", "x": x, "y": y, "duration_s": duration, "input": kind}
        if self.config.mobile:
            self._touch("touchStart", x, y)
            self._pause(duration)
            self._touch("touchEnd")
            return
        self.page.mouse.move(x, y)
        self.page.mouse.down()
        self._pause(duration)
        self.page.mouse.up()

    def _scroll(self, action: Any, info: dict[str, Any]) -> None:
        # Upstream scrolls 2/3 of the viewport per step; an explicit `amount` is CSS pixels here.
        x, y = self._xy(action.point)
        width, height = self.config.css_viewport()
        vertical = action.direction in ("up", "down")
        dist = action.amount or round((height if vertical else width) * 2 / 3)
        sign = -1 if action.direction in ("up", "left") else 1
        dx, dy = (0, sign * dist) if vertical else (sign * dist, 0)
        self._executed = {"op": "wheel", "x": x, "y": y, "dx": dx, "dy": dy}
        self.page.mouse.move(x, y)
        self.page.mouse.wheel(dx, dy)

    def _type(self, action: Any, info: dict[str, Any]) -> None:
        parts = action.content.split("\n")
        self._executed = {"op": "type", "text": action.content, "enters": len(parts) - 1}
        keyboard = self.page.keyboard
        for i, part in enumerate(parts):
            if part:
                keyboard.insert_text(part)
            if i < len(parts) - 1:
                keyboard.press("Enter")

    def _hotkey(self, action: Any, info: dict[str, Any]) -> None:
        if len(action.keys) > MAX_HOTKEY_KEYS:
            raise ActionRefused(
                f"Hotkey takes at most {MAX_HOTKEY_KEYS} keys on the browser surface, got {len(action.keys)}."
            )
        combo = "+".join(playwright_key(k) for k in action.keys)
        self._press(combo, action.repeat)

    def _press(self, combo: str, repeat: int = 1) -> None:
        self._executed = {"op": "key", "combo": combo, "repeat": repeat}
        for _ in range(repeat):
            self.page.keyboard.press(combo)

    def _select_option(self, action: Any, info: dict[str, Any]) -> None:
        element = self._select_target()
        if element is None:
            raise ActionRefused(
                "SelectOption needs a native <select> that was just clicked; click the dropdown first."
            )
        options = element.evaluate(_OPTIONS_JS)
        info["options"] = options
        if action.index >= len(options):
            raise ActionRefused(f"SelectOption index {action.index} is out of range; the <select> has {len(options)} "
                                f"options (0..{len(options) - 1}), listed in info['options'].")  # fmt: skip
        if options[action.index]["disabled"] or element.is_disabled():
            raise ActionRefused(f"Option {action.index} ({options[action.index]['text']!r}) cannot be chosen: "
                                "it or its <select> is disabled.")  # fmt: skip
        self._executed = {"op": "select", "index": action.index}
        element.select_option(index=action.index)
        info["selected"] = options[action.index]

    def _select_target(self) -> Any:
        handle = self.page.evaluate_handle(
            "() => document.activeElement?.tagName === 'SELECT' ? document.activeElement : null"
        )
        element = handle.as_element()
        if element is not None:
            return element
        handle.dispose()
        if self._last_select is not None and self._last_select.evaluate("s => s.isConnected"):
            return self._last_select
        return None

    def _launch_url(self, action: Any, info: dict[str, Any]) -> None:
        # Upstream opens a new tab; we navigate the current one so PressBack returns and one page is observed.
        self._check_url(action.url, "Launch")
        self._executed = {"op": "goto", "url": action.url}
        self._goto(action.url)

    def _press_back(self, action: Any, info: dict[str, Any]) -> None:
        self._executed = {"op": "back"}
        info["moved"] = self.page.go_back(wait_until="domcontentloaded") is not None

    def _press_home(self, action: Any, info: dict[str, Any]) -> None:
        # Browser: the Home key, as upstream (scrolls to the top; inside a text field it moves the caret).
        # Mobile: a browser has no home screen, so Home returns to the episode's start page.
        if not self.config.mobile:
            self._press("Home")
            return
        self._executed = {"op": "goto", "url": self._start_url}
        if self._start_url:
            self._goto(self._start_url)

    def _press_enter(self, action: Any, info: dict[str, Any]) -> None:
        self._press("Enter")

    def _wait(self, action: Any, info: dict[str, Any]) -> None:
        seconds = self._hold_s(action)
        self._executed = {"op": "wait", "seconds": seconds}
        self._pause(seconds)

    def _get_url(self, action: Any, info: dict[str, Any]) -> None:
        info["url"] = self.page.url

    def _take_note(self, action: Any, info: dict[str, Any]) -> None:
        info["note"] = action.content

    def _get_screenshot(self, action: Any, info: dict[str, Any]) -> None:
        info["screenshot"] = "The step's observation is the screenshot; nothing else is saved."

    def _no_op(self, action: Any, info: dict[str, Any]) -> None:
        """Finished / Answer / CallUser: the runner ends the episode; the page is left as it is."""

    def _no_apps(self, action: Any, info: dict[str, Any]) -> None:
        raise ActionRefused(f"{action.name} needs an Android device; the mobile browser preset has no apps "
                            "or recent-apps screen.")  # fmt: skip


_SELECT_AT_JS = "([x, y]) => document.elementFromPoint(x, y)?.closest('select') ?? null"
_OPTION_JS = "(o, i) => ({index: i, text: o.text.trim(), value: o.value, disabled: o.disabled})"
_OPTIONS_JS = f"s => Array.from(s.options, {_OPTION_JS})"
# Whether typing now would land in a text field: true / false, or null when focus is inside a frame or a
# shadow root this document cannot see into. Step checks read it as `info["focus_editable"]`.
_FOCUS_JS = """(() => {
  const a = document.activeElement;
  if (!a || a === document.body || a === document.documentElement) return false;
  if (a.tagName === 'IFRAME' || a.tagName === 'FRAME' || a.shadowRoot) return null;
  if (a.isContentEditable) return true;
  if (a.disabled || a.readOnly) return false;
  if (a.tagName === 'TEXTAREA') return true;
  const kinds = /^(button|submit|reset|checkbox|radio|file|image|range|color|hidden)$/i;
  return a.tagName === 'INPUT' && !kinds.test(a.type);
})()"""


# The observation's one page read (see _read_page). The <select> check runs only in the document observed
# before the click (docId, its performance.timeOrigin; null: unknown), so a click that navigated does not
# report a <select> of the next page. PROBE is replaced by the env's page_probe call, or null.
_READ_PAGE_JS = """async ([point, docId, fontsMs]) => {
  const fonts = document.fonts;
  if (fonts && fonts.status !== 'loaded')
    await Promise.race([fonts.ready, new Promise(done => setTimeout(done, fontsMs))]);
  const doc = performance.timeOrigin;
  let options = null;
  if (point && (docId === null || doc === docId)) {
    const select = document.elementFromPoint(point[0], point[1])?.closest('select');
    if (select) options = Array.from(select.options, OPTION);
  }
  const vv = window.visualViewport;
  const view = vv ? [vv.pageLeft, vv.pageTop, vv.scale] : [window.scrollX, window.scrollY, 1];
  return [document.title, doc, options, PROBE, view, FOCUS];
}""".replace("OPTION", _OPTION_JS).replace("FOCUS", _FOCUS_JS)


_PROBE_CALL_JS = "(() => { try { return [true, (PROBE)()]; } catch (e) { return [false, String(e)]; } })()"


def _page_read_js(probe: str | None) -> str:
    """_READ_PAGE_JS with the probe function's call; a probe that throws yields [false, its message]."""
    call = "null" if probe is None else _PROBE_CALL_JS.replace("PROBE", probe)
    return _READ_PAGE_JS.replace("PROBE", call)


_HANDLERS: dict[str, Handler] = {
    "Click": BrowserEnv._click, "DoubleClick": BrowserEnv._double_click, "TripleClick": BrowserEnv._triple_click,
    "RightClick": BrowserEnv._right_click, "MiddleClick": BrowserEnv._middle_click, "Hover": BrowserEnv._hover,
    "Drag": BrowserEnv._drag, "Swipe": BrowserEnv._swipe, "LongPress": BrowserEnv._long_press,
    "Scroll": BrowserEnv._scroll, "Type": BrowserEnv._type, "Hotkey": BrowserEnv._hotkey,
    "SelectOption": BrowserEnv._select_option, "Launch": BrowserEnv._launch_url, "PressBack": BrowserEnv._press_back,
    "PressHome": BrowserEnv._press_home, "PressEnter": BrowserEnv._press_enter, "Wait": BrowserEnv._wait,
    "GetUrl": BrowserEnv._get_url, "TakeNote": BrowserEnv._take_note, "GetScreenshot": BrowserEnv._get_screenshot,
    "Finished": BrowserEnv._no_op, "Answer": BrowserEnv._no_op, "CallUser": BrowserEnv._no_op,
    "LaunchApp": BrowserEnv._no_apps, "PressRecent": BrowserEnv._no_apps,
}  # fmt: skip


def _steps(duration: float) -> int:
    """Moves in a drag: about one per 30 ms (each move is a round trip to the browser), 5 to 20."""
    return max(5, min(20, round(duration / 0.03)))


def _gone_error(what: str) -> BrowserCrashed:
    return BrowserCrashed(f"The browser had died (or its tab closed) before {what}; it was relaunched at the last "
                          f"URL and {what} was not run.")  # fmt: skip


def _fatal(error: EnvError | None) -> bool:
    """Errors after which the browser has been killed and must be relaunched."""
    return isinstance(error, (ActionTimeout, BrowserCrashed))
