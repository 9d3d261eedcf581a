"""The on-disk episode store: one folder per episode, every write atomic, every run resumable.

    <root>/<episode_id>/manifest.json   the Episode without its steps (replaced atomically)
                        steps.jsonl     one Step.to_dict() per line, append-only, fsynced
                        step_0000.png   the screenshot of step 0, ...

                        final.png       the screen after the last action, where no step holds it

Write order for a step: the PNG goes to a temp file, is fsynced and renamed into place, and only then
is the JSONL line appended and fsynced. So a recorded step always has its screenshot; a crash can leave
at most a torn last line (no newline) or a PNG whose line never landed, and `EpisodeWriter.open`
removes both. The manifest is always either the old or the new version (temp file + rename).

Off the critical path: `add_step` hands the write to the writer's own thread and returns; the next write
of any kind (the next step, a manifest change, `flush`, `close`) first waits until that step is on disk
and raises what the write raised (a full disk, say). So steps reach the disk in order, at most one step is
in flight, and a step is durable before the runner records the next one: the fsyncs overlap the model
call and the next action instead of adding to them.

Reading is validation: a manifest or step of the wrong shape (or nested past `untrusted.MAX_JSON_DEPTH`) is a
typed error or a listed problem, and a screenshot is read only if it is a PNG file inside the episode folder
(`image_path`), never through a path or symbolic link that leads outside. A hard link inside the folder cannot
be told from the folder's own file and is read like one (docs/eval.md).
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as _dt
import json
import os
import re
from collections.abc import Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any, Self

from venuskit.infra import untrusted
from venuskit.infra.atomic import append_line, fsync_dir, write_bytes
from venuskit.record.episode import IMAGE_NAME, Episode, FinalObservation, Outcome, Step

try:  # advisory lock so two processes never append to one episode; POSIX only
    import fcntl
except ImportError:  # pragma: no cover - Windows
    fcntl = None  # type: ignore[assignment]

MANIFEST = "manifest.json"
STEPS = "steps.jsonl"
FINAL = "final.png"
LOCK = ".lock"
FORMAT = 1  # manifest layout version, for readers of old stores
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
_PNG_NAME = re.compile(r"^step_(\d{4,})\.png$")
_SAFE_ID = re.compile(r"^[A-Za-z0-9][A-Za-z0-9._-]{0,199}$")
_MANIFEST_FIELDS = {f.name for f in dataclasses.fields(Episode)} - {"episode_id", "steps", "problems"}


class EpisodeStoreError(RuntimeError):
    """An episode folder that cannot be written or read (not an episode, locked, corrupt)."""


def png_name(index: int) -> str:
    return f"step_{index:04d}.png"


# ---- atomic file primitives --------------------------------------------------------------------


def atomic_write_bytes(path: Path, data: bytes) -> None:
    """Write `data` to `path` so that readers see the old file or the whole new one, never a part; durable
    once it returns."""
    write_bytes(path, data, durable=True)


# ---- reading steps.jsonl -----------------------------------------------------------------------


@dataclasses.dataclass
class _StepsFile:
    steps: list[Step]
    good_bytes: int  # length of the valid prefix (everything up to the last complete, valid line)
    torn_bytes: int  # bytes after the last newline (a line cut by a crash)
    bad_lines: list[str]  # complete lines that do not parse (only possible after outside damage)


def _read_steps(path: Path) -> _StepsFile:
    data = path.read_bytes() if path.exists() else b""
    cut = data.rfind(b"\n") + 1
    steps: list[Step] = []
    bad: list[str] = []
    good = 0
    offset = 0
    for n, raw in enumerate(data[:cut].split(b"\n")[:-1], start=1):
        offset += len(raw) + 1
        try:
            steps.append(Step.from_dict(untrusted.loads(raw)))
            good = offset if not bad else good
        except (ValueError, TypeError) as e:  # JSONDecodeError, TooDeep and ActionError are ValueErrors
            bad.append(f"steps.jsonl line {n} is not a valid step ({e}); it was skipped.")
    return _StepsFile(steps, good, len(data) - cut, bad)


def _index_problems(steps: list[Step]) -> list[str]:
    return [
        f"Step at position {i} has index {s.index}; steps must be numbered 0, 1, 2, ..."
        for i, s in enumerate(steps)
        if s.index != i
    ]


def _read_manifest(path: Path) -> Episode:
    mf = path / MANIFEST
    if not mf.is_file():
        raise EpisodeStoreError(f"{path} is not an episode folder: it has no {MANIFEST}.")
    try:
        d = untrusted.loads(mf.read_bytes())
    except untrusted.TooDeep as e:
        raise EpisodeStoreError(f"{mf}: {e}; the episode cannot be read.") from e
    except (ValueError, OSError) as e:  # UnicodeDecodeError and JSONDecodeError are ValueErrors
        raise EpisodeStoreError(f"{mf} is not valid JSON ({e}); the episode cannot be read.") from e
    if not isinstance(d, dict) or "episode_id" not in d:
        raise EpisodeStoreError(f"{mf} has no episode_id; it is not a venuskit episode manifest.")
    try:
        return Episode.from_manifest(d)
    except (ValueError, TypeError) as e:
        raise EpisodeStoreError(f"{mf} is not a valid episode manifest: {e}.") from e


def image_path(folder: Path | str, name: str | None) -> Path | None:
    """The file `name` inside `folder`, or None when it is missing or not a plain file there: a name with a
    separator, a hidden file, or a link that leads out of the folder is never followed."""
    if not name or not IMAGE_NAME.match(name):
        return None
    folder = Path(folder)
    path = folder / name
    try:
        inside = path.resolve(strict=True).parent == folder.resolve(strict=True)
    except (OSError, RuntimeError):  # missing, or a symlink loop
        return None
    return path if inside and path.is_file() else None


# ---- the writer --------------------------------------------------------------------------------


class EpisodeWriter:
    """Appends steps to one episode folder and rewrites its manifest. One writer per episode at a time
    (an advisory lock refuses a second one; the kernel drops the lock if the process dies)."""

    def __init__(self, path: Path, episode: Episode, next_index: int, recovered: list[str], lock: Any) -> None:
        # Use `create` or `open`; they take the folder's lock before touching anything.
        self.path = path
        self.episode = episode  # the manifest; steps are on disk, not kept here
        self.next_index = next_index
        self.recovered = recovered  # what `open` repaired, in words (empty for a clean folder)
        self._lock_file = lock
        self._thread: ThreadPoolExecutor | None = None  # started by the first add_step
        self._pending: Future | None = None  # the step being written
        self._failed: BaseException | None = None  # what a write raised: every later write raises it too

    @classmethod
    def create(cls, root: Path | str, episode: Episode) -> EpisodeWriter:
        """Start a new episode folder `<root>/<episode_id>`; refuses one that already has a manifest."""
        if not _SAFE_ID.match(episode.episode_id):
            raise ValueError(
                f"episode_id {episode.episode_id!r} cannot name a folder; use letters, digits, '.', '_' and '-'."
            )
        if Path(root).exists() and not Path(root).is_dir():
            raise EpisodeStoreError(f"{root} is a file, not a folder for episodes; choose another --out.")
        path = Path(root) / episode.episode_id
        if (path / MANIFEST).exists():
            raise FileExistsError(f"Episode {path} already exists; resume it with EpisodeWriter.open({str(path)!r}).")
        if path.exists() and not path.is_dir():
            raise EpisodeStoreError(f"{path} exists and is not a folder; choose another --out.")
        path.mkdir(parents=True, exist_ok=True)
        manifest = dataclasses.replace(episode, steps=[], problems=[])
        manifest.created = manifest.created or _dt.datetime.now(_dt.UTC).isoformat(timespec="seconds")
        if (path / STEPS).exists() and (path / STEPS).stat().st_size:
            raise EpisodeStoreError(f"{path} has steps but no manifest; it is not safe to start a new episode there.")
        writer = cls(path, manifest, 0, [], _lock(path))
        try:
            writer._write_manifest()
            (path / STEPS).touch()
            fsync_dir(path)
        except BaseException:
            writer.close()
            raise
        return writer

    @classmethod
    def open(cls, path: Path | str) -> EpisodeWriter:
        """Resume an episode: drop a torn last line, temp files and screenshots of unrecorded steps."""
        path = Path(path)
        episode = _read_manifest(path)
        lock = _lock(path)  # take the lock before repairing anything
        sf = _read_steps(path / STEPS)
        problems = sf.bad_lines + _index_problems(sf.steps)
        if problems:
            if lock is not None:
                lock.close()
            raise EpisodeStoreError(f"Cannot resume {path}: " + " ".join(problems))
        recovered = _repair(path, sf)
        return cls(path, episode, len(sf.steps), recovered, lock)

    def add_step(self, step: Step, png: bytes | None) -> Step:
        """Record `step` (whose index must be `next_index`) and its screenshot. Returns the stored step,
        with `screenshot` set to the PNG's file name (None when no PNG was given). The write finishes on
        the writer's thread; the next write waits for it (see the module docstring)."""
        if step.index != self.next_index:
            raise ValueError(
                f"Step index {step.index} is out of order; the next step of this episode is {self.next_index}."
            )
        if png is not None and not png.startswith(PNG_SIGNATURE):
            raise ValueError(f"Step {step.index}: the screenshot is not PNG data.")
        stored = dataclasses.replace(step, screenshot=png_name(step.index) if png is not None else None)
        try:  # serialise first so a bad value never leaves a PNG without its line
            line = (json.dumps(stored.to_dict(), ensure_ascii=False) + "\n").encode("utf-8")
        except (TypeError, ValueError) as e:
            raise ValueError(f"Step {step.index} holds a value JSON cannot store: {e}.") from e
        self.flush()
        if self._thread is None:
            self._thread = ThreadPoolExecutor(max_workers=1, thread_name_prefix=f"venuskit-record-{self.path.name}")
        self._pending = self._thread.submit(self._write_step, step.index, png, line)
        self.next_index += 1
        return stored

    def _write_step(self, index: int, png: bytes | None, line: bytes) -> None:
        if png is not None:
            write_bytes(self.path / png_name(index), png, durable=True)
        append_line(self.path / STEPS, line, durable=True)

    def flush(self) -> None:
        """Wait until every step handed to `add_step` is on disk; raise what a write raised."""
        if self._failed is not None:
            raise self._failed
        pending, self._pending = self._pending, None
        if pending is None:
            return
        try:
            pending.result()
        except BaseException as e:
            self._failed = e  # the folder is consistent up to the failed step; resume it from there
            raise

    def add_final(self, png: bytes | None, final: FinalObservation) -> Episode:
        """Record the screen after the episode's last action (see `FinalObservation`) as final.png."""
        if png is not None and not png.startswith(PNG_SIGNATURE):
            raise ValueError("The final screenshot is not PNG data.")
        self.flush()
        if png is not None:
            write_bytes(self.path / FINAL, png, durable=True)
        return self.update_manifest(final=dataclasses.replace(final, screenshot=FINAL if png is not None else None))

    def clear_final(self) -> None:
        """Forget the final observation (a resumed episode goes on from there)."""
        if self.episode.final is not None:
            self.update_manifest(final=None)
        (self.path / FINAL).unlink(missing_ok=True)

    @property
    def dir(self) -> Path:
        return self.path

    def load_steps(self) -> list[Step]:
        """The steps recorded so far (for a runner that resumes and rebuilds its history)."""
        self.flush()
        return _read_steps(self.path / STEPS).steps

    def read_png(self, step: Step) -> bytes | None:
        """The screenshot bytes of a recorded step, or None."""
        return step_png(self.path, step)

    def update_manifest(self, **fields: Any) -> Episode:
        """Change manifest fields (outcome, verdicts, model, config, finished, ...) and save atomically."""
        unknown = set(fields) - _MANIFEST_FIELDS
        if unknown:
            raise ValueError(f"Unknown manifest field(s) {sorted(unknown)}; known: {sorted(_MANIFEST_FIELDS)}.")
        self.flush()  # the manifest never runs ahead of the steps it describes
        for name, value in fields.items():
            if name == "outcome" and isinstance(value, dict):
                value = Outcome(**value)
            elif name == "final" and isinstance(value, dict):
                value = FinalObservation.from_dict(value)
            elif name == "screen":
                value = tuple(value)
            setattr(self.episode, name, value)
        self._write_manifest()
        return self.episode

    def finish(self, outcome: Outcome) -> Episode:
        """Close the episode with its outcome (finished=True); steps can no longer be appended by a runner."""
        return self.update_manifest(outcome=outcome, finished=True)

    def close(self) -> None:
        """Wait for the last step's write, stop the writer's thread and let go of the folder. Raises what a
        write raised, after letting go."""
        try:
            if self._failed is None:
                self.flush()
        finally:
            if self._thread is not None:
                self._thread.shutdown(wait=True)
                self._thread = None
            if self._lock_file is not None:
                self._lock_file.close()
                self._lock_file = None

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        if exc[0] is None:
            self.close()
            return
        with contextlib.suppress(Exception):  # already unwinding: that error is the one to see
            self.close()

    def _write_manifest(self) -> None:
        d = {"format": FORMAT, **self.episode.manifest_dict()}
        try:
            data = json.dumps(d, ensure_ascii=False, indent=1).encode("utf-8")
        except (TypeError, ValueError) as e:
            raise ValueError(f"The manifest of {self.path.name} holds a value JSON cannot store: {e}.") from e
        atomic_write_bytes(self.path / MANIFEST, data)


