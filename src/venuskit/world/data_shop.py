# ruff: noqa: E501 - text pools: Chinese characters count double towards the line width
"""The Shop's background: a catalog of products, two saved addresses and a few past orders.

Drawn from fixed pools with the world's one `random.Random`, so a (seed, locale, today) always gives the
same catalog; prices, ratings, review counts and stock vary with the seed, names do not. Tasks add their
own products and orders on top (setup ops `product`, `order`, `cart`).
"""

from __future__ import annotations

import datetime as dt
import random
import sqlite3
from typing import Any

CATEGORIES = ("electronics", "home", "books", "sports", "fashion", "office")

# category -> [(en name, zh name, brand, base price in EUR)]
PRODUCTS: dict[str, list[tuple[str, str, str, int]]] = {
    "electronics": [("Wireless Earbuds Pro", "无线降噪耳机 Pro", "Sonora", 79), ("Bluetooth Speaker Mini", "迷你蓝牙音箱", "Sonora", 39),
                    ("USB-C Charger 65W", "65W USB-C 充电器", "Voltix", 29), ("Mechanical Keyboard", "机械键盘", "Keyline", 89),
                    ("Wireless Mouse", "无线鼠标", "Keyline", 24), ("4K Webcam", "4K 网络摄像头", "Lumio", 119)],
    "home": [("Pour-Over Coffee Set", "手冲咖啡套装", "Brewhaus", 42), ("Cast Iron Skillet 26 cm", "26 厘米铸铁煎锅", "Forge & Oak", 45),
             ("Linen Bed Sheet Set", "亚麻床品套件", "Nordhem", 89), ("LED Desk Lamp", "LED 台灯", "Lumio", 35),
             ("Glass Food Containers (5)", "玻璃保鲜盒（5 件装）", "Nordhem", 27), ("Electric Kettle 1.7 L", "1.7 升电热水壶", "Brewhaus", 49)],
    "books": [("The Quiet Algorithm", "安静的算法", "Northlight Press", 18), ("A Short History of Maps", "地图简史", "Atlas Books", 22),
              ("Cooking for Busy People", "忙人的厨房", "Northlight Press", 25), ("Deep Work Notes", "深度工作笔记", "Atlas Books", 16),
              ("Mountains of the North", "北方的群山", "Atlas Books", 30), ("Learn Python in 30 Days", "30 天学会 Python", "Codebook", 35)],
    "sports": [("Trail Running Shoes", "越野跑鞋", "Stride", 119), ("Yoga Mat 6 mm", "6 毫米瑜伽垫", "Zenfit", 29),
               ("Insulated Water Bottle", "保温水壶", "Summit", 22), ("Hiking Backpack 30 L", "30 升登山背包", "Summit", 79),
               ("Resistance Bands Set", "弹力带套装", "Zenfit", 19), ("Camping Headlamp", "露营头灯", "Summit", 25)],
    "fashion": [("Merino Wool Sweater", "美利奴羊毛衫", "Nordhem", 69), ("Rain Jacket", "防雨夹克", "Stride", 95),
                ("Cotton T-Shirt (3-pack)", "纯棉 T 恤（3 件装）", "Basics Co.", 29), ("Leather Belt", "真皮腰带", "Forge & Oak", 35),
                ("Wool Beanie", "羊毛针织帽", "Nordhem", 19), ("Canvas Sneakers", "帆布鞋", "Stride", 55)],
    "office": [("Dotted Notebook A5", "A5 点阵笔记本", "Paperline", 9), ("Gel Pens (10)", "中性笔（10 支）", "Paperline", 8),
               ("Monitor Stand", "显示器支架", "Keyline", 39), ("Ergonomic Seat Cushion", "人体工学坐垫", "Zenfit", 34),
               ("Desk Organizer", "桌面收纳盒", "Paperline", 21), ("Whiteboard 60x90", "60x90 白板", "Paperline", 45)],
}  # fmt: skip

BLURB = {
    "en": {"electronics": "Pairs in seconds and charges over USB-C.", "home": "Made to last and easy to clean.",
           "books": "Paperback, 320 pages. A reader favourite this season.", "sports": "Light, tough and ready for the weekend.",
           "fashion": "Regular fit. Machine washable at 30°C.", "office": "Keeps your desk tidy and your ideas in one place."},
    "zh": {"electronics": "秒速配对，USB-C 充电。", "home": "经久耐用，易于清洁。", "books": "平装，320 页，本季读者最爱。",
           "sports": "轻便结实，周末出行必备。", "fashion": "常规版型，可 30°C 机洗。", "office": "让桌面整洁，让想法集中。"},
}  # fmt: skip

