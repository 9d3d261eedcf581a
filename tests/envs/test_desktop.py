"""DesktopEnv on real Xvfb with real apps: resets from a snapshot, screenshots from the X server, crashes of an app
or of the X server (typed errors, a relaunch on the files as saved), bad task dicts, the live view."""

from __future__ import annotations

import io
import os
import time
import urllib.request
from pathlib import Path

import pytest
from PIL import Image

from venuskit.actions.types import Hotkey, Type, Wait
from venuskit.envs.base import EnvError
from venuskit.envs.desktop import AppCrashed, DesktopConfig, DesktopCrashed, DesktopEnv
from venuskit.envs.desktop.viewer import ScreenServer
from venuskit.envs.desktop.xserver import encode_png
from venuskit.infra import proc

pytestmark = [pytest.mark.desktop]


@pytest.fixture(scope="module")
def env():
    e = DesktopEnv()
    yield e
    e.close()


@pytest.fixture
def snap(tmp_path):
    (tmp_path / "Documents").mkdir()
    (tmp_path / "Documents" / "notes.txt").write_text("first line\n")
    (tmp_path / "todo.txt").write_text("milk\n")
    return tmp_path


def editor_task(snap, **extra):
    return {"goal": "edit", "home": str(snap), "windows": [{"app": "mousepad", "args": ["todo.txt"]}], **extra}


