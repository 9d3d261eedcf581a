"""Every world template's oracle under non-default skins reaches the verdict it reaches under the default skin.

A skin changes the palette, fonts, density, icons, control order and placement and the wording of controls; oracles
find elements by stable selectors and contracts read state, so the verdict must not move. The default skin's
verdict of every template is `completed` (feasible) or `infeasible` (answered with CallUser): test_oracles.py
asserts it. Under skins:

- `test_a_sample_under_skins` (CI): a fixed sample, one template of each app and each multi-app category on the
  desktop browser and three on the mobile-web preset, each under one of SKINS;
- `test_every_template_under_a_skin` (slow): every template, on the browser and (where it runs there) on mobile,
  each under one of SKINS in turn, so that every skin meets about a third of the templates on each surface. The
  whole sweep, every template under every skin (900 runs, most of an hour of CPU), is a suite run:
  `venus eval world --model oracle --split all --skins 10,19,21 --surface browser,mobile --sgv off`.

One world server and one browser per surface serve every episode. A mismatch is run once more before it fails: on
a loaded machine Chromium now and then drops a click on a page that has only just been laid out (the default skin
sees the same), and a skin that breaks an oracle breaks it every time.
"""

from __future__ import annotations

import hashlib
import json

import pytest
from typer.testing import CliRunner

from venuskit.cli.main import app
from venuskit.envs.browser import BrowserConfig, BrowserEnv
from venuskit.record.store import load_episode
from venuskit.runs.world import run_world_task
from venuskit.tasks import bundled
from venuskit.world import WorldServer

pytestmark = [pytest.mark.browser]

SKINS = (10, 19, 21)  # together: both other icon sets, every label mode, both placements, reordering, both densities
TASKS = bundled()
DEFAULT_VERDICT = {t: "completed" if s.feasible else "infeasible" for t, s in TASKS.items()}


def _sample() -> list[tuple[str, str, int]]:
    """The first template (by sha256 of its id) of each app among short and medium ones and of each other
    category, on the browser; the first three mobile-capable ones on mobile. Skins rotate through SKINS."""

    def key(t: str) -> str:
        return hashlib.sha256(t.encode()).hexdigest()

    firsts: dict[str, str] = {}
    for t in sorted(TASKS, key=key):
        s = TASKS[t]
        group = s.apps[0] if s.category in ("short", "medium") else s.category
        firsts.setdefault(group, t)
    browser = sorted(firsts.values())
    mobile = sorted((t for t in TASKS if "mobile" in TASKS[t].surfaces), key=key)[:3]
    runs = [(t, "browser") for t in browser] + [(t, "mobile") for t in mobile]
    return [(t, surface, SKINS[i % len(SKINS)]) for i, (t, surface) in enumerate(runs)]


SAMPLE = _sample()
EACH = [(t, surface) for surface in ("browser", "mobile") for t in sorted(TASKS) if surface in TASKS[t].surfaces]
EVERY = [(t, surface, SKINS[i % len(SKINS)]) for i, (t, surface) in enumerate(EACH)]


@pytest.fixture(scope="module")
def world():
    with WorldServer() as w:
        yield w


@pytest.fixture(scope="module")
def envs():
    made: dict[str, BrowserEnv] = {}

    def get(surface: str) -> BrowserEnv:
        if surface not in made:
            preset = "mobile" if surface == "mobile" else "desktop"
            made[surface] = BrowserEnv(BrowserConfig(preset=preset, settle_s=0.1, reuse_context=True))
        return made[surface]

    yield get
    for env in made.values():
        env.close()


def _check(world, envs, tmp_path, task_id: str, surface: str, skin: int) -> None:
    runs = []
    for _ in range(2):
        run = run_world_task(task_id, 0, out=tmp_path, server=world, env=envs(surface), surface=surface, skin=skin)
        runs.append(f"{run.verdict.verdict} ({run.oracle_error or run.verdict.reason})")
        if run.verdict.verdict == DEFAULT_VERDICT[task_id] and run.oracle_error is None:
            assert load_episode(run.episode_dir).task["skin"] == skin
            return
    pytest.fail(f"{task_id} on {surface} under skin {skin}: {runs}, while the default skin gives "
                f"{DEFAULT_VERDICT[task_id]}")  # fmt: skip


