"""Fault injection, with real parts: a model server that fails in every way it can, a page that hangs the renderer,
Chromium killed mid-suite, a disk that fills up, Ctrl-C, and the harness killed with SIGKILL at 20 random points
of a suite. Each fault must end as a typed, recorded error and a run that resumes to the result an uninterrupted
run gives. (A safety gate that raises is in tests/agent/test_safety_gate.py; malformed task files in
tests/tasks/test_safety_catalog.py and tests/tasks/test_spec.py.)"""

from __future__ import annotations

import errno
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import psutil
import pytest

from venuskit.actions import Click, Point, format_call
from venuskit.actions.coords import point_from_pixels
from venuskit.agent.policy import VenusPolicy
from venuskit.agent.runner import RunConfig
from venuskit.agent.session import AgentJob, run_episode
from venuskit.envs.browser import BrowserConfig, BrowserEnv
from venuskit.eval.safety import SafetyEvalConfig, run_safety_eval
from venuskit.eval.suites.common import Ledger
from venuskit.models.openai_backend import ModelConfig, OpenAIBackend
from venuskit.models.standin_server import Reply, StandinServer
from venuskit.record.store import load_episode

pytestmark = [pytest.mark.browser, pytest.mark.slow]
ROOT = Path(__file__).resolve().parents[1]
W, H = 1024, 768
FINISH = "<think>Done.</think>\n<action>Finished(content='done')</action>"


def click(x: int, y: int) -> str:
    return f"<think>Click.</think>\n<action>{format_call(Click(point=Point(*point_from_pixels(x, y, W, H))), 'browser')}</action>"


ADD = click(200, 140)  # the counter page's "Add one"


def policy(url: str, model: str, timeout_s: float = 30.0) -> VenusPolicy:
    cfg = ModelConfig(base_url=url, model=model, timeout_s=timeout_s, max_retries=2, backoff_base_s=0.01)
    return VenusPolicy(OpenAIBackend(cfg), "browser", "Add one.")


def test_a_model_server_that_fails_every_way_it_can(serve_dir, tmp_path):
    """500 and 429 are retried (Retry-After honoured); garbage is re-asked once, then recorded; a server that
    never answers in time ends the episode with ModelTimeout, resumable; the resumed run finishes it."""
    site = serve_dir(ROOT / "agent" / "pages")
    script = [Reply(status=500), Reply(status=429, headers={"Retry-After": "0"}), ADD,
              "no action here", "<action>Click(box=__import__('os').system('touch /tmp/pwned'))</action>",
              Reply(text=ADD, delay_s=3), Reply(text=ADD, delay_s=3), Reply(text=ADD, delay_s=3)]  # fmt: skip
    job = AgentJob(goal="Add one.", out=tmp_path, run=RunConfig(max_steps=8))
    task = {"start_url": f"{site}/counter.html"}
    with BrowserEnv(BrowserConfig(viewport=(W, H))) as env, StandinServer(script) as srv:
        episode, folder = run_episode(env, policy(srv.base_url, srv.model_name, timeout_s=1.0), job, task)
        assert env.page.inner_text("#count") == "1"
        assert episode.outcome.reason == "error" and episode.outcome.error["type"] == "ModelTimeout"
        steps = load_episode(folder).steps
        assert steps[0].action.name == "Click"  # after a 500 and a 429, the third answer was used
        assert steps[1].error is not None and steps[1].raw_output.startswith("<action>Click(box=__import__")
        assert len(steps[1].attempts) == 1 and steps[1].attempts[0]["rejected_by"] == "parser"  # re-asked once
        assert steps[2].error["type"] == "ModelTimeout" and not load_episode(folder).finished
        assert not Path("/tmp/pwned").exists()  # model output is parsed, never run
        with StandinServer([FINISH]) as good:
            episode, again = run_episode(env, policy(good.base_url, good.model_name), job, task, resume_dir=folder)
    assert again == folder and episode.outcome.reason == "finished"
    assert [s.index for s in load_episode(folder).steps] == [0, 1, 2, 3]


