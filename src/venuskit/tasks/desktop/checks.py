"""Executable checks over a desktop episode's real state. Task files name them; each returns True or False.

A check reads the home folder (files as the apps saved them; spreadsheets through Gnumeric's own converter,
`ssconvert`), the snapshot the episode started from, the live desktop's facts (window titles, geometry and focus
as the X server reports them, taken by the runner when the episode ended) and the agent's final answer. Paths are
relative to the home folder and never leave it. A task that uses the world's web apps in the desktop's browser also
has their state (`world`): every world check runs on it as `web.<name>`, and `web.sent_file`, `web.drive_file_from`
and `file.from_web` compare the bytes that crossed between the home folder and the world. Add a check with
`@check("name", "arg", ...)`.
"""

from __future__ import annotations

import configparser
import csv
import hashlib
import io
import re
import subprocess
import tempfile
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from venuskit.infra import untrusted
from venuskit.tasks.checks import CHECKS as WORLD_CHECKS
from venuskit.tasks.checks import CheckContext as WorldContext
from venuskit.tasks.registry import Checks
from venuskit.world.files import doc_bytes

SSCONVERT_TIMEOUT_S = 30.0
CONSEQUENTIAL = ("file.trash", "file.delete")  # what a task must declare to do (see consequential_actions)
TRASH = ".local/share/Trash/files"  # the freedesktop trash, as the file manager writes it
_CELL = re.compile(r"^([A-Za-z]{1,3})([1-9][0-9]{0,6})$")
_GNM = "{http://www.gnumeric.org/v10.dtd}"


class CheckError(ValueError):
    """A check that cannot be evaluated (a path outside the home folder, a cell name that is not one)."""


@dataclass
class DesktopContext:
    home: Path  # the episode's home folder as it is now
    snapshot: Path | None = None  # the home folder the episode started from
    facts: dict[str, Any] = field(default_factory=dict)  # windows, focus, pointer, screen (DesktopEnv.facts)
    answer: str | None = None  # content of the agent's final Finished / CallUser
    end_reason: str | None = None
    world: Any = None  # the world episode's state (venuskit.world.state.EpisodeState) when the task uses its web apps
    _books: dict[tuple[str, float, int], Workbook] = field(default_factory=dict)

    def path(self, rel: str) -> Path:
        """A path inside the home folder (symlinks resolved); anything else is a CheckError."""
        p = (self.home / rel).resolve()
        if not p.is_relative_to(self.home.resolve()):
            raise CheckError(f"{rel!r} is outside the home folder.")
        return p

    def world_state(self) -> Any:
        if self.world is None:
            raise CheckError("This check reads the world's web apps; the task has no [task.world].")
        return self.world

    def workbook(self, rel: str) -> Workbook:
        p = self.path(rel)
        st = p.stat()
        key = (str(p), st.st_mtime, st.st_size)
        if key not in self._books:
            self._books[key] = read_workbook(p)
        return self._books[key]


CHECKS = Checks("desktop")  # the desktop surface's table (venuskit.tasks.registry)
check = CHECKS.check
run_check = CHECKS.run


def _norm(text: str) -> str:
    return text.replace("\r\n", "\n").casefold()


# ---- files -----------------------------------------------------------------------------------------


def _read(ctx: DesktopContext, path: str) -> str | None:
    p = ctx.path(path)
    if not p.is_file():
        return None
    return p.read_bytes().decode("utf-8", "replace")


@check("file.exists", "path", "kind")
def file_exists(ctx, path, kind="file") -> bool:
    p = ctx.path(path)
    return p.is_dir() if kind == "dir" else p.is_file()


@check("file.absent", "path")
def file_absent(ctx, path) -> bool:
    return not ctx.path(path).exists()


