"""One X connection per desktop env: XTest input, the server's view of input and windows, and repaint events.

Everything the env claims about an action is read back from the X server here: where the pointer is, which
buttons and keys are down, which window has the focus, which windows exist and where. Input goes through XTest,
so applications receive the same events a person's mouse and keyboard would produce.

Typing a character that no key produces (Chinese, accented letters): a spare keycode (one with no keysym in the
server's keymap) is given that character's keysym, as xdotool does. Assignments only grow during an episode and
are cleared at reset: an application translates a key press with the keymap it reads when it handles the event,
so reusing a keycode for another character while earlier presses may still be queued would type the wrong one.
"""

from __future__ import annotations

import contextlib
import select
import time
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from Xlib import X, Xatom, display, error
from Xlib.ext import damage, xtest
from Xlib.protocol import event as xevent

from venuskit.envs.base import ActionRefused, EnvError

BUTTON_MASKS = {1: X.Button1Mask, 2: X.Button2Mask, 3: X.Button3Mask}
_SHIFT = 0xFFE1  # Shift_L


@dataclass(frozen=True)
class Window:
    """A top-level application window as the window manager lists it."""

    id: int
    title: str
    wm_class: str  # the class part of WM_CLASS, e.g. "Mousepad"
    pid: int | None
    x: int  # outer frame (decorations included), root pixels
    y: int
    width: int
    height: int
    client: tuple[int, int, int, int]  # the application's own area: x, y, width, height
    focused: bool
    hidden: bool

    def to_dict(self) -> dict:
        return {"title": self.title, "class": self.wm_class, "pid": self.pid, "focused": self.focused,
                "hidden": self.hidden, "frame": [self.x, self.y, self.width, self.height],
                "client": list(self.client)}  # fmt: skip


