"""AndroidEnv: a phone, an emulator or the venuskit stand-in, driven through a real adb server.

Observation: `exec-out screencap -p`, the device's screen at its own resolution and rotation. Actions speak the
mobile grammar: a normalised point maps onto the last screenshot's pixels through `venuskit.actions.coords` and
becomes `input tap` / `input swipe` (a long press is a swipe on the spot; a Drag, upstream's slow 1000 ms swipe);
keys are `input keyevent` (Back 4, Home 3, Enter 66, recent apps 187); LaunchApp resolves a name to a package
(`apps.py`) and starts it with `monkey -p`; typing follows `text.py`. One shell line per action, one exec for the
screenshot: a step is two adb round trips plus the settle pause.

Errors. A step returns a typed error (`errors.py`) with a fresh screenshot whenever the device can still give one:
a dead adb server is restarted (on a loopback host) and a HOST:PORT device reconnected first. When no screenshot
can be had — the device stayed away, a screencap hangs or keeps returning garbage — `step` and `observe` raise the
typed error; the runner then records the step, ends the episode as an error and leaves its folder resumable, and
`reset({"resume": True})` later picks the device up where it is.
"""

from __future__ import annotations

import datetime as dt
import shlex
import time
from collections.abc import Callable
from typing import Any, Self
from urllib.parse import urlsplit

from venuskit.actions import coords
from venuskit.actions.surfaces import get_surface
from venuskit.actions.types import Action, Point
from venuskit.envs.android import apps, text
from venuskit.envs.android.adb import AdbServer, DeviceLink, ShellResult, is_tcp_serial, wait_until_ready
from venuskit.envs.android.config import AndroidConfig
from venuskit.envs.android.errors import (
    CONNECTION_ERRORS,
    AdbServerDown,
    DeviceDisconnected,
    DeviceNotFound,
    DeviceTimeout,
    ScreencapInvalid,
    TypingUnsupported,
)
from venuskit.envs.android.keycodes import KEYCODES
from venuskit.envs.base import ActionRefused, EnvError, Observation, StepResult
from venuskit.envs.netguard import LOOPBACK_HOSTS

EXTRA_ACTIONS = frozenset({"Scroll"})  # beyond the mobile grammar: what dialects (UI-TARS, GUI-Odyssey) turn into
PNG_HEAD = b"\x89PNG\r\n\x1a\n"
PNG_TAIL = b"IEND\xaeB`\x82"
SCREENSHOT_DIR = "/sdcard/Pictures/Screenshots"
_MARK = "@@venuskit@@"


