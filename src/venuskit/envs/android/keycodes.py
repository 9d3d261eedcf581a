"""Android key codes (android.view.KeyEvent), by the names `input keyevent` accepts: the one table both the
backend (which sends them) and the stand-in device (which answers them) read."""

from __future__ import annotations

import string

KEYCODES: dict[str, int] = {
    "HOME": 3, "BACK": 4, "CALL": 5, "ENDCALL": 6, "STAR": 17, "POUND": 18,
    "DPAD_UP": 19, "DPAD_DOWN": 20, "DPAD_LEFT": 21, "DPAD_RIGHT": 22, "DPAD_CENTER": 23,
    "VOLUME_UP": 24, "VOLUME_DOWN": 25, "POWER": 26, "CAMERA": 27, "CLEAR": 28,
    "COMMA": 55, "PERIOD": 56, "TAB": 61, "SPACE": 62, "ENTER": 66, "DEL": 67, "MENU": 82, "SEARCH": 84,
    "PAGE_UP": 92, "PAGE_DOWN": 93, "ESCAPE": 111, "FORWARD_DEL": 112, "MOVE_HOME": 122, "MOVE_END": 123,
    "VOLUME_MUTE": 164, "APP_SWITCH": 187, "SLEEP": 223, "WAKEUP": 224,
    **{d: 7 + int(d) for d in string.digits},
    **{c: 29 + i for i, c in enumerate(string.ascii_uppercase)},
}  # fmt: skip
NAMES: dict[int, str] = {v: k for k, v in KEYCODES.items()}


def keycode(token: str) -> int | None:
    """`input keyevent`'s argument (a number, 'BACK' or 'KEYCODE_BACK') -> its code; None if unknown."""
    token = token.strip()
    if token.isdigit():
        return int(token)
    name = token.upper().removeprefix("KEYCODE_")
    return KEYCODES.get(name)
