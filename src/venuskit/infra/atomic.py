"""Atomic file writes: a reader sees the old file or the whole new one, never a part.

Every writer takes `durable` explicitly, because the two choices cost very different amounts:
- `durable=True`: the data is fsynced before the rename and the directory after it, so once the call returns the
  new file survives a power loss or a kernel crash (an episode record, a resumable run's state).
- `durable=False`: temp file + rename only. A crash of this process never leaves half a file, but a machine
  crash may lose the write (reports, exports and caches that can be made again).

`append_line` appends one complete line with a single O_APPEND write loop; with `durable=True` it is fsynced
before returning. A line cut by a crash is the reader's to detect (the last line without a newline).
"""

from __future__ import annotations

import json
import os
import secrets
from pathlib import Path
from typing import Any


def fsync_dir(path: str | os.PathLike[str]) -> None:
    """fsync a directory, which makes a rename or a new file inside it durable."""
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def write_bytes(path: str | os.PathLike[str], data: bytes, *, durable: bool) -> Path:
    """Replace `path` with `data` atomically (temp file in the same folder + rename)."""
    path = Path(path)
    # A unique temp name: two threads writing the same file must not share (and truncate) one temp file.
    tmp = path.with_name(f".{path.name}.{os.getpid()}.{secrets.token_hex(4)}.tmp")
    fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o666)
    try:
        _write_all(fd, data)
        if durable:
            os.fsync(fd)
        os.close(fd)
        fd = -1
        os.replace(tmp, path)
    except BaseException:
        if fd >= 0:
            os.close(fd)
        tmp.unlink(missing_ok=True)  # a full disk must not leave temp files behind either
        raise
    if durable:
        fsync_dir(path.parent)
    return path


def write_text(path: str | os.PathLike[str], text: str, *, durable: bool, encoding: str = "utf-8") -> Path:
    return write_bytes(path, text.encode(encoding), durable=durable)


def write_json(path: str | os.PathLike[str], data: Any, *, durable: bool, indent: int | None = 2) -> Path:
    """`data` as UTF-8 JSON (non-ASCII kept as is), written atomically."""
    return write_bytes(path, json.dumps(data, ensure_ascii=False, indent=indent).encode("utf-8"), durable=durable)


def append_line(path: str | os.PathLike[str], line: bytes, *, durable: bool) -> None:
    """Append `line` (a newline is added if missing) to `path`, creating it if needed."""
    if not line.endswith(b"\n"):
        line += b"\n"
    fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o666)
    try:
        _write_all(fd, line)
        if durable:
            os.fsync(fd)
    finally:
        os.close(fd)


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:  # os.write may write less than asked
        view = view[os.write(fd, view) :]
