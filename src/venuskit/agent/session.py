"""One function per job, joining an env, a policy, hooks and the episode store.

The CLI calls these; so can a notebook or an eval harness. Each job is described by one dataclass,
validated in `__post_init__` and saved into the episode manifest.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import threading
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from venuskit.agent.hooks import CallUserHandler, SafetyGate, StepCheck, allow_all, no_step_check, no_user
from venuskit.agent.policy import Policy, VenusPolicy
from venuskit.agent.runner import EpisodeRunner, RunConfig
from venuskit.envs.base import ActionRefused, Env, EnvError, Observation
from venuskit.models.openai_backend import ModelConfig, OpenAIBackend
from venuskit.record.episode import Episode, Step
from venuskit.record.store import EpisodeStoreError, EpisodeWriter


@dataclass
class AgentJob:
    """A UI-Venus-2 agent on one task."""

    goal: str = field(metadata={"help": "The task, in natural language (goes under '### User Task')."})
    surface: str = field(default="browser", metadata={"help": "browser, mobile (mobile-web preset) or computer."})
    out: Path = field(default=Path("runs"), metadata={"help": "Folder that receives the episode folder."})
    n_img: int = field(default=2, metadata={"help": "Past screenshots replayed to the model (N_IMG)."})
    run: RunConfig = field(default_factory=RunConfig)
    model: ModelConfig | None = field(default=None, metadata={"help": "OpenAI-compatible model endpoint."})

    def __post_init__(self) -> None:
        if not self.goal.strip():
            raise ValueError("The task goal is empty; pass --task 'what the agent should do'.")
        if self.surface not in ("browser", "mobile", "computer"):
            raise ValueError(f"surface must be 'browser', 'mobile' or 'computer' (desktop), got {self.surface!r}.")
        if self.n_img < 0:
            raise ValueError(f"n_img cannot be negative, got {self.n_img}.")


def new_episode_id(prefix: str = "ep") -> str:
    stamp = dt.datetime.now().strftime("%Y%m%d-%H%M%S")
    return f"{prefix}-{stamp}-{uuid.uuid4().hex[:6]}"


def to_jsonable(obj: Any) -> Any:
    """Dataclass configs -> plain JSON for the manifest (paths as strings, secrets dropped)."""
    if dataclasses.is_dataclass(obj):
        return {k: to_jsonable(v) for k, v in dataclasses.asdict(obj).items() if k != "api_key"}
    if isinstance(obj, dict):
        return {k: to_jsonable(v) for k, v in obj.items() if k != "api_key"}
    if isinstance(obj, (list, tuple)):
        return [to_jsonable(v) for v in obj]
    return str(obj) if isinstance(obj, Path) else obj


def make_policy(job: AgentJob, prompt_kwargs: dict[str, Any] | None = None) -> Policy:
    if job.model is None:
        raise ValueError("No model configured; pass --model http://HOST:PORT/v1 and --model-name NAME.")
    if prompt_kwargs is None and job.surface == "browser":
        prompt_kwargs = {"current_date": dt.date.today().isoformat()}  # the browser prompt says "Today is ..."
    return VenusPolicy(OpenAIBackend(job.model), job.surface, job.goal, n_img=job.n_img, prompt_kwargs=prompt_kwargs)


def run_episode(
    env: Env,
    policy: Policy,
    job: AgentJob,
    task: dict[str, Any],
    *,
    step_check: StepCheck = no_step_check,
    safety_gate: SafetyGate = allow_all,
    call_user: CallUserHandler = no_user,
    on_step: Callable[[Step], None] | None = None,
    resume_dir: Path | None = None,
    stop: threading.Event | None = None,
    episode_id: str | None = None,
) -> tuple[Episode, Path]:
    """Run (or resume) one episode and return it with its folder. The env is not closed here.

    A new episode's folder is `job.out/<episode_id>` (default: a fresh id; a given one must name a folder
    that does not hold an episode yet). The env is reset before the folder is made, so a start page the env
    refuses (ActionRefused) raises here and leaves nothing behind; any other reset error is recorded as the
    episode's outcome. Resuming reopens the page the episode last saw (its final screen, else its last
    step's), or `task["start_url"]` when the caller gives one; the task's other keys are the episode's own.

    A safety gate that screens requests (`screen_request`) also sees, for this episode, every request the env's
    pages send (`gate_requests`: what the DOM hides is held at the network layer)."""
    with _requests_screened(env, safety_gate):
        return _run_episode(env, policy, job, task, step_check=step_check, safety_gate=safety_gate,
                            call_user=call_user, on_step=on_step, resume_dir=resume_dir, stop=stop,
                            episode_id=episode_id)  # fmt: skip


@contextlib.contextmanager
def _requests_screened(env: Env, gate: SafetyGate) -> Iterator[None]:
    attach = getattr(env, "gate_requests", None)
    if not (callable(attach) and callable(getattr(gate, "screen_request", None))):
        yield
        return
    attach(gate)
    try:
        yield
    finally:
        attach(None)


def _run_episode(
    env: Env,
    policy: Policy,
    job: AgentJob,
    task: dict[str, Any],
    *,
    step_check: StepCheck,
    safety_gate: SafetyGate,
    call_user: CallUserHandler,
    on_step: Callable[[Step], None] | None,
    resume_dir: Path | None,
    stop: threading.Event | None,
    episode_id: str | None,
) -> tuple[Episode, Path]:
    first: Observation | EnvError | None = None
    if resume_dir is not None:
        writer = EpisodeWriter.open(resume_dir)
        if writer.episode.finished:
            writer.close()
            raise ValueError(f"Episode {resume_dir} is finished ({writer.episode.outcome.reason}); nothing to "
                             "resume.")  # fmt: skip
        given = {"start_url": task["start_url"]} if task.get("start_url") else {}
        # "resume": a device env (Android) picks the device up where it is instead of reopening the start
        task = {**writer.episode.task, **_resume_start(writer), **given, "resume": True}
        policy.set_goal(writer.episode.goal)
    else:
        policy.set_goal(job.goal)
        try:
            first = env.reset(task)
        except ActionRefused:
            raise  # e.g. a start URL outside the allowlist: nothing ran, so there is no episode to keep
        except EnvError as exc:
            first = exc
        try:
            writer = EpisodeWriter.create(job.out, _new_episode(job, policy, task, episode_id, step_check))
        except OSError as e:  # FileExistsError for a taken episode id stays itself
            if isinstance(e, FileExistsError):
                raise
            raise EpisodeStoreError(f"Cannot make an episode folder under {job.out}: {e.strerror or e}.") from e
    runner = EpisodeRunner(
        env,
        policy,
        writer,
        job.run,
        step_check=step_check,
        safety_gate=safety_gate,
        call_user=call_user,
        on_step=on_step,
        stop=stop,
    )
    try:
        try:
            if resume_dir is not None:
                runner.resume_history()
            episode = runner.run(task, first)
        finally:
            writer.close()
    except OSError as e:  # a full disk, say: what was written before is a valid episode
        raise EpisodeStoreError(f"Could not write episode {writer.dir} ({e.strerror or e}); the steps before are "
                                f"saved: resume with --resume {writer.dir}.") from e  # fmt: skip
    return episode, writer.dir


def _new_episode(job: AgentJob, policy: Policy, task: dict[str, Any], episode_id: str | None,
                 step_check: StepCheck = no_step_check) -> Episode:  # fmt: skip
    config = {"n_img": job.n_img, "run": job.run, "system_prompt": getattr(policy, "system", None)}
    describe = getattr(step_check, "describe", None)  # a step check that judges with a model says which one
    if callable(describe):
        config["step_check"] = describe()
    return Episode(
        episode_id=episode_id or new_episode_id(),
        task={"goal": job.goal, **task},
        surface=job.surface,
        screen=(0, 0),
        model=policy.describe(),
        config=to_jsonable(config),
        created=dt.datetime.now(dt.UTC).isoformat(timespec="seconds"),
    )


def _resume_start(writer: EpisodeWriter) -> dict[str, Any]:
    """Resuming a web episode reopens the last URL it saw; page state beyond the URL is not restored."""
    final = writer.episode.final
    if final is not None and final.url:
        return {"start_url": final.url}
    steps = writer.load_steps()
    last_url = next((s.url for s in reversed(steps) if s.url), None)
    return {"start_url": last_url} if last_url else {}
