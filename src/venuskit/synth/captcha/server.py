"""The CAPTCHA server: instances live here under an opaque random id; pages get puzzles, never answers.

Routes (loopback only):
    GET  /                      an index of types (for people trying them)
    GET  /new?type=T&seed=S     create an instance, 303 to its page
    GET  /c/<id>                the host page with the widget
    GET  /a/<id>/<name>.png     a puzzle asset (fixed names: image, piece, tile-3, frame-2, ...)
    GET  /static/captcha.js|css the widget code (identical for every instance)
    POST /api/answer/<id>       {"state": ..., "log": [...]} -> {"ok", "passed", "reason"}; once per instance

A post that is malformed, too large, or for an instance already answered is refused with a reason;
for a live instance it is recorded as a fail and the instance is spent. Unknown or expired ids get 404.
No response sets a cookie, and nothing but the verdict of a spent instance depends on the answer.
"""

from __future__ import annotations

import json
import re
import secrets
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from typing import Any, Self
from urllib.parse import parse_qs, urlsplit

from venuskit.synth.captcha.checker import check
from venuskit.synth.captcha.page import page_style, render_page
from venuskit.synth.captcha.registry import all_types, make_instance
from venuskit.synth.captcha.spec import CheckResult, Instance
from venuskit.synth.captcha.widgets import MAX_BODY_BYTES, SubmissionError, validate_submission

_ID = re.compile(r"^[0-9a-f]{32}$")
_ASSET = re.compile(r"^/a/([0-9a-f]{32})/([a-z]+(?:-[0-9]+)?)\.png$")
MAX_INSTANCES = 5000


@dataclass
class Issued:
    """One served instance. `instance` holds the answer: server-side code only (checker, oracle, audits)."""

    id: str
    url: str
    instance: Instance
    created: float = field(default_factory=time.monotonic)
    result: CheckResult | None = None
    submission: dict[str, Any] | None = None


def _static(name: str) -> bytes:
    return resources.files("venuskit.synth.captcha").joinpath("static", name).read_bytes()