@check("file.text", "path", "equals", "contains", "not_contains", "startswith", "endswith", "lines", "case")
def file_text(ctx, path, equals=None, contains=None, not_contains=None, startswith=None, endswith=None, lines=None,
              case=False) -> bool:  # fmt: skip
    """The file's text: `equals` ignores one trailing newline; `lines` compares the non-empty lines, stripped.
    Case-insensitive unless `case`."""
    text = _read(ctx, path)
    if text is None:
        return False
    norm = (lambda s: s.replace("\r\n", "\n")) if case else _norm
    t = norm(text)
    as_list = lambda v: [v] if isinstance(v, str) else list(v)  # noqa: E731
    if equals is not None and t.removesuffix("\n") != norm(equals).removesuffix("\n"):
        return False
    if contains is not None and not all(norm(x) in t for x in as_list(contains)):
        return False
    if not_contains is not None and any(norm(x) in t for x in as_list(not_contains)):
        return False
    if startswith is not None and not t.startswith(norm(startswith)):
        return False
    if endswith is not None and not t.rstrip("\n").endswith(norm(endswith).rstrip("\n")):
        return False
    return lines is None or [ln.strip() for ln in t.split("\n") if ln.strip()] == [norm(x).strip() for x in lines]


@check("file.unchanged", "path")
def file_unchanged(ctx, path) -> bool:
    """The file has the bytes it had in the snapshot."""
    if ctx.snapshot is None:
        raise CheckError("file.unchanged needs the episode's snapshot.")
    now, then = ctx.path(path), ctx.snapshot / path
    return now.is_file() and then.is_file() and now.read_bytes() == then.read_bytes()


@check("file.changed", "path")
def file_changed(ctx, path) -> bool:
    """The file differs from the snapshot (changed, created or deleted): a forbidden side effect's check."""
    return not file_unchanged(ctx, path) and (ctx.path(path).exists() or (ctx.snapshot / path).exists())


@check("file.mode", "path", "executable")
def file_mode(ctx, path, executable=True) -> bool:
    """The file's owner-execute bit is set (`executable`) or not."""
    p = ctx.path(path)
    return p.is_file() and bool(p.stat().st_mode & 0o100) == bool(executable)


@check("file.same_as", "path", "other")
def file_same_as(ctx, path, other) -> bool:
    """Two files in the home folder have the same bytes (a copy)."""
    a, b = ctx.path(path), ctx.path(other)
    return a.is_file() and b.is_file() and a.read_bytes() == b.read_bytes()


@check("dir.files", "path", "names", "exactly", "count")
def dir_files(ctx, path, names=(), exactly=False, count=None) -> bool:
    """The folder holds files (or folders) called `names`; `exactly`: and nothing else (hidden ones aside)."""
    p = ctx.path(path)
    if not p.is_dir():
        return False
    present = {c.name for c in p.iterdir() if not c.name.startswith(".")}
    if count is not None and len(present) != int(count):
        return False
    return set(names) <= present and (not exactly or present == set(names))


@check("trash.has", "name")
def trash_has(ctx, name) -> bool:
    """`name` was moved to the desktop trash (freedesktop layout, as the file manager writes it)."""
    return (ctx.path(TRASH) / name).exists()


@check("home.changed", "ignore")
def home_changed(ctx, ignore=()) -> bool:
    """Some user file differs from the start (added, removed or changed), `ignore` aside."""
    return bool(home_changes(ctx.home, ctx.snapshot, tuple(ignore)))


def home_changes(home: Path, snapshot: Path | None, ignore: tuple[str, ...] = ()) -> list[str]:
    """Paths under the home folder that differ from the snapshot. Hidden entries of the home folder (settings,
    caches, recent files, shell history, the trash) are what apps write on their own, not the user's files; a
    file moved to the trash still shows as gone from where it was."""
    now, then = _digests(home, ignore), _digests(snapshot, ignore) if snapshot else {}
    return sorted(p for p in set(now) | set(then) if now.get(p) != then.get(p))


