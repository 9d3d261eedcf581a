"""The calendar's week and day views over real HTTP (and one real-Chromium check of the phone layout).

Today is 2024-03-14, a Thursday: its week runs Monday 11 to Sunday 17 March.
"""

from __future__ import annotations

import html
import http.cookiejar
import re
import urllib.error
import urllib.request
from html.parser import HTMLParser

import pytest

from venuskit.tasks import setup
from venuskit.world import WorldServer


class Browser:
    """A cookie-keeping HTTP client bound to one episode."""

    def __init__(self, world: WorldServer, episode: str) -> None:
        self.base = world.base_url
        jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(jar))
        self.get(world.bind_url(episode, "/"), absolute=True)

    def get(self, path: str, absolute: bool = False) -> str:
        try:
            with self.opener.open(path if absolute else self.base + path, timeout=10) as r:
                assert r.status == 200
                return r.read().decode()
        except urllib.error.HTTPError as e:
            raise AssertionError(f"{path} answered {e.code}") from e


class Grid(HTMLParser):
    """Collects what a person sees in a time grid: each day column's events with their position, and the links."""

    def __init__(self) -> None:
        super().__init__()
        self.cols: dict[str, list[dict[str, str]]] = {}
        self.links: dict[str, str] = {}  # title/aria-label/text of a cal-head link -> href
        self.hours: list[str] = []
        self._col: str | None = None
        self._ev: dict[str, str] | None = None
        self._cls: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = {k: v or "" for k, v in attrs}
        cls = a.get("class", "").split()
        self._cls.append(a.get("class", ""))
        if "tg-col" in cls:
            self._col = a["data-date"]
            self.cols[self._col] = []
        elif "tev" in cls and self._col:
            style = dict(kv.strip().split(": ") for kv in a["style"].split(";") if kv.strip())
            self._ev = {"href": a["href"], "text": "", "cls": a["class"], **style}
            self.cols[self._col].append(self._ev)
        elif tag == "a" and ("icon-btn" in cls or "seg-btn" in cls or a.get("class") == "btn"):
            self.links[a.get("aria-label") or a.get("data-view") or "today"] = a["href"]

    def handle_endtag(self, tag: str) -> None:
        cls = self._cls.pop() if self._cls else ""
        if "tev" in cls.split():
            self._ev = None
        if "tg-col" in cls.split():
            self._col = None

    def handle_data(self, data: str) -> None:
        if self._ev is not None:
            self._ev["text"] += data.strip() + " "
        if self._cls and self._cls[-1] == "tg-hour":
            self.hours.append(data.strip())


def grid(page: str) -> Grid:
    g = Grid()
    g.feed(page)
    return g


@pytest.fixture(scope="module")
def world():
    with WorldServer() as w:
        yield w


def _episode(world: WorldServer, locale: str = "en", events: tuple[dict, ...] = ()) -> Browser:
    ep = world.new_episode(seed=3, locale=locale)
    world.state(ep).write("DELETE FROM events")  # only the test's own events, so positions are exact
    for e in events:
        setup.apply(world.state(ep), {"op": "event", **e})
    return Browser(world, ep)


def test_week_view_places_each_event_in_its_day_and_hour(world):
    b = _episode(world, events=({"title": "Budget talk", "date": "2024-03-12", "start": "10:30", "end": "12:00"},
                                {"title": "Gym", "date": "2024-03-17", "start": "18:00", "end": "19:00"},
                                {"title": "Next week", "date": "2024-03-18", "start": "09:00"}))  # fmt: skip
    page = b.get("/calendar/?view=week&date=2024-03-14")
    g = grid(page)
    assert list(g.cols) == [f"2024-03-{d}" for d in range(11, 18)]  # Monday to Sunday around the date
    assert "11 – 17 Mar 2024" in page and "Mon" in page and "Sun" in page
    assert g.hours[0] == "07:00" and g.hours[-1] == "20:00"  # 07:00-21:00 by default
    (talk,) = g.cols["2024-03-12"]
    assert "Budget talk" in talk["text"] and "10:30–12:00" in talk["text"]
    assert float(talk["--top"]) == 3.5 and float(talk["--len"]) == 1.5  # 10:30 is 3.5 h below 07:00
    (gym,) = g.cols["2024-03-17"]
    assert float(gym["--top"]) == 11 and "Gym" in gym["text"]
    assert all(not evs for d, evs in g.cols.items() if d not in ("2024-03-12", "2024-03-17"))
    assert "Next week" not in page
    assert 'class="seg-btn on" data-view="week"' in page


def test_overlapping_events_sit_side_by_side_and_short_ones_stay_tappable(world):
    b = _episode(world, events=({"title": "A", "date": "2024-03-13", "start": "09:00", "end": "10:30"},
                                {"title": "B", "date": "2024-03-13", "start": "10:00", "end": "11:00"},
                                {"title": "C", "date": "2024-03-13", "start": "14:00", "end": "14:10"}))  # fmt: skip
    a, bb, c = grid(b.get("/calendar/?view=day&date=2024-03-13")).cols["2024-03-13"]
    assert (a["--lanes"], bb["--lanes"]) == ("2", "2") and {a["--lane"], bb["--lane"]} == {"0", "1"}
    assert c["--lanes"] == "1" and float(c["--len"]) == 0.5 and "short" in c["cls"]


