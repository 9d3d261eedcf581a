"""What an adb server sees (`venus android devices`), and serials handed to parallel workers."""

from __future__ import annotations

from typing import Any

from venuskit.envs.android.adb import AdbServer
from venuskit.envs.android.config import AndroidConfig


def list_devices(config: AndroidConfig | None = None) -> list[dict[str, Any]]:
    """Every device the server lists: serial, state, model and whether it is the venuskit stand-in. Starts the
    server first when allowed (as `adb devices` does)."""
    config = config or AndroidConfig()
    server = AdbServer(config.adb_host, config.adb_port, config.adb_path)
    if not server.alive():
        if not (config.start_server and config.local_server):
            raise server.down_error("connection refused")
        server.start()
    rows = []
    for d in server.devices():
        model = d.tags.get("model", "")
        rows.append({"serial": d.serial, "state": d.state, "model": model, "product": d.tags.get("product", ""),
                     "standin": model == "venuskit_standin"})  # fmt: skip
    return rows


def serials_for_workers(serials: list[str], workers: int) -> list[str]:
    """One device per worker: a worker drives one device at a time, so there must be as many devices as workers.
    Raises ValueError naming what is missing."""
    unique = list(dict.fromkeys(s for s in serials if s))
    if len(unique) < workers:
        got = ", ".join(unique) or "none"
        raise ValueError(f"{workers} workers need {workers} devices, one each; got {len(unique)} ({got}). Pass "
                         "--serial once per device (or fewer --workers).")  # fmt: skip
    return unique[:workers]
