"""The one loader skeleton for task files of every surface (world, desktop; safety builds on the world's).

A task file holds `[[task]]` tables. Every surface's task shares these fields, parsed and validated here:

    id, apps, category, goal, goal_zh, params (variants, each optionally `locale = "zh"`), keypoints, forbid,
    consequential, oracle, steps, max_steps, tags, infeasible_reason (and whether the task is feasible)

A surface describes what its files may hold with a `TaskKind` (its apps, categories, check table, oracle steps,
consequential action kinds and the field names it adds) and parses its own extra fields around `common`. Strings
carry `{param}` placeholders that an instance fills from its variant (`fill`); every variant must fill every
placeholder (`check_placeholders`). A malformed file raises `TaskFileError` naming the file, the task, the field
and the reason.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Generic, TypeVar

from venuskit.tasks.registry import Checks

PLACEHOLDER = re.compile(r"\{(\w+)\}")
COMMON_FIELDS = frozenset({"id", "apps", "category", "goal", "goal_zh", "params", "keypoints", "forbid",
                           "consequential", "oracle", "steps", "max_steps", "tags", "infeasible_reason"})  # fmt: skip


class TaskFileError(ValueError):
    """A task file that cannot be used; the message names the file, task, field and reason."""


@dataclass(frozen=True)
class Keypoint:
    desc: str  # short, visually checkable ("the reply is in Sent")
    check: str  # a name in the surface's check table (venuskit.tasks.registry)
    args: dict[str, Any] = field(default_factory=dict)
    progress: bool = False  # counts towards `partial` when it holds without the rest

    def filled(self, params: dict[str, Any]) -> Keypoint:
        return Keypoint(fill(self.desc, params), self.check, fill(self.args, params), self.progress)


@dataclass(frozen=True)
class TaskKind:
    """What one surface's task files may hold."""

    name: str  # "world", "desktop": for messages
    fields: frozenset[str]  # the surface's own fields, beside COMMON_FIELDS
    apps: tuple[str, ...]
    categories: tuple[str, ...]
    checks: Checks
    oracle_ops: dict[str, tuple[int, int]]  # op -> (min args, max args); "seq" nests steps
    consequential: tuple[str, ...]  # the action kinds a task may declare it takes
    feasible_field: bool = False  # whether `feasible` may be written (it must then agree with the category)


@dataclass(frozen=True)
class Common:
    """The fields every surface's task has, validated."""

    id: str
    apps: tuple[str, ...]
    category: str
    goal: str
    goal_zh: str | None
    params: tuple[dict[str, Any], ...]
    keypoints: tuple[Keypoint, ...]
    forbid: tuple[Keypoint, ...]
    consequential: tuple[str, ...]
    oracle: tuple[tuple[Any, ...], ...]
    steps: int
    max_steps: int
    tags: tuple[str, ...]
    feasible: bool
    infeasible_reason: str


class Where:
    """Builds error messages that name the file, the task and the field."""

    def __init__(self, path: Path | str, task_id: str = "?") -> None:
        self.path, self.task_id = str(path), task_id

    def fail(self, fld: str, reason: str) -> TaskFileError:
        return TaskFileError(f"{self.path}: task {self.task_id!r}: field '{fld}': {reason}")


_Spec = TypeVar("_Spec")


def load_file(path: Path | str, parse: Callable[[Any, Where], _Spec]) -> list[_Spec]:
    """Every `[[task]]` of one file through a surface's `parse(raw, where)`."""
    path = Path(path)
    try:
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise TaskFileError(f"{path}: not valid TOML: {e}") from e
    except OSError as e:
        raise TaskFileError(f"{path}: cannot be read: {e}") from e
    tasks = doc.get("task")
    if not isinstance(tasks, list) or not tasks:
        raise TaskFileError(f"{path}: no [[task]] tables; a task file holds one or more [[task]] entries.")
    return [parse(t, Where(path, str(t.get("id", f"#{i}")) if isinstance(t, dict) else f"#{i}"))
            for i, t in enumerate(tasks)]  # fmt: skip


def need(raw: dict[str, Any], key: str, kind: type | tuple[type, ...], w: Where) -> Any:
    if key not in raw:
        raise w.fail(key, "is required")
    if not isinstance(raw[key], kind):
        raise w.fail(key, f"must be {getattr(kind, '__name__', kind)}, got {type(raw[key]).__name__}")
    return raw[key]


