"""DesktopEnv: the computer surface on a real X server (Xvfb) with a window manager and real Debian apps.

One env is one X server, kept alive across episodes. `reset(task)` returns the desktop to the task's snapshot:
it kills the previous episode's apps, restores the home folder (a tmpfs copy of the snapshot), starts the apps the
task names with their files, places and focuses their windows, and waits until the screen has stopped changing.
Keeping Xvfb, the bus and the window manager alive is what makes a reset cost about one app start rather than a
VM restore.

The task dict (built by venuskit.tasks.desktop; the env knows nothing of tasks):

    {"goal": "...",
     "home": "/path/to/snapshot",       # copied over the home skeleton; None: the skeleton only
     "windows": [{"app": "mousepad", "args": ["notes.txt"], "geometry": "max"}],  # left, right, max, center,
                                        # or [x, y, w, h] as fractions of the screen
     "focus": -1}                       # which window has the focus (index into windows)

Every step is checked against the X server: after the action, the pointer must be where the action put it, the
buttons and keys the server holds must be exactly those held by MouseDown / KeyDown, and the focused window is
read back. `StepResult.info["x"]` records that state; a mismatch is an `InputNotSeen` error.

Errors follow the browser env: `step()` returns recoverable errors in `StepResult.error` with a valid
observation. The X server dying (or hanging: a watchdog kills it) is `DesktopCrashed`: the env starts a new
server, window manager and the task's apps on the home folder as it is on disk (unsaved edits are lost, as they
would be). An app of the task that dies by a signal or an error exit is `AppCrashed`: it is started again with its
files. An app the agent closes (exit status 0) is not a crash. In both cases the action that was planned on the old
screen is not run.
"""

from __future__ import annotations

import os
import shutil
import signal
import subprocess
import time
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Self

from Xlib import X, error

from venuskit.actions.surfaces import get_surface
from venuskit.actions.types import Action
from venuskit.envs.base import ActionRefused, ActionTimeout, EnvError, Observation, StepResult
from venuskit.envs.desktop import handlers
from venuskit.envs.desktop.apps import AppSpec, get_app
from venuskit.envs.desktop.config import DesktopConfig
from venuskit.envs.desktop.home import restore_home, windows_of, write_skeleton
from venuskit.envs.desktop.keys import keysym_name
from venuskit.envs.desktop.xclient import BUTTON_MASKS, Window, XClient
from venuskit.envs.desktop.xserver import XSession, encode_png, spawn, stop, sweep_stale_roots, temp_base
from venuskit.infra import proc
from venuskit.infra.proc import Watchdog

QUIET_S = 0.005  # a repaint is finished when no more drawing is reported for this long
RESET_QUIET_S = 0.1  # after starting apps: they paint in several passes (window, then contents, then fonts)
# A browser paints a page some time after its title is set (layout, fonts, images), in a process X does not ping.
LOADING_QUIET_S = 0.6
INPUT_TIMEOUT_S = 2.0  # cap on waiting for the server to process an action's input
_X_GONE = (error.ConnectionClosedError, BrokenPipeError, ConnectionResetError, OSError)


class WindowManagerStuck(EnvError):
    """Openbox runs (or ran) but never managed a probe window, even after a restart."""


class DesktopCrashed(EnvError):
    """The X server died or hung; the env started a new one with the task's apps on the files as saved."""

    kind = "DesktopCrashed"


class AppCrashed(EnvError):
    """An app of the task died (a signal or an error exit); the env started it again."""

    kind = "AppCrashed"


class InputNotSeen(EnvError):
    """After an action, the X server's pointer, buttons or keys are not what the action should have left."""

    kind = "InputNotSeen"


@dataclass
class _App:
    spec: AppSpec
    args: tuple[str, ...]
    geometry: Any
    popen: subprocess.Popen
    window: int = 0


