"""Key names, normalised once, where an action is made: what every surface presses and the safety gate judges.

A model writes keys many ways (' enter', 'Return', 'NumpadEnter', 'KP_Enter', 'Space', 'C'); the key actions
(`Hotkey`, `KeyDown`, `KeyUp`) store `canonical(name)` for each, so the env presses exactly the key the gate
classified (the probe's `Hotkey(keys=(' enter',))` was checked untrimmed and pressed trimmed). Each surface maps
canonical names to its own (Playwright's `Enter`, X's `Return`); `activation` says what a combo does to the
focused page beyond typing.
"""

from __future__ import annotations

# Names with one meaning written several ways; every other name keeps its spelling (trimmed), and a single
# ASCII letter is lower-cased (a shortcut names the unshifted key on both surfaces).
_SYNONYMS = {
    "enter": "enter", "return": "enter", "\n": "enter", "\r": "enter",
    "numpadenter": "numpadenter", "numpad_enter": "numpadenter", "kp_enter": "numpadenter", "kpenter": "numpadenter",
    "space": "space", "spacebar": "space", " ": "space",
    "tab": "tab", "\t": "tab", "esc": "esc", "escape": "esc",
    "ctrl": "ctrl", "control": "ctrl", "alt": "alt", "option": "alt", "shift": "shift",
    "meta": "meta", "cmd": "meta", "command": "meta", "win": "meta", "super": "meta",
}  # fmt: skip
ENTER = frozenset({"enter", "numpadenter"})  # submits the focused field's form; activates a button or a link
MODIFIERS = frozenset({"ctrl", "alt", "shift", "meta", "lctrl", "rctrl", "lalt", "ralt", "lshift", "rshift",
                       "ctrlleft", "ctrlright", "altleft", "altright", "shiftleft", "shiftright"})  # fmt: skip


def canonical(name: str) -> str:
    """The one spelling of a key name: trimmed (a lone space or newline is the key it types), synonyms merged."""
    if name in _SYNONYMS:  # ' ', '\n', '\t' before trimming would empty them
        return _SYNONYMS[name]
    trimmed = name.strip()
    low = trimmed.lower()
    if low in _SYNONYMS:
        return _SYNONYMS[low]
    if len(trimmed) == 1 and trimmed.isascii() and trimmed.isalpha():
        return low
    return trimmed


def activation(keys: tuple[str, ...]) -> str | None:
    """What pressing these (canonical) keys together does to the page beyond typing, for the safety gate:
    "enter" (Enter or NumpadEnter, with any modifiers: the focused field's form is submitted, a focused button or
    link activated), "space" (a focused button, checkbox or link is activated), "accesskey:<c>" (Alt, or Alt+Shift,
    with one character: the element with that access key is activated), "moves-focus" (Tab together with an
    activating key: it acts on an element the gate has not seen), or None."""
    names = set(keys)
    kind: str | None = None
    if names & ENTER:
        kind = "enter"
    elif "space" in names:
        kind = "space"
    else:
        rest = [k for k in keys if k not in MODIFIERS]
        if "alt" in names and "ctrl" not in names and len(rest) == 1 and len(rest[0]) == 1:
            kind = f"accesskey:{rest[0].lower()}"
    if kind is not None and "tab" in names:
        return "moves-focus"
    return kind