def test_events_outside_the_default_hours_widen_the_grid(world):
    early = {"title": "Early flight", "date": "2024-03-15", "start": "05:40", "end": "06:30"}
    b = _episode(world, events=(early, {"title": "Late call", "date": "2024-03-15", "start": "21:30", "end": "22:15"}))
    g = grid(b.get("/calendar/?view=week"))
    assert g.hours[0] == "05:00" and g.hours[-1] == "22:00"
    early, late = g.cols["2024-03-15"]
    assert abs(float(early["--top"]) - 40 / 60) < 0.01 and float(late["--top"]) == 16.5


def test_day_view_shows_one_day_with_locations_in_both_languages(world):
    for locale, label in (("en", "Wed, 20 Mar 2024"), ("zh", "2024年3月20日 星期三")):
        b = _episode(world, locale, ({"title": "Review", "date": "2024-03-20", "start": "15:00", "end": "16:00",
                                      "location": "Room Aurora"},
                                     {"title": "Other day", "date": "2024-03-21", "start": "15:00"}))  # fmt: skip
        page = b.get("/calendar/?view=day&date=2024-03-20")
        g = grid(page)
        assert list(g.cols) == ["2024-03-20"] and label in page
        assert "Room Aurora" in g.cols["2024-03-20"][0]["text"] and "Other day" not in page
        assert ("日历视图" in page) == (locale == "zh") and ("周三" in page) == (locale == "zh")


def test_chinese_week_view(world):
    b = _episode(world, "zh", ({"title": "季度规划会", "date": "2024-03-21", "start": "13:00", "end": "15:00"},))
    page = b.get("/calendar/?view=week&date=2024-03-21")
    assert "2024年3月18日 – 24日" in page and "周一" in page and "周日" in page
    assert ">今天<" in page and ">月<" in page and ">周<" in page and ">日<" in page
    assert "季度规划会" in grid(page).cols["2024-03-21"][0]["text"]


def test_navigation_moves_by_a_week_or_a_day_and_keeps_the_view(world):
    b = _episode(world, events=({"title": "Following", "date": "2024-03-19", "start": "11:00"},))
    g = grid(b.get("/calendar/?view=week&date=2024-03-14"))
    nxt, prev = html.unescape(g.links["Next"]), html.unescape(g.links["Previous"])
    assert nxt == "/calendar/?view=week&date=2024-03-18" and prev == "/calendar/?view=week&date=2024-03-04"
    assert html.unescape(g.links["today"]) == "/calendar/?view=week"
    assert "Following" in grid(b.get(nxt)).cols["2024-03-19"][0]["text"]
    d = grid(b.get("/calendar/?view=day&date=2024-03-01"))
    assert html.unescape(d.links["Next"]).endswith("date=2024-03-02")
    assert html.unescape(d.links["Previous"]).endswith("date=2024-02-29")
    assert html.unescape(d.links["week"]) == "/calendar/?view=week&date=2024-03-01"
    assert d.links["month"] == "/calendar/?m=2024-03"


def test_month_view_has_the_switcher_and_keeps_its_links(world):
    b = _episode(world)
    page = b.get("/calendar/?m=2024-04")
    assert 'href="/calendar/?m=2024-05"' in page and 'href="/calendar/?m=2024-03"' in page
    assert re.search(r'data-view="week" href="/calendar/\?view=week&amp;date=2024-04-01"', page)
    assert re.search(r'data-view="day" href="/calendar/\?view=day&amp;date=2024-03-14"', b.get("/calendar/"))


def test_an_empty_slot_opens_a_new_event_at_that_hour(world):
    b = _episode(world)
    page = b.get("/calendar/?view=day&date=2024-03-20")
    assert 'href="/calendar/new?date=2024-03-20&amp;start=17:00"' in page
    form = b.get("/calendar/new?date=2024-03-20&start=17:00")
    assert 'value="2024-03-20"' in form and 'value="17:00"' in form and 'value="18:00"' in form
    fallback = b.get("/calendar/new?date=2024-03-20&start=soon")
    assert 'value="10:00"' in fallback and 'value="11:00"' in fallback


def test_a_bad_date_falls_back_to_today(world):
    b = _episode(world)
    assert list(grid(b.get("/calendar/?view=week&date=someday")).cols)[3] == "2024-03-14"
    assert not world.errors, world.errors[0]


@pytest.mark.browser
def test_week_view_fits_a_phone_and_events_stay_in_their_column(world, tmp_path):
    from playwright.sync_api import sync_playwright

    ep = world.new_episode(seed=3)
    setup.apply(world.state(ep), {"op": "event", "title": "Quarterly planning with a long title", "date": "2024-03-16",
                                  "start": "13:00", "end": "15:00"})  # fmt: skip
    args = ["--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
            "--disable-sync", "--no-first-run"]  # fmt: skip
    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path="/usr/bin/chromium", args=args)
        page = browser.new_context(viewport={"width": 412, "height": 915}, has_touch=True, is_mobile=True).new_page()
        page.goto(world.bind_url(ep, "/calendar/?view=week"))
        assert page.evaluate("document.scrollingElement.scrollWidth") <= 412  # no sideways scrolling
        col = page.locator(".tg-col[data-date='2024-03-16']").bounding_box()
        ev = page.locator("a.tev:has-text('Quarterly planning')").bounding_box()
        assert col["x"] <= ev["x"] and ev["x"] + ev["width"] <= col["x"] + col["width"] + 1
        assert ev["height"] > 80  # two hours tall
        for view in ("month", "week", "day"):
            assert page.locator(f".seg-btn[data-view={view}]").is_visible()
        page.locator(".seg-btn[data-view=day]").click()
        assert "view=day" in page.url and page.locator(".tg-col").count() == 1
        browser.close()
