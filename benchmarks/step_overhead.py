"""Per-step harness overhead on a MiniWoB++ page: venuskit vs the raw screenshot floor vs miniwob's gym env.

A step is everything but the model: execute the action, read the reward, take the screenshot, record the
step (PNG + JSONL line through venuskit.record.store.EpisodeWriter, which makes it durable on its own thread
before the next step is recorded). It is measured as the agent waits on it, against

  floor        a bare CDP `Page.captureScreenshot` (PNG) of the same page at the same viewport, through
               a CDPSession: no step can cost less than the screenshot it returns;
  click floor  a raw CDP click (Input.dispatchMouseEvent press + release) and then the same capture: the
               least any harness can do for a click step, since a changed page must be re-rendered
               before it can be captured (reported beside, not instead of, the floor);
  miniwob gym  the miniwob package's own `gymnasium.make("miniwob/<task>-v1")` step (selenium +
               chromedriver), which also clicks, reads the reward and returns a screenshot; twice:
               as its users run it (Debian's /usr/bin/chromium, miniwob's own switches), and with the very
               Chromium binary and switches venuskit's browser runs with (read from its command line: the
               frame-rate limit, the low-memory and network-guard switches), so that the second ratio,
               `speedup_vs_miniwob_gym_same_flags`, isolates the harness.

All are interleaved in one loop (the order rotates every step) so they share the machine's load. The action
is a click on one of the task's checkboxes, which toggles it and never ends the episode.

    .venv/bin/python benchmarks/step_overhead.py [--task click-checkboxes-soft] [--steps 40] [--no-gym]
        [--frame-rate-limit]

MiniWobEnv's default config turns off Chromium's 60 Hz frame pacing (see venuskit.envs.miniwob.FAST_FRAME_ARGS);
every floor is measured in that same browser. `--frame-rate-limit` keeps the pacing, to show its cost: then
every capture, the floor's included, waits 1-2 frames (17-33 ms).

Memory is measured afterwards in a separate process that runs only the venuskit side (MiniWobEnv + the
record writer, a few steps): `env_rss_mb` is the summed RSS of that whole harness, i.e. its Python
process, the Playwright driver and every Chromium process; `env_pss_mb` divides shared pages among their
sharers (so it also depends on what else runs: another Chromium on the machine lowers it). Then two more
envs join with `BrowserConfig.share_browser` (one Chromium, a context each, as parallel rollouts in one
process run): `extra_env_rss_mb` / `extra_env_pss_mb` is what each costs.

Human-readable lines first; the last line is one JSON object (overhead_vs_floor, speedup_vs_miniwob_gym,
speedup_vs_miniwob_gym_same_flags, env_rss_mb, extra_env_rss_mb, the raw medians, the machine's load average
before and after). Goals: overhead_vs_floor <= 1.5, speedup_vs_miniwob_gym_same_flags >= 4, env_rss_mb <= 400,
extra_env_rss_mb <= 150. The miniwob gym needs chromedriver (Debian: apt-get install chromium-driver).
"""

from __future__ import annotations

import argparse
import functools
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from venuskit.actions import coords
from venuskit.actions.types import Click, Point
from venuskit.envs.miniwob import MiniWobEnv, default_config
from venuskit.infra.proc import proc_table, process_tree, pss_mb, rss_mb
from venuskit.record.episode import Episode, Step
from venuskit.record.store import EpisodeWriter

CHECKBOX_TASKS = ("click-checkboxes", "click-checkboxes-soft", "click-checkboxes-large", "click-checkboxes-transfer")
CHROMIUM = "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
GOAL_OVERHEAD = 1.5
GOAL_SPEEDUP_SAME_FLAGS = 4.0
GOAL_RSS_MB = 400.0
GOAL_EXTRA_ENV_RSS_MB = 150.0
MEMORY_STEPS = 20  # steps the memory process takes before it is measured
EXTRA_ENVS = 2  # envs that join the first one's browser for extra_env_rss_mb
# Switches of venuskit's Chromium that belong to Playwright's way of driving it, not to how the page runs:
# chromedriver sets its own (a debugging port instead of a pipe, its own profile, a window to start with).
_DRIVER_SWITCHES = ("--user-data-dir", "--remote-debugging-pipe", "--venuskit-env", "--no-startup-window",
                    "--enable-automation", "--headless")  # fmt: skip


