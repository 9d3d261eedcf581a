"""`venus world tasks / oracle / serve` through Typer's runner (the lead mounts world_cmd.app as `venus world`)."""

from __future__ import annotations

import json
import subprocess
import sys
import time
import urllib.request

import pytest
from typer.testing import CliRunner

from venuskit.cli.world_cmd import app

runner = CliRunner()


def test_tasks_json_lists_every_template_with_counts():
    result = runner.invoke(app, ["tasks", "--json"])
    assert result.exit_code == 0, result.output
    lines = [json.loads(line) for line in result.output.strip().splitlines()]
    tasks, summary = lines[:-1], lines[-1]["summary"]
    assert summary["templates"] == len(tasks) >= 50
    assert set(summary["by_category"]) == {"short", "medium", "long", "interrupt", "infeasible"}
    first = tasks[0]
    assert {"id", "apps", "category", "steps", "feasible", "locales"} <= set(first)


def test_tasks_table():
    result = runner.invoke(app, ["tasks"])
    assert result.exit_code == 0 and "long.reimbursement" in result.output


@pytest.mark.browser
def test_oracle_command_runs_a_task_and_prints_the_verdict(tmp_path):
    result = runner.invoke(app, ["oracle", "mail.star_message", "--seed", "1", "--out", str(tmp_path), "--json"])
    assert result.exit_code == 0, result.output
    out = json.loads(result.output.strip().splitlines()[-1])
    assert out["verdict"] == "completed" and out["keypoints"] and out["episode_dir"].startswith(str(tmp_path))
    manifest = json.loads((tmp_path / out["episode_dir"].split("/")[-1] / "manifest.json").read_text())
    assert manifest["verdicts"]["contract"]["verdict"] == "completed"


def test_oracle_command_refuses_an_unknown_task(tmp_path):
    result = runner.invoke(app, ["oracle", "mail.nope", "--out", str(tmp_path)])
    assert result.exit_code == 2 and "No world task" in result.output


def test_serve_answers_a_person_without_any_link():
    code = "from venuskit.cli.world_cmd import app; app()"
    cmd = [sys.executable, "-c", code, "serve", "--port", "0", "--seed", "3", "--locale", "zh"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, text=True)
    try:
        line = proc.stdout.readline()
        url = line.split(" on ")[1].split()[0]
        deadline = time.time() + 10
        while True:
            try:
                body = urllib.request.urlopen(url + "mail/inbox", timeout=5).read().decode()
                break
            except OSError:
                if time.time() > deadline:
                    raise
                time.sleep(0.1)
        assert "收件箱" in body
    finally:
        proc.terminate()
        proc.wait(timeout=10)
