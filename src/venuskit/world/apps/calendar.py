"""Calendar: month view, event details, create/edit/delete events, answer invitations."""

from __future__ import annotations

import datetime as dt
from typing import Any

from venuskit.world import i18n
from venuskit.world.web import Ctx, Response, Router, not_found, redirect

DOW = {
    "en": ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"),
    "zh": ("周一", "周二", "周三", "周四", "周五", "周六", "周日"),
}


def register(router: Router) -> None:
    router.add("GET", "/calendar/", month)
    router.add("GET", "/calendar/new", edit_form)
    router.add("GET", "/calendar/e/{eid:int}", event)
    router.add("GET", "/calendar/e/{eid:int}/edit", edit_form)
    router.add("POST", "/calendar/save", save)
    router.add("POST", "/calendar/e/{eid:int}/act", act)


def _page(ctx: Ctx, template: str, **kw: Any) -> Response:
    invites = ctx.state.rows("SELECT * FROM events WHERE status = 'invited' ORDER BY start")
    return ctx.render(template, app="calendar", invites=invites, **kw)


def month(ctx: Ctx) -> Response:
    today = ctx.state.today
    try:
        first = dt.date.fromisoformat((ctx.req.arg("m") or today.isoformat()[:7]) + "-01")
    except ValueError:
        first = today.replace(day=1)
    start = first - dt.timedelta(days=first.weekday())
    days = [start + dt.timedelta(days=i) for i in range(42)]
    events = ctx.state.rows("SELECT * FROM events WHERE start >= ? AND start < ? ORDER BY start",
                            (days[0].isoformat(), (days[-1] + dt.timedelta(days=1)).isoformat()))  # fmt: skip
    by_day: dict[str, list[dict[str, Any]]] = {}
    for e in events:
        by_day.setdefault(e["start"][:10], []).append(e)
    prev_m = (first - dt.timedelta(days=1)).isoformat()[:7]
    next_m = (first + dt.timedelta(days=32)).isoformat()[:7]
    return _page(ctx, "calendar/month.html", days=days, first=first, by_day=by_day, dow=DOW[ctx.locale],
                 label=i18n.month_label(ctx.locale, first), prev_m=prev_m, next_m=next_m)  # fmt: skip


def event(ctx: Ctx, eid: int) -> Response:
    e = ctx.state.one("SELECT * FROM events WHERE id = ?", (eid,))
    if e is None:
        return not_found("This event does not exist.")
    return _page(ctx, "calendar/event.html", e=e)


def edit_form(ctx: Ctx, eid: int | None = None, err: str = "", form: dict[str, str] | None = None) -> Response:
    e = ctx.state.one("SELECT * FROM events WHERE id = ?", (eid,)) if eid else None
    day = ctx.req.arg("date") or ctx.state.today.isoformat()
    f = form or {"id": str(eid or ""), "title": e["title"] if e else "", "date": e["start"][:10] if e else day,
                 "start": e["start"][11:16] if e else "10:00", "end": e["end"][11:16] if e else "11:00",
                 "location": e["location"] if e else "", "attendees": e["attendees"] if e else "",
                 "notes": e["notes"] if e else ""}  # fmt: skip
    return _page(ctx, "calendar/edit.html", f=f, err=err)


def save(ctx: Ctx) -> Response:
    s, arg = ctx.state, ctx.req.arg
    f = {k: arg(k) for k in ("id", "title", "date", "start", "end", "location", "attendees", "notes")}
    try:
        start = dt.datetime.fromisoformat(f"{f['date']}T{f['start']}")
        end = dt.datetime.fromisoformat(f"{f['date']}T{f['end']}")
    except ValueError:
        return edit_form(ctx, None, ctx.t("bad_time"), f)
    if not f["title"] or end <= start:
        return edit_form(ctx, None, ctx.t("need_title"), f)
    values = dict(title=f["title"], start=start.isoformat(timespec="minutes"), end=end.isoformat(timespec="minutes"),
                  location=f["location"], attendees=f["attendees"], notes=f["notes"])  # fmt: skip
    if f["id"].isdigit():
        s.write("UPDATE events SET title=?, start=?, end=?, location=?, attendees=?, notes=? WHERE id = ?",
                (*values.values(), int(f["id"])))  # fmt: skip
        eid = int(f["id"])
    else:
        eid = s.insert("events", organizer=s.user()["email"], **values)
    return redirect(f"/calendar/e/{eid}?flash=saved")


def act(ctx: Ctx, eid: int) -> Response:
    s = ctx.state
    e = s.one("SELECT * FROM events WHERE id = ?", (eid,))
    if e is None:
        return not_found("This event does not exist.")
    do = ctx.req.arg("do")
    if do == "delete":
        s.write("DELETE FROM events WHERE id = ?", (eid,))
        s.log("calendar", "calendar.delete", event_id=eid, title=e["title"])
        return redirect(f"/calendar/?m={e['start'][:7]}&flash=event_deleted")
    if do in ("accept", "decline"):
        s.write("UPDATE events SET status = ? WHERE id = ?", ("accepted" if do == "accept" else "declined", eid))
        return redirect(f"/calendar/e/{eid}")
    return not_found(f"Unknown event action {do!r}.")
