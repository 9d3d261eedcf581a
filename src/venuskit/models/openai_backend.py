"""A policy/judge backend for any OpenAI-compatible chat-completions server (vLLM, SGLang, hosted APIs).

The `openai` client does the HTTP; this module owns what the agent loop needs on top of it:
- bounded retries with exponential backoff, only for failures that a retry can fix (rate limits, 5xx, timeouts,
  refused connections), never for a request the server rejected as wrong (400/401/404...);
- one typed error family, so a runner can record a dead server as a step error instead of a traceback;
- the UI-Venus convention of splicing a separate `reasoning_content` channel back as `<think>…</think>`.

Images arrive already as `image_url` parts with data URLs; `png_to_data_url` builds one from PNG bytes.
"""

from __future__ import annotations

import base64
import time
from dataclasses import asdict, dataclass, field
from typing import Any

import openai

from venuskit.infra.config import field_help, help_text, option

PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"
# 408 request timeout, 409 conflict, 425 too early, 429 rate limit: the request was fine, the moment was not.
RETRYABLE_STATUS = frozenset({408, 409, 425, 429})


class ModelError(RuntimeError):
    """Base class of every error a model backend raises."""


class ModelUnavailable(ModelError):
    """The server could not be reached (refused connection, dead host) even after the retries."""


class ModelTimeout(ModelError):
    """The server did not answer within `timeout_s` on any attempt."""


class ModelResponseError(ModelError):
    """The server answered, but with an error status or a response that holds no completion."""

    def __init__(self, message: str, status_code: int | None = None) -> None:
        super().__init__(message)
        self.status_code = status_code



@dataclass
class ModelConfig:
    """How to reach one OpenAI-compatible chat model and how to sample from it."""

    base_url: str = field(
        default="http://127.0.0.1:8000/v1", metadata=help_text("Server root including /v1, e.g. http://127.0.0.1:8000/v1.")
    )
    model: str = field(
        default="ui-venus-2", metadata=help_text("Model name as the server knows it (--served-model-name).")
    )
    api_key: str = option("Bearer token; local vLLM/SGLang servers accept any value.", default="EMPTY")
    temperature: float = option("Sampling temperature; 0 is greedy.", default=0.0)
    top_p: float = option("Nucleus sampling mass in (0, 1].", default=1.0)
    max_tokens: int = option("Upper bound on generated tokens per completion.", default=2048)
    extra_sampling: dict[str, Any] = field(
        default_factory=dict,
        metadata=help_text("Further sampling fields sent in the request body, e.g. repetition_penalty, top_k, seed."),
    )
    chat_template_kwargs: dict[str, Any] | None = field(
        default=None,
        metadata=help_text('Passed to the server\'s chat template, e.g. {"enable_thinking": True}; None '
                            'sends nothing.'),
    )
    timeout_s: float = option("Seconds to wait for one HTTP attempt.", default=120.0)
    max_retries: int = option("Retries after the first attempt for retryable failures.", default=3)
    backoff_base_s: float = option("First retry waits this long; each later one doubles.", default=1.0)
    backoff_max_s: float = option("Cap on one backoff wait (also caps Retry-After).", default=30.0)

    def __post_init__(self) -> None:
        if not self.base_url.startswith(("http://", "https://")):
            raise ValueError(f"base_url must start with http:// or https://, got {self.base_url!r}.")
        if not 0.0 < self.top_p <= 1.0:
            raise ValueError(f"top_p must be in (0, 1], got {self.top_p}.")
        if self.temperature < 0 or self.max_tokens < 1:
            raise ValueError("temperature must be >= 0 and max_tokens >= 1.")
        if self.timeout_s <= 0 or self.max_retries < 0 or self.backoff_base_s < 0:
            raise ValueError("timeout_s must be > 0, max_retries >= 0 and backoff_base_s >= 0.")


@dataclass(frozen=True)
class Usage:
    prompt_tokens: int
    completion_tokens: int


@dataclass(frozen=True)
class Completion:
    """One chat completion. `text` holds any separate reasoning spliced back in front as `<think>…</think>`."""

    text: str
    reasoning: str | None
    finish_reason: str | None
    usage: Usage
    latency_s: float
    raw: dict[str, Any]


def png_to_data_url(png: bytes) -> str:
    """Wrap PNG bytes as a `data:image/png;base64,…` URL for an `image_url` message part."""
    if not png.startswith(PNG_SIGNATURE):
        raise ValueError("png_to_data_url expects PNG bytes, but the data does not start with the PNG signature.")
    return "data:image/png;base64," + base64.b64encode(png).decode("ascii")


def splice_reasoning(text: str, reasoning: str | None) -> str:
    """Put server-separated reasoning back in front of the text, unless the text already carries its think block."""
    if not reasoning or "</think>" in text:
        return text
    return f"<think>{reasoning.strip()}</think>\n{text.lstrip()}"


