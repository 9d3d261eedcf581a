"""Policies: act(observation, history) -> the model's raw reply plus parsed actions.

`VenusPolicy` speaks the UI-Venus-2 protocol (system prompt per surface, `### User Task`, N_IMG
history) to any OpenAI-compatible server. `ScriptedPolicy` replays fixed replies; oracles and tests
use it because it goes through the same parser as a model would.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Iterable
from dataclasses import dataclass, field
from typing import Any, Protocol

from venuskit.actions import ActionParseError, parse_response
from venuskit.actions.history import Turn, build_messages
from venuskit.actions.prompts import system_prompt
from venuskit.actions.types import Action
from venuskit.envs.base import Observation
from venuskit.models.openai_backend import config_dict


@dataclass
class PolicyOutput:
    raw: str  # the reply verbatim (reasoning spliced back as <think>)
    thought: str | None = None
    actions: list[Action] = field(default_factory=list)
    error: ActionParseError | None = None  # set when `raw` did not parse
    usage: dict[str, Any] = field(default_factory=dict)
    latency_s: float = 0.0


class Policy(Protocol):
    surface: str

    def act(self, observation: Observation, history: list[Turn], feedback: str | None = None) -> PolicyOutput: ...

    def describe(self) -> dict[str, Any]: ...

    def set_goal(self, goal: str) -> None: ...


def parse_output(raw: str, surface: str, reasoning: str | None = None) -> PolicyOutput:
    """Parse a reply; a malformed one becomes an output carrying the error, never an exception."""
    try:
        resp = parse_response(raw, surface, reasoning_content=reasoning)
    except ActionParseError as exc:
        return PolicyOutput(raw=raw, error=exc)
    return PolicyOutput(raw=resp.raw, thought=resp.thought, actions=list(resp.actions))


class VenusPolicy:
    """UI-Venus-2 over an OpenAI-compatible backend (vLLM, SGLang, any API)."""

    def __init__(self, backend: Any, surface: str, goal: str, *, n_img: int = 2, prompt_kwargs: dict | None = None):
        self.backend = backend
        self.surface = surface
        self.goal = goal
        self.n_img = n_img
        self.prompt_kwargs = prompt_kwargs or {}
        self.system = system_prompt(surface, goal, **self.prompt_kwargs)

    def act(self, observation: Observation, history: list[Turn], feedback: str | None = None) -> PolicyOutput:
        messages = build_messages(
            self.system, history, observation.png, n_img=self.n_img, surface=self.surface, feedback=feedback
        )
        completion = self.backend.complete(messages)
        out = parse_output(completion.text, self.surface)
        out.usage = dataclasses.asdict(completion.usage) if completion.usage else {}
        out.latency_s = completion.latency_s
        return out

    def set_goal(self, goal: str) -> None:
        self.goal = goal
        self.system = system_prompt(self.surface, goal, **self.prompt_kwargs)

    def describe(self) -> dict[str, Any]:
        return {"policy": "venus", "n_img": self.n_img, **config_dict(self.backend.config)}


class ScriptedPolicy:
    """Replays a fixed list of replies in order (for oracles, demos and tests). Not a model. A number among
    the replies is a pause: that many seconds pass before the next reply, and no step is recorded for it
    (a Wait() reply would be one)."""

    def __init__(self, replies: Iterable[str | float], surface: str, goal: str = ""):
        self.replies = list(replies)
        self.surface = surface
        self.set_goal(goal)
        self.calls: list[dict[str, Any]] = []  # what the policy was shown, for tests

    def act(self, observation: Observation, history: list[Turn], feedback: str | None = None) -> PolicyOutput:
        self.calls.append(
            {"history": len(history), "feedback": feedback, "size": (observation.width, observation.height)}
        )
        t0 = time.perf_counter()
        while self.replies and isinstance(self.replies[0], (int, float)):
            time.sleep(max(0.0, float(self.replies.pop(0))))
        raw = (
            str(self.replies.pop(0))
            if self.replies
            else "<think>No script left.</think><action>CallUser(content='script exhausted')</action>"
        )
        out = parse_output(raw, self.surface)
        out.latency_s = time.perf_counter() - t0
        return out

    def set_goal(self, goal: str) -> None:
        # The prompt a model would have seen; recorded so exports of scripted episodes are complete.
        self.goal = goal
        self.system = system_prompt(self.surface, goal)

    def describe(self) -> dict[str, Any]:
        return {"policy": "scripted", "replies": len(self.replies)}
