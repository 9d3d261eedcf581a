"""FinPortal: a deliberately legacy expense portal (dense tables, cryptic labels, a four-page form,
a required receipt attached from Drive, submit for approval). Always English, as such systems are."""

from __future__ import annotations

import datetime as dt
from typing import Any

from venuskit.world.data import EXPENSE_CODES
from venuskit.world.web import Ctx, Response, Router, not_found, parse_cents, redirect

COST_CENTERS = ("CC-4100", "CC-4200", "CC-4300", "CC-5100")
APPROVERS = ("M. Becker", "S. Rossi", "D. Kim")
CURRENCIES = ("EUR", "USD", "GBP", "CNY")
STEPS = ("1 Hdr", "2 Lines", "3 Rcpt Att.", "4 Rvw/Sbmt")


def register(router: Router) -> None:
    router.add("GET", "/expense/", home)
    router.add("GET", "/expense/new", new_form)
    router.add("POST", "/expense/new", create)
    router.add("GET", "/expense/r/{rid:int}", report)
    router.add("GET", "/expense/r/{rid:int}/lines", lines)
    router.add("POST", "/expense/r/{rid:int}/lines", add_line)
    router.add("GET", "/expense/r/{rid:int}/receipt", receipt)
    router.add("POST", "/expense/r/{rid:int}/receipt", attach)
    router.add("GET", "/expense/r/{rid:int}/review", review)
    router.add("POST", "/expense/r/{rid:int}/submit", submit)


def _page(ctx: Ctx, template: str, **kw: Any) -> Response:
    return ctx.render(template, app="expense", codes=EXPENSE_CODES, steps=STEPS, **kw)


def home(ctx: Ctx) -> Response:
    reports = ctx.state.rows("SELECT r.*, (SELECT COALESCE(SUM(amount), 0) FROM expense_lines l "
                             "WHERE l.report_id = r.id) AS total FROM expense_reports r "
                             "ORDER BY r.id DESC")  # fmt: skip
    return _page(ctx, "expense/home.html", reports=reports)


def new_form(ctx: Ctx) -> Response:
    return _page(ctx, "expense/header.html", ccs=COST_CENTERS, approvers=APPROVERS, err="", form={})


def _valid_date(s: str) -> bool:
    try:
        dt.date.fromisoformat(s)
    except ValueError:
        return False
    return True


def create(ctx: Ctx) -> Response:
    s, arg = ctx.state, ctx.req.arg
    form = {k: arg(k) for k in ("purpose", "cc", "from", "to", "approver")}
    err = ""
    if not form["purpose"] or form["cc"] not in COST_CENTERS or form["approver"] not in APPROVERS:
        err = "ERR-101: Mandatory field(s) missing (Bus. Purp., CC/WBS, Apprvr)."
    elif not (_valid_date(form["from"]) and _valid_date(form["to"])) or form["from"] > form["to"]:
        err = "ERR-114: Invalid date (format YYYY-MM-DD, Fr <= To)."
    if err:
        return _page(ctx, "expense/header.html", ccs=COST_CENTERS, approvers=APPROVERS, err=err, form=form)
    n = s.scalar("SELECT COUNT(*) FROM expense_reports") + 41
    rid = s.insert("expense_reports", code=f"ER-{s.today.year}-{n:04d}", purpose=form["purpose"],
                   cost_center=form["cc"], trip_from=form["from"], trip_to=form["to"], approver=form["approver"],
                   status="DRAFT", created=s.today.isoformat())  # fmt: skip
    return redirect(f"/expense/r/{rid}/lines")


def _report(ctx: Ctx, rid: int) -> dict[str, Any] | None:
    return ctx.state.one("SELECT * FROM expense_reports WHERE id = ?", (rid,))


def _lines(ctx: Ctx, rid: int) -> list[dict[str, Any]]:
    return ctx.state.rows("SELECT * FROM expense_lines WHERE report_id = ? ORDER BY id", (rid,))


def report(ctx: Ctx, rid: int) -> Response:
    r = _report(ctx, rid)
    if r is None:
        return not_found("Report not found.")
    if r["status"] == "DRAFT":
        return redirect(f"/expense/r/{rid}/review")
    return _page(ctx, "expense/review.html", r=r, lines=_lines(ctx, rid), rcpt=_receipt_file(ctx, r), err="",
                 readonly=True)  # fmt: skip


