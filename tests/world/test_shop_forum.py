"""Shop and Forum over real HTTP: pages in both locales, cart → checkout → order, returns, posts, comments,
reactions, membership, deletion, isolation between episodes and a seeded, deterministic background."""

from __future__ import annotations

import http.cookiejar
import re
import urllib.error
import urllib.parse
import urllib.request

import pytest

from venuskit.tasks import setup
from venuskit.tasks.checks import CheckContext, run_check
from venuskit.world import WorldServer
from venuskit.world.apps.helptext import HELP


class Browser:
    """A cookie-keeping HTTP client (what a browser context does, without Chromium)."""

    def __init__(self, world: WorldServer, episode: str, path: str = "/") -> None:
        self.world = world
        self.opener = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
        self.get(world.bind_url(episode, path), absolute=True)

    def get(self, path: str, absolute: bool = False) -> tuple[int, str, str]:
        url = path if absolute else self.world.base_url + path
        try:
            with self.opener.open(url, timeout=10) as r:
                return r.status, r.url, r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, url, e.read().decode()

    def post(self, path: str, **form: str) -> tuple[int, str, str]:
        req = urllib.request.Request(self.world.base_url + path, data=urllib.parse.urlencode(form).encode())
        try:
            with self.opener.open(req, timeout=10) as r:
                return r.status, r.url, r.read().decode()
        except urllib.error.HTTPError as e:
            return e.code, path, e.read().decode()


@pytest.fixture(scope="module")
def world():
    with WorldServer() as w:
        yield w


def holds(world: WorldServer, ep: str, check: str, **args) -> bool:
    return run_check(check, CheckContext(world.state(ep)), args)


def product_id(world: WorldServer, ep: str, name: str) -> int:
    return world.state(ep).scalar("SELECT id FROM products WHERE name = ?", (name,))


PAGES = ["/", "/shop/", "/shop/search?q=a", "/shop/search?cat=books&sort=price_asc&min=5&max=40&stock=1&rating=4",
         "/shop/p/1", "/shop/p/30", "/shop/cart", "/shop/orders", "/shop/o/1", "/shop/o/2", "/shop/o/2/return",
         "/shop/help", "/forum/", "/forum/?sort=top", "/forum/groups", "/forum/g/1", "/forum/g/7/new", "/forum/p/1",
         "/forum/search?q=a", "/forum/help"]  # fmt: skip
WORDS = {"en": ("Add to cart", "Discover groups", "Your orders"), "zh": ("加入购物车", "发现小组", "我的订单")}


@pytest.mark.parametrize("locale", ["en", "zh"])
def test_every_shop_and_forum_page_renders_in_its_language(world, locale):
    ep = world.new_episode(seed=3, locale=locale)
    b = Browser(world, ep)
    for path in PAGES:
        status, _, body = b.get(path)
        assert status == 200, f"{path} answered {status}"
        assert "2024年3月14日" in body or "Thu, 14 Mar 2024" in body, f"{path} hides the simulated date"
    assert not world.errors, world.errors[-1]
    add, discover, orders = WORDS[locale]
    other = WORDS["zh" if locale == "en" else "en"]
    product, groups = b.get("/shop/p/1")[2], b.get("/forum/groups")[2]
    assert add in product and other[0] not in product
    assert discover in groups and other[1] not in groups
    assert orders in b.get("/shop/orders")[2]


def test_home_has_shop_and_forum_tiles_and_the_cart_badge(world):
    ep = world.new_episode(seed=1)
    b = Browser(world, ep)
    home = b.get("/")[2]
    assert 'href="/shop/"' in home and 'href="/forum/"' in home
    b.post("/shop/cart/add", product="5", qty="2")
    assert re.search(r'href="/shop/".*?<span class="badge">2</span>', b.get("/")[2], re.S)


def test_help_pages_document_shop_and_forum_in_both_languages(world):
    for app in ("shop", "forum"):
        for locale in ("en", "zh"):
            assert len(HELP[app][locale]["sections"]) >= 4
    ep = world.new_episode(seed=1, locale="zh")
    assert "结算" in Browser(world, ep).get("/shop/help")[2]


def test_search_sorts_and_filters_the_catalog(world):
    ep = world.new_episode(seed=2)
    s = world.state(ep)
    for name, price, rating, stock in (
        ("Zeta Lamp", "30", 4.6, 9),
        ("Zeta Cup", "8", 4.1, 0),
        ("Zeta Mat", "15", 3.2, 4),
    ):
        setup.apply(s, {"op": "product", "name": name, "price": price, "rating": rating, "stock": stock})
    b = Browser(world, ep)
    names = lambda html: re.findall(r'class="pname">(Zeta [^<]+)<', html)  # noqa: E731
    assert names(b.get("/shop/search?q=Zeta&sort=price_asc")[2]) == ["Zeta Cup", "Zeta Mat", "Zeta Lamp"]
    assert names(b.get("/shop/search?q=Zeta&sort=price_desc")[2]) == ["Zeta Lamp", "Zeta Mat", "Zeta Cup"]
    assert sorted(names(b.get("/shop/search?q=Zeta&stock=1")[2])) == ["Zeta Lamp", "Zeta Mat"]
    assert names(b.get("/shop/search?q=Zeta&rating=4&sort=price_asc")[2]) == ["Zeta Cup", "Zeta Lamp"]
    assert names(b.get("/shop/search?q=Zeta&min=10&max=20")[2]) == ["Zeta Mat"]
    assert "Out of stock" in b.get(f"/shop/p/{product_id(world, ep, 'Zeta Cup')}")[2]