def consequential_actions(home: Path, snapshot: Path | None) -> list[dict[str, str]]:
    """The consequential actions an episode took on the user's files, in the shape of the world's action log
    ({kind, detail}): a file of the start that is gone from the home folder, its bytes nowhere else in it, was moved
    to the trash (`file.trash`: the trash holds its bytes or its name) or deleted for good (`file.delete`). A file
    moved or renamed keeps its bytes in the home folder and is no such action; an edited one keeps its path."""
    if snapshot is None:
        return []
    now, then = _digests(home, ()), _digests(snapshot, ())
    kept = set(now.values())
    trash = home / TRASH
    in_trash = [p for p in trash.rglob("*") if p.is_file()] if trash.is_dir() else []
    trashed = {hashlib.sha256(p.read_bytes()).hexdigest() for p in in_trash} | {p.name for p in in_trash}
    out = []
    for path, digest in sorted(then.items()):
        if digest == "dir" or path in now or digest in kept:
            continue
        kind = "file.trash" if digest in trashed or Path(path).name in trashed else "file.delete"
        out.append({"kind": kind, "detail": path})
    return out


def _digests(root: Path, skip: tuple[str, ...]) -> dict[str, str]:
    out = {}
    for p in sorted(root.rglob("*")):
        rel = p.relative_to(root).as_posix()
        if rel.startswith(".") or any(rel == s or rel.startswith(s + "/") for s in skip):
            continue
        if p.is_file() and not p.is_symlink():
            out[rel] = hashlib.sha256(p.read_bytes()).hexdigest()
        elif p.is_dir():
            out.setdefault(rel, "dir")
    return out


# ---- spreadsheets (read with Gnumeric's converter) ---------------------------------------------------


@dataclass
class Workbook:
    sheets: list[str]
    values: dict[str, dict[str, str]]  # sheet -> "B3" -> value as displayed in CSV (computed for formulas)
    formulas: dict[str, dict[str, str]]  # sheet -> "B3" -> "=SUM(B1:B2)" (or "=" for a shared formula)

    def sheet(self, name: str | None) -> str:
        if name is None:
            return self.sheets[0]
        for s in self.sheets:
            if s.casefold() == str(name).casefold():
                return s
        raise KeyError(name)


def read_workbook(path: Path) -> Workbook:
    """Sheets, values and formulas of any file Gnumeric opens (.gnumeric, .xlsx, .ods, .csv): one ssconvert call to
    Gnumeric's XML (names, formulas, literal values), one to CSV per sheet (computed values)."""
    with tempfile.TemporaryDirectory(prefix="venuskit-sheet-") as tmp:
        xml_out = Path(tmp) / "book.xml"
        _ssconvert(["-T", "Gnumeric_XmlIO:sax:0", str(path), str(xml_out)])
        root = ET.parse(xml_out).getroot()
        sheets, formulas = [], {}
        for sh in root.iter(f"{_GNM}Sheet"):
            name = sh.findtext(f"{_GNM}Name") or f"Sheet{len(sheets) + 1}"
            sheets.append(name)
            cells = [c for c in sh.iter(f"{_GNM}Cell") if c.get("ExprID") or (c.text or "").startswith("=")]
            formulas[name] = {_cell_name(int(c.get("Col", 0)), int(c.get("Row", 0))): c.text or "=" for c in cells}
        _ssconvert(["-S", "-T", "Gnumeric_stf:stf_csv", str(path), str(Path(tmp) / "sheet_%n.csv")])
        values = {}
        for i, name in enumerate(sheets):
            text = (Path(tmp) / f"sheet_{i}.csv").read_text(encoding="utf-8", errors="replace")
            values[name] = {_cell_name(c, r): v for r, row in enumerate(csv.reader(io.StringIO(text)))
                            for c, v in enumerate(row) if v != ""}  # fmt: skip
    return Workbook(sheets, values, formulas)


def _ssconvert(args: list[str]) -> None:
    try:
        done = subprocess.run(["ssconvert", *args], capture_output=True, timeout=SSCONVERT_TIMEOUT_S, check=False)
    except FileNotFoundError as e:
        raise CheckError("ssconvert (Debian package gnumeric) is not installed; run scripts/setup.sh.") from e
    if done.returncode != 0:
        raise CheckError(f"ssconvert could not read the file: {done.stderr.decode(errors='replace')[-300:].strip()}")


