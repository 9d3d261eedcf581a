"""Every action of the mobile grammar on AndroidEnv, through a real adb server, on the stand-in device.

What is asserted is what a person holding the phone would see: the page under the stand-in's screen got a touch at
the point the model chose, the text typed is exactly the text asked for, Back went back, the app opened.
The page is read through the stand-in's in-process page (a real device has none; the tests' eyes only)."""

from __future__ import annotations

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
    Hotkey,
    LaunchApp,
    LongPress,
    Point,
    PressBack,
    PressEnter,
    PressHome,
    PressRecent,
    Scroll,
    Swipe,
    Type,
    Wait,
)
from venuskit.envs.android import AndroidConfig, AndroidEnv, TypingUnsupported
from venuskit.envs.android.standin import NOT_MODELLED
from venuskit.envs.base import ActionRefused, StepResult

pytestmark = [pytest.mark.browser]

W, H, DPR = 540, 1200, 1.25  # the stand-in's screen (conftest.SIZE) and device pixels per CSS pixel


def pt(css_x: float, css_y: float) -> Point:
    """The normalised point of the screenshot that lands on CSS pixel (css_x, css_y) of the stand-in's page."""
    return Point(*coords.point_from_pixels(css_x * DPR, css_y * DPR, W, H))


def ok(result: StepResult) -> StepResult:
    assert result.error is None, result.error
    return result


def events(standin, *kinds: str) -> list[dict]:
    return [e for e in standin.page.evaluate("window.__events") if e["type"] in kinds]


def near(e: dict, x: int, y: int) -> bool:
    return abs(e["x"] - x) <= 1 and abs(e["y"] - y) <= 1


@pytest.fixture
def on_events(android: AndroidEnv, pages_url: str):
    obs = android.reset({"start_url": f"{pages_url}/events.html"})
    assert (obs.width, obs.height) == (W, H)
    return android


def test_reset_opens_the_start_url_and_says_it_is_a_stand_in(android, standin, pages_url) -> None:
    obs = android.reset({"start_url": f"{pages_url}/page2.html"})
    assert standin.page.url == f"{pages_url}/page2.html"
    assert obs.png.startswith(b"\x89PNG") and (obs.width, obs.height) == (W, H)
    device = obs.info["device"]
    assert device["serial"] == standin.serial and device["size"] == [W, H] and device["density"] == 200
    assert device["model"] == "venuskit-standin" and device["shell_v2"] is True
    assert device["standin"]["not_modelled"] == list(NOT_MODELLED)
    assert "not Android" in device["standin"]["note"]
    assert f"reverse:forward:tcp:{pages_url.rsplit(':', 1)[1]};tcp:{pages_url.rsplit(':', 1)[1]}" in standin.log


def test_tap_and_double_tap_land_where_the_model_pointed(on_events, standin) -> None:
    result = ok(on_events.step(Click(point=pt(300, 500))))
    assert result.executed == {"op": "tap", "x": 375, "y": 625, "count": 1}
    (start,), (end,), (click,) = events(standin, "touchstart"), events(standin, "touchend"), events(standin, "click")
    assert near(start, 300, 500) and near(end, 300, 500) and near(click, 300, 500)
    ok(on_events.step(DoubleClick(point=pt(200, 700))))
    taps = [e for e in events(standin, "click") if near(e, 200, 700)]
    assert len(taps) == 2


def test_long_press_holds_on_the_spot(on_events, standin) -> None:
    result = ok(on_events.step(LongPress(point=pt(250, 600), duration=0.6)))
    assert result.executed["duration_ms"] == 600
    (start,), (end,) = events(standin, "touchstart"), events(standin, "touchend")
    assert near(start, 250, 600) and 550 <= end["t"] - start["t"] <= 1500
    assert events(standin, "touchmove") == []  # a press, not a drag


def test_swipe_scrolls_and_drag_moves_slowly(on_events, standin) -> None:
    ok(on_events.step(Swipe(start=pt(200, 800), end=pt(200, 300))))
    (start,), (end,) = events(standin, "touchstart"), events(standin, "touchend")
    assert near(start, 200, 800) and near(end, 200, 300)
    assert 420 <= standin.page.evaluate("scrollY") <= 500  # the finger's travel less Chromium's touch slop
    standin.page.evaluate("window.__events.length = 0")
    drag = ok(on_events.step(Drag(start=pt(100, 400), end=pt(300, 400))))
    assert drag.executed["duration_ms"] == 1000  # upstream's slow swipe, slow enough to hold what it starts on
    (start,), (end,) = events(standin, "touchstart"), events(standin, "touchend")
    assert near(start, 100, 400) and near(end, 300, 400) and end["t"] - start["t"] >= 800


def test_scroll_swipes_the_other_way(on_events, standin) -> None:
    ok(on_events.step(Scroll(point=pt(200, 700), direction="down", amount=500)))
    (start,), (end,) = events(standin, "touchstart"), events(standin, "touchend")
    assert near(start, 200, 700) and near(end, 200, 300)  # 500 device px = 400 CSS px, finger upwards
    assert standin.page.evaluate("scrollY") > 300


