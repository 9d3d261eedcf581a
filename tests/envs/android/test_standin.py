"""The stand-in device as any adb client sees it: Debian's adb binary against it (devices -l, shell with exit
codes, exec-out, push/pull, reverse, an interactive shell), its shell's grammar, and its screen geometry."""

from __future__ import annotations

import subprocess

import pytest

from venuskit.envs.android.standin.device import WORLD_APPS, screen_geometry
from venuskit.envs.android.standin.shell import Result, ShellSyntaxError, run_line, tokenize


def test_screen_geometry_keeps_the_mobile_layout() -> None:
    assert screen_geometry((1080, 2400)) == (432, 960, 2.5)
    assert screen_geometry((540, 1200)) == (432, 960, 1.25)
    assert screen_geometry((720, 1600)) == (360, 800, 2.0)
    assert screen_geometry((1081, 2401)) == (1081, 2401, 1.0)  # only 1:1 divides it (a tablet's layout)


# ---- the shell ---------------------------------------------------------------------------------------------


def echo(argv: list[str], stdin: bytes) -> Result:
    return Result(out=(" ".join(argv[1:]) + "\n").encode())


COMMANDS = {"echo": echo, "false": lambda a, i: Result(rc=1), "true": lambda a, i: Result(),
            "upper": lambda a, i: Result(out=i.upper())}  # fmt: skip


def test_shell_quoting_is_posix() -> None:
    words = [t for k, t in tokenize("""input text 'a b;c' "d \\"e\\" $?" f\\ g 'it'"'"'s' # comment""", 7)]
    assert words == ["input", "text", "a b;c", 'd "e" 7', "f g", "it's"]
    assert tokenize("a;b") == [("word", "a"), ("op", ";"), ("word", "b")]
    assert tokenize("'a;b'") == [("word", "a;b")]  # a quoted operator is a word


def test_shell_lists_pipes_and_exit_status() -> None:
    assert run_line("false; echo X4EXIT:$?", COMMANDS).out == b"X4EXIT:1\n"  # adbutils' exit-code trick
    assert run_line("true && echo yes || echo no", COMMANDS).out == b"yes\n"
    assert run_line("false && echo yes || echo no", COMMANDS).out == b"no\n"
    assert run_line("echo hi | upper", COMMANDS).out == b"HI\n"
    missing = run_line("nope; echo $?", COMMANDS)
    assert missing.out == b"127\n" and b"nope: inaccessible or not found" in missing.err


@pytest.mark.parametrize("line", ["echo a > /sdcard/x", "echo $(id)", "sleep 1 &", "echo $HOME", "echo 'open"])
def test_shell_refuses_what_it_does_not_run(line: str) -> None:
    result = run_line(line, COMMANDS)
    assert result.rc == 2 and result.out == b"" and result.err.startswith(b"/system/bin/sh: ")
    with pytest.raises(ShellSyntaxError):
        tokenize(line)


# ---- through Debian's adb ----------------------------------------------------------------------------------

@pytest.fixture
def adb(adb_server, adb_home, standin):
    """adb -P PORT -s SERIAL ... against the stand-in; returns the CompletedProcess (bytes)."""
    adb_server.connect(standin.serial, timeout_s=10)

    def run(*args: str, stdin: bytes | None = None, device: bool = True) -> subprocess.CompletedProcess:
        target = ["-s", standin.serial] if device else []
        return subprocess.run(["adb", "-P", str(adb_server.port), *target, *args], input=stdin, capture_output=True,
                              timeout=30, env={"HOME": str(adb_home), "PATH": "/usr/bin:/bin"})  # fmt: skip

    return run


@pytest.mark.browser
def test_adb_lists_and_queries_the_stand_in(adb, standin) -> None:
    listed = adb("devices", "-l", device=False).stdout.decode()
    assert standin.serial in listed and "model:venuskit_standin" in listed
    assert adb("shell", "getprop", "ro.product.model").stdout == b"venuskit-standin\n"
    assert adb("shell", "getprop venuskit.standin.note").stdout.decode().startswith("a stand-in device")
    assert adb("shell", "wm size").stdout == b"Physical size: 540x1200\n"
    assert adb("shell", "wm density").stdout == b"Physical density: 200\n"
    packages = adb("shell", "pm list packages").stdout.decode().split()
    assert {f"package:{p}" for p in WORLD_APPS} <= set(packages)


@pytest.mark.browser
def test_adb_shell_exit_codes_and_errors(adb) -> None:
    assert adb("shell", "false").returncode == 1  # shell v2 carries the status
    tapped = adb("shell", "input tap")
    assert tapped.returncode == 1 and b"Invalid arguments for command: tap" in tapped.stderr
    key = adb("shell", "input keyevent NOPE")
    assert key.returncode == 1 and b"Unknown keycode: NOPE" in key.stderr
    assert b"No activities found" in adb("shell", "monkey -p com.example.none 1").stdout
    assert adb("shell", "uiautomator dump").returncode == 1


@pytest.mark.browser
def test_adb_opens_apps_and_screencaps(adb, standin, world) -> None:
    assert adb("shell", "monkey -p com.venuskit.calendar -c android.intent.category.LAUNCHER 1").returncode == 0
    assert "/calendar/" in standin.page.url
    focus = adb("shell", "dumpsys window | grep mCurrentFocus").stdout.decode()
    assert "com.venuskit.calendar" in focus
    png = adb("exec-out", "screencap -p").stdout
    assert png.startswith(b"\x89PNG") and int.from_bytes(png[16:20], "big") == 540
    assert int.from_bytes(png[20:24], "big") == 1200
    raw = adb("exec-out", "screencap").stdout  # without -p: width, height, format, colour space, RGBA
    assert raw[:12] == (540).to_bytes(4, "little") + (1200).to_bytes(4, "little") + (1).to_bytes(4, "little")
    assert len(raw) == 16 + 540 * 1200 * 4
    assert adb("shell", "input keyevent KEYCODE_HOME").returncode == 0
    assert standin.page.url == f"{world.base_url}/"


@pytest.mark.browser
def test_adb_push_pull_and_ls(adb, tmp_path) -> None:
    src = tmp_path / "in.bin"
    src.write_bytes(bytes(range(256)) * 700)  # 179 KB: several DATA chunks, several WRTEs
    assert adb("push", str(src), "/data/local/tmp/in.bin").returncode == 0
    assert b"in.bin" in adb("shell", "ls /data/local/tmp").stdout
    assert adb("pull", "/data/local/tmp/in.bin", str(tmp_path / "out.bin")).returncode == 0
    assert (tmp_path / "out.bin").read_bytes() == src.read_bytes()
    missing = adb("pull", "/sdcard/none.png", str(tmp_path / "x"))
    assert missing.returncode != 0 and b"does not exist" in missing.stdout + missing.stderr


@pytest.mark.browser
def test_adb_reverse_is_the_identity_on_shared_loopback(adb) -> None:
    assert adb("reverse", "tcp:8123", "tcp:8123").returncode == 0
    refused = adb("reverse", "tcp:8123", "tcp:9000")
    assert refused.returncode != 0 and b"shares the host's loopback" in refused.stderr


@pytest.mark.browser
def test_adb_interactive_shell(adb) -> None:
    out = adb("shell", stdin=b"echo hello\nexit\n")
    assert out.returncode == 0 and b"hello" in out.stdout and b"standin:/ $" in out.stdout
