"""One loopback HTTP server for every server venuskit runs (world, CAPTCHA, stand-in, model server).

An app is one function `app(request) -> Response`. `LoopbackServer` runs it on 127.0.0.1 (port 0 picks a free
port) in a thread per connection and does everything else once, the same way for every app:

- Only loopback binds, and only requests whose `Host` is the server's own loopback host:port (a page on
  `attacker.example` that rebinds its name to 127.0.0.1 still sends `Host: attacker.example`).
- The request target must be a percent-encoded ASCII path (a raw byte above 127, a control character or an
  absolute URL is a 400). The app sees HEAD as GET; the body is then left out.
- A request that changes state (anything but GET/HEAD/OPTIONS) coming from a browser must come from the
  server's own origin: a cross-site `Origin` or `Sec-Fetch-Site: cross-site` is refused (CSRF).
- The body is read only with a valid `Content-Length` no larger than `Limits.max_body`: missing → 411,
  negative / not a number / two different values → 400, too large → 413 (the body is never read), fewer bytes
  than announced → the read times out and the connection is closed. No chunked uploads.
- Every socket read has a timeout (`idle_timeout_s` waiting for a request, `read_timeout_s` inside one), and a
  body must arrive whole within `read_timeout_s` of the request line, so no client can hold a thread for long.
  Past `Limits.max_connections` open connections, the connection that has waited longest for its next request
  is closed to make room (idle connections cannot lock a real request out); when every connection is inside a
  request, the new one is closed at once.
- Nagle is off: headers and body are two writes, and with Nagle the body waits for the client's delayed ACK
  (40 ms on Linux loopback).
- An app raises `HTTPError(status, message)` for a clean 4xx/5xx. Any other exception becomes a 500 whose body
  says nothing about the code; its traceback goes to `server.errors`, a bounded log (`error_count` counts all).

`parse_json(body)` parses with the same size limit and a nesting-depth limit (`untrusted.json_depth`: a
30,000-deep array would raise RecursionError inside `json.loads`). `static_app(folder)` is an app that serves a
folder's files. `Service` is the base of a class that owns a server for its own app (start, stop, `with`).

    def app(req: Request) -> Response:
        if req.path == "/echo" and req.method == "POST":
            return json_response({"got": req.json()})
        raise HTTPError(404, f"No page at {req.path}.")

    with LoopbackServer(app) as server:
        urllib.request.urlopen(server.url("/echo"), data=b"{}")
"""

from __future__ import annotations

import collections
import contextlib
import json
import mimetypes
import os
import socket
import threading
import time
import traceback
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, Self
from urllib.parse import parse_qs, unquote, urlsplit

from venuskit.infra.untrusted import json_depth

LOOPBACK_HOSTS = ("127.0.0.1", "localhost", "::1")
SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


class HTTPError(Exception):
    """Raise in an app to answer `status` with `message` (shown to the client: say what to do)."""

    def __init__(self, status: int, message: str, headers: Iterable[tuple[str, str]] = ()) -> None:
        super().__init__(message)
        self.status, self.message, self.headers = int(status), message, list(headers)


@dataclass(frozen=True)
class Limits:
    """What one request may cost the server. Every field is a hard limit; exceeding it is a clean 4xx."""

    max_body: int = 1 << 20  # bytes of request body
    max_json_depth: int = 64  # nesting of arrays and objects in a JSON body
    max_query_fields: int = 200  # query-string / form fields
    idle_timeout_s: float = 30.0  # a kept-alive connection waiting for its next request
    read_timeout_s: float = 10.0  # one request, from its first line to the last byte of its body
    max_connections: int = 256  # open connections (each holds a thread)

    def __post_init__(self) -> None:
        for name in ("max_body", "max_json_depth", "max_query_fields", "max_connections"):
            if getattr(self, name) < 1:
                raise ValueError(f"Limits.{name} must be at least 1, got {getattr(self, name)}.")
        if not (self.idle_timeout_s > 0 and self.read_timeout_s > 0):
            raise ValueError("Limits timeouts must be positive numbers of seconds.")


