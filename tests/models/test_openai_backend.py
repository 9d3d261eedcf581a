"""OpenAIBackend against the loopback stand-in server (a scripted stand-in, not a model)."""

from __future__ import annotations

import io
import socket
import time

import pytest
from PIL import Image

from venuskit.models import (
    ModelConfig,
    ModelResponseError,
    ModelTimeout,
    ModelUnavailable,
    OpenAIBackend,
    png_to_data_url,
)
from venuskit.models.standin_server import Reply, StandinServer

FAST = {"max_retries": 3, "backoff_base_s": 0.01, "backoff_max_s": 0.05, "timeout_s": 5.0}


def backend_for(srv: StandinServer, **overrides) -> OpenAIBackend:
    return OpenAIBackend(ModelConfig(base_url=srv.base_url, model=srv.model_name, **{**FAST, **overrides}))


def user(text: str) -> list[dict]:
    return [{"role": "user", "content": text}]


def png_bytes(color: tuple[int, int, int], size: tuple[int, int] = (64, 48)) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", size, color).save(buf, format="PNG")
    return buf.getvalue()


def test_plain_completion_carries_text_finish_reason_usage_and_latency() -> None:
    script = [Reply(text="<action>Wait()</action>", finish_reason="length", prompt_tokens=11, completion_tokens=7)]
    with StandinServer(script) as srv:
        out = backend_for(srv).complete(user("hi"))
    assert out.text == "<action>Wait()</action>"
    assert out.reasoning is None
    assert out.finish_reason == "length"
    assert (out.usage.prompt_tokens, out.usage.completion_tokens) == (11, 7)
    assert 0 < out.latency_s < 5
    assert out.raw["choices"][0]["message"]["content"] == "<action>Wait()</action>"


@pytest.mark.parametrize("statuses", [[429], [503], [429, 503, 502]])
def test_retryable_statuses_are_retried_then_succeed(statuses: list[int]) -> None:
    script = [Reply(status=s) for s in statuses] + ["ok"]
    with StandinServer(script) as srv:
        out = backend_for(srv).complete(user("hi"))
        assert len(srv.chat_requests()) == len(statuses) + 1
    assert out.text == "ok"


@pytest.mark.parametrize("status", [400, 401, 404, 422])
def test_client_errors_are_not_retried(status: int) -> None:
    with StandinServer([Reply(status=status, error_message="bad image part"), "never served"]) as srv:
        with pytest.raises(ModelResponseError, match="bad image part") as info:
            backend_for(srv).complete(user("hi"))
        assert len(srv.chat_requests()) == 1
    assert info.value.status_code == status


def test_retries_are_bounded_and_report_the_last_status() -> None:
    with StandinServer([Reply(status=503)] * 10) as srv:
        with pytest.raises(ModelResponseError, match="HTTP 503") as info:
            backend_for(srv, max_retries=2).complete(user("hi"))
        assert len(srv.chat_requests()) == 3
    assert info.value.status_code == 503


def test_backoff_grows_and_honours_retry_after() -> None:
    script = [Reply(status=429, headers={"Retry-After": "0.3"}), "ok"]
    with StandinServer(script) as srv:
        started = time.monotonic()
        backend_for(srv, backoff_base_s=0.01, backoff_max_s=1.0).complete(user("hi"))
        assert time.monotonic() - started >= 0.3
    backend = OpenAIBackend(ModelConfig(backoff_base_s=0.5, backoff_max_s=3.0))
    assert [backend._backoff(a, None) for a in range(4)] == [0.5, 1.0, 2.0, 3.0]


def test_slow_server_raises_model_timeout_after_retrying() -> None:
    with StandinServer([Reply(text="late", delay_s=3.0)] * 2) as srv:
        started = time.monotonic()
        with pytest.raises(ModelTimeout, match="did not answer within 0.3 s"):
            backend_for(srv, timeout_s=0.3, max_retries=1).complete(user("hi"))
        elapsed = time.monotonic() - started
        assert len(srv.chat_requests()) == 2
    assert elapsed < 2.0


