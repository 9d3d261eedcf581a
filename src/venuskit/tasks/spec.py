"""Task specs: templates loaded from TOML files under `catalog/`, validated before anything runs.

A file holds `[[task]]` tables. A template has a goal with `{param}` placeholders and a list of parameter
variants (`[[task.params]]`, each optionally with `locale = "zh"`); an instance is (template, seed): the
seed picks the variant and seeds the background world. Every string in setup, keypoints, interrupts and
the oracle is formatted with the variant's parameters.

A malformed file raises `TaskFileError` naming the file, the task, the field and the reason.
"""

from __future__ import annotations

import datetime as dt
import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any, TypeVar

from venuskit.tasks.checks import CHECKS
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
TASK_FIELDS = {"id", "apps", "category", "goal", "goal_zh", "params", "setup", "keypoints", "forbid", "interrupts",
               "consequential", "feasible", "start", "surfaces", "steps", "max_steps", "tags", "oracle", "today",
               "infeasible_reason"}  # fmt: skip
_PLACEHOLDER = re.compile(r"\{(\w+)\}")


class TaskFileError(ValueError):
    """A task file that cannot be used; the message names the file, task, field and reason."""


@dataclass(frozen=True)
class Keypoint:
    desc: str  # short, visually checkable ("the reply is in Sent")
    check: str  # a name in venuskit.tasks.checks.CHECKS
    args: dict[str, Any] = field(default_factory=dict)
    progress: bool = False  # counts towards `partial` when it holds without the rest


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
            keypoints=tuple(Keypoint(fmt(k.desc), k.check, fmt(k.args), k.progress) for k in self.keypoints),
            forbid=tuple(Keypoint(fmt(k.desc), k.check, fmt(k.args), k.progress) for k in self.forbid),
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


def fill(value: Any, params: dict[str, Any]) -> Any:
    """Format every string inside `value` with `{name}` placeholders from params (other braces stay)."""
    if isinstance(value, str):
        return _PLACEHOLDER.sub(lambda m: str(params[m.group(1)]) if m.group(1) in params else m.group(0), value)
    if isinstance(value, list):
        return [fill(v, params) for v in value]
    if isinstance(value, tuple):
        return tuple(fill(v, params) for v in value)
    if isinstance(value, dict):
        return {k: fill(v, params) for k, v in value.items()}
    return value


# ---- loading and validation ----------------------------------------------------------------------


class _Where:
    """Builds error messages that name the file, the task and the field."""

    def __init__(self, path: Path | str, task_id: str = "?") -> None:
        self.path, self.task_id = str(path), task_id

    def fail(self, fld: str, reason: str) -> TaskFileError:
        return TaskFileError(f"{self.path}: task {self.task_id!r}: field '{fld}': {reason}")


def load_file(path: Path | str) -> list[TaskSpec]:
    path = Path(path)
    try:
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    except tomllib.TOMLDecodeError as e:
        raise TaskFileError(f"{path}: not valid TOML: {e}") from e
    tasks = doc.get("task")
    if not isinstance(tasks, list) or not tasks:
        raise TaskFileError(f"{path}: no [[task]] tables; a task file holds one or more [[task]] entries.")
    return [_task(t, _Where(path, str(t.get("id", f"#{i}")))) for i, t in enumerate(tasks)]


def _need(raw: dict[str, Any], key: str, kind: type | tuple[type, ...], w: _Where) -> Any:
    if key not in raw:
        raise w.fail(key, "is required")
    if not isinstance(raw[key], kind):
        raise w.fail(key, f"must be {getattr(kind, '__name__', kind)}, got {type(raw[key]).__name__}")
    return raw[key]


