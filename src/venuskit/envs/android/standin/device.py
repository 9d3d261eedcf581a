"""The stand-in device: what an adb server finds at `adb connect 127.0.0.1:PORT` when no phone or emulator can
exist (none can be installed on this project's machines).

It is NOT Android. It speaks adbd's transport protocol (`transport.py`) and answers the shell and sync commands
venuskit's backend and common adb clients send (`commands.py`, `sync.py`) by driving real Chromium — the browser
env's mobile preset sized to the device — which shows the bundled world's mobile pages: `screencap -p` returns the
page's pixels at the device's resolution, `input tap X Y` is a touch at that point, `monkey -p com.venuskit.mail`
opens the world's Mail app, `wm size` answers the device's size, `pm list packages` lists the world's apps.
What it does not model is listed in `NOT_MODELLED`; it says so in `getprop`, and the backend copies that into the
manifest of every episode run on it.

Threads: the page lives on one thread (`pages.PageThread`); each adb stream runs on its own thread and queues
its page work there. Faults for tests and demos (`set_handshake`, `hang`, `garbage_screencaps`, `unplug`) make it
misbehave the ways real devices do.
"""

from __future__ import annotations

import base64
import collections
import threading
import time
from dataclasses import dataclass, field, fields
from typing import Any, Literal, Self

from venuskit.envs.android.standin.pages import PageThread, Remote
from venuskit.envs.android.standin.shell import Result, run_line
from venuskit.envs.android.standin.sync import FileSystem, serve_sync
from venuskit.envs.android.standin.transport import Listener, Stream

NOT_MODELLED = (  # each item free of "; ", which joins them in getprop
    "a real input method (text is committed the way the ADBKeyboard IME commits it, with no on-screen keyboard)",
    "notifications",
    "system dialogs",
    "permissions",
    "multi-window (one app on screen: the recent-apps screen lists apps but does not split the screen)",
)
STANDIN_NOTE = ("a stand-in device (venuskit), not Android: adbd's transport protocol in front of Chromium showing "
                "the bundled world's mobile pages")  # fmt: skip
ADBKEYBOARD_PKG = "com.android.adbkeyboard"
ADBKEYBOARD_IME = "com.android.adbkeyboard/.AdbIME"
LAUNCHER_PKG = "com.venuskit.standin.home"
WORLD_APPS: dict[str, tuple[str, str]] = {  # package -> (label, path on the world server)
    f"com.venuskit.{app}": (app.capitalize(), f"/{app}/")
    for app in ("mail", "calendar", "drive", "expense", "bank", "shop", "forum", "settings")
}
# Device pixels per CSS pixel the screen may be emulated at; the one that divides the size exactly with a CSS
# width nearest the mobile preset's 412 is chosen (1080x2400 -> 2.5, a 432x960 CSS page).
DENSITIES = (1.0, 1.25, 1.5, 1.75, 2.0, 2.25, 2.5, 2.625, 2.75, 3.0, 3.5, 4.0)
PRESET_CSS_WIDTH = 412
LOG_LINES = 500
_RUNNING: dict[str, StandinDevice] = {}  # this process's started stand-ins, by serial (127.0.0.1:PORT)
_RUNNING_LOCK = threading.Lock()


def in_process(serial: str | None) -> StandinDevice | None:
    """The stand-in with this serial if it runs in this process (its page can then be read: the world oracle
    plans from it); None for any other device, a real one above all."""
    with _RUNNING_LOCK:
        return _RUNNING.get(serial or "")


def _help(text: str, **kw: Any) -> Any:
    return field(metadata={"help": text}, **kw)


def screen_geometry(size: tuple[int, int]) -> tuple[int, int, float]:
    """(CSS width, CSS height, device scale factor) for a device of `size` pixels: the density that divides both
    sides into whole CSS pixels with the CSS width nearest the mobile preset's (1:1 always divides)."""
    width, height = size
    fits = [(abs(width / d - PRESET_CSS_WIDTH), d) for d in DENSITIES
            if abs(width / d - round(width / d)) < 1e-9 and abs(height / d - round(height / d)) < 1e-9]  # fmt: skip
    density = min(fits)[1]
    return round(width / density), round(height / density), density


