"""Scripted solutions: turn a task's oracle steps into venuskit actions, one per observation.

The oracle may look at the DOM (through the env's Playwright page, which a policy never sees) to find
where an element is; what it emits are ordinary actions (Click at a normalised point, Type, Scroll or
Swipe, SelectOption, PressEnter, Finished, CallUser), executed by the real browser env and recorded
like any model's. Steps:

    ["click", SELECTOR]           tap/click the element's centre (scrolling it into view first)
    ["fill", SELECTOR, TEXT]      click the field, select what is there (desktop), type TEXT
    ["select", SELECTOR, LABEL]   click a native <select>, then SelectOption of the option with LABEL
    ["type", SELECTOR, TEXT]      click the field and type TEXT where the caret lands (keeps what is there)
    ["enter"]                     press Enter
    ["key", COMBO]                a Hotkey of the "+"-joined key names, written as given (" enter", "NumpadEnter")
    ["drag", FROM, TO]            press on one element's centre, release on another's (Drag)
    ["finish_from", SELECTOR]     Finished(content=the element's visible text), for question tasks
    ["goto", PATH]                Launch a URL on the world server
    ["finish", TEXT?]             Finished(content=TEXT)
    ["call_user", TEXT]           CallUser(content=TEXT)
    ["open_menu"]                 on a narrow (mobile) layout, open the sidebar drawer; no-op on desktop

SELECTOR is a Playwright selector (CSS, or `text=...`, `:has-text()`).
"""

from __future__ import annotations

from collections import deque
from typing import Any

from venuskit.actions import coords
from venuskit.actions.types import (
    Action,
    CallUser,
    Click,
    Drag,
    Finished,
    Hotkey,
    Launch,
    Point,
    PressEnter,
    Scroll,
    SelectOption,
    Swipe,
    Type,
)

NARROW_PX = 760  # the CSS breakpoint below which the sidebar is a drawer
FIND_TIMEOUT_MS = 5000  # the wait after which a missing element suggests a dropped click (replayed, see below)
SLOW_FIND_TIMEOUT_MS = 20000  # the further wait before a missing element fails the step: a loaded machine is slow
MAX_REPLAYS = 4  # dropped clicks clicked again in one task, each click at most once
MAX_SCROLLS = 8


class OracleError(RuntimeError):
    """The oracle could not carry out a step (element missing, option absent); names the step."""


