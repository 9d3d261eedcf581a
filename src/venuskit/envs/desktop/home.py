"""The home folder of an episode: the task dict's windows validated, the account skeleton, the task's snapshot and
settings, and a copy of it all as the episode started (what checks compare against)."""

from __future__ import annotations

import configparser
import shutil
import time
from pathlib import Path
from typing import Any

from venuskit.envs.base import EnvError
from venuskit.envs.desktop.apps import get_app
from venuskit.envs.desktop.skel import HOME_SKELETON
from venuskit.envs.desktop.xserver import chown_tree

GEOMETRIES = ("max", "left", "right", "center")


def restore_home(home: Path, skeleton: Path, snapshot: str | None, config: list[dict[str, str]],
                 user: tuple[int, int] | None, start: Path) -> None:  # fmt: skip
    """The skeleton, the task's files over it, the task's settings merged into the apps' config files; owned by
    the desktop's user; then copied to `start`."""
    _clear(home)
    shutil.copytree(skeleton, home, symlinks=True)
    if snapshot:
        src = Path(snapshot)
        if not src.is_dir():
            raise EnvError(f"The task's home snapshot {snapshot} is not a folder.")
        shutil.copytree(src, home, symlinks=True, dirs_exist_ok=True)
    for entry in config:
        set_config(home, entry)
    chown_tree(home, user)
    _clear(start)
    shutil.copytree(home, start, symlinks=True)


def _clear(path: Path, tries: int = 40) -> None:
    """Remove a folder for good. A process of the last episode that is still dying (an app's helper finishing a
    save or a move to the trash) can write into it while it is removed: try again, briefly."""
    for _ in range(tries):
        shutil.rmtree(path, ignore_errors=True)
        if not path.exists():
            return
        time.sleep(0.05)
    raise EnvError(f"{path} could not be cleared: something of the last episode keeps writing in it.")


def windows_of(task: dict[str, Any]) -> list[dict[str, Any]]:
    """Validate the task dict's windows before anything is torn down."""
    if not isinstance(task, dict):
        raise EnvError(f"The desktop task must be a dict, got {type(task).__name__}.")
    windows = task.get("windows", [])
    if not isinstance(windows, list):
        raise EnvError("The task's 'windows' must be a list of {app, args, geometry}.")
    out = []
    for i, w in enumerate(windows):
        if not isinstance(w, dict) or not isinstance(w.get("app"), str):
            raise EnvError(f"windows[{i}] needs an 'app' name.")
        try:
            get_app(w["app"])
        except ValueError as e:
            raise EnvError(str(e)) from None
        args = w.get("args", [])
        if not isinstance(args, list) or not all(isinstance(a, str) for a in args):
            raise EnvError(f"windows[{i}].args must be a list of strings.")
        geo = w.get("geometry")
        if geo is not None and geo not in GEOMETRIES and not (
            isinstance(geo, list) and len(geo) == 4 and all(isinstance(v, (int, float)) and 0 <= v <= 1 for v in geo)
        ):
            raise EnvError(f"windows[{i}].geometry must be one of {GEOMETRIES} or [x, y, w, h] fractions.")
        out.append(w)
    return out


def set_config(home: Path, entry: dict[str, str]) -> None:
    """Set one key of an INI / GLib keyfile under the home folder (GTK settings, GSettings' keyfile, libfm)."""
    try:
        path, section, key, value = (str(entry[k]) for k in ("path", "section", "key", "value"))
    except (KeyError, TypeError):
        raise EnvError(f"A config entry needs path, section, key and value; got {entry!r}.") from None
    target = (home / path).resolve()
    if not target.is_relative_to(home.resolve()):
        raise EnvError(f"The config path {path!r} is outside the home folder.")
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    parser.optionxform = str  # keyfile keys are case-sensitive
    if target.is_file():
        parser.read(target, encoding="utf-8")
    if not parser.has_section(section):
        parser.add_section(section)
    parser.set(section, key, value)
    target.parent.mkdir(parents=True, exist_ok=True)
    with open(target, "w", encoding="utf-8") as fh:
        parser.write(fh, space_around_delimiters=False)


def write_skeleton(root: Path) -> None:
    for rel, content in HOME_SKELETON.items():
        path = root / rel
        if content is None:
            path.mkdir(parents=True, exist_ok=True)
        else:
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(content, encoding="utf-8")