@dataclass
class StandinConfig:
    """A stand-in device. Environment variables are read by the CLI, never here."""

    size: tuple[int, int] = _help("Screen size in device pixels (width, height), portrait.", default=(1080, 2400))
    world_url: str | None = _help(
        "Base URL of the world server whose apps the device has (its launcher is the home screen). A world "
        "session link the device opens (am start -d URL/_bind/...) points it at that link's world instead.",
        default=None,
    )
    ime: Literal["adbkeyboard", "none"] = _help(
        "adbkeyboard: the ADBKeyboard IME is installed and selected, so `am broadcast -a ADB_INPUT_B64` types any "
        "text. none: only `input text` (ASCII) types.",
        default="adbkeyboard",
    )
    settle_s: float = _help("Pause after each input before the page counts as settled.", default=0.1)
    headless: bool = _help("Run Chromium without a window.", default=True)
    action_timeout_s: float = _help("Seconds one input or screencap may take in Chromium.", default=10.0)

    def __post_init__(self) -> None:
        size = tuple(self.size)
        if len(size) != 2 or not all(isinstance(v, int) and 240 <= v <= 4096 for v in size):
            raise ValueError(f"StandinConfig.size must be (width, height) in pixels, 240..4096; got {self.size!r}.")
        self.size = (size[0], size[1])
        if self.ime not in ("adbkeyboard", "none"):
            raise ValueError(f"StandinConfig.ime must be 'adbkeyboard' or 'none', got {self.ime!r}.")
        if self.world_url is not None:
            self.world_url = self.world_url.rstrip("/")
        if self.settle_s < 0 or not self.action_timeout_s > 0:
            raise ValueError("StandinConfig.settle_s must be >= 0 and action_timeout_s positive.")

    @classmethod
    def help(cls) -> dict[str, str]:
        return {f.name: f.metadata.get("help", "") for f in fields(cls)}


