"""`venus eval captcha` against a loopback OpenAI-compatible stand-in: the model's one-<action> sequence
runs in real Chromium and the report shows exactly which instances passed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import typer
from typer.testing import CliRunner

from venuskit.actions import format_response
from venuskit.actions.prompts import CAPTCHA_TASK, system_prompt
from venuskit.cli.captcha_cmd import eval_captcha, parse_seeds
from venuskit.envs.browser import BrowserConfig, BrowserEnv
from venuskit.eval.captcha import CaptchaEvalConfig, run_captcha_eval
from venuskit.models.openai_backend import ModelConfig, OpenAIBackend
from venuskit.models.standin_server import StandinServer
from venuskit.record import load_episode, step_png
from venuskit.record.export import chat_rows
from venuskit.record.viewer import render_html
from venuskit.synth.captcha.harness import measure_layout, open_instance
from venuskit.synth.captcha.oracle import plan
from venuskit.synth.captcha.server import CaptchaServer
from venuskit.synth.captcha.spec import EVAL_SEEDS

TYPES, SEEDS = ["text_warped", "slider_jigsaw", "grid_select_icon"], [EVAL_SEEDS.start, EVAL_SEEDS.start + 1]
S0, S1 = SEEDS
WRONG = "<think>A guess.</think>\n<action>Click(box=(10,10))</action>"
GARBLED = "I cannot see a CAPTCHA here."


@pytest.fixture(scope="module")
def oracle_replies() -> list[str]:
    """What a perfect model would answer for each (type, seed), in the eval's order. Pages are
    deterministic, so the layout measured here is the layout the eval's own browser will show."""
    replies = []
    with CaptchaServer() as srv, BrowserEnv(BrowserConfig()) as env:
        for t in TYPES:
            for s in SEEDS:
                issued, _ = open_instance(env, srv, t, s)
                replies.append(
                    format_response("Solve it.", plan(issued.instance, measure_layout(env.page)), "captcha")
                )
    return replies


@pytest.mark.browser
@pytest.mark.slow
def test_pass_at_1_report_matches_the_scripted_answers(oracle_replies: list[str], tmp_path: Path) -> None:
    script = list(oracle_replies)
    script[1], script[4] = WRONG, GARBLED  # text_warped S1 and grid_select_icon S0 go wrong
    with StandinServer(script) as model:
        backend = OpenAIBackend(
            ModelConfig(
                base_url=model.base_url, model="standin", max_retries=0, chat_template_kwargs={"enable_thinking": True}
            )
        )
        report = run_captcha_eval(backend, CaptchaEvalConfig(types=TYPES, seeds=SEEDS, out=tmp_path))
        requests = model.chat_requests()
    got = {(r["type"], r["seed"]): r["passed"] for r in report["rows"]}
    assert got == {
        ("text_warped", S0): True,
        ("text_warped", S1): False,
        ("slider_jigsaw", S0): True,
        ("slider_jigsaw", S1): True,
        ("grid_select_icon", S0): False,
        ("grid_select_icon", S1): True,
    }
    assert (
        report["per_type"]["text_warped"]["pass_at_1"] == 0.5
        and report["per_type"]["slider_jigsaw"]["pass_at_1"] == 1.0
    )
    assert report["per_family"]["grid"] == {"n": 2, "passed": 1, "pass_at_1": 0.5, "mean_partial": 0.5}
    assert report["overall"]["passed"] == 4 and report["macro_family_pass_at_1"] == pytest.approx(
        (0.5 + 1 + 0.5) / 3, abs=1e-4
    )
    garbled = next(r for r in report["rows"] if (r["type"], r["seed"]) == ("grid_select_icon", S0))
    assert "unparsable response" in garbled["reason"] and garbled["actions"] == []
    # The UI-Venus-2 CAPTCHA protocol: system prompt with the task, a user turn holding only the screenshot.
    assert len(requests) == 6
    msgs = requests[0].json["messages"]
    assert (
        msgs[0] == {"role": "system", "content": system_prompt("captcha", "")} and CAPTCHA_TASK in msgs[0]["content"]
    )
    assert [p["type"] for p in msgs[1]["content"]] == ["image_url"]
    png = requests[0].images()[0]
    assert png[:4] == b"\x89PNG" and int.from_bytes(png[16:20], "big") == 1024
    assert requests[0].json["chat_template_kwargs"] == {"enable_thinking": True}
    saved = json.loads((tmp_path / "report.json").read_text())
    assert saved["per_type"] == report["per_type"] and len(saved["rows"]) == 6
    page = (tmp_path / "report.html").read_text()
    assert "CAPTCHA Pass@1: 66.7% (4/6) - standin" in page and "grid_select_icon" in page and "<svg" in page
    attempts = (tmp_path / "attempts.html").read_text()
    assert attempts.count('class="bad"') == 2 and "unparsable response" in attempts
    _check_episodes(tmp_path, report, script)


