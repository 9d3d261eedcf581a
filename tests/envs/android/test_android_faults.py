"""Every fault of a device and of adb, through a real adb server on the stand-in: each is a typed env error with
a message that says what to do, the episode is kept and resumable, and the adb server is restarted (and a
HOST:PORT device reconnected) where that fixes it.

The faults are the stand-in's own misbehaviour (`StandinDevice.set_handshake`, `hang`, `garbage_screencaps`,
`unplug`), on a stand-in of this module's so a fault never leaks into another test's device."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from venuskit.actions.types import Click, Point, Wait
from venuskit.agent.policy import ScriptedPolicy
from venuskit.agent.runner import RunConfig
from venuskit.agent.session import AgentJob, run_episode
from venuskit.envs.android import (
    AdbNotInstalled,
    AdbServerDown,
    AndroidConfig,
    AndroidEnv,
    DeviceDisconnected,
    DeviceNotFound,
    DeviceOffline,
    DeviceTimeout,
    DeviceUnauthorized,
    ScreencapInvalid,
)
from venuskit.envs.android.adb import AdbServer, free_port, private_server
from venuskit.envs.android.standin import StandinConfig, StandinDevice
from venuskit.record.store import load_episode

pytestmark = [pytest.mark.browser]

CLICK = "<think>Tap it.</think><action>Click(point=(500, 300))</action>"
DONE = "<think>Done.</think><action>Finished(content='done')</action>"


@pytest.fixture(scope="module")
def faulty(world) -> Iterator[StandinDevice]:
    with StandinDevice(StandinConfig(size=(540, 1200), world_url=world.base_url, settle_s=0.0)) as device:
        yield device


@pytest.fixture
def device(faulty: StandinDevice, adb_server) -> Iterator[StandinDevice]:
    """The module's stand-in, well again and freshly connected for each test."""
    yield faulty
    faulty.set_handshake("device")
    faulty.unhang()
    faulty.garbage_screencaps(0)
    faulty.plug()
    adb_server.disconnect(faulty.serial)


def env_for(server, device: StandinDevice, **kw) -> AndroidEnv:
    # 5 s per command: a hang is still told apart quickly, and a loaded machine's screencap (~0.3-2 s) fits
    opts = {"serial": device.serial, "adb_port": server.port, "start_server": False, "command_timeout_s": 5.0,
            "connect_timeout_s": 2.0, **kw}  # fmt: skip
    return AndroidEnv(AndroidConfig(**opts))


def job(tmp_path: Path) -> AgentJob:
    return AgentJob(goal="Tap the mail.", surface="mobile", out=tmp_path, run=RunConfig(max_steps=6))


def test_an_offline_device_is_a_typed_error(adb_server, device) -> None:
    device.set_handshake("offline")  # it accepts the connection, its adbd never answers
    with env_for(adb_server, device) as env, pytest.raises(DeviceOffline, match="offline"):
        env.reset({})


def test_an_unauthorized_device_says_to_accept_the_prompt(adb_server, device) -> None:
    device.set_handshake("unauthorized")  # an AUTH exchange that accepts no key
    with env_for(adb_server, device) as env, pytest.raises(DeviceUnauthorized, match="Allow USB debugging"):
        env.reset({})
    assert any(d.serial == device.serial and d.state == "unauthorized" for d in adb_server.devices())


def test_no_such_device_no_server_no_adb(adb_server, device) -> None:
    nowhere = f"127.0.0.1:{free_port()}"
    with env_for(adb_server, device, serial=nowhere) as env, pytest.raises(DeviceNotFound, match="adb connect"):
        env.reset({})
    with env_for(adb_server, device, adb_port=free_port()) as env, pytest.raises(AdbServerDown, match="start-server"):
        env.reset({})
    config = {"adb_port": free_port(), "start_server": True, "adb_path": "/nonexistent/adb"}
    with env_for(adb_server, device, **config) as env, pytest.raises(AdbNotInstalled, match="apt-get install adb"):
        env.reset({})


def test_a_home_adb_cannot_write_its_key_in_is_named(tmp_path) -> None:
    server = AdbServer(port=free_port(), home=tmp_path / "missing")  # adb keeps its key in ~/.android
    try:
        with pytest.raises(AdbServerDown, match="writable home"):
            server.start()
    finally:
        if server.alive():  # should adb ever start without it, stop what this test started
            server.kill()