class StandinDevice:
    """One stand-in device on a loopback port, run by `start()` on threads of this process: its page on one, its
    adb connections and streams on others."""

    def __init__(self, config: StandinConfig | None = None, port: int = 0) -> None:
        from venuskit.envs.android.standin.commands import Commands

        self.config = config or StandinConfig()
        self.css_width, self.css_height, self.density = screen_geometry(self.config.size)
        self.world_url = self.config.world_url
        self.fs = FileSystem()
        self.log: collections.deque[str] = collections.deque(maxlen=LOG_LINES)  # services opened, oldest first
        self.ime_installed = self.config.ime == "adbkeyboard"
        self.ime = ADBKEYBOARD_IME if self.ime_installed else "null"
        self.reverses: dict[str, str] = {}
        self.recent: list[str] = []  # packages, most recent first
        self.env: Any = None  # the BrowserEnv, on the page thread
        self.pages = PageThread()
        self.listener = Listener(self, port)
        self.commands = Commands(self)
        self._handshake: Literal["device", "unauthorized", "offline"] = "device"
        self._hung: set[str] = set()
        self._unhang = threading.Event()
        self._garbage = 0
        self._thread: threading.Thread | None = None
        self._closed = False

    # -- lifecycle --

    @property
    def serial(self) -> str:
        """What `adb connect` takes and `adb devices` lists: 127.0.0.1:PORT."""
        return self.listener.serial

    def start(self, timeout_s: float = 60.0) -> Self:
        ready = threading.Event()
        self._thread = threading.Thread(target=self.pages.loop, args=(self._boot, self._shutdown, ready),
                                        name="standin-page", daemon=True)  # fmt: skip
        self._thread.start()
        if not ready.wait(timeout_s) or self.env is None:
            self.close()
            raise RuntimeError("The stand-in device's Chromium did not start; see the error above.")
        self.listener.start()
        with _RUNNING_LOCK:
            _RUNNING[self.serial] = self
        return self

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        with _RUNNING_LOCK:
            if _RUNNING.get(self.serial) is self:
                del _RUNNING[self.serial]
        self.listener.unplug()
        self._unhang.set()
        self.pages.stop()
        if self._thread is not None:
            self._thread.join(timeout=30)

    def __enter__(self) -> Self:
        return self.start() if self._thread is None else self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _boot(self) -> None:
        from venuskit.envs.browser import BrowserConfig, BrowserEnv

        cfg = self.config
        browser = BrowserConfig(preset="mobile", viewport=(self.css_width, self.css_height),
                                device_scale_factor=self.density, headless=cfg.headless, settle_s=cfg.settle_s,
                                action_timeout_s=cfg.action_timeout_s, extra_actions=("Launch", "Hotkey"),
                                swipe_duration_s=0.3, drag_duration_s=1.0)  # fmt: skip
        env = BrowserEnv(browser)
        try:
            env.reset({"start_url": self.home_url()})
        except Exception:
            env.close()
            raise
        self.env = env

    def _shutdown(self) -> None:
        if self.env is not None:
            self.env.close()

    # -- what the device is --

    def home_url(self) -> str:
        return f"{self.world_url}/" if self.world_url else "about:blank"

    def packages(self) -> list[str]:
        extra = [ADBKEYBOARD_PKG] if self.ime_installed else []
        return sorted([*WORLD_APPS, LAUNCHER_PKG, *extra])

    def props(self) -> dict[str, str]:
        w, h = self.config.size
        return {
            "ro.product.manufacturer": "venuskit", "ro.product.brand": "venuskit",
            "ro.product.model": "venuskit-standin", "ro.product.name": "venuskit_standin",
            "ro.product.device": "standin", "ro.build.version.release": "14", "ro.build.version.sdk": "34",
            "ro.build.characteristics": "emulator", "ro.serialno": f"standin-{self.listener.port}",
            "ro.sf.lcd_density": str(round(self.density * 160)), "venuskit.standin": "1",
            "venuskit.standin.note": STANDIN_NOTE, "venuskit.standin.not_modelled": "; ".join(NOT_MODELLED),
            "venuskit.standin.world": self.world_url or "", "venuskit.standin.size": f"{w}x{h}",
        }  # fmt: skip

    def banner(self) -> bytes:
        p = self.props()
        return (f"device::ro.product.name={p['ro.product.name']};ro.product.model={p['ro.product.model']};"
                f"ro.product.device={p['ro.product.device']};features=shell_v2").encode()  # fmt: skip

    def handshake(self) -> str:
        return self._handshake

    @property
    def page(self) -> Remote:
        """The page the device shows, usable from any thread of this process: the in-process oracle reads it.
        A policy never sees it; a real device has none."""
        return Remote(lambda: self.env.page, self.pages)

    def current_package(self) -> str:
        url = self.pages.call(lambda: self.env.page.url)
        path = "/" + url.split("://", 1)[-1].partition("/")[2]
        for pkg, (_, prefix) in WORLD_APPS.items():
            if path.startswith(prefix) or path == prefix.rstrip("/"):
                return pkg
        return LAUNCHER_PKG

    # -- faults: the ways real devices misbehave --

    def set_handshake(self, mode: Literal["device", "unauthorized", "offline"]) -> None:
        """How the device answers the next CNXN: normally; with an AUTH exchange that never accepts a key (adb
        lists it as unauthorized); or not at all (offline). Reconnect (`unplug`, `plug`) to apply it."""
        self._handshake = mode

    def hang(self, *commands: str) -> None:
        """Commands (e.g. "screencap", "input") that never return until `unhang()`."""
        self._hung = set(commands)
        self._unhang.clear()

    def unhang(self) -> None:
        self._hung = set()
        self._unhang.set()

    def garbage_screencaps(self, count: int) -> None:
        """The next `count` screencaps return random bytes instead of a PNG."""
        self._garbage = count

    def take_garbage(self) -> bool:
        if self._garbage > 0:
            self._garbage -= 1
            return True
        return False

    def unplug(self) -> None:
        """Drop every adb connection and refuse new ones (a pulled cable); `plug()` accepts again."""
        self.listener.unplug()

    def plug(self) -> None:
        self.listener.plug()

    def hang_gate(self, name: str) -> None:
        if name in self._hung:
            self._unhang.wait()

    # -- services --

    def serve(self, service: str, stream: Stream) -> None:
        self.log.append(service)
        head, _, rest = service.partition(":")
        kind, *args = head.split(",")
        if kind == "shell":
            self._shell(rest, stream, v2="v2" in args)
        elif kind == "exec":
            result = self.run(rest)
            stream.write(result.out + result.err)
        elif kind == "sync":
            serve_sync(stream, self.fs)
        elif kind == "reverse":
            stream.write(self.commands.reverse(rest))
        # any other service (framebuffer:, tcpip:, root:...) is closed unanswered, as adbd does; adb says "closed"

    def run(self, line: str) -> Result:
        return run_line(line, self.commands.table)

    def _shell(self, line: str, stream: Stream, v2: bool) -> None:
        if not line.strip():
            self._interactive(stream, v2)
            return
        result = self.run(line)
        if not v2:
            stream.write(result.out + result.err)
            return
        stream.write(_packet(1, result.out) + _packet(2, result.err) + _packet(3, bytes([result.rc & 0xFF])))

    def _interactive(self, stream: Stream, v2: bool) -> None:
        """`adb shell` with no command: a prompt, one command line at a time, `exit` to leave."""
        prompt = b"standin:/ $ "
        stream.write(_packet(1, prompt) if v2 else prompt)
        pending, rc = b"", 0
        while (data := stream.read()) is not None:
            if v2:  # stdin arrives in packets: id 0 data, id 4 close
                data = _stdin_of(data)
            pending += data
            while b"\n" in pending:
                line, pending = pending.split(b"\n", 1)
                text = line.decode("utf-8", "replace").strip()
                if text == "exit":
                    if v2:
                        stream.write(_packet(3, bytes([rc])))
                    return
                result = self.run(text) if text else Result()
                rc = result.rc
                out = result.out + result.err + prompt
                stream.write(_packet(1, out) if v2 else out)

    # -- page work, from the command threads --

    def act(self, action: Any) -> str | None:
        """Run an action on the page; the error's message, or None."""

        def run() -> str | None:
            _, _, error = self.env.act(action)
            return None if error is None else str(error)

        return self.pages.call(run)

    def screencap(self) -> bytes:
        return self.pages.call(lambda: self.env.observe().png)

    def type_now(self, text: str) -> None:
        """Commit text into the focused field at once, as an input method does (no key events)."""
        self.pages.call(lambda: self.env.page.keyboard.insert_text(text))
        if self.config.settle_s:
            time.sleep(self.config.settle_s)

    def b64(self, text: str) -> str:
        return base64.b64decode(text.encode(), validate=True).decode("utf-8")


def _packet(ident: int, data: bytes) -> bytes:
    """A shell-v2 packet: id byte, little-endian length, data; empty data sends nothing (except exit)."""
    if not data and ident != 3:
        return b""
    return bytes([ident]) + len(data).to_bytes(4, "little") + data


def _stdin_of(data: bytes) -> bytes:
    out, i = bytearray(), 0
    while i + 5 <= len(data):
        ident, length = data[i], int.from_bytes(data[i + 1 : i + 5], "little")
        if ident == 0:
            out += data[i + 5 : i + 5 + length]
        i += 5 + length
    return bytes(out)