def _lock(path: Path):  # -> open file holding the lock, or None without fcntl
    if fcntl is None:
        return None
    f = open(path / LOCK, "a+b")  # noqa: SIM115 - held open for the writer's lifetime; closing drops the lock
    try:
        fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
    except BlockingIOError:
        f.close()
        raise EpisodeStoreError(f"Another process is writing episode {path}; only one writer at a time.") from None
    return f


def _repair(path: Path, sf: _StepsFile) -> list[str]:
    """Make the folder consistent with the valid steps; return what was done, in words."""
    done: list[str] = []
    if sf.torn_bytes:
        os.truncate(path / STEPS, sf.good_bytes)
        done.append(f"Removed a torn last line of {sf.torn_bytes} bytes from {STEPS}.")
    recorded = {s.screenshot for s in sf.steps if s.screenshot}
    for f in sorted(path.iterdir()):
        if f.name.endswith(".tmp") and f.name.startswith("."):
            f.unlink()
            done.append(f"Removed the unfinished temp file {f.name}.")
        elif _PNG_NAME.match(f.name) and f.name not in recorded:
            f.unlink()
            done.append(f"Removed {f.name}, the screenshot of a step that was never recorded.")
    if done:
        fsync_dir(path)
    return done


# ---- reading -----------------------------------------------------------------------------------


