"""The network guard: a browser env may reach loopback and file URLs only, unless told otherwise.

Two layers, because neither alone is enough:

1. `context.route("**/*")` sees every request the page starts (documents, subresources, fetch/XHR)
   and aborts those to hosts outside the allowlist, recording each one. But Playwright calls a route
   handler only for the *first* URL of a redirect chain: a 302 from 127.0.0.1 to another host is
   followed by Chromium without asking us. WebSockets are likewise outside `route`; they get
   `route_web_socket`, which refuses the connection in the page itself.
2. Chromium is therefore launched with a black-hole proxy (`proxy_args`): every request to a host
   that is not loopback (Chromium bypasses loopback by itself) or explicitly allowed goes to a closed
   port on 127.0.0.1 and fails there. No DNS lookup happens for proxied hosts, since resolving them
   is the proxy's job. That layer catches redirects, IP-literal hosts, WebSockets and anything else
   the route layer does not see; `record_failure` notes those failures as blocked too.
"""

from __future__ import annotations

import ipaddress
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

LOOPBACK_HOSTS: tuple[str, ...] = ("127.0.0.1", "localhost", "::1")
# Schemes that never touch the network: a page may use them freely (inline images, blobs, about:blank).
LOCAL_SCHEMES = frozenset({"data", "blob", "about"})
NETWORK_SCHEMES = frozenset({"http", "https", "ws", "wss"})
# A port on loopback that nothing listens on (TCP "discard"); connections to it are refused at once.
BLACK_HOLE_PROXY = "http://127.0.0.1:9"
# What Chromium reports when the black-hole proxy refuses a request.
PROXY_FAILURES = ("ERR_PROXY_CONNECTION_FAILED", "ERR_TUNNEL_CONNECTION_FAILED", "ERR_PROXY_")
MAX_RECORDED = 200  # per drain; a page that hammers a blocked host must not grow memory without bound


@dataclass(frozen=True)
class NetPolicy:
    """Which hosts a page may reach. Hosts match exactly (case-insensitive) or by a `*.suffix` pattern,
    on any port: the proxy layer can only tell hosts apart, so a per-port rule would be a promise the
    guard could not keep for redirects. `file:` URLs are allowed when `allow_file` is set."""

    allow_hosts: tuple[str, ...] = LOOPBACK_HOSTS
    allow_file: bool = True

    def __post_init__(self) -> None:
        hosts = tuple(self.allow_hosts)
        if not all(isinstance(h, str) and h.strip() and "/" not in h for h in hosts):
            raise ValueError(f"NetPolicy.allow_hosts must be bare host names like '127.0.0.1', got {hosts!r}.")
        object.__setattr__(self, "allow_hosts", tuple(_normalise_host(h) for h in hosts))

    def allows(self, url: str) -> bool:
        """True if a page may load `url` under this policy."""
        return url_allowed(url, self)


def _normalise_host(entry: str) -> str:
    """'LocalHost ' -> 'localhost'; '[::1]' -> '::1' (URL hostnames come without brackets)."""
    return entry.strip().lower().strip("[]")


def _host_matches(host: str, entry: str) -> bool:
    if entry.startswith("*."):
        return host.endswith(entry[1:])
    return host == entry


def url_allowed(url: str, policy: NetPolicy) -> bool:
    """The one allowlist check, shared by the route layer, Launch() and reset()."""
    try:
        parts = urlsplit(url)
        host = (parts.hostname or "").lower()
    except ValueError:  # a malformed IPv6 literal: not a URL we let through
        return False
    scheme = parts.scheme.lower()
    if scheme in LOCAL_SCHEMES:
        return True
    if scheme == "file":
        return policy.allow_file
    if scheme not in NETWORK_SCHEMES:
        return False
    return bool(host) and any(_host_matches(host, e) for e in policy.allow_hosts)


def proxy_args(policy: NetPolicy) -> list[str]:
    """Chromium switches for the black-hole proxy layer. Allowed hosts go on the bypass list; Chromium
    bypasses loopback implicitly, so when the policy allows only part of loopback, `<-loopback>` turns
    that off and the allowed loopback names are listed like any other host."""
    bypass = sorted({_bypass_rule(h) for h in policy.allow_hosts})
    if not set(LOOPBACK_HOSTS) <= set(policy.allow_hosts):
        bypass.insert(0, "<-loopback>")  # first: Chromium stops at the first rule that matches a host
    return [f"--proxy-server={BLACK_HOLE_PROXY}", f"--proxy-bypass-list={';'.join(bypass)}"]


def _bypass_rule(host: str) -> str:
    try:
        if ipaddress.ip_address(host).version == 6:
            return f"[{host}]"
    except ValueError:
        pass
    return host


@dataclass
class NetGuard:
    """Installs the route layer on a browser context and keeps the list of blocked requests."""

    policy: NetPolicy = field(default_factory=NetPolicy)
    blocked: list[dict[str, Any]] = field(default_factory=list)

    def install(self, context: Any) -> None:
        """Route every request and WebSocket of `context` (a Playwright BrowserContext) through the policy."""
        context.route("**/*", self._on_route)
        context.route_web_socket("**/*", self._on_websocket)
        context.on("requestfailed", self.record_failure)

    def drain(self) -> list[dict[str, Any]]:
        """Blocked requests since the last drain (the env puts them in the step's info)."""
        out, self.blocked = self.blocked, []
        return out

    def _record(self, url: str, kind: str, reason: str) -> None:
        if len(self.blocked) < MAX_RECORDED:
            self.blocked.append({"url": url, "type": kind, "reason": reason})

    def _on_route(self, route: Any) -> None:
        request = route.request
        if self.policy.allows(request.url):
            route.fallback()
            return
        self._record(request.url, request.resource_type, "host not in the allowlist")
        route.abort("blockedbyclient")

    def _on_websocket(self, ws: Any) -> None:
        if self.policy.allows(ws.url):
            ws.connect_to_server()
            return
        self._record(ws.url, "websocket", "host not in the allowlist")
        ws.close(code=1008, reason="blocked by the venuskit network guard")

    def record_failure(self, request: Any) -> None:
        """A request that failed at the proxy layer (a redirect hop, say) is a blocked request too."""
        failure = request.failure or ""
        if any(tag in failure for tag in PROXY_FAILURES) and not self.policy.allows(request.url):
            self._record(request.url, request.resource_type, f"refused by the black-hole proxy ({failure})")
