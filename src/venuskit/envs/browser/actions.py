"""The action handlers: one function per action name, each `(tab, action, info)`, run by `BrowserEnv.step`
under its watchdog. A handler tells the tab what it sends (`Tab.sent`: the step's `executed`, in CSS pixels of the
viewport) and puts anything the agent should read (options, the URL, notes) in `info`. It reaches the browser only
through `Tab`: the live page, the env's CDP session, and navigation the env checks against the network allowlist.

Per-action semantics follow the upstream executors (reference/ui-venus.md §2.2, §2.4); where this env must
choose, the choice is written at the handler.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Protocol

from venuskit.actions import coords
from venuskit.actions.types import Action, Point
from venuskit.envs.base import ActionRefused
from venuskit.envs.browser.config import BrowserConfig
from venuskit.envs.browser.js import OPTIONS_JS
from venuskit.envs.browser.keys import MAX_HOTKEY_KEYS, playwright_key, typing_runs

TOUCH_REST_S = 0.1  # pause at the end of a touch drag before lifting the finger


class Tab(Protocol):
    """What a handler may use of the env (BrowserEnv is one): its settings, the live page, and four services."""

    config: BrowserConfig
    surface: str

    @property
    def page(self) -> Any:
        """The live Playwright Page."""
        ...

    @property
    def last_select(self) -> Any:
        """The native <select> the last click landed on (an ElementHandle), or None."""
        ...

    def cdp(self, method: str, params: dict[str, Any]) -> Any:
        """Send one command on the env's CDP session of the page (touch input)."""
        ...

    def sent(self, executed: dict[str, Any]) -> None:
        """Record what the handler is about to send, in CSS pixels (the step's `executed`): recorded before the
        input goes out, so a step whose input hangs the page still says what was sent."""
        ...

    def open(self, url: str, what: str) -> None:
        """Navigate to `url` after the allowlist check (ActionRefused, nothing sent, when it is outside)."""
        ...

    def open_start(self) -> None:
        """Navigate back to the episode's start page (where there is one)."""
        ...


Handler = Callable[[Tab, Any, dict[str, Any]], None]


def _xy(tab: Tab, point: Point | None, name: str = "point") -> tuple[int, int]:
    if point is None:
        raise ActionRefused(f"This action needs {name}=(x, y) on the {tab.surface} surface.")
    width, height = tab.config.css_viewport()
    return coords.point_to_pixels(point.as_tuple(), width, height)


def hold_s(config: BrowserConfig, action: Action) -> float:
    """Seconds an action waits on purpose (Wait, LongPress, Drag/Swipe), capped by max_wait_s."""
    c, mobile = config, config.mobile
    name = action.name
    if name == "Wait":
        s = action.seconds or c.wait_default_s or (1.0 if mobile else 3.0)  # type: ignore[attr-defined]
    elif name == "LongPress":
        s = action.duration or c.long_press_default_s or (1.0 if mobile else 20.0)  # type: ignore[attr-defined]
    elif name == "Drag":
        s = c.drag_duration_s or (1.0 if mobile else 0.5)
    elif name == "Swipe":
        s = c.swipe_duration_s
    else:
        return 0.0
    return min(float(s), c.max_wait_s)


def _pause(tab: Tab, seconds: float) -> None:
    # wait_for_timeout, not time.sleep: the driver keeps dispatching events (route handlers) meanwhile.
    tab.page.wait_for_timeout(seconds * 1000)


