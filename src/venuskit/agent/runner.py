"""The closed loop: observe -> policy -> step check -> safety gate -> env -> record, until an end.

One recorded loop that saves every step as it happens, so a crash, a dead model server or a SIGINT
never loses the episode: the folder on disk is always a valid, resumable episode. Each step holds the
screen its action was chosen on; when the episode ends after an action ran (the env ended it, the harness
truncated it, Ctrl-C), the screen that action led to is recorded too, as the episode's final observation.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from venuskit.actions.coords import point_to_pixels
from venuskit.actions.history import Turn
from venuskit.actions.prompts import notes_feedback, step_feedback
from venuskit.actions.types import Action, CallUser, Scroll, Sequence, Swipe
from venuskit.agent.hooks import (
    CallUserHandler,
    GateDecision,
    SafetyGate,
    StepCheck,
    StepContext,
    allow_all,
    no_step_check,
    no_user,
)
from venuskit.agent.policy import Policy, PolicyOutput
from venuskit.envs.base import BrowserCrashed, Env, EnvError, Observation, StepResult
from venuskit.models.openai_backend import ModelError
from venuskit.record.episode import Episode, FinalObservation, Outcome, Step
from venuskit.record.store import EpisodeWriter


@dataclass
class RunConfig:
    """Limits of one episode. Saved into the episode manifest."""

    max_steps: int = field(default=30, metadata={"help": "Truncate the episode after this many steps."})
    episode_timeout_s: float = field(default=1800.0, metadata={"help": "Truncate after this many seconds."})
    max_identical: int = field(default=5, metadata={"help": "Truncate after this many identical consecutive actions."})
    parse_reasks: int = field(default=1, metadata={"help": "Re-ask the model this often after an unparsable reply."})
    step_check_retries: int = field(default=3, metadata={"help": "Re-samples allowed when the step check rejects."})
    identical_grid_px: int = field(default=50, metadata={"help": "Clicks within this many pixels count as identical."})

    def __post_init__(self) -> None:
        if self.max_steps < 1:
            raise ValueError(f"max_steps must be at least 1, got {self.max_steps}.")
        if self.max_identical < 2:
            raise ValueError(
                f"max_identical must be at least 2 (a repeat needs two actions), got {self.max_identical}."
            )
        if self.parse_reasks < 0 or self.step_check_retries < 0:
            raise ValueError("parse_reasks and step_check_retries cannot be negative.")


@dataclass
class _Proposal:
    """The policy's accepted proposal for this step, plus every rejected attempt before it."""

    output: PolicyOutput
    attempts: list[dict[str, Any]]
    model_s: float
    check: dict[str, Any] = field(default_factory=dict)