class Oracle:
    """Yields the next (thought, action) for the page as it is now. `page` is a Playwright Page."""

    def __init__(self, steps: tuple[tuple[str, ...], ...], surface: str, patient: bool = True) -> None:
        self.steps = deque(steps)
        self.surface = surface
        # Carrying out a task, a missing element is waited for; labelling someone else's states (DAgger), a missing
        # element is the common case (the student went elsewhere) and fails at once.
        self.slow_find_ms = SLOW_FIND_TIMEOUT_MS if patient else 0
        self.queue: deque[tuple[str, Action]] = deque()  # actions already planned for the current step
        self.done = False
        self._scrolls = 0  # consecutive scrolls towards one element
        self._covered_at: float | None = None  # where the element was when it was last scrolled from under a layer
        # (step, page URL, checked state before it or None) of the click just planned
        self._last_click: tuple[tuple[str, ...], str, bool | None] | None = None
        self._replays = 0
        self._replayed_step: tuple[str, ...] | None = None

    def next(self, page: Any) -> tuple[str, Action]:
        # A tap that navigates may be observed before the new page has laid out; measure the settled page.
        page.wait_for_load_state("load")
        while not self.queue:
            if self._replay_lost_toggle(page):
                continue
            if not self.steps:
                self.done = True
                return "Everything the task asked for is done.", Finished(content="Done.")
            self._plan(self.steps[0], page)
        return self.queue.popleft()

    # -- planning one step into actions --

    def _plan(self, step: tuple[str, ...], page: Any) -> None:
        op, args = step[0], step[1:]
        if op == "drag":
            self._plan_drag(step, page)
            return
        if op in ("click", "fill", "select", "type"):
            try:
                el = self._find(page, args[0], step)
            except OracleError:
                if self._replay_lost_click(page):
                    return
                if not self.slow_find_ms:
                    raise
                el = self._find(page, args[0], step, self.slow_find_ms)
            if self._needs_menu(page, el):
                self._click_element(page, page.locator("label.menu-btn").first, "Open the menu.")
                return
            if self._scroll_if_needed(page, el):
                return
        self.steps.popleft()
        self._last_click = (step, page.url, _checked_or_none(el)) if op == "click" else None
        if op == "click":
            self._click_element(page, el, f"Click {_describe(el)}.")
        elif op == "fill":
            self._fill(page, el, args[1])
        elif op == "type":
            self._click_element(page, el, f"Click the field {_describe(el)}.")
            self.queue.append((f"Type {args[1]!r}.", Type(content=args[1])))
        elif op == "finish_from":
            text = self._find(page, args[0], step).inner_text().strip()
            self.queue.append((f"The answer is {text}.", Finished(content=text)))
        elif op == "select":
            self._select(page, el, args[1], step)
        elif op == "enter":
            self.queue.append(("Submit with Enter.", PressEnter()))
        elif op == "key":
            self.queue.append((f"Press {args[0]}.", Hotkey(keys=tuple(args[0].split("+")))))
        elif op == "goto":
            origin = "/".join(page.url.split("/")[:3])
            self.queue.append((f"Open {args[0]}.", Launch(url=origin + args[0])))
        elif op == "finish":
            self.queue.append(("The task is complete.", Finished(content=args[0] if args else "Done.")))
        elif op == "call_user":
            self.queue.append(("I cannot do this without the user.", CallUser(content=args[0])))
        elif op == "open_menu" and _viewport(page)[0] < NARROW_PX:
            self._click_element(page, page.locator("label.menu-btn").first, "Open the menu.")

    def _plan_drag(self, step: tuple[str, ...], page: Any) -> None:
        ends = [self._centre(page, self._find(page, s, step)) for s in step[1:3]]
        self.steps.popleft()
        self.queue.append((f"Drag from {step[1]} to {step[2]}.", Drag(start=ends[0], end=ends[1])))

    def _centre(self, page: Any, el: Any) -> Point:
        box = el.bounding_box()
        if box is None:
            raise OracleError(f"The element {_describe(el)} on {page.url} is not visible.")
        width, height = _viewport(page)
        return _point(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2, width, height)

    def _find(self, page: Any, selector: str, step: tuple[str, ...], timeout_ms: int = FIND_TIMEOUT_MS) -> Any:
        el = page.locator(selector).first
        try:
            el.wait_for(state="attached", timeout=timeout_ms)
        except Exception as e:  # noqa: BLE001 - Playwright's TimeoutError; reported with the step
            raise OracleError(f"Oracle step {list(step)}: no element matches {selector!r} on {page.url}.") from e
        return el

    def _replay_lost_click(self, page: Any) -> bool:
        """A click on a page that had only just been laid out can be dropped by the browser (the renderer was
        not yet taking input; on a loaded machine more than once in a long task): if the next step's element
        never came and the clicked element is still there on the same page, click it again — each click once,
        at most MAX_REPLAYS in a task."""
        if self._replays >= MAX_REPLAYS or self._last_click is None:
            return False
        step, url, _ = self._last_click
        if step is self._replayed_step or page.url != url or page.locator(step[1]).count() == 0:
            return False
        return self._replay(step)

    def _replay_lost_toggle(self, page: Any) -> bool:
        """A dropped click on a radio button or checkbox leads nowhere a missing element would show (the form is
        submitted without it, seen in CI: a receipt never attached): when the box it clicked still has the state
        it had before, on the same page, click it again (the same budget as above)."""
        last = self._last_click
        if last is None or last[2] is None or self._replays >= MAX_REPLAYS or last[0] is self._replayed_step:
            return False
        step, url, before = last
        self._last_click = None  # checked once, just after the click
        el = page.locator(step[1]).first
        try:
            if page.url != url or el.count() == 0 or _checked(el) != before:
                return False
        except Exception:  # noqa: BLE001 - Playwright's Error: the page went away under the check (the click led on)
            return False
        return self._replay(step)

    def _replay(self, step: tuple[str, ...]) -> bool:
        self._replays += 1
        self._replayed_step = step
        self.steps.appendleft(step)
        return True

    def _needs_menu(self, page: Any, el: Any) -> bool:
        """On the mobile layout the sidebar is an off-screen drawer: open it before using its items."""
        if _viewport(page)[0] >= NARROW_PX or not el.evaluate("e => !!e.closest('.sidebar')"):
            return False
        box = el.bounding_box()
        return box is None or box["x"] + box["width"] <= 0

    def _scroll_if_needed(self, page: Any, el: Any) -> bool:
        box = el.bounding_box()
        if box is None:
            raise OracleError(f"The element {_describe(el)} on {page.url} is not visible.")
        width, height = _viewport(page)
        pinned = el.evaluate("e => !!e.closest('.topbar, .viewer-bar, .lg-top')")  # sticky bars never scroll away
        top, bottom = (0 if pinned else 70), height - 10  # 70: below the sticky top bar
        cy = box["y"] + box["height"] / 2
        covered = top <= cy <= bottom and _free_point(el, width, height) is None and el.evaluate(SCROLLS_JS)
        if covered and self._covered_at == box["y"]:
            covered = False  # the last scroll did not move it: scrolling cannot uncover it, the centre is clicked
        if top <= cy <= bottom and not (covered and self._scrolls < MAX_SCROLLS):
            self._scrolls, self._covered_at = 0, None
            return False
        self._covered_at = box["y"] if covered else None
        self._scrolls += 1
        if self._scrolls > MAX_SCROLLS:
            raise OracleError(f"Scrolling does not bring {_describe(el)} into view on {page.url}.")
        # Covered by a floating layer (a toast over the foot of the sidebar): scroll it towards the middle, or past
        # it when it is there already.
        delta = round(cy - (top + bottom) / 2) if not covered or abs(cy - height / 2) > height / 6 else height // 3
        self._scroll(width, height, delta, box["x"] + min(box["width"] / 2, 40))
        return True

    def _scroll(self, width: int, height: int, delta: int, x: float) -> None:
        if self.surface == "mobile":  # touch: a swipe of the same length the other way, at most 60% of the screen
            dist = max(-0.6 * height, min(0.6 * height, delta))
            y0 = height / 2 + dist / 2
            start = _point(width / 2, y0, width, height)
            end = _point(width / 2, y0 - dist, width, height)
            self.queue.append(("Swipe to bring it into view.", Swipe(start=start, end=end)))
            return
        direction = "down" if delta > 0 else "up"
        point = _point(min(max(x, 1), width - 2), height / 2, width, height)
        self.queue.append((f"Scroll {direction} to bring it into view.",
                           Scroll(point=point, direction=direction, amount=abs(delta))))  # fmt: skip

    def _click_element(self, page: Any, el: Any, thought: str) -> None:
        box = el.bounding_box()
        if box is None:
            raise OracleError(f"Cannot click {_describe(el)} on {page.url}: it is not visible.")
        width, height = _viewport(page)
        cx = min(max(box["x"] + box["width"] / 2, 0), width - 1)
        cy = min(max(box["y"] + box["height"] / 2, 0), height - 1)
        cx, cy = _free_point(el, width, height) or (cx, cy)  # the centre unless a floating layer covers it
        self.queue.append((thought, Click(point=_point(cx, cy, width, height))))

    def _fill(self, page: Any, el: Any, text: str) -> None:
        self._click_element(page, el, f"Click the field {_describe(el)}.")
        if el.input_value():
            if self.surface == "mobile":
                raise OracleError(f"The field {_describe(el)} is not empty and the mobile surface cannot select all; "
                                  "limit this task to the browser surface or start from an empty field.")  # fmt: skip
            self.queue.append(("Select the current text to replace it.", Hotkey(keys=("ctrl", "a"))))
        self.queue.append((f"Type {text!r}.", Type(content=text)))

    def _select(self, page: Any, el: Any, label: str, step: tuple[str, ...]) -> None:
        options = el.evaluate("s => Array.from(s.options, o => [o.text.trim(), o.value])")
        index = next((i for i, (t, v) in enumerate(options) if label in (t, v)), None)
        if index is None:
            raise OracleError(f"Oracle step {list(step)}: the <select> has no option {label!r}; it has {options}.")
        self._click_element(page, el, f"Open the {_describe(el)} dropdown.")
        self.queue.append((f"Choose {label!r}.", SelectOption(index=index)))


