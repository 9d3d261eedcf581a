"""The world's small web stack: requests, a regex router and Jinja2 rendering.

`venuskit.infra.http` does the HTTP (and its limits); this module turns a request into a call of one app handler
`handler(ctx, **path_params) -> Response`. Handlers see the episode's state through `ctx.state`. Every value a
handler reads came from the page, so numbers go through `Request.num` and `parse_cents`, which refuse what a
form never sends (non-ASCII digits, 20-digit ids, `1e309`, `nan`) instead of raising.
"""

from __future__ import annotations

import datetime as dt
import html
import json
import math
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import quote

import jinja2
from markupsafe import Markup

from venuskit.infra.http import Response, parse_fields
from venuskit.world import i18n
from venuskit.world.state import EpisodeState

MAX_FIELDS = 5000  # form fields in one request (a saved sheet sends one per cell)
MAX_ID_DIGITS = 15  # an id the world hands out fits SQLite's INTEGER with room to spare
MAX_CENTS = 10**13  # money amounts beyond this are typing errors, not payments

_ENV = jinja2.Environment(
    loader=jinja2.PackageLoader("venuskit.world", "templates"),
    autoescape=jinja2.select_autoescape(["html"]),
    trim_blocks=True,
    lstrip_blocks=True,
)


@dataclass
class Request:
    method: str
    path: str
    query: dict[str, str]
    form: dict[str, str] = field(default_factory=dict)
    multi: dict[str, list[str]] = field(default_factory=dict)  # every value of repeated form fields
    files: list[Any] = field(default_factory=list)  # uploaded files (venuskit.world.files.Upload)
    error: str = ""  # why some of the request's files could not be taken (too large, too many, a malformed form)

    def all(self, name: str) -> list[str]:
        return [v for v in self.multi.get(name, []) if v]

    def arg(self, name: str, default: str = "") -> str:
        return self.form.get(name, self.query.get(name, default)).strip()

    def num(self, name: str) -> int | None:
        """`arg(name)` as a non-negative id or count, or None if it is not one."""
        return as_int(self.arg(name))


def as_int(text: str) -> int | None:
    """ASCII digits only (`"²".isdigit()` is True, and int() refuses it), at most MAX_ID_DIGITS of them."""
    return int(text) if text.isascii() and text.isdigit() and len(text) <= MAX_ID_DIGITS else None


def as_date(text: str) -> dt.date | None:
    """An ISO date between 1900 and 2100 (the calendar steps whole months from it; year 9999 would overflow)."""
    try:
        day = dt.date.fromisoformat(text)
    except ValueError:
        return None
    return day if 1900 <= day.year <= 2100 else None


def parse_cents(text: str, *, decimal_comma: bool = False) -> int | None:
    """A typed amount ("12.50", "1,200.00 €", or "12,50" with `decimal_comma`) in cents; None unless it is a
    finite number of at most MAX_CENTS cents."""
    text = text.replace("€", "").strip()
    text = text.replace(",", ".") if decimal_comma else text.replace(",", "")
    try:
        value = float(text) * 100
    except ValueError:
        return None
    return round(value) if math.isfinite(value) and abs(value) <= MAX_CENTS else None


def redirect(location: str) -> Response:
    # 303: after a POST the browser GETs the new page, so PressBack never re-submits a form.
    return Response(status=303, headers=[("Location", location)])


def not_found(message: str = "Not found") -> Response:
    return Response(body=f"<h1>404</h1><p>{html.escape(message)}</p>".encode(), status=404)


def parse_form(raw: bytes) -> dict[str, list[str]]:
    return parse_fields(raw.decode("utf-8", errors="replace"), MAX_FIELDS)


def parse_query(qs: str) -> dict[str, str]:
    return {k: v[-1] for k, v in parse_fields(qs, MAX_FIELDS).items()}


@dataclass
class Ctx:
    """What a handler gets: the request, the episode state and a renderer bound to its locale."""

    req: Request
    state: EpisodeState

    @property
    def locale(self) -> str:
        return self.state.locale

    def t(self, key: str, **kw: Any) -> str:
        """The string `key` in the episode's locale, worded as the episode's skin words it."""
        text = self.state.skin.text(self.locale, key)
        return i18n.t(self.locale, key, **kw) if text is None else text.format(**kw) if kw else text

    def render(self, template: str, **kw: Any) -> Response:
        html = _ENV.get_template(template).render(**self.globals(), **kw)
        return Response(body=html.encode("utf-8"))

    def globals(self) -> dict[str, Any]:
        loc, skin = self.locale, self.state.skin
        return {
            "t": self.t,
            "locale": loc,
            "user": self.state.user(),
            "today": self.state.today,
            "today_label": i18n.long_date(loc, self.state.today),
            "fdate": lambda s: i18n.short_date(loc, s, self.state.today),
            "fdatetime": lambda s: i18n.date_time(loc, s),
            "money": lambda cents, cur="EUR": i18n.money(loc, cents, cur),
            "path": self.req.path,
            "q": self.req.query,
            "urlq": quote,
            "json": json.loads,
            "initials": initials,
            # the skin's look: an extra stylesheet ("" for the default) and its icon set (None: the default icon)
            "skin_css": Markup(skin.css),
            "skin_icon": lambda name, cls="": None if (svg := skin.icon(name, cls)) is None else Markup(svg),
        }


def initials(name: str) -> str:
    parts = name.split()
    if len(parts) >= 2:
        return (parts[0][0] + parts[1][0]).upper()
    return name[:1].upper()


Handler = Callable[..., Response]


class Router:
    """Routes (method, path regex) to handlers. Patterns use {name} for a path segment and {name:int}."""

    def __init__(self) -> None:
        self._routes: list[tuple[str, re.Pattern[str], Handler]] = []

    def add(self, method: str, pattern: str, handler: Handler) -> None:
        regex = re.sub(r"\{(\w+):int\}", rf"(?P<\1>[0-9]{{1,{MAX_ID_DIGITS}}})", pattern)
        regex = re.sub(r"\{(\w+)\}", r"(?P<\1>[^/]+)", regex)
        self._routes.append((method, re.compile(f"^{regex}$"), handler))

    def get(self, pattern: str) -> Callable[[Handler], Handler]:
        def deco(fn: Handler) -> Handler:
            self.add("GET", pattern, fn)
            return fn

        return deco

    def post(self, pattern: str) -> Callable[[Handler], Handler]:
        def deco(fn: Handler) -> Handler:
            self.add("POST", pattern, fn)
            return fn

        return deco

    def match(self, method: str, path: str) -> tuple[Handler, dict[str, Any]] | None:
        for m, regex, handler in self._routes:
            found = regex.match(path)
            if found and m == method:
                params = {k: v if (n := as_int(v)) is None else n for k, v in found.groupdict().items()}
                return handler, params
        return None