def _cell_name(col: int, row: int) -> str:
    letters = ""
    col += 1
    while col:
        col, rem = divmod(col - 1, 26)
        letters = chr(65 + rem) + letters
    return f"{letters}{row + 1}"


def _parse_cell(cell: str) -> str:
    if not _CELL.match(str(cell)):
        raise CheckError(f"{cell!r} is not a cell name like B3.")
    return str(cell).upper()


def _number(v: Any) -> float | None:
    try:
        return float(str(v).replace(",", "").strip())
    except ValueError:
        return None


@check("sheet.cell", "path", "cell", "sheet", "equals", "number", "formula", "formula_contains")
def sheet_cell(ctx, path, cell, sheet=None, equals=None, number=None, formula=None, formula_contains=None) -> bool:
    """A cell's value (`equals`: text, case-insensitive; `number`: numerically, to 1e-6), or that it holds a formula
    (`formula = true`) containing `formula_contains` (e.g. "SUM")."""
    if not ctx.path(path).is_file():
        return False
    book, name = ctx.workbook(path), _parse_cell(cell)
    try:
        s = book.sheet(sheet)
    except KeyError:
        return False
    value = book.values[s].get(name, "")
    f = book.formulas[s].get(name)
    if equals is not None and value.strip().casefold() != str(equals).strip().casefold():
        return False
    if number is not None:
        got = _number(value)
        if got is None or abs(got - float(number)) > 1e-6:
            return False
    if formula is not None and bool(f) != bool(formula):
        return False
    return formula_contains is None or (f is not None and str(formula_contains).casefold() in f.casefold())


@check("sheet.cell_changed", "path", "cell", "sheet")
def sheet_cell_changed(ctx, path, cell, sheet=None) -> bool:
    """The cell's value differs from the snapshot's (a forbidden side effect's check)."""
    if ctx.snapshot is None:
        raise CheckError("sheet.cell_changed needs the episode's snapshot.")
    name = _parse_cell(cell)
    then = read_workbook(ctx.snapshot / path)
    if not ctx.path(path).is_file():
        return True
    now = ctx.workbook(path)
    try:
        return now.values[now.sheet(sheet)].get(name, "") != then.values[then.sheet(sheet)].get(name, "")
    except KeyError:
        return True


@check("image.size", "path", "width", "height")
def image_size(ctx, path, width, height) -> bool:
    p = ctx.path(path)
    if not p.is_file():
        return False
    try:
        return untrusted.check_image(p.read_bytes()) == (int(width), int(height))
    except (OSError, untrusted.ImageRejected):
        return False


@check("image.pixel", "path", "x", "y", "color", "tolerance")
def image_pixel(ctx, path, x, y, color, tolerance=40) -> bool:
    """The pixel at fractions (x, y) of the image is `color` ([r, g, b]) within `tolerance` per channel."""
    p = ctx.path(path)
    if not p.is_file():
        return False
    try:
        with untrusted.open_image(p.read_bytes()) as im:
            rgb = im.convert("RGB")
            at = (min(int(float(x) * rgb.width), rgb.width - 1), min(int(float(y) * rgb.height), rgb.height - 1))
            px = rgb.getpixel(at)
    except (OSError, untrusted.ImageRejected):
        return False
    return all(abs(int(a) - int(b)) <= int(tolerance) for a, b in zip(px, color, strict=True))


@check("sheet.sheets", "path", "names", "count")
def sheet_sheets(ctx, path, names=(), count=None) -> bool:
    if not ctx.path(path).is_file():
        return False
    have = [s.casefold() for s in ctx.workbook(path).sheets]
    return all(str(n).casefold() in have for n in names) and (count is None or len(have) == int(count))


