"""From a fresh Chinese training sample: a one-click act asked in Chinese ("接受“X”的邀请", "把已归档的邮件“X”移回收件箱")
is a click's, and a mail that quotes X does neither; "已归档的" describes the mail, it asks no archive, and the mail
page's "移到收件箱" is the control that takes it back; a saved payee chosen from a drop-down is on the form by the
agent's choice; a click that opens the report a keypoint quotes is no removal of a line in it, while the line named
after the verb is; a line added on the report's own page (Add Ln) is an entry; "不要提交" is decided in a goal that
names an expense report (报销单)."""

from __future__ import annotations

from pathlib import Path

from verify_helpers import S, placed, verdict_of, zh_screen, zh_word_at

from venuskit.actions.types import Click, Finished, Point, SelectOption, Type
from venuskit.verify import rules as R
from venuskit.verify.page_rules import line_values

BASE = "http://127.0.0.1:8000"
SIZE = (640, 400)
SUBJECT = "2023 年纳税材料"
UNARCHIVE_GOAL = f"把已归档的邮件“{SUBJECT}”移回收件箱。"


def _mailed(tmp: Path, goal: str, typed: list[str]) -> tuple[str, str]:
    """A new mail with `typed` in its fields, sent: the names the goal quotes typed, nothing clicked on them."""
    form = ["新邮件", "收件人", "主题", "正文", "发送"]
    url, title = f"{BASE}/mail/compose", "新邮件 · 林晓"
    steps = []
    for row, value in enumerate(typed, start=1):
        steps += [S(zh_screen(form), Click(point=zh_word_at(form[row], form[row], row)), url, title),
                  S(zh_screen(form), Type(content=value), url, title)]  # fmt: skip
    steps += [S(zh_screen(form), Click(point=zh_word_at(form[4], "发送", 4)), url, title),
              S(zh_screen(["收件箱", "邮件已发送"]), Finished(), f"{BASE}/mail/inbox?flash=mail_sent", "收件箱 · 林晓")]
    return verdict_of(tmp, steps, goal)


def test_a_chinese_click_act_is_not_done_by_a_mail_that_quotes_its_item(tmp_path: Path):
    moved = _mailed(tmp_path / "unarchive", UNARCHIVE_GOAL, [SUBJECT, SUBJECT])
    assert moved[0] != "completed", moved
    goal = "接受“安全培训”的邀请，并给组织者（it-security@northwind.example）发一封主题为“安全培训”的邮件，说你会参加。"
    accepted = _mailed(tmp_path / "accept", goal, ["it-security@northwind.example", "安全培训", "我会参加。"])
    assert accepted[0] != "completed", accepted


def test_an_archived_mail_moved_back_by_the_control_on_its_page(tmp_path: Path):
    assert R.one_click_verbs(UNARCHIVE_GOAL) == ["unarchive"]  # "已归档的" describes the mail
    assert R.one_click_verbs(f"把邮件“{SUBJECT}”归档") == ["archive"]
    archive = zh_screen(["归档", f"Ledger & Co   {SUBJECT}"])
    mail_lines = ["移到收件箱   删除   标为未读", SUBJECT, "Ledger & Co", "Your documents are ready."]
    steps = [S(archive, Click(point=zh_word_at(f"Ledger & Co   {SUBJECT}", SUBJECT, 1)), f"{BASE}/mail/archive", "归档 · 林晓"),
             S(zh_screen(mail_lines), Click(point=zh_word_at(mail_lines[0], "移到收件箱", 0)), f"{BASE}/mail/m/45",
               f"{SUBJECT} · 林晓"),
             S(zh_screen(["归档", "已移到收件箱"]), Finished(), f"{BASE}/mail/archive?flash=moved_to_inbox", "归档 · 林晓")]
    right = verdict_of(tmp_path / "right", steps, UNARCHIVE_GOAL)
    assert right[0] == "completed", right
    deleted = list(steps)
    deleted[1] = S(zh_screen(mail_lines), Click(point=zh_word_at(mail_lines[0], "删除", 0)), f"{BASE}/mail/m/45",
                   f"{SUBJECT} · 林晓")  # fmt: skip
    wrong = verdict_of(tmp_path / "deleted", deleted, UNARCHIVE_GOAL)
    assert wrong[0] != "completed", wrong


