"""Shop: catalog with search, filters and sort, product pages, cart, checkout, orders and returns.

Consequential actions (logged for the contract): `shop.checkout` (placing an order) and `shop.return`
(requesting a return). Adding to or changing the cart is not: it buys nothing.
"""

from __future__ import annotations

import datetime as dt
from typing import Any

from venuskit.world.data_shop import CATEGORIES, PAYMENTS, SHIPPING, shipping_cost
from venuskit.world.web import Ctx, Response, Router, as_int, not_found, parse_cents, redirect

SORTS = {"featured": "reviews * rating DESC, id", "price_asc": "price, id", "price_desc": "price DESC, id",
         "rating": "rating DESC, reviews DESC, id", "newest": "added DESC, id DESC"}  # fmt: skip
REASONS = ("damaged", "wrong_item", "doesnt_fit", "not_needed", "not_as_described")
RETURN_DAYS = 30


def register(router: Router) -> None:
    router.add("GET", "/shop/", home)
    router.add("GET", "/shop/search", search)
    router.add("GET", "/shop/p/{pid:int}", product)
    router.add("GET", "/shop/cart", cart)
    router.add("POST", "/shop/cart/add", cart_add)
    router.add("POST", "/shop/cart/update", cart_update)
    router.add("GET", "/shop/checkout", checkout_form)
    router.add("POST", "/shop/checkout", checkout)
    router.add("GET", "/shop/orders", orders)
    router.add("GET", "/shop/o/{oid:int}", order)
    router.add("GET", "/shop/o/{oid:int}/return", return_form)
    router.add("POST", "/shop/o/{oid:int}/return", return_request)


def _cart_count(ctx: Ctx) -> int:
    return int(ctx.state.scalar("SELECT COALESCE(SUM(qty), 0) FROM cart"))


def _page(ctx: Ctx, template: str, **kw: Any) -> Response:
    kw.setdefault("section", "")
    return ctx.render(template, app="shop", categories=CATEGORIES, cart_count=_cart_count(ctx), stars=stars, **kw)


def home(ctx: Ctx) -> Response:
    s = ctx.state
    top = s.rows("SELECT * FROM products WHERE stock > 0 ORDER BY rating DESC, reviews DESC, id LIMIT 8")
    new = s.rows("SELECT * FROM products ORDER BY added DESC, id DESC LIMIT 4")
    return _page(ctx, "shop/home.html", section="start", top=top, new=new)


def _filters(ctx: Ctx) -> dict[str, str]:
    f = {k: ctx.req.arg(k) for k in ("q", "cat", "sort", "min", "max", "stock", "rating")}
    f["sort"] = f["sort"] if f["sort"] in SORTS else "featured"
    return f


def _query(f: dict[str, str]) -> tuple[str, list[Any]]:
    sql, params = "SELECT * FROM products WHERE 1", []
    if f["q"]:
        sql += " AND (name LIKE ? OR brand LIKE ? OR description LIKE ?)"
        params += [f"%{f['q']}%"] * 3
    if f["cat"] in CATEGORIES:
        sql, params = sql + " AND category = ?", params + [f["cat"]]
    for key, op in (("min", ">="), ("max", "<=")):
        cents = parse_cents(f[key], decimal_comma=True)
        if cents is not None:
            sql, params = sql + f" AND price {op} ?", params + [cents]
    if f["stock"]:
        sql += " AND stock > 0"
    if as_int(f["rating"]) is not None:
        sql, params = sql + " AND rating >= ?", params + [as_int(f["rating"])]
    return f"{sql} ORDER BY {SORTS[f['sort']]} LIMIT 60", params


def search(ctx: Ctx) -> Response:
    f = _filters(ctx)
    sql, params = _query(f)
    found = ctx.state.rows(sql, params)
    keep = {k: v for k, v in f.items() if v and k != "sort"}
    base = {k: v for k, v in f.items() if v and k in ("q", "cat")}  # what Clear keeps
    return _page(ctx, "shop/search.html", section=f["cat"] or "search", products=found, f=f, keep=keep, base=base,
                 sorts=tuple(SORTS))  # fmt: skip


def product(ctx: Ctx, pid: int) -> Response:
    p = ctx.state.one("SELECT * FROM products WHERE id = ?", (pid,))
    if p is None:
        return not_found("This product is no longer available.")
    in_cart = ctx.state.scalar("SELECT qty FROM cart WHERE product_id = ?", (pid,)) or 0
    related = ctx.state.rows("SELECT * FROM products WHERE category = ? AND id != ? ORDER BY rating DESC LIMIT 4",
                             (p["category"], pid))  # fmt: skip
    reviews = ctx.state.rows("SELECT * FROM product_reviews WHERE product_id = ? ORDER BY created DESC, id", (pid,))
    return _page(ctx, "shop/product.html", section=p["category"], p=p, in_cart=in_cart, related=related,
                 reviews=reviews)  # fmt: skip