@dataclass
class Series:
    """Per-step durations in seconds; medians reported in ms."""

    name: str
    samples: list[float] = field(default_factory=list)

    def timed(self, fn: Callable[[], Any], keep: bool) -> Any:
        t0 = time.perf_counter()
        out = fn()
        if keep:
            self.samples.append(time.perf_counter() - t0)
        return out

    def median_ms(self) -> float:
        return statistics.median(self.samples) * 1000

    def p90_ms(self) -> float:
        return statistics.quantiles(self.samples, n=10)[-1] * 1000


_CENTRES_JS = (
    "els => els.map(e => { const r = e.getBoundingClientRect(); return [r.x + r.width / 2, r.y + r.height / 2]; })"
)


# ---- the venuskit side ---------------------------------------------------------------------------


class VenuskitSide:
    """MiniWobEnv + an EpisodeWriter; `step` is the harness's whole per-step cost."""

    def __init__(self, task: str, seed: int, root: str, frame_rate_limit: bool, share_browser: bool = False) -> None:
        overrides: dict[str, Any] = {"extra_args": ()} if frame_rate_limit else {}
        self.env = MiniWobEnv(task, config=default_config(task, share_browser=share_browser, **overrides))
        self.obs = self.env.reset({"seed": seed})
        page = self.env.page
        self.cdp = page.context.new_cdp_session(page)
        episode = Episode(episode_id="bench", task={"goal": self.obs.info["goal"]}, surface="browser",
                          screen=(self.obs.width, self.obs.height))  # fmt: skip
        self.writer = EpisodeWriter.create(root, episode)
        self.env_only = Series("venuskit env.step")
        self.record = Series("record (what the step waits for)")

    def checkbox_centres(self) -> list[tuple[int, int]]:
        """CSS-pixel centres of the task's checkboxes, read from the DOM (the benchmark's oracle)."""
        boxes = self.env.page.eval_on_selector_all("#area input[type=checkbox]", _CENTRES_JS)
        return [(int(x), int(y)) for x, y in boxes]

    def screenshot_floor(self) -> bytes:
        return self.cdp.send("Page.captureScreenshot", {"format": "png"})["data"]

    def click_floor(self, xy: tuple[int, int]) -> bytes:
        for kind in ("mousePressed", "mouseReleased"):
            self.cdp.send(
                "Input.dispatchMouseEvent", {"type": kind, "x": xy[0], "y": xy[1], "button": "left", "clickCount": 1}
            )
        return self.screenshot_floor()

    def step(self, xy: tuple[int, int], keep: bool) -> None:
        vw, vh = self.obs.info["viewport"]
        action = Click(point=Point(*coords.point_from_pixels(xy[0], xy[1], vw, vh)))
        result = self.env_only.timed(lambda: self.env.step(action), keep)
        error = None if result.error is None else {"message": str(result.error)}
        record = Step(index=self.writer.next_index, screenshot=None, action=action, executed=result.executed,
                      info=result.info, error=error)  # fmt: skip
        self.record.timed(lambda: self.writer.add_step(record, result.observation.png), keep)
        if result.error is not None or result.terminated:
            raise RuntimeError(
                f"A checkbox click should neither fail nor end the episode: {result.error or result.info}."
            )

    def close(self) -> None:
        self.writer.close()
        self.env.close()

    def chromium(self) -> tuple[str, list[str]]:
        """The binary and switches venuskit's Chromium runs with, as its command line shows them."""
        argv = proc_table()[self.env._browser.browser_pid].argv
        switches = [a for a in argv[1:] if a.startswith("--") and not a.startswith(_DRIVER_SWITCHES)]
        return argv[0], switches

    def memory(self) -> dict[str, float]:
        """Summed RSS of the whole harness (this Python process, the driver, Chromium), by part, and its PSS."""
        pids = self.env.memory_pids()
        chromium = [p for p in pids if _comm(p).startswith("chrom")]
        driver = [p for p in pids if p != os.getpid() and p not in chromium]
        parts = {"python_rss_mb": [os.getpid()], "driver_rss_mb": driver, "chromium_rss_mb": chromium}
        out = {name: round(rss_mb(group), 1) for name, group in parts.items()}
        return {"env_rss_mb": round(rss_mb(pids), 1), "env_pss_mb": round(pss_mb(pids), 1), **out}


def _comm(pid: int) -> str:
    try:
        with open(f"/proc/{pid}/comm") as fh:
            return fh.read().strip()
    except OSError:  # exited meanwhile
        return ""


