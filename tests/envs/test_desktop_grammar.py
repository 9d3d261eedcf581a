"""Every action of the UI-Venus-2 computer grammar, from reply text to what a real X client receives.

A recorder window (its own X connection, managed and focused by openbox like any app) logs the key, button and
motion events the X server delivers to it. Each reply goes through the computer-grammar parser and the real
DesktopEnv under Xvfb; the test then compares the recorder's events and the server's state (pointer, buttons,
held keys) with what the action means: box= on the 0-999 grid, Swipe amount and axis, KeyDown/KeyUp and
MouseDown/MouseUp held across turns, actions at the cursor, Sequence, Hotkey repeat.
"""

from __future__ import annotations

import threading
import time

import pytest
from Xlib import X, display

from venuskit.actions import coords, parse_response
from venuskit.envs.base import ActionRefused
from venuskit.envs.desktop import DesktopEnv
from venuskit.envs.desktop.keys import keysym_name

pytestmark = [pytest.mark.desktop]

W, H = 1280, 800


class Recorder:
    """A plain X window that records the events it receives (keysyms looked up in its own, refreshed keymap)."""

    def __init__(self, display_name: str) -> None:
        self.d = display.Display(display_name)
        screen = self.d.screen()
        mask = (X.KeyPressMask | X.KeyReleaseMask | X.ButtonPressMask | X.ButtonReleaseMask | X.PointerMotionMask
                | X.FocusChangeMask)  # fmt: skip
        self.win = screen.root.create_window(0, 0, W, H, 0, screen.root_depth, background_pixel=screen.white_pixel,
                                             event_mask=mask)  # fmt: skip
        self.win.set_wm_name("Recorder")
        self.win.set_wm_class("recorder", "Recorder")
        self.win.map()
        self.d.sync()
        self.events: list[tuple] = []
        self._lock = threading.Lock()
        self._stop = False
        threading.Thread(target=self._run, daemon=True).start()

    def _run(self) -> None:
        while not self._stop:
            ev = self.d.next_event()
            if ev.type == X.MappingNotify:
                self.d.refresh_keyboard_mapping(ev)
                continue
            item = None
            if ev.type in (X.KeyPress, X.KeyRelease):
                sym = self.d.keycode_to_keysym(ev.detail, 1 if ev.state & X.ShiftMask else 0)
                sym = sym or self.d.keycode_to_keysym(ev.detail, 0)
                item = ("key", ev.type == X.KeyPress, sym, ev.state)
            elif ev.type in (X.ButtonPress, X.ButtonRelease):
                item = ("button", ev.type == X.ButtonPress, ev.detail, ev.root_x, ev.root_y, ev.state)
            elif ev.type == X.MotionNotify:
                item = ("motion", ev.root_x, ev.root_y, ev.state)
            if item is not None:
                with self._lock:
                    self.events.append(item)

    def take(self, settle_s: float = 0.15) -> list[tuple]:
        time.sleep(settle_s)  # the env has settled; this is the recorder's own connection catching up
        with self._lock:
            out, self.events = self.events, []
        return out

    def close(self) -> None:
        self._stop = True
        self.win.destroy()
        self.d.flush()


@pytest.fixture(scope="module")
def desk():
    env = DesktopEnv()
    env.reset({"goal": "grammar", "windows": []})
    rec = Recorder(env.display)
    deadline = time.time() + 10
    while not any(w.title == "Recorder" for w in env.windows()) and time.time() < deadline:
        time.sleep(0.02)
    rec_id = next(w.id for w in env.windows() if w.title == "Recorder")
    env.x.maximize(rec_id)
    env.x.activate(rec_id)
    env.x.sync()
    time.sleep(0.3)
    yield env, rec
    rec.close()
    env.close()


def act(env: DesktopEnv, reply: str):
    """One UI-Venus-2 action through the computer grammar and the env; returns the StepResult."""
    actions = parse_response(f"<think>t</think><action>{reply}</action>", "computer").actions
    assert len(actions) == 1
    return env.step(actions[0])


def px(g: int, size: int) -> int:
    """A 0-999 grid value to a screen pixel, as the computer surface maps it (divide by 999, clamp)."""
    return coords.to_pixel(coords.from_grid(g, 999), size)


def buttons(events, kind=None):
    return [(e[1], e[2], e[3], e[4]) for e in events if e[0] == "button" and (kind is None or e[2] == kind)]


