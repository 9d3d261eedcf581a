"""Where an env's reset or step spends its time: some of its own methods timed on one instance (the benchmarks'
instrument; the class and every other instance are untouched)."""

from __future__ import annotations

import time
from typing import Any


class PartTimer:
    """`ms[part]`: milliseconds spent in the wrapped methods since the last `clear()` (calls add up)."""

    def __init__(self, obj: Any, parts: dict[str, str]) -> None:
        self.ms: dict[str, float] = {}
        for method, part in parts.items():
            setattr(obj, method, self._timed(getattr(obj, method), part))

    def clear(self) -> None:
        self.ms = {}

    def _timed(self, fn: Any, part: str) -> Any:
        def run(*args: Any, **kwargs: Any) -> Any:
            t = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                self.ms[part] = self.ms.get(part, 0.0) + (time.perf_counter() - t) * 1000

        return run