class EpisodeRunner:
    """Joins an env, a policy and an episode writer. Env, policy and task never import each other."""

    def __init__(
        self,
        env: Env,
        policy: Policy,
        writer: EpisodeWriter,
        config: RunConfig | None = None,
        *,
        step_check: StepCheck = no_step_check,
        safety_gate: SafetyGate = allow_all,
        call_user: CallUserHandler = no_user,
        on_step: Callable[[Step], None] | None = None,
        stop: threading.Event | None = None,
    ):
        self.env, self.policy, self.writer = env, policy, writer
        self.config = config or RunConfig()
        self.step_check, self.safety_gate, self.call_user = step_check, safety_gate, call_user
        self.on_step = on_step  # progress display; called after each step is recorded (durable before the next)
        self.stop = stop or threading.Event()  # set by a signal handler: end cleanly at the next step boundary
        self.episode: Episode = writer.episode
        self.turns: list[Turn] = []
        self.feedback: str | None = None
        self.recent_keys: list[tuple] = []
        self.notes: list[str] = []  # TakeNote contents, re-sent with every later observation
        self.recorded: list[Step] = []  # steps on disk, oldest first: the step check's history
        # The observation an executed action led to, until a step records it (its index: that step's).
        self._unrecorded: tuple[Observation, int] | None = None

    # ---- the loop -------------------------------------------------------------------------------

    def run(self, task: dict[str, Any], first: Observation | EnvError | None = None) -> Episode:
        """Run to an end and return the episode. KeyboardInterrupt is recorded, then re-raised.
        `first`: what env.reset(task) already returned or raised (run_episode resets before it makes a
        folder); None: reset here."""
        t_start = time.monotonic()
        if self.episode.finished:
            raise ValueError(
                f"Episode {self.episode.episode_id} is finished ({self.episode.outcome.reason}); nothing to resume."
            )
        self.episode.outcome = Outcome()  # a resumed episode drops the outcome that stopped it
        if self.episode.final is not None:
            self.writer.clear_final()  # and goes on from the screen it ended on
        try:
            obs = self._reset(task, first)
            if obs is None:
                return self.episode
            while self.episode.outcome.reason is None:
                if self._out_of_budget(t_start):
                    break
                obs = self._step(obs)
        except KeyboardInterrupt:
            self._interrupted()
            raise
        return self.episode

    def resume_history(self) -> None:
        """Rebuild the model's history from the steps already on disk (resume after an interruption)."""
        for step in self.writer.load_steps():
            self.recorded.append(step)
            if step.action is not None and step.raw_output is not None:  # the live run keeps parsed replies only
                self.turns.append(
                    Turn(png=self.writer.read_png(step), response=step.raw_output, feedback=step.feedback)
                )
            if step.info.get("note"):
                self.notes.append(str(step.info["note"]))

    def _reset(self, task: dict[str, Any], first: Observation | EnvError | None) -> Observation | None:
        try:
            if isinstance(first, EnvError):
                raise first
            obs = first if first is not None else self.env.reset(task)
        except EnvError as exc:
            self._end(Outcome(reason="error", error=_err(exc)), finished=False)
            return None
        self.episode.screen = (obs.width, obs.height)
        manifest: dict[str, Any] = {"screen": [obs.width, obs.height]}
        reset = {k: obs.info[k] for k in ("blocked", "gated_requests", "dialogs") if obs.info.get(k)}  # its own doings
        if reset:
            manifest["reset"] = {**self.episode.reset, **reset}
        if obs.info.get("goal"):  # envs like MiniWoB++ only know the instruction after reset
            self.episode.task["goal"] = obs.info["goal"]
            self.policy.set_goal(obs.info["goal"])
            manifest["task"] = self.episode.task
        config = dict(self.episode.config)
        system = getattr(self.policy, "system", None)
        if isinstance(system, str):
            # The prompt the model sees from now on (after set_goal): exports replay exactly this text.
            config["system_prompt"] = system
        if obs.info.get("device"):  # a device env says what it ran on (the Android stand-in, what it lacks)
            config["device"] = obs.info["device"]
        if config != self.episode.config:
            manifest["config"] = config
        self.writer.update_manifest(**manifest)
        return obs

    def _interrupted(self) -> None:
        interrupted = {"type": "KeyboardInterrupt", "message": "Run interrupted; resume the episode folder."}
        self._end(Outcome(reason="interrupted", error=interrupted), finished=False)

    def _out_of_budget(self, t_start: float) -> bool:
        if self.stop.is_set():
            self._interrupted()
        elif self.writer.next_index >= self.config.max_steps:
            self._end(Outcome(truncated=True, reason="step_limit"))
        elif time.monotonic() - t_start > self.config.episode_timeout_s:
            self._end(Outcome(truncated=True, reason="timeout"))
        return self.episode.outcome.reason is not None

    def _step(self, obs: Observation) -> Observation:
        step = Step(index=self.writer.next_index, screenshot=None, url=obs.url, title=obs.title)
        if obs.info.get("focus_editable") is not None:  # a page fact of this screenshot, for offline step checks
            step.info["focus_editable"] = obs.info["focus_editable"]
        # Feedback of the last step first, then the notes in force (the upstream browser order); recorded
        # verbatim so exports replay exactly what the model saw.
        feedback, self.feedback = _join(self.feedback, notes_feedback(self.notes)), None
        step.feedback = feedback
        try:
            proposal = self._propose(obs, step, feedback)
        except ModelError as exc:
            step.error = _err(exc)
            self._record(step, obs)
            self._end(Outcome(reason="error", error=step.error), finished=False)
            return obs
        out = proposal.output
        step.raw_output, step.thought, step.attempts = out.raw, out.thought, proposal.attempts
        step.timings["model_s"] = proposal.model_s
        step.info.update(proposal.check)
        if out.error is not None:
            return self._record_parse_failure(step, obs, out)
        step.action = out.actions[0] if len(out.actions) == 1 else Sequence(actions=tuple(out.actions))
        self.turns.append(Turn(png=obs.png, response=out.raw, feedback=feedback))
        return self._execute(step, obs, feedback)

    # ---- proposing: parse re-asks and the step check -------------------------------------------

    def _propose(self, obs: Observation, step: Step, feedback: str | None) -> _Proposal:
        attempts: list[dict[str, Any]] = []
        t0 = time.perf_counter()
        out = self._ask(obs, feedback, attempts)
        check: dict[str, Any] = {}
        for _ in range(self.config.step_check_retries):
            if out.error is not None:
                break
            verdict = self.step_check(self._context(step, obs, out))
            check = {"step_check": {"label": verdict.label, "reason": verdict.reason, **verdict.details}}
            if verdict.ok:
                break
            attempts.append(
                {"raw": out.raw, "rejected_by": "step_check", "label": verdict.label, "reason": verdict.reason}
            )
            out = self._ask(obs, _join(feedback, _rejected_feedback(out, verdict.label, verdict.reason)), attempts)
        return _Proposal(out, attempts, time.perf_counter() - t0, check)

    def _ask(self, obs: Observation, feedback: str | None, attempts: list[dict[str, Any]]) -> PolicyOutput:
        """Ask the policy; an unparsable reply gets `parse_reasks` more tries with the error as feedback."""
        out = self.policy.act(obs, self.turns, feedback)
        for _ in range(self.config.parse_reasks):
            if out.error is None:
                break
            attempts.append({"raw": out.raw, "rejected_by": "parser", "reason": str(out.error)})
            out = self.policy.act(obs, self.turns, _join(feedback, _parse_feedback(out)))
        return out

    def _record_parse_failure(self, step: Step, obs: Observation, out: PolicyOutput) -> Observation:
        step.error = _err(out.error)
        self.feedback = _parse_feedback(out)
        self._record(step, obs)
        return obs

    # ---- executing: safety gate, terminal actions, the env ---------------------------------------

    def _execute(self, step: Step, obs: Observation, feedback: str | None) -> Observation:
        action = step.action
        assert action is not None
        try:
            gate = self._gate(step, obs)
        except BrowserCrashed as exc:  # the browser died under the gate's inspection: the action never ran
            return self._browser_lost(step, obs, exc)
        if gate.decision != "allow" and not self._gate_passes(step, gate):
            self._record(step, obs)
            return obs
        if action.terminal or (isinstance(action, Sequence) and action.terminal_child and len(action.actions) == 1):
            return self._terminal(step, obs, action)
        try:
            result = self._run_env(step, action)
        except _EnvLost as lost:  # no screen to go on from: the step is kept and the episode left resumable
            step.error = _err(lost.error)
            self._record(step, obs)
            self._end(Outcome(reason="error", error=step.error), finished=False)
            return obs
        self._record(step, obs)
        self._unrecorded = (result.observation, step.index)
        if isinstance(action, Sequence) and action.terminal_child and result.error is None:
            self._terminal_outcome(action.actions[-1], step)
        elif result.terminated:
            self._end(Outcome(terminated=True, reason="env_done", reward=result.reward))
        self._check_repeats(action, obs)
        return result.observation

    def _gate(self, step: Step, obs: Observation) -> GateDecision:
        """The safety gate's decision, recorded in the step. A gate that raises fails closed: the action then
        needs the user's approval, like any consequential one."""
        try:
            gate = self.safety_gate(self._context(step, obs, None))
        except BrowserCrashed:
            raise  # infrastructure, not a verdict: the step records it and a suite re-runs the episode
        except Exception as exc:  # noqa: BLE001 - whatever broke, the action must not run unapproved
            gate = GateDecision("ask_user", f"The safety gate failed ({type(exc).__name__}: {exc}).")
        if gate.details or gate.decision != "allow":
            step.info["safety_gate"] = {**gate.details, "decision": gate.decision, "reason": gate.reason}
        return gate

    def _browser_lost(self, step: Step, obs: Observation, exc: BrowserCrashed) -> Observation:
        """Record the crash as the step's error and go on from the relaunched browser's screen, as after a
        crash in env.step; a screen that cannot be taken ends the episode, resumable."""
        step.error = _err(exc)
        self._record(step, obs)
        try:
            after = self.env.observe()  # type: ignore[attr-defined]
        except EnvError as lost:
            self._end(Outcome(reason="error", error=_err(lost)), finished=False)
            return obs
        self._unrecorded = (after, step.index)
        return after

    def _gate_passes(self, step: Step, gate: Any) -> bool:
        if gate.decision == "ask_user":
            reply = self.call_user(f"The agent wants to run {step.action.name}: {gate.reason} Allow it? (yes/no)")
            step.info["safety_gate"]["user_reply"] = reply
            if reply is None:
                self._end(Outcome(terminated=True, needs_user=True, reason="call_user", answer=gate.reason))
                return False
            if reply.strip().lower() in ("y", "yes", "allow", "ok"):
                return True
        step.error = {"type": "SafetyBlocked", "message": f"The safety gate blocked {step.action.name}: {gate.reason}"}
        self.feedback = step.error["message"]
        return False

    def _terminal(self, step: Step, obs: Observation, action: Action) -> Observation:
        if isinstance(action, CallUser):
            reply = self.call_user(action.content)
            if reply is not None:  # somebody answered: the episode goes on with the reply as feedback
                step.info["user_reply"] = reply
                self.feedback = f"The user replied: {reply}"
                self._record(step, obs)
                return obs
        self._record(step, obs)
        self._terminal_outcome(action, step)
        return obs

    def _terminal_outcome(self, action: Action, step: Step) -> None:
        reason = {"Finished": "finished", "Answer": "answer", "CallUser": "call_user"}[action.name]
        self._end(
            Outcome(
                terminated=True,
                needs_user=isinstance(action, CallUser),
                reason=reason,
                answer=getattr(action, "content", None),
            )
        )

    def _run_env(self, step: Step, action: Action) -> StepResult:
        t0 = time.perf_counter()
        children = action.actions if isinstance(action, Sequence) else (action,)
        executed, result = [], None
        for child in children:
            if child.terminal:
                break
            result = self._env_step(child)
            executed.append(result.executed)
            step.info.update(result.info)
            if result.error is not None:
                step.error = _err(result.error)
                break
        step.executed = executed[0] if len(executed) == 1 else {"op": "sequence", "children": executed}
        step.timings["env_s"] = time.perf_counter() - t0
        self.feedback = _join(
            self.feedback,
            step_feedback(
                error=step.error["message"] if step.error else None,
                response=step.raw_output,
                url=step.info.get("url"),
                options=step.info.get("options") or step.info.get("select_options"),  # a click on a <select>
            ),
        )
        if "note" in step.info:
            self.notes.append(str(step.info["note"]))
        assert result is not None
        return result

    def _env_step(self, action: Action) -> StepResult:
        """env.step returns recoverable errors in the result; an EnvError raised here is one it could not
        recover from within the step, so it is recorded and the observation re-taken. When that fails too (a
        device that went away), _EnvLost ends the episode."""
        try:
            return self.env.step(action)
        except EnvError as exc:
            try:
                return StepResult(observation=self.env.observe(), error=exc)  # type: ignore[attr-defined]
            except EnvError:
                raise _EnvLost(exc) from exc

    # ---- bookkeeping ----------------------------------------------------------------------------

    def _record(self, step: Step, obs: Observation) -> None:
        if self._unrecorded is not None and self._unrecorded[0] is obs:
            self._unrecorded = None  # this step holds that screen
        stored = self.writer.add_step(step, obs.png)
        step.screenshot = stored.screenshot
        self.recorded.append(step)
        if self.on_step is not None:
            self.on_step(step)

    def _check_repeats(self, action: Action, obs: Observation) -> None:
        if isinstance(action, (Swipe, Scroll)):
            self.recent_keys.clear()
            return
        self.recent_keys.append(_action_key(action, obs, self.config.identical_grid_px))
        tail = self.recent_keys[-self.config.max_identical :]
        if len(tail) == self.config.max_identical and len(set(tail)) == 1:
            self._end(Outcome(truncated=True, reason="repeated_action"))

    def _context(self, step: Step, obs: Observation, out: PolicyOutput | None) -> StepContext:
        action = (
            step.action
            if out is None
            else (out.actions[0] if len(out.actions) == 1 else Sequence(actions=tuple(out.actions)))
        )
        return StepContext(
            goal=self.episode.goal,
            surface=self.policy.surface,
            step_index=step.index,
            observation=obs,
            action=action,
            thought=(out.thought if out else step.thought),
            raw_output=(out.raw if out else step.raw_output or ""),
            history=tuple(self.recorded),
        )

    def _end(self, outcome: Outcome, finished: bool = True) -> None:
        self.episode.outcome = outcome
        if self._unrecorded is not None:  # the screen the last action led to, which no step holds
            obs, after = self._unrecorded
            self._unrecorded = None
            final = FinalObservation(after_step=after, url=obs.url, title=obs.title)
            self.writer.add_final(obs.png, final)
        self.writer.update_manifest(outcome=outcome, finished=finished)


