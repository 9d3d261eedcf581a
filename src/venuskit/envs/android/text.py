"""Typing on a device, as AndroidWorld does it: ASCII through `input text`, anything else through the ADBKeyboard
IME's broadcast, and a clear refusal when neither can type the text (never typing something else instead).

`input text` takes one argument and reads "%s" in it as a space (Android's InputShellCommand.sendText), so
spaces are sent as "%s" and a literal "%s" is split over two commands. Every chunk is single-quoted for the
device's shell, which passes quotes, spaces and `&;|$<>()#` through untouched. Long texts go in chunks of a few
words (AndroidWorld types word by word: long `input text` strings arrived out of order on emulators). A newline is
the Enter key; a tab, the Tab key.
"""

from __future__ import annotations

import base64
import shlex

from venuskit.envs.android.keycodes import KEYCODES

ADBKEYBOARD_IME = "com.android.adbkeyboard/.AdbIME"
ADBKEYBOARD_HELP = (
    "install the ADBKeyboard IME on the device (https://github.com/senzhk/ADBKeyBoard: `adb install "
    "ADBKeyboard.apk`, then `adb shell ime enable com.android.adbkeyboard/.AdbIME`); the env then types such text "
    "through it"
)
CHUNK_CHARS = 24  # characters per `input text` call, broken at a space where one is near


def input_text_safe(text: str) -> bool:
    """Whether `input text` (plus Enter and Tab keys) can type all of `text`: printable ASCII only."""
    return all(" " <= c <= "~" or c in "\n\t" for c in text)


def untypable(text: str) -> str:
    """The characters of `text` that `input text` cannot type, each once, in order."""
    return "".join(dict.fromkeys(c for c in text if not (" " <= c <= "~" or c in "\n\t")))


def input_text_commands(text: str) -> list[str]:
    """Shell commands that type ASCII `text` with `input text` and `input keyevent`."""
    commands: list[str] = []
    for piece in _pieces(text):
        if piece in ("\n", "\t"):
            commands.append(f"input keyevent {KEYCODES['ENTER' if piece == chr(10) else 'TAB']}")
            continue
        for chunk in _chunks(piece):
            commands.append("input text " + shlex.quote(_escape_spaces(chunk)))
    return commands


def broadcast_commands(text: str) -> list[str]:
    """Shell commands that commit `text` through ADBKeyboard's base64 broadcast (no quoting of the text itself);
    each newline is the Enter key."""
    commands: list[str] = []
    for i, line in enumerate(text.split("\n")):
        if i:
            commands.append(f"input keyevent {KEYCODES['ENTER']}")
        if line:
            b64 = base64.b64encode(line.encode("utf-8")).decode("ascii")
            commands.append(f"am broadcast -a ADB_INPUT_B64 --es msg {b64}")
    return commands


def _pieces(text: str) -> list[str]:
    """Runs of ordinary characters, and each newline and tab on its own."""
    out: list[str] = []
    for c in text:
        if c in "\n\t":
            out.append(c)
        elif out and out[-1] not in ("\n", "\t"):
            out[-1] += c
        else:
            out.append(c)
    return out


def _chunks(text: str) -> list[str]:
    """Pieces of at most CHUNK_CHARS characters, cut after a space where possible, never between '%' and 's'."""
    chunks: list[str] = []
    while len(text) > CHUNK_CHARS:
        cut = text.rfind(" ", CHUNK_CHARS // 2, CHUNK_CHARS) + 1 or CHUNK_CHARS
        chunks.append(text[:cut])
        text = text[cut:]
    chunks.append(text)
    return _split_percent_s(chunks)


def _split_percent_s(chunks: list[str]) -> list[str]:
    """A literal "%s" would come out as a space: end a chunk after each '%' that an 's' follows."""
    out: list[str] = []
    for chunk in chunks:
        start = 0
        for i in range(len(chunk) - 1):
            if chunk[i] == "%" and chunk[i + 1] == "s":
                out.append(chunk[start : i + 1])
                start = i + 1
        out.append(chunk[start:])
    # a chunk ending in '%' followed by one starting with 's' across a cut is split already; keep them apart
    return [c for c in out if c]


def _escape_spaces(chunk: str) -> str:
    return chunk.replace(" ", "%s")
