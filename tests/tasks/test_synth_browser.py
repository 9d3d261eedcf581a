"""Synthesised tasks in real Chromium: every capability's oracle fragment proved, the `venus tasks synth` run
end to end (with a stand-in paraphrasing writer), the tasks run through `venus run --world --tasks`, an
oracle that cannot complete rejected, and coverage from recorded runs."""

from __future__ import annotations

import json
import random
import subprocess
import sys
from pathlib import Path

import pytest

from venuskit.agent.policy import ScriptedPolicy
from venuskit.flywheel.synth import prove
from venuskit.models.standin_server import StandinServer
from venuskit.record.store import iter_episode_dirs, load_episode
from venuskit.runs.world import run_world_task
from venuskit.tasks import spec as task_spec
from venuskit.tasks.synth import build, reject
from venuskit.tasks.synth.build import Candidate
from venuskit.tasks.synth.catalog import bundled_catalog
from venuskit.tasks.synth.compose import Plan, Step, task_table
from venuskit.tasks.synth.reject import Rejected, SeedWorlds
from venuskit.tasks.synth.sample import Domains, Sampler, SamplerConfig

pytestmark = [pytest.mark.browser, pytest.mark.slow]

CAT = bundled_catalog()
WORLDS = SeedWorlds()
VENUS = [sys.executable, "-m", "venuskit.cli.main"]


