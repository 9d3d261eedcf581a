"""Task synthesis end to end: draw plans, check them, prove them on the real surface, write the task file.

    from venuskit.flywheel.synth import SynthConfig, synthesize
    result = synthesize(SynthConfig(n=20, out=Path("synth.toml")))
    result.summary   # accepted, rejected_by_reason, oracle_completed_share, capabilities_covered, ...

A candidate that passes the static checks (venuskit.tasks.synth.reject) is proved: its oracle runs in a real
browser against the world server (`run_world_task`, the harness every world run uses) and must reach
`completed`; its do-nothing run was already judged `failed` on the seeded state. Proofs run on a pool of
browser envs (one thread each, one shared world server). Decisions are committed in the order candidates were
drawn, and the sampler's coverage weights follow the drawn stream, so a run is the same for the same seed
whatever the timing. This lives in `eval` because it joins tasks, envs, agent and world.

`surface="computer"` synthesises desktop tasks from the desktop's capability catalogs: each is proved under Xvfb
with the real apps (venuskit.runs.proofs: its oracle must reach `completed`, and a run that does nothing must
score `failed`) on a pool of desktop envs; everything else (drawing, static checks, ordered decisions, coverage,
checkpoints, resume) is the same run.
"""

from __future__ import annotations

import dataclasses
import json
import os
import random
import statistics
import time
from collections import Counter, deque
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from venuskit.infra import atomic
from venuskit.infra.config import option
from venuskit.tasks import spec as task_spec
from venuskit.tasks.synth import build, writer
from venuskit.tasks.synth.build import Candidate
from venuskit.tasks.synth.catalog import Catalog, bundled_catalog
from venuskit.tasks.synth.coverage import Coverage, Failures, coverage_of, failures_of, sampling_weights
from venuskit.tasks.synth.reject import REASONS, Rejected, SeedWorlds, hand_signatures, heldout_only
from venuskit.tasks.synth.sample import HORIZONS, Domains, Sampler, SamplerConfig
from venuskit.tasks.synth.surface import NAMES as SURFACE_NAMES
from venuskit.tasks.synth.surface import Surface, get_surface
from venuskit.tasks.synth.taskfile import write_task_file


