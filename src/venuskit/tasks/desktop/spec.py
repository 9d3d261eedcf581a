"""Desktop task specs: templates in TOML files under `catalog/`, validated before anything runs.

A template has a goal with `{param}` placeholders, parameter variants (`[[task.params]]`, optionally
`locale = "zh"`), a setup snapshot and a contract:

    [[task.files]]       the home folder's files: text = "...", csv = [[row], ...], sheet = [[row], ...] (a
                         spreadsheet in the format of `path`'s extension, written by ssconvert), image = {...},
                         or dir = true; `mode` optional
    [[task.config]]      app configuration: an INI/keyfile `path`, `section`, `key`, `value`
    [[task.windows]]     the apps open at the start: app, args (paths relative to the home folder), geometry; the
                         web browser (`chromium`) takes one path of the world's web apps ("/mail/compose"), opened
                         signed in to the task's world episode
    [task.world]         the world's web apps beside the desktop: `setup` rows (venuskit.tasks.setup ops) on top of
                         the seeded world, `today`; checks `web.*` read its state (venuskit.tasks.desktop.checks)
    [[task.keypoints]]   checks over real state that must hold (venuskit.tasks.desktop.checks)
    [[task.forbid]]      checks that must not hold (a forbidden side effect)
    consequential = [...] the consequential actions the task asks for: the contract's (file.trash, file.delete;
                         any other it sees is a forbidden side effect, as in the world) and the screen gate's
                         operations (envs/desktop/operations.toml: file.delete, file.overwrite, quit.discard, send),
                         which its default approvals allow (`gate_kinds`)
    oracle = [...]       the scripted solution in the oracle step language (venuskit.tasks.desktop.oracle)

An instance is (template, seed): the seed picks the variant. Every string is formatted with the variant. The fields
every surface shares are read by the one loader skeleton (venuskit.tasks.loader); a malformed file raises
`TaskFileError` naming the file, the task, the field and the reason.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from importlib import resources
from pathlib import Path
from typing import Any

from venuskit.tasks import loader
from venuskit.tasks.desktop.checks import CHECKS, CONSEQUENTIAL
from venuskit.tasks.loader import Keypoint, TaskKind, Where, fill, read_catalog
from venuskit.tasks.spec import CONSEQUENTIAL as WORLD_CONSEQUENTIAL

CATEGORIES = ("short", "medium", "long", "infeasible")
APPS = ("mousepad", "pcmanfm", "gnumeric", "xterm", "gpicview", "lxappearance", "chromium")
GEOMETRIES = ("max", "left", "right", "center")
FILE_KINDS = ("text", "csv", "sheet", "image", "dir", "bytes_hex")
# oracle op -> (min args, max args); see venuskit.tasks.desktop.oracle for what each does
ORACLE_OPS = {
    "click": (1, 1), "double_click": (1, 1), "triple_click": (1, 1), "right_click": (1, 1), "middle_click": (1, 1),
    "hover": (1, 1), "drag": (2, 2), "mouse_down": (0, 1), "mouse_up": (0, 1), "scroll": (2, 2), "key": (1, 2),
    "key_down": (1, 1), "key_up": (1, 1), "type": (1, 1), "wait": (0, 1), "wait_window": (1, 2), "seq": (2, 32),
    "wait_file": (1, 1),
    "key_until": (2, 2),
    "finish": (0, 1), "call_user": (1, 1),
}  # fmt: skip
GATE_ONLY = ("file.overwrite", "quit.discard", "send")  # screen-gate operations the contract does not observe
KIND = TaskKind("desktop", frozenset({"files", "config", "windows", "focus", "world"}), APPS, CATEGORIES, CHECKS,
                ORACLE_OPS, CONSEQUENTIAL + GATE_ONLY + WORLD_CONSEQUENTIAL)  # fmt: skip
WORLD_FIELDS = {"setup", "today"}


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
    consequential: tuple[str, ...] = ()  # the consequential actions the task asks for (file.trash, mail.send)
    oracle: tuple[tuple[Any, ...], ...] = ()
    steps: int = 5
    max_steps: int = 30
    tags: tuple[str, ...] = ()
    infeasible_reason: str = ""
    world: dict[str, Any] | None = None  # {setup: [ops], today}: the task uses the world's web apps in Chromium

    @property
    def feasible(self) -> bool:
        return self.category != "infeasible"

    @property
    def locales(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(p.get("locale", "en") for p in self.params))

    @property
    def cross_app(self) -> bool:
        return len(self.apps) > 1

    @property
    def gate_kinds(self) -> tuple[str, ...]:
        """The declared kinds as the screen gate names them: it sees what a control does to a file, not where the
        file goes, so moving to the trash is its file.delete."""
        return tuple(dict.fromkeys("file.delete" if k == "file.trash" else k for k in self.consequential))

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
            keypoints=tuple(k.filled(params) for k in self.keypoints),
            forbid=tuple(k.filled(params) for k in self.forbid), oracle=fmt(self.oracle),
            world_setup=tuple(fmt(op) for op in (self.world or {}).get("setup", ())),
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
    world_setup: tuple[dict[str, Any], ...] = ()


# ---- loading and validation (the shared skeleton: venuskit.tasks.loader) ----------------------------------


def load_file(path: Path | str) -> list[DesktopTaskSpec]:
    return loader.load_file(path, _task)


def _task(raw: Any, w: Where) -> DesktopTaskSpec:
    c = loader.common(raw, w, KIND)
    spec = DesktopTaskSpec(
        id=c.id, apps=c.apps, category=c.category, goal=c.goal, goal_zh=c.goal_zh, params=c.params,
        keypoints=c.keypoints, source=w.path,
        files=tuple(file_entry(f, w, f"files[{i}]") for i, f in enumerate(raw.get("files", []))),
        config=tuple(config_entry(x, w, f"config[{i}]") for i, x in enumerate(raw.get("config", []))),
        windows=tuple(window_entry(x, w, f"windows[{i}]") for i, x in enumerate(raw.get("windows", []))),
        focus=int(raw.get("focus", -1)), forbid=c.forbid, consequential=c.consequential, oracle=c.oracle,
        steps=c.steps, max_steps=c.max_steps, tags=c.tags, infeasible_reason=c.infeasible_reason,
        world=_world(raw.get("world"), w),
    )  # fmt: skip
    if ("chromium" in spec.apps or any(x["app"] == "chromium" for x in spec.windows)) and spec.world is None:
        raise w.fail("world", "a task with the web browser needs a [task.world] table (its web apps' episode)")
    if not spec.feasible and not spec.infeasible_reason:
        raise w.fail("infeasible_reason", "an infeasible task says why it cannot be done")
    loader.check_placeholders(w, spec, lambda i: (i.goal, i.files, i.config, i.windows, i.keypoints, i.forbid,
                                                  i.oracle, i.world_setup))  # fmt: skip
    return spec


def _world(raw: Any, w: Where) -> dict[str, Any] | None:
    """The [task.world] table: setup rows validated as a world task's, a simulated date."""
    from venuskit.tasks.spec import _date, _op

    if raw is None:
        return None
    if not isinstance(raw, dict) or set(raw) - WORLD_FIELDS:
        raise w.fail("world", f"must be a table with only {', '.join(sorted(WORLD_FIELDS))}")
    setup = tuple(_op(op, w, f"world.setup[{i}]") for i, op in enumerate(raw.get("setup", [])))
    return {"setup": setup, "today": _date(raw.get("today"), w)}


