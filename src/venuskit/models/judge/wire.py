"""Reading a judge request off the OpenAI wire: which question it asks (decide keypoints over some steps, check
one proposed step, list keypoints) and its parts (goal, keypoints, every step's description, the screenshots).

The requests are the verifier's own (its prompt templates in `venuskit.verify.prompt_templates`): the judge is
trained on exactly what SGV, the WebJudge-shaped baseline and the step verifier send. A request it cannot read
is a `WireError` (the server answers 400), never a guess.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from venuskit.models.judge.tokens import data_url_png

_STEP = re.compile(r"^Step (?P<i>\d+)(?: page (?P<title>'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\"))?"
                   r"(?: <(?P<url>[^>]*)>)?: (?P<action>.*)$")  # fmt: skip
_NUMBERED = re.compile(r"^(\d+)\. (.*)$")
_TARGET = re.compile(r" on (?P<q>'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")(?: --|$)")
_TYPED = re.compile(r"^Type (?P<q>'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\") into")
_TOLD = re.compile(r"the agent told the user (?P<q>'(?:[^'\\]|\\.)*'|\"(?:[^\"\\]|\\.)*\")")
_POINT = re.compile(r"\((?P<x>[01]\.\d+), (?P<y>[01]\.\d+)\)")


class WireError(ValueError):
    """A request the judge cannot read: not one of the verifier's questions, or malformed parts."""


def unrepr(q: str) -> str:
    """The text of a Python string repr as the verifier writes it ('...' or "..."), without evaluating it."""
    body = q[1:-1]
    return re.sub(r"\\(.)", lambda m: {"n": "\n", "t": "\t"}.get(m.group(1), m.group(1)), body)


@dataclass
class StepLine:
    """One step as the request describes it."""

    index: int
    action: str  # the factual description
    title: str = ""
    url: str = ""
    kind: str = ""  # the action's name: Click, Type, Finished, Answer, CallUser, Open, Scroll, ...
    target: str = ""  # the text under a click, when the verifier read it
    typed: str = ""
    answer: str = ""  # what the agent told the user, for a goal that asks a question
    error: bool = False
    point: tuple[float, float] | None = None


def parse_step(line: str) -> StepLine | None:
    m = _STEP.match(line.strip())
    if m is None:
        return None
    action = m.group("action")
    error = " -- the environment reported an error" in action
    action = action.split(" -- the environment reported an error")[0].replace(" (screenshot missing)", "")
    step = StepLine(int(m.group("i")), action, unrepr(m.group("title")) if m.group("title") else "",
                    m.group("url") or "", error=error)  # fmt: skip
    step.kind = action.split()[0].rstrip(":;") if action else ""
    if (t := _TARGET.search(action)) is not None:
        step.target = unrepr(t.group("q"))
    if (t := _TYPED.match(action)) is not None:
        step.typed = unrepr(t.group("q"))
    if (t := _TOLD.search(action)) is not None:
        step.answer = unrepr(t.group("q"))
    if (p := _POINT.search(action)) is not None:
        step.point = (float(p.group("x")), float(p.group("y")))
    return step


@dataclass
class Request:
    kind: str  # "final" | "window" | "step" | "keypoints"
    goal: str = ""
    keypoints: list[str] = field(default_factory=list)
    history: list[StepLine] = field(default_factory=list)  # every step the request describes, in order
    shown: list[tuple[StepLine, bytes]] = field(default_factory=list)  # steps with their screenshot
    proposed: StepLine | None = None  # step checks: the proposed action
    images: list[tuple[str, bytes]] = field(default_factory=list)  # step checks: (caption, screenshot)
    step: int = 0  # step checks: the step index
    total: int = 0  # trajectory length the request states


