"""Data for venus-nano's stages: the one place that runs episodes to make training rows.

It joins the world (tasks, oracle, browser env), the synthesis packages and the recorded episode store, so it lives
in `venuskit.eval`; the stages themselves (`venuskit.train.nano`: sft, grpo, mopd) only read rows.

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
- `validation_templates`: the fixed slice of *training* templates kept out of training while the recipe is
  developed (one short and one medium template per app); held-out templates are for the final figures only.

Every collection keeps an index (`index.jsonl`) and skips what is already there, so a rerun resumes.
"""

from __future__ import annotations

import hashlib
import json
import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

log = logging.getLogger(__name__)
TARGETS = "nano_targets.json"
INDEX = "index.jsonl"


@dataclass(frozen=True)
class Job:
    task: str
    seed: int
    surface: str

    @property
    def key(self) -> str:
        return f"{self.task}|{self.seed}|{self.surface}"


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
    from venuskit.infra.atomic import append_line

    append_line(out / INDEX, (json.dumps(row) + "\n").encode(), durable=False)


def validation_templates() -> list[str]:
    """One short and one medium *training* template per app, the first by sha256 of its id: a fixed rule, so the
    slice never moves to suit a result. Measures transfer to unseen templates without touching held-out ones."""
    from venuskit.tasks import splits
    from venuskit.tasks.spec import get_task

    picked = []
    for category in ("short", "medium"):
        by_app: dict[str, list[str]] = {}
        for tid in splits.world_templates("train", category):
            by_app.setdefault(get_task(tid).apps[0], []).append(tid)
        for app in sorted(by_app):
            picked.append(min(by_app[app], key=lambda t: hashlib.sha256(t.encode()).hexdigest()))
    return sorted(picked)


def training_templates(categories: Iterable[str], keep_validation_out: bool = True) -> list[str]:
    """The training split's templates of `categories` (without the validation slice unless asked)."""
    from venuskit.tasks import splits

    val = set(validation_templates()) if keep_validation_out else set()
    return [t for c in categories for t in splits.world_templates("train", c) if t not in val]


def world_jobs(templates: Iterable[str], surfaces: Iterable[str], seeds_per_variant: int = 1,
               seed_offset: int = 0) -> list[Job]:  # fmt: skip
    """Every parameter variant of each template on each surface it supports, with training seeds only."""
    from venuskit.tasks import splits
    from venuskit.tasks.spec import get_task

    lo, hi = splits.load().world_train_seeds
    jobs = []
    for tid in templates:
        if splits.world_split(tid) != "train":
            raise ValueError(f"{tid} is a held-out template; it never enters training data.")
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
                    jobs.append(Job(tid, seed, surface))
    return jobs


def _box_oracle(steps: Any, surface: str) -> Any:
    """The task oracle, also keeping the box of the element behind each click it plans."""
    from venuskit.actions import coords
    from venuskit.tasks.oracle import Oracle

    class BoxOracle(Oracle):
        def __init__(self) -> None:
            super().__init__(steps, surface)
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


class _OracleRecorder:
    """A Policy whose replies are the oracle's; remembers the target box of each reply."""

    def __init__(self, env: Any, oracle: Any, surface: str) -> None:
        self.env, self.oracle, self.surface = env, oracle, surface
        self.goal, self.system = "", None
        self.targets: list[dict[str, Any]] = []
        self.error: str | None = None

    def act(self, observation: Any, history: list, feedback: str | None = None) -> Any:
        from venuskit.actions import format_call, format_response
        from venuskit.actions.types import CallUser
        from venuskit.agent.policy import parse_output
        from venuskit.tasks.oracle import OracleError

        try:
            thought, action = self.oracle.next(self.env.page)
        except OracleError as e:
            self.error = str(e)
            thought, action = "The oracle could not go on.", CallUser(content=f"ORACLE ERROR: {e}")
        box = self.oracle.boxes.get(id(action))
        self.targets.append({"action": format_call(action, self.surface), "box": box})
        return parse_output(format_response(thought, action, self.surface), self.surface)

    def set_goal(self, goal: str) -> None:
        self.goal = goal

    def describe(self) -> dict[str, Any]:
        return {"policy": "oracle", "recorder": "venus-nano"}