def _touch(tab: Tab, kind: str, x: float | None = None, y: float | None = None) -> None:
    """One CDP touch event, so touch pages see real touchstart/touchmove/touchend."""
    points = [] if x is None else [{"x": x, "y": y}]
    tab.cdp("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})


def _click(tab: Tab, action: Any, info: dict[str, Any], button: str = "left", count: int = 1) -> None:
    x, y = _xy(tab, action.point)
    page = tab.page
    if tab.config.mobile:
        tab.sent({"op": "tap", "x": x, "y": y, "count": count})
        for _ in range(count):
            page.touchscreen.tap(x, y)
    else:
        tab.sent({"op": "click", "x": x, "y": y, "button": button, "count": count})
        page.mouse.click(x, y, button=button, click_count=count)


def _double_click(tab: Tab, action: Any, info: dict[str, Any]) -> None:
    _click(tab, action, info, count=2)


def _triple_click(tab: Tab, action: Any, info: dict[str, Any]) -> None:
    _click(tab, action, info, count=3)


def _right_click(tab: Tab, action: Any, info: dict[str, Any]) -> None:
    _click(tab, action, info, button="right")


def _middle_click(tab: Tab, action: Any, info: dict[str, Any]) -> None:
    _click(tab, action, info, button="middle")


def _hover(tab: Tab, action: Any, info: dict[str, Any]) -> None:
    x, y = _xy(tab, action.point)
    tab.sent({"op": "move", "x": x, "y": y})
    tab.page.mouse.move(x, y)


def _drag(tab: Tab, action: Any, info: dict[str, Any]) -> None:
    (x1, y1), (x2, y2) = _xy(tab, action.start, "start"), _xy(tab, action.end, "end")
    duration = hold_s(tab.config, action)
    if tab.config.mobile:
        _touch_drag(tab, x1, y1, x2, y2, duration)
        return
    tab.sent({"op": "drag", "x1": x1, "y1": y1, "x2": x2, "y2": y2, "duration_s": duration})
    mouse = tab.page.mouse
    mouse.move(x1, y1)
    mouse.down()
    steps = _steps(duration)
    for i in range(1, steps + 1):
        _pause(tab, duration / steps)
        mouse.move(x1 + (x2 - x1) * i / steps, y1 + (y2 - y1) * i / steps)
    mouse.up()


def _swipe(tab: Tab, action: Any, info: dict[str, Any]) -> None:
    (x1, y1), (x2, y2) = _xy(tab, action.start, "start"), _xy(tab, action.end, "end")
    _touch_drag(tab, x1, y1, x2, y2, hold_s(tab.config, action))


def _touch_drag(tab: Tab, x1: int, y1: int, x2: int, y2: int, duration: float) -> None:
    # The finger rests at the end point before lifting, so the page does not fling on: a swipe
    # scrolls by exactly its length and the screenshot after it is reproducible.
    tab.sent({"op": "touch_drag", "x1": x1, "y1": y1, "x2": x2, "y2": y2, "duration_s": duration})
    _touch(tab, "touchStart", x1, y1)
    steps = _steps(duration)
    for i in range(1, steps + 1):
        _pause(tab, duration / steps)
        _touch(tab, "touchMove", x1 + (x2 - x1) * i / steps, y1 + (y2 - y1) * i / steps)
    _pause(tab, TOUCH_REST_S)
    _touch(tab, "touchEnd")


def _long_press(tab: Tab, action: Any, info: dict[str, Any]) -> None:
    x, y = _xy(tab, action.point)
    duration = hold_s(tab.config, action)
    kind = "touch" if tab.config.mobile else "mouse"
    tab.sent({"op": "long_press", "x": x, "y": y, "duration_s": duration, "input": kind})
    if tab.config.mobile:
        _touch(tab, "touchStart", x, y)
        _pause(tab, duration)
        _touch(tab, "touchEnd")
        return
    tab.page.mouse.move(x, y)
    tab.page.mouse.down()
    _pause(tab, duration)
    tab.page.mouse.up()


def _scroll(tab: Tab, action: Any, info: dict[str, Any]) -> None:
    # Upstream scrolls 2/3 of the viewport per step; an explicit `amount` is CSS pixels here.
    x, y = _xy(tab, action.point)
    width, height = tab.config.css_viewport()
    vertical = action.direction in ("up", "down")
    dist = action.amount or round((height if vertical else width) * 2 / 3)
    sign = -1 if action.direction in ("up", "left") else 1
    dx, dy = (0, sign * dist) if vertical else (sign * dist, 0)
    tab.sent({"op": "wheel", "x": x, "y": y, "dx": dx, "dy": dy})
    tab.page.mouse.move(x, y)
    tab.page.mouse.wheel(dx, dy)


def _type(tab: Tab, action: Any, info: dict[str, Any]) -> None:
    # As a person types: every character on the keyboard is a key press the page hears (keydown, keypress,
    # input, keyup; Shift held for capitals and symbols), so date and time segments, masks, key-handler
    # widgets and editor shortcuts react as they would. Text no key produces (Chinese, accents, emoji) is
    # committed at once, as an input method does, without key events. Each newline is the Enter key.
    runs = typing_runs(action.content)
    tab.sent({"op": "type", "text": action.content, "enters": action.content.count("\n")})
    keyboard = tab.page.keyboard
    for kind, text in runs:
        if kind == "enter":
            keyboard.press("Enter")
        elif kind == "commit":
            keyboard.insert_text(text)
        elif kind == "shift":
            keyboard.down("Shift")
            try:
                keyboard.type(text)
            finally:
                keyboard.up("Shift")
        else:
            keyboard.type(text)


def _hotkey(tab: Tab, action: Any, info: dict[str, Any]) -> None:
    if len(action.keys) > MAX_HOTKEY_KEYS:
        raise ActionRefused(
            f"Hotkey takes at most {MAX_HOTKEY_KEYS} keys on the browser surface, got {len(action.keys)}."
        )
    combo = "+".join(playwright_key(k) for k in action.keys)
    _press(tab, combo, action.repeat)


def _press(tab: Tab, combo: str, repeat: int = 1) -> None:
    tab.sent({"op": "key", "combo": combo, "repeat": repeat})
    for _ in range(repeat):
        tab.page.keyboard.press(combo)


def _select_option(tab: Tab, action: Any, info: dict[str, Any]) -> None:
    element = _select_target(tab)
    if element is None:
        raise ActionRefused("SelectOption needs a native <select> that was just clicked; click the dropdown first.")
    options = element.evaluate(OPTIONS_JS)
    info["options"] = options
    if action.index >= len(options):
        raise ActionRefused(f"SelectOption index {action.index} is out of range; the <select> has {len(options)} "
                            f"options (0..{len(options) - 1}), listed in info['options'].")  # fmt: skip
    if options[action.index]["disabled"] or element.is_disabled():
        raise ActionRefused(f"Option {action.index} ({options[action.index]['text']!r}) cannot be chosen: "
                            "it or its <select> is disabled.")  # fmt: skip
    tab.sent({"op": "select", "index": action.index})
    element.select_option(index=action.index)
    info["selected"] = options[action.index]


def _select_target(tab: Tab) -> Any:
    handle = tab.page.evaluate_handle(
        "() => document.activeElement?.tagName === 'SELECT' ? document.activeElement : null"
    )
    element = handle.as_element()
    if element is not None:
        return element
    handle.dispose()
    last = tab.last_select
    if last is not None and last.evaluate("s => s.isConnected"):
        return last
    return None


def _launch_url(tab: Tab, action: Any, info: dict[str, Any]) -> None:
    # Upstream opens a new tab; we navigate the current one so PressBack returns and one page is observed.
    tab.open(action.url, "Launch")


def _press_back(tab: Tab, action: Any, info: dict[str, Any]) -> None:
    tab.sent({"op": "back"})
    info["moved"] = tab.page.go_back(wait_until="domcontentloaded") is not None


def _press_home(tab: Tab, action: Any, info: dict[str, Any]) -> None:
    # Browser: the Home key, as upstream (scrolls to the top; inside a text field it moves the caret).
    # Mobile: a browser has no home screen, so Home returns to the episode's start page.
    if not tab.config.mobile:
        _press(tab, "Home")
        return
    tab.open_start()


def _press_enter(tab: Tab, action: Any, info: dict[str, Any]) -> None:
    _press(tab, "Enter")


def _wait(tab: Tab, action: Any, info: dict[str, Any]) -> None:
    seconds = hold_s(tab.config, action)
    tab.sent({"op": "wait", "seconds": seconds})
    _pause(tab, seconds)


def _get_url(tab: Tab, action: Any, info: dict[str, Any]) -> None:
    info["url"] = tab.page.url


def _take_note(tab: Tab, action: Any, info: dict[str, Any]) -> None:
    info["note"] = action.content


def _get_screenshot(tab: Tab, action: Any, info: dict[str, Any]) -> None:
    info["screenshot"] = "The step's observation is the screenshot; nothing else is saved."


def _no_op(tab: Tab, action: Any, info: dict[str, Any]) -> None:
    """Finished / Answer / CallUser: the runner ends the episode; the page is left as it is."""


def _no_apps(tab: Tab, action: Any, info: dict[str, Any]) -> None:
    raise ActionRefused(f"{action.name} needs an Android device; the mobile browser preset has no apps "
                        "or recent-apps screen.")  # fmt: skip


HANDLERS: dict[str, Handler] = {
    "Click": _click, "DoubleClick": _double_click, "TripleClick": _triple_click,
    "RightClick": _right_click, "MiddleClick": _middle_click, "Hover": _hover,
    "Drag": _drag, "Swipe": _swipe, "LongPress": _long_press,
    "Scroll": _scroll, "Type": _type, "Hotkey": _hotkey,
    "SelectOption": _select_option, "Launch": _launch_url, "PressBack": _press_back,
    "PressHome": _press_home, "PressEnter": _press_enter, "Wait": _wait,
    "GetUrl": _get_url, "TakeNote": _take_note, "GetScreenshot": _get_screenshot,
    "Finished": _no_op, "Answer": _no_op, "CallUser": _no_op,
    "LaunchApp": _no_apps, "PressRecent": _no_apps,
}  # fmt: skip


def _steps(duration: float) -> int:
    """Moves in a drag: about one per 30 ms (each move is a round trip to the browser), 5 to 20."""
    return max(5, min(20, round(duration / 0.03)))
