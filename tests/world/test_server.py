"""The world server over real HTTP: binding, isolation, resets, locales, every page renders."""

from __future__ import annotations

import http.cookiejar
import json
import threading
import time
import urllib.error
import urllib.request

import pytest

from venuskit.world import WorldServer
from venuskit.world.apps.helptext import HELP


class Browser:
    """A cookie-keeping HTTP client: what a browser context does, without Chromium."""

    def __init__(self) -> None:
        self.jar = http.cookiejar.CookieJar()
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(self.jar))

    def get(self, url: str) -> tuple[int, str, str]:
        try:
            with self.opener.open(url, timeout=10) as r:
                return r.status, r.url, r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, url, e.read().decode()

    def post(self, url: str, **form: str) -> tuple[int, str, str]:
        data = urllib.parse.urlencode(form).encode()
        with self.opener.open(urllib.request.Request(url, data=data), timeout=10) as r:
            return r.status, r.url, r.read().decode()


@pytest.fixture(scope="module")
def world():
    with WorldServer() as w:
        yield w


def test_bind_url_signs_in_once_and_lands_on_the_page(world):
    ep = world.new_episode(seed=1)
    url = world.bind_url(ep, "/mail/inbox")
    b = Browser()
    status, final, body = b.get(url)
    assert status == 200 and final.endswith("/mail/inbox")
    assert "Inbox" in body and "Alex Morgan" in body
    assert Browser().get(url)[0] == 410  # the token is spent: a second browser cannot use it
    assert Browser().get(world.base_url + "/mail/inbox")[0] == 401  # no cookie, no world


def test_episodes_are_isolated_and_reset_revokes_old_browsers(world):
    a, b = world.new_episode(seed=1), world.new_episode(seed=1)
    ba, bb = Browser(), Browser()
    ba.get(world.bind_url(a, "/mail/inbox"))
    bb.get(world.bind_url(b, "/mail/inbox"))
    ba.post(world.base_url + "/mail/send", to="x@example.org", subject="only in A", body="hi")
    assert world.state(a).scalar("SELECT COUNT(*) FROM mails WHERE subject = 'only in A'") == 1
    assert world.state(b).scalar("SELECT COUNT(*) FROM mails WHERE subject = 'only in A'") == 0
    assert "only in A" not in bb.get(world.base_url + "/mail/sent")[2]
    world.reset(a, seed=1)
    assert world.state(a).scalar("SELECT COUNT(*) FROM mails WHERE subject = 'only in A'") == 0
    assert ba.get(world.base_url + "/mail/inbox")[0] == 401  # the old browser lost its session


def test_same_seed_same_world_other_seed_other_world(world):
    a, b, c = world.new_episode(seed=7), world.new_episode(seed=7), world.new_episode(seed=8)
    rows = lambda ep: world.state(ep).rows("SELECT sender_name, subject, sent_at FROM mails ORDER BY id")  # noqa: E731
    assert rows(a) == rows(b)
    assert rows(a) != rows(c)
    assert len(rows(a)) > 30


def test_reset_restores_a_snapshot_in_milliseconds(world):
    ep = world.new_episode(seed=3)
    world.state(ep).write("DELETE FROM mails")
    times = []
    for _ in range(20):
        t0 = time.perf_counter()
        world.reset(ep, seed=3)
        times.append(time.perf_counter() - t0)
    assert world.state(ep).scalar("SELECT COUNT(*) FROM mails") > 30
    assert sorted(times)[10] < 0.02, f"median reset took {sorted(times)[10] * 1000:.1f} ms"


