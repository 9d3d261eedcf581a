"""Seeded skins (venuskit.world.skins): the draw, its data, what a skinned page serves, and what it never says.

The screenshots (skin 0 pixel-identical to the world without skins, other skins visibly different) are in
test_skins_browser.py; every template's oracle under skins is in tests/tasks/test_skin_oracles.py.
"""

from __future__ import annotations

import http.cookiejar
import re
import string
import urllib.request
from importlib import resources

import pytest

from venuskit.tasks import splits
from venuskit.tasks.run import WorldTask
from venuskit.world import WorldServer, skins
from venuskit.world.i18n import STRINGS

DEFAULT_ICONS = re.findall(r'name == "(\w+)"', resources.files("venuskit.world").joinpath("templates/_icons.html")
                           .read_text("utf-8"))  # fmt: skip
# the skins the oracle tests run under: together they show every icon set, label mode, placement and density
ORACLE_SKINS = (10, 19, 21)


def _get(world: WorldServer, episode: str, path: str) -> str:
    jar = urllib.request.build_opener(urllib.request.HTTPCookieProcessor(http.cookiejar.CookieJar()))
    with jar.open(world.bind_url(episode, path), timeout=10) as r:
        assert r.status == 200
        return r.read().decode()


@pytest.fixture(scope="module")
def world():
    with WorldServer() as w:
        yield w


def test_skin_zero_is_the_default_look_and_adds_nothing():
    s = skins.get(0)
    assert s.is_default and s.css == "" and s.words == {} and s.order == ()
    assert s.text("en", "delete_forever") is None and s.icon("star") is None


def test_a_skin_is_the_same_every_time_and_skins_differ():
    drawn = [skins.get(k) for k in range(1, 41)]
    skins._draw.cache_clear()
    assert drawn == [skins.get(k) for k in range(1, 41)]
    assert len({s.css for s in drawn}) == len(drawn)  # forty looks, no two alike
    assert all(not s.is_default and s.palette != "default" and s.css for s in drawn)


def test_over_the_training_skins_every_piece_is_used():
    looks = [skins.get(k) for k in splits.training_skins()[1:301]]
    data = skins._data()
    assert {s.palette for s in looks} == set(data["palettes"])
    assert {s.font for s in looks} == {"default", *data["fonts"]}
    assert {s.density for s in looks} == {"default", *data["densities"]}
    assert {s.icons for s in looks} == set(skins.ICON_SETS)
    assert {s.labels for s in looks} == set(skins.LABEL_MODES) and {s.rows for s in looks} == set(skins.ROW_MODES)
    assert any(s.order for s in looks) and any(not s.order for s in looks)
    for key, words in skins.lexicon().items():  # every synonym of every key shows up in some skin
        for locale in ("en", "zh"):
            assert {s.text(locale, key) for s in looks} >= set(words[locale]), (key, locale)


def test_the_oracle_test_skins_cover_every_aspect():
    looks = [skins.get(k) for k in ORACLE_SKINS]
    assert {s.icons for s in looks} >= {"outline", "solid"}
    assert {s.labels for s in looks} == set(skins.LABEL_MODES)
    assert {s.rows for s in looks} == set(skins.ROW_MODES) and all(s.order for s in looks)
    assert {s.density for s in looks} >= {"compact", "comfortable"}
    assert any(skins._data()["palettes"][s.palette]["topbar"] == "accent" for s in looks)


def _fields(text: str) -> set[str]:
    return {f for _, f, _, _ in string.Formatter().parse(text) if f}


def test_the_lexicon_holds_true_synonyms_of_real_strings():
    lex = skins.lexicon()
    assert len(lex) >= 50
    for key, words in lex.items():
        assert key in STRINGS, f"{key} is not an i18n key"
        assert set(words) == {"en", "zh"} and words["en"] and words["zh"], key
        for locale, default in zip(("en", "zh"), STRINGS[key], strict=True):
            options = words[locale]
            assert default not in options and len(set(options)) == len(options), (key, locale)
            assert all(_fields(o) == _fields(default) for o in options), (key, locale)
    # statuses, notices and answers keep one wording: a skin never rewords what a contract or an answer reads
    assert not {k for k in lex if k.startswith(("st_", "reason_")) or k.endswith(("_done", "_sent"))}


def test_every_default_icon_has_a_drawing_in_each_other_set():
    assert len(DEFAULT_ICONS) >= 50
    data = skins.icon_sets()
    assert "MIT" in data["license"]
    for name, body in data["sets"].items():
        assert set(body) == set(DEFAULT_ICONS), name
        for svg in body.values():  # plain drawing markup only: no script, no handlers, no links
            assert re.fullmatch(r'(<(path|circle|rect|ellipse|polygon|line)( [a-z-]+="[^"<>]*")*/>)+', svg), svg
    assert skins.get(0).icon("star") is None
    outline = next(s for s in map(skins.get, range(1, 50)) if s.icons == "outline")
    assert outline.icon("star", "sm").startswith('<svg class="ic sm" viewBox="0 0 16 16"')


