"""Bad input and a hostile or broken disk at the `venus` command: one line on stderr, exit 2 (1 for a run that
failed midway), never a traceback, and nothing recorded is lost."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from venuskit.models.standin_server import StandinServer
from venuskit.record.episode import Outcome
from venuskit.record.store import load_episode

sys.path.insert(0, str(Path(__file__).parents[1] / "agent"))
sys.path.insert(0, str(Path(__file__).parents[1] / "record"))
from agent_helpers import ADD, FINISH, NAME, PAGES  # noqa: E402
from record_helpers import record_episode  # noqa: E402

VENUS = [sys.executable, "-m", "venuskit.cli.main"]
MODEL = ["--model", "http://127.0.0.1:9/v1", "--model-name", "m"]


def venus(*args: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """The command as a user runs it, in its own process (for runs that start a browser)."""
    return subprocess.run([*VENUS, *args], capture_output=True, text=True, timeout=timeout, check=False)


def cli(*args: str) -> subprocess.CompletedProcess:
    """The same command in this process (Typer's runner): the checks that start no browser, without paying for
    a Python start and venuskit's imports each time. An exception that escapes is re-raised: a traceback."""
    from typer.testing import CliRunner

    from venuskit.cli.main import app

    result = CliRunner().invoke(app, list(args))
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise result.exception
    return subprocess.CompletedProcess(list(args), result.exit_code, result.stdout, result.stderr)


def one_line_error(out: subprocess.CompletedProcess, code: int = 2) -> str:
    assert out.returncode == code, (out.returncode, out.stderr)
    assert "Traceback" not in out.stderr and out.stderr.startswith("error: "), out.stderr
    assert len(out.stderr.strip().splitlines()) == 1, out.stderr
    return out.stderr


def _steps(n: int) -> list:
    from venuskit.actions.types import Click, Point

    return [(f"<think>t</think><action>Click(point=({i}00, 100))</action>", Click(point=Point(i / 10, 0.1)), None)
            for i in range(1, n + 1)]  # fmt: skip


@pytest.fixture
def runs(tmp_path: Path) -> Path:
    """Three episodes: a finished one, an interrupted one, and one whose manifest is not JSON."""
    root = tmp_path / "runs"
    record_episode(root, _steps(2), episode_id="done", finish=Outcome(terminated=True, reason="finished"))
    record_episode(root, _steps(1), episode_id="open")
    broken = record_episode(root, _steps(1), episode_id="broken")
    (broken / "manifest.json").write_text("{not json")
    return root


@pytest.mark.parametrize("folder, says", [("missing", "no such folder"), ("empty", "no manifest.json"),
                                          ("broken", "not valid JSON"), ("done", "finished")])  # fmt: skip
def test_resume_of_a_folder_that_cannot_be_resumed(runs: Path, folder: str, says: str) -> None:
    (runs / "empty").mkdir()
    assert says in one_line_error(cli("run", "--resume", str(runs / folder), *MODEL))


def test_bad_flags_are_one_line(tmp_path: Path) -> None:
    start = ["--task", "x", "--start-url", "http://127.0.0.1:9/", *MODEL]
    assert "--temperature must be a finite number" in one_line_error(cli("run", *start, "--temperature", "nan"))
    assert "not an allowed-host entry" in one_line_error(cli("run", *start, "--allow-host", "x;*"))
    assert "nope.task" in one_line_error(cli("run", "--world", "nope.task", *MODEL))


def test_view_of_a_broken_episode_or_to_an_unwritable_place(runs: Path, tmp_path: Path) -> None:
    assert "not valid JSON" in one_line_error(cli("view", str(runs / "broken")))
    (tmp_path / "locked").mkdir(mode=0o500)
    out = cli("view", str(runs / "done"), "--out", str(tmp_path / "locked" / "sub" / "page.html"))
    assert "Cannot write" in one_line_error(out)
    assert "is a folder" in one_line_error(cli("view", str(runs / "done"), "--out", str(tmp_path)))
    ok = cli("view", str(runs / "done"), "--out", str(tmp_path / "page.html"))
    assert ok.returncode == 0 and (tmp_path / "page.html").read_text().count("data:image/png;base64,") == 2


def test_export_skips_a_corrupt_episode_and_exports_the_rest(runs: Path, tmp_path: Path) -> None:
    out = cli("export", "parquet", str(runs), "--out", str(tmp_path / "rows.parquet"))
    assert out.returncode == 0 and "Traceback" not in out.stderr
    result = json.loads(out.stdout)
    assert result["rows"] == 3 and result["episodes"] == 2 and len(result["skipped"]) == 1
    assert "broken" in result["skipped"][0] and "skipped" in out.stderr
    assert "is a folder" in one_line_error(cli("export", "chat", str(runs), "--out", str(tmp_path)))


@pytest.mark.browser
def test_a_refused_start_url_or_an_out_that_is_a_file(tmp_path: Path) -> None:
    out = venus("run", "--task", "x", "--start-url", "http://example.invalid/", *MODEL, "--out", str(tmp_path / "r"),
                "--non-interactive")  # fmt: skip
    assert "outside the allowed hosts" in one_line_error(out)
    assert not (tmp_path / "r").exists()  # no episode folder for an episode that never started
    (tmp_path / "file").write_text("x")
    out = venus("run", "--task", "x", "--start-url", "about:blank", *MODEL, "--out", str(tmp_path / "file"),
                "--non-interactive")  # fmt: skip
    assert "is a file" in one_line_error(out)


@pytest.fixture
def tiny_disk(tmp_path: Path) -> Iterator[Path]:
    """A 160 KiB tmpfs: room for the manifest and a few screenshots of the counter page, then ENOSPC."""
    mount = tmp_path / "tiny"
    mount.mkdir()
    done = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=160k", "tmpfs", str(mount)], capture_output=True,
                          text=True, check=False)  # fmt: skip
    assert done.returncode == 0, f"this test mounts a small tmpfs, which needs root: {done.stderr}"
    try:
        yield mount
    finally:
        subprocess.run(["umount", "-l", str(mount)], check=False)


