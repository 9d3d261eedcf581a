"""Question tasks and Chinese screens under the rule judges: an answer whose value a screen showed is
satisfied, a made-up (hallucinated) value or a missing answer is contradicted, and Chinese quoted values
(“…”, 「…」) are matched against what OCR reads on Chinese screens."""

from __future__ import annotations

from verify_helpers import S, record, screen, zh_screen

from venuskit.actions.types import Click, Finished, Point, Type
from venuskit.verify import make_judges, verify_episode
from venuskit.verify import text as T

APP = "http://127.0.0.1:8000/bank"
GOAL = "How much was the SKYLINE AIRWAYS charge on 2024-03-06? Answer with the amount in EUR."
LIST = screen(["Checking account", "2024-03-06  SKYLINE AIRWAYS", "2024-03-05  CITY MARKET  -23.10"])
DETAIL = screen(["SKYLINE AIRWAYS", "Amount: -312.80 EUR", "Date: 2024-03-06"])


def _charge(tmp_path, answer: str | None, *, detail: bytes = DETAIL, name: str = "ep"):
    steps = [
        S(LIST, Click(point=Point(0.3, 0.2)), f"{APP}/acct/1", "Checking account"),
        S(detail, Finished(content=answer) if answer else Finished(), f"{APP}/txn/7", "Transaction"),
    ]
    return record(tmp_path, steps, GOAL, episode_id=name)


def test_answer_keypoints_and_values_are_read_from_the_text():
    assert T.answer_keypoint("The answer gives 312.80") == "312.80"
    assert T.expected_values(T.answer_keypoint("The answer gives the order number PX-58213")) == ["PX-58213"]
    assert T.expected_values(T.answer_keypoint("The answer states the Savings balance")) == []
    assert T.answer_keypoint('The reply says "Count me in"') is None  # a reply mail is not the answer
    assert T.answer_values("The charge was 312.80 EUR.") == ["312.80"]
    assert T.answer_values("Office handbook.docx") == ["Office handbook.docx"]
    assert T.contains_value("Stock: 17 units", "17") and not T.contains_value("2017-03-01", "17")


def test_chinese_quotes_and_punctuation_normalise_like_ocr_reads_them():
    assert T.quoted("把“入职清单.docx”改为「入职清单（第二版）.docx」") == ["入职清单.docx", "入职清单（第二版）.docx"]
    assert T.contains("我参加,12:30见", "我参加，12:30 见。")  # OCR drops the space and the full stop
    assert T.asks_for_answer("在商城搜索“冰川”，告诉我最便宜的商品叫什么。")


def test_an_answer_shown_on_a_screen_is_satisfied_by_rules_alone(tmp_path):
    contract = verify_episode(_charge(tmp_path, "312.80"), make_judges("ocr,log"),
                              keypoints=["The answer gives 312.80"])  # fmt: skip
    assert contract.verdict == "completed" and contract.cost.calls == 0
    assert contract.keypoints[0].status == "satisfied" and contract.keypoints[0].evidence_step == 1
    # Keypoints split from the goal name no value: the answer only has to be on a screen the agent saw.
    from_goal = verify_episode(tmp_path / "ep", make_judges("ocr,log"))
    assert from_goal.verdict == "completed", [(k.text, k.status) for k in from_goal.keypoints]


def test_a_hallucinated_or_missing_answer_is_contradicted(tmp_path):
    made_up = verify_episode(_charge(tmp_path, "318.40", name="a"), make_judges("ocr,log"))
    answer = [k for k in made_up.keypoints if k.status == "contradicted"]
    assert made_up.verdict == "failed" and answer, [(k.text, k.status) for k in made_up.keypoints]
    assert any("no screen" in v.reason for v in answer[0].votes)
    wrong = verify_episode(tmp_path / "a", make_judges("log"), keypoints=["The answer gives 312.80"])
    assert wrong.keypoints[0].status == "contradicted" and wrong.verdict == "failed"  # the log alone sees it
    silent = verify_episode(_charge(tmp_path, None, name="b"), make_judges("ocr,log"),
                            keypoints=["The answer gives 312.80"])  # fmt: skip
    assert silent.keypoints[0].status == "contradicted" and silent.verdict == "failed"