def _check_episodes(out: Path, report: dict, script: list[str]) -> None:
    """One finished episode per instance, which the viewer and the chat export read like any other run."""
    folders = [out / r["episode"] for r in report["rows"]]
    episodes = [load_episode(f) for f in folders]
    assert len({e.episode_id for e in episodes}) == 6
    for ep, folder, row, reply in zip(episodes, folders, report["rows"], script, strict=True):
        assert ep.finished and ep.surface == "captcha" and ep.outcome.reason == "env_done"
        assert ep.task["captcha"] == {"type": row["type"], "family": row["family"], "seed": row["seed"]}
        assert ep.verdicts["checker"]["passed"] is row["passed"] and ep.outcome.reward == float(row["passed"])
        (step,) = ep.steps
        assert step.raw_output == reply and step_png(folder, step)[:4] == b"\x89PNG"
        assert (step.action is None) == (reply == GARBLED) == (step.error is not None)
    assert episodes[0].steps[0].action is not None and episodes[0].steps[0].executed
    page = render_html(folders[0]).read_text()
    assert "<img" in page and "Type(" in page  # text_warped: the typed answer is shown as the step's action
    rows = [row for f in folders for row in chat_rows(f)]
    assert len(rows) == 5  # every step with a parsed reply; the garbled one has none
    for row in rows:  # trained on exactly what the eval sent: the CAPTCHA prompt, then only the screenshot
        assert row["prompt"][0]["content"] == [{"type": "text", "text": system_prompt("captcha", "")}]
        assert row["prompt"][1]["content"] == [{"type": "image"}] and len(row["prompt"]) == 2


@pytest.mark.browser
def test_cli_verb_prints_json_and_resolves_the_model_name(tmp_path: Path) -> None:
    app = typer.Typer()
    app.command("captcha")(eval_captcha)
    app.command("noop")(lambda: None)  # two commands: typer keeps "captcha" as a sub-command name
    with StandinServer(lambda req: WRONG) as model:
        result = CliRunner().invoke(
            app,
            [
                "captcha",
                "--model",
                model.base_url,
                "--types",
                "dice_sum",
                "--seeds",
                "1000000-1000001",
                "--json",
                "--out",
                str(tmp_path),
            ],
        )
        chats = model.chat_requests()
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output.strip().splitlines()[-1])
    assert summary["overall"] == {"n": 2, "passed": 0, "pass_at_1": 0.0, "mean_partial": 0.0}
    assert summary["per_family"]["arithmetic"]["n"] == 2 and Path(summary["report"]["html"]).is_file()
    assert all(c.json["model"] == "standin" for c in chats), "the model name comes from GET /v1/models"


@pytest.mark.browser
def test_a_dead_model_server_is_a_recorded_failure(tmp_path: Path) -> None:
    backend = OpenAIBackend(ModelConfig(base_url="http://127.0.0.1:9/v1", model="x", max_retries=0, timeout_s=2))
    report = run_captcha_eval(backend, CaptchaEvalConfig(types=["hold_button"], seeds=[EVAL_SEEDS.start]))
    (row,) = report["rows"]
    assert not row["passed"] and row["reason"].startswith("model error")


def test_config_and_seed_parsing_refuse_bad_input() -> None:
    assert parse_seeds("0-2,7") == [0, 1, 2, 7]
    with pytest.raises(ValueError, match="preset"):
        CaptchaEvalConfig(preset="tablet")
    with pytest.raises(ValueError, match="Unknown CAPTCHA type"):
        CaptchaEvalConfig(types=["nope"])
    with pytest.raises(ValueError, match="seeds"):
        CaptchaEvalConfig(seeds=[])
    with pytest.raises(ValueError, match="must lie in 1000000-1999999"):
        CaptchaEvalConfig(seeds=[0, 1, 2])  # training seeds: the eval refuses puzzles synthesis may have written
    assert CaptchaEvalConfig().seeds == [1000000, 1000001, 1000002]
    with pytest.raises(typer.Exit):
        parse_seeds("a-b")
