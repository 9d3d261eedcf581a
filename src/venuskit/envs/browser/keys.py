"""Keys: what a model writes ('ctrl', 'Enter', 'f5') -> what Playwright and the DOM call them, and how a
text is typed (`typing_runs`)."""

from __future__ import annotations

import re
from typing import Literal

MAX_HOTKEY_KEYS = 3  # the browser harness's limit (reference/ui-venus.md §2.4)
# Characters a US keyboard types with Shift held; a person's keydown for them has shiftKey set.
SHIFTED = frozenset('ABCDEFGHIJKLMNOPQRSTUVWXYZ~!@#$%^&*()_+{}|:"<>?')
# Characters with a key of their own on a US keyboard (printable ASCII, tab); everything else (é, 你好, emoji)
# comes from an input method, which commits text without a key of its own.
_KEYED = re.compile(r"[\x20-\x7e\t]+")
RunKind = Literal["keys", "shift", "commit", "enter"]

_KEY_ALIASES = {
    "ctrl": "Control", "control": "Control", "cmd": "Meta", "command": "Meta", "meta": "Meta", "win": "Meta",
    "super": "Meta", "alt": "Alt", "option": "Alt", "shift": "Shift", "enter": "Enter", "return": "Enter",
    "esc": "Escape", "escape": "Escape", "tab": "Tab", "space": "Space", "backspace": "Backspace",
    "delete": "Delete", "del": "Delete", "insert": "Insert", "home": "Home", "end": "End", "pageup": "PageUp",
    "pgup": "PageUp", "pagedown": "PageDown", "pgdn": "PageDown", "up": "ArrowUp", "down": "ArrowDown",
    "left": "ArrowLeft", "right": "ArrowRight", "arrowup": "ArrowUp", "arrowdown": "ArrowDown",
    "arrowleft": "ArrowLeft", "arrowright": "ArrowRight", "capslock": "CapsLock", "numpadenter": "NumpadEnter",
}  # fmt: skip


def playwright_key(name: str) -> str:
    """A model's key name ('ctrl', 'Enter', 'f5', 'C'; key actions hold `actions.keys.canonical` names) ->
    Playwright's ('Control', 'Enter', 'F5', 'c')."""
    low = name.strip().lower()
    if low in _KEY_ALIASES:
        return _KEY_ALIASES[low]
    if len(low) in (2, 3) and low[0] == "f" and low[1:].isdigit():
        return low.upper()
    if len(name) == 1:
        return low  # shortcuts speak lowercase letters; Playwright applies Shift itself
    return name.strip()  # already a Playwright/DOM key name (e.g. 'ArrowUp'); unknown ones fail loudly


def typing_runs(text: str) -> list[tuple[RunKind, str]]:
    """How a person types `text`, as runs: "keys" (typed key by key: keydown, keypress, input, keyup per
    character), "shift" (the same with Shift held), "commit" (text an input method commits at once, e.g. a
    Chinese phrase: one input event, no key events) and "enter" (the Enter key, for each newline)."""
    runs: list[tuple[RunKind, str]] = []
    for i, line in enumerate(text.split("\n")):
        if i:
            runs.append(("enter", "\n"))
        pos = 0
        for keyed in _KEYED.finditer(line):
            if keyed.start() > pos:
                runs.append(("commit", line[pos : keyed.start()]))
            for shifted, chunk in _split_shifted(keyed.group()):
                runs.append(("shift" if shifted else "keys", chunk))
            pos = keyed.end()
        if pos < len(line):
            runs.append(("commit", line[pos:]))
    return runs


def _split_shifted(text: str) -> list[tuple[bool, str]]:
    out: list[tuple[bool, str]] = []
    for ch in text:
        shifted = ch in SHIFTED
        if out and out[-1][0] == shifted:
            out[-1] = (shifted, out[-1][1] + ch)
        else:
            out.append((shifted, ch))
    return out
