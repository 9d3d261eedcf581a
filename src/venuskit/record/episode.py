"""The one episode record: what happened in an episode, step by step.

Runs, verifiers, exports and the viewer all read these types. On disk an episode is a folder
(see `store.py`): `manifest.json`, `steps.jsonl` (append-only) and `step_XXXX.png` per step, plus
`final.png` when the screen after the last action is not any step's screenshot (`Episode.final`).

A folder may come from anywhere, so reading is validation: `Step.from_dict` and `Episode.from_manifest`
raise ValueError for a field of the wrong type or a screenshot name that is not a plain file name.
"""

from __future__ import annotations

import dataclasses
import math
import re
from dataclasses import dataclass, field
from typing import Any

from venuskit.actions.surfaces import SURFACES
from venuskit.actions.types import Action, action_from_dict

# A screenshot is a file directly inside the episode folder: no separators, no '..', no hidden files.
IMAGE_NAME = re.compile(r"^[A-Za-z0-9_-][A-Za-z0-9._-]{0,199}\.png$")


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
        """A step read back from JSON. Raises ValueError for a field of the wrong type."""
        if not isinstance(d, dict):
            raise ValueError(f"a step must be a JSON object, got {type(d).__name__}")
        known = {f.name for f in dataclasses.fields(cls)}
        d = {k: v for k, v in d.items() if k in known}
        _check(d, "index", int, required=True)
        if d["index"] < 0:
            raise ValueError(f"index must be >= 0, got {d['index']}")
        _check_image(d.get("screenshot"), "screenshot")
        for name in ("url", "title", "raw_output", "thought", "feedback"):
            _check(d, name, str)
        for name in ("executed", "error", "action"):
            _check(d, name, dict)
        _check(d, "info", dict, nullable=False)
        _check(d, "timings", dict, nullable=False)
        _check(d, "attempts", list, nullable=False)
        if not all(isinstance(a, dict) for a in d.get("attempts", [])):
            raise ValueError("attempts must be a list of objects")
        act = d.get("action")
        d["action"] = action_from_dict(act) if act else None
        return cls(**d)


@dataclass
class FinalObservation:
    """The screen after the episode's last action, where no step holds it: each step holds the screen
    *before* its action, so when the env ends the episode (MiniWoB++'s own end, a world interrupt, a
    crash) or the harness truncates it, this is how it ended. Not written after Finished/Answer/CallUser,
    which change nothing: the last step's screenshot is the final screen then."""

    after_step: int  # index of the step whose action led to this screen
    screenshot: str | None = None  # "final.png" inside the episode folder
    url: str | None = None
    title: str | None = None

    @classmethod
    def from_dict(cls, d: Any) -> FinalObservation:
        if not isinstance(d, dict):
            raise ValueError(f"final must be an object, got {type(d).__name__}")
        d = {k: v for k, v in d.items() if k in {f.name for f in dataclasses.fields(cls)}}
        _check(d, "after_step", int, required=True)
        _check_image(d.get("screenshot"), "final.screenshot")
        _check(d, "url", str)
        _check(d, "title", str)
        return cls(**d)


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
    final: FinalObservation | None = None  # the screen after the last action, where no step holds it
    # What the env reported at reset, before any step: requests the network guard blocked while the start page
    # loaded and its WebRTC attempts (`blocked`), dialogs it opened (`dialogs`). Each step's own are in its info.
    reset: dict[str, Any] = field(default_factory=dict)
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
        """The manifest read back from JSON. Raises ValueError, naming the field, for a wrong type."""
        if not isinstance(d, dict):
            raise ValueError(f"the manifest must be a JSON object, got {type(d).__name__}")
        known = {f.name for f in dataclasses.fields(cls)} - {"steps", "problems"}
        d = {k: v for k, v in d.items() if k in known}
        _check(d, "episode_id", str, required=True)
        _check(d, "surface", str, required=True)
        if d["surface"] not in SURFACES:
            raise ValueError(f"surface must be one of {sorted(SURFACES)}, got {d['surface'][:60]!r}")
        for name in ("task", "model", "config", "verdicts", "reset"):
            _check(d, name, dict, nullable=False)
        _check(d, "created", str, nullable=False)
        _check(d, "finished", bool, nullable=False)
        screen = d.get("screen") or (0, 0)
        if not (isinstance(screen, (list, tuple)) and len(screen) == 2 and all(_is_int(v) and v >= 0 for v in screen)):
            raise ValueError(f"screen must be [width, height] in pixels, got {screen!r}")
        d["screen"] = (screen[0], screen[1])
        d["outcome"] = _outcome(d.get("outcome") or {})
        d["final"] = FinalObservation.from_dict(d["final"]) if d.get("final") is not None else None
        ep = cls(**d)
        ep.steps = steps or []
        return ep


def _is_int(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _check(d: dict[str, Any], name: str, kind: type, *, required: bool = False, nullable: bool = True) -> None:
    """d[name] must be a `kind` (None allowed when nullable and not required); bools are not ints."""
    if name not in d:
        if required:
            raise ValueError(f"{name} is missing")
        return
    value = d[name]
    if value is None and nullable and not required:
        return
    ok = _is_int(value) if kind is int else isinstance(value, kind)
    if not ok:
        raise ValueError(f"{name} must be {kind.__name__}, got {type(value).__name__} {str(value)[:60]!r}")


def _check_image(name: Any, what: str) -> None:
    if name is not None and not (isinstance(name, str) and IMAGE_NAME.match(name)):
        raise ValueError(f"{what} must be a .png file name inside the episode folder, got {str(name)[:100]!r}")


def _outcome(d: Any) -> Outcome:
    if not isinstance(d, dict):
        raise ValueError(f"outcome must be an object, got {type(d).__name__}")
    d = {k: v for k, v in d.items() if k in {f.name for f in dataclasses.fields(Outcome)}}
    for name in ("terminated", "truncated", "needs_user"):
        _check(d, name, bool, nullable=False)
    _check(d, "reason", str)
    _check(d, "answer", str)
    _check(d, "error", dict)
    reward = d.get("reward")
    if reward is not None and not (isinstance(reward, (int, float)) and not isinstance(reward, bool)
                                   and math.isfinite(reward)):  # fmt: skip
        raise ValueError(f"outcome.reward must be a finite number, got {reward!r}")
    return Outcome(**d)