class AndroidEnv:
    """One device. Use as a context manager or call close(); the adb server is left running (adb's way)."""

    surface = "mobile"  # the grammar the model speaks on a phone

    def __init__(self, config: AndroidConfig | None = None) -> None:
        self.config = config or AndroidConfig()
        self.server = AdbServer(self.config.adb_host, self.config.adb_port, self.config.adb_path)
        self.link: DeviceLink | None = None
        self.device: dict[str, Any] = {}  # what the device says it is (describe())
        self.standin = False
        self._size: tuple[int, int] | None = None  # the last screenshot's pixels: the frame of the next action
        self._installed: set[str] | None = None
        self._ime = "null"
        self._ime_installed = False
        self._settle_s = 1.0
        self._executed: dict[str, Any] | None = None
        self._episode = False
        self._closed = False

    # -- the Env protocol --

    @property
    def serial(self) -> str | None:
        return self.link.serial if self.link else self.config.serial

    def reset(self, task: dict[str, Any]) -> Observation:
        """Connect (starting the adb server, `adb connect`ing a HOST:PORT serial), then open the task's start:
        `start_url` in the device's browser (`am start -a VIEW`; a loopback URL's port is `adb reverse`d), or
        `app` (LaunchApp's names), or the home screen; `resume` leaves the device as it is. Raises typed errors."""
        self._require_open()
        self._connect()
        if task.get("resume"):
            pass
        elif task.get("start_url"):
            self._open_url(str(task["start_url"]))
        elif task.get("app"):
            self._launch(str(task["app"]), {})
        else:
            self._run(f"input keyevent {KEYCODES['HOME']}")
        self._episode = True
        obs = self._observe_settled()
        obs.info["device"] = self.describe()
        return obs

    def step(self, action: Action) -> StepResult:
        """Run one action. See the module docstring for which errors come back and which are raised."""
        self._require_open()
        if not self._episode:
            raise EnvError("The Android env has no episode yet; call reset(task) first.")
        info: dict[str, Any] = {}
        self._executed = None
        error = self._refusal(action) or self._attempt(lambda: HANDLERS[action.name](self, action, info))
        if isinstance(error, CONNECTION_ERRORS):
            info["recovered"] = self._recover(error)
        obs = self._observe_settled()
        return StepResult(observation=obs, executed=self._executed, info=info, error=error)

    def observe(self) -> Observation:
        """A fresh screenshot; raises a typed error when the device cannot give one (after trying to recover)."""
        self._require_open()
        if self.link is None:
            self._connect()
        return self._observe()

    def close(self) -> None:
        self._closed = True
        self.link = None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def page(self) -> Any:
        """The page a stand-in device running in this process shows, for tests and the world oracle only (it plans
        from the page, as on the web surfaces); a policy never sees it. A real device has no page: EnvError."""
        from venuskit.envs.android.standin import in_process

        device = in_process(self.serial)
        if device is None:
            raise EnvError(f"{self.serial} is not a stand-in device running in this process, so there is no page to "
                           "read (a phone shows pixels only). The world oracle runs on an in-process stand-in: "
                           "`venus world oracle --surface android` starts one.")  # fmt: skip
        return device.page

    def describe(self) -> dict[str, Any]:
        """The device as recorded in each episode's manifest; a stand-in says so, and what it does not model."""
        return dict(self.device)

    # -- connecting --

    def _require_open(self) -> None:
        if self._closed:
            raise EnvError("This AndroidEnv is closed; create a new one.")

    def _connect(self) -> None:
        self._ensure_server()
        serial = self.config.serial or self._only_device()
        wait_until_ready(self.server, serial, self.config.connect_timeout_s, connect=True)
        self.link = DeviceLink(self.server, serial, self.config.command_timeout_s)
        self.link.features()
        self._probe()

    def _ensure_server(self) -> None:
        if self.server.alive():
            return
        if not (self.config.start_server and self.config.local_server):
            raise self.server.down_error("connection refused")
        self.server.start()

    def _only_device(self) -> str:
        ready = [d.serial for d in self.server.devices() if d.state == "device"]
        if len(ready) == 1:
            return ready[0]
        if not ready:
            raise DeviceNotFound(f"No device is attached to the adb server at {self.server.address}: plug a phone in "
                                 "(USB debugging on), start an emulator, or `adb connect HOST:PORT`; `venus android "
                                 "devices` lists what the server sees.")  # fmt: skip
        raise EnvError(f"Several devices are attached ({', '.join(ready)}); pick one with --serial (or "
                       "ANDROID_SERIAL).")  # fmt: skip

    def _probe(self) -> None:
        """What the device is, in one round trip: properties, screen, density, input methods."""
        parts = self._run(f"getprop; echo {_MARK}; wm size; echo {_MARK}; wm density; echo {_MARK}; "
                          f"settings get secure default_input_method; echo {_MARK}; ime list -s",
                          check=False).out.decode("utf-8", "replace").split(_MARK + "\n")  # fmt: skip
        parts += [""] * (5 - len(parts))
        props = _getprop(parts[0])
        self._ime = parts[3].strip() or "null"
        self._ime_installed = text.ADBKEYBOARD_IME in parts[4].split()
        self.standin = props.get("venuskit.standin") == "1"
        self._settle_s = self.config.settle_s if self.config.settle_s is not None else (0.0 if self.standin else 1.0)
        self._installed = None
        self.device = {
            "serial": self.link.serial if self.link else None, "adb_server": self.server.address,
            "manufacturer": props.get("ro.product.manufacturer"), "model": props.get("ro.product.model"),
            "android": props.get("ro.build.version.release"), "sdk": props.get("ro.build.version.sdk"),
            "size": _wm_size(parts[1]), "density": _wm_number(parts[2]), "ime": self._ime,
            "shell_v2": bool(self.link and self.link.shell_v2),
        }  # fmt: skip
        if self.standin:
            self.device["standin"] = {
                "note": props.get("venuskit.standin.note", "a venuskit stand-in device, not Android"),
                "not_modelled": [s for s in props.get("venuskit.standin.not_modelled", "").split("; ") if s],
                "world": props.get("venuskit.standin.world") or None,
            }

    def _recover(self, error: EnvError) -> str:
        """Bring the device back after a connection error; what was done. Raises when it stays away."""
        done = "nothing"
        if isinstance(error, AdbServerDown) or not self.server.alive():
            self._ensure_server()  # raises AdbServerDown when it may not start one
            done = f"restarted the adb server at {self.server.address}"
        serial = self.serial or ""
        try:
            wait_until_ready(self.server, serial, self.config.connect_timeout_s, connect=True)
        except EnvError as e:
            raise DeviceDisconnected(f"{serial} did not come back within {self.config.connect_timeout_s:g} s ({e}). "
                                     "The episode is saved: reconnect the device and resume it (venus run --resume "
                                     "EPISODE_DIR).") from e  # fmt: skip
        if self.link is None:
            self.link = DeviceLink(self.server, serial, self.config.command_timeout_s)
        self.link.features()
        if is_tcp_serial(serial) and done == "nothing" and not isinstance(error, DeviceTimeout):
            done = f"reconnected {serial}"
        return done

    # -- observing --

    def _observe_settled(self) -> Observation:
        if self._settle_s:
            time.sleep(self._settle_s)
        return self._observe()

    def _observe(self) -> Observation:
        try:
            png = self._screencap()
        except CONNECTION_ERRORS as e:
            if isinstance(e, DeviceTimeout) and self.server.alive():
                raise  # a hung screencap: restarting adb would not unhang the device
            self._recover(e)
            png = self._screencap()
        width, height = int.from_bytes(png[16:20], "big"), int.from_bytes(png[20:24], "big")
        self._size = (width, height)
        return Observation(png=png, width=width, height=height, info={"serial": self.serial})

    def _screencap(self) -> bytes:
        assert self.link is not None
        png = b""
        for _ in range(2):  # a screencap torn by a rotation or a busy SurfaceFlinger is taken again, once
            png = self.link.exec_out("screencap -p")
            if png.startswith(PNG_HEAD) and len(png) > 33 and png.rstrip(b"\r\n").endswith(PNG_TAIL):
                return png
        raise ScreencapInvalid(f"`screencap -p` on {self.serial} returned {len(png)} bytes that are not a whole PNG "
                               f"(starting {png[:8]!r}), twice.")  # fmt: skip

    # -- running commands --

    def _run(self, command: str, check: bool = True, timeout_s: float | None = None) -> ShellResult:
        assert self.link is not None
        result = self.link.shell(command, timeout_s)
        failed = [ln for ln in result.text.splitlines() if ln.startswith(("Error", "Exception", "java.lang"))]
        if check and (result.rc != 0 or failed):
            said = (failed or result.text.splitlines() or [f"exit status {result.rc}"])[-1]
            raise EnvError(f"`{_short(command)}` failed on {self.serial}: {said}")
        return result

    def _attempt(self, fn: Callable[[], None]) -> EnvError | None:
        try:
            fn()
        except EnvError as e:
            return e
        return None

    def _refusal(self, action: Action) -> ActionRefused | None:
        accepted = get_surface(self.surface).actions | EXTRA_ACTIONS
        if action.name not in accepted or action.name not in HANDLERS:
            return ActionRefused(f"{action.name} is not an action of an Android device; it accepts: "
                                 f"{', '.join(sorted(accepted))}.")  # fmt: skip
        return None

    def _xy(self, point: Point | None, name: str = "point") -> tuple[int, int]:
        if point is None:
            raise ActionRefused(f"This action needs {name}=(x, y) on an Android device.")
        assert self._size is not None
        return coords.point_to_pixels(point.as_tuple(), *self._size)

    def _hold_ms(self, seconds: float | None, default_ms: int) -> int:
        ms = round(seconds * 1000) if seconds else default_ms
        return max(1, min(ms, round(self.config.max_wait_s * 1000)))

    # -- apps, URLs, typing --

    def _open_url(self, url: str) -> None:
        parts = urlsplit(url)
        if parts.scheme not in ("http", "https"):
            raise ActionRefused(f"The device opens http and https start URLs only; {url!r} is refused.")
        if self.config.reverse and parts.hostname in LOOPBACK_HOSTS and parts.port:
            assert self.link is not None
            self.link.reverse(parts.port)  # the device's 127.0.0.1:PORT is then this computer's
        self._run(f"am start -a android.intent.action.VIEW -d {shlex.quote(url)}")

    def _launch(self, name: str, info: dict[str, Any]) -> None:
        try:
            package = apps.resolve(name, self.config.apps, self._packages())
        except apps.UnknownApp as e:
            raise ActionRefused(str(e)) from None
        out = self._run(f"monkey -p {shlex.quote(package)} -c android.intent.category.LAUNCHER 1", check=False)
        if out.rc != 0 or "No activities found" in out.text or "Error" in out.text:
            raise ActionRefused(f"LaunchApp({name!r}): {package} has no launcher activity on {self.serial}.")
        self._executed = {"op": "launch", "package": package}
        info["package"] = package

    def _packages(self) -> set[str]:
        if self._installed is None:
            out = self._run("pm list packages", check=False).out.decode("utf-8", "replace")
            self._installed = {ln.removeprefix("package:").strip() for ln in out.splitlines() if ln.strip()}
        return self._installed

    def _type(self, content: str) -> None:
        if text.input_text_safe(content):
            self._executed = {"op": "type", "text": content, "via": "input text"}
            self._run_all(text.input_text_commands(content))
            return
        if not self._ime_installed:
            raise TypingUnsupported(f"Type: {content!r} has characters `input text` cannot type "
                                    f"({text.untypable(content)!r}); {text.ADBKEYBOARD_HELP}.")  # fmt: skip
        commands = text.broadcast_commands(content)
        if self._ime != text.ADBKEYBOARD_IME:  # select ADBKeyboard for this text, then give the user theirs back
            commands = [f"ime set {text.ADBKEYBOARD_IME}", *commands]
            if self._ime != "null":
                commands.append(f"ime set {shlex.quote(self._ime)}")
        self._executed = {"op": "type", "text": content, "via": "ADBKeyboard"}
        self._run_all(commands)

    def _run_all(self, commands: list[str]) -> None:
        """Commands in one shell line, stopping at the first that fails."""
        if commands:
            self._run(" && ".join(commands), timeout_s=self.config.command_timeout_s + len(commands))

    def _keyevent(self, name: str) -> None:
        self._executed = {"op": "key", "key": name, "code": KEYCODES[name]}
        self._run(f"input keyevent {KEYCODES[name]}")


