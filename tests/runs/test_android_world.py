"""World tasks over adb: every mobile template's oracle reaches the same contract verdict over adb on the stand-in
as on the mobile-web surface; `venus world oracle|run|eval world` on the android surface, as a user runs them.

One world server and one adb server (Debian's adb, on a free port) serve the module; the parity test starts one
stand-in device beside one mobile-web browser and runs the two surfaces side by side. It covers every mobile
template, in SHARDS parts that `make test`'s parallel processes share out (each a minute or two);
benchmarks/android.py's `oracle_parity` is the same run in one piece, timed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from venuskit.envs.android import AndroidConfig, AndroidEnv
from venuskit.envs.android.adb import AdbServer, private_server
from venuskit.record.store import load_episode
from venuskit.runs.android import local_standin, parity_run
from venuskit.runs.world import run_world_task
from venuskit.tasks import bundled
from venuskit.world import WorldServer

pytestmark = [pytest.mark.browser, pytest.mark.slow]

VENUS = [sys.executable, "-m", "venuskit.cli.main"]
MOBILE = sorted(t for t, s in bundled().items() if "mobile" in s.surfaces)
APPS = sorted({t.split(".")[0] for t in MOBILE})
SHARDS = 8


@pytest.fixture(scope="module")
def adb_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("adb-home")


@pytest.fixture(scope="module")
def adb_server(adb_home: Path) -> Iterator[AdbServer]:
    with private_server(home=adb_home) as server:
        yield server


@pytest.fixture(scope="module")
def world() -> Iterator[WorldServer]:
    with WorldServer() as server:
        yield server


@pytest.mark.parametrize("shard", range(SHARDS))
def test_every_mobile_template_has_the_same_verdict_over_adb_as_on_mobile_web(world, adb_server, shard) -> None:
    part = MOBILE[shard::SHARDS]
    assert len(MOBILE) > 100 and len(APPS) >= 10
    result = parity_run(world, adb_server, templates=part)
    assert result["templates"] == len(part)
    differing = [r for r in result["rows"] if not r["equal"]]
    assert result["parity"] == 1.0, json.dumps(differing, ensure_ascii=False)[:3000]
    # Parity of the right verdicts: the oracles solve their tasks on both surfaces.
    assert all(r["android"] in ("completed", "infeasible") for r in result["rows"]), result["rows"]


def test_an_oracle_run_over_adb_records_the_verdict_and_the_stand_in(world, adb_server, tmp_path) -> None:
    with local_standin(world.base_url, (540, 1200), 0.1, adb_server) as local, local.env() as env:
        run = run_world_task("mail.reply_lunch", 1, out=tmp_path, server=world, env=env, surface="android")
    assert run.verdict.verdict == "completed" and run.oracle_error is None
    episode = load_episode(run.episode_dir)
    assert episode.verdicts["contract"]["verdict"] == "completed" and episode.surface == "mobile"
    assert episode.config["device"]["standin"]["not_modelled"], "the manifest names what the stand-in lacks"
    typed = [s.executed for s in episode.steps if s.executed and s.executed.get("op") == "type"]
    assert typed and all(t["via"] in ("input text", "ADBKeyboard") for t in typed)


def test_the_oracle_refuses_a_device_without_a_page(world, tmp_path) -> None:
    with AndroidEnv(AndroidConfig(serial="emulator-5554")) as env, pytest.raises(ValueError, match="no page"):
        run_world_task("mail.star_message", 0, out=tmp_path, server=world, env=env, surface="android")
    assert not list(tmp_path.iterdir())  # refused before anything ran


def test_venus_world_oracle_on_the_android_surface(tmp_path) -> None:
    out = subprocess.run([*VENUS, "world", "oracle", "calendar.accept_invite", "--surface", "android", "--out",
                          str(tmp_path), "--json"], capture_output=True, text=True, timeout=300)  # fmt: skip
    assert out.returncode == 0, out.stderr[-2000:]
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["verdict"] == "completed"
    assert load_episode(Path(result["episode_dir"])).config["device"]["model"] == "venuskit-standin"


def test_venus_run_on_a_device_with_a_world_task(world, adb_server, adb_home, tmp_path) -> None:
    """venus-nano (no --model) on the stand-in through the adb server, from another process, as a phone is run."""
    with local_standin(world.base_url, (540, 1200), 0.1, adb_server) as local:
        env = {**os.environ, "HOME": str(adb_home)}
        out = subprocess.run([*VENUS, "run", "--surface", "android", "--serial", local.device.serial, "--adb-port",
                              str(adb_server.port), "--world", "mail.star_message", "--seed", "5000", "--max-steps",
                              "3", "--out", str(tmp_path), "--json"], capture_output=True, text=True, timeout=300,
                             env=env)  # fmt: skip
        assert out.returncode == 0, out.stderr[-2000:]
        plain = subprocess.run([*VENUS, "run", "--surface", "android", "--serial", local.device.serial, "--adb-port",
                                str(adb_server.port), "--task", "Star the first email.", "--app", "mail",
                                "--max-steps", "1", "--out", str(tmp_path / "plain"), "--json"], capture_output=True,
                               text=True, timeout=300, env=env)  # fmt: skip
        assert any("monkey -p com.venuskit.mail" in c for c in local.device.log)  # --app opened Mail first
        gate = subprocess.run([*VENUS, "run", "--surface", "android", "--serial", local.device.serial, "--adb-port",
                               str(adb_server.port), "--gate", "on", "--world", "mail.star_message", "--out",
                               str(tmp_path / "gated")], capture_output=True, text=True, timeout=120,
                              env=env)  # fmt: skip
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["verdict"] in ("completed", "partial", "failed") and result["steps"] >= 1
    episode = load_episode(Path(result["episode_dir"]))
    assert episode.model["policy"] == "venus-nano" and episode.config["device"]["serial"] == local.device.serial
    # finished, ended otherwise, or hit --max-steps 1; Mail opened on the world the last run pointed the device at,
    # which has stopped with that run: the browser's error page, as on a phone
    assert plain.returncode in (0, 1, 2) and plain.stdout.strip(), plain.stderr[-2000:]
    ran = load_episode(Path(json.loads(plain.stdout.strip().splitlines()[-1])["episode_dir"]))
    assert len(ran.steps) == 1 and ran.config["device"]["standin"] and ran.goal == "Star the first email."
    assert gate.returncode == 2 and "--gate on cannot run on a device" in gate.stderr
    assert not (tmp_path / "gated").exists()  # refused before anything ran


def test_venus_eval_world_on_the_android_surface(tmp_path) -> None:
    """No --serial: the worker starts a stand-in of its own, on which the oracle runs."""
    out = subprocess.run([*VENUS, "eval", "world", "--model", "oracle", "--surface", "android", "--templates",
                          "mail.star_message,bank.payee_iban", "--split", "all", "--seeds", "0", "--sgv", "off",
                          "--out", str(tmp_path / "suite"), "--json"], capture_output=True, text=True,
                         timeout=600)  # fmt: skip
    assert out.returncode == 0, out.stderr[-2000:]
    summary = json.loads(out.stdout.strip().splitlines()[-1])
    assert summary["episodes"] == 2 and summary["success"] == 1.0
