"""`venus run` with no --model runs venus-nano (what `make run` does with no variables), and every episode venus-nano
acts in names the checkpoint that acted (and the nano judge's, where it judges) by file and digest, never by path."""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from agent_helpers import PAGES, H, W
from provenance_helpers import absolute_paths

from venuskit.agent.nano import NanoPolicy
from venuskit.agent.runner import RunConfig
from venuskit.agent.session import AgentJob, run_episode
from venuskit.envs.browser import BrowserConfig, BrowserEnv
from venuskit.models.judge import JudgeModel
from venuskit.models.nano import load_default
from venuskit.record.store import load_episode
from venuskit.verify import make_judges, verify_episode
from venuskit.verify.sgv import write_report
from venuskit.verify.step import StepVerifier


@pytest.mark.slow
@pytest.mark.browser
def test_venus_run_without_a_model_runs_nano_on_a_world_task(tmp_path: Path):
    proc = subprocess.run([sys.executable, "-m", "venuskit.cli.main", "run", "--world", "mail.star_message",
                           "--seed", "5000", "--out", str(tmp_path), "--max-steps", "8"],
                          capture_output=True, text=True, timeout=400)  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    verdict = re.search(r"^(completed|partial|failed|infeasible|error) \((\w+)\) -> (\S+)$", proc.stdout, re.M)
    assert verdict, proc.stdout
    # The run itself must not break: a contract verdict of the task, reached by finishing or by the step limit.
    assert verdict.group(1) != "error" and verdict.group(2) in ("finished", "step_limit", "call_user"), proc.stdout
    view = re.search(r"^view: (\S+)$", proc.stdout, re.M)
    assert view and Path(view.group(1)).is_file()
    episode = load_episode(verdict.group(3))
    assert episode.outcome.error is None and episode.model["policy"] == "venus-nano" and episode.steps
    assert episode.verdicts["contract"]["verdict"] == verdict.group(1)
    assert all(s.raw_output and "<action>" in s.raw_output and s.action is not None for s in episode.steps)
    assert episode.model["checkpoint"] == load_default().checkpoint  # which weights acted


@pytest.mark.slow
@pytest.mark.browser
def test_a_nano_episode_names_its_checkpoints_and_no_path(tmp_path: Path, serve_dir):
    """venus-nano acts with the nano judge as its step check, then SGV judges the episode with the nano judge: the
    manifest names both checkpoints by file and SHA-256 and carries no absolute path."""
    site = serve_dir(PAGES)
    check = StepVerifier(judge=make_judges("nano")[0])
    job = AgentJob(goal="Add one.", out=tmp_path, run=RunConfig(max_steps=2))
    with BrowserEnv(BrowserConfig(viewport=(W, H), wait_default_s=0.1)) as env:
        episode, folder = run_episode(env, NanoPolicy("browser", "Add one."), job,
                                      {"start_url": f"{site}/counter.html"}, step_check=check)  # fmt: skip
    assert load_episode(folder).steps and episode.outcome.error is None
    write_report(folder, verify_episode(folder, make_judges("ocr,log,nano")))
    manifest = json.loads((folder / "manifest.json").read_text("utf-8"))
    assert manifest["model"]["checkpoint"] == load_default().checkpoint
    judge = JudgeModel.load().checkpoint
    assert judge == {"name": "judge.pt", "sha256": judge["sha256"]} and len(judge["sha256"]) == 64
    assert manifest["config"]["step_check"] == {"rules": True, "judge": {"model": "venus-judge", "checkpoint": judge}}
    assert manifest["verdicts"]["sgv"]["judges"]["nano"] == {"model": "venus-judge", "checkpoint": judge}
    assert str(tmp_path).startswith("/") and absolute_paths(manifest) == []


def test_venus_run_with_a_model_still_needs_its_name():
    proc = subprocess.run([sys.executable, "-m", "venuskit.cli.main", "run", "--world", "mail.star_message",
                           "--model", "http://127.0.0.1:9/v1"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "--model-name" in proc.stderr and "Traceback" not in proc.stderr
