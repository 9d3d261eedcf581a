"""`venus desktop` and `venus run --surface computer` as a user runs them: real subprocesses, real Xvfb and apps,
and a loopback stand-in model for the agent run."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest

from venuskit.models.standin_server import StandinServer
from venuskit.record.store import load_episode

VENUS = [sys.executable, "-m", "venuskit.cli.main"]
pytestmark = [pytest.mark.desktop]


def venus(*args: str, timeout: float = 180) -> subprocess.CompletedProcess:
    return subprocess.run([*VENUS, *args], capture_output=True, text=True, timeout=timeout)


def test_tasks_lists_templates_one_json_a_line():
    out = venus("desktop", "tasks", "--json")
    assert out.returncode == 0, out.stderr
    lines = [json.loads(line) for line in out.stdout.splitlines()]
    rows, summary = lines[:-1], lines[-1]["summary"]
    assert summary["templates"] == len(rows) >= 40 and summary["by_category"]["infeasible"] >= 8
    row = next(r for r in rows if r["id"] == "editor.append_line")
    assert row["apps"] == ["mousepad"] and row["locales"] == ["en", "zh"] and row["surfaces"] == ["computer"]
    human = venus("desktop", "tasks")
    assert "editor.append_line" in human.stdout and human.returncode == 0


def test_oracle_prints_the_verdict(tmp_path):
    out = venus("desktop", "oracle", "sheet.set_cell", "--seed", "1", "--out", str(tmp_path), "--json")
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["verdict"] == "completed" and result["task"] == "sheet.set_cell" and result["end"] == "finished"
    assert load_episode(Path(result["episode_dir"])).verdicts["contract"]["verdict"] == "completed"


@pytest.mark.parametrize(("args", "message"), [
    (("desktop", "oracle", "nope.task"), "No desktop task 'nope.task'"),
    (("run", "--surface", "computer", "--task", "x"), "--desktop-task"),
    (("run", "--desktop-task", "editor.append_line"), "--surface computer"),
])  # fmt: skip
def test_mistakes_are_one_line_errors(args, message):
    out = venus(*args)
    assert out.returncode == 2 and message in out.stderr and "Traceback" not in out.stderr


def test_run_a_served_model_on_a_desktop_task(tmp_path):
    replies = ["<think>Go to the end.</think><action>Hotkey(keys=['ctrl', 'End'])</action>",
               "<think>Add the line.</think><action>Type(content='buy milk\\n')</action>",
               "<think>Save.</think><action>Hotkey(keys=['ctrl', 's'])</action>",
               "<think>Done.</think><action>Finished(content='Added.')</action>"]  # fmt: skip
    with StandinServer(replies) as srv:
        out = venus("run", "--surface", "computer", "--desktop-task", "editor.append_line", "--model", srv.base_url,
                    "--model-name", "standin", "--out", str(tmp_path), "--json")  # fmt: skip
        requests = [r.json for r in srv.chat_requests()]
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["verdict"] == "completed" and result["steps"] == 4
    system = requests[0]["messages"][0]["content"]
    system = system if isinstance(system, str) else json.dumps(system)
    assert "desktop operating system" in system and "add the line 'buy milk' at the end of todo.txt" in system
    assert any("image_url" in json.dumps(m) for m in requests[0]["messages"])  # the screenshot went to the model


def test_serve_shows_the_live_desktop():
    proc = subprocess.Popen([*VENUS, "desktop", "serve", "--port", "0", "--task", "image.caption_answer"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
    try:
        line = proc.stdout.readline()
        assert "watch it at http://127.0.0.1:" in line, proc.stderr.read() if proc.poll() is not None else line
        url = line.split("watch it at ")[1].split()[0]
        display = line.split("DISPLAY=")[1].split(":")[1]
        page = urllib.request.urlopen(url, timeout=20).read().decode()
        png = urllib.request.urlopen(url + "screen.png", timeout=20).read()
        assert "/screen.png" in page and png[:8] == b"\x89PNG\r\n\x1a\n"
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(30)
    assert proc.returncode == 0
    assert not os.path.exists(f"/tmp/.X{display}-lock")  # the X server is gone with it
