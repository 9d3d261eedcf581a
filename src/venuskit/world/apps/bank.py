"""Bank: accounts, transactions with search and filters, transaction details, statements, saved recipients,
transfers."""

from __future__ import annotations

import datetime as dt
from typing import Any

from venuskit.world import i18n
from venuskit.world.web import Ctx, Response, Router, as_date, as_int, not_found, parse_cents, redirect


def register(router: Router) -> None:
    router.add("GET", "/bank/", overview)
    router.add("GET", "/bank/a/{aid:int}", account)
    router.add("GET", "/bank/t/{tid:int}", txn_detail)
    router.add("GET", "/bank/transfer", transfer_form)
    router.add("POST", "/bank/transfer", transfer_review)
    router.add("POST", "/bank/transfer/confirm", transfer_confirm)
    router.add("GET", "/bank/statements", statements)
    router.add("GET", "/bank/payees", payees)
    router.add("POST", "/bank/payees", add_payee)


def _accounts(ctx: Ctx) -> list[dict[str, Any]]:
    return ctx.state.rows("SELECT * FROM accounts ORDER BY id")


def _page(ctx: Ctx, template: str, **kw: Any) -> Response:
    return ctx.render(template, app="bank", accounts=_accounts(ctx), **kw)


def overview(ctx: Ctx) -> Response:
    recent = ctx.state.rows("SELECT t.*, a.currency FROM txns t JOIN accounts a ON a.id = t.account_id "
                            "ORDER BY posted DESC, t.id DESC LIMIT 8")  # fmt: skip
    return _page(ctx, "bank/overview.html", section="accounts", recent=recent)


def account(ctx: Ctx, aid: int) -> Response:
    acct = ctx.state.one("SELECT * FROM accounts WHERE id = ?", (aid,))
    if acct is None:
        return not_found("No such account.")
    arg = ctx.req.arg
    sql, params = "SELECT * FROM txns WHERE account_id = ?", [aid]
    if arg("q"):
        sql += " AND (description LIKE ? OR category LIKE ? OR ref LIKE ?)"
        params += [f"%{arg('q')}%"] * 3
    if arg("from"):
        sql, params = sql + " AND posted >= ?", params + [arg("from")]
    if arg("to"):
        sql, params = sql + " AND posted <= ?", params + [arg("to")]
    if arg("dir") in ("in", "out"):
        sql += " AND amount > 0" if arg("dir") == "in" else " AND amount < 0"
    txns = ctx.state.rows(sql + " ORDER BY posted DESC, id DESC LIMIT 200", params)
    return _page(ctx, "bank/account.html", section=f"a{aid}", acct=acct, txns=txns, f={k: arg(k) for k in
                 ("q", "from", "to", "dir")})  # fmt: skip


def txn_detail(ctx: Ctx, tid: int) -> Response:
    t = ctx.state.one("SELECT t.*, a.name AS account_name, a.currency FROM txns t "
                      "JOIN accounts a ON a.id = t.account_id WHERE t.id = ?", (tid,))  # fmt: skip
    if t is None:
        return not_found("No such transaction.")
    return _page(ctx, "bank/txn.html", section=f"a{t['account_id']}", x=t)


def transfer_form(ctx: Ctx, err: str = "", form: dict[str, str] | None = None) -> Response:
    payees = ctx.state.rows("SELECT * FROM payees ORDER BY name")
    picked = next((p for p in payees if str(p["id"]) == ctx.req.query.get("payee")), None)
    if form is None and picked is not None:  # "Send money" on a saved recipient: start with them filled in
        form = {"payee": str(picked["id"]), "name": picked["name"], "iban": picked["iban"]}
    return _page(ctx, "bank/transfer.html", section="transfer", payees=payees, err=err, f=form or {}, step="form")


