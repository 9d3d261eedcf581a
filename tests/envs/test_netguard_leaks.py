"""Pages that try to leave: every channel a page has (fetch, XHR, subresources, redirects, data: and blob:
documents, popups, dedicated and shared workers, WebSocket, beacons, forms, WebRTC) aimed at a server it
must not reach. A raw TCP + UDP trap counts every connection and datagram it gets: it must get none, and
the step's `info["blocked"]` must name each channel the guard can see."""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Iterator
from typing import Any
from urllib.parse import unquote

import pytest

from venuskit.actions.types import GetUrl
from venuskit.cli.common import browser_config
from venuskit.envs.browser import BrowserConfig, BrowserEnv
from venuskit.envs.netguard import NetPolicy, normalise_host_entry, proxy_args

# The channels leave.html tries whose attempt the guard records (the path of each blocked URL). Preconnect,
# dns-prefetch, shared-worker and worker-WebSocket attempts reach only the black-hole proxy and leave no
# Playwright event to record: the trap proves they do not leave.
RECORDED = {
    "/fetch", "/fetch-no-cors", "/fetch-redirect", "/xhr", "/img", "/css", "/prefetch", "/preload", "/font", "/bg",
    "/beacon", "/sse", "/ws", "/frame", "/frame-redirect", "/data-img", "/data-fetch", "/blob-img", "/blob-fetch",
    "/worker-fetch", "/popup", "/popup-blob-fetch", "/form",
}  # fmt: skip


class Trap:
    """A TCP listener and a UDP socket on one host:port that record everything that reaches them."""

    def __init__(self, host: str) -> None:
        self.hits: list[str] = []
        self.tcp = socket.create_server((host, 0))
        self.port = self.tcp.getsockname()[1]
        self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.udp.bind((host, self.port))
        self.url = f"http://{host}:{self.port}"
        for target in (self._accept, self._receive):
            threading.Thread(target=target, daemon=True).start()

    def _accept(self) -> None:
        while True:
            try:
                conn, _ = self.tcp.accept()
            except OSError:
                return
            conn.settimeout(0.5)
            try:
                first = conn.recv(200).split(b"\r\n")[0].decode(errors="replace")
            except OSError:
                first = ""
            self.hits.append(first or "(a TCP connection)")
            conn.close()

    def _receive(self) -> None:
        while True:
            try:
                data, _ = self.udp.recvfrom(2048)
            except OSError:
                return
            self.hits.append(f"UDP datagram of {len(data)} bytes")

    def close(self) -> None:
        self.tcp.close()
        self.udp.close()


@pytest.fixture
def trap(request: pytest.FixtureRequest) -> Iterator[Trap]:
    t = Trap(request.param)
    yield t
    t.close()


def _leave(env: BrowserEnv, start: str, trap: Trap) -> dict[str, Any]:
    env.reset({"start_url": f"{start}/leave.html?trap={trap.url}"})
    tried = env.page.evaluate("leave()")
    time.sleep(0.3)  # late attempts (workers, popups) have their moment to reach the trap
    return {"tried": tried, "info": env.step(GetUrl()).info}


def _paths(info: dict[str, Any], trap: Trap) -> set[str]:
    """The trap paths of the blocked URLs. A redirect hop may be reported under the URL that redirected
    (`/redirect?to=<trap>/fetch-redirect`), whose target is its last path."""
    urls = [unquote(b["url"]) for b in info.get("blocked", [])]
    return {"/" + u.rsplit("/", 1)[1] if "/redirect?to=" in u else u.split(str(trap.port), 1)[-1] for u in urls}


@pytest.mark.browser
@pytest.mark.parametrize("trap", ["127.0.0.1"], indirect=True)
def test_a_page_cannot_reach_another_port_of_an_allowed_host(pages_url: str, trap: Trap) -> None:
    port = pages_url.rsplit(":", 1)[1]
    with BrowserEnv(BrowserConfig(allow_hosts=(f"127.0.0.1:{port}",), settle_s=0.05)) as env:
        got = _leave(env, pages_url, trap)
    assert trap.hits == []
    assert _paths(got["info"], trap) >= RECORDED, f"not recorded: {RECORDED - _paths(got['info'], trap)}"
    webrtc = [b for b in got["info"]["blocked"] if b["type"] == "webrtc"]
    assert got["tried"]["webrtc"] == "failed: NotSupportedError" and webrtc[0]["url"] == f"stun:127.0.0.1:{trap.port}"


@pytest.mark.browser
@pytest.mark.parametrize("trap", ["127.0.0.2"], indirect=True)
def test_a_page_cannot_reach_a_loopback_alias_that_is_not_allowed(pages_url: str, trap: Trap) -> None:
    """The default allowlist names 127.0.0.1, localhost and ::1; Chromium's own loopback bypass would let a
    redirect reach all of 127.0.0.0/8."""
    with BrowserEnv(BrowserConfig(settle_s=0.05)) as env:
        got = _leave(env, pages_url, trap)
    assert trap.hits == []
    assert _paths(got["info"], trap) >= RECORDED


