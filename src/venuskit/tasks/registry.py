"""One check-registry mechanism for every surface: each surface keeps its own table of named checks.

A check is a pure predicate over a surface's context (the world's `CheckContext`, the desktop's
`DesktopContext`) and keyword arguments that arrive already formatted with the task's parameters:

    WORLD = Checks("world")

    @WORLD.check("mail.sent", "to", "subject")
    def mail_sent(ctx, to=None, subject=None) -> bool: ...

Task files name checks; the loader validates names and argument names through `problem`, the contract runs them
through `run`. A table is a read-only mapping name -> (function, argument names), so `name in table` and
`table[name][1]` work as they did on the plain dicts it replaces.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import Any

CheckFn = Callable[..., bool]


class Checks(Mapping[str, tuple[CheckFn, frozenset[str]]]):
    """The named checks of one surface."""

    def __init__(self, surface: str) -> None:
        self.surface = surface
        self._table: dict[str, tuple[CheckFn, frozenset[str]]] = {}

    def check(self, name: str, *args: str) -> Callable[[CheckFn], CheckFn]:
        """Register `fn` under `name`, taking the keyword arguments `args` (a second definition is a bug)."""

        def deco(fn: CheckFn) -> CheckFn:
            if name in self._table:
                raise ValueError(f"{self.surface} check {name!r} is defined twice")
            self._table[name] = (fn, frozenset(args))
            return fn

        return deco

    def run(self, name: str, ctx: Any, args: dict[str, Any]) -> bool:
        fn, _ = self._table[name]
        return bool(fn(ctx, **args))

    def problem(self, name: Any, args: dict[str, Any]) -> tuple[str, str] | None:
        """(field suffix, reason) when `name` with `args` cannot run; None when it can (for file validation)."""
        if name not in self._table:
            return "check", f"unknown check {name!r}; known checks: {', '.join(sorted(self._table))}"
        extra = set(args) - self._table[name][1]
        if extra:
            takes = ", ".join(sorted(self._table[name][1])) or "none"
            return "args", f"check {name!r} takes no argument {sorted(extra)[0]!r}; it takes {takes}"
        return None

    def __getitem__(self, name: str) -> tuple[CheckFn, frozenset[str]]:
        return self._table[name]

    def __iter__(self) -> Iterator[str]:
        return iter(self._table)

    def __len__(self) -> int:
        return len(self._table)