def test_a_value_only_in_the_field_the_agent_typed_it_into_is_not_evidence(tmp_path):
    search = screen(["Checking account", "Search: 318.40"])
    steps = [
        S(LIST, Click(point=Point(0.3, 0.1)), f"{APP}/acct/1", "Checking account"),
        S(LIST, Type(content="318.40"), f"{APP}/acct/1", "Checking account"),
        S(search, Finished(content="318.40"), f"{APP}/acct/1", "Checking account"),
    ]
    report = verify_episode(record(tmp_path, steps, GOAL), make_judges("ocr,log"))
    assert report.verdict == "failed", [(k.text, k.status) for k in report.keypoints]


def test_chinese_screens_quoted_value_and_answer_are_read_by_ocr(tmp_path):
    inbox = zh_screen(["收件箱", "周五团队聚餐", "本周末全场五折"])
    order = zh_screen(["订单 #62230", "状态：已发货", "极光挂钟"])
    goal = "我的订单 #62230 到了吗？告诉我它当前的状态。"
    steps = [S(inbox, Click(point=Point(0.2, 0.2)), "http://127.0.0.1/shop/orders", "我的订单"),
             S(order, Finished(content="已发货"), "http://127.0.0.1/shop/o/62230", "订单")]  # fmt: skip
    keypoints = ["The answer says 已发货", "The mail 「周五团队聚餐」 is still in the Inbox"]
    report = verify_episode(record(tmp_path, steps, goal, episode_id="zh"), make_judges("ocr,log"),
                            keypoints=keypoints[:1])  # fmt: skip
    assert report.verdict == "completed" and report.keypoints[0].status == "satisfied"
    # The quoted Chinese name is read on the first screen (OCR reads the raw screenshot) but not the last.
    there = verify_episode(tmp_path / "zh", make_judges("ocr"), keypoints=keypoints[1:])
    assert there.keypoints[0].status != "satisfied"
    steps[1] = S(inbox, Finished(content="已取消"), "http://127.0.0.1/shop/orders", "我的订单")
    made_up = verify_episode(record(tmp_path, steps, goal, episode_id="zh2"), make_judges("ocr,log"),
                             keypoints=keypoints)  # fmt: skip
    assert [k.status for k in made_up.keypoints] == ["contradicted", "satisfied"]
    assert made_up.verdict == "failed"


def test_a_still_inside_a_quoted_comment_text_is_not_an_invariant():
    from venuskit.verify import rules as R

    kp = 'Your comment on "Catan?" says: I have Seafarers, still in the box.'
    assert R.positive(kp) and not R.is_invariant(kp)
    assert R.is_invariant("Push notifications are still off") and not R.positive("Push notifications are still off")


def test_goal_questions_split_into_one_answer_keypoint_with_its_qualifiers():
    from venuskit.verify.keypoints import split_goal

    assert split_goal("你为 海港音乐学校 保存的 IBAN 是多少？请回答 IBAN。") == ["Answer: 你为 海港音乐学校 保存的 IBAN 是多少？ (请回答 IBAN)"]
    assert split_goal("Has my order #62230 (Aurora Wall Clock) arrived yet? Tell me its current status.") == [
        "Answer: Has my order #62230 (Aurora Wall Clock) arrived yet? (Tell me its current status)"]
    # A scene-setting sentence (English or Chinese) goes with the question; the question stays an answer point.
    (en,) = split_goal('One of your Drive files mentions "wifi password". Which file is it? Answer with its name.')
    assert en.startswith("Answer: Which file is it?") and "wifi password" in en and en.endswith("(with its name)")
    (zh,) = split_goal("云盘里有个文件提到了“无线网络密码”。是哪个文件？请回答文件名。")
    assert zh.startswith("Answer: 是哪个文件？") and "无线网络密码" in zh
    # An instruction before a question stays a keypoint; "tell me X" asks for an answer that names no value.
    assert split_goal("打开表格“办公用品库存.xlsx”。显示器的库存有多少？请回答数字。") == [
        "打开表格“办公用品库存.xlsx”", "Answer: 显示器的库存有多少？ (请回答数字)"]
    points = split_goal("Show only the money coming in since 2024-03-01, and tell me the largest incoming amount.")
    assert points[1] == "Answer: tell me the largest incoming amount"
    assert T.expected_values(T.answer_keypoint(points[1])) == []


