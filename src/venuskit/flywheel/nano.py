"""`run_all`: venus-nano from nothing — collect, SFT, per-domain GRPO, MOPD — in one resumable run folder.

    out/
      world/          oracle episodes of the training templates (index.jsonl, episodes/*/nano_targets.json)
      validation/     oracle episodes of the validation templates (step accuracy in the learning curves only)
      grounding/      synthetic grounding pages (training families, a training seed)
      captcha/        CAPTCHA instances of the training types with the oracle's solutions
      rollouts-sft/   the SFT policy's own rollouts, each state relabelled by the oracle (GRPO states)
      rollouts-grpo/  the GRPO policy's own rollouts (the MOPD student's states)
      sft/ grpo-world/ grpo-grounding/ grpo-captcha/ mopd/   one checkpoint + metrics.json per stage
      venus-nano.pt summary.json reader_cache.json features.pkl

Every stage runs a fixed number of epochs from a fixed seed, on one thread, so `--seed S` gives the same
checkpoint on a rerun; `budget_min` is a safety cap only (a stage that hits it says so in its metrics). Every
collection skips what its folder already holds, so a rerun resumes. Only training templates and training seeds
ever enter (`venuskit.tasks.splits`); held-out templates, CAPTCHA types and grounding families stay out.
"""

from __future__ import annotations

import json
import logging
import random
import shutil
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import torch

from venuskit.flywheel import collect, rows
from venuskit.infra.atomic import write_json
from venuskit.models.nano.model import NanoModel
from venuskit.models.nano.net import NanoNet, NetConfig
from venuskit.models.nano.reader import Reader
from venuskit.runs.parallel import Parallel
from venuskit.tasks import splits
from venuskit.tasks.spec import CATEGORIES, register_file
from venuskit.tasks.synth.taskfile import task_file
from venuskit.train.nano.common import StageResult
from venuskit.train.nano.data import Example, FeatureCache, examples
from venuskit.train.nano.grpo import GRPOConfig, grpo
from venuskit.train.nano.mopd import MOPDConfig, mopd
from venuskit.train.nano.sft import SFTConfig, sft

log = logging.getLogger(__name__)
STAGES = ("sft", "grpo", "mopd")