def test_reset_restores_the_snapshot_and_opens_the_apps(env, snap):
    obs = env.reset(editor_task(snap))
    assert (obs.width, obs.height) == env.config.screen
    img = Image.open(io.BytesIO(obs.png))
    assert img.size == env.config.screen and img.mode == "RGB"
    assert obs.title == "todo.txt - Mousepad" and obs.info["focus"] == "todo.txt - Mousepad"
    assert (env.home / "Documents" / "notes.txt").read_text() == "first line\n"
    assert (env.home / ".config" / "gtk-3.0" / "settings.ini").is_file()  # the account's skeleton is there too
    win = next(w for w in env.windows() if w.wm_class == "Mousepad")
    assert (win.x, win.y, win.width, win.height) == (0, 0, *env.config.screen)  # one window: maximized
    # the screenshot is what Xvfb shows: the editor's text area is white where nothing is written
    assert img.getpixel((env.config.screen[0] // 2, env.config.screen[1] // 2)) == (255, 255, 255)


def test_reset_isolates_episodes(env, snap):
    env.reset(editor_task(snap))
    env.step(Type(content="scribble\n"))
    env.step(Hotkey(keys=("ctrl", "s")))
    (env.home / "stray.txt").write_text("left over")
    assert (env.home / "todo.txt").read_text() != "milk\n"
    obs = env.reset({"goal": "other", "home": str(snap), "windows": [{"app": "xterm"}]})
    assert (env.home / "todo.txt").read_text() == "milk\n" and not (env.home / "stray.txt").exists()
    assert [w.wm_class for w in env.windows()] == ["XTerm"]  # the last episode's editor is gone
    assert obs.title == "Terminal"


def test_windows_are_placed_and_focused_as_the_task_says(env, snap):
    task = {"goal": "two", "home": str(snap), "focus": 0,
            "windows": [{"app": "xterm", "geometry": "left"}, {"app": "mousepad", "geometry": "right"}]}  # fmt: skip
    env.reset(task)
    wins = {w.wm_class: w for w in env.windows()}
    sw = env.config.screen[0]
    assert wins["XTerm"].x == 0 and wins["XTerm"].x + wins["XTerm"].width <= sw // 2 + 2
    assert abs(wins["Mousepad"].x - sw // 2) <= 2
    assert wins["XTerm"].focused and not wins["Mousepad"].focused


def test_task_config_is_merged_into_the_app_settings(env, snap):
    cfg = {"path": ".config/glib-2.0/settings/keyfile", "section": "org/xfce/mousepad/preferences/view",
           "key": "show-line-numbers", "value": "true"}  # fmt: skip
    env.reset(editor_task(snap, config=[cfg]))
    text = (env.home / cfg["path"]).read_text()
    assert "show-line-numbers=true" in text and "path-in-title=false" in text  # the skeleton's keys stay


def test_step_timings_and_the_x_read_back(env, snap):
    env.reset(editor_task(snap))
    r = env.step(Type(content="x"))
    assert r.error is None and r.info["x"] == {"pointer": list(env.cursor), "buttons": [], "keys": [],
                                               "focus": "*todo.txt - Mousepad"}  # fmt: skip
    assert r.observation.title == "*todo.txt - Mousepad"  # the repaint (title and text) is in the screenshot


def test_an_app_crash_is_reported_and_the_app_restarted(env, snap):
    env.reset(editor_task(snap))
    env.step(Type(content="saved "))
    env.step(Hotkey(keys=("ctrl", "s")))
    env.step(Type(content="unsaved"))
    old = env.kill_app("mousepad")
    r = env.step(Type(content="never typed"))
    assert isinstance(r.error, AppCrashed) and r.info["relaunched"] == ["mousepad"]
    assert "not run" in str(r.error) and r.executed is None
    wins = [w for w in env.windows() if w.wm_class == "Mousepad"]
    assert len(wins) == 1 and wins[0].pid != old and wins[0].focused
    assert (env.home / "todo.txt").read_text() == "saved milk\n"  # the file as saved; the edit after it is lost
    r = env.step(Type(content="!"))
    assert r.error is None and r.observation.title == "*todo.txt - Mousepad"


def test_an_app_the_agent_closes_is_not_a_crash(env, snap):
    env.reset(editor_task(snap))
    r = env.step(Hotkey(keys=("ctrl", "q")))
    assert r.error is None
    r = env.step(Wait(seconds=0.2))
    assert r.error is None and "relaunched" not in r.info and not env.windows()


def test_a_dead_x_server_is_restarted_with_the_saved_files(env, snap):
    env.reset(editor_task(snap))
    env.step(Type(content="kept "))
    env.step(Hotkey(keys=("ctrl", "s")))
    old_pid = env.session.xvfb.pid
    env.kill_x_server()
    r = env.step(Type(content="lost"))
    assert isinstance(r.error, DesktopCrashed) and r.info["relaunched"] is True
    assert env.session.alive() and env.display  # a new server (perhaps on another display number)
    assert (env.home / "todo.txt").read_text() == "kept milk\n"
    assert (env.start_home / "todo.txt").read_text() == "milk\n"  # what checks compare with survives too
    assert [w.title for w in env.windows()] == ["todo.txt - Mousepad"]
    assert env.step(Type(content="a")).error is None
    assert not proc.alive(old_pid) and env.session.xvfb.pid != old_pid


def test_a_hung_x_server_is_killed_by_the_watchdog(snap):
    with DesktopEnv(DesktopConfig(action_timeout_s=1.0)) as env:
        env.reset(editor_task(snap))
        os.kill(env.session.xvfb.pid, 19)  # SIGSTOP: the server stops answering
        t0 = time.perf_counter()
        r = env.step(Type(content="x"))
        assert time.perf_counter() - t0 < 30
        assert r.error is not None and r.error.kind in ("ActionTimeout", "DesktopCrashed")
        assert env.session.alive() and env.step(Type(content="y")).error is None


@pytest.mark.parametrize(("task", "message"), [
    ({"windows": [{"app": "winword"}]}, "Unknown desktop app"),
    ({"windows": [{"app": "xterm", "geometry": "huge"}]}, "geometry"),
    ({"windows": "xterm"}, "must be a list"),
    ({"windows": [{"app": "xterm", "args": "x"}]}, "args"),
    ({"windows": [], "home": "/nonexistent/snapshot"}, "not a folder"),
    ({"windows": [], "config": [{"path": "../../etc/passwd", "section": "a", "key": "b", "value": "c"}]}, "outside"),
])  # fmt: skip
def test_bad_task_dicts_are_clear_errors(env, task, message):
    with pytest.raises(EnvError, match=message):
        env.reset(task)
    assert env.reset({"windows": []}) is not None  # the env is still usable


def test_step_before_reset_is_an_error():
    env = DesktopEnv()
    with pytest.raises(EnvError, match="reset"):
        env.step(Type(content="x"))
    env.close()


def test_the_live_view_serves_the_screen(env, snap):
    env.reset(editor_task(snap))
    viewer = ScreenServer(env.session.framebuffer, env.display).start()
    try:
        page = urllib.request.urlopen(viewer.url, timeout=10).read().decode()
        assert "/screen.png" in page and env.display in page
        png = urllib.request.urlopen(viewer.url + "screen.png", timeout=10).read()
        assert Image.open(io.BytesIO(png)).size == env.config.screen
    finally:
        viewer.stop()


def test_encode_png_is_lossless():
    import numpy as np

    rgb = (np.arange(30 * 40 * 3) % 251).astype("uint8").reshape(30, 40, 3)
    assert (np.asarray(Image.open(io.BytesIO(encode_png(rgb)))) == rgb).all()


def test_memory_of_one_env_is_measured(env, snap):
    env.reset(editor_task(snap))
    pids = env.memory_pids()
    names = {Path(f"/proc/{p}/comm").read_text().strip() for p in pids if os.path.exists(f"/proc/{p}/comm")}
    assert {"Xvfb", "openbox", "mousepad"} <= names
    assert 20 < env.rss_mb() < 600


def test_a_window_manager_that_never_manages_a_window_gets_a_fresh_x_server(monkeypatch):
    from venuskit.envs.desktop.xclient import XClient

    real, clients = XClient.wm_ready, []

    def stuck_on_the_first_desktop(self, timeout_s):
        if self not in clients:
            clients.append(self)
        return False if self is clients[0] else real(self, timeout_s)

    monkeypatch.setattr(XClient, "wm_ready", stuck_on_the_first_desktop)
    e = DesktopEnv(DesktopConfig(launch_timeout_s=10.0))
    try:
        obs = e.reset({"goal": "", "windows": [{"app": "xterm"}]})
        assert obs.width > 0 and len(clients) == 2  # the stuck session was replaced, once
        assert e.facts()["windows"]  # the task's terminal opened on the fresh desktop
    finally:
        e.close()