SPEND = screen(["Everyday Checking", "2024-02-03  FIXIT HARDWARE  -41.20", "2024-02-11  CITY MARKET  -23.10",
                "2024-02-17  FIXIT HARDWARE  -55.25"])  # fmt: skip
TOTAL_GOAL = "How much did you pay FIXIT HARDWARE between 2024-02-01 and 2024-02-29? Answer with the total in EUR."


def test_a_total_no_screen_shows_is_satisfied_when_it_sums_amounts_the_screen_showed(tmp_path):
    def run(answer: str, name: str):
        steps = [S(LIST, Click(point=Point(0.3, 0.2)), f"{APP}/acct/1", "Accounts"),
                 S(SPEND, Finished(content=answer), f"{APP}/acct/1?q=FIXIT", "Everyday Checking")]  # fmt: skip
        return verify_episode(record(tmp_path, steps, TOTAL_GOAL, episode_id=name), make_judges("ocr,log"))

    assert run("96.45", "sum").verdict == "completed"  # 41.20 + 55.25
    assert run("96.54", "typo").verdict == "failed"  # no set of the screen's amounts adds up to it
    listed = screen(["Everyday Checking", "2024-02-03  FIXIT HARDWARE  -41.20", "2024-02-11  CITY MARKET  -23.10"])
    steps = [S(LIST, Click(point=Point(0.3, 0.1)), f"{APP}/accounts", "Accounts"),
             S(listed, Finished(content="64.30"), f"{APP}/acct/1", "Everyday Checking")]  # fmt: skip
    question = "How much was the FIXIT HARDWARE charge on 2024-02-03? Answer with the amount."
    report = verify_episode(record(tmp_path, steps, question, episode_id="not-a-total"), make_judges("ocr,log"))
    assert report.verdict == "failed"  # a sum is an answer only to a question that asks for a total


def test_an_answer_of_another_kind_than_the_question_asks_for_is_contradicted(tmp_path):
    assert T.asked_kind("Who wrote the forum post \"Keys\"? (with their name)") == "a person's name"
    assert T.asked_kind("是哪个文件？ (请回答文件名)") == "a file name"
    assert T.asked_kind("Where does \"Fire drill\" take place? (with the location)") == "a place"
    assert T.is_kind("Lobby, ground floor", "a place") and not T.is_kind("#4821", "a place")  # a place has a name
    assert T.is_kind("Isabel Ivanova", "a person's name") and not T.is_kind("Results for", "a person's name")
    assert T.is_kind("办公室手册.docx", "a file name") and not T.is_kind("规划", "a file name")
    goal = "Which file mentions the wifi password? Answer with its file name."
    drive = screen(["My Drive", "Office handbook.docx", "Planning"])

    def run(answer: str, name: str):
        steps = [S(LIST, Click(point=Point(0.3, 0.1)), "http://127.0.0.1:8000/drive/", "My Drive"),
                 S(drive, Finished(content=answer), "http://127.0.0.1:8000/drive/", "My Drive")]  # fmt: skip
        return verify_episode(record(tmp_path, steps, goal, episode_id=name), make_judges("ocr,log"))

    assert run("Office handbook.docx", "file").verdict == "completed"
    label = run("Planning", "label")  # on the screen, but a folder's label, not a file name
    assert label.verdict == "failed" and any("asks for a file name" in v.reason for k in label.keypoints for v in k.votes)


# ---- an answer read where the question points ---------------------------------------------------------------

REPORTS = screen(["Rpt No.       Purpose            Status", "ER-2024-0033  Team offsite       APPROVED",
                  "ER-2024-0032  Conference Lisbon  SUBMITTED", "ER-2024-0031  Client visit Berlin  PAID"], (760, 400))
STATUS_GOAL = "What is the status of expense report ER-2024-0032?"


def test_an_answer_read_on_another_records_row_is_contradicted(tmp_path):
    """Before: any value a screen showed answered the question, so the status of the report on the next row (PAID
    for ER-2024-0031) was `completed`. Now the value must be read on the named report's row."""
    def run(name: str, answer: str):
        steps = [S(REPORTS, Finished(content=answer), f"{APP}/reports", "Reports")]
        return verify_episode(record(tmp_path, steps, STATUS_GOAL, episode_id=name), make_judges("ocr,log"))

    right = run("right", "SUBMITTED")
    assert right.verdict == "completed" and "beside ['ER-2024-0032']" in right.keypoints[0].votes[0].reason
    other = run("other", "PAID")
    assert other.verdict == "failed", [(k.status, [v.reason for v in k.votes]) for k in other.keypoints]
    assert any("another record's row" in v.reason for v in other.keypoints[0].votes)