class _EnvLost(Exception):
    """The env raised from a step and could not show a screen afterwards."""

    def __init__(self, error: EnvError) -> None:
        super().__init__(str(error))
        self.error = error


def _action_key(action: Action, obs: Observation, grid_px: int) -> tuple:
    d = action.to_dict()
    for k in ("point", "start", "end"):
        if d.get(k) is not None:
            x, y = point_to_pixels(tuple(d[k]), obs.width, obs.height)
            d[k] = (x // grid_px, y // grid_px)
    return tuple(sorted((k, repr(v)) for k, v in d.items()))


def _err(exc: BaseException | None) -> dict[str, Any]:
    return {"type": getattr(exc, "kind", type(exc).__name__), "message": str(exc)}


def _parse_feedback(out: PolicyOutput) -> str:
    hint = "Reply with <think>...</think> then exactly one <action>Call(keyword=value)</action>."
    return step_feedback(error=f"{out.error} {hint}", response=out.raw) or hint


def _rejected_feedback(out: PolicyOutput, label: str, reason: str) -> str:
    return step_feedback(error=f"The step verifier judged this action {label}: {reason}", response=out.raw) or reason


def _join(a: str | None, b: str | None) -> str | None:
    parts = [p for p in (a, b) if p]
    return "\n".join(parts) if parts else None
