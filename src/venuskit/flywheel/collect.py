"""The flywheel's first stage, collect: the one place that runs episodes and synthesis to make training data.

The stages themselves (`venuskit.train.nano`: sft, grpo, mopd) only read rows; `flywheel.rows` turns what is
collected here into rows.

- `world_oracle_episodes`: the task oracle on training templates and training seeds (browser and mobile, every
  parameter variant, so en and zh), recorded like any model's episode. The oracle's target element box of each
  click (read from the DOM while the data is made, never at inference) goes into `nano_targets.json` next to the
  steps, so a click's reward and its supervision are "inside the element", not "near one pixel".
- `world_relabel_rollouts`: a policy acts in the world while the oracle plans the right next action on the live
  page at every state it visits; the oracle's action (and box) is the reference for that state
  (`nano_targets.json` holds it). The oracle's plan advances only when the policy did what it would have done;
  after `max_off` steps off the oracle's path the episode stops (the oracle can no longer say what is right).
- `grounding_data` / `grounding_rows`: synthetic grounding pages of the training element families, training seeds.
- `captcha_data` / `captcha_rows`: CAPTCHA instances of the training types on training seeds with the oracle's
  solution (`venus captcha synth`), as UI-Venus-2 CAPTCHA rows.

Only training templates, training seeds and training skins ever enter (`venuskit.tasks.splits`); the validation
slice of the training templates (`splits.validation_templates`) is collected apart, for the learning curves only.

Every collection keeps an index (`index.jsonl`) and skips what is already there, so a rerun resumes.
"""

from __future__ import annotations

import copy
import json
import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from venuskit.actions import format_call
from venuskit.actions.types import CallUser
from venuskit.agent.policy import PolicyOutput
from venuskit.infra.atomic import append_line, write_json
from venuskit.runs.policies import OracleDriven, OracleRecorder, box_oracle
from venuskit.runs.world import run_world_task, world_browser
from venuskit.tasks import splits
from venuskit.tasks.oracle import OracleError
from venuskit.tasks.spec import get_task
from venuskit.train.rewards import action_verdict
from venuskit.world.server import WorldServer

log = logging.getLogger(__name__)
TARGETS = "nano_targets.json"
INDEX = "index.jsonl"


@dataclass(frozen=True)
class Job:
    task: str
    seed: int
    surface: str
    skin: int = 0  # the world's look (venuskit.world.skins); always a training skin

    @property
    def key(self) -> str:  # a skin-0 job keeps the key it had before skins existed, so old indexes resume
        return f"{self.task}|{self.seed}|{self.surface}" + (f"|skin{self.skin}" if self.skin else "")


def _done(out: Path) -> dict[str, dict[str, Any]]:
    path = out / INDEX
    if not path.is_file():
        return {}
    rows = {}
    for line in path.read_text("utf-8").splitlines():
        try:
            row = json.loads(line)
            rows[row["key"]] = row
        except (json.JSONDecodeError, KeyError):
            continue  # a torn last line of an interrupted run; the job runs again
    return rows


def _append(out: Path, row: dict[str, Any]) -> None:
    append_line(out / INDEX, (json.dumps(row) + "\n").encode(), durable=False)


def world_jobs(templates: Iterable[str], surfaces: Iterable[str], seeds_per_variant: int = 1,
               seed_offset: int = 0, skins: Iterable[int] = (0,)) -> list[Job]:  # fmt: skip
    """Every parameter variant of each template on each surface it supports, with training seeds only; the jobs
    take their skins from `skins` in turn (training skins only: `splits.training_skins()`), so a collection over
    many skins spreads its episodes over many looks."""
    looks = list(skins)
    if not looks:
        raise ValueError("world_jobs needs at least one skin (0 is the default look).")
    for skin in looks:
        splits.require_train_skin(skin)
    lo, hi = splits.load().world_train_seeds
    jobs = []
    for tid in templates:
        splits.require_train_template(tid)
        spec = get_task(tid)
        n = len(spec.params)
        for surface in surfaces:
            if surface not in spec.surfaces:
                continue
            for k in range(seeds_per_variant):
                for v in range(n):
                    seed = lo + seed_offset + (k * n) + v + (n * seeds_per_variant if surface == "mobile" else 0)
                    if seed > hi:
                        raise ValueError(f"Seed {seed} is outside the training seeds {lo}..{hi}.")
                    jobs.append(Job(tid, seed, surface, looks[len(jobs) % len(looks)]))
    return jobs