SALARY_GOAL = "How much salary came into the current account on 2024-03-01? Answer with the amount."


def test_an_answer_read_on_a_screen_of_another_day_is_not_credited(tmp_path):
    """Before: the amount of a transaction of 2024-03-05 answered a question about 2024-03-01 (`completed`): it was
    on a screen. Now the screen that shows it must name the asked day; one that names only another day is no
    evidence, and the run is `uncertain` (whose value it is, pixels do not show)."""
    listing = screen(["Current account", "METRO TRANSIT        -3.46", "SALARY NORTHWIND  4,200.00"])

    def run(name: str, detail: list[str], answer: str):
        steps = [S(listing, Click(point=Point(0.3, 0.2)), f"{APP}/acct/1", "Current account"),
                 S(screen(detail), Finished(content=answer), f"{APP}/txn/9", "Transaction")]  # fmt: skip
        return verify_episode(record(tmp_path, steps, SALARY_GOAL, episode_id=name), make_judges("ocr,log"))

    right = run("right", ["SALARY NORTHWIND LABS", "Amount: 4,200.00", "Booked: 2024-03-01"], "4,200.00")
    assert right.verdict == "completed", right.reason
    other = run("other", ["METRO TRANSIT", "Amount: -3.46", "Booked: 2024-03-05"], "-3.46")
    assert other.verdict == "uncertain" and other.forced != "completed", other.reason
    assert "never beside ['3/1']" in other.reason


def test_days_are_read_in_the_ways_pages_and_goals_write_them():
    from venuskit.models.lexicon import days

    assert days("2024 年 3 月 1 日活期账户收到的工资") == {(3, 1)} == days("Booked: 2024-03-01") == days("3月1日")
    assert days("on 1 March 2024") == days("March 1, 2024") == {(3, 1)}
    assert days("the May 2024 report at 10:30") == set()  # a month and year, a time: no day


# ---- Chinese field values, and a value only listed on the form -----------------------------------------------

EVENT_ZH = "在日历中添加日程“季度规划会”，时间 2024-03-21 13:00 到 15:00，地点 北辰会议室。"


def test_the_value_of_a_chinese_field_clause_is_required():
    """Before: only quoted text and key values were required, so an event saved without its place ("地点 北辰会议室",
    unquoted) was `completed`."""
    assert "北辰会议室" in T.needles(EVENT_ZH) and "季度规划会" in T.needles(EVENT_ZH)
    assert "王芳" in T.needles("新建报销单，审批人 王芳。")
    assert T.needles("把 李雷 加入群组，然后发送") == []  # a verb's object mid-clause is no field value


def test_a_file_only_listed_on_the_form_is_not_attached(tmp_path):
    """Before: every value read anywhere on the form at its submit counted as entered, so a reply sent with the
    file picker merely scrolled into view (the file not picked) was `completed`. A value the agent did not type is
    in the form when the form opened with it, or when the agent clicked on it."""
    from venuskit.verify import ocr
    from venuskit.verify import rules as R
    from venuskit.verify.evidence import Evidence

    kp = "回复邮件“能发我吗”，附上云盘文件“路线图.docx”，正文写“发给你了”"
    form, sent = f"{APP}/mail/reply/4", f"{APP}/mail/inbox?flash=mail_sent"
    empty = zh_screen(["回复：能发我吗", "正文", "发送"])
    listed = zh_screen(["正文：发给你了", "从云盘添加附件", "路线图.docx   3月10日", "预算.xlsx   2月17日", "发送"])

    def run(pick: bool) -> object:
        click_file = Evidence(2, listed, None, "Click", form, "Re: 能发我吗", act=Click(point=Point(0.2, 0.3)),
                              echo=("发给你了",), target="路线图.docx", under=("路线图.docx",), under_at=0)  # fmt: skip
        steps = [Evidence(0, empty, None, "Click", form, "Re: 能发我吗", act=Click(point=Point(0.3, 0.3))),
                 Evidence(1, empty, None, "Type", form, "Re: 能发我吗", act=Type(content="发给你了"))]  # fmt: skip
        steps += [click_file] if pick else []
        steps += [Evidence(len(steps), listed, None, "Click", form, "Re: 能发我吗", act=Click(point=Point(0.2, 0.9)),
                           echo=("发给你了",), target="发送", under=("发送",), under_at=0),
                  Evidence(len(steps) + 1, zh_screen(["收件箱"]), None, "Finished", sent, "收件箱",
                           act=Finished())]  # fmt: skip
        return R.submitted(kp, steps, lambda e: ocr.text(e.png) if e.png else "")

    assert run(pick=False) is None  # no rule decides it: the file was only listed
    picked = run(pick=True)
    assert picked is not None and picked[0] == "satisfied", picked


