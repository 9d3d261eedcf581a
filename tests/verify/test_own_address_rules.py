"""A mail "to your own account's email address": the address is the user's own where a settings or profile screen the
agent saw gives it under the label "Email"; the recipient typed first is no content, even when the content asked for
is that same address."""

from __future__ import annotations

from pathlib import Path

from verify_helpers import S, middle, screen, verdict_of

from venuskit.actions.types import Click, Finished, Point, Type

APP = "http://127.0.0.1:8000"
OWN, OTHER = "alex.morgan@northwind.example", "noah.haddad@northwind.example"
GOAL = ("Write an email to your own account's email address with the subject \"Desk move on Friday\" saying your own "
        "account's email address.")  # fmt: skip


def _mail(tmp: Path, to: str, body: str | None, *, profile: bool = True) -> tuple[str, str]:
    """Maybe open the profile (Email, then the address under it); then compose: To, Subject, maybe a body; Send. Each
    screen shows what was typed so far."""
    settings = screen(["Profile", "Full name", "Alex Morgan", "Email", OWN, "Save"])
    url, title = f"{APP}/mail/compose", "New message · Alex Morgan"

    def form(*typed: str) -> bytes:
        filled = [*typed, "", "", ""][:3]
        return screen(["New message", f"To: {filled[0]}", f"Subject: {filled[1]}", f"Message: {filled[2]}", "Send"])

    def field(row: int) -> Point:  # the field right of its label, on the label's row
        return Point(0.22, (30 + 50 * row + 12) / 400)

    steps = [S(settings, Click(point=middle(0, "Profile")), f"{APP}/settings/?s=profile", "Settings · Alex Morgan")]
    steps = steps if profile else []
    typed = [to, "Desk move on Friday", *([body] if body is not None else [])]
    for row, text in enumerate(typed, start=1):
        steps += [S(form(*typed[: row - 1]), Click(point=field(row)), url, title),
                  S(form(*typed[: row - 1]), Type(content=text), url, title)]  # fmt: skip
    sent = screen(["Inbox", "Message sent", to, "Desk move on Friday"])
    steps += [S(form(*typed), Click(point=middle(4, "Send")), url, title),
              S(sent, Finished(content="Done."), f"{APP}/mail/inbox", "Inbox · Alex Morgan")]  # fmt: skip
    return verdict_of(tmp, steps, GOAL)


def test_a_mail_to_the_address_the_profile_gives_as_the_users_own(tmp_path: Path):
    right = _mail(tmp_path / "right", OWN, OWN)
    assert right[0] == "completed", right
    other = _mail(tmp_path / "other", OTHER, OWN)  # sent to someone else
    assert other[0] != "completed", other
    unseen = _mail(tmp_path / "unseen", OWN, OWN, profile=False)  # no screen said whose the address is
    assert unseen[0] != "completed", unseen


def test_the_recipient_typed_first_is_no_content_even_when_it_is_the_address_asked(tmp_path: Path):
    no_body = _mail(tmp_path / "no_body", OWN, None)  # the address went into To only: the message says nothing
    assert no_body[0] != "completed", no_body
