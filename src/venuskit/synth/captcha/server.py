"""The CAPTCHA server: instances live here under an opaque random id; pages get puzzles, never answers.

Routes (loopback only):
    GET  /                      an index of types (for people trying them)
    GET  /new?type=T            create an instance with a seed the server draws, 303 to its page
    GET  /c/<id>                the host page with the widget
    GET  /a/<id>/<name>.png     a puzzle asset (fixed names: image, piece, tile-3, frame-2, ...)
    GET  /static/captcha.js|css the widget code (identical for every instance)
    POST /api/answer/<id>       {"state": ..., "log": [...]} -> {"ok", "passed", "reason"}; once per instance

Two kinds of instance. The harness (eval, oracle, synthesis) calls `create(type, seed)` in-process with seeds from
its own split; a page can only ask `/new`, which draws a random seed from PUBLIC_SEEDS, so no client can re-create
a puzzle it has seen and try answers on copies. `/new` is rate-limited and its live instances are capped: past the
cap it answers 429 and evicts nothing, so a flood of `/new` can never push out an instance under evaluation.

A post that is read is judged exactly once: malformed JSON (too deep, wrong types, unknown keys) is a fail with a
reason and spends the instance, as does a wrong answer; a replay gets 409. A post refused before it is read (too
large, a bad Content-Length, a body that never arrives; see `venuskit.infra.http`) reaches no judge and tells the
client nothing. Unknown or expired ids get 404. No response sets a cookie, and nothing but the verdict of a spent
instance depends on the answer.
"""

from __future__ import annotations

import html
import re
import secrets
import threading
import time
from dataclasses import dataclass, field
from importlib import resources
from typing import Any

from venuskit.infra.http import (
    HTTPError,
    Limits,
    LoopbackServer,
    Request,
    Response,
    Service,
    json_response,
    parse_json,
)
from venuskit.synth.captcha.checker import check
from venuskit.synth.captcha.page import page_style, render_page
from venuskit.synth.captcha.registry import all_types, get_type, make_instance
from venuskit.synth.captcha.spec import PUBLIC_SEEDS, CheckResult, Instance
from venuskit.synth.captcha.widgets import MAX_BODY_BYTES, SubmissionError, validate_submission

_ID = re.compile(r"^[0-9a-f]{32}$")
_ASSET = re.compile(r"^/a/([0-9a-f]{32})/([a-z]+(?:-[0-9]+)?)\.png$")
MAX_INSTANCES = 5000  # harness instances kept; the oldest go first (the harness made them all)
MAX_JSON_DEPTH = 8  # an answer is {"state": {"points": [[x, y]]}, "log": [{...}]}: depth 4
_CSP = "default-src 'self'; img-src 'self'; style-src 'self' 'unsafe-inline'; script-src 'self'"
_HEADERS = [("Referrer-Policy", "no-referrer")]


@dataclass
class Issued:
    """One served instance. `instance` holds the answer: server-side code only (checker, oracle, audits)."""

    id: str
    url: str
    instance: Instance
    created: float = field(default_factory=time.monotonic)
    result: CheckResult | None = None
    submission: dict[str, Any] | None = None
    public: bool = False  # made by a page's /new, not by the harness


class _Bucket:
    """A token bucket: `rate` tokens a second, at most `burst` saved up."""

    def __init__(self, rate: float, burst: int) -> None:
        self.rate, self.burst, self.tokens, self.at = rate, burst, float(burst), time.monotonic()

    def take(self) -> bool:
        now = time.monotonic()
        self.tokens = min(self.burst, self.tokens + (now - self.at) * self.rate)
        self.at = now
        if self.tokens < 1:
            return False
        self.tokens -= 1
        return True


def _static(name: str) -> bytes:
    return resources.files("venuskit.synth.captcha").joinpath("static", name).read_bytes()