def keys(events, down=True):
    """Key names ('Control_L', 'c', 'Return', 'U+4F60') of the presses (or releases) the recorder saw."""
    return [keysym_name(e[2]) for e in events if e[0] == "key" and e[1] == down]


def test_pointer_clicks_land_where_the_grid_says(desk):
    env, rec = desk
    rec.take()
    for reply, button, count in (("Click(box=(250, 400))", 1, 1), ("DoubleClick(box=(500, 500))", 1, 2),
                                 ("TripleClick(box=(999, 500))", 1, 3), ("RightClick(box=(100, 900))", 3, 1),
                                 ("MiddleClick(box=(700, 300))", 2, 1)):  # fmt: skip
        r = act(env, reply)
        g = [int(v) for v in reply.split("(", 2)[2].removesuffix("))").split(",")]
        x, y = px(g[0], W), px(g[1], H)
        assert r.error is None, (reply, r.error)
        assert r.info["x"]["pointer"] == [x, y] and r.info["x"]["buttons"] == []
        got = buttons(rec.take())
        assert got == [(True, button, x, y), (False, button, x, y)] * count, reply
        assert r.executed["count"] == count and r.executed["button"] == button


def test_clicks_without_a_box_act_at_the_cursor(desk):
    env, rec = desk
    act(env, "Hover(box=(300, 600))")
    x, y = px(300, W), px(600, H)
    assert [e for e in rec.take() if e[0] == "motion"][-1][1:3] == (x, y)
    r = act(env, "Click()")
    assert r.executed["at_cursor"] and buttons(rec.take()) == [(True, 1, x, y), (False, 1, x, y)]
    r = act(env, "RightClick()")
    assert buttons(rec.take()) == [(True, 3, x, y), (False, 3, x, y)]


def test_drag_presses_moves_and_releases(desk):
    env, rec = desk
    rec.take()
    r = act(env, "Drag(start=(100, 100), end=(800, 700))")
    ev = rec.take()
    (x1, y1), (x2, y2) = (px(100, W), px(100, H)), (px(800, W), px(700, H))
    assert buttons(ev) == [(True, 1, x1, y1), (False, 1, x2, y2)]
    held_moves = [e for e in ev if e[0] == "motion" and e[3] & X.Button1Mask]
    assert len(held_moves) >= 4 and held_moves[-1][1:3] == (x2, y2)  # a glide, not a jump
    assert r.executed["duration_s"] == env.config.drag_duration_s and r.info["x"]["buttons"] == []
    act(env, "Drag(end=(200, 200))")  # from the cursor
    assert buttons(rec.take()) == [(True, 1, x2, y2), (False, 1, px(200, W), px(200, H))]


@pytest.mark.parametrize(("reply", "button", "clicks"), [
    ("Swipe(amount=3, axis='vertical')", 4, 3), ("Swipe(amount=-5, axis='vertical')", 5, 5),
    ("Swipe(amount=2, axis='horizontal')", 7, 2), ("Swipe(amount=-1, axis='horizontal')", 6, 1),
])  # fmt: skip
def test_swipe_scrolls_wheel_clicks_at_the_cursor(desk, reply, button, clicks):
    env, rec = desk
    act(env, "Hover(box=(400, 400))")
    rec.take()
    r = act(env, reply)
    got = buttons(rec.take())
    x, y = px(400, W), px(400, H)
    assert got == [(True, button, x, y), (False, button, x, y)] * clicks  # +vertical is up (button 4)
    assert r.executed["clicks"] == clicks


def test_type_sends_each_character_with_shift_and_chinese(desk):
    env, rec = desk
    rec.take()
    r = act(env, "Type(content='aZ 9你好é\\n')")
    assert r.error is None
    ev = rec.take()
    pressed = [e for e in ev if e[0] == "key" and e[1]]
    assert [k for k in keys(ev) if k != "Shift_L"] == ["a", "Z", "space", "9", "U+4F60", "U+597D", "eacute", "Return"]
    shifted = next(e for e in pressed if e[2] == ord("Z"))
    assert shifted[3] & X.ShiftMask  # the recorder saw Z with Shift down, as a keyboard sends it
    assert r.info["x"]["keys"] == []  # nothing left pressed


