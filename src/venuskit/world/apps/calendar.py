"""Calendar: month, week and day views, event details, create/edit/delete events, answer invitations."""

from __future__ import annotations

import datetime as dt
from typing import Any

from venuskit.world import i18n
from venuskit.world.web import Ctx, Response, Router, as_date, as_int, not_found, redirect

DOW = {
    "en": ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"),
    "zh": ("周一", "周二", "周三", "周四", "周五", "周六", "周日"),
}
HOURS = (7, 21)  # the time grid shows at least these hours
MIN_LEN = 0.5  # a very short event is drawn half an hour tall so its title stays readable and tappable


def register(router: Router) -> None:
    router.add("GET", "/calendar/", index)
    router.add("GET", "/calendar/new", edit_form)
    router.add("GET", "/calendar/e/{eid:int}", event)
    router.add("GET", "/calendar/e/{eid:int}/edit", edit_form)
    router.add("POST", "/calendar/save", save)
    router.add("POST", "/calendar/e/{eid:int}/act", act)


def _page(ctx: Ctx, template: str, **kw: Any) -> Response:
    invites = ctx.state.rows("SELECT * FROM events WHERE status = 'invited' ORDER BY start")
    return ctx.render(template, app="calendar", invites=invites, **kw)


def index(ctx: Ctx) -> Response:
    """`/calendar/` shows the month (`?m=YYYY-MM`), or with `?view=week|day&date=YYYY-MM-DD` a time grid."""
    view = ctx.req.arg("view")
    return timegrid(ctx, view) if view in ("week", "day") else month(ctx)


def month(ctx: Ctx) -> Response:
    today = ctx.state.today
    first = as_date(ctx.req.arg("m") + "-01") or today.replace(day=1)
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
                 label=i18n.month_label(ctx.locale, first), prev_m=prev_m, next_m=next_m, view="month",
                 anchor=today if today.replace(day=1) == first else first)  # fmt: skip


def _day_arg(ctx: Ctx) -> dt.date:
    return as_date(ctx.req.arg("date")) or ctx.state.today


def timegrid(ctx: Ctx, view: str) -> Response:
    """Week (Monday to Sunday around `date`) or one day, with events placed by their start and length."""
    day = _day_arg(ctx)
    first = day - dt.timedelta(days=day.weekday()) if view == "week" else day
    n = 7 if view == "week" else 1
    days = [first + dt.timedelta(days=i) for i in range(n)]
    events = ctx.state.rows("SELECT * FROM events WHERE start >= ? AND start < ? ORDER BY start, end, id",
                            (first.isoformat(), (first + dt.timedelta(days=n)).isoformat()))  # fmt: skip
    lo, hi = _hour_range(events)
    cols = [{"date": d, "events": _place([e for e in events if e["start"][:10] == d.isoformat()], lo)} for d in days]
    step = dt.timedelta(days=n)
    return _page(ctx, "calendar/grid.html", view=view, cols=cols, hours=list(range(lo, hi)), dow=DOW[ctx.locale],
                 label=_range_label(ctx.locale, days[0], days[-1]), anchor=day,
                 prev=(first - step).isoformat(), next=(first + step).isoformat())  # fmt: skip


def _hour_range(events: list[dict[str, Any]]) -> tuple[int, int]:
    """At least 07:00-21:00, widened to show every event whole."""
    lo = min([HOURS[0]] + [int(e["start"][11:13]) for e in events])
    hi = max([HOURS[1]] + [min(24, int(e["end"][11:13]) + (e["end"][14:16] != "00")) for e in events])
    return lo, max(hi, lo + 1)


def _hours(stamp: str) -> float:
    return int(stamp[11:13]) + int(stamp[14:16]) / 60


