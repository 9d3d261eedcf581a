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
The Chromium process itself (launch, sharing, the watchdog that kills it when a call hangs, teardown) is
`chromium.Chromium`.

Speed. A step is the action, one page read and one capture: the page read (js.READ_PAGE_JS) gets the title,
a clicked <select>'s options, the visual viewport and a wrapping env's `page_probe` result in one
Runtime.evaluate, and the capture is one Page.captureScreenshot with the clip page.screenshot would send,
both on the env's own CDP session (page.screenshot and page.title cost ~4 more round trips per step); at
device scale 1 the two go out together, one round trip (`_read_and_capture`). Before them one more round trip asks
the page whether the action made it begin to leave (`_follow_leaving`: a capture sent between two documents never
returns); ~1.5 ms of a 12 ms MiniWoB step (benchmarks/step_overhead.py, measured).

The action handlers live in `actions.py` (they see this env as an `actions.Tab`), the page inspector in
`inspect.py`, the JavaScript in `js.py`, the launch switches in `config.py`.
"""

from __future__ import annotations

import base64
import contextlib
import json
import struct
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Self

from playwright.sync_api import Error as PlaywrightError
from playwright.sync_api import TimeoutError as PlaywrightTimeoutError

from venuskit.actions.surfaces import get_surface
from venuskit.actions.types import Action
from venuskit.envs.base import ActionRefused, ActionTimeout, BrowserCrashed, EnvError, Observation, StepResult
from venuskit.envs.browser import inspect
from venuskit.envs.browser.actions import HANDLERS, hold_s
from venuskit.envs.browser.chromium import Chromium
from venuskit.envs.browser.config import LAUNCH_SCHEMES, MOBILE_UA, BrowserConfig
from venuskit.envs.browser.driver import send_together
from venuskit.envs.browser.js import LEAVING_INIT_JS, SELECT_AT_JS, TAKE_LEAVING_JS, page_read_js
from venuskit.envs.netguard import NetGuard, NetPolicy, RequestGate, url_allowed

_WEB_STORAGE = "local_storage,indexeddb,websql,service_workers,cache_storage,file_systems"
# page.screenshot waited for web fonts; the observation does too, but never longer than this (or half the
# action timeout): a stalled font request then shows fallback text instead of hanging every step.
FONTS_WAIT_S = 2.0
CAPTURE_RETRY_S = 0.05  # between captures of a tab that has no frame yet
LEAVE_POLL_S = 0.02  # while a page that began to leave waits for its next document
REQUEST_GRACE_S = 0.15  # with a request gate: the least pause after an action (a submit reaches the route in ms)
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
        self._chromium = Chromium(self.config, self._policy)
        self._context: Any = None
        self._origins: set[str] = set()  # origins this episode's main frame visited (reuse_context clears them)
        self._page: Any = None
        self._cdp: Any = None
        self._request_gate: RequestGate | None = None  # screens every request the page sends (gate_requests)
        self._guard = NetGuard(self._policy)
        self._start_url: str | None = None
        self._last_url: str | None = None
        self._last_select: Any = None
        self._clicked_at: tuple[int, int] | None = None  # the point of this step's click, for the <select> check
        self._doc_id: float | None = None  # performance.timeOrigin of the document last observed
        self._loaded = False  # the page's 'load' was seen and nothing navigated since
        self._navigations = 0  # main-frame documents Playwright has reported (the leaving check's clock)
        self._stayed = 0  # main-frame navigations that ended without a new document (a 204, a download)
        self._executed: dict[str, Any] | None = None
        self._dialogs: list[dict[str, str]] = []
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
        return self._chromium.browser_pid

    def reset(self, task: dict[str, Any]) -> Observation:
        """Start an episode at task["start_url"] in a fresh browser context (or a cleaned one, with
        `reuse_context`). Raises EnvError subclasses."""
        url = self._reset_url(task)
        self._require_open()
        try:
            if not self._chromium.alive():
                self._launch()
            self._chromium.guarded(self._open_context, self._nav_budget(), "reset")
            self._start_url = self._last_url = url
            self._chromium.guarded(lambda: self._goto(url), self._nav_budget(), "reset")
            # The start page is the first history entry: PressBack must reach neither the blank tab nor,
            # in a recycled context, the previous episode.
            self._chromium.guarded(lambda: self.cdp("Page.resetNavigationHistory"), self._nav_budget(), "reset")
            self._decide_held("reset", "the start page's load")
            obs = self._chromium.guarded(self._observe, self._obs_budget(), "reset")
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
                obs = self._chromium.guarded(lambda: self._observe(info), self._obs_budget(), action.name)
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
        error = self._refusal(action) or self._chromium.attempt(
            lambda: self._run(action, info), self._budget(action), action.name
        )
        if not _fatal(error):
            error = self._chromium.attempt(self._settle, self._nav_budget(), action.name) or error
        if not _fatal(error):
            error = self._decide_held(action.name, f"{action.name} or a script of the page") or error
        return None, error

    def observe(self) -> Observation:
        """A fresh screenshot observation. After a hang or crash it relaunches, then raises the error."""
        if not self._page_ready():
            self._recover({})
            raise _gone_error("observe")
        try:
            return self._chromium.guarded(self._observe, self._obs_budget(), "observe")
        except (ActionTimeout, BrowserCrashed):
            self._recover({})
            raise

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._teardown()
        self._chromium.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def memory_pids(self) -> list[int]:
        """This Python process, the Playwright driver and this env's Chromium process tree."""
        return self._chromium.memory_pids()

    def rss_mb(self) -> float:
        """Summed RSS of memory_pids(), in MB (overcounts pages shared between Chromium processes)."""
        return self._chromium.rss_mb()

    def pss_mb(self) -> float:
        """Summed PSS of memory_pids(), in MB: what this env costs the machine."""
        return self._chromium.pss_mb()

    # -- the harness's safety gate: what it reads of the page and of the requests the page sends --

    def gate_requests(self, gate: RequestGate | None) -> None:
        """Screen every request the page sends with `gate` (None: stop). A request it holds stays pending in the
        browser until the end of the step that sent it (or of reset), when the gate decides; one it refuses is
        never sent (netguard.py)."""
        self._request_gate = self._guard.gate = gate


    def describe_point(self, point: tuple[float, float]) -> inspect.Target | None:
        """The control under a normalised point, with the link or form it activates."""
        return self._inspect(lambda: inspect.describe_point(self.cdp, self.config, point), "inspect")

    def describe_focus(self, key: str = "enter") -> inspect.Target | None:
        """What `key` ("enter", "space", "select") would act on: the focused control and the form it submits."""
        return self._inspect(lambda: inspect.describe_focus(self.cdp, key), "inspect")

    def describe_accesskey(self, key: str) -> inspect.Target | None:
        """The control Alt+`key` (its access key) would activate."""
        return self._inspect(lambda: inspect.describe_accesskey(self.cdp, key), "inspect")

    def value_boxes(self, needles: list[str], size: tuple[int, int]) -> list[tuple[int, int, int, int]]:
        """Screenshot-pixel boxes of every field and text run on the page that shows one of `needles`."""
        return self._inspect(lambda: inspect.value_boxes(self.cdp, self.config, needles, size), "mask")

    def _inspect(self, fn: Callable[[], Any], what: str) -> Any:
        self._page_ready()  # raises when no episode was started
        return self._chromium.guarded(fn, self.config.action_timeout_s, what)

    # -- what the action handlers use (actions.Tab) --

    @property
    def last_select(self) -> Any:
        return self._last_select

    def cdp(self, method: str, params: dict[str, Any] | None = None) -> Any:
        return self._session().send(method, params or {})

    def sent(self, executed: dict[str, Any]) -> None:
        self._executed = executed
        if executed.get("op") in ("click", "tap"):
            self._clicked_at = (executed["x"], executed["y"])  # the observation's page read reports a <select> there

    def open(self, url: str, what: str) -> None:
        self._check_url(url, what)
        self.sent({"op": "goto", "url": url})
        self._goto(url)

    def open_start(self) -> None:
        self.sent({"op": "goto", "url": self._start_url})
        if self._start_url:
            self._goto(self._start_url)

    # -- launch, contexts, recovery --

    def _require_open(self) -> None:
        if self._closed:
            raise EnvError("This BrowserEnv is closed; create a new one.")

    def _page_ready(self) -> bool:
        """Raise if no episode was started; else whether the tab is usable as it is."""
        self._require_open()
        if self._start_url is None:
            raise EnvError("The browser env has no episode yet; call reset(task) first.")
        return self._page is not None and not self._page.is_closed() and self._chromium.alive()

    def _launch(self) -> None:
        self._teardown(graceful=False)  # only ever replaces a dead or hung browser
        self._chromium.launch()

    def _teardown(self, graceful: bool = True) -> None:
        """Close the browser (or, when shared, this env's context) and forget the tab."""
        self._chromium.teardown(graceful, self._context)
        self._context = self._page = self._cdp = self._last_select = None

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
            ua = MOBILE_UA.format(major=self._chromium.browser.version.split(".")[0])
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
        self._guard = NetGuard(self._policy, gate=self._request_gate)
        self._dialogs = []
        ctx = self._chromium.browser.new_context(**self._context_options())
        ctx.set_default_timeout(self.config.action_timeout_s * 1000)
        ctx.set_default_navigation_timeout(self.config.navigation_timeout_s * 1000)
        self._guard.install(ctx, webrtc=self.config.webrtc)
        ctx.add_init_script(LEAVING_INIT_JS)
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
            self._guard.drain_gated()
            self._guard.take_held()  # requests the last episode left pending stay so; they go with its documents
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
        page.on("response", self._on_response)
        page.on("download", self._on_download)

    def _on_navigated(self, frame: Any) -> None:
        # Any main-frame navigation (a new document or a same-document URL change) means the next settle
        # asks Playwright for the load state again instead of trusting the last answer.
        if frame.parent_frame is None and frame.page is self._page:
            self._loaded = False
            self._navigations += 1
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
        self._chromium.guarded(self._open_context, self._nav_budget(), "relaunch")
        error = self._chromium.attempt(lambda: self._goto(url), self._nav_budget(), "relaunch") if url else None
        if error is not None:
            info["relaunch_error"] = str(error)  # e.g. the server has gone: the error page is observed
        if _fatal(error):
            return None
        try:
            return self._chromium.guarded(self._observe, self._obs_budget(), "relaunch")
        except (ActionTimeout, BrowserCrashed) as e:
            info["relaunch_error"] = str(e)
            return None

    # -- budgets --

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
            if not isinstance(shot, PlaywrightError) or not self._chromium.alive() or "has been closed" in str(shot):
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
            if not self._chromium.alive() or "has been closed" in str(reply):
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
        # With a request gate, the pause is long enough for what the action made the page send to reach the
        # route layer, so it is decided in this step, not the next (or never, after a Finished).
        pause = max(self.config.settle_s, REQUEST_GRACE_S if self._request_gate is not None else 0.0)
        if pause:
            self.page.wait_for_timeout(pause * 1000)
        self._follow_leaving()
        if not self._loaded:  # else nothing navigated since 'load' was seen: there is nothing to wait for
            self._wait_loaded()

    def _follow_leaving(self) -> None:
        """When the page says it began to leave (js.LEAVING_INIT_JS) and Playwright has not yet seen its next
        document, wait for it, or for the navigation to end nowhere, or for the gate to hold its request. A capture
        sent while the main frame is between documents never returns (the watchdog then kills the browser: the
        step fails and the click's page is lost), and a Finished right after a submit would end the episode before
        the submit reached the server. The pause after an action made this a matter of load: a loaded CI machine
        lost an oracle's episode, and with no pause most episodes that click a link lost it (measured)."""
        seen = (self._navigations, self._stayed)
        try:
            reply: Any = self._session().send("Runtime.evaluate", self._page_call(TAKE_LEAVING_JS, []))
        except PlaywrightError as e:
            reply = e
        if isinstance(reply, dict) and "exceptionDetails" in reply:
            return  # the page's own script broke the read (a hostile getter): no note, no wait on every step
        leaving = self._page_value(reply) is not False  # None: the document went away during the call
        deadline = time.monotonic() + self.config.action_timeout_s
        while leaving and (self._navigations, self._stayed) == seen and time.monotonic() < deadline:
            if self._guard.holding():
                return  # the gate decides the request next (_decide_held); its page is waited for then
            self.page.wait_for_timeout(LEAVE_POLL_S * 1000)  # lets Playwright deliver the page's events

    def _on_response(self, response: Any) -> None:
        # A navigation answered with no document (204/205) ends where it began: nothing will commit.
        if response.status in (204, 205) and response.request.is_navigation_request():
            with contextlib.suppress(PlaywrightError):
                if response.frame.parent_frame is None:
                    self._stayed += 1

    def _on_download(self, _download: Any) -> None:
        self._stayed += 1  # a navigation that became a download leaves the page as it was

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
        blocked, gated = self._guard.drain(), self._guard.drain_gated()
        if blocked:
            info["blocked"] = blocked
        if gated:
            info["gated_requests"] = gated
        if self._dialogs:
            info["dialogs"], self._dialogs = self._dialogs, []

    def _decide_held(self, what: str, when: str) -> EnvError | None:
        """The gate decides the requests it held during `what`: an approved one is sent now (and a page it loads
        is waited for), a refused one never. Not under the watchdog: the approver may be a person."""
        held = self._guard.take_held()
        if not held or self._request_gate is None:
            return None
        try:
            records = self._request_gate.decide_requests([(req, rec) for req, rec, _ in held], when)
        except Exception as exc:  # noqa: BLE001 - a gate that cannot decide sends nothing
            records = [{**rec, "decision": "block", "reason": f"the gate failed ({type(exc).__name__})"}
                       for _, rec, _ in held]  # fmt: skip
        for i, (_, rec, release) in enumerate(held):
            record = records[i] if i < len(records) else {**rec, "decision": "block"}
            self._guard.gated.append(record)
            if record.get("decision") != "allow":
                continue  # never sent: the page keeps waiting for an answer that does not come
            error = self._chromium.attempt(lambda r=release: self._send(r), self._nav_budget(), what)
            if error is not None:
                return error
        return None

    def _send(self, release: Callable[[bool], str | None]) -> None:
        """Send an approved held request; a navigation's page is then shown where it led."""
        led_to = release(True)
        if led_to is not None and url_allowed(led_to, self._policy):
            self._goto(led_to)

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
        HANDLERS[action.name](self, action, info)  # self is the handler's Tab


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