@pytest.mark.browser
@pytest.mark.slow
def test_a_full_disk_is_one_line_and_the_steps_before_it_resume(serve_dir, tiny_disk: Path, tmp_path: Path) -> None:
    site = serve_dir(PAGES)
    with StandinServer([ADD, NAME] * 20) as srv:
        out = venus("run", "--task", "Add one.", "--start-url", f"{site}/counter.html", "--model", srv.base_url,
                    "--model-name", "standin", "--out", str(tiny_disk), "--non-interactive", "--max-steps", "40")  # fmt: skip
    message = one_line_error(out)
    assert "No space left on device" in message and "resume with --resume" in message
    (folder,) = list(tiny_disk.iterdir())
    saved = load_episode(folder)
    assert saved.steps and [s.index for s in saved.steps] == list(range(len(saved.steps)))
    # Move the episode where there is room and resume it: it goes on from the last saved step.
    roomy = tmp_path / "roomy"
    subprocess.run(["cp", "-a", str(folder), str(roomy)], check=True)
    with StandinServer([FINISH]) as srv:
        again = venus("run", "--resume", str(roomy), "--model", srv.base_url, "--model-name", "standin",
                      "--non-interactive", "--json")  # fmt: skip
    assert again.returncode == 0, again.stderr
    resumed = load_episode(roomy)
    assert resumed.finished and resumed.steps[-1].action.name == "Finished" and not resumed.problems
    assert len(resumed.steps) == len(saved.steps) + 1
    assert os.path.exists(roomy / f"step_{len(saved.steps):04d}.png")


def test_batch_verbs_hear_ctrl_c_even_when_started_with_sigint_ignored(tmp_path):
    """`venus eval world|miniwob|safety` and `venus tasks synth` run inside `ctrl_c_interrupts`: in a process that
    inherited SIGINT ignored, the first Ctrl-C asks to stop at the next job boundary, the second stops at once,
    and SIGTERM stops at once."""
    import signal
    import time

    code = ("import time\nfrom venuskit.cli.common import ctrl_c_interrupts, stop_point\ntry:\n"
            "    with ctrl_c_interrupts() as stop:\n        print('ready', flush=True)\n"
            "        while not stop.is_set():\n            time.sleep(0.01)\n        print('asked', flush=True)\n"
            "        stop_point(stop)\nexcept KeyboardInterrupt:\n    print('interrupted', flush=True)\n")  # fmt: skip
    hang = ("import time\nfrom venuskit.cli.common import ctrl_c_interrupts\ntry:\n    with ctrl_c_interrupts():\n"
            "        print('ready', flush=True)\n        time.sleep(60)\nexcept KeyboardInterrupt:\n"
            "    print('interrupted', flush=True)\n")  # fmt: skip

    def start(src: str) -> subprocess.Popen:
        proc = subprocess.Popen([sys.executable, "-c", src], stdout=subprocess.PIPE, text=True,
                                preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))  # fmt: skip
        assert proc.stdout.readline().strip() == "ready"
        return proc

    proc = start(code)  # one Ctrl-C: the job under way finishes, then the verb stops
    proc.send_signal(signal.SIGINT)
    out, _ = proc.communicate(timeout=30)
    assert out.split() == ["asked", "interrupted"]
    for signals in ((signal.SIGINT, signal.SIGINT), (signal.SIGTERM,)):  # twice, or SIGTERM: at once
        proc = start(hang)
        t0 = time.monotonic()
        for sig in signals:
            proc.send_signal(sig)
            time.sleep(0.3)
        out, _ = proc.communicate(timeout=30)
        assert out.split() == ["interrupted"] and time.monotonic() - t0 < 10