def _write_targets(folder: Path, targets: list[dict[str, Any]]) -> None:
    write_json(folder / TARGETS, targets, durable=False)


def world_oracle_episodes(out: Path, jobs: list[Job], on_done: Callable[[dict[str, Any]], None] | None = None,
                          max_steps: int | None = None) -> list[dict[str, Any]]:  # fmt: skip
    """Run the oracle on every job not already in `out/index.jsonl`; returns the index rows of all jobs."""
    out.mkdir(parents=True, exist_ok=True)
    done = _done(out)
    todo = [j for j in jobs if j.key not in done]
    envs: dict[str, Any] = {}
    with WorldServer() as server:
        try:
            for job in todo:
                env = envs.get(job.surface) or envs.setdefault(job.surface, world_browser(job.surface))
                steps = get_task(job.task).instance(job.seed).oracle
                rec = OracleRecorder(env, box_oracle(steps, job.surface), job.surface)
                row = {"key": job.key, "task": job.task, "seed": job.seed, "surface": job.surface, "skin": job.skin}
                try:
                    run = run_world_task(job.task, job.seed, policy=lambda g, t, r=rec: r, out=out / "episodes",
                                         surface=job.surface, server=server, env=env, max_steps=max_steps,
                                         skin=job.skin)  # fmt: skip
                    _write_targets(run.episode_dir, rec.targets)
                    row.update(episode_dir=str(run.episode_dir), verdict=run.verdict.verdict,
                               oracle_error=rec.error, seconds=round(run.seconds, 2))  # fmt: skip
                except Exception as exc:  # noqa: BLE001 - one broken task must not stop the collection
                    log.warning("World job %s failed: %s", job.key, exc)
                    row.update(episode_dir=None, verdict="error", oracle_error=f"{type(exc).__name__}: {exc}")
                _append(out, row)
                done[job.key] = row
                if on_done:
                    on_done(row)
        finally:
            for env in envs.values():
                env.close()
    return [done[j.key] for j in jobs if j.key in done]


# ---- policy rollouts relabelled by the oracle -------------------------------------------------------------


class RelabelPolicy(OracleDriven):
    """The student acts; at every state the oracle plans its own next action on the live page (the reference, with
    its box, in `targets`), and its plan advances only when the student did the same thing. After `max_off` steps
    off the oracle's path the episode stops: the oracle can no longer say what is right."""

    name = "relabel"

    def __init__(self, env: Any, steps: Any, surface: str, student: Any, max_off: int) -> None:
        super().__init__(surface)
        self.env, self.student, self.max_off = env, student, max_off
        self.oracle = box_oracle(steps, surface)
        self.targets: list[dict[str, Any]] = []
        self.off = 0

    def act(self, observation: Any, history: list, feedback: str | None = None) -> PolicyOutput:
        saved = (copy.copy(self.oracle.steps), copy.copy(self.oracle.queue), self.oracle._scrolls)
        try:
            _, ref = self.oracle.next(self.env.page)
            box = self.oracle.boxes.get(id(ref))
        except OracleError:
            ref, box = None, None
        out = self.student.act(observation, history, feedback)
        mine = out.actions[0] if out.error is None and len(out.actions) == 1 else None
        same = ref is not None and mine is not None and action_verdict(mine, ref, tuple(box) if box else None
                                                                       ) == "correct"  # fmt: skip
        if not same:  # the oracle's plan stays where it was; the page has moved on without it
            self.oracle.steps, self.oracle.queue, self.oracle._scrolls = saved
            self.off += 1
        self.targets.append({"action": format_call(ref, self.surface) if ref is not None else None,
                             "box": box, "agreed": same})  # fmt: skip
        self.steps += 1
        if self.off > self.max_off or ref is None:
            return self.reply("Stop here.", CallUser(content="Stopping: off the reference path."))
        return out

    def set_goal(self, goal: str) -> None:
        self.goal = goal
        self.student.set_goal(goal)

    def describe(self) -> dict[str, Any]:
        return {"policy": self.name, "student": self.student.describe()}



