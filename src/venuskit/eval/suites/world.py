"""`venus eval world`: a policy over the bundled world's task templates, each episode scored twice — by its task
contract (the ground truth, read from the app state) and by SGV (which sees only the recorded trajectory) — with
rates and 95% intervals by app, category, horizon, locale and surface.

    config = WorldSuiteConfig(out="runs/eval-world", policy=PolicySpec("oracle"), split="heldout", n_seeds=1)
    summary = run_world_suite(config, Parallel(workers=2))

One job is (template, seed, surface, skin). Seeds come from the split's evaluation range (`tasks/splits.toml`)
unless given; `locale` keeps the seeds whose parameter variant is in that language; every job runs once per skin
in `skins` (venuskit.world.skins; default: skin 0, the default look), and the report breaks the rates down by
the skins' split (default / train / heldout).
"""

from __future__ import annotations

import contextlib
import fnmatch
import os
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from venuskit.eval.suites.common import EPISODES, move_attempt, run_suite, slug, viewer_link
from venuskit.infra.config import help_text, option
from venuskit.runs.failures import infra_error
from venuskit.runs.parallel import Parallel
from venuskit.runs.policies import NO_MODEL, Metered, PolicySpec
from venuskit.runs.world import close_envs, grammar_of
from venuskit.world import skins

HORIZONS = ((3, "1-3"), (8, "4-8"), (20, "9-20"), (10**9, "21+"))  # by the oracle's step count



@dataclass(frozen=True)
class WorldSuiteConfig:
    """One world suite run."""

    out: str = field(metadata=help_text("Run folder (ledger, episodes, report)."))
    policy: PolicySpec = field(default_factory=lambda: PolicySpec("oracle"))
    templates: str = option("Template id globs, comma-separated (e.g. 'mail.*,bank.*').", default="*")
    split: str = field(default="heldout", metadata=help_text("heldout, train or all (tasks/splits.toml)."))
    seeds: tuple[int, ...] = option("Explicit seeds (default: the split's eval seeds).", default=())
    n_seeds: int = option("Seeds per template when --seeds is not given.", default=1)
    surfaces: tuple[str, ...] = option("browser, mobile and/or android.", default=("browser",))
    serials: tuple[str, ...] = option("android: the devices, one per worker (none: each worker starts a stand-in "
                                      "device in its own process, on which the oracle can run too).", default=())
    adb_host: str = option("android: host of the adb server.", default="127.0.0.1")
    adb_port: int = option("android: port of the adb server.", default=5037)
    locale: str = field(default="all", metadata=help_text("en, zh or all: the language of the task variant."))
    max_steps: int | None = option("Step limit (default: each task's own).", default=None)
    sgv: str = field(default="ocr,log", metadata=help_text("SGV judges (e.g. 'ocr,log', 'ocr,log,vlm'), or 'off'."))
    sgv_model: str = field(default="", metadata=help_text("Judge model URL for a 'vlm' judge."))
    sgv_model_name: str = field(default="", metadata=help_text("Judge model name for a 'vlm' judge."))
    sgv_keypoints: str = field(
        default="goal", metadata=help_text("goal: SGV splits the goal itself (honest); contract: the "
                                            "contract's texts.")
    )
    seed_range: tuple[int, int] | None = option("Where --n-seeds draws from.", default=None)
    skins: tuple[int, ...] = option("Skins (the world's look; 0 is the default): every job runs once per skin.",
                                    default=(0,))  # fmt: skip

    def __post_init__(self) -> None:
        if self.split not in ("heldout", "train", "all"):
            raise ValueError(f"--split takes heldout, train or all; got {self.split!r}.")
        if self.locale not in ("en", "zh", "all"):
            raise ValueError(f"--locale takes en, zh or all; got {self.locale!r}.")
        bad = [s for s in self.surfaces if s not in ("browser", "mobile", "android")]
        if bad or not self.surfaces:
            raise ValueError(f"--surface takes browser, mobile and/or android; got {list(self.surfaces)}.")
        if self.serials and self.policy.kind == "oracle" and "android" in self.surfaces:
            raise ValueError("The oracle plans from the page, which a device does not expose: run it on the stand-in "
                             "each worker starts in process (leave out --serial), or give a model.")  # fmt: skip
        if self.n_seeds < 1:
            raise ValueError(f"--n-seeds must be at least 1, got {self.n_seeds}.")
        if self.sgv_keypoints not in ("goal", "contract"):
            raise ValueError(f"--sgv-keypoints takes goal or contract; got {self.sgv_keypoints!r}.")
        if not self.skins:
            raise ValueError("--skins needs at least one skin (0 is the default look).")
        for skin in self.skins:
            skins.get(skin)  # raises ValueError with the reason

    def public(self) -> dict[str, Any]:
        return {"suite": "world", "policy": self.policy.public(), "templates": self.templates, "split": self.split,
                "seeds": list(self.seeds), "n_seeds": self.n_seeds, "surfaces": list(self.surfaces),
                "serials": list(self.serials),
                "locale": self.locale, "max_steps": self.max_steps, "sgv": self.sgv,
                "sgv_keypoints": self.sgv_keypoints, "skins": list(self.skins)}  # fmt: skip