@dataclass
class SynthConfig:
    """`venus tasks synth`: how many tasks, from which capabilities, how they are proved and where they go."""

    n: int = option("Tasks to accept (each proved by its oracle on the real surface).", default=20)
    out: Path | None = option("Task file to write (TOML, read by the task loader); None writes nothing.",
                              default=None)  # fmt: skip
    surface: str = option("browser: the world's web apps, proved in Chromium; computer: the desktop's apps, proved "
                          "under Xvfb (the oracle completes, doing nothing fails).", default="browser")
    apps: tuple[str, ...] = option("Only capabilities of these apps (empty: all of the surface's).", default=())
    horizon: str | None = option("short (1-2 capabilities), medium (2-3), long (3-5); None mixes them.", default=None)
    locale: str = option("en or zh: the goal language and the world's locale.", default="en")
    seed: int = option("Seed of the sampler: the same seed gives the same tasks.", default=0)
    split: str = option("any; train: only capabilities no held-out template links to; heldout: tasks that use at "
                       "least one held-out capability.", default="any")  # fmt: skip
    writer: str | None = option("URL of an OpenAI-compatible server that paraphrases goals (None: templates).",
                               default=None)  # fmt: skip
    writer_model: str = option("Served model name of the --writer.", default="writer")
    workers: int = option("Envs proving tasks in parallel (browsers or desktops, one thread each).", default=2)
    check_seeds: tuple[int, ...] = option("World seeds preconditions and referents are checked on.",
                                         default=(0, 1, 2, 3))  # fmt: skip
    prove_seed: int = option("World seed of the proving run.", default=0)
    max_candidates: int = option("Stop after drawing this many candidates (0: 30 x n).", default=0)
    keep_proofs: Path | None = option("Keep the proving episodes here (default: deleted after the verdict).",
                                     default=None)  # fmt: skip
    settle_s: float = option("The browser's pause after each action; the world answers on loopback.", default=0.05)
    runs: Path | None = option("Recorded runs whose failures weight the sampling (the failure write-back).",
                              default=None)  # fmt: skip
    tasks: tuple[Path, ...] = option("Task files the --runs episodes may come from (synthesised tasks).",
                                    default=())  # fmt: skip
    resume: bool = option("Continue an interrupted run into the same --out: the same seed draws the same stream, and "
                         "tasks already in the file were proved, so they are accepted without a second proof.",
                         default=False)  # fmt: skip
    checkpoint_every: int = option("Rewrite --out after this many accepted tasks (what an interruption keeps).",
                                  default=10)  # fmt: skip

    def __post_init__(self) -> None:
        for name in ("out", "keep_proofs", "runs"):  # callers may pass strings
            if getattr(self, name) is not None:
                setattr(self, name, Path(getattr(self, name)))
        self.tasks = tuple(Path(t) for t in self.tasks)
        if self.n < 1:
            raise ValueError(f"--n must be at least 1, got {self.n}.")
        if self.locale not in ("en", "zh"):
            raise ValueError(f"--locale must be en or zh, got {self.locale!r}.")
        if self.horizon is not None and self.horizon not in HORIZONS:
            raise ValueError(f"--horizon must be one of {', '.join(HORIZONS)}, got {self.horizon!r}.")
        if self.split not in ("any", "train", "heldout"):
            raise ValueError(f"--split must be any, train or heldout, got {self.split!r}.")
        if self.surface not in SURFACE_NAMES:
            raise ValueError(f"--surface must be one of {', '.join(SURFACE_NAMES)}, got {self.surface!r}.")
        known = get_surface(self.surface).kind.apps
        unknown = set(self.apps) - set(known)
        if unknown:
            raise ValueError(f"Unknown app {sorted(unknown)[0]!r}; apps of the {self.surface}: {', '.join(known)}.")
        if not 1 <= self.workers <= 8:
            raise ValueError(f"--workers must be 1..8, got {self.workers}.")
        if not self.check_seeds:
            raise ValueError("check_seeds needs at least one seed.")
        if self.resume and (self.out is None or not self.out.is_file()):
            raise ValueError("--resume continues into an existing --out file; there is none to continue.")


@dataclass
class Outcome:
    index: int
    candidate: Candidate | Proof
    verdict: str = ""
    reason: str = ""
    seconds: float = 0.0
    infra: str | None = None  # the env's own failure (a hung click, a crash) that ended the proof, if any
    resumed: bool = False  # decided by an earlier run this one resumes (not proved again)
    idle: str = ""  # computer: the verdict of a run that does nothing (it must be `failed`)


@dataclass
class Proof:
    """A task to prove that was not drawn in this run (e.g. read back from a task file)."""

    spec: Any


@dataclass
class SynthResult:
    accepted: list[Candidate]
    rejected: list[dict[str, Any]]  # {reason, detail, task (id, when composed)}
    summary: dict[str, Any]


MAX_REFUSALS_LISTED = 50  # refused paraphrases listed with their reason in the summary (all are counted)

# ---- proving --------------------------------------------------------------------------------------


def make_pool(surface: str, workers: int, settle_s: float = 0.05, seed: int = 0, keep: Path | None = None) -> Any:
    """The proving pool of a surface (venuskit.runs.proofs): browsers on one world server, or desktops."""
    from venuskit.runs.proofs import desktop_pool, world_pool

    if surface == "computer":
        return desktop_pool(workers, keep)
    return world_pool(workers, settle_s, seed, keep)