# ---- the action handlers: (env, action, info) ------------------------------------------------------------


def _click(env: AndroidEnv, action: Any, info: dict[str, Any], count: int = 1) -> None:
    x, y = env._xy(action.point)
    env._executed = {"op": "tap", "x": x, "y": y, "count": count}
    env._run("; ".join([f"input tap {x} {y}"] * count))


def _double_click(env: AndroidEnv, action: Any, info: dict[str, Any]) -> None:
    _click(env, action, info, count=2)


def _swipe_cmd(env: AndroidEnv, op: str, start: tuple[int, int], end: tuple[int, int], ms: int) -> None:
    env._executed = {"op": op, "x1": start[0], "y1": start[1], "x2": end[0], "y2": end[1], "duration_ms": ms}
    env._run(f"input swipe {start[0]} {start[1]} {end[0]} {end[1]} {ms}", timeout_s=env.config.command_timeout_s
             + ms / 1000)  # fmt: skip


def _long_press(env: AndroidEnv, action: Any, info: dict[str, Any]) -> None:
    xy = env._xy(action.point)
    _swipe_cmd(env, "long_press", xy, xy, env._hold_ms(action.duration, env.config.long_press_ms))


def _drag(env: AndroidEnv, action: Any, info: dict[str, Any]) -> None:
    _swipe_cmd(env, "drag", env._xy(action.start, "start"), env._xy(action.end, "end"), env.config.drag_ms)


