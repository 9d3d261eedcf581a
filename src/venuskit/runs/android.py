"""World tasks over adb: the Android env for world runs, a stand-in device in this process for oracle runs, devices
claimed by parallel workers, and the oracle-parity run (adb on the stand-in against the mobile-web surface).

How the oracle gets its facts over adb. A world oracle plans from the page (Playwright selectors: where is the
Send button, is this field empty); a phone shows only pixels. On the stand-in the page exists — in the stand-in's
Chromium — so when the stand-in runs in the same process as the runner, `AndroidEnv.page` hands the oracle that
page (read through the stand-in's page thread), and the oracle plans exactly as it does on mobile-web while its
actions travel as any model's do: taps in device pixels, `input text`, key events, through the adb server and
adbd's protocol. A stand-in in another process (`venus android standin`) or a real device has no page for the
oracle; runs there need a model (venus-nano or a served one), and `venus world oracle --surface android` starts its
own stand-in in process. The other way considered — planning from the world's state API — would be a second
oracle, and its parity would say nothing about the first.
"""

from __future__ import annotations

import contextlib
import fcntl
import re
import tempfile
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

from venuskit.envs.android import AndroidConfig, AndroidEnv
from venuskit.envs.android.adb import AdbServer, private_server
from venuskit.envs.android.standin import StandinConfig, StandinDevice

# 1 device pixel per CSS pixel: the stand-in's page keeps the mobile layout (432x960 CSS, as at 1080x2400) at the
# least capture cost; verdicts do not depend on the pixel density.
PARITY_SIZE = (432, 960)
PARITY_RETRIES = 2  # more runs of a template whose oracle could not carry out a step; a real difference repeats
PARITY_SETTLE_S = 0.1  # as the oracle tests: a drawer's slide or a re-layout has ended before the oracle looks
CLAIMS = "venuskit-android-claims"


@dataclass
class LocalDevice:
    """A stand-in running in this process behind an adb server (the oracle can read its page)."""

    device: StandinDevice
    server: AdbServer

    def env(self, **config: Any) -> AndroidEnv:
        opts = {"serial": self.device.serial, "adb_host": self.server.host, "adb_port": self.server.port,
                "start_server": False, **config}  # fmt: skip
        return AndroidEnv(AndroidConfig(**opts))


@contextlib.contextmanager
def local_standin(world_url: str | None, size: tuple[int, int] = (1080, 2400), settle_s: float = 0.1,
                  server: AdbServer | None = None) -> Iterator[LocalDevice]:  # fmt: skip
    """A stand-in device in this process, connected to `server` (default: a private adb server on a free port,
    killed at the end, so the user's server and devices are never touched)."""
    with contextlib.ExitStack() as stack:
        if server is None:
            server = stack.enter_context(private_server())
        config = StandinConfig(size=size, world_url=world_url, settle_s=settle_s)
        device = stack.enter_context(StandinDevice(config))
        stack.callback(server.disconnect, device.serial)
        yield LocalDevice(device, server)


