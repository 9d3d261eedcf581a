"""Desktop task specs: templates in TOML files under `catalog/`, validated before anything runs.

A template has a goal with `{param}` placeholders, parameter variants (`[[task.params]]`, optionally
`locale = "zh"`), a setup snapshot and a contract:

    [[task.files]]       the home folder's files: text = "...", csv = [[row], ...], sheet = [[row], ...] (a
                         spreadsheet in the format of `path`'s extension, written by ssconvert), image = {...},
                         or dir = true; `mode` optional
    [[task.config]]      app configuration: an INI/keyfile `path`, `section`, `key`, `value`
    [[task.windows]]     the apps open at the start: app, args (paths relative to the home folder), geometry
    [[task.keypoints]]   checks over real state that must hold (venuskit.tasks.desktop.checks)
    [[task.forbid]]      checks that must not hold (a forbidden side effect)
    oracle = [...]       the scripted solution in the oracle step language (venuskit.tasks.desktop.oracle)
    consequential = [...] the declared desktop operations the task asks for (envs/desktop/operations.toml:
                         file.delete, file.overwrite, ...): what the screen gate's default approvals allow

An instance is (template, seed): the seed picks the variant. Every string is formatted with the variant.
A malformed file raises `TaskFileError` naming the file, the task, the field and the reason.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from venuskit.tasks.desktop.checks import CHECKS
from venuskit.tasks.spec import Keypoint, TaskFileError, fill, read_catalog

CATEGORIES = ("short", "medium", "long", "infeasible")
APPS = ("mousepad", "pcmanfm", "gnumeric", "xterm", "gpicview", "lxappearance")
GEOMETRIES = ("max", "left", "right", "center")
FILE_KINDS = ("text", "csv", "sheet", "image", "dir", "bytes_hex")
TASK_FIELDS = {"id", "apps", "category", "goal", "goal_zh", "params", "files", "config", "windows", "focus",
               "keypoints", "forbid", "oracle", "steps", "max_steps", "tags", "infeasible_reason",
               "consequential"}  # fmt: skip
# oracle op -> (min args, max args); see venuskit.tasks.desktop.oracle for what each does
ORACLE_OPS = {
    "click": (1, 1), "double_click": (1, 1), "triple_click": (1, 1), "right_click": (1, 1), "middle_click": (1, 1),
    "hover": (1, 1), "drag": (2, 2), "mouse_down": (0, 1), "mouse_up": (0, 1), "scroll": (2, 2), "key": (1, 2),
    "key_down": (1, 1), "key_up": (1, 1), "type": (1, 1), "wait": (0, 1), "wait_window": (1, 2), "seq": (2, 32),
    "key_until": (2, 2),
    "finish": (0, 1), "call_user": (1, 1),
}  # fmt: skip
_PLACEHOLDER = re.compile(r"\{(\w+)\}")


@dataclass(frozen=True)
class DesktopTaskSpec:
    id: str
    apps: tuple[str, ...]
    category: str
    goal: str
    params: tuple[dict[str, Any], ...]
    keypoints: tuple[Keypoint, ...]
    source: str
    goal_zh: str | None = None
    files: tuple[dict[str, Any], ...] = ()
    config: tuple[dict[str, Any], ...] = ()
    windows: tuple[dict[str, Any], ...] = ()
    focus: int = -1
    forbid: tuple[Keypoint, ...] = ()
    oracle: tuple[tuple[Any, ...], ...] = ()
    steps: int = 5
    max_steps: int = 30
    tags: tuple[str, ...] = ()
    infeasible_reason: str = ""
    consequential: tuple[str, ...] = ()  # declared desktop operations the task asks for (the gate's approvals)

    @property
    def feasible(self) -> bool:
        return self.category != "infeasible"

    @property
    def locales(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(p.get("locale", "en") for p in self.params))

    @property
    def cross_app(self) -> bool:
        return len(self.apps) > 1

    def variant(self, seed: int) -> dict[str, Any]:
        return self.params[seed % len(self.params)]

    def instance(self, seed: int) -> DesktopTaskInstance:
        params = self.variant(seed)
        locale = params.get("locale", "en")
        fmt = lambda v: fill(v, params)  # noqa: E731
        goal = self.goal_zh if locale == "zh" and self.goal_zh else self.goal
        return DesktopTaskInstance(
            spec=self, seed=seed, locale=locale, params=params, goal=fmt(goal),
            files=tuple(fmt(f) for f in self.files), config=tuple(fmt(c) for c in self.config),
            windows=tuple(fmt(w) for w in self.windows),
            keypoints=tuple(Keypoint(fmt(k.desc), k.check, fmt(k.args), k.progress) for k in self.keypoints),
            forbid=tuple(Keypoint(fmt(k.desc), k.check, fmt(k.args), k.progress) for k in self.forbid),
            oracle=tuple(_fill_step(s, params) for s in self.oracle),
        )  # fmt: skip


@dataclass(frozen=True)
class DesktopTaskInstance:
    spec: DesktopTaskSpec
    seed: int
    locale: str
    params: dict[str, Any]
    goal: str
    files: tuple[dict[str, Any], ...]
    config: tuple[dict[str, Any], ...]
    windows: tuple[dict[str, Any], ...]
    keypoints: tuple[Keypoint, ...]
    forbid: tuple[Keypoint, ...]
    oracle: tuple[tuple[Any, ...], ...]


def _fill_step(step: tuple[Any, ...], params: dict[str, Any]) -> tuple[Any, ...]:
    return tuple(_fill_step(tuple(s), params) if isinstance(s, (list, tuple)) else fill(s, params) for s in step)


# ---- loading and validation ----------------------------------------------------------------------


class _Where:
    def __init__(self, path: Path | str, task_id: str = "?") -> None:
        self.path, self.task_id = str(path), task_id

    def fail(self, fld: str, reason: str) -> TaskFileError:
        return TaskFileError(f"{self.path}: task {self.task_id!r}: field '{fld}': {reason}")


def load_file(path: Path | str) -> list[DesktopTaskSpec]:
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
    return [_task(t, _Where(path, str(t.get("id", f"#{i}")))) for i, t in enumerate(tasks)]


def _need(raw: dict[str, Any], key: str, kind: type | tuple[type, ...], w: _Where) -> Any:
    if key not in raw:
        raise w.fail(key, "is required")
    if not isinstance(raw[key], kind):
        raise w.fail(key, f"must be {getattr(kind, '__name__', kind)}, got {type(raw[key]).__name__}")
    return raw[key]


def _task(raw: Any, w: _Where) -> DesktopTaskSpec:
    if not isinstance(raw, dict):
        raise w.fail("task", "must be a table")
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
    params = tuple(raw.get("params") or [{}])
    for i, p in enumerate(params):
        if not isinstance(p, dict) or p.get("locale", "en") not in ("en", "zh"):
            raise w.fail(f"params[{i}]", "must be a table whose optional locale is 'en' or 'zh'")
    keypoints = tuple(_keypoint(k, w, f"keypoints[{i}]") for i, k in enumerate(raw.get("keypoints", [])))
    if category != "infeasible" and not keypoints:
        raise w.fail("keypoints", "a feasible task needs at least one keypoint")
    spec = DesktopTaskSpec(
        id=tid, apps=apps, category=category, goal=_need(raw, "goal", str, w), goal_zh=raw.get("goal_zh"),
        params=params, keypoints=keypoints, source=w.path,
        files=tuple(_file(f, w, f"files[{i}]") for i, f in enumerate(raw.get("files", []))),
        config=tuple(_config(c, w, f"config[{i}]") for i, c in enumerate(raw.get("config", []))),
        windows=tuple(_window(x, w, f"windows[{i}]") for i, x in enumerate(raw.get("windows", []))),
        focus=int(raw.get("focus", -1)),
        forbid=tuple(_keypoint(k, w, f"forbid[{i}]") for i, k in enumerate(raw.get("forbid", []))),
        oracle=tuple(_oracle_step(s, w, f"oracle[{i}]") for i, s in enumerate(raw.get("oracle", []))),
        steps=int(raw.get("steps", 5)), max_steps=int(raw.get("max_steps", 30)), tags=tuple(raw.get("tags", [])),
        infeasible_reason=str(raw.get("infeasible_reason", "")),
        consequential=tuple(str(k) for k in raw.get("consequential", [])),
    )  # fmt: skip
    if category == "infeasible" and not spec.infeasible_reason:
        raise w.fail("infeasible_reason", "an infeasible task says why it cannot be done")
    _check_complete(spec, w)
    return spec


def _keypoint(raw: Any, w: _Where, where: str) -> Keypoint:
    if not isinstance(raw, dict):
        raise w.fail(where, "must be a table with desc, check and args")
    name = raw.get("check")
    if name not in CHECKS:
        raise w.fail(f"{where}.check", f"unknown check {name!r}; known checks: {', '.join(sorted(CHECKS))}")
    args = raw.get("args", {})
    if not isinstance(args, dict):
        raise w.fail(f"{where}.args", "must be a table")
    extra = set(args) - CHECKS[name][1]
    if extra:
        raise w.fail(f"{where}.args", f"check {name!r} takes no argument {sorted(extra)[0]!r}; it takes "
                                      f"{', '.join(sorted(CHECKS[name][1])) or 'none'}")  # fmt: skip
    if not isinstance(raw.get("desc"), str) or not raw["desc"].strip():
        raise w.fail(f"{where}.desc", "a keypoint needs a short visually checkable description")
    return Keypoint(raw["desc"], name, dict(args), bool(raw.get("progress", False)))


def _file(raw: Any, w: _Where, where: str) -> dict[str, Any]:
    if not isinstance(raw, dict) or not isinstance(raw.get("path"), str):
        raise w.fail(where, "a file needs a 'path' relative to the home folder")
    kinds = [k for k in FILE_KINDS if k in raw]
    if len(kinds) != 1:
        raise w.fail(where, f"a file has exactly one of {', '.join(FILE_KINDS)}")
    extra = set(raw) - {"path", "mode", *FILE_KINDS}
    if extra:
        raise w.fail(f"{where}.{sorted(extra)[0]}", "is not a file field")
    _relative(raw["path"], w, f"{where}.path")
    return dict(raw)


def _config(raw: Any, w: _Where, where: str) -> dict[str, Any]:
    if not isinstance(raw, dict) or set(raw) != {"path", "section", "key", "value"}:
        raise w.fail(where, "a config entry has exactly path, section, key and value")
    _relative(raw["path"], w, f"{where}.path")
    return dict(raw)


def _window(raw: Any, w: _Where, where: str) -> dict[str, Any]:
    if not isinstance(raw, dict) or raw.get("app") not in APPS:
        raise w.fail(f"{where}.app", f"must be one of {', '.join(APPS)}")
    extra = set(raw) - {"app", "args", "geometry"}
    if extra:
        raise w.fail(f"{where}.{sorted(extra)[0]}", "is not a window field (app, args, geometry)")
    args = raw.get("args", [])
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        raise w.fail(f"{where}.args", "must be a list of strings")
    geo = raw.get("geometry")
    if geo is not None and geo not in GEOMETRIES and not (isinstance(geo, list) and len(geo) == 4):
        raise w.fail(f"{where}.geometry", f"must be one of {', '.join(GEOMETRIES)} or [x, y, w, h] fractions")
    return dict(raw)


def _relative(path: str, w: _Where, where: str) -> None:
    parts = Path(path).parts
    if not parts or Path(path).is_absolute() or ".." in parts:
        raise w.fail(where, f"must be a path inside the home folder, got {path!r}")


def _oracle_step(raw: Any, w: _Where, where: str) -> tuple[Any, ...]:
    if not isinstance(raw, list) or not raw or raw[0] not in ORACLE_OPS:
        raise w.fail(where, f"must be [op, args...] with op one of {', '.join(ORACLE_OPS)}")
    lo, hi = ORACLE_OPS[raw[0]]
    if not lo <= len(raw) - 1 <= hi:
        raise w.fail(where, f"{raw[0]} takes {lo}..{hi} arguments, got {raw[1:]!r}")
    if raw[0] == "seq":
        return ("seq", *(_oracle_step(s, w, f"{where}.seq") for s in raw[1:]))
    if not all(isinstance(a, str) for a in raw):
        raise w.fail(where, f"{raw[0]} takes string arguments, got {raw[1:]!r}")
    return tuple(raw)


def _check_complete(spec: DesktopTaskSpec, w: _Where) -> None:
    """Every placeholder filled by every variant; feasible tasks need an oracle; zh variants a Chinese goal."""
    if spec.feasible and not spec.oracle:
        raise w.fail("oracle", "a feasible task needs an oracle (a scripted solution)")
    for i, params in enumerate(spec.params):
        inst = spec.instance(i)
        text = repr((inst.goal, inst.files, inst.config, inst.windows, inst.keypoints, inst.forbid, inst.oracle))
        left = _PLACEHOLDER.findall(text)
        if left:
            raise w.fail(f"params[{i}]", f"has no value for placeholder {{{left[0]}}}")
        if params.get("locale") == "zh" and not spec.goal_zh:
            raise w.fail("goal_zh", "a task with a zh variant needs a Chinese goal")


@cache
def catalog_dir() -> Path:
    return Path(str(resources.files("venuskit.tasks.desktop").joinpath("catalog")))


def load_catalog(directory: Path | str | None = None) -> dict[str, DesktopTaskSpec]:
    """Every desktop task in every *.toml under `directory` (default: the bundled catalog), by id."""
    return read_catalog(Path(directory) if directory is not None else catalog_dir(), load_file, lambda t: t.source)


@cache
def bundled() -> dict[str, DesktopTaskSpec]:
    return load_catalog()


def get_task(task_id: str) -> DesktopTaskSpec:
    tasks = bundled()
    if task_id not in tasks:
        close = [t for t in tasks if task_id.split(".")[0] in t][:5]
        raise KeyError(f"No desktop task {task_id!r}." + (f" Similar: {', '.join(close)}." if close else "")
                       + " List them with `venus desktop tasks`.")  # fmt: skip
    return tasks[task_id]