def prove(candidates: list[Any], workers: int = 2, settle_s: float = 0.05, seed: int = 0,
          keep: Path | None = None, surface: str = "browser") -> list[Outcome]:  # fmt: skip
    """Run each candidate's oracle on the real surface (registering it for the run); outcomes in input order.
    A candidate is anything with a `.spec` (a Candidate, or `Proof(spec)` for a task read from a file)."""
    get_surface(surface).register([c.spec for c in candidates])
    pool = make_pool(surface, workers, settle_s, seed, keep)
    try:
        for i, c in enumerate(candidates):
            pool.submit(Outcome(i, c))
        got = [pool.results.get() for _ in candidates]
    finally:
        pool.close()
    for g in got:
        if isinstance(g, Exception):
            raise RuntimeError(f"A proving env died: {g}") from g
    return sorted(got, key=lambda o: o.index)


# ---- the run ----------------------------------------------------------------------------------------


def synthesize(config: SynthConfig, progress: Callable[[dict[str, Any]], None] | None = None,
               catalog: Catalog | None = None) -> SynthResult:  # fmt: skip
    """Draw, check and prove until `config.n` tasks are accepted (or the candidate budget is spent). With `out`,
    the task file (and `<out>.rejected.jsonl`, every rejection with its reason) is rewritten every
    `checkpoint_every` acceptances and on Ctrl-C, so `resume` can take the run up where it stopped."""
    run = _Run(config, catalog or bundled_catalog(config.surface))
    pool = make_pool(config.surface, config.workers, config.settle_s, config.prove_seed, config.keep_proofs)
    try:
        while len(run.accepted) < config.n:
            run.fill(pool)
            if not run.order:
                break  # the candidate budget is spent and nothing is being proved
            run.wait(pool)
            run.commit()
            if progress is not None:
                progress({"accepted": len(run.accepted), "drawn": run.drawn, "rejected": len(run.rejected)})
    except KeyboardInterrupt:
        run.save(None)
        raise
    finally:
        pool.close()
    return run.finish()