def world_relabel_rollouts(out: Path, jobs: list[Job], make_student: Callable[[str, str], Any], *,
                           max_off: int = 2, max_steps: int = 12) -> list[dict[str, Any]]:  # fmt: skip
    """Run the student on every job (resumable), each state relabelled with the oracle's action."""
    out.mkdir(parents=True, exist_ok=True)
    done = _done(out)
    todo = [j for j in jobs if j.key not in done]
    envs: dict[str, Any] = {}
    with WorldServer() as server:
        try:
            for job in todo:
                env = envs.get(job.surface) or envs.setdefault(job.surface, world_browser(job.surface))
                steps = get_task(job.task).instance(job.seed).oracle
                row = {"key": job.key, "task": job.task, "seed": job.seed, "surface": job.surface, "skin": job.skin}

                def factory(goal: str, today: str, job: Job = job, steps: Any = steps, env: Any = env) -> Any:
                    return RelabelPolicy(env, steps, job.surface, make_student(goal, today), max_off)

                holder: dict[str, Any] = {}

                def capture(goal: str, today: str, f: Callable = factory, h: dict = holder) -> Any:
                    h["p"] = f(goal, today)
                    return h["p"]

                try:
                    run = run_world_task(job.task, job.seed, policy=capture, out=out / "episodes",
                                         surface=job.surface, server=server, env=env, max_steps=max_steps,
                                         skin=job.skin)  # fmt: skip
                    _write_targets(run.episode_dir, holder["p"].targets)
                    agreed = sum(t["agreed"] for t in holder["p"].targets)
                    row.update(episode_dir=str(run.episode_dir), verdict=run.verdict.verdict, agreed=agreed,
                               states=len(holder["p"].targets))  # fmt: skip
                except Exception as exc:  # noqa: BLE001
                    log.warning("Rollout %s failed: %s", job.key, exc)
                    row.update(episode_dir=None, verdict="error", error=f"{type(exc).__name__}: {exc}")
                _append(out, row)
                done[job.key] = row
        finally:
            for env in envs.values():
                env.close()
    return [done[j.key] for j in jobs if j.key in done]


# ---- grounding ---------------------------------------------------------------------------------------------


def grounding_data(out: Path, n: int, seed: int) -> Path:
    """Synthetic grounding pages (ScreenSpot-Pro layout) from the training families and a training seed."""
    from venuskit.synth.grounding import GroundingConfig, generate
    from venuskit.synth.grounding.families import PANEL_FAMILIES

    splits.require_train_seed(seed, splits.load().grounding_train_seeds, "Grounding")
    families = tuple(f for f in PANEL_FAMILIES if splits.grounding_family_split(f) == "train")
    if (out / "manifest.json").is_file():
        return out
    generate(GroundingConfig(n=n, seed=seed, families=families, refusal_share=0.0), out, fmt="screenspot-pro")
    return out


# ---- CAPTCHA -----------------------------------------------------------------------------------------------


def captcha_data(out: Path, per_type: int, seed_start: int = 0) -> Path:
    """CAPTCHA instances of every *training* type on training seeds, each with the page screenshot and the oracle's
    solution (`venus captcha synth` rows). Resumable: an existing rows file is kept."""
    from venuskit.synth.captcha.dataset import SynthConfig, synthesise
    from venuskit.synth.captcha.registry import type_names

    splits.require_train_seed(seed_start, splits.load().captcha_train_seeds, "CAPTCHA")
    types = [t for t in type_names() if splits.captcha_split(t) == "train"]
    if not (out / "rows.jsonl").is_file() and per_type > 0:
        synthesise(SynthConfig(n=per_type * len(types), out=out, types=types, seed_start=seed_start))
    return out