def _swipe(env: AndroidEnv, action: Any, info: dict[str, Any]) -> None:
    _swipe_cmd(env, "swipe", env._xy(action.start, "start"), env._xy(action.end, "end"), env.config.swipe_ms)


def _scroll(env: AndroidEnv, action: Any, info: dict[str, Any]) -> None:
    # Content moves the way the finger does, so scrolling down is a swipe up: 2/3 of the screen unless an
    # `amount` (device pixels) says otherwise, kept on the screen.
    assert env._size is not None
    width, height = env._size
    x, y = env._xy(action.point)
    vertical = action.direction in ("up", "down")
    dist = action.amount or round((height if vertical else width) * 2 / 3)
    sign = 1 if action.direction in ("up", "left") else -1
    dx, dy = (0, sign * dist) if vertical else (sign * dist, 0)
    end = (min(max(x + dx, 0), width - 1), min(max(y + dy, 0), height - 1))
    _swipe_cmd(env, "scroll", (x, y), end, env.config.swipe_ms)


def _type(env: AndroidEnv, action: Any, info: dict[str, Any]) -> None:
    env._type(action.content)


def _launch_app(env: AndroidEnv, action: Any, info: dict[str, Any]) -> None:
    env._launch(action.app, info)


def _wait(env: AndroidEnv, action: Any, info: dict[str, Any]) -> None:
    seconds = min(action.seconds or env.config.wait_default_s, env.config.max_wait_s)
    env._executed = {"op": "wait", "seconds": seconds}
    time.sleep(seconds)


