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

from venuskit.world.data_shop import shipping_cost
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


def seeded_episode(server: Any, seed: int, locale: str, today: Any, ops: Any, skin: int = 0) -> str:
    """A new episode of the world server with `ops` applied on top of its seeded world; a setup that fails closes
    the episode, so no half-set-up world is left behind. Returns its id."""
    episode_id = server.new_episode(seed, locale, today, skin)
    try:
        state = server.state(episode_id)
        for op in ops:
            apply(state, op)
    except Exception:
        server.close_episode(episode_id)
        raise
    return episode_id


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
        pages = spec.get("pages", [[{"p": spec.get("text", "")}]])
        return "pdf", {"pages": [[_picture(b) for b in page] for page in pages], "style": "doc"}
    if kind == "sheet":
        return "sheet", {"cells": spec.get("cells", [])}
    return "doc", {"text": spec.get("text", "")}


def _picture(block: dict[str, Any]) -> dict[str, Any]:
    """A page block `{img_text = "..."}` becomes a picture of that text (the words exist only as pixels)."""
    if "img_text" not in block:
        return block
    from venuskit.world.images import text_png_b64

    return {"img": text_png_b64(str(block["img_text"]))}


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


# ---- extra (short/medium) ----
# An expense report already in FinPortal (a draft to finish, or history), with its lines; `receipt` names a Drive
# file (by its name) to link as the receipt.


def _expense_report(state: EpisodeState, op: dict[str, Any], live: bool) -> int:
    n = state.scalar("SELECT COUNT(*) FROM expense_reports") + 41
    today = state.today.isoformat()
    receipt = state.scalar("SELECT id FROM files WHERE name = ? AND trashed = 0", (op.get("receipt", ""),))
    rid = state.insert("expense_reports", code=op.get("code", f"ER-{state.today.year}-{n:04d}"), purpose=op["purpose"],
                       cost_center=op.get("cost_center", "CC-4100"), trip_from=op.get("trip_from", today),
                       trip_to=op.get("trip_to", today), approver=op.get("approver", "M. Becker"),
                       status=op.get("status", "DRAFT"), created=today, receipt_file_id=receipt)  # fmt: skip
    for ln in op.get("lines", []):
        state.insert("expense_lines", report_id=rid, exp_date=ln.get("date", today), category=ln["category"],
                     merchant=ln.get("merchant", ""), amount=round(float(str(ln["amount"])) * 100),
                     currency=ln.get("currency", "EUR"))  # fmt: skip
    return rid


OPS["expense_report"] = frozenset({"code", "purpose", "cost_center", "trip_from", "trip_to", "approver", "status",
                                   "lines", "receipt"})  # fmt: skip
_APPLY["expense_report"] = _expense_report


# ---- shop and forum ----
# Products, past orders and cart lines (shop); groups, posts and comments (forum). Rows are found again by
# name or title, so a task names them in its goal and its oracle selectors.


def _money(value: Any) -> int:
    return round(float(str(value)) * 100)


def _product_id(state: EpisodeState, name: str, create: dict[str, Any] | None = None) -> int:
    pid = state.scalar("SELECT id FROM products WHERE name = ? ORDER BY id DESC", (name,))
    if pid is None and create is None:
        raise KeyError(f"Setup names the product {name!r}, which neither the world nor an earlier op created.")
    return int(pid) if pid is not None else _product(state, {"name": name, **(create or {})}, False)


def _product(state: EpisodeState, op: dict[str, Any], live: bool) -> int:
    added = (state.today - dt.timedelta(days=int(op.get("days_ago", 2)))).isoformat()
    return state.insert("products", name=op["name"], category=op.get("category", "home"), brand=op.get("brand", ""),
                        price=_money(op.get("price", "10")), rating=float(op.get("rating", 4.2)),
                        reviews=int(op.get("reviews", 57)), stock=int(op.get("stock", 25)),
                        description=op.get("description", ""), added=added, source="task")  # fmt: skip


def _order(state: EpisodeState, op: dict[str, Any], live: bool) -> int:
    """A past order; `status` delivered (with `delivered_days_ago`, default 3), shipped or processing."""
    items = [(it, _product_id(state, it["name"], {k: it[k] for k in ("price", "category") if k in it}))
             for it in op.get("items", [])]  # fmt: skip
    subtotal = sum(_money(it["price"]) * int(it.get("qty", 1)) for it, _ in items)
    method = op.get("shipping", "standard")
    cost = shipping_cost(method, subtotal)
    status = op.get("status", "delivered")
    placed = state.today - dt.timedelta(days=int(op.get("days_ago", 6)))
    delivered = None
    if status == "delivered":
        delivered = state.today - dt.timedelta(days=int(op.get("delivered_days_ago", 3)))
    address = state.one("SELECT * FROM addresses ORDER BY id")
    ship_to = op.get("ship_to") or f"{address['name']}, {address['street']}, {address['postcode']} {address['city']}"
    oid = state.insert("orders", number=str(op["number"]).lstrip("#"), placed=placed.isoformat(), status=status,
                       delivered=delivered and delivered.isoformat(), ship_to=ship_to, shipping=method,
                       payment=op.get("payment", "visa"), subtotal=subtotal, shipping_cost=cost, total=subtotal + cost,
                       source="task")  # fmt: skip
    for it, pid in items:
        state.insert("order_items", order_id=oid, product_id=pid, name=it["name"], price=_money(it["price"]),
                     qty=int(it.get("qty", 1)))  # fmt: skip
    return oid