class CaptchaServer(Service):
    """A threaded HTTP server on 127.0.0.1; use as a context manager."""

    def __init__(
        self,
        host: str = "127.0.0.1",
        port: int = 0,
        ttl_s: float = 3600.0,
        max_body: int = MAX_BODY_BYTES,
        *,
        max_public: int = 200,
        new_per_s: float = 5.0,
        new_burst: int = 20,
        read_timeout_s: float = 10.0,
    ) -> None:
        """`max_public` live `/new` instances at most; `/new` refills at `new_per_s` a second up to `new_burst`;
        a request must arrive whole within `read_timeout_s`."""
        self.ttl_s, self.max_body, self.max_public = ttl_s, max_body, max_public
        limits = Limits(max_body=max_body, max_json_depth=MAX_JSON_DEPTH, max_query_fields=20,
                        read_timeout_s=read_timeout_s)  # fmt: skip
        self._http = LoopbackServer(self._app, host=host, port=port, name="venuskit-captcha", limits=limits,
                                    error_page=_error_reply, server_header="venuskit-captcha")  # fmt: skip
        self._items: dict[str, Issued] = {}
        self._lock = threading.Lock()
        self._new_bucket = _Bucket(new_per_s, new_burst)
        self.static = {"captcha.js": _static("captcha.js"), "captcha.css": _static("captcha.css")}

    # -- lifecycle --

    @property
    def base_url(self) -> str:
        if not self._http.running:
            raise RuntimeError("The CAPTCHA server is not running; start() it or use it as a context manager.")
        return self._http.base_url

    @property
    def errors(self) -> Any:
        """Tracebacks of requests the server failed on (bounded), for tests and diagnostics."""
        return self._http.errors

    # -- instances --

    def create(self, type_name: str, seed: int) -> Issued:
        """Generate (type, seed) and serve it under a fresh random id (harness side: the caller picks the seed)."""
        return self._add(make_instance(type_name, seed), public=False)

    def create_public(self, type_name: str) -> Issued:
        """An instance for a page's `/new`: a random seed from PUBLIC_SEEDS, within the rate and count limits."""
        get_type(type_name)  # an unknown type is a ValueError before any limit is spent
        with self._lock:
            self._purge()
            if not self._new_bucket.take():
                raise HTTPError(429, "Too many new challenges; wait a moment.", [("Retry-After", "1")])
            if sum(1 for v in self._items.values() if v.public) >= self.max_public:
                raise HTTPError(429, "Too many open challenges; answer one or wait for them to expire.",
                                [("Retry-After", "10")])  # fmt: skip
        seed = PUBLIC_SEEDS.start + secrets.randbelow(len(PUBLIC_SEEDS))
        return self._add(make_instance(type_name, seed), public=True)

    def _add(self, inst: Instance, public: bool) -> Issued:
        iid = secrets.token_hex(16)
        issued = Issued(iid, f"{self.base_url}/c/{iid}", inst, public=public)
        with self._lock:
            self._purge()
            if not public:
                own = [k for k, v in self._items.items() if not v.public]
                for k in own[: max(0, len(own) - MAX_INSTANCES + 1)]:  # insertion order: the oldest first
                    del self._items[k]
            self._items[iid] = issued
        return issued

    def _purge(self) -> None:
        """Drop expired instances, and answered public ones (their page already has its verdict). Lock held."""
        now = time.monotonic()
        for k in [k for k, v in self._items.items() if now - v.created > self.ttl_s or (v.public and v.result)]:
            del self._items[k]

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

    def answer(self, iid: str, body: bytes) -> tuple[int, dict[str, Any]]:
        """Judge one post: (HTTP status, JSON reply). Spends the instance unless the id is unknown."""
        with self._lock:
            item = self._items.get(iid)
            if item is None or time.monotonic() - item.created > self.ttl_s:
                return 404, {"ok": False, "passed": False, "reason": "Unknown or expired challenge; load a new one."}
            if item.result is not None:
                return 409, {"ok": False, "passed": False, "reason": "This challenge was already answered."}
            item.result = CheckResult(False, 0.0, "judging")  # claim it before releasing the lock
        try:
            status, verdict = self._judge(item, body)
        except Exception:
            item.result = CheckResult(False, 0.0, "Rejected: the answer could not be judged.")
            raise  # a checker bug: logged by the HTTP layer as a 500; the instance is spent, not left judging
        item.result = verdict
        reason = verdict.reason if status != 200 else ""
        return status, {"ok": status == 200, "passed": verdict.passed, "reason": reason}

    def _judge(self, item: Issued, body: bytes) -> tuple[int, CheckResult]:
        try:
            payload = parse_json(body, max_bytes=self.max_body, max_depth=MAX_JSON_DEPTH)
            state, log = validate_submission(item.instance.widget, payload)
        except HTTPError as e:  # not JSON, or nested deeper than any answer
            return e.status, CheckResult(False, 0.0, f"Rejected: {e.message}")
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

    # -- HTTP --

    def _app(self, req: Request) -> Response:
        path = req.path
        if req.method == "POST":
            if path.startswith("/api/answer/") and _ID.match(path[12:]):
                status, reply = self.answer(path[12:], req.body)
                return json_response(reply, status, _HEADERS)
            raise HTTPError(404, "Not found.")
        if req.method != "GET":
            raise HTTPError(405, "Only GET and POST are served.", [("Allow", "GET, HEAD, POST")])
        if path == "/":
            return Response(_index_html().encode(), headers=list(_HEADERS))
        if path == "/health":
            return json_response({"ok": True}, headers=_HEADERS)
        if path == "/new":
            return self._new(req.query())
        if path.startswith("/static/") and path[8:] in self.static:
            ctype = "text/javascript" if path.endswith(".js") else "text/css"
            return Response(self.static[path[8:]], content_type=f"{ctype}; charset=utf-8", headers=list(_HEADERS))
        if path.startswith("/c/") and _ID.match(path[3:]):
            page = self.page_html(path[3:])
            if page is None:
                expired = b"<!doctype html><title>Expired</title><p>This challenge has expired.</p>"
                return Response(expired, status=404, headers=list(_HEADERS))
            return Response(page.encode(), headers=[*_HEADERS, ("Content-Security-Policy", _CSP)])
        m = _ASSET.match(path)
        data = self.asset(m.group(1), m.group(2)) if m else None
        if data is None:
            raise HTTPError(404, "Not found.")
        return Response(data, content_type="image/png", headers=list(_HEADERS))

    def _new(self, query: dict[str, list[str]]) -> Response:
        if "seed" in query:
            raise HTTPError(400, "The server chooses the seed of a new challenge; give only ?type=NAME.")
        names = query.get("type", [])
        if len(names) != 1:
            raise HTTPError(400, "Give ?type=NAME with a known type (see /).")
        try:
            issued = self.create_public(names[0])
        except ValueError as e:
            raise HTTPError(400, f"Give ?type=NAME with a known type ({e}).") from e
        return Response(status=303, content_type="text/plain", headers=[*_HEADERS, ("Location", f"/c/{issued.id}")])


def _error_reply(status: int, message: str) -> Response:
    return json_response({"ok": False, "passed": False, "reason": message}, status, _HEADERS)


def _index_html() -> str:
    rows = "".join(
        f'<li><a href="/new?type={t.name}">{t.name}</a> <small>{html.escape(f"{t.family}: {t.summary}")}</small></li>'
        for t in all_types()
    )
    return f"<!doctype html><meta charset=utf-8><title>venuskit CAPTCHAs</title><h1>CAPTCHA types</h1><ul>{rows}</ul>"