def _write_targets(folder: Path, targets: list[dict[str, Any]]) -> None:
    from venuskit.infra.atomic import write_json

    write_json(folder / TARGETS, targets, durable=False)


def world_oracle_episodes(out: Path, jobs: list[Job], on_done: Callable[[dict[str, Any]], None] | None = None,
                          max_steps: int | None = None) -> list[dict[str, Any]]:  # fmt: skip
    """Run the oracle on every job not already in `out/index.jsonl`; returns the index rows of all jobs."""
    from venuskit.eval.world import run_world_task, world_browser
    from venuskit.tasks.spec import get_task
    from venuskit.world.server import WorldServer

    out.mkdir(parents=True, exist_ok=True)
    done = _done(out)
    todo = [j for j in jobs if j.key not in done]
    envs: dict[str, Any] = {}
    with WorldServer() as server:
        try:
            for job in todo:
                env = envs.get(job.surface) or envs.setdefault(job.surface, world_browser(job.surface))
                steps = get_task(job.task).instance(job.seed).oracle
                rec = _OracleRecorder(env, _box_oracle(steps, job.surface), job.surface)
                row = {"key": job.key, "task": job.task, "seed": job.seed, "surface": job.surface}
                try:
                    run = run_world_task(job.task, job.seed, policy=lambda g, t, r=rec: r, out=out / "episodes",
                                         surface=job.surface, server=server, env=env, max_steps=max_steps)  # fmt: skip
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


class _RelabelPolicy:
    """The student acts; at every state the oracle plans its own next action on the live page (the reference),
    and its plan advances only when the student did the same thing."""

    def __init__(self, env: Any, steps: Any, surface: str, student: Any, max_off: int) -> None:
        self.env, self.steps, self.surface, self.student, self.max_off = env, steps, surface, student, max_off
        self.oracle = _box_oracle(steps, surface)
        self.targets: list[dict[str, Any]] = []
        self.off = 0
        self.goal, self.system = "", None

    def act(self, observation: Any, history: list, feedback: str | None = None) -> Any:
        import copy

        from venuskit.actions import format_call, format_response
        from venuskit.actions.types import CallUser
        from venuskit.agent.policy import parse_output
        from venuskit.tasks.oracle import OracleError
        from venuskit.train.rewards import action_verdict

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
        if self.off > self.max_off or ref is None:
            stop = CallUser(content="Stopping: off the reference path.")
            return parse_output(format_response("Stop here.", stop, self.surface), self.surface)
        return out

    def set_goal(self, goal: str) -> None:
        self.goal = goal
        self.student.set_goal(goal)

    def describe(self) -> dict[str, Any]:
        return {"policy": "relabel", "student": self.student.describe()}


def world_relabel_rollouts(out: Path, jobs: list[Job], make_student: Callable[[str, str], Any], *,
                           max_off: int = 2, max_steps: int = 12) -> list[dict[str, Any]]:  # fmt: skip
    """Run the student on every job (resumable), each state relabelled with the oracle's action."""
    from venuskit.eval.world import run_world_task, world_browser
    from venuskit.tasks.spec import get_task
    from venuskit.world.server import WorldServer

    out.mkdir(parents=True, exist_ok=True)
    done = _done(out)
    todo = [j for j in jobs if j.key not in done]
    envs: dict[str, Any] = {}
    with WorldServer() as server:
        try:
            for job in todo:
                env = envs.get(job.surface) or envs.setdefault(job.surface, world_browser(job.surface))
                steps = get_task(job.task).instance(job.seed).oracle
                row = {"key": job.key, "task": job.task, "seed": job.seed, "surface": job.surface}

                def factory(goal: str, today: str, job: Job = job, steps: Any = steps, env: Any = env) -> Any:
                    return _RelabelPolicy(env, steps, job.surface, make_student(goal, today), max_off)

                holder: dict[str, Any] = {}

                def capture(goal: str, today: str, f: Callable = factory, h: dict = holder) -> Any:
                    h["p"] = f(goal, today)
                    return h["p"]

                try:
                    run = run_world_task(job.task, job.seed, policy=capture, out=out / "episodes",
                                         surface=job.surface, server=server, env=env, max_steps=max_steps)  # fmt: skip
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
    from venuskit.tasks import splits

    s = splits.load()
    if not splits.in_range(seed, s.grounding_train_seeds):
        raise ValueError(f"Grounding seed {seed} is not a training seed {s.grounding_train_seeds}.")
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
    from venuskit.tasks import splits

    s = splits.load()
    if not splits.in_range(seed_start, s.captcha_train_seeds):
        raise ValueError(f"CAPTCHA seed {seed_start} is not a training seed {s.captcha_train_seeds}.")
    types = [t for t in type_names() if splits.captcha_split(t) == "train"]
    if not (out / "rows.jsonl").is_file() and per_type > 0:
        synthesise(SynthConfig(n=per_type * len(types), out=out, types=types, seed_start=seed_start))
    return out


