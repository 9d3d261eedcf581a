"""`venus android`: the devices an adb server sees, and the stand-in device (see docs/android.md)."""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import typer

from venuskit.cli.common import fail, serve_until_ctrl_c

app = typer.Typer(help="Android devices through adb, and the venuskit stand-in device.", no_args_is_help=True,
                  add_completion=False, pretty_exceptions_enable=False)  # fmt: skip

STANDIN_HELP = (
    "Run the STAND-IN device: not Android, but a loopback process that speaks adbd's transport protocol "
    "(`adb connect 127.0.0.1:PORT`) and answers shell and sync commands by driving the bundled world's mobile pages "
    "in Chromium. It does not model a real input method, notifications, system dialogs, permissions or "
    "multi-window, and says so in the manifest of every episode run on it. Ctrl-C stops it."
)


class AdbOpts:
    host = typer.Option("127.0.0.1", "--adb-host", help="Host of the adb server.")
    port = typer.Option(None, "--adb-port", help="Port of the adb server (default: $ANDROID_ADB_SERVER_PORT or 5037).")


def adb_port(port: int | None) -> int:
    if port is not None:
        return port
    raw = os.environ.get("ANDROID_ADB_SERVER_PORT", "5037")
    if not raw.isdigit():
        fail(f"ANDROID_ADB_SERVER_PORT={raw!r} is not a port number.")
    return int(raw)


@app.command()
def devices(
    adb_host: str = AdbOpts.host,
    adb_port_: int | None = AdbOpts.port,
    json_out: bool = typer.Option(False, "--json", help="One JSON object per device."),
) -> None:
    """List the devices the adb server sees (starting a local server first, as `adb devices` does)."""
    from venuskit.envs.android import AndroidConfig, list_devices
    from venuskit.envs.base import EnvError

    try:
        rows = list_devices(AndroidConfig(adb_host=adb_host, adb_port=adb_port(adb_port_)))
    except (EnvError, ValueError) as e:
        fail(str(e))
    if json_out:
        for row in rows:
            typer.echo(json.dumps(row))
        return
    if not rows:
        typer.echo("No devices. Plug a phone in (USB debugging on), start an emulator, `adb connect HOST:PORT`, or "
                   "run `venus android standin`.")  # fmt: skip
    for row in rows:
        note = "  (venuskit stand-in, not Android)" if row["standin"] else ""
        typer.echo(f"{row['serial']:<24} {row['state']:<13} {row['model'] or '-'}{note}")


def android_config(serial: str, adb_host: str, port: int | None, apps_file: Path | None = None) -> Any:
    """The device of `venus run --surface android`: --serial, else $ANDROID_SERIAL, else the one attached; --apps
    FILE, the user's app table. Raises ValueError (a bad table) with the fix."""
    from venuskit.envs.android import AndroidConfig
    from venuskit.envs.android.apps import load_apps_file

    apps = load_apps_file(apps_file) if apps_file is not None else {}
    return AndroidConfig(serial=serial or os.environ.get("ANDROID_SERIAL") or None, adb_host=adb_host,
                         adb_port=adb_port(port), apps=apps)  # fmt: skip


@contextlib.contextmanager
def world_device(config: Any) -> Iterator[tuple[Any, Any, None]]:
    """For `venus run --surface android --world`: (a world server, the device's env, no gate). The device reaches
    the world through `adb reverse`. The consequential-action gate reads the page's controls, which a device does
    not expose, so it is off here: actions are recorded, not stopped (docs/android.md)."""
    from venuskit.envs.android import AndroidEnv
    from venuskit.world.server import WorldServer

    with WorldServer() as server, AndroidEnv(config) as env:
        yield server, env, None


def given(ctx: typer.Context, option: str) -> bool:
    """Whether the user typed this option (not its default)."""
    source = ctx.get_parameter_source(option)
    return source is not None and source.name == "COMMANDLINE"


def device_serials(serials: list[str], workers: int) -> tuple[str, ...]:
    """--serial (repeatable) or $ANDROID_SERIAL; with several workers, one device each. Empty: none given."""
    from venuskit.envs.android.devices import serials_for_workers

    given = [s for s in serials if s] or ([os.environ["ANDROID_SERIAL"]] if os.environ.get("ANDROID_SERIAL") else [])
    return tuple(serials_for_workers(given, workers)) if given else ()


def parse_size(text: str) -> tuple[int, int]:
    w, sep, h = text.lower().partition("x")
    if not (sep and w.isdigit() and h.isdigit()):
        raise ValueError(f"--size must be WIDTHxHEIGHT in pixels (e.g. 1080x2400), got {text!r}.")
    return int(w), int(h)


@app.command(help=STANDIN_HELP)
def standin(
    port: int = typer.Option(5555, help="Loopback port adb connects to (0: any free port)."),
    size: str = typer.Option("1080x2400", help="Screen size in device pixels, WIDTHxHEIGHT (portrait)."),
    world: str = typer.Option("", "--world", help="Base URL of a running world server whose apps the device has; "
                              "default: a world of its own (seed --seed) on a free port."),
    seed: int = typer.Option(0, help="Seed of the device's own world (without --world)."),
    ime: str = typer.Option("adbkeyboard", help="adbkeyboard (the ADBKeyboard IME is installed and selected: any "
                            "text types) or none (only ASCII types)."),
    connect: bool = typer.Option(True, "--connect/--no-connect", help="`adb connect` it on the adb server."),
    adb_host: str = AdbOpts.host,
    adb_port_: int | None = AdbOpts.port,
    headed: bool = typer.Option(False, help="Show the device's Chromium window (needs a display)."),
) -> None:
    from venuskit.envs.android.standin import StandinConfig, StandinDevice

    server = None
    try:
        config = StandinConfig(size=parse_size(size), ime=ime, headless=not headed)  # type: ignore[arg-type]
        if not world:
            from venuskit.world.server import WorldServer

            server = WorldServer(serve_mode=True).start()
            server.default_episode = server.new_episode(seed)
            world = server.base_url
        config.world_url = world.rstrip("/")
        device = StandinDevice(config, port=port).start()
    except (ValueError, OSError, RuntimeError) as e:
        if server is not None:
            server.stop()
        fail(str(e))

    def announce() -> None:
        typer.echo(f"venuskit STAND-IN device (not Android) on {device.serial}: {config.size[0]}x{config.size[1]}, "
                   f"density {round(device.density * 160)}, the world at {world}/")  # fmt: skip
        typer.echo("not modelled: a real input method, notifications, system dialogs, permissions, multi-window")
        if connect:
            typer.echo(_connect(device.serial, adb_host, adb_port(adb_port_)))
        else:
            typer.echo(f"connect it with: adb connect {device.serial}")
        typer.echo("Ctrl-C to stop")

    def stop() -> None:
        device.close()
        if server is not None:
            server.stop()

    serve_until_ctrl_c(announce, stop)


def _connect(serial: str, host: str, port: int) -> str:
    from venuskit.envs.android import AndroidConfig
    from venuskit.envs.android.adb import AdbServer
    from venuskit.envs.base import EnvError

    config = AndroidConfig(adb_host=host, adb_port=port)
    server = AdbServer(config.adb_host, config.adb_port, config.adb_path)
    try:
        if not server.alive() and config.local_server:
            server.start()
        return f"adb ({server.address}): {server.connect(serial, timeout_s=10)}"
    except EnvError as e:
        return f"could not `adb connect {serial}`: {e}"
