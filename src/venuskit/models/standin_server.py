"""A STAND-IN chat-completions server for tests. It is not a model and produces no model output of its own.

It speaks the OpenAI chat-completions wire format on loopback (`POST /v1/chat/completions`, `GET /v1/models`,
`GET /health`) and answers from a script that the test writes: a list of replies served in order, or a callable
that maps the request JSON to a reply. It records every request, so a test can check what a client really sent
(images as base64 PNG, sampling fields, chat_template_kwargs). The real-server path is covered by the vLLM
integration test; this stand-in exists so that clients, judges and evals can be tested fast and deterministically.

    with StandinServer(["<think>t</think><action>Wait()</action>"]) as srv:
        backend = OpenAIBackend(ModelConfig(base_url=srv.base_url, model=srv.model_name))
"""

from __future__ import annotations

import base64
import json
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any, Self

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

STANDIN_MODEL = "standin"
# Chat requests carry base64 screenshots (a few MB with history); a slow scripted reply is the handler's own wait.
LIMITS = Limits(max_body=64 << 20, max_json_depth=32, read_timeout_s=30.0)


@dataclass(frozen=True)
class Reply:
    """What the stand-in answers to one chat request. A plain str in a script means Reply(text=that str)."""

    text: str = ""
    reasoning_content: str | None = None
    status: int = 200
    delay_s: float = 0.0
    finish_reason: str = "stop"
    error_message: str = "Scripted error from the stand-in server."
    headers: dict[str, str] = field(default_factory=dict)
    body: dict[str, Any] | None = None  # sent verbatim instead of the built body (malformed/empty responses)
    prompt_tokens: int | None = None  # None: a rough stand-in count, not a tokenizer's
    completion_tokens: int | None = None


ReplyLike = Reply | str | dict[str, Any]
Script = Sequence[ReplyLike] | Callable[[dict[str, Any]], ReplyLike]


@dataclass(frozen=True)
class RecordedRequest:
    """One request as the stand-in received it."""

    method: str
    path: str
    headers: dict[str, str]  # names lower-cased

    json: dict[str, Any] | None

    def image_urls(self) -> list[str]:
        """Every image_url.url in the chat messages, in order."""
        urls = []
        for message in (self.json or {}).get("messages", []):
            content = message.get("content")
            for part in content if isinstance(content, list) else []:
                if isinstance(part, dict) and part.get("type") == "image_url":
                    urls.append(part["image_url"]["url"])
        return urls

    def images(self) -> list[bytes]:
        """The decoded bytes of every base64 data-URL image in the messages."""
        return [base64.b64decode(url.split(",", 1)[1], validate=True) for url in self.image_urls()]


def as_reply(item: ReplyLike) -> Reply:
    if isinstance(item, Reply):
        return item
    if isinstance(item, str):
        return Reply(text=item)
    if isinstance(item, dict):
        return Reply(**item)
    raise TypeError(f"A stand-in script item must be a Reply, str or dict, got {type(item).__name__}.")


class StandinServer(Service):
    """A scripted loopback chat-completions server (a stand-in, not a model). Use it as a context manager."""

    def __init__(self, script: Script, *, model_name: str = STANDIN_MODEL) -> None:
        self.model_name = model_name
        self.requests: list[RecordedRequest] = []
        self.script_errors: list[Exception] = []
        self._script = script if callable(script) else list(script)
        self._served = 0
        self._lock = threading.Lock()
        self._closing = threading.Event()
        self._http = LoopbackServer(self._app, name="standin-server", limits=LIMITS, error_page=_error_reply,
                                    server_header="venuskit-standin")  # fmt: skip

    @property
    def port(self) -> int:
        if not self._http.running:
            raise RuntimeError("The stand-in server is not running; use it inside `with StandinServer(...)`.")
        return self._http.port

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.port}/v1"

    def chat_requests(self) -> list[RecordedRequest]:
        return [r for r in self.requests if r.path.endswith("/chat/completions")]

    def start(self) -> Self:
        self._closing.clear()
        return super().start()

    def stop(self) -> None:
        self._closing.set()  # wakes handlers sleeping on a scripted delay
        super().stop()

    def _record(self, request: RecordedRequest) -> int:
        with self._lock:
            self.requests.append(request)
            return len(self.requests)

    def _next_reply(self, request_json: dict[str, Any]) -> Reply:
        if callable(self._script):
            try:
                return as_reply(self._script(request_json))
            except Exception as exc:  # noqa: BLE001 -- a bug in the test's script: answer 500, keep it for the test
                self.script_errors.append(exc)
                return Reply(status=500, error_message=f"The stand-in script raised {exc!r}.")
        with self._lock:
            index, self._served = self._served, self._served + 1
        if index >= len(self._script):
            return Reply(
                status=500, error_message=f"The stand-in script has no reply left for chat request #{index + 1}."
            )
        return as_reply(self._script[index])

    # -- HTTP --

    def _app(self, req: Request) -> Response:
        target = req.path + (f"?{req.query_string}" if req.query_string else "")
        body = _json_or_none(req.body) if req.method == "POST" else None
        self._record(RecordedRequest(req.method, target, dict(req.headers), body))
        route = req.path.rstrip("/")
        if req.method == "GET" and route == "/v1/models":
            card = {"id": self.model_name, "object": "model", "created": 0, "owned_by": "venuskit-standin"}
            return json_response({"object": "list", "data": [card]})
        if req.method == "GET" and req.path == "/health":
            return json_response({})
        if req.method != "POST" or route != "/v1/chat/completions":
            raise HTTPError(404, f"The stand-in server has no route {req.method} {target}.")
        if not isinstance(body, dict) or "messages" not in body:
            raise HTTPError(400, "The request body must be a JSON object with a 'messages' list.")
        if body.get("stream"):
            raise HTTPError(400, "The stand-in server does not stream; send stream=false.")
        return self._answer(body)

    def _answer(self, body: dict[str, Any]) -> Response:
        reply = self._next_reply(body)
        if reply.delay_s:
            self._closing.wait(reply.delay_s)
        headers = list(reply.headers.items())
        if reply.body is not None:
            return json_response(reply.body, reply.status, headers)
        if reply.status != 200:
            return json_response(_error_body(reply.error_message, reply.status), reply.status, headers)
        return json_response(_completion_body(self.model_name, body, reply), 200, headers)


def _json_or_none(raw: bytes) -> Any:
    """The body as JSON (within the server's limits), or None: a broken body is recorded, then refused."""
    try:
        return parse_json(raw or b"null", max_bytes=LIMITS.max_body, max_depth=LIMITS.max_json_depth)
    except HTTPError:
        return None


def _error_reply(status: int, message: str) -> Response:
    return json_response(_error_body(message, status), status)


def _error_body(message: str, status: int) -> dict[str, Any]:
    return {"error": {"message": message, "type": "standin_error", "code": status}}


def _completion_body(model: str, request: dict[str, Any], reply: Reply) -> dict[str, Any]:
    message: dict[str, Any] = {"role": "assistant", "content": reply.text}
    if reply.reasoning_content is not None:
        message["reasoning_content"] = reply.reasoning_content
    # Rough stand-in counts (4 characters a token), clearly not a tokenizer's; scripts can set exact ones.
    prompt = reply.prompt_tokens if reply.prompt_tokens is not None else len(json.dumps(request["messages"])) // 4
    completion = reply.completion_tokens if reply.completion_tokens is not None else max(1, len(reply.text) // 4)
    return {
        "id": f"standin-{time.monotonic_ns()}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [{"index": 0, "message": message, "finish_reason": reply.finish_reason}],
        "usage": {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion},
    }
