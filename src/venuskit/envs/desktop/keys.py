"""Key names: what a model writes ('ctrl', 'Enter', 'f5', 'C', 'pagedown') -> X keysyms.

The computer grammar names keys the way pyautogui and xdotool do; both spellings are accepted, and so is any
X keysym name (`XF86AudioMute`, `KP_Enter`). Letters in a Hotkey are the unshifted key (ctrl+C is ctrl+c, as a
keyboard shortcut means); Shift is pressed only when the model names it.
"""

from __future__ import annotations

from functools import cache

from Xlib import XK

from venuskit.envs.base import ActionRefused

_ALIASES = {
    "ctrl": "Control_L", "control": "Control_L", "lctrl": "Control_L", "rctrl": "Control_R",
    "ctrlleft": "Control_L", "ctrlright": "Control_R",
    "shift": "Shift_L", "lshift": "Shift_L", "rshift": "Shift_R", "shiftleft": "Shift_L", "shiftright": "Shift_R",
    "alt": "Alt_L", "lalt": "Alt_L", "ralt": "Alt_R", "altleft": "Alt_L", "altright": "Alt_R", "option": "Alt_L",
    "super": "Super_L", "win": "Super_L", "winleft": "Super_L", "winright": "Super_R", "meta": "Super_L",
    "cmd": "Super_L", "command": "Super_L",
    "enter": "Return", "return": "Return", "numpadenter": "KP_Enter",
    "esc": "Escape", "escape": "Escape", "tab": "Tab", "space": "space",
    "backspace": "BackSpace", "delete": "Delete", "del": "Delete", "insert": "Insert", "ins": "Insert",
    "home": "Home", "end": "End", "pageup": "Prior", "pgup": "Prior", "page_up": "Prior", "prior": "Prior",
    "pagedown": "Next", "pgdn": "Next", "page_down": "Next", "next": "Next",
    "up": "Up", "down": "Down", "left": "Left", "right": "Right",
    "arrowup": "Up", "arrowdown": "Down", "arrowleft": "Left", "arrowright": "Right",
    "capslock": "Caps_Lock", "numlock": "Num_Lock", "scrolllock": "Scroll_Lock", "printscreen": "Print",
    "prtsc": "Print", "print": "Print", "pause": "Pause", "menu": "Menu", "apps": "Menu",
    "plus": "plus", "minus": "minus", "comma": "comma", "period": "period", "slash": "slash",
    "backslash": "backslash", "semicolon": "semicolon", "quote": "apostrophe", "equal": "equal",
    "bracketleft": "bracketleft", "bracketright": "bracketright", "grave": "grave",
}  # fmt: skip

# Characters that are keys of their own when typed (not a keysym lookup of the character).
_TEXT_KEYS = {"\n": "Return", "\t": "Tab", "\r": "Return", "\b": "BackSpace"}
MODIFIERS = frozenset({"Control_L", "Control_R", "Shift_L", "Shift_R", "Alt_L", "Alt_R", "Super_L", "Super_R"})


def keysym_of(name: str) -> int:
    """The keysym a model's key name means; ActionRefused names the key when it means nothing."""
    if not isinstance(name, str) or not name.strip():
        raise ActionRefused(f"{name!r} is not a key name.")
    raw = name.strip()
    low = raw.lower()
    if low in _ALIASES:
        return XK.string_to_keysym(_ALIASES[low])
    if len(low) in (2, 3) and low[0] == "f" and low[1:].isdigit() and 1 <= int(low[1:]) <= 24:
        return XK.string_to_keysym(low.upper())
    if len(raw) == 1:
        return char_keysym(raw.lower() if raw.isalpha() and raw.isascii() else raw)
    sym = XK.string_to_keysym(raw)
    if sym:
        return sym
    raise ActionRefused(f"Unknown key {name!r}. Use names like ctrl, shift, alt, super, enter, esc, tab, space, "
                        "backspace, delete, up, down, pageup, home, f1-f24, or a single character.")  # fmt: skip


def char_keysym(ch: str) -> int:
    """The keysym that types `ch`: Latin-1 characters are their own keysym, the rest 0x01000000 + code point."""
    if ch in _TEXT_KEYS:
        return XK.string_to_keysym(_TEXT_KEYS[ch])
    code = ord(ch)
    if 0x20 <= code <= 0x7E or 0xA0 <= code <= 0xFF:
        return code
    return 0x01000000 + code


def keysym_name(sym: int) -> str:
    """A readable name for a keysym (for records and error messages): 'Control_L', 'a', 'U+4F60'."""
    if sym >= 0x01000000:
        return f"U+{sym - 0x01000000:04X}"
    return _names().get(sym, hex(sym))


@cache
def _names() -> dict[int, str]:
    out: dict[int, str] = {}
    for attr in dir(XK):
        if attr.startswith("XK_"):
            out.setdefault(getattr(XK, attr), attr[3:])
    return out
