"""The `sync:` service (adb push / pull / ls) over the stand-in's small in-memory file system.

Requests are 8-byte frames, 4 ASCII id + little-endian uint32 length, then that many bytes: STAT, LIST, RECV,
SEND ("path,mode", then DATA chunks and DONE with the mtime), QUIT. Replies: STAT (mode, size, mtime), DENT
entries then DONE, DATA chunks (64 KiB at most) then DONE, OKAY, or FAIL with a message. A request may arrive
split over several WRTE messages, so the stream is read as a byte stream.
"""

from __future__ import annotations

import posixpath
import stat
import struct
import threading
import time
from dataclasses import dataclass

from venuskit.envs.android.standin.transport import Stream

CHUNK = 64 * 1024
MAX_FILE = 64 << 20  # one pushed file; the stand-in keeps files in memory
MAX_PATH = 1024
FRAME = struct.Struct("<4sI")


@dataclass
class File:
    data: bytes
    mode: int  # permission bits
    mtime: int


class FileSystem:
    """Files by absolute path; directories exist when a file is below them (and the usual ones always)."""

    ROOTS = ("/", "/sdcard", "/sdcard/Pictures", "/sdcard/Pictures/Screenshots", "/sdcard/Download",
             "/data", "/data/local", "/data/local/tmp")  # fmt: skip

    def __init__(self) -> None:
        self._files: dict[str, File] = {}
        self._lock = threading.Lock()

    def write(self, path: str, data: bytes, mode: int = 0o644, mtime: int | None = None) -> None:
        path = _clean(path)
        with self._lock:
            self._files[path] = File(data, mode & 0o7777, int(time.time()) if mtime is None else mtime)

    def read(self, path: str) -> bytes | None:
        with self._lock:
            f = self._files.get(_clean(path))
        return None if f is None else f.data

    def remove(self, path: str) -> bool:
        with self._lock:
            return self._files.pop(_clean(path), None) is not None

    def stat(self, path: str) -> tuple[int, int, int] | None:
        """(st_mode, size, mtime), or None when nothing is there."""
        path = _clean(path)
        with self._lock:
            f = self._files.get(path)
            if f is not None:
                return stat.S_IFREG | f.mode, len(f.data), f.mtime
            if self._is_dir(path):
                return stat.S_IFDIR | 0o755, 4096, 0
        return None

    def listdir(self, path: str) -> list[tuple[str, tuple[int, int, int]]] | None:
        path = _clean(path)
        with self._lock:
            if not self._is_dir(path):
                return None
            names = {p[len(path) :].lstrip("/").split("/")[0] for p in [*self._files, *self.ROOTS]
                     if p != path and p.startswith(path.rstrip("/") + "/")}  # fmt: skip
        return [(n, self.stat(posixpath.join(path, n)) or (0, 0, 0)) for n in sorted(names)]

    def _is_dir(self, path: str) -> bool:
        prefix = path.rstrip("/") + "/"
        return path in self.ROOTS or any(p.startswith(prefix) for p in self._files)


def _clean(path: str) -> str:
    return posixpath.normpath("/" + path.lstrip("/")) if path else "/"


class _Reader:
    """The host's bytes on a stream, read as a byte stream."""

    def __init__(self, stream: Stream) -> None:
        self.stream, self.buf = stream, bytearray()

    def take(self, n: int) -> bytes | None:
        while len(self.buf) < n:
            chunk = self.stream.read()
            if chunk is None:
                return None
            self.buf += chunk
        out, self.buf = bytes(self.buf[:n]), self.buf[n:]
        return out


def serve_sync(stream: Stream, fs: FileSystem) -> None:
    reader = _Reader(stream)
    while True:
        head = reader.take(FRAME.size)
        if head is None:
            return
        ident, length = FRAME.unpack(head)
        if ident == b"QUIT":
            return
        if length > MAX_PATH:
            _fail(stream, f"path too long ({length} bytes)")
            return
        arg = reader.take(length)
        if arg is None:
            return
        path = arg.decode("utf-8", "replace")
        if ident == b"STAT":
            mode, size, mtime = fs.stat(path) or (0, 0, 0)
            stream.write(b"STAT" + struct.pack("<III", mode, size, mtime))
        elif ident == b"LIST":
            _list(stream, fs, path)
        elif ident == b"RECV":
            _send_file(stream, fs, path)
        elif ident == b"SEND":
            if not _receive_file(stream, reader, fs, path):
                return
        else:
            _fail(stream, f"unknown sync request {ident!r}")
            return


def _list(stream: Stream, fs: FileSystem, path: str) -> None:
    for name, (mode, size, mtime) in fs.listdir(path) or []:
        raw = name.encode()
        stream.write(b"DENT" + struct.pack("<IIII", mode, size, mtime, len(raw)) + raw)
    stream.write(b"DONE" + bytes(16))


def _send_file(stream: Stream, fs: FileSystem, path: str) -> None:
    data = fs.read(path)
    if data is None:
        _fail(stream, f"remote object '{path}' does not exist")
        return
    for i in range(0, len(data), CHUNK):
        chunk = data[i : i + CHUNK]
        stream.write(FRAME.pack(b"DATA", len(chunk)) + chunk)
    stream.write(FRAME.pack(b"DONE", 0))


def _receive_file(stream: Stream, reader: _Reader, fs: FileSystem, spec: str) -> bool:
    path, _, mode_text = spec.rpartition(",")
    try:
        mode = int(mode_text) if path else 0o644
    except ValueError:
        mode = 0o644
    path = path or spec
    parts: list[bytes] = []
    size = 0
    while True:
        head = reader.take(FRAME.size)
        if head is None:
            return False
        ident, length = FRAME.unpack(head)
        if ident == b"DONE":
            fs.write(path, b"".join(parts), mode, mtime=length)
            stream.write(FRAME.pack(b"OKAY", 0))
            return True
        if ident != b"DATA" or length > CHUNK or size + length > MAX_FILE:
            _fail(stream, f"bad push of {path}: expected DATA chunks up to {CHUNK} bytes, {MAX_FILE} in all")
            return False
        chunk = reader.take(length)
        if chunk is None:
            return False
        parts.append(chunk)
        size += length


def _fail(stream: Stream, message: str) -> None:
    raw = message.encode()
    stream.write(FRAME.pack(b"FAIL", len(raw)) + raw)
