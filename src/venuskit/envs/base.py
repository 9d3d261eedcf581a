"""The `Env` protocol every backend implements (browser, miniwob, later desktop and android)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Protocol, runtime_checkable

from venuskit.actions.types import Action


class EnvError(RuntimeError):
    """Base of env errors. Each becomes a recorded step error, never a lost episode."""

    kind = "EnvError"


class ActionRefused(EnvError):
    """The env refused the action (unsupported here, a blocked URL scheme, no <select> open...)."""

    kind = "ActionRefused"


class ActionTimeout(EnvError):
    """The action did not finish within the per-action timeout (a hung page or browser)."""

    kind = "ActionTimeout"


class BrowserCrashed(EnvError):
    """The browser process died; the env relaunches it on the next reset/step."""

    kind = "BrowserCrashed"


@dataclass
class Observation:
    png: bytes  # the screenshot the model sees
    width: int  # screenshot pixels
    height: int
    url: str | None = None
    title: str | None = None
    info: dict[str, Any] = field(default_factory=dict)  # e.g. {"utterance": ...} for MiniWoB++


@dataclass
class StepResult:
    observation: Observation
    executed: dict[str, Any] | None = None  # pixel-level record of what ran
    info: dict[str, Any] = field(default_factory=dict)  # GetUrl url, SelectOption options, notes...
    reward: float | None = None
    terminated: bool = False  # the env itself ended the episode (e.g. MiniWoB++ task done)
    error: EnvError | None = None  # a recoverable env error; the observation is still valid


@runtime_checkable
class Env(Protocol):
    surface: str

    def reset(self, task: dict[str, Any]) -> Observation: ...

    def step(self, action: Action) -> StepResult: ...

    def close(self) -> None: ...