# A point of the element's box that a click reaches: the centre first, then a grid over the box. A point is lost
# only to a fixed or sticky layer that does not hold the element (a toast, a floating button): the element's own
# children, its label or a styled box drawn over a native control take the click for it.
FREE_POINT_JS = """(e, [w, h]) => {
  const r = e.getBoundingClientRect();
  const lost = (x, y) => {
    const hit = document.elementFromPoint(x, y);
    if (!hit || hit === e || e.contains(hit) || hit.contains(e)) return false;
    for (let a = hit; a; a = a.parentElement) {
      const p = getComputedStyle(a).position;
      if (p === 'fixed' || p === 'sticky') return !a.contains(e);
    }
    return false;
  };
  const xs = [0.5, 0.2, 0.8, 0.35, 0.65, 0.05, 0.95], ys = [0.5, 0.25, 0.75, 0.1, 0.9];
  for (const fy of ys) for (const fx of xs) {
    const x = r.left + fx * r.width, y = r.top + fy * r.height;
    if (x >= 0 && y >= 0 && x < w && y < h && !lost(x, y)) return [x, y];
  }
  return null;
}"""
# Whether scrolling can move the element: a scrollable box holds it, or the page scrolls and it is not fixed.
SCROLLS_JS = """e => {
  for (let a = e.parentElement; a; a = a.parentElement) {
    const s = getComputedStyle(a);
    if (s.position === 'fixed' || s.position === 'sticky')
      return /(auto|scroll)/.test(s.overflowY) && a.scrollHeight > a.clientHeight;
    if (/(auto|scroll)/.test(s.overflowY) && a.scrollHeight > a.clientHeight) return true;
  }
  return document.scrollingElement.scrollHeight > innerHeight;
}"""


