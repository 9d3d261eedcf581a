"""The `venus` command as a user runs it: a real subprocess, real Chromium, a loopback stand-in model."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from venuskit.models.standin_server import StandinServer
from venuskit.record.store import load_episode

sys.path.insert(0, str(Path(__file__).parents[1] / "agent"))
from agent_helpers import ADD, FINISH, PAGES  # noqa: E402

VENUS = [sys.executable, "-m", "venuskit.cli.main"]


def venus(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    return subprocess.run([*VENUS, *args], capture_output=True, text=True, timeout=timeout)


def test_help_lists_the_verbs():
    out = venus("--help")
    assert out.returncode == 0
    for verb in ("run", "view", "miniwob", "export"):
        assert verb in out.stdout


def test_run_without_a_model_is_a_clear_error():
    out = venus("run", "--task", "x", "--start-url", "http://127.0.0.1:1/", "--model", "nope", "--model-name", "m")
    assert out.returncode == 2 and "base_url" in out.stderr and "Traceback" not in out.stderr


@pytest.mark.browser
def test_run_view_export_end_to_end(serve_dir, tmp_path):
    site = serve_dir(PAGES)
    with StandinServer([ADD, FINISH]) as srv:
        out = venus(
            "run",
            "--task",
            "Add one.",
            "--start-url",
            f"{site}/counter.html",
            "--model",
            srv.base_url,
            "--model-name",
            "standin",
            "--out",
            str(tmp_path / "runs"),
            "--json",
            "--non-interactive",
        )
        requests = [r.json for r in srv.chat_requests()]
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["reason"] == "finished" and result["terminated"]
    folder = Path(result["episode_dir"])
    assert [s.action.name for s in load_episode(folder).steps] == ["Click", "Finished"]
    # The UI-Venus-2 protocol reached the server: goal in the system prompt, screenshots as PNG data URLs,
    # the first reply replayed verbatim in the second request.
    first, second = requests
    assert first["model"] == "standin" and "### User Task\nAdd one." in first["messages"][0]["content"]
    assert _images(first) == 1 and _images(second) == 2
    assert any(m["role"] == "assistant" and m["content"] == ADD for m in second["messages"])

    html = venus("view", str(folder))
    assert html.returncode == 0 and Path(html.stdout.strip()).read_text().count("data:image/png;base64,") >= 2

    chat = venus("export", "chat", str(tmp_path / "runs"), "--out", str(tmp_path / "sft.jsonl"))
    parquet = venus("export", "parquet", str(tmp_path / "runs"), "--out", str(tmp_path / "rl.parquet"))
    assert json.loads(chat.stdout)["rows"] == 2 and json.loads(parquet.stdout)["rows"] == 2
    import datasets

    rows = datasets.load_dataset("parquet", data_files=str(tmp_path / "rl.parquet"), split="train")
    assert rows[0]["action"].startswith("Click(point=(") and rows[0]["image"].size == (1024, 768)


def _images(request: dict) -> int:
    return sum(
        1
        for m in request["messages"]
        if isinstance(m["content"], list)
        for part in m["content"]
        if part.get("type") == "image_url" and part["image_url"]["url"].startswith("data:image/png;base64,")
    )


def test_view_refuses_a_folder_that_is_not_an_episode(tmp_path):
    out = venus("view", str(tmp_path))
    assert out.returncode == 2 and "not an episode folder" in out.stderr


@pytest.mark.browser
def test_run_with_the_rule_step_check_resamples_a_rejected_action(serve_dir, tmp_path):
    """`--step-check rules`: a Type before any field was clicked is sent back with the reason and re-sampled."""
    site = serve_dir(PAGES)
    typed_blind = "<think>Type the name.</think>\n<action>Type(content='Lin')</action>"
    with StandinServer([typed_blind, ADD, FINISH]) as srv:
        out = venus("run", "--task", "Add one.", "--start-url", f"{site}/counter.html", "--model", srv.base_url,
                    "--model-name", "standin", "--out", str(tmp_path), "--json", "--non-interactive",
                    "--step-check", "rules")  # fmt: skip
        second = srv.chat_requests()[1].json
    assert out.returncode == 0, out.stderr
    steps = load_episode(json.loads(out.stdout.strip().splitlines()[-1])["episode_dir"]).steps
    assert [s.action.name for s in steps] == ["Click", "Finished"]
    assert steps[0].attempts[0]["rejected_by"] == "step_check" and steps[0].attempts[0]["raw"] == typed_blind
    assert steps[0].attempts[0]["reason"] in json.dumps(second["messages"], ensure_ascii=False)


def test_run_refuses_an_unknown_step_check():
    out = venus("run", "--task", "x", "--start-url", "http://127.0.0.1:1/", "--model", "http://127.0.0.1:1/v1",
                "--model-name", "m", "--step-check", "sometimes")  # fmt: skip
    assert out.returncode == 2 and "--step-check takes off, rules or a judge URL" in out.stderr


@pytest.mark.browser
def test_run_world_task_gets_the_contract_verdict(tmp_path):
    give_up = "<think>I will stop here.</think>\n<action>Finished(content='done')</action>"
    with StandinServer([give_up]) as srv:
        out = venus("run", "--world", "calendar.delete_event", "--model", srv.base_url, "--model-name", "standin",
                    "--out", str(tmp_path), "--json")  # fmt: skip
        system = srv.chat_requests()[0].json["messages"][0]["content"]
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["verdict"] == "failed" and result["end"] == "finished"  # claimed done, changed nothing
    assert "### User Task" in system
    manifest = json.loads((Path(result["episode_dir"]) / "manifest.json").read_text())
    assert manifest["verdicts"]["contract"]["verdict"] == "failed"
