"""The labelled set of world episodes: tasks picked from one split of the templates, every episode kind run on
each in real Chromium through `run_world_task`, the contract's verdict (manifest `verdicts.contract`) as the
label, and an `index.json` that the bench reads back (a folder holding the index of the same request is reused).

    index = build_set("runs/verify-bench", n_tasks=40, seed=0)                # held-out templates, eval seeds
    index = build_set("runs/judge-train", n_tasks=80, seed=0, split="train")   # training templates, train seeds
"""

from __future__ import annotations

import datetime as dt
import json
import math
import random
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from venuskit.eval.report import write_json_report
from venuskit.eval.verify_bench.kinds import KIND_BY_NAME, Plan, Trace, locale_of, plan_for, task_type
from venuskit.runs.parallel import Parallel

INDEX = "index.json"
SET_FORMAT = 2
READABLE_FORMATS = (1, 2)  # format 1: world sets of the first bench (no split, no set kind)
SURFACES = ("browser", "mobile")
SPLITS = ("heldout", "train", "all")
MOBILE_SHARE = 1 / 3  # of the tasks that declare the mobile surface, when both surfaces are asked for
MAX_ORACLE_STEPS = 24  # longer tasks take minutes per kind; the long templates up to this are kept

Pick = tuple[str, int, str]  # (task id, instance seed, surface)


# ---- picking tasks -------------------------------------------------------------------------------


def pick_tasks(n_tasks: int, seed: int, *, split: str = "heldout", locales: Sequence[str] = ("en", "zh"),
               surfaces: Sequence[str] = SURFACES, questions: bool = True) -> list[Pick]:  # fmt: skip
    """`n_tasks` feasible tasks of the split's templates (a third of them question tasks, unless `questions` is
    False) plus about a quarter as many infeasible ones, sampled without replacement while the pool lasts
    and then again (another variant). Each gets an instance seed from the split's seed range (held-out
    templates: the eval seeds; training templates: the train seeds) whose variant has a locale drawn from
    `locales`, and a surface: the mobile preset for about a third of the tasks that declare it. The pool holds
    the bundled templates and every registered task (`venuskit.tasks.spec.register_file`: synthesised tasks)."""
    from venuskit.tasks import splits
    from venuskit.tasks.spec import bundled, registered

    _check_choice("locale", locales, ("en", "zh"))
    _check_choice("surface", surfaces, SURFACES)
    _check_choice("split", [split], SPLITS)
    specs = {**bundled(), **registered()}
    rng = random.Random(seed)

    def pool(kind: str) -> list[str]:
        return sorted(t for t, s in specs.items() if task_type(s) == kind and not s.interrupts
                      and (split == "all" or splits.world_split(t) == split) and len(s.oracle) <= MAX_ORACLE_STEPS
                      and set(s.surfaces) & set(surfaces))  # fmt: skip

    n_q = n_tasks // 3 if questions else 0
    chosen = _draw(rng, pool("state"), n_tasks - n_q) + _draw(rng, pool("question"), n_q)
    chosen += _draw(rng, pool("infeasible"), math.ceil(n_tasks / 4))
    ranges = splits.load()
    seeds = ranges.world_eval_seeds if split == "heldout" else ranges.world_train_seeds
    return [(t, _instance_seed(specs[t], rng, locales, seeds), _surface(specs[t], rng, surfaces)) for t in chosen]


def _draw(rng: random.Random, pool: list[str], n: int) -> list[str]:
    """n items of the pool: a shuffled pass over all of it, then another, as many as needed."""
    out: list[str] = []
    while pool and len(out) < n:
        out += rng.sample(pool, min(len(pool), n - len(out)))
    return out


def _check_choice(what: str, chosen: Sequence[str], known: Sequence[str]) -> None:
    bad = [c for c in chosen if c not in known] or ([] if chosen else ["(none)"])
    if bad:
        raise ValueError(f"Unknown {what} {bad[0]!r}; choose one or more of {', '.join(known)}.")


