"""Home-folder snapshots: a task instance's files written once into a folder that every reset copies from.

Snapshots are built on first use and kept for the life of the process in one temporary folder (tmpfs when there
is one), keyed by a digest of what they hold, so many episodes of one instance pay the build (ssconvert for
spreadsheets, PIL for images) once.
"""

from __future__ import annotations

import atexit
import csv
import hashlib
import io
import json
import os
import shutil
import subprocess
import tempfile
import threading
from pathlib import Path
from typing import Any

from PIL import Image, ImageDraw, ImageFont

MAX_IMAGE_SIDE = 4096  # a task file is data from outside: it may not ask for a gigapixel picture
_lock = threading.Lock()
_root: Path | None = None


class SnapshotError(RuntimeError):
    """A task's files could not be written (ssconvert failed, a bad image spec)."""


def snapshot_for(files: tuple[dict[str, Any], ...]) -> Path:
    """The folder holding `files` (built now if this process has not built it yet)."""
    key = hashlib.sha256(json.dumps(files, sort_keys=True, ensure_ascii=False).encode()).hexdigest()[:16]
    with _lock:
        folder = _base() / key
        if not folder.is_dir():
            tmp = _base() / f".{key}.tmp"
            shutil.rmtree(tmp, ignore_errors=True)
            tmp.mkdir()
            for f in files:
                _write(tmp, f)
            tmp.rename(folder)
    return folder


def _base() -> Path:
    global _root
    if _root is None:
        parent = "/dev/shm" if os.access("/dev/shm", os.W_OK) else None
        _root = Path(tempfile.mkdtemp(prefix="venuskit-snapshots-", dir=parent))
        atexit.register(shutil.rmtree, _root, True)
    return _root


def _write(root: Path, f: dict[str, Any]) -> None:
    path = root / f["path"]
    path.parent.mkdir(parents=True, exist_ok=True)
    if "dir" in f:
        path.mkdir(exist_ok=True)
    elif "text" in f:
        path.write_text(f["text"], encoding="utf-8")
    elif "bytes_hex" in f:
        path.write_bytes(bytes.fromhex(f["bytes_hex"]))
    elif "csv" in f:
        path.write_text(_csv(f["csv"]), encoding="utf-8")
    elif "sheet" in f:
        _sheet(path, f["sheet"])
    elif "image" in f:
        _image(path, f["image"])
    if "mode" in f:
        os.chmod(path, int(str(f["mode"]), 8))


def _csv(rows: list[list[Any]]) -> str:
    buf = io.StringIO()
    csv.writer(buf, lineterminator="\n").writerows(rows)
    return buf.getvalue()


def _sheet(path: Path, sheets: list[list[Any]] | dict[str, list[list[Any]]]) -> None:
    """A workbook in the format of `path`'s extension, written by Gnumeric's ssconvert: each sheet goes through a
    CSV file named after the sheet (Gnumeric names an imported sheet after its file); several sheets are merged."""
    named = sheets if isinstance(sheets, dict) else {"Sheet1": sheets}
    with tempfile.TemporaryDirectory(prefix="venuskit-sheet-") as tmp:
        parts = []
        for name, rows in named.items():
            part = Path(tmp) / name
            part.write_text(_csv(rows), encoding="utf-8")
            parts.append(str(part))
        merge = ["--merge-to", str(path)] if len(parts) > 1 else []
        args = ["ssconvert", "--import-type=Gnumeric_stf:stf_csvtab", *merge, *parts, *([] if merge else [str(path)])]
        try:
            done = subprocess.run(args, capture_output=True, timeout=60, check=False)
        except FileNotFoundError as e:
            raise SnapshotError("ssconvert (Debian package gnumeric) is not installed; run scripts/setup.sh.") from e
        if done.returncode != 0 or not path.is_file():
            why = done.stderr.decode(errors="replace")[-300:]
            raise SnapshotError(f"ssconvert could not write {path.name}: {why}")


def _image(path: Path, spec: dict[str, Any]) -> None:
    """A picture: a background colour, optionally a caption (big enough to read in a screenshot)."""
    try:
        size = (int(spec.get("width", 320)), int(spec.get("height", 240)))
        if not all(1 <= v <= MAX_IMAGE_SIDE for v in size):
            raise ValueError(f"each side must be 1..{MAX_IMAGE_SIDE} pixels")
        img = Image.new("RGB", size, tuple(spec.get("color", (200, 200, 200))))
        if spec.get("text"):
            draw = ImageDraw.Draw(img)
            font = _font(max(12, size[1] // 8))
            draw.text((size[0] // 10, size[1] // 3), str(spec["text"]), fill=(255, 255, 255), font=font)
        img.save(path)
    except (ValueError, TypeError, OSError) as e:
        raise SnapshotError(f"Cannot draw the image {path.name} from {spec}: {e}") from e


# Fonts that draw Chinese as well as Latin captions (Debian's fonts-noto-cjk), then Latin only.
_FONTS = ("/usr/share/fonts/opentype/noto/NotoSansCJK-Regular.ttc", "/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf")


def _font(size: int) -> ImageFont.FreeTypeFont | ImageFont.ImageFont:
    for path in _FONTS:
        if os.path.exists(path):
            return ImageFont.truetype(path, size)
    return ImageFont.load_default(size=size)
