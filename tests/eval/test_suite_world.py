"""`venus eval world` end to end in real Chromium against the real world server: contract and SGV verdicts side by
side, the same verdicts serially and on worker processes, the report, resuming, and infrastructure failures
(an unreachable model server, one that answers 503) counted apart from agent failures."""

from __future__ import annotations

import json
import re
import socket
from pathlib import Path

import pytest
from typer.testing import CliRunner

from venuskit.cli.main import app
from venuskit.eval.suites.world import WorldSuiteConfig, run_world_suite, world_jobs
from venuskit.models.standin_server import Reply, StandinServer
from venuskit.record.store import load_episode
from venuskit.runs.parallel import Parallel
from venuskit.runs.policies import PolicySpec

pytestmark = [pytest.mark.browser, pytest.mark.slow]

# Short held-out templates: a state change, a question, and an infeasible task (solved by asking the user).
TEMPLATES = "calendar.next_month,mail.who_cc,infeasible.share_link"


@pytest.fixture(scope="module")
def serial(tmp_path_factory):
    out = tmp_path_factory.mktemp("serial")
    config = WorldSuiteConfig(out=str(out), templates=TEMPLATES, sgv="ocr,log")
    return out, run_world_suite(config, Parallel(workers=1))


def rows(out: Path) -> dict[str, dict]:
    return {r["key"]: r for r in map(json.loads, (out / "results.jsonl").read_text().splitlines())}


def test_serial_suite_scores_every_episode_twice_and_reports(serial):
    out, summary = serial
    assert summary["episodes"] == 3 and summary["infra_errors"] == 0
    assert summary["success"] == 1.0  # the oracle solves all three (the infeasible one by asking)
    assert summary["infeasible"] == pytest.approx(1 / 3, abs=1e-3)
    assert set(summary["by_app"]) == {"calendar", "mail", "drive"}
    assert isinstance(summary["sgv_agreement"], float) and summary["sgv"]["n"] == 3
    for row in rows(out).values():
        manifest = load_episode(out / row["episode_dir"])
        assert manifest.verdicts["contract"]["verdict"] == row["contract"]
        assert manifest.verdicts["sgv"]["verdict"] == row["sgv"]["verdict"]  # SGV's verdict stored beside it
        assert row["steps"] == len(manifest.steps) > 0
    page = (out / "report.html").read_text()
    assert page.count('src="data:image/png;base64,') >= 4  # matplotlib plots by app, category, ... and SGV
    links = re.findall(r'href="([^"]+episode\.html)"', page)
    assert len(links) == 3 and all((out / link).is_file() for link in links)
    report = json.loads((out / "report.json").read_text())
    assert report["summary"]["by"]["category"]["infeasible"]["success"]["ci95"][0] > 0


def test_worker_processes_give_the_serial_verdicts(serial, tmp_path):
    out, _ = serial
    config = WorldSuiteConfig(out=str(tmp_path), templates=TEMPLATES, sgv="off")
    summary = run_world_suite(config, Parallel(workers=2))
    pool, ref = rows(tmp_path), rows(out)
    assert {k: r["contract"] for k, r in pool.items()} == {k: r["contract"] for k, r in ref.items()}
    assert len({r["pid"] for r in pool.values()}) == 2
    assert summary["success"] == 1.0 and summary["sgv_agreement"] is None


def test_cli_resume_runs_only_unfinished_episodes(tmp_path):
    out = tmp_path / "run"
    args = ["eval", "world", "--model", "oracle", "--templates", "mail.who_cc,bank.txn_category", "--sgv", "off", "--out", str(out), "--json"]
    first = CliRunner().invoke(app, args)
    assert first.exit_code == 0, first.output
    head = json.loads(first.output.strip().splitlines()[-1])
    assert head["episodes"] == 2 and head["success"] == 1.0
    assert set(head) >= {"episodes", "success", "partial", "infeasible", "sgv_agreement", "by_app", "infra_errors"}
    again = CliRunner().invoke(app, args)
    assert again.exit_code == 2 and "--resume" in again.output  # a finished run is never overwritten
    # An interrupted run: the last episode's folder is on disk, its ledger line never landed.
    lines = (out / "results.jsonl").read_text().splitlines()
    lost = json.loads(lines[-1])
    (out / "results.jsonl").write_text(lines[0] + "\n")
    resumed = CliRunner().invoke(app, [*args, "--resume"])
    assert resumed.exit_code == 0, resumed.output
    assert json.loads(resumed.output.strip().splitlines()[-1])["episodes"] == 2
    report = json.loads((out / "report.json").read_text())
    assert report["summary"]["ran_now"] == 1
    moved = list((out / "attempts").iterdir())
    assert len(moved) == 1 and Path(lost["episode_dir"]).name in moved[0].name  # kept, set aside


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_unreachable_model_is_an_infra_error_not_an_agent_failure(tmp_path):
    policy = PolicySpec(f"http://127.0.0.1:{free_port()}/v1", "m", retries=0)
    config = WorldSuiteConfig(out=str(tmp_path), policy=policy, templates="bank.salary_amount", sgv="off")
    summary = run_world_suite(config, Parallel(workers=1, max_infra_retries=1))
    assert summary["episodes"] == 0 and summary["infra_errors"] == 1
    (row,) = rows(tmp_path).values()
    assert row["attempts"] == 2 and "ModelUnavailable" in row["infra_error"]
    assert len(list((tmp_path / "attempts").iterdir())) == 2  # both attempts kept for inspection


def test_a_503_is_retried_and_the_agent_is_then_judged(tmp_path):
    calls = []

    def script(request):
        calls.append(1)
        return Reply(status=503) if len(calls) == 1 else "<think>done</think><action>Finished(content='ok')</action>"

    with StandinServer(script) as srv:
        policy = PolicySpec(srv.base_url, srv.model_name, retries=0)
        config = WorldSuiteConfig(out=str(tmp_path), policy=policy, templates="bank.salary_amount", sgv="off")
        summary = run_world_suite(config, Parallel(workers=1))
    (row,) = rows(tmp_path).values()
    assert row["attempts"] == 2 and "503" in row["infra_errors_seen"][0]
    assert row["contract"] == "failed" and row["model_calls"] == 1  # the agent's own failure, counted as such
    assert summary["episodes"] == 1 and summary["infra_errors"] == 0 and summary["success"] == 0.0


def test_filters_are_validated():
    with pytest.raises(ValueError, match="No heldout world template"):
        world_jobs(WorldSuiteConfig(out="x", templates="nope.*"))
    with pytest.raises(ValueError, match="--split"):
        WorldSuiteConfig(out="x", split="dev")
    zh = world_jobs(WorldSuiteConfig(out="x", templates="mail.who_cc", locale="zh", n_seeds=2))
    assert [j["locale"] for j in zh] == ["zh", "zh"] and len({j["seed"] for j in zh}) == 2