def _lines(ctx: Ctx) -> list[dict[str, Any]]:
    return ctx.state.rows("SELECT c.qty, p.* FROM cart c JOIN products p ON p.id = c.product_id ORDER BY c.id")


def _totals(lines: list[dict[str, Any]], method: str = "standard") -> dict[str, int]:
    subtotal = sum(ln["price"] * ln["qty"] for ln in lines)
    cost = shipping_cost(method, subtotal) if lines else 0
    return {"subtotal": subtotal, "shipping": cost, "total": subtotal + cost, "count": sum(ln["qty"] for ln in lines)}


def cart(ctx: Ctx) -> Response:
    lines = _lines(ctx)
    return _page(ctx, "shop/cart.html", section="cart", lines=lines, totals=_totals(lines))


def cart_add(ctx: Ctx) -> Response:
    s, arg = ctx.state, ctx.req.arg
    p = s.one("SELECT * FROM products WHERE id = ?", (ctx.req.num("product") or 0,))
    if p is None:
        return not_found("This product is no longer available.")
    qty = max(1, min(ctx.req.num("qty") or 1, 10))
    if p["stock"] <= 0:
        return redirect(f"/shop/p/{p['id']}")
    have = s.scalar("SELECT qty FROM cart WHERE product_id = ?", (p["id"],))
    if have is None:
        s.insert("cart", product_id=p["id"], qty=min(qty, p["stock"]))
    else:
        s.write("UPDATE cart SET qty = ? WHERE product_id = ?", (min(have + qty, p["stock"], 10), p["id"]))
    back = arg("back")
    return redirect(back if back.startswith("/shop/") else f"/shop/p/{p['id']}?flash=added_to_cart")


def cart_update(ctx: Ctx) -> Response:
    s, arg = ctx.state, ctx.req.arg
    pid = ctx.req.num("product") or 0
    row = s.one("SELECT c.qty, p.stock FROM cart c JOIN products p ON p.id = c.product_id WHERE c.product_id = ?",
                (pid,))  # fmt: skip
    if row is not None:
        qty = {"inc": row["qty"] + 1, "dec": row["qty"] - 1, "remove": 0}.get(arg("do"), row["qty"])
        qty = min(qty, row["stock"], 10)
        if qty <= 0:
            s.write("DELETE FROM cart WHERE product_id = ?", (pid,))
        else:
            s.write("UPDATE cart SET qty = ? WHERE product_id = ?", (qty, pid))
    return redirect("/shop/cart")


def _addresses(ctx: Ctx) -> list[dict[str, Any]]:
    return ctx.state.rows("SELECT * FROM addresses ORDER BY id")


def checkout_form(ctx: Ctx, err: str = "", form: dict[str, str] | None = None) -> Response:
    lines = _lines(ctx)
    if not lines:
        return redirect("/shop/cart")
    form = form or {"address": str(_addresses(ctx)[0]["id"]), "shipping": "standard", "payment": "visa"}
    return _page(ctx, "shop/checkout.html", section="cart", lines=lines, addresses=_addresses(ctx), err=err, f=form,
                 shippings=tuple(SHIPPING), payments=PAYMENTS, totals=_totals(lines, form.get("shipping", "standard")),
                 costs={m: shipping_cost(m, _totals(lines)["subtotal"]) for m in SHIPPING})  # fmt: skip


def _ship_to(ctx: Ctx, f: dict[str, str]) -> str | None:
    if f["address"] == "new":
        if not all(f[k] for k in ("name", "street", "city", "postcode")):
            return None
        return f"{f['name']}, {f['street']}, {f['postcode']} {f['city']}"
    a = ctx.state.one("SELECT * FROM addresses WHERE id = ?", (as_int(f["address"]) or 0,))
    return None if a is None else f"{a['name']}, {a['street']}, {a['postcode']} {a['city']}"


