"""The adb side: a real adb server (Debian's `adb`) reached through adbutils, every failure turned into one of
the env's typed errors.

adbutils starts `adb start-server` on the default port by itself when a connection fails; here that never
happens (it would leave a stray server on 5037 and hide a dead one): `AdbServer.start()` starts one on the
configured port with `adb -P PORT start-server`, only when asked. adbutils also asks the server its version before
every device command; the answer is kept per server start.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import adbutils
from adbutils import AdbConnection, AdbDevice
from adbutils.errors import AdbConnectionError, AdbError, AdbTimeout

from venuskit.envs.android.errors import (
    AdbNotInstalled,
    AdbServerDown,
    DeviceDisconnected,
    DeviceNotFound,
    DeviceOffline,
    DeviceTimeout,
    DeviceUnauthorized,
)
from venuskit.envs.base import EnvError

RECV_CHUNK = 256 * 1024
START_TIMEOUT_S = 20.0


class _Connection(AdbConnection):
    """A connection that never starts a server on its own."""

    def _safe_connect(self) -> socket.socket:
        return self._create_socket()


class _Client(adbutils.AdbClient):
    def __init__(self, host: str, port: int) -> None:
        super().__init__(host=host, port=port)
        self._version: int | None = None

    def make_connection(self, timeout: float | None = None) -> AdbConnection:
        conn = _Connection(self.host, self.port)
        if timeout:
            conn.conn.settimeout(timeout)
        return conn

    def server_version(self) -> int:
        if self._version is None:
            self._version = super().server_version()
        return self._version

    def forget_version(self) -> None:
        self._version = None


@dataclass(frozen=True)
class DeviceInfo:
    serial: str
    state: str  # device | offline | unauthorized | ...
    tags: dict[str, str]


@dataclass(frozen=True)
class ShellResult:
    out: bytes
    err: bytes
    rc: int

    @property
    def text(self) -> str:
        return (self.out + self.err).decode("utf-8", "replace").strip()


class AdbServer:
    """One adb server (host:port) and the adb binary that can start it."""

    def __init__(self, host: str = "127.0.0.1", port: int = 5037, adb_path: str | None = None,
                 home: Path | None = None) -> None:  # fmt: skip
        """`home`: the HOME a server started here runs with, where it keeps its adb key (None: the user's)."""
        self.host, self.port, self.adb_path, self.home = host, port, adb_path, home
        self.client = _Client(host, port)

    @property
    def address(self) -> str:
        return f"{self.host}:{self.port}"

    def alive(self) -> bool:
        try:
            self.client.forget_version()
            self.client.server_version()
        except (AdbConnectionError, AdbTimeout, AdbError, OSError):
            return False
        return True

    def start(self) -> None:
        """`adb -P PORT start-server`; raises AdbNotInstalled or AdbServerDown."""
        exe = self.adb_path or shutil.which("adb")
        if not exe or not os.access(exe, os.X_OK):
            raise AdbNotInstalled(f"No adb binary at {exe or 'adb (PATH)'}; install Debian's adb (apt-get install "
                                  "adb) or pass the path of one (AndroidConfig.adb_path / --adb).")  # fmt: skip
        env = {**os.environ, "HOME": str(self.home)} if self.home is not None else None
        try:
            proc = subprocess.run([exe, "-P", str(self.port), "start-server"], capture_output=True, text=True,
                                  timeout=START_TIMEOUT_S, stdin=subprocess.DEVNULL, env=env)  # fmt: skip
        except (OSError, subprocess.TimeoutExpired) as e:
            raise AdbServerDown(f"`{exe} -P {self.port} start-server` failed: {e}") from e
        self.client.forget_version()
        if not self.alive():
            detail = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or ["no output"]
            home = Path(env["HOME"] if env else os.path.expanduser("~"))
            # adb keeps its key in ~/.android and dies quietly ("cannot connect to daemon") where it cannot write it
            hint = "" if os.access(home, os.W_OK) else f"; adb needs a writable home for ~/.android, {home} is not"
            raise AdbServerDown(f"`{exe} -P {self.port} start-server` did not start a server ({detail[0]}{hint}).")

    def kill(self) -> None:
        """`host:kill`: the server exits (its devices are disconnected)."""
        with contextlib.suppress(AdbConnectionError, AdbTimeout, AdbError, OSError):
            self.client.server_kill()
        self.client.forget_version()

    def devices(self) -> list[DeviceInfo]:
        try:
            return [DeviceInfo(d.serial, d.state, dict(d.tags)) for d in self.client.list(extended=True)]
        except (AdbConnectionError, AdbTimeout, OSError) as e:
            raise self.down_error(e) from e

    def connect(self, serial: str, timeout_s: float) -> str:
        """`adb connect HOST:PORT`; the server's answer ("connected to ...", "failed to authenticate ...")."""
        try:
            return self.client.connect(serial, timeout=timeout_s)
        except AdbTimeout as e:
            raise DeviceOffline(f"{serial} accepted the connection but its adbd never answered within {timeout_s:g} "
                                "s (the device is offline).") from e  # fmt: skip
        except (AdbConnectionError, OSError) as e:
            raise self.down_error(e) from e

    def disconnect(self, serial: str) -> None:
        with contextlib.suppress(AdbConnectionError, AdbTimeout, AdbError, OSError):
            self.client.disconnect(serial)

    def down_error(self, cause: object) -> AdbServerDown:
        return AdbServerDown(f"No adb server answers at {self.address} ({cause}); start one with `adb -P {self.port} "
                             "start-server` (the env does when AndroidConfig.start_server is on).")  # fmt: skip


@contextlib.contextmanager
def private_server(adb_path: str | None = None, home: Path | None = None) -> Iterator[AdbServer]:
    """An adb server of its own on a free loopback port, killed on exit: tests, benchmarks and in-process stand-in
    runs never touch the user's server (and its devices) on 5037. Its adb key lives in `home` (a temporary folder
    when None), not in the user's ~/.android."""
    with contextlib.ExitStack() as stack:
        if home is None:
            home = Path(stack.enter_context(tempfile.TemporaryDirectory(prefix="venuskit-adb-")))
        server = AdbServer("127.0.0.1", free_port(), adb_path, home)
        server.start()
        try:
            yield server
        finally:
            server.kill()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class DeviceLink:
    """Commands on one device through one server, with timeouts, every failure typed."""

    def __init__(self, server: AdbServer, serial: str, timeout_s: float) -> None:
        self.server, self.serial, self.timeout_s = server, serial, timeout_s
        self.device = AdbDevice(server.client, serial=serial)
        self.shell_v2 = False

    def features(self) -> set[str]:
        with self._errors("features"):
            features = set(self.device.get_features().split(","))
        self.shell_v2 = "shell_v2" in features
        return features

    def shell(self, command: str, timeout_s: float | None = None) -> ShellResult:
        """Run a shell command line; its output and exit status (shell v2 where the device has it)."""
        with self._errors(command, timeout_s):
            if self.shell_v2:
                r = self.device.shell2(command, timeout=timeout_s or self.timeout_s, encoding=None, v2=True)
                return ShellResult(r.stdout, r.stderr, r.returncode)
            r = self.device.shell2(command, timeout=timeout_s or self.timeout_s, encoding=None)
            return ShellResult(r.output, b"", r.returncode)

    def exec_out(self, command: str, timeout_s: float | None = None) -> bytes:
        """`exec-out`: raw stdout, no shell in between (screencap's PNG bytes arrive untouched)."""
        with self._errors(command, timeout_s):
            conn = self.device.open_transport(timeout=timeout_s or self.timeout_s)
            try:
                conn.send_command("exec:" + command)
                conn.check_okay()
                return _read_all(conn.conn)
            finally:
                conn.close()

    def reverse(self, port: int) -> None:
        with self._errors(f"reverse tcp:{port}"):
            self.device.reverse(f"tcp:{port}", f"tcp:{port}")

    def stat(self, path: str) -> Any:
        with self._errors(f"stat {path}"):
            return self.device.sync.stat(path)

    def _errors(self, what: str, timeout_s: float | None = None) -> _Typed:
        return _Typed(self, what, timeout_s or self.timeout_s)


class _Typed:
    """Turns adbutils' and the socket's exceptions into the env's typed errors."""

    def __init__(self, link: DeviceLink, what: str, timeout_s: float) -> None:
        self.link, self.what, self.timeout_s = link, what, timeout_s

    def __enter__(self) -> None:
        return None

    def __exit__(self, kind: type | None, exc: BaseException | None, tb: object) -> bool:
        if exc is None or isinstance(exc, EnvError):
            return False
        typed = classify(exc, self.link.server, self.link.serial, self.what, self.timeout_s)
        if typed is None:
            return False
        raise typed from exc


def classify(exc: BaseException, server: AdbServer, serial: str, what: str, timeout_s: float) -> EnvError | None:
    """adbutils' exception (or a socket's) -> the env's typed error; None for one that is not about adb."""
    short = what if len(what) <= 60 else what[:57] + "..."
    if isinstance(exc, (AdbTimeout, socket.timeout, TimeoutError)):
        return DeviceTimeout(f"`{short}` did not finish on {serial} within {timeout_s:g} s (a hung command or "
                             "device).")  # fmt: skip
    if isinstance(exc, AdbConnectionError) or (isinstance(exc, OSError) and not isinstance(exc, AdbError)):
        if isinstance(exc, (ConnectionResetError, BrokenPipeError)) and server.alive():
            return DeviceDisconnected(f"{serial} dropped the connection during `{short}`.")
        return server.down_error(exc)
    if isinstance(exc, (AdbError, EOFError)):
        return device_error(str(exc), serial, short)
    return None


def device_error(message: str, serial: str, what: str = "the command") -> EnvError:
    """The server's FAIL message about a device -> the typed error that says what to do."""
    low = message.lower()
    if "unauthorized" in low:
        return DeviceUnauthorized(f"{serial} is unauthorized: accept the 'Allow USB debugging?' prompt on the device "
                                  "(tick 'Always allow from this computer'), then run again.")  # fmt: skip
    if "offline" in low:
        return DeviceOffline(f"{serial} is offline: its adbd does not answer. Wait for it to boot, or reconnect it "
                             f"(adb disconnect {serial}; adb connect {serial}, or replug the cable).")  # fmt: skip
    if "not found" in low or "no devices" in low:
        return DeviceNotFound(f"The adb server lists no device {serial}: connect it (USB, or `adb connect "
                              "HOST:PORT`) and check `venus android devices`.")  # fmt: skip
    if "closed" in low or "expected" in low or "connection" in low:
        return DeviceDisconnected(f"{serial} went away during `{what}` ({message.strip()}).")
    return EnvError(f"adb: `{what}` on {serial} failed: {message.strip()}")


def state_error(info: DeviceInfo | None, serial: str) -> EnvError | None:
    """The typed error for a device that is not ready ("device"), or None when it is."""
    if info is None:
        return device_error("not found", serial)
    if info.state == "device":
        return None
    if info.state in ("unauthorized", "offline"):
        return device_error(info.state, serial)
    return DeviceOffline(f"{serial} is in state {info.state!r}, not 'device'; boot it into Android and run again.")


def wait_until_ready(server: AdbServer, serial: str, timeout_s: float, connect: bool) -> None:
    """Wait for `serial` to be listed as "device"; a HOST:PORT serial that is missing or offline is `adb
    connect`ed again (at most once a second: adb's own retries of a dropped TCP device are slow). Raises the last
    typed error when the time is up, and an unauthorized device at once (only a person can fix that)."""
    deadline = time.monotonic() + timeout_s
    last_connect = float("-inf")
    while True:
        info = next((d for d in server.devices() if d.serial == serial), None)
        error = state_error(info, serial)
        if error is None:
            return
        now = time.monotonic()
        if isinstance(error, DeviceUnauthorized):
            raise error
        if connect and is_tcp_serial(serial) and now - last_connect >= 1.0:
            last_connect = now
            if info is not None:
                server.disconnect(serial)
            answer = server.connect(serial, timeout_s=max(1.0, min(5.0, deadline - now)))
            if "unable" in answer or "failed to connect" in answer or "cannot" in answer:
                error = DeviceNotFound(f"adb connect {serial}: {answer.strip()}")
        if time.monotonic() >= deadline:
            raise error
        time.sleep(0.2)


def is_tcp_serial(serial: str) -> bool:
    host, sep, port = serial.rpartition(":")
    return bool(sep and host and port.isdigit())


def _read_all(sock: socket.socket) -> bytes:
    """Everything until the device closes the stream (adbutils reads 4 KiB at a time and concatenates)."""
    buf = bytearray()
    while chunk := sock.recv(RECV_CHUNK):
        buf += chunk
    return bytes(buf)
