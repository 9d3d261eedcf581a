"""Scripted solutions for desktop tasks, written as steps that become computer-grammar actions.

The oracle may read the live desktop's facts (window titles and geometry from the X server, as
`DesktopEnv.facts()` returns them) to find where to click; a policy never sees them. What it emits are ordinary
actions (Click, Drag, Hotkey, Type, KeyDown, ...), executed by the real env and recorded like any model's.

Steps (every argument a string; KEYS like "ctrl+shift+s"):

    ["click" | "double_click" | "triple_click" | "right_click" | "middle_click" | "hover", TARGET]
    ["drag", FROM, TO]              Drag (FROM "cursor": from where the pointer is)
    ["mouse_down", TARGET?], ["mouse_up", TARGET?]
    ["scroll", AMOUNT, AXIS]        Swipe(amount, axis) at the cursor: +vertical is up
    ["key", KEYS, REPEAT?]          Hotkey
    ["key_down", KEYS], ["key_up", KEYS]
    ["type", TEXT]                  Type ("\\n" presses Enter)
    ["wait", SECONDS?]              Wait
    ["wait_window", TITLE, "gone"?] Wait until a window whose title holds TITLE is open and shows something (or
                                    is gone); no action when it already is
    ["wait_file", PATH]             Wait until PATH (relative to the home folder) exists whole (a download: no
                                    partial `.crdownload` beside it); no action when it already does
    ["key_until", KEYS, TITLE]      Hotkey, then wait until a window titled TITLE is open; press again (at most
                                    3 times) if it does not come: a save whose ctrl+s landed while a dialog was
                                    closing, seen as the title losing its '*' ("=TITLE" matches exactly)
    ["seq", STEP, STEP, ...]        Sequence of the steps' actions (targets resolved together, open-loop)
    ["finish", TEXT?], ["call_user", TEXT]

TARGET: "window:TITLE" (the centre of the window's own area), "window:TITLE@FX,FY" (fractions of that area),
"window:TITLE@px=DX,DY" (pixels from its top-left; negative: from the right / bottom edge), "titlebar:TITLE",
"button:TITLE:close|maximize|iconify" (title bar buttons), "corner:TITLE" (bottom-right resize corner),
"screen@FX,FY", "desktop" (a spot of background no window covers), "cursor" (where the pointer is). TITLE matches
case-insensitively as a substring ("=TITLE": the whole title, exactly); "focused" is the focused window.

Positions inside an app's window (a list row, a dialog's field) are pixel offsets from its top-left: the desktop's
theme, fonts and screen size are fixed, so they hold; the catalog says what each one is next to its oracle.
"""

from __future__ import annotations

from collections import deque
from pathlib import Path
from typing import Any

from venuskit.actions import coords
from venuskit.actions.types import (
    Action,
    CallUser,
    Click,
    DoubleClick,
    Drag,
    Finished,
    Hotkey,
    Hover,
    KeyDown,
    KeyUp,
    MiddleClick,
    MouseDown,
    MouseUp,
    Point,
    RightClick,
    Scroll,
    Sequence,
    TripleClick,
    Type,
    Wait,
)

WAIT_WINDOW_S = 0.5
MAX_WINDOW_WAITS = 20  # 20 waits, each 0.1 s longer than the last: about 29 s for a window to open or close
# Each wait is a little longer than the one before: a page that loads slowly on a busy machine needs more than a
# few polls, and the runner ends an episode after five identical actions (an agent stuck in a loop).
WAIT_STEP_S = 0.1
KEY_UNTIL_WAITS, KEY_UNTIL_PRESSES = 4, 3  # 2 s after each press, three presses
# A download that has not even begun (no partial file) after this many waits (about 5 s) was never started: the
# click on its link was lost (a page not yet taking input on a loaded machine); it is clicked again, twice at most.
FILE_CLICK_AGAIN_WAITS, FILE_CLICK_AGAINS = 6, 2
_BUTTONS = {"close": 10, "maximize": 27, "iconify": 43}  # pixels from the frame's right edge
_CLICKS = {"click": Click, "double_click": DoubleClick, "triple_click": TripleClick, "right_click": RightClick,
           "middle_click": MiddleClick}  # fmt: skip


class OracleError(RuntimeError):
    """The oracle could not carry out a step (no such window, a window that never opened); names the step."""