def common(raw: Any, w: Where, kind: TaskKind) -> Common:
    """The shared fields of one `[[task]]` table; unknown fields are refused with the list of known ones."""
    if not isinstance(raw, dict):
        raise w.fail("task", "must be a table")
    known = COMMON_FIELDS | kind.fields | ({"feasible"} if kind.feasible_field else set())
    unknown = set(raw) - known
    if unknown:
        raise w.fail(sorted(unknown)[0], f"is not a task field; known fields: {', '.join(sorted(known))}")
    tid = need(raw, "id", str, w)
    if not re.fullmatch(r"[a-z0-9_.-]+", tid):
        raise w.fail("id", "use lowercase letters, digits, '.', '_' and '-' only")
    apps = tuple(need(raw, "apps", list, w))
    if not apps or any(a not in kind.apps for a in apps):
        raise w.fail("apps", f"must be a non-empty list of {', '.join(kind.apps)}; got {list(apps)}")
    category = need(raw, "category", str, w)
    if category not in kind.categories:
        raise w.fail("category", f"must be one of {', '.join(kind.categories)}; got {category!r}")
    feasible = raw.get("feasible", category != "infeasible")
    if feasible == (category == "infeasible"):
        raise w.fail("feasible", "must be false exactly when category is 'infeasible'")
    keypoints = keypoint_list(raw, "keypoints", w, kind.checks)
    if feasible and not keypoints:
        raise w.fail("keypoints", "a feasible task needs at least one keypoint")
    return Common(
        id=tid, apps=apps, category=category, goal=need(raw, "goal", str, w), goal_zh=raw.get("goal_zh"),
        params=_params(raw, w), keypoints=keypoints, forbid=keypoint_list(raw, "forbid", w, kind.checks),
        consequential=_consequential(raw, w, kind),
        oracle=tuple(oracle_step(s, w, f"oracle[{i}]", kind.oracle_ops) for i, s in enumerate(raw.get("oracle", []))),
        steps=int(raw.get("steps", 5)), max_steps=int(raw.get("max_steps", 30)), tags=tuple(raw.get("tags", [])),
        feasible=bool(feasible), infeasible_reason=str(raw.get("infeasible_reason", "")),
    )  # fmt: skip


def _params(raw: dict[str, Any], w: Where) -> tuple[dict[str, Any], ...]:
    params = tuple(raw.get("params") or [{}])
    for i, p in enumerate(params):
        if not isinstance(p, dict) or p.get("locale", "en") not in ("en", "zh"):
            raise w.fail(f"params[{i}]", "must be a table whose optional locale is 'en' or 'zh'")
    return params


def _consequential(raw: dict[str, Any], w: Where, kind: TaskKind) -> tuple[str, ...]:
    out = tuple(raw.get("consequential", []))
    for c in out:
        if c not in kind.consequential:
            known = ", ".join(kind.consequential)
            raise w.fail("consequential", f"{c!r} is not a consequential action; known: {known}")
    return out


def keypoint_list(raw: dict[str, Any], key: str, w: Where, checks: Checks) -> tuple[Keypoint, ...]:
    return tuple(keypoint(k, w, f"{key}[{i}]", checks) for i, k in enumerate(raw.get(key, [])))


def keypoint(raw: Any, w: Where, where: str, checks: Checks) -> Keypoint:
    if not isinstance(raw, dict):
        raise w.fail(where, "must be a table with desc, check and args")
    args = raw.get("args", {})
    if not isinstance(args, dict):
        raise w.fail(f"{where}.args", "must be a table")
    bad = checks.problem(raw.get("check"), args)
    if bad is not None:
        raise w.fail(f"{where}.{bad[0]}", bad[1])
    if not isinstance(raw.get("desc"), str) or not raw["desc"].strip():
        raise w.fail(f"{where}.desc", "a keypoint needs a short visually checkable description")
    return Keypoint(raw["desc"], raw["check"], dict(args), bool(raw.get("progress", False)))


