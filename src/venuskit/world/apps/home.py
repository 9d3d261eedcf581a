"""The launcher page (`/`) and the per-app help pages."""

from __future__ import annotations

from venuskit.world.apps.helptext import HELP
from venuskit.world.data import EXPENSE_CODES
from venuskit.world.web import Ctx, Response, Router, redirect


def register(router: Router) -> None:
    router.add("GET", "/", launcher)
    for app in HELP:
        router.add("GET", f"/{app}/help", _help_page(app))


def launcher(ctx: Ctx) -> Response:
    unread = ctx.state.scalar("SELECT COUNT(*) FROM mails WHERE folder = 'inbox' AND unread = 1")
    invites = ctx.state.scalar("SELECT COUNT(*) FROM events WHERE status = 'invited'")
    in_cart = ctx.state.scalar("SELECT COALESCE(SUM(qty), 0) FROM cart")
    tiles = ("mail", "calendar", "drive", "expense", "bank", "shop", "forum", "settings")
    badges = {"mail": unread or None, "calendar": invites or None, "shop": in_cart or None}
    notices = ctx.state.rows("SELECT * FROM notifications ORDER BY created DESC, id DESC LIMIT 5")
    return ctx.render("home.html", app="home", tiles=tiles, badges=badges, notices=notices, bare=True)


def _help_page(app: str):
    def page(ctx: Ctx) -> Response:
        text = HELP[app][ctx.locale]
        if app == "expense":
            return ctx.render("expense/help.html", app=app, help=text, codes=EXPENSE_CODES)
        return ctx.render("help.html", app=app, help=text)

    return page


__all__ = ["register", "redirect"]
