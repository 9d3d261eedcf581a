"""Setup operations: the rows a task puts on top of the background world (and interrupts inject later).

Each op is a dict from the task file, e.g. {op = "mail", from = "...", subject = "...", attachments = [...]},
already formatted with the task's parameters. `OPS` lists every op and its accepted fields, which the
task loader validates before anything runs.
"""

from __future__ import annotations

import datetime as dt
import json
from collections.abc import Callable
from typing import Any

from venuskit.world.state import EpisodeState

OPS: dict[str, frozenset[str]] = {
    "mail": frozenset({"folder", "from_name", "from", "to", "cc", "subject", "body", "unread", "starred",
                       "minutes_ago", "days_ago", "attachments", "live"}),
    "file": frozenset({"name", "folder", "kind", "text", "cells", "pages", "receipt", "days_ago", "trashed",
                       "starred"}),
    "event": frozenset({"title", "date", "start", "end", "location", "attendees", "notes", "status", "organizer"}),
    "txn": frozenset({"account", "date", "days_ago", "description", "category", "amount", "ref"}),
    "payee": frozenset({"name", "iban"}),
    "meta": frozenset({"key", "value"}),
}  # fmt: skip
DOC_FIELDS = frozenset({"name", "kind", "text", "cells", "pages", "receipt"})


def apply(state: EpisodeState, op: dict[str, Any], live: bool = False) -> int:
    """Apply one op; returns the new row id. `live` (interrupts) stamps records with the current clock."""
    return _APPLY[op["op"]](state, op, live)


def _stamp(state: EpisodeState, op: dict[str, Any], live: bool) -> str:
    if live:
        return state.now()
    now = dt.datetime.fromisoformat(state.meta["now"])
    when = now - dt.timedelta(days=int(op.get("days_ago", 0)), minutes=int(op.get("minutes_ago", 5)))
    return when.isoformat(timespec="minutes")


def receipt_pages(r: dict[str, Any]) -> list[list[dict[str, Any]]]:
    """A till receipt as one viewer page: shop, address, lines, total, payment, reference."""
    cur = r.get("currency", "EUR")
    page: list[dict[str, Any]] = [{"rh": r["merchant"]}, {"rs": r.get("address", "")}, {"rs": r.get("date", "")}]
    page += [{"rl": [label, f"{amount} {cur}"]} for label, amount in r.get("lines", [])]
    page.append({"rt": [r.get("total_label", "TOTAL"), f"{r['total']} {cur}"]})
    page += [{"rl": [r.get("paid_label", "Paid by card"), r.get("card", "VISA ****4821")]},
             {"rf": r.get("footer", f"Ref. {r.get('ref', '')}")}]  # fmt: skip
    return [page]


def doc_body(spec: dict[str, Any]) -> tuple[str, dict[str, Any]]:
    kind = spec.get("kind") or ("pdf" if "pages" in spec or "receipt" in spec else "doc")
    if "receipt" in spec:
        return "pdf", {"pages": receipt_pages(spec["receipt"]), "style": "receipt"}
    if kind == "pdf":
        return "pdf", {"pages": spec.get("pages", [[{"p": spec.get("text", "")}]]), "style": "doc"}
    if kind == "sheet":
        return "sheet", {"cells": spec.get("cells", [])}
    return "doc", {"text": spec.get("text", "")}


def _add_doc(state: EpisodeState, spec: dict[str, Any]) -> tuple[int, int]:
    kind, body = doc_body(spec)
    text = json.dumps(body, ensure_ascii=False)
    return state.insert("docs", kind=kind, title=spec["name"], body=text), 18 * 1024 + len(text) * 7


def _mail(state: EpisodeState, op: dict[str, Any], live: bool) -> int:
    user = state.user()
    mid = state.insert(
        "mails", folder=op.get("folder", "inbox"), sender_name=op.get("from_name", op.get("from", "")),
        sender=op.get("from", ""), recipients=op.get("to", user["email"]), cc=op.get("cc", ""),
        subject=op.get("subject", ""), body=op.get("body", ""),
        sent_at=_stamp(state, op, live or op.get("live", False)),
        unread=int(op.get("unread", True)), starred=int(op.get("starred", False)),
    )  # fmt: skip
    for att in op.get("attachments", []):
        doc, size = _add_doc(state, att)
        state.insert("attachments", mail_id=mid, name=att["name"], doc_id=doc, size=size)
    return mid


def _file(state: EpisodeState, op: dict[str, Any], live: bool) -> int:
    doc, size = _add_doc(state, op)
    modified = _stamp(state, {"minutes_ago": 60, **op}, live)
    return state.insert("files", name=op["name"], folder=op.get("folder", "My Drive"), doc_id=doc, size=size,
                        modified=modified, source="task", trashed=int(op.get("trashed", False)),
                        starred=int(op.get("starred", False)))  # fmt: skip


def _event(state: EpisodeState, op: dict[str, Any], live: bool) -> int:
    date = op.get("date") or state.today.isoformat()
    return state.insert("events", title=op["title"], start=f"{date}T{op.get('start', '10:00')}",
                        end=f"{date}T{op.get('end', '11:00')}", location=op.get("location", ""),
                        attendees=op.get("attendees", ""), notes=op.get("notes", ""),
                        status=op.get("status", "accepted"), organizer=op.get("organizer", ""))  # fmt: skip


def _txn(state: EpisodeState, op: dict[str, Any], live: bool) -> int:
    account = int(op.get("account", 1))
    date = op.get("date") or (state.today - dt.timedelta(days=int(op.get("days_ago", 1)))).isoformat()
    cents = round(float(str(op["amount"])) * 100)
    tid = state.insert("txns", account_id=account, posted=date, description=op["description"],
                       category=op.get("category", "Other"), amount=cents,
                       ref=op.get("ref", "TX90000001"))  # fmt: skip
    state.write("UPDATE accounts SET balance = balance + ? WHERE id = ?", (cents, account))
    return tid


def _payee(state: EpisodeState, op: dict[str, Any], live: bool) -> int:
    return state.insert("payees", name=op["name"], iban=op["iban"])


def _meta(state: EpisodeState, op: dict[str, Any], live: bool) -> int:
    state.set_meta(op["key"], str(op["value"]))
    return 0


_APPLY: dict[str, Callable[[EpisodeState, dict[str, Any], bool], int]] = {
    "mail": _mail, "file": _file, "event": _event, "txn": _txn, "payee": _payee, "meta": _meta,
}  # fmt: skip
