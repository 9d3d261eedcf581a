"""BrowserEnv against real Chromium: every browser and mobile action lands as the right DOM event at the
right CSS pixel, refusals are typed, and a crashed or hung browser is relaunched transparently."""

from __future__ import annotations

import os
import signal
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from venuskit.actions import coords
from venuskit.actions.types import (
    Answer,
    CallUser,
    Click,
    DoubleClick,
    Drag,
    Finished,
    GetScreenshot,
    GetUrl,
    Hotkey,
    Hover,
    Launch,
    LaunchApp,
    LongPress,
    Point,
    PressBack,
    PressEnter,
    PressHome,
    PressRecent,
    RightClick,
    Scroll,
    SelectOption,
    Swipe,
    TakeNote,
    Type,
    Wait,
)  # fmt: skip
from venuskit.envs.base import ActionRefused, ActionTimeout, BrowserCrashed, EnvError, StepResult
from venuskit.envs.browser import BrowserConfig, BrowserEnv, playwright_key, png_size
from venuskit.envs.browser.actions import hold_s

pytestmark = pytest.mark.browser

# Short holds and timeouts keep the suite fast; the defaults (3 s waits, 20 s browser long press) are
# the upstream ones and are checked by test_defaults_follow_upstream without launching anything.
FAST: dict[str, Any] = {
    "action_timeout_s": 5.0, "navigation_timeout_s": 10.0, "settle_s": 0.05, "wait_default_s": 0.2,
    "long_press_default_s": 0.3, "drag_duration_s": 0.3, "swipe_duration_s": 0.2,
}  # fmt: skip


@pytest.fixture(scope="module")
def desk() -> Iterator[BrowserEnv]:
    env = BrowserEnv(BrowserConfig(extra_actions=("RightClick",), **FAST))
    yield env
    env.close()


@pytest.fixture(scope="module")
def mob() -> Iterator[BrowserEnv]:
    env = BrowserEnv(BrowserConfig(preset="mobile", **FAST))
    yield env
    env.close()


@pytest.fixture
def events_url(pages_url: str) -> str:
    return f"{pages_url}/events.html"


def pt(env: BrowserEnv, x: int, y: int) -> Point:
    """The normalised point the env maps back onto CSS pixel (x, y)."""
    w, h = env.config.css_viewport()
    return Point(*coords.point_from_pixels(x, y, w, h))


def events(env: BrowserEnv, *kinds: str) -> list[dict[str, Any]]:
    got = env.page.evaluate("window.__events")
    return [e for e in got if not kinds or e["type"] in kinds]


def ok(result: StepResult) -> StepResult:
    assert result.error is None, result.error
    return result


def wait_dead(pid: int) -> None:
    """SIGKILL is asynchronous: wait until the process is gone or a zombie."""
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:
        try:
            with open(f"/proc/{pid}/stat") as fh:
                if fh.read().rsplit(")", 1)[1].split()[0] in "ZX":
                    return
        except OSError:
            return
        time.sleep(0.02)
    raise AssertionError(f"process {pid} still runs 5 s after SIGKILL")


def near(event: dict[str, Any], x: int, y: int) -> bool:
    return abs(event["x"] - x) <= 1 and abs(event["y"] - y) <= 1


# ---- desktop ---------------------------------------------------------------------------------------


def test_reset_gives_a_screenshot_of_the_start_page(desk: BrowserEnv, events_url: str) -> None:
    obs = desk.reset({"start_url": events_url})
    assert (obs.width, obs.height) == (1024, 768) == png_size(obs.png)
    assert obs.url == events_url and obs.title == "events"
    assert desk.surface == "browser"


@pytest.mark.parametrize("x, y", [(500, 500), (0, 0), (1023, 767), (3, 700)])
def test_click_lands_on_the_pixel(desk: BrowserEnv, events_url: str, x: int, y: int) -> None:
    desk.reset({"start_url": events_url})
    result = ok(desk.step(Click(point=pt(desk, x, y))))
    assert result.executed == {"op": "click", "x": x, "y": y, "button": "left", "count": 1}
    (click,) = events(desk, "click")
    assert near(click, x, y) and click["button"] == 0