@dataclass
class NanoTrainConfig:
    """`venus nano train`: the whole recipe."""

    out: Path = field(default=Path("runs/nano"), metadata={"help": "Run folder (resumable)."})
    seed: int = field(default=0, metadata={"help": "Seed of every stage; same seed, same checkpoint."})
    stages: tuple[str, ...] = field(default=STAGES, metadata={"help": "Stages to run, in order: sft, grpo, mopd."})
    budget_min: float = field(default=120.0, metadata={
        "help": "Safety cap in minutes for the whole run; stages run fixed epochs and normally end well before."})
    categories: tuple[str, ...] = field(default=("short", "medium", "infeasible"),
                                        metadata={"help": "World task categories to train on."})  # fmt: skip
    surfaces: tuple[str, ...] = field(default=("browser", "mobile"), metadata={"help": "browser and/or mobile."})
    templates: tuple[str, ...] | None = field(default=None, metadata={"help": "Only these training templates."})
    sft_epochs: int = field(default=15, metadata={"help": "SFT passes over the examples (the budget of the stage)."})
    seeds_per_variant: int = field(default=2, metadata={"help": "Oracle episodes per template variant and surface."})
    validation: bool = field(default=True, metadata={
        "help": "Keep the validation templates out of training (their step accuracy is the learning curve)."})
    grounding_n: int = field(default=400, metadata={"help": "Synthetic grounding samples (0: no grounding)."})
    captcha_per_type: int = field(default=6, metadata={"help": "CAPTCHA instances per training type (0: none)."})
    rollouts: int = field(default=60, metadata={"help": "Policy rollouts per round (GRPO, MOPD states)."})
    tasks: tuple[Path, ...] = field(default=(), metadata={
        "help": "Synthesised task files (`venus tasks synth`); their train-split tasks join the training templates."})
    workers: int = field(default=1, metadata={
        "help": "Collection workers (each a browser and a world server), and the processes that read the rows."})
    size: str = field(default="small", metadata={"help": "Student size: small (shipped) or large."})
    teacher_size: str = field(default="small", metadata={"help": "Size of the per-domain GRPO teachers."})
    skins: tuple[int, ...] = field(default=(0,), metadata={
        "help": "World skins the episodes are spread over (training skins only; 0 is the default look)."})
    icon_names: bool = field(default=False, metadata={
        "help": "The network reads the icon-name features (`models.nano.icons`); off, as the shipped checkpoint."})
    world_rows: int = field(default=0, metadata={
        "help": "World step rows trained on (0: every row): a sample spread evenly over the tasks, rows already "
                "read first. Reading tens of thousands of screens takes hours on two cores."})

    def __post_init__(self) -> None:
        self.out = Path(self.out)
        self.stages = tuple(self.stages)
        self.categories = tuple(self.categories)
        bad = [s for s in self.stages if s not in STAGES]
        if bad or not self.stages:
            raise ValueError(f"Unknown stages {bad}; choose from {', '.join(STAGES)}.")
        if list(self.stages) != [s for s in STAGES if s in self.stages] or self.stages[0] != "sft":
            raise ValueError("Stages run in order and start with sft: sft | sft,grpo | sft,grpo,mopd.")
        if self.budget_min <= 0 or min(self.rollouts, self.grounding_n, self.captcha_per_type, self.world_rows) < 0:
            raise ValueError("budget_min must be positive; rollouts, grounding_n, captcha_per_type and world_rows "
                             "cannot be negative.")  # fmt: skip
        bad_categories = set(self.categories) - set(CATEGORIES)
        if bad_categories or not self.categories:
            raise ValueError(f"Unknown categories {sorted(bad_categories)}; choose from {', '.join(CATEGORIES)}.")
        if self.seeds_per_variant < 1 or self.sft_epochs < 1:
            raise ValueError("seeds_per_variant and sft_epochs must be at least 1.")
        NetConfig.named(self.size)
        NetConfig.named(self.teacher_size)
        self.tasks = tuple(Path(p) for p in self.tasks)
        self.task_files()  # every file exists, on disk or shipped (a ValueError names the one missing)
        if self.workers < 1:
            raise ValueError(f"workers must be at least 1, got {self.workers}.")
        self.skins = tuple(self.skins)
        if not self.skins:
            raise ValueError("skins needs at least one skin (0 is the default look).")
        for skin in self.skins:
            splits.require_train_skin(skin)

    def task_files(self) -> tuple[str, ...]:
        """The task files' paths: a shipped file's name resolves inside the package (the summary keeps the name)."""
        return tuple(str(task_file(p)) for p in self.tasks)

    def parallel(self) -> Parallel:
        return Parallel(workers=self.workers)


def templates_of(cfg: NanoTrainConfig) -> list[str]:
    """The training tasks: `templates`, else the training split's (hand-written, less the validation slice) and
    the train-split tasks of every registered task file. While the validation slice is kept out, so is every
    synthesised task that composes a capability only validation templates exercise: validation measures
    transfer to functions no training task shows, as held-out evaluation does."""
    for path in cfg.task_files():
        register_file(path)
    if cfg.templates:
        return list(cfg.templates)
    tasks = splits.training_templates(cfg.categories, keep_validation_out=cfg.validation)
    if not cfg.validation:
        return tasks
    only_val = validation_capabilities()
    return [t for t in tasks if not capabilities_of(t) & only_val]


def capabilities_of(task_id: str) -> set[str]:
    """The catalog capabilities a synthesised task composes (its `cap:` tags; none for a hand-written one)."""
    from venuskit.tasks.spec import get_task

    return {tag[4:] for tag in get_task(task_id).tags if tag.startswith("cap:")}


def validation_capabilities() -> set[str]:
    """Capabilities cold-started only from validation templates (the validation slice's functions)."""
    from venuskit.tasks.synth.catalog import bundled_catalog

    val = set(splits.validation_templates())
    return {c.id for c in bundled_catalog("browser").caps.values() if c.templates and set(c.templates) <= val}


def collect_sources(cfg: NanoTrainConfig) -> dict[str, list[dict[str, Any]]]:
    """Collect every off-policy source (each resumable), then turn each into rows: source name -> rows."""
    out = cfg.out
    jobs = collect.world_jobs(templates_of(cfg), cfg.surfaces, seeds_per_variant=cfg.seeds_per_variant,
                              skins=cfg.skins)  # fmt: skip
    episodes = collect.world_oracle_episodes(out / "world", jobs, parallel=cfg.parallel(), task_files=cfg.task_files())
    sources = {"world": rows.world_rows(episodes, relabelled=False)}
    if cfg.validation and not cfg.templates:
        vjobs = collect.world_jobs(splits.validation_templates(), ("browser",), seed_offset=4000)
        val = collect.world_oracle_episodes(out / "validation", vjobs, parallel=cfg.parallel())
        sources["validation"] = rows.world_rows(val, relabelled=False)
    if cfg.grounding_n:
        sources["grounding"] = rows.grounding_rows(collect.grounding_data(out / "grounding", cfg.grounding_n,
                                                                          cfg.seed))  # fmt: skip
    if cfg.captcha_per_type:
        sources["captcha"] = rows.captcha_rows(collect.captcha_data(out / "captcha", cfg.captcha_per_type,
                                                                    cfg.seed * 1000))  # fmt: skip
    return sources