ADDRESSES = {
    "en": [("Home", "{user}", "Lindenstraße 12", "Berlin", "10969"), ("Office", "{user}", "Northwind Labs, Torstraße 140", "Berlin", "10119")],
    "zh": [("家", "{user}", "朝阳区建国路 88 号 3 单元 1202", "北京", "100022"), ("公司", "{user}", "北风科技，海淀区中关村大街 27 号", "北京", "100080")],
}  # fmt: skip

SHIPPING = {"standard": 490, "express": 990, "nextday": 1490}  # cents; standard is free from FREE_FROM
FREE_FROM = 5000
PAYMENTS = ("visa", "mastercard", "invoice")


def shipping_cost(method: str, subtotal: int) -> int:
    if method == "standard" and subtotal >= FREE_FROM:
        return 0
    return SHIPPING[method]


def _insert(conn: sqlite3.Connection, table: str, **values: Any) -> int:
    cols, marks = ", ".join(values), ", ".join("?" for _ in values)
    return int(conn.execute(f"INSERT INTO {table}({cols}) VALUES ({marks})", tuple(values.values())).lastrowid or 0)


def generate(conn: sqlite3.Connection, rng: random.Random, locale: str, today: dt.date, user: str) -> None:
    products = _products(conn, rng, locale, today)
    for label, name, street, city, postcode in ADDRESSES[locale]:
        _insert(
            conn, "addresses", label=label, name=name.format(user=user), street=street, city=city, postcode=postcode
        )
    _orders(conn, rng, locale, today, products, user)


def _products(conn, rng: random.Random, locale: str, today: dt.date) -> list[tuple[int, str, int]]:
    out = []
    for cat in CATEGORIES:
        for en, zh, brand, base in PRODUCTS[cat]:
            name = zh if locale == "zh" else en
            price = base * 100 - rng.choice((1, 1, 5, 51))
            roll = rng.random()
            stock = 0 if roll < 0.08 else rng.randint(1, 5) if roll < 0.22 else rng.randint(12, 240)
            pid = _insert(conn, "products", name=name, category=cat, brand=brand, price=price,
                          rating=round(rng.uniform(3.3, 4.9), 1), reviews=rng.randint(4, 2400), stock=stock,
                          description=f"{brand} · {BLURB[locale][cat]}",
                          added=(today - dt.timedelta(days=rng.randint(3, 400))).isoformat())  # fmt: skip
            out.append((pid, name, price))
    return out


def _orders(
    conn, rng: random.Random, locale: str, today: dt.date, products: list[tuple[int, str, int]], user: str
) -> None:
    """Four past orders: one on its way (#48213, the one the shipping mail mentions), two delivered within the
    30-day return window and one delivered too long ago to return."""
    label, name, street, city, postcode = ADDRESSES[locale][0]
    ship_to = f"{name.format(user=user)}, {street}, {postcode} {city}"
    plans = [
        ("48213", 3, "shipped", None),
        (str(rng.randint(40000, 47999)), 9, "delivered", 6),
        (str(rng.randint(30000, 39999)), 22, "delivered", 19),
        (str(rng.randint(20000, 29999)), 70, "delivered", 66),
    ]
    for number, placed_ago, status, delivered_ago in plans:
        items = rng.sample(products, 1 + (placed_ago == 9))
        subtotal = sum(p for _, _, p in items)
        cost = shipping_cost("standard", subtotal)
        oid = _insert(conn, "orders", number=number, placed=(today - dt.timedelta(days=placed_ago)).isoformat(),
                      status=status, ship_to=ship_to, shipping="standard", payment="visa", subtotal=subtotal,
                      shipping_cost=cost, total=subtotal + cost,
                      delivered=None if delivered_ago is None else (today - dt.timedelta(days=delivered_ago)).isoformat())  # fmt: skip
        for pid, name, price in items:
            _insert(conn, "order_items", order_id=oid, product_id=pid, name=name, price=price, qty=1)
