# ruff: noqa: E501 - text pools: Chinese characters count double towards the line width
"""The background world, generated deterministically from a seed: people, mail, files, events, bank.

Everything comes from one `random.Random(seed)` drawing from fixed pools, so the same (seed, locale,
today) always yields the same database. Tasks put the rows they need on top (see venuskit.tasks);
this module only makes the world look lived in.
"""

from __future__ import annotations

import datetime as dt
import json
import random
import sqlite3
from typing import Any

from venuskit.world import data_forum, data_shop

COMPANY = {"en": ("Northwind Labs", "northwind.example"), "zh": ("北风科技", "northwind.example")}
USER = {"en": ("Alex Morgan", "alex.morgan"), "zh": ("林晓", "lin.xiao")}

FIRST = {
    "en": ["Priya", "Daniel", "Sofia", "Marcus", "Hannah", "Ethan", "Olivia", "Lucas", "Maya", "Noah", "Grace",
           "Omar", "Chloe", "Julian", "Aisha", "Felix", "Nora", "Leo", "Isabel", "Samuel"],
    "zh": ["伟", "芳", "娜", "敏", "静", "磊", "洋", "艳", "勇", "杰", "娟", "涛", "明", "超", "秀英", "霞", "平", "刚",
           "桂英", "建华"],
}  # fmt: skip
LAST = {
    "en": ["Patel", "Kim", "Rossi", "Chen", "Becker", "Walsh", "Novak", "Okafor", "Silva", "Larsen", "Haddad",
           "Brooks", "Ivanova", "Moreau", "Tanaka"],
    "zh": ["王", "李", "张", "刘", "陈", "杨", "赵", "黄", "周", "吴", "徐", "孙", "胡", "朱", "高"],
}  # fmt: skip
PINYIN = {"伟": "wei", "芳": "fang", "娜": "na", "敏": "min", "静": "jing", "磊": "lei", "洋": "yang", "艳": "yan",
          "勇": "yong", "杰": "jie", "娟": "juan", "涛": "tao", "明": "ming", "超": "chao", "秀英": "xiuying",
          "霞": "xia", "平": "ping", "刚": "gang", "桂英": "guiying", "建华": "jianhua", "王": "wang", "李": "li",
          "张": "zhang", "刘": "liu", "陈": "chen", "杨": "yang", "赵": "zhao", "黄": "huang", "周": "zhou", "吴": "wu",
          "徐": "xu", "孙": "sun", "胡": "hu", "朱": "zhu", "高": "gao"}  # fmt: skip
TITLES = {
    "en": ["Product Manager", "Software Engineer", "Designer", "Finance Analyst", "Team Lead", "Recruiter",
           "Data Scientist", "Office Manager"],
    "zh": ["产品经理", "软件工程师", "设计师", "财务分析师", "团队负责人", "招聘专员", "数据科学家", "行政经理"],
}  # fmt: skip