def _place(events: list[dict[str, Any]], lo: int) -> list[dict[str, Any]]:
    """Give each event its top and length in hours and a lane, so overlapping events sit side by side
    (never on top of each other, where one would hide the other from a click)."""
    placed: list[dict[str, Any]] = []
    cluster: list[dict[str, Any]] = []
    lanes: list[float] = []  # per lane: where its last event ends
    for e in events:
        top = _hours(e["start"])
        end = max(_hours(e["end"]) if e["end"][:10] == e["start"][:10] else 24.0, top + MIN_LEN)
        if cluster and top >= max(lanes):
            placed += _close(cluster, len(lanes))
            cluster, lanes = [], []
        lane = next((i for i, busy in enumerate(lanes) if busy <= top), len(lanes))
        lanes[lane : lane + 1] = [end]
        cluster.append({**e, "top": round(top - lo, 3), "len": round(end - top, 3), "lane": lane})
    return placed + _close(cluster, len(lanes))


def _close(cluster: list[dict[str, Any]], lanes: int) -> list[dict[str, Any]]:
    return [{**e, "lanes": lanes} for e in cluster]


def _range_label(locale: str, first: dt.date, last: dt.date) -> str:
    if first == last:
        return i18n.long_date(locale, first)
    if locale == "zh":
        tail = f"{last.month}月{last.day}日" if last.month != first.month else f"{last.day}日"
        return f"{first.year}年{first.month}月{first.day}日 – {tail}"
    head = first.strftime("%-d %b") if first.month != last.month else first.strftime("%-d")
    return f"{head} – {last.strftime('%-d %b %Y')}"


def event(ctx: Ctx, eid: int) -> Response:
    e = ctx.state.one("SELECT * FROM events WHERE id = ?", (eid,))
    if e is None:
        return not_found("This event does not exist.")
    return _page(ctx, "calendar/event.html", e=e)


def edit_form(ctx: Ctx, eid: int | None = None, err: str = "", form: dict[str, str] | None = None) -> Response:
    e = ctx.state.one("SELECT * FROM events WHERE id = ?", (eid,)) if eid else None
    day = ctx.req.arg("date") or ctx.state.today.isoformat()
    start, end = _slot(ctx.req.arg("start"))
    f = form or {"id": str(eid or ""), "title": e["title"] if e else "", "date": e["start"][:10] if e else day,
                 "start": e["start"][11:16] if e else start, "end": e["end"][11:16] if e else end,
                 "location": e["location"] if e else "", "attendees": e["attendees"] if e else "",
                 "notes": e["notes"] if e else ""}  # fmt: skip
    return _page(ctx, "calendar/edit.html", f=f, err=err)


def _slot(start: str) -> tuple[str, str]:
    """A new event from a time-grid slot starts there and lasts an hour; otherwise 10:00-11:00."""
    try:
        t = dt.datetime.strptime(start, "%H:%M")
    except ValueError:
        return "10:00", "11:00"
    return start, min(t + dt.timedelta(hours=1), t.replace(hour=23, minute=59)).strftime("%H:%M")


def save(ctx: Ctx) -> Response:
    s, arg = ctx.state, ctx.req.arg
    f = {k: arg(k) for k in ("id", "title", "date", "start", "end", "location", "attendees", "notes")}
    try:
        start = dt.datetime.fromisoformat(f"{f['date']}T{f['start']}")
        end = dt.datetime.fromisoformat(f"{f['date']}T{f['end']}")
    except ValueError:
        return edit_form(ctx, None, ctx.t("bad_time"), f)
    if as_date(f["date"]) is None:
        return edit_form(ctx, None, ctx.t("bad_time"), f)
    if not f["title"] or end <= start:
        return edit_form(ctx, None, ctx.t("need_title"), f)
    values = dict(title=f["title"], start=start.isoformat(timespec="minutes"), end=end.isoformat(timespec="minutes"),
                  location=f["location"], attendees=f["attendees"], notes=f["notes"])  # fmt: skip
    eid = as_int(f["id"])
    if eid is not None:
        s.write("UPDATE events SET title=?, start=?, end=?, location=?, attendees=?, notes=? WHERE id = ?",
                (*values.values(), eid))  # fmt: skip
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
