"""`venus train sft|grpo|mopd|rows` end to end on CPU: recorded episodes → rows → each stage on a tiny model."""

from __future__ import annotations

import json

import pytest
from train_fixtures import record_episodes  # noqa: E402
from typer.testing import CliRunner  # noqa: E402

from venuskit.cli.train_cmd import app  # noqa: E402

runner = CliRunner()


def last_json(output: str) -> dict:
    """The command's JSON result line (library logs may share the captured output)."""
    tail = output[output.rindex('{"') :]
    return json.loads(tail.splitlines()[0])


FAST = [
    "--use_cpu",
    "true",
    "--bf16",
    "false",
    "--report_to",
    "none",
    "--save_strategy",
    "no",
    "--max_steps",
    "1",
    "--per_device_train_batch_size",
    "4",
    "--gradient_checkpointing",
    "false",
    "--disable_tqdm",
    "true",
]


def test_help_lists_every_field_with_its_help():
    result = runner.invoke(app, ["mopd", "--help"])
    assert result.exit_code == 0
    assert "--teachers" in result.output and "Domain teachers" in result.output
    assert "--use_vllm" in result.output and "--resume_from_checkpoint" in result.output


def test_bad_config_exits_with_the_field_named(tiny_model, tmp_path):
    record_episodes(tmp_path / "eps", 1)
    result = runner.invoke(
        app,
        [
            "mopd",
            "--model",
            str(tiny_model),
            "--data",
            str(tmp_path / "eps"),
            "--teachers",
            f"mobile={tmp_path}/missing",
            "--output_dir",
            str(tmp_path / "o"),
        ],
    )
    assert result.exit_code == 2
    assert "teachers" in result.output and "no config.json" in result.output


@pytest.mark.slow
def test_rows_then_every_stage_runs_end_to_end(tiny_model, tmp_path):
    record_episodes(tmp_path / "eps", 2)
    res = runner.invoke(app, ["rows", str(tmp_path / "eps"), "--out", str(tmp_path / "rl.jsonl"), "--kind", "rl"])
    assert res.exit_code == 0, res.output
    assert last_json(res.output)["rows"] == 4
    common = ["--model", str(tiny_model), "--data", str(tmp_path / "eps"), *FAST]
    stages = {
        "sft": [],
        "grpo": ["--domain", "mobile", "--num_generations", "4", "--max_completion_length", "16"],
        "mopd": [
            "--teachers",
            f"mobile={tiny_model}",
            "--max_completion_length",
            "16",
            "--data",
            str(tmp_path / "rl.jsonl"),
        ],
    }
    for stage, extra in stages.items():
        out = tmp_path / stage
        res = runner.invoke(app, [stage, *common, "--output_dir", str(out), *extra])
        assert res.exit_code == 0, (stage, res.output, res.exception)
        assert last_json(res.output)["global_step"] == 1
        assert (out / "model.safetensors").is_file()
