"""Executable checks over a world episode's state. Task files name them; each returns True or False.

A check reads state through `CheckContext.state` (the world's state API, in the harness process) and,
for question tasks, the agent's final answer. Arguments arrive already formatted with the task's
parameters. Add a check with `@check("name", "arg", ...)`; task validation uses the declared names.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from venuskit.world.state import EpisodeState


@dataclass(frozen=True)
class CheckContext:
    state: EpisodeState
    answer: str | None = None  # content of the agent's final Finished / Answer / CallUser
    end_reason: str | None = None  # the episode outcome reason (finished, call_user, step_limit, ...)


CheckFn = Callable[..., bool]
CHECKS: dict[str, tuple[CheckFn, frozenset[str]]] = {}


def check(name: str, *args: str) -> Callable[[CheckFn], CheckFn]:
    def deco(fn: CheckFn) -> CheckFn:
        CHECKS[name] = (fn, frozenset(args))
        return fn

    return deco


def run_check(name: str, ctx: CheckContext, args: dict[str, Any]) -> bool:
    fn, _ = CHECKS[name]
    return bool(fn(ctx, **args))


def _has(haystack: str | None, needle: str | None) -> bool:
    return needle is None or needle.casefold() in (haystack or "").casefold()


def _cents(amount: Any) -> int:
    return round(float(str(amount).replace(",", "")) * 100)


# ---- mail ----


def _mails(ctx: CheckContext, folder: str | None, subject: str | None) -> list[dict[str, Any]]:
    sql, params = "SELECT * FROM mails WHERE 1", []
    if folder:
        sql, params = sql + " AND folder = ?", params + [folder]
    rows = ctx.state.rows(sql, params)
    return [m for m in rows if subject is None or m["subject"] == subject]


def _atts(ctx: CheckContext, mail_id: int) -> list[str]:
    return [a["name"] for a in ctx.state.rows("SELECT name FROM attachments WHERE mail_id = ?", (mail_id,))]


@check("mail.sent", "to", "cc", "subject", "subject_contains", "body_contains", "reply_to_subject",
       "forward_of_subject", "attachment", "folder")  # fmt: skip
def mail_sent(ctx, to=None, cc=None, subject=None, subject_contains=None, body_contains=None, reply_to_subject=None,
              forward_of_subject=None, attachment=None, folder="sent") -> bool:  # fmt: skip
    for m in _mails(ctx, folder, subject):
        if not (_has(m["recipients"], to) and _has(m["cc"], cc) and _has(m["subject"], subject_contains)
                and _has(m["body"], body_contains)):  # fmt: skip
            continue
        if reply_to_subject is not None and not _links_to(ctx, m["reply_to"], reply_to_subject):
            continue
        if forward_of_subject is not None and not _links_to(ctx, m["forward_of"], forward_of_subject):
            continue
        if attachment is not None and not any(_has(n, attachment) for n in _atts(ctx, m["id"])):
            continue
        return True
    return False


def _links_to(ctx: CheckContext, mail_id: int | None, subject: str) -> bool:
    if mail_id is None:
        return False
    orig = ctx.state.one("SELECT subject FROM mails WHERE id = ?", (mail_id,))
    return orig is not None and orig["subject"] == subject


@check("mail.mentions_report", "to", "status")
def mail_mentions_report(ctx, to=None, status="SUBMITTED") -> bool:
    """A sent mail (to `to`) quotes the number of a report the agent filed in FinPortal with `status`."""
    codes = [r["code"] for r in ctx.state.rows("SELECT code FROM expense_reports WHERE id > 3 AND status = ?",
                                               (status,))]  # fmt: skip
    return any(_has(m["recipients"], to) and any(c in m["body"] for c in codes) for m in _mails(ctx, "sent", None))


@check("mail.opened", "subject")
def mail_opened(ctx, subject) -> bool:
    return any(m["unread"] == 0 for m in _mails(ctx, None, subject))


@check("mail.in_folder", "subject", "folder")
def mail_in_folder(ctx, subject, folder) -> bool:
    return bool(_mails(ctx, folder, subject))


@check("mail.exists", "subject")
def mail_exists(ctx, subject) -> bool:
    return bool(_mails(ctx, None, subject))


@check("mail.absent", "subject")
def mail_absent(ctx, subject) -> bool:
    return not _mails(ctx, None, subject)


@check("mail.starred", "subject", "value")
def mail_starred(ctx, subject, value=True) -> bool:
    found = _mails(ctx, None, subject)
    return bool(found) and all(bool(m["starred"]) == bool(value) for m in found)


@check("mail.unread", "subject")
def mail_unread(ctx, subject) -> bool:
    found = _mails(ctx, None, subject)
    return bool(found) and all(m["unread"] == 1 for m in found)


# ---- drive ----


def _files(ctx: CheckContext, name: str | None, name_contains: str | None, trashed: bool | None) -> list[dict]:
    rows = ctx.state.rows("SELECT f.*, d.body, d.kind FROM files f JOIN docs d ON d.id = f.doc_id")
    return [f for f in rows if (name is None or f["name"] == name) and _has(f["name"], name_contains)
            and (trashed is None or bool(f["trashed"]) == trashed)]  # fmt: skip


@check("drive.file", "name", "name_contains", "source", "trashed", "kind")
def drive_file(ctx, name=None, name_contains=None, source=None, trashed=False, kind=None) -> bool:
    return any((source is None or f["source"] == source) and (kind is None or f["kind"] == kind)
               for f in _files(ctx, name, name_contains, trashed))  # fmt: skip


@check("drive.no_file", "name", "name_contains")
def drive_no_file(ctx, name=None, name_contains=None) -> bool:
    return not _files(ctx, name, name_contains, False)


@check("drive.doc_contains", "name", "name_contains", "text")
def drive_doc_contains(ctx, text, name=None, name_contains=None) -> bool:
    return any(_has(json.loads(f["body"]).get("text", ""), text) for f in _files(ctx, name, name_contains, False))


@check("drive.cell", "name", "name_contains", "cell", "value")
def drive_cell(ctx, cell, value, name=None, name_contains=None) -> bool:
    col, row = ord(cell[0].upper()) - ord("A"), int(cell[1:]) - 1
    for f in _files(ctx, name, name_contains, False):
        cells = json.loads(f["body"]).get("cells", [])
        if row < len(cells) and col < len(cells[row]) and cells[row][col].strip() == str(value):
            return True
    return False


# ---- calendar ----


@check("cal.event", "title", "title_contains", "date", "start", "end", "location_contains", "attendees_contains",
       "status")  # fmt: skip
def cal_event(ctx, title=None, title_contains=None, date=None, start=None, end=None, location_contains=None,
              attendees_contains=None, status=None) -> bool:  # fmt: skip
    for e in ctx.state.rows("SELECT * FROM events"):
        when = _eq(e["start"][:10], date) and _eq(e["start"][11:16], start) and _eq(e["end"][11:16], end)
        text = _has(e["title"], title_contains) and _has(e["location"], location_contains)
        if (
            when
            and text
            and _eq(e["title"], title)
            and _has(e["attendees"], attendees_contains)
            and _eq(e["status"], status)
        ):
            return True
    return False


def _eq(actual: Any, want: Any) -> bool:
    return want is None or actual == want


@check("cal.no_event", "title")
def cal_no_event(ctx, title) -> bool:
    return not ctx.state.rows("SELECT id FROM events WHERE title = ?", (title,))


# ---- bank ----


@check("bank.transfer", "payee", "iban", "amount", "memo_contains")
def bank_transfer(ctx, payee=None, iban=None, amount=None, memo_contains=None) -> bool:
    for t in ctx.state.rows("SELECT * FROM transfers"):
        if ((payee is None or t["payee"].casefold() == payee.casefold())
                and (iban is None or t["iban"].replace(" ", "") == iban.replace(" ", ""))
                and (amount is None or t["amount"] == _cents(amount)) and _has(t["memo"], memo_contains)):  # fmt: skip
            return True
    return False


@check("bank.no_transfer", "payee")
def bank_no_transfer(ctx, payee=None) -> bool:
    return not any(payee is None or t["payee"].casefold() == payee.casefold()
                   for t in ctx.state.rows("SELECT payee FROM transfers"))  # fmt: skip


# ---- expense portal ----


@check("expense.report", "purpose_contains", "cost_center", "status", "trip_from", "trip_to", "approver",
       "receipt_contains", "category", "amount", "currency", "min_lines")  # fmt: skip
def expense_report(ctx, purpose_contains=None, cost_center=None, status=None, trip_from=None, trip_to=None,
                   approver=None, receipt_contains=None, category=None, amount=None, currency=None,
                   min_lines=None) -> bool:  # fmt: skip
    s = ctx.state
    for r in s.rows("SELECT * FROM expense_reports WHERE id > 3"):  # the three seeded reports are history
        header = (r["cost_center"], r["status"], r["trip_from"], r["trip_to"], r["approver"])
        wanted = (cost_center, status, trip_from, trip_to, approver)
        if not _has(r["purpose"], purpose_contains) or not all(_eq(h, w) for h, w in zip(header, wanted, strict=True)):
            continue
        if receipt_contains is not None:
            f = s.one("SELECT name FROM files WHERE id = ?", (r["receipt_file_id"] or 0,))
            if f is None or not _has(f["name"], receipt_contains):
                continue
        lines = s.rows("SELECT * FROM expense_lines WHERE report_id = ?", (r["id"],))
        if min_lines is not None and len(lines) < int(min_lines):
            continue
        if (category or amount or currency) and not any(
            (category is None or ln["category"] == category) and (amount is None or ln["amount"] == _cents(amount))
            and (currency is None or ln["currency"] == currency) for ln in lines):  # fmt: skip
            continue
        return True
    return False


# ---- settings, the action log, answers ----


@check("settings.meta", "key", "value")
def settings_meta(ctx, key, value) -> bool:
    return ctx.state.meta.get(key) == str(value)


@check("log.has", "kind")
def log_has(ctx, kind) -> bool:
    return bool(ctx.state.actions(kind))


@check("answer.contains", "text", "one_of")
def answer_contains(ctx, text=None, one_of=None) -> bool:
    """The agent ended with Finished/Answer whose text holds `text` (and one of `one_of`); commas and case
    are ignored so "1,234.50" matches "1234.50"."""
    if ctx.end_reason not in ("finished", "answer"):
        return False
    answer = _norm(ctx.answer or "")
    if text is not None and _norm(text) not in answer:
        return False
    return one_of is None or any(_norm(o) in answer for o in one_of)


@check("answer.balance", "account")
def answer_balance(ctx, account) -> bool:
    """The answer states the named account's balance as it is now (e.g. 12,345.67 or 12345.67)."""
    acct = ctx.state.one("SELECT balance FROM accounts WHERE name = ?", (account,))
    if acct is None or ctx.end_reason not in ("finished", "answer"):
        return False
    units, cents = divmod(abs(acct["balance"]), 100)
    return f"{units}.{cents:02d}" in _norm(ctx.answer or "")


def _norm(s: str) -> str:
    return s.replace(",", "").replace("，", "").casefold()
