"""The UI-Venus-2 history protocol: how past turns are replayed to the model (reference/ui-venus.md §2.1, §2.4, §7).

Mobile and computer:
    [system] + for each past turn: user("" if its screenshot was evicted, else ["History Screenshot:", image])
             + assistant(the full prior response) + user(["Current Screenshot:\\n", image])
    Only the `n_img` most recent past screenshots are sent; an evicted one leaves an empty user turn so
    user/assistant alternation is kept, and every assistant response is replayed.
Browser (the harness keeps a deque of the last two turns):
    [system] + the last `n_img` past turns, each user([feedback text], [notes text], image) + assistant
             + user([feedback text], [notes text], image). No labels; older turns are dropped entirely.
CAPTCHA (§2.5: one call per puzzle, the task in the system prompt): [system] + user([image]), laid out like
    the browser (no label).

Feedback (an error from the last action, a GetUrl result, select options) is prepended as a text part.
Mobile/computer upstream harnesses send none; passing it there adds a text part before the label.
"""

from __future__ import annotations

import base64
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Literal, overload

from venuskit.actions.grammar import split_envelope
from venuskit.actions.prompts import grounding_prompt, notes_feedback
from venuskit.actions.surfaces import get_surface

HISTORY_LABEL = "History Screenshot:"
CURRENT_LABEL = "Current Screenshot:\n"

Message = dict[str, Any]


@dataclass(frozen=True)
class Turn:
    """One past turn: the screenshot the model saw (None if not kept), its reply, and the text that
    was shown before the screenshot (browser: feedback of the step before, and notes in force)."""

    png: bytes | None
    response: str
    feedback: str | None = None
    notes: tuple[str, ...] = ()


class _Images:
    """Collects image parts either inline (data: URLs) or as placeholders plus a separate list."""

    def __init__(self, inline: bool) -> None:
        self.inline = inline
        self.pngs: list[bytes] = []

    def part(self, png: bytes) -> dict[str, Any]:
        if self.inline:
            return {"type": "image_url", "image_url": {"url": png_data_url(png)}}
        self.pngs.append(png)
        return {"type": "image"}


def png_data_url(png: bytes) -> str:
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def _text(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def _content(parts: list[dict[str, Any]], inline: bool) -> str | list[dict[str, Any]]:
    # Inline (OpenAI requests) follows upstream exactly: an evicted turn is the empty string. Placeholder
    # rows (datasets/TRL) keep every content a list so one Arrow type fits the whole column.
    if inline and not parts:
        return ""
    return parts


def _prefix(feedback: str | None, notes: Sequence[str]) -> list[dict[str, Any]]:
    parts = [_text(feedback)] if feedback else []
    note_text = notes_feedback(notes)
    if note_text:
        parts.append(_text(note_text))
    return parts


def _labelled_user(png: bytes | None, label: str, feedback: str | None, images: _Images) -> Message:
    parts = [_text(feedback)] if feedback else []
    if png is not None:
        parts += [_text(label), images.part(png)]
    return {"role": "user", "content": _content(parts, images.inline)}


def _browser_user(png: bytes | None, feedback: str | None, notes: Sequence[str], images: _Images) -> Message:
    parts = _prefix(feedback, notes)
    if png is not None:
        parts.append(images.part(png))
    return {"role": "user", "content": _content(parts, images.inline)}


def _assistant(text: str, inline: bool) -> Message:
    return {"role": "assistant", "content": text if inline else [_text(text)]}


@overload
def build_messages(
    system: str,
    turns: Sequence[Turn],
    current_png: bytes,
    *,
    n_img: int = ...,
    surface: str,
    feedback: str | None = ...,
    notes: Sequence[str] = ...,
    inline_images: Literal[True] = ...,
) -> list[Message]: ...


@overload
def build_messages(
    system: str,
    turns: Sequence[Turn],
    current_png: bytes,
    *,
    n_img: int = ...,
    surface: str,
    feedback: str | None = ...,
    notes: Sequence[str] = ...,
    inline_images: Literal[False],
) -> tuple[list[Message], list[bytes]]: ...


def build_messages(
    system: str,
    turns: Sequence[Turn],
    current_png: bytes,
    *,
    n_img: int = 2,
    surface: str,
    feedback: str | None = None,
    notes: Sequence[str] = (),
    inline_images: bool = True,
) -> list[Message] | tuple[list[Message], list[bytes]]:
    """The chat messages for the next model call.

    `feedback` is the text shown before the current screenshot (errors of the last action, a GetUrl
    result, ...); `notes` (browser) are TakeNote contents, rendered as "Notes from earlier steps" after it.
    inline_images=True: OpenAI format, images as `image_url` data URLs. inline_images=False: images as
    `{"type": "image"}` placeholders and every content a list of parts; returns (messages, pngs in order),
    the layout of SFT/TRL rows with an images column.
    """
    get_surface(surface)
    if n_img < 0:
        raise ValueError(f"n_img must be 0 or more past screenshots to keep, got {n_img}.")
    images = _Images(inline_images)
    messages: list[Message] = [{"role": "system", "content": system if inline_images else [_text(system)]}]
    if surface in ("browser", "captcha"):
        for turn in turns[max(0, len(turns) - n_img) :] if n_img else []:
            messages.append(_browser_user(turn.png, turn.feedback, turn.notes, images))
            messages.append(_assistant(turn.response, inline_images))
        messages.append(_browser_user(current_png, feedback, notes, images))
    else:
        first_kept = len(turns) - n_img
        for i, turn in enumerate(turns):
            png = turn.png if i >= first_kept else None
            messages.append(_labelled_user(png, HISTORY_LABEL, turn.feedback, images))
            messages.append(_assistant(turn.response, inline_images))
        messages.append(_labelled_user(current_png, CURRENT_LABEL, feedback, images))
    return messages if inline_images else (messages, images.pngs)


def grounding_messages(instruction: str, png: bytes) -> list[Message]:
    """A UI-Venus-2 grounding request: one user message, image first, then the prompt; no system message."""
    return [{"role": "user", "content": [{"type": "image_url", "image_url": {"url": png_data_url(png)}},
                                         _text(grounding_prompt(instruction))]}]  # fmt: skip


# ---- normalising a reply ------------------------------------------------------------------------


def normalize_response(raw: str, reasoning: str | None = None) -> str:
    """`<think>thought</think>\n<action>call text</action>` from a raw reply, with the call text kept as
    the model wrote it (stripped). The envelope is read by the grammar's own `split_envelope` (a pre-opened
    <think>, a `reasoning_content` thought); raises ActionParseError (a ValueError) when it is malformed."""
    env = split_envelope(raw, reasoning)
    return f"<think>{env.thought or ''}</think>\n<action>{env.body.strip()}</action>"