def test_a_skinned_page_carries_its_look_and_words(world):
    look = next(s for s in map(skins.get, range(1, 200))
                if s.icons == "solid" and "mark_unread" in s.words and "move_to_trash" in s.words)  # fmt: skip
    plain, dressed = world.new_episode(seed=1), world.new_episode(seed=1, skin=look.id)
    before, after = _get(world, plain, "/mail/m/1"), _get(world, dressed, "/mail/m/1")
    assert "<style>" not in before and "Mark as unread" in before
    assert f"<style>{look.css}</style>" in after
    assert look.text("en", "mark_unread") in after and "Mark as unread" not in after
    assert look.text("en", "move_to_trash") in after
    assert 'viewBox="0 0 16 16"' in after and 'viewBox="0 0 16 16"' not in before
    # the stable selectors the oracles use are on both
    assert after.count('data-ctl="back"') == before.count('data-ctl="back"') == 1
    assert 'value="trash"' in after and 'value="unread"' in after


def test_a_chinese_page_uses_the_chinese_synonyms(world):
    look = next(s for s in map(skins.get, range(1, 200)) if "compose" in s.words)
    body = _get(world, world.new_episode(seed=1, locale="zh", skin=look.id), "/mail/inbox")
    assert look.text("zh", "compose") in body and "写邮件" not in body


def test_nothing_the_agent_can_reach_names_the_skin(world):
    for k in (*ORACLE_SKINS, splits.heldout_skins()[0]):
        episode = world.new_episode(seed=2, skin=k)
        url = world.bind_url(episode, "/mail/inbox")
        assert "skin" not in url.lower()
        for path in ("/mail/inbox", "/drive/", "/shop/", "/expense/", "/calendar/?view=week"):
            body = _get(world, episode, path)
            assert "skin" not in body.lower(), path
            assert re.search(rf"\b{k}\b", skins.get(k).css) is None  # nor does its stylesheet hold its number


def test_a_bad_skin_is_refused_before_anything_is_made(world):
    count = world.episode_count()
    for bad in (-1, "3", 2.0, True):
        with pytest.raises(ValueError, match="whole number"):
            world.new_episode(seed=0, skin=bad)
    assert world.episode_count() == count
    assert skins.parse("0,3,7") == [0, 3, 7] and skins.parse("900-902,3") == [900, 901, 902, 3]
    assert skins.parse("3,1-4") == [3, 1, 2, 4]
    for text in ("a", "3-1", "1,,2", "-4", "²", "0-99999"):
        with pytest.raises(ValueError):
            skins.parse(text)


def test_the_skin_is_part_of_the_episode_and_its_record(world):
    wt = WorldTask.start(world, "mail.star_message", seed=0, skin=7)
    try:
        assert wt.skin == 7 and world.info(wt.episode_id).skin == 7
        task = wt.env_task()
        assert task["skin"] == 7 and "skin" not in task["start_url"]
        WorldTask.start(world, "mail.star_message", seed=0, episode_id=wt.episode_id)  # a reset: skin 0 again
        assert wt.skin == 0 and world.state(wt.episode_id).skin.is_default
    finally:
        wt.close()


def test_held_out_skins_are_apart_from_training_skins():
    train, held = splits.training_skins(), splits.heldout_skins()
    assert 0 in train and held and not set(train) & set(held)
    assert all(splits.skin_split(k) == "heldout" for k in held)
    for k in train[:50]:
        splits.require_train_skin(k)
    with pytest.raises(ValueError, match="held-out skin"):
        splits.require_train_skin(held[0])
    with pytest.raises(ValueError, match="neither"):
        splits.skin_split(held[-1] + 1)


def test_training_never_uses_a_held_out_skin(tmp_path):
    """The training collectors take skins from the training skins only: every job they make, and the recipe's
    config, refuse a held-out skin."""
    from venuskit.flywheel import collect
    from venuskit.flywheel.nano import NanoTrainConfig

    templates = splits.training_templates(["short"])[:4]
    looks = splits.training_skins()[:3]
    jobs = collect.world_jobs(templates, ["browser", "mobile"], skins=looks)
    assert {j.skin for j in jobs} == set(looks) and all(splits.skin_split(j.skin) == "train" for j in jobs)
    assert len({j.key for j in jobs}) == len(jobs)
    alone = collect.world_jobs(templates[1:2], ["browser", "mobile"], skins=looks)
    assert [j.key for j in alone] == [j.key for j in jobs if j.task == templates[1]]  # others don't move its skins
    assert [j.key for j in collect.world_jobs(templates, ["browser"])] == [
        f"{j.task}|{j.seed}|{j.surface}" for j in collect.world_jobs(templates, ["browser"])
    ]  # skin 0: old keys
    for held in (splits.heldout_skins()[0], splits.heldout_skins()[-1]):
        with pytest.raises(ValueError, match="held-out skin"):
            collect.world_jobs(templates, ["browser"], skins=[0, held])
        with pytest.raises(ValueError, match="held-out skin"):
            NanoTrainConfig(out=tmp_path, skins=(1, held))
    assert NanoTrainConfig(out=tmp_path, skins=tuple(looks)).skins == tuple(looks)


