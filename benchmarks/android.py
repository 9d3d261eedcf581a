"""Android over adb, on the stand-in device: screencap, step and reset times against a bare adbutils floor, and
the world oracles' verdicts over adb against the mobile-web surface.

Everything runs on this machine, on loopback: the world server, the stand-in device (adbd's protocol in front of
Chromium; not Android) and a private adb server (Debian's adb) on a free port. AndroidEnv reaches the stand-in
through that server exactly as it reaches a phone.

  screencap_ms   median of the env's screenshot alone (`exec-out screencap -p`: the PNG at the device's size)
  step_ms_p50    the agent's step as the runner waits on it: AndroidEnv.step(Click) — one `input tap` shell line,
                 the settle pause (none on the stand-in, whose input returns once its page has settled), one
                 screencap — plus recording it (EpisodeWriter.add_step: PNG + JSONL line, made durable on the
                 writer's thread)
  floor_ms_p50   a bare adbutils screencap plus input on the same device, as adbutils' README does it:
                 `device.click(x, y)` then `device.shell(["screencap", "-p"], encoding=None)`
  step_vs_floor  step_ms_p50 / floor_ms_p50 (the two are interleaved, order alternating, so they share the load)
  reset_ms       median AndroidEnv.reset of a world task: a fresh session link opened with `am start -a VIEW`
                 (its port `adb reverse`d), the device's facts read again, the first screenshot
  oracle_parity  mobile world templates whose oracle reaches the same contract verdict over adb on the stand-in
                 as on the mobile-web preset, over all mobile templates (venuskit.runs.android.parity_run: both at 1
                 device pixel per CSS pixel, side by side on two threads; a template whose oracle could not carry
                 out a step runs up to twice more on that surface and is listed; `--parity 0` skips it)

The tap lands on the launcher's greeting, which is no control: the page does not change, so every step costs the
same. Goals: step_vs_floor <= 1.3, oracle_parity 1.0. Last line: one JSON object.

    .venv/bin/python benchmarks/android.py [--size 1080x2400] [--steps 30] [--resets 8] [--parity all|N|0]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

GOAL_STEP_VS_FLOOR = 1.3
GOAL_PARITY = 1.0
GREETING = (0.45, 0.11)  # the launcher's "Good morning, ..." line: text, no control under it


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--size", default="1080x2400", help="The stand-in's screen, WIDTHxHEIGHT device pixels.")
    ap.add_argument("--steps", type=int, default=30, help="Steps (and floor samples) measured.")
    ap.add_argument("--resets", type=int, default=8, help="World-task resets measured.")
    ap.add_argument("--parity", default="all", help="Mobile templates for oracle_parity: all, a number, or 0.")
    args = ap.parse_args()
    width, height = (int(v) for v in args.size.lower().split("x"))
    load_before = os.getloadavg()

    from venuskit.envs.android import AndroidConfig, AndroidEnv
    from venuskit.envs.android.adb import private_server
    from venuskit.envs.android.standin import StandinConfig, StandinDevice
    from venuskit.world.server import WorldServer

    with WorldServer(serve_mode=True) as world, private_server() as adb_server:
        world.default_episode = world.new_episode(0)
        with StandinDevice(StandinConfig(size=(width, height), world_url=world.base_url)) as device:
            config = AndroidConfig(serial=device.serial, adb_port=adb_server.port, start_server=False)
            with AndroidEnv(config) as env:
                timings = measure_steps(env, adb_server, device.serial, args.steps)
                timings["reset"] = measure_resets(env, world, args.resets)
        parity = oracle_parity(world, adb_server, args.parity)
    report(timings, parity, (width, height), load_before, os.getloadavg())


def measure_steps(env: Any, adb_server: Any, serial: str, steps: int) -> dict[str, list[float]]:
    """The env's step (+ recording) and the adbutils floor, interleaved; the env's screencap alone."""
    import adbutils

    from venuskit.actions.types import Click, Point
    from venuskit.record.episode import Episode, Step
    from venuskit.record.store import EpisodeWriter

    obs = env.reset({})  # the launcher, the stand-in's home screen
    device = adbutils.AdbClient(port=adb_server.port).device(serial)
    x, y = round(GREETING[0] * obs.width), round(GREETING[1] * obs.height)
    click = Click(point=Point(*GREETING))
    out: dict[str, list[float]] = {"step": [], "floor": [], "screencap": []}
    with tempfile.TemporaryDirectory(prefix="venuskit-android-bench-") as tmp:
        episode = Episode(episode_id="bench", task={"goal": "benchmark"}, surface="mobile",
                          screen=(obs.width, obs.height))  # fmt: skip
        writer = EpisodeWriter.create(Path(tmp), episode)

        def agent_step() -> None:
            result = env.step(click)
            assert result.error is None, result.error
            writer.add_step(Step(index=writer.next_index, screenshot=None, action=click), result.observation.png)

        def floor_step() -> None:
            device.click(x, y)
            png = device.shell(["screencap", "-p"], encoding=None)
            assert png.startswith(b"\x89PNG")

        for _ in range(3):  # warm both paths
            agent_step()
            floor_step()
        for i in range(steps):
            first, second = (agent_step, floor_step) if i % 2 == 0 else (floor_step, agent_step)
            for fn in (first, second):
                out["step" if fn is agent_step else "floor"].append(_timed(fn))
            out["screencap"].append(_timed(env.observe))
        writer.close()
    return out


def measure_resets(env: Any, world: Any, resets: int) -> list[float]:
    from venuskit.tasks.run import WorldTask

    times = []
    for i in range(resets + 1):
        wt = WorldTask.start(world, "mail.star_message", i)
        try:
            t = _timed(lambda: env.reset(wt.env_task()))  # noqa: B023 - called at once
        finally:
            wt.close()
        if i:  # the first reset also warms the device's page cache
            times.append(t)
    return times


def oracle_parity(world: Any, adb_server: Any, which: str) -> dict[str, Any] | None:
    """Each mobile template's oracle over adb on a stand-in and on the mobile-web preset: equal verdicts."""
    if which == "0":
        return None
    from venuskit.runs.android import parity_run

    return parity_run(world, adb_server, None if which == "all" else int(which))  # its own stand-in, on this world