def captcha_rows(folder: Path) -> list[dict[str, Any]]:
    """Step rows of the synthesised CAPTCHA instances: the UI-Venus-2 CAPTCHA prompt with the screenshot, and the
    oracle's action sequence as reference (with the box of each click's target where the puzzle labels one)."""
    from venuskit.actions import parse_response
    from venuskit.actions.history import build_messages
    from venuskit.tasks import splits

    path = folder / "rows.jsonl"
    if not path.is_file():
        return []
    rows = []
    for line in path.read_text("utf-8").splitlines():
        rec = json.loads(line)
        if splits.captcha_split(rec["type"]) != "train":
            raise ValueError(f"CAPTCHA type {rec['type']} is held out; it never enters training data.")
        image = str(folder / "images" / rec["image"])
        w, h = rec["size"]
        actions = parse_response(rec["reference_response"], "captcha").actions
        boxes = []
        for a in actions:
            p = getattr(a, "point", None)
            box = None
            if p is not None:
                for lab in rec.get("labels") or []:
                    x1, y1, x2, y2 = lab.get("bbox") or (0, 0, -1, -1)
                    if x1 <= p.x * w <= x2 and y1 <= p.y * h <= y2:
                        box = [x1 / w, y1 / h, x2 / w, y2 / h]
                        break
            boxes.append(box)
        # The eval's prompt: the puzzle's own instruction is only on the page, read from the screenshot.
        messages, _ = build_messages(rec["system"], [], b"", surface="captcha", inline_images=False)
        rows.append({"prompt": messages, "images": [image], "surface": "captcha", "domain": "captcha",
                     "gt_actions": json.dumps([a.to_dict() for a in actions]), "gt_boxes": json.dumps(boxes),
                     "task": f"captcha:{rec['type']}", "episode_id": rec["id"], "step": 0})  # fmt: skip
    return rows


# ---- rows --------------------------------------------------------------------------------------------------


def world_rows(index_rows: list[dict[str, Any]], relabelled: bool) -> list[dict[str, Any]]:
    """Step rows of collected world episodes (oracle episodes that reached their verdict, or relabelled rollouts),
    each tagged with its template."""
    from venuskit.train.data import build_rows
    from venuskit.train.nano.data import reference_rows, targets_of

    task_of = {r["episode_dir"]: r["task"] for r in index_rows if r.get("episode_dir")}
    if relabelled:
        rows = reference_rows(list(task_of))
    else:
        dirs = [r["episode_dir"] for r in index_rows
                if r.get("episode_dir") and r.get("verdict") in ("completed", "infeasible")]  # fmt: skip
        rows, _ = build_rows(dirs, "rl", n_img=50, boxes_of=targets_of)
    for row in rows:
        row["task"] = task_of.get(str(Path(row["images"][-1]).parent), "")
    return rows


def grounding_rows(folder: Path) -> list[dict[str, Any]]:
    """Grounding rows (the UI-Venus-2 grounding request and the target box) of a synthesised ScreenSpot-Pro folder."""
    from venuskit.train.data import grounding_row

    rows = []
    for path in sorted((folder / "annotations").glob("*.json")):
        for rec in json.loads(path.read_text("utf-8")):
            w, h = rec["img_size"]
            x1, y1, x2, y2 = rec["bbox"]
            row = grounding_row(str(folder / "images" / rec["img_filename"]), rec["instruction"],
                                [x1 / w, y1 / h, x2 / w, y2 / h])  # fmt: skip
            row["task"] = f"grounding:{rec.get('family') or rec.get('application')}"
            rows.append(row)
    return rows
