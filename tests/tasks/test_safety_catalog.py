"""The offline safety suite's catalog: sizes per category, en and zh throughout, every check and step well formed,
runtime placeholders filled per episode, and malformed files refused with the file, task and field named. (The
tasks run in real Chromium in tests/eval/test_safety_eval.py; the full suite is benchmarks/safety_suite.py.)"""

from __future__ import annotations

import collections
import re
from pathlib import Path

import pytest

from venuskit.tasks.checks import CHECKS
from venuskit.tasks.safety import ATTACK_CATEGORIES, CATEGORIES, load_safety_catalog, load_safety_file, safety_tasks
from venuskit.tasks.spec import TaskFileError, bundled

MINIMUM = {"misuse": 40, "injection": 80, "blind": 60, "gating": 40, "lookalike": 20, "secrets": 20, "accidental": 20,
           "bypass": 24, "benign": 60}  # fmt: skip


def test_every_category_meets_its_size():
    counts = collections.Counter(s.category for s in safety_tasks().values())
    assert set(counts) == set(CATEGORIES)
    for category, least in MINIMUM.items():
        assert counts[category] >= least, (category, counts[category])


def test_injection_covers_eight_channels_five_goals_two_styles():
    inj = [s for s in safety_tasks().values() if s.category == "injection"]
    assert {s.channel for s in inj} == {"mail", "page", "pdf", "invite", "review", "forum", "notification", "image"}
    assert {s.goal_kind for s in inj} == {"exfiltrate", "destroy", "financial", "credentials", "derail"}
    assert {s.style for s in inj} == {"plain", "contextual"}
    assert len({(s.channel, s.goal_kind, s.style) for s in inj}) == 80


def test_every_task_speaks_english_and_chinese():
    for s in safety_tasks().values():
        assert s.task.locales == ("en", "zh"), s.id
        assert re.search(r"[\u4e00-\u9fff]", s.instance(1).inst.goal), s.id  # the zh goal is Chinese


def test_no_safety_id_collides_with_a_world_task():
    assert not set(safety_tasks()) & set(bundled())


def test_contracts_name_the_harm_and_the_attack_path():
    for s in safety_tasks().values():
        for k in (*s.harm, *s.attempt):
            assert k.check in CHECKS
        if s.category in ATTACK_CATEGORIES:
            assert s.harm and s.attack, s.id
        if s.category in ("gating", "lookalike", "benign"):
            assert s.task.feasible and s.task.keypoints and not s.harm, s.id
        if s.category in ("gating", "benign") and s.task.consequential:
            assert s.approve, s.id  # the user approves what they asked for


def test_runtime_placeholders_are_filled_per_episode():
    s = safety_tasks()["injection.mail.credentials.plain"]
    a = s.instance(0, "http://localhost:1111/e/aa", "VKAAAA")
    b = s.instance(0, "http://localhost:2222/e/bb", "VKBBBB")
    text_a, text_b = repr((a.inst.setup, a.attack, a.harm)), repr((b.inst.setup, b.attack, b.harm))
    assert "http://localhost:1111/e/aa/login" in text_a and "VKAAAA" in text_a and "VKBBBB" not in text_a
    assert "http://localhost:2222/e/bb/login" in text_b and "{site}" not in text_b and "{canary}" not in text_b
    zh = s.instance(1, "http://localhost:1111/e/aa", "VKAAAA")
    assert "/login/zh" in repr(zh.inst.setup) and zh.inst.locale == "zh"


def test_selectors_quote_cleanly():
    """A name with an apostrophe inside has-text('...') breaks the selector: the data must not have one."""
    for s in safety_tasks().values():
        for seed in range(len(s.raw_params)):
            inst = s.instance(seed)
            for step in (*inst.inst.oracle, *inst.attack):
                for arg in step[1:2]:
                    if "has-text(" in arg:
                        assert arg.split("has-text(", 1)[1].count("'") == 2, (s.id, arg)


def test_secrets_never_appear_in_goals():
    for s in safety_tasks().values():
        inst = s.instance(0, canary="VKCANARY123")
        for secret in inst.secrets:
            assert secret["value"] not in inst.inst.goal and "{{secret:" + secret["name"] + "}}" in inst.inst.goal


@pytest.mark.parametrize("body,field", [
    ('[[template]]\nid = "x.y"\ncategory = "nope"\nexpect = "refuse"\n[[template.case]]\nkey = "a"\nen = {}\n',
     "category"),
    ('[[template]]\nid = "x.y"\ncategory = "misuse"\nexpect = "refuse"\napps = ["mail"]\ngoal = "g"\n'
     'goal_zh = "g"\n[[template.case]]\nkey = "a"\nen = {}\n', "harm"),
    ('[[template]]\nid = "x.y"\ncategory = "benign"\nexpect = "complete"\napps = ["mail"]\ngoal = "g"\n'
     'keypoints = [{ desc = "d", check = "no.such.check" }]\noracle = [["finish"]]\n[[template.case]]\nkey = "a"\n'
     'en = {}\n', "keypoints[0].check"),
    ('[[template]]\nid = "x.y"\ncategory = "benign"\nexpect = "complete"\napps = ["mail"]\ngoal = "{missing}"\n'
     'keypoints = [{ desc = "d", check = "mail.exists", args = { subject = "s" } }]\noracle = [["finish"]]\n'
     '[[template.case]]\nkey = "a"\nen = {}\n', "params[0]"),
    ('[[template]]\nid = "x.y"\n', "case"),
    ('[[template]\n', None),
])  # fmt: skip
def test_malformed_files_name_file_task_and_field(tmp_path, body, field):
    f = tmp_path / "bad.toml"
    f.write_text(body, encoding="utf-8")
    with pytest.raises(TaskFileError) as err:
        load_safety_file(f)
    assert str(f) in str(err.value)
    if field is not None:
        assert "'x.y" in str(err.value) and f"field '{field}'" in str(err.value)
    else:
        assert "not valid TOML" in str(err.value)


def test_a_duplicate_id_across_files_is_refused(tmp_path):
    raw = Path(safety_tasks()["benign.star_file.contract"].task.source).read_text(encoding="utf-8")
    (tmp_path / "a.toml").write_text(raw, encoding="utf-8")
    (tmp_path / "b.toml").write_text(raw, encoding="utf-8")
    with pytest.raises(TaskFileError, match="already defined"):
        load_safety_catalog(tmp_path)
