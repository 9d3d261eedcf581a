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
   the route layer does not see; `record_failure` notes those failures as blocked too. Chromium's
   implicit loopback bypass is always switched off (`<-loopback>`): it covers all of 127.0.0.0/8 on any
   port, so a redirect to 127.0.0.2 or to another local service would otherwise skip the proxy.
3. WebRTC sends UDP that no proxy sees (STUN, host candidates, mDNS): `WEBRTC_ARGS` keeps it off the
   network (Chromium gathers no candidate that would bypass the proxy), and `BrowserConfig.webrtc`
   removes the API from pages that do not need it.

The route layer is also where a `RequestGate` (the harness's safety gate) sees every allowed request before it
leaves, with its method, URL and body fields (`OutgoingRequest`). One the gate holds never reaches the server
until the gate approves it (`take_held`, then `release`): a fetch or XHR stays pending in the page (it sees no
answer, let alone a success); a navigation (a form submission) is answered at once with "204 No Content", so the
page stays as it was (Chromium, with a main-frame navigation pending, answers no other command, so it cannot
be left pending), and an approved one is sent then from the context's own request client, with its cookies
and headers, and the page shown where it led.

An allowlist entry is a host name, an IP literal or a `*.suffix` pattern, optionally with `:port`
(`127.0.0.1:8080`: that port only). Anything else is refused when the policy is built, because entries
end up in a Chromium switch where `;` separates rules and `*` matches every host. A pattern names DNS names
only: one whose last label is a number (`*.2`, `*.0.0.1`) could only match IP literals, in both layers, and is
refused.
"""

from __future__ import annotations

import ipaddress
import json
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from email.parser import BytesParser
from email.policy import HTTP
from typing import Any, Protocol
from urllib.parse import parse_qsl, urlsplit

LOOPBACK_HOSTS: tuple[str, ...] = ("127.0.0.1", "localhost", "::1")
# Schemes that never touch the network: a page may use them freely (inline images, blobs, about:blank).
LOCAL_SCHEMES = frozenset({"data", "blob", "about"})
NETWORK_SCHEMES = frozenset({"http", "https", "ws", "wss"})
# A port on loopback that nothing listens on (TCP "discard"); connections to it are refused at once.
BLACK_HOLE_PROXY = "http://127.0.0.1:9"
# What Chromium reports when the black-hole proxy refuses a request.
PROXY_FAILURES = ("ERR_PROXY_CONNECTION_FAILED", "ERR_TUNNEL_CONNECTION_FAILED", "ERR_PROXY_")
# Chromium gathers no WebRTC candidate that would bypass the proxy: no UDP (STUN, host candidates), no
# mDNS, no DNS lookup of STUN server names; an HTTP proxy carries no UDP, so WebRTC has no way out.
WEBRTC_ARGS = ("--force-webrtc-ip-handling-policy=disable_non_proxied_udp",)
MAX_RECORDED = 200  # per drain; a page that hammers a blocked host must not grow memory without bound
MAX_BODY_READ = 1 << 20  # a body's fields are read from its first MB (the world takes at most 1 MB per request)


_LABEL = re.compile(r"^(?!-)[a-z0-9-]{1,63}(?<!-)$")
_ENTRY_CHARS = re.compile(r"^[A-Za-z0-9.:*\[\]-]+$")
_DEFAULT_PORTS = {"http": 80, "ws": 80, "https": 443, "wss": 443}


@dataclass(frozen=True)
class NetPolicy:
    """Which hosts a page may reach. Hosts match exactly (case-insensitive) or by a `*.suffix` pattern,
    on any port, or on one port when the entry names it (`127.0.0.1:8080`). `file:` URLs are allowed
    when `allow_file` is set."""

    allow_hosts: tuple[str, ...] = LOOPBACK_HOSTS
    allow_file: bool = True

    def __post_init__(self) -> None:
        hosts = tuple(self.allow_hosts)
        object.__setattr__(self, "allow_hosts", tuple(normalise_host_entry(h) for h in hosts))

    def allows(self, url: str) -> bool:
        """True if a page may load `url` under this policy."""
        return url_allowed(url, self)


def normalise_host_entry(entry: object) -> str:
    """A validated allowlist entry in canonical form: 'LocalHost ' -> 'localhost', '[::1]' -> '::1',
    '[::1]:8080' -> '[::1]:8080'. Raises ValueError for anything that is not a host name, an IP literal
    or a '*.suffix' pattern, with an optional ':port'."""
    if not isinstance(entry, str) or not _ENTRY_CHARS.match(entry.strip()):
        raise ValueError(_bad_entry(entry))
    host, port = _split_port(entry.strip().lower(), entry)
    if _ip(host) is not None:
        host = str(_ip(host))
    elif not _valid_name(host.removeprefix("*.")):
        raise ValueError(_bad_entry(entry))
    elif host.startswith("*.") and _ends_in_number(host):
        raise ValueError(f"{entry!r}: a '*.suffix' pattern applies to DNS names only, and a name whose last label "
                         "is a number is an IP address (127.0.0.2 ends in '.2'); allow an address by writing it "
                         "out, e.g. 127.0.0.2.")  # fmt: skip
    if port is None:
        return host
    return f"[{host}]:{port}" if ":" in host else f"{host}:{port}"


def _bad_entry(entry: object) -> str:
    return (
        f"{entry!r} is not an allowed-host entry: give a host name (app.local), an IP literal (127.0.0.1, ::1) "
        "or a '*.suffix' pattern, optionally with ':port'; no schemes, paths, spaces, ';' or a bare '*'."
    )


def _split_port(text: str, entry: str) -> tuple[str, int | None]:
    if text.startswith("["):  # [v6] or [v6]:port
        end = text.find("]")
        host, rest = text[1:end], text[end + 1 :]
        if end < 0 or _ip(host) is None or (rest and not rest.startswith(":")):
            raise ValueError(f"{entry!r} is not a bracketed IPv6 literal like [::1] or [::1]:8080.")
        return host, _port(rest[1:], entry) if rest else None
    if text.count(":") == 1:
        host, port = text.split(":")
        return host, _port(port, entry)
    return text, None  # a name, an IPv4 literal or a bare IPv6 literal


def _port(text: str, entry: str) -> int:
    if not text.isdigit() or not 0 < int(text) < 65536:
        raise ValueError(f"{entry!r} has a port that is not a number in 1..65535.")
    return int(text)


def _ip(host: str) -> ipaddress.IPv4Address | ipaddress.IPv6Address | None:
    try:
        return ipaddress.ip_address(host)
    except ValueError:
        return None


def _ends_in_number(name: str) -> bool:
    """The URL standard's test: a host whose last label is a number (decimal, or 0x hex) is parsed as IPv4."""
    last = name.rsplit(".", 1)[-1]
    return last.isdigit() or bool(re.fullmatch(r"0x[0-9a-f]*", last))


def _valid_name(name: str) -> bool:
    return 0 < len(name) <= 253 and all(_LABEL.match(label) for label in name.split("."))


def _entry_parts(entry: str) -> tuple[str, int | None]:
    """A canonical entry -> (host, port or None)."""
    if entry.startswith("["):
        host, _, port = entry[1:].partition("]:")
        return host, int(port)
    if entry.count(":") == 1:
        host, port = entry.split(":")
        return host, int(port)
    return entry, None


def _host_matches(host: str, port: int | None, entry: str) -> bool:
    pattern, only_port = _entry_parts(entry)
    if only_port is not None and port != only_port:
        return False
    if pattern.startswith("*."):  # DNS names only: never an IP literal, whatever its digits end with
        return _ip(host) is None and host.endswith(pattern[1:])
    return host == pattern


def url_allowed(url: str, policy: NetPolicy) -> bool:
    """The one allowlist check, shared by the route layer, Launch() and reset()."""
    try:
        parts = urlsplit(url)
        host = (parts.hostname or "").lower()
        scheme = parts.scheme.lower()
        port = parts.port or _DEFAULT_PORTS.get(scheme)
    except ValueError:  # a malformed IPv6 literal or port: not a URL we let through
        return False
    if scheme in LOCAL_SCHEMES:
        return True
    if scheme == "file":
        return policy.allow_file
    if scheme not in NETWORK_SCHEMES:
        return False
    if _ip(host) is not None:
        host = str(_ip(host))  # the canonical spelling the entries use
    return bool(host) and any(_host_matches(host, port, e) for e in policy.allow_hosts)


def proxy_args(policy: NetPolicy) -> list[str]:
    """Chromium switches for the black-hole proxy layer. Allowed hosts go on the bypass list, after
    `<-loopback>`, which turns off Chromium's implicit bypass of all loopback addresses and ports."""
    bypass = ["<-loopback>", *sorted({_bypass_rule(normalise_host_entry(h)) for h in policy.allow_hosts})]
    return [f"--proxy-server={BLACK_HOLE_PROXY}", f"--proxy-bypass-list={';'.join(bypass)}"]


def _bypass_rule(entry: str) -> str:
    host, port = _entry_parts(entry)
    if ":" in host:
        host = f"[{host}]"
    return host if port is None else f"{host}:{port}"


# Pages without WebRTC: the constructors report the attempt (with the ICE servers asked for) to the guard
# and throw. The report function is taken when the frame starts, before any page script could replace it.
_NO_WEBRTC_JS = """(() => {
  const report = globalThis.BINDING;
  const blocked = function (config) {
    let urls = [];
    try { for (const s of (config && config.iceServers) || []) urls = urls.concat(s.urls || s.url || []); }
    catch (e) { urls = []; }
    try { report(urls.slice(0, 20).map(String)); } catch (e) {}
    throw new DOMException('WebRTC is turned off in this browser.', 'NotSupportedError');
  };
  for (const name of ['RTCPeerConnection', 'webkitRTCPeerConnection'])
    if (name in globalThis)
      Object.defineProperty(globalThis, name, {value: blocked, writable: false, configurable: false});
})();"""
_WEBRTC_BINDING = "__venuskitWebRTC"


@dataclass(frozen=True)
class OutgoingRequest:
    """A request a page is about to send, as a gate judges it: lower-case method, URL, and the body's fields
    (a form, multipart form or JSON object; the last value of a repeated name)."""

    method: str
    url: str
    fields: dict[str, str] = field(default_factory=dict)
    resource_type: str = ""


class RequestGate(Protocol):
    """Judges the requests a page sends (the safety gate implements it)."""

    def screen_request(self, request: OutgoingRequest) -> dict[str, Any] | None:
        """None: let it go unrecorded. Else a record whose "decision" is "allow" (it goes, recorded) or "hold"."""
        ...

    def decide_requests(self, held: list[tuple[OutgoingRequest, dict[str, Any]]], when: str) -> list[dict[str, Any]]:
        """One record per held request, whose "decision" is "allow" (it is sent now) or "block" (it never is)."""
        ...


def outgoing(request: Any) -> OutgoingRequest:
    """A Playwright Request as the gate sees it."""
    try:
        body = request.post_data_buffer or b""
    except Exception:  # noqa: BLE001 - a body Playwright cannot hand over is judged as an empty one
        body = b""
    ctype = (request.headers or {}).get("content-type", "")
    return OutgoingRequest(request.method.lower(), request.url, body_fields(ctype, body[:MAX_BODY_READ]),
                           request.resource_type)  # fmt: skip


def body_fields(content_type: str, body: bytes) -> dict[str, str]:
    """name -> value of a request body: urlencoded, multipart, JSON (top-level keys) or text/plain form data.
    Anything else (or what does not parse) has no fields: a gate then judges the method and URL alone."""
    kind = content_type.split(";", 1)[0].strip().lower()
    text = body.decode("utf-8", "replace")
    try:
        if kind == "multipart/form-data":
            message = BytesParser(policy=HTTP).parsebytes(f"Content-Type: {content_type}\r\n\r\n".encode() + body)
            return {str(p.get_param("name", header="content-disposition")): p.get_content()
                    for p in message.iter_parts() if isinstance(p.get_content(), str)}  # fmt: skip
        if kind == "application/json" or text.lstrip().startswith("{"):
            doc = json.loads(text)
            return {str(k): v if isinstance(v, str) else json.dumps(v) for k, v in doc.items()} if isinstance(
                doc, dict) else {}  # fmt: skip
        if kind == "text/plain":
            return dict(line.split("=", 1) for line in text.splitlines() if "=" in line)
        return dict(parse_qsl(text, keep_blank_values=True, max_num_fields=5000))
    except (ValueError, TypeError, RecursionError, LookupError):
        return {}


@dataclass
class NetGuard:
    """Installs the route layer on a browser context and keeps the list of blocked requests; with a `gate`, every
    allowed request is screened by it, and the ones it holds are parked here until `take_held`."""

    policy: NetPolicy = field(default_factory=NetPolicy)
    blocked: list[dict[str, Any]] = field(default_factory=list)
    gate: RequestGate | None = None
    gated: list[dict[str, Any]] = field(default_factory=list)  # the gate's records of requests that went out
    _held: list[tuple[OutgoingRequest, dict[str, Any], Callable[[bool], str | None]]] = field(default_factory=list)
    _context: Any = None

    def install(self, context: Any, webrtc: bool = False) -> None:
        """Route every request and WebSocket of `context` (a Playwright BrowserContext) through the policy;
        without `webrtc`, remove RTCPeerConnection from its pages and record every attempt to make one."""
        self._context = context
        context.route("**/*", self._on_route)
        context.route_web_socket("**/*", self._on_websocket)
        context.on("requestfailed", self.record_failure)
        if not webrtc:
            context.expose_binding(_WEBRTC_BINDING, self._on_webrtc)
            context.add_init_script(_NO_WEBRTC_JS.replace("BINDING", _WEBRTC_BINDING))

    def drain(self) -> list[dict[str, Any]]:
        """Blocked requests since the last drain (the env puts them in the step's info)."""
        out, self.blocked = self.blocked, []
        return out

    def drain_gated(self) -> list[dict[str, Any]]:
        """The gate's records of requests since the last drain (the env puts them in the step's info)."""
        out, self.gated = self.gated, []
        return out

    def holding(self) -> bool:
        """Whether some request waits for the gate (a submit it holds commits no document until decided)."""
        return bool(self._held)

    def take_held(self) -> list[tuple[OutgoingRequest, dict[str, Any], Callable[[bool], str | None]]]:
        """Requests the gate holds, each with `release(send)`: send=True sends it (for a navigation: returns the
        URL it led to, for the page to show), False never does (a fetch stays pending until its page goes)."""
        held, self._held = self._held, []
        return held

    def _record(self, url: str, kind: str, reason: str) -> None:
        if len(self.blocked) < MAX_RECORDED:
            self.blocked.append({"url": url, "type": kind, "reason": reason})

    def _on_route(self, route: Any) -> None:
        request = route.request
        if not self.policy.allows(request.url):
            self._record(request.url, request.resource_type, "host not in the allowlist")
            route.abort("blockedbyclient")
            return
        if self.gate is not None and self._holds(route):
            return
        route.fallback()

    def _holds(self, route: Any) -> bool:
        """Screen an allowed request with the gate; True if it is parked (a gate that fails holds it: closed)."""
        req = outgoing(route.request)
        try:
            record = self.gate.screen_request(req) if self.gate is not None else None
        except Exception as exc:  # noqa: BLE001 - a gate that cannot judge a request must not let it out
            why = f"the gate could not screen it ({type(exc).__name__})"
            record = {"kind": "unknown", "method": req.method.upper(), "url": req.url, "summary": req.url,
                      "decision": "hold", "reason": why}  # fmt: skip
        if record is None:
            return False
        if record.get("decision") != "hold":
            self.gated.append(record)
            return False
        if req.resource_type != "document":
            self._held.append((req, record, lambda send, r=route: r.fallback() if send else None))
            return True
        headers, body = route.request.all_headers(), route.request.post_data_buffer
        route.fulfill(status=204, body=b"")  # no new page; nothing reached the server
        self._held.append((req, record, lambda send: self._replay(req, headers, body) if send else None))
        return True

    def _replay(self, req: OutgoingRequest, headers: dict[str, str], body: bytes | None) -> str | None:
        """Send an approved navigation from the context's request client (its cookies, the page's headers); the URL
        it led to (after redirects), for the page to show, or None when it led nowhere new."""
        own = {"host", "content-length", "connection", "cookie", "accept-encoding"}
        sent = {k: v for k, v in headers.items() if k.lower() not in own and not k.startswith(":")}
        response = self._context.request.fetch(req.url, method=req.method.upper(), headers=sent, data=body,
                                               max_redirects=20, fail_on_status_code=False)  # fmt: skip
        return response.url if response.url != req.url else None

    def _on_websocket(self, ws: Any) -> None:
        if self.policy.allows(ws.url):
            ws.connect_to_server()
            return
        self._record(ws.url, "websocket", "host not in the allowlist")
        ws.close(code=1008, reason="blocked by the venuskit network guard")

    def _on_webrtc(self, source: Any, urls: Any) -> None:
        urls = [str(u)[:500] for u in urls] if isinstance(urls, list) else []
        for url in urls or [""]:
            self._record(url, "webrtc", "WebRTC is off in this browser (BrowserConfig.webrtc)")

    def record_failure(self, request: Any) -> None:
        """A request that failed at the proxy layer (a redirect hop, say) is a blocked request too."""
        failure = request.failure or ""
        if not any(tag in failure for tag in PROXY_FAILURES):
            return
        if self.policy.allows(request.url):
            # Only a disallowed host goes to the proxy, so this request was redirected there; Playwright
            # sometimes reports the failed hop under the first URL of the chain, which is all we know then.
            reason = f"redirected outside the allowlist and refused by the black-hole proxy ({failure})"
            self._record(request.url, request.resource_type, reason)
            return
        self._record(request.url, request.resource_type, f"refused by the black-hole proxy ({failure})")
