"""The rooms' import rules (docs/architecture.md) hold for every import in src/venuskit, including the ones made
inside functions: a new arrow the table does not allow fails here."""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "src" / "venuskit"
TABLE = ROOT / "docs" / "architecture.md"
THIRD_PARTY = {"actions": set(), "infra": {"psutil"}}  # the table's last line
THIRD_PARTY_FILES = {"infra/untrusted.py": {"PIL", "numpy", "cv2"}}  # and its one exception


def read_table(text: str) -> dict[str, set[str]]:
    """room -> the rooms it may import, from the markdown table (a '—' cell allows none)."""
    rules: dict[str, set[str]] = {}
    for line in text.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if len(cells) != 3 or cells[0] in ("room", "") or set(cells[0]) <= {"-"}:
            continue
        rules[cells[0]] = {r.strip() for r in cells[2].split(",") if r.strip() not in ("", "—")}
    return rules


def imports(path: Path) -> list[tuple[int, str]]:
    out = []
    for node in ast.walk(ast.parse(path.read_text("utf-8"))):
        if isinstance(node, ast.Import):
            out += [(node.lineno, a.name) for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            out.append((node.lineno, node.module))
        elif isinstance(node, ast.ImportFrom):  # a relative import would hide its target room
            out.append((node.lineno, "<relative import>"))
    return out


def forbidden_arrows(src: Path, rules: dict[str, set[str]]) -> list[str]:
    bad = []
    for path in sorted(src.rglob("*.py")):
        rel = path.relative_to(src)
        if len(rel.parts) == 1:
            continue  # venuskit/__init__.py
        room = rel.parts[0]
        if room not in rules:
            bad.append(f"{rel}: the room {room!r} is not in the table")
            continue
        for line, name in imports(path):
            if name == "<relative import>":
                bad.append(f"{rel}:{line}: a relative import (write venuskit.<room>...)")
                continue
            top = name.split(".")[0]
            if top == "venuskit" and "." in name:
                target = name.split(".")[1]
                if target != room and target not in rules[room]:
                    bad.append(f"{rel}:{line}: {room} -> {target} ({name})")
            elif room in THIRD_PARTY and top not in {*sys.stdlib_module_names, "venuskit", *THIRD_PARTY[room],
                                                     *THIRD_PARTY_FILES.get(rel.as_posix(), ())}:
                bad.append(f"{rel}:{line}: {room} imports the outside package {top}")
    return bad


def test_every_import_is_an_arrow_the_table_allows():
    rules = read_table(TABLE.read_text("utf-8"))
    assert {"infra", "actions", "runs", "eval", "flywheel", "cli"} <= set(rules)
    assert forbidden_arrows(SRC, rules) == []


def test_the_checker_catches_a_forbidden_arrow_inside_a_function(tmp_path):
    rules = read_table(TABLE.read_text("utf-8"))
    room = tmp_path / "venuskit" / "tasks"
    room.mkdir(parents=True)
    (room / "sneaky.py").write_text("def f():\n    from venuskit.eval.metrics import rate\n    return rate\n")
    (room / "fine.py").write_text("from venuskit.world.state import EpisodeState\n")
    assert forbidden_arrows(tmp_path / "venuskit", rules) == ["tasks/sneaky.py:2: tasks -> eval (venuskit.eval.metrics)"]


@pytest.mark.parametrize("room", ["eval", "runs"])
def test_lower_rooms_never_reach_up_to_the_flywheel(room):
    assert "flywheel" not in read_table(TABLE.read_text("utf-8"))[room]
