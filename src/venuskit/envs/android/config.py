"""AndroidConfig: which device, through which adb server, and how actions are timed. Environment variables
(ANDROID_SERIAL, ANDROID_ADB_SERVER_PORT) are read by the CLI, never here."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

from venuskit.envs.netguard import LOOPBACK_HOSTS


def _help(text: str, **kw: Any) -> Any:
    return field(metadata={"help": text}, **kw)


@dataclass
class AndroidConfig:
    serial: str | None = _help(
        "The device's serial as `adb devices` lists it (USB serial, emulator-5554, or HOST:PORT for a device over "
        "TCP, which the env `adb connect`s when the server does not list it). None: the one device attached.",
        default=None,
    )
    adb_host: str = _help("Host of the adb server.", default="127.0.0.1")
    adb_port: int = _help("Port of the adb server (adb's default: 5037).", default=5037)
    adb_path: str | None = _help("The adb binary that starts a server. None: `adb` on PATH.", default=None)
    start_server: bool = _help(
        "Start an adb server (`adb -P PORT start-server`) when none answers on a loopback host, and again when it "
        "dies mid-episode.",
        default=True,
    )
    command_timeout_s: float = _help(
        "Seconds one command on the device (an input, a screencap) may take before the step is declared hung.",
        default=10.0,
    )
    connect_timeout_s: float = _help(
        "Seconds to wait for a device to be connected and online (at reset, and after it drops mid-episode).",
        default=10.0,
    )
    settle_s: float | None = _help(
        "Pause after each action before the screenshot (animations, page loads). None: 1.0 on a device, 0 on the "
        "venuskit stand-in, whose input commands return once its page has settled.",
        default=None,
    )
    wait_default_s: float = _help("Wait() without seconds (upstream: 1 s).", default=1.0)
    max_wait_s: float = _help("Cap on any Wait or LongPress hold, in seconds.", default=30.0)
    long_press_ms: int = _help("LongPress() without duration: a swipe on the spot this long.", default=1000)
    swipe_ms: int = _help("Duration of a Swipe (and of a Scroll's swipe).", default=300)
    drag_ms: int = _help("Duration of a Drag: a swipe slow enough to hold what it starts on (upstream: 1000).",
                         default=1000)  # fmt: skip
    apps: dict[str, str] = _help(
        "App names a model may say in LaunchApp -> package, checked before the built-in table (e.g. "
        "{'notes': 'com.example.notes'}).",
        default_factory=dict,
    )
    reverse: bool = _help(
        "For a start URL on this computer's loopback, `adb reverse` its port so the device's browser reaches it.",
        default=True,
    )

    def __post_init__(self) -> None:
        if not self.adb_host:
            raise ValueError("AndroidConfig.adb_host is empty; use 127.0.0.1 for the local adb server.")
        if not 0 < self.adb_port < 65536:
            raise ValueError(f"AndroidConfig.adb_port must be a TCP port, got {self.adb_port!r}.")
        for name in ("command_timeout_s", "connect_timeout_s", "wait_default_s", "max_wait_s"):
            if not getattr(self, name) > 0:
                raise ValueError(f"AndroidConfig.{name} must be positive, got {getattr(self, name)!r}.")
        for name in ("long_press_ms", "swipe_ms", "drag_ms"):
            if not isinstance(getattr(self, name), int) or getattr(self, name) < 1:
                raise ValueError(f"AndroidConfig.{name} must be a positive number of milliseconds.")
        if self.settle_s is not None and self.settle_s < 0:
            raise ValueError(f"AndroidConfig.settle_s must be >= 0 or None, got {self.settle_s!r}.")
        bad = {k: v for k, v in self.apps.items() if not (isinstance(k, str) and isinstance(v, str) and "." in v)}
        if bad:
            raise ValueError(f"AndroidConfig.apps maps names to package names like com.example.app; got {bad!r}.")
        self.apps = {k.strip().lower(): v.strip() for k, v in self.apps.items()}

    @property
    def local_server(self) -> bool:
        return self.adb_host in LOOPBACK_HOSTS

    @classmethod
    def help(cls) -> dict[str, str]:
        return {f.name: f.metadata.get("help", "") for f in fields(cls)}
