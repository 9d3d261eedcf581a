"""From fresh training samples: a Chinese goal names an inserted value by setting it off with spaces ("把 湖畔托儿所（IBAN
…）保存为新的收款人") and saves it as a new item on a page that stays where it was; "先不要转账" forbids the transfer's
confirming click; a new row of a sheet is given by columns, after the last row."""

from __future__ import annotations

from pathlib import Path

from verify_helpers import S, placed, record, verdict_of, verify_rules, why

from venuskit.actions.types import Click, Finished, Point, Type
from venuskit.verify import rules as R
from venuskit.verify.keypoints import split_goal

BASE = "http://127.0.0.1:8000"
SIZE = (640, 400)
IBAN = "DE89 3704 0044 0532 0130 77"
PAYEE_GOAL = f"在银行中把 湖畔托儿所（IBAN {IBAN}）保存为新的收款人，先不要转账。"


def _zh(texts: list[tuple[int, int, str]]) -> bytes:
    return placed(texts, SIZE, 24)


def _at(x: int, y: int) -> Point:
    return Point(x / SIZE[0], y / SIZE[1])


def _payees(tmp: Path, iban: str, *, then_transfer: bool = False) -> tuple[str, str]:
    """The payees page: a name field, an IBAN field and 添加收款人; after the click, the same page lists the payee."""
    form = [(30, 20, "常用收款人"), (30, 80, "名称"), (30, 140, "IBAN"), (30, 200, "添加收款人"), (400, 20, "转账")]
    listed = [*form, (30, 280, "湖畔托儿所"), (250, 280, iban)]
    url, title = f"{BASE}/bank/payees", "常用收款人 · 林晓"
    steps = [S(_zh(form), Click(point=_at(200, 92)), url, title),
             S(_zh(form), Type(content="湖畔托儿所"), url, title),
             S(_zh(form), Click(point=_at(200, 152)), url, title),
             S(_zh(form), Type(content=iban), url, title),
             S(_zh(form), Click(point=_at(90, 212)), url, title)]  # fmt: skip
    if then_transfer:
        review = [(30, 20, "核对转账信息"), (30, 80, "湖畔托儿所"), (30, 200, "确认转账")]
        steps += [S(_zh(listed), Click(point=_at(424, 32)), url, title),
                  S(_zh(review), Click(point=_at(78, 212)), f"{BASE}/bank/transfer", "转账 · 林晓")]  # fmt: skip
        listed = [(30, 20, "转账已提交。")]
    steps.append(S(_zh(listed), Finished(), url, title))
    return verdict_of(tmp, steps, PAYEE_GOAL)



def test_a_chinese_payee_saved_on_a_page_that_stays_where_it_was(tmp_path: Path):
    right = _payees(tmp_path / "right", IBAN)
    assert right[0] == "completed", right
    wrong = _payees(tmp_path / "wrong_iban", "DE89 3704 0044 0532 0130 78")
    assert wrong[0] != "completed", wrong
    sent = _payees(tmp_path / "transferred", IBAN, then_transfer=True)  # 先不要转账: the confirming click breaks it
    assert sent[0] != "completed" and "forbids" in sent[1], sent


def test_a_name_set_off_by_spaces_in_chinese_is_a_value_and_a_single_letter_is_none():
    assert "湖畔托儿所" in R.needles(f"在银行中把 湖畔托儿所（IBAN {IBAN}）保存为新的收款人")
    assert "海港音乐学校" in R.needles("从活期账户向常用收款人 海港音乐学校 转账 25.00 欧元")
    assert "转账" not in R.needles("从活期账户向常用收款人 海港音乐学校 转账 25.00 欧元")  # a verb before a value
    assert not {"中提交报销单", "B", "C", "D"} & set(R.needles("在 FinPortal 中提交报销单，B、C、D 列分别填 1、2、3"))


# ---- a new row by columns ---------------------------------------------------------------------------------------

COLS = {"A": 100, "B": 240, "C": 380, "D": 520}  # the column letters' centres
ROWS = [("项目", "一季度", "二季度", "三季度"), ("差旅", "1400", "5100", "800"), ("软件", "5800", "3500", "4500"),
        ("硬件", "1100", "5700", "5100"), ("活动", "5100", "5300", "3000")]  # fmt: skip
NEW = ("培训", "1200", "800", "1500")
ROW_GOAL = "在表格“2024 团队预算.xlsx”最后一行之后新增一行：A 列填 培训，B、C、D 列分别填 1200、800、1500，然后保存。"
ROW_GOAL_EN = ('In the spreadsheet "2024 团队预算.xlsx", add a new row after the last one with Training in column A and '
               "1200, 800, 1500 in columns B, C and D, then save.")  # fmt: skip


