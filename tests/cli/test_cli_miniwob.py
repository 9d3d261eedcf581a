"""`venus miniwob list|run` as a user runs them: real Chromium, the miniwob package's pages, a stand-in model."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from venuskit.actions import Click, Point, format_call
from venuskit.actions.coords import point_from_pixels
from venuskit.envs.miniwob import MiniWobEnv
from venuskit.models.standin_server import StandinServer
from venuskit.record.store import load_episode

VENUS = [sys.executable, "-m", "venuskit.cli.main"]


def venus(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run([*VENUS, *args], capture_output=True, text=True, timeout=180, check=False)


def test_list_shows_the_packaged_tasks():
    out = venus("miniwob", "list", "--json")
    names = json.loads(out.stdout)
    assert out.returncode == 0 and "click-button" in names and len(names) > 100
    det = json.loads(venus("miniwob", "list", "--deterministic", "--json").stdout)
    assert set(det) < set(names)


def test_unknown_task_is_refused_with_a_hint():
    out = venus("miniwob", "run", "click-buton", "--model", "http://127.0.0.1:9/v1", "--model-name", "m")
    assert out.returncode == 2 and "Unknown MiniWoB++ task" in out.stderr


@pytest.mark.browser
def test_run_reaches_reward_one_when_the_model_clicks_the_right_button(tmp_path):
    seed = 7
    with MiniWobEnv("click-button") as env:  # find the target of this seed the way an oracle would
        obs = env.reset({"seed": seed})
        target = obs.info["utterance"].split('"')[1]
        box = env.page.locator(f"#area button:text-is('{target}')").bounding_box()
        x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
        point = Point(*point_from_pixels(x, y, obs.width, obs.height))
    reply = f"<think>Click {target}.</think>\n<action>{format_call(Click(point=point), 'browser')}</action>"
    with StandinServer([reply]) as srv:
        out = venus("miniwob", "run", "click-button", "--seed", str(seed), "--model", srv.base_url,
                    "--model-name", "standin", "--out", str(tmp_path), "--json")  # fmt: skip
        system = srv.chat_requests()[0].json["messages"][0]["content"]
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["reason"] == "env_done" and result["reward"] == 1.0
    assert obs.info["utterance"] in system  # the utterance became the UI-Venus-2 task
    episode = load_episode(result["episode_dir"])
    assert episode.steps[0].action.name == "Click"
    # The record keeps the prompt the model saw, and exports replay it (not the placeholder goal).
    assert episode.config["system_prompt"] == system and "MiniWoB++ click-button" not in system
    chat = venus("export", "chat", str(tmp_path), "--out", str(tmp_path / "rows.jsonl"))
    assert chat.returncode == 0, chat.stderr
    row = json.loads((tmp_path / "rows.jsonl").read_text().splitlines()[0])
    assert row["prompt"][0]["content"][0]["text"] == system
    # MiniWoB++ ended the episode after the click: the screen it ended on is recorded too.
    assert episode.final is not None and episode.final.after_step == 0
    assert (tmp_path / episode.episode_id / "final.png").read_bytes().startswith(b"\x89PNG")