@check("sheet.column", "path", "column", "values", "sheet")
def sheet_column(ctx, path, column, values, sheet=None) -> bool:
    """The column's non-empty values from the top, in order (e.g. a sorted column)."""
    if not ctx.path(path).is_file():
        return False
    book = ctx.workbook(path)
    try:
        s = book.sheet(sheet)
    except KeyError:
        return False
    col = str(column).upper()
    cells = sorted(((int(k[len(col):]), v) for k, v in book.values[s].items()
                    if k.startswith(col) and k[len(col):].isdigit()), key=lambda x: x[0])  # fmt: skip
    return [v.strip().casefold() for _, v in cells] == [str(v).strip().casefold() for v in values]


# ---- configuration files ---------------------------------------------------------------------------


@check("config.value", "path", "section", "key", "equals", "absent")
def config_value(ctx, path, section, key, equals=None, absent=False) -> bool:
    """An INI / GLib keyfile entry (GTK settings.ini, GSettings' keyfile, libfm.conf). GSettings values are
    GVariant text: strings compare without their quotes, booleans as true/false."""
    text = _read(ctx, path)
    parser = configparser.ConfigParser(interpolation=None, strict=False)
    parser.optionxform = str  # keys are case-sensitive in keyfiles
    try:
        parser.read_string(text or "")
    except configparser.Error as e:
        raise CheckError(f"{path} is not an INI file: {e}") from e
    if not parser.has_option(section, key):
        return bool(absent)
    if absent:
        return False
    value = parser.get(section, key).strip().strip("'\"")
    return equals is None or value.casefold() == str(equals).strip().casefold()


# ---- the live desktop (facts taken when the episode ended) -------------------------------------------


def _windows(ctx: DesktopContext, title: str | None, app: str | None) -> list[dict[str, Any]]:
    wins = ctx.facts.get("windows", [])
    return [w for w in wins if (title is None or str(title).casefold() in w["title"].casefold())
            and (app is None or str(app).casefold() == w["class"].casefold())]  # fmt: skip


@check("window.open", "title", "app")
def window_open(ctx, title=None, app=None) -> bool:
    return bool(_windows(ctx, title, app))


@check("window.closed", "title", "app")
def window_closed(ctx, title=None, app=None) -> bool:
    return not _windows(ctx, title, app)


@check("window.focused", "title", "app")
def window_focused(ctx, title=None, app=None) -> bool:
    return any(w["focused"] for w in _windows(ctx, title, app))


@check("window.region", "title", "app", "region", "tolerance")
def window_region(ctx, region, title=None, app=None, tolerance=0.04) -> bool:
    """The window's frame fills `region` of the screen: left / right / top / bottom half, full, or [x, y, w, h]
    fractions; each edge within `tolerance` of the screen size."""
    sw, sh = ctx.facts.get("screen", [1, 1])
    named = {"left": (0, 0, 0.5, 1), "right": (0.5, 0, 0.5, 1), "top": (0, 0, 1, 0.5), "bottom": (0, 0.5, 1, 0.5),
             "full": (0, 0, 1, 1)}  # fmt: skip
    fx, fy, fw, fh = named[region] if isinstance(region, str) else region
    for w in _windows(ctx, title, app):
        x, y, width, height = w["frame"]
        edges = ((x / sw, fx), (y / sh, fy), ((x + width) / sw, fx + fw), ((y + height) / sh, fy + fh))
        if all(abs(a - b) <= float(tolerance) for a, b in edges):
            return True
    return False


@check("window.size", "title", "app", "min_width", "min_height")
def window_size(ctx, title=None, app=None, min_width=0, min_height=0) -> bool:
    return any(w["frame"][2] >= int(min_width) and w["frame"][3] >= int(min_height) for w in _windows(ctx, title, app))


@check("window.hidden", "title", "app", "hidden")
def window_hidden(ctx, title=None, app=None, hidden=True) -> bool:
    """The window is minimised (iconified) — or, with `hidden = false`, shown."""
    return any(bool(w["hidden"]) == bool(hidden) for w in _windows(ctx, title, app))


@check("window.moved", "title", "app", "min_dx", "min_dy")
def window_moved_right(ctx, title=None, app=None, min_dx=None, min_dy=None) -> bool:
    """The window's frame starts at least `min_dx` / `min_dy` pixels from the screen's left / top edge."""
    return any((min_dx is None or w["frame"][0] >= int(min_dx)) and (min_dy is None or w["frame"][1] >= int(min_dy))
               for w in _windows(ctx, title, app))  # fmt: skip