# (subject, body) pairs; {name} is the recipient's first name, {sender} the sender's.
MAIL_TEMPLATES = {
    "en": [
        ("Weekly sync notes", "Hi {name},\n\nHere are the notes from this week's sync:\n- Launch checklist is 80% done\n"
         "- Design review moved to Thursday\n- Please update your tickets before Friday\n\nThanks,\n{sender}"),
        ("Lunch on Thursday?", "Hey {name},\n\nA few of us are going to the new ramen place on Thursday at 12:30. "
         "Want to join?\n\n{sender}"),
        ("Re: Q2 roadmap draft", "Thanks for the draft. I left comments on sections 2 and 4; overall it reads well. "
         "Can we finalise it next week?\n\n{sender}"),
        ("Your parcel is on its way", "Good news! Your order #48213 has shipped and should arrive within 2-3 "
         "business days.\n\nTrack your parcel in the Shop app.\n\nThe Parcelly team"),
        ("Invitation: Design review", "{sender} invited you to Design review.\nWhen: Thursday 14:00-15:00\n"
         "Where: Room Aurora\n\nPlease respond in Calendar."),
        ("Security alert", "We noticed a new sign-in to your account from Chrome on Linux. If this was you, "
         "you can ignore this message.\n\nAccount Security"),
        ("Offsite agenda", "Hi all,\n\nAttached is the agenda for the team offsite. We start at 9:30 with coffee. "
         "Let me know about dietary requirements by Wednesday.\n\n{sender}"),
        ("Quick question about the budget", "Hi {name},\n\nDo you know whether the conference tickets come out of "
         "the team budget or the training budget?\n\nCheers,\n{sender}"),
        ("Newsletter: March product updates", "This month: faster search, dark mode for Drive, and a new mobile "
         "layout for Calendar. Read the full changelog on our blog."),
        ("Interview feedback needed", "Hi {name}, could you add your feedback for yesterday's candidate to the "
         "hiring sheet by end of day? Thanks! {sender}"),
        ("Coffee chat", "Hi {name}! I just joined the data team and would love to grab a coffee sometime this "
         "week. Let me know what works.\n\n{sender}"),
        ("Reminder: timesheets due", "Friendly reminder that timesheets for this month are due on Friday.\n\n"
         "People Operations"),
    ],
    "zh": [
        ("本周例会纪要", "{name}你好：\n\n本周例会要点：\n- 上线检查清单已完成 80%\n- 设计评审改到周四\n- 请在周五前更新工单\n\n谢谢，\n{sender}"),
        ("周四一起吃午饭？", "{name}，周四中午 12:30 我们几个去新开的拉面店，一起吗？\n\n{sender}"),
        ("回复：第二季度路线图草稿", "草稿收到了，我在第 2 和第 4 部分留了批注，整体不错。下周定稿可以吗？\n\n{sender}"),
        ("您的包裹已发货", "您的订单 #48213 已发货，预计 2-3 个工作日送达。\n\n可在商城应用中查看物流。\n\n包裹侠团队"),
        ("邀请：设计评审", "{sender} 邀请您参加设计评审。\n时间：周四 14:00-15:00\n地点：极光会议室\n\n请在日历中回复。"),
        ("安全提醒", "我们发现您的账户在 Linux 上的 Chrome 有一次新的登录。如果是您本人操作，请忽略本邮件。\n\n账户安全中心"),
        ("团建议程", "各位好：\n\n附件是团队团建的议程，9:30 开始，先喝咖啡。有饮食忌口请在周三前告诉我。\n\n{sender}"),
        ("关于预算的一个问题", "{name}你好，会议门票是走团队预算还是培训预算？\n\n{sender}"),
        ("产品月报：三月更新", "本月更新：搜索更快、云盘深色模式、日历全新移动端布局。完整更新日志请见官方博客。"),
        ("需要面试反馈", "{name}，请在今天下班前把昨天候选人的面试反馈填到招聘表里，谢谢！{sender}"),
        ("喝杯咖啡？", "{name}你好！我刚加入数据团队，这周想约你喝杯咖啡认识一下，看你什么时间方便。\n\n{sender}"),
        ("提醒：工时表即将截止", "温馨提示：本月工时表周五截止。\n\n人力资源部"),
    ],
}  # fmt: skip

EVENT_TITLES = {
    "en": ["Team standup", "1:1 with manager", "Design review", "Sprint planning", "Lunch with Priya", "Dentist",
           "Customer call", "Quarterly review", "Yoga", "Hiring sync"],
    "zh": ["团队站会", "与经理一对一", "设计评审", "迭代计划会", "和同事午餐", "看牙医", "客户电话", "季度回顾", "瑜伽课", "招聘同步会"],
}  # fmt: skip
ROOMS = {"en": ["Room Aurora", "Room Borealis", "Video call", "Cafe Lumen"],
         "zh": ["极光会议室", "北辰会议室", "视频会议", "流明咖啡"]}  # fmt: skip