def _cart(state: EpisodeState, op: dict[str, Any], live: bool) -> int:
    return state.insert("cart", product_id=_product_id(state, op["product"]), qty=int(op.get("qty", 1)))


def _group(state: EpisodeState, op: dict[str, Any], live: bool) -> int:
    """Create the group, or set `joined` / `description` of the one with that name."""
    gid = state.scalar("SELECT id FROM forum_groups WHERE name = ?", (op["name"],))
    if gid is None:
        return state.insert("forum_groups", name=op["name"], description=op.get("description", ""),
                            members=int(op.get("members", 128)), joined=int(op.get("joined", False)),
                            color=op.get("color", "#7e57c2"))  # fmt: skip
    if "joined" in op:
        state.write("UPDATE forum_groups SET joined = ? WHERE id = ?", (int(op["joined"]), gid))
    if "description" in op:
        state.write("UPDATE forum_groups SET description = ? WHERE id = ?", (op["description"], gid))
    return int(gid)


def _author(state: EpisodeState, op: dict[str, Any]) -> tuple[str, str]:
    if op.get("mine"):
        user = state.user()
        return user["name"], user["email"]
    name = op.get("author", "Priya Patel")
    return name, op.get("author_email") or f"{name.lower().replace(' ', '.')}@northwind.example"


def _post(state: EpisodeState, op: dict[str, Any], live: bool) -> int:
    gid = _group(state, {"name": op["group"]}, live)
    name, email = _author(state, op)
    pid = state.insert("posts", group_id=gid, author_name=name, author=email, title=op["title"],
                       body=op.get("body", ""), created=_stamp(state, {"minutes_ago": 90, **op}, live),
                       source="task")  # fmt: skip
    for i, kind in enumerate(op.get("reactions", [])):
        state.insert("reactions", post_id=pid, who=f"fan{i}@northwind.example", kind=kind)
    return pid


def _comment(state: EpisodeState, op: dict[str, Any], live: bool) -> int:
    pid = state.scalar("SELECT id FROM posts WHERE title = ? ORDER BY id DESC", (op["post"],))
    if pid is None:
        raise KeyError(f"Setup comments on the post {op['post']!r}, which does not exist.")
    name, email = _author(state, op)
    return state.insert("comments", post_id=pid, author_name=name, author=email, body=op["body"],
                        created=_stamp(state, {"minutes_ago": 30, **op}, live))  # fmt: skip


OPS.update({
    "product": frozenset({"name", "category", "brand", "price", "rating", "reviews", "stock", "description",
                          "days_ago"}),
    "order": frozenset({"number", "items", "status", "days_ago", "delivered_days_ago", "ship_to", "shipping",
                        "payment"}),
    "cart": frozenset({"product", "qty"}),
    "group": frozenset({"name", "description", "members", "joined", "color"}),
    "post": frozenset({"group", "title", "body", "author", "author_email", "mine", "days_ago", "minutes_ago",
                       "reactions"}),
    "comment": frozenset({"post", "body", "author", "author_email", "mine", "days_ago", "minutes_ago"}),
})  # fmt: skip
_APPLY.update({"product": _product, "order": _order, "cart": _cart, "group": _group, "post": _post,
               "comment": _comment})  # fmt: skip


# ---- reviews and notifications ----
# A product review (on the product's page) and a notification (on the launcher); tasks plant content in them.


def _review(state: EpisodeState, op: dict[str, Any], live: bool) -> int:
    return state.insert("product_reviews", product_id=_product_id(state, op["product"]),
                        author=op.get("author", "Verified buyer"), rating=int(op.get("rating", 5)),
                        title=op.get("title", ""), body=op.get("body", ""),
                        created=_stamp(state, {"minutes_ago": 600, **op}, live))  # fmt: skip


def _notification(state: EpisodeState, op: dict[str, Any], live: bool) -> int:
    return state.insert("notifications", app=op.get("app", "settings"), title=op["title"], body=op.get("body", ""),
                        created=_stamp(state, {"minutes_ago": 15, **op}, live),
                        unread=int(op.get("unread", True)))  # fmt: skip


OPS.update({
    "review": frozenset({"product", "author", "rating", "title", "body", "days_ago", "minutes_ago"}),
    "notification": frozenset({"app", "title", "body", "unread", "days_ago", "minutes_ago"}),
})  # fmt: skip
_APPLY.update({"review": _review, "notification": _notification})


def _hostile_page(state: EpisodeState, op: dict[str, Any], live: bool) -> int:
    """A page of the site an attacker controls, at /x/<slug> on the world's own origin (the safety suite's bypass
    category): `page` names one of world/hostile/*.html, the other fields fill it in."""
    from venuskit.world.apps.hostile import render

    return state.insert("hostile_pages", slug=op["slug"], html=render(op["page"], op))


OPS["hostile_page"] = frozenset({"slug", "page", "title", "heading", "text", "button", "email", "account", "payee",
                                 "iban", "amount", "memo", "to", "subject", "body", "thanks", "label", "first",
                                 "second", "how"})  # fmt: skip
_APPLY["hostile_page"] = _hostile_page