def memory_probe(task: str, seed: int) -> dict[str, float]:
    """Run only the venuskit side for a few steps in this process and measure it; then let EXTRA_ENVS more envs
    share its browser, step them too, and measure what each added (see the module doc)."""
    with tempfile.TemporaryDirectory(prefix="venuskit-bench-") as root:
        sides = [VenuskitSide(task, seed, f"{root}/0", frame_rate_limit=False, share_browser=True)]
        try:
            targets = sides[0].checkbox_centres()
            for i in range(MEMORY_STEPS):
                sides[0].step(targets[i % len(targets)], keep=False)
            out = sides[0].memory()
            for k in range(EXTRA_ENVS):
                sides.append(VenuskitSide(task, seed, f"{root}/{k + 1}", frame_rate_limit=False, share_browser=True))
                for i in range(MEMORY_STEPS):
                    sides[-1].step(targets[i % len(targets)], keep=False)
            shared = sorted({p for side in sides for p in side.env.memory_pids()})
            browsers = {side.env._browser.browser_pid for side in sides}
            out["extra_env_rss_mb"] = round((rss_mb(shared) - out["env_rss_mb"]) / EXTRA_ENVS, 1)
            out["extra_env_pss_mb"] = round((pss_mb(shared) - out["env_pss_mb"]) / EXTRA_ENVS, 1)
            out["extra_envs_share_one_browser"] = len(browsers) == 1
            return out
        finally:
            for side in sides:
                side.close()


def measure_memory_apart(task: str, seed: int) -> dict[str, float]:
    """memory_probe in a fresh Python process, so the gym side's imports and browser do not count."""
    cmd = [sys.executable, __file__, "--memory-probe", "--task", task, "--seed", str(seed)]
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=300, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"The memory probe failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
    return json.loads(done.stdout.strip().splitlines()[-1])


# ---- the miniwob gym side ------------------------------------------------------------------------


class GymSide:
    """miniwob's gymnasium env (selenium). Its instance reads MINIWOB_CHROME_BINARY / MINIWOB_CHROMEDRIVER and
    builds its own ChromeOptions; `chromium` = (binary, switches) launches it with those instead."""

    def __init__(self, task: str, seed: int, chromium: tuple[str, list[str]] | None = None) -> None:
        import gymnasium
        import miniwob  # noqa: F401 - registers the miniwob/* envs
        import numpy as np
        from miniwob.action import ActionTypes
        from selenium import webdriver

        self._np, self._click, self._seed = np, ActionTypes.CLICK_COORDS, seed
        binary, switches = chromium or (CHROMIUM, [])
        env = {"MINIWOB_CHROME_BINARY": binary, "MINIWOB_CHROMEDRIVER": CHROMEDRIVER}
        saved = {k: os.environ.get(k) for k in env} | {"options": webdriver.ChromeOptions}
        os.environ.update(env)
        webdriver.ChromeOptions = _options_with(webdriver.ChromeOptions, switches)  # read when the driver starts
        try:
            self.env = gymnasium.make(f"miniwob/{task}-v1")  # headless by default: render_mode=None
            self.obs, _ = self.env.reset(seed=seed)  # starts chromedriver and its Chromium
        finally:
            webdriver.ChromeOptions = saved.pop("options")
            for k, v in saved.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v
        self._expired = False

    def step(self, xy: tuple[int, int]) -> None:
        action = self.env.unwrapped.create_action(self._click, coords=self._np.array(xy, dtype=self._np.float32))
        _, _, terminated, _, info = self.env.step(action)
        if terminated and info.get("reason") != "timed out":
            raise RuntimeError(f"A checkbox click ended the miniwob gym episode: {info.get('reason')!r}.")
        # MiniWoB's own 10 s episode limit (a slow, loaded machine reaches it): the step itself was a
        # normal click step; the next one gets a fresh episode, started outside the timing.
        self._expired = terminated

    def restart_if_expired(self) -> None:
        if self._expired:
            self.obs, _ = self.env.reset(seed=self._seed)
            self._expired = False

    def close(self) -> None:
        self.env.close()

    def rss(self) -> tuple[float, float]:
        pids = process_tree(self.env.unwrapped.instance.driver.service.process.pid)  # chromedriver + Chromium
        return rss_mb(pids), pss_mb(pids)


def _options_with(options_class: type, switches: list[str]) -> type:
    """A ChromeOptions class whose instances start with `switches` (the miniwob instance adds its own after)."""

    class Options(options_class):  # type: ignore[misc, valid-type]
        def __init__(self) -> None:
            super().__init__()
            for switch in switches:
                self.add_argument(switch)

    return Options