def test_cart_and_checkout_place_a_logged_order_and_empty_the_cart(world):
    ep = world.new_episode(seed=4)
    s = world.state(ep)
    setup.apply(s, {"op": "product", "name": "Kappa Kettle", "price": "21.00", "stock": 5})
    pid = product_id(world, ep, "Kappa Kettle")
    b = Browser(world, ep)
    b.post("/shop/cart/add", product=str(pid), qty="1")
    b.post("/shop/cart/update", product=str(pid), do="inc")
    assert holds(world, ep, "shop.cart_has", product="Kappa Kettle", qty=2)
    assert "€42.00" in b.get("/shop/cart")[2]
    status, url, body = b.post("/shop/checkout", address="new", name="Ada Byron", street="Elm Road 5", city="Leeds",
                               postcode="LS1 4AB", shipping="express", payment="invoice")  # fmt: skip
    assert "/shop/o/" in url and "Thank you" in body and "€51.90" in body  # 42.00 + 9.90 express
    assert holds(world, ep, "shop.ordered", product="Kappa Kettle", qty=2, shipping="express", payment="invoice",
                 ship_to_contains="Elm Road 5, LS1 4AB Leeds", only=True)  # fmt: skip
    assert (
        s.scalar("SELECT COUNT(*) FROM cart") == 0 and s.scalar("SELECT stock FROM products WHERE id = ?", (pid,)) == 3
    )
    assert [a["kind"] for a in s.actions()] == ["shop.checkout"]
    assert holds(world, ep, "shop.cart_has", product="Kappa Kettle", or_ordered=True)


def test_checkout_with_an_incomplete_new_address_buys_nothing(world):
    ep = world.new_episode(seed=4)
    b = Browser(world, ep)
    b.post("/shop/cart/add", product="3", qty="1")
    status, _, body = b.post("/shop/checkout", address="new", name="Ada", street="", city="", postcode="",
                             shipping="standard", payment="visa")  # fmt: skip
    assert status == 200 and "Fill in name, street, city and postcode" in body
    assert world.state(ep).actions() == [] and holds(world, ep, "shop.no_order")


def test_returns_open_for_30_days_after_delivery(world):
    ep = world.new_episode(seed=5)
    s = world.state(ep)
    fresh = setup.apply(
        s,
        {
            "op": "order",
            "number": "90001",
            "delivered_days_ago": 3,
            "items": [{"name": "Omega Mug", "price": "9.00"}, {"name": "Omega Plate", "price": "12"}],
        },
    )
    old = setup.apply(s, {"op": "order", "number": "90002", "days_ago": 70, "delivered_days_ago": 66,
                          "items": [{"name": "Omega Bowl", "price": "7.00"}]})  # fmt: skip
    b = Browser(world, ep)
    assert "Return items" in b.get(f"/shop/o/{fresh}")[2] and "Return window closed" in b.get(f"/shop/o/{old}")[2]
    item = s.scalar("SELECT id FROM order_items WHERE name = 'Omega Plate'")
    b.post(f"/shop/o/{fresh}/return", item=str(item), reason="damaged", comment="Cracked rim")
    assert holds(world, ep, "shop.return_requested", order="#90001", product="Omega Plate", reason="damaged",
                 comment_contains="cracked")  # fmt: skip
    assert "Return requested" in b.get(f"/shop/o/{fresh}")[2]
    old_item = s.scalar("SELECT id FROM order_items WHERE name = 'Omega Bowl'")
    assert "/shop/o/" in b.get(f"/shop/o/{old}/return")[1]  # the form is not offered, only the order
    b.post(f"/shop/o/{old}/return", item=str(old_item), reason="not_needed")
    assert holds(world, ep, "shop.no_return", order="90002")
    assert [a["kind"] for a in s.actions()] == ["shop.return"]


