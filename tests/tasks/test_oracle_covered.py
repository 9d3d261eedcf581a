"""The world oracle does not click a floating layer that covers its element.

The world's toast is fixed at the bottom left; under a skin with larger type the sidebar's app links reach down
under it (seen in collection: 55 synthesised multi-app episodes clicked the toast twice and failed). The oracle
clicks a part of the element the layer leaves free, or scrolls the element out from under it.
"""

from __future__ import annotations

import pytest

from venuskit.actions.types import Click, Scroll
from venuskit.envs.browser import BrowserConfig, BrowserEnv
from venuskit.tasks.oracle import Oracle

pytestmark = pytest.mark.browser

TOAST = '<div id="toast" style="position:fixed;left:0;bottom:0;width:{w}px;height:60px;background:#333">saved</div>'
PAGE = """<!doctype html><title>Shop</title><body style="margin:0">
<nav style="width:200px">{links}<a id="bank" href="bank.html" style="display:block;height:40px;width:{lw}px">Bank</a>
{tail}</nav>""" + TOAST


def _site(tmp_path, serve_dir, toast_w: int, link_w: int, tail: int) -> str:
    links = "".join(f'<a href="#" style="display:block;height:40px">App {i}</a>' for i in range(7))
    tail_html = "".join(f'<a href="#" style="display:block;height:40px">More {i}</a>' for i in range(tail))
    (tmp_path / "index.html").write_text(PAGE.format(links=links, lw=link_w, tail=tail_html, w=toast_w))
    (tmp_path / "bank.html").write_text('<!doctype html><title>Bank</title><p id="payees" style="margin:100px">ok</p>')
    return serve_dir(tmp_path) + "/index.html"


def _drive(env: BrowserEnv, oracle: Oracle, limit: int = 12) -> list:
    actions = []
    for _ in range(limit):
        _, action = oracle.next(env.page)
        if oracle.done:
            return actions
        actions.append(action)
        env.step(action)
    raise AssertionError(f"the oracle did not finish: {actions}")


@pytest.mark.parametrize(("toast_w", "link_w", "scrolls"), [(300, 200, 1), (120, 200, 0)])
def test_a_link_under_a_toast_is_reached(tmp_path, serve_dir, toast_w, link_w, scrolls):
    """A toast as wide as the link: the page scrolls the link out from under it. A narrower one: the free part of
    the link is clicked where it is."""
    url = _site(tmp_path, serve_dir, toast_w, link_w, tail=6)  # 320 px of sidebar, then the link, then more
    with BrowserEnv(BrowserConfig(viewport=(480, 340))) as env:
        env.reset({"start_url": url})
        assert env.page.evaluate("document.elementFromPoint(100, 300).id") == "toast"  # the link's centre is covered
        actions = _drive(env, Oracle((("click", "#bank"), ("click", "#payees")), "browser"))
        assert env.page.url.endswith("/bank.html")
        assert sum(isinstance(a, Scroll) for a in actions) == scrolls, actions
        if not scrolls:
            assert isinstance(actions[0], Click) and actions[0].point.x > 120 / 480


def test_a_covered_link_on_a_page_that_cannot_scroll_is_clicked_without_scrolling(tmp_path, serve_dir):
    """Nothing to scroll: the oracle does not spend steps scrolling; it clicks as before (and the step fails as the
    click's result shows)."""
    url = _site(tmp_path, serve_dir, 300, 200, tail=0)
    with BrowserEnv(BrowserConfig(viewport=(480, 340))) as env:
        env.reset({"start_url": url})
        oracle = Oracle((("click", "#bank"),), "browser")
        _, action = oracle.next(env.page)
        assert isinstance(action, Click)
