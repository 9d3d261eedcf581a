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
import zlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from venuskit.actions import format_call
from venuskit.actions.types import CallUser, Launch, PressBack
from venuskit.agent.nano import nano_policy_factory
from venuskit.agent.policy import PolicyOutput
from venuskit.infra.atomic import append_line, write_json
from venuskit.runs.parallel import Parallel, run_jobs
from venuskit.runs.policies import OracleDriven, OracleRecorder, box_oracle
from venuskit.runs.world import close_envs, run_world_task, world_browser
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


def read_index(out: Path) -> list[dict[str, Any]]:
    """The index rows of a collection folder, one per job (the latest line of each)."""
    return list(_done(out).values())


def _append(out: Path, row: dict[str, Any]) -> None:
    append_line(out / INDEX, (json.dumps(row) + "\n").encode(), durable=False)


def world_jobs(templates: Iterable[str], surfaces: Iterable[str], seeds_per_variant: int = 1,
               seed_offset: int = 0, skins: Iterable[int] = (0,)) -> list[Job]:  # fmt: skip
    """Every parameter variant of each template on each surface it supports, with training seeds only; the jobs
    take their skins from `skins` in turn (training skins only: `splits.training_skins()`), so a collection over
    many skins spreads its episodes over many looks. Each template's turn starts where its id's CRC-32 points,
    so a job's skin depends on its own template only: adding templates (a task file) keeps every other job, and
    its collected episode, as it was."""
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
        start, mine = zlib.crc32(tid.encode("utf-8")), 0
        for surface in surfaces:
            if surface not in spec.surfaces:
                continue
            for k in range(seeds_per_variant):
                for v in range(n):
                    seed = lo + seed_offset + (k * n) + v + (n * seeds_per_variant if surface == "mobile" else 0)
                    if seed > hi:
                        raise ValueError(f"Seed {seed} is outside the training seeds {lo}..{hi}.")
                    jobs.append(Job(tid, seed, surface, looks[(start + mine) % len(looks)]))
                    mine += 1
    return jobs


def _write_targets(folder: Path, targets: list[dict[str, Any]]) -> None:
    write_json(folder / TARGETS, targets, durable=False)


# ---- world episodes: the oracle's, and the policy's own relabelled by the oracle --------------------------------


class RelabelPolicy(OracleDriven):
    """The student acts; the oracle watches and labels every state it visits (the DAgger expert).

    At each state the oracle plans its next action on the live page: that is the reference (with the target box),
    and the plan advances only when the student did the same thing. When the student left the path and the
    oracle's next element is not on the live page, the oracle re-plans a recovery: back to the page where the plan
    stands (Launch of that URL on the browser surface, PressBack on mobile). Where it can do neither the state
    is left unlabelled and `targets` says why. The student's actions are never changed; after `max_off` states
    off the path (None: never) or `max_lost` states in a row the oracle cannot label, the episode stops, since
    nothing more can be learned from it."""

    name = "relabel"

    def __init__(self, env: Any, steps: Any, surface: str, student: Any, max_off: int | None = 2,
                 max_lost: int = 3) -> None:  # fmt: skip
        super().__init__(surface)
        self.env, self.student, self.max_off, self.max_lost = env, student, max_off, max_lost
        self.oracle = box_oracle(steps, surface, patient=False)
        self.targets: list[dict[str, Any]] = []
        self.off = self.lost = 0
        self.anchor: str | None = None  # the URL where the oracle's plan stands
        self._advanced = True

    def act(self, observation: Any, history: list, feedback: str | None = None) -> PolicyOutput:
        page = self.env.page
        if self._advanced:  # the student did what the oracle planned: the plan now stands on this page
            self.anchor = page.url
        saved = (copy.copy(self.oracle.steps), copy.copy(self.oracle.queue), self.oracle._scrolls)
        ref, box, label, why = self._reference(page)
        out = self.student.act(observation, history, feedback)
        mine = out.actions[0] if out.error is None and len(out.actions) == 1 else None
        same = label == "plan" and mine is not None and action_verdict(mine, ref, tuple(box) if box else None
                                                                      ) == "correct"  # fmt: skip
        if not same:  # the oracle's plan stays where it was; the page has moved on without it
            self.oracle.steps, self.oracle.queue, self.oracle._scrolls = saved
        self._advanced = same
        self.off += not same
        self.lost = self.lost + 1 if ref is None else 0
        self.targets.append({"action": format_call(ref, self.surface) if ref is not None else None, "box": box,
                             "agreed": same, "label": label, "why": why})  # fmt: skip
        self.steps += 1
        if (self.max_off is not None and self.off > self.max_off) or self.lost >= self.max_lost:
            return self.reply("Stop here.", CallUser(content="Stopping: off the reference path."))
        return out

    def _reference(self, page: Any) -> tuple[Any, Any, str | None, str | None]:
        """(action, box, 'plan' | 'recover' | None, why unlabelled)."""
        try:
            _, ref = self.oracle.next(page)
            return ref, self.oracle.boxes.get(id(ref)), "plan", None
        except OracleError as e:
            why = str(e)
        if self.anchor is not None and page.url != self.anchor:
            if self.surface == "browser":
                return Launch(url=self.anchor), None, "recover", None
            if self.surface == "mobile":
                return PressBack(), None, "recover", None
        return None, None, None, f"the oracle cannot re-plan here: {why}"

    def set_goal(self, goal: str) -> None:
        self.goal = goal
        self.student.set_goal(goal)

    def describe(self) -> dict[str, Any]:
        return {"policy": self.name, "student": self.student.describe()}