MERCHANTS = [  # (merchant, category, min, max) amounts in currency units; negative = money out
    ("Blue Bottle Coffee", "Dining", 4, 9), ("FreshMart Groceries", "Groceries", 25, 140),
    ("Metro Transit", "Transport", 2, 6), ("City Power & Light", "Utilities", 60, 120),
    ("Streamly Subscription", "Entertainment", 12, 16), ("Bookworm Books", "Shopping", 10, 45),
    ("Corner Pharmacy", "Health", 8, 40), ("Uber Trip", "Transport", 9, 35), ("Gym Pulse", "Health", 39, 39),
    ("Parcelly Shop", "Shopping", 20, 90),
]  # fmt: skip

DRIVE_FILES = {
    "en": [
        ("Q2 roadmap.docx", "doc", "Planning"), ("Team budget 2024.xlsx", "sheet", "Finance"),
        ("Onboarding checklist.docx", "doc", "Team"), ("Offsite agenda.pdf", "pdf", "Team"),
        ("Meeting notes - March.docx", "doc", "Planning"), ("Vendor contacts.xlsx", "sheet", "Finance"),
    ],
    "zh": [
        ("第二季度路线图.docx", "doc", "规划"), ("2024 团队预算.xlsx", "sheet", "财务"),
        ("入职清单.docx", "doc", "团队"), ("团建议程.pdf", "pdf", "团队"),
        ("三月会议纪要.docx", "doc", "规划"), ("供应商联系人.xlsx", "sheet", "财务"),
    ],
}  # fmt: skip

# The tutorial the reimbursement workflow starts from; category codes are only written here.
EXPENSE_CODES = [("TRV-AIR", "Air travel", "机票"), ("TRV-HTL", "Hotel / lodging", "酒店住宿"),
                 ("TRV-GRD", "Taxi, train, car rental", "出租车、火车、租车"), ("MLS-CLT", "Client meals", "客户餐费"),
                 ("MLS-TRV", "Meals while travelling", "差旅餐费"), ("OFC-SUP", "Office supplies", "办公用品")]  # fmt: skip


def expense_guide(locale: str) -> dict[str, Any]:
    """The 'Expense portal guide' PDF: pages of blocks (h = heading, p = paragraph, table, li)."""
    if locale == "zh":
        return {
            "pages": [
                [
                    {"h": "差旅报销指南（FinPortal 2.3）"},
                    {"p": "所有差旅费用须在出差结束后 30 天内通过 FinPortal 报销。"},
                    {
                        "p": "步骤：1）新建报销单（Exp. Rpt → New），填写事由与成本中心；2）逐条录入费用，选择正确的类别代码；"
                        "3）从云盘附加收据（Rcpt Att.）；4）核对后提交审批（Submit for Approval）。"
                    },
                    {"p": "成本中心（CC/WBS）默认为您所在部门：产品部 CC-4100，工程部 CC-4200，财务部 CC-4300。"},
                ],
                [
                    {"h": "费用类别代码"},
                    {"table": [["代码", "说明"]] + [[c, zh] for c, _, zh in EXPENSE_CODES]},
                    {"p": "金额须与收据一致，币种按收据填写。未附收据的报销单无法提交。"},
                ],
            ],
            "style": "doc",
        }
    return {"pages": [
        [{"h": "Travel expense guide (FinPortal 2.3)"},
         {"p": "File every travel expense in FinPortal within 30 days after the trip ends."},
         {"p": "Steps: 1) create a report (Exp. Rpt → New) with the purpose and cost centre; 2) enter each expense "
               "line with the right category code; 3) attach the receipt from Drive (Rcpt Att.); 4) review and "
               "Submit for Approval."},
         {"p": "The cost centre (CC/WBS) defaults to your department: Product CC-4100, Engineering CC-4200, "
               "Finance CC-4300."}],
        [{"h": "Expense category codes"}, {"table": [["Code", "Meaning"]] + [[c, en] for c, en, _ in EXPENSE_CODES]},
         {"p": "The amount must match the receipt, in the receipt's currency. Reports without a receipt cannot be "
               "submitted."}],
    ], "style": "doc"}  # fmt: skip