def horizon(steps: int) -> str:
    return next(name for limit, name in HORIZONS if steps <= limit)


def world_jobs(config: WorldSuiteConfig) -> list[dict[str, Any]]:
    """The suite's jobs, in a fixed order (template, surface, seed, skin). Raises ValueError when nothing matches."""
    from venuskit.tasks import splits
    from venuskit.tasks.spec import get_task

    globs = [g.strip() for g in config.templates.split(",") if g.strip()] or ["*"]
    ids = [t for t in splits.world_templates(config.split) if any(fnmatch.fnmatchcase(t, g) for g in globs)]
    if not ids:
        raise ValueError(f"No {config.split} world template matches {config.templates!r}; see `venus world tasks`.")
    low, high = config.seed_range or splits.load().world_eval_seeds
    jobs = []
    for task_id in ids:
        spec = get_task(task_id)
        seeds = _seeds(spec, config, low, high)
        for surface in config.surfaces:
            if grammar_of(surface) not in spec.surfaces:
                continue
            for seed in seeds:
                for skin in config.skins:  # a skin-0 job keeps the key it had before skins existed (resumable)
                    jobs.append({"key": f"{task_id}/{surface}/{seed}" + (f"/skin{skin}" if skin else ""),
                                 "template": task_id, "seed": seed, "surface": surface, "skin": skin,
                                 "skins": skin_group(skin), "locale": spec.variant(seed).get("locale", "en"),
                                 "category": spec.category, "apps": list(spec.apps), "horizon": horizon(spec.steps),
                                 "feasible": spec.feasible, "split": splits.world_split(task_id)})  # fmt: skip
    if not jobs:
        raise ValueError("No episode matches these filters (surface / locale); widen them.")
    return jobs


def skin_group(skin: int) -> str:
    """How a report groups a skin: "default" (skin 0), "train", "heldout", or "unsplit" (beyond both ranges)."""
    from venuskit.tasks import splits

    if skin == skins.DEFAULT:
        return "default"
    try:
        return splits.skin_split(skin)
    except ValueError:
        return "unsplit"


def _seeds(spec: Any, config: WorldSuiteConfig, low: int, high: int) -> list[int]:
    def fits(seed: int) -> bool:
        return config.locale == "all" or spec.variant(seed).get("locale", "en") == config.locale

    if config.seeds:
        return [s for s in config.seeds if fits(s)]
    picked: list[int] = []
    for seed in range(low, high + 1):
        if len(picked) == config.n_seeds:
            break
        if fits(seed):
            picked.append(seed)
    return picked


# ---- the worker ---------------------------------------------------------------------------------------


@dataclass(frozen=True)
class WorldWorkerConfig:
    """Builds a WorldWorker (picklable: it crosses into worker processes and Ray actors)."""

    suite: WorldSuiteConfig

    def __call__(self) -> WorldWorker:
        return WorldWorker(self.suite)


