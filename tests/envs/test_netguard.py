"""The network guard: pages reach loopback and file URLs only. Unit tests of the policy, then real
Chromium against two loopback servers, a redirect to a disallowed host, in-page fetch and WebSocket."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from venuskit.actions.types import GetUrl, Launch
from venuskit.envs.base import ActionRefused
from venuskit.envs.browser import BrowserConfig, BrowserEnv
from venuskit.envs.netguard import BLACK_HOLE_PROXY, NetPolicy, proxy_args, url_allowed

DEFAULT = NetPolicy()


@pytest.mark.parametrize(
    "url, allowed",
    [
        ("http://127.0.0.1:8000/x", True), ("https://localhost/", True), ("http://[::1]:9/", True),
        ("ws://127.0.0.1:5/socket", True), ("file:///tmp/page.html", True), ("data:text/plain,hi", True),
        ("about:blank", True), ("blob:http://127.0.0.1/uuid", True),
        ("http://example.com/", False), ("http://127.0.0.1.evil.com/", False), ("http://10.0.0.1/", False),
        ("http://localhost.example.invalid/", False), ("wss://example.invalid/", False),
        ("javascript:alert(1)", False), ("chrome://settings", False), ("ftp://127.0.0.1/", False),
        ("http://[::1/", False), ("", False),
    ],
)  # fmt: skip
def test_default_policy(url: str, allowed: bool) -> None:
    assert url_allowed(url, DEFAULT) is allowed


def test_custom_allowlist() -> None:
    policy = NetPolicy(allow_hosts=("App.Local", "*.test", "[::1]"), allow_file=False)
    assert policy.allow_hosts == ("app.local", "*.test", "::1")
    assert policy.allows("http://app.local:8080/") and policy.allows("https://a.b.test/")
    assert policy.allows("http://[::1]/")
    assert not policy.allows("http://test/") and not policy.allows("http://127.0.0.1/")
    assert not policy.allows("file:///etc/passwd")
    with pytest.raises(ValueError, match="allowed-host entry"):
        NetPolicy(allow_hosts=("http://127.0.0.1/",))


def test_proxy_args_black_hole_everything_else() -> None:
    server, bypass = proxy_args(DEFAULT)
    assert server == f"--proxy-server={BLACK_HOLE_PROXY}"
    assert bypass == "--proxy-bypass-list=<-loopback>;127.0.0.1;[::1];localhost"  # never all of 127.0.0.0/8
    _, partial = proxy_args(NetPolicy(allow_hosts=("127.0.0.1", "*.test")))
    assert partial == "--proxy-bypass-list=<-loopback>;*.test;127.0.0.1"  # localhost goes to the black hole


def test_extra_args_cannot_switch_the_proxy_layer_off() -> None:
    with pytest.raises(ValueError, match="allow_hosts"):
        BrowserConfig(extra_args=("--no-proxy-server",))


# ---- real Chromium -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def env() -> Iterator[BrowserEnv]:
    with BrowserEnv(BrowserConfig(action_timeout_s=5.0, navigation_timeout_s=10.0, settle_s=0.05)) as env:
        yield env


def _fetch(env: BrowserEnv, url: str) -> str:
    script = "u => fetch(u).then(r => r.text()).catch(e => 'failed: ' + e.name)"
    return env.page.evaluate(script, url)


def _blocked_urls(info: dict) -> list[str]:
    return [b["url"] for b in info.get("blocked", [])]


@pytest.mark.browser
def test_loopback_servers_are_reachable(env: BrowserEnv, pages_url: str, other_url: str) -> None:
    env.reset({"start_url": f"{pages_url}/page2.html"})
    assert _fetch(env, f"{other_url}/pong") == "pong"  # another loopback host and port: allowed
    assert _blocked_urls(env.step(GetUrl()).info) == []


@pytest.mark.browser
def test_fetch_to_a_disallowed_host_fails_in_page(env: BrowserEnv, pages_url: str) -> None:
    env.reset({"start_url": f"{pages_url}/page2.html"})
    assert _fetch(env, "http://example.invalid/data") == "failed: TypeError"
    assert _fetch(env, "http://10.255.255.1/data") == "failed: TypeError"  # an IP literal, never dialled
    info = env.step(GetUrl()).info
    assert _blocked_urls(info) == ["http://example.invalid/data", "http://10.255.255.1/data"]
    assert info["blocked"][0]["reason"] == "host not in the allowlist"


@pytest.mark.browser
def test_redirect_to_a_disallowed_host_is_aborted_without_dns(env: BrowserEnv, pages_url: str) -> None:
    env.reset({"start_url": f"{pages_url}/page2.html"})
    result = env.step(Launch(url=f"{pages_url}/redirect?to=http://example.invalid/landing"))
    assert isinstance(result.error, ActionRefused) and "network guard" in str(result.error)
    (hop,) = [b for b in result.info["blocked"] if b["url"] == "http://example.invalid/landing"]
    # Refused by the black-hole proxy: Chromium never resolved the name (that would be ERR_NAME_NOT_RESOLVED).
    assert "ERR_PROXY_CONNECTION_FAILED" in hop["reason"]
    assert "example.invalid" not in (result.observation.url or "")
    assert env.step(Launch(url=f"{pages_url}/page2.html")).error is None  # the env carries on


@pytest.mark.browser
def test_subresources_and_websockets_are_blocked(env: BrowserEnv, pages_url: str) -> None:
    obs = env.reset({"start_url": f"{pages_url}/leaky.html"})
    assert _blocked_urls(obs.info) == ["http://example.invalid/pixel.png"]
    assert env.page.evaluate("document.getElementById('pixel').naturalWidth") == 0
    opened = env.page.evaluate(
        """() => new Promise(done => {
            const ws = new WebSocket('ws://example.invalid/socket');
            ws.onopen = () => done('open');
            ws.onclose = ws.onerror = () => done('closed');
        })"""
    )
    assert opened == "closed"
    info = env.step(GetUrl()).info
    assert [b["type"] for b in info["blocked"]] == ["websocket"]


@pytest.mark.browser
def test_allowlist_can_exclude_part_of_loopback(pages_url: str, other_url: str) -> None:
    config = BrowserConfig(allow_hosts=("127.0.0.1",), action_timeout_s=5.0, navigation_timeout_s=10.0, settle_s=0.05)
    with BrowserEnv(config) as env:
        env.reset({"start_url": f"{pages_url}/page2.html"})
        assert _fetch(env, f"{pages_url}/pong") == "pong"
        assert _fetch(env, f"{other_url}/pong") == "failed: TypeError"  # localhost is not allowed now
        launched = env.step(Launch(url=f"{other_url}/page2.html"))
        assert isinstance(launched.error, ActionRefused)
        # A redirect from the allowed server to the excluded one dies at the proxy layer too.
        hop = env.step(Launch(url=f"{pages_url}/redirect?to={other_url}/page2.html"))
        assert isinstance(hop.error, ActionRefused)
        assert f"{other_url}/page2.html" in _blocked_urls(hop.info)