def load_episode(path: Path | str) -> Episode:
    """The episode with its steps, read-only and tolerant: a torn last line, unreadable lines and
    missing screenshots are listed in `episode.problems` instead of raising."""
    path = Path(path)
    episode = _read_manifest(path)
    sf = _read_steps(path / STEPS)
    problems = list(sf.bad_lines)
    if sf.torn_bytes:
        problems.append(
            f"{STEPS} ends with a torn line of {sf.torn_bytes} bytes (an interrupted write); it was ignored."
        )
    problems += _index_problems(sf.steps)
    for s in sf.steps:
        if s.screenshot:
            problem = _image_problem(path, s.screenshot)
            problems += [f"Step {s.index}: screenshot {s.screenshot} {problem}."] if problem else []
    if episode.final is not None and episode.final.screenshot:
        problem = _image_problem(path, episode.final.screenshot)
        problems += [f"The final screenshot {episode.final.screenshot} {problem}."] if problem else []
    episode.steps, episode.problems = sf.steps, problems
    return episode


def _image_problem(folder: Path, name: str) -> str | None:
    path = folder / name
    if not IMAGE_NAME.match(name) or path.is_symlink() or (path.exists() and image_path(folder, name) is None):
        return "is not a file inside the episode folder; it is not read"
    if image_path(folder, name) is None:
        return "is missing"
    if read_image(folder, name) is None:
        try:
            untrusted.check_image((folder / name).read_bytes())
        except (OSError, untrusted.ImageRejected) as e:
            return f"is not a screenshot ({e}); it is not read"
        return "is not a PNG; it is not read"
    return None


