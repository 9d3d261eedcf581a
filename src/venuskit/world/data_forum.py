# ruff: noqa: E501 - text pools: Chinese characters count double towards the line width
"""The Forum's background: interest groups, posts by the world's people, comments and reactions.

Group names are fixed per locale (tasks can name them); which groups the user has joined, who wrote what,
when, and who reacted vary with the seed. Tasks add their own posts and comments on top (setup ops
`group`, `post`, `comment`).
"""

from __future__ import annotations

import datetime as dt
import random
import sqlite3
from typing import Any

KINDS = ("like", "love", "funny", "insightful", "celebrate")

# (en name, zh name, en description, zh description, colour)
GROUPS = [
    ("Trail Runners", "越野跑友会", "Weekend runs, race reports and shoe talk.", "周末约跑、赛事分享和跑鞋讨论。", "#e8710a"),
    ("Home Baristas", "家庭咖啡师", "Beans, grinders and the perfect pour-over.", "咖啡豆、磨豆机和完美手冲。", "#795548"),
    ("Board Game Night", "桌游之夜", "Find players and share your favourite games.", "找桌友，分享你最爱的桌游。", "#1a73e8"),
    ("City Photography", "城市摄影", "Street, architecture and night shots.", "街拍、建筑和夜景摄影。", "#00897b"),
    ("Book Club", "读书会", "One book a month, discussed together.", "每月一本书，一起讨论。", "#8e24aa"),
    ("Balcony Gardening", "阳台园艺", "Herbs, tomatoes and small-space tips.", "香草、番茄和小空间种植技巧。", "#43a047"),
    ("Northwind Social", "北风同事圈", "Company-wide chat: lunch, events and announcements.", "公司同事交流：午餐、活动和公告。", "#0b5cad"),
]  # fmt: skip

# group index -> [(en title, en body, zh title, zh body)]
POSTS: dict[int, list[tuple[str, str, str, str]]] = {
    0: [("Sunday long run along the river?", "Planning 18 km at an easy pace, starting 8:30 at the old bridge. Who's in?", "周日沿河长距离跑？", "计划轻松配速跑 18 公里，8:30 老桥出发，有人一起吗？"),
        ("Best shoes for muddy trails", "My current pair slips on every wet root. What do you recommend under 130 EUR?", "泥泞路段穿什么鞋最好", "现在这双在湿树根上总打滑，130 欧以内有什么推荐？"),
        ("Race report: Forest Half Marathon", "Finished in 1:52! The last hill was brutal but the views were worth it.", "赛记：森林半程马拉松", "1 小时 52 分完赛！最后一个坡很虐，但风景值了。")],
    1: [("Dialing in a new grinder", "Just got a burr grinder. Any tips for finding the right setting for V60?", "新磨豆机怎么调", "刚入手一台锥刀磨豆机，V60 手冲该怎么调研磨度？"),
        ("Favourite beans this month", "The Ethiopian natural from the market stall is amazing: blueberry all the way.", "本月最爱的豆子", "市集上的埃塞俄比亚日晒豆太好喝了，满满蓝莓味。"),
        ("Milk frothing without a machine", "A French press works surprisingly well for foam. Pump it 20 times!", "没有机器怎么打奶泡", "法压壶打奶泡效果出奇地好，上下压 20 次就行！")],
    2: [("Looking for players this Friday", "We have Wingspan and Catan; two seats left. Snacks provided.", "周五缺桌友", "有《展翅翱翔》和《卡坦岛》，还差两个人，提供零食。"),
        ("Best two-player games?", "My partner and I finished Patchwork a hundred times. What next?", "最好玩的双人桌游？", "我和对象已经玩了一百遍《拼布对决》，接下来玩什么？"),
        ("House rules you swear by", "We always play Ticket to Ride with one extra destination card. Yours?", "你们坚持的房规", "我们玩《车票之旅》总是多发一张目的地卡，你们呢？")],
    3: [("Blue hour at the harbour", "Shot at 1/4 s handheld, leaning on a railing. Feedback welcome!", "港口的蓝调时刻", "手持 1/4 秒，靠着栏杆拍的，欢迎点评！"),
        ("Photo walk next Saturday", "Meeting at the central station at 10:00, ending at the old town. All levels welcome.", "下周六扫街活动", "10 点中央车站集合，终点老城区，欢迎各种水平的朋友。"),
        ("Which lens for street photography?", "Torn between a 28 mm and a 35 mm prime. Thoughts?", "扫街用哪支镜头？", "在 28mm 和 35mm 定焦之间纠结，大家怎么看？")],
    4: [("March pick: The Quiet Algorithm", "We meet on the 28th. No spoilers beyond chapter 6 please!", "三月书目：《安静的算法》", "28 号见面讨论，第 6 章之后请勿剧透！"),
        ("Audiobooks count, right?", "I mostly listen while commuting. Does that still count for the club?", "听书也算吧？", "我大多是通勤时听书，读书会也算数吧？"),
        ("Suggestions for April", "Let's vote: something light after this month's heavy read.", "四月书目征集", "来投票吧：这个月的书太沉重，下个月读点轻松的。")],
    5: [("My tomatoes are finally flowering", "After weeks of waiting, the first yellow flowers appeared today!", "番茄终于开花了", "等了好几周，今天终于开出第一朵黄花！"),
        ("Basil keeps wilting", "Full sun, watered every day, still droopy. What am I doing wrong?", "罗勒总是蔫", "全日照、每天浇水，还是蔫蔫的，我哪里做错了？"),
        ("Seed swap in April", "I have too many chili seeds. Happy to trade for herbs.", "四月种子交换", "我的辣椒种子太多了，想换些香草种子。")],
    6: [("New coffee machine on floor 3", "Facilities installed it this morning. It makes flat whites!", "三楼新咖啡机", "行政今天早上装好的，能做馥芮白！"),
        ("Lost: blue umbrella", "Left it in Room Aurora after the design review. Please ping me if you see it.", "寻物：蓝色雨伞", "设计评审后落在极光会议室了，看到请告诉我。"),
        ("Friday lunch walk", "Anyone up for a 30-minute walk around the park at 12:15?", "周五午间散步", "12:15 绕公园走 30 分钟，有人一起吗？")],
}  # fmt: skip