def _key(name: str) -> Callable[[AndroidEnv, Any, dict[str, Any]], None]:
    def press(env: AndroidEnv, action: Any, info: dict[str, Any]) -> None:
        env._keyevent(name)

    return press


def _get_screenshot(env: AndroidEnv, action: Any, info: dict[str, Any]) -> None:
    """Saved to the device's photo album, as the grammar says; the path and size go to info."""
    path = f"{SCREENSHOT_DIR}/venuskit_{dt.datetime.now().strftime('%Y%m%d-%H%M%S-%f')}.png"
    env._run(f"screencap -p {shlex.quote(path)}")
    assert env.link is not None
    saved = env.link.stat(path)
    if not saved.size:
        raise EnvError(f"GetScreenshot: screencap wrote nothing to {path} on {env.serial}.")
    env._executed = {"op": "screenshot", "path": path}
    info["saved"] = {"path": path, "bytes": saved.size}


def _no_op(env: AndroidEnv, action: Any, info: dict[str, Any]) -> None:
    """Finished / Answer / CallUser: the runner ends the episode; the screen is left as it is."""


HANDLERS: dict[str, Callable[[AndroidEnv, Any, dict[str, Any]], None]] = {
    "Click": _click, "DoubleClick": _double_click, "LongPress": _long_press, "Drag": _drag, "Swipe": _swipe,
    "Scroll": _scroll, "Type": _type, "LaunchApp": _launch_app, "Wait": _wait, "PressBack": _key("BACK"),
    "PressHome": _key("HOME"), "PressEnter": _key("ENTER"), "PressRecent": _key("APP_SWITCH"),
    "GetScreenshot": _get_screenshot, "Finished": _no_op, "Answer": _no_op, "CallUser": _no_op,
}  # fmt: skip


def _getprop(output: str) -> dict[str, str]:
    props: dict[str, str] = {}
    for line in output.splitlines():
        key, sep, value = line.partition("]: [")
        if sep and key.startswith("[") and value.endswith("]"):
            props[key[1:]] = value[:-1]
    return props


def _wm_size(output: str) -> list[int] | None:
    """`wm size`: the override when one is set, else the physical size."""
    for label in ("Override size:", "Physical size:"):
        for line in output.splitlines():
            if line.strip().startswith(label):
                w, _, h = line.split(":", 1)[1].strip().partition("x")
                if w.isdigit() and h.isdigit():
                    return [int(w), int(h)]
    return None


def _wm_number(output: str) -> int | None:
    for label in ("Override density:", "Physical density:"):
        for line in output.splitlines():
            if line.strip().startswith(label) and line.split(":", 1)[1].strip().isdigit():
                return int(line.split(":", 1)[1])
    return None


def _short(command: str) -> str:
    return command if len(command) <= 80 else command[:77] + "..."


__all__ = ["AndroidEnv", "DeviceDisconnected", "DeviceTimeout", "ScreencapInvalid"]