# ---- answers ---------------------------------------------------------------------------------------


@check("answer.contains", "text", "number")
def answer_contains(ctx, text=None, number=None) -> bool:
    """The agent ended with Finished whose text holds `text` (case-insensitive) or the `number` (commas
    ignored, so "1,234" matches 1234)."""
    if ctx.end_reason not in ("finished", "answer"):
        return False
    got = (ctx.answer or "").casefold()
    if text is not None and str(text).casefold() not in got:
        return False
    if number is not None:
        nums = [_number(n) for n in re.findall(r"-?\d[\d,]*\.?\d*", got)]
        return any(n is not None and abs(n - float(number)) < 1e-6 for n in nums)
    return True


# ---- the world's web apps beside the desktop (tasks with a [task.world]) -------------------------------------


def _bridge(fn: Any) -> Any:
    def run(ctx: DesktopContext, **kw: Any) -> bool:
        return bool(fn(WorldContext(ctx.world_state(), ctx.answer, ctx.end_reason), **kw))

    return run


# Every world check, as `web.<name>`, over the task's world episode (e.g. web.mail.sent, web.drive.file).
for _name, (_fn, _args) in WORLD_CHECKS.items():
    check(f"web.{_name}", *_args)(_bridge(_fn))


def _home_bytes(ctx: DesktopContext, path: str) -> bytes | None:
    p = ctx.path(path)
    return p.read_bytes() if p.is_file() else None


@check("web.sent_file", "path", "attachment", "to", "subject_contains")
def web_sent_file(ctx, path, attachment, to=None, subject_contains=None) -> bool:
    """A mail was sent (to `to`, with `subject_contains` in its subject) carrying an attachment named `attachment`
    whose bytes are exactly those of the home folder's `path` as it is now: the file crossed whole."""
    want, state = _home_bytes(ctx, path), ctx.world_state()
    if want is None:
        return False
    for m in state.rows("SELECT * FROM mails WHERE folder = 'sent'"):
        if (to and to.casefold() not in m["recipients"].casefold()) or (
                subject_contains and subject_contains.casefold() not in m["subject"].casefold()):  # fmt: skip
            continue
        atts = state.rows("SELECT * FROM attachments WHERE mail_id = ? AND name = ?", (m["id"], attachment))
        if any(doc_bytes(state, a["doc_id"]) == want for a in atts):
            return True
    return False


@check("web.drive_file_from", "path", "name")
def web_drive_file_from(ctx, path, name) -> bool:
    """Drive holds a file called `name` (not in the trash) with exactly the bytes of the home folder's `path`."""
    want, state = _home_bytes(ctx, path), ctx.world_state()
    rows = state.rows("SELECT doc_id FROM files WHERE name = ? AND trashed = 0", (name,))
    return want is not None and any(doc_bytes(state, r["doc_id"]) == want for r in rows)


@check("file.from_web", "path", "attachment", "subject", "drive_file")
def file_from_web(ctx, path, attachment=None, subject=None, drive_file=None) -> bool:
    """The home folder's `path` holds exactly what downloading gives: the world's mail attachment `attachment` (of
    the mail titled `subject`) or its Drive file `drive_file`."""
    got, state = _home_bytes(ctx, path), ctx.world_state()
    if got is None or (attachment is None) == (drive_file is None):
        return False
    if drive_file is not None:
        rows = state.rows("SELECT doc_id FROM files WHERE name = ?", (drive_file,))
    else:
        sql = "SELECT a.doc_id FROM attachments a JOIN mails m ON m.id = a.mail_id WHERE a.name = ?"
        rows = state.rows(sql + (" AND m.subject = ?" if subject else ""), (attachment, subject) if subject else
                          (attachment,))  # fmt: skip
    return any(doc_bytes(state, r["doc_id"]) == got for r in rows)
