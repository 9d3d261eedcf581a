"""One handler per computer-grammar action: XTest input, plus what it did in screen pixels (the step's `executed`).

Semantics follow the upstream computer harness (reference/ui-venus.md §2.3): pointer actions without `box` act at
the current cursor; Swipe scrolls `amount` wheel clicks at the cursor (+vertical = up); Drag holds for a fixed
0.5 s; KeyDown/KeyUp and MouseDown/MouseUp hold input across turns. Input the env refuses (releasing a key that is
not held, pressing a button that is already down) is an ActionRefused the agent reads as feedback.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from venuskit.actions import coords
from venuskit.actions.types import Action, Point
from venuskit.envs.base import ActionRefused
from venuskit.envs.desktop.keys import char_keysym, keysym_name, keysym_of

if TYPE_CHECKING:
    from venuskit.envs.desktop.env import DesktopEnv

Handler = Callable[["DesktopEnv", Any], dict[str, Any]]
LEFT, MIDDLE, RIGHT = 1, 2, 3
WHEEL = {"up": 4, "down": 5, "left": 6, "right": 7}  # X buttons of the scroll wheel
DEFAULT_WHEEL_CLICKS = 5  # a Scroll without amount (other dialects); the computer grammar always gives one
DRAG_MOVE_S = 0.025  # one pointer move per 25 ms during a drag: apps see a continuous motion, not a jump


def _xy(env: DesktopEnv, point: Point | None) -> tuple[int, int]:
    """Screen pixels of `point`, or the cursor's position when the action acts at the cursor."""
    if point is None:
        return env.cursor
    w, h = env.size
    return coords.point_to_pixels(point.as_tuple(), w, h)


def _no_held_button(env: DesktopEnv, what: str) -> None:
    if env.held_buttons:
        raise ActionRefused(f"{what} needs the mouse buttons up, but the left button is held down (MouseDown); "
                            "release it with MouseUp first.")  # fmt: skip


def click(env: DesktopEnv, a: Any, button: int = LEFT, count: int = 1) -> dict[str, Any]:
    _no_held_button(env, a.name)
    x, y = _xy(env, a.point)
    env.move(x, y)
    for _ in range(count):
        env.x.button(button, True)
        env.x.button(button, False)
    return {"op": "click", "x": x, "y": y, "button": button, "count": count, "at_cursor": a.point is None}


def double_click(env: DesktopEnv, a: Any) -> dict[str, Any]:
    return click(env, a, count=2)


def triple_click(env: DesktopEnv, a: Any) -> dict[str, Any]:
    return click(env, a, count=3)


def right_click(env: DesktopEnv, a: Any) -> dict[str, Any]:
    return click(env, a, button=RIGHT)


def middle_click(env: DesktopEnv, a: Any) -> dict[str, Any]:
    return click(env, a, button=MIDDLE)


def hover(env: DesktopEnv, a: Any) -> dict[str, Any]:
    x, y = _xy(env, a.point)
    env.move(x, y)
    return {"op": "move", "x": x, "y": y}


def mouse_down(env: DesktopEnv, a: Any) -> dict[str, Any]:
    _no_held_button(env, "MouseDown")
    x, y = _xy(env, a.point)
    env.move(x, y)
    env.x.button(LEFT, True)
    env.held_buttons.add(LEFT)
    return {"op": "mouse_down", "x": x, "y": y, "button": LEFT, "at_cursor": a.point is None}


def mouse_up(env: DesktopEnv, a: Any) -> dict[str, Any]:
    if LEFT not in env.held_buttons:
        raise ActionRefused("MouseUp releases a button held by MouseDown, but no button is held.")
    x, y = _xy(env, a.point)
    if (x, y) != env.cursor:
        _glide(env, env.cursor, (x, y), 0.0)
    env.x.button(LEFT, False)
    env.held_buttons.discard(LEFT)
    return {"op": "mouse_up", "x": x, "y": y, "button": LEFT, "at_cursor": a.point is None}


def drag(env: DesktopEnv, a: Any) -> dict[str, Any]:
    _no_held_button(env, "Drag")
    x1, y1 = _xy(env, a.start)
    x2, y2 = _xy(env, a.end)
    env.move(x1, y1)
    env.x.button(LEFT, True)
    env.x.sync()
    duration = env.config.drag_duration_s
    _glide(env, (x1, y1), (x2, y2), duration)
    env.x.button(LEFT, False)
    return {"op": "drag", "x1": x1, "y1": y1, "x2": x2, "y2": y2, "duration_s": duration,
            "from_cursor": a.start is None}  # fmt: skip


def _glide(env: DesktopEnv, start: tuple[int, int], end: tuple[int, int], duration: float) -> None:
    """Move the pointer from start to end in small steps over `duration` seconds (at least a few moves, so a
    window manager or toolkit sees a drag rather than a jump)."""
    steps = max(4, round(duration / DRAG_MOVE_S))
    for i in range(1, steps + 1):
        if duration:
            time.sleep(duration / steps)
        env.move(round(start[0] + (end[0] - start[0]) * i / steps), round(start[1] + (end[1] - start[1]) * i / steps))
        env.x.sync()


