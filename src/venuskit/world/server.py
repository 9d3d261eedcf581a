"""The world server: one stdlib HTTP server on 127.0.0.1 serving every app to many isolated episodes.

Isolation. Each episode has its own in-memory database. A browser is bound to an episode by opening
its one-time bind URL (`/_bind/<token>`), which sets an HttpOnly cookie holding a random episode
secret and redirects (303, so the bind URL never enters the history) to the start page. The token is
spent on first use and a reset issues a new secret, so a browser can reach only the episode it was
bound to, and a page cannot learn or switch to another. Nothing a contract expects is served: the
harness reads state in-process through `WorldServer.state(episode_id)`.

Serve mode (`venus world serve`): requests without a cookie use the one default episode, so a person
can just open the URL.

HTTP is `venuskit.infra.http.LoopbackServer`: it answers only to its own loopback host:port (a page
whose name rebinds to 127.0.0.1 cannot drive the world) and refuses cross-site form posts, bounds every
body and request, and keeps handler tracebacks in a bounded `errors` log (`error_count` counts them all).
"""

from __future__ import annotations

import collections
import datetime as dt
import html
import secrets
import threading
from dataclasses import dataclass
from importlib import resources
from urllib.parse import quote

from venuskit.infra import http
from venuskit.world import files, skins
from venuskit.world.apps import build_router
from venuskit.world.state import LOCALES, EpisodeState, Snapshots, StorageFull
from venuskit.world.web import MAX_FIELDS, Ctx, Request, Response, not_found, parse_form, parse_query

COOKIE = "vk_session"
STATIC = {"world.css": "text/css; charset=utf-8", "world.js": "text/javascript; charset=utf-8"}
DEFAULT_TODAY = dt.date(2024, 3, 14)
# A mail, a document or a whole sheet fits in 1 MiB many times over; uploads are capped per file
# (venuskit.world.files.MAX_UPLOAD_BYTES) and per request: the limit is what one request may cost.
LIMITS = http.Limits(max_body=files.MAX_BODY_BYTES, max_query_fields=MAX_FIELDS)


@dataclass
class EpisodeInfo:
    episode_id: str
    seed: int
    locale: str
    today: dt.date
    skin: int = skins.DEFAULT