def file_entry(raw: Any, w: Where, where: str) -> dict[str, Any]:
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


def config_entry(raw: Any, w: Where, where: str) -> dict[str, Any]:
    if not isinstance(raw, dict) or set(raw) != {"path", "section", "key", "value"}:
        raise w.fail(where, "a config entry has exactly path, section, key and value")
    _relative(raw["path"], w, f"{where}.path")
    return dict(raw)


def window_entry(raw: Any, w: Where, where: str) -> dict[str, Any]:
    if not isinstance(raw, dict) or raw.get("app") not in APPS:
        raise w.fail(f"{where}.app", f"must be one of {', '.join(APPS)}")
    extra = set(raw) - {"app", "args", "geometry"}
    if extra:
        raise w.fail(f"{where}.{sorted(extra)[0]}", "is not a window field (app, args, geometry)")
    args = raw.get("args", [])
    if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
        raise w.fail(f"{where}.args", "must be a list of strings")
    if raw["app"] == "chromium" and (len(args) > 1 or any(not a.startswith("/") for a in args)):
        raise w.fail(f"{where}.args", "the web browser takes one path of the world's web apps, like \"/mail/inbox\"")
    geo = raw.get("geometry")
    if geo is not None and geo not in GEOMETRIES and not (isinstance(geo, list) and len(geo) == 4):
        raise w.fail(f"{where}.geometry", f"must be one of {', '.join(GEOMETRIES)} or [x, y, w, h] fractions")
    return dict(raw)


def _relative(path: str, w: Where, where: str) -> None:
    parts = Path(path).parts
    if not parts or Path(path).is_absolute() or ".." in parts:
        raise w.fail(where, f"must be a path inside the home folder, got {path!r}")


@cache
def catalog_dir() -> Path:
    return Path(str(resources.files("venuskit.tasks.desktop").joinpath("catalog")))


def load_catalog(directory: Path | str | None = None) -> dict[str, DesktopTaskSpec]:
    """Every desktop task in every *.toml under `directory` (default: the bundled catalog), by id."""
    return read_catalog(Path(directory) if directory is not None else catalog_dir(), load_file, lambda t: t.source)


@cache
def bundled() -> dict[str, DesktopTaskSpec]:
    return load_catalog()


# Task files registered at run time (synthesised desktop tasks), resolved next to the bundled catalog.
TASKS = loader.TaskSet("desktop", bundled, load_file, " List them with `venus desktop tasks`.")
register, register_file, unregister, registered, get_task = (TASKS.register, TASKS.register_file, TASKS.unregister,
                                                             TASKS.registered, TASKS.get)  # fmt: skip


def parse_task(raw: dict[str, Any], source: str = "<memory>") -> DesktopTaskSpec:
    """One `[[task]]` table, validated exactly as a task file's (raises TaskFileError)."""
    return _task(raw, Where(source, str(raw.get("id", "?"))))