def _task(raw: dict[str, Any], w: _Where) -> TaskSpec:
    unknown = set(raw) - TASK_FIELDS
    if unknown:
        raise w.fail(sorted(unknown)[0], f"is not a task field; known fields: {', '.join(sorted(TASK_FIELDS))}")
    tid = _need(raw, "id", str, w)
    if not re.fullmatch(r"[a-z0-9_.-]+", tid):
        raise w.fail("id", "use lowercase letters, digits, '.', '_' and '-' only")
    apps = tuple(_need(raw, "apps", list, w))
    if not apps or any(a not in APPS for a in apps):
        raise w.fail("apps", f"must be a non-empty list of {', '.join(APPS)}; got {list(apps)}")
    category = _need(raw, "category", str, w)
    if category not in CATEGORIES:
        raise w.fail("category", f"must be one of {', '.join(CATEGORIES)}; got {category!r}")
    feasible = raw.get("feasible", category != "infeasible")
    if feasible == (category == "infeasible"):
        raise w.fail("feasible", "must be false exactly when category is 'infeasible'")
    params = tuple(raw.get("params") or [{}])
    for i, p in enumerate(params):
        if not isinstance(p, dict) or p.get("locale", "en") not in ("en", "zh"):
            raise w.fail(f"params[{i}]", "must be a table whose optional locale is 'en' or 'zh'")
    consequential = tuple(raw.get("consequential", []))
    for c in consequential:
        if c not in CONSEQUENTIAL:
            raise w.fail("consequential", f"{c!r} is not a consequential action; known: {', '.join(CONSEQUENTIAL)}")
    keypoints = tuple(_keypoint(k, w, f"keypoints[{i}]") for i, k in enumerate(raw.get("keypoints", [])))
    if feasible and not keypoints:
        raise w.fail("keypoints", "a feasible task needs at least one keypoint")
    surfaces = tuple(raw.get("surfaces", SURFACES))
    if not surfaces or any(s not in SURFACES for s in surfaces):
        raise w.fail("surfaces", f"must be a non-empty list of {', '.join(SURFACES)}")
    spec = TaskSpec(
        id=tid, apps=apps, category=category, goal=_need(raw, "goal", str, w), goal_zh=raw.get("goal_zh"),
        params=params, keypoints=keypoints, source=w.path,
        setup=tuple(_op(op, w, f"setup[{i}]") for i, op in enumerate(raw.get("setup", []))),
        forbid=tuple(_keypoint(k, w, f"forbid[{i}]") for i, k in enumerate(raw.get("forbid", []))),
        interrupts=tuple(_interrupt(x, w, f"interrupts[{i}]") for i, x in enumerate(raw.get("interrupts", []))),
        consequential=consequential, feasible=feasible, infeasible_reason=raw.get("infeasible_reason", ""),
        start=raw.get("start", "/"), surfaces=surfaces, steps=int(raw.get("steps", 5)),
        max_steps=int(raw.get("max_steps", 30)), tags=tuple(raw.get("tags", [])),
        oracle=tuple(_oracle_step(s, w, f"oracle[{i}]") for i, s in enumerate(raw.get("oracle", []))),
        today=_date(raw.get("today"), w),
    )  # fmt: skip
    _check_complete(spec, w)
    return spec


def _date(value: Any, w: _Where) -> dt.date | None:
    if value is None or isinstance(value, dt.date):
        return value
    try:
        return dt.date.fromisoformat(str(value))
    except ValueError:
        raise w.fail("today", f"must be a date YYYY-MM-DD, got {value!r}") from None


def _keypoint(raw: Any, w: _Where, where: str) -> Keypoint:
    if not isinstance(raw, dict):
        raise w.fail(where, "must be a table with desc, check and args")
    name = raw.get("check")
    if name not in CHECKS:
        raise w.fail(f"{where}.check", f"unknown check {name!r}; known checks: {', '.join(sorted(CHECKS))}")
    args = raw.get("args", {})
    extra = set(args) - CHECKS[name][1]
    if extra:
        raise w.fail(f"{where}.args", f"check {name!r} takes no argument {sorted(extra)[0]!r}; it takes "
                                      f"{', '.join(sorted(CHECKS[name][1])) or 'none'}")  # fmt: skip
    if not isinstance(raw.get("desc"), str) or not raw["desc"].strip():
        raise w.fail(f"{where}.desc", "a keypoint needs a short visually checkable description")
    return Keypoint(raw["desc"], name, dict(args), bool(raw.get("progress", False)))


def _op(raw: Any, w: _Where, where: str) -> dict[str, Any]:
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


def _interrupt(raw: Any, w: _Where, where: str) -> Interrupt:
    if not isinstance(raw, dict) or ("at_step" in raw) == ("when" in raw):
        raise w.fail(where, "an interrupt needs exactly one of at_step (a step index) or when (a check)")
    when = _keypoint({"desc": "condition", **raw["when"]}, w, f"{where}.when") if "when" in raw else None
    ops = tuple(_op(op, w, f"{where}.ops[{i}]") for i, op in enumerate(raw.get("ops", [])))
    if not ops:
        raise w.fail(f"{where}.ops", "an interrupt must change something")
    return Interrupt(str(raw.get("desc", "")), ops, raw.get("at_step"), when)


