"""The stand-in chat server itself (a scripted stand-in, not a model): routes, scripts, recording."""

from __future__ import annotations

import json
import urllib.error
import urllib.request

import openai
import pytest

from venuskit.models.standin_server import Reply, StandinServer


def post(url: str, payload: dict) -> tuple[int, dict]:
    request = urllib.request.Request(url, json.dumps(payload).encode(), {"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(request, timeout=5) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as err:
        return err.code, json.loads(err.read())


def test_models_and_health_routes_answer_like_an_openai_server() -> None:
    with StandinServer([], model_name="tiny") as srv:
        client = openai.OpenAI(base_url=srv.base_url, api_key="EMPTY", max_retries=0)
        assert [m.id for m in client.models.list()] == ["tiny"]
        with urllib.request.urlopen(f"http://127.0.0.1:{srv.port}/health", timeout=5) as response:
            assert response.status == 200


def test_callable_script_sees_the_request_and_chooses_the_reply() -> None:
    def script(request: dict) -> Reply:
        last = request["messages"][-1]["content"]
        return Reply(text=f"echo:{last}", finish_reason="length")

    with StandinServer(script) as srv:
        client = openai.OpenAI(base_url=srv.base_url, api_key="EMPTY", max_retries=0)
        out = client.chat.completions.create(model="standin", messages=[{"role": "user", "content": "ping"}])
    assert out.choices[0].message.content == "echo:ping"
    assert out.choices[0].finish_reason == "length"
    assert out.usage.prompt_tokens > 0 and out.usage.completion_tokens > 0


def test_exhausted_script_and_broken_requests_get_clear_errors() -> None:
    with StandinServer(["only one"]) as srv:
        url = srv.base_url + "/chat/completions"
        assert post(url, {"messages": []})[0] == 200
        status, body = post(url, {"messages": []})
        assert status == 500 and "no reply left for chat request #2" in body["error"]["message"]
        assert post(url, {"prompt": "x"})[0] == 400
        assert post(url, {"messages": [], "stream": True})[0] == 400
        assert post(srv.base_url + "/completions", {"messages": []})[0] == 404
        assert [r.path for r in srv.requests][-1] == "/v1/completions"


def test_a_raising_script_is_reported_not_swallowed() -> None:
    def script(request: dict) -> str:
        raise KeyError("oops")

    with StandinServer(script) as srv:
        status, body = post(srv.base_url + "/chat/completions", {"messages": []})
    assert status == 500 and "KeyError" in body["error"]["message"]
    assert len(srv.script_errors) == 1


def test_base_url_outside_the_context_is_an_error() -> None:
    with pytest.raises(RuntimeError, match="not running"):
        _ = StandinServer([]).base_url
