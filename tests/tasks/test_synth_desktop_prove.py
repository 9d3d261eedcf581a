"""Desktop task synthesis proved under Xvfb with the real apps (a handful of tasks, to stay short):

- `venus tasks synth --surface computer` end to end: drawn, checked, proved (oracle `completed`, a do-nothing run
  `failed`), written to a task file that the desktop loader reads and `venus desktop oracle --tasks` runs again;
- a candidate whose contract a do-nothing run already passes on the live desktop is rejected as unverifiable, and
  one whose oracle cannot complete is rejected with the verdict and the reason.

The full run (>= 200 tasks, every capability) is a command, quoted in docs/tasks.md.
"""

from __future__ import annotations

import json
import random
import shutil
import subprocess
import sys

import pytest

from venuskit.flywheel.synth import SynthConfig, prove, synthesize
from venuskit.tasks.desktop import spec as desktop_spec
from venuskit.tasks.synth import build
from venuskit.tasks.synth.build import Candidate
from venuskit.tasks.synth.catalog import capabilities_dir, load_catalog
from venuskit.tasks.synth.compose import Plan, Step, derive
from venuskit.tasks.synth.reject import SeedWorlds
from venuskit.tasks.synth.sample import Domains, Sampler, SamplerConfig

pytestmark = [pytest.mark.desktop, pytest.mark.slow]

VENUS = [sys.executable, "-m", "venuskit.cli.main"]


def test_synth_on_the_desktop_writes_proved_tasks_that_run_again(tmp_path):
    out = tmp_path / "desk.toml"
    result = synthesize(SynthConfig(surface="computer", n=2, out=out, seed=4, workers=1, horizon="medium"))
    s = result.summary
    assert s["accepted"] == 2 and s["surface"] == "computer" and s["oracle_completed_share"] == 1.0
    assert s["proofs"] >= 2 and s["cross_app_share"] > 0 and s["capabilities_covered"] >= 3
    assert set(s["rejected_by_reason"]) >= {"unsupported_function", "unverifiable_result", "ambiguous_goal",
                                            "precondition_unmet", "duplicate", "oracle_failed"}  # fmt: skip
    specs = desktop_spec.load_file(out)
    assert [t.id for t in specs] == [c.spec.id for c in result.accepted]
    assert all(len(t.apps) >= 2 and t.windows and t.oracle[-1][0] == "finish" for t in specs)
    assert "a run that does nothing scored `failed`" in out.read_text(encoding="utf-8")
    # the file's first task, run again by the CLI from the file alone
    done = subprocess.run([*VENUS, "desktop", "oracle", specs[0].id, "--tasks", str(out), "--out",
                           str(tmp_path / "runs"), "--json"], capture_output=True, text=True, timeout=300)  # fmt: skip
    assert done.returncode == 0, done.stderr[-2000:]
    assert json.loads(done.stdout.strip().splitlines()[-1])["verdict"] == "completed"


def _candidate(cat, steps: list[str], seed: int = 2) -> Candidate:
    sampler = Sampler(cat, Domains(cat, SeedWorlds()), random.Random(seed), SamplerConfig(flow_p=0.0))
    plan = Plan([Step(cat.caps[c]) for c in steps])
    for i in range(len(steps)):
        sampler._bind(plan, i, {})
        derive(plan.steps[i])
    if plan.steps[-1].cap.kind == "read":
        plan.answer = (len(steps) - 1, 0)  # the task asks for the value read last
    return build.build_candidate(plan, cat, SeedWorlds(), set(), {})


def _why(outcomes: dict, keep) -> str:
    """Each proof's verdict, reason and env error, and every step error of the kept episodes."""
    from venuskit.record.store import load_episode

    lines = [f"{k}: {o.verdict}/{o.idle} {o.reason!r} infra={o.infra!r}" for k, o in outcomes.items()]
    for folder in sorted(p.parent for p in keep.rglob("manifest.json")):
        errors = [s.error for s in load_episode(folder).steps if s.error]
        lines.append(f"{folder.name}: {errors}")
    return "\n".join(lines)


def test_a_contract_that_holds_on_the_live_desktop_and_a_broken_oracle_are_rejected(tmp_path):
    root = tmp_path / "caps"
    shutil.copytree(capabilities_dir("computer"), root)
    terminal = root / "terminal.toml"
    text = terminal.read_text(encoding="utf-8")
    # "the terminal window is open" holds before anything is done, but only on a live desktop: the static check on
    # the home folder (no windows) cannot see it, the do-nothing run under Xvfb does
    text = text.replace('effect = [{ desc = "{src.copy} is a copy of {src.file}", check = "file.same_as", args = { '
                        'path = "{src.copy}", other = "{src.file}" } }]',
                        'effect = [{ desc = "a terminal is open", check = "window.open", args = { app = "XTerm" } }]',
                        1)  # fmt: skip
    text = text.replace('oracle = [["type", "chmod +x', 'oracle = [["type", "chmod -x', 1)  # a wrong command
    terminal.write_text(text, encoding="utf-8")
    cat = load_catalog(root, surface="computer")
    lenient = _candidate(cat, ["xterm.copy_file"])
    broken = _candidate(cat, ["xterm.make_executable", "mousepad.prepend_line"])
    ok = _candidate(cat, ["mousepad.append_line", "gpicview.read_word"])
    keep = tmp_path / "proofs"  # kept, so that a failure below can say what the episodes saw
    outcomes = prove([lenient, broken, ok], workers=1, surface="computer", keep=keep)
    by = {o.candidate.spec.id: o for o in outcomes}
    assert (by[lenient.spec.id].verdict, by[lenient.spec.id].idle) == ("completed", "completed"), _why(by, keep)
    assert "doing nothing under Xvfb scores 'completed'" in by[lenient.spec.id].reason
    assert (by[broken.spec.id].verdict, by[broken.spec.id].idle) == ("failed", "")  # no idle run for a failed oracle
    assert (by[ok.spec.id].verdict, by[ok.spec.id].idle) == ("completed", "failed")
