"""Task specs: templates loaded from TOML files under `catalog/`, validated before anything runs.

A file holds `[[task]]` tables. A template has a goal with `{param}` placeholders and a list of parameter
variants (`[[task.params]]`, each optionally with `locale = "zh"`); an instance is (template, seed): the
seed picks the variant and seeds the background world. Every string in setup, keypoints, interrupts and
the oracle is formatted with the variant's parameters.

The fields every surface shares (id, apps, category, goal, params, keypoints, forbid, consequential, oracle, ...)
are read by the one loader skeleton (venuskit.tasks.loader); this module adds the world's own: setup rows,
interrupts, the start URL, surfaces and the simulated date. A malformed file raises `TaskFileError` naming the
file, the task, the field and the reason.
"""

from __future__ import annotations

import datetime as dt
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from venuskit.tasks import loader
from venuskit.tasks.checks import CHECKS
from venuskit.tasks.loader import Keypoint, TaskFileError, TaskKind, Where, fill, read_catalog
from venuskit.tasks.setup import DOC_FIELDS, OPS

CATEGORIES = ("short", "medium", "long", "interrupt", "infeasible")
CONSEQUENTIAL = ("mail.send", "mail.trash", "mail.delete_forever", "drive.trash", "calendar.delete",
                 "bank.transfer", "expense.submit", "settings.password", "shop.checkout", "shop.return",
                 "forum.delete")  # fmt: skip
APPS = ("mail", "calendar", "drive", "expense", "bank", "shop", "forum", "settings")
SURFACES = ("browser", "mobile")
# oracle op -> (min args, max args)
ORACLE_OPS = {"click": (1, 1), "fill": (2, 2), "select": (2, 2), "enter": (0, 0), "goto": (1, 1),
              "finish": (0, 1), "call_user": (1, 1), "open_menu": (0, 0), "type": (2, 2),
              "finish_from": (1, 1), "drag": (2, 2), "key": (1, 1)}  # fmt: skip
_PLACEHOLDER = loader.PLACEHOLDER

__all__ = ["APPS", "CATEGORIES", "CONSEQUENTIAL", "Keypoint", "TaskFileError", "TaskInstance", "TaskSpec", "fill",
           "read_catalog"]  # fmt: skip


@dataclass(frozen=True)
class Interrupt:
    desc: str
    ops: tuple[dict[str, Any], ...]  # setup ops applied when it fires
    at_step: int | None = None  # fire after this step index has been recorded
    when: Keypoint | None = None  # or: fire after the first step at which this check holds


@dataclass(frozen=True)
class TaskSpec:
    id: str
    apps: tuple[str, ...]
    category: str
    goal: str
    params: tuple[dict[str, Any], ...]
    keypoints: tuple[Keypoint, ...]
    source: str
    goal_zh: str | None = None
    setup: tuple[dict[str, Any], ...] = ()
    forbid: tuple[Keypoint, ...] = ()
    interrupts: tuple[Interrupt, ...] = ()
    consequential: tuple[str, ...] = ()
    feasible: bool = True
    infeasible_reason: str = ""  # function absent / target absent / ambiguous goal
    start: str = "/"
    surfaces: tuple[str, ...] = SURFACES
    steps: int = 5  # the oracle's step count, roughly (the short/medium/long estimate)
    max_steps: int = 30
    tags: tuple[str, ...] = ()
    oracle: tuple[tuple[str, ...], ...] = ()
    today: dt.date | None = None

    @property
    def locales(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(p.get("locale", "en") for p in self.params))

    def variant(self, seed: int) -> dict[str, Any]:
        return self.params[seed % len(self.params)]

    def instance(self, seed: int) -> TaskInstance:
        params = self.variant(seed)
        locale = params.get("locale", "en")
        fmt = lambda v: fill(v, params)  # noqa: E731
        goal = self.goal_zh if locale == "zh" and self.goal_zh else self.goal
        return TaskInstance(
            spec=self, seed=seed, locale=locale, params=params, goal=fmt(goal), start=fmt(self.start),
            setup=tuple(fmt(op) for op in self.setup),
            keypoints=tuple(k.filled(params) for k in self.keypoints),
            forbid=tuple(k.filled(params) for k in self.forbid),
            interrupts=tuple(Interrupt(fmt(i.desc), fmt(i.ops), i.at_step, _fill_kp(i.when, params))
                             for i in self.interrupts),
            oracle=tuple(tuple(fmt(list(step))) for step in self.oracle),
        )  # fmt: skip


@dataclass(frozen=True)
class TaskInstance:
    """One runnable task: a template with its parameters filled in."""

    spec: TaskSpec
    seed: int
    locale: str
    params: dict[str, Any]
    goal: str
    start: str
    setup: tuple[dict[str, Any], ...]
    keypoints: tuple[Keypoint, ...]
    forbid: tuple[Keypoint, ...]
    interrupts: tuple[Interrupt, ...]
    oracle: tuple[tuple[str, ...], ...]


