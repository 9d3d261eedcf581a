"""The stand-in's commands: what `adb shell` runs on it. Each answers like its Android namesake for the forms
adb clients use (output formats as Android 14 prints them) and with an error and a non-zero status otherwise.

Pointer input arrives in device pixels and reaches the page through `venuskit.actions.coords` (device pixel ->
the normalised point -> the CSS pixel the browser env taps); keys, text and navigation become the browser env's
actions, so a tap over adb is the same touch the mobile-web surface would make.
"""

from __future__ import annotations

import io
import random
import re
import time
from collections.abc import Callable
from typing import TYPE_CHECKING

from venuskit.actions import coords
from venuskit.actions.types import Click, Drag, Hotkey, Launch, LongPress, Point, PressBack, PressEnter, Swipe, Type
from venuskit.envs.android.keycodes import NAMES, keycode
from venuskit.envs.android.standin.device import (
    ADBKEYBOARD_IME,
    LAUNCHER_PKG,
    WORLD_APPS,
)
from venuskit.envs.android.standin.shell import Command, Result

if TYPE_CHECKING:
    from venuskit.envs.android.standin.device import StandinDevice

INPUT_SOURCES = ("touchscreen", "touchpad", "mouse", "keyboard", "dpad", "gamepad", "stylus", "trackball",
                 "joystick", "touchnavigation", "rotaryencoder")  # fmt: skip
KEY_ACTIONS = {"DEL": "backspace", "FORWARD_DEL": "delete", "TAB": "tab", "ESCAPE": "escape", "DPAD_UP": "up",
               "DPAD_DOWN": "down", "DPAD_LEFT": "left", "DPAD_RIGHT": "right", "MOVE_HOME": "home",
               "MOVE_END": "end", "PAGE_UP": "pageup", "PAGE_DOWN": "pagedown"}  # fmt: skip
# Keys a phone has that change nothing on the stand-in's screen (it is always on, has no volume or calls).
INERT_KEYS = frozenset({"POWER", "WAKEUP", "SLEEP", "VOLUME_UP", "VOLUME_DOWN", "VOLUME_MUTE", "MENU", "CAMERA",
                        "SEARCH", "CALL", "ENDCALL", "CLEAR", "DPAD_CENTER"})  # fmt: skip
PUNCTUATION_KEYS = {"STAR": "*", "POUND": "#", "COMMA": ",", "PERIOD": "."}
LONG_PRESS_MS = 500  # a swipe that stays on its point for this long is a long press
MAX_SLEEP_S = 60.0


def _err(message: str, rc: int = 1) -> Result:
    return Result(err=(message.rstrip("\n") + "\n").encode(), rc=rc)


def _ok(text: str = "") -> Result:
    return Result(out=(text + "\n").encode() if text else b"")