def _sheet(rows: list[tuple[str, ...]]) -> bytes:
    texts = [(x - 8, 20, c) for c, x in COLS.items()] + [(560, 360, "保存")]
    for r in range(7):
        texts.append((10, 60 + 40 * r, str(r + 1)))
        for x, value in zip(COLS.values(), rows[r] if r < len(rows) else (), strict=False):
            texts.append((x - 55, 60 + 40 * r, value))
    return _zh(texts)


def _add_row(tmp: Path, row: int, goal: str, new: tuple[str, ...] = NEW) -> tuple[str, str]:
    """Type the `new` values into sheet row `row` (1-based) and save."""
    url, title = f"{BASE}/drive/f/3", "2024 团队预算.xlsx · 林晓"
    before = _sheet(list(ROWS))
    after_rows = list(ROWS) + [("",) * 4] * 2
    after_rows[row - 1] = new
    steps = []
    for x, value in zip(COLS.values(), new, strict=True):
        steps += [S(before, Click(point=_at(x, 72 + 40 * (row - 1))), url, title), S(before, Type(content=value), url, title)]
    steps += [S(before, Click(point=_at(584, 372)), url, title), S(_sheet(after_rows), Finished(), url, title)]
    return verdict_of(tmp, steps, goal)


def test_a_new_row_given_by_columns_goes_after_the_last_row(tmp_path: Path):
    right = _add_row(tmp_path / "zh", 6, ROW_GOAL)
    assert right[0] == "completed", right
    english = _add_row(tmp_path / "en", 6, ROW_GOAL_EN, ("Training", *NEW[1:]))
    assert english[0] == "completed", english
    over = _add_row(tmp_path / "over", 5, ROW_GOAL)  # written over the row 活动: replaced, not added
    assert over[0] == "failed", over


# ---- a file opened by what it is, and a code read off its table ---------------------------------------------------

GUIDE_GOAL = "打开云盘里的报销指南 PDF。酒店住宿应使用哪个费用类别代码？请回答代码。"


def _guide(tmp: Path, answer: str, opened: str = "差旅报销指南.pdf") -> tuple[str, str]:
    """From Drive's list, open `opened`; its page is a table of codes (代码) and what each is for (说明); answer."""
    drive = _zh([(30, 20, "我的云盘"), (30, 80, "差旅报销指南.pdf"), (30, 140, "团建议程.pdf")])
    table = _zh([(30, 20, "费用类别代码"), (30, 80, "代码"), (250, 80, "说明"), (30, 130, "TRV-AIR"), (250, 130, "机票"),
                 (30, 180, "TRV-HTL"), (250, 180, "酒店住宿"), (30, 230, "OFC-SUP"), (250, 230, "办公用品")])  # fmt: skip
    row = 80 if opened == "差旅报销指南.pdf" else 140
    steps = [S(drive, Click(point=_at(110, row + 12)), f"{BASE}/drive/", "我的云盘 · 林晓"),
             S(table, Finished(content=answer), f"{BASE}/drive/f/1", f"{opened} · 林晓")]  # fmt: skip
    return verdict_of(tmp, steps, GUIDE_GOAL)


def test_a_file_opened_by_its_chinese_description_and_the_code_on_the_row_the_question_names(tmp_path: Path):
    right = _guide(tmp_path / "right", "TRV-HTL")
    assert right[0] == "completed", right
    other_row = _guide(tmp_path / "air", "TRV-AIR")  # the flight's code, on another row of the same column
    assert other_row[0] != "completed", other_row
    other_file = _guide(tmp_path / "agenda", "TRV-HTL", opened="团建议程.pdf")  # not the guide the goal describes
    assert other_file[0] != "completed", other_file


# ---- answers: the field a question names, and whose name a title gives -------------------------------------------

DEPT_GOAL = "你的个人资料里设置的是哪个部门？请回答部门名称。"


def test_the_department_name_is_read_at_its_label_and_the_users_name_in_the_title_answers_nothing(tmp_path: Path):
    """Before: "部门名称" named no field (a name, like a person's), and the log credited "林晓" because every title
    ends with the signed-in user's name ("设置 · 林晓")."""
    profile = _zh([(30, 20, "个人资料"), (30, 80, "姓名"), (30, 130, "林晓"), (30, 200, "部门"), (30, 250, "Product")])

    def run(folder: Path, answer: str) -> tuple[str, str]:
        steps = [S(profile, Click(point=_at(60, 32)), f"{BASE}/settings/?s=profile", "设置 · 林晓"),
                 S(profile, Finished(content=answer), f"{BASE}/settings/?s=profile", "设置 · 林晓")]  # fmt: skip
        return verdict_of(folder, steps, DEPT_GOAL)

    right = run(tmp_path / "right", "Product")
    assert right[0] == "completed", right
    name = run(tmp_path / "name", "林晓")
    assert name[0] != "completed", name


