"""An OpenAI-wire-format server over any in-process chat model: `venus serve nano`.

Any object with `name` and `complete(messages, **sampling) -> (text, usage)` is a `ChatModel`; venus-nano is one,
and a trained judge can be another. The server speaks what vLLM speaks, so `OpenAIBackend`, `venus eval … --model
URL`, SGV's judge slot and the `openai` client reach it unchanged:

    GET  /v1/models             {"object": "list", "data": [{"id": name, ..., "checkpoint": {"name", "sha256"}}]}
    POST /v1/chat/completions   messages with image_url parts (data URLs) -> one choice, UI-Venus-2 text, usage
    GET  /health

HTTP is `venuskit.infra.http.LoopbackServer` (loopback only, Host check, body limits, Nagle off). A request the
model cannot answer (no image, a malformed message) is a 400 with a message that says what is wrong.
"""

from __future__ import annotations

import threading
import time
import uuid
from typing import Any, Protocol

from venuskit.infra import http

MAX_BODY = 32 << 20  # a few full-HD screenshots as base64 data URLs


class ChatModel(Protocol):
    name: str

    def complete(self, messages: list[dict[str, Any]], **sampling: Any) -> tuple[str, dict[str, Any]]: ...


class ChatServer:
    """Serves one ChatModel on 127.0.0.1 (port 0 picks a free port). Requests run one at a time through the
    model (it is small; a lock keeps its caches consistent)."""

    def __init__(self, model: ChatModel, host: str = "127.0.0.1", port: int = 0) -> None:
        self.model = model
        self._lock = threading.Lock()
        self._http = http.LoopbackServer(self._app, host=host, port=port, name="venuskit-serve",
                                         limits=http.Limits(max_body=MAX_BODY, read_timeout_s=60.0))  # fmt: skip

    def start(self) -> ChatServer:
        self._http.start()
        return self

    def stop(self) -> None:
        self._http.stop()

    def __enter__(self) -> ChatServer:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    @property
    def base_url(self) -> str:
        return self._http.url("/v1")

    @property
    def port(self) -> int:
        return self._http.port

    def _app(self, req: http.Request) -> http.Response:
        if req.method == "GET" and req.path == "/health":
            return http.json_response({"status": "ok"})
        if req.method == "GET" and req.path == "/v1/models":
            return http.json_response({"object": "list", "data": [self._listed()]})
        if req.path == "/v1/chat/completions":
            if req.method != "POST":
                raise http.HTTPError(405, "Use POST for /v1/chat/completions.")
            return http.json_response(self._chat(req.json()))
        raise http.HTTPError(404, f"No endpoint at {req.path}; this server has /v1/models and /v1/chat/completions.")

    def _listed(self) -> dict[str, Any]:
        """The model's entry in /v1/models; a model loaded from a checkpoint names it (file name and SHA-256), so a
        client can record which weights answered."""
        entry = {"id": self.model.name, "object": "model", "created": 0, "owned_by": "venuskit"}
        checkpoint = getattr(self.model, "checkpoint", None)
        return {**entry, "checkpoint": checkpoint} if checkpoint else entry

    def _chat(self, body: Any) -> dict[str, Any]:
        if not isinstance(body, dict) or not isinstance(body.get("messages"), list):
            raise http.HTTPError(400, "The body must be a JSON object with a `messages` list.")
        name = body.get("model")
        if name not in (None, self.model.name):
            raise http.HTTPError(404, f"This server serves the model {self.model.name!r}, not {name!r}.")
        sampling = {k: body[k] for k in ("temperature", "top_p", "seed", "max_tokens") if k in body}
        try:
            with self._lock:
                text, usage = self.model.complete(body["messages"], **sampling)
        except (ValueError, RuntimeError) as exc:  # the model's own input errors (NanoError is a RuntimeError)
            raise http.HTTPError(400, f"The model cannot answer this request: {exc}") from exc
        prompt, completion = int(usage.get("prompt_tokens", 0)), int(usage.get("completion_tokens", 0))
        return {
            "id": f"chatcmpl-{uuid.uuid4().hex[:16]}",
            "object": "chat.completion",
            "created": int(time.time()),
            "model": self.model.name,
            "choices": [{"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop"}],
            "usage": {"prompt_tokens": prompt, "completion_tokens": completion, "total_tokens": prompt + completion},
        }