def test_double_and_right_click(desk: BrowserEnv, events_url: str) -> None:
    desk.reset({"start_url": events_url})
    ok(desk.step(DoubleClick(point=pt(desk, 600, 300))))
    (dbl,) = events(desk, "dblclick")
    assert near(dbl, 600, 300)
    ok(desk.step(RightClick(point=pt(desk, 610, 310))))  # accepted through extra_actions
    (menu,) = events(desk, "contextmenu")
    assert near(menu, 610, 310) and menu["button"] == 2
    assert "contextmenu" in desk.page.text_content("#log")  # the page's own DOM record agrees


def test_hover_moves_without_clicking(desk: BrowserEnv, events_url: str) -> None:
    desk.reset({"start_url": events_url})
    result = ok(desk.step(Hover(point=pt(desk, 700, 400))))
    assert result.executed == {"op": "move", "x": 700, "y": 400}
    assert near(events(desk, "mousemove")[-1], 700, 400)
    assert events(desk, "click", "mousedown") == []


def test_drag_presses_moves_and_releases(desk: BrowserEnv, events_url: str) -> None:
    desk.reset({"start_url": events_url})
    ok(desk.step(Drag(start=pt(desk, 400, 300), end=pt(desk, 800, 500))))
    (down,), (up,) = events(desk, "mousedown"), events(desk, "mouseup")
    assert near(down, 400, 300) and near(up, 800, 500)
    moves = [e for e in events(desk, "mousemove") if down["t"] <= e["t"] <= up["t"]]
    assert len(moves) >= 5 and moves == sorted(moves, key=lambda e: e["x"])
    assert up["t"] - down["t"] >= 250  # drag_duration_s=0.3


def test_long_press_holds_for_the_duration(desk: BrowserEnv, events_url: str) -> None:
    desk.reset({"start_url": events_url})
    result = ok(desk.step(LongPress(point=pt(desk, 500, 600), duration=0.6)))
    assert result.executed["input"] == "mouse" and result.executed["duration_s"] == 0.6
    (down,), (up,) = events(desk, "mousedown"), events(desk, "mouseup")
    assert near(down, 500, 600) and near(up, 500, 600)
    assert 550 <= up["t"] - down["t"] <= 1500


def test_scroll_wheels_two_thirds_of_the_viewport(desk: BrowserEnv, events_url: str) -> None:
    desk.reset({"start_url": events_url})
    result = ok(desk.step(Scroll(point=pt(desk, 300, 400), direction="down")))
    assert result.executed == {"op": "wheel", "x": 300, "y": 400, "dx": 0, "dy": 512}
    (wheel,) = events(desk, "wheel")
    assert near(wheel, 300, 400) and wheel["dy"] == 512
    assert desk.page.evaluate("scrollY") == 512
    ok(desk.step(Scroll(point=pt(desk, 300, 400), direction="up", amount=200)))
    ok(desk.step(Scroll(point=pt(desk, 300, 400), direction="right")))
    assert desk.page.evaluate("[scrollX, scrollY]") == [round(1024 * 2 / 3), 312]


def test_type_presses_each_key_and_newline_presses_enter(desk: BrowserEnv, events_url: str) -> None:
    desk.reset({"start_url": events_url})
    ok(desk.step(Click(point=pt(desk, 100, 60))))  # the textarea
    result = ok(desk.step(Type(content="hello\nworld")))
    assert result.executed == {"op": "type", "text": "hello\nworld", "enters": 1}
    assert desk.page.input_value("#text") == "hello\nworld"
    assert [e["key"] for e in events(desk, "keydown")] == [*"hello", "Enter", *"world"]  # as a person types
    ok(desk.step(PressEnter()))
    assert desk.page.input_value("#text") == "hello\nworld\n"


def test_observations_say_whether_typing_would_reach_a_text_field(desk: BrowserEnv, events_url: str) -> None:
    assert desk.reset({"start_url": events_url}).info["focus_editable"] is False  # nothing focused yet
    assert ok(desk.step(Click(point=pt(desk, 100, 60)))).observation.info["focus_editable"] is True  # textarea
    assert ok(desk.step(Click(point=pt(desk, 900, 700)))).observation.info["focus_editable"] is False  # body


