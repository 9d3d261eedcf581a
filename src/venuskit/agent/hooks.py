"""The two hook points the runner calls before an action executes, and the CallUser channel.

Defaults are no-ops: later packages (verify's step verifier, the safety gate) plug in here without
the runner knowing about them.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from venuskit.actions.types import Action
from venuskit.envs.base import Observation


@dataclass(frozen=True)
class StepContext:
    """What a hook may look at: the goal, the surface, the screenshot the model saw, the proposal."""

    goal: str
    surface: str
    step_index: int
    observation: Observation
    action: Action
    thought: str | None
    raw_output: str
    history: tuple[Any, ...] = ()  # previous venuskit.record.episode.Step objects


@dataclass(frozen=True)
class CheckResult:
    """A step check's judgement. `ok=False` sends `reason` back to the policy and re-samples."""

    ok: bool = True
    label: str = "correct"  # correct / explore / invalid / wrong
    reason: str = ""
    details: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class GateDecision:
    """The safety gate's decision: run the action, block it (reason fed back), or ask the user first."""

    decision: Literal["allow", "block", "ask_user"] = "allow"
    reason: str = ""
    details: dict[str, Any] = field(default_factory=dict)  # what the gate classified and who approved; recorded


class StepCheck(Protocol):
    def __call__(self, ctx: StepContext) -> CheckResult: ...


class SafetyGate(Protocol):
    def __call__(self, ctx: StepContext) -> GateDecision: ...


def no_step_check(ctx: StepContext) -> CheckResult:
    return CheckResult()


def allow_all(ctx: StepContext) -> GateDecision:
    return GateDecision()


# A CallUser handler gets the agent's question and returns the user's reply, or None when nobody can
# answer (non-interactive runs): the episode then ends with `needs_user`.
CallUserHandler = Callable[[str], "str | None"]


def no_user(question: str) -> str | None:
    return None


def stdin_user(question: str) -> str | None:
    """Interactive CallUser: print the question and read one line; EOF means nobody is there."""
    print(f"\n[agent asks] {question}\n[your reply] ", end="", flush=True)
    line = sys.stdin.readline()
    return line.rstrip("\n") if line else None