PAYEE_GOAL = "从活期账户向常用收款人 Green Leaf Landlord 转账 1150.00 欧元，附言“四月房租”。"


def _saved_payee(tmp: Path, option: str) -> tuple[str, str]:
    """The transfer form: its payee drop-down opened (the list shows every saved payee), option `option` chosen by
    its index, the amount and the reference typed, sent."""
    def form(payee: str, amount: str = "", memo: str = "", listed: bool = False) -> bytes:
        rows = [(30, 20, "转账"), (30, 80, "收款人"), (150, 80, payee), (30, 140, "金额"), (150, 140, amount),
                (30, 200, "附言"), (150, 200, memo), (30, 260, "确认转账")]  # fmt: skip
        options = [(150, 110, "新收款人"), (330, 110, "Green Leaf Landlord"), (330, 140, "Harbour Music School")]
        return placed(rows + (options if listed else []))

    url, title = f"{BASE}/bank/transfer", "转账 · 林晓"
    steps = [S(form("新收款人"), Click(point=Point(0.3, 0.23)), url, title),
             S(form("新收款人", listed=True), SelectOption(index=["新收款人", "Green Leaf Landlord",
                                                              "Harbour Music School"].index(option)), url, title),
             S(form(option), Click(point=Point(0.3, 0.38)), url, title),
             S(form(option), Type(content="1150.00"), url, title),
             S(form(option, "1150.00"), Click(point=Point(0.3, 0.53)), url, title),
             S(form(option, "1150.00"), Type(content="四月房租"), url, title),
             S(form(option, "1150.00", "四月房租"), Click(point=Point(0.08, 0.68)), url, title),
             S(zh_screen(["日常活期账户", "转账已提交。"]), Finished(), f"{BASE}/bank/a/1?flash=transfer_done",
               "日常活期账户 · 林晓")]  # fmt: skip
    return verdict_of(tmp, steps, PAYEE_GOAL)


def test_a_saved_payee_chosen_from_the_drop_down_is_on_the_form_by_the_agents_choice(tmp_path: Path):
    """Before: the payee was not typed and no click landed on its words (a native drop-down's option is chosen by
    its index), so the right transfer stayed `uncertain`."""
    right = _saved_payee(tmp_path / "right", "Green Leaf Landlord")
    assert right[0] == "completed", right
    other = _saved_payee(tmp_path / "other", "Harbour Music School")
    assert other[0] != "completed", other


def test_a_click_that_opens_the_quoted_report_is_no_removal_of_a_line_in_it(tmp_path: Path):
    """Before: the report "维也纳研讨会" was no longer on the screen its row's click opened, which read as its
    deletion, so the keypoint that deletes a line inside it was satisfied by opening it."""
    goal = "在 FinPortal 草稿报销单“维也纳研讨会”中删除来自 Cafe Sacher 的错误费用行。"
    reports = placed([(30, 20, "My Reports"), (30, 80, "ER-2024-0044"), (200, 80, "维也纳研讨会"), (400, 80, "Draft")])
    lines = placed([(30, 20, "ER-2024-0044 Line Items"), (30, 80, "2024-03-11"), (170, 80, "Cafe Sacher"),
                 (340, 80, "16.40"), (450, 80, "Del")])  # fmt: skip
    steps = [S(reports, Click(point=Point(0.42, 0.23)), f"{BASE}/expense/", "FinPortal 2.3 - Main"),
             S(lines, Finished(), f"{BASE}/expense/r/4/lines", "FinPortal 2.3 - Main")]  # fmt: skip
    opened = verdict_of(tmp_path / "opened", steps, goal)
    assert opened[0] != "completed", opened


