"""The `<think>…</think>` / `<action>…</action>` envelope of a reply (and UI-Venus-1.5's `<conclusion>`)."""

from __future__ import annotations

import re
from dataclasses import dataclass

from venuskit.actions.grammar.response import ActionParseError, short

TAG = re.compile(r"<(/?)(think|action|conclusion)>", re.IGNORECASE)


@dataclass(frozen=True)
class Envelope:
    thought: str | None
    body: str  # the text inside <action>...</action>
    body_start: int  # its offset in the raw text
    conclusion: str | None


def split_envelope(text: str, reasoning_content: str | None = None, *, trailer: str | None = None) -> Envelope:
    """Find the thought and the one `<action>` block. `trailer` names a tag allowed after the block
    (UI-Venus-1.5's "conclusion"); anything else outside the tags is an error."""
    if not isinstance(text, str):
        raise ActionParseError(f"the response must be a string, got {type(text).__name__}")
    tags = [(m.start(), m.end(), m.group(1) == "/", m.group(2).lower()) for m in TAG.finditer(text)]
    thought, rest = _thought(text, tags)
    if not thought and reasoning_content is not None and reasoning_content.strip():
        thought = reasoning_content.strip()  # the server's reasoning channel, spliced back
    opens = [t for t in tags if t[3] == "action" and not t[2] and t[0] >= rest]
    closes = [t for t in tags if t[3] == "action" and t[2] and t[0] >= rest]
    if not opens:
        at = closes[0][0] if closes else None
        raise ActionParseError("no <action>...</action> block was found", offset=at)
    if len(opens) > 1:
        raise ActionParseError(f"found {len(opens)} <action> tags; exactly one block is allowed", offset=opens[1][0])
    if len(closes) != 1 or closes[0][0] < opens[0][1]:
        what = "the <action> tag is never closed" if not closes else "expected exactly one </action> after <action>"
        raise ActionParseError(what, offset=closes[-1][0] if closes else opens[0][0])
    _only_space(text, rest, opens[0][0], "before <action>")
    conclusion = _trailer(text, closes[0][1], tags, trailer)
    return Envelope(thought, text[opens[0][1] : closes[0][0]], opens[0][1], conclusion)


def _thought(text: str, tags: list[tuple[int, int, bool, str]]) -> tuple[str | None, int]:
    opens = [t for t in tags if t[3] == "think" and not t[2]]
    closes = [t for t in tags if t[3] == "think" and t[2]]
    if not closes:
        if opens:
            raise ActionParseError("the <think> tag is never closed", offset=opens[0][0])
        return None, 0
    if len(closes) > 1:
        raise ActionParseError("found more than one </think>", offset=closes[1][0])
    end = closes[0]
    late = [t for t in opens if t[0] > end[0]]
    if late:
        raise ActionParseError("a <think> tag appears after </think>", offset=late[0][0])
    if len(opens) > 1:
        raise ActionParseError("found more than one <think>", offset=opens[1][0])
    start = 0  # a template that pre-opens <think> leaves the thought unopened in the output
    if opens:
        _only_space(text, 0, opens[0][0], "before <think>")
        start = opens[0][1]
    return text[start : end[0]].strip(), end[1]


def _trailer(text: str, pos: int, tags: list[tuple[int, int, bool, str]], trailer: str | None) -> str | None:
    after = [t for t in tags if t[0] >= pos]
    if trailer is None or not after:
        _only_space(text, pos, len(text), "after </action>")
        return None
    first = after[0]
    if first[3] != trailer or first[2] or len(after) < 2 or after[1][3] != trailer or not after[1][2]:
        raise ActionParseError(f"only a <{trailer}>...</{trailer}> block may follow </action>", offset=first[0])
    _only_space(text, pos, first[0], f"before <{trailer}>")
    _only_space(text, after[1][1], len(text), f"after </{trailer}>")
    if len(after) > 2:
        raise ActionParseError(f"unexpected tag after </{trailer}>", offset=after[2][0])
    return text[first[1] : after[1][0]].strip()


def _only_space(text: str, start: int, end: int, where: str) -> None:
    stray = re.search(r"\S", text[start:end])
    if stray:
        at = start + stray.start()
        raise ActionParseError(f"unexpected text {short(text[at : at + 30])} {where}", offset=at)
