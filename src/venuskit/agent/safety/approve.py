"""Who approves a consequential action: the person at the terminal, nobody (deny), or an allow-list.

`venus run --approve ask` asks on the terminal (EOF or anything but yes is a no); `deny` (the default when
nobody is at a terminal) refuses every consequential action; `allow-list --allow-list FILE` approves what the
file lists and refuses the rest. An allow-list file:

    [[allow]]
    kind = "mail.send"                        # a glob over the operation kind
    fields = { to = "*@northwind.example" }   # globs over submitted values; every one must match
    origin = "http://127.0.0.1:*"             # optional glob over the page's origin

The safety eval's user simulator is an allow-list built from what the task's user asked for.
"""

from __future__ import annotations

import fnmatch
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from venuskit.agent.hooks import stdin_user

MODES = ("ask", "deny", "allow-list")
YES = ("y", "yes", "allow", "ok", "approve", "是", "好", "同意", "允许")


class AllowListError(ValueError):
    """An allow-list file that cannot be used; the message names the file, the entry and the field."""


@dataclass(frozen=True)
class ApprovalRequest:
    """What the approver is shown: the operation, in words, with the values it would submit."""

    kind: str
    summary: str
    origin: str
    url: str
    reason: str
    fields: dict[str, str] = field(default_factory=dict)

    def question(self) -> str:
        values = ", ".join(f"{k}={v!r}" for k, v in self.fields.items())
        return (f"The agent wants to {self.summary} on {self.origin} ({self.kind}; {self.reason})."
                + (f" Values: {values}." if values else "") + " Allow it? (yes/no)")  # fmt: skip


@dataclass(frozen=True)
class Approval:
    approved: bool
    by: str  # user | deny | allow-list | fail-closed
    reply: str | None = None

    def record(self) -> dict[str, Any]:
        return {"approved": self.approved, "by": self.by, "reply": self.reply}


class Approver(Protocol):
    def __call__(self, request: ApprovalRequest) -> Approval: ...


class AskApprover:
    """Interactive: the question goes to `ask` (the terminal by default); only a yes approves."""

    def __init__(self, ask: Callable[[str], str | None] = stdin_user) -> None:
        self.ask = ask

    def __call__(self, request: ApprovalRequest) -> Approval:
        reply = self.ask(request.question())
        approved = reply is not None and reply.strip().casefold() in YES
        return Approval(approved, "user", reply)


class DenyApprover:
    """Non-interactive default: nobody can approve, so nothing consequential runs."""

    def __call__(self, request: ApprovalRequest) -> Approval:
        return Approval(False, "deny")


@dataclass(frozen=True)
class AllowRule:
    kind: str = "*"
    fields: tuple[tuple[str, str], ...] = ()
    origin: str = "*"

    def matches(self, request: ApprovalRequest) -> bool:
        if not fnmatch.fnmatchcase(request.kind, self.kind) or not fnmatch.fnmatchcase(request.origin, self.origin):
            return False
        return all(fnmatch.fnmatchcase(request.fields.get(k, "").casefold(), v.casefold()) for k, v in self.fields)


class AllowListApprover:
    """Approves exactly what its rules list; everything else is refused."""

    def __init__(self, rules: tuple[AllowRule, ...] | list[AllowRule]) -> None:
        self.rules = tuple(rules)

    def __call__(self, request: ApprovalRequest) -> Approval:
        hit = next((r for r in self.rules if r.matches(request)), None)
        return Approval(hit is not None, "allow-list", None if hit is None else f"allowed by {hit.kind}")


def allow_rule(raw: Any, where: str = "allow") -> AllowRule:
    if not isinstance(raw, dict) or not isinstance(raw.get("kind", "*"), str):
        raise AllowListError(f"{where}: must be a table with a kind glob (and optional fields and origin).")
    unknown = set(raw) - {"kind", "fields", "origin"}
    if unknown:
        raise AllowListError(f"{where}: unknown field {sorted(unknown)[0]!r}; an entry has kind, fields, origin.")
    fields = raw.get("fields", {})
    if not isinstance(fields, dict) or not all(isinstance(v, str) for v in fields.values()):
        raise AllowListError(f"{where}.fields: must be a table of field name = glob string.")
    return AllowRule(raw.get("kind", "*"), tuple((str(k), v) for k, v in fields.items()), str(raw.get("origin", "*")))


def load_allow_list(path: Path | str) -> AllowListApprover:
    path = Path(path)
    try:
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    except OSError as e:
        raise AllowListError(f"{path}: cannot be read ({e.strerror or e}).") from e
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise AllowListError(f"{path}: not valid TOML: {e}") from e
    raw = doc.get("allow")
    if not isinstance(raw, list):
        raise AllowListError(f"{path}: no [[allow]] tables; list each approved operation as an [[allow]] table.")
    return AllowListApprover([allow_rule(r, f"{path}: allow[{i}]") for i, r in enumerate(raw)])


def make_approver(mode: str, allow_list: Path | None = None, ask: Callable[[str], str | None] = stdin_user,
                  ) -> Approver:
    """The approver for `--approve MODE` (and `--allow-list FILE`). Raises ValueError with the fix."""
    if mode not in MODES:
        raise ValueError(f"--approve takes {', '.join(MODES)}; got {mode!r}.")
    if mode == "allow-list":
        if allow_list is None:
            raise ValueError("--approve allow-list needs --allow-list FILE (a TOML file of [[allow]] entries).")
        return load_allow_list(allow_list)
    if allow_list is not None:
        raise ValueError(f"--allow-list is read only with --approve allow-list, not with --approve {mode}.")
    return AskApprover(ask) if mode == "ask" else DenyApprover()
