"""`venus android standin` and `venus android devices` as a user runs them: the stand-in comes up as its own
process with a world of its own, connects itself to the adb server, is listed as a stand-in, and stops on Ctrl-C."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

pytestmark = [pytest.mark.browser, pytest.mark.slow]

VENUS = [sys.executable, "-m", "venuskit.cli.main"]


def test_standin_process_connects_and_is_listed_as_a_stand_in(adb_server, adb_home) -> None:
    env = {**os.environ, "HOME": str(adb_home)}
    proc = subprocess.Popen([*VENUS, "android", "standin", "--port", "0", "--size", "540x1200", "--adb-port",
                             str(adb_server.port)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env=env)  # fmt: skip
    try:
        lines = []
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline and not any(line.startswith("Ctrl-C") for line in lines):
            line = proc.stdout.readline()
            if not line:
                break
            lines.append(line.strip())
        text = "\n".join(lines)
        assert "STAND-IN device (not Android)" in text and "not modelled: a real input method" in text, text
        serial = text.split(" on ", 1)[1].split(":", 2)
        serial = f"{serial[0]}:{serial[1]}"
        assert f"connected to {serial}" in text
        listed = subprocess.run([*VENUS, "android", "devices", "--adb-port", str(adb_server.port)],
                                capture_output=True, text=True, timeout=60, env=env)  # fmt: skip
        assert listed.returncode == 0
        row = next(line for line in listed.stdout.splitlines() if line.startswith(serial))
        assert "device" in row and "venuskit stand-in, not Android" in row
    finally:
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 0


def test_devices_with_no_server_and_a_bad_size_are_one_line_errors(adb_home) -> None:
    from venuskit.envs.android.adb import free_port

    env = {**os.environ, "HOME": str(adb_home), "PATH": "/nonexistent"}  # no adb to start a server with
    out = subprocess.run([*VENUS, "android", "devices", "--adb-port", str(free_port())], capture_output=True,
                         text=True, timeout=60, env=env)  # fmt: skip
    assert out.returncode == 2 and "apt-get install adb" in out.stderr and "Traceback" not in out.stderr
    out = subprocess.run([*VENUS, "android", "standin", "--size", "big"], capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "WIDTHxHEIGHT" in out.stderr and "Traceback" not in out.stderr