class OpenAIBackend:
    """Chat completions from an OpenAI-compatible server, with our own bounded retries and typed errors."""

    def __init__(self, config: ModelConfig) -> None:
        self.config = config
        # The client's own retries are off: ours decide what is retryable and raise typed errors.
        self._client = openai.OpenAI(
            base_url=config.base_url, api_key=config.api_key, timeout=config.timeout_s, max_retries=0
        )

    def request_kwargs(self, messages: list[dict[str, Any]]) -> dict[str, Any]:
        """The arguments sent to `chat.completions.create`; public so callers can log exactly what went out."""
        cfg = self.config
        extra_body = dict(cfg.extra_sampling)
        if cfg.chat_template_kwargs is not None:
            extra_body["chat_template_kwargs"] = dict(cfg.chat_template_kwargs)
        kwargs: dict[str, Any] = {
            "model": cfg.model,
            "messages": messages,
            "temperature": cfg.temperature,
            "top_p": cfg.top_p,
            "max_tokens": cfg.max_tokens,
        }
        if extra_body:
            kwargs["extra_body"] = extra_body
        return kwargs

    def complete(self, messages: list[dict[str, Any]]) -> Completion:
        """Send one chat request; retry retryable failures with backoff; raise a ModelError subclass otherwise."""
        kwargs = self.request_kwargs(messages)
        attempts = self.config.max_retries + 1
        for attempt in range(attempts):
            started = time.monotonic()
            try:
                response = self._client.chat.completions.create(**kwargs)
            except openai.APIError as exc:
                error, retry_after = self._classify(exc, attempt + 1)
                if error is None or attempt + 1 == attempts:
                    raise (error or self._fatal(exc)) from exc
                time.sleep(self._backoff(attempt, retry_after))
                continue
            return _to_completion(response, time.monotonic() - started)
        raise AssertionError("unreachable: the loop returns or raises")

    def checkpoint(self) -> dict[str, Any] | None:
        """The checkpoint the server names for this model in /v1/models (venuskit's servers name one: file name and
        SHA-256; others name none), or None when it names none or does not answer within five seconds."""
        try:
            listed = self._client.with_options(timeout=5.0, max_retries=0).models.list()
        except openai.APIError:
            return None
        found = next((m for m in listed.data if m.id == self.config.model), None)
        checkpoint = (found.model_extra or {}).get("checkpoint") if found is not None else None
        return checkpoint if isinstance(checkpoint, dict) else None

    def _classify(self, exc: openai.APIError, attempt: int) -> tuple[ModelError | None, float | None]:
        """Map a client error to the typed error to raise if retries run out; None means do not retry."""
        where = (
            f"{self.config.base_url} (model {self.config.model!r}, attempt {attempt} of {self.config.max_retries + 1})"
        )
        if isinstance(exc, openai.APITimeoutError):  # subclass of APIConnectionError: test it first
            return ModelTimeout(f"The model server at {where} did not answer within {self.config.timeout_s} s."), None
        if isinstance(exc, openai.APIConnectionError):
            return ModelUnavailable(f"Could not connect to the model server at {where}: {exc}."), None
        if isinstance(exc, openai.APIStatusError) and _retryable_status(exc.status_code):
            message = f"The model server at {where} answered HTTP {exc.status_code}: {_error_text(exc)}"
            return ModelResponseError(message, exc.status_code), _retry_after(exc)
        return None, None

    def _fatal(self, exc: openai.APIError) -> ModelError:
        status = getattr(exc, "status_code", None)
        return ModelResponseError(
            f"The model server at {self.config.base_url} rejected the request for model {self.config.model!r} "
            f"with HTTP {status}: {_error_text(exc)} (not retried: the same request would fail again).",
            status,
        )

    def _backoff(self, attempt: int, retry_after: float | None) -> float:
        wait = self.config.backoff_base_s * (2**attempt)
        if retry_after is not None:
            wait = max(wait, retry_after)
        return min(wait, self.config.backoff_max_s)


def _retryable_status(status: int) -> bool:
    return status in RETRYABLE_STATUS or status >= 500


def _retry_after(exc: openai.APIStatusError) -> float | None:
    value = exc.response.headers.get("retry-after")
    try:
        return float(value) if value is not None else None
    except ValueError:  # an HTTP date instead of seconds: fall back to our own backoff
        return None


def _error_text(exc: openai.APIError) -> str:
    return str(getattr(exc, "message", None) or exc)


def _to_completion(response: Any, latency_s: float) -> Completion:
    raw = response.model_dump()
    if not response.choices:
        raise ModelResponseError("The model server answered HTTP 200 but the response holds no choices.", 200)
    choice = response.choices[0]
    message = choice.message
    extra = message.model_extra or {}
    # vLLM has used both names for the separate reasoning channel.
    reasoning = extra.get("reasoning_content") or extra.get("reasoning") or None
    usage = response.usage
    return Completion(
        text=splice_reasoning(message.content or "", reasoning),
        reasoning=reasoning,
        finish_reason=choice.finish_reason,
        usage=Usage(usage.prompt_tokens if usage else 0, usage.completion_tokens if usage else 0),
        latency_s=latency_s,
        raw=raw,
    )


def config_help() -> dict[str, str]:
    """Field name -> help text, for CLIs that expose ModelConfig as flags."""
    return field_help(ModelConfig)


def config_dict(config: ModelConfig) -> dict[str, Any]:
    """The config as plain data for saving beside a run, with the API key masked."""
    data = asdict(config)
    data["api_key"] = "EMPTY" if config.api_key == "EMPTY" else "***"
    return data
