"""Render composed pages in one reused Chromium and read every label back in one `page.evaluate` call.

The browser comes from `venuskit.envs.browser.BrowserEnv` (Debian Chromium through Playwright, with its launch
flags and process hygiene). Device scale factor is fixed per browser context, so the renderer keeps one context
and tab per (dsf, mobile) and only resizes the viewport between pages. Pages are set with `set_content` (no
network: every asset is inline, and any request a page makes is aborted).

A label is kept only if the runtime found it visible, inside the viewport and its clipping ancestors, and not
covered (elementFromPoint on a grid inside the box); then its CSS box is scaled by the dsf, rounded outward,
must be at least 4×4 pixels, and is widened by one pixel of paint snapping (boxes.SNAP_PAD) and clipped.
"""

from __future__ import annotations

import contextlib
import logging
import os
import signal
import threading
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from playwright.sync_api import Error as PlaywrightError

from venuskit.actions.coords import SNAP_PAD, css_to_pixels
from venuskit.envs.base import EnvError
from venuskit.envs.browser import BrowserConfig, BrowserEnv, png_size, process_tree
from venuskit.synth.grounding.spec import MIN_TARGET_PX, Label, PageSpec, RenderError, Resolution

log = logging.getLogger(__name__)


@dataclass
class Rendered:
    """A rendered page: the screenshot, the kept labels by target id, the visible text, and why others went."""

    png: bytes
    size: tuple[int, int]
    labels: dict[str, Label]
    text: str
    rejected: Counter[str] = field(default_factory=Counter)


def labels_from_raw(raw: list[dict[str, Any]], dsf: float, size: tuple[int, int]) -> tuple[dict[str, Label], Counter]:
    """Runtime label records (CSS px) → kept Labels (screenshot px), counting the reasons for the rest."""
    kept: dict[str, Label] = {}
    rejected: Counter[str] = Counter()
    for item in raw:
        if item.get("why"):
            rejected[item["why"]] += 1
            continue
        css = (float(item["x"]), float(item["y"]), float(item["w"]), float(item["h"]))
        core = css_to_pixels(*css, dsf, size)
        if core[2] - core[0] < MIN_TARGET_PX or core[3] - core[1] < MIN_TARGET_PX:
            rejected["small"] += 1
            continue
        box = css_to_pixels(*css, dsf, size, pad=SNAP_PAD)
        point = (item["px"] * dsf, item["py"] * dsf) if item.get("kind") == "point" else None
        kept[item["id"]] = Label(item["id"], box, css, item.get("kind", "box"), point)
    return kept, rejected