FWD_GOAL = "把邮件“团建场地备选”转发给 lei.wu@northwind.example，只带附件“场地候选名单.pdf”（不要带“内部报价备注.pdf”）。"


def _forward_chips(tmp: Path, drop: bool) -> tuple[str, str]:
    """Forward the mail: its two attachments come as chips on the form; maybe click the one to leave out; send."""
    form = _zh([(30, 20, "新邮件"), (30, 80, "收件人"), (30, 140, "转发：团建场地备选"), (30, 200, "场地候选名单.pdf"),
                (30, 260, "内部报价备注.pdf"), (30, 340, "发送")])  # fmt: skip
    mail = _zh([(30, 20, "团建场地备选"), (30, 80, "吴磊"), (30, 140, "转发")])
    url, title = f"{BASE}/mail/compose?forward=45", "新邮件 · 林晓"
    steps = [S(mail, Click(point=_at(54, 152)), f"{BASE}/mail/m/45", "团建场地备选 · 林晓"),
             S(form, Click(point=_at(300, 92)), url, title),
             S(form, Type(content="lei.wu@northwind.example"), url, title)]  # fmt: skip
    if drop:
        steps.append(S(form, Click(point=_at(120, 272)), url, title))
    steps += [S(form, Click(point=_at(54, 352)), url, title),
              S(_zh([(30, 20, "收件箱"), (30, 80, "邮件已发送")]), Finished(), f"{BASE}/mail/inbox", "收件箱 · 林晓")]
    return verdict_of(tmp, steps, FWD_GOAL)


def test_an_attachment_the_goal_leaves_out_must_be_taken_off_the_forward(tmp_path: Path):
    right = _forward_chips(tmp_path / "dropped", drop=True)
    assert right[0] == "completed", right
    kept = _forward_chips(tmp_path / "kept", drop=False)  # sent with both attachments
    assert kept[0] != "completed", kept


ORGANIZER_GOAL = "下周的“定价委员会”是谁组织的？请回答组织者的邮箱地址。"


def test_an_answer_read_off_an_item_the_agent_made_itself_is_no_answer(tmp_path: Path):
    """Before: the agent made a new event of that title, whose page gave its own address as the organiser, and the
    answer was credited as read on screen."""
    week = _zh([(30, 20, "2024年3月"), (30, 80, "定价委员会"), (400, 20, "新建日程")])
    new = _zh([(30, 20, "新建日程"), (30, 80, "标题"), (30, 200, "保存")])
    made = _zh([(30, 20, "定价委员会"), (30, 80, "组织者"), (30, 130, "lin.xiao@northwind.example")])
    real = _zh([(30, 20, "定价委员会"), (30, 80, "组织者"), (30, 130, "jie.sun@northwind.example")])
    cal = f"{BASE}/calendar/"

    def run(folder: Path, steps: list[S]) -> tuple[str, str]:
        return verdict_of(folder, steps, ORGANIZER_GOAL)

    opened = run(tmp_path / "opened", [S(week, Click(point=_at(90, 92)), cal, "2024年3月 · 林晓"),
                                       S(real, Finished(content="jie.sun@northwind.example"), f"{cal}e/4",
                                         "定价委员会 · 林晓")])  # fmt: skip
    assert opened[0] == "completed", opened
    own = run(tmp_path / "made", [S(week, Click(point=_at(450, 32)), cal, "2024年3月 · 林晓"),
                                  S(new, Click(point=_at(200, 92)), f"{cal}new", "新建日程 · 林晓"),
                                  S(new, Type(content="定价委员会"), f"{cal}new", "新建日程 · 林晓"),
                                  S(new, Click(point=_at(54, 212)), f"{cal}new", "新建日程 · 林晓"),
                                  S(made, Finished(content="lin.xiao@northwind.example"), f"{cal}e/15",
                                    "定价委员会 · 林晓")])  # fmt: skip
    assert own[0] != "completed", own


# ---- one-click acts and a masked change in Chinese -----------------------------------------------------------------

ISSUES = ["山径周刊 第41期", "山径周刊 第42期", "山径周刊 第43期"]
ARCHIVE_GOAL = "把山径周刊的三封通讯（“山径周刊 第41期”“山径周刊 第42期”“山径周刊 第43期”）归档，清理收件箱。"