class _Run:
    """One synthesis run's state: the sampler and its drawn stream, candidates being proved, decisions."""

    def __init__(self, config: SynthConfig, catalog: Catalog) -> None:
        self.config, self.catalog, self.t0 = config, catalog, time.perf_counter()
        self.surface: Surface = get_surface(catalog.surface)
        self.worlds = SeedWorlds(tuple(config.check_seeds))
        self.sampler = Sampler(catalog, Domains(catalog, self.worlds), random.Random(config.seed),
                               _sampler_config(config, catalog))  # fmt: skip
        self.failures = _failures(config, catalog)
        self.backend = _writer_backend(config)
        self.budget = config.max_candidates or 30 * config.n
        self.hand, self.seen, self.proposed = hand_signatures(self.surface.name), set(), Coverage()
        self.rejected: list[dict[str, Any]] = []
        self.accepted: list[Candidate] = []
        self.verdicts: list[str] = []  # each accepted task's proving verdict, as the proof reported it
        self.proof_s: list[float] = []  # wall seconds of each proving run (reset, every step, the verdict)
        self.counts: Counter = Counter()
        self.refusals: list[dict[str, str]] = []  # the writer's paraphrases refused, with the reason
        self.before = _earlier_decisions(config) if config.resume else {}
        self.pending: dict[int, Outcome] = {}  # drawn for proving, not yet committed
        self.done: dict[int, Outcome] = {}
        self.order: deque[int] = deque()  # their indices, in the order they were drawn
        self.drawn = self.proved = self.last = 0

    def fill(self, pool: Any) -> None:
        """Draw until 2 x workers candidates are being proved (statically rejected ones are decided at once), but
        never more than the run can still accept: a proof past the n-th acceptance would be thrown away, and a
        resumed run would prove that task again."""
        wanted = min(2 * self.config.workers, self.config.n - len(self.accepted))
        while self.drawn < self.budget and len(self.pending) < wanted:
            self.sampler.weights = sampling_weights(self.proposed, self.failures, self.catalog)
            cand = _draw(self.sampler, self.config, self.catalog, self.worlds, self.seen, self.hand, self.rejected,
                         self.drawn)  # fmt: skip
            if cand is not None:
                cand = _paraphrase(self.backend, cand, self.counts, self.refusals)
                self.seen.add(cand.spec.id)
                self.proposed = _add(self.proposed, cand, self.catalog)
                self.surface.register([cand.spec])
                job = self.pending[self.drawn] = Outcome(self.drawn, cand)
                self.order.append(self.drawn)
                if cand.spec.id in self.before:  # decided by the run this one resumes
                    verdict, detail = self.before[cand.spec.id]
                    self.done[self.drawn] = dataclasses.replace(job, verdict=verdict, reason=detail, resumed=True)
                else:
                    pool.submit(job)
            self.drawn += 1

    def wait(self, pool: Any) -> None:
        if self.order[0] not in self.done:
            got = pool.results.get()
            if isinstance(got, Exception):
                raise RuntimeError(f"A proving env died: {got}") from got
            self.done[got.index] = got

    def commit(self) -> None:
        """Decide proved candidates in the order they were drawn."""
        while self.order and self.order[0] in self.done and len(self.accepted) < self.config.n:
            o = self.done.pop(self.order.popleft())
            self.pending.pop(o.index)
            self.last = o.index
            if o.resumed:
                self.counts["resumed"] += 1
            else:
                self.proved += 1
                self.proof_s.append(o.seconds)
            if o.verdict == "completed" and o.idle in ("", "failed"):
                self.accepted.append(o.candidate)
                self.verdicts.append(o.verdict)
                if len(self.accepted) % self.config.checkpoint_every == 0:
                    self.save(None)
                continue
            self.surface.unregister([o.candidate.spec.id])
            if o.verdict == "completed" and o.idle != "error":  # doing nothing passes too: no check tells them apart
                self.rejected.append({"reason": "unverifiable_result", "task": o.candidate.spec.id, "index": o.index,
                                      "verdict": o.idle, "detail": o.reason})  # fmt: skip
                continue
            env = f" ({'desktop' if self.surface.name == 'computer' else 'browser'}: {o.infra})" if o.infra else ""
            detail = o.reason if o.resumed else f"{o.verdict}: {o.reason}{env}"
            self.counts["oracle_failed_browser" if self.surface.name == "browser" else "oracle_failed_env"] += (
                o.infra is not None)
            self.rejected.append({"reason": "oracle_failed", "task": o.candidate.spec.id, "index": o.index,
                                  "verdict": o.verdict, "detail": detail})  # fmt: skip

    def save(self, summary: dict[str, Any] | None) -> None:
        """The task file and the rejections so far (both atomic); a summary once the run is complete."""
        out = self.config.out
        if out is None:
            return
        write_task_file(out, [c.table for c in self.accepted], header=_header(self.config, summary),
                        parse=self.surface.parse_task)  # fmt: skip
        text = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in self.rejected)
        atomic.write_text(_rejected_path(out), text, durable=True)

    def finish(self) -> SynthResult:
        self.surface.unregister([o.candidate.spec.id for o in self.pending.values()])  # drawn past the n-th
        if len(self.accepted) >= self.config.n:  # decisions on candidates drawn after the n-th acceptance
            self.rejected = [r for r in self.rejected if r["index"] <= self.last]
            self.drawn = self.last + 1
        seconds = time.perf_counter() - self.t0
        summary = _summary(self.config, self.catalog, self.accepted, self.verdicts, self.rejected, self.proved,
                           self.drawn, seconds, self.counts)  # fmt: skip
        summary["proof_s_median"] = round(statistics.median(self.proof_s), 2) if self.proof_s else 0.0
        if self.refusals:
            summary["paraphrase_refusals"] = self.refusals
        self.save(summary)
        return SynthResult(self.accepted, self.rejected, summary)


def _rejected_path(out: Path) -> Path:
    return out.with_name(out.name + ".rejected.jsonl")


def _earlier_decisions(config: SynthConfig) -> dict[str, tuple[str, str]]:
    """Task id -> (verdict, detail) decided by the run being resumed: accepted tasks (their file) and the ones
    whose proof failed (its rejections file), so the resumed run makes the same decisions without re-proving."""
    assert config.out is not None
    out = {s.id: ("completed", "proved by the resumed run") for s in get_surface(config.surface).load_file(config.out)}
    path = _rejected_path(config.out)
    for line in path.read_text(encoding="utf-8").splitlines() if path.is_file() else []:
        r = json.loads(line)
        if r.get("reason") == "oracle_failed" and r.get("task"):
            out[r["task"]] = (r.get("verdict", "failed"), r.get("detail", ""))
    return out