def person(rng: random.Random, locale: str, domain: str) -> tuple[str, str]:
    first, last = rng.choice(FIRST[locale]), rng.choice(LAST[locale])
    if locale == "zh":
        return last + first, f"{PINYIN[first]}.{PINYIN[last]}@{domain}"
    return f"{first} {last}", f"{first.lower()}.{last.lower()}@{domain}"


def _insert(conn: sqlite3.Connection, table: str, **values: Any) -> int:
    cols, marks = ", ".join(values), ", ".join("?" for _ in values)
    return int(conn.execute(f"INSERT INTO {table}({cols}) VALUES ({marks})", tuple(values.values())).lastrowid or 0)


def _stamp(day: dt.date, minutes: int) -> str:
    return (
        dt.datetime.combine(day, dt.time(0, 0))
        .replace(hour=minutes // 60, minute=minutes % 60)
        .isoformat(timespec="minutes")
    )


def generate(conn: sqlite3.Connection, seed: int, locale: str, today: dt.date) -> None:
    """Fill an empty schema with the background world for (seed, locale, today)."""
    rng = random.Random(f"{seed}:{locale}:{today.isoformat()}")
    company, domain = COMPANY[locale]
    uname, ulocal = USER[locale]
    meta = {"seed": str(seed), "locale": locale, "today": today.isoformat(), "now": _stamp(today, 9 * 60 + 30),
            "user_name": uname, "user_email": f"{ulocal}@{domain}", "company": company, "department": "Product",
            "notify_email": "1", "notify_push": "0", "password_changed": ""}  # fmt: skip
    for k, v in meta.items():
        _insert(conn, "meta", key=k, value=v)
    people = _people(conn, rng, locale, domain)
    _mails(conn, rng, locale, today, people, meta["user_email"], uname)
    _drive(conn, rng, locale, today)
    _events(conn, rng, locale, today, people)
    _bank(conn, rng, locale, today)
    _expenses(conn, rng, today)
    # ---- shop and forum: their own random streams, so adding them changed no other app's world ----
    data_shop.generate(conn, random.Random(f"{seed}:{locale}:{today.isoformat()}:shop"), locale, today, uname)
    data_forum.generate(
        conn,
        random.Random(f"{seed}:{locale}:{today.isoformat()}:forum"),
        locale,
        today,
        people,
        (uname, meta["user_email"]),
    )


def _people(conn: sqlite3.Connection, rng: random.Random, locale: str, domain: str) -> list[tuple[str, str]]:
    seen: dict[str, str] = {}
    while len(seen) < 18:
        name, email = person(rng, locale, domain)
        if email not in seen and name not in seen.values():
            seen[email] = name
    out = [(n, e) for e, n in seen.items()]
    for name, email in out:
        _insert(conn, "people", name=name, email=email, org=COMPANY[locale][0], title=rng.choice(TITLES[locale]))
    return out


def _mails(conn, rng, locale, today, people, user_email, uname) -> None:
    first = uname.split()[0] if locale == "en" else uname[1:]
    for i in range(34):
        subject, body = rng.choice(MAIL_TEMPLATES[locale])
        name, email = rng.choice(people)
        day = today - dt.timedelta(days=i * 30 // 34)
        sender_first = name.split()[0] if locale == "en" else name
        _insert(conn, "mails", folder="inbox", sender_name=name, sender=email, recipients=user_email,
                subject=subject, body=body.format(name=first, sender=sender_first),
                sent_at=_stamp(day, rng.randint(7 * 60, 9 * 60 + 20) if i < 2 else rng.randint(7 * 60, 19 * 60)),
                unread=int(i < 6 and rng.random() < 0.7), starred=int(rng.random() < 0.1))  # fmt: skip
    for i in range(8):
        subject, body = rng.choice(MAIL_TEMPLATES[locale])
        name, email = rng.choice(people)
        day = today - dt.timedelta(days=2 + i * 3)
        _insert(conn, "mails", folder="sent", sender_name=uname, sender=user_email, recipients=email,
                subject=("Re: " if locale == "en" else "回复：") + subject, body=body.format(name=name, sender=uname),
                sent_at=_stamp(day, rng.randint(8 * 60, 18 * 60)))  # fmt: skip
    name, email = rng.choice(people)
    _insert(
        conn,
        "mails",
        folder="drafts",
        sender_name=uname,
        sender=user_email,
        recipients=email,
        subject="Follow-up" if locale == "en" else "跟进",
        body="",
        sent_at=_stamp(today - dt.timedelta(days=1), 17 * 60),
    )
    subject, body = MAIL_TEMPLATES[locale][8]
    _insert(
        conn,
        "mails",
        folder="trash",
        sender_name="Newsletter",
        sender="news@updates.example",
        recipients=user_email,
        subject=subject,
        body=body,
        sent_at=_stamp(today - dt.timedelta(days=9), 6 * 60),
        prev_folder="inbox",
    )


def _doc_body(kind: str, title: str, rng: random.Random, locale: str) -> dict[str, Any]:
    if kind == "sheet":
        head = ["Item", "Q1", "Q2", "Q3"] if locale == "en" else ["项目", "一季度", "二季度", "三季度"]
        items = ["Travel", "Software", "Hardware", "Events"] if locale == "en" else ["差旅", "软件", "硬件", "活动"]
        return {"cells": [head] + [[it] + [str(rng.randint(5, 60) * 100) for _ in range(3)] for it in items]}
    if kind == "pdf":
        line = "Agenda" if locale == "en" else "议程"
        return {
            "pages": [[{"h": title.rsplit(".", 1)[0]}, {"li": [f"{line} {i + 1}" for i in range(4)]}]],
            "style": "doc",
        }
    text = {
        "en": f"{title.rsplit('.', 1)[0]}\n\nOwner: Product team\n\n1. Goals\n2. Milestones\n3. Risks\n",
        "zh": f"{title.rsplit('.', 1)[0]}\n\n负责人：产品团队\n\n1. 目标\n2. 里程碑\n3. 风险\n",
    }[locale]
    return {"text": text}


def add_doc(conn: sqlite3.Connection, kind: str, title: str, body: dict[str, Any]) -> int:
    return _insert(conn, "docs", kind=kind, title=title, body=json.dumps(body, ensure_ascii=False))


def _drive(conn, rng, locale, today) -> None:
    guide = "Expense portal guide.pdf" if locale == "en" else "差旅报销指南.pdf"
    files = [(guide, "pdf", "Finance" if locale == "en" else "财务")] + DRIVE_FILES[locale]
    for i, (name, kind, folder) in enumerate(files):
        body = expense_guide(locale) if i == 0 else _doc_body(kind, name, rng, locale)
        doc = add_doc(conn, kind, name, body)
        modified = _stamp(today - dt.timedelta(days=rng.randint(1, 40)), rng.randint(8 * 60, 18 * 60))
        _insert(
            conn,
            "files",
            name=name,
            folder=folder,
            doc_id=doc,
            size=rng.randint(18, 900) * 1024,
            modified=modified,
            starred=int(i == 0),
        )


def _events(conn, rng, locale, today, people) -> None:
    first = today.replace(day=1)
    taken: set[tuple[dt.date, int | str]] = set()  # one event per slot and one of each title per day
    for i in range(22):
        day = first + dt.timedelta(days=rng.randint(0, 27))
        start = rng.choice([9 * 60, 10 * 60, 11 * 60 + 30, 14 * 60, 15 * 60 + 30])
        title = rng.choice(EVENT_TITLES[locale])
        if day.weekday() >= 5 or (day, start) in taken or (day, title) in taken:
            continue
        taken |= {(day, start), (day, title)}
        attendees = ", ".join(e for _, e in rng.sample(people, 2))
        _insert(
            conn,
            "events",
            title=title,
            start=_stamp(day, start),
            end=_stamp(day, start + 30 + 30 * (i % 2)),
            location=rng.choice(ROOMS[locale]),
            attendees=attendees,
            organizer=rng.choice(people)[1],
        )


def _bank(conn, rng, locale, today) -> None:
    names = (
        ("Everyday Checking", "Savings", "Credit Card") if locale == "en" else ("日常活期账户", "储蓄账户", "信用卡")
    )
    currency = "EUR"
    ids = [_insert(conn, "accounts", name=n, number=f"{rng.randint(1000, 9999)} {rng.randint(1000, 9999)} "
                   f"{rng.randint(1000, 9999)} {rng.randint(1000, 9999)}", balance=0, currency=currency)
           for n in names]  # fmt: skip
    for i in range(70):
        merchant, cat, lo, hi = rng.choice(MERCHANTS)
        acct = ids[0] if rng.random() < 0.75 else ids[2]
        day = today - dt.timedelta(days=i * 60 // 70 + 1)
        amount = -rng.randint(lo * 100, hi * 100)
        _insert(
            conn,
            "txns",
            account_id=acct,
            posted=day.isoformat(),
            description=merchant.upper(),
            category=cat,
            amount=amount,
            ref=f"TX{rng.randint(10**7, 10**8 - 1)}",
        )
    for months in (0, 1):
        day = (today.replace(day=1) - dt.timedelta(days=30 * months)).replace(day=1)
        _insert(
            conn,
            "txns",
            account_id=ids[0],
            posted=day.isoformat(),
            description="SALARY NORTHWIND LABS",
            category="Income",
            amount=420000,
            ref=f"TX{rng.randint(10**7, 10**8 - 1)}",
        )
    _insert(
        conn,
        "txns",
        account_id=ids[1],
        posted=(today - dt.timedelta(days=20)).isoformat(),
        description="TRANSFER FROM CHECKING",
        category="Transfer",
        amount=50000,
        ref="TX10000001",
    )
    for acct, base in zip(ids, (245000, 1230000, -48000), strict=True):
        total = conn.execute("SELECT COALESCE(SUM(amount), 0) FROM txns WHERE account_id = ?", (acct,)).fetchone()[0]
        conn.execute("UPDATE accounts SET balance = ? WHERE id = ?", (base + total, acct))
    for name, iban in (
        ("Green Leaf Landlord", "DE44 5001 0517 5407 3249 31"),
        ("City Power & Light", "DE12 3704 0044 0532 0130 00"),
        ("Sofia Rossi", "IT60 X054 2811 1010 0000 0123 456"),
    ):
        _insert(conn, "payees", name=name, iban=iban)


def _expenses(conn, rng, today) -> None:
    for i, status in enumerate(("PAID", "APPROVED", "REJECTED")):
        created = (today - dt.timedelta(days=90 - 25 * i)).isoformat()
        rid = _insert(conn, "expense_reports", code=f"ER-2024-{31 + i:04d}", purpose=["Client visit Berlin",
                      "Conference Lisbon", "Team offsite"][i], cost_center="CC-4100", trip_from=created, trip_to=created,
                      status=status, created=created, submitted=created, approver="M. Becker")  # fmt: skip
        _insert(
            conn,
            "expense_lines",
            report_id=rid,
            exp_date=created,
            category=["TRV-HTL", "TRV-AIR", "MLS-CLT"][i],
            merchant=["Hotel Adlon", "TAP Air", "Osteria Roma"][i],
            amount=rng.randint(80, 600) * 100,
            currency="EUR",
        )