def read_image(folder: Path | str, name: str | None) -> bytes | None:
    """The PNG bytes of the image `name` of an episode folder, or None if it is missing, not inside the
    folder (see `image_path`), not a PNG, or larger than a screenshot may be (`untrusted.check_image`: every
    reader of episode folders, exports included, gets no decompression bomb)."""
    path = image_path(folder, name)
    if path is None:
        return None
    try:
        data = path.read_bytes()
    except OSError:
        return None
    if not data.startswith(PNG_SIGNATURE):
        return None
    try:
        untrusted.check_image(data)
    except untrusted.ImageRejected:
        return None
    return data


def step_png(path: Path | str, step: Step) -> bytes | None:
    """The screenshot bytes of `step`, or None if it has none or the file is missing or not allowed."""
    return read_image(path, step.screenshot)


def final_png(path: Path | str, episode: Episode) -> bytes | None:
    """The final screenshot of an episode (see `FinalObservation`), or None."""
    return read_image(path, episode.final.screenshot) if episode.final is not None else None


def iter_episode_dirs(root: Path | str) -> Iterator[Path]:
    """Episode folders directly under `root` (those with a manifest), sorted by name."""
    root = Path(root)
    if not root.is_dir():
        raise FileNotFoundError(f"Episode root {root} does not exist.")
    for p in sorted(root.iterdir()):
        if (p / MANIFEST).is_file():
            yield p


