"""Files that travel between the desktop's apps and the world's web apps, in the desktop's own Chromium (headed on
the same X display, loopback only), judged by contracts that compare the bytes that arrived with the bytes that
left:

- every `web.*` template's oracle reaches `completed`, en and zh, in both directions (editor, terminal, image
  viewer, spreadsheet -> Mail and Drive through Chromium's file chooser; Mail attachments and Drive files ->
  ~/Downloads -> terminal, editor, spreadsheet, and back again);
- a run that does nothing scores `failed`;
- the browser on the desktop reaches the world on 127.0.0.1 and nothing else (not even 127.0.0.2).
"""

from __future__ import annotations

import http.server
import threading

import pytest

from venuskit.agent.policy import ScriptedPolicy
from venuskit.runs.desktop import run_desktop_task
from venuskit.tasks.desktop import bundled

pytestmark = [pytest.mark.desktop, pytest.mark.browser, pytest.mark.slow]

WEB = {t: s for t, s in bundled().items() if s.world is not None}
IDLE = "<think>Looks done.</think><action>Finished(content='Done.')</action>"


@pytest.fixture(scope="module")
def env():
    from venuskit.envs.desktop import DesktopEnv

    e = DesktopEnv()
    yield e
    e.close()


@pytest.fixture(scope="module")
def world():
    from venuskit.world import WorldServer

    with WorldServer() as server:
        yield server


def test_the_templates_cross_both_ways_in_both_languages():
    ups = [t for t, s in WEB.items() if "upload" in s.tags]
    downs = [t for t, s in WEB.items() if "download" in s.tags]
    assert len(WEB) >= 8 and len(ups) >= 4 and len(downs) >= 4
    for t, s in WEB.items():
        assert s.locales == ("en", "zh") and "chromium" in s.apps and len(s.apps) == 2, t
        assert {k.check for k in s.keypoints} & {"web.sent_file", "web.drive_file_from", "file.from_web"}, t


@pytest.mark.parametrize(("task_id", "seed"), [(t, seed) for t in sorted(WEB) for seed in (0, 1)])
def test_the_oracle_carries_the_file_across(env, world, tmp_path, task_id, seed):
    # A run that falls short is run once more before it fails: these oracles click the browser's controls by
    # position, and on a loaded machine (the parallel test processes) a click on a page still being laid out can be
    # dropped. A template whose oracle or contract is wrong falls short every time.
    tries = []
    for attempt in range(2):
        run = run_desktop_task(task_id, seed, out=tmp_path / str(attempt), env=env, server=world)
        failing = [k["desc"] for k in run.verdict.to_dict()["keypoints"] if not k["ok"]]
        tries.append((run.verdict.verdict, run.verdict.reason, failing, run.oracle_error, str(run.episode_dir)))
        if run.verdict.verdict == "completed" and run.oracle_error is None:
            return
    pytest.fail(f"{task_id} seed {seed} did not complete twice: {tries}")


@pytest.mark.parametrize("task_id", ["web.mail_note", "web.drive_download_move"])
def test_doing_nothing_fails(env, world, tmp_path, task_id):
    run = run_desktop_task(task_id, 0, out=tmp_path, env=env, server=world, policy=ScriptedPolicy([IDLE], "computer"))
    assert run.verdict.verdict == "failed", run.verdict.reason


def test_the_desktop_browser_reaches_loopback_only(env, world, tmp_path):
    """A page on 127.0.0.2 (loopback, but not the guard's 127.0.0.1) is never asked for: the black-hole proxy
    takes it; the world on 127.0.0.1 loads."""
    hits: list[str] = []

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self) -> None:  # noqa: N802 - the stdlib's name
            hits.append(self.path)
            self.send_response(200)
            self.end_headers()
            self.wfile.write(b"<title>reached</title>")

        def log_message(self, *args: object) -> None:
            pass

    other = http.server.ThreadingHTTPServer(("127.0.0.2", 0), Handler)
    threading.Thread(target=other.serve_forever, daemon=True).start()
    try:
        replies = ["<think>Go there.</think><action>Hotkey(keys=['ctrl', 'l'])</action>",
                   f"<think>Type it.</think><action>Type(content='http://127.0.0.2:{other.server_port}/x\\n')</action>",
                   "<think>Wait.</think><action>Wait(seconds=2)</action>",
                   "<think>Done.</think><action>Finished(content='Done.')</action>"]  # fmt: skip
        run = run_desktop_task("web.drive_download_move", 0, out=tmp_path, env=env, server=world,
                               policy=ScriptedPolicy(replies, "computer"))  # fmt: skip
        titles = [w["title"] for w in env.facts()["windows"]]
    finally:
        other.shutdown()
    assert run.verdict.verdict == "failed"
    assert any("127.0.0.2" in t for t in titles), titles  # the browser went there: its error page is titled so
    assert hits == [] and not any("reached" in t for t in titles), (hits, titles)