class DesktopOracle:
    """Yields the next (thought, action) for the desktop as it is now (its facts)."""

    def __init__(self, steps: tuple[tuple[Any, ...], ...]) -> None:
        self.steps = deque(steps)
        self.done = False
        self._waits = self._presses = self._clicks_again = self._unstarted = 0
        self._last_click: tuple[Any, ...] | None = None  # the last click step carried out

    def next(self, facts: dict[str, Any]) -> tuple[str, Action]:
        while self.steps:
            step = self.steps[0]
            planned = self._plan(step, facts)
            if planned is None:  # a wait_window that already holds: no action
                self.steps.popleft()
                continue
            if step[0] not in ("wait_window", "wait_file", "key_until"):
                self.steps.popleft()
                self._last_click = step if step[0] in _CLICKS else None
            return planned
        self.done = True
        return "Everything the task asked for is done.", Finished(content="Done.")

    def _plan(self, step: tuple[Any, ...], facts: dict[str, Any]) -> tuple[str, Action] | None:
        op, args = step[0], step[1:]
        if op == "wait_window":
            return self._wait_window(args, facts, step)
        if op == "wait_file":
            return self._wait_file(args[0], facts, step)
        if op == "key_until":
            return self._key_until(args, facts, step)
        if op == "seq":
            children = [self._action(s, facts) for s in args]
            return "Do several things in one go: " + "; ".join(t for t, _ in children), Sequence(
                actions=tuple(a for _, a in children))
        return self._action(step, facts)

    def _wait_window(self, args: tuple[str, ...], facts: dict[str, Any],
                     step: tuple[Any, ...]) -> tuple[str, Action] | None:  # fmt: skip
        gone = len(args) > 1 and args[1] == "gone"
        win = _find(facts, args[0])
        present = win is not None and (gone or win.get("painted", True))
        if present != gone:
            self._waits = 0
            return None
        self._waits += 1
        if self._waits > MAX_WINDOW_WAITS:
            state = "close" if gone else "open"
            raise OracleError(f"Oracle step {list(step)}: the window {args[0]!r} did not {state} within "
                              f"{MAX_WINDOW_WAITS} waits; windows: {_titles(facts)}.")  # fmt: skip
        seconds = round(WAIT_WINDOW_S + WAIT_STEP_S * (self._waits - 1), 2)
        return f"Wait for the {args[0]} window.", Wait(seconds=seconds)

    def _wait_file(self, rel: str, facts: dict[str, Any], step: tuple[Any, ...]) -> tuple[str, Action] | None:
        windows = _file_as_window(facts, rel)
        self._unstarted = 0 if windows or _partial(facts, rel) else self._unstarted + 1
        if (self._unstarted > FILE_CLICK_AGAIN_WAITS and self._last_click is not None
                and self._clicks_again < FILE_CLICK_AGAINS):  # fmt: skip
            self._clicks_again += 1
            self._waits = self._unstarted = 0
            thought, action = self._action(self._last_click, facts)
            return f"The download has not started; click again: {thought}", action
        return self._wait_window((f"file:{rel}",), {**facts, "windows": windows}, step)

    def _key_until(self, args: tuple[str, ...], facts: dict[str, Any],
                   step: tuple[Any, ...]) -> tuple[str, Action] | None:  # fmt: skip
        if self._presses and _find(facts, args[1]) is not None:
            self._presses = self._waits = 0
            return None
        if self._presses == 0 or self._waits >= KEY_UNTIL_WAITS:
            if self._presses >= KEY_UNTIL_PRESSES:
                raise OracleError(f"Oracle step {list(step)}: no window {args[1]!r} after pressing {args[0]} "
                                  f"{self._presses} times; windows: {_titles(facts)}.")  # fmt: skip
            self._presses, self._waits = self._presses + 1, 0
            return f"Press {args[0]}.", Hotkey(keys=_keys(args[0]))
        self._waits += 1
        return f"Wait for {args[1]}.", Wait(seconds=WAIT_WINDOW_S)

    def _action(self, step: tuple[Any, ...], facts: dict[str, Any]) -> tuple[str, Action]:
        op, args = step[0], step[1:]
        if op in _CLICKS:
            return f"{op.replace('_', ' ').capitalize()} {args[0]}.", _CLICKS[op](point=self._target(args[0], facts))
        if op == "hover":
            return f"Move the pointer to {args[0]}.", Hover(point=self._target(args[0], facts, need=True))
        if op == "drag":
            end = self._target(args[1], facts, need=True)
            return f"Drag from {args[0]} to {args[1]}.", Drag(start=self._target(args[0], facts), end=end)
        if op in ("mouse_down", "mouse_up"):
            point = self._target(args[0], facts) if args else None
            return f"{'Press' if op == 'mouse_down' else 'Release'} the mouse button.", (
                MouseDown(point=point) if op == "mouse_down" else MouseUp(point=point))
        if op == "scroll":
            amount, axis = int(args[0]), args[1]
            direction = {("vertical", True): "up", ("vertical", False): "down", ("horizontal", True): "right",
                         ("horizontal", False): "left"}[(axis, amount > 0)]  # fmt: skip
            return f"Scroll {direction}.", Scroll(direction=direction, amount=abs(amount))
        if op == "key":
            repeat = int(args[1]) if len(args) > 1 else 1
            return f"Press {args[0]}" + (f" {repeat} times." if repeat > 1 else "."), Hotkey(
                keys=_keys(args[0]), repeat=repeat)
        if op == "key_down":
            return f"Hold {args[0]} down.", KeyDown(keys=_keys(args[0]))
        if op == "key_up":
            return f"Release {args[0]}.", KeyUp(keys=_keys(args[0]))
        if op == "type":
            return f"Type {args[0]!r}.", Type(content=args[0])
        if op == "wait":
            return "Wait for it to finish.", Wait(seconds=float(args[0]) if args else None)
        if op == "finish":
            return "The task is complete.", Finished(content=args[0] if args else "Done.")
        if op == "call_user":
            return "I cannot do this without the user.", CallUser(content=args[0])
        raise OracleError(f"Oracle step {list(step)}: {op!r} cannot be part of a sequence.")

    def _target(self, target: str, facts: dict[str, Any], need: bool = False) -> Point | None:
        """A TARGET string to a normalised point of the screen (None: at the cursor)."""
        sw, sh = facts["screen"]
        if target == "cursor":
            if need:
                raise OracleError("This step needs a place on screen, not 'cursor'.")
            return None
        x, y = _resolve(target, facts)
        return Point(*coords.point_from_pixels(min(max(x, 0), sw - 1), min(max(y, 0), sh - 1), sw, sh))