# ---- the field a question names, a count, a figure on its own ---------------------------------------------

TXN = zh_screen(["河畔宠物医院   -48.20", "入账日期   3月14日", "类别   宠物", "参考号   TX55501234"])
CATEGORY_GOAL = "今天这笔 河畔宠物医院 付款归在哪个类别？请回答类别。"


def test_an_answer_to_a_named_field_is_that_fields_value(tmp_path):
    """Before: any text of a screen the agent saw answered, so "参考号" (the label of another field) answered which
    category a payment has: `completed`. Now the answer is the value the screen gives the field the question names:
    right of its label, on its line, or just below it."""
    def run(name: str, answer: str):
        steps = [S(TXN, Finished(content=answer), f"{APP}/txn/3", "Transaction")]
        return verify_episode(record(tmp_path, steps, CATEGORY_GOAL, episode_id=name), make_judges("ocr,log"))

    assert run("right", "宠物").verdict == "completed"
    label = run("label", "参考号")
    assert label.verdict == "uncertain" and "not as the value of '类别'" in label.reason, label.reason
    from venuskit.verify.page_rules import asked_field

    assert asked_field("What is the status? (with the status)") == "status"
    assert asked_field("Who organises it? (with the organiser's email address)") is None  # a kind, not a field
    assert asked_field("还剩多少件？ (请回答数字)") is None


def test_a_count_is_a_whole_number_and_a_lone_figure_says_not_what_it_counts(tmp_path):
    """Before: any figure answered "how many": the price 44.00 (`completed`), or the quantity field's "1"."""
    assert T.asked_kind("“极光陶瓷花瓶”还剩多少件库存？ (请回答数字)") == "a count"
    assert T.is_kind("3", "a count") and T.is_kind("There are 12 left", "a count") and T.is_kind("1,200", "a count")
    assert not T.is_kind("44.00", "a count")
    page = zh_screen(["极光陶瓷花瓶", "44.00", "仅剩3件", "数量", "1"])
    goal = "“极光陶瓷花瓶”还剩多少件库存？请回答数字。"

    results = zh_screen(["“极光陶瓷花瓶”的搜索结果", "极光陶瓷花瓶   44.00"])

    def run(name: str, answer: str):
        steps = [S(results, Click(point=Point(0.2, 0.3)), f"{APP}/shop/search", "搜索结果"),
                 S(page, Finished(content=answer), f"{APP}/shop/p/5", "极光陶瓷花瓶")]  # fmt: skip
        return verify_episode(record(tmp_path, steps, goal, episode_id=name), make_judges("ocr,log"))

    assert run("right", "3").verdict == "completed"
    assert run("price", "44.00").verdict == "failed"
    lone = run("lone", "1")
    assert lone.verdict == "uncertain" and "a figure on its own" in lone.reason, lone.reason


def test_a_chinese_closing_field_value_is_required():
    needles = T.needles("给 jie.chen@northwind.example 发一封主题为“周二会议室预订”的邮件，内容是：陈杰你好，我已预订周二上午 10 点")
    assert "陈杰你好，我已预订周二上午 10 点" in needles and "周二会议室预订" in needles


def test_an_answer_that_only_says_nothing_was_found_answers_no_question_that_asks_for_a_thing(tmp_path):
    """Before: the page's empty-result line ("No posts match your search.") was on screen, so an agent that read it
    back as its answer was credited with answering where the offsite is."""
    goal = 'Tell me the place Lucas Walsh proposes in the email "Planning the offsite".'
    empty = screen(["Forum", "No posts match your search."])
    steps = [S(empty, Type(content="Lucas Walsh"), "http://127.0.0.1:8000/forum/", "Forum"),
             S(empty, Finished(content="No posts match your search."), "http://127.0.0.1:8000/forum/search", "Forum")]
    report = verify_episode(record(tmp_path, steps, goal), make_judges("ocr,log"))
    assert report.verdict != "completed" and "contradicted" in [k.status for k in report.keypoints], report.reason
    assert T.reports_nothing_found("No posts match your search.", "Where is the offsite?")
    assert T.reports_nothing_found("没有找到相关邮件", "会议地点在哪里？")
    assert not T.reports_nothing_found("No results", "How many orders are still open?")  # "none" answers a count
    assert not T.reports_nothing_found("Lisbon", "Where is the offsite?")