COMMENTS = {
    "en": ["Count me in!", "Great idea, thanks for sharing.", "I had the same problem last year.", "Love this!",
           "Could you share more details?", "Totally agree.", "Not sure I can make it, but keep me posted.",
           "This made my day.", "Try asking at the shop near the station.", "Saved for later, thanks!"],
    "zh": ["算我一个！", "好主意，谢谢分享。", "我去年也遇到过同样的问题。", "太喜欢了！", "能多说点细节吗？", "完全同意。",
           "不一定能去，有消息告诉我。", "看完心情都好了。", "可以去车站旁边那家店问问。", "先收藏了，谢谢！"],
}  # fmt: skip


def _insert(conn: sqlite3.Connection, table: str, **values: Any) -> int:
    cols, marks = ", ".join(values), ", ".join("?" for _ in values)
    return int(conn.execute(f"INSERT INTO {table}({cols}) VALUES ({marks})", tuple(values.values())).lastrowid or 0)


def _stamp(today: dt.date, days_ago: int, minutes: int) -> str:
    return (dt.datetime.combine(today, dt.time()) - dt.timedelta(days=days_ago, minutes=-minutes)).isoformat(
        timespec="minutes"
    )


def generate(conn: sqlite3.Connection, rng: random.Random, locale: str, today: dt.date,
             people: list[tuple[str, str]], user: tuple[str, str]) -> None:  # fmt: skip
    joined = set(rng.sample(range(len(GROUPS) - 1), 3)) | {len(GROUPS) - 1}
    for i, (en, zh, den, dzh, color) in enumerate(GROUPS):
        gid = _insert(conn, "forum_groups", name=zh if locale == "zh" else en, description=dzh if locale == "zh" else den,
                      members=rng.randint(40, 2600), joined=int(i in joined), color=color)  # fmt: skip
        for ten, ben, tzh, bzh in POSTS[i]:
            name, email = user if (i, ten) == (6, POSTS[6][2][0]) else rng.choice(people)
            days = rng.randint(0, 20)
            created = _stamp(today, days, rng.randint(7 * 60, 9 * 60 if days == 0 else 22 * 60))
            pid = _insert(conn, "posts", group_id=gid, author_name=name, author=email, title=tzh if locale == "zh" else ten,
                          body=bzh if locale == "zh" else ben, created=created)  # fmt: skip
            _replies(conn, rng, locale, today, pid, created, people)


def _replies(conn, rng: random.Random, locale: str, today: dt.date, pid: int, created: str, people) -> None:
    latest = _stamp(today, 0, 9 * 60 + 25)  # comments come after their post and before the episode's "now"
    for _ in range(rng.randint(0, 3)):
        name, email = rng.choice(people)
        when = (dt.datetime.fromisoformat(created) + dt.timedelta(minutes=rng.randint(15, 600))).isoformat(
            timespec="minutes"
        )
        _insert(conn, "comments", post_id=pid, author_name=name, author=email, body=rng.choice(COMMENTS[locale]),
                created=min(when, latest))  # fmt: skip
    for _, email in rng.sample(people, rng.randint(0, 6)):
        _insert(conn, "reactions", post_id=pid, who=email, kind=rng.choice(KINDS))
