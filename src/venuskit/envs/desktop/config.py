"""DesktopConfig: how the desktop env starts its X server and drives input. Environment variables are never read
here (the CLI reads them)."""

from __future__ import annotations

from dataclasses import dataclass

from venuskit.infra.config import field_help, option


@dataclass
class DesktopConfig:
    screen: tuple[int, int] = option("Screen size in pixels (width, height).", default=(1280, 800))
    window_manager: bool = option("Run openbox (title bars, focus on click, the root menu).", default=True)
    background: tuple[int, int, int] = option("Desktop background colour (RGB).", default=(58, 110, 165))
    frame_s: float = option(
        "After the apps have handled an action's input (each answers a _NET_WM_PING sent after it), wait this long "
        "for the repaint it caused; GTK paints on its next frame.",
        default=0.015,
    )
    first_repaint_s: float = option(
        "When a window cannot be pinged (xterm): wait this long for the first repaint an action causes before "
        "taking the screenshot; an action that changes nothing on screen costs this much.",
        default=0.05,
    )
    ping_timeout_s: float = option("Cap on waiting for the apps to answer the ping (a busy or hung app).", default=0.5)
    settle_max_s: float = option(
        "Cap on waiting for the screen to stop changing (an animation or a busy app ends the wait here).",
        default=1.5,
    )
    action_timeout_s: float = option(
        "Seconds one action (plus its own waiting) and one screenshot may take before the X server is declared "
        "hung, killed and the desktop relaunched.",
        default=10.0,
    )
    launch_timeout_s: float = option("Seconds an app may take to show its window at reset.", default=20.0)
    wait_default_s: float = option("Wait() without seconds.", default=1.0)
    max_wait_s: float = option("Cap on any Wait, in seconds.", default=30.0)
    drag_duration_s: float = option("Seconds a Drag takes from press to release (upstream: 0.5).", default=0.5)
    key_hold_s: float = option(
        "Extra time a Hotkey's keys stay down (they are always held until the window manager has seen them).",
        default=0.0,
    )
    png_compress_level: int = option("zlib level of the screenshot PNG (1: fastest; 6: smallest).", default=1)

    def __post_init__(self) -> None:
        size = tuple(self.screen)
        if len(size) != 2 or not all(isinstance(v, int) and 200 <= v <= 8192 for v in size):
            raise ValueError(f"DesktopConfig.screen must be (width, height), 200..8192 pixels; got {self.screen!r}.")
        self.screen = (size[0], size[1])
        for name in ("action_timeout_s", "launch_timeout_s", "wait_default_s", "max_wait_s", "settle_max_s"):
            if not getattr(self, name) > 0:
                raise ValueError(f"DesktopConfig.{name} must be positive, got {getattr(self, name)!r}.")
        for name in ("frame_s", "first_repaint_s", "ping_timeout_s", "drag_duration_s", "key_hold_s"):
            if getattr(self, name) < 0:
                raise ValueError(f"DesktopConfig.{name} must be >= 0, got {getattr(self, name)!r}.")
        if not 0 <= self.png_compress_level <= 9:
            raise ValueError(f"DesktopConfig.png_compress_level must be 0..9, got {self.png_compress_level!r}.")
        if len(self.background) != 3 or not all(0 <= c <= 255 for c in self.background):
            raise ValueError(f"DesktopConfig.background must be an RGB triple, got {self.background!r}.")

    @classmethod
    def help(cls) -> dict[str, str]:
        return field_help(cls)