def _fill_kp(kp: Keypoint | None, params: dict[str, Any]) -> Keypoint | None:
    return None if kp is None else Keypoint(kp.desc, kp.check, fill(kp.args, params), kp.progress)


# ---- loading and validation (the shared skeleton: venuskit.tasks.loader) ----------------------------------

KIND = TaskKind(
    "world", frozenset({"setup", "interrupts", "start", "surfaces", "today"}), APPS, CATEGORIES, CHECKS, ORACLE_OPS,
    CONSEQUENTIAL, feasible_field=True,
)  # fmt: skip


def load_file(path: Path | str) -> list[TaskSpec]:
    return loader.load_file(path, _task)


def _task(raw: Any, w: Where) -> TaskSpec:
    c = loader.common(raw, w, KIND)
    surfaces = tuple(raw.get("surfaces", SURFACES))
    if not surfaces or any(s not in SURFACES for s in surfaces):
        raise w.fail("surfaces", f"must be a non-empty list of {', '.join(SURFACES)}")
    spec = TaskSpec(
        id=c.id, apps=c.apps, category=c.category, goal=c.goal, goal_zh=c.goal_zh, params=c.params,
        keypoints=c.keypoints, source=w.path,
        setup=tuple(_op(op, w, f"setup[{i}]") for i, op in enumerate(raw.get("setup", []))),
        forbid=c.forbid,
        interrupts=tuple(_interrupt(x, w, f"interrupts[{i}]") for i, x in enumerate(raw.get("interrupts", []))),
        consequential=c.consequential, feasible=c.feasible, infeasible_reason=c.infeasible_reason,
        start=raw.get("start", "/"), surfaces=surfaces, steps=c.steps, max_steps=c.max_steps, tags=c.tags,
        oracle=c.oracle, today=_date(raw.get("today"), w),
    )  # fmt: skip
    loader.check_placeholders(w, spec, lambda i: (i.goal, i.setup, i.keypoints, i.forbid, i.oracle, i.start,
                                                  i.interrupts))  # fmt: skip
    return spec


def _date(value: Any, w: Where) -> dt.date | None:
    if value is None or isinstance(value, dt.date):
        return value
    try:
        return dt.date.fromisoformat(str(value))
    except ValueError:
        raise w.fail("today", f"must be a date YYYY-MM-DD, got {value!r}") from None


def _op(raw: Any, w: Where, where: str) -> dict[str, Any]:
    if not isinstance(raw, dict) or raw.get("op") not in OPS:
        raise w.fail(f"{where}.op", f"must be one of {', '.join(OPS)}")
    extra = set(raw) - OPS[raw["op"]] - {"op"}
    if extra:
        raise w.fail(f"{where}.{sorted(extra)[0]}", f"op {raw['op']!r} has no such field; it takes "
                                                     f"{', '.join(sorted(OPS[raw['op']]))}")  # fmt: skip
    for j, att in enumerate(raw.get("attachments", [])):
        if not isinstance(att, dict) or "name" not in att or set(att) - DOC_FIELDS:
            raise w.fail(f"{where}.attachments[{j}]", f"needs a name and only {', '.join(sorted(DOC_FIELDS))}")
    return dict(raw)


def _interrupt(raw: Any, w: Where, where: str) -> Interrupt:
    if not isinstance(raw, dict) or ("at_step" in raw) == ("when" in raw):
        raise w.fail(where, "an interrupt needs exactly one of at_step (a step index) or when (a check)")
    when = loader.keypoint({"desc": "condition", **raw["when"]}, w, f"{where}.when", CHECKS) if "when" in raw else None
    ops = tuple(_op(op, w, f"{where}.ops[{i}]") for i, op in enumerate(raw.get("ops", [])))
    if not ops:
        raise w.fail(f"{where}.ops", "an interrupt must change something")
    return Interrupt(str(raw.get("desc", "")), ops, raw.get("at_step"), when)


@cache
def catalog_dir() -> Path:
    return Path(str(resources.files("venuskit.tasks").joinpath("catalog")))


def load_catalog(directory: Path | str | None = None) -> dict[str, TaskSpec]:
    """Every task in every *.toml under `directory` (default: the bundled catalog), by id."""
    return read_catalog(Path(directory) if directory is not None else catalog_dir(), load_file, lambda t: t.source)


@cache
def bundled() -> dict[str, TaskSpec]:
    return load_catalog()


# Task files registered at run time (e.g. synthesised tasks), resolved next to the bundled catalog.
TASKS = loader.TaskSet("world", bundled, load_file)
register, register_file, unregister, registered, get_task = (TASKS.register, TASKS.register_file, TASKS.unregister,
                                                             TASKS.registered, TASKS.get)  # fmt: skip


def parse_task(raw: dict[str, Any], source: str = "<memory>") -> TaskSpec:
    """One `[[task]]` table, validated exactly as a task file's (raises TaskFileError)."""
    return _task(raw, Where(source, str(raw.get("id", "?"))))
