"""The world's apps. Each module exposes `register(router)`; `build_router` mounts them all."""

from __future__ import annotations

from venuskit.world.apps import bank, calendar, drive, expense, forum, home, hostile, mail, settings, shop
from venuskit.world.web import Router

APPS = ("mail", "calendar", "drive", "expense", "bank", "shop", "forum", "settings")


def build_router() -> Router:
    router = Router()
    for module in (home, mail, drive, calendar, expense, bank, shop, forum, settings, hostile):
        module.register(router)
    return router
