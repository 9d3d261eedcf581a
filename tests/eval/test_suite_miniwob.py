"""`venus eval miniwob`: real MiniWoB++ pages in real Chromium, the reward read from the page. The model is the
loopback stand-in server answering one fixed tap (a stand-in for a model server, not a model): on click-test the
button moves with the seed, so some seeds are hit and some missed, and the suite must report exactly what the
pages said."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from venuskit.cli.main import app
from venuskit.models.standin_server import StandinServer
from venuskit.record.store import load_episode

pytestmark = [pytest.mark.browser, pytest.mark.slow]
TAP = "<think>The button.</think><action>Click(point=(500,500))</action>"


def test_miniwob_suite_reports_the_pages_rewards(tmp_path):
    out = tmp_path / "mw"
    with StandinServer(lambda request: TAP) as srv:
        args = ["eval", "miniwob", "--model", srv.base_url, "--model-name", srv.model_name, "--tasks", "click-test",
                "--seeds", "0,1,2,3,4,5", "--max-steps", "2", "--workers", "2", "--out", str(out), "--json"]  # fmt: skip
        result = CliRunner().invoke(app, args)
        assert result.exit_code == 0, result.output
        head = json.loads(result.output.strip().splitlines()[-1])
        rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines()]
        assert len(rows) == head["episodes"] == 6 and head["infra_errors"] == 0
        for row in rows:
            episode = load_episode(out / row["episode_dir"])
            assert episode.goal == "Click the button." == row["utterance"]  # the page's own instruction
            page_reward = episode.outcome.reward if episode.outcome.reason == "env_done" else 0.0
            assert row["reward"] == page_reward
            assert row["model_calls"] == len(episode.steps) and row["model_calls"] >= 1
        hits = sum(r["reward"] > 0 for r in rows)
        assert head["success"] == pytest.approx(hits / 6, abs=1e-4)
        assert 0 < hits < 6, "a fixed tap should hit the button on some seeds and miss it on others"
        assert len({r["pid"] for r in rows}) == 2
        again = CliRunner().invoke(app, [*args, "--resume"])  # nothing left to run: the ledger is complete
        assert again.exit_code == 0 and json.loads((out / "report.json").read_text())["summary"]["ran_now"] == 0
    assert 'src="data:image/png;base64,' in (out / "report.html").read_text()


def test_miniwob_has_no_oracle_and_names_its_tasks():
    result = CliRunner().invoke(app, ["eval", "miniwob", "--model", "oracle", "--out", "/tmp/unused"])
    assert result.exit_code == 2 and "no oracle" in result.output
    result = CliRunner().invoke(app, ["eval", "miniwob", "--model", "nano", "--tasks", "nope-*", "--out", "/x"])
    assert result.exit_code == 2 and "No MiniWoB++ task matches" in result.output
