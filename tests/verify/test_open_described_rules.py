""""Open the travel policy PDF in Drive": a file the goal names by what it is, not by a quoted name. Before, no rule
decided it, so a right run stayed `uncertain` however it ended."""

from __future__ import annotations

from pathlib import Path

from verify_helpers import S, record, screen, verify_rules, why

from venuskit.actions.types import Click, Finished, Point

GOAL = "Open the travel policy PDF in Drive."
DRIVE = ["My Drive", "Travel policy 2024.pdf", "Expense portal guide.pdf"]


def _open(tmp: Path, start: str, row: int, opened: str) -> tuple[str, str]:
    steps = [S(screen(DRIVE), Click(point=Point(0.3, (30 + 50 * row + 12) / 400)), None, f"{start} · Alex Morgan"),
             S(screen([opened, "Page 1 of 3"]), Finished(), None, f"{opened} · Alex Morgan")]  # fmt: skip
    report = verify_rules(record(tmp, steps, GOAL))
    return report.verdict, why(report)


def test_the_file_whose_name_holds_the_descriptions_words_opened_from_drive_is_done(tmp_path: Path):
    right = _open(tmp_path / "right", "My Drive", 1, "Travel policy 2024.pdf")
    assert right[0] == "completed", right
    assert "Travel policy 2024.pdf" in right[1]


def test_another_file_or_the_same_name_opened_from_another_app_is_not(tmp_path: Path):
    other = _open(tmp_path / "other", "My Drive", 2, "Expense portal guide.pdf")
    assert other[0] != "completed", other
    mail = _open(tmp_path / "mail", "Inbox", 1, "Travel policy 2024.pdf")  # an attachment opened from a mail
    assert mail[0] != "completed", mail
    not_pdf = _open(tmp_path / "docx", "My Drive", 1, "Travel policy 2024.docx")
    assert not_pdf[0] != "completed", not_pdf