def checkout(ctx: Ctx) -> Response:
    f = {k: ctx.req.arg(k) for k in ("address", "name", "street", "city", "postcode", "shipping", "payment")}
    lines = _lines(ctx)
    if not lines:
        return redirect("/shop/cart")
    if f["shipping"] not in SHIPPING or f["payment"] not in PAYMENTS or not f["address"]:
        return checkout_form(ctx, ctx.t("choose_options"), f)
    ship_to = _ship_to(ctx, f)
    if ship_to is None:
        return checkout_form(ctx, ctx.t("address_incomplete"), f)
    short = next((ln for ln in lines if ln["qty"] > ln["stock"]), None)
    if short is not None:
        return checkout_form(ctx, ctx.t("not_enough_stock", name=short["name"]), f)
    oid = _place(ctx, lines, ship_to, f["shipping"], f["payment"])
    return redirect(f"/shop/o/{oid}?flash=order_placed")


def _place(ctx: Ctx, lines: list[dict[str, Any]], ship_to: str, method: str, payment: str) -> int:
    s = ctx.state
    totals = _totals(lines, method)
    number = str(50001 + int(s.scalar("SELECT COUNT(*) FROM orders WHERE source = 'user'")))
    oid = s.insert("orders", number=number, placed=s.today.isoformat(), status="processing", ship_to=ship_to,
                   shipping=method, payment=payment, subtotal=totals["subtotal"], shipping_cost=totals["shipping"],
                   total=totals["total"], source="user")  # fmt: skip
    for ln in lines:
        s.insert("order_items", order_id=oid, product_id=ln["id"], name=ln["name"], price=ln["price"], qty=ln["qty"])
        s.write("UPDATE products SET stock = stock - ? WHERE id = ?", (ln["qty"], ln["id"]))
    s.write("DELETE FROM cart")
    s.log("shop", "shop.checkout", order=number, total=totals["total"], shipping=method, payment=payment,
          items=[{"name": ln["name"], "qty": ln["qty"]} for ln in lines])  # fmt: skip
    return oid


def _return_until(o: dict[str, Any]) -> dt.date | None:
    if o["status"] != "delivered" or not o["delivered"]:
        return None
    return dt.date.fromisoformat(o["delivered"]) + dt.timedelta(days=RETURN_DAYS)


def orders(ctx: Ctx) -> Response:
    rows = ctx.state.rows("SELECT * FROM orders ORDER BY placed DESC, id DESC")
    for o in rows:
        o["items"] = ctx.state.rows("SELECT * FROM order_items WHERE order_id = ? ORDER BY id", (o["id"],))
    return _page(ctx, "shop/orders.html", section="orders", orders=rows)


def _order(ctx: Ctx, oid: int) -> dict[str, Any] | None:
    o = ctx.state.one("SELECT * FROM orders WHERE id = ?", (oid,))
    if o is None:
        return None
    o["items"] = ctx.state.rows("SELECT i.*, p.category, (SELECT r.reason FROM returns r WHERE r.item_id = i.id) "
                                "AS returned FROM order_items i LEFT JOIN products p ON p.id = i.product_id "
                                "WHERE i.order_id = ? ORDER BY i.id", (oid,))  # fmt: skip
    until = _return_until(o)
    o["return_until"] = until.isoformat() if until else None
    o["returnable"] = bool(until and until >= ctx.state.today and any(not i["returned"] for i in o["items"]))
    return o


def order(ctx: Ctx, oid: int) -> Response:
    o = _order(ctx, oid)
    if o is None:
        return not_found("No such order.")
    return _page(ctx, "shop/order.html", section="orders", o=o)


def return_form(ctx: Ctx, oid: int, err: str = "") -> Response:
    o = _order(ctx, oid)
    if o is None:
        return not_found("No such order.")
    if not o["returnable"]:
        return redirect(f"/shop/o/{oid}?flash=return_not_open")
    return _page(ctx, "shop/return.html", section="orders", o=o, reasons=REASONS, err=err)


def return_request(ctx: Ctx, oid: int) -> Response:
    s, arg = ctx.state, ctx.req.arg
    o = _order(ctx, oid)
    if o is None:
        return not_found("No such order.")
    if not o["returnable"]:
        return redirect(f"/shop/o/{oid}?flash=return_not_open")
    item = next((i for i in o["items"] if str(i["id"]) == arg("item") and not i["returned"]), None)
    if item is None or arg("reason") not in REASONS:
        return return_form(ctx, oid, ctx.t("return_choose"))
    comment = ctx.req.form.get("comment", "").strip()
    s.insert("returns", order_id=oid, item_id=item["id"], reason=arg("reason"), comment=comment, created=s.now())
    s.log("shop", "shop.return", order=o["number"], product=item["name"], reason=arg("reason"))
    return redirect(f"/shop/o/{oid}?flash=return_done")


def stars(rating: float) -> str:
    """Five characters of ★/☆ for a rating, rounded to the nearest whole star (templates call it)."""
    full = int(round(rating))
    return "★" * full + "☆" * (5 - full)