class DesktopEnv:
    """The computer surface. Use as a context manager or call close()."""

    surface = "computer"

    def __init__(self, config: DesktopConfig | None = None) -> None:
        self.config = config or DesktopConfig()
        self.size = self.config.screen
        self.session: XSession | None = None
        self.x: XClient = None  # type: ignore[assignment]  # set by _start
        self.cursor = (self.size[0] // 2, self.size[1] // 2)  # where the env last put the pointer
        self.held_keys: dict[str, int] = {}  # keysym name -> keycode, held by KeyDown across steps
        self.held_buttons: set[int] = set()
        self._apps: list[_App] = []
        self._task: dict[str, Any] | None = None
        self._skeleton: Path | None = None
        self._watchdog = Watchdog(self._kill_x, name="venuskit-desktop-watchdog")  # a hung X server never answers
        self._closed = False

    # ---- public API ------------------------------------------------------------------------------------

    @property
    def home(self) -> Path:
        """The episode's home folder (checks read files here; the policy never sees the path)."""
        if self.session is None:
            raise EnvError("The desktop env has not started; call reset(task) first.")
        return self.session.home

    @property
    def start_home(self) -> Path:
        """A copy of the home folder as this episode started (outside the home folder, for checks only)."""
        return self.home.parent / "start"

    @property
    def display(self) -> str:
        return self.session.display if self.session is not None else ""

    def reset(self, task: dict[str, Any]) -> Observation:
        """Start an episode from the task's snapshot. Raises EnvError subclasses."""
        windows = windows_of(task)
        self._require_open()
        if self.session is None or not self.session.alive():
            self._start()
        try:
            self._guarded(self._clear, self.config.action_timeout_s + 5, "reset")
            self._restore_home(task.get("home"), task.get("config") or [])
            self._task = {**task, "windows": windows}
            self._guarded(lambda: self._open_windows(windows, task.get("focus", -1)),
                          self.config.launch_timeout_s + 5, "reset")  # fmt: skip
            return self._guarded(self._observe_started, self.config.launch_timeout_s, "reset")
        except (ActionTimeout, DesktopCrashed):
            self._teardown()  # the next reset starts a fresh X server
            raise

    def step(self, action: Action) -> StepResult:
        """Run one action; recoverable errors come back in `StepResult.error` (see the module docstring)."""
        self._require_episode()
        info: dict[str, Any] = {}
        gone = self._health(info)
        if gone is not None:  # the action was planned on a screen that no longer exists: do not run it
            return StepResult(observation=self._observe_after_recovery(info), info=info, error=gone)
        refused = self._refusal(action)
        if refused is not None:
            return StepResult(observation=self.observe(), info=info, error=refused)
        executed, error_ = None, None
        try:
            executed, error_ = self._guarded(lambda: self._act(action), self._budget(action), action.name)
            obs = self._guarded(self._observe, self.config.action_timeout_s + self.config.settle_max_s, action.name)
            # Read back after the repaint: a window manager's synchronous button grab holds input events until
            # it replays them, so right after the action the server may not have processed a release yet.
            info["x"] = self._guarded(lambda: self._x_state(obs.title), self.config.action_timeout_s, action.name)
            error_ = error_ or self._verify(info["x"])
        except (ActionTimeout, DesktopCrashed) as e:
            error_ = e
            obs = self._observe_after_recovery(info)
        return StepResult(observation=obs, executed=executed, info=info, error=error_)

    def observe(self) -> Observation:
        """A fresh screenshot observation (no action). After a crash it relaunches, then raises the error."""
        self._require_episode()
        try:
            return self._guarded(lambda: self._observe(first_s=0.0), self.config.action_timeout_s, "observe")
        except (ActionTimeout, DesktopCrashed):
            self._relaunch({})
            raise

    def windows(self) -> list[Window]:
        """The windows the window manager manages, as the X server reports them (for oracles and checks)."""
        return self._guarded(self.x.windows, self.config.action_timeout_s, "windows")

    def facts(self) -> dict[str, Any]:
        """What checks may read of the live desktop: windows (title, class, geometry, focus, and whether the window
        shows anything yet: a browser sets a page's title before it paints it) and the pointer."""
        wins = self.windows()
        focus = next((w.title for w in wins if w.focused), None)
        # only a browser's main window is judged by its pixels: an editor with a short file or an idle terminal is
        # legitimately one flat colour below its first lines
        loading = {a.window for a in self._apps if a.spec.busy}
        frame = None
        if any(w.id in loading for w in wins) and self.session and self.session.framebuffer:
            frame = self.session.framebuffer.grab()
        painted = {w.id: frame is None or w.id not in loading or self._painted(w, frame) for w in wins}
        return {"windows": [{**w.to_dict(), "painted": painted[w.id]} for w in wins], "focus": focus,
                "pointer": list(self.cursor), "screen": list(self.size)}  # fmt: skip

    def close(self) -> None:
        if self._closed:
            return
        self._closed = True
        self._teardown()
        self._watchdog.stop()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def memory_pids(self) -> list[int]:
        """The X server, bus, window manager and every app (with their children): what one env costs."""
        if self.session is None:
            return []
        pids = self.session.pids()
        table = proc.proc_table()
        for app in self._apps:
            if app.popen.poll() is None:
                pids += proc.process_tree(app.popen.pid, table)
        return sorted(set(pids))

    def rss_mb(self) -> float:
        return proc.rss_mb(self.memory_pids())

    def pss_mb(self) -> float:
        return proc.pss_mb(self.memory_pids())

    def kill_app(self, app: str) -> int:
        """Kill the named app of this episode with SIGKILL (crash tests). Returns its pid."""
        for a in self._apps:
            if a.spec.name == app and a.popen.poll() is None:
                os.kill(a.popen.pid, signal.SIGKILL)  # as a crash would: the process alone, no clean-up
                a.popen.wait(5)
                return a.popen.pid
        raise EnvError(f"No running {app!r} in this episode.")

    def kill_x_server(self) -> None:
        """Kill Xvfb with SIGKILL (crash tests)."""
        if self.session is not None:
            self.session.kill_xvfb()
            self.session.xvfb.wait(5)  # type: ignore[union-attr]

    # ---- starting, clearing, restoring -----------------------------------------------------------------

    def _require_open(self) -> None:
        if self._closed:
            raise EnvError("This DesktopEnv is closed; create a new one.")

    def _require_episode(self) -> None:
        self._require_open()
        if self._task is None:
            raise EnvError("The desktop env has no episode yet; call reset(task) first.")

    def _start(self) -> None:
        try:
            self._start_once()
        except WindowManagerStuck:  # seen once in CI, cause unknown: the next try gets a fresh X server
            self._start_once()

    def _start_once(self) -> None:
        self._teardown()
        sweep_stale_roots(temp_base())
        session = XSession(*self.size, wm=self.config.window_manager)
        try:
            session.start(self.config.launch_timeout_s)
            self.x = XClient(session.display)
        except BaseException:
            session.close()
            raise
        self.session = session
        self.x.d.change_keyboard_control(auto_repeat_mode=X.AutoRepeatModeOff)  # one press, one character
        self.x.set_background(self.config.background)
        self._skeleton = session.root / "skel"
        write_skeleton(self._skeleton)
        if self.config.window_manager:
            self._wait_wm()

    def _wait_wm(self) -> None:
        assert self.session is not None
        if not self.x.wm_ready(self.config.launch_timeout_s / 2):
            self.session.restart_wm()  # once: a window manager that missed the probe while starting up
        if not self.x.wm_ready(self.config.launch_timeout_s / 2) or not self.session.wm_alive():
            log = _tail(self.session.root / "logs" / "openbox.log")
            state = "is running" if self.session.wm_alive() else f"exited ({self.session.openbox.returncode})"  # type: ignore[union-attr]
            raise WindowManagerStuck(f"The window manager (openbox) {state} but did not manage a window within "
                                     f"{self.config.launch_timeout_s:g} s: {log}")  # fmt: skip

    def _teardown(self) -> None:
        for app in self._apps:
            stop(app.popen)
        self._apps = []
        if self.x is not None:
            self.x.close()
            self.x = None  # type: ignore[assignment]
        if self.session is not None:
            self.session.close()
            self.session = None
        self.held_keys, self.held_buttons = {}, set()

    def _clear(self) -> None:
        """End the last episode: release held input, kill its apps (and whatever they or the menu started), close
        menus, give back spare keycodes, put the pointer in the middle."""
        for kc in self.held_keys.values():
            self.x.key(kc, False)
        for b in self.held_buttons:
            self.x.button(b, False)
        self.held_keys, self.held_buttons = {}, set()
        for kc in self.x.keys_down():  # anything else still down (a crashed episode)
            self.x.key(kc, False)
        for wid in self.x.client_ids():  # every window goes at once, apps opened from the menu or a terminal too
            self.x.kill_client(wid)
        self.x.sync()
        for app in self._apps:
            stop(app.popen)
        self._apps = []
        self._wait_gone()
        if self.x.popups() and self.session is not None and self.session.openbox is not None:
            self.session.restart_wm()  # an open root menu belongs to openbox: a fresh one has none
            self._wait_wm()
        self.x.reset_keymap()
        self.move(self.size[0] // 2, self.size[1] // 2)
        self.x.sync()

    def _wait_gone(self) -> None:
        end = time.monotonic() + 5
        while self.x.client_ids() and time.monotonic() < end:
            time.sleep(0.005)

    def _restore_home(self, snapshot: str | None, config: list[dict[str, str]]) -> None:
        assert self.session is not None and self._skeleton is not None
        restore_home(self.home, self._skeleton, snapshot, config, self.session.user, self.start_home)

    def _open_windows(self, windows: list[dict[str, Any]], focus: int) -> None:
        for w in windows:
            self._launch(get_app(w["app"]), tuple(w.get("args", ())), w.get("geometry"))
        self._await_windows(self._apps)
        self._await_content(self._apps)
        for app in self._apps:
            self._place(app)
        if self._apps:
            target = self._apps[focus if -len(self._apps) <= focus < len(self._apps) else -1]
            self._focus(target.window)
        if self.config.window_manager:  # the window manager has moved, resized and raised them: apps repaint next
            self.x.wm_sync(self.config.launch_timeout_s)

    def _launch(self, spec: AppSpec, args: tuple[str, ...], geometry: Any) -> _App:
        assert self.session is not None
        log = self.session.root / "logs" / f"{spec.name}.log"
        popen = spawn([*spec.argv, *args], env=self.session.env(), cwd=self.home, log=log, user=self.session.user)
        app = _App(spec, args, geometry, popen)
        self._apps.append(app)
        return app

    def _await_windows(self, apps: list[_App]) -> None:
        """Wait until every app shows its main window; the window is matched by the app's pid, else by its class
        (a single-instance app hands a second launch to the first process)."""
        end = time.monotonic() + self.config.launch_timeout_s
        while True:
            taken = {a.window for a in self._apps if a.window}
            wins = self.x.windows()
            for app in apps:
                if app.window:
                    continue
                mine = [w for w in wins if w.id not in taken and w.pid == app.popen.pid] or [
                    w for w in wins if w.id not in taken and w.wm_class == app.spec.wm_class]  # fmt: skip
                if mine:
                    app.window = mine[0].id
                    taken.add(app.window)
            waiting = [a for a in apps if not a.window]
            if not waiting:
                return
            for app in waiting:
                code = app.popen.poll()
                if code not in (None, 0):
                    raise EnvError(f"{app.spec.name} exited with status {code} before showing a window: "
                                   f"{_tail(self.session.root / 'logs' / f'{app.spec.name}.log')}")  # type: ignore[union-attr]  # fmt: skip
            if time.monotonic() > end:
                names = ", ".join(a.spec.name for a in waiting)
                logs = "; ".join(_tail(self.session.root / "logs" / f"{a.spec.name}.log") for a in waiting)  # type: ignore[union-attr]
                raise ActionTimeout(f"{names} showed no window within {self.config.launch_timeout_s:g} s (windows: "
                                    f"{[w.title for w in wins]}; log: {logs}).")  # fmt: skip
            time.sleep(0.01)

    def _await_content(self, apps: list[_App]) -> None:
        """Wait (bounded) until apps that load their first content after showing a window (the browser: a page
        from the world server) no longer show a loading title. A page that never loads is left as it is: the
        agent sees what a person would."""
        end = time.monotonic() + self.config.launch_timeout_s
        while time.monotonic() < end:
            wins = {w.id: w for w in self.x.windows()}
            waiting = [a for a in apps if a.spec.busy and a.window in wins]
            if not any(wins[a.window].title.startswith(a.spec.busy) or not self._painted(wins[a.window])
                       for a in waiting):  # fmt: skip
                return
            time.sleep(0.05)

    def _painted(self, win: Window, frame: Any = None) -> bool:
        """Whether the lower part of a window's area shows something (a page's title arrives before its first paint;
        until then the area is one flat colour). `frame`: a screen already grabbed."""
        if frame is None:
            assert self.session is not None and self.session.framebuffer is not None
            frame = self.session.framebuffer.grab()
        x, y, w, h = win.client
        if w < 4 or h < 4:
            return True
        area = frame[max(y + h // 3, 0) : y + h, max(x, 0) : x + w]
        return area.size == 0 or int(area.max()) - int(area.min()) > 24

    def _place(self, app: _App) -> None:
        geometry = app.geometry or ("max" if len(self._apps) == 1 else None)
        if geometry is None or geometry == "center":
            return  # the window manager's own placement (smart, centred)
        if geometry == "max":
            self.x.maximize(app.window)
            return
        sw, sh = self.size
        if geometry in ("left", "right"):
            fx, fy, fw, fh = (0.0 if geometry == "left" else 0.5), 0.0, 0.5, 1.0
        else:
            fx, fy, fw, fh = geometry
        # the frame's decorations (title bar, borders) come out of the requested area
        win = next((w for w in self.x.windows() if w.id == app.window), None)
        left = win.client[0] - win.x if win else 1
        top = win.client[1] - win.y if win else 20
        right = (win.x + win.width) - (win.client[0] + win.client[2]) if win else 1
        bottom = (win.y + win.height) - (win.client[1] + win.client[3]) if win else 1
        x, y, w, h = round(fx * sw), round(fy * sh), round(fw * sw), round(fh * sh)
        self.x.place(app.window, x, y, max(50, w - left - right), max(50, h - top - bottom))

    def _focus(self, wid: int) -> None:
        self.x.activate(wid)
        end = time.monotonic() + 2
        while self.x.focus_id() != wid and time.monotonic() < end:
            time.sleep(0.005)

    # ---- health: crashes and relaunch ------------------------------------------------------------------

    def _health(self, info: dict[str, Any]) -> EnvError | None:
        """Before an action: a dead X server or a crashed app of the task is relaunched and reported."""
        if self.session is None or not self.session.alive():
            return DesktopCrashed("The X server had died before this action; the desktop was restarted with the "
                                  "task's apps on the files as saved, and the action was not run.")  # fmt: skip
        crashed = [a for a in self._apps if a.popen.poll() not in (None, 0)]
        if not crashed:
            return None
        names = []
        for app in crashed:
            names.append(f"{app.spec.name} (exit status {app.popen.returncode})")
            self._apps.remove(app)
            try:
                again = self._launch(app.spec, app.args, app.geometry)
                self._await_windows([again])
                self._place(again)
                self._focus(again.window)
            except EnvError as e:
                info["relaunch_error"] = str(e)
        info["relaunched"] = [a.spec.name for a in crashed]
        return AppCrashed(f"{', '.join(names)} had crashed; it was started again with its files as saved, and the "
                          "action was not run.")  # fmt: skip

    def _observe_after_recovery(self, info: dict[str, Any]) -> Observation:
        try:
            if self.session is None or not self.session.alive() or self.x is None:
                self._relaunch(info)
            return self._guarded(self._observe_started, self.config.launch_timeout_s, "relaunch")
        except (ActionTimeout, DesktopCrashed):
            # The X server the watchdog killed may still have looked alive a moment ago: relaunch once more.
            self._relaunch(info)
            return self._guarded(self._observe_started, self.config.launch_timeout_s, "relaunch")

    def _relaunch(self, info: dict[str, Any]) -> None:
        """A new X server, window manager and the task's apps, on the home folder as it is on disk."""
        task = self._task or {"windows": []}
        session, self.session = self.session, None
        for app in self._apps:
            stop(app.popen)
        self._apps = []
        if self.x is not None:
            self.x.close()
            self.x = None  # type: ignore[assignment]
        kept: dict[str, Path] = {}  # the home folder and its start copy survive the X server
        if session is not None:
            for name in ("home", "start"):
                if (session.root / name).is_dir():
                    kept[name] = session.root.parent / f"{session.root.name}-{name}"
                    shutil.move(str(session.root / name), kept[name])
            session.close()
        try:
            self._start()
            for name, path in kept.items():
                shutil.rmtree(self.home.parent / name, ignore_errors=True)
                shutil.move(str(path), self.home.parent / name)
            self.held_keys, self.held_buttons = {}, set()
            self._guarded(lambda: self._open_windows(task["windows"], task.get("focus", -1)),
                          self.config.launch_timeout_s + 5, "relaunch")  # fmt: skip
        except EnvError as e:
            self._teardown()
            raise DesktopCrashed(f"The desktop died and could not be restarted: {e}") from e
        info["relaunched"] = True

    def _kill_x(self) -> None:
        if self.session is not None:
            self.session.kill_xvfb()

    def _guarded(self, fn: Callable[[], Any], budget_s: float, what: str) -> Any:
        """Run X calls with the watchdog armed; a dead or killed X server becomes DesktopCrashed/ActionTimeout."""
        self._watchdog.arm(budget_s)
        try:
            return fn()
        except _X_GONE as e:
            fired = self._watchdog.disarm()
            if fired:
                raise ActionTimeout(f"{what} did not finish within {budget_s:g} s (a hung X server); the desktop "
                                    "was restarted.") from e  # fmt: skip
            if isinstance(e, OSError) and self.session is not None and self.session.alive():
                raise
            raise DesktopCrashed(f"The X server died during {what} ({type(e).__name__}); the desktop was "
                                 "restarted.") from e  # fmt: skip
        except error.XError as e:  # a request the server refused (a window that vanished under it): recoverable
            raise EnvError(f"{what}: the X server refused a request ({type(e).__name__}).") from e
        finally:
            self._watchdog.disarm()

    # ---- the step ------------------------------------------------------------------------------------

    def _refusal(self, action: Action) -> ActionRefused | None:
        spec = get_surface(self.surface)
        if action.name not in spec.actions or action.name not in handlers.HANDLERS:
            return ActionRefused(f"{action.name} is not an action of the computer surface; it accepts: "
                                 f"{', '.join(sorted(spec.actions))}.")  # fmt: skip
        children = action.actions if action.name == "Sequence" else ()  # type: ignore[attr-defined]
        for child in children:
            if child.name not in handlers.HANDLERS:
                return ActionRefused(f"{child.name} is not an action of the computer surface.")
        return None

    def _budget(self, action: Action) -> float:
        children = action.actions if action.name == "Sequence" else (action,)  # type: ignore[attr-defined]
        hold = sum(min(getattr(a, "seconds", None) or self.config.wait_default_s, self.config.max_wait_s)
                   if a.name == "Wait" else self.config.drag_duration_s if a.name == "Drag" else 0.0
                   for a in children)  # fmt: skip
        return self.config.action_timeout_s + hold

    def _act(self, action: Action) -> tuple[dict[str, Any] | None, ActionRefused | None]:
        self.x.sync()
        self.x.drain_damage()  # repaints from before this action must not count as its effect
        try:
            executed = handlers.run(self, action)
        except ActionRefused as e:  # refused before any input was sent (or, in a Sequence, after some)
            executed, error_ = None, e
        else:
            error_ = None
        self._await_input()
        return executed, error_

    def _await_input(self) -> None:
        """Wait until the server has processed the input: a window manager's synchronous button grab (openbox
        focuses the window clicked, then replays the click) freezes the pointer, and a release queued behind it is
        not yet seen. Bounded; a state that never matches is reported by the read-back after the screenshot."""
        end = time.monotonic() + INPUT_TIMEOUT_S
        if self.config.window_manager:
            self.x.wm_sync(INPUT_TIMEOUT_S)  # it has replayed a click it held, and acted on a shortcut
        while True:
            self.x.sync()
            _, _, mask = self.x.pointer()
            buttons = {b for b, m in BUTTON_MASKS.items() if mask & m}
            keys = {keysym_name(self.x.keysym_at(kc)) for kc in self.x.keys_down()}
            if (buttons == self.held_buttons and keys == set(self.held_keys)) or time.monotonic() > end:
                return
            time.sleep(0.002)

    def move(self, x: int, y: int) -> None:
        self.x.move(x, y)
        self.cursor = (x, y)

    def _x_state(self, focus: str | None) -> dict[str, Any]:
        """Pointer, buttons and keys as the server holds them now; `focus` is the focused window's title read
        with the screenshot just taken (nothing between the two moves the focus)."""
        px, py, mask = self.x.pointer()
        down = sorted(self.x.keys_down())
        return {"pointer": [px, py], "buttons": [b for b, m in BUTTON_MASKS.items() if mask & m],
                "keys": [keysym_name(self.x.keysym_at(kc)) for kc in down], "focus": focus}  # fmt: skip

    def _verify(self, state: dict[str, Any]) -> InputNotSeen | None:
        """The X server's view after the action against what the action should have left."""
        problems = []
        if tuple(state["pointer"]) != self.cursor:
            problems.append(f"the pointer is at {tuple(state['pointer'])}, not {self.cursor}")
        if sorted(state["buttons"]) != sorted(self.held_buttons):
            problems.append(f"buttons down are {state['buttons']}, expected {sorted(self.held_buttons)}")
        if sorted(state["keys"]) != sorted(self.held_keys):
            problems.append(f"keys down are {state['keys']}, expected {sorted(self.held_keys)}")
        if not problems:
            return None
        return InputNotSeen("The X server did not see what the action should have done: " + "; ".join(problems) + ".")

    # ---- the observation -----------------------------------------------------------------------------

    def _first_wait(self) -> float:
        """How long to wait for an action's first repaint: a frame once every app has answered a ping sent after
        the input, else the blind wait (an app that cannot be pinged, or did not answer in time)."""
        pingable, blind = self.x.pingable(self.x.client_ids())
        answered = self.x.ping(pingable, self.config.ping_timeout_s)
        return self.config.frame_s if answered and not blind else self.config.first_repaint_s

    def _observe_started(self) -> Observation:
        """After starting apps: each has handled its start-up events (a ping), then the screen stays still for
        RESET_QUIET_S (apps paint in passes: the frame, the contents, late fonts and icons)."""
        self.x.ping(self.x.pingable(self.x.client_ids())[0], self.config.ping_timeout_s * 4)
        loading = any(a.spec.busy for a in self._apps)
        return self._observe(first_s=LOADING_QUIET_S if loading else 0.0,
                             quiet_s=LOADING_QUIET_S if loading else RESET_QUIET_S)  # fmt: skip

    def _observe(self, first_s: float | None = None, quiet_s: float = QUIET_S) -> Observation:
        """Capture once the action's repaint is done. The wait for a repaint that may still come (`first_s`, a
        frame by default) runs while the screen is being captured and encoded: when nothing was drawn during the
        encode and the wait is over, the picture stands; when something was, drawing is left to finish
        (`quiet_s` without a repaint) and the screen is captured again (all bounded by settle_max_s). So an action
        that changes nothing costs one capture, not a frame's wait plus a capture."""
        assert self.session is not None and self.session.framebuffer is not None
        first = self._first_wait() if first_s is None else first_s
        start = time.monotonic()
        deadline = start + self.config.settle_max_s
        repainted = self.x.drain_damage()
        while True:
            if repainted or quiet_s > QUIET_S:
                while self.x.wait_damage(quiet_s) and time.monotonic() < deadline:
                    pass
            frame = self.session.framebuffer.grab()
            png = encode_png(frame, self.config.png_compress_level)
            self.x.sync()
            repainted = self.x.drain_damage()
            left = start + first - time.monotonic()
            if not repainted and left > 0:
                repainted = self.x.wait_damage(left)
            if not repainted or time.monotonic() >= deadline:
                break
        shown, focus, app = self.x.titles()
        info = {"focus": focus, "focus_app": app, "windows": shown, "pointer": list(self.cursor)}
        return Observation(png=png, width=self.size[0], height=self.size[1], title=focus, info=info)


def _tail(path: Path, n: int = 300) -> str:
    try:
        return path.read_text(errors="replace")[-n:].strip() or "no output"
    except OSError:
        return "no log"