class _Run:
    """One recipe run: its reader and feature cache (every row is read once, whichever stage asks), the clock of
    its safety cap, and its summary."""

    def __init__(self, cfg: NanoTrainConfig) -> None:
        self.cfg = cfg
        cfg.out.mkdir(parents=True, exist_ok=True)
        # The reader is most of featurising (PP-OCR on every unread crop) and runs while no browser does: the rows
        # are read in as many processes as the run has collection workers; a few stragglers here, with as many
        # intra-op threads.
        self.reader = Reader(threads=cfg.workers)
        self.reader.load_cache(cfg.out / "reader_cache.json")
        self.cache = FeatureCache(cfg.out / "features.pkl")
        self.featurizer = NanoModel(NanoNet(NetConfig()), reader=self.reader)
        self.started = time.monotonic()
        self.log: dict[str, Any] = {"config": json.loads(json.dumps(asdict(cfg), default=str)), "stages": {},
                                    "data": {}}  # fmt: skip

    def left(self) -> float:
        """Minutes left of the safety cap (a stage gets at least a fifth of a minute)."""
        return max(0.2, self.cfg.budget_min - (time.monotonic() - self.started) / 60)

    def kept(self, sources: dict[str, list[dict[str, Any]]]) -> dict[str, list[dict[str, Any]]]:
        """The sources the run trains on: the world rows sampled down to `world_rows` when it is set."""
        if not self.cfg.world_rows or "world" not in sources:
            return sources
        world = rows.spread(sources["world"], self.cfg.world_rows, self.cfg.seed, first=self.cache.holds)
        log.info("world: %d of %d rows kept, %d tasks", len(world), len(sources["world"]),
                 len({r.get("task") for r in world}))  # fmt: skip
        self.log["data"]["world_collected"] = len(sources["world"])
        return {**sources, "world": world}

    def featurise(self, sources: dict[str, list[dict[str, Any]]]) -> dict[str, list[Example]]:
        """Every source's rows read in one pass (one reader cache, one feature cache, saved once)."""
        tagged = [(name, row) for name, rs in sources.items() for row in rs]
        for name, row in tagged:
            row["source"] = name  # not part of the cache key: a row reads the same whatever its source
        exs, skipped = examples([row for _, row in tagged], self.featurizer, self.cache, workers=self.cfg.workers,
                                on_save=lambda: self.reader.save_cache(self.cfg.out / "reader_cache.json"))
        by: dict[str, list[Example]] = {name: [] for name in sources}
        for ex in exs:
            by[ex.row["source"]].append(ex)
        minutes = round((time.monotonic() - self.started) / 60, 2)
        for name, rs in sources.items():
            self.log["data"][name] = {"rows": len(rs), "examples": len(by[name]), "minutes": minutes}
            log.info("%s: %d examples from %d rows", name, len(by[name]), len(rs))
        self.log["data"]["skipped"] = skipped
        return by

    def rollouts(self, name: str, checkpoint: Path, n: int) -> list[Example]:
        """The policy's own rollouts on training templates and fresh training seeds, relabelled by the oracle."""
        if n <= 0:
            return []
        jobs = collect.world_jobs(templates_of(self.cfg), ("browser", "mobile"), seed_offset=2000,
                                  skins=self.cfg.skins)  # fmt: skip
        random.Random(f"{self.cfg.seed}:{name}").shuffle(jobs)
        index = collect.world_relabel_rollouts(self.cfg.out / name, sorted(jobs[:n], key=lambda j: j.surface),
                                               checkpoint, parallel=self.cfg.parallel(),
                                               task_files=self.cfg.task_files())  # fmt: skip
        return self.featurise({name: rows.world_rows(index, relabelled=True)})[name]

    def record(self, result: StageResult) -> None:
        self.log["stages"][result.stage] = result.to_dict()
        self.log["minutes"] = round((time.monotonic() - self.started) / 60, 2)
        write_json(self.cfg.out / "summary.json", self.log, durable=False)


