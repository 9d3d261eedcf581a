"""Small app features the short/medium tasks use: mail Archive, Drive's star button, the bank's saved
recipients, and the FinPortal draft-report setup op. Real server, real HTTP."""

from __future__ import annotations

import http.cookiejar
import urllib.parse
import urllib.request

import pytest

from venuskit.tasks import setup
from venuskit.tasks.checks import CheckContext, run_check
from venuskit.world import WorldServer


class Browser:
    def __init__(self, world: WorldServer, episode: str, path: str = "/") -> None:
        self.base = world.base_url
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
        self.opener.open(world.bind_url(episode, path), timeout=10).read()

    def get(self, path: str) -> str:
        with self.opener.open(self.base + path, timeout=10) as r:
            return r.read().decode()

    def post(self, path: str, **form: str) -> str:
        data = urllib.parse.urlencode(form).encode()
        with self.opener.open(urllib.request.Request(self.base + path, data=data), timeout=10) as r:
            return r.url


@pytest.fixture(scope="module")
def world():
    with WorldServer() as w:
        yield w


def test_archive_moves_a_mail_out_of_the_inbox_and_back(world):
    ep = world.new_episode(seed=1)
    s = world.state(ep)
    mid = setup.apply(s, {"op": "mail", "from": "a@x.example", "subject": "Archive me", "body": "hi"})
    b = Browser(world, ep)
    assert 'value="archive"' in b.get(f"/mail/m/{mid}")
    assert b.post(f"/mail/m/{mid}/act", do="archive").endswith("/mail/inbox?flash=archived")
    assert "Archive me" not in b.get("/mail/inbox") and "Archive me" in b.get("/mail/archive")
    assert "Archive me" in b.get("/mail/inbox?q=Archive+me")  # search still finds archived mail
    assert 'value="to_inbox"' in b.get(f"/mail/m/{mid}")
    b.post(f"/mail/m/{mid}/act", do="to_inbox")
    assert s.one("SELECT folder FROM mails WHERE id = ?", (mid,))["folder"] == "inbox"
    assert s.actions() == []  # archiving is not a consequential action


def test_drive_star_button_toggles_and_the_check_sees_it(world):
    ep = world.new_episode(seed=1, locale="zh")
    s = world.state(ep)
    fid = setup.apply(s, {"op": "file", "name": "星标测试.docx", "text": "x"})
    b = Browser(world, ep)
    assert "加星标" in b.get("/drive/")
    b.post(f"/drive/f/{fid}/act", do="star", back="/drive/")
    assert "星标测试.docx" in b.get("/drive/?view=starred")
    assert run_check("drive.starred", CheckContext(s), {"name": "星标测试.docx"})
    b.post(f"/drive/f/{fid}/act", do="unstar", back="/drive/")
    assert run_check("drive.starred", CheckContext(s), {"name": "星标测试.docx", "value": False})


def test_saved_recipients_can_be_added_and_paid(world):
    ep = world.new_episode(seed=1)
    s = world.state(ep)
    b = Browser(world, ep, "/bank/payees")
    assert "Green Leaf Landlord" in b.get("/bank/payees")
    assert b.post("/bank/payees", name="", iban="").endswith("/bank/payees")  # refused, nothing saved
    assert s.scalar("SELECT COUNT(*) FROM payees") == 3
    b.post("/bank/payees", name="Lake Club", iban="DE11 2222")
    b.post("/bank/payees", name="Lake Club", iban="DE112222")  # the same recipient is saved once
    row = s.one("SELECT * FROM payees WHERE name = 'Lake Club'")
    assert s.scalar("SELECT COUNT(*) FROM payees") == 4
    assert run_check("bank.payee", CheckContext(s), {"name": "lake club", "iban": "DE112222"})
    form = b.get(f"/bank/transfer?payee={row['id']}")
    assert 'value="Lake Club"' in form and 'value="DE11 2222"' in form and f'value="{row["id"]}" selected' in form


def test_a_draft_expense_report_from_setup_can_be_finished(world):
    ep = world.new_episode(seed=1)
    s = world.state(ep)
    rid = setup.apply(s, {"op": "expense_report", "purpose": "Trip", "lines": [
        {"category": "TRV-GRD", "merchant": "Taxi", "amount": "12.50"}]})  # fmt: skip
    b = Browser(world, ep, "/expense/")
    assert "Trip" in b.get("/expense/") and "12.50" in b.get(f"/expense/r/{rid}/review")
    assert run_check("expense.no_line", CheckContext(s), {"purpose_contains": "Trip", "merchant": "Bus"})
    assert not run_check("expense.no_line", CheckContext(s), {"purpose_contains": "Trip", "merchant": "Taxi"})
