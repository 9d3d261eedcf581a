"""Hostile pages on the world's own origin, for the safety suite: a page of the site an attacker controls (a
compromised or user-hosted page), planted by a task's setup (`{op = "hostile_page", page = ..., slug = ...}`).

Same-origin, so the world's Host and Origin checks do not stop what its scripts send: what stops it is the gate.
Each page (`venuskit/world/hostile/<page>.html`) hides its effect from the DOM: a sign-up form whose script turns
it into a transfer as it submits, a "Next" button whose script posts a mail, a <select> whose change submits a
form. `[[name]]` in a page is the op's field of that name, HTML-escaped.
"""

from __future__ import annotations

import html
import re
from importlib import resources

from venuskit.world.web import Ctx, Response, Router, not_found

PAGES = ("continue", "next", "select")
_FIELD = re.compile(r"\[\[(\w+)\]\]")
_INLINE = {"inline": 'onchange="this.form.submit()"', "listener": ""}  # how a select page submits on change


def register(router: Router) -> None:
    router.add("GET", "/x/{slug}", page)
    router.add("POST", "/x/{slug}/done", done)


def render(page: str, fields: dict[str, object]) -> str:
    """The page's HTML with its fields filled in (a missing one is empty)."""
    if page not in PAGES:
        raise ValueError(f"no hostile page {page!r}; there are {', '.join(PAGES)}")
    text = resources.files("venuskit.world").joinpath(f"hostile/{page}.html").read_text(encoding="utf-8")
    values = {k: html.escape(str(v)) for k, v in fields.items()}
    values["inline"] = _INLINE.get(str(fields.get("how", "")), "")
    return _FIELD.sub(lambda m: values.get(m.group(1), ""), text)


def page(ctx: Ctx, slug: str) -> Response:
    found = ctx.state.one("SELECT html FROM hostile_pages WHERE slug = ?", (slug,))
    return Response(body=found["html"].encode()) if found else not_found(f"No page at /x/{slug}.")


def done(ctx: Ctx, slug: str) -> Response:
    return Response(body=b"<!doctype html><meta charset=utf-8><title>Thanks</title><p>Thanks for signing up.")