def _sampler_config(config: SynthConfig, catalog: Catalog) -> SamplerConfig:
    caps = None
    avoid: frozenset[str] = frozenset()
    if config.split == "train":  # nothing only a held-out template holds is even drawn
        caps, avoid = build.train_capabilities(catalog), heldout_only()[1]
    return SamplerConfig(horizon=config.horizon, apps=tuple(config.apps), caps=caps, avoid=avoid)


def _draw(sampler: Sampler, config: SynthConfig, catalog: Catalog, worlds: SeedWorlds, seen: set[str],
          hand: dict, rejected: list[dict[str, Any]], index: int) -> Candidate | None:  # fmt: skip
    try:
        plan = sampler.plan(config.locale)
        cand = build.build_candidate(plan, catalog, worlds, seen, hand)
        if config.split == "heldout" and build.plan_split(plan) != "heldout":
            return None  # not an error of the task: this run only wants held-out ones
        return cand
    except Rejected as e:
        rejected.append({"reason": e.reason, "detail": e.detail, "index": index})
        return None


def _add(cov: Coverage, cand: Candidate, catalog: Catalog) -> Coverage:
    fresh = coverage_of([cand.spec], catalog)
    cov.caps.update(fresh.caps)
    for k, v in fresh.values.items():
        cov.values.setdefault(k, Counter()).update(v)
    cov.app_pairs.update(fresh.app_pairs)
    cov.flows.update(fresh.flows)
    cov.tasks += fresh.tasks
    cov.cross_app += fresh.cross_app
    return cov


def _failures(config: SynthConfig, catalog: Catalog) -> Failures | None:
    if config.runs is None:
        return None
    surface = get_surface(config.surface)
    for path in config.tasks:
        surface.register(surface.load_file(path))
    return failures_of(outcomes_from_runs(config.runs, config.surface), catalog)


def outcomes_from_runs(root: Path, surface: str = "browser") -> list[tuple[Any, dict[str, Any]]]:
    """(task spec, contract verdict) of every judged world (or, for `computer`, desktop) episode under `root`;
    episodes of unknown tasks (a synthesised task whose file was not given) are skipped."""
    from venuskit.record.store import iter_episode_dirs
    from venuskit.tasks.desktop import spec as desktop_spec

    key, get = ("desktop_task", desktop_spec.get_task) if surface == "computer" else ("world_task", task_spec.get_task)
    out = []
    for folder in iter_episode_dirs(root):
        manifest = json.loads((folder / "manifest.json").read_text(encoding="utf-8"))
        contract = (manifest.get("verdicts") or {}).get("contract")
        task_id = (manifest.get("task") or {}).get(key)
        if not contract or not task_id:
            continue
        try:
            out.append((get(task_id), contract))
        except KeyError:
            continue
    return out


def _writer_backend(config: SynthConfig) -> Any:
    if config.writer is None:
        return None
    from venuskit.models.openai_backend import ModelConfig, OpenAIBackend

    return OpenAIBackend(ModelConfig(base_url=config.writer, model=config.writer_model, temperature=0.7,
                                     max_tokens=400, max_retries=1))  # fmt: skip


def _paraphrase(backend: Any, cand: Candidate, counts: Counter, refusals: list[dict[str, str]]) -> Candidate:
    """The candidate with the writer's paraphrase as its goal, when the paraphrase only rewords it; a refused one is
    listed with its reason (the first MAX_REFUSALS_LISTED, in the summary)."""
    if backend is None:
        return cand
    from venuskit.models.openai_backend import ModelError

    goal = cand.table["goal"]
    try:
        reply = writer.clean_reply(backend.complete(writer.paraphrase_messages(goal, cand.plan.locale)).text)
    except ModelError:
        counts["writer_errors"] += 1
        return cand
    problem = writer.paraphrase_problem(cand.plan, goal, reply)
    if problem is not None:
        counts["paraphrases_refused"] += 1
        if len(refusals) < MAX_REFUSALS_LISTED:
            refusals.append({"task": cand.spec.id, "paraphrase": reply[:300], "reason": problem})
        return cand
    counts["paraphrases_kept"] += 1
    return build.with_goal(cand, reply)


