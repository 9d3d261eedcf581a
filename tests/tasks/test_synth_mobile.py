"""Synthesised world tasks on the mobile surface, in real Chromium (the world server, the mobile preset):

- a train task whose capabilities all work on mobile is proved on the desktop browser and on mobile, and its task
  file declares both; with mobile proving off (`venus tasks synth --no-mobile`) it declares the browser only;
- `venus tasks prove` proves every surface a file declares: a task declaring mobile whose mobile oracle cannot run
  fails the file, the same task declaring the browser only passes.
"""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from venuskit.flywheel.synth import SynthConfig, synthesize
from venuskit.record.store import iter_episode_dirs
from venuskit.tasks import spec as task_spec
from venuskit.tasks.synth import build
from venuskit.tasks.synth.catalog import bundled_catalog
from venuskit.tasks.synth.compose import Plan, Step, task_table
from venuskit.tasks.synth.reject import SeedWorlds
from venuskit.tasks.synth.sample import Domains, Sampler, SamplerConfig
from venuskit.tasks.synth.taskfile import write_task_file

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CAT = bundled_catalog()
VENUS = [sys.executable, "-m", "venuskit.cli.main"]
# One short train-split mail task (seed 3 draws a two-step mail task; every mail capability works on mobile).
DRAW = {"n": 1, "seed": 3, "split": "train", "horizon": "short", "apps": ("mail",), "workers": 1}


def venus(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    return subprocess.run([*VENUS, *args], capture_output=True, text=True, timeout=timeout)


def _proofs(folder: Path) -> dict[tuple[str, str], str]:
    """(task, surface) -> contract verdict of every proving episode kept in `folder`."""
    out = {}
    for d in iter_episode_dirs(folder) if folder.is_dir() else []:
        m = json.loads((d / "manifest.json").read_text())
        out[(m["task"]["world_task"], m["surface"])] = m["verdicts"]["contract"]["verdict"]
    return out


def test_a_task_whose_capabilities_work_on_mobile_is_proved_on_both_surfaces_and_declares_both(tmp_path):
    out, proofs = tmp_path / "synth.toml", tmp_path / "proofs"
    result = synthesize(SynthConfig(**DRAW, out=out, keep_proofs=proofs))
    (task,) = task_spec.load_file(out)
    caps = [CAT.caps[t[4:]] for t in task.tags if t.startswith("cap:")]
    assert caps and all("mobile" in c.surfaces for c in caps) and "split:train" in task.tags
    assert task.surfaces == ("browser", "mobile")
    assert _proofs(proofs) == {(task.id, "browser"): "completed", (task.id, "mobile"): "completed"}
    s = result.summary
    assert s["accepted"] == 1 and s["mobile_proved"] == 1 and s["mobile_unproved"] == 0
    assert "on every surface it declares" in out.read_text().splitlines()[0]


def test_with_mobile_proving_off_the_same_task_declares_the_browser_only(tmp_path):
    out, proofs = tmp_path / "synth.toml", tmp_path / "proofs"
    res = venus("tasks", "synth", "--n", "1", "--seed", "3", "--split", "train", "--horizon", "short", "--apps",
                "mail", "--workers", "1", "--out", str(out), "--keep-proofs", str(proofs), "--no-mobile", "--json")  # fmt: skip
    assert res.returncode == 0, res.stderr
    summary = json.loads(res.stdout.strip().splitlines()[-1])
    (task,) = task_spec.load_file(out)
    assert all("mobile" in CAT.caps[t[4:]].surfaces for t in task.tags if t.startswith("cap:"))
    assert task.surfaces == ("browser",)
    assert _proofs(proofs) == {(task.id, "browser"): "completed"}  # no mobile proof ran
    assert summary["accepted"] == 1 and "mobile_proved" not in summary


def _display_name_table(name: str, surfaces: list[str]) -> dict:
    """A settings.display_name task (its capability is browser-only: the field starts filled in, and the mobile
    surface cannot select all to replace it), declaring `surfaces`."""
    worlds = SeedWorlds()
    plan = Plan([Step(CAT.caps["settings.display_name"])])
    Sampler(CAT, Domains(CAT, worlds), random.Random(0), SamplerConfig(unsupported_value_p=0.0))._bind(plan, 0, {})
    plan.steps[0].values["name"] = name
    return {**task_table(plan, build.tags(plan)), "surfaces": surfaces}


def test_venus_tasks_prove_runs_the_mobile_proof_of_a_task_that_declares_mobile(tmp_path):
    path = tmp_path / "tasks.toml"
    both, browser = _display_name_table("Ada Park", ["browser", "mobile"]), _display_name_table("Ada Lim", ["browser"])
    write_task_file(path, [both, browser], header="two tasks", parse=task_spec.parse_task)
    res = venus("tasks", "prove", str(path), "--workers", "1", "--json")
    assert res.returncode == 1, res.stderr  # not every declared surface proved
    *rows, counts = [json.loads(x) for x in res.stdout.strip().splitlines()]
    by_id = {r["task"]: r for r in rows}
    assert counts == {"tasks": 2, "completed": 1}
    assert by_id[both["id"]]["verdict"] == "completed"  # the desktop browser's proof passed ...
    assert by_id[both["id"]]["mobile"] != "completed"  # ... the mobile one ran and did not
    assert "mobile surface cannot select all" in by_id[both["id"]]["mobile_reason"]
    assert by_id[browser["id"]]["verdict"] == "completed" and "mobile" not in by_id[browser["id"]]
