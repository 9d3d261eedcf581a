"""Reference solvers for the MiniWoB++ set: scripts that read the task page's DOM (and its JS state) to find their
targets. They exist to BUILD the set (oracle runs and the failed runs made from them); no verifier ever calls them
or sees what they read (`tests/eval/test_verify_bench_miniwob.py` guards that).

Each solver is `solve(page, goal, mode) -> Iterator[Action]`, run lazily (one action per observation, so each
target is found on the page as it is then). `mode`:

    right   the solution
    short   the solution without its last action (the final submit or decisive click)
    wrong   the solution with one decisive choice moved: another item, field value, button or position
    prefix  typing tasks: the last typed value cut to a strict prefix, then submitted
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterator, Sequence
from typing import Any

Solver = Callable[[Any, str, str], Iterator[Any]]


class SolverError(LookupError):
    """The page is not as the solver expects (a target is missing)."""


# ---- targets on the page -------------------------------------------------------------------------


def _point(page: Any, locator: Any) -> Any:
    """The centre of `locator` as a normalised point of the screenshot. Never scrolls: a solver that scrolled the
    page behind the recorder's back would click on a screen the record does not show (`_reach` scrolls, as an
    action)."""
    from venuskit.actions import coords
    from venuskit.actions.types import Point

    box = locator.bounding_box()
    if box is None:
        raise SolverError(f"{locator} is not visible")
    vw, vh = page.viewport_size["width"], page.viewport_size["height"]
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    return Point(*coords.point_from_pixels(min(max(x, 0), vw - 1), min(max(y, 0), vh - 1), vw, vh))


_VISIBLE_JS = """e => { let p = e.parentElement;
  while (p && p !== document.body) { const s = getComputedStyle(p);
    if (/(auto|scroll)/.test(s.overflowY) && p.scrollHeight > p.clientHeight) {
      const r = p.getBoundingClientRect(); return [r.left, r.top, r.right, r.bottom]; }
    p = p.parentElement; }
  return [0, 0, innerWidth, innerHeight]; }"""


def _reach(page: Any, locator: Any) -> Iterator[Any]:
    """Scroll actions (recorded, as an agent's) until `locator` is inside its scrolling area and the viewport."""
    from venuskit.actions import coords
    from venuskit.actions.types import Point, Scroll

    vw, vh = page.viewport_size["width"], page.viewport_size["height"]
    for _ in range(8):
        box = locator.bounding_box()
        if box is None:
            raise SolverError(f"{locator} is not visible")
        left, top, right, bottom = locator.evaluate(_VISIBLE_JS)
        top, bottom = max(0.0, top), min(float(vh), bottom)
        if top <= box["y"] and box["y"] + box["height"] <= bottom:
            return
        delta = box["y"] + box["height"] / 2 - (top + bottom) / 2
        x = min(max((max(left, 0) + min(right, vw)) / 2, 0), vw - 1)
        y = min(max((top + bottom) / 2, 0), vh - 1)
        yield Scroll(point=Point(*coords.point_from_pixels(x, y, vw, vh)), direction="down" if delta > 0 else "up",
                     amount=max(1, round(abs(delta))))  # fmt: skip
    raise SolverError(f"{locator} could not be scrolled into view")


def _click(page: Any, locator: Any) -> Any:
    from venuskit.actions.types import Click

    return Click(point=_point(page, locator))


def _tap(page: Any, locator: Any) -> Iterator[Any]:
    """Scroll to `locator` if it is out of view, then click it."""
    yield from _reach(page, locator)
    yield _click(page, locator)


def _hover(page: Any, locator: Any) -> Iterator[Any]:
    from venuskit.actions.types import Hover

    yield from _reach(page, locator)
    yield Hover(point=_point(page, locator))


def _wait(seconds: float) -> Any:
    """A pause as a recorded action (an animation to end): a solver that waited behind the recorder's back would
    act on a screen newer than the recorded one."""
    from venuskit.actions.types import Wait

    return Wait(seconds=seconds)


def _type(text: str) -> Any:
    from venuskit.actions.types import Type

    return Type(content=text)


def _keys(*keys: str, repeat: int = 1) -> Any:
    from venuskit.actions.types import Hotkey

    return Hotkey(keys=tuple(keys), repeat=repeat)


def _quoted(goal: str) -> list[str]:
    return re.findall(r'"([^"]+)"', goal)


def _texts(locator: Any) -> list[str]:
    return [locator.nth(i).inner_text().strip() for i in range(locator.count())]


def _choose(locator: Any, want: str, mode: str) -> Any:
    """The element of `locator` whose text is `want`, or (mode "wrong") the first whose text is not."""
    texts = _texts(locator)
    hits = [i for i, t in enumerate(texts) if (t == want) == (mode != "wrong")]
    if not hits:
        raise SolverError(f"no element {'other than' if mode == 'wrong' else 'named'} {want!r} among {texts}")
    return locator.nth(hits[0])


def _typed(text: str, mode: str) -> str:
    """The text a solver types last: the asked one, or a strict prefix of it (at least one character)."""
    return text[: max(1, len(text) - 2)] if mode == "prefix" and len(text) > 1 else text


def _wrong_text(text: str) -> str:
    """Another value of the same shape: reversed, or one character changed."""
    flipped = text[::-1]
    return flipped if flipped != text else text + "x"


def _ordinal(goal: str, noun: str) -> int:
    m = re.search(rf"(\d+)(?:st|nd|rd|th) {noun}", goal)
    if m is None:
        raise SolverError(f"no ordinal {noun} in {goal!r}")
    return int(m.group(1))


def _fields(page: Any, pairs: Sequence[tuple[str, str]], mode: str, submit: str = "#subbtn") -> Iterator[Any]:
    """Click each field and type its value, then submit. wrong: the first value changed; prefix: the last one cut."""
    for i, (selector, text) in enumerate(pairs):
        yield from _tap(page, page.locator(selector))
        if mode == "wrong" and i == 0:
            text = _wrong_text(text)
        yield _type(_typed(text, mode) if i == len(pairs) - 1 else text)
    if mode != "short":
        yield from _tap(page, page.locator(submit))


def _submit(page: Any, mode: str, selector: str = "#subbtn") -> Iterator[Any]:
    if mode != "short":
        yield from _tap(page, page.locator(selector))


# ---- buttons, links and choices ----------------------------------------------------------------------


def solve_click_button(page: Any, goal: str, mode: str) -> Iterator[Any]:
    if mode != "short":
        yield from _tap(page, _choose(page.locator("#area button"), _quoted(goal)[0], mode))


def solve_click_link(page: Any, goal: str, mode: str) -> Iterator[Any]:
    if mode != "short":
        yield from _tap(page, _choose(page.locator("#area span.alink"), _quoted(goal)[0], mode))


def solve_click_test_2(page: Any, goal: str, mode: str) -> Iterator[Any]:
    want = re.search(r"button (\w+)", goal).group(1)
    if mode != "short":
        yield from _tap(page, _choose(page.locator("#area button"), want, mode))


def _check(page: Any, mode: str, labels: Any, wanted: set[str]) -> Iterator[Any]:
    texts = _texts(labels)
    pick = [i for i, t in enumerate(texts) if t in wanted]
    if mode == "wrong":  # one box more than asked, or (all asked) one fewer
        extra = next((i for i in range(len(texts)) if i not in pick), None)
        pick = pick[:-1] if extra is None else [*pick, extra]
    for i in pick:
        yield from _tap(page, labels.nth(i).locator("input"))
    yield from _submit(page, mode)


def solve_click_checkboxes(page: Any, goal: str, mode: str) -> Iterator[Any]:
    wanted = re.match(r"Select (.*) and click Submit\.", goal).group(1)
    names = set() if wanted == "nothing" else {w.strip() for w in wanted.split(",")}
    yield from _check(page, mode, page.locator("#boxes label"), names)


def solve_click_option(page: Any, goal: str, mode: str) -> Iterator[Any]:
    want = re.match(r"Select (.*) and click Submit\.", goal).group(1).strip()
    yield from _tap(page, _choose(page.locator("#boxes label"), want, mode).locator("input"))
    yield from _submit(page, mode)


def solve_click_dialog_2(page: Any, goal: str, mode: str) -> Iterator[Any]:
    want = _quoted(goal)[0]
    close = page.locator(".ui-dialog-titlebar-close")
    buttons = page.locator(".ui-dialog-buttonset button")
    if mode == "short":
        return
    if want == "x":
        yield from _tap(page, close if mode != "wrong" else buttons.first)
    else:
        yield from _tap(page, _choose(buttons, want, mode))


# ---- navigation: tabs, sections, trees, menus ----------------------------------------------------------


def solve_click_tab(page: Any, goal: str, mode: str) -> Iterator[Any]:
    tab = re.search(r"Tab #(\d)", goal).group(1)
    if mode != "short":
        yield from _tap(page, _choose(page.locator("#area ul a"), f"Tab #{tab}", mode))


def solve_click_tab_2(page: Any, goal: str, mode: str) -> Iterator[Any]:
    word = _quoted(goal)[0]
    tabs = page.locator("#area ul a")
    for i in range(tabs.count()):
        panel = page.locator(f"#area div#tabs-{i + 1} span.alink")
        if word in _texts(panel):
            if i > 0:  # the first tab is open at the start
                yield from _tap(page, tabs.nth(i))
            if mode != "short":
                yield from _tap(page, _choose(panel, word, mode))
            return
    raise SolverError(f"no tab holds the link {word!r}")


def solve_click_collapsible(page: Any, goal: str, mode: str) -> Iterator[Any]:
    if mode != "wrong":  # the wrong run submits with the section still closed
        yield from _tap(page, page.locator("#area h3").first)
    yield from _submit(page, mode)


def solve_click_collapsible_2(page: Any, goal: str, mode: str) -> Iterator[Any]:
    word = _quoted(goal)[0]
    heads, panels = page.locator("#area h3"), page.locator("#area div.ui-accordion-content")
    for i in range(panels.count()):
        links = panels.nth(i).locator("span.alink")
        if word in _texts(links):
            yield from _tap(page, heads.nth(i))
            yield _wait(0.4)  # the section opens with an animation
            if mode != "short":
                yield from _tap(page, _choose(links, word, mode))
            return
    raise SolverError(f"no section holds the link {word!r}")


def solve_navigate_tree(page: Any, goal: str, mode: str) -> Iterator[Any]:
    want = _quoted(goal)[0]
    spans = page.locator("#tree span")
    names = _texts(spans)
    if want not in names:
        raise SolverError(f"no tree item named {want!r}")
    target = spans.nth(names.index(want))
    # open every collapsed folder on the way: their hit areas, outermost first (a click on a name would pick it)
    depth = target.evaluate("e => { let n = 0; for (let p = e.parentElement; p && p.id !== 'tree'; "
                            "p = p.parentElement) if (p.tagName === 'LI') n++; return n; }")  # fmt: skip
    for level in range(depth - 1, 0, -1):
        hit = target.locator(f"xpath=ancestor::li[{level + 1}]/div[contains(@class, 'expandable-hitarea')]")
        if hit.count():
            yield from _tap(page, hit.first)
    if mode == "short":
        return
    if mode == "wrong":
        others = [i for i, n in enumerate(names) if n != want and spans.nth(i).is_visible()]
        if not others:
            raise SolverError("no other visible tree item")
        target = spans.nth(others[0])
    yield from _tap(page, target)


def solve_click_menu(page: Any, goal: str, mode: str) -> Iterator[Any]:
    """Hover along the path (a click on an item with a submenu selects it and ends the task), click the leaf."""
    path = goal.removeprefix("Select ").strip().split(">")
    scope = page.locator("#menu")
    for depth, name in enumerate(path):
        items = scope.locator(":scope > li > div")
        last = depth == len(path) - 1
        if last and mode == "short":
            return
        item = _choose(items, name, "wrong" if last and mode == "wrong" else "right")
        yield from (_tap(page, item) if last else _hover(page, item))
        scope = item.locator("xpath=following-sibling::ul")
        if not last:
            yield _wait(0.3)  # submenus open on a timer


_MENU_ICONS = {"ui-icon-disk": "Save", "ui-icon-seek-start": "Prev", "ui-icon-stop": "Stop", "ui-icon-play": "Play",
               "ui-icon-seek-end": "Next", "ui-icon-zoomin": "Zoom In", "ui-icon-zoomout": "Zoom Out"}  # fmt: skip


def solve_click_menu_2(page: Any, goal: str, mode: str) -> Iterator[Any]:
    quoted = _quoted(goal)
    if len(quoted) > 1:
        want = quoted[1]
    else:  # "the item with the <icon> icon": the icon's class names the item
        cls = page.locator("#query span.ui-icon").get_attribute("class") or ""
        want = next((v for k, v in _MENU_ICONS.items() if k in cls.split()), "")
    yield from _tap(page, page.locator("#open-menu"))
    nested = want in ("Prev", "Stop", "Play", "Next")
    if mode == "wrong":
        want, nested = ("Save" if want != "Save" else "Zoom In"), False
    if nested:

        yield from _hover(page, page.locator("#menu > li > div", has_text="Playback"))
        yield _wait(0.3)
    if mode != "short":
        items = page.locator("#menu div.ui-menu-item-wrapper")
        yield from _tap(page, items.nth(_texts(items).index(want)))


# ---- forms and logins ------------------------------------------------------------------------------------


def solve_enter_text(page: Any, goal: str, mode: str) -> Iterator[Any]:
    yield from _fields(page, [("#tt", _quoted(goal)[0])], mode)


def solve_enter_text_2(page: Any, goal: str, mode: str) -> Iterator[Any]:
    word = _quoted(goal)[0]
    text = word.lower() if "lower case" in goal else word.upper()
    yield from _fields(page, [("#tt", text if mode != "wrong" else word.swapcase() if text == word else word)],
                       "right" if mode == "wrong" else mode)  # fmt: skip


def solve_enter_password(page: Any, goal: str, mode: str) -> Iterator[Any]:
    pw = _quoted(goal)[0]
    yield from _fields(page, [("#password", pw), ("#verify", pw)], mode)


def solve_login_user(page: Any, goal: str, mode: str) -> Iterator[Any]:
    user, pw = _quoted(goal)[:2]
    yield from _fields(page, [("#username", user), ("#password", pw)], mode)


def solve_login_user_popup(page: Any, goal: str, mode: str) -> Iterator[Any]:
    user, pw = _quoted(goal)[:2]
    for i, (selector, text) in enumerate((("#username", user), ("#password", pw))):
        _close_popup(page)
        yield from _tap(page, page.locator(selector))
        _close_popup(page)
        if mode == "wrong" and i == 0:
            text = _wrong_text(text)
        yield _type(_typed(text, mode) if i == 1 else text)
    if mode != "short":
        _close_popup(page)
        yield from _tap(page, page.locator("#subbtn"))


def _close_popup(page: Any) -> None:
    """login-user-popup opens a dialog at random moments; the solver closes it through the DOM (a person would
    click its Cancel) so that its own clicks land where it means them."""
    page.evaluate("() => { const b = [...document.querySelectorAll('.ui-dialog button')].find(x => "
                  "/cancel|close/i.test(x.textContent)); if (b && b.offsetParent) b.click(); }")  # fmt: skip


def solve_form_sequence_2(page: Any, goal: str, mode: str) -> Iterator[Any]:
    radio, box = _ordinal(goal, "radio button"), _ordinal(goal, "textbox")
    number = _quoted(goal)[0]
    yield from _tap(page, page.locator("#area input[type=radio]").nth(radio - 1))
    field = box - 1 if mode != "wrong" else box % 3
    yield from _tap(page, page.locator("#area input[type=text]").nth(field))
    yield _type(number)
    yield from _submit(page, mode)


def solve_form_sequence_3(page: Any, goal: str, mode: str) -> Iterator[Any]:
    choice = re.match(r"Choose (.*) from the dropdown", goal).group(1).strip()
    button = _quoted(goal)[0]
    yield from _tap(page, page.locator("#area .selectric"))
    yield _wait(0.2)
    yield from _tap(page, _choose(page.locator("#area .selectric-items li"), choice, "right"))
    if mode != "short":
        yield from _tap(page, _choose(page.locator("#buttons button"), button, mode))


def solve_enter_date(page: Any, goal: str, mode: str) -> Iterator[Any]:
    date = re.search(r"\d{2}/\d{2}/\d{4}", goal).group(0)
    mm, dd, yyyy = date.split("/")
    if mode == "wrong":
        dd = f"{int(dd) % 28 + 1:02d}"
    yield from _tap(page, page.locator("#tt"))
    yield _keys("ArrowLeft", repeat=3)  # the first segment (month), wherever the click put the caret
    yield _type(f"{mm}{dd}{yyyy}")
    yield from _submit(page, mode)


def solve_enter_time(page: Any, goal: str, mode: str) -> Iterator[Any]:
    h, m, ampm = re.search(r"(\d{1,2}):(\d{2}) ?([AP]M)", goal).groups()
    if mode == "wrong":
        m = f"{(int(m) + 7) % 60:02d}"
    yield from _tap(page, page.locator("#tt"))
    yield _keys("ArrowLeft", repeat=3)
    yield _type(f"{int(h):02d}{m}{ampm[0]}")
    yield from _submit(page, mode)


# ---- e-mail inboxes ----------------------------------------------------------------------------------------


def _email_task(page: Any, goal: str) -> dict[str, str]:
    """What the inbox task asks: its action and values, from the goal's template (the NL variants' names from the
    page's own fields)."""
    fields = page.evaluate("() => (typeof core !== 'undefined' && core.currentFields) || null")
    if fields and fields.get("by"):
        return {"action": "forward", "by": fields["by"], "to": fields.get("to", "")}
    by = re.search(r"email by (\S+?)(?= and|\.|$)", goal)
    name = by.group(1) if by else ""
    if "forward that email to" in goal:
        return {"action": "forward", "by": name, "to": re.search(r"forward that email to (\S+?)\.$", goal).group(1)}
    if "reply to them" in goal:
        return {"action": "reply", "by": name, "text": _quoted(goal)[0]}
    if "trash icon" in goal:
        return {"action": "delete", "by": name}
    if "star icon" in goal:
        return {"action": "star", "by": name}
    raise SolverError(f"unknown inbox task {goal!r}")


def _thread(page: Any, sender: str, mode: str) -> Any:
    threads = page.locator("#main .email-thread")
    senders = _texts(page.locator("#main .email-thread .email-sender"))
    hits = [i for i, s in enumerate(senders) if (s == sender) == (mode != "wrong")]
    if not hits:
        raise SolverError(f"no e-mail {'not ' if mode == 'wrong' else ''}by {sender!r} among {senders}")
    return threads.nth(hits[0])


def solve_email(page: Any, goal: str, mode: str) -> Iterator[Any]:
    task = _email_task(page, goal)
    act = task["action"]
    if act in ("delete", "star"):
        if mode != "short":
            icon = "trash" if act == "delete" else "star"
            yield from _tap(page, _thread(page, task["by"], mode).locator(f".email-actions span.{icon}"))
        return
    yield from _tap(page, _thread(page, task["by"], "right").locator(".email-sender"))
    if act == "reply":
        yield from _tap(page, page.locator("#email .email-reply"))
        yield from _tap(page, page.locator("#reply-text"))
        yield _type(_typed(task["text"], mode) if mode != "wrong" else _wrong_text(task["text"]))
        yield from _submit(page, mode, "#send-reply")
    else:
        yield from _tap(page, page.locator("#email .email-forward"))
        yield from _tap(page, page.locator("#forward .forward-sender"))
        yield _type(_typed(task["to"], mode) if mode != "wrong" else _wrong_text(task["to"]))
        yield from _submit(page, mode, "#send-forward")


# ---- tables and reading ----------------------------------------------------------------------------------


def _table(page: Any) -> dict[str, str]:
    rows = page.locator("#tab tr")
    return {rows.nth(i).locator("td").nth(0).inner_text().strip(): rows.nth(i).locator("td").nth(1).inner_text()
            .strip() for i in range(rows.count())}  # fmt: skip


def solve_read_table(page: Any, goal: str, mode: str) -> Iterator[Any]:
    key = re.search(r"value of (.*?) into", goal).group(1)
    table = _table(page)
    value = table[key] if mode != "wrong" else next(v for k, v in table.items() if k != key)
    yield from _fields(page, [("#tt", value)], "right" if mode == "wrong" else mode)


def solve_read_table_2(page: Any, goal: str, mode: str) -> Iterator[Any]:
    table = _table(page)
    pairs = []
    for i in (1, 2):
        key = page.locator(f"#ll{i}").get_attribute("data-key")
        pairs.append((f"#tt{i}", table[key]))
    if mode == "wrong":  # the two values in each other's fields
        pairs = [(pairs[0][0], pairs[1][1]), (pairs[1][0], pairs[0][1])]
    yield from _fields(page, pairs, "right" if mode == "wrong" else mode)


def solve_find_word(page: Any, goal: str, mode: str) -> Iterator[Any]:
    n = int(re.search(r"the (\d+)\w\w word", goal).group(1))
    words = page.locator("#area p").inner_text().split()
    word = re.sub(r"[^a-zA-Z0-9]", "", words[n - 1 if mode != "wrong" else n % len(words)])
    yield from _fields(page, [("#answer-input", word)], "right" if mode == "wrong" else mode)


def solve_phone_book(page: Any, goal: str, mode: str) -> Iterator[Any]:
    m = re.match(r"Find (.*) in the contact book and click on their (.*)\.", goal)
    name, prop = m.group(1), {"email": "email", "phone number": "phone", "address": "address"}[m.group(2)]
    for _ in range(12):  # pages of one contact each: Next until the name shows (wrong: the first other contact)
        shown = page.locator("#contact h2.name").inner_text().strip()
        if (shown == name) == (mode != "wrong"):
            if mode != "short":
                yield from _tap(page, page.locator(f"#contact a.{prop}"))
            return
        yield from _tap(page, page.locator("#pagination li.next a"))
    raise SolverError(f"{name!r} not found in the contact book")


def solve_copy_paste(page: Any, goal: str, mode: str) -> Iterator[Any]:
    n = _ordinal(goal, "text area") if "text area" in goal else None
    source = page.locator(f"#text-{n}" if n else "#to-copy")
    text = source.input_value()
    if mode == "wrong":
        text = page.locator(f"#text-{n % 3 + 1}").input_value() if n else _wrong_text(text)
    yield from _fields(page, [("#answer-input", text)], "right" if mode == "wrong" else mode)


# ---- autocompletes and pickers ------------------------------------------------------------------------------


def solve_autocomplete(page: Any, goal: str, mode: str) -> Iterator[Any]:
    start = _quoted(goal)[0]
    end = _quoted(goal)[1] if "ends with" in goal else ""
    yield from _tap(page, page.locator("#tags"))
    yield _type(start)
    yield _wait(0.3)
    items = page.locator("ul.ui-autocomplete li")
    texts = _texts(items)
    good = [i for i, t in enumerate(texts) if t.lower().startswith(start.lower()) and t.endswith(end)]
    if not good:
        raise SolverError(f"no suggestion for {start!r} among {texts}")
    if mode == "wrong":  # the typed start alone, no suggestion taken
        yield from _submit(page, "right")
        return
    yield from _tap(page, items.nth(good[0]))
    yield from _submit(page, mode)


def solve_choose_list(page: Any, goal: str, mode: str) -> Iterator[Any]:
    from venuskit.actions.types import SelectOption

    want = re.match(r"Select (.*) from the list", goal).group(1)
    options = _texts(page.locator("#options option"))
    index = options.index(want) if mode != "wrong" else next(i for i, o in enumerate(options) if o != want)
    yield from _tap(page, page.locator("#options"))
    yield SelectOption(index=index)
    yield from _submit(page, mode, "#area button")


def solve_choose_date(page: Any, goal: str, mode: str) -> Iterator[Any]:
    mm, dd, _ = re.search(r"(\d{2})/(\d{2})/(\d{4})", goal).groups()
    yield from _tap(page, page.locator("#datepicker"))
    yield _wait(0.5)  # the calendar fades in
    day = int(dd) if mode != "wrong" else int(dd) % 27 + 1
    for _ in range(12):  # back (or on) to the asked month
        shown = page.locator(".ui-datepicker-month").inner_text().strip()
        month = ["January", "February", "March", "April", "May", "June", "July", "August", "September", "October",
                 "November", "December"].index(shown) + 1  # fmt: skip
        if month == int(mm):
            break
        yield from _tap(page, page.locator(".ui-datepicker-prev" if month > int(mm) else ".ui-datepicker-next"))
        yield _wait(0.3)
    cells = page.locator(".ui-datepicker-calendar td a")
    yield from _tap(page, cells.nth(_texts(cells).index(str(day))))
    yield _wait(0.6)  # and out, uncovering the Submit button
    yield from _submit(page, mode)


def solve_spinner(page: Any, goal: str, mode: str) -> Iterator[Any]:
    """The arrows, one click per unit (the page refuses keyboard entry)."""
    want = int(re.search(r"Select (-?\d+)", goal).group(1)) + (1 if mode == "wrong" else 0)
    now = int(page.locator("#spinner").input_value() or 0)
    arrow = page.locator(".ui-spinner-up" if want > now else ".ui-spinner-down")
    for _ in range(abs(want - now)):
        yield from _tap(page, arrow)
    yield from _submit(page, mode)


def solve_slider(page: Any, goal: str, mode: str) -> Iterator[Any]:
    want = int(re.search(r"Select (-?\d+)", goal).group(1)) + (1 if mode == "wrong" else 0)
    handle = page.locator("#slider .ui-slider-handle")
    yield from _tap(page, handle)
    now = int(page.locator("#val").inner_text())
    if want != now:
        yield _keys("ArrowUp" if want > now else "ArrowDown", repeat=abs(want - now))
    yield from _submit(page, mode)


# ---- ordering and dragging -----------------------------------------------------------------------------


def _drag(page: Any, source: Any, target: Any, below: bool) -> Any:
    """A drag from `source` onto `target`'s upper or lower half (both in view: the lists here are short)."""
    from venuskit.actions.types import Drag, Point

    a, b = _point(page, source), _point(page, target)
    box = target.bounding_box()
    nudge = (box["height"] * 0.45 / page.viewport_size["height"]) * (1 if below else -1)
    return Drag(start=a, end=Point(b.x, min(max(b.y + nudge, 0.0), 1.0)))


def solve_drag_items(page: Any, goal: str, mode: str) -> Iterator[Any]:
    m = re.match(r"Drag (\S+) (.*)\.$", goal)
    name, where = m.group(1), m.group(2)
    items = page.locator("#sortable li")
    names = _texts(items)
    i = names.index(name)
    n = len(names)
    pos = (1 if "top" in where else n if "bottom" in where else i + 2 if "down by one" in where
           else i if "up by one" in where else int(re.search(r"(\d+)", where).group(1)))  # fmt: skip
    if mode == "wrong":  # a neighbouring position that is neither the asked one nor where the item is
        pos = next(p for p in (pos + 1, pos - 1, pos + 2, pos - 2) if 1 <= p <= n and p != i + 1)
    if mode == "short":
        return
    yield _drag(page, items.nth(i), items.nth(pos - 1), below=pos - 1 > i)


def solve_drag_sort(page: Any, goal: str, mode: str) -> Iterator[Any]:
    """Selection sort by drags, re-reading the list after each; wrong: stop one drag early (unsorted) and submit."""
    items = page.locator("#sortable li")
    for _ in range(8):
        values = [int(t) for t in _texts(items)]
        order = sorted(values)
        bad = next((k for k in range(len(values)) if values[k] != order[k]), None)
        if bad is None:
            break
        j = values.index(order[bad], bad)
        if mode == "wrong" and values[bad + 1:] and sorted(values[bad + 1:]) == values[bad + 1:] and j == bad + 1:
            break  # the last swap left undone
        yield _drag(page, items.nth(j), items.nth(bad), below=False)
    yield from _submit(page, mode)


def solve_button_sequence(page: Any, goal: str, mode: str) -> Iterator[Any]:
    first, second = ("#subbtn", "#subbtn2") if mode != "wrong" else ("#subbtn2", "#subbtn")
    yield from _tap(page, page.locator(first))
    if mode != "short":
        yield from _tap(page, page.locator(second))


# ---- social media ---------------------------------------------------------------------------------------------

_SOCIAL = {"Reply": "reply", "Retweet": "retweet", "Like": "like", "Share via DM": "share",
           "Copy link to Tweet": "copy", "Embed Tweet": "embed", "Mute": "menu-user", "Block": "block-user",
           "Report": "report"}  # fmt: skip


def _social_click(page: Any, post: Any, label: str) -> Iterator[Any]:
    """The post's control: an icon (reply, retweet, like), or an entry of its "more" menu. Each icon swaps its image
    on hover, and a click that arrives with the swap is lost, so the pointer rests on it first, as a hand does."""
    cls = next(v for k, v in _SOCIAL.items() if label.startswith(k))
    icon = post.locator(f".controls .{cls}" if cls in ("reply", "retweet", "like") else ".controls .more")
    yield from _hover(page, icon)
    yield from _tap(page, icon)
    if cls not in ("reply", "retweet", "like"):
        yield _wait(0.1)
        yield from _tap(page, post.locator(f".controls li.{cls}"))


def solve_social_media(page: Any, goal: str, mode: str) -> Iterator[Any]:
    user = re.search(r"@\S+?(?=[,\s])", goal).group(0)
    label = _quoted(goal)[0]
    posts = page.locator("#area .media")
    users = _texts(page.locator("#area .media .username"))
    hits = [i for i, u in enumerate(users) if (u == user) == (mode != "wrong")]
    if mode == "short" or not hits:
        if not hits:
            raise SolverError(f"no post {'not ' if mode == 'wrong' else ''}by {user}")
        return
    yield from _social_click(page, posts.nth(hits[0]), label)


def solve_social_media_all(page: Any, goal: str, mode: str) -> Iterator[Any]:
    user = re.search(r"by (@\S+?) and", goal).group(1)
    label = _quoted(goal)[0]
    m = re.search(r"on (\d+) posts?", goal)
    posts = page.locator("#area .media")
    users = _texts(page.locator("#area .media .username"))
    mine = [i for i, u in enumerate(users) if u == user]
    if m:
        mine = mine[: int(m.group(1))]
    if mode == "wrong":  # one post fewer than asked, or another user's post
        mine = mine[:-1] if len(mine) > 1 else [next(i for i, u in enumerate(users) if u != user)]
    for i in mine:
        yield from _social_click(page, posts.nth(i), label)
    yield from _submit(page, mode, "#submitRow button")


# ---- search -----------------------------------------------------------------------------------------------------


def solve_search_engine(page: Any, goal: str, mode: str) -> Iterator[Any]:
    term = _quoted(goal)[0]
    n = int(re.search(r"the (\d+)\w\w search result", goal).group(1))
    yield from _tap(page, page.locator("#search-text"))
    yield _type(term)
    yield from _tap(page, page.locator("#search"))
    n = n if mode != "wrong" else n % 9 + 1
    page_no = (n - 1) // 3 + 1
    if page_no > 1:
        yield from _tap(page, page.locator("#pagination a.page-link", has_text=str(page_no)))
    if mode != "short":
        yield from _tap(page, page.locator("#page-content a.search-title").nth((n - 1) % 3))


_MOVIE = re.compile(r"Search for (\S+) movies directed by (\S+) from year (\d+)\.")


def solve_movie_search(page: Any, goal: str, mode: str) -> Iterator[Any]:
    genre, director, year = _MOVIE.match(goal).groups()
    wanted = {"genre": genre, "director": director, "year": year, "date": year}
    if mode == "wrong":
        wanted["year"] = wanted["date"] = str(int(year) + 1)
    inputs = page.locator("#area input[type=text]")
    labels = inputs.evaluate_all("els => els.map(e => { let p = e.parentElement; while (p && p.id !== 'area' && "
                                 "!p.textContent.trim()) p = p.parentElement; return (p ? p.textContent : '')"
                                 ".toLowerCase(); })")  # fmt: skip
    for i, label in enumerate(labels):
        key = next((k for k in wanted if k in label), None)
        if key is None:
            raise SolverError(f"no value for the field labelled {label!r}")
        yield from _tap(page, inputs.nth(i))
        yield _type(_typed(wanted[key], mode) if i == len(labels) - 1 else wanted[key])
    if mode != "short":
        yield from _tap(page, page.locator("#area button, #area .final, #area .ui-submit, #area [class*=submit]").last)


SOLVERS: dict[str, Solver] = {
    # buttons, links and choices
    "click-button": solve_click_button, "click-link": solve_click_link, "click-test-2": solve_click_test_2,
    "unicode-test": solve_click_button, "click-checkboxes": solve_click_checkboxes,
    "click-checkboxes-transfer": solve_click_checkboxes, "click-option": solve_click_option,
    "click-dialog-2": solve_click_dialog_2,
    # multi-step navigation
    "click-tab": solve_click_tab, "click-tab-2": solve_click_tab_2, "click-tab-2-easy": solve_click_tab_2,
    "click-tab-2-hard": solve_click_tab_2,
    "click-collapsible-nodelay": solve_click_collapsible, "click-collapsible-2-nodelay": solve_click_collapsible_2,
    "navigate-tree": solve_navigate_tree, "click-menu": solve_click_menu, "click-menu-2": solve_click_menu_2,
    # forms and logins
    "enter-text": solve_enter_text, "enter-text-2": solve_enter_text_2, "enter-text-dynamic": solve_enter_text,
    "enter-password": solve_enter_password, "login-user": solve_login_user, "login-user-popup": solve_login_user_popup,
    "form-sequence-2": solve_form_sequence_2, "form-sequence-3": solve_form_sequence_3,
    "enter-date": solve_enter_date, "enter-time": solve_enter_time,
    # e-mail inboxes
    "email-inbox": solve_email, "email-inbox-forward": solve_email, "email-inbox-reply": solve_email,
    "email-inbox-delete": solve_email, "email-inbox-important": solve_email, "email-inbox-forward-nl": solve_email,
    "email-inbox-star-reply": solve_email, "email-inbox-noscroll": solve_email,
    # tables and reading
    "read-table": solve_read_table, "read-table-2": solve_read_table_2, "find-word": solve_find_word,
    "phone-book": solve_phone_book, "copy-paste": solve_copy_paste, "copy-paste-2": solve_copy_paste,
    # autocompletes and pickers
    "use-autocomplete-nodelay": solve_autocomplete, "choose-list": solve_choose_list,
    "choose-date-easy": solve_choose_date, "choose-date": solve_choose_date, "use-spinner": solve_spinner,
    "use-slider": solve_slider,
    # ordering and dragging
    "drag-items": solve_drag_items, "drag-sort-numbers": solve_drag_sort,
    "click-button-sequence": solve_button_sequence,
    # social media
    "social-media": solve_social_media, "social-media-all": solve_social_media_all,
    "social-media-some": solve_social_media_all,
    # search
    "search-engine": solve_search_engine, "multi-layouts": solve_movie_search, "multi-orderings": solve_movie_search,
}  # fmt: skip
TYPING = ("enter-text", "enter-text-2", "enter-text-dynamic", "enter-password", "login-user", "login-user-popup",
          "read-table", "read-table-2", "find-word", "copy-paste", "copy-paste-2", "email-inbox-forward",
          "email-inbox-reply", "email-inbox-forward-nl", "multi-layouts", "multi-orderings")  # fmt: skip
