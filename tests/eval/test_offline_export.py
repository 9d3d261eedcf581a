"""World episodes (real Chromium, mobile surface) written by `venus export androidcontrol|guiodyssey` in those
benchmarks' layouts, read back by the offline harness, and scored by `venus eval offline` against a loopback
stand-in server (a stand-in for a model server, not a model) that answers each step's recorded action: every
step then matches, so reader, writer and matching agree end to end on real screens."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from venuskit.actions import format_response
from venuskit.cli.main import app
from venuskit.eval.offline.data import samples
from venuskit.models.standin_server import StandinServer
from venuskit.record.formats import androidcontrol as AC
from venuskit.record.formats import guiodyssey as GO
from venuskit.record.store import load_episode

pytestmark = [pytest.mark.browser, pytest.mark.slow]


@pytest.fixture(scope="module")
def world_runs(tmp_path_factory):
    out = tmp_path_factory.mktemp("world")
    args = ["eval", "world", "--model", "oracle", "--templates", "mail.reply_all,drive.restore_file", "--surface",
            "mobile", "--sgv", "off", "--out", str(out), "--json"]  # fmt: skip
    result = CliRunner().invoke(app, args)
    assert result.exit_code == 0, result.output
    return out


def answering(table):
    def reply(request):
        msgs = request["messages"]
        text = json.dumps([m["content"] for m in msgs if m["role"] != "assistant"], ensure_ascii=False)
        step = sum(m["role"] == "assistant" for m in msgs)
        return next((r for (goal, s), r in table.items() if s == step and json.dumps(goal)[1:-1] in text),
                    "<action>Wait()</action>")  # fmt: skip

    return reply


@pytest.mark.parametrize("fmt", ["androidcontrol", "guiodyssey"])
def test_export_then_offline_eval(world_runs, tmp_path, fmt):
    exported = CliRunner().invoke(app, ["export", fmt, str(world_runs), "--out", str(tmp_path / fmt)])
    assert exported.exit_code == 0, exported.output
    summary = json.loads(exported.output)
    assert summary["episodes"] == 2 and summary["skipped"] == {}
    episodes = [load_episode(p) for p in sorted((world_runs / "episodes").glob("*/*")) if p.is_dir()]
    data = list(samples(fmt, tmp_path / fmt))
    # AndroidControl: one sample per action (the closing step is the last screenshot); GUI-Odyssey: every step.
    expected = sum(len(e.steps) - (fmt == "androidcontrol") for e in episodes)
    assert len(data) == summary["steps"] == expected
    table = {}
    for s in data:
        action = AC.from_ac(s.gt["action"], *s.size) if fmt == "androidcontrol" else GO.from_go(s.gt["action"],
                                                                                               s.gt["info"])  # fmt: skip
        table[(s.goal, s.step)] = format_response("replay", action, "mobile")
    with StandinServer(answering(table)) as srv:
        result = CliRunner().invoke(app, ["eval", "offline", "--format", fmt, "--data", str(tmp_path / fmt),
                                          "--model", srv.base_url, "--model-name", srv.model_name, "--settings",
                                          "high", "--out", str(tmp_path / f"eval-{fmt}"), "--json"])  # fmt: skip
    assert result.exit_code == 0, result.output
    head = json.loads(result.output.strip().splitlines()[-1])
    assert head["steps"] == len(data) and head["type_acc"] == head["grounding_acc"] == head["step_sr"] == 1.0


def test_export_refuses_what_it_cannot_express(tmp_path):
    empty = CliRunner().invoke(app, ["export", "androidcontrol", str(tmp_path), "--out", str(tmp_path / "o")])
    assert empty.exit_code == 2 and "No episode folders" in empty.output
