"""The desktop's processes: Xvfb (its screen memory-mapped for screenshots), a private D-Bus session bus and the
openbox window manager, all under one temporary root folder that also holds the home folder.

Screenshots. Xvfb started with `-fbdir DIR` keeps its screen in the file DIR/Xvfb_screen0 (XWD format). Mapping
that file reads the screen with one memory copy, no X request at all: ~5 ms for 1280x800 against ~10 ms for an
XGetImage round trip through python-xlib (benchmarks/desktop.py measures both). It also shows the pointer, which
Xvfb draws into its screen in software; XGetImage leaves the pointer out, and a computer agent whose actions may
act "at the cursor" must see where the cursor is.

Display numbers. `-displayfd` makes Xvfb pick a free display itself and write its number back, so several envs
(and other X servers on the machine) never race for a number.
"""

from __future__ import annotations

import contextlib
import ctypes
import mmap
import os
import pwd
import shutil
import signal
import struct
import subprocess
import tempfile
import time
import zlib
from pathlib import Path

import numpy as np

from venuskit.envs.base import EnvError
from venuskit.envs.desktop.apps import openbox_menu
from venuskit.envs.desktop.skel import OPENBOX_RC
from venuskit.infra import proc

XWD_HEADER = struct.Struct(">25I")
ROOT_PREFIX = "venuskit-desktop-"
_PR_SET_PDEATHSIG = 1


def _die_with_parent() -> None:
    """In the child before exec: be killed if the process that started us dies (even by SIGKILL), so no Xvfb or
    app outlives a crashed harness. (Linux ties this to the starting thread; envs are driven from one thread.)"""
    with contextlib.suppress(OSError):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)


def desktop_user() -> tuple[int, int] | None:
    """(uid, gid) the desktop's programs run as: `nobody` when the harness runs as root (apps behave as for a
    person's account, e.g. the editor shows no root warning), else None (the harness's own user)."""
    if os.geteuid() != 0:
        return None
    try:
        entry = pwd.getpwnam("nobody")
    except KeyError:
        return None
    return entry.pw_uid, entry.pw_gid


def chown_tree(path: Path, user: tuple[int, int] | None) -> None:
    if user is None:
        return
    os.chown(path, *user)
    for dirpath, dirnames, filenames in os.walk(path):
        for name in dirnames + filenames:
            os.chown(os.path.join(dirpath, name), *user, follow_symlinks=False)


def spawn(argv: list[str], *, env: dict[str, str], cwd: str | Path, log: Path,
          user: tuple[int, int] | None = None) -> subprocess.Popen:  # fmt: skip
    """Start a desktop process in its own session (its own process group), output to `log`."""
    ids = {"user": user[0], "group": user[1], "extra_groups": []} if user else {}
    with open(log, "ab") as out:
        try:
            return subprocess.Popen(argv, cwd=cwd, env=env, stdin=subprocess.DEVNULL, stdout=out, stderr=out,
                                    start_new_session=True, preexec_fn=_die_with_parent, **ids)  # fmt: skip
        except OSError as e:
            raise EnvError(f"Could not start {argv[0]}: {e}. Install the desktop's packages: scripts/setup.sh.") from e


def stop(p: subprocess.Popen | None) -> None:
    """Kill a desktop process and its process group (everything it started that did not leave the group), and
    reap it. No scan of the process table: that costs ~100 ms on a busy machine, and resets call this often."""
    if p is None:
        return
    for kill in (os.killpg, os.kill):  # the group first; the process itself if it left its group
        with contextlib.suppress(ProcessLookupError, PermissionError):
            kill(p.pid, signal.SIGKILL)
    with contextlib.suppress(subprocess.TimeoutExpired):
        p.wait(5)


def sweep_stale_roots(base: str) -> list[str]:
    """Remove root folders left by desktops whose owning process died without closing them (SIGKILL)."""
    removed = []
    for path in Path(base).glob(f"{ROOT_PREFIX}*"):
        try:
            owner = int((path / "owner.pid").read_text())
        except (OSError, ValueError):
            continue
        if not proc.alive(owner):
            shutil.rmtree(path, ignore_errors=True)
            removed.append(str(path))
    return removed


def temp_base() -> str:
    """tmpfs when there is one: home folder restores and the screen file then never touch a disk."""
    return "/dev/shm" if os.access("/dev/shm", os.W_OK) else tempfile.gettempdir()


