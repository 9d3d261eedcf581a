"""`NanoPolicy`: venus-nano as an agent `Policy`, in process, speaking UI-Venus-2 text like any model.

Its history is its own earlier replies (the runner's turns, parsed with the surface grammar) and the runner's
feedback text (errors, <select> options, TakeNote notes); its raw reply goes through `parse_output`, so its
episodes are recorded, verified, viewed and exported like a served model's.
"""

from __future__ import annotations

import time
from typing import Any

from venuskit.actions import ActionParseError, parse_response
from venuskit.actions.history import Turn
from venuskit.actions.prompts import system_prompt
from venuskit.agent.policy import PolicyOutput, parse_output
from venuskit.envs.base import Observation
from venuskit.models.nano import NanoInput, NanoModel, load_default


class NanoPolicy:
    """venus-nano on one surface (browser, mobile)."""

    def __init__(self, surface: str = "browser", goal: str = "", model: NanoModel | None = None,
                 prompt_kwargs: dict[str, Any] | None = None) -> None:  # fmt: skip
        self.surface = surface
        self.model = model or load_default()
        self.prompt_kwargs = prompt_kwargs or {}
        self.set_goal(goal)

    def act(self, observation: Observation, history: list[Turn], feedback: str | None = None) -> PolicyOutput:
        t0 = time.perf_counter()
        past, shots = [], []
        for turn in history:
            try:
                acts = list(parse_response(turn.response, self.surface).actions)
            except ActionParseError:
                continue  # the runner keeps parsed replies only; an older format is skipped, not fatal
            past += acts
            shots += [turn.png] * len(acts)  # what each action was taken on: venus-nano reads back what it clicked
        raw = self.model.act_input(NanoInput(observation.png, self.goal, self.surface, past, feedback, shots))
        out = parse_output(raw, self.surface)
        out.latency_s = time.perf_counter() - t0
        out.usage = {"completion_tokens": 3}
        return out

    def set_goal(self, goal: str) -> None:
        self.goal = goal
        # The prompt a served model would have seen: recorded so exports of nano episodes replay like any model's.
        self.system = system_prompt(self.surface, goal, **self.prompt_kwargs) if goal else None

    def describe(self) -> dict[str, Any]:
        return {"policy": "venus-nano", **self.model.describe()}


def nano_policy_factory(surface: str = "browser", model: NanoModel | None = None):
    """`policy(goal, today) -> NanoPolicy`, the factory shape `run_world_task` takes."""

    def make(goal: str, today: str) -> NanoPolicy:
        kwargs = {"current_date": today} if surface == "browser" else {}
        return NanoPolicy(surface, goal, model, kwargs)

    return make