def test_nano_train_stops_cleanly_on_sigterm_in_a_background_job(tmp_path):
    """`venus nano train` runs for hours: a scheduler's SIGTERM (or Ctrl-C in a process started with SIGINT ignored,
    as a shell's background job is) stops it with one line and exit 130, keeping what it collected for a rerun."""
    import signal
    import time

    out = tmp_path / "run"
    proc = subprocess.Popen([*VENUS, "nano", "train", "--seed", "0", "--out", str(out), "--stages", "sft"],
                            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))  # fmt: skip
    deadline = time.monotonic() + 120
    while not (out / "world").exists() and time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.2)  # collection has begun
    assert proc.poll() is None and (out / "world").exists()
    time.sleep(2)
    proc.send_signal(signal.SIGTERM)
    text, _ = proc.communicate(timeout=60)
    assert proc.returncode == 130, text
    assert "interrupted" in text and "the same command resumes" in text and "Traceback" not in text


# ---- the probe's last tracebacks -------------------------------------------------------------------


def _deep_line(depth: int = 100_000) -> str:
    return "[" * depth + "]" * depth + "\n"


def test_a_deeply_nested_step_line_is_a_problem_not_a_traceback(runs: Path, tmp_path: Path) -> None:
    with (runs / "open" / "steps.jsonl").open("a") as fh:
        fh.write(_deep_line())
    episode = load_episode(runs / "open")
    assert len(episode.steps) == 1 and any("nests deeper" in p for p in episode.problems)
    assert cli("view", str(runs / "open"), "--out", str(tmp_path / "page.html")).returncode == 0
    (runs / "open" / "manifest.json").write_text(_deep_line())
    assert "nests deeper" in one_line_error(cli("view", str(runs / "open")))
    assert "nests deeper" in one_line_error(cli("run", "--resume", str(runs / "open"), *MODEL))


@pytest.mark.parametrize("fmt", ["androidcontrol", "guiodyssey"])
def test_an_offline_export_skips_a_corrupt_episode_and_exports_the_rest(runs: Path, tmp_path: Path, fmt: str) -> None:
    out = cli("export", fmt, str(runs), "--out", str(tmp_path / "out"))
    assert out.returncode == 0 and "Traceback" not in out.stderr, out.stderr
    result = json.loads(out.stdout)  # skipped episodes are counted by reason ("open" has no AndroidControl form)
    assert result["episodes"] == (1 if fmt == "androidcontrol" else 2)
    assert [n for r, n in result["skipped"].items() if "broken" in r] == [1] and "broken" in out.stderr
    if fmt == "guiodyssey":  # one folder per exported episode, none half-written for the broken one
        names = "\n".join(p.name for p in (tmp_path / "out").rglob("*"))
        assert "broken" not in names


@pytest.mark.parametrize("fmt", ["chat", "androidcontrol"])
def test_export_finds_episode_folders_at_any_depth(tmp_path: Path, fmt: str) -> None:
    """`venus world oracle` writes runs/world/ep-…; `venus export … runs` finds it there."""
    record_episode(tmp_path / "runs" / "world", _steps(2), episode_id="ep-1",
                   finish=Outcome(terminated=True, reason="finished"))  # fmt: skip
    out = cli("export", fmt, str(tmp_path / "runs"), "--out", str(tmp_path / ("out.jsonl" if fmt == "chat" else "o")))
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout)["episodes"] == 1


@pytest.mark.parametrize("verb", [["serve", "nano"], ["serve", "judge"], ["world", "serve"], ["desktop", "serve"],
                                  ["captcha", "serve"]])  # fmt: skip
@pytest.mark.parametrize("port", ["70000", "-1", "99999"])
def test_a_port_out_of_range_is_a_usage_error(verb: list[str], port: str) -> None:
    assert "--port must be in 0..65535" in one_line_error(cli(*verb, "--port", port))


@pytest.mark.parametrize("value", ["nan", "-1", "inf"])
def test_a_temperature_that_is_no_temperature_is_refused_for_every_policy(value: str) -> None:
    for args in (["run", "--world", "mail.reply_meeting"], ["run", "--task", "x", "--start-url", "about:blank", *MODEL],
                 ["miniwob", "run", "click-test", *MODEL]):  # fmt: skip
        assert "--temperature must be a finite number >= 0" in one_line_error(cli(*args, "--temperature", value))


def test_the_desktop_gate_refuses_the_browser_only_safety_flags(tmp_path: Path) -> None:
    (tmp_path / "s.toml").write_text('[pw]\nvalue = "x"\norigins = ["http://127.0.0.1:1"]\n')
    out = cli("run", "--surface", "computer", "--desktop-task", "files.trash", "--secrets", str(tmp_path / "s.toml"))
    assert "--secrets is for the browser surfaces" in one_line_error(out)


def test_nano_curves_of_a_folder_that_is_no_recipe_run(tmp_path: Path) -> None:
    """`venus nano curves` reads a finished run; a folder that is none, a torn summary or a bad flag is one line."""
    assert "not a `venus nano train` run folder" in one_line_error(cli("nano", "curves", "--run", str(tmp_path)))
    (tmp_path / "summary.json").write_text("{torn")
    assert "not a `venus nano train` summary" in one_line_error(cli("nano", "curves", "--run", str(tmp_path)))
    assert "points must be at least 2" in one_line_error(cli("nano", "curves", "--run", str(tmp_path),
                                                             "--points", "1"))  # fmt: skip