def _free_point(el: Any, width: int, height: int) -> tuple[float, float] | None:
    point = el.evaluate(FREE_POINT_JS, [width, height])
    return (float(point[0]), float(point[1])) if point else None


def _checked(el: Any) -> bool | None:
    """A checkbox's checked state, False for a radio button not yet chosen; None for anything else (a chosen
    radio button stays chosen whatever a click does)."""
    return el.evaluate("e => e.type === 'checkbox' ? e.checked : (e.type === 'radio' && !e.checked ? false : null)")


def _checked_or_none(el: Any) -> bool | None:
    try:
        return _checked(el)
    except Exception:  # noqa: BLE001 - Playwright's Error: detached as it was read; no state, so never replayed
        return None


def _viewport(page: Any) -> tuple[int, int]:
    size = page.viewport_size
    return size["width"], size["height"]


def _point(x: float, y: float, width: int, height: int) -> Point:
    nx, ny = coords.point_from_pixels(x, y, width, height)
    return Point(nx, ny)


def _describe(el: Any) -> str:
    """A human label for an element: its text, aria-label, placeholder or name."""
    text = el.evaluate(
        "e => (e.getAttribute('aria-label') || e.innerText || e.placeholder || e.getAttribute('title') || "
        "e.name || e.tagName).trim().split('\\n')[0].slice(0, 60)"
    )
    return repr(text)