def _timed(fn: Callable[[], Any]) -> float:
    t0 = time.perf_counter()
    fn()
    return (time.perf_counter() - t0) * 1000


def report(t: dict[str, list[float]], parity: dict[str, Any] | None, size: tuple[int, int],
           load_before: tuple[float, ...], load_after: tuple[float, ...]) -> None:  # fmt: skip
    med = {k: statistics.median(v) for k, v in t.items()}
    ratio = med["step"] / med["floor"]
    print(f"stand-in {size[0]}x{size[1]} through Debian's adb (load {load_before[0]:.2f} -> {load_after[0]:.2f})")
    print(f"screencap   {med['screencap']:8.1f} ms median of {len(t['screencap'])}")
    print(f"step        {med['step']:8.1f} ms median of {len(t['step'])} (AndroidEnv.step + recording)")
    print(f"floor       {med['floor']:8.1f} ms median (adbutils click + screencap)  -> step/floor {ratio:.2f} "
          f"(goal <= {GOAL_STEP_VS_FLOOR})")  # fmt: skip
    print(f"reset       {med['reset']:8.1f} ms median of {len(t['reset'])} world-task resets")
    result: dict[str, Any] = {
        "screencap_ms": round(med["screencap"], 1), "step_ms_p50": round(med["step"], 1),
        "floor_ms_p50": round(med["floor"], 1), "step_vs_floor": round(ratio, 3), "reset_ms": round(med["reset"], 1),
        "size": list(size), "steps": len(t["step"]), "goal_step_vs_floor": GOAL_STEP_VS_FLOOR,
        "load_before": [round(v, 2) for v in load_before], "load_after": [round(v, 2) for v in load_after],
    }  # fmt: skip
    if parity is not None:
        print(f"parity      {parity['equal']}/{parity['templates']} mobile templates with equal verdicts "
              f"({parity['seconds']:.0f} s); differing: {parity['differing'] or 'none'}; run again after an oracle "
              f"step failed: {parity['retried']}")  # fmt: skip
        result.update(oracle_parity=parity["parity"], parity_templates=parity["templates"],
                      parity_differing=parity["differing"], parity_retried=parity["retried"],
                      parity_seconds=parity["seconds"], goal_parity=GOAL_PARITY)  # fmt: skip
    print(json.dumps(result))


if __name__ == "__main__":
    main()