@dataclass
class Request:
    """One request as the app sees it. `path` is the raw path (still percent-encoded), without the query."""

    method: str
    path: str
    query_string: str
    headers: Mapping[str, str]  # names lower-cased; a repeated header keeps its last value
    body: bytes = b""
    limits: Limits = field(default_factory=Limits)

    def query(self) -> dict[str, list[str]]:
        """The query string, every value of every field (at most `Limits.max_query_fields` fields)."""
        return parse_fields(self.query_string, self.limits.max_query_fields)

    def form(self) -> dict[str, list[str]]:
        """An `application/x-www-form-urlencoded` body, like `query()`."""
        try:
            text = self.body.decode("utf-8")
        except UnicodeDecodeError as e:
            raise HTTPError(400, "The form is not valid UTF-8.") from e
        return parse_fields(text, self.limits.max_query_fields)

    def json(self) -> Any:
        """The body as JSON, within the server's size and depth limits (else HTTPError 400/413)."""
        return parse_json(self.body, max_bytes=self.limits.max_body, max_depth=self.limits.max_json_depth)


@dataclass
class Response:
    """What an app returns. `stream`, when set, is sent chunk by chunk (Transfer-Encoding: chunked) instead of
    `body`, for replies produced as they go (server-sent events)."""

    body: bytes = b""
    status: int = 200
    content_type: str = "text/html; charset=utf-8"
    headers: list[tuple[str, str]] = field(default_factory=list)
    stream: Iterable[bytes] | None = None


def json_response(data: Any, status: int = 200, headers: Iterable[tuple[str, str]] = ()) -> Response:
    return Response(json.dumps(data).encode(), status, "application/json", list(headers))


def json_error(status: int, message: str) -> Response:
    """The default error reply: `{"error": {"message": ..., "code": status}}` (the OpenAI wire shape)."""
    return json_response({"error": {"message": message, "code": status}}, status)


App = Callable[[Request], Response]
ErrorPage = Callable[[int, str], Response]


def parse_fields(text: str, max_fields: int = 200) -> dict[str, list[str]]:
    """`a=1&b=2&a=3` -> {"a": ["1", "3"], "b": ["2"]}; more than `max_fields` fields is an HTTPError 400."""
    try:
        return parse_qs(text, keep_blank_values=True, max_num_fields=max_fields)
    except ValueError as e:  # raised by parse_qs past max_num_fields
        raise HTTPError(400, f"Too many fields (at most {max_fields}).") from e