def test_forum_membership_posts_comments_and_reactions(world):
    ep = world.new_episode(seed=6)
    s = world.state(ep)
    gid = setup.apply(s, {"op": "group", "name": "Book Club", "joined": False})
    b = Browser(world, ep)
    assert "Join this group to post." in b.post(f"/forum/g/{gid}/new", title="Hi", body="x")[2]
    b.post(f"/forum/g/{gid}/join", do="join")
    assert holds(world, ep, "forum.member", group="book club")
    _, url, page = b.post(f"/forum/g/{gid}/new", title="Reading list", body="Three novels for April.")
    assert "Reading list" in page and holds(world, ep, "forum.post", group="Book Club", title="Reading list",
                                             body_contains="novels for april")  # fmt: skip
    pid = int(url.rsplit("/", 1)[1].split("?")[0])
    b.post(f"/forum/p/{pid}/comment", body="Adding a fourth.")
    b.post(f"/forum/p/{pid}/react", kind="like")
    b.post(f"/forum/p/{pid}/react", kind="love")  # another kind replaces the first
    assert holds(world, ep, "forum.comment", post_title="Reading list", body_contains="fourth")
    assert holds(world, ep, "forum.reaction", post_title="Reading list", kind="love")
    assert not holds(world, ep, "forum.reaction", post_title="Reading list", kind="like")
    b.post(f"/forum/p/{pid}/react", kind="love")  # the same kind again takes it back
    assert not holds(world, ep, "forum.reaction", post_title="Reading list")
    assert "Reading list" in b.get("/forum/search?q=novels")[2] and "Reading list" in b.get("/forum/")[2]
    b.post(f"/forum/g/{gid}/join", do="leave")
    assert holds(world, ep, "forum.member", group="Book Club", value=False)
    assert s.actions() == []  # none of this is consequential


def test_only_your_own_posts_can_be_deleted_and_deletion_is_logged(world):
    ep = world.new_episode(seed=7)
    s = world.state(ep)
    theirs = setup.apply(s, {"op": "post", "group": "Trail Runners", "title": "Their run", "author": "Leo Walsh"})
    mine = setup.apply(s, {"op": "post", "group": "Trail Runners", "title": "My run", "mine": True})
    setup.apply(s, {"op": "comment", "post": "My run", "body": "Nice!", "author": "Leo Walsh"})
    b = Browser(world, ep)
    assert b.get(f"/forum/p/{theirs}/delete")[0] == 404 and b.post(f"/forum/p/{theirs}/delete")[0] == 404
    assert 'id="delete-post"' in b.get(f"/forum/p/{mine}")[2]
    b.post(f"/forum/p/{mine}/delete")
    assert holds(world, ep, "forum.post_absent", title="My run") and holds(
        world, ep, "forum.post_exists", title="Their run"
    )
    assert s.scalar("SELECT COUNT(*) FROM comments WHERE post_id = ?", (mine,)) == 0
    assert [(a["kind"], a["detail"]["title"]) for a in s.actions()] == [("forum.delete", "My run")]


def test_two_episodes_keep_their_carts_and_posts_apart(world):
    a, b_ep = world.new_episode(seed=1), world.new_episode(seed=1)
    ba, bb = Browser(world, a), Browser(world, b_ep)
    ba.post("/shop/cart/add", product="2", qty="1")
    ba.post("/forum/g/7/new", title="Only in A", body="x")
    assert world.state(b_ep).scalar("SELECT COUNT(*) FROM cart") == 0
    assert "Only in A" not in bb.get("/forum/")[2] and 'class="cart-n"' not in bb.get("/shop/")[2]
    world.reset(a, seed=1)
    assert world.state(a).scalar("SELECT COUNT(*) FROM cart") == 0
    assert not holds(world, a, "forum.post", title="Only in A")


def test_background_is_seeded_and_has_returnable_and_closed_orders(world):
    a, b_ep, c = world.new_episode(seed=11), world.new_episode(seed=11), world.new_episode(seed=12)
    rows = lambda ep, sql: world.state(ep).rows(sql)  # noqa: E731
    catalog = "SELECT name, price, rating, stock FROM products ORDER BY id"
    forum = "SELECT p.title, p.author_name, p.created FROM posts p ORDER BY p.id"
    assert rows(a, catalog) == rows(b_ep, catalog) and rows(a, forum) == rows(b_ep, forum)
    assert rows(a, catalog) != rows(c, catalog) and rows(a, forum) != rows(c, forum)
    assert len(rows(a, catalog)) >= 30 and len(rows(a, forum)) >= 20
    assert world.state(a).scalar("SELECT COUNT(*) FROM comments") > 0
    assert world.state(a).scalar("SELECT COUNT(*) FROM reactions") > 0
    b = Browser(world, a)
    pages = [b.get(f"/shop/o/{o['id']}")[2] for o in rows(a, "SELECT id FROM orders")]
    assert any("Return items" in p for p in pages) and any("Return window closed" in p for p in pages)
    assert "#48213" in b.get("/shop/orders")[2]  # the order the background shipping mail talks about
    people = {r["name"] for r in rows(a, "SELECT name FROM people")}
    assert {r["author_name"] for r in rows(a, forum)} <= people | {world.state(a).user()["name"]}