def test_a_device_back_within_the_timeout_is_reconnected(adb_server, device) -> None:
    with env_for(adb_server, device, connect_timeout_s=8.0) as env:
        env.reset({"app": "mail"})
        device.unplug()  # the cable is pulled ...
        threading.Timer(1.0, device.plug).start()  # ... and plugged back a second later
        result = env.step(Click(point=Point(0.5, 0.3)))
        assert isinstance(result.error, (DeviceOffline, DeviceNotFound, DeviceDisconnected))
        assert result.info["recovered"] == f"reconnected {device.serial}"
        assert result.observation.png.startswith(b"\x89PNG")
        assert env.step(Click(point=Point(0.5, 0.3))).error is None  # and it goes on


def test_a_device_gone_mid_episode_keeps_the_episode_resumable(adb_server, device, tmp_path) -> None:
    unplug = lambda step: device.unplug() if step.index == 0 else None  # noqa: E731
    with env_for(adb_server, device) as env:
        policy = ScriptedPolicy([CLICK, CLICK, DONE], "mobile")
        episode, folder = run_episode(env, policy, job(tmp_path), {"app": "mail"}, on_step=unplug)
    assert episode.outcome.reason == "error" and not episode.finished
    assert episode.outcome.error["type"] == "DeviceDisconnected" and "resume" in episode.outcome.error["message"]
    steps = load_episode(folder).steps
    assert len(steps) == 2 and steps[1].error["type"] == "DeviceDisconnected"
    device.plug()
    with env_for(adb_server, device) as env:
        episode, _ = run_episode(env, ScriptedPolicy([CLICK, DONE], "mobile"), job(tmp_path), {}, resume_dir=folder)
    assert episode.finished and episode.outcome.reason == "finished"
    assert len(load_episode(folder).steps) == 4


@pytest.mark.slow
def test_a_killed_adb_server_is_restarted(adb_home, device, monkeypatch) -> None:
    monkeypatch.setenv("HOME", str(adb_home))  # the restarted server's key stays out of the user's ~/.android
    with private_server(home=adb_home) as server, env_for(server, device, start_server=True) as env:
        env.reset({"app": "mail"})
        server.kill()
        result = env.step(Click(point=Point(0.5, 0.3)))
        assert isinstance(result.error, AdbServerDown)
        assert result.info["recovered"] == f"restarted the adb server at {server.address}"
        assert server.alive() and result.observation.png.startswith(b"\x89PNG")
        assert env.step(Wait(seconds=0.1)).error is None


def test_garbage_screencaps_are_taken_again_then_typed(adb_server, device) -> None:
    with env_for(adb_server, device) as env:
        env.reset({"app": "mail"})
        device.garbage_screencaps(1)  # one torn screencap: taken again, nobody notices
        assert env.step(Wait(seconds=0.1)).error is None
        device.garbage_screencaps(2)
        with pytest.raises(ScreencapInvalid, match="not a whole PNG"):
            env.step(Wait(seconds=0.1))
        assert env.observe().png.startswith(b"\x89PNG")  # the next one is fine again


def test_a_hung_command_is_a_timeout_and_the_run_goes_on(adb_server, device) -> None:
    with env_for(adb_server, device) as env:
        env.reset({"app": "mail"})
        device.hang("input")
        result = env.step(Click(point=Point(0.5, 0.3)))
        assert isinstance(result.error, DeviceTimeout) and "did not finish" in str(result.error)
        assert result.observation.png.startswith(b"\x89PNG")  # screencap still answers
        device.unhang()
        # The hung tap now runs on the device and keeps its page busy for a moment (seconds on a loaded machine):
        # the run goes on once the device answers again.
        # On a loaded machine one answer does not mean the page has settled: the next step's own screenshot can
        # still time out, so the run is retried step by step until one goes through whole.
        deadline = time.monotonic() + 60
        while True:
            try:
                env.observe()
                result = env.step(Click(point=Point(0.5, 0.3)))
                break
            except DeviceTimeout:
                assert time.monotonic() < deadline, "the device never answered again after the hang"
        assert result.error is None


def test_a_hung_screencap_ends_the_episode_resumably(adb_server, device, tmp_path) -> None:
    hang = lambda step: device.hang("screencap") if step.index == 0 else None  # noqa: E731
    with env_for(adb_server, device) as env:
        policy = ScriptedPolicy([CLICK, CLICK, DONE], "mobile")
        episode, folder = run_episode(env, policy, job(tmp_path), {"app": "mail"}, on_step=hang)
    assert episode.outcome.reason == "error" and not episode.finished
    assert load_episode(folder).steps[-1].error["type"] == "DeviceTimeout"
    device.unhang()
    with env_for(adb_server, device) as env:
        episode, _ = run_episode(env, ScriptedPolicy([DONE], "mobile"), job(tmp_path), {}, resume_dir=folder)
    assert episode.finished and episode.outcome.reason == "finished"