def test_hotkey_maps_common_names(desk: BrowserEnv, events_url: str) -> None:
    desk.reset({"start_url": events_url})
    ok(desk.step(Click(point=pt(desk, 100, 60))))
    ok(desk.step(Type(content="select me")))
    result = ok(desk.step(Hotkey(keys=("ctrl", "a"))))
    assert result.executed == {"op": "key", "combo": "Control+a", "repeat": 1}
    key = events(desk, "keydown")[-1]
    assert key["key"] == "a" and key["ctrl"] is True
    assert desk.page.evaluate("[text.selectionStart, text.selectionEnd]") == [0, 9]
    ok(desk.step(Hotkey(keys=("backspace",))))
    assert desk.page.input_value("#text") == ""
    too_many = desk.step(Hotkey(keys=("ctrl", "shift", "alt", "t")))
    assert isinstance(too_many.error, ActionRefused) and "at most 3" in str(too_many.error)
    unknown = desk.step(Hotkey(keys=("hyper", "x")))
    assert isinstance(unknown.error, ActionRefused) and "hyper" in str(unknown.error)


def test_key_names() -> None:
    assert [playwright_key(k) for k in ("Ctrl", "cmd", "ESC", "f5", "C", "pgdn", "ArrowUp")] == [
        "Control", "Meta", "Escape", "F5", "c", "PageDown", "ArrowUp",
    ]  # fmt: skip


def test_select_option_on_the_clicked_select(desk: BrowserEnv, events_url: str) -> None:
    desk.reset({"start_url": events_url})
    refused = desk.step(SelectOption(index=1))
    assert isinstance(refused.error, ActionRefused) and "click the dropdown first" in str(refused.error)
    clicked = ok(desk.step(Click(point=pt(desk, 80, 140))))
    assert [o["text"] for o in clicked.info["select_options"]] == ["Red", "Green", "Blue", "Gray"]
    result = ok(desk.step(SelectOption(index=2)))
    assert result.info["selected"]["value"] == "blue" and len(result.info["options"]) == 4
    assert [e["value"] for e in events(desk, "change")] == ["blue"]
    out_of_range = desk.step(SelectOption(index=7))
    assert isinstance(out_of_range.error, ActionRefused) and "0..3" in str(out_of_range.error)
    assert len(out_of_range.info["options"]) == 4
    disabled = desk.step(SelectOption(index=3))
    assert isinstance(disabled.error, ActionRefused) and "disabled" in str(disabled.error)
    assert desk.page.input_value("#sel") == "blue" and disabled.info.get("relaunched") is None
    ok(desk.step(Click(point=pt(desk, 700, 700))))  # the page still takes clicks after the dropdown
    assert near(events(desk, "click")[-1], 700, 700)


def test_launch_back_home_and_url(desk: BrowserEnv, pages_url: str, events_url: str) -> None:
    desk.reset({"start_url": events_url})
    launched = ok(desk.step(Launch(url=f"{pages_url}/page2.html")))
    assert launched.observation.title == "page two" and launched.executed["op"] == "goto"
    assert ok(desk.step(GetUrl())).info["url"] == f"{pages_url}/page2.html"
    back = ok(desk.step(PressBack()))
    assert back.observation.url == events_url and back.info["moved"] is True
    ok(desk.step(Scroll(point=pt(desk, 500, 500), direction="down")))
    ok(desk.step(Click(point=pt(desk, 900, 700))))  # focus the page body, not the textarea
    home = ok(desk.step(PressHome()))
    assert home.executed == {"op": "key", "combo": "Home", "repeat": 1}
    assert desk.page.evaluate("scrollY") == 0


@pytest.mark.parametrize(
    "url",
    ["javascript:alert(1)", "data:text/html,<h1>x</h1>", "chrome://version", "about:blank", "ftp://127.0.0.1/",
     "127.0.0.1/page2.html", "http://example.com/", "https://10.0.0.1/"],
)  # fmt: skip
def test_launch_refuses_other_schemes_and_hosts(desk: BrowserEnv, events_url: str, url: str) -> None:
    desk.reset({"start_url": events_url})
    result = desk.step(Launch(url=url))
    assert isinstance(result.error, ActionRefused)
    assert result.observation.url == events_url and result.executed is None
    if url.startswith("http"):
        assert result.info["blocked"][0]["url"] == url


def test_file_urls_are_allowed(desk: BrowserEnv) -> None:
    obs = desk.reset({"start_url": (Path(__file__).parent / "pages" / "page2.html").as_uri()})
    assert obs.title == "page two"


def test_reset_refuses_bad_tasks(desk: BrowserEnv) -> None:
    with pytest.raises(ActionRefused):
        desk.reset({"start_url": "javascript:1"})
    with pytest.raises(EnvError, match="start_url"):
        desk.reset({})


