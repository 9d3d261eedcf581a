"""Episodes in other projects' on-disk layouts: AndroidControl (gzip TFRecord of tf.train.Example episodes) and
GUI-Odyssey (one JSON per episode plus screenshots), read and written without TensorFlow."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from venuskit.record.store import find_episode_dirs

OFFLINE_FORMATS = ("androidcontrol", "guiodyssey")


def export_offline(fmt: str, runs: str | Path, out: str | Path) -> dict[str, Any]:
    """`venus export androidcontrol|guiodyssey RUNS --out PATH`."""
    if fmt not in OFFLINE_FORMATS:
        raise ValueError(f"Unknown offline format {fmt!r}; use {' or '.join(OFFLINE_FORMATS)}.")
    dirs = find_episode_dirs(runs)
    if not dirs:
        raise FileNotFoundError(f"No episode folders under {runs}.")
    if fmt == "androidcontrol":
        from venuskit.record.formats.androidcontrol import write_androidcontrol as write
    else:
        from venuskit.record.formats.guiodyssey import write_guiodyssey as write
    return {"format": fmt, "out": str(out), **write(dirs, out)}
