"""CAPTCHA synthesis speed: generated instances per second per core, and page load to first screenshot.

  instances_per_s_per_core   every image-family type (puzzle drawn with PIL, PNG-encoded) generated in
                             turn by one single-threaded process, seeds counting up, over the wall time of
                             the loop. Goal >= 50.
  instances_per_cpu_s        the same count over the process's CPU time (user + system, all its threads):
                             what one core delivers when it is not shared. process_s beside wall_s shows how
                             much of the wall time the process had a core (cpu_share = process_s / wall_s; a
                             share near 1 with one thread means the figure really is per core).
  interactive_first_screenshot_ms
                             for the interactive types (HTML+JS widgets: slider, drag, swap, line,
                             arrows, hold), median ms from `env.reset(url)` (a fresh browser context,
                             page load, images and widget script) to the first screenshot in hand.

    .venv/bin/python benchmarks/captcha_synth.py [--seconds 6] [--pages 2] [--preset desktop]

The machine's load average is printed with the figures: on a shared machine they move with it.
Human-readable lines first; the last line is one JSON object.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time

from venuskit.synth.captcha.registry import all_types

GOAL_PER_S = 50
INTERACTIVE = ("slider", "drag", "swap", "line", "arrows", "hold")


def generation_rate(seconds: float) -> tuple[int, float, float, dict[str, float]]:
    """(instances, wall s, process CPU s) over all image-family types round-robin, and each type's mean ms."""
    types = [t for t in all_types() if t.image_only]
    per_type: dict[str, list[float]] = {t.name: [] for t in types}
    count, seed = 0, 0
    started, cpu_started = time.perf_counter(), time.process_time()
    while time.perf_counter() - started < seconds:
        for t in types:
            t0 = time.perf_counter()
            t.make(seed)
            per_type[t.name].append(time.perf_counter() - t0)
            count += 1
        seed += 1
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu_started
    return count, wall, cpu, {k: 1000 * statistics.mean(v) for k, v in per_type.items()}


def first_screenshot_ms(pages: int, preset: str) -> list[float]:
    from venuskit.envs.browser import BrowserConfig, BrowserEnv
    from venuskit.synth.captcha.server import CaptchaServer

    out = []
    types = [t for t in all_types() if t.widget in INTERACTIVE]
    with CaptchaServer() as srv, BrowserEnv(BrowserConfig(preset=preset)) as env:  # type: ignore[arg-type]
        env.reset({"start_url": srv.create(types[0].name, 99).url})  # launch Chromium outside the timing
        for seed in range(pages):
            for t in types:
                url = srv.create(t.name, seed).url
                t0 = time.perf_counter()
                obs = env.reset({"start_url": url})
                out.append(1000 * (time.perf_counter() - t0))
                assert obs.png[:4] == b"\x89PNG"
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--seconds", type=float, default=6.0, help="How long to generate instances.")
    ap.add_argument("--pages", type=int, default=2, help="Page loads per interactive type.")
    ap.add_argument("--preset", default="desktop", choices=("desktop", "mobile"))
    args = ap.parse_args()
    load = os.getloadavg()
    count, wall, cpu, per_type = generation_rate(args.seconds)
    rate, cpu_rate = count / wall, count / cpu
    slowest = sorted(per_type.items(), key=lambda kv: -kv[1])[:5]
    print(
        f"image families: {rate:.1f} instances/s of wall time, {cpu_rate:.1f} per CPU second (goal >= {GOAL_PER_S}); "
        f"{count} instances in {wall:.2f} s wall, {cpu:.2f} s process time (cpu share {cpu / wall:.2f}); "
        f"{len(per_type)} types; slowest: " + ", ".join(f"{k} {v:.1f} ms" for k, v in slowest)
    )
    shots = first_screenshot_ms(args.pages, args.preset)
    med, p90 = statistics.median(shots), sorted(shots)[int(0.9 * (len(shots) - 1))]
    print(
        f"interactive pages ({args.preset}): reset to first screenshot median {med:.0f} ms, p90 {p90:.0f} ms "
        f"over {len(shots)} loads"
    )
    print(f"load average at start: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f} on {os.cpu_count()} cores")
    print(
        json.dumps(
            {
                "instances_per_s_per_core": round(rate, 1),
                "instances_per_cpu_s": round(cpu_rate, 1),
                "wall_s": round(wall, 2),
                "process_s": round(cpu, 2),
                "cpu_share": round(cpu / wall, 3),
                "interactive_first_screenshot_ms": round(med, 1),
                "interactive_first_screenshot_p90_ms": round(p90, 1),
                "image_types": len(per_type),
                "interactive_loads": len(shots),
                "goal_instances_per_s": GOAL_PER_S,
                "load_average_1m": round(load[0], 2),
                "cores": os.cpu_count(),
            }
        )
    )


if __name__ == "__main__":
    main()