def test_waits_notes_and_no_ops(desk: BrowserEnv, events_url: str) -> None:
    desk.reset({"start_url": events_url})
    t0 = time.monotonic()
    assert ok(desk.step(Wait())).executed == {"op": "wait", "seconds": 0.2}
    assert ok(desk.step(Wait(seconds=0.5))).executed == {"op": "wait", "seconds": 0.5}
    assert time.monotonic() - t0 >= 0.7
    assert ok(desk.step(TakeNote(content="price is 42"))).info["note"] == "price is 42"
    for action in (Finished(content="done"), CallUser(content="help")):
        result = ok(desk.step(action))
        assert result.executed is None and result.observation.url == events_url
    assert events(desk, "click", "keydown") == []


def test_actions_outside_the_surface_are_refused(desk: BrowserEnv, mob: BrowserEnv, events_url: str) -> None:
    desk.reset({"start_url": events_url})
    swipe = desk.step(Swipe(start=pt(desk, 10, 10), end=pt(desk, 10, 300)))
    assert isinstance(swipe.error, ActionRefused) and "browser surface" in str(swipe.error)
    answer = desk.step(Answer(content="x"))
    assert isinstance(answer.error, ActionRefused)
    mob.reset({"start_url": events_url})
    for action in (Hover(point=pt(mob, 5, 5)), Launch(url=events_url), RightClick(point=pt(mob, 5, 5))):
        result = mob.step(action)
        assert isinstance(result.error, ActionRefused) and "mobile surface" in str(result.error)
    for action in (LaunchApp(app="Settings"), PressRecent()):
        assert isinstance(mob.step(action).error, ActionRefused)
    assert events(mob, "click", "touchstart", "mousedown", "keydown") == []


def test_defaults_follow_upstream() -> None:
    desktop, mobile = BrowserConfig(), BrowserConfig(preset="mobile")
    assert desktop.css_viewport() == (1024, 768) and desktop.scale() == 1
    assert mobile.css_viewport() == (412, 915) and mobile.scale() == 2
    assert hold_s(desktop, Wait()) == 3.0 and hold_s(mobile, Wait()) == 1.0
    assert hold_s(desktop, LongPress(point=Point(0.5, 0.5))) == 20.0
    assert hold_s(mobile, LongPress(point=Point(0.5, 0.5))) == 1.0
    assert hold_s(desktop, Wait(seconds=60)) == desktop.max_wait_s == 30.0
    with pytest.raises(ValueError, match="preset"):
        BrowserConfig(preset="tablet")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="not an allowed-host entry"):
        BrowserConfig(allow_hosts=("http://x/",))
    assert "hung" in BrowserConfig.help()["action_timeout_s"]


_MEMORY_PROBE = """
import sys
from venuskit.actions import Click, Point, Scroll
from venuskit.envs.browser import BrowserConfig, BrowserEnv
with BrowserEnv(BrowserConfig()) as env:
    env.reset({"start_url": sys.argv[1]})
    for i in range(4):
        env.step(Click(point=Point((100 + 50 * i) / 1024, 500 / 768)))
    env.step(Scroll(point=Point(0.5, 0.65), direction="down"))
    print(env.pss_mb(), env.rss_mb())
"""


def test_memory_budget(events_url: str) -> None:
    # Measured in a fresh process: inside pytest the harness process carries every module the suite has
    # imported and the Playwright driver serves other tests' browsers, which is not one env's cost.
    import subprocess
    import sys

    out = subprocess.run([sys.executable, "-c", _MEMORY_PROBE, events_url], capture_output=True, text=True,
                         timeout=120, check=True)  # fmt: skip
    pss, rss = map(float, out.stdout.split())
    print(f"browser env memory: PSS {pss:.0f} MB, summed RSS {rss:.0f} MB")
    assert 50 < pss <= 400, f"one browser env costs {pss:.0f} MB (PSS); the budget is 400 MB"
    assert rss >= pss


# ---- mobile ----------------------------------------------------------------------------------------


def test_mobile_screenshot_is_twice_the_css_viewport(mob: BrowserEnv, events_url: str) -> None:
    obs = mob.reset({"start_url": events_url})
    assert (obs.width, obs.height) == (824, 1830) == png_size(obs.png)
    assert obs.info == {"viewport": [412, 915], "device_scale_factor": 2.0, "focus_editable": False}
    assert mob.surface == "mobile" and "Mobile" in mob.page.evaluate("navigator.userAgent")