class Commands:
    """The command table of one device."""

    def __init__(self, device: StandinDevice) -> None:
        self.d = device
        raw: dict[str, Command] = {
            "input": self.input, "screencap": self.screencap, "wm": self.wm, "getprop": self.getprop,
            "monkey": self.monkey, "am": self.am, "pm": self.pm, "ime": self.ime, "settings": self.settings,
            "dumpsys": self.dumpsys, "echo": self.echo, "true": lambda a, i: Result(),
            "false": lambda a, i: Result(rc=1),
            "sleep": self.sleep, "grep": self.grep, "cat": self.cat, "ls": self.ls, "rm": self.rm,
            "mkdir": lambda a, i: Result(), "uiautomator": self.uiautomator,
        }  # fmt: skip
        self.table = {name: self._gated(name, fn) for name, fn in raw.items()}

    def _gated(self, name: str, fn: Command) -> Command:
        def run(argv: list[str], stdin: bytes) -> Result:
            self.d.hang_gate(name)
            return fn(argv, stdin)

        return run

    # -- input --

    def input(self, argv: list[str], stdin: bytes) -> Result:
        args = argv[1:]
        if args and args[0] in INPUT_SOURCES:
            args = args[1:]
        if args[:1] == ["-d"]:
            args = args[2:]
        if not args:
            return _err("Usage: input [<source>] [-d DISPLAY_ID] <command> [<arg>...]")
        handlers: dict[str, Callable[[list[str]], Result]] = {
            "tap": self._tap, "swipe": self._swipe, "draganddrop": self._drag, "text": self._text,
            "keyevent": self._keyevent, "press": lambda a: self._keyevent(["DPAD_CENTER"]),
        }  # fmt: skip
        handler = handlers.get(args[0])
        if handler is None:
            return _err(f"Error: Unknown command: {args[0]}")
        try:
            return handler(args[1:])
        except ValueError as e:
            return _err(f"Error: {e}")

    def _point(self, x: str, y: str) -> Point | None:
        """A device pixel -> the normalised point of the screen; None when it is off the screen."""
        px, py = float(x), float(y)
        width, height = self.d.config.size
        if not (0 <= px < width and 0 <= py < height):
            return None
        return Point(*coords.point_from_pixels(px, py, width, height))

    def _numbers(self, args: list[str], n: int, command: str) -> list[str]:
        if len(args) < n or len(args) > n + 1:
            raise ValueError(f"Invalid arguments for command: {command}")
        for a in args:
            float(a)  # raises ValueError with a number's message
        return args

    def _tap(self, args: list[str]) -> Result:
        x, y = self._numbers(args, 2, "tap")[:2]
        point = self._point(x, y)
        if point is None:
            return Result()  # injected off the screen: nothing there receives it
        return self._act(Click(point=point))

    def _swipe(self, args: list[str]) -> Result:
        x1, y1, x2, y2, *rest = self._numbers(args, 4, "swipe")
        ms = float(rest[0]) if rest else 300.0
        start, end = self._point(x1, y1), self._point(x2, y2)
        if start is None or end is None:
            return Result()
        seconds = max(0.05, ms / 1000)
        if (x1, y1) == (x2, y2):  # `input swipe X Y X Y MS` is how adb long-presses
            return self._act(LongPress(point=start, duration=min(seconds, 60.0)) if ms >= LONG_PRESS_MS else None)
        self._with_config(swipe_duration_s=seconds)
        return self._act(Swipe(start=start, end=end))

    def _drag(self, args: list[str]) -> Result:
        x1, y1, x2, y2, *rest = self._numbers(args, 4, "draganddrop")
        start, end = self._point(x1, y1), self._point(x2, y2)
        if start is None or end is None:
            return Result()
        self._with_config(drag_duration_s=max(0.05, (float(rest[0]) if rest else 1000.0) / 1000))
        return self._act(Drag(start=start, end=end))

    def _with_config(self, **changes: float) -> None:
        def apply() -> None:
            for name, value in changes.items():
                setattr(self.d.env.config, name, value)

        self.d.pages.call(apply)

    def _text(self, args: list[str]) -> Result:
        if not args:
            raise ValueError("Invalid arguments for command: text")
        text = _percent_s(" ".join(args))
        bad = sorted({c for c in text if not (" " <= c <= "~" or c == "\t")})
        if bad:
            # Android's `input text` maps characters through the virtual keyboard's key map, which has no key for
            # these; it fails the same way (a NullPointerException in KeyCharacterMap.getEvents).
            return _err("Exception occurred while executing 'text':\njava.lang.NullPointerException: the virtual "
                        f"keyboard has no key for {''.join(bad)!r}", rc=255)  # fmt: skip
        return self._act(Type(content=text)) if text else Result()

    def _keyevent(self, args: list[str]) -> Result:
        args = [a for a in args if a not in ("--longpress", "--doubletap", "--async")]
        if not args:
            raise ValueError("Invalid arguments for command: keyevent")
        for token in args:
            code = keycode(token)
            if code is None or code not in NAMES:
                return _err(f"Error: Unknown keycode: {token}")
            result = self._key(NAMES[code])
            if result.rc:
                return result
        return Result()

    def _key(self, name: str) -> Result:
        if name == "HOME":
            return self.open_url(self.d.home_url(), LAUNCHER_PKG)
        if name == "BACK":
            return self._act(PressBack())
        if name == "ENTER":
            return self._act(PressEnter())
        if name == "APP_SWITCH":
            return self._recents()
        if name in KEY_ACTIONS:
            return self._act(Hotkey(keys=(KEY_ACTIONS[name],)))
        if name == "SPACE":
            return self._act(Type(content=" "))
        if len(name) == 1:  # a letter or a digit key
            return self._act(Type(content=name.lower()))
        if name in PUNCTUATION_KEYS:
            return self._act(Type(content=PUNCTUATION_KEYS[name]))
        if name in INERT_KEYS:
            return Result()
        return _err(f"Error: the stand-in does not model key {name}")

    def _act(self, action: object) -> Result:
        if action is None:
            return Result()
        error = self.d.act(action)
        return _err(error) if error else Result()

    def _recents(self) -> Result:
        """The recent-apps screen: the apps opened so far, most recent first; tapping one reopens it."""
        base = self.d.world_url or ""
        apps = [WORLD_APPS[p] for p in self.d.recent if p in WORLD_APPS]
        cards = "".join(f'<a class=card href="{base}{path}">{label}</a>' for label, path in apps)
        cards = cards or "<p>No recent items</p>"
        html = ("<!doctype html><meta name=viewport content='width=device-width'><title>Recents</title><style>"
                "body{font:16px sans-serif;background:#222;color:#eee;margin:0;padding:24px}"
                ".card{display:block;background:#eee;color:#222;border-radius:16px;padding:48px 16px;margin:0 0 16px;"
                "text-decoration:none;font-size:20px}</style><h1>Recents</h1>" + cards)  # fmt: skip

        def show() -> None:
            page = self.d.env.page
            page.goto("about:blank")
            page.set_content(html)

        self.d.pages.call(show)
        return Result()

    # -- apps and intents --

    def open_url(self, url: str, package: str | None = None) -> Result:
        if url == "about:blank":
            return _err("Error: no world is connected to the stand-in (start it with a world URL)")
        error = self.d.act(Launch(url=url))
        # A server that does not answer (a world that has stopped) is the browser's error page on screen, as on a
        # phone: the app did open. A URL the network guard refuses did not.
        unreachable = error is not None and "net::ERR_" in error and "network guard" not in error
        if error and not unreachable:
            return _err(f"Error: Activity not started: {error}")
        if package and package != LAUNCHER_PKG:
            self.d.recent = [package, *[p for p in self.d.recent if p != package]]
        return Result()

    def open_app(self, package: str) -> Result:
        if package == LAUNCHER_PKG:
            return self.open_url(self.d.home_url(), package)
        if package not in WORLD_APPS:
            return _err(f"Error: no activity of {package} to start; installed: {', '.join(self.d.packages())}")
        if not self.d.world_url:
            return _err("Error: no world is connected to the stand-in (start it with a world URL)")
        return self.open_url(self.d.world_url + WORLD_APPS[package][1], package)

    def monkey(self, argv: list[str], stdin: bytes) -> Result:
        args = argv[1:]
        package = args[args.index("-p") + 1] if "-p" in args and args.index("-p") + 1 < len(args) else None
        if package is None:
            return _err("** Error: monkey needs -p PACKAGE on the stand-in")
        if package not in WORLD_APPS and package != LAUNCHER_PKG:
            return Result(out=b"** No activities found to run, monkey aborted.\n", rc=251)
        result = self.open_app(package)
        return Result(out=b"Events injected: 1\n", err=result.err, rc=result.rc)

    def am(self, argv: list[str], stdin: bytes) -> Result:
        if len(argv) < 2:
            return _err("usage: am [start|broadcast|force-stop] ...")
        sub, opts = argv[1], _intent_options(argv[2:])
        if sub in ("start", "start-activity"):
            return self._am_start(opts)
        if sub == "broadcast":
            return self._broadcast(opts)
        if sub in ("force-stop", "kill"):
            if opts.get("args") and self.d.current_package() in opts["args"]:
                return self.open_url(self.d.home_url(), LAUNCHER_PKG)
            return Result()
        return _err(f"Error: the stand-in does not model 'am {sub}'")

    def _am_start(self, opts: dict) -> Result:
        data, component = opts.get("-d"), opts.get("-n")
        shown = f"Starting: Intent {{ act={opts.get('-a', '')} dat={data or ''} cmp={component or ''} }}\n"
        if data and data.split(":", 1)[0] in ("http", "https"):
            if "/_bind/" in data:  # a world session link: the device's apps (and home) are that world's from now on
                self.d.world_url = data.split("/_bind/", 1)[0]
            result = self.open_url(data, _package_of(data, self.d.world_url))
        elif component:
            result = self.open_app(component.split("/", 1)[0])
        elif opts.get("-p"):
            result = self.open_app(opts["-p"])
        else:
            return _err(shown + "Error: Activity not started, unable to resolve Intent")
        return Result(out=shown.encode(), err=result.err, rc=result.rc)

    def _broadcast(self, opts: dict) -> Result:
        action = opts.get("-a", "")
        out = f"Broadcasting: Intent {{ act={action} flg=0x400000 (has extras) }}\nBroadcast completed: result=0\n"
        if self.d.ime != ADBKEYBOARD_IME or not action.startswith("ADB_"):
            return Result(out=out.encode())  # nobody listens: delivered to no one, as on a phone
        extras = opts.get("extras", {})
        if action in ("ADB_INPUT_TEXT", "ADB_INPUT_B64") and "msg" in extras:
            try:
                text = self.d.b64(extras["msg"]) if action == "ADB_INPUT_B64" else extras["msg"]
            except ValueError:
                return Result(out=out.encode())  # ADBKeyboard ignores a message it cannot decode
            self.d.type_now(text)
        elif action == "ADB_CLEAR_TEXT":
            self._act(Hotkey(keys=("ctrl", "a")))
            self._act(Hotkey(keys=("backspace",)))
        elif action == "ADB_INPUT_CODE" and "code" in extras:
            code = keycode(str(extras["code"]))
            if code in NAMES:
                self._key(NAMES[code])
        return Result(out=out.encode())

    def reverse(self, request: str) -> bytes:
        """`reverse:` services. The stand-in shares the host's loopback, so reversing tcp:P to the host's tcp:P is
        the identity; other mappings cannot be honoured and fail."""
        if request.startswith("forward:"):
            spec = request[len("forward:") :].removeprefix("norebind:")
            remote, _, local = spec.partition(";")
            if remote != local or not remote.startswith("tcp:"):
                msg = b"the stand-in shares the host's loopback: only tcp:P to the same tcp:P can be reversed"
                return b"FAIL" + f"{len(msg):04x}".encode() + msg
            self.d.reverses[remote] = local
            return b"OKAY"
        if request == "killforward-all":
            self.d.reverses.clear()
            return b"OKAY"
        if request.startswith("killforward:"):
            self.d.reverses.pop(request.split(":", 1)[1], None)
            return b"OKAY"
        if request == "list-forward":
            text = "".join(f"{self.d.serial} {r} {loc}\n" for r, loc in self.d.reverses.items()).encode()
            return b"OKAY" + f"{len(text):04x}".encode() + text
        msg = f"unknown reverse request {request}".encode()
        return b"FAIL" + f"{len(msg):04x}".encode() + msg

    def pm(self, argv: list[str], stdin: bytes) -> Result:
        args = argv[1:]
        if args[:2] == ["list", "packages"]:
            words = [a for a in args[2:] if not a.startswith("-")]
            found = [p for p in self.d.packages() if not words or words[0] in p]
            return Result(out="".join(f"package:{p}\n" for p in found).encode())
        if args[:1] == ["path"] and len(args) == 2:
            if args[1] in self.d.packages():
                return _ok(f"package:/data/app/{args[1]}/base.apk")
            return Result(rc=1)
        return _err(f"Error: the stand-in does not model 'pm {' '.join(args)}'")

    def ime(self, argv: list[str], stdin: bytes) -> Result:
        args = argv[1:]
        if args[:1] == ["list"]:
            return _ok(ADBKEYBOARD_IME) if self.d.ime_installed else Result()
        if args[:1] in (["set"], ["enable"]) and len(args) == 2:
            if not self.d.ime_installed or args[1] != ADBKEYBOARD_IME:
                return _err(f"Unknown input method {args[1]} cannot be selected for user #0")
            if args[0] == "set":
                self.d.ime = args[1]
                return _ok(f"Input method {args[1]} selected for user #0")
            return _ok(f"Input method {args[1]}: already enabled for user #0")
        if args[:1] == ["reset"]:
            self.d.ime = ADBKEYBOARD_IME if self.d.ime_installed else "null"
            return Result()
        return _err(f"Error: the stand-in does not model 'ime {' '.join(args)}'")

    def settings(self, argv: list[str], stdin: bytes) -> Result:
        args = argv[1:]
        if args[:3] == ["get", "secure", "default_input_method"]:
            return _ok(self.d.ime)
        if args[:3] == ["put", "secure", "default_input_method"] and len(args) == 4:
            return self.ime(["ime", "set", args[3]], stdin)
        if args[:1] == ["get"] and len(args) == 3:
            return _ok("0" if args[2] in ("user_rotation", "accelerometer_rotation") else "null")
        return _err(f"Error: the stand-in does not model 'settings {' '.join(args)}'")

    # -- screen and system --

    def screencap(self, argv: list[str], stdin: bytes) -> Result:
        args = argv[1:]
        png_flag = "-p" in args
        files = [a for a in args if not a.startswith("-")]
        if self.d.take_garbage():
            return Result(out=random.randbytes(random.randint(100, 5000)))
        try:
            png = self.d.screencap()
        except Exception as e:  # noqa: BLE001 - the browser's failure, told as screencap's
            return _err(f"screencap: capture failed: {e}")
        if files:
            self.d.fs.write(files[0], png if png_flag or files[0].endswith(".png") else _raw(png))
            return Result()
        return Result(out=png if png_flag else _raw(png))

    def wm(self, argv: list[str], stdin: bytes) -> Result:
        args = argv[1:]
        width, height = self.d.config.size
        if args == ["size"]:
            return _ok(f"Physical size: {width}x{height}")
        if args == ["density"]:
            return _ok(f"Physical density: {round(self.d.density * 160)}")
        return _err("Error: the stand-in's screen is fixed when it starts (--size); 'wm' only reads it")

    def getprop(self, argv: list[str], stdin: bytes) -> Result:
        props = self.d.props()
        if len(argv) > 1:
            return _ok(props.get(argv[1], ""))
        return Result(out="".join(f"[{k}]: [{v}]\n" for k, v in sorted(props.items())).encode())

    def dumpsys(self, argv: list[str], stdin: bytes) -> Result:
        what = argv[1] if len(argv) > 1 else ""
        width, height = self.d.config.size
        if what == "window":
            pkg = self.d.current_package()
            return _ok(f"  mCurrentRotation=ROTATION_0\n  mCurrentFocus=Window{{standin u0 {pkg}/.Main}}\n"
                       f"  mFocusedApp=ActivityRecord{{standin u0 {pkg}/.Main}}\n  cur={width}x{height} app={width}x"
                       f"{height}")  # fmt: skip
        if what == "display":
            return _ok(f"  mCurrentOrientation=0\n  DisplayDeviceInfo{{\"Built-in Screen\": {width} x {height}, "
                       f"density {round(self.d.density * 160)}, orientation=0}}")  # fmt: skip
        if what == "input":
            return _ok(f"    SurfaceOrientation: 0\n    logicalFrame=[0, 0, {width}, {height}]")
        return _err(f"Error: the stand-in does not model 'dumpsys {what}'")

    def uiautomator(self, argv: list[str], stdin: bytes) -> Result:
        return _err("ERROR: the stand-in has no accessibility tree (venuskit is vision-only)")

    # -- the bits of toybox clients lean on --

    def echo(self, argv: list[str], stdin: bytes) -> Result:
        args = argv[1:]
        newline = args[:1] != ["-n"]
        text = " ".join(args if newline else args[1:])
        return Result(out=(text + ("\n" if newline else "")).encode())

    def sleep(self, argv: list[str], stdin: bytes) -> Result:
        try:
            time.sleep(min(MAX_SLEEP_S, float(argv[1])))
        except (IndexError, ValueError):
            return _err("sleep: need a number of seconds")
        return Result()

    def grep(self, argv: list[str], stdin: bytes) -> Result:
        args = [a for a in argv[1:] if not a.startswith("-")]
        if not args:
            return _err("usage: grep PATTERN", rc=2)
        try:
            pattern = re.compile(args[0]) if "-E" in argv else re.compile(re.escape(args[0]))
        except re.error as e:
            return _err(f"grep: bad pattern: {e}", rc=2)
        lines = [ln for ln in stdin.decode("utf-8", "replace").splitlines() if pattern.search(ln)]
        return Result(out="".join(ln + "\n" for ln in lines).encode(), rc=0 if lines else 1)

    def cat(self, argv: list[str], stdin: bytes) -> Result:
        if len(argv) < 2:
            return Result(out=stdin)
        data = self.d.fs.read(argv[1])
        return _err(f"cat: {argv[1]}: No such file or directory") if data is None else Result(out=data)

    def ls(self, argv: list[str], stdin: bytes) -> Result:
        path = next((a for a in argv[1:] if not a.startswith("-")), "/sdcard")
        entries = self.d.fs.listdir(path)
        if entries is None:
            return _err(f"ls: {path}: No such file or directory")
        return Result(out="".join(f"{name}\n" for name, _ in entries).encode())

    def rm(self, argv: list[str], stdin: bytes) -> Result:
        missing = [p for p in argv[1:] if not p.startswith("-") and not self.d.fs.remove(p)]
        if missing and "-f" not in argv:
            return _err(f"rm: {missing[0]}: No such file or directory")
        return Result()