def test_the_sample_covers_every_app_every_skin_and_both_surfaces():
    apps = {a for t, _, _ in SAMPLE for a in TASKS[t].apps}
    assert apps >= {"mail", "calendar", "drive", "expense", "bank", "shop", "forum", "settings"}
    assert {k for _, _, k in SAMPLE} == set(SKINS) and {s for _, s, _ in SAMPLE} == {"browser", "mobile"}
    assert {TASKS[t].category for t, _, _ in SAMPLE} >= {"short", "medium", "long", "interrupt", "infeasible"}


@pytest.mark.parametrize(("task_id", "surface", "skin"), SAMPLE)
def test_a_sample_under_skins(world, envs, tmp_path, task_id, surface, skin):
    _check(world, envs, tmp_path, task_id, surface, skin)


@pytest.mark.slow
@pytest.mark.parametrize(("task_id", "surface", "skin"), EVERY)
def test_every_template_under_a_skin(world, envs, tmp_path, task_id, surface, skin):
    _check(world, envs, tmp_path, task_id, surface, skin)


def test_venus_world_oracle_takes_a_skin_and_records_it(tmp_path):
    result = CliRunner().invoke(app, ["world", "oracle", "mail.star_message", "--skin", "903", "--json",
                                      "--out", str(tmp_path)])  # fmt: skip
    assert result.exit_code == 0, result.output
    run = json.loads(result.output.strip().splitlines()[-1])
    assert run["verdict"] == "completed"
    assert load_episode(run["episode_dir"]).task["skin"] == 903
    bad = CliRunner().invoke(app, ["world", "oracle", "mail.star_message", "--skin", "-2", "--out", str(tmp_path)])
    assert bad.exit_code != 0 and "whole number" in bad.output


def test_venus_run_world_takes_a_skin_the_model_never_hears_of(tmp_path):
    from venuskit.models.standin_server import StandinServer

    give_up = "<think>I will stop here.</think>\n<action>Finished(content='done')</action>"
    with StandinServer([give_up]) as srv:
        result = CliRunner().invoke(app, ["run", "--world", "calendar.delete_event", "--skin", "917", "--model",
                                          srv.base_url, "--model-name", "standin", "--out", str(tmp_path), "--json"])  # fmt: skip
        sent = " ".join(_texts(r.json["messages"]) for r in srv.chat_requests())
    assert result.exit_code == 0, result.output
    run = json.loads(result.output.strip().splitlines()[-1])
    assert run["verdict"] == "failed" and load_episode(run["episode_dir"]).task["skin"] == 917
    assert "skin" not in sent.lower() and "917" not in sent  # the prompt's words hold the goal, not the look


def _texts(messages: list[dict]) -> str:
    """The words of a chat request (its screenshots left out: base64 holds any short string by chance)."""
    parts = []
    for m in messages:
        content = m["content"]
        parts += [content] if isinstance(content, str) else [c["text"] for c in content if c.get("type") == "text"]
    return " ".join(parts)


def test_training_collection_records_each_episode_in_its_training_skin(tmp_path):
    from venuskit.flywheel.collect import world_jobs, world_oracle_episodes

    jobs = world_jobs(["mail.star_message"], ["browser"], skins=[0, 7])[:2]
    looks = [j.skin for j in jobs]
    assert sorted(looks) == [0, 7]  # the template's two jobs take the two skins in turn
    index = world_oracle_episodes(tmp_path, jobs)
    assert [r["skin"] for r in index] == looks and all(r["verdict"] == "completed" for r in index)
    assert [load_episode(r["episode_dir"]).task["skin"] for r in index] == looks
    assert world_oracle_episodes(tmp_path, jobs) == index  # resumed: both keys are in the index, nothing reruns
