"""What provenance tests look for: absolute paths of the machine that wrote a card, a checkpoint or a manifest."""

from __future__ import annotations

import re
from typing import Any

# An absolute POSIX path (/tmp/x, /home/u/…, /work/…) or a Windows drive path, where a path can start: at the
# start of a string, after a space, a quote, a bracket or '='. "a / b", "64/2" and URLs (http://…) are no paths.
_ABSOLUTE = re.compile(r"(?:^|[\s\"'`(\[=])(/[\w.~-]+(?:/[\w.~-]*)*|[A-Za-z]:\\[^\s\"']*)")


def absolute_paths(value: Any) -> list[str]:
    """Every absolute path in `value`: a string, or the strings anywhere inside dicts and lists (keys too)."""
    if isinstance(value, str):
        return [m.group(1) for m in _ABSOLUTE.finditer(value)]
    if isinstance(value, dict):
        return [p for k, v in value.items() for p in absolute_paths(k) + absolute_paths(v)]
    if isinstance(value, (list, tuple)):
        return [p for v in value for p in absolute_paths(v)]
    return []
