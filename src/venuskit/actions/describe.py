"""The action list of each surface's system prompt, generated from the grammar tables.

Signatures come from `grammar.GRAMMARS` (the same rows the parser validates against); the one-line
meanings below are data, one per call and surface, paraphrasing reference/ui-venus.md §2.2-2.5.
A call without a meaning, or a meaning without a call, is an error at import time, so the prompt and
the validator cannot drift apart.
"""

from __future__ import annotations

from collections.abc import Iterable

from venuskit.actions.grammar import GRAMMARS, get_grammar, signature

_MOBILE = {
    "Click": "Tap the screen at the given coordinate.",
    "Drag": "Long-press at `start`, then drag to `end`: move sliders, rearrange items, solve slider captchas.",
    "Swipe": "Swipe from `start` to `end`: scroll to find content, switch tabs, pull down the notification shade.",
    "DoubleClick": "Double-tap at the given coordinate.",
    "LongPress": "Press and hold at the given coordinate to bring up extra options such as copy, forward or delete.",
    "Type": "Enter `content` into the input field that has focus.",
    "LaunchApp": "Open the app named `app`; use it when the app is not visible on the screen.",
    "Wait": "Wait for the page, an animation or content to finish loading.",
    "CallUser": "Ask the user to take over or to supply missing information, e.g. when several options fit.",
    "GetScreenshot": "Save a screenshot to the device's photo album.",
    "PressBack": "Go back to the previous screen.",
    "PressHome": "Go to the system home screen.",
    "PressEnter": "Press the Enter key.",
    "PressRecent": "Open the recent-apps screen.",
    "Answer": "Reply to the user's question with `content`.",
    "Finished": "Declare the task complete and tell the user how it went in `content`.",
}

_BROWSER = {
    "Click": "Click at the given coordinate.",
    "Drag": "Press at `start` and drag to `end`: move sliders, rearrange elements, solve slider captchas.",
    "Scroll": "Scroll the page at the given coordinate in `direction`: 'up', 'down', 'left' or 'right'.",
    "Type": "Enter `content` into the input field that has focus.",
    "Launch": "Open `url` (http or https) in a new tab; use it when the site is not on the screen.",
    "Wait": "Wait for the page, an animation or content to finish loading.",
    "GetUrl": "Read the URL of the current tab; it is given at the start of the next message.",
    "Finished": "Declare the task complete and tell the user how it went in `content`.",
    "TakeNote": "Write down information from the current screen so it is not forgotten after scrolling.",
    "CallUser": "Ask the user to take over or to supply missing information, e.g. when several options fit.",
    "LongPress": "Press and hold at the given coordinate for `duration` seconds (20 when omitted).",
    "PressBack": "Go back to the previous page.",
    "PressHome": "Press the Home key, which scrolls to the top of the page.",
    "PressEnter": "Press the Enter key.",
    "Hover": "Move the pointer over the given coordinate to reveal tooltips or menus.",
    "DoubleClick": "Double-click at the given coordinate.",
    "RightClick": "Right-click at the given coordinate to open a context menu.",
    "Hotkey": "Press a key combination of at most three keys, e.g. ('ctrl', 'tab') for the next tab.",
    "SelectOption": "Choose option `index` of the native select element clicked last; its options are listed "
    "in the message.",
}

_COMPUTER = {
    "Click": "Left-click at `box`, or at the cursor when `box` is omitted.",
    "DoubleClick": "Double-click at `box` or at the cursor; selects a word in text.",
    "TripleClick": "Triple-click at `box` or at the cursor; selects a line or the whole of a one-line field.",
    "RightClick": "Right-click at `box` or at the cursor to open a context menu.",
    "MiddleClick": "Middle-click at `box` or at the cursor, e.g. to open a link in a new tab.",
    "Hover": "Move the cursor to `box` without clicking.",
    "Drag": "Drag to `end` in half a second, from `start` or from the cursor when `start` is omitted.",
    "Swipe": "Scroll at the cursor by `amount` (-4096 to 4096): vertical positive scrolls up, negative down; "
    "horizontal positive scrolls right, negative left.",
    "Type": "Type `content` into the field that has focus; each \\n presses Enter.",
    "Hotkey": "Press the listed keys together as a shortcut, `repeat` times (1 to 128).",
    "KeyDown": "Press and hold the listed keys across later actions and turns until a matching KeyUp.",
    "KeyUp": "Release the listed keys.",
    "MouseDown": "Move to `box` if given, then press and hold the left mouse button.",
    "MouseUp": "Move to `box` if given, then release the left mouse button.",
    "Sequence": "Run 2 to 32 actions in order in one turn without new screenshots; no nesting, and "
    "CallUser or Finished only as the last action.",
    "Wait": "Wait for the page, an animation or content to finish loading.",
    "CallUser": "Ask the user to take over, or report that the task cannot be completed.",
    "Finished": "Declare the task completed successfully, with details in `content` if useful.",
}

MEANINGS: dict[str, dict[str, str]] = {
    "mobile": _MOBILE,
    "browser": _BROWSER,
    "computer": _COMPUTER,
    "captcha": _MOBILE,  # the CAPTCHA prompt is the mobile action list spelt with box=
}

COORDINATE_NOTE = "Coordinates range from the top-left corner (0, 0) to the bottom-right corner (999, 999)."


def _check_tables() -> None:
    for surface, grammar in GRAMMARS.items():
        calls, meanings = set(grammar.calls), set(MEANINGS.get(surface, {}))
        if calls != meanings:
            raise AssertionError(
                f"describe.MEANINGS[{surface!r}] is out of step with the grammar: "
                f"missing {sorted(calls - meanings)}, extra {sorted(meanings - calls)}."
            )


_check_tables()


def describe_actions(surface: str, only: Iterable[str] | None = None) -> str:
    """The action list for `surface`'s system prompt: a coordinate note, then one
    `- Signature\\n> meaning` entry per call in prompt order. `only` keeps a named subset of calls."""
    grammar = get_grammar(surface)
    names = list(grammar.calls)
    if only is not None:
        keep = set(only)
        unknown = keep - set(names)
        if unknown:
            raise ValueError(f"{sorted(unknown)} are not calls of the {surface} surface; it has {names}.")
        names = [n for n in names if n in keep]
    lines = [COORDINATE_NOTE]
    for name in names:
        lines += [f"- {signature(grammar.calls[name], grammar)}", f"> {MEANINGS[surface][name]}"]
    return "\n".join(lines)