def test_a_page_that_hangs_is_a_recorded_timeout_and_the_episode_goes_on(serve_dir, tmp_path):
    site = serve_dir(ROOT / "envs" / "pages")
    with BrowserEnv(BrowserConfig(viewport=(W, H), action_timeout_s=3.0)) as env, \
            StandinServer([click(150, 50), FINISH]) as srv:  # fmt: skip
        job = AgentJob(goal="Press it.", out=tmp_path, run=RunConfig(max_steps=4))
        t0 = time.monotonic()
        episode, folder = run_episode(env, policy(srv.base_url, srv.model_name), job, {"start_url": f"{site}/hang.html"})
        assert time.monotonic() - t0 < 60
    steps = load_episode(folder).steps
    assert steps[0].error["type"] == "ActionTimeout" and steps[0].info.get("relaunched")
    assert episode.outcome.reason == "finished"


SUITE_TASKS = "gating.send_mail.agenda,benign.star_file.contract"


def suite(out: Path, **kw) -> SafetyEvalConfig:
    return SafetyEvalConfig(out=str(out), model="attacker", gate="on", seeds=(0,), tasks=SUITE_TASKS, ocr=False, **kw)


def _kill_browser() -> bool:
    """Kill this process's Chromium browser processes (not their renderers); True if one was killed. A process
    that exits while it is looked at (a zombie renderer of an earlier page) is passed over."""
    killed = False
    for p in psutil.Process().children(recursive=True):
        try:
            if p.name().startswith("chrom") and "--type=" not in " ".join(p.cmdline()):
                p.kill()
                killed = True
        except psutil.Error:
            continue
    return killed


def test_chromium_killed_mid_suite_is_an_infrastructure_retry(tmp_path, monkeypatch):
    from venuskit.record import store

    out = tmp_path / "run"
    real = store.write_bytes
    killed: list[bool] = []

    # Chromium dies right after the mail episode (seven steps) records its second screenshot: at that write, not
    # on a poll of the folder, so the kill lands mid-episode however loaded the machine is (a poll once came after
    # the episode had ended, under a CI run beside training). The retried row below is the proof it landed.
    def write_bytes(path, data, *, durable):
        written = real(path, data, durable=durable)
        where = Path(path)
        if not killed and where.name == "step_0001.png" and "on_gating.send_mail.agenda_0" in where.parts:
            killed.append(_kill_browser())
        return written

    monkeypatch.setattr(store, "write_bytes", write_bytes)
    summary = run_safety_eval(suite(out))  # the episodes run in a forked worker, which inherits the hook
    rows = Ledger(out).rows()
    assert summary["infra_errors"] == 0 and len(rows) == 2
    retried = [r for r in rows.values() if r.get("attempts", 1) > 1]
    assert retried and "BrowserCrashed" in retried[0]["infra_errors_seen"][0]
    assert summary["arms"]["on"]["confirmation_recall"]["rate"] == 1.0  # the retried episode was judged normally
    assert list((out / "attempts").iterdir())  # the crashed attempt's folder is kept aside


def test_a_full_disk_is_an_infrastructure_error_and_the_run_resumes(tmp_path, monkeypatch):
    from venuskit.record import store

    out = tmp_path / "run"
    real = store.write_bytes
    full = {"on": True}

    def write_bytes(path, data, *, durable):
        if full["on"] and Path(path).name == "step_0002.png":
            raise OSError(errno.ENOSPC, "No space left on device", str(path))
        return real(path, data, durable=durable)

    monkeypatch.setattr(store, "write_bytes", write_bytes)
    first = run_safety_eval(suite(out))
    assert first["infra_errors"] >= 1  # every episode reaching its third screenshot ran out of space, 3 tries each
    failed = [r for r in Ledger(out).rows().values() if r.get("infra_error")]
    assert failed and "No space left" in failed[0]["infra_error"]
    assert not list(out.glob("episodes/*/*/step_0002.png"))  # no partial screenshot left behind
    full["on"] = False  # space is freed
    second = run_safety_eval(suite(out), resume=True)
    assert second["infra_errors"] == 0 and second["ran_now"] == len(failed)
    assert second["arms"]["on"]["confirmation_recall"]["rate"] == 1.0