class Renderer:
    """One Chromium for many pages. Use as a context manager, or call close()."""

    def __init__(self, timeout_s: float = 20.0, executable_path: str | None = None) -> None:
        self.timeout_ms = timeout_s * 1000
        # No 60 Hz frame pacing: a screenshot then need not wait for the next vsync (envs.miniwob does the same).
        self._config = BrowserConfig(
            executable_path=executable_path, action_timeout_s=timeout_s, extra_args=("--disable-frame-rate-limit",)
        )
        self._env: BrowserEnv | None = None
        self._pages: dict[tuple[float, bool], Any] = {}

    def __enter__(self) -> Renderer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def browser_pid(self) -> int | None:
        """The Chromium browser process, once one runs (for diagnostics and crash tests)."""
        return self._env.browser_pid if self._env is not None else None

    def close(self) -> None:
        self._pages.clear()
        if self._env is not None:
            self._env.close()
            self._env = None

    def page(self, resolution: Resolution, mobile: bool) -> Any:
        """The tab for this dsf (created on first use), resized to the resolution's viewport."""
        key = (resolution.dsf, mobile)
        page = self._pages.get(key)
        if page is None or page.is_closed():
            page = self._pages[key] = self._new_page(resolution, mobile)
        size = page.viewport_size or {}
        if (size.get("width"), size.get("height")) != (resolution.width, resolution.height):
            page.set_viewport_size({"width": resolution.width, "height": resolution.height})
        return page

    def _new_page(self, resolution: Resolution, mobile: bool) -> Any:
        if self._env is None:
            self._env = BrowserEnv(self._config)
            self._env.reset({"start_url": "about:blank"})
        browser = self._env.page.context.browser
        viewport = {"width": resolution.width, "height": resolution.height}
        ctx = browser.new_context(
            viewport=viewport,
            device_scale_factor=resolution.dsf,
            is_mobile=mobile,
            has_touch=mobile,
            service_workers="block",
        )
        ctx.route("**/*", lambda route: route.abort())  # pages are self-contained; nothing may load
        ctx.set_default_timeout(self.timeout_ms)
        return ctx.new_page()

    def load(self, spec: PageSpec, plain: bool = False) -> Any:
        """Set the page's HTML and wait for its fonts. plain=True turns shadows and outlines off (pixel check)."""
        page = self.page(spec.resolution, spec.mobile)
        page.set_content(spec.html, wait_until="load", timeout=self.timeout_ms)
        page.evaluate("() => document.fonts.ready.then(() => true)")
        if plain:
            page.evaluate("() => window.__gt.plain()")
        return page

    def render(self, spec: PageSpec) -> Rendered:
        """Render one page; any browser failure or hang becomes a RenderError naming the page's seed."""
        fired = threading.Event()
        timer = None
        try:
            page = self.page(spec.resolution, spec.mobile)  # may launch the browser: outside the watchdog's budget
            timer = self._watchdog(fired)
            page = self.load(spec)
            data = page.evaluate("() => window.__gt.labels()")
            png = page.screenshot(type="png", animations="disabled", caret="hide", timeout=self.timeout_ms)
        except (PlaywrightError, EnvError) as e:
            self._recover()
            why = f"it hung for {self.timeout_ms / 1000:g} s" if fired.is_set() else str(e).strip().splitlines()[0]
            raise RenderError(f"Page seed {spec.seed} failed to render: {why}") from e
        finally:
            if timer is not None:
                timer.cancel()
        if fired.is_set():  # finished just as the watchdog fired: the browser is gone all the same
            self._recover()
            raise RenderError(f"Page seed {spec.seed} failed to render: it hung for {self.timeout_ms / 1000:g} s")
        size = png_size(png)
        expected = spec.resolution.shot_size
        if abs(size[0] - expected[0]) > 1 or abs(size[1] - expected[1]) > 1:
            raise RenderError(
                f"Page seed {spec.seed}: the screenshot is {size}, not the {expected} its "
                f"{spec.resolution} viewport makes; its labels would not line up."
            )
        labels, rejected = labels_from_raw(data["labels"], spec.resolution.dsf, size)
        return Rendered(png, size, labels, data["text"], rejected)

    def _watchdog(self, fired: threading.Event) -> threading.Timer:
        """Kill Chromium if the page is not done in time: page.evaluate has no timeout of its own, and a page
        stuck in a script would block it forever. The blocked call then fails, and _recover starts anew."""
        pid = self.browser_pid

        def kill() -> None:
            fired.set()
            for p in process_tree(pid) if pid else []:
                with contextlib.suppress(ProcessLookupError, PermissionError):  # it exited meanwhile
                    os.kill(p, signal.SIGKILL)

        timer = threading.Timer(self.timeout_ms / 1000 * 2, kill)
        timer.daemon = True
        timer.start()
        return timer

    def _recover(self) -> None:
        """After a failure, forget every tab; if the browser died too, start a new one next time."""
        for page in self._pages.values():
            with contextlib.suppress(PlaywrightError):  # its browser is gone, which close() below handles
                page.context.close()
        self._pages.clear()
        env = self._env
        if env is not None and not (env.browser_pid and _browser_alive(env)):
            self.close()


def _browser_alive(env: BrowserEnv) -> bool:
    try:
        return env.page.context.browser.is_connected()
    except (PlaywrightError, EnvError):
        return False
