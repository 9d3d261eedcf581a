"""How to launch and drive the browser: `BrowserConfig` and the Chromium switches every launch gets."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import Literal

from venuskit.envs.netguard import LOOPBACK_HOSTS, NetPolicy
from venuskit.infra.config import field_help, option

DEBIAN_CHROMIUM = "/usr/bin/chromium"
HEADLESS_SHELL = "/usr/lib/chromium/chromium-headless-shell"  # Debian package chromium-headless-shell
# Flags every launch gets: no sandbox (containers), no GPU, nothing phoning home, no smooth scrolling
# (a wheel step must be finished by the time we take the screenshot).
BASE_ARGS: tuple[str, ...] = (
    "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--no-first-run", "--disable-smooth-scrolling",
)  # fmt: skip
# Fewer processes (5 instead of 8 with the headless shell): ~130 MB less summed RSS; the PSS, what the
# machine really pays, stays about the same (~350 MB with the driver; measured on Chromium 156). And no
# SwiftShader (the software GPU, only WebGL needs it; pages draw with the CPU rasteriser either way): ~13 MB.
LOW_MEMORY_ARGS: tuple[str, ...] = (
    "--no-zygote", "--in-process-gpu", "--renderer-process-limit=1", "--disable-software-rasterizer",
)  # fmt: skip
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
# One glibc malloc arena for the driver (and the Chromium it starts, which allocates mostly with its own
# PartitionAlloc): node's helper threads otherwise each grow an arena; ~10 MB less driver RSS (measured).
DRIVER_MALLOC_ARENA_MAX = "1"
MOBILE_UA = (
    "Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) "
    "Chrome/{major}.0.0.0 Mobile Safari/537.36"
)
LAUNCH_SCHEMES = ("http", "https", "file")
# Switches the network guard sets; extra_args may not override them.
_GUARD_SWITCHES = (
    "--proxy-server", "--proxy-bypass-list", "--no-proxy-server", "--proxy-pac-url", "--proxy-auto-detect",
    "--force-webrtc-ip-handling-policy", "--webrtc-ip-handling-policy",
)  # fmt: skip



@dataclass
class BrowserConfig:
    """How to launch and drive the browser. Environment variables are read by the CLI, never here."""

    executable_path: str | None = option(
        "Chromium binary. None: Debian's chromium-headless-shell when headless and installed (what Playwright "
        "itself runs headless; ~170 MB less memory), else /usr/bin/chromium.",
        default=None,
    )
    headless: bool = option("Run without a window (needs no X display).", default=True)
    preset: Literal["desktop", "mobile"] = option(
        "desktop: mouse + keyboard, surface 'browser'. mobile: touch, 412x915 CSS px at 2x, surface 'mobile'.",
        default="desktop",
    )
    viewport: tuple[int, int] | None = option(
        "CSS viewport (width, height). None: 1024x768 desktop (as upstream's browser harness), 412x915 mobile.",
        default=None,
    )
    device_scale_factor: float | None = option(
        "Screenshot pixels per CSS pixel. None: 1 desktop, 2 mobile.", default=None
    )
    user_agent: str | None = option(
        "User agent. None: Chromium's own on desktop, a Pixel-like one on mobile.", default=None
    )
    action_timeout_s: float = option(
        "Seconds one action (plus its own waiting) and one screenshot may take before the step is declared "
        "hung, the browser is killed and relaunched.",
        default=10.0,
    )
    navigation_timeout_s: float = option("Seconds a navigation (reset, Launch, PressBack) may take.", default=30.0)
    settle_s: float = option(
        "Pause after each action before waiting for 'load' and taking the screenshot.", default=0.15
    )
    wait_default_s: float | None = option(
        "Wait() without seconds. None: 3 s desktop, 1 s mobile (upstream).", default=None
    )
    long_press_default_s: float | None = option(
        "LongPress() without duration. None: 1 s mobile, 20 s desktop (upstream browser prompt).", default=None
    )
    max_wait_s: float = option("Cap on any Wait or LongPress hold, in seconds.", default=30.0)
    drag_duration_s: float | None = option(
        "Seconds a Drag takes from press to release. None: 0.5 desktop, 1.0 mobile (upstream).", default=None
    )
    swipe_duration_s: float = option("Seconds a mobile Swipe takes.", default=0.3)
    allow_hosts: tuple[str, ...] = option(
        "Hosts pages may reach (exact names or '*.suffix'); everything else is aborted by the network guard.",
        default=LOOPBACK_HOSTS,
    )
    allow_file: bool = option("Allow file: URLs (local fixture pages, MiniWoB++ HTML).", default=True)
    webrtc: bool = option(
        "Let pages create WebRTC connections. Off: RTCPeerConnection is removed from pages and every attempt is "
        "recorded as blocked. Either way Chromium sends no WebRTC traffic that bypasses the network guard.",
        default=False,
    )
    extra_actions: tuple[str, ...] = option(
        "Action names accepted beyond the surface vocabulary (e.g. 'RightClick' for a harness-driven page).",
        default=(),
    )
    low_memory: bool = option(
        "Launch with fewer Chromium processes (no zygote, GPU and network service in the browser process, one "
        "renderer).",
        default=True,
    )
    extra_args: tuple[str, ...] = option("More Chromium switches, appended last.", default=())
    share_browser: bool = option(
        "Share one Chromium with the other envs of this thread that launch it with the same settings; each env "
        "keeps its own browser context (cookies, storage, tabs). An extra env then costs a context, not a "
        "browser (parallel rollouts). A crash or a hang that kills the browser makes every env on it relaunch.",
        default=False,
    )
    reuse_context: bool = option(
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
        if any(a.startswith(_GUARD_SWITCHES) for a in self.extra_args):
            raise ValueError("BrowserConfig.extra_args may not set a proxy or the WebRTC policy: the network guard "
                             "owns them. Widen BrowserConfig.allow_hosts (or set webrtc=True) instead.")  # fmt: skip

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
        return field_help(cls)