@pytest.mark.browser
def test_unroutable_addresses_go_to_the_black_hole(pages_url: str) -> None:
    with BrowserEnv(BrowserConfig(settle_s=0.05)) as env:
        env.reset({"start_url": f"{pages_url}/page2.html"})
        fetch = "u => fetch(u).then(r => r.status).catch(e => e.name)"
        assert env.page.evaluate(fetch, "http://10.255.255.1/direct") == "TypeError"
        redirect = f"{pages_url}/redirect?to=http://10.255.255.1/hop"
        assert env.page.evaluate(fetch, redirect) == "TypeError"
        blocked: dict[str, str] = {}
        deadline = time.monotonic() + 5
        while not _hop_recorded(blocked, redirect) and time.monotonic() < deadline:
            # The proxy's failure of a redirect hop reaches the recorder as an event that can come after the
            # page saw its fetch fail: it is reported with this step or the next, never lost.
            blocked |= {b["url"]: b["reason"] for b in env.step(GetUrl()).info.get("blocked", [])}
            time.sleep(0.1)
    assert blocked["http://10.255.255.1/direct"] == "host not in the allowlist"
    assert _hop_recorded(blocked, redirect), blocked  # the hop went to the black hole, never dialled directly


def _hop_recorded(blocked: dict[str, str], redirect: str) -> bool:
    """The proxy's refusal of the hop is on record: Chromium names the failed request by the hop's URL, or at
    times (seen in CI) by the first URL of its redirect chain, which the guard then records as redirected."""
    hop = blocked.get("http://10.255.255.1/hop", "")
    chain = blocked.get(redirect, "")
    return "ERR_PROXY_CONNECTION_FAILED" in hop or (
        "ERR_PROXY_CONNECTION_FAILED" in chain and chain.startswith("redirected outside the allowlist")
    )


def _outside_address() -> str:
    """An address of this machine that is not loopback: WebRTC's host candidates and STUN go out from it."""
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        s.connect(("192.0.2.1", 9))  # a UDP connect sends nothing; it only picks the outgoing interface
        address = s.getsockname()[0]
    assert not address.startswith("127."), "this test needs a non-loopback interface (WebRTC ignores loopback)"
    return address


_WEBRTC_JS = """async (server) => {
  const pc = new RTCPeerConnection({iceServers: [{urls: 'stun:' + server}]});
  pc.createDataChannel('x');
  const candidates = [];
  pc.onicecandidate = e => { if (e.candidate) candidates.push(e.candidate.candidate); };
  await pc.setLocalDescription(await pc.createOffer());
  await new Promise(done => setTimeout(done, 1500));
  pc.close();
  return candidates;
}"""


@pytest.mark.browser
def test_webrtc_sends_nothing_even_where_pages_may_use_it() -> None:
    """Reproduces the probe first: Chromium without the guard's WebRTC policy sends STUN to the server a
    page names. With it (BrowserConfig.webrtc=True keeps the API), no candidate and no datagram."""
    from playwright.sync_api import sync_playwright

    trap = Trap(_outside_address())
    server = f"{trap.udp.getsockname()[0]}:{trap.port}"
    try:
        with sync_playwright() as p:
            browser = p.chromium.launch(executable_path=BrowserConfig().resolve_executable(), args=["--no-sandbox"])
            candidates = browser.new_page().evaluate(_WEBRTC_JS, server)
            browser.close()
        assert candidates and any("UDP datagram" in h for h in trap.hits), "the unguarded control sent nothing"
        trap.hits.clear()
        with BrowserEnv(BrowserConfig(webrtc=True)) as env:
            env.reset({"start_url": "about:blank"})
            assert env.page.evaluate(_WEBRTC_JS, server) == []
        assert trap.hits == []
    finally:
        trap.close()


@pytest.mark.parametrize(
    "entry", ["x;*", "*", "*.", "http://a/", "a b", "a/b", "<-loopback>", "127.0.0.1:0", "a:b:c", "[::1", "-a.com", ""]
)
def test_allowed_hosts_are_validated_strictly(entry: str) -> None:
    with pytest.raises(ValueError, match="allowed-host|IPv6|port"):
        NetPolicy(allow_hosts=(entry,))
    with pytest.raises(ValueError):
        browser_config("browser", [entry], headed=False)  # what `venus run --allow-host` builds


def test_allowed_hosts_take_names_ip_literals_patterns_and_ports() -> None:
    entries = ("App.Local", "[::1]:8080", "10.0.0.2", "*.test:9000")
    assert [normalise_host_entry(e) for e in entries] == ["app.local", "[::1]:8080", "10.0.0.2", "*.test:9000"]
    policy = NetPolicy(allow_hosts=entries)
    assert policy.allows("http://[::1]:8080/") and not policy.allows("http://[::1]:8081/")
    assert policy.allows("ws://a.test:9000/") and not policy.allows("http://a.test/")
    assert proxy_args(policy)[1] == "--proxy-bypass-list=<-loopback>;*.test:9000;10.0.0.2;[::1]:8080;app.local"


@pytest.mark.parametrize("entry", ["*.2", "*.1", "*.0.0.1", "*.0.1:80", "*.0x7f", "*.0x2"])
def test_a_wildcard_names_dns_names_only(entry: str) -> None:
    """A wildcard whose last label is a number could only ever match an IP literal (127.0.0.2 ends in '.2'), and
    Chromium's bypass list would match it so too: it is refused, with the fix."""
    with pytest.raises(ValueError, match="DNS names only"):
        NetPolicy(allow_hosts=(entry,))
    with pytest.raises(ValueError, match="DNS names only"):
        browser_config("browser", [entry], headed=False)


def test_a_dns_wildcard_never_matches_an_ip_literal() -> None:
    policy = NetPolicy(allow_hosts=("*.test", "127.0.0.1"))
    assert policy.allows("http://a.test/") and not policy.allows("http://127.0.0.2/")
    assert not policy.allows("http://[::2]/") and not policy.allows("http://10.0.0.2/")