def test_a_code_or_a_date_is_no_amount():
    """Before: any digit made an answer an amount, so "ER-2024-0031" answered "tell me the total of your draft" and
    the run was `completed` (found on a training-template episode). A figure standing alone is one, in either
    script and with a currency."""
    from venuskit.verify.text import asked_kind, is_kind

    assert asked_kind('tell me the total of your FinPortal draft "Workshop Vienna"') == "an amount"
    for code in ("ER-2024-0031", "2024-03-11", "2024年3月", "#58871", "CC-4300"):
        assert not is_kind(code, "an amount"), code
    for amount in ("198.00", "198.00欧元", "€28.95", "4,200.00", "The total is 316.40 EUR.", "42"):
        assert is_kind(amount, "an amount"), amount


# ---- content a keypoint describes instead of quoting -------------------------------------------------------------


def _described_run(tmp_path, goal: str, texts: tuple[str, ...], name: str, source: bytes):
    """The agent reads `source`, opens a form whose fields are labelled Title and Text, types `texts` into them one
    by one and publishes."""
    form_url = f"{APP}/forum/new"
    rows = ["Title", "", "Text", "", "Publish"]  # a label above each field
    shots = [screen(rows)]
    for i, text in enumerate(texts):
        rows = [*rows[: 2 * i + 1], text, *rows[2 * i + 2 :]]
        shots.append(screen(rows))
    steps = [S(source, Click(point=Point(0.1, 0.05)), f"{APP}/bank/acct/1", "Checking account")]
    for i, text in enumerate(texts):
        steps += [S(shots[i], Click(point=Point(0.3, (30 + 50 * (2 * i + 1) + 12) / 400)), form_url, "New post"),
                  S(shots[i], Type(content=text), form_url, "New post")]  # fmt: skip
    steps += [S(shots[len(texts)], Click(point=Point(0.12, (30 + 50 * 4 + 12) / 400)), form_url, "New post"),
              S(screen(["Pets", *texts, "Published."]), Finished(content="Done."), f"{APP}/forum/p/9", "Pets")]
    return verify_episode(record(tmp_path, steps, goal, episode_id=name), make_judges("ocr,log"))


def test_described_content_is_the_answer_to_the_question_its_description_asks(tmp_path):
    """Content a keypoint describes instead of quoting ("the text the amount of the RIVERSIDE VET payment on
    2024-03-12") is checked as the answer to "what is the amount of …?": the typed figure must have been on a screen
    the agent saw before, on the row of the day the description names. Before, the description's own values
    ("2024", "RIVERSIDE VET") were taken for entries the form must hold, so the right post was never credited; and a
    post whose text was any typed figure but the source's passed the log rule. Typing the source's name or day is
    no content."""
    goal = 'Post in the "Pets" group with the title "Vet bill" and the text the amount of the RIVERSIDE VET payment ' \
           "on 2024-03-12."  # fmt: skip
    bank = screen(["Checking account", "2024-03-08  RIVERSIDE VET  -45.00", "2024-03-12  RIVERSIDE VET  -312.40"])

    def post(text: str) -> object:
        return _described_run(tmp_path, goal, ("Vet bill", text), text.replace(" ", "_"), bank)

    def why(report: object) -> list:
        return [(k.text, k.status, [v.reason for v in k.votes]) for k in report.keypoints]

    right = post("312.40")
    assert right.verdict == "completed", why(right)
    assert any("312.40" in v.reason for v in right.keypoints[0].votes), why(right)
    other_day = post("45.00")  # the payment of another day: on a screen, but on 2024-03-08's row
    assert other_day.verdict == "failed" and right.keypoints[0].status == "satisfied", why(other_day)
    assert any("another record" in v.reason for v in other_day.keypoints[0].votes), why(other_day)
    made_up = post("318.40")  # on no screen the agent saw
    assert made_up.verdict == "failed", why(made_up)
    for source_words in ("RIVERSIDE VET", "2024-03-12"):  # the description's own values are no content
        report = post(source_words)
        assert report.verdict != "completed" and report.keypoints[0].status != "satisfied", why(report)