def lines(ctx: Ctx, rid: int, err: str = "") -> Response:
    r = _report(ctx, rid)
    if r is None or r["status"] != "DRAFT":
        return not_found("Report not found or not editable.")
    return _page(ctx, "expense/lines.html", r=r, lines=_lines(ctx, rid), currencies=CURRENCIES, err=err)


def add_line(ctx: Ctx, rid: int) -> Response:
    s, arg = ctx.state, ctx.req.arg
    r = _report(ctx, rid)
    if r is None or r["status"] != "DRAFT":
        return not_found("Report not found or not editable.")
    if ctx.req.num("del") is not None:
        s.write("DELETE FROM expense_lines WHERE id = ? AND report_id = ?", (ctx.req.num("del"), rid))
        return redirect(f"/expense/r/{rid}/lines")
    if arg("next"):
        if not _lines(ctx, rid):
            return lines(ctx, rid, "ERR-207: At least one line item is required.")
        return redirect(f"/expense/r/{rid}/receipt")
    cents = parse_cents(arg("amt"))
    codes = [c for c, _, _ in EXPENSE_CODES]
    amount_ok = cents is not None and cents > 0
    if not (_valid_date(arg("dt")) and arg("cat") in codes and amount_ok and arg("cur") in CURRENCIES):
        return lines(ctx, rid, "ERR-203: Line rejected. Check Dt (YYYY-MM-DD), Exp.Cat.Cd, Amt (>0), Curr.")
    s.insert("expense_lines", report_id=rid, exp_date=arg("dt"), category=arg("cat"), merchant=arg("mrch"),
             amount=cents, currency=arg("cur"))  # fmt: skip
    return redirect(f"/expense/r/{rid}/lines")


def _receipt_file(ctx: Ctx, r: dict[str, Any]) -> dict[str, Any] | None:
    if not r["receipt_file_id"]:
        return None
    return ctx.state.one("SELECT * FROM files WHERE id = ?", (r["receipt_file_id"],))


def receipt(ctx: Ctx, rid: int, err: str = "") -> Response:
    r = _report(ctx, rid)
    if r is None or r["status"] != "DRAFT":
        return not_found("Report not found or not editable.")
    files = ctx.state.rows("SELECT f.*, d.kind FROM files f JOIN docs d ON d.id = f.doc_id WHERE trashed = 0 "
                           "AND d.kind = 'pdf' ORDER BY modified DESC")  # fmt: skip
    return _page(ctx, "expense/receipt.html", r=r, files=files, rcpt=_receipt_file(ctx, r), err=err)


def attach(ctx: Ctx, rid: int) -> Response:
    s, arg = ctx.state, ctx.req.arg
    r = _report(ctx, rid)
    if r is None or r["status"] != "DRAFT":
        return not_found("Report not found or not editable.")
    fid = ctx.req.num("file")
    if fid is not None and s.one("SELECT id FROM files WHERE id = ? AND trashed = 0", (fid,)):
        s.write("UPDATE expense_reports SET receipt_file_id = ? WHERE id = ?", (fid, rid))
        return redirect(f"/expense/r/{rid}/review")
    if arg("skip") and r["receipt_file_id"]:
        return redirect(f"/expense/r/{rid}/review")
    return receipt(ctx, rid, "ERR-310: Select a receipt document (Rcpt Att. is mandatory).")


def review(ctx: Ctx, rid: int) -> Response:
    r = _report(ctx, rid)
    if r is None:
        return not_found("Report not found.")
    return _page(ctx, "expense/review.html", r=r, lines=_lines(ctx, rid), rcpt=_receipt_file(ctx, r), err="",
                 readonly=r["status"] != "DRAFT")  # fmt: skip


def submit(ctx: Ctx, rid: int) -> Response:
    s = ctx.state
    r = _report(ctx, rid)
    if r is None or r["status"] != "DRAFT":
        return not_found("Report not found or already submitted.")
    err = ""
    if not _lines(ctx, rid):
        err = "ERR-207: At least one line item is required."
    elif not r["receipt_file_id"]:
        err = "ERR-310: Rcpt Att. missing. Reports without receipt cannot be submitted."
    if err:
        return _page(ctx, "expense/review.html", r=r, lines=_lines(ctx, rid), rcpt=None, err=err, readonly=False)
    s.write("UPDATE expense_reports SET status = 'SUBMITTED', submitted = ? WHERE id = ?", (s.now(), rid))
    s.log("expense", "expense.submit", report_id=rid, code=r["code"])
    return redirect(f"/expense/r/{rid}?flash=1")