class WorldWorker:
    """Owns one world server and one env per surface for its life (android: a claimed device, or a stand-in of its
    own); runs one episode per job."""

    def __init__(self, config: WorldSuiteConfig) -> None:
        self.config = config
        self.out = Path(config.out)
        self.server: Any = None
        self.envs: dict[str, Any] = {}
        self._device: contextlib.ExitStack | None = None  # the android device's claim or stand-in
        self._judges: list[Any] | None = None

    def run(self, job: dict[str, Any]) -> dict[str, Any]:
        t0 = time.perf_counter()
        try:
            run, meter = self._episode(job)
        except Exception:
            self.close()  # the server or the browser may be what broke: the next job builds them again
            raise
        from venuskit.record.store import load_episode

        episode = load_episode(run.episode_dir)  # with its steps (the runner's Episode holds the manifest only)
        problem = infra_error(episode)
        if problem:
            self.close()
            move_attempt(self.out, run.episode_dir)
            return {"key": job["key"], "infra_error": problem}
        row = {**job, **_verdict_fields(run, episode), **(meter.counts() if meter else NO_MODEL),
               "seconds": round(time.perf_counter() - t0, 3), "pid": os.getpid(),
               "episode_dir": str(run.episode_dir.relative_to(self.out))}  # fmt: skip
        row["sgv"] = self._verify(run)
        row["viewer"] = viewer_link(run.episode_dir, self.out)
        return row

    def _episode(self, job: dict[str, Any]) -> tuple[Any, Metered | None]:
        from venuskit.runs.world import run_world_task, world_browser
        from venuskit.world.server import WorldServer

        surface = job["surface"]
        if self.server is None:
            self.server = WorldServer().start()
        if surface not in self.envs:
            self.envs[surface] = self._android_env() if surface == "android" else world_browser(surface)
        meter: Metered | None = None
        policy: Any = "oracle"
        if self.config.policy.kind != "oracle":
            def policy(goal: str, today: str) -> Metered:  # noqa: E306 - the world passes its simulated date
                nonlocal meter
                meter = Metered(self.config.policy.build(grammar_of(surface), goal, today))
                return meter
        slot = self.out / EPISODES / slug(job["key"])
        run = run_world_task(job["template"], job["seed"], policy=policy, out=slot, surface=surface,
                             server=self.server, env=self.envs[surface], max_steps=self.config.max_steps,
                             skin=job.get("skin", skins.DEFAULT))  # fmt: skip
        return run, meter

    def _android_env(self) -> Any:
        """This worker's device: the first free one of --serial, or a stand-in of its own on this worker's world."""
        from venuskit.runs.android import SerialClaim, local_standin

        c = self.config
        self._device = contextlib.ExitStack()
        if c.serials:
            from venuskit.envs.android import AndroidConfig, AndroidEnv

            claim = SerialClaim(c.serials)
            self._device.callback(claim.release)
            return AndroidEnv(AndroidConfig(serial=claim.serial, adb_host=c.adb_host, adb_port=c.adb_port))
        local = self._device.enter_context(local_standin(self.server.base_url))
        return local.env()

    def _verify(self, run: Any) -> dict[str, Any] | None:
        """SGV over the recorded episode (stored in its manifest as verdicts.sgv); None when off."""
        if self.config.sgv == "off":
            return None
        from venuskit.verify.sgv import verify_episode, write_report

        keypoints = [k["desc"] for k in run.verdict.to_dict()["keypoints"]] or None
        report = verify_episode(run.episode_dir, self._make_judges(),
                                keypoints=keypoints if self.config.sgv_keypoints == "contract" else None)  # fmt: skip
        write_report(run.episode_dir, report, slot="sgv")
        return {"verdict": report.verdict, "forced": report.forced, "reason": report.reason,
                "calls": report.cost.calls, "tokens": report.cost.tokens, "seconds": report.cost.seconds}  # fmt: skip

    def _make_judges(self) -> list[Any]:
        if self._judges is None:
            from venuskit.verify.judges import make_judges

            c = self.config
            self._judges = make_judges(c.sgv, model_url=c.sgv_model or None, model_name=c.sgv_model_name or None)
        return self._judges

    def close(self) -> None:
        close_envs(self.envs)
        if self._device is not None:
            self._device.close()
            self._device = None
        if self.server is not None:
            self.server.stop()
            self.server = None


def _verdict_fields(run: Any, episode: Any) -> dict[str, Any]:
    v = run.verdict.to_dict()
    return {"contract": v["verdict"], "contract_reason": v["reason"], "end": episode.outcome.reason,
            "steps": len(episode.steps), "oracle_error": run.oracle_error,
            "forbidden": list(run.verdict.forbidden)[:3],
            "keypoints": [{"desc": k["desc"], "ok": k["ok"]} for k in v["keypoints"]]}  # fmt: skip


# ---- the suite ----------------------------------------------------------------------------------------


def run_world_suite(
    config: WorldSuiteConfig,
    parallel: Parallel = Parallel(),
    *,
    resume: bool = False,
    on_result: Callable[[dict[str, Any]], None] | None = None,
) -> dict[str, Any]:
    """Run the suite (or what a resumed one still lacks), write report.json and report.html, return the summary."""
    from venuskit.eval.suites.report import write_suite_report
    from venuskit.eval.suites.summary import world_summary

    jobs = world_jobs(config)
    run = run_suite(Path(config.out), config.public(), jobs, WorldWorkerConfig(config), parallel, resume=resume,
                    on_result=on_result)  # fmt: skip
    summary = world_summary(run.rows, total_jobs=len(jobs))
    summary.update(wall_s=run.wall_s, ran_now=run.ran_now)
    write_suite_report(Path(config.out), "World suite", summary, run.rows, config.public())
    return summary