def test_dead_port_raises_model_unavailable_quickly() -> None:
    with socket.socket() as sock:  # a port that was free a moment ago and has no listener now
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    config = ModelConfig(base_url=f"http://127.0.0.1:{port}/v1", model="m", **{**FAST, "max_retries": 2})
    started = time.monotonic()
    with pytest.raises(ModelUnavailable, match="Could not connect"):
        OpenAIBackend(config).complete(user("hi"))
    assert time.monotonic() - started < 3.0


def test_empty_choices_is_a_response_error() -> None:
    empty = {"id": "x", "object": "chat.completion", "created": 0, "model": "standin", "choices": []}
    with StandinServer([Reply(body=empty)]) as srv, pytest.raises(ModelResponseError, match="no choices"):
        backend_for(srv).complete(user("hi"))


def test_reasoning_content_is_spliced_back_as_think_block() -> None:
    script = [Reply(text="\n<action>Wait()</action>", reasoning_content="The page is loading.")]
    with StandinServer(script) as srv:
        out = backend_for(srv).complete(user("hi"))
    assert out.reasoning == "The page is loading."
    assert out.text == "<think>The page is loading.</think>\n<action>Wait()</action>"


def test_reasoning_is_not_spliced_twice_when_text_has_its_think_block() -> None:
    text = "<think>mine</think><action>Wait()</action>"
    with StandinServer([Reply(text=text, reasoning_content="mine")]) as srv:
        out = backend_for(srv).complete(user("hi"))
    assert out.text == text
    assert out.reasoning == "mine"


def test_sampling_and_chat_template_kwargs_reach_the_server() -> None:
    overrides = {
        "temperature": 0.7,
        "top_p": 0.9,
        "max_tokens": 33,
        "extra_sampling": {"repetition_penalty": 1.05, "frequency_penalty": 0.2, "top_k": 20},
        "chat_template_kwargs": {"enable_thinking": True},
    }
    with StandinServer(["ok"], model_name="ui-venus-2") as srv:
        backend_for(srv, **overrides).complete(user("hi"))
        sent = srv.chat_requests()[0].json
        auth = srv.chat_requests()[0].headers.get("authorization")
    assert sent["model"] == "ui-venus-2"
    assert (sent["temperature"], sent["top_p"], sent["max_tokens"]) == (0.7, 0.9, 33)
    assert (sent["repetition_penalty"], sent["frequency_penalty"], sent["top_k"]) == (1.05, 0.2, 20)
    assert sent["chat_template_kwargs"] == {"enable_thinking": True}
    assert auth == "Bearer EMPTY"


def test_no_chat_template_kwargs_are_sent_unless_configured() -> None:
    with StandinServer(["ok"]) as srv:
        backend_for(srv).complete(user("hi"))
        assert "chat_template_kwargs" not in srv.chat_requests()[0].json


def test_images_arrive_as_the_same_base64_png_bytes() -> None:
    red, blue = png_bytes((255, 0, 0)), png_bytes((0, 0, 255), (1280, 800))
    messages = [
        {"role": "system", "content": "You are a GUI Agent."},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "History Screenshot:"},
                {"type": "image_url", "image_url": {"url": png_to_data_url(red)}},
            ],
        },
        {"role": "assistant", "content": "<think>a</think>\n<action>Wait()</action>"},
        {
            "role": "user",
            "content": [
                {"type": "text", "text": "Current Screenshot:\n"},
                {"type": "image_url", "image_url": {"url": png_to_data_url(blue)}},
            ],
        },
    ]
    with StandinServer(["ok"]) as srv:
        backend_for(srv).complete(messages)
        got = srv.chat_requests()[0]
    assert [u[:22] for u in got.image_urls()] == ["data:image/png;base64,"] * 2
    assert got.images() == [red, blue]
    assert Image.open(io.BytesIO(got.images()[1])).size == (1280, 800)


def test_png_to_data_url_rejects_non_png() -> None:
    with pytest.raises(ValueError, match="PNG signature"):
        png_to_data_url(b"\xff\xd8\xff\xe0 a jpeg")


@pytest.mark.parametrize("bad", [{"base_url": "127.0.0.1:8000"}, {"top_p": 0.0}, {"max_tokens": 0}, {"timeout_s": 0}])
def test_config_refuses_bad_values_with_a_sentence(bad: dict) -> None:
    with pytest.raises(ValueError, match=r"\.$"):
        ModelConfig(**bad)