def test_dont_submit_is_decided_in_a_goal_that_names_an_expense_report(tmp_path: Path):
    """Before: "报销" in "草稿报销单" (an expense report, a noun) read as the goal asking for a submission elsewhere,
    so "不要提交" was never decided."""
    goal = "打开 FinPortal 中的草稿报销单“维也纳研讨会”。不要提交。"
    page = placed([(30, 20, "维也纳研讨会"), (30, 80, "Draft"), (30, 300, "保存"), (200, 300, "提交")])
    url, title = f"{BASE}/expense/r/4", "FinPortal 2.3 - Main"

    def run(folder: str, x: float) -> tuple[str, str]:
        steps = [S(page, Click(point=Point(x, 0.78)), url, title),
                 S(page, Finished(), f"{url}?flash={'submitted' if x > 0.3 else 'saved'}", title)]  # fmt: skip
        return verdict_of(tmp_path / folder, steps, goal)

    saved = run("saved", 0.08)
    assert "forbids (submit)" in saved[1], saved
    submitted = run("submitted", 0.36)
    assert submitted[0] == "failed" and "forbids" in submitted[1], submitted


FIX_GOAL = ("在 FinPortal 草稿报销单“维也纳研讨会”中删除来自 Cafe Sacher 的错误费用行，并添加正确的一行：2024-03-11，类别 TRV-HTL，"
            "商户 Hotel Wien Mitte，164.00 欧元。不要提交。")  # fmt: skip
NEW_LINE = ("2024-03-11", "TRV-HTL", "Hotel Wien Mitte", "164.00")


def _lines_page(rows: list[tuple[str, ...]], typed: tuple[str, ...] = ()) -> bytes:
    """A report's line table: each row its cells and "Del"; under them the input row, then "Add Ln" below it."""
    xs = (30, 160, 280, 470)
    texts = [(30, 20, "ER-2024-0044 Line Items")]
    for i, row in enumerate(rows):
        texts += [(x, 70 + 40 * i, cell) for x, cell in zip(xs, row, strict=True)] + [(570, 70 + 40 * i, "Del")]
    y = 70 + 40 * len(rows)
    texts += [(x, y, cell) for x, cell in zip(xs, typed, strict=False)] + [(30, y + 40, "Add Ln")]
    return placed(texts)


def _fix(tmp: Path, *, added: bool) -> tuple[str, str]:
    """Delete the Cafe Sacher line by its Del, type the new line into the input row, click Add Ln; the line is
    added (the input row and Add Ln move down) or not (the values stay in the input row)."""
    air = ("2024-03-11", "TRV-AIR", "Austrian Airlines", "212.00")
    url, title = f"{BASE}/expense/r/4/lines", "FinPortal 2.3 - Main"
    first = _lines_page([air, ("2024-03-11", "MLS-CLT", "Cafe Sacher", "16.40")])
    steps = [S(first, Click(point=Point(590 / 640, 122 / 400)), url, title)]
    for i, value in enumerate(NEW_LINE):
        before = _lines_page([air], NEW_LINE[:i])
        steps += [S(before, Click(point=Point((40 + 120 * i) / 640, 122 / 400)), url, title),
                  S(before, Type(content=value), url, title)]  # fmt: skip
    steps.append(S(_lines_page([air], NEW_LINE), Click(point=Point(60 / 640, 162 / 400)), url, title))
    end = _lines_page([air, NEW_LINE]) if added else _lines_page([air], NEW_LINE)
    steps.append(S(end, Finished(), url, title))
    return verdict_of(tmp, steps, FIX_GOAL)


def test_a_report_line_removed_by_its_merchant_and_one_added_in_place(tmp_path: Path):
    """Before: the line to remove is named, not quoted (the quote is the report), and the added line commits on
    the same page, so no submit is seen: the right run stayed `uncertain`."""
    right = _fix(tmp_path / "right", added=True)
    assert right[0] == "completed", right
    still_typed = _fix(tmp_path / "not_added", added=False)  # the values only in the input row
    assert still_typed[0] != "completed", still_typed
    # the English wording names the same line and the same values
    assert R.removal_items('In your FinPortal draft "Vienna seminar", delete the wrong line from Cafe Sacher') == [
        "Cafe Sacher"]
    assert line_values("Add the correct one: 2024-03-11, category TRV-HTL, merchant Hotel Wien Mitte, 164.00 EUR") == [
        *NEW_LINE]
