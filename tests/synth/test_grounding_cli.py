"""`venus synth grounding` as a user runs it (the synth app that the main CLI mounts as `venus synth`)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

SYNTH = [sys.executable, "-m", "venuskit.cli.synth_cmd"]


def run(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*SYNTH, *args], capture_output=True, text=True, timeout=180)


@pytest.mark.browser
def test_synth_grounding_end_to_end(tmp_path):
    out = run("grounding", "--n", "30", "--out", str(tmp_path), "--format", "screenspot-v2", "--seed", "4", "--json")
    assert out.returncode == 0, out.stderr
    report = json.loads(out.stdout.strip().splitlines()[-1])
    assert report["samples"] == 30 and report["format"] == "screenspot-v2"
    written = sum(len(json.loads(p.read_text())) for p in tmp_path.glob("screenspot_*_v2.json"))
    assert written == 30


@pytest.mark.parametrize(
    "args, message",
    [
        (("--families", "button,sparkles"), "Unknown element families ['sparkles']"),
        (("--resolution", "100x100"), "320..3840"),
        (("--format", "csv"), "Unknown output format 'csv'"),
        (("--icon-dir", "/nonexistent"), "apt-get install bootstrap-icons"),
    ],
)
def test_bad_requests_fail_fast_with_a_message(tmp_path, args, message):
    out = run("grounding", "--n", "5", "--out", str(tmp_path), *args)
    assert out.returncode == 2
    assert message in out.stderr and "Traceback" not in out.stderr


def test_help_names_the_command():
    out = run("--help")
    assert out.returncode == 0 and "grounding" in out.stdout