def scroll(env: DesktopEnv, a: Any) -> dict[str, Any]:
    x, y = _xy(env, a.point)
    if a.point is not None:
        env.move(x, y)
    clicks = a.amount or DEFAULT_WHEEL_CLICKS
    button = WHEEL[a.direction]
    for _ in range(clicks):
        env.x.button(button, True)
        env.x.button(button, False)
    return {"op": "wheel", "x": x, "y": y, "direction": a.direction, "clicks": clicks, "button": button}


def type_text(env: DesktopEnv, a: Any) -> dict[str, Any]:
    """Each character as a key press and release (Shift where the keymap needs it); '\\n' is Enter. Characters
    no key produces get a spare keycode (see xclient)."""
    shift = env.x.shift_keycode()
    shift_held = any(name.startswith("Shift") for name in env.held_keys)
    for ch in a.content:
        keycode, needs_shift = env.x.keycode(char_keysym(ch))
        if needs_shift and not shift_held:
            env.x.key(shift, True)
        env.x.key(keycode, True)
        env.x.key(keycode, False)
        if needs_shift and not shift_held:
            env.x.key(shift, False)
    return {"op": "type", "text": a.content, "chars": len(a.content), "enters": a.content.count("\n")}


def _codes(env: DesktopEnv, names: tuple[str, ...]) -> list[tuple[str, int, bool]]:
    """(keysym name, keycode, needs Shift) per key; every name is checked before any key is pressed."""
    out = []
    for n in names:
        sym = keysym_of(n)
        kc, shift = env.x.keycode(sym)
        out.append((keysym_name(sym), kc, shift))
    return out


def hotkey(env: DesktopEnv, a: Any) -> dict[str, Any]:
    keys = _codes(env, a.keys)
    shift = env.x.shift_keycode()
    if any(s for _, _, s in keys) and all(kc != shift for _, kc, _ in keys):
        keys.insert(len(keys) - 1, ("Shift_L", shift, False))  # e.g. ctrl+'+' is ctrl+shift+'=' on this keymap
    fresh = [(n, kc) for n, kc, _ in keys if n not in env.held_keys]  # a key KeyDown holds stays held
    for _ in range(a.repeat):
        for _, kc in fresh:
            env.x.key(kc, True)
        # Released only once the window manager has handled the press: one that grabs the keyboard on a
        # shortcut (openbox's alt+tab) must find the modifiers still down when its grab starts, as with fingers.
        if env.config.window_manager:
            env.x.wm_sync(env.config.ping_timeout_s)
        if env.config.key_hold_s:
            time.sleep(env.config.key_hold_s)
        for _, kc in reversed(fresh):
            env.x.key(kc, False)
    return {"op": "key", "keys": [n for n, _, _ in keys], "repeat": a.repeat}


def key_down(env: DesktopEnv, a: Any) -> dict[str, Any]:
    keys = _codes(env, a.keys)
    for name, kc, _ in keys:
        if name not in env.held_keys:
            env.x.key(kc, True)
            env.held_keys[name] = kc
    return {"op": "key_down", "keys": [n for n, _, _ in keys], "held": list(env.held_keys)}


def key_up(env: DesktopEnv, a: Any) -> dict[str, Any]:
    keys = _codes(env, a.keys)
    loose = [n for n, _, _ in keys if n not in env.held_keys]
    if loose:
        held = ", ".join(env.held_keys) or "none"
        raise ActionRefused(f"KeyUp releases keys held by KeyDown; {', '.join(loose)} is not held (held: {held}).")
    for name, kc, _ in keys:
        env.x.key(kc, False)
        del env.held_keys[name]
    return {"op": "key_up", "keys": [n for n, _, _ in keys], "held": list(env.held_keys)}


def wait(env: DesktopEnv, a: Any) -> dict[str, Any]:
    seconds = min(a.seconds or env.config.wait_default_s, env.config.max_wait_s)
    time.sleep(seconds)
    return {"op": "wait", "seconds": seconds}


def no_op(env: DesktopEnv, a: Any) -> dict[str, Any]:
    """Finished / CallUser / Answer: the runner ends the episode; the desktop is left as it is."""
    return {"op": "none"}


def sequence(env: DesktopEnv, a: Any) -> dict[str, Any]:
    """Children run open-loop, one after another, with no screenshot in between."""
    done = []
    for child in a.actions:
        done.append(HANDLERS[child.name](env, child))
        env.x.sync()
    return {"op": "sequence", "children": done}


def run(env: DesktopEnv, action: Action) -> dict[str, Any]:
    return HANDLERS[action.name](env, action)


HANDLERS: dict[str, Handler] = {
    "Click": click, "DoubleClick": double_click, "TripleClick": triple_click, "RightClick": right_click,
    "MiddleClick": middle_click, "Hover": hover, "MouseDown": mouse_down, "MouseUp": mouse_up, "Drag": drag,
    "Scroll": scroll, "Type": type_text, "Hotkey": hotkey, "KeyDown": key_down, "KeyUp": key_up, "Wait": wait,
    "Sequence": sequence, "Finished": no_op, "CallUser": no_op, "Answer": no_op,
}  # fmt: skip