class WorldServer(http.Service):
    """Start with `start()` (or as a context manager); `new_episode` / `reset` hand out bind URLs."""

    def __init__(self, host: str = "127.0.0.1", port: int = 0, *, serve_mode: bool = False) -> None:
        if host not in http.LOOPBACK_HOSTS:
            raise ValueError(f"The world server binds loopback only; {host!r} is not a loopback address.")
        self.host, self.serve_mode = host, serve_mode
        self._http = http.LoopbackServer(self._app, host=host, port=port, name="venuskit-world", limits=LIMITS,
                                         error_page=_error_page, server_header="venuskit-world")  # fmt: skip
        self.router = build_router()
        self.snapshots = Snapshots()
        self._states: dict[str, EpisodeState] = {}
        self._info: dict[str, EpisodeInfo] = {}
        self._secrets: dict[str, str] = {}  # cookie secret -> episode id
        self._tokens: dict[str, tuple[str, str]] = {}  # one-time bind token -> (episode id, next path)
        self._lock = threading.Lock()
        self._episode_errors: collections.Counter[str] = collections.Counter()
        self.default_episode: str | None = None

    # -- lifecycle --

    def stop(self) -> None:
        super().stop()
        with self._lock:
            for state in self._states.values():
                state.close()
            self._states.clear()

    @property
    def base_url(self) -> str:
        if not self._http.running:
            raise RuntimeError("The world server is not running; call start() first.")
        return self._http.base_url

    @property
    def port(self) -> int:
        return self._http.port

    @property
    def errors(self) -> collections.deque[str]:
        """The latest handler tracebacks (bounded), for tests and diagnostics."""
        return self._http.errors

    @property
    def error_count(self) -> int:
        """Every request a handler failed on since start, including those `errors` no longer holds."""
        return self._http.error_count

    def errors_for(self, episode_id: str) -> int:
        """Requests of this episode's browser that a handler failed on (500s)."""
        with self._lock:
            return self._episode_errors[episode_id]

    # -- episodes --

    def new_episode(self, seed: int = 0, locale: str = "en", today: dt.date | None = None,
                    skin: int = skins.DEFAULT) -> str:  # fmt: skip
        skins.get(skin)  # refuse a bad skin before making anything
        episode_id = f"w{secrets.token_hex(6)}"
        with self._lock:
            self._states[episode_id] = EpisodeState(episode_id)
        self.reset(episode_id, seed, locale, today, skin)
        return episode_id

    def reset(self, episode_id: str, seed: int = 0, locale: str = "en", today: dt.date | None = None,
              skin: int = skins.DEFAULT) -> None:  # fmt: skip
        """Restore the episode to the background world of (seed, locale, today), shown in `skin`
        (`venuskit.world.skins`; 0 is the default look), and revoke every browser bound to it before (a fresh
        secret is issued by the next bind URL)."""
        if locale not in LOCALES:
            raise ValueError(f"Unknown locale {locale!r}; the world speaks {', '.join(LOCALES)}.")
        look = skins.get(skin)
        today = today or DEFAULT_TODAY
        state = self.state(episode_id)
        self.snapshots.restore(state, seed, locale, today)
        state.skin = look
        with self._lock:
            self._info[episode_id] = EpisodeInfo(episode_id, seed, locale, today, skin)
            for secret in [s for s, e in self._secrets.items() if e == episode_id]:
                del self._secrets[secret]

    def bind_url(self, episode_id: str, next_path: str = "/") -> str:
        """A one-time URL that binds the browser that opens it to this episode, then shows `next_path`."""
        self.state(episode_id)
        if not next_path.startswith("/") or next_path.startswith("//"):
            raise ValueError(f"next_path must be a path on the world server, got {next_path!r}.")
        token = secrets.token_urlsafe(18)
        with self._lock:
            self._tokens[token] = (episode_id, next_path)
        return f"{self.base_url}/_bind/{token}?next={quote(next_path, safe='/?=&')}"

    def state(self, episode_id: str) -> EpisodeState:
        with self._lock:
            state = self._states.get(episode_id)
        if state is None:
            raise KeyError(f"No world episode {episode_id!r}; create it with new_episode().")
        return state

    def info(self, episode_id: str) -> EpisodeInfo:
        return self._info[episode_id]

    def close_episode(self, episode_id: str) -> None:
        with self._lock:
            state = self._states.pop(episode_id, None)
            self._info.pop(episode_id, None)
            for secret in [s for s, e in self._secrets.items() if e == episode_id]:
                del self._secrets[secret]
        if state is not None:
            state.close()

    def episode_count(self) -> int:
        return len(self._states)

    # -- request handling (called from the server's threads) --

    def _bind(self, token: str) -> tuple[str, str] | None:
        with self._lock:
            found = self._tokens.pop(token, None)
            if found is None:
                return None
            secret = secrets.token_urlsafe(24)
            self._secrets[secret] = found[0]
        return secret, found[1]

    def _episode_for(self, cookie_header: str | None) -> EpisodeState | None:
        secret = _cookie(cookie_header, COOKIE)
        with self._lock:
            episode_id = self._secrets.get(secret or "") or (self.default_episode if self.serve_mode else None)
            return self._states.get(episode_id or "")

    def _app(self, req: http.Request) -> Response:
        form, uploads, error = _form(req)
        world_req = Request(req.method, req.path, parse_query(req.query_string), {k: v[-1] for k, v in form.items()},
                            form, uploads, error)  # fmt: skip
        return self.handle(world_req, req.headers.get("cookie"))

    def handle(self, req: Request, cookie_header: str | None) -> Response:
        if req.path.startswith("/_bind/"):
            bound = self._bind(req.path[len("/_bind/") :])
            if bound is None:
                return Response(body=_page("This sign-in link has expired.", "Ask the harness for a new one."),
                                status=410)  # fmt: skip
            secret, next_path = bound
            cookie = f"{COOKIE}={secret}; Path=/; HttpOnly; SameSite=Strict"
            # a header is ASCII: a path with other characters (a search for a Chinese name) is percent-encoded
            location = quote(next_path, safe="/?=&%+:#,;@")
            return Response(status=303, headers=[("Location", location), ("Set-Cookie", cookie)])
        if req.path.startswith("/static/"):
            return _static(req.path[len("/static/") :])
        if req.path == "/favicon.ico":
            return Response(body=b"", status=204)
        state = self._episode_for(cookie_header)
        if state is None:
            return Response(body=_page("You are signed out.", "Open the world through a session link."), status=401)
        found = self.router.match(req.method, req.path)
        if found is None:
            return not_found(f"No page at {req.path}.")
        handler, params = found
        try:
            if req.method == "GET":
                return handler(Ctx(req, state), **params)
            with state.transaction():  # a request that fails half way leaves nothing of itself behind
                return handler(Ctx(req, state), **params)
        except StorageFull as e:
            text = f"Nothing was saved: {e}. Delete something you no longer need (a draft, a file), then try again."
            return Response(body=_page("This workspace is full", text), status=507)
        except Exception:
            with self._lock:
                self._episode_errors[state.episode_id] += 1
            raise  # the HTTP layer answers 500 and logs the traceback


def _form(req: http.Request) -> tuple[dict[str, list[str]], list[files.Upload], str]:
    """A POST's fields and files: urlencoded, or multipart/form-data (a browser's file upload). A body whose files
    cannot be taken keeps its fields and says why, so the page can show the error and keep what was typed."""
    if req.method != "POST" or not req.body:
        return {}, [], ""
    ctype = req.headers.get("content-type", "")
    if not ctype.lower().startswith("multipart/form-data"):
        return parse_form(req.body), [], ""
    return files.parse_multipart(req.body, ctype, MAX_FIELDS)


def _cookie(header: str | None, name: str) -> str | None:
    for part in (header or "").split(";"):
        key, _, value = part.strip().partition("=")
        if key == name:
            return value
    return None


def _page(title: str, text: str) -> bytes:
    title, text = html.escape(title), html.escape(text)
    return (f"<!doctype html><meta charset=utf-8><title>{title}</title><link rel=stylesheet href=/static/world.css>"
            f"<div class=signed-out><h1>{title}</h1><p>{text}</p></div>").encode()  # fmt: skip


def _error_page(status: int, message: str) -> Response:
    if status >= 500:
        return Response(body=_page("Something went wrong", "Please go back and try again."), status=status)
    return Response(body=_page(f"Error {status}", message), status=status)


def _static(name: str) -> Response:
    if name not in STATIC:
        return not_found()
    body = resources.files("venuskit.world").joinpath(f"static/{name}").read_bytes()
    return Response(body=body, content_type=STATIC[name], headers=[("Cache-Control", "max-age=3600")])