def test_described_content_needs_a_typed_text_besides_the_keypoints_values(tmp_path):
    """A document saved with only its title typed, or a post whose text is the source's name ("Return authorised"
    for its reference number), wrote no content; a quoted text is no description (typing it is the content)."""
    mail = screen(["Return authorised", "Your return was approved.", "Reference: RA-55120"])
    goal = 'Post in the "Pets" group with the title "Meetup next month?" and the text the reference number in the ' \
           'email "Return authorised".'  # fmt: skip
    named = _described_run(tmp_path, goal, ("Meetup next month?", "Return authorised"), "named", mail)
    assert named.verdict != "completed" and named.keypoints[0].status != "satisfied"
    title_only = _described_run(tmp_path, goal, ("Meetup next month?",), "title", mail)
    assert title_only.verdict != "completed"
    right = _described_run(tmp_path, goal, ("Meetup next month?", "RA-55120"), "right", mail)
    assert right.verdict == "completed", [(k.text, k.status, [v.reason for v in k.votes]) for k in right.keypoints]
    quoted = _described_run(tmp_path, 'Post in the "Pets" group with the title "Notes" and the text "hello".',
                            ("Notes", "hello"), "quoted", mail)  # fmt: skip
    assert quoted.verdict == "completed", [(k.text, k.status) for k in quoted.keypoints]
    assert T.described('Create a document titled "X" containing the text "Status: in progress"') is None


def _draft_run(tmp_path, goal: str, to: str, name: str):
    """The agent fills To, Subject and Message of a mail form (a label above each field) with `to`, "Your mentoring
    session" and "I can make it.", then saves it as a draft; the run verified with the rules."""
    form_url, drafts = f"{APP}/mail/compose", f"{APP}/mail/drafts?flash=draft_saved"
    texts = (to, "Your mentoring session", "I can make it.")
    rows = ["To", "", "Subject", "", "Message", "", "Save draft"]
    shots = [screen(rows)]
    for i, text in enumerate(texts):
        rows = [*rows[: 2 * i + 1], text, *rows[2 * i + 2 :]]
        shots.append(screen(rows))
    steps = []
    for i, text in enumerate(texts):
        steps += [S(shots[i], Click(point=Point(0.3, (30 + 50 * (2 * i + 1) + 12) / 400)), form_url, "New message"),
                  S(shots[i], Type(content=text), form_url, "New message")]  # fmt: skip
    steps += [S(shots[3], Click(point=Point(0.12, (30 + 50 * 6 + 12) / 400)), form_url, "New message"),
              S(screen(["Drafts", "Your mentoring session", "Draft saved."]), Finished(content="Done."), drafts,
                "Drafts")]  # fmt: skip
    return verify_episode(record(tmp_path, steps, goal, episode_id=name), make_judges("ocr,log"))


def test_a_mail_saved_for_another_recipient_is_not_the_mail_asked_for(tmp_path):
    """Before: only the quoted subject and text were checked, so a draft typed to lena.fischer@… was `completed` for
    "write an email to sofia.chen@… with the subject "…"". The address outside the quotes is a value like them."""
    goal = ('Write an email to sofia.chen@northwind.example with the subject "Your mentoring session" saying '
            '"I can make it.", but only save it as a draft.')  # fmt: skip

    def run(name: str, to: str):
        return _draft_run(tmp_path, goal, to, name)

    right = run("right", "sofia.chen@northwind.example")
    assert right.verdict == "completed", [(k.text, k.status, [v.reason for v in k.votes]) for k in right.keypoints]
    other = run("other", "lena.fischer@northwind.example")
    assert other.verdict != "completed", other.reason
    mail = next(k for k in other.keypoints if "sofia.chen" in k.text)
    assert mail.status != "satisfied" and any("lena.fischer" in v.reason for v in mail.votes), [v.reason for v in mail.votes]


