"""`venus run` with no --model runs venus-nano (what `make run` does with no variables)."""

import re
import subprocess
import sys
from pathlib import Path

import pytest

from venuskit.record.store import load_episode


@pytest.mark.slow
@pytest.mark.browser
def test_venus_run_without_a_model_runs_nano_on_a_world_task(tmp_path: Path):
    proc = subprocess.run([sys.executable, "-m", "venuskit.cli.main", "run", "--world", "mail.star_message",
                           "--seed", "5000", "--out", str(tmp_path), "--max-steps", "8"],
                          capture_output=True, text=True, timeout=400)  # fmt: skip
    assert proc.returncode == 0, proc.stderr[-2000:]
    verdict = re.search(r"^(completed|partial|failed|infeasible|error) \((\w+)\) -> (\S+)$", proc.stdout, re.M)
    assert verdict, proc.stdout
    view = re.search(r"^view: (\S+)$", proc.stdout, re.M)
    assert view and Path(view.group(1)).is_file()
    episode = load_episode(verdict.group(3))
    assert episode.model["policy"] == "venus-nano" and episode.steps
    assert episode.verdicts["contract"]["verdict"] == verdict.group(1)
    assert all(s.raw_output and "<action>" in s.raw_output for s in episode.steps)


def test_venus_run_with_a_model_still_needs_its_name():
    proc = subprocess.run([sys.executable, "-m", "venuskit.cli.main", "run", "--world", "mail.star_message",
                           "--model", "http://127.0.0.1:9/v1"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2 and "--model-name" in proc.stderr and "Traceback" not in proc.stderr