def _percent_s(text: str) -> str:
    """`input text` reads "%s" as a space (Android's InputShellCommand.sendText)."""
    out, i = [], 0
    while i < len(text):
        if text.startswith("%s", i):
            out.append(" ")
            i += 2
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def _intent_options(args: list[str]) -> dict:
    """am's intent flags: -a -d -n -p -c -t -f take one value, --es/--ei/--ez a key and a value (extras)."""
    opts: dict = {"extras": {}, "args": []}
    i = 0
    while i < len(args):
        a = args[i]
        if a in ("-a", "-d", "-n", "-p", "-c", "-t", "-f", "--user") and i + 1 < len(args):
            opts[a] = args[i + 1]
            i += 2
        elif a in ("--es", "--ei", "--ez", "--el", "--ef") and i + 2 < len(args):
            opts["extras"][args[i + 1]] = args[i + 2]
            i += 3
        elif a.startswith("-"):
            i += 1  # -W, -S, --activity-clear-task...: no value
        else:
            opts["args"].append(a)
            i += 1
    return opts


def _package_of(url: str, world: str | None) -> str | None:
    if not world or not url.startswith(world):
        return None
    path = url[len(world) :].split("?", 1)[0]
    return next((p for p, (_, prefix) in WORLD_APPS.items() if path.startswith(prefix)), None)


def _raw(png: bytes) -> bytes:
    """screencap's raw format (no -p): width, height, pixel format 1 (RGBA_8888), colour space, then RGBA."""
    from PIL import Image

    img = Image.open(io.BytesIO(png)).convert("RGBA")
    head = img.width.to_bytes(4, "little") + img.height.to_bytes(4, "little") + (1).to_bytes(4, "little")
    return head + (0).to_bytes(4, "little") + img.tobytes()