@dataclass(frozen=True)
class CollectSpec:
    """What a collection worker runs (picklable: it crosses into worker processes and Ray actors).

    `kind`: "oracle" (the task's oracle, recording the target box of each click) or "relabel" (venus-nano from
    `checkpoint` acts, the oracle labels every state)."""

    out: str
    kind: str = "oracle"
    checkpoint: str = ""
    max_steps: int | None = None
    max_off: int | None = 2
    task_files: tuple[str, ...] = ()  # synthesised task files the jobs may name (registered in each worker)

    def __post_init__(self) -> None:
        if self.kind not in ("oracle", "relabel"):
            raise ValueError(f"Collection kind must be oracle or relabel, got {self.kind!r}.")
        if self.kind == "relabel" and not self.checkpoint:
            raise ValueError("A relabelled rollout needs the student's checkpoint.")

    def __call__(self) -> CollectWorker:
        return CollectWorker(self)


class CollectWorker:
    """Owns one world server and one browser env per surface for its life; one episode per job."""

    def __init__(self, spec: CollectSpec) -> None:
        from venuskit.tasks.spec import register_file

        self.spec = spec
        for path in spec.task_files:
            register_file(path)
        self.server: Any = None
        self.envs: dict[str, Any] = {}
        self.student: Any = None

    def run(self, job: dict[str, Any]) -> dict[str, Any]:
        if self.server is None:
            self.server = WorldServer().start()
        surface = job["surface"]
        env = self.envs.get(surface) or self.envs.setdefault(surface, world_browser(surface))
        steps = get_task(job["task"]).instance(job["seed"]).oracle
        holder: dict[str, Any] = {}

        def policy(goal: str, today: str) -> Any:
            if self.spec.kind == "oracle":
                holder["p"] = OracleRecorder(env, box_oracle(steps, surface), surface)
            else:
                holder["p"] = RelabelPolicy(env, steps, surface, self._student(surface, goal, today),
                                            self.spec.max_off)  # fmt: skip
            return holder["p"]

        row = {k: job[k] for k in ("key", "task", "seed", "surface", "skin")}
        try:
            run = run_world_task(job["task"], job["seed"], policy=policy, out=Path(self.spec.out) / "episodes",
                                 surface=surface, server=self.server, env=env, max_steps=self.spec.max_steps,
                                 skin=job["skin"])  # fmt: skip
        except Exception:
            self.close()  # the server or the browser may be what broke: the next job builds them again
            raise
        targets = holder["p"].targets
        _write_targets(run.episode_dir, targets)
        row.update(episode_dir=str(run.episode_dir), verdict=run.verdict.verdict, oracle_error=holder["p"].error,
                   seconds=round(run.seconds, 2), states=len(targets),
                   labelled=sum(t.get("action") is not None for t in targets),
                   agreed=sum(bool(t.get("agreed")) for t in targets))  # fmt: skip
        return row

    def _student(self, surface: str, goal: str, today: str) -> Any:
        if self.student is None:
            from venuskit.models.nano import NanoModel

            self.student = NanoModel.load(self.spec.checkpoint)
        return nano_policy_factory(surface, self.student)(goal, today)

    def close(self) -> None:
        close_envs(self.envs)
        if self.server is not None:
            self.server.stop()
            self.server = None


def collect_episodes(spec: CollectSpec, jobs: list[Job], parallel: Parallel = Parallel(),
                     on_done: Callable[[dict[str, Any]], None] | None = None) -> list[dict[str, Any]]:  # fmt: skip
    """Run every job not already in `spec.out/index.jsonl` (serially, on worker processes or Ray actors), append
    each row to the index as it finishes (a rerun resumes), and return the index rows of all jobs. A job whose
    infrastructure failed after its retries is kept as verdict 'error' with the reason. A job in a held-out skin
    is refused (ValueError) before any job runs."""
    for job in jobs:  # every collector records training data: a held-out skin never enters, however it was made
        splits.require_train_skin(job.skin)
    out = Path(spec.out)
    out.mkdir(parents=True, exist_ok=True)
    done = _done(out)
    todo = [{"key": j.key, "task": j.task, "seed": j.seed, "surface": j.surface, "skin": j.skin}
            for j in jobs if j.key not in done]  # fmt: skip

    def record(row: dict[str, Any]) -> None:
        if row.get("infra_error"):
            log.warning("World job %s failed: %s", row["key"], row["infra_error"])
            job = next(j for j in todo if j["key"] == row["key"])
            row = {**job, "episode_dir": None, "verdict": "error", "oracle_error": row["infra_error"]}
        _append(out, row)
        done[row["key"]] = row
        if on_done:
            on_done(row)

    run_jobs(todo, spec, parallel, record)
    return [done[j.key] for j in jobs if j.key in done]


def world_oracle_episodes(out: Path, jobs: list[Job], on_done: Callable[[dict[str, Any]], None] | None = None,
                          max_steps: int | None = None, parallel: Parallel = Parallel(),
                          task_files: tuple[str, ...] = ()) -> list[dict[str, Any]]:  # fmt: skip
    """The oracle on every job (resumable), with the target box of each click in `nano_targets.json`."""
    spec = CollectSpec(str(out), "oracle", max_steps=max_steps, task_files=task_files)
    return collect_episodes(spec, jobs, parallel, on_done)


def world_relabel_rollouts(out: Path, jobs: list[Job], checkpoint: Path | str, *, max_off: int | None = 2,
                           max_steps: int = 12, parallel: Parallel = Parallel(),
                           task_files: tuple[str, ...] = ()) -> list[dict[str, Any]]:  # fmt: skip
    """venus-nano from `checkpoint` on every job (resumable), each state it visits labelled by the oracle."""
    spec = CollectSpec(str(out), "relabel", str(checkpoint), max_steps, max_off, task_files)
    return collect_episodes(spec, jobs, parallel)


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