def parse_json(body: bytes, *, max_bytes: int = 1 << 20, max_depth: int = 64) -> Any:
    """Parse untrusted JSON: at most `max_bytes` and `max_depth` levels, UTF-8, else HTTPError 413/400."""
    if len(body) > max_bytes:
        raise HTTPError(413, f"The JSON body is larger than {max_bytes} bytes.")
    if json_depth(body) > max_depth:
        raise HTTPError(400, f"The JSON body nests deeper than {max_depth} levels.")
    try:
        return json.loads(body.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as e:
        raise HTTPError(400, f"The body is not valid JSON: {e}.") from e


def static_app(root: str | os.PathLike[str]) -> App:
    """An app that serves the files under `root` (GET/HEAD; a folder serves its index.html). Paths are
    percent-decoded and must stay inside `root` after resolving links; anything else is a 404."""
    base = Path(root).resolve()

    def app(req: Request) -> Response:
        if req.method != "GET":
            raise HTTPError(405, "Only GET and HEAD are served here.", [("Allow", "GET, HEAD")])
        path = (base / unquote(req.path).lstrip("/")).resolve()
        if path.is_dir():
            path = path / "index.html"
        if not path.is_relative_to(base) or not path.is_file():
            raise HTTPError(404, f"No file at {req.path}.")
        ctype = mimetypes.guess_type(path.name)[0] or "application/octet-stream"
        if ctype.startswith("text/") or ctype in ("application/javascript", "application/json"):
            ctype += "; charset=utf-8"
        return Response(path.read_bytes(), content_type=ctype, headers=[("Cache-Control", "no-cache")])

    return app


def loopback_origins(host: str, port: int, extra_hosts: Iterable[str] = ()) -> frozenset[str]:
    """Every `host:port` a client on this machine may name this server by (also its `Origin`, with http://)."""
    names = {"127.0.0.1", "localhost"} if host in ("127.0.0.1", "localhost") else {"[::1]", "localhost"}
    return frozenset(f"{name.lower()}:{port}" for name in (*names, *extra_hosts))


class LoopbackServer:
    """Runs `app` on loopback. Start with `start()` or as a context manager; `stop()` joins the server thread."""

    def __init__(
        self,
        app: App,
        *,
        host: str = "127.0.0.1",
        port: int = 0,
        name: str = "venuskit-http",
        limits: Limits | None = None,
        error_page: ErrorPage = json_error,
        error_log_size: int = 100,
        server_header: str = "venuskit",
        extra_hosts: Iterable[str] = (),
    ) -> None:
        """`extra_hosts`: more names the server answers to on its port, for a browser that maps them to loopback
        (`--host-resolver-rules`); every other Host is refused."""
        if host not in LOOPBACK_HOSTS:
            raise ValueError(f"venuskit servers bind loopback only ({', '.join(LOOPBACK_HOSTS)}), not {host!r}.")
        self.app, self.host, self.name = app, host, name
        self.limits = limits or Limits()
        self.error_page = error_page
        self.server_header = server_header
        self.extra_hosts = tuple(extra_hosts)
        self.errors: collections.deque[str] = collections.deque(maxlen=error_log_size)
        self.error_count = 0  # every 5xx the app caused, including those the bounded log has dropped
        self._requested_port = port
        self._httpd: _ThreadingServer | None = None
        self._thread: threading.Thread | None = None
        self._allowed_hosts: frozenset[str] = frozenset()

    # -- lifecycle --

    def start(self) -> Self:
        if self._httpd is not None:
            raise RuntimeError(f"The {self.name} server is already running at {self.base_url}.")
        httpd = _ThreadingServer((self.host, self._requested_port), _handler_for(self), self.limits)
        port = httpd.server_address[1]
        self._allowed_hosts = loopback_origins(self.host, port, self.extra_hosts)
        self._httpd = httpd
        self._thread = threading.Thread(target=httpd.serve_forever, args=(0.1,), name=self.name, daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop accepting, close the listening socket and join the server thread (idempotent)."""
        httpd, thread, self._httpd, self._thread = self._httpd, self._thread, None, None
        if httpd is not None:
            httpd.shutdown()
            httpd.server_close()
        if thread is not None:
            thread.join(timeout=5)

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def running(self) -> bool:
        return self._httpd is not None

    @property
    def port(self) -> int:
        if self._httpd is None:
            raise RuntimeError(f"The {self.name} server is not running; call start() first.")
        return self._httpd.server_address[1]

    @property
    def base_url(self) -> str:
        host = "[::1]" if self.host == "::1" else self.host
        return f"http://{host}:{self.port}"

    def url(self, path: str = "/") -> str:
        return self.base_url + path

    # -- called from handler threads --

    def log_error(self, text: str, *, count: bool = True) -> None:
        self.errors.append(text)
        if count:
            self.error_count += 1

    def check_request(self, method: str, headers: Mapping[str, str]) -> None:
        """Refuse requests not addressed to this server by its loopback name, and cross-site writes."""
        host = headers.get("host")
        if host is None:
            raise HTTPError(400, "The request has no Host header.")
        if host.lower() not in self._allowed_hosts:
            raise HTTPError(421, f"This server answers only to {' or '.join(sorted(self._allowed_hosts))}.")
        if method in SAFE_METHODS:
            return
        origin = headers.get("origin")
        if origin is not None and origin.lower().removeprefix("http://") not in self._allowed_hosts:
            raise HTTPError(403, "Cross-origin requests that change state are refused.")
        if headers.get("sec-fetch-site", "").lower() == "cross-site":
            raise HTTPError(403, "Cross-site requests that change state are refused.")


class Service:
    """Base for a class that serves its own app on a `LoopbackServer` kept in `self._http`: start / stop and the
    context manager, once. A subclass that must clean up more overrides `stop` and calls `super().stop()`."""

    _http: LoopbackServer

    def start(self) -> Self:
        self._http.start()
        return self

    def stop(self) -> None:
        self._http.stop()

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()


class _ThreadingServer(ThreadingHTTPServer):
    daemon_threads = True
    request_queue_size = 128
    EVICT_WAIT_S = 1.0  # how long a new connection waits for the slot of the idle one closed for it

    def __init__(self, address: tuple[str, int], handler: type[BaseHTTPRequestHandler], limits: Limits) -> None:
        if ":" in address[0]:
            self.address_family = socket.AF_INET6
        self._slots = threading.BoundedSemaphore(limits.max_connections)
        self._idle: dict[socket.socket, float] = {}  # connections waiting for their next request -> since when
        self._idle_lock = threading.Lock()
        super().__init__(address, handler)

    def process_request(self, request: Any, client_address: Any) -> None:
        room = self._slots.acquire(blocking=False) or (
            self._close_longest_idle() and self._slots.acquire(timeout=self.EVICT_WAIT_S))
        if not room:
            self.shutdown_request(request)  # every connection is inside a request: refuse this one
            return
        super().process_request(request, client_address)

    def waiting(self, sock: socket.socket, idle: bool) -> None:
        """A connection starts (idle=True) or stops waiting for its next request."""
        with self._idle_lock:
            if idle:
                self._idle[sock] = time.monotonic()
            else:
                self._idle.pop(sock, None)

    def _close_longest_idle(self) -> bool:
        """Shut the connection that has waited longest for a request: its thread reads EOF and frees its slot."""
        with self._idle_lock:
            if not self._idle:
                return False
            sock = min(self._idle, key=self._idle.__getitem__)
            del self._idle[sock]
        with contextlib.suppress(OSError):  # it closed by itself meanwhile: its slot is coming free all the same
            sock.shutdown(socket.SHUT_RDWR)
        return True

    def process_request_thread(self, request: Any, client_address: Any) -> None:
        try:
            super().process_request_thread(request, client_address)
        finally:
            self._slots.release()

    def handle_error(self, request: Any, client_address: Any) -> None:
        pass  # a client that went away mid-reply; the handler has already logged anything the app did wrong


def _handler_for(server: LoopbackServer) -> type[BaseHTTPRequestHandler]:
    class Handler(_Handler):
        owner = server

    return Handler


class _Handler(BaseHTTPRequestHandler):
    owner: LoopbackServer
    protocol_version = "HTTP/1.1"  # keep-alive: a page and its assets share one connection
    disable_nagle_algorithm = True
    sys_version = ""

    _deadline = 0.0
    _expect_continue = False

    def version_string(self) -> str:
        return self.owner.server_header

    def log_message(self, format: str, *args: Any) -> None:
        pass  # quiet: callers print their own lines; problems go to owner.errors

    def handle_one_request(self) -> None:
        self.connection.settimeout(self.owner.limits.idle_timeout_s)
        self.server.waiting(self.connection, True)  # type: ignore[attr-defined]  # may be closed for a newcomer
        try:
            super().handle_one_request()
        finally:
            self.server.waiting(self.connection, False)  # type: ignore[attr-defined]

    def parse_request(self) -> bool:
        # The request line has arrived: from here on the whole request must arrive within read_timeout_s.
        self.server.waiting(self.connection, False)  # type: ignore[attr-defined]  # busy: never closed for another
        self._deadline = time.monotonic() + self.owner.limits.read_timeout_s
        self._expect_continue = False
        self.connection.settimeout(self.owner.limits.read_timeout_s)
        return super().parse_request()

    def handle_expect_100(self) -> bool:
        self._expect_continue = True  # answered in _body, once the announced length is known to be acceptable
        return True

    def send_error(self, code: int, message: str | None = None, explain: str | None = None) -> None:
        """http.server's own errors (bad request line, header too long) in the app's error format."""
        self.close_connection = True
        phrase = message or HTTPStatus(code).phrase
        self._send(self.owner.error_page(code, phrase))

    def _serve(self) -> None:
        try:
            request = self._request()
            response = self._call(request)
        except HTTPError as e:
            self.close_connection = self.close_connection or e.status in (400, 408, 411, 413)
            response = self.owner.error_page(e.status, e.message)
            response.headers.extend(e.headers)
        except TimeoutError:
            self.close_connection = True  # a client announced more than it sent: its thread is freed here
            self._send(self.owner.error_page(408, "The request did not arrive in time."))
            return
        self._send(response)

    do_GET = do_HEAD = do_POST = do_PUT = do_PATCH = do_DELETE = do_OPTIONS = _serve

    def _call(self, request: Request) -> Response:
        try:
            return self.owner.app(request)
        except HTTPError:
            raise
        except Exception:  # noqa: BLE001 - one broken handler must not take the server down; it is logged
            self.owner.log_error(f"{request.method} {request.path}\n{traceback.format_exc()}")
            return self.owner.error_page(500, "Something went wrong on the server.")

    def _request(self) -> Request:
        target = self.path
        if not target.isascii() or not target.isprintable() or not target.startswith("/"):
            raise HTTPError(400, "The request target must be a percent-encoded path.")
        headers = {k.lower(): v for k, v in self.headers.items()}
        self.owner.check_request(self.command, headers)
        parts = urlsplit(target)
        body = self._body()
        method = "GET" if self.command == "HEAD" else self.command  # the app answers HEAD as GET; no body is sent
        return Request(method, parts.path, parts.query, headers, body, self.owner.limits)

    def _body(self) -> bytes:
        limits = self.owner.limits
        if self.headers.get("Transfer-Encoding"):
            raise HTTPError(411, "Send the body with a Content-Length (chunked uploads are not accepted).")
        values = {v.strip() for v in self.headers.get_all("Content-Length") or []}
        if not values:
            if self.command in ("POST", "PUT", "PATCH"):
                raise HTTPError(411, "A request with a body needs a Content-Length header.")
            return b""
        if len(values) > 1 or not next(iter(values)).isdigit():
            raise HTTPError(400, "The Content-Length header must be one non-negative integer.")
        length = int(next(iter(values)))
        if length > limits.max_body:
            raise HTTPError(413, f"The body is larger than {limits.max_body} bytes.")
        if self._expect_continue:
            self._expect_continue = False
            self.send_response_only(100)
            self.end_headers()
        return self._read(length)

    def _read(self, length: int) -> bytes:
        chunks, left = [], length
        while left:
            remaining = self._deadline - time.monotonic()
            if remaining <= 0:
                raise TimeoutError("request deadline passed")
            self.connection.settimeout(remaining)
            chunk = self.rfile.read1(min(left, 1 << 16))
            if not chunk:
                raise HTTPError(400, f"The body ended after {length - left} of {length} announced bytes.")
            chunks.append(chunk)
            left -= len(chunk)
        return b"".join(chunks)

    def _send(self, resp: Response) -> None:
        try:
            self.send_response(resp.status)
            names = {k.lower() for k, _ in resp.headers}
            self.send_header("Content-Type", resp.content_type)
            if "cache-control" not in names:
                self.send_header("Cache-Control", "no-store")
            self.send_header("X-Content-Type-Options", "nosniff")
            for key, value in resp.headers:
                self.send_header(key, value)
            if self.close_connection:
                self.send_header("Connection", "close")
            if resp.stream is not None:
                self._send_stream(resp.stream)
                return
            self.send_header("Content-Length", str(len(resp.body)))
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(resp.body)
        except (BrokenPipeError, ConnectionResetError, TimeoutError):
            self.close_connection = True  # the client went away; nothing left to tell it

    def _send_stream(self, stream: Iterable[bytes]) -> None:
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        if self.command == "HEAD":
            return
        try:
            for chunk in stream:
                if chunk:
                    self.wfile.write(b"%x\r\n%s\r\n" % (len(chunk), chunk))
                    self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError, TimeoutError):
            raise
        except Exception:  # noqa: BLE001 - the status line is gone; log it and cut the reply short
            self.owner.log_error(f"stream {self.path}\n{traceback.format_exc()}")
            self.close_connection = True
            return
        self.wfile.write(b"0\r\n\r\n")