class CaptchaServer:
    """A threaded HTTP server on 127.0.0.1; use as a context manager."""

    def __init__(
        self, host: str = "127.0.0.1", port: int = 0, ttl_s: float = 3600.0, max_body: int = MAX_BODY_BYTES
    ) -> None:
        if host not in ("127.0.0.1", "localhost", "::1"):
            raise ValueError(f"The CAPTCHA server binds loopback only, got host {host!r}.")
        self.host, self._port, self.ttl_s, self.max_body = host, port, ttl_s, max_body
        self._items: dict[str, Issued] = {}
        self._lock = threading.Lock()
        self._httpd: ThreadingHTTPServer | None = None
        self._thread: threading.Thread | None = None
        self.static = {"captcha.js": _static("captcha.js"), "captcha.css": _static("captcha.css")}

    # -- lifecycle --

    @property
    def base_url(self) -> str:
        if self._httpd is None:
            raise RuntimeError("The CAPTCHA server is not running; start() it or use it as a context manager.")
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    def start(self) -> CaptchaServer:
        self._httpd = ThreadingHTTPServer((self.host, self._port), _handler_for(self))
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(
            target=self._httpd.serve_forever, args=(0.1,), daemon=True, name="captcha-server"
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
            self._httpd = None

    def __enter__(self) -> Self:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- instances --

    def create(self, type_name: str, seed: int) -> Issued:
        """Generate (type, seed) and serve it under a fresh random id."""
        inst = make_instance(type_name, seed)
        iid = secrets.token_hex(16)
        issued = Issued(iid, f"{self.base_url}/c/{iid}", inst)
        with self._lock:
            self._evict()
            self._items[iid] = issued
        return issued

    def get(self, iid: str) -> Issued | None:
        with self._lock:
            item = self._items.get(iid)
            if item is not None and time.monotonic() - item.created > self.ttl_s:
                del self._items[iid]
                return None
            return item

    def result(self, iid: str) -> CheckResult | None:
        item = self.get(iid)
        return item.result if item else None

    def _evict(self) -> None:
        now = time.monotonic()
        for k in [k for k, v in self._items.items() if now - v.created > self.ttl_s]:
            del self._items[k]
        while len(self._items) >= MAX_INSTANCES:
            del self._items[next(iter(self._items))]

    def answer(self, iid: str, body: bytes | None, too_large: bool = False) -> tuple[int, dict[str, Any]]:
        """Judge one post: (HTTP status, JSON reply). Spends the instance unless the id is unknown."""
        with self._lock:
            item = self._items.get(iid)
            if item is None or time.monotonic() - item.created > self.ttl_s:
                return 404, {"ok": False, "passed": False, "reason": "Unknown or expired challenge; load a new one."}
            if item.result is not None:
                return 409, {"ok": False, "passed": False, "reason": "This challenge was already answered."}
            item.result = CheckResult(False, 0.0, "judging")  # claim it before releasing the lock
        status, verdict = self._judge(item, body, too_large)
        item.result = verdict
        return status, {
            "ok": status == 200,
            "passed": verdict.passed,
            "reason": verdict.reason if status != 200 else "",
        }

    def _judge(self, item: Issued, body: bytes | None, too_large: bool) -> tuple[int, CheckResult]:
        if too_large or body is None:
            return 413, CheckResult(False, 0.0, f"Rejected: the answer is larger than {self.max_body} bytes.")
        try:
            payload = json.loads(body.decode("utf-8"))
            state, log = validate_submission(item.instance.widget, payload)
        except (UnicodeDecodeError, json.JSONDecodeError):
            return 400, CheckResult(False, 0.0, "Rejected: the answer is not valid JSON.")
        except SubmissionError as e:
            return 400, CheckResult(False, 0.0, f"Rejected: {e}")
        item.submission = {"state": state, "log": log}
        return 200, check(item.instance.answer, state, log)

    def page_html(self, iid: str) -> str | None:
        item = self.get(iid)
        if item is None:
            return None
        inst = item.instance
        return render_page(iid, inst.prompt, inst.widget, page_style(inst.type, inst.seed))

    def asset(self, iid: str, name: str) -> bytes | None:
        item = self.get(iid)
        return item.instance.puzzle.assets.get(name) if item else None


def _index_html() -> str:
    rows = "".join(
        f'<li><a href="/new?type={t.name}&amp;seed=0">{t.name}</a> <small>{t.family}: {t.summary}</small></li>'
        for t in all_types()
    )
    return f"<!doctype html><meta charset=utf-8><title>venuskit CAPTCHAs</title><h1>CAPTCHA types</h1><ul>{rows}</ul>"


def _handler_for(server: CaptchaServer) -> type[BaseHTTPRequestHandler]:
    class Handler(_Handler):
        captcha = server

    return Handler


class _Handler(BaseHTTPRequestHandler):
    captcha: CaptchaServer
    protocol_version = "HTTP/1.1"
    disable_nagle_algorithm = True  # headers and body are two writes: without this the body waits 40 ms
    server_version = "venuskit-captcha"
    sys_version = ""

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _send(self, status: int, body: bytes, ctype: str, headers: dict[str, str] | None = None) -> None:
        try:
            self.send_response(status)
            self.send_header("Content-Type", ctype)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.send_header("X-Content-Type-Options", "nosniff")
            self.send_header("Referrer-Policy", "no-referrer")
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            if self.command != "HEAD":
                self.wfile.write(body)
        except (BrokenPipeError, ConnectionResetError):
            pass

    def _json(self, status: int, data: dict[str, Any]) -> None:
        self._send(status, json.dumps(data).encode(), "application/json")

    def _not_found(self) -> None:
        self._json(404, {"ok": False, "reason": "Not found."})

    def do_GET(self) -> None:
        parts = urlsplit(self.path)
        path = parts.path
        if path == "/":
            self._send(200, _index_html().encode(), "text/html; charset=utf-8")
        elif path == "/health":
            self._json(200, {"ok": True})
        elif path == "/new":
            self._new(parse_qs(parts.query))
        elif path.startswith("/static/") and path[8:] in self.captcha.static:
            ctype = "text/javascript" if path.endswith(".js") else "text/css"
            self._send(200, self.captcha.static[path[8:]], f"{ctype}; charset=utf-8")
        elif path.startswith("/c/") and _ID.match(path[3:]):
            page = self.captcha.page_html(path[3:])
            if page is None:
                self._send(
                    404,
                    b"<!doctype html><title>Expired</title><p>This challenge has expired.</p>",
                    "text/html; charset=utf-8",
                )
            else:
                csp = "default-src 'self'; img-src 'self'; style-src 'self' 'unsafe-inline'; script-src 'self'"
                self._send(200, page.encode(), "text/html; charset=utf-8", {"Content-Security-Policy": csp})
        else:
            m = _ASSET.match(path)
            data = self.captcha.asset(m.group(1), m.group(2)) if m else None
            if data is None:
                self._not_found()
            else:
                self._send(200, data, "image/png")

    do_HEAD = do_GET

    def _new(self, query: dict[str, list[str]]) -> None:
        try:
            name, seed = query["type"][0], int(query.get("seed", ["0"])[0])
            issued = self.captcha.create(name, seed)
        except (KeyError, ValueError) as e:
            self._json(400, {"ok": False, "reason": f"Give ?type=NAME&seed=N with a known type ({e})."})
            return
        self._send(303, b"", "text/plain", {"Location": f"/c/{issued.id}"})

    def do_POST(self) -> None:
        path = urlsplit(self.path).path
        if not (path.startswith("/api/answer/") and _ID.match(path[12:])):
            self._not_found()
            return
        try:
            length = int(self.headers.get("Content-Length", ""))
        except ValueError:
            length = -1
        too_large = length > self.captcha.max_body or length < 0
        body = None if too_large else self.rfile.read(length)
        if too_large:
            self.close_connection = True  # the unread body must not be parsed as the next request
        status, reply = self.captcha.answer(path[12:], body, too_large)
        self._json(status, reply)