def _transfer_fields(ctx: Ctx) -> tuple[dict[str, str], str]:
    arg = ctx.req.arg
    f = {k: arg(k) for k in ("account", "payee", "name", "iban", "amount", "memo")}
    if as_int(f["payee"]) is not None:
        p = ctx.state.one("SELECT * FROM payees WHERE id = ?", (as_int(f["payee"]),))
        if p:
            f["name"], f["iban"] = p["name"], p["iban"]
    acct = ctx.state.one("SELECT * FROM accounts WHERE id = ?", (as_int(f["account"]) or 0,))
    cents = parse_cents(f["amount"])
    if not f["name"] or not f["iban"]:
        return f, ctx.t("recipient_required")
    if cents is None or cents <= 0:
        return f, ctx.t("amount_invalid")
    if acct is None or acct["balance"] < cents:
        return f, ctx.t("insufficient")
    f["cents"] = str(cents)
    return f, ""


def transfer_review(ctx: Ctx) -> Response:
    f, err = _transfer_fields(ctx)
    if err:
        return transfer_form(ctx, err, f)
    acct = ctx.state.one("SELECT * FROM accounts WHERE id = ?", (int(f["account"]),))
    return _page(ctx, "bank/transfer.html", section="transfer", payees=[], err="", f=f, step="review", acct=acct)


def transfer_confirm(ctx: Ctx) -> Response:
    s = ctx.state
    f, err = _transfer_fields(ctx)
    if err:
        return transfer_form(ctx, err, f)
    cents, aid = int(f["cents"]), int(f["account"])
    tid = s.insert("transfers", account_id=aid, payee=f["name"], iban=f["iban"], amount=cents, memo=f["memo"],
                   created=s.now())  # fmt: skip
    s.insert("txns", account_id=aid, posted=s.today.isoformat(), description=f"TRANSFER TO {f['name'].upper()}",
             category="Transfer", amount=-cents, ref=f"TR{tid:08d}")  # fmt: skip
    s.write("UPDATE accounts SET balance = balance - ? WHERE id = ?", (cents, aid))
    s.log("bank", "bank.transfer", transfer_id=tid, payee=f["name"], amount=cents, memo=f["memo"])
    return redirect(f"/bank/a/{aid}?flash=transfer_done")


def statements(ctx: Ctx) -> Response:
    s = ctx.state
    first = s.today.replace(day=1)
    months = [(first - dt.timedelta(days=1)).replace(day=1), (first - dt.timedelta(days=32)).replace(day=1)]
    months = [first] + [m.replace(day=1) for m in months]
    start = as_date(ctx.req.arg("m") + "-01") or months[1]
    pick = start.isoformat()[:7]
    end = (start + dt.timedelta(days=32)).replace(day=1)
    acct = _accounts(ctx)[0]
    txns = s.rows("SELECT * FROM txns WHERE account_id = ? AND posted >= ? AND posted < ? ORDER BY posted, id",
                  (acct["id"], start.isoformat(), end.isoformat()))  # fmt: skip
    after = s.scalar("SELECT COALESCE(SUM(amount), 0) FROM txns WHERE account_id = ? AND posted >= ?",
                     (acct["id"], end.isoformat()))  # fmt: skip
    closing = acct["balance"] - after
    opening = closing - sum(t["amount"] for t in txns)
    labels = [(m.isoformat()[:7], i18n.month_label(ctx.locale, m)) for m in months]
    return _page(ctx, "bank/statements.html", section="statements", months=labels, pick=pick, txns=txns, acct=acct,
                 opening=opening, closing=closing, label=i18n.month_label(ctx.locale, start))  # fmt: skip


def payees(ctx: Ctx, err: str = "", form: dict[str, str] | None = None) -> Response:
    rows = ctx.state.rows("SELECT * FROM payees ORDER BY name")
    return _page(ctx, "bank/payees.html", section="payees", payees=rows, err=err, f=form or {})


def add_payee(ctx: Ctx) -> Response:
    f = {k: ctx.req.arg(k) for k in ("name", "iban")}
    if not f["name"] or not f["iban"]:
        return payees(ctx, ctx.t("recipient_required"), f)
    if ctx.state.one("SELECT id FROM payees WHERE name = ? AND REPLACE(iban, ' ', '') = ?",
                     (f["name"], f["iban"].replace(" ", ""))) is None:  # fmt: skip
        ctx.state.insert("payees", name=f["name"], iban=f["iban"])
    return redirect("/bank/payees?flash=payee_added")
