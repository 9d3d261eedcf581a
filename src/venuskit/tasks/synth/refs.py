"""Referents: how many rows of a world state a goal's words could mean (read-only).

A goal names things by their visible text ("the email "Invoice 2291"", "the file "Q2 roadmap.docx""). An agent,
like the oracle's `:has-text()` selectors, finds them by that text, case-insensitively and as a substring.
A referent that matches no row makes the task's precondition fail; one that matches several makes the goal
ambiguous. Counting is done on the seeded world with the task's setup rows applied, before anything runs.
"""

from __future__ import annotations

from venuskit.world.state import EpisodeState

# kind -> (SQL returning the visible text of every candidate row, exact match instead of substring)
_SOURCES: dict[str, tuple[str, bool]] = {
    "mail": ("SELECT subject FROM mails", False),
    "file": ("SELECT name FROM files", False),
    "event": ("SELECT title FROM events", False),
    "invite": ("SELECT title FROM events WHERE status = 'invited'", False),
    "payee": ("SELECT name FROM payees", False),
    "txn": ("SELECT description FROM txns", False),
    "account": ("SELECT name FROM accounts", False),
    "report": ("SELECT purpose FROM expense_reports", False),
    "report_code": ("SELECT code FROM expense_reports", True),
    "product": ("SELECT name FROM products", False),
    "cart": ("SELECT p.name FROM cart c JOIN products p ON p.id = c.product_id", False),
    "order": ("SELECT number FROM orders", True),
    "post": ("SELECT title FROM posts", False),
    "group": ("SELECT name FROM forum_groups", False),
}
KINDS = tuple(_SOURCES)


def count(state: EpisodeState, kind: str, text: str) -> int:
    """How many rows of `kind` the text `text` picks out in `state`."""
    sql, exact = _SOURCES[kind]
    want = text.casefold().strip()
    rows = [str(next(iter(r.values())) or "").casefold().strip() for r in state.rows(sql)]
    return sum((row == want) if exact else (want in row) for row in rows)
