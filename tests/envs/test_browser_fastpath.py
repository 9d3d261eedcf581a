"""BrowserEnv's fast observation path and its watchdog's last resort, against real Chromium: the CDP capture
is byte-identical to page.screenshot, the probe rides along with the page read, the low-memory launch keeps
Playwright's own Chromium features, and a call the driver never answers is ended by killing the driver."""

from __future__ import annotations

import os
import signal
import threading
import time
from typing import Any

import pytest

from venuskit.actions import coords
from venuskit.actions.types import Click, Point
from venuskit.envs.base import ActionTimeout
from venuskit.envs.browser import LOW_MEMORY_FEATURES, BrowserConfig, BrowserEnv
from venuskit.infra.proc import Watchdog, proc_table

pytestmark = pytest.mark.browser

# A page taller than the viewport, with small text (so a capture at the wrong scale cannot match).
TALL = (
    "<title>tall</title><body style='height:4000px;margin:0'>"
    + "".join(f"<p style='font:11px sans-serif;margin:0 0 37px {i % 50}px'>row {i}</p>" for i in range(100))
    + "</body>"
)


def pt(env: BrowserEnv, x: int, y: int) -> Point:
    width, height = env.config.css_viewport()
    return Point(*coords.point_from_pixels(x, y, width, height))


@pytest.mark.parametrize("preset", ["desktop", "mobile"])
def test_the_observation_is_playwrights_screenshot_byte_for_byte(preset: str) -> None:
    with BrowserEnv(BrowserConfig(preset=preset)) as env:
        env.reset({"start_url": "about:blank"})
        env.page.set_content(TALL)
        env.page.evaluate("window.scrollTo(0, 1234)")  # the capture must follow the scroll offset
        obs = env.observe()
        assert obs.png == env.page.screenshot(caret="initial")
        scale = 2 if preset == "mobile" else 1
        width, height = env.config.css_viewport()
        assert (obs.width, obs.height) == (width * scale, height * scale) and obs.title == "tall"


def test_the_page_probe_rides_along_with_every_observation() -> None:
    probe = "() => [document.title, window.__count = (window.__count || 0) + 1]"
    with BrowserEnv(BrowserConfig(), page_probe=probe) as env:
        env.reset({"start_url": "about:blank"})
        env.page.set_content("<title>probed</title>")
        env.observe()
        assert env.last_probe is not None and env.last_probe.ok
        title, count = env.last_probe.value
        env.step(Click(point=pt(env, 10, 10)))
        assert title == "probed" and env.last_probe.value == ["probed", count + 1]  # once per observation
    with BrowserEnv(BrowserConfig(), page_probe="() => missingGlobal.x") as env:
        obs = env.reset({"start_url": "about:blank"})
        assert env.last_probe is not None and not env.last_probe.ok and "missingGlobal" in env.last_probe.value
        assert obs.png  # a failing probe costs nothing else


def test_low_memory_launch_keeps_playwrights_features_and_one_fewer_process() -> None:
    # Chromium honours only the last --enable-features switch: ours must repeat Playwright's list.
    with BrowserEnv(BrowserConfig()) as env:
        env.reset({"start_url": "about:blank"})
        table = proc_table()
        argv = table[env.browser_pid][1]
        enabled = [set(a.split("=", 1)[1].split(",")) for a in argv if a.startswith("--enable-features=")]
        assert len(enabled) == 2, "expected Playwright's --enable-features and then ours"
        playwright_own, effective = enabled
        assert playwright_own <= effective and set(LOW_MEMORY_FEATURES) <= effective
        tree = [table[p][1] for p in env.memory_pids() if p in table]
        assert not any("--utility-sub-type=network.mojom.NetworkService" in a for a in tree)


def _stopped_driver_scenario(out: dict[str, Any]) -> None:
    # In a thread of its own, so it gets its own Playwright driver and cannot harm other tests' envs.
    with BrowserEnv(BrowserConfig(action_timeout_s=1.0, navigation_timeout_s=2.0)) as env:
        env._chromium.watchdog.stuck_s = 1.0
        env.reset({"start_url": "about:blank"})
        old_driver = env._chromium.driver.pid
        os.kill(old_driver, signal.SIGSTOP)  # a driver that never answers again
        t0 = time.monotonic()
        result = env.step(Click(point=pt(env, 10, 10)))
        out.update(result=result, elapsed=time.monotonic() - t0, old_driver=old_driver, new_driver=env._chromium.driver.pid)
        out["after"] = env.step(Click(point=pt(env, 20, 20)))


@pytest.mark.slow
def test_a_call_the_driver_never_answers_ends_with_a_new_driver() -> None:
    out: dict[str, Any] = {}
    thread = threading.Thread(target=_stopped_driver_scenario, args=(out,), daemon=True)
    thread.start()
    thread.join(timeout=60)
    assert not thread.is_alive(), "the step hung although the watchdog should have killed the driver"
    result = out["result"]
    assert isinstance(result.error, ActionTimeout) and result.info["relaunched"] is True
    assert out["elapsed"] < 10 and out["new_driver"] not in (None, out["old_driver"])
    assert out["after"].error is None


def _wait_for(cond: Any, timeout_s: float = 5.0) -> None:
    end = time.monotonic() + timeout_s
    while not cond() and time.monotonic() < end:
        time.sleep(0.01)


def test_the_watchdog_fires_escalates_and_wakes_for_an_earlier_deadline() -> None:
    events: list[tuple[str, float]] = []
    dog = Watchdog(lambda: events.append(("fire", time.monotonic())),
                    lambda: events.append(("stuck", time.monotonic())), stuck_s=0.2)  # fmt: skip
    dog.arm(30.0)
    assert dog.disarm() is False
    time.sleep(0.2)  # its thread now sleeps for 30 s
    t0 = time.monotonic()
    dog.arm(0.1)  # a nearer one must wake it
    _wait_for(lambda: len(events) == 2)
    assert [name for name, _ in events] == ["fire", "stuck"]
    assert events[0][1] - t0 < 2.0 and events[1][1] - events[0][1] >= 0.2
    assert dog.disarm() is True
    dog.arm(0.2)
    assert dog.disarm() is False  # disarmed in time: nothing more fires
    time.sleep(0.4)
    assert len(events) == 2
    dog.stop()


def test_the_page_read_and_the_capture_share_one_round_trip() -> None:
    """send_together sends both commands before either answer: the first here waits for what the second does,
    so one after the other it would give up after 3 s. A Playwright release that changes the machinery it uses
    fails this test (the env still works, one round trip slower)."""
    from venuskit.envs.browser.driver import send_together

    wait = "new Promise(done => { const t = Date.now(); const f = () => window.__go ? done('together') : "
    wait += "Date.now() - t > 3000 ? done('one after the other') : setTimeout(f, 5); f(); })"
    with BrowserEnv(BrowserConfig()) as env:
        env.reset({"start_url": "about:blank"})
        first, second = send_together(env._session(), [
            ("Runtime.evaluate", {"expression": wait, "awaitPromise": True, "returnByValue": True}),
            ("Runtime.evaluate", {"expression": "window.__go = true", "returnByValue": True}),
        ])  # fmt: skip
    assert first["result"]["value"] == "together" and second["result"]["value"] is True