def run_all(cfg: NanoTrainConfig) -> dict[str, Any]:
    """Run the recipe; returns the summary (also in `out/summary.json`) with every stage's checkpoint and metrics.

    collect every source -> rows -> featurise once -> SFT -> (on-policy rollouts, relabelled) -> per-domain GRPO
    -> (the GRPO policy's rollouts) -> MOPD. The on-policy rounds interleave with the stages by nature: their
    states come from the policy the previous stage made."""
    torch.set_num_threads(1)  # one thread: deterministic, and under a loaded machine a second one spins at barriers
    sources = collect_sources(cfg)  # every off-policy source first, each resumable
    run = _Run(cfg)
    data = run.featurise(run.kept(sources))  # then every row read once
    world, val = data["world"], data.get("validation", [])
    ground, captcha = data.get("grounding", []), data.get("captcha", [])
    sft_cfg = SFTConfig(epochs=cfg.sft_epochs, seed=cfg.seed, size=cfg.size, icon_names=cfg.icon_names,
                        max_minutes=run.left())  # fmt: skip
    s = sft(world + ground + captcha, cfg.out / "sft", sft_cfg, val=val)
    run.record(s)
    final = s.checkpoint
    if "grpo" in cfg.stages:
        states = run.rollouts("rollouts-sft", s.checkpoint, cfg.rollouts)
        teachers: dict[str, Path] = {}
        for domain, exs in (("world", states + world), ("grounding", ground), ("captcha", captcha)):
            if not exs:
                continue
            r = grpo(exs, s.checkpoint, cfg.out / f"grpo-{domain}", GRPOConfig(seed=cfg.seed, max_minutes=run.left()),
                     domain=domain, val=val if domain == "world" else None)  # fmt: skip
            run.record(r)
            teachers[domain] = r.checkpoint
        final = teachers["world"]
        if "mopd" in cfg.stages:
            own = run.rollouts("rollouts-grpo", teachers["world"], cfg.rollouts)
            m = mopd(own + states + world + ground + captcha, teachers, teachers["world"], cfg.out / "mopd",
                     MOPDConfig(seed=cfg.seed, max_minutes=run.left()), val=val)  # fmt: skip
            run.record(m)
            final = m.checkpoint
    shutil.copyfile(final, cfg.out / "venus-nano.pt")
    run.log["final"] = "venus-nano.pt"
    run.record(StageResult("final", cfg.out / "venus-nano.pt", {}))
    return run.log


def run_config(run: Path) -> NanoTrainConfig:
    """The config a finished `venus nano train` folder was made with (its summary.json), pointing at `run`."""
    path = Path(run) / "summary.json"
    if not path.is_file():
        raise ValueError(f"{run} is not a `venus nano train` run folder (no summary.json).")
    try:
        raw = json.loads(path.read_text("utf-8"))["config"]
        fields = {k: v for k, v in raw.items() if k in NanoTrainConfig.__dataclass_fields__}
    except (json.JSONDecodeError, UnicodeDecodeError, KeyError, TypeError, AttributeError) as exc:
        raise ValueError(f"{path}: not a `venus nano train` summary ({type(exc).__name__}).") from exc
    for key in ("stages", "categories", "surfaces", "tasks", "skins"):
        if fields.get(key) is not None:
            fields[key] = tuple(fields[key])
    return NanoTrainConfig(**{**fields, "out": Path(run)})


def run_examples(run: Path) -> dict[str, list[Example]]:
    """Every off-policy source of a finished run as examples (world, validation, grounding, captcha), read from the
    run's own folders and feature cache: nothing is collected or read again. The flywheel's base data."""
    cfg = run_config(run)
    run_ = _Run(cfg)
    return run_.featurise(run_.kept(collect_sources(cfg)))


def run_featurise(run: Path, name: str, rows_: list[dict[str, Any]], workers: int = 1) -> list[Example]:
    """More rows read with a finished run's reader and feature caches (rows already read are not read again)."""
    from dataclasses import replace

    return _Run(replace(run_config(run), workers=workers)).featurise({name: rows_})[name]


def install(checkpoint: Path) -> Path:
    """Copy a trained checkpoint over the one shipped inside the package (after checking it loads)."""
    from venuskit.models.nano.model import default_checkpoint

    NanoModel.load(checkpoint)
    target = default_checkpoint()
    target.parent.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(checkpoint, target)
    return target