def test_hotkey_holds_modifiers_and_repeats(desk):
    env, rec = desk
    rec.take()
    act(env, "Hotkey(keys=['ctrl', 'c'])")
    ev = rec.take()
    c_press = next(e for e in ev if e[0] == "key" and e[1] and e[2] == ord("c"))
    assert c_press[3] & X.ControlMask
    assert keys(ev) == ["Control_L", "c"] and keys(ev, down=False) == ["c", "Control_L"]
    act(env, "Hotkey(keys=['down'], repeat=4)")
    assert keys(rec.take()) == ["Down"] * 4


def test_keydown_is_held_across_turns_until_keyup(desk):
    env, rec = desk
    rec.take()
    r = act(env, "KeyDown(keys=['shift'])")
    assert r.info["x"]["keys"] == ["Shift_L"]
    r = act(env, "Click(box=(600, 600))")  # a shift-click, one turn later
    assert r.info["x"]["keys"] == ["Shift_L"]
    press = next(e for e in rec.take() if e[0] == "button" and e[1])
    assert press[5] & X.ShiftMask
    r = act(env, "Type(content='b')")  # typing with shift held gives the shifted letter
    assert [e[2] for e in rec.take() if e[0] == "key" and e[1]] == [ord("B")]
    r = act(env, "KeyUp(keys=['shift'])")
    assert r.info["x"]["keys"] == [] and keys(rec.take(), down=False) == ["Shift_L"]
    r = act(env, "KeyUp(keys=['shift'])")
    assert isinstance(r.error, ActionRefused) and "not held" in str(r.error)


def test_mouse_down_and_up_hold_the_button_across_turns(desk):
    env, rec = desk
    rec.take()
    r = act(env, "MouseDown(box=(200, 300))")
    assert r.info["x"]["buttons"] == [1]
    r = act(env, "Hover(box=(500, 500))")  # moving with the button held: a drag over two turns
    assert r.info["x"]["buttons"] == [1]
    r = act(env, "Click(box=(10, 10))")
    assert isinstance(r.error, ActionRefused) and r.info["x"]["buttons"] == [1]
    r = act(env, "MouseUp(box=(800, 500))")
    ev = rec.take()
    assert buttons(ev) == [(True, 1, px(200, W), px(300, H)), (False, 1, px(800, W), px(500, H))]
    assert any(e[0] == "motion" and e[3] & X.Button1Mask for e in ev) and r.info["x"]["buttons"] == []
    r = act(env, "MouseUp()")
    assert isinstance(r.error, ActionRefused)
    act(env, "MouseDown()")  # at the cursor
    act(env, "MouseUp()")
    assert buttons(rec.take()) == [(True, 1, px(800, W), px(500, H)), (False, 1, px(800, W), px(500, H))]


def test_sequence_runs_children_open_loop(desk):
    env, rec = desk
    rec.take()
    r = act(env, "Sequence(actions=[Click(box=(100, 100)), Type(content='x'), Hotkey(keys=['enter'])])")
    ev = rec.take()
    assert buttons(ev)[:2] == [(True, 1, px(100, W), px(100, H)), (False, 1, px(100, W), px(100, H))]
    assert keys(ev) == ["x", "Return"]
    assert [c["op"] for c in r.executed["children"]] == ["click", "type", "key"]


def test_wait_and_terminal_actions_send_no_input(desk):
    env, rec = desk
    rec.take()
    t0 = time.perf_counter()
    r = act(env, "Wait()")
    assert time.perf_counter() - t0 >= env.config.wait_default_s and r.executed["op"] == "wait"
    for reply in ("Finished(content='done')", "CallUser(content='help')"):
        assert act(env, reply).error is None
    assert [e for e in rec.take() if e[0] in ("key", "button")] == []


def test_clamped_grid_and_refused_actions(desk):
    env, rec = desk
    r = act(env, "Hover(box=(1200, -5))")  # the computer grid clamps out-of-range values
    assert r.info["x"]["pointer"] == [W - 1, 0]
    r = act(env, "Hotkey(keys=['nosuchkey'])")
    assert isinstance(r.error, ActionRefused) and "Unknown key" in str(r.error)
    from venuskit.actions.types import LaunchApp

    r = env.step(LaunchApp(app="Files"))
    assert isinstance(r.error, ActionRefused) and "computer surface" in str(r.error)