def _parts(messages: list[dict[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
    if not isinstance(messages, list) or not messages:
        raise WireError("messages must be a non-empty list of chat messages.")
    system = next((str(m.get("content", "")) for m in messages if m.get("role") == "system"), "")
    user = next((m for m in reversed(messages) if m.get("role") == "user"), None)
    if user is None:
        raise WireError("The request has no user message.")
    content = user.get("content")
    parts = [{"type": "text", "text": content}] if isinstance(content, str) else content
    if not isinstance(parts, list):
        raise WireError("A user message's content must be text or a list of parts.")
    return system, parts


def _field(text: str, label: str) -> str:
    m = re.search(rf"^{re.escape(label)}\s*(.*)$", text, re.MULTILINE)
    return m.group(1).strip() if m else ""


def _numbered(text: str, after: str) -> list[str]:
    out, seen = [], False
    for line in text.splitlines():
        if line.startswith(after):
            seen = True
            continue
        if seen:
            m = _NUMBERED.match(line.strip())
            if m is None:
                if out:
                    break
                continue
            out.append(m.group(2))
    return out


def parse_request(messages: list[dict[str, Any]]) -> Request:
    """The verifier's question and its parts. Raises WireError for anything else."""
    system, parts = _parts(messages)
    texts = [str(p.get("text", "")) for p in parts if p.get("type") == "text"]
    intro = texts[0] if texts else ""
    if "You check one proposed action" in system:
        return _step_request(intro, parts)
    if intro.startswith("You turn a task for a GUI agent into the list of key points"):
        return Request("keypoints", goal=_field(intro, "Task:"))
    if not intro.startswith("Task given to the agent:"):
        raise WireError("Not a verifier request: the judge answers SGV, WebJudge-style and step-check prompts.")
    final = "Key points still undecided:" in intro
    req = Request("final" if final else "window", goal=_field(intro, "Task given to the agent:"))
    req.keypoints = _numbered(intro, "Key points still undecided:" if final else "Key points to check")
    if not req.keypoints:
        raise WireError("The request lists no key points.")
    history = intro.split("Action history (every step, actions only):", 1)
    described = [s for s in (parse_step(x) for x in (history[1].splitlines() if len(history) > 1 else [])) if s]
    req.shown = _shown(parts[1:])
    req.history = described or [s for s, _ in req.shown]
    m = re.search(r"\((\d+) steps in all\)|with (\d+) steps follow", intro)
    req.total = int(next(g for g in m.groups() if g)) if m else len(req.history)
    return req


def _shown(parts: list[dict[str, Any]]) -> list[tuple[StepLine, bytes]]:
    """(step, screenshot) pairs: each step's description part, then its image part (when it has one)."""
    out: list[tuple[StepLine, bytes]] = []
    current: StepLine | None = None
    for part in parts:
        if part.get("type") == "text":
            current = parse_step(str(part.get("text", "")))
        elif part.get("type") == "image_url" and current is not None:
            try:
                out.append((current, data_url_png(str(part["image_url"]["url"]))))
            except (KeyError, TypeError, ValueError) as e:
                raise WireError(f"An image part could not be read: {e}") from e
            current = None
    return out


def _step_request(intro: str, parts: list[dict[str, Any]]) -> Request:
    req = Request("step", goal=_field(intro, "Goal:"))
    step = _field(intro, "Step:")
    req.step = int(step) if step.isdigit() else 0
    action = _field(intro, "Proposed action:")
    req.proposed = parse_step(f"Step {req.step}: {action}") or StepLine(req.step, action)
    recent = intro.split("Recent actions:", 1)[1].split("Proposed action:", 1)[0] if "Recent actions:" in intro else ""
    req.history = [s for s in (parse_step(x) for x in recent.splitlines()) if s]
    caption = ""
    for part in parts[1:]:
        if part.get("type") == "text":
            caption = str(part.get("text", ""))
        elif part.get("type") == "image_url":
            try:
                req.images.append((caption, data_url_png(str(part["image_url"]["url"]))))
            except (KeyError, TypeError, ValueError) as e:
                raise WireError(f"An image part could not be read: {e}") from e
    if not req.images:
        raise WireError("A step check needs the current screenshot.")
    return req