class XClient:
    """A python-xlib connection to one display. Not thread-safe: the env owns it."""

    def __init__(self, display_name: str) -> None:
        try:
            self.d = display.Display(display_name)
        except (error.DisplayError, OSError) as e:
            raise EnvError(f"Cannot connect to the X display {display_name}: {e}") from e
        self.errors: list[str] = []  # asynchronous X errors (a window that vanished mid-request), for diagnostics
        self.d.set_error_handler(self._on_error)
        # python-xlib's RANDR module registers its errors under the core codes 0-2 (not first_error + n), so a
        # core BadValue would be parsed as a class without a sequence number and crash the reader: undo that.
        self.d.display.error_classes.update(error.xerror_class)
        if not self.d.has_extension("XTEST"):
            raise EnvError(f"The X server on {display_name} has no XTEST extension; input cannot be sent.")
        if not self.d.has_extension("DAMAGE"):
            raise EnvError(f"The X server on {display_name} has no DAMAGE extension; repaints cannot be seen.")
        self.screen = self.d.screen()
        self.root = self.screen.root
        self.width, self.height = self.screen.width_in_pixels, self.screen.height_in_pixels
        self._atoms: dict[str, int] = {}
        self._min_kc = self.d.display.info.min_keycode
        self._max_kc = self.d.display.info.max_keycode
        self._keymap = self._read_keymap()
        self._spare = [kc for kc, syms in self._keymap.items() if not any(syms)]
        self._assigned: dict[int, int] = {}  # keysym -> spare keycode given to it this episode
        self.d.damage_query_version()
        self._damage_event = self.d.extension_event.DamageNotify
        self._damage = self.root.damage_create(damage.DamageReportNonEmpty)
        self._damaged = False
        # Ping replies are sent to the root window for whoever listens to its substructure.
        self.root.change_attributes(event_mask=X.SubstructureNotifyMask)
        self._ping_token = 0
        self._ponged: set[int] = set()
        self._pingable: dict[int, bool] = {}
        self._sync_win: Any = None  # our own unmapped window, for wm_sync
        self._synced = False
        self.d.sync()

    def close(self) -> None:
        with contextlib.suppress(error.ConnectionClosedError, OSError):
            self.d.close()

    def _on_error(self, err: error.XError, request: object = None) -> None:
        self.errors = (self.errors + [str(err)])[-20:]

    def atom(self, name: str) -> int:
        if name not in self._atoms:
            self._atoms[name] = self.d.intern_atom(name)
        return self._atoms[name]

    # ---- input ---------------------------------------------------------------------------------------

    def move(self, x: int, y: int) -> None:
        xtest.fake_input(self.d, X.MotionNotify, x=x, y=y)

    def button(self, number: int, down: bool) -> None:
        xtest.fake_input(self.d, X.ButtonPress if down else X.ButtonRelease, number)

    def key(self, keycode: int, down: bool) -> None:
        xtest.fake_input(self.d, X.KeyPress if down else X.KeyRelease, keycode)

    def sync(self) -> None:
        """A round trip: the server has processed every request sent before it (input included)."""
        self.d.sync()

    def keycode(self, keysym: int) -> tuple[int, bool]:
        """(keycode, needs Shift) that produces `keysym`, giving it a spare keycode if no key does."""
        for kc, syms in self._keymap.items():
            if syms and syms[0] == keysym:
                return kc, False
        for kc, syms in self._keymap.items():
            if len(syms) > 1 and syms[1] == keysym:
                return kc, True
        return self._assign(keysym), False

    def _assign(self, keysym: int) -> int:
        if keysym in self._assigned:
            return self._assigned[keysym]
        free = [kc for kc in self._spare if kc not in self._assigned.values()]
        if not free:
            raise ActionRefused(f"This episode has typed {len(self._assigned)} distinct characters that no key "
                                "produces, as many as there are spare keycodes; type fewer distinct special "
                                "characters.")  # fmt: skip
        kc = free[0]
        width = len(self._keymap[kc]) or 2
        self.d.change_keyboard_mapping(kc, [(keysym,) * width])
        self._keymap[kc] = (keysym,) * width
        self._assigned[keysym] = kc
        self.d.sync()  # the MappingNotify is queued to every client before any press that uses the keycode
        return kc

    def reset_keymap(self) -> None:
        """Give the spare keycodes back (NoSymbol), as the server started."""
        for kc in self._assigned.values():
            width = len(self._keymap[kc])
            self.d.change_keyboard_mapping(kc, [(0,) * width])
            self._keymap[kc] = (0,) * width
        self._assigned.clear()
        self.d.sync()

    def shift_keycode(self) -> int:
        return self.keycode(_SHIFT)[0]

    def _read_keymap(self) -> dict[int, tuple[int, ...]]:
        count = self._max_kc - self._min_kc + 1
        rows = self.d.get_keyboard_mapping(self._min_kc, count)
        return {self._min_kc + i: tuple(row) for i, row in enumerate(rows)}

    # ---- what the server sees ------------------------------------------------------------------------

    def pointer(self) -> tuple[int, int, int]:
        """(x, y, modifier-and-button mask) of the pointer."""
        p = self.root.query_pointer()
        return p.root_x, p.root_y, p.mask

    def buttons_down(self) -> list[int]:
        mask = self.pointer()[2]
        return [b for b, m in BUTTON_MASKS.items() if mask & m]

    def keys_down(self) -> set[int]:
        """Keycodes the server holds as pressed."""
        bits = self.d.query_keymap()
        return {i * 8 + b for i, byte in enumerate(bits) for b in range(8) if byte >> b & 1}

    def keysym_at(self, keycode: int) -> int:
        syms = self._keymap.get(keycode, ())
        return syms[0] if syms else 0

    def focus_id(self) -> int:
        """The top-level client window holding the keyboard focus (0: none, the root, or a non-client)."""
        win = self.d.get_input_focus().focus
        if not hasattr(win, "id"):  # PointerRoot / None are ints
            return 0
        clients = set(self.client_ids())
        wid = win.id
        while wid and wid not in clients and wid != self.root.id:
            try:
                parent = self.d.create_resource_object("window", wid).query_tree().parent
            except error.BadWindow:
                return 0
            wid = parent.id if hasattr(parent, "id") else 0
        return wid if wid in clients else 0

    def client_ids(self) -> list[int]:
        """Top-level windows the window manager manages, oldest first (_NET_CLIENT_LIST)."""
        prop = self.root.get_full_property(self.atom("_NET_CLIENT_LIST"), Xatom.WINDOW)
        return list(prop.value) if prop is not None else []

    def windows(self) -> list[Window]:
        focus = self.focus_id()
        out = []
        for wid in self.client_ids():
            w = self._window(wid, focus)
            if w is not None:
                out.append(w)
        return out

    def titles(self) -> tuple[list[str], str | None, str | None]:
        """(titles of the shown windows, the focused one's title, the focused one's app: the class part of its
        WM_CLASS): what an observation records, in fewer round trips than windows()."""
        focus, shown, focused, app = self.focus_id(), [], None, None
        hidden_atom = self.atom("_NET_WM_STATE_HIDDEN")
        for wid in self.client_ids():
            win = self.d.create_resource_object("window", wid)
            try:
                title = self._text(win, "_NET_WM_NAME") or self._text(win, "WM_NAME") or ""
                state = win.get_full_property(self.atom("_NET_WM_STATE"), Xatom.ATOM)
            except (error.BadWindow, error.BadDrawable):
                continue
            if state is None or hidden_atom not in list(state.value):
                shown.append(title)
            if wid == focus:
                focused = title
                try:
                    cls = win.get_wm_class()
                except (error.BadWindow, error.BadDrawable):
                    cls = None
                app = cls[1] if cls else None
        return shown, focused, app

    def _window(self, wid: int, focus: int) -> Window | None:
        win = self.d.create_resource_object("window", wid)
        try:
            geo = win.get_geometry()
            pos = win.translate_coords(self.root, 0, 0)
            title = self._text(win, "_NET_WM_NAME") or self._text(win, "WM_NAME") or ""
            cls = win.get_wm_class()
            pid = win.get_full_property(self.atom("_NET_WM_PID"), Xatom.CARDINAL)
            extents = win.get_full_property(self.atom("_NET_FRAME_EXTENTS"), Xatom.CARDINAL)
            state = win.get_full_property(self.atom("_NET_WM_STATE"), Xatom.ATOM)
        except (error.BadWindow, error.BadDrawable):
            return None  # closed while we looked
        left, right, top, bottom = list(extents.value) if extents is not None else (0, 0, 0, 0)
        cx, cy = -pos.x, -pos.y
        hidden = state is not None and self.atom("_NET_WM_STATE_HIDDEN") in list(state.value)
        return Window(id=wid, title=title, wm_class=cls[1] if cls else "", pid=int(pid.value[0]) if pid else None,
                      x=cx - left, y=cy - top, width=geo.width + left + right, height=geo.height + top + bottom,
                      client=(cx, cy, geo.width, geo.height), focused=wid == focus, hidden=hidden)  # fmt: skip

    def _text(self, win: object, prop: str) -> str | None:
        value = win.get_full_property(self.atom(prop), X.AnyPropertyType)  # type: ignore[attr-defined]
        if value is None or not value.value:
            return None
        raw = value.value
        return raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)

    def popups(self) -> list[int]:
        """Visible top-level windows that are no application's frame: open menus (the window manager's own, which
        it does not mark override-redirect), tooltips, popups. The 1x1 off-screen check window is left out."""
        frames = {self._top(wid) for wid in self.client_ids()}
        out = []
        for child in self.root.query_tree().children:
            if child.id in frames:
                continue
            try:
                attrs = child.get_attributes()
                geo = child.get_geometry()
            except (error.BadWindow, error.BadDrawable):
                continue
            on_screen = geo.x + geo.width > 0 and geo.y + geo.height > 0 and geo.width > 1 and geo.height > 1
            if attrs.map_state == X.IsViewable and on_screen:
                out.append(child.id)
        return out

    def _top(self, wid: int) -> int:
        """The child of the root that holds `wid` (a client's frame)."""
        while True:
            try:
                parent = self.d.create_resource_object("window", wid).query_tree().parent
            except error.BadWindow:
                return wid
            if not hasattr(parent, "id") or parent.id == self.root.id:
                return wid
            wid = parent.id

    def wm_ready(self, timeout_s: float) -> bool:
        """Whether a window manager manages new windows now: a probe window is mapped and must show up in
        _NET_CLIENT_LIST (a window manager that is still starting would leave an app's window unmanaged)."""
        probe = self.root.create_window(-200, -200, 10, 10, 0, self.screen.root_depth)
        probe.set_wm_name("venuskit-probe")
        probe.map()
        self.d.sync()
        end = time.monotonic() + timeout_s
        try:
            while time.monotonic() < end:
                if probe.id in self.client_ids() or probe.query_tree().parent.id != self.root.id:  # listed or framed
                    return True
                time.sleep(0.005)
            return False
        finally:
            probe.destroy()
            self.d.sync()
            while probe.id in self.client_ids() and time.monotonic() < end + 1:  # gone from the list, too
                time.sleep(0.002)

    # ---- asking the window manager (EWMH) --------------------------------------------------------------

    def _wm_message(self, wid: int, name: str, data: Iterable[int]) -> None:
        values = (list(data) + [0] * 5)[:5]
        ev = xevent.ClientMessage(window=self.d.create_resource_object("window", wid),
                                  client_type=self.atom(name), data=(32, values))  # fmt: skip
        self.root.send_event(ev, event_mask=X.SubstructureRedirectMask | X.SubstructureNotifyMask)

    def activate(self, wid: int) -> None:
        self._wm_message(wid, "_NET_ACTIVE_WINDOW", [2, X.CurrentTime, 0])  # 2: a pager asks (always honoured)

    def place(self, wid: int, x: int, y: int, width: int, height: int) -> None:
        """Move and resize: (x, y) is the frame's top-left, (width, height) the application's own area."""
        self._wm_message(wid, "_NET_WM_STATE", [0, self.atom("_NET_WM_STATE_MAXIMIZED_VERT"),
                                                self.atom("_NET_WM_STATE_MAXIMIZED_HORZ"), 2])  # fmt: skip
        gravity_and_flags = 1 | (0xF << 8) | (2 << 12)  # NorthWest, x y w h given, source: pager
        self._wm_message(wid, "_NET_MOVERESIZE_WINDOW", [gravity_and_flags, x, y, width, height])

    def maximize(self, wid: int) -> None:
        self._wm_message(wid, "_NET_WM_STATE", [1, self.atom("_NET_WM_STATE_MAXIMIZED_VERT"),
                                                self.atom("_NET_WM_STATE_MAXIMIZED_HORZ"), 2])  # fmt: skip

    def kill_client(self, wid: int) -> None:
        """Disconnect the window's client from the server (XKillClient): its process loses its display."""
        self.d.create_resource_object("window", wid).kill_client()

    def set_background(self, rgb: tuple[int, int, int]) -> None:
        pixel = (rgb[0] << 16) | (rgb[1] << 8) | rgb[2]  # TrueColor depth 24
        self.root.change_attributes(background_pixel=pixel)
        self.root.clear_area(0, 0, 0, 0)
        self.d.sync()

    # ---- events: repaints and ping replies -------------------------------------------------------------

    def _pump(self) -> None:
        """Read every queued event: note repaints and the replies to our current ping."""
        while self.d.pending_events():
            ev = self.d.next_event()
            if ev.type == self._damage_event:
                self._damaged = True
            elif ev.type == X.PropertyNotify and self._sync_win is not None and ev.window.id == self._sync_win.id:
                answered = ev.atom == self.atom("_NET_FRAME_EXTENTS") and ev.state == X.PropertyNewValue
                self._synced = self._synced or answered
            elif ev.type == X.ClientMessage and ev.client_type == self.atom("WM_PROTOCOLS"):
                data = ev.data[1]
                if data[0] == self.atom("_NET_WM_PING") and data[1] == self._ping_token:
                    self._ponged.add(data[2])

    def drain_damage(self) -> bool:
        """True if the screen was repainted since the last call."""
        self._pump()
        seen, self._damaged = self._damaged, False
        if seen:  # re-arm: with NonEmpty reporting the next event comes only once the region is emptied
            self.d.damage_subtract(self._damage)
            self.d.flush()
        return seen

    def wait_damage(self, timeout_s: float) -> bool:
        """Block until a repaint is reported or `timeout_s` passes; True if one was."""
        end = time.monotonic() + timeout_s
        while True:
            if self.drain_damage():
                return True
            left = end - time.monotonic()
            if left <= 0:
                return False
            select.select([self.d], [], [], left)

    def wm_sync(self, timeout_s: float) -> bool:
        """A round trip through the window manager: ask it for frame extents of our own (never mapped) window and
        wait for its answer, a property change. The window manager handles events in order, so when it answers
        it has handled every input event sent before (a shortcut's press that makes it grab the keyboard, a
        click it replays). False on timeout or without a window manager."""
        if self._sync_win is None:
            self._sync_win = self.root.create_window(-10, -10, 1, 1, 0, self.screen.root_depth,
                                                     event_mask=X.PropertyChangeMask)  # fmt: skip
        extents = self.atom("_NET_FRAME_EXTENTS")
        self._sync_win.delete_property(extents)
        self._synced = False
        ev = xevent.ClientMessage(window=self._sync_win, client_type=self.atom("_NET_REQUEST_FRAME_EXTENTS"),
                                  data=(32, [0, 0, 0, 0, 0]))  # fmt: skip
        self.root.send_event(ev, event_mask=X.SubstructureRedirectMask | X.SubstructureNotifyMask)
        self.d.flush()
        end = time.monotonic() + timeout_s
        while True:
            self._pump()
            if self._synced:
                return True
            left = end - time.monotonic()
            if left <= 0:
                return False
            select.select([self.d], [], [], left)

    def pingable(self, wids: Iterable[int]) -> tuple[list[int], list[int]]:
        """(windows that answer _NET_WM_PING, windows that do not), from their WM_PROTOCOLS (cached per window)."""
        yes, no = [], []
        for wid in wids:
            if wid not in self._pingable:
                try:
                    protocols = self.d.create_resource_object("window", wid).get_wm_protocols() or []
                except (error.BadWindow, error.BadDrawable):
                    continue
                self._pingable[wid] = self.atom("_NET_WM_PING") in protocols
            (yes if self._pingable[wid] else no).append(wid)
        return yes, no

    def ping(self, wids: list[int], timeout_s: float) -> bool:
        """Send _NET_WM_PING to each window and wait for the replies. The X server delivers a client's events in
        order, so a reply means the app has handled every input event sent before the ping. False on timeout
        (a busy or hung app)."""
        if not wids:
            return True
        self._ping_token = self._ping_token % 0xFFFFFFF0 + 1
        self._ponged = set()
        protocols, ping = self.atom("WM_PROTOCOLS"), self.atom("_NET_WM_PING")
        for wid in wids:
            win = self.d.create_resource_object("window", wid)
            data = (32, [ping, self._ping_token, wid, 0, 0])
            ev = xevent.ClientMessage(window=win, client_type=protocols, data=data)
            win.send_event(ev, event_mask=0)
        self.d.flush()
        end = time.monotonic() + timeout_s
        while True:
            self._pump()
            if set(wids) <= self._ponged:
                return True
            left = end - time.monotonic()
            if left <= 0:
                return False
            select.select([self.d], [], [], left)
