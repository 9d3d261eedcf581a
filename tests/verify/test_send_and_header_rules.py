"""A mail keypoint is committed by a send, not by any form's Save; a Chinese goal's header ("准备“X”会议：") before a
step that starts with where it happens ("在云盘新建…") is the step's context, not a value it must type."""

from __future__ import annotations

from pathlib import Path

from verify_helpers import S, record, verify_rules, why, zh_screen

from venuskit.actions.types import Click, Finished, Point, Type
from venuskit.verify.keypoints import split_goal

MAIL = "fang.wang@northwind.example"
SEND_GOAL = f"给 {MAIL} 发邮件，主题为“定价研讨会”。"


def _form(tmp: Path, title: str, label: str, after: str) -> tuple[str, str]:
    """On the page `title`, type the address and the subject into two fields, click `label`; `after` opens."""
    page = [f"收件人 {MAIL}", "主题 定价研讨会", label]
    field = Point(0.8, (30 + 12) / 400), Point(0.8, (80 + 12) / 400)
    steps = [S(zh_screen(page), Click(point=field[0]), None, f"{title} · 林晓"),
             S(zh_screen(page), Type(content=MAIL), None, f"{title} · 林晓"),
             S(zh_screen(page), Click(point=field[1]), None, f"{title} · 林晓"),
             S(zh_screen(page), Type(content="定价研讨会"), None, f"{title} · 林晓"),
             S(zh_screen(page), Click(point=Point(0.08, (130 + 13) / 400)), None, f"{title} · 林晓"),
             S(zh_screen([after]), Finished(), None, f"{after} · 林晓")]  # fmt: skip
    report = verify_rules(record(tmp, steps, SEND_GOAL))
    return report.verdict, why(report)


def test_a_mail_keypoint_is_done_by_the_send_and_not_by_an_events_save(tmp_path: Path):
    sent = _form(tmp_path / "sent", "新邮件", "发送", "收件箱")
    assert sent[0] == "completed", sent
    saved = _form(tmp_path / "saved", "新建日程", "保存", "定价研讨会")  # the address and subject in an event
    assert saved[0] != "completed", saved


DOC_GOAL = "准备“定价研讨会”会议：在云盘新建文档“定价研讨会议程”，内容为议程“1. 现有套餐 2. 竞品分析”；然后在日历中添加会议。"


def test_a_header_before_a_step_that_starts_with_its_place_is_context():
    points = split_goal(DOC_GOAL)
    assert points[0] == "在云盘新建文档“定价研讨会议程”，内容为议程“1. 现有套餐 2. 竞品分析” (准备“定价研讨会”会议)", points
    assert points[1] == "在日历中添加会议", points