def test_a_figure_answers_for_the_row_it_stands_on(tmp_path):
    """Before: any figure a screen showed answered, so the sheet's "Tips 20.00" answered "the Venue hire amount",
    the order's subtotal answered its total, and an event's end time answered its start time (`completed`). Now a
    figure that stood only on rows the question does not name, beside a row it names holding another figure of
    that kind, is contradicted; so is a start time read only as a range's end."""
    sheet = screen(["Equipment costs.xlsx", "Item    Amount (EUR)", "Deposit    100.00", "Venue hire    27.95",
                    "Tips    20.00"])  # fmt: skip
    order = screen(["Order #70422    Delivered", "Fjord Wool Socks    Quantity: 1    14.90", "Subtotal    14.90",
                    "Shipping    9.90", "Total    24.80"])  # fmt: skip
    event = screen(["Board prep", "Thu, 21 Mar 2024, 11:15 - 23:00", "Library meeting room"])
    cases = [('What is the Venue hire amount in the spreadsheet "Equipment costs.xlsx"?', sheet, "27.95", "20.00",
              "Equipment costs.xlsx"), ("What is the total of order #70422, shipping included?", order, "24.80",
              "14.90", "Order #70422"), ('What is the start time of "Board prep" in your calendar?', event, "11:15",
              "23:00", "Board prep")]  # fmt: skip
    for i, (goal, page, right, wrong, title) in enumerate(cases):
        def run(name: str, answer: str, goal: str = goal, page: bytes = page, title: str = title, i: int = i):
            steps = [S(screen(["Home"]), Click(point=Point(0.1, 0.1)), f"{APP}/", "Home"),
                     S(page, Finished(content=answer), f"{APP}/x/{i}", title)]  # fmt: skip
            return verify_episode(record(tmp_path, steps, goal, episode_id=f"{i}-{name}"), make_judges("ocr,log"))

        good, bad = run("right", right), run("wrong", wrong)
        assert good.verdict == "completed", (goal, good.reason)
        assert bad.verdict == "failed", (goal, bad.reason, [v.reason for k in bad.keypoints for v in k.votes])
    # A figure on a row the question does not name, with no row it names beside it, keeps its credit (a detail page
    # that labels the amount "Amount" for "how much was the X charge").
    detail = screen(["SKYLINE AIRWAYS", "Amount: -312.80 EUR", "Date: 2024-03-06"])
    steps = [S(screen(["Home"]), Click(point=Point(0.1, 0.1)), f"{APP}/", "Home"),
             S(detail, Finished(content="312.80"), f"{APP}/txn/7", "Transaction")]  # fmt: skip
    report = verify_episode(record(tmp_path, steps, "How much was the SKYLINE AIRWAYS charge? Answer in EUR.",
                                   episode_id="detail"), make_judges("ocr,log"))  # fmt: skip
    assert report.verdict == "completed", report.reason
    # A figure in running text is no row's value: the time a mail proposes, beside the list row of its sender's
    # received time.
    mail = screen(["Felix Larsen    09:12", "Catch-up about the launch",
                   "could we meet on 2024-03-20 at 13:30 in the library?"])  # fmt: skip
    steps = [S(screen(["Home"]), Click(point=Point(0.1, 0.1)), f"{APP}/", "Home"),
             S(mail, Finished(content="13:30"), f"{APP}/mail/m/4", "Catch-up about the launch")]  # fmt: skip
    report = verify_episode(record(tmp_path, steps, 'What time does Felix Larsen propose in the email "Catch-up about '
                                   'the launch"?', episode_id="mail"), make_judges("ocr,log"))  # fmt: skip
    assert report.verdict == "completed", report.reason


def test_a_mail_to_your_own_address_is_not_credited_on_its_subject_alone(tmp_path):
    """Before: "Write an email to your own account's email address with the subject "X" …" named no address, so a
    draft with that subject to anyone was `completed` (a training set's `wrong_recipient` run). Whose address was
    typed, the screens do not say: the keypoint is left undecided, never satisfied."""
    goal = ("Write an email to your own account's email address with the subject \"Your mentoring session\" saying "
            '"I can make it.", but only save it as a draft.')  # fmt: skip
    assert T.own_recipient(goal) and not T.own_recipient('Write to a@b.example "your own account"')
    report = _draft_run(tmp_path, goal, "lena.fischer@northwind.example", "own")
    mail = report.keypoints[0]
    assert report.verdict != "completed" and mail.status != "satisfied", [v.reason for v in mail.votes]