class Framebuffer:
    """Xvfb's screen, memory-mapped. `grab()` returns an (height, width, 3) RGB array copy."""

    def __init__(self, path: Path, width: int, height: int) -> None:
        self._fh = open(path, "rb")  # noqa: SIM115 - kept open for the mapping's lifetime
        self._mm = mmap.mmap(self._fh.fileno(), 0, prot=mmap.PROT_READ)
        header = XWD_HEADER.unpack_from(self._mm, 0)
        header_size, depth, fb_width, fb_height, bits = header[0], header[3], header[4], header[5], header[11]
        if (fb_width, fb_height) != (width, height) or depth != 24 or bits != 32:
            raise EnvError(f"Xvfb's screen file is {fb_width}x{fb_height} at depth {depth}/{bits} bpp; expected "
                           f"{width}x{height} at 24/32.")  # fmt: skip
        self.width, self.height = width, height
        self._stride = header[12]
        self._offset = header_size + header[19] * 12  # header, then ncolors XWDColor entries of 12 bytes
        self._pixels = np.frombuffer(self._mm, dtype=np.uint8, count=self._stride * height, offset=self._offset)

    def grab(self) -> np.ndarray:
        """The screen as RGB (Xvfb stores BGRX)."""
        rows = self._pixels.reshape(self.height, self._stride // 4, 4)
        return rows[:, : self.width, 2::-1].copy()

    def close(self) -> None:
        self._pixels = None  # type: ignore[assignment]  # release the buffer before the mapping closes
        with contextlib.suppress(BufferError):
            self._mm.close()
        self._fh.close()


def encode_png(rgb: np.ndarray, level: int = 1) -> bytes:
    """A PNG of an (height, width, 3) uint8 array, written directly: every row with filter type None, then zlib.
    PIL's encoder tries an adaptive filter per row, which costs 3-5x the time on screenshots and saves little:
    desktop screens are mostly flat colour, which deflate compresses well unfiltered."""
    height, width, _ = rgb.shape
    rows = np.empty((height, width * 3 + 1), dtype=np.uint8)
    rows[:, 0] = 0
    rows[:, 1:] = rgb.reshape(height, width * 3)
    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8-bit RGB, no interlace
    idat = zlib.compress(rows, level)
    return b"\x89PNG\r\n\x1a\n" + _chunk(b"IHDR", header) + _chunk(b"IDAT", idat) + _chunk(b"IEND", b"")


def _chunk(tag: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + tag + data + struct.pack(">I", zlib.crc32(tag + data))


class XSession:
    """Xvfb + D-Bus session bus + openbox under `root`, started and stopped together."""

    def __init__(self, width: int, height: int, wm: bool = True) -> None:
        self.width, self.height, self.wm = width, height, wm
        self.root = Path(tempfile.mkdtemp(prefix=ROOT_PREFIX, dir=temp_base()))
        (self.root / "owner.pid").write_text(str(os.getpid()))
        self.user = desktop_user()
        os.chmod(self.root, 0o711)  # the desktop's user reaches its folders, lists nothing else
        for sub in ("fb", "logs", "run", "home", "wm"):
            (self.root / sub).mkdir(mode=0o700)
        os.chmod(self.root / "wm", 0o755)
        chown_tree(self.root / "run", self.user)
        chown_tree(self.root / "home", self.user)
        self.xvfb: subprocess.Popen | None = None
        self.bus: subprocess.Popen | None = None
        self.openbox: subprocess.Popen | None = None
        self.display = ""
        self.bus_address = ""
        self.framebuffer: Framebuffer | None = None

    @property
    def home(self) -> Path:
        return self.root / "home"

    def env(self) -> dict[str, str]:
        """The environment every desktop process gets (apps included)."""
        keep = {k: os.environ[k] for k in ("PATH", "TZ") if k in os.environ}
        return {
            **keep, "DISPLAY": self.display, "HOME": str(self.home), "USER": "user", "LOGNAME": "user",
            "XDG_RUNTIME_DIR": str(self.root / "run"), "XDG_CONFIG_HOME": str(self.home / ".config"),
            "XDG_DATA_HOME": str(self.home / ".local/share"), "XDG_CACHE_HOME": str(self.home / ".cache"),
            "DBUS_SESSION_BUS_ADDRESS": self.bus_address, "NO_AT_BRIDGE": "1", "GSETTINGS_BACKEND": "keyfile",
            "GTK_OVERLAY_SCROLLING": "0", "SHELL": "/bin/bash", "TERM": "xterm", "LANG": "C.UTF-8",
        }  # fmt: skip

    def start(self, timeout_s: float = 15.0) -> None:
        self._start_xvfb(timeout_s)
        self.framebuffer = Framebuffer(self.root / "fb" / "Xvfb_screen0", self.width, self.height)
        self._start_bus(timeout_s)
        if self.wm:
            wm = self.root / "wm"
            (wm / "rc.xml").write_text(OPENBOX_RC.replace("@MENU@", str(wm / "menu.xml")), encoding="utf-8")
            (wm / "menu.xml").write_text(openbox_menu(), encoding="utf-8")
            self.restart_wm()

    def _start_xvfb(self, timeout_s: float) -> None:
        read_fd, write_fd = os.pipe()
        argv = ["Xvfb", "-displayfd", str(write_fd), "-screen", "0", f"{self.width}x{self.height}x24",
                "-fbdir", str(self.root / "fb"), "-nolisten", "tcp", "-noreset", "+extension", "DAMAGE",
                "-dpi", "96"]  # fmt: skip
        try:
            with open(self.root / "logs" / "xvfb.log", "ab") as log:
                self.xvfb = subprocess.Popen(argv, pass_fds=(write_fd,), stdin=subprocess.DEVNULL, stdout=log,
                                             stderr=log, start_new_session=True,
                                             preexec_fn=_die_with_parent)  # fmt: skip
        except OSError as e:
            raise EnvError(f"Could not start Xvfb: {e}. Install it with scripts/setup.sh (apt package xvfb).") from e
        finally:
            os.close(write_fd)
        number = _read_line(read_fd, timeout_s)
        if not number.isdigit():
            log = (self.root / "logs" / "xvfb.log").read_text(errors="replace")[-500:]
            stop(self.xvfb)
            raise EnvError(f"Xvfb did not start within {timeout_s:g} s: {log.strip() or 'no output'}")
        self.display = f":{number}"

    def _start_bus(self, timeout_s: float) -> None:
        address = f"unix:path={self.root / 'run' / 'bus'}"
        read_fd, write_fd = os.pipe()
        argv = ["dbus-daemon", "--session", "--nofork", "--nopidfile", f"--address={address}",
                f"--print-address={write_fd}"]  # fmt: skip
        ids = {"user": self.user[0], "group": self.user[1], "extra_groups": []} if self.user else {}
        try:
            with open(self.root / "logs" / "dbus.log", "ab") as log:
                self.bus = subprocess.Popen(argv, pass_fds=(write_fd,), stdin=subprocess.DEVNULL, stdout=log,
                                            stderr=log, start_new_session=True, preexec_fn=_die_with_parent,
                                            **ids)  # fmt: skip
        except OSError:
            self.bus = None  # no session bus: apps still run (single-instance handoff and some settings do not)
            return
        finally:
            os.close(write_fd)
        self.bus_address = _read_line(read_fd, timeout_s) or ""

    def alive(self) -> bool:
        return self.xvfb is not None and self.xvfb.poll() is None

    def wm_alive(self) -> bool:
        return not self.wm or (self.openbox is not None and self.openbox.poll() is None)

    def restart_wm(self) -> None:
        stop(self.openbox)
        self.openbox = spawn(["openbox", "--config-file", str(self.root / "wm" / "rc.xml")], env=self.env(),
                             cwd=self.home, log=self.root / "logs" / "openbox.log", user=self.user)  # fmt: skip

    def pids(self) -> list[int]:
        """The session's processes and everything they started (apps launched from the menu included)."""
        out: list[int] = []
        table = proc.proc_table()
        for p in (self.xvfb, self.bus, self.openbox):
            if p is not None and p.poll() is None:
                out += proc.process_tree(p.pid, table)
        return out

    def kill_xvfb(self) -> None:
        """For crash tests and the watchdog: the X server dies at once."""
        if self.xvfb is not None and self.xvfb.poll() is None:
            os.kill(self.xvfb.pid, signal.SIGKILL)

    def close(self, remove: bool = True) -> None:
        if self.framebuffer is not None:
            self.framebuffer.close()
            self.framebuffer = None
        for p in (self.openbox, self.bus, self.xvfb):
            stop(p)
        self.openbox = self.bus = self.xvfb = None
        if remove:
            shutil.rmtree(self.root, ignore_errors=True)


def _read_line(fd: int, timeout_s: float) -> str:
    """What a child writes to the pipe `fd` up to its first newline (or EOF / timeout)."""
    import select

    data, end = b"", time.monotonic() + timeout_s
    try:
        while b"\n" not in data:
            left = end - time.monotonic()
            if left <= 0 or not select.select([fd], [], [], left)[0]:
                break
            chunk = os.read(fd, 256)
            if not chunk:
                break
            data += chunk
    finally:
        os.close(fd)
    return data.decode(errors="replace").strip()