def test_every_collector_refuses_a_held_out_skin_and_the_loop_spreads_its_rollouts(tmp_path, monkeypatch):
    """Collection records training data: a job in a held-out skin is refused by the collectors themselves (however
    the job was made), before anything runs or is written; the closed loop's rollouts take its training skins in
    turn, and `venus loop --skins` refuses a held-out one in one line."""
    from typer.testing import CliRunner

    from venuskit.cli.main import app
    from venuskit.flywheel import collect, loop

    held = splits.heldout_skins()[0]
    jobs = [collect.Job("mail.star_message", 0, "browser", 3), collect.Job("mail.star_message", 1, "browser", held)]
    with pytest.raises(ValueError, match="held-out skin"):
        collect.world_oracle_episodes(tmp_path / "oracle", jobs)
    with pytest.raises(ValueError, match="held-out skin"):
        collect.world_relabel_rollouts(tmp_path / "relabel", jobs, tmp_path / "student.pt")
    assert not (tmp_path / "oracle").exists() and not (tmp_path / "relabel").exists()  # nothing ran, nothing kept

    with pytest.raises(ValueError, match="held-out skin"):
        loop.LoopConfig(out=str(tmp_path), skins=(0, held))
    seen: list[collect.Job] = []
    monkeypatch.setattr(collect, "world_relabel_rollouts", lambda out, jobs, *a, **kw: seen.extend(jobs) or [])
    config = loop.LoopConfig(out=str(tmp_path), skins=(0, 5, 7))
    loop.collect_round(config, tmp_path, ["mail.star_message", "mail.reply_all", "settings.rename_profile"] * 2, 0,
                       "student.pt", None)  # fmt: skip
    assert [j.skin for j in seen] == [0, 5, 7, 0, 5, 7]
    result = CliRunner().invoke(app, ["loop", "--skins", f"0,{held}", "--out", str(tmp_path / "cli")])
    assert result.exit_code != 0 and "held-out skin" in result.output and "Traceback" not in result.output
    assert not (tmp_path / "cli").exists()


def test_the_world_suite_runs_each_job_once_per_skin_and_groups_them(tmp_path):
    from venuskit.eval.suites.summary import world_summary
    from venuskit.eval.suites.world import WorldSuiteConfig, world_jobs

    config = WorldSuiteConfig(out=str(tmp_path), templates="mail.star_message", split="all", skins=(0, 900, 5))
    jobs = world_jobs(config)
    assert [(j["key"], j["skin"], j["skins"]) for j in jobs] == [
        ("mail.star_message/browser/5000", 0, "default"),  # the key a run had before skins: it resumes
        ("mail.star_message/browser/5000/skin900", 900, "heldout"),
        ("mail.star_message/browser/5000/skin5", 5, "train"),
    ]
    assert config.public()["skins"] == [0, 900, 5]
    for bad in ((), (-1,)):
        with pytest.raises(ValueError):
            WorldSuiteConfig(out=str(tmp_path), skins=bad)
    rows = [
        {**j, "contract": v, "steps": 3, "seconds": 1.0}
        for j, v in zip(jobs, ("completed", "failed", "completed"), strict=True)
    ]
    by_skins = world_summary(rows)["by_skins"]
    assert {k: v["success"] for k, v in by_skins.items()} == {"default": 1.0, "heldout": 0.0, "train": 1.0}


def test_no_oracle_finds_a_control_by_a_wording_a_skin_changes():
    """A skin rewords the lexicon's controls; an oracle step that looked for one by its text would break under it."""
    from venuskit.tasks.spec import bundled

    wordings = {w for key, words in skins.lexicon().items() for w in (*STRINGS[key], *words["en"], *words["zh"])}
    for spec in bundled().values():
        for seed in range(len(spec.params)):
            for step in spec.instance(seed).oracle:
                for text in re.findall(r"(?:has-text\(|text=)['\"]?([^'\")]+)", " ".join(step[1:2])):
                    assert text not in wordings, f"{spec.id}: {list(step)} finds a control by its wording"