def find_episode_dirs(root: Path | str) -> list[Path]:
    """Episode folders (those with a manifest) anywhere under `root`, sorted by path: `runs/ep-1`,
    `runs/world/ep-…` (`venus world oracle`), a suite run's `episodes/<job>/<episode>`. Not searched: an episode
    folder's own subfolders, links, and a suite run's `attempts/` (what an interrupt or an infrastructure failure
    cut short, beside its `episodes/`)."""
    root = Path(root)
    if not root.is_dir():
        raise FileNotFoundError(f"{root} is not a folder of episode folders.")
    found: list[Path] = []
    for folder, dirs, files in os.walk(root):  # links to folders are listed in dirs but not entered
        if MANIFEST in files:
            found.append(Path(folder))
            dirs.clear()
            continue
        if "attempts" in dirs and "episodes" in dirs:
            dirs.remove("attempts")
        dirs.sort()
    return sorted(found)


def iter_episodes(root: Path | str) -> Iterator[Episode]:
    """Every episode under `root`, loaded with its steps."""
    for p in iter_episode_dirs(root):
        yield load_episode(p)


class EpisodeStore:
    """A folder of episodes: `<root>/<episode_id>/`."""

    def __init__(self, root: Path | str) -> None:
        self.root = Path(root)

    def path(self, episode_id: str) -> Path:
        return self.root / episode_id

    def create(self, episode: Episode) -> EpisodeWriter:
        return EpisodeWriter.create(self.root, episode)

    def open(self, episode_id: str) -> EpisodeWriter:
        return EpisodeWriter.open(self.path(episode_id))

    def load(self, episode_id: str) -> Episode:
        return load_episode(self.path(episode_id))

    def ids(self) -> list[str]:
        return [p.name for p in iter_episode_dirs(self.root)] if self.root.is_dir() else []

    def __iter__(self) -> Iterator[Episode]:
        return iter_episodes(self.root) if self.root.is_dir() else iter(())