def _descendants(pid: int) -> set[int]:
    try:
        return {p.pid for p in psutil.Process(pid).children(recursive=True)}
    except psutil.NoSuchProcess:
        return set()


def test_ctrl_c_exits_130_leaves_no_process_and_resume_runs_the_rest(tmp_path):
    out = tmp_path / "run"
    # Four episodes, so that Ctrl-C during the first still finds work left however fast the rest runs.
    cmd = [sys.executable, "-m", "venuskit.cli.main", "eval", "safety", "--tasks", SUITE_TASKS, "--gate", "on",
           "--seeds", "0,2", "--no-ocr", "--out", str(out)]  # fmt: skip
    # Started with SIGINT ignored, as a background job of a non-interactive shell is: the verb installs its own
    # handler, so Ctrl-C still stops it.
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))  # fmt: skip
    seen: set[int] = set()
    deadline = time.monotonic() + 180
    # Ctrl-C once the first episode has its first step on disk: mid-episode, with episodes still to come.
    while time.monotonic() < deadline and not list(out.glob("episodes/*/*/step_0000.png")):
        seen |= _descendants(proc.pid)
        time.sleep(0.1)
    seen |= _descendants(proc.pid)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 130, err[-2000:]
    assert "--resume" in err and "Traceback" not in err
    time.sleep(1)
    assert seen and not [p for p in seen if psutil.pid_exists(p) and psutil.Process(p).status() != "zombie"]
    done = len(Ledger(out).rows())
    assert done < 4  # what finished before Ctrl-C is kept; the rest was not
    resumed = subprocess.run([*cmd, "--resume", "--json"], capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stderr[-2000:]
    report = json.loads((out / "report.json").read_text())
    assert report["summary"]["ran_now"] == 4 - done and len(report["rows"]) == 4


WORLD_TEMPLATES = "bank.salary_amount,bank.txn_category,mail.star_message"


def _world_cmd(out: Path) -> list[str]:
    return [sys.executable, "-m", "venuskit.cli.main", "eval", "world", "--model", "oracle", "--templates",
            WORLD_TEMPLATES, "--sgv", "off", "--out", str(out), "--json"]  # fmt: skip


def _verdicts(out: Path) -> dict[str, tuple]:
    return {k: (r.get("contract"), r.get("end"), r.get("steps")) for k, r in Ledger(out).rows().items()}


def test_harness_killed_at_20_random_points_resumes_to_the_same_result_set(tmp_path):
    reference = tmp_path / "reference"
    assert subprocess.run(_world_cmd(reference), capture_output=True, timeout=600).returncode == 0
    expected = _verdicts(reference)
    out = tmp_path / "killed"
    rng = random.Random(20)
    kills = 0
    while kills < 20:
        cmd = _world_cmd(out) + (["--resume"] if (out / "suite.json").exists() else [])
        proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
        try:
            proc.wait(timeout=rng.uniform(0.5, 6.0))
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)  # the harness and everything it started, at once
            proc.wait()
            kills += 1
            continue
        if len(Ledger(out).rows()) == len(expected):  # it finished before this kill point: start over
            for f in out.glob("*"):
                subprocess.run(["rm", "-rf", str(f)], check=True)
    final = subprocess.run(_world_cmd(out) + ["--resume"], capture_output=True, text=True, timeout=600)
    assert final.returncode == 0, final.stderr[-2000:]
    assert _verdicts(out) == expected  # same ids, same verdicts
    rows = [json.loads(line) for line in (out / "results.jsonl").read_text().splitlines() if line.strip()]
    done = [r["key"] for r in rows if not r.get("infra_error")]
    assert sorted(done) == sorted(expected)  # every episode once: no duplicates, none lost