def test_type_ascii_with_everything_a_shell_would_eat(on_events, standin) -> None:
    ok(on_events.step(Click(point=pt(100, 60))))  # the textarea
    text = "a b;c & d|e $HOME `x` 'q' \"w\" (p) <t> #h \\n 100% %s ok"
    result = ok(on_events.step(Type(content=text)))
    assert result.executed["via"] == "input text"
    assert standin.page.input_value("#text") == text


def test_newline_is_enter_and_non_ascii_goes_through_adbkeyboard(on_events, standin) -> None:
    ok(on_events.step(Click(point=pt(100, 60))))
    result = ok(on_events.step(Type(content="你好 café\nline two")))
    assert result.executed["via"] == "ADBKeyboard"
    assert standin.page.input_value("#text") == "你好 café\nline two"
    assert any(c.startswith("shell,v2:am broadcast -a ADB_INPUT_B64") for c in standin.log)


def test_non_ascii_without_adbkeyboard_is_refused_and_types_nothing(adb_server, standin, pages_url) -> None:
    standin.ime_installed, standin.ime = False, "null"  # a phone without the ADBKeyboard IME
    try:
        config = AndroidConfig(serial=standin.serial, adb_port=adb_server.port, start_server=False)
        with AndroidEnv(config) as env:
            env.reset({"start_url": f"{pages_url}/events.html"})
            ok(env.step(Click(point=pt(100, 60))))
            result = env.step(Type(content="naïve"))
            assert isinstance(result.error, TypingUnsupported)
            assert "ADBKeyboard" in str(result.error) and "'ï'" in str(result.error)
            assert standin.page.input_value("#text") == ""  # not "nave", not "naive": nothing
            assert result.observation.png.startswith(b"\x89PNG")
    finally:
        standin.ime_installed, standin.ime = True, "com.android.adbkeyboard/.AdbIME"


def test_adbkeyboard_installed_but_not_selected_is_selected_for_the_text(on_events, standin) -> None:
    standin.ime = "null"
    on_events.reset({"resume": True})  # the env reads the device's input method again
    ok(on_events.step(Click(point=pt(100, 60))))
    ok(on_events.step(Type(content="日本")))
    assert standin.page.input_value("#text") == "日本"
    assert any("ime set com.android.adbkeyboard/.AdbIME && am broadcast" in c for c in standin.log)


def test_enter_back_home_and_recent_apps(android, standin, pages_url, world) -> None:
    android.reset({"start_url": f"{pages_url}/events.html"})
    ok(android.step(Click(point=pt(100, 60))))
    ok(android.step(PressEnter()))
    assert [e["key"] for e in events(standin, "keydown")] == ["Enter"]
    ok(android.step(Click(point=pt(50, 186))))  # the "next page" link
    assert standin.page.url == f"{pages_url}/page2.html"
    ok(android.step(PressBack()))
    assert standin.page.url == f"{pages_url}/events.html"
    ok(android.step(LaunchApp(app="mail")))
    ok(android.step(PressHome()))
    assert standin.page.url == f"{world.base_url}/"  # the world's launcher is the stand-in's home screen
    assert ok(android.step(PressRecent())).executed == {"op": "key", "key": "APP_SWITCH", "code": 187}
    assert "Mail" in standin.page.inner_text("body")


def test_launch_app_by_name_package_and_user_table(adb_server, standin, world) -> None:
    config = AndroidConfig(serial=standin.serial, adb_port=adb_server.port, start_server=False,
                           apps={"money": "com.venuskit.bank"})  # fmt: skip
    with AndroidEnv(config) as env:
        env.reset({})
        assert standin.page.url == f"{world.base_url}/"
        result = ok(env.step(LaunchApp(app="Mail")))
        assert result.info["package"] == "com.venuskit.mail" and "/mail/" in standin.page.url
        assert ok(env.step(LaunchApp(app="com.venuskit.shop"))).info["package"] == "com.venuskit.shop"
        assert "/shop/" in standin.page.url
        assert ok(env.step(LaunchApp(app="money"))).info["package"] == "com.venuskit.bank"
        assert ok(env.step(LaunchApp(app="settings"))).info["package"] == "com.venuskit.settings"
        missing = env.step(LaunchApp(app="Spotify"))
        assert isinstance(missing.error, ActionRefused) and "com.venuskit.forum" in str(missing.error)
        assert "/settings/" in standin.page.url  # nothing else opened


def test_screenshot_to_the_album_wait_and_the_ends(on_events, standin) -> None:
    result = ok(on_events.step(GetScreenshot()))
    saved = result.info["saved"]
    assert saved["path"].startswith("/sdcard/Pictures/Screenshots/") and saved["bytes"] > 1000
    assert standin.fs.read(saved["path"]).startswith(b"\x89PNG")
    assert ok(on_events.step(Wait(seconds=0.3))).executed == {"op": "wait", "seconds": 0.3}
    before = len(standin.log)
    for end in (Finished(content="done"), Answer(content="42"), CallUser(content="help")):
        assert ok(on_events.step(end)).executed is None
    assert [c for c in list(standin.log)[before:] if not c.startswith("exec:screencap")] == []


def test_an_action_of_another_surface_is_refused(on_events, standin) -> None:
    result = on_events.step(Hotkey(keys=("ctrl", "a")))
    assert isinstance(result.error, ActionRefused) and "LaunchApp" in str(result.error)
    assert events(standin, "keydown") == []