def _oracle_step(raw: Any, w: _Where, where: str) -> tuple[str, ...]:
    if not isinstance(raw, list) or not raw or raw[0] not in ORACLE_OPS:
        raise w.fail(where, f"must be [op, args...] with op one of {', '.join(ORACLE_OPS)}")
    lo, hi = ORACLE_OPS[raw[0]]
    if not lo <= len(raw) - 1 <= hi or not all(isinstance(a, str) for a in raw):
        raise w.fail(where, f"{raw[0]} takes {lo}..{hi} string arguments, got {raw[1:]!r}")
    return tuple(raw)


def _check_complete(spec: TaskSpec, w: _Where) -> None:
    """Every placeholder must be filled by every variant; feasible tasks need an oracle."""
    if spec.feasible and not spec.oracle:
        raise w.fail("oracle", "a feasible task needs an oracle (a scripted solution)")
    for i, params in enumerate(spec.params):
        inst = spec.instance(i)
        left = _PLACEHOLDER.findall(repr((inst.goal, inst.setup, inst.keypoints, inst.forbid, inst.oracle, inst.start,
                                          inst.interrupts)))  # fmt: skip
        left = [p for p in left if p not in _LITERAL_BRACES]
        if left:
            raise w.fail(f"params[{i}]", f"has no value for placeholder {{{left[0]}}}")
        if params.get("locale") == "zh" and not spec.goal_zh:
            raise w.fail("goal_zh", "a task with a zh variant needs a Chinese goal")


_LITERAL_BRACES: frozenset[str] = frozenset()


@cache
def catalog_dir() -> Path:
    return Path(str(resources.files("venuskit.tasks").joinpath("catalog")))


def load_catalog(directory: Path | str | None = None) -> dict[str, TaskSpec]:
    """Every task in every *.toml under `directory` (default: the bundled catalog), by id."""
    return read_catalog(Path(directory) if directory is not None else catalog_dir(), load_file, lambda t: t.source)


_Spec = TypeVar("_Spec")


def read_catalog(root: Path, load: Callable[[Path], list[_Spec]], source: Callable[[_Spec], str]) -> dict[str, _Spec]:
    """Every entry of every *.toml under `root`, by id, through `load` (one kind's file reader: world, desktop,
    safety); an id defined twice is a TaskFileError naming where it was first (`source` of the earlier entry)."""
    out: dict[str, Any] = {}
    for path in sorted(root.glob("*.toml")):
        for spec in load(path):
            sid = spec.id  # type: ignore[attr-defined]  # every kind's spec has an id
            if sid in out:
                raise TaskFileError(f"{path}: task {sid!r}: field 'id': already defined in {source(out[sid])}")
            out[sid] = spec
    return out


@cache
def bundled() -> dict[str, TaskSpec]:
    return load_catalog()


# Task files registered at run time (e.g. synthesised tasks: `venus tasks synth --out FILE`), by id. Every
# harness that resolves ids through `get_task` (world runs, suites, the verifier bench) then sees them too.
_REGISTERED: dict[str, TaskSpec] = {}


def parse_task(raw: dict[str, Any], source: str = "<memory>") -> TaskSpec:
    """One `[[task]]` table, validated exactly as a task file's (raises TaskFileError)."""
    return _task(raw, _Where(source, str(raw.get("id", "?"))))


def register(specs: list[TaskSpec] | tuple[TaskSpec, ...]) -> None:
    """Make tasks resolvable by id next to the bundled catalog. An id of the bundled catalog cannot be taken;
    registering an id again replaces the earlier spec."""
    for spec in specs:
        if spec.id in bundled():
            raise TaskFileError(f"{spec.source}: task {spec.id!r}: field 'id': already a bundled task")
    _REGISTERED.update({s.id: s for s in specs})


def register_file(path: Path | str) -> list[TaskSpec]:
    """Load a task file and register its tasks (`venus run --world ID --tasks FILE`)."""
    specs = load_file(path)
    register(specs)
    return specs


def unregister(task_ids: list[str] | tuple[str, ...] | set[str]) -> None:
    for tid in task_ids:
        _REGISTERED.pop(tid, None)


def registered() -> dict[str, TaskSpec]:
    return dict(_REGISTERED)


def get_task(task_id: str) -> TaskSpec:
    tasks = bundled()
    if task_id not in tasks and task_id in _REGISTERED:
        return _REGISTERED[task_id]
    if task_id not in tasks:
        close = [t for t in tasks if task_id.split(".")[0] in t][:5]
        hint = " Synthesised tasks need their file: pass --tasks FILE." if task_id.startswith("synth.") else ""
        raise KeyError(f"No world task {task_id!r}." + (f" Similar: {', '.join(close)}." if close else "") + hint)
    return tasks[task_id]
