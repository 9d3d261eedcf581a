"""The one episode record: what happened in an episode, step by step.

Runs, verifiers, exports and the viewer all read these types. On disk an episode is a folder
(see `store.py`): `manifest.json`, `steps.jsonl` (append-only) and `step_XXXX.png` per step.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from venuskit.actions.types import Action, action_from_dict


@dataclass
class Step:
    """One step: the observation the model saw, what it said, what ran, and how long it took."""

    index: int
    screenshot: str | None  # file name inside the episode folder, e.g. "step_0003.png"
    url: str | None = None
    title: str | None = None
    raw_output: str | None = None  # the model's full reply, verbatim
    thought: str | None = None
    action: Action | None = None  # parsed, normalised ([0,1] points)
    executed: dict[str, Any] | None = (
        None  # the pixel-level action the env ran, e.g. {"op": "click", "x": 10, "y": 20}
    )
    error: dict[str, Any] | None = None  # {"type": "ActionParseError", "message": "..."}
    info: dict[str, Any] = field(default_factory=dict)  # env feedback: note, url from GetUrl, select options...
    # The text the model was shown with this step's screenshot (errors / GetUrl / options of the step
    # before), exactly as sent; None = nothing shown or not recorded. Exports replay it.
    feedback: str | None = None
    attempts: list[dict[str, Any]] = field(default_factory=list)  # rejected samples (re-asks, step-check re-samples)
    timings: dict[str, float] = field(default_factory=dict)  # seconds: model, env, record

    def to_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d["action"] = self.action.to_dict() if self.action is not None else None
        return d

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Step:
        d = dict(d)
        act = d.get("action")
        d["action"] = action_from_dict(act) if act else None
        known = {f.name for f in dataclasses.fields(cls)}
        return cls(**{k: v for k, v in d.items() if k in known})


@dataclass
class Outcome:
    """How the episode ended. `terminated` (the agent ended it: Finished/Answer/CallUser) and
    `truncated` (the harness ended it: step limit, timeout, repeated actions) are kept apart."""

    terminated: bool = False
    truncated: bool = False
    needs_user: bool = False
    reason: str | None = (
        None  # "finished", "answer", "call_user", "step_limit", "timeout", "repeated_action", "interrupted", "error"
    )
    answer: str | None = None  # content of the final Finished/Answer/CallUser
    error: dict[str, Any] | None = None
    reward: float | None = None  # env reward where one exists (MiniWoB++ raw reward)


@dataclass
class Episode:
    """Manifest of an episode. Steps are stored separately and loaded with `EpisodeStore`."""

    episode_id: str
    task: dict[str, Any]  # at least {"goal": str}; world tasks add id, params, ...
    surface: str
    screen: tuple[int, int]  # (width, height) of the screenshots in pixels
    model: dict[str, Any] = field(default_factory=dict)  # backend, name, base url, sampling params
    config: dict[str, Any] = field(default_factory=dict)  # runner config
    outcome: Outcome = field(default_factory=Outcome)
    verdicts: dict[str, Any] = field(default_factory=dict)  # slots: "contract", "sgv", ... filled later
    created: str = ""
    finished: bool = False  # the runner closed the episode (False = resumable)
    steps: list[Step] = field(default_factory=list)
    # Filled by `store.load_episode`: what could not be read (missing screenshots, a torn last line).
    # Never written to the manifest.
    problems: list[str] = field(default_factory=list)

    @property
    def goal(self) -> str:
        return str(self.task.get("goal", ""))

    def manifest_dict(self) -> dict[str, Any]:
        d = dataclasses.asdict(self)
        d.pop("steps")
        d.pop("problems")
        d["screen"] = list(self.screen)
        return d

    @classmethod
    def from_manifest(cls, d: dict[str, Any], steps: list[Step] | None = None) -> Episode:
        d = dict(d)
        d["screen"] = tuple(d.get("screen") or (0, 0))
        d["outcome"] = Outcome(**(d.get("outcome") or {}))
        known = {f.name for f in dataclasses.fields(cls)} - {"steps", "problems"}
        ep = cls(**{k: v for k, v in d.items() if k in known})
        ep.steps = steps or []
        return ep