def test_tap_and_double_tap(mob: BrowserEnv, events_url: str) -> None:
    mob.reset({"start_url": events_url})
    result = ok(mob.step(Click(point=pt(mob, 300, 500))))
    assert result.executed == {"op": "tap", "x": 300, "y": 500, "count": 1}
    (start,), (end,), (click,) = events(mob, "touchstart"), events(mob, "touchend"), events(mob, "click")
    assert near(start, 300, 500) and near(end, 300, 500) and near(click, 300, 500)
    ok(mob.step(DoubleClick(point=pt(mob, 200, 700))))
    (dbl,) = events(mob, "dblclick")
    assert near(dbl, 200, 700)


def test_swipe_scrolls_with_touch_events(mob: BrowserEnv, events_url: str) -> None:
    mob.reset({"start_url": events_url})
    result = ok(mob.step(Swipe(start=pt(mob, 200, 800), end=pt(mob, 200, 300))))
    assert result.executed["op"] == "touch_drag"
    (start,), (end,) = events(mob, "touchstart"), events(mob, "touchend")
    assert near(start, 200, 800) and near(end, 200, 300)
    moves = events(mob, "touchmove")  # Chromium may coalesce some moves, never reorder them
    assert len(moves) >= 3 and [m["y"] for m in moves] == sorted((m["y"] for m in moves), reverse=True)
    # The page scrolls by the finger's travel less Chromium's touch slop, and no fling adds to it.
    assert 450 <= mob.page.evaluate("scrollY") <= 500
    assert events(mob, "wheel", "mousedown") == []


def test_mobile_drag_and_long_press_are_touch(mob: BrowserEnv, events_url: str) -> None:
    mob.reset({"start_url": events_url})
    ok(mob.step(Drag(start=pt(mob, 100, 400), end=pt(mob, 300, 400))))
    (start,), (end,) = events(mob, "touchstart"), events(mob, "touchend")
    assert near(start, 100, 400) and near(end, 300, 400) and end["t"] - start["t"] >= 250
    mob.page.evaluate("window.__events.length = 0")
    result = ok(mob.step(LongPress(point=pt(mob, 250, 600), duration=0.5)))
    assert result.executed["input"] == "touch"
    (start,), (end,) = events(mob, "touchstart"), events(mob, "touchend")
    assert near(start, 250, 600) and 450 <= end["t"] - start["t"] <= 1400
    assert events(mob, "touchmove") == []  # a press, not a drag


def test_mobile_type_back_home_and_screenshot(mob: BrowserEnv, events_url: str, pages_url: str) -> None:
    mob.reset({"start_url": events_url})
    ok(mob.step(Click(point=pt(mob, 100, 60))))
    ok(mob.step(Type(content="hi")))
    assert mob.page.input_value("#text") == "hi"
    nxt = ok(mob.step(Click(point=pt(mob, 50, 186))))  # the "next page" link
    assert nxt.observation.url == f"{pages_url}/page2.html"
    assert ok(mob.step(PressBack())).observation.url == events_url
    ok(mob.step(Click(point=pt(mob, 50, 186))))
    home = ok(mob.step(PressHome()))  # mobile Home: back to the episode's start page
    assert home.observation.url == events_url and home.executed == {"op": "goto", "url": events_url}
    assert "screenshot" in ok(mob.step(GetScreenshot())).info
    assert ok(mob.step(Wait())).executed == {"op": "wait", "seconds": 0.2}


# ---- crashes and hangs -----------------------------------------------------------------------------


@pytest.mark.slow
def test_killed_browser_is_relaunched_at_the_last_url(events_url: str) -> None:
    with BrowserEnv(BrowserConfig(**FAST)) as env:
        env.reset({"start_url": events_url})
        ok(env.step(Scroll(point=pt(env, 300, 300), direction="down")))
        old_pid = env.browser_pid
        os.kill(old_pid, signal.SIGKILL)  # between steps
        wait_dead(old_pid)
        result = env.step(Click(point=pt(env, 500, 500)))
        assert isinstance(result.error, BrowserCrashed) and "was not run" in str(result.error)
        assert result.executed is None  # planned on a page that no longer exists
        assert result.info["relaunched"] is True and result.observation.url == events_url
        assert env.browser_pid != old_pid and result.observation.width == 1024
        ok(env.step(Click(point=pt(env, 321, 432))))
        (click,) = events(env, "click")
        assert near(click, 321, 432)

        killer = threading.Timer(0.3, os.kill, args=(env.browser_pid, signal.SIGKILL))  # during a step
        killer.start()
        during = env.step(Wait(seconds=2.0))
        killer.join()
        assert isinstance(during.error, BrowserCrashed) and during.info["relaunched"] is True
        assert during.observation.url == events_url
        ok(env.step(Click(point=pt(env, 10, 700))))
        assert env.observe().title == "events"