# ---- the run -------------------------------------------------------------------------------------


def run(
    task: str, steps: int, warmup: int, seed: int, with_gym: bool, frame_rate_limit: bool = False
) -> dict[str, Any]:
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory(prefix="venuskit-bench-") as root:
        vk = VenuskitSide(task, seed, root, frame_rate_limit)
        gyms: dict[str, GymSide] = {}
        try:
            if with_gym:
                gyms["default"] = GymSide(task, seed)
                gyms["same_flags"] = GymSide(task, seed, chromium=vk.chromium())
            report = _measure(vk, gyms, task, steps, warmup, seed)
        finally:
            vk.close()
            for gym in gyms.values():
                gym.close()
    report["load_avg_1m"] = [round(load_before, 2), round(os.getloadavg()[0], 2)]  # before, after the timing
    report.update(measure_memory_apart(task, seed))
    report["goals_met"] = (report["goals_met"] and report["env_rss_mb"] <= GOAL_RSS_MB
                           and report["extra_env_rss_mb"] <= GOAL_EXTRA_ENV_RSS_MB)  # fmt: skip
    return report


def _measure(vk: VenuskitSide, gyms: dict[str, GymSide], task: str, steps: int, warmup: int, seed: int) -> dict:
    targets = vk.checkbox_centres()
    if not targets:
        raise SystemExit(f"{task} shows no checkbox to click; use one of {', '.join(CHECKBOX_TASKS)}.")
    floor, click_floor = Series("floor"), Series("click floor")
    total = Series("venuskit step")
    gym_series = {name: Series(f"miniwob gym step ({name})") for name in gyms}
    for i in range(warmup + steps):
        keep, xy = i >= warmup, targets[i % len(targets)]
        runs: list[Callable[[], Any]] = [
            functools.partial(floor.timed, vk.screenshot_floor, keep),
            functools.partial(click_floor.timed, functools.partial(vk.click_floor, xy), keep),
            functools.partial(total.timed, functools.partial(vk.step, xy, keep), keep),
        ]
        for name, gym in gyms.items():
            gym.restart_if_expired()
            runs.append(functools.partial(gym_series[name].timed, functools.partial(gym.step, xy), keep))
        for k in range(len(runs)):  # rotate the order so no side always runs right after another
            runs[(i + k) % len(runs)]()
    return _report(vk, gyms, task, steps, seed, floor, click_floor, total, gym_series)


def _report(
    vk, gyms, task, steps, seed, floor: Series, click_floor: Series, total: Series, gym_series: dict[str, Series]
) -> dict[str, Any]:
    out: dict[str, Any] = {
        "task": task,
        "seed": seed,
        "steps": steps,
        "viewport": list(vk.obs.info["viewport"]),
        "frame_rate_limit": "--disable-frame-rate-limit" not in vk.env.config.extra_args,
        "venuskit_step_ms": round(total.median_ms(), 2),
        "venuskit_step_p90_ms": round(total.p90_ms(), 2),
        "venuskit_env_step_ms": round(vk.env_only.median_ms(), 2),
        "record_wait_ms": round(vk.record.median_ms(), 2),
        "floor_screenshot_ms": round(floor.median_ms(), 2),
        "overhead_vs_floor": round(total.median_ms() / floor.median_ms(), 3),
        "click_floor_ms": round(click_floor.median_ms(), 2),
        "overhead_vs_click_floor": round(total.median_ms() / click_floor.median_ms(), 3),
        "miniwob_gym_step_ms": None,
        "speedup_vs_miniwob_gym": None,
        "miniwob_gym_same_flags_step_ms": None,
        "speedup_vs_miniwob_gym_same_flags": None,
    }
    for name, gym in gyms.items():
        suffix = "" if name == "default" else f"_{name}"
        gym_rss, gym_pss = gym.rss()
        out.update({
            f"miniwob_gym{suffix}_step_ms": round(gym_series[name].median_ms(), 2),
            f"speedup_vs_miniwob_gym{suffix}": round(gym_series[name].median_ms() / total.median_ms(), 3),
            f"miniwob_gym{suffix}_rss_mb": round(gym_rss, 1),
            f"miniwob_gym{suffix}_pss_mb": round(gym_pss, 1),
        })  # fmt: skip
    if "default" in gyms:
        out["same_utterance_for_seed"] = gyms["default"].obs["utterance"] == vk.obs.info["utterance"]
        out["same_flags_switches"] = vk.chromium()[1]
    fair = out["speedup_vs_miniwob_gym_same_flags"]
    out["goals_met"] = out["overhead_vs_floor"] <= GOAL_OVERHEAD and (fair is None or fair >= GOAL_SPEEDUP_SAME_FLAGS)
    return out


