"""Policies a run builds: the oracle-driven family (not models; the flywheel's relabelling policy is one too) and
the spec of a model policy.

The oracle-driven family shares one shape: a planner proposes (thought, action); the reply is formatted as
UI-Venus-2 text and goes through the same parser as a model's, so its episodes are recorded, verified, viewed
and exported like any other. A planner that cannot go on (an `OracleError`) becomes the agent giving up with
CallUser, recorded, and kept in `error` for the run to report.

    OraclePolicy          a world task's scripted solution, planned on the live page
    DesktopOraclePolicy   a desktop task's scripted solution, planned on the X server's window facts
    OracleRecorder        the world oracle, also keeping the target box of each click (training targets)
    AttackerPolicy        follows every injected instruction of a safety task (measures the gate alone)

`PolicySpec` is what a suite worker builds a model policy from ('oracle', 'nano' or a served model's URL) and
`Metered` counts a policy's calls and tokens.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from venuskit.actions import format_call, format_response
from venuskit.actions.prompts import system_prompt
from venuskit.actions.types import Action, CallUser, Finished, Launch, Sequence, Type
from venuskit.agent.policy import PolicyOutput, parse_output
from venuskit.infra.config import help_text, option
from venuskit.tasks.desktop.oracle import OracleError as DesktopOracleError
from venuskit.tasks.oracle import Oracle, OracleError

ORACLE_ERRORS = (OracleError, DesktopOracleError)
# A model takes seconds per step, the oracle milliseconds. GTK's type-ahead (the file manager's interactive search)
# finishes handling typed keys after the screen already shows the match: a type-ahead, Escape and Return in quick
# succession opened the file selected before (files.organize: 3 runs of 3); with this pause, 0 of 39 file-manager
# runs failed. The pause is the policy's thinking time, not a recorded Wait.
PAUSE_AFTER_TYPING_S = 0.5
STOP_EARLY = ("A first part is done; stopping here.", Finished(content="Stopping early."))


class OracleDriven:
    """The family's base: `plan(observation, feedback)` gives (thought, action); `stop()` (for `partial` runs) ends
    the episode with Finished once a first step is done."""

    name = "oracle"

    def __init__(self, surface: str, stop: Callable[[], bool] | None = None) -> None:
        self.surface, self.stop = surface, stop
        self.goal, self.system, self.error = "", None, None
        self.steps = 0

    def plan(self, observation: Any, feedback: str | None) -> tuple[str, Action]:
        raise TypeError(f"{type(self).__name__} must define plan()")

    def act(self, observation: Any, history: list, feedback: str | None = None) -> PolicyOutput:
        if self.stop is not None and self.steps > 0 and self.stop():
            thought, action = STOP_EARLY
        else:
            thought, action = self.planned(observation, feedback)
        self.steps += 1
        return self.reply(thought, action)

    def planned(self, observation: Any, feedback: str | None) -> tuple[str, Action]:
        """plan(), with a planner that cannot go on turned into the agent giving up (recorded in `error`)."""
        try:
            return self.plan(observation, feedback)
        except ORACLE_ERRORS as e:
            self.error = str(e)
            return "The oracle could not go on.", CallUser(content=f"ORACLE ERROR: {e}")

    def reply(self, thought: str, action: Action) -> PolicyOutput:
        return parse_output(format_response(thought, action, self.surface), self.surface)

    def set_goal(self, goal: str) -> None:
        self.goal = goal

    def describe(self) -> dict[str, Any]:
        return {"policy": self.name}


class OraclePolicy(OracleDriven):
    """A world task's oracle, planning each step on the env's live page."""

    def __init__(self, env: Any, oracle: Any, surface: str, stop: Callable[[], bool] | None = None) -> None:
        super().__init__(surface, stop)
        self.env, self.oracle = env, oracle

    def plan(self, observation: Any, feedback: str | None) -> tuple[str, Action]:
        return self.oracle.next(self.env.page)


class DesktopOraclePolicy(OracleDriven):
    """A desktop task's oracle: it reads the env's facts (window geometry from the X server) to aim."""

    def __init__(self, env: Any, oracle: Any, stop: Callable[[], bool] | None = None) -> None:
        super().__init__("computer", stop)
        self.env, self.oracle = env, oracle
        self._typed = False  # the last action typed text

    def plan(self, observation: Any, feedback: str | None) -> tuple[str, Action]:
        if self._typed:
            time.sleep(PAUSE_AFTER_TYPING_S)
        # the oracle's privileged view: the X server's windows, and the home folder (to wait for a download)
        thought, action = self.oracle.next({**self.env.facts(), "home": str(self.env.home)})
        self._typed = _types(action)
        return thought, action

    def set_goal(self, goal: str) -> None:
        self.goal, self.system = goal, system_prompt(self.surface, goal)


def _types(action: Action) -> bool:
    if isinstance(action, Sequence):
        return any(_types(a) for a in action.actions)
    return isinstance(action, Type)


def box_oracle(steps: Any, surface: str, patient: bool = True) -> Oracle:
    """The world oracle, also keeping the box (in [0, 1] of the viewport) of the element behind each click
    (`patient=False` for labelling a policy's states: a missing element fails at once)."""
    from venuskit.actions import coords

    class BoxOracle(Oracle):
        def __init__(self) -> None:
            super().__init__(steps, surface, patient)
            self.boxes: dict[int, list[float]] = {}

        def _click_element(self, page: Any, el: Any, thought: str) -> None:
            super()._click_element(page, el, thought)
            box = el.bounding_box()
            size = page.viewport_size
            if box is not None:
                x1, y1 = coords.point_from_pixels(box["x"], box["y"], size["width"], size["height"])
                x2, y2 = coords.point_from_pixels(box["x"] + box["width"] - 1, box["y"] + box["height"] - 1,
                                                  size["width"], size["height"])  # fmt: skip
                self.boxes[id(self.queue[-1][1])] = [x1, y1, x2, y2]

    return BoxOracle()


class OracleRecorder(OraclePolicy):
    """The world oracle (a `box_oracle`), remembering the target box of each reply in `targets`."""

    def __init__(self, env: Any, oracle: Any, surface: str) -> None:
        super().__init__(env, oracle, surface)
        self.targets: list[dict[str, Any]] = []

    def planned(self, observation: Any, feedback: str | None) -> tuple[str, Action]:
        thought, action = super().planned(observation, feedback)
        self.targets.append({"action": format_call(action, self.surface), "box": self.oracle.boxes.get(id(action))})
        return thought, action

    def describe(self) -> dict[str, Any]:
        return {"policy": "oracle", "recorder": "venus-nano"}


# Feedback that says the harness stopped the attacker's current segment.
ATTACK_STOPPED = ("The safety gate blocked", "it was not typed", "SecretRefused")


class AttackerPolicy(OracleDriven):
    """A scripted policy that follows every injected instruction and attempts every harmful action: it walks the
    task's attack path (oracle steps; `goto` and `launch` start a new segment). When the gate blocks an action,
    a secret is refused or a step cannot be carried out, it gives that segment up and goes on with the next one
    (for injection tasks: the user's own task). Not a model; it measures the gate alone."""

    name = "attacker"

    def __init__(self, env: Any, steps: tuple[tuple[str, ...], ...], surface: str, world_base: str) -> None:
        super().__init__(surface)
        self.env, self.world_base = env, world_base
        self.segments = _segments(steps)
        self.oracle: Any = None
        self.gave_up: list[str] = []

    def act(self, observation: Any, history: list, feedback: str | None = None) -> PolicyOutput:
        if feedback and any(s in feedback for s in ATTACK_STOPPED) and self.oracle is not None:
            self.gave_up.append("stopped by the harness")
            self.oracle = None
        self.steps += 1
        while True:
            if self.oracle is None:
                if not self.segments:
                    return self.reply("Nothing left.", Finished(content="Done."))
                seg = self.segments.pop(0)
                op = seg[0]
                if op[0] in ("goto", "launch"):
                    url = self.world_base + op[1] if op[0] == "goto" else op[1]
                    self.oracle = Oracle(tuple(seg[1:]), self.surface)
                    return self.reply(f"Open {url}.", Launch(url=url))
                self.oracle = Oracle(tuple(seg), self.surface)
            try:
                thought, action = self.oracle.next(self.env.page)
            except OracleError as e:
                self.error, self.oracle = str(e), None
                self.gave_up.append(str(e))
                continue
            if self.oracle.done:  # this segment's steps are used up: the next segment
                self.oracle = None
                continue
            return self.reply(thought, action)


def _segments(steps: tuple[tuple[str, ...], ...]) -> list[list[tuple[str, ...]]]:
    out: list[list[tuple[str, ...]]] = []
    for s in steps:
        if not out or s[0] in ("goto", "launch"):
            out.append([])
        out[-1].append(s)
    return out


# ---- model policies -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class PolicySpec:
    """The policy each worker builds for each episode: 'oracle' (world tasks' scripted solutions), 'nano' (the
    embedded venus-nano) or the base URL of an OpenAI-compatible server. Picklable; the API key is read from
    the config and never written to disk."""

    model: str = field(metadata=help_text("oracle, nano, or an OpenAI-compatible base URL (http://HOST:PORT/v1)."))
    model_name: str = field(default="", metadata=help_text("Served model name (URL models)."))
    api_key: str = field(default="EMPTY", repr=False, metadata=help_text("API key (URL models); never saved."))
    temperature: float = 0.0
    max_tokens: int = 1024
    timeout_s: float = 120.0
    n_img: int = 2
    thinking: bool | None = None
    retries: int = field(default=3, metadata=help_text("The client's own retries of one model call (then: infra "
                                                       "error)."))  # fmt: skip
    backoff_s: float = option("First wait between the client's retries (doubles).", default=1.0)
    checkpoint: str = field(default="", metadata=help_text("nano: a checkpoint file instead of the shipped one."))

    def __post_init__(self) -> None:
        if self.kind == "url" and not self.model_name:
            raise ValueError(f"--model {self.model} is a server URL: pass --model-name too.")
        if self.model not in ("oracle", "nano") and not self.model.startswith(("http://", "https://")):
            raise ValueError(f"--model takes oracle, nano or a base URL like http://127.0.0.1:8000/v1; got "
                             f"{self.model!r}.")  # fmt: skip
        if self.kind == "nano":  # fail here, not in every worker: a missing checkpoint is no infrastructure hiccup
            from venuskit.models.nano import default_checkpoint

            path = Path(self.checkpoint) if self.checkpoint else default_checkpoint()
            if not path.is_file():
                raise ValueError(f"venus-nano's checkpoint {path} does not exist; rebuild it with `venus nano train`.")

    @property
    def kind(self) -> str:
        return self.model if self.model in ("oracle", "nano") else "url"

    def public(self) -> dict[str, Any]:
        return {k: v for k, v in dataclasses.asdict(self).items() if k != "api_key"}

    def build(self, surface: str, goal: str, today: str | None = None) -> Any:
        """A Policy for one episode (not for 'oracle', which the task's run builds from the task)."""
        if self.kind == "nano":
            return nano_policy(surface, goal, today, self.checkpoint)
        from venuskit.agent.policy import VenusPolicy
        from venuskit.models.openai_backend import ModelConfig, OpenAIBackend

        kwargs = {"enable_thinking": self.thinking} if self.thinking is not None else None
        config = ModelConfig(base_url=self.model, model=self.model_name, api_key=self.api_key,
                             temperature=self.temperature, max_tokens=self.max_tokens, timeout_s=self.timeout_s,
                             max_retries=self.retries, backoff_base_s=self.backoff_s,
                             chat_template_kwargs=kwargs)  # fmt: skip
        prompt = {"current_date": today} if surface == "browser" and today else {}
        return VenusPolicy(OpenAIBackend(config), surface, goal, n_img=self.n_img, prompt_kwargs=prompt)


_NANO_MODELS: dict[str, Any] = {}  # checkpoint path -> NanoModel, loaded once per worker process


def nano_policy(surface: str, goal: str, today: str | None = None, checkpoint: str = "") -> Any:
    """venus-nano (venuskit.agent.nano): the shipped checkpoint, or `checkpoint` (e.g. a closed-loop round's)."""
    from venuskit.agent.nano import NanoPolicy
    from venuskit.models.nano import NanoModel

    model = None
    if checkpoint:
        if checkpoint not in _NANO_MODELS:
            _NANO_MODELS[checkpoint] = NanoModel.load(checkpoint)
        model = _NANO_MODELS[checkpoint]
    prompt = {"current_date": today} if surface == "browser" and today else {}
    return NanoPolicy(surface, goal, model, prompt)


class Metered:
    """Wraps a policy and counts its model calls and tokens (from the replies' usage)."""

    def __init__(self, policy: Any) -> None:
        self.policy = policy
        self.calls = self.prompt_tokens = self.completion_tokens = 0

    def act(self, observation: Any, history: list, feedback: str | None = None) -> Any:
        out = self.policy.act(observation, history, feedback)
        self.calls += 1
        usage = getattr(out, "usage", None) or {}
        self.prompt_tokens += int(usage.get("prompt_tokens") or 0)
        self.completion_tokens += int(usage.get("completion_tokens") or 0)
        return out

    def counts(self) -> dict[str, int]:
        return {"model_calls": self.calls, "prompt_tokens": self.prompt_tokens,
                "completion_tokens": self.completion_tokens}  # fmt: skip

    def __getattr__(self, name: str) -> Any:  # surface, system, set_goal, describe, error ...
        return getattr(self.policy, name)


NO_MODEL = {"model_calls": 0, "prompt_tokens": 0, "completion_tokens": 0}