def _file_as_window(facts: dict[str, Any], rel: str) -> list[dict[str, Any]]:
    """A finished file in the home folder (`facts["home"]`, which the oracle's policy adds) as a pseudo-window, so
    waiting for it is waiting for a window (and reports the same way)."""
    home = facts.get("home")
    if home is None:
        raise OracleError("wait_file needs the home folder in the facts (DesktopOraclePolicy adds it).")
    p = Path(home) / rel
    done = p.is_file() and not p.with_name(p.name + ".crdownload").exists()
    return [{"title": f"file:{rel}", "focused": False, "hidden": False, "painted": True}] if done else []


def _partial(facts: dict[str, Any], rel: str) -> bool:
    """A partial download is in PATH's folder: Chromium's `*.crdownload` (`Unconfirmed N.crdownload` before it is
    named) or its `.com.google.Chrome.*` temporary."""
    folder = (Path(facts["home"]) / rel).parent
    return any(folder.glob("*.crdownload")) or any(folder.glob(".com.google.Chrome.*"))


def _keys(spec: str) -> tuple[str, ...]:
    return tuple(k for k in spec.split("+") if k) if spec != "+" else ("+",)


def _titles(facts: dict[str, Any]) -> list[str]:
    return [w["title"] for w in facts.get("windows", [])]


def _find(facts: dict[str, Any], title: str) -> dict[str, Any] | None:
    wins = facts.get("windows", [])
    if title == "focused":
        return next((w for w in wins if w["focused"]), None)
    if title.startswith("="):
        return next((w for w in wins if w["title"] == title[1:] and not w["hidden"]), None)
    matches = [w for w in wins if title.casefold() in w["title"].casefold() and not w["hidden"]]
    return next((w for w in matches if w["focused"]), matches[-1] if matches else None)


def _window(facts: dict[str, Any], title: str) -> dict[str, Any]:
    win = _find(facts, title)
    if win is None:
        raise OracleError(f"No window titled like {title!r}; windows: {_titles(facts)}.")
    return win


def _resolve(target: str, facts: dict[str, Any]) -> tuple[float, float]:
    sw, sh = facts["screen"]
    kind, _, rest = target.partition(":")
    if target.startswith("screen@"):
        fx, fy = (float(v) for v in target.split("@", 1)[1].split(","))
        return fx * sw, fy * sh
    if target == "desktop":
        return _free_spot(facts)
    if kind == "window":
        title, _, where = rest.partition("@")
        cx, cy, cw, ch = _window(facts, title)["client"]
        if not where:
            return cx + cw / 2, cy + ch / 2
        if where.startswith("px="):
            dx, dy = (float(v) for v in where[3:].split(","))
            return (cx + dx if dx >= 0 else cx + cw + dx), (cy + dy if dy >= 0 else cy + ch + dy)
        fx, fy = (float(v) for v in where.split(","))
        return cx + fx * cw, cy + fy * ch
    if kind == "titlebar":
        w = _window(facts, rest)
        fx, fy, fw, _ = w["frame"]
        return fx + fw / 2, (fy + w["client"][1]) / 2
    if kind == "button":  # the title bar's buttons, right to left: close, maximize, iconify (openbox's NLIMC)
        title, _, which = rest.rpartition(":")
        w = _window(facts, title)
        fx, fy, fw, _ = w["frame"]
        return fx + fw - _BUTTONS[which], (fy + w["client"][1]) / 2
    if kind == "corner":
        fx, fy, fw, fh = _window(facts, rest)["frame"]
        return fx + fw - 2, fy + fh - 2
    raise OracleError(f"Unknown target {target!r}; see venuskit.tasks.desktop.oracle for the forms.")


def _free_spot(facts: dict[str, Any]) -> tuple[float, float]:
    """A point on the desktop background: the first grid point that no visible window covers."""
    sw, sh = facts["screen"]
    frames = [w["frame"] for w in facts.get("windows", []) if not w["hidden"]]
    for fy in (0.95, 0.5, 0.05):
        for fx in (0.95, 0.05, 0.5, 0.75, 0.25):
            x, y = fx * sw, fy * sh
            if not any(a <= x < a + w and b <= y < b + h for a, b, w, h in frames):
                return x, y
    raise OracleError("No free spot on the desktop: windows cover the whole background.")