def test_eight_concurrent_episodes_stay_isolated(world):
    eps = [world.new_episode(seed=i % 2) for i in range(8)]
    errors: list[str] = []

    def work(i: int) -> None:
        b = Browser()
        b.get(world.bind_url(eps[i], "/mail/inbox"))
        for j in range(5):
            b.post(world.base_url + "/mail/send", to=f"p{i}@example.org", subject=f"ep{i}-{j}", body="x")
        sent = b.get(world.base_url + "/mail/sent")[2]
        if any(f"ep{k}-" in sent for k in range(8) if k != i):
            errors.append(f"episode {i} saw another episode's mail")

    threads = [threading.Thread(target=work, args=(i,)) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert not errors
    for i, ep in enumerate(eps):
        subjects = {r["subject"] for r in world.state(ep).rows("SELECT subject FROM mails WHERE folder = 'sent'")}
        assert {f"ep{i}-{j}" for j in range(5)} <= subjects
        assert not any(s.startswith("ep") and not s.startswith(f"ep{i}-") for s in subjects)
    assert not world.errors


PAGES = ["/", "/mail/inbox", "/mail/starred", "/mail/sent", "/mail/drafts", "/mail/trash", "/mail/m/1",
         "/mail/compose", "/mail/compose?reply=1", "/mail/compose?forward=1", "/mail/inbox?q=budget", "/drive/",
         "/drive/?view=recent", "/drive/?view=trash", "/drive/f/1", "/drive/f/2", "/drive/f/3", "/calendar/",
         "/calendar/?m=2024-04", "/calendar/e/1", "/calendar/new", "/bank/", "/bank/a/1", "/bank/a/1?q=coffee&dir=out",
         "/bank/t/1", "/bank/transfer", "/bank/statements", "/expense/", "/expense/new", "/expense/r/1", "/settings/",
         "/settings/?s=password", "/settings/?s=language", "/settings/?s=notifications"]  # fmt: skip


@pytest.mark.parametrize("locale", ["en", "zh"])
def test_every_page_and_help_page_renders_in_both_locales(world, locale):
    ep = world.new_episode(seed=2, locale=locale)
    b = Browser()
    b.get(world.bind_url(ep, "/"))
    for path in PAGES + [f"/{app}/help" for app in HELP]:
        status, _, body = b.get(world.base_url + path)
        assert status == 200, f"{path} answered {status}"
        assert "Thu, 14 Mar 2024" in body or "2024年3月14日" in body or "2024-03-14" in body, f"{path} hides the date"
    assert not world.errors, world.errors[0]
    inbox = b.get(world.base_url + "/mail/inbox")[2]
    assert ("收件箱" in inbox) == (locale == "zh")
    assert ("Inbox" in inbox) == (locale == "en")


def test_help_pages_document_every_app_in_both_languages():
    for app, texts in HELP.items():
        for locale in ("en", "zh"):
            assert len(texts[locale]["sections"]) >= 3, f"{app} help in {locale} is thin"


def test_language_setting_switches_every_app(world):
    ep = world.new_episode(seed=2, locale="en")
    b = Browser()
    b.get(world.bind_url(ep, "/settings/"))
    b.post(world.base_url + "/settings/language", locale="zh")
    assert "收件箱" in b.get(world.base_url + "/mail/inbox")[2]
    assert "我的云盘" in b.get(world.base_url + "/drive/")[2]


def test_consequential_actions_are_logged_for_the_contract(world):
    ep = world.new_episode(seed=2)
    b = Browser()
    b.get(world.bind_url(ep, "/bank/"))
    b.post(world.base_url + "/bank/transfer/confirm", account="1", name="Kim", iban="DE00 1", amount="12.50", memo="m")
    log = world.state(ep).actions()
    assert [a["kind"] for a in log] == ["bank.transfer"]
    assert log[0]["detail"]["amount"] == 1250
    assert world.state(ep).one("SELECT * FROM transfers")["payee"] == "Kim"


def test_contract_answers_are_never_served(world):
    """The action log and other episodes' data have no URL; the state API is in-process only."""
    ep = world.new_episode(seed=2)
    b = Browser()
    b.get(world.bind_url(ep, "/"))
    for path in ("/action_log", "/_state", "/api/state", "/schema.sql", "/static/../schema.sql"):
        assert b.get(world.base_url + path)[0] in (404, 401)


def test_server_binds_loopback_only():
    with pytest.raises(ValueError, match="loopback"):
        WorldServer(host="0.0.0.0")


def test_serve_mode_uses_the_default_episode_without_a_cookie():
    with WorldServer(serve_mode=True) as w:
        w.default_episode = w.new_episode(seed=0, locale="zh")
        status, _, body = Browser().get(w.base_url + "/mail/inbox")
        assert status == 200 and "收件箱" in body


def test_json_of_docs_is_valid(world):
    ep = world.new_episode(seed=5)
    rows = world.state(ep).rows("SELECT kind, body FROM docs")
    assert {r["kind"] for r in rows} >= {"doc", "pdf", "sheet"}  # the drive holds a file of every kind it renders
    shape = {"doc": "text", "pdf": "pages", "sheet": "cells"}  # the key each kind's viewer reads
    for row in rows:
        body = json.loads(row["body"])
        assert isinstance(body, dict) and shape[row["kind"]] in body, row


def test_the_simulated_date_is_fixed_per_episode_and_shown(world):
    import datetime as dt

    ep = world.new_episode(seed=4, today=dt.date(2024, 5, 6))
    b = Browser()
    b.get(world.bind_url(ep, "/"))
    assert "Mon, 6 May 2024" in b.get(world.base_url + "/calendar/")[2]
    assert "May 2024" in b.get(world.base_url + "/calendar/")[2]
    assert world.state(ep).now() > "2024-05-06T09:30"
