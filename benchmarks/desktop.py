"""The desktop env's speed and memory: resets from snapshots, steps against the X screenshot floor, one env's RSS.

  reset_ms_median       median ms of DesktopEnv.reset for a desktop task, from the previous episode's desktop:
                        its apps killed, the home folder restored from the task's snapshot, the task's apps started
                        with their files, windows placed and focused, the screen settled, the first screenshot in
                        hand. Tasks cycle through every app (editor, spreadsheet, file manager, terminal, image
                        viewer, settings, two-window tasks). Goal <= 1000 (OSWorld restores a VM snapshot in tens of
                        seconds).
  step_ms_median        median ms of DesktopEnv.step in the editor over a mix of actions (type a character, click
                        in the text, move the pointer, an arrow key, a wheel scroll): the input, the wait for the
                        apps to handle it and repaint (a ping each, a frame), the read-back of pointer/keys/focus
                        from the X server, the screenshot. Goal <= 1.5 x screenshot_floor_ms.
  screenshot_floor_ms   median ms of the bare screenshot: copy Xvfb's memory-mapped screen and encode it as PNG
                        with the env's own encoder (the least any PNG screenshot of this screen costs here).
  step_cpu_ms_median    the harness process's CPU time per step (load-independent, unlike wall time), printed
                        with its ratio to the floor's CPU time.
  env_rss_mb            summed resident memory of one env's processes during an editor task: Xvfb, the session
                        bus, openbox and the app (the harness's Python process is reported apart). Goal <= 300.

Also printed: per-app reset medians, per-action step medians, XGetImage through python-xlib (the alternative
capture), PIL's PNG encoder on the same screen, PSS, the load average (the figures move with it on a shared
machine).

    .venv/bin/python benchmarks/desktop.py [--resets 24] [--steps 60]

Human-readable lines first; the last line is one JSON object.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import statistics
import time

from parts import PartTimer  # benchmarks/ is this script's folder
from PIL import Image
from Xlib import X

from venuskit.actions.types import Click, Hotkey, Hover, Point, Scroll, Type
from venuskit.envs.desktop import DesktopEnv
from venuskit.envs.desktop.xserver import encode_png
from venuskit.infra import proc
from venuskit.tasks.desktop import DesktopTask

GOAL_RESET_MS = 1000
GOAL_STEP_RATIO = 1.5
GOAL_RSS_MB = 300
RESET_TASKS = ("editor.append_line", "sheet.set_cell", "files.rename", "terminal.sort_names", "image.flip_save",
               "settings.dark_theme", "cross.count_to_sheet", "window.close_viewer")  # fmt: skip
STEP_ACTIONS = (
    ("type", lambda i: Type(content="abcdefghij"[i % 10])),
    ("click", lambda i: Click(point=Point(0.3 + 0.01 * (i % 10), 0.3))),
    ("hover", lambda i: Hover(point=Point(0.6, 0.4 + 0.01 * (i % 10)))),
    ("arrow_key", lambda i: Hotkey(keys=("left",) if i % 2 else ("right",))),
    ("scroll", lambda i: Scroll(direction="down" if i % 2 else "up", amount=1)),
)


def median_ms(samples: list[float]) -> float:
    return round(statistics.median(samples) * 1000, 1)


def timed(fn, n: int) -> list[float]:
    out = []
    for _ in range(n):
        t0 = time.perf_counter()
        fn()
        out.append(time.perf_counter() - t0)
    return out


def resets(env: DesktopEnv, n: int) -> tuple[list[float], dict[str, list[float]]]:
    tasks = [DesktopTask.start(t).env_task() for t in RESET_TASKS]
    env.reset(tasks[-1])  # the first start of the X server is not a reset
    all_s: list[float] = []
    per: dict[str, list[float]] = {}
    for i in range(n):
        task = tasks[i % len(tasks)]
        t0 = time.perf_counter()
        obs = env.reset(task)
        dt = time.perf_counter() - t0
        assert obs.png[:4] == b"\x89PNG" and obs.title, f"{task['desktop_task']} reset without a focused window"
        all_s.append(dt)
        per.setdefault(task["desktop_task"], []).append(dt)
    return all_s, per


STEP_PARTS = {"_health": "health", "_act": "input", "_observe": "observe", "_x_state": "read-back"}


def steps(env: DesktopEnv, n: int,
          parts: dict[str, list[float]]) -> tuple[list[float], dict[str, list[float]], list[float]]:  # fmt: skip
    """Wall seconds per step (all, by action) and the harness process's CPU seconds per step: on a busy machine
    the wall time is mostly waiting for a core, the CPU time is what the env itself spends. `parts` gets each
    step's milliseconds by part (health check, input, the wait for the apps to repaint, the screenshot, the read-back
    of pointer/keys/focus, other; inside observe: the wait for repaints, the framebuffer copy, and the rest: the PNG
    encode, the window titles)."""
    env.reset(DesktopTask.start("editor.append_line").env_task())
    timers = [PartTimer(env, STEP_PARTS), PartTimer(env.x, {"wait_damage": "repaint wait"}),
              PartTimer(env.session.framebuffer, {"grab": "framebuffer copy"})]  # fmt: skip
    all_s, per, cpu = [], {}, []
    for i in range(n):
        for timer in timers:
            timer.clear()
        name, make = STEP_ACTIONS[i % len(STEP_ACTIONS)]
        action = make(i // len(STEP_ACTIONS))
        c0, t0 = time.process_time(), time.perf_counter()
        r = env.step(action)
        dt, dc = time.perf_counter() - t0, time.process_time() - c0
        assert r.error is None, r.error
        got = {k: v for timer in timers for k, v in timer.ms.items()}
        inner = got.get("repaint wait", 0.0) + got.get("framebuffer copy", 0.0)
        got["other"] = dt * 1000 - sum(got.get(k, 0.0) for k in STEP_PARTS.values())
        got["observe: encode, titles"] = got.get("observe", 0.0) - inner
        for k, v in got.items():
            parts.setdefault(k, []).append(v)
        all_s.append(dt)
        cpu.append(dc)
        per.setdefault(name, []).append(dt)
    return all_s, per, cpu


def floors(env: DesktopEnv, n: int) -> dict[str, float]:
    fb = env.session.framebuffer
    level = env.config.png_compress_level
    frame = fb.grab()
    w, h = env.size

    def pil_png() -> bytes:
        buf = io.BytesIO()
        Image.fromarray(frame).save(buf, format="PNG", compress_level=level)
        return buf.getvalue()

    c0 = time.process_time()
    floor_s = timed(lambda: encode_png(fb.grab(), level), n)
    floor_cpu = (time.process_time() - c0) / n
    return {
        "screenshot_floor_ms": median_ms(floor_s),
        "screenshot_floor_cpu_ms": round(floor_cpu * 1000, 1),
        "framebuffer_copy_ms": median_ms(timed(fb.grab, n)),
        "png_encode_ms": median_ms(timed(lambda: encode_png(frame, level), n)),
        "xgetimage_ms": median_ms(timed(lambda: env.x.root.get_image(0, 0, w, h, X.ZPixmap, 0xFFFFFFFF), n)),
        "pil_png_encode_ms": median_ms(timed(pil_png, max(5, n // 4))),
    }


def memory(env: DesktopEnv) -> dict[str, float]:
    env.reset(DesktopTask.start("editor.append_line").env_task())
    time.sleep(1.0)  # let the app finish its start-up allocations
    two = DesktopTask.start("cross.sheet_total_to_note").env_task()
    one_rss, one_pss = env.rss_mb(), env.pss_mb()
    env.reset(two)
    time.sleep(1.0)
    return {"env_rss_mb": round(one_rss, 1), "env_pss_mb": round(one_pss, 1),
            "env_rss_mb_two_apps": round(env.rss_mb(), 1),
            "harness_rss_mb": round(proc.rss_mb([os.getpid()]), 1)}  # fmt: skip


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--resets", type=int, default=24)
    ap.add_argument("--steps", type=int, default=60)
    args = ap.parse_args()
    load = os.getloadavg()
    with DesktopEnv() as env:
        reset_s, per_task = resets(env, args.resets)
        step_parts: dict[str, list[float]] = {}
        step_s, per_action, step_cpu = steps(env, args.steps, step_parts)
        floor = floors(env, 30)
        mem = memory(env)
    step_ms = median_ms(step_s)
    result = {
        "reset_ms_median": median_ms(reset_s),
        "step_ms_median": step_ms,
        "screenshot_floor_ms": floor["screenshot_floor_ms"],
        "env_rss_mb": mem["env_rss_mb"],
        "step_vs_floor": round(step_ms / floor["screenshot_floor_ms"], 2),
        "step_cpu_ms_median": median_ms(step_cpu),
        "step_cpu_vs_floor_cpu": round(statistics.median(step_cpu) * 1000 / floor["screenshot_floor_cpu_ms"], 2),
        "reset_ms_p90": round(sorted(reset_s)[int(0.9 * (len(reset_s) - 1))] * 1000, 1),
        "reset_ms_by_task": {k: median_ms(v) for k, v in per_task.items()},
        "step_ms_by_action": {k: median_ms(v) for k, v in per_action.items()},
        "step_ms_by_part": {k: round(statistics.median(v), 2) for k, v in step_parts.items()},
        **{k: v for k, v in floor.items() if k != "screenshot_floor_ms"},
        **{k: v for k, v in mem.items() if k != "env_rss_mb"},
        "screen": list(env.size),
        "goals": {"reset_ms_median": GOAL_RESET_MS, "step_vs_floor": GOAL_STEP_RATIO, "env_rss_mb": GOAL_RSS_MB},
        "load_avg_1m_5m": [round(load[0], 2), round(load[1], 2)],
        "cpus": os.cpu_count(),
    }
    print(f"reset  median {result['reset_ms_median']} ms (p90 {result['reset_ms_p90']}); goal <= {GOAL_RESET_MS}")
    for task, ms in result["reset_ms_by_task"].items():
        print(f"         {task:<28} {ms} ms")
    print(f"step   median {step_ms} ms = {result['step_vs_floor']} x the screenshot floor "
          f"({result['screenshot_floor_ms']} ms); goal <= {GOAL_STEP_RATIO} x")  # fmt: skip
    for action, ms in result["step_ms_by_action"].items():
        print(f"         {action:<28} {ms} ms")
    print(f"       by part (medians, ms): {result['step_ms_by_part']}")
    print(f"       the harness's CPU per step {result['step_cpu_ms_median']} ms = {result['step_cpu_vs_floor_cpu']} x "
          f"the floor's CPU ({floor['screenshot_floor_cpu_ms']} ms)")  # fmt: skip
    print(f"floor  framebuffer copy {floor['framebuffer_copy_ms']} ms + PNG {floor['png_encode_ms']} ms; "
          f"XGetImage {floor['xgetimage_ms']} ms; PIL PNG {floor['pil_png_encode_ms']} ms")  # fmt: skip
    print(f"memory one env {mem['env_rss_mb']} MB RSS ({mem['env_pss_mb']} MB PSS); two apps "
          f"{mem['env_rss_mb_two_apps']} MB; harness {mem['harness_rss_mb']} MB; goal <= {GOAL_RSS_MB}")  # fmt: skip
    print(f"load average {result['load_avg_1m_5m']} on {result['cpus']} CPUs")
    print(json.dumps(result))


if __name__ == "__main__":
    main()