class SerialClaim:
    """One device per parallel worker: a worker claims the first free serial of the list with a lock file that it
    holds for its life (the kernel drops it when the process dies), so workers in processes or Ray actors on one
    machine never share a device."""

    def __init__(self, serials: list[str] | tuple[str, ...]) -> None:
        if not serials:
            raise ValueError("The android surface needs a device: pass --serial (once per worker).")
        folder = Path(tempfile.gettempdir()) / CLAIMS
        folder.mkdir(mode=0o700, exist_ok=True)
        self.serial: str | None = None
        self._file: BinaryIO | None = None
        for serial in serials:
            handle = open(folder / (re.sub(r"[^A-Za-z0-9._-]", "_", serial) + ".lock"), "wb")  # noqa: SIM115
            try:
                fcntl.flock(handle.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                handle.close()
                continue
            self.serial, self._file = serial, handle
            return
        raise ValueError(f"Every device ({', '.join(serials)}) is in use by another worker; pass one --serial per "
                         "worker.")  # fmt: skip

    def release(self) -> None:
        if self._file is not None:
            self._file.close()  # closing drops the lock
            self._file = None


def parity_run(world: Any, server: AdbServer | None = None, limit: int | None = None,
               templates: list[str] | None = None,
               on_result: Callable[[dict[str, Any]], None] | None = None) -> dict[str, Any]:  # fmt: skip
    """Every mobile world template's oracle (seed 0) on the mobile-web preset and over adb on an in-process
    stand-in, both at one device pixel per CSS pixel, on one world server. The two surfaces run side by side on
    two threads (each its own browser), so the run takes about as long as its slower half. `limit`: the first N
    templates. A template whose oracle could not carry out a step runs up to PARITY_RETRIES more times on that
    surface (named in "retried"): on a loaded machine the world's oracles lose taps on both surfaces, and a
    difference the adb path causes repeats. Returns {"parity": equal / templates, "templates", "equal",
    "differing", "rows", "retried", "seconds"}."""
    from venuskit.tasks.spec import bundled

    ids = templates or sorted(t for t, s in bundled().items() if "mobile" in s.surfaces)
    ids = ids[:limit] if limit else ids
    t0 = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="venuskit-parity-") as tmp, \
            local_standin(world.base_url, PARITY_SIZE, PARITY_SETTLE_S, server) as local:  # fmt: skip
        verdicts: dict[str, dict[str, tuple[str, str | None, str | None]]] = {"mobile": {}, "android": {}}
        errors: list[BaseException] = []
        sides = [threading.Thread(target=_side, args=(surface, ids, world, local, Path(tmp), verdicts, errors),
                                  name=f"parity-{surface}") for surface in verdicts]  # fmt: skip
        for thread in sides:
            thread.start()
        for thread in sides:
            thread.join()
        if errors:
            raise errors[0]
    rows = []
    for task_id in ids:
        row: dict[str, Any] = {"task": task_id}
        for surface in ("mobile", "android"):
            verdict, error, first_error = verdicts[surface][task_id]
            row[surface] = verdict
            row.update({k: v for k, v in ((f"{surface}_oracle_error", error), (f"{surface}_retried", first_error))
                        if v})  # fmt: skip
        row["equal"] = row["mobile"] == row["android"]
        rows.append(row)
        if on_result is not None:
            on_result(row)
    equal = sum(r["equal"] for r in rows)
    return {"parity": round(equal / len(rows), 4) if rows else None, "templates": len(rows), "equal": equal,
            "differing": [r["task"] for r in rows if not r["equal"]], "rows": rows,
            "retried": {s: [r["task"] for r in rows if f"{s}_retried" in r] for s in ("mobile", "android")},
            "seconds": round(time.perf_counter() - t0, 1)}  # fmt: skip


def _side(surface: str, ids: list[str], world: Any, local: LocalDevice, tmp: Path,
          verdicts: dict[str, dict[str, tuple[str, str | None, str | None]]],
          errors: list[BaseException]) -> None:  # fmt: skip
    """One surface's half of the parity run, on its own thread (Playwright's sync API is per thread)."""
    try:
        from venuskit.envs.browser import BrowserConfig, BrowserEnv
        from venuskit.runs.world import run_world_task

        if surface == "mobile":
            env: Any = BrowserEnv(BrowserConfig(preset="mobile", device_scale_factor=1, settle_s=PARITY_SETTLE_S,
                                                reuse_context=True))  # fmt: skip
        else:
            env = local.env()
        with env:
            for task_id in ids:
                run = run_world_task(task_id, 0, out=tmp / surface, server=world, env=env, surface=surface)
                first_error = run.oracle_error
                for _ in range(PARITY_RETRIES):  # a step the oracle could not carry out (a tap the page dropped
                    if not run.oracle_error:  # under load): the same template again, on a fresh episode
                        break
                    run = run_world_task(task_id, 0, out=tmp / surface, server=world, env=env, surface=surface)
                verdicts[surface][task_id] = (run.verdict.verdict, run.oracle_error, first_error)
    except BaseException as e:  # noqa: BLE001 - raised again in the caller's thread
        errors.append(e)