def print_report(r: dict[str, Any]) -> None:
    w, h = r["viewport"]
    pacing = "60 Hz frame pacing" if r["frame_rate_limit"] else "no frame pacing"
    print(f"MiniWoB++ {r['task']} (seed {r['seed']}), {w}x{h} viewport, {pacing}, median of {r['steps']} steps")
    print(f"  floor: CDP Page.captureScreenshot      {r['floor_screenshot_ms']:7.2f} ms")
    print(f"  click floor: CDP click + capture       {r['click_floor_ms']:7.2f} ms")
    p90 = r["venuskit_step_p90_ms"]
    print(f"  venuskit step (env + record)          {r['venuskit_step_ms']:7.2f} ms  (p90 {p90:.2f})")
    print(f"    env.step (click, reward, screenshot) {r['venuskit_env_step_ms']:7.2f} ms")
    print(f"    record (waited for; fsync on its thread) {r['record_wait_ms']:5.2f} ms")
    print(f"  overhead vs floor                     {r['overhead_vs_floor']:7.2f} x   (goal <= {GOAL_OVERHEAD})")
    print(f"  overhead vs click floor               {r['overhead_vs_click_floor']:7.2f} x")
    if r["miniwob_gym_step_ms"] is not None:
        print(f"  miniwob gym step (as shipped)         {r['miniwob_gym_step_ms']:7.2f} ms")
        print(f"  speedup vs miniwob gym                {r['speedup_vs_miniwob_gym']:7.2f} x")
        print(f"  miniwob gym step (venuskit's Chromium and switches) {r['miniwob_gym_same_flags_step_ms']:.2f} ms")
        fair = r["speedup_vs_miniwob_gym_same_flags"]
        print(f"  speedup vs miniwob gym, same flags    {fair:7.2f} x   (goal >= {GOAL_SPEEDUP_SAME_FLAGS})")
        print(f"  same utterance for the seed in both   {r['same_utterance_for_seed']}")
    print(
        f"  memory: venuskit env {r['env_rss_mb']:.0f} MB RSS (python {r['python_rss_mb']:.0f} + driver "
        f"{r['driver_rss_mb']:.0f} + Chromium {r['chromium_rss_mb']:.0f}; goal <= {GOAL_RSS_MB:.0f}) / "
        f"{r['env_pss_mb']:.0f} MB PSS",
        end="",
    )
    if "miniwob_gym_rss_mb" in r:
        print(f"; miniwob gym {r['miniwob_gym_rss_mb']:.0f} MB RSS / {r['miniwob_gym_pss_mb']:.0f} MB PSS", end="")
    print()
    print(f"  each extra env sharing the browser    {r['extra_env_rss_mb']:7.1f} MB RSS / {r['extra_env_pss_mb']:.1f} "
          f"MB PSS (goal <= {GOAL_EXTRA_ENV_RSS_MB:.0f} RSS)")  # fmt: skip
    before, after = r["load_avg_1m"]
    print(f"  load average (1 min) before / after the timing: {before:.2f} / {after:.2f}")
    print(f"  goals met: {r['goals_met']}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--task", default="click-checkboxes-soft", choices=CHECKBOX_TASKS)
    parser.add_argument("--steps", type=int, default=40, help="measured steps per side")
    parser.add_argument("--warmup", type=int, default=5, help="unmeasured steps first")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-gym", action="store_true", help="skip the miniwob gym (no chromedriver here)")
    parser.add_argument("--frame-rate-limit", action="store_true", help="keep Chromium's 60 Hz frame pacing")
    parser.add_argument("--memory-probe", action="store_true", help=argparse.SUPPRESS)  # measure_memory_apart
    args = parser.parse_args()
    if args.memory_probe:
        print(json.dumps(memory_probe(args.task, args.seed)))
        return
    if args.steps < 2:
        parser.error("--steps must be at least 2 to take a median and a p90.")
    report = run(args.task, args.steps, args.warmup, args.seed, with_gym=not args.no_gym,
                 frame_rate_limit=args.frame_rate_limit)  # fmt: skip
    print_report(report)
    print(json.dumps(report))


if __name__ == "__main__":
    main()
