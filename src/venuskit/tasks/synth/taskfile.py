"""Writing task tables as a TOML task file that `venuskit.tasks.spec.load_file` reads back.

A small emitter for the shapes a task table has (strings, numbers, booleans, lists, tables): scalars and
inline values on `[[task]]`, then `[[task.params]]`, `[[task.setup]]` (the desktop's `[[task.files]]`,
`[[task.config]]`, `[[task.windows]]`), `[[task.keypoints]]` and `[[task.forbid]]` as arrays of tables. Strings
are written as JSON strings, which are valid TOML basic strings.
The file is written atomically and read back before it replaces an older one.
"""

from __future__ import annotations

import json
import re
import tomllib
from collections.abc import Callable
from pathlib import Path
from typing import Any

from venuskit.infra import atomic
from venuskit.tasks.spec import parse_task

_BARE = re.compile(r"^[A-Za-z0-9_-]+$")
_TABLE_ARRAYS = ("params", "setup", "files", "config", "windows", "keypoints", "forbid")


def _key(k: str) -> str:
    return k if _BARE.match(k) else json.dumps(k, ensure_ascii=False)


def value(v: Any) -> str:
    """One TOML value, inline."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int | float):
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, list | tuple):
        return "[" + ", ".join(value(x) for x in v) + "]"
    if isinstance(v, dict):
        return "{ " + ", ".join(f"{_key(k)} = {value(x)}" for k, x in v.items()) + " }" if v else "{}"
    raise TypeError(f"cannot write {type(v).__name__} to a task file: {v!r}")


def dumps(tables: list[dict[str, Any]], header: str = "") -> str:
    lines = [f"# {line}" if line else "#" for line in header.splitlines()]
    for t in tables:
        lines += ["", "[[task]]"]
        lines += [f"{_key(k)} = {value(v)}" for k, v in t.items() if k not in _TABLE_ARRAYS]
        for name in _TABLE_ARRAYS:
            for row in t.get(name, []):
                lines.append(f"[[task.{name}]]")
                lines += [f"{_key(k)} = {value(v)}" for k, v in row.items()]
    return "\n".join(lines) + "\n"


def write_task_file(path: Path | str, tables: list[dict[str, Any]], header: str = "",
                    parse: Callable[[dict[str, Any], str], Any] = parse_task) -> Path:  # fmt: skip
    """Write the tables to `path` atomically, after reading the text back through the task loader's checks
    (`parse`: the surface's; the world's by default)."""
    text = dumps(tables, header)
    for raw in tomllib.loads(text).get("task", []):
        parse(raw, str(path))
    return atomic.write_text(path, text, durable=True)


# ---- task files shipped with venuskit ----

SHIPPED = Path(__file__).parent / "shipped"


def shipped_task_files() -> list[str]:
    """The names of the synthesised task files inside the package (each file's header gives its command)."""
    return sorted(p.stem for p in SHIPPED.glob("*.toml"))


def task_file(ref: str | Path) -> Path:
    """A task file by path, or by the name of one shipped with venuskit (`synth-train-seed7`): a synthesis run is
    deterministic for its seed, and shipping its file spares every rebuild the run (25 minutes on two cores)."""
    path = Path(ref)
    if path.is_file():
        return path
    if str(ref) in shipped_task_files():
        return SHIPPED / f"{ref}.toml"
    raise ValueError(f"Task file not found: {ref} (neither a file nor a shipped one: "
                     f"{', '.join(shipped_task_files()) or 'none'}).")  # fmt: skip