def _archive(tmp: Path, issues: list[str], undo: bool = False) -> tuple[str, str]:
    """Open each issue from the inbox and click 归档 on its page; maybe move the first back to the inbox."""
    steps = []
    for name in issues:
        inbox = _zh([(30, 20, "收件箱"), (30, 80, name)])
        page = _zh([(30, 20, name), (30, 80, "归档"), (200, 80, "移到收件箱")])
        steps += [S(inbox, Click(point=_at(100, 92)), f"{BASE}/mail/inbox", "收件箱 · 林晓"),
                  S(page, Click(point=_at(54, 92)), f"{BASE}/mail/m/{ISSUES.index(name)}", f"{name} · 林晓")]
    if undo:
        page = _zh([(30, 20, issues[0]), (30, 80, "归档"), (200, 80, "移到收件箱")])
        steps.append(S(page, Click(point=_at(260, 92)), f"{BASE}/mail/m/0", f"{issues[0]} · 林晓"))
    steps.append(S(_zh([(30, 20, "收件箱")]), Finished(), f"{BASE}/mail/inbox", "收件箱 · 林晓"))
    return verdict_of(tmp, steps, ARCHIVE_GOAL)


def test_three_mails_a_chinese_goal_counts_are_each_archived_on_their_own_page(tmp_path: Path):
    """Before: "三封" did not say "each", so one page had to be about all three names, and no run was decided; and
    移到收件箱 did not take an archive back."""
    all_three = _archive(tmp_path / "three", ISSUES)
    assert all_three[0] == "completed", all_three
    two = _archive(tmp_path / "two", ISSUES[:2])
    assert two[0] != "completed", two
    undone = _archive(tmp_path / "undone", ISSUES, undo=True)
    assert undone[0] != "completed", undone


def test_this_mail_carries_the_mail_an_earlier_step_names():
    goal = "把邮件“您的家庭保险保单”的附件保存到云盘，然后把这封邮件归档。"
    assert split_goal(goal) == ["把邮件“您的家庭保险保单”的附件保存到云盘", "把这封邮件归档 (邮件“您的家庭保险保单”)"]


def test_a_chinese_password_change_is_committed_by_its_own_label(tmp_path: Path):
    """Before: "修改密码" was no label the rule took as the keypoint's own words, so the change was undecided."""
    goal = "把密码从“northwind-2024”改为“Lagoon-Otter-58”。"
    form = _zh([(30, 20, "密码"), (30, 80, "当前密码"), (30, 140, "新密码"), (30, 200, "确认新密码"), (30, 260, "修改密码")])
    url, title = f"{BASE}/settings/?s=password", "设置 · 林晓"

    def run(folder: Path, said: str) -> tuple[str, str]:
        steps = [S(form, Click(point=_at(300, 100)), url, title), S(form, Type(content="northwind-2024"), url, title),
                 S(form, Click(point=_at(300, 160)), url, title), S(form, Type(content="Lagoon-Otter-58"), url, title),
                 S(form, Click(point=_at(300, 220)), url, title), S(form, Type(content="Lagoon-Otter-58"), url, title),
                 S(form, Click(point=_at(78, 272)), url, title),
                 S(_zh([(30, 20, "密码"), (30, 330, said)]), Finished(), url, title)]  # fmt: skip
        return verdict_of(folder, steps, goal)

    done = run(tmp_path / "done", "密码已修改。")
    assert done[0] == "completed", done
    refused = run(tmp_path / "refused", "当前密码错误。")
    assert refused[0] != "completed", refused


def test_a_save_to_drive_that_also_asks_a_star_is_not_done_by_the_save_alone(tmp_path: Path):
    goal = "把邮件“您的家庭保险保单”附带的 PDF 保存到云盘并在云盘中加星标。"
    mail = _zh([(30, 20, "您的家庭保险保单"), (30, 80, "保单.pdf"), (30, 140, "保存到云盘")])
    saved = _zh([(30, 20, "您的家庭保险保单"), (30, 80, "保单.pdf"), (30, 140, "保存到云盘"), (30, 260, "已保存到云盘")])
    steps = [S(mail, Click(point=_at(90, 152)), f"{BASE}/mail/m/45", "您的家庭保险保单 · 林晓"),
             S(saved, Finished(), f"{BASE}/mail/m/45", "您的家庭保险保单 · 林晓")]  # fmt: skip
    report = verify_rules(record(tmp_path / "saved", steps, goal))
    assert report.verdict != "completed", why(report)
