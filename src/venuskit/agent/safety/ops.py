"""Declared consequential operations: "a POST to /bank/transfer/confirm is a transfer", in a TOML file.

The world ships its declarations (`venuskit/world/operations.toml`, loaded by whoever runs world tasks:
the agent does not import the world); a user declares their own site's with
`venus run --consequential FILE`. A declaration is the most precise rule the gate has: it names the effect of
a form submission by where it goes, whatever the button says. A `[[safe]]` table declares a look-alike the
site vouches for (add to cart, save a draft): the gate lets it through without asking, on a trusted origin only.
"""

from __future__ import annotations

import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

METHODS = ("get", "post", "dialog")
_FIELD_RE = re.compile(r"\{(\w+)\}")


class OperationsFileError(ValueError):
    """A declarations file that cannot be used; the message names the file, the entry and the field."""


@dataclass(frozen=True)
class Operation:
    kind: str  # e.g. bank.transfer
    method: str  # get | post | dialog
    path: re.Pattern[str]  # over the path of the form action (or link)
    fields: tuple[tuple[str, re.Pattern[str]], ...] = ()  # every field's submitted value must match
    host: re.Pattern[str] | None = None  # over host:port; None: any
    summary: str = ""
    consequential: bool = True  # False: a [[safe]] declaration (a look-alike the site vouches for)

    def matches(self, method: str, url: str, values: dict[str, str]) -> bool:
        parts = urlsplit(url)
        if method != self.method or not self.path.search(parts.path):
            return False
        if self.host is not None and not self.host.search(parts.netloc):
            return False
        return all(pattern.search(values.get(name, "")) for name, pattern in self.fields)

    def describe(self, values: dict[str, str]) -> str:
        """The summary with {field} filled from the submitted values (missing ones stay as '?')."""
        text = self.summary or self.kind
        return _FIELD_RE.sub(lambda m: _short(values.get(m.group(1), "?")), text)


@dataclass(frozen=True)
class Operations:
    """An ordered set of declarations; the first that matches wins."""

    ops: tuple[Operation, ...] = ()
    sources: tuple[str, ...] = field(default=())

    def match(self, method: str, url: str, values: dict[str, str]) -> Operation | None:
        """The first declaration the submission matches; consequential ones are tried before safe ones."""
        ordered = sorted(self.ops, key=lambda op: not op.consequential)
        return next((op for op in ordered if op.matches(method, url, values)), None)

    def __add__(self, other: Operations) -> Operations:
        return Operations(self.ops + other.ops, self.sources + other.sources)

    @property
    def kinds(self) -> tuple[str, ...]:
        """The consequential kinds declared."""
        return tuple(dict.fromkeys(op.kind for op in self.ops if op.consequential))


def _short(value: str, limit: int = 60) -> str:
    value = " ".join(value.split())
    return value if len(value) <= limit else value[: limit - 1] + "…"


def _compile(raw: Any, where: str) -> re.Pattern[str]:
    if not isinstance(raw, str):
        raise OperationsFileError(f"{where}: must be a regular expression string, got {type(raw).__name__}.")
    try:
        return re.compile(raw)
    except re.error as e:
        raise OperationsFileError(f"{where}: not a valid regular expression ({e}).") from e


def _operation(raw: Any, where: str, consequential: bool = True) -> Operation:
    if not isinstance(raw, dict):
        raise OperationsFileError(f"{where}: must be a table with kind, method and path.")
    unknown = set(raw) - {"kind", "method", "path", "fields", "host", "summary"}
    if unknown:
        raise OperationsFileError(f"{where}: unknown field {sorted(unknown)[0]!r}; an op has kind, method, path, "
                                  "fields, host and summary.")  # fmt: skip
    kind = raw.get("kind")
    if not isinstance(kind, str) or not re.fullmatch(r"[a-z0-9_]+(\.[a-z0-9_]+)*", kind):
        raise OperationsFileError(f"{where}.kind: must be a dotted lower-case name like 'bank.transfer'.")
    method = str(raw.get("method", "post")).lower()
    if method not in METHODS:
        raise OperationsFileError(f"{where}.method: must be one of {', '.join(METHODS)}, got {method!r}.")
    if "path" not in raw:
        raise OperationsFileError(f"{where}.path: is required (a regular expression over the URL path).")
    fields = raw.get("fields", {})
    if not isinstance(fields, dict):
        raise OperationsFileError(f"{where}.fields: must be a table of field name = regular expression.")
    return Operation(
        kind=kind, method=method, path=_compile(raw["path"], f"{where}.path"),
        fields=tuple((str(k), _compile(v, f"{where}.fields.{k}")) for k, v in fields.items()),
        host=_compile(raw["host"], f"{where}.host") if "host" in raw else None, summary=str(raw.get("summary", "")),
        consequential=consequential,
    )  # fmt: skip


def load_operations(path: Path | str) -> Operations:
    """Read a declarations file ([[op]] tables). Raises OperationsFileError naming what is wrong."""
    path = Path(path)
    try:
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise OperationsFileError(f"{path}: cannot be read ({e.strerror or e}).") from e
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise OperationsFileError(f"{path}: not valid TOML: {e}") from e
    ops, safe = doc.get("op", []), doc.get("safe", [])
    if not isinstance(ops, list) or not isinstance(safe, list) or not (ops or safe):
        raise OperationsFileError(f"{path}: no [[op]] or [[safe]] tables; declare each operation as one.")
    unknown = set(doc) - {"op", "safe"}
    if unknown:
        raise OperationsFileError(f"{path}: unknown table {sorted(unknown)[0]!r}; a file holds [[op]] and [[safe]].")
    declared = [_operation(r, f"{path}: op[{i}]") for i, r in enumerate(ops)]
    declared += [_operation(r, f"{path}: safe[{i}]", consequential=False) for i, r in enumerate(safe)]
    return Operations(tuple(declared), (str(path),))

