"""`venus serve nano`: the OpenAI wire format over venus-nano, reached by the real `openai` client."""

import base64
import io
import os
import signal
import subprocess
import sys

import openai
import pytest
from PIL import Image, ImageDraw, ImageFont

from venuskit.actions import parse_response
from venuskit.actions.prompts import system_prompt
from venuskit.models.nano import load_default
from venuskit.models.serve import ChatServer


def _png() -> bytes:
    im = Image.new("RGB", (800, 500), "white")
    d = ImageDraw.Draw(im)
    font = ImageFont.truetype("/usr/share/fonts/truetype/dejavu/DejaVuSans.ttf", 16)
    for text, xy in (("Inbox", (20, 40)), ("Project kickoff", (240, 90)), ("Trash", (20, 140))):
        d.text(xy, text, fill="black", font=font)
    buf = io.BytesIO()
    im.save(buf, format="PNG")
    return buf.getvalue()


def _messages(png: bytes) -> list[dict]:
    url = "data:image/png;base64," + base64.b64encode(png).decode()
    return [{"role": "system", "content": system_prompt("browser", 'Open the email "Project kickoff".')},
            {"role": "user", "content": [{"type": "image_url", "image_url": {"url": url}}]}]


def test_openai_client_gets_a_parseable_action_and_usage():
    with ChatServer(load_default()) as server:
        client = openai.OpenAI(base_url=server.base_url, api_key="EMPTY", max_retries=0)
        assert [m.id for m in client.models.list().data] == ["venus-nano"]
        reply = client.chat.completions.create(model="venus-nano", messages=_messages(_png()), temperature=0)
        text = reply.choices[0].message.content
        assert parse_response(text, "browser").actions
        assert reply.usage.prompt_tokens > 0 and reply.usage.completion_tokens > 0
        with pytest.raises(openai.BadRequestError, match="no image_url"):
            client.chat.completions.create(model="venus-nano", messages=[{"role": "user", "content": "hello"}])
        with pytest.raises(openai.NotFoundError):
            client.chat.completions.create(model="gpt-x", messages=_messages(_png()))


def test_venus_serve_nano_cli_serves_until_ctrl_c():
    proc = subprocess.Popen([sys.executable, "-m", "venuskit.cli.main", "serve", "nano", "--port", "0"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=os.environ.copy())
    try:
        line = proc.stdout.readline()
        assert "http://127.0.0.1:" in line, line + proc.stderr.read() if proc.poll() is not None else line
        base = line.split()[2]
        client = openai.OpenAI(base_url=base, api_key="EMPTY", max_retries=0, timeout=120)
        text = client.chat.completions.create(model="venus-nano", messages=_messages(_png())).choices[0].message.content
        assert parse_response(text, "browser").actions
    finally:
        proc.send_signal(signal.SIGINT)
        assert proc.wait(timeout=30) == 0


def _post(url: str, body: bytes) -> tuple[int, str]:
    import urllib.error
    import urllib.request

    req = urllib.request.Request(url, data=body, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=120) as resp:
            return resp.status, resp.read().decode()
    except urllib.error.HTTPError as e:
        return e.code, e.read().decode()


def test_a_temperature_that_is_no_temperature_is_a_400():
    import json

    with ChatServer(load_default()) as server:
        for value in ("NaN", "-1", "Infinity", "\"hot\""):
            body = json.dumps({"messages": _messages(_png())})[:-1] + f', "temperature": {value}}}'
            status, text = _post(server.base_url + "/chat/completions", body.encode())
            assert status == 400 and "temperature" in text, (value, status, text)


def test_a_decompression_bomb_is_a_400_at_once():
    """A few kB of PNG that declares 60 M pixels: refused from its header, before a byte is decoded."""
    import json
    import time

    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "infra"))
    from test_untrusted import bomb

    with ChatServer(load_default()) as server:
        t0 = time.monotonic()
        status, text = _post(server.base_url + "/chat/completions", json.dumps({"messages": _messages(bomb())}).encode())
        assert status == 400 and "12000x5000" in text, (status, text)
        assert time.monotonic() - t0 < 5