def venus(*args: str, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run([*VENUS, *args], capture_output=True, text=True, timeout=timeout)


def _single(cap_id: str, locale: str, rng: random.Random) -> Candidate:
    """One capability as a task of its own (a read is asked as the answer); checked on the seeded worlds. Not
    a synthesis output (it duplicates hand-written templates): it proves the capability's fragment."""
    sampler = Sampler(CAT, Domains(CAT, WORLDS), rng, SamplerConfig(unsupported_value_p=0.0))
    for _ in range(20):
        plan = Plan([Step(CAT.caps[cap_id])], locale)
        sampler._bind(plan, 0, {})
        if plan.steps[0].cap.kind == "read":
            plan.answer = rng.choice([(0, k) for k in range(len(plan.steps[0].cap.produces)) if plan.hidden((0, k))])
        spec = task_spec.parse_task(task_table(plan, build.tags(plan)))
        try:
            reject.check_world(plan, spec, WORLDS)
        except Rejected:
            continue  # e.g. a seeded product out of stock on a check seed: draw again
        return Candidate(plan, spec, {})
    raise AssertionError(f"no valid instance of {cap_id}")


def test_every_capability_fragment_reaches_completed_in_chromium():
    rng = random.Random(17)
    caps = [c.id for c in CAT.composable()]
    cands = [_single(c, "zh" if i % 4 == 3 and "browser" in CAT.caps[c].surfaces else "en", rng)
             for i, c in enumerate(caps)]  # fmt: skip
    try:
        outcomes = prove(cands, workers=2)
    finally:
        task_spec.unregister([c.spec.id for c in cands])
    failed = [(o.candidate.plan.steps[0].cap.id, o.candidate.plan.locale, o.verdict, o.reason)
              for o in outcomes if o.verdict != "completed"]  # fmt: skip
    assert not failed, failed
    assert {o.candidate.plan.locale for o in outcomes} == {"en", "zh"}


def test_an_oracle_that_cannot_reach_completed_is_rejected():
    """Two notification changes whose contracts contradict each other (push on with email still on, after
    email was turned off): every static check passes, the oracle runs both, the contract cannot hold."""
    sampler = Sampler(CAT, Domains(CAT, WORLDS), random.Random(1))
    plan = Plan([Step(CAT.caps["settings.email_notifications_off"]), Step(CAT.caps["settings.push_on"])])
    for i in range(2):
        sampler._bind(plan, i, {})
    cand = build.build_candidate(plan, CAT, WORLDS, set())
    try:
        (outcome,) = prove([cand], workers=1)
    finally:
        task_spec.unregister([cand.spec.id])
    assert outcome.verdict == "failed", outcome.reason


def _replies(episode_dir: Path) -> list[str]:
    return [s.raw_output for s in load_episode(episode_dir).steps]


def test_venus_tasks_synth_then_run_world_and_coverage(tmp_path):
    """`venus tasks synth` writes proved tasks (goals paraphrased by a stand-in writer where the paraphrase keeps
    every value); `venus run --world ID --tasks FILE` runs one with a policy that replays its proof; `venus tasks
    coverage --runs` finds the capability a do-nothing policy failed."""
    turns = {"n": 0}

    def paraphrase(request: dict) -> str:
        turns["n"] += 1
        goal = request["messages"][0]["content"].split("Instruction:\n", 1)[1].strip()
        if turns["n"] % 2:  # a faithful rewording: kept
            return f"<think>ok</think>Please help me out: {goal}"
        return goal.rstrip(".") + ", and send 99.99 EUR to Omar."  # adds an effect: refused, the template stays

    out, proofs = tmp_path / "synth.toml", tmp_path / "proofs"
    with StandinServer(paraphrase) as writer:
        res = venus("tasks", "synth", "--n", "2", "--seed", "4", "--horizon", "short", "--out", str(out),
                    "--keep-proofs", str(proofs), "--writer", writer.base_url, "--writer-model", "standin",
                    "--json")  # fmt: skip
    assert res.returncode == 0, res.stderr
    summary = json.loads(res.stdout.strip().splitlines()[-1])
    assert summary["accepted"] == 2 and summary["oracle_completed_share"] == 1.0 and summary["duplicates"] == 0
    assert set(summary["rejected_by_reason"]) == set(reject.REASONS)
    assert summary.get("paraphrases_kept", 0) >= 1 and summary.get("paraphrases_refused", 0) >= 1
    assert "adds" in summary["paraphrase_refusals"][0]["reason"]  # refused with the reason
    specs = task_spec.load_file(out)
    assert len(specs) == 2 and all(s.id.startswith("synth.") and "synth" in s.tags for s in specs)
    assert specs[0].goal.startswith("Please help me out")  # the first drawn, paraphrased faithfully, kept
    assert not any("99.99" in s.goal for s in specs)
    # every accepted task was proved: its episode is kept and its contract verdict is `completed`
    episodes = {
        json.loads((d / "manifest.json").read_text())["task"]["world_task"]: d for d in iter_episode_dirs(proofs)
    }
    for s in specs:
        manifest = json.loads((episodes[s.id] / "manifest.json").read_text())
        assert manifest["verdicts"]["contract"]["verdict"] == "completed"

    # the written file proves again from scratch (what a change to the world would be checked with)
    res = venus("tasks", "prove", str(out), "--json")
    assert res.returncode == 0, res.stderr
    assert json.loads(res.stdout.strip().splitlines()[-1]) == {"tasks": 2, "completed": 2}

    # a synthesised task through `venus run --world`, its id resolved from the task file
    task = specs[0]
    runs = tmp_path / "runs"
    with StandinServer(_replies(episodes[task.id])) as model:
        res = venus("run", "--world", task.id, "--tasks", str(out), "--model", model.base_url, "--model-name",
                    "standin", "--out", str(runs), "--json", "--non-interactive")  # fmt: skip
        first = model.chat_requests()[0].json["messages"][0]["content"]
    assert res.returncode == 0, res.stderr
    result = json.loads(res.stdout.strip().splitlines()[-1])
    assert result["verdict"] == "completed", result
    assert task.goal in first  # the model was given the synthesised goal
    missing = venus("run", "--world", task.id, "--model", "http://127.0.0.1:1/v1", "--model-name", "m")
    assert missing.returncode == 2 and "--tasks FILE" in missing.stderr and "Traceback" not in missing.stderr

    # a do-nothing policy on another synthesised task: its capabilities show up as failed in coverage
    task_spec.register(specs)
    try:
        other = specs[1]
        nothing = ScriptedPolicy(["<think>Done.</think><action>Finished(content='Done.')</action>"], "browser")
        run = run_world_task(other.id, 0, policy=nothing, out=runs)
    finally:
        task_spec.unregister([s.id for s in specs])
    assert run.verdict.verdict == "failed"
    res = venus("tasks", "coverage", str(out), "--runs", str(runs), "--json")
    assert res.returncode == 0, res.stderr
    report = json.loads(res.stdout)
    assert report["tasks"] == 2 and report["episodes"] == 2 and report["unattributed"] == 0
    rows = {r["capability"]: r for r in report["failures"]}
    blamed = [t[4:] for t in other.tags if t.startswith("cap:")]
    assert any(rows[c]["failed"] == 1 for c in blamed)
    assert all(rows[c]["failed"] == 0 for c in (t[4:] for t in task.tags if t.startswith("cap:")) if c not in blamed)
    assert report["weights"][blamed[0]] > 0


def _proved(proofs: Path) -> dict[Path, str]:
    """The task of every proving episode kept in `proofs`, by episode folder."""
    dirs = iter_episode_dirs(proofs) if proofs.is_dir() else []
    return {d: json.loads((d / "manifest.json").read_text())["task"]["world_task"] for d in dirs}


def test_an_interrupted_run_resumes_without_proving_twice(tmp_path):
    """The same seed draws the same stream; tasks already in --out were proved and are taken as they are."""
    from venuskit.flywheel.synth import SynthConfig, synthesize

    out, proofs = tmp_path / "synth.toml", tmp_path / "proofs"
    first = synthesize(SynthConfig(n=1, seed=6, out=out, horizon="short", workers=1, keep_proofs=proofs))
    assert [c.spec.id for c in first.accepted] == [s.id for s in task_spec.load_file(out)]
    proved_first = _proved(proofs)
    again = synthesize(SynthConfig(n=2, seed=6, out=out, horizon="short", workers=1, resume=True, keep_proofs=proofs))
    ids = [c.spec.id for c in again.accepted]
    assert ids[:1] == [c.spec.id for c in first.accepted] and len(ids) == 2
    assert again.summary["resumed"] >= 1 and [s.id for s in task_spec.load_file(out)] == ids
    # Every proving run leaves its episode in `proofs`: the resumed run proved only tasks the first did not.
    proved = _proved(proofs)
    later = [task for d, task in proved.items() if d not in proved_first]
    assert ids[0] in proved_first.values() and ids[1] in later, proved
    assert len(set(proved.values())) == len(proved), proved  # no task proved twice, in either run
    assert first.summary["proofs"] == len(proved_first) and again.summary["proofs"] == len(later)
    rejections = [json.loads(x) for x in (tmp_path / "synth.toml.rejected.jsonl").read_text().splitlines()]
    assert rejections and all(r["reason"] in reject.REASONS and r["detail"] for r in rejections)
    with pytest.raises(ValueError, match="--resume continues into an existing --out"):
        SynthConfig(n=1, out=tmp_path / "none.toml", resume=True)
