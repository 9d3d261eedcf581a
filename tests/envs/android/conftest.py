"""Fixtures for the Android tests: a real adb server (Debian's adb) of their own on a free port, the world server
and the stand-in device on loopback, shared by the session and stopped at its end.

The stand-in runs at 540x1200 (a 432x960 CSS page at 1.25 device pixels per CSS pixel): the same page layout as
the default 1080x2400, a quarter of the pixels to capture."""

from __future__ import annotations

import shutil
from collections.abc import Iterator

import pytest

from venuskit.envs.android import AndroidConfig, AndroidEnv
from venuskit.envs.android.adb import AdbServer, private_server
from venuskit.envs.android.standin import StandinConfig, StandinDevice
from venuskit.world import WorldServer

SIZE = (540, 1200)

if shutil.which("adb") is None:
    raise RuntimeError("The Android tests need Debian's adb: apt-get install adb (scripts/setup.sh installs it).")


@pytest.fixture(scope="session")
def adb_home(tmp_path_factory: pytest.TempPathFactory):
    """Where the tests' adb servers keep their key (never the user's ~/.android)."""
    return tmp_path_factory.mktemp("adb-home")


@pytest.fixture(scope="session")
def adb_server(adb_home) -> Iterator[AdbServer]:
    with private_server(home=adb_home) as server:
        yield server


@pytest.fixture(scope="session")
def world() -> Iterator[WorldServer]:
    with WorldServer(serve_mode=True) as server:
        server.default_episode = server.new_episode(0)
        yield server


@pytest.fixture(scope="session")
def standin(world: WorldServer) -> Iterator[StandinDevice]:
    with StandinDevice(StandinConfig(size=SIZE, world_url=world.base_url, settle_s=0.05)) as device:
        yield device


@pytest.fixture
def android(adb_server: AdbServer, standin: StandinDevice) -> Iterator[AndroidEnv]:
    """An env on the stand-in, through the tests' adb server (which it may not restart: that is one test's job)."""
    config = AndroidConfig(serial=standin.serial, adb_port=adb_server.port, start_server=False,
                           command_timeout_s=10.0, connect_timeout_s=10.0)  # fmt: skip
    with AndroidEnv(config) as env:
        yield env