def _summary(config: SynthConfig, catalog: Catalog, accepted: list[Candidate], verdicts: list[str],
             rejected: list[dict[str, Any]], proved: int, drawn: int, seconds: float,
             counts: Counter) -> dict[str, Any]:  # fmt: skip
    specs = [c.spec for c in accepted]
    cov = coverage_of(specs, catalog).summary(catalog)
    hand = hand_signatures(catalog.surface)
    dup = sum(1 for c in accepted if _is_hand_duplicate(c, catalog, hand))
    by_reason = Counter(r["reason"] for r in rejected)
    completed = sum(v == "completed" for v in verdicts)
    return {
        "accepted": len(accepted), "requested": config.n, "drawn": drawn,
        "rejected_by_reason": {r: by_reason.get(r, 0) for r in REASONS},
        "oracle_completed_share": round(completed / len(accepted), 3) if accepted else 0.0,
        "proofs": proved, "proof_completed_share": round(completed / proved, 3) if proved else 0.0,
        "capabilities_covered": cov["capabilities_covered"], "capabilities_total": cov["capabilities_total"],
        "holes": cov["holes"], "cross_app_share": cov["cross_app_share"],
        "data_flow_share": round(sum(any(t.startswith("flow:") for t in s.tags) for s in specs) / len(specs), 3)
        if specs else 0.0,
        "app_pairs_covered": cov["app_pairs_covered"], "app_pairs_total": cov["app_pairs_total"],
        "duplicates": dup, "by_category": dict(Counter(s.category for s in specs)),
        "oracle_steps_mean": round(sum(s.steps for s in specs) / len(specs), 1) if specs else 0.0,
        "by_split": dict(Counter(t[6:] for s in specs for t in s.tags if t.startswith("split:"))),
        "surface": config.surface, "locale": config.locale, "seed": config.seed, "workers": config.workers,
        **dict(counts),
        "seconds": round(seconds, 1), "tasks_per_s": round(len(accepted) / seconds, 3) if seconds else 0.0,
        "load_avg_1m": round(os.getloadavg()[0], 2),
    }  # fmt: skip


def _is_hand_duplicate(cand: Candidate, catalog: Catalog, hand: dict) -> bool:
    """Re-checked on the final set, independently of the filter's bookkeeping."""
    try:
        from venuskit.tasks.synth.reject import check_duplicate

        check_duplicate(cand.plan, cand.spec, catalog, set(), hand)
    except Rejected:
        return True
    return False


def _header(config: SynthConfig, summary: dict[str, Any] | None) -> str:
    """The file's comment: how it was made (a checkpoint of an unfinished run has no summary yet)."""
    cfg = {k: (str(v) if isinstance(v, Path) else [str(x) for x in v] if isinstance(v, tuple) else v)
           for k, v in dataclasses.asdict(config).items()}  # fmt: skip
    keys = ("accepted", "rejected_by_reason", "capabilities_covered", "capabilities_total", "cross_app_share",
            "seconds")  # fmt: skip
    keep = {k: summary[k] for k in keys} if summary is not None else "unfinished (a checkpoint; --resume continues)"
    proved = (f"in real Chromium (world seed {config.prove_seed})" if config.surface == "browser" else
              "under Xvfb with the real desktop apps, and a run that does nothing scored `failed`")  # fmt: skip
    return (
        f"Synthesised by `venus tasks synth` (venuskit.flywheel.synth). Every task here reached `completed` "
        f"with its oracle {proved}.\nconfig: {json.dumps(cfg)}\nsummary: {json.dumps(keep)}"
    )