def oracle_step(raw: Any, w: Where, where: str, ops: dict[str, tuple[int, int]]) -> tuple[Any, ...]:
    """One oracle step `[op, args...]`; a `seq` step holds steps, any other takes string arguments."""
    if not isinstance(raw, list) or not raw or raw[0] not in ops:
        raise w.fail(where, f"must be [op, args...] with op one of {', '.join(ops)}")
    lo, hi = ops[raw[0]]
    if raw[0] == "seq":
        if not lo <= len(raw) - 1 <= hi:
            raise w.fail(where, f"seq takes {lo}..{hi} steps, got {len(raw) - 1}")
        return ("seq", *(oracle_step(s, w, f"{where}.seq", ops) for s in raw[1:]))
    if not lo <= len(raw) - 1 <= hi or not all(isinstance(a, str) for a in raw):
        raise w.fail(where, f"{raw[0]} takes {lo}..{hi} string arguments, got {raw[1:]!r}")
    return tuple(raw)


def check_placeholders(w: Where, spec: Any, texts: Callable[[Any], Any]) -> None:
    """Every variant fills every placeholder of `texts(instance)`; feasible tasks need an oracle; zh variants a
    Chinese goal. `spec` has `params`, `feasible`, `oracle`, `goal_zh` and `instance(seed)`."""
    if spec.feasible and not spec.oracle:
        raise w.fail("oracle", "a feasible task needs an oracle (a scripted solution)")
    for i, params in enumerate(spec.params):
        left = PLACEHOLDER.findall(repr(texts(spec.instance(i))))
        if left:
            raise w.fail(f"params[{i}]", f"has no value for placeholder {{{left[0]}}}")
        if params.get("locale") == "zh" and not spec.goal_zh:
            raise w.fail("goal_zh", "a task with a zh variant needs a Chinese goal")


def fill(value: Any, params: dict[str, Any]) -> Any:
    """Format every string inside `value` with `{name}` placeholders from params (other braces stay)."""
    if isinstance(value, str):
        return PLACEHOLDER.sub(lambda m: str(params[m.group(1)]) if m.group(1) in params else m.group(0), value)
    if isinstance(value, list):
        return [fill(v, params) for v in value]
    if isinstance(value, tuple):
        return tuple(fill(v, params) for v in value)
    if isinstance(value, dict):
        return {k: fill(v, params) for k, v in value.items()}
    return value


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


class TaskSet(Generic[_Spec]):
    """One surface's tasks by id: its bundled catalog plus task files registered at run time (synthesised tasks:
    `venus tasks synth --out FILE`). Every harness that resolves ids through `get` (runs, suites, the verifier
    bench, proofs) then sees them too."""

    def __init__(self, surface: str, bundled: Callable[[], dict[str, _Spec]], load: Callable[[Path], list[_Spec]],
                 listing: str = "") -> None:  # fmt: skip
        self.surface, self.bundled, self.load, self.listing = surface, bundled, load, listing
        self._registered: dict[str, _Spec] = {}

    def register(self, specs: list[_Spec] | tuple[_Spec, ...]) -> None:
        """Make tasks resolvable by id next to the bundled catalog. An id of the bundled catalog cannot be taken;
        registering an id again replaces the earlier spec."""
        for spec in specs:
            if spec.id in self.bundled():  # type: ignore[attr-defined]
                raise TaskFileError(f"{spec.source}: task {spec.id!r}: field 'id': already a bundled task")  # type: ignore[attr-defined]
        self._registered.update({s.id: s for s in specs})  # type: ignore[attr-defined]

    def register_file(self, path: Path | str) -> list[_Spec]:
        """Load a task file and register its tasks (`--tasks FILE`)."""
        specs = self.load(Path(path))
        self.register(specs)
        return specs

    def unregister(self, task_ids: list[str] | tuple[str, ...] | set[str]) -> None:
        for tid in task_ids:
            self._registered.pop(tid, None)

    def registered(self) -> dict[str, _Spec]:
        return dict(self._registered)

    def get(self, task_id: str) -> _Spec:
        tasks = self.bundled()
        if task_id in tasks:
            return tasks[task_id]
        if task_id in self._registered:
            return self._registered[task_id]
        close = [t for t in tasks if task_id.split(".")[0] in t][:5]
        hint = " Synthesised tasks need their file: pass --tasks FILE." if task_id.startswith("synth.") else ""
        raise KeyError(f"No {self.surface} task {task_id!r}." + (f" Similar: {', '.join(close)}." if close else "")
                       + hint + self.listing)  # fmt: skip