@pytest.mark.slow
def test_hung_page_times_out_and_recovers(pages_url: str) -> None:
    config = BrowserConfig(**{**FAST, "action_timeout_s": 2.0})
    with BrowserEnv(config) as env:
        env.reset({"start_url": f"{pages_url}/hang.html"})
        t0 = time.monotonic()
        result = env.step(Click(point=pt(env, 100, 50)))  # the button that spins forever
        assert isinstance(result.error, ActionTimeout)
        assert time.monotonic() - t0 < 15
        assert result.executed == {"op": "click", "x": 100, "y": 50, "button": "left", "count": 1}
        assert result.info["relaunched"] is True and result.observation.url == f"{pages_url}/hang.html"
        ok(env.step(Click(point=pt(env, 500, 600))))
        assert env.page.evaluate("window.__clicks") == 1
        obs = env.observe()
        assert obs.title == "hang"


@pytest.mark.slow
def test_a_last_url_that_hangs_on_load_is_replaced_by_a_blank_tab(pages_url: str) -> None:
    config = BrowserConfig(**{**FAST, "action_timeout_s": 1.0, "navigation_timeout_s": 2.0})
    with BrowserEnv(config) as env:
        env.reset({"start_url": f"{pages_url}/events.html"})
        env.page.evaluate("history.replaceState(null, '', 'hang.html?onload')")  # a URL that hangs when loaded
        assert ok(env.step(GetUrl())).info["url"] == f"{pages_url}/hang.html?onload"
        pid = env.browser_pid
        os.kill(pid, signal.SIGKILL)
        wait_dead(pid)
        result = env.step(Click(point=pt(env, 10, 10)))
        assert isinstance(result.error, BrowserCrashed)
        assert result.info["restored_url"] is None and "did not finish" in result.info["relaunch_error"]
        assert result.observation.url == "about:blank"
        ok(env.step(Launch(url=f"{pages_url}/page2.html")))


@pytest.mark.slow
def test_a_stalled_subresource_delays_steps_only_boundedly(pages_url: str) -> None:
    with BrowserEnv(BrowserConfig(**{**FAST, "action_timeout_s": 1.0})) as env:
        t0 = time.monotonic()
        obs = env.reset({"start_url": f"{pages_url}/stalled.html"})
        assert obs.title == "stalled" and time.monotonic() - t0 < 6
        t1 = time.monotonic()
        ok(env.step(Click(point=pt(env, 10, 10))))
        assert time.monotonic() - t1 < 5  # not the 10 s navigation timeout, nor the 15 s stall


def test_step_before_reset_and_after_close() -> None:
    env = BrowserEnv(BrowserConfig(**FAST))
    with pytest.raises(EnvError, match="reset"):
        env.step(Wait())
    env.close()
    with pytest.raises(EnvError, match="closed"):
        env.reset({"start_url": "about:blank"})


def test_a_reused_context_starts_each_episode_clean(pages_url: str, events_url: str) -> None:
    """reuse_context keeps the context but not what the last episode left: cookies, storage, history, popups."""
    with BrowserEnv(BrowserConfig(reuse_context=True)) as env:
        env.reset({"start_url": events_url})
        env.page.evaluate("document.cookie = 'who=last-episode'; localStorage.setItem('draft', 'secret')")
        ok(env.step(Launch(url=f"{pages_url}/page2.html")))
        env.page.evaluate("window.open(location.href)")  # a popup the next episode must never see
        env.reset({"start_url": events_url})
        env.page.wait_for_timeout(300)  # time for a late popup announcement to arrive (and be refused)
        assert env.page.url == events_url and len(env.page.context.pages) == 1
        assert env.page.evaluate("document.cookie") == ""
        assert env.page.evaluate("localStorage.getItem('draft')") is None
        back = env.step(PressBack())
        assert back.info["moved"] is False and env.page.url == events_url