def _instance_seed(spec: Any, rng: random.Random, locales: Sequence[str], seeds: tuple[int, int]) -> int:
    """A seed in `seeds` whose variant (seed % number of variants) has a locale of `locales`."""
    locale = rng.choice(sorted(locales))
    n = max(1, len(spec.params))
    variants = [i for i, p in enumerate(spec.params) if p.get("locale", "en") == locale]
    variants = variants or [i for i, p in enumerate(spec.params) if p.get("locale", "en") in locales] or [0]
    variant, lap = rng.choice(variants), rng.randrange(50)
    first = seeds[0] + (variant - seeds[0]) % n  # the first seed of the range with this variant
    return min(first + n * lap, first + n * ((seeds[1] - first) // n))


def _surface(spec: Any, rng: random.Random, surfaces: Sequence[str]) -> str:
    draw = rng.random()  # drawn for every task, so a task's surface does not shift the others' draws
    if "mobile" not in spec.surfaces or "mobile" not in surfaces:
        return "browser"
    return "mobile" if "browser" not in surfaces or draw < MOBILE_SHARE else "browser"


def _pick(task: tuple | list | str) -> Pick:
    if isinstance(task, str):
        return (task, 0, "browser")
    return (task[0], int(task[1]), task[2] if len(task) > 2 else "browser")


# ---- building ------------------------------------------------------------------------------------


def build_set(
    out_dir: Path | str,
    n_tasks: int = 12,
    seed: int = 0,
    *,
    split: str = "heldout",
    tasks: Sequence[tuple[str, int] | tuple[str, int, str] | str] | None = None,
    kinds: Sequence[str] | None = None,
    locales: Sequence[str] = ("en", "zh"),
    surfaces: Sequence[str] = SURFACES,
    questions: bool = True,
    others: int = 0,
    rebuild: bool = False,
    settle_s: float = 0.1,
    on_item: Callable[[dict[str, Any]], None] | None = None,
    parallel: Parallel | None = None,
    task_files: Sequence[str | Path] = (),
    limit: int | None = None,
) -> dict[str, Any]:
    """Run the kinds on every picked task (one WorldServer, one Chromium per surface) and write
    `out_dir/index.json`. A folder that already holds the index of the same request is reused as it is
    (`rebuild` to start over). `tasks`: explicit (task_id, seed[, surface]) tuples or ids (seed 0, browser)
    instead of `pick_tasks(n_tasks, seed, split=..., locales=..., surfaces=..., questions=...)`.
    `others` > 0: each task runs the oracle and noisy kinds and `others` of its other applicable kinds, drawn
    with a generator fixed by the task (so a set holds more tasks, and more completed runs, for its size).
    `parallel`: a `runs.parallel.Parallel` (default serial); each worker runs whole tasks in its own WorldServer
    and Chromium, and the index is the one a serial build writes. `task_files`: synthesised task files the
    picks may name, registered in every worker. `limit`: only the first `limit` picks of the order the build
    runs them in (a fixed shuffle: a sample of state, question and infeasible tasks alike), listed in the
    picks' order: the set a build of all the picks holds once it has run that many."""
    out_dir = Path(out_dir)
    for k in kinds or ():
        if k not in KIND_BY_NAME:
            raise ValueError(f"Unknown episode kind {k!r}; known kinds: {', '.join(KIND_BY_NAME)}.")
    chosen = tasks or pick_tasks(n_tasks, seed, split=split, locales=locales, surfaces=surfaces, questions=questions)
    picked = [_pick(t) for t in chosen]
    if limit is not None:
        if limit < 1:
            raise ValueError(f"limit must be at least 1 pick, got {limit}.")
        kept = set(run_order(picked)[:limit])
        picked = [p for p in picked if p in kept]
    request = {"set_kind": "world", "split": split if tasks is None else "explicit", "n_tasks": n_tasks,
               "seed": seed, "tasks": [list(p) for p in picked], "kinds": list(kinds or KIND_BY_NAME),
               "others": others, **({"limit": limit} if limit is not None else {}),
               **({"locales": list(locales)} if tuple(locales) != ("en", "zh") else {})}  # fmt: skip
    cached = load_index(out_dir) if (out_dir / INDEX).exists() and not rebuild else None
    if cached is not None and cached.get("request") == request:
        return cached
    reuse = {k: {f: v for f, v in r.items() if f != "why"}  # recomputed below
             for k, r in reusable_rows(out_dir, cached, request, grows=("kinds",)).items()}
    t0 = time.perf_counter()
    with Progress(out_dir, request, rebuild, reuse) as progress:
        files = tuple(str(p) for p in task_files)
        spec = SetWorkerSpec(str(out_dir), tuple(request["kinds"]), others, settle_s, files)
        items, rejected, skipped = _run_all(out_dir, picked, spec, parallel or Parallel(), on_item, progress)
        return write_index(out_dir, request, items, rejected, skipped, time.perf_counter() - t0)


def reusable_rows(out_dir: Path, cached: dict[str, Any] | None, request: dict[str, Any],
                  grows: Sequence[str]) -> dict[str, dict[str, Any]]:  # fmt: skip
    """The rows of a set already in `out_dir` that a build of `request` may keep as they are: those of an index
    whose request differs only by lists in `grows` that the new request extends (more kinds, more seeds), so
    extending a set runs only the new episodes. Any other set there is refused: it is never overwritten
    silently. A kept row is what a fresh run would give (each episode depends only on its task, seed and kind)
    and its episode folder is still on disk."""
    if cached is None:
        return {}
    old = cached.get("request") or {}
    same = all(old.get(k) == v for k, v in request.items() if k not in grows) and set(old) <= set(request)
    if not same or not all(set(old.get(k) or ()) <= set(request.get(k) or ()) for k in grows):
        raise ValueError(f"{out_dir} already holds a verifier bench set built for another request "
                         f"({_brief(old)}); pass another folder, the same options, options that only add "
                         f"{' or '.join(grows)}, or rebuild=True (--rebuild).")  # fmt: skip
    rows = [r for r in (*cached.get("items", ()), *cached.get("rejected", ())) if isinstance(r, dict) and "id" in r]
    return {r["id"]: r for r in rows if r.get("episode_dir") is None or _kept_episode(out_dir, r["episode_dir"])}


def _kept_episode(out_dir: Path, episode_dir: object) -> bool:
    """An index row's episode folder is inside the set's folder and still there (a row pointing elsewhere is
    run again, never trusted)."""
    folder = (out_dir / str(episode_dir)).resolve()
    return folder.is_relative_to(out_dir.resolve()) and folder.is_dir()


class Progress:
    """Rows of a set being built, appended as each task ends (`progress.jsonl`), so a build that is stopped
    resumes where it was: an episode already recorded for the same request is not run again (nor one `reuse`
    holds, from the set this one extends). Removed once the index is written."""

    NAME = "progress.jsonl"

    def __init__(self, out_dir: Path, request: dict[str, Any], rebuild: bool,
                 reuse: dict[str, dict[str, Any]] | None = None) -> None:  # fmt: skip
        self.path, self.request, self.rows, self.reuse = out_dir / self.NAME, request, {}, dict(reuse or {})
        if self.path.exists() and not rebuild:
            lines = self.path.read_text(encoding="utf-8").splitlines()
            try:
                head = json.loads(lines[0]) if lines else None
                rows = [json.loads(x) for x in lines[1:] if x.strip()]
            except ValueError:  # a torn last line: keep what parses
                head, rows = None, []
            if head == {"request": request}:
                self.rows = {r["id"]: r for r in rows if isinstance(r, dict) and "id" in r}
        if not self.rows:
            out_dir.mkdir(parents=True, exist_ok=True)
            self.path.write_text(json.dumps({"request": request}) + "\n", encoding="utf-8")

    def get(self, row_id: str) -> dict[str, Any] | None:
        return self.rows.get(row_id) or self.reuse.get(row_id)

    def add(self, row: dict[str, Any]) -> None:
        with self.path.open("a", encoding="utf-8") as f:
            f.write(json.dumps(row, ensure_ascii=False) + "\n")

    def __enter__(self) -> Progress:
        return self

    def __exit__(self, exc_type: object, *exc: object) -> None:
        if exc_type is None:
            self.path.unlink(missing_ok=True)


def _brief(request: Any) -> str:
    if not isinstance(request, dict):
        return "an unknown request"
    return (f"{request.get('set_kind', 'world')}, split {request.get('split', '?')}, seed {request.get('seed')}, "
            f"{len(request.get('tasks') or [])} tasks")  # fmt: skip


def write_index(out_dir: Path, request: dict[str, Any], items: list, rejected: list, skipped: list,
                seconds: float) -> dict[str, Any]:  # fmt: skip
    created = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    index = {"format": SET_FORMAT, "request": request, "created": created, "build_seconds": round(seconds, 1),
             "counts": counts(items), "items": items, "rejected": rejected, "skipped": skipped}  # fmt: skip
    write_json_report(out_dir / INDEX, index)
    return index


# Run on every task whatever `others` draws; a kind added here leaves the draw of the others as it was.
ALWAYS = ("oracle", "noisy_extra", "noisy_omit", "noisy_swap", "infeasible_right", "infeasible_wrong", "agent")


@dataclass(frozen=True)
class SetWorkerSpec:
    """What every set worker needs (it crosses processes): the set's folder, the kinds, the draw of the others,
    the browser's settle time and the synthesised task files the picks may name."""

    out_dir: str
    kinds: tuple[str, ...]
    others: int
    settle_s: float
    task_files: tuple[str, ...] = ()

    def __call__(self) -> SetWorker:
        return SetWorker(self)


class SetWorker:
    """Owns one WorldServer and one Chromium per surface (started when a task first needs it); one job is one
    task with every kind run on it, in order, so the kinds made from the oracle's episode can use it."""

    def __init__(self, spec: SetWorkerSpec) -> None:
        from venuskit.tasks.spec import register_file

        self.spec = spec
        for path in spec.task_files:
            register_file(path)
        self.server: Any = None
        self.envs: dict[str, Any] = {}

    def run(self, job: dict[str, Any]) -> dict[str, Any]:
        from venuskit.envs.browser import BrowserConfig
        from venuskit.runs.world import world_browser
        from venuskit.tasks.spec import get_task
        from venuskit.world.server import WorldServer

        if self.server is None:
            self.server = WorldServer().start()
        surface, out_dir = job["surface"], Path(self.spec.out_dir)
        if surface not in self.envs:
            preset = "mobile" if surface == "mobile" else "desktop"
            self.envs[surface] = world_browser(surface, BrowserConfig(settle_s=self.spec.settle_s, preset=preset))
        env, inst, done = self.envs[surface], get_task(job["task"]).instance(job["seed"]), job["done"]
        rows: list[dict[str, Any]] = []
        skipped: list[dict[str, Any]] = []
        trace: Trace | None = None
        drawn: set[str] | None = None
        # The oracle runs first: the kinds made from its episode need it.
        kinds = list(self.spec.kinds)
        order = sorted(kinds, key=lambda k: (k not in ("oracle", "infeasible_right"), list(KIND_BY_NAME).index(k)))
        for kind in order:
            plan = plan_for(kind, inst, surface, trace)
            if plan is not None and self.spec.others > 0 and kind not in ALWAYS:
                drawn = drawn if drawn is not None else _draw_others(inst, surface, trace, kinds, self.spec.others)
                if kind not in drawn:
                    skipped.append({"task": inst.spec.id, "seed": inst.seed, "kind": kind, "why": "not drawn"})
                    continue
            if plan is None:
                why = "needs the oracle's episode" if KIND_BY_NAME[kind].needs_trace and trace is None \
                    else "does not apply to this task"  # fmt: skip
                skipped.append({"task": inst.spec.id, "seed": inst.seed, "kind": kind, "why": why})
                continue
            row = done.get(item_id(inst, surface, kind))
            if row is None:
                row = _run_one(self.server, env, out_dir / "episodes", inst, kind, plan, surface)
                if _rejection(row) and row["policy"] not in ("noisy", "agent"):
                    # A script is deterministic, the machine is not: a click that missed under load gets
                    # one more try before the row is rejected; the first try's reason stays in the row.
                    row = {**_run_one(self.server, env, out_dir / "episodes", inst, kind, plan, surface),
                           "first_try": _rejection(row)}  # fmt: skip
                row = {**row, "new": True}
            rows.append(row)
            if kind == "oracle" and row.get("episode_dir") and not _rejection(row):
                trace = oracle_trace(out_dir / row["episode_dir"], read=task_type(inst.spec) == "question")
        return {"key": job["key"], "rows": rows, "skipped": skipped}

    def close(self) -> None:
        from venuskit.runs.world import close_envs

        close_envs(self.envs)
        if self.server is not None:
            self.server.stop()
            self.server = None


def run_order(picked: Sequence[Pick]) -> list[Pick]:
    """The order a build runs its picks in: each once (a pick drawn twice, when the pool ran out and a seed came
    again, runs once and is listed twice), shuffled with a fixed generator. The picks list state tasks, then
    questions, then infeasible ones; shuffled, a build stopped part-way has run a sample of all three."""
    order = list(dict.fromkeys(picked))
    random.Random(0).shuffle(order)
    return order


def _run_all(out_dir: Path, picked: list[Pick], spec: SetWorkerSpec, parallel: Parallel,
             on_item: Callable[[dict[str, Any]], None] | None,
             progress: Progress | None = None) -> tuple[list, list, list]:  # fmt: skip
    """Every picked task as one job of `runs.parallel.run_jobs` (serially, on worker processes or Ray actors);
    each new episode's row reaches the progress file as its task ends, and the index lists the rows in the
    picks' order, whatever order the workers finished in."""
    from venuskit.runs.parallel import run_jobs

    def key(p: Pick) -> str:
        return f"{p[0]}@{p[1]}/{p[2]}"

    def done_rows(p: Pick) -> dict[str, dict[str, Any]]:
        prefix = f"{p[0]}@{p[1]}{'' if p[2] == 'browser' else '/' + p[2]}#"
        held = {**(progress.reuse if progress else {}), **(progress.rows if progress else {})}
        return {i: r for i, r in held.items() if i.startswith(prefix)}

    jobs = [{"key": key(p), "task": p[0], "seed": p[1], "surface": p[2], "done": done_rows(p)}
            for p in run_order(picked)]  # fmt: skip
    results: dict[str, dict[str, Any]] = {}

    def record(result: dict[str, Any]) -> None:
        if result.get("infra_error"):  # the task's runs are lost with its worker: reported, never silently
            job = next(j for j in jobs if j["key"] == result["key"])
            result = {"key": job["key"], "skipped": [], "rows": [
                {"id": f"{job['task']}@{job['seed']}/{job['surface']}", "task": job["task"], "seed": job["seed"],
                 "surface": job["surface"], "kind": None, "label": None,
                 "oracle_error": f"the worker failed: {result['infra_error']}"}]}  # fmt: skip
        results[result["key"]] = result
        for row in result["rows"]:
            if row.pop("new", False) and progress is not None:
                progress.add(row)
            if on_item is not None:
                on_item({**row, "rejected": _rejection(row)})

    run_jobs(jobs, spec, parallel, record)
    items: list[dict[str, Any]] = []
    rejected: list[dict[str, Any]] = []
    skipped: list[dict[str, Any]] = []
    for p in picked:
        result = results.get(key(p), {"rows": [], "skipped": []})
        skipped += result["skipped"]
        for row in result["rows"]:
            why = _rejection(row)
            (rejected if why else items).append({**row, "why": why} if why else row)
    return items, rejected, skipped


def _draw_others(inst: Any, surface: str, trace: Trace | None, kinds: list[str], n: int) -> set[str]:
    """`n` of the task's applicable kinds beyond ALWAYS, fixed by the task instance."""
    from venuskit.eval.verify_bench.kinds import rng_for

    pool = [k for k in kinds if k not in ALWAYS and plan_for(k, inst, surface, trace) is not None]
    return set(rng_for(inst, "others").sample(pool, min(n, len(pool))))


def item_id(inst: Any, surface: str, kind: str) -> str:
    return f"{inst.spec.id}@{inst.seed}{'' if surface == 'browser' else '/' + surface}#{kind}"


def _run_one(server: Any, env: Any, episodes: Path, inst: Any, kind: str, plan: Plan,
             surface: str = "browser") -> dict[str, Any]:  # fmt: skip
    """One episode; a run that raises is reported in the row (`oracle_error`), never lost silently."""
    from venuskit.runs.policies import OraclePolicy
    from venuskit.runs.world import run_world_task
    from venuskit.tasks.oracle import Oracle

    k = KIND_BY_NAME[kind]
    row = {"id": item_id(inst, surface, kind), "task": inst.spec.id, "seed": inst.seed, "kind": kind,
           "surface": surface, "locale": locale_of(inst), "type": task_type(inst.spec), "policy": k.policy,
           "adversarial": k.adversarial, "intended": list(k.intended), "goal": inst.goal,
           "keypoints": [kp.desc for kp in inst.keypoints]}  # fmt: skip
    policy: Any = "oracle"
    if plan.agent:
        from venuskit.agent.nano import nano_policy_factory
        from venuskit.models.nano import load_default

        policy = nano_policy_factory(surface, load_default())
    elif plan.steps is not None:
        # A noisy plan is meant to go astray: an element its change removed is the common case, so it is not
        # waited for under the slow-machine allowance (25 s of idle per such episode, most of a set's build).
        policy = OraclePolicy(env, Oracle(plan.steps, surface, patient=k.policy != "noisy"), surface)
    try:
        run = run_world_task(inst.spec.id, inst.seed, policy=policy, out=episodes, server=server, env=env,
                             surface=surface, stop_at_progress=plan.stop_at_progress)  # fmt: skip
    except Exception as e:  # noqa: BLE001 - one broken run is reported, the set goes on
        return {**row, "label": None, "oracle_error": f"the run raised {type(e).__name__}: {e}"}
    row.update({"label": run.verdict.verdict, "reason": run.verdict.reason,
                "episode_dir": str(run.episode_dir.relative_to(episodes.parent)), "end": run.episode.outcome.reason,
                "steps": _count_steps(run.episode_dir), "oracle_error": run.oracle_error})  # fmt: skip
    return row


def _count_steps(folder: Path) -> int:
    from venuskit.record.store import load_episode

    return len(load_episode(folder).steps)


def oracle_trace(folder: Path, read: bool = True) -> Trace:
    """The URLs of the oracle's episode and (with `read`) the text OCR reads on its last screenshot. Only a
    question task's kinds read that text (a near miss is a value of the screen the answer was read from); the
    OCR was most of the CPU a state task's set build spent in Python."""
    from venuskit.record.store import load_episode, step_png
    from venuskit.verify.judges import OcrJudge

    steps = load_episode(folder).steps
    png = next((p for s in reversed(steps) for p in [step_png(folder, s)] if p is not None), None) if read else None
    text = OcrJudge().read(png) if png is not None else ""
    return Trace(tuple(s.url for s in steps), text)


def _rejection(row: dict[str, Any]) -> str | None:
    if row.get("label") is None:
        return f"the script broke: {row['oracle_error']}"
    if row["oracle_error"] and row["policy"] not in ("noisy", "agent"):  # a policy that got stuck is what it is
        return f"the script broke: {row['oracle_error']}"
    if row["label"] not in row["intended"]:
        return f"the contract says {row['label']!r} ({row['reason']}), the kind intends {'/'.join(row['intended'])}"
    return None


def counts(items: list[dict[str, Any]]) -> dict[str, Any]:
    def by(key: str, default: str) -> dict[str, int]:
        return dict(Counter(i.get(key, default) for i in items))

    return {"episodes": len(items), "by_label": by("label", "?"), "by_kind": by("kind", "?"),
            "by_locale": by("locale", "en"), "by_surface": by("surface", "browser"), "by_type": by("type", "state"),
            "by_policy": by("policy", "transform"), "tasks": len({i.get("task") for i in items}),
            "adversarial": sum(bool(i.get("adversarial")) for i in items)}  # fmt: skip


def load_index(set_dir: Path | str) -> dict[str, Any]:
    path = Path(set_dir) / INDEX
    if not path.exists():
        raise FileNotFoundError(f"{set_dir} holds no verifier bench set (no {INDEX}); build one with build_set "
                                "or `venus verify bench --set DIR`.")  # fmt: skip
    try:
        index = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError) as e:
        raise ValueError(f"{path} is not a readable bench index: {e}") from e
    if not isinstance(index, dict) or index.get("format") not in READABLE_FORMATS:
        found = index.get("format") if isinstance(index, dict) else type(index).__name__
        raise ValueError(f"{path} has format {found!r}; this venuskit reads formats {READABLE_FORMATS}.")
    return index
