"""Task files: the bundled catalog loads and meets its counts; malformed files name file, field and reason."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from venuskit.tasks import TaskFileError, bundled, load_catalog, load_file
from venuskit.tasks.checks import CHECKS

GOOD = """
[[task]]
id = "t.ok"
apps = ["mail"]
category = "short"
goal = "Star {subject}"
oracle = [["click", "a"]]
[[task.params]]
subject = "Hello"
[[task.keypoints]]
desc = "starred"
check = "mail.starred"
args = { subject = "{subject}" }
"""


def write(tmp_path: Path, text: str, name: str = "t.toml") -> Path:
    p = tmp_path / name
    p.write_text(text, encoding="utf-8")
    return p


def test_bundled_catalog_loads_with_every_category_and_chinese():
    tasks = bundled()
    counts = Counter(t.category for t in tasks.values())
    assert set(counts) == {"short", "medium", "long", "interrupt", "infeasible"}
    # the catalog's promise: >=60 short, >=50 medium, >=25 long, >=10 interrupts, >=15 infeasible
    assert counts["short"] >= 60 and counts["medium"] >= 50 and counts["long"] >= 25
    assert counts["interrupt"] >= 10 and counts["infeasible"] >= 15
    assert {a for t in tasks.values() for a in t.apps} >= {"mail", "calendar", "drive", "expense", "bank", "shop",
                                                            "forum", "settings"}  # fmt: skip
    assert all(len(t.apps) >= 2 and t.steps >= 20 for t in tasks.values() if t.category == "long")
    assert all(1 <= t.steps <= 5 for t in tasks.values() if t.category == "short")
    assert all(6 <= t.steps <= 15 for t in tasks.values() if t.category == "medium")
    zh = sum("zh" in t.locales for t in tasks.values())
    assert zh / len(tasks) >= 0.3
    assert "long.reimbursement" in tasks and tasks["long.reimbursement"].steps >= 20
    assert all(t.interrupts for t in tasks.values() if t.category == "interrupt")
    assert all(not t.feasible for t in tasks.values() if t.category == "infeasible")


def test_every_instance_fills_every_placeholder():
    for spec in bundled().values():
        for seed in range(len(spec.params)):
            inst = spec.instance(seed)
            assert "{" not in inst.goal, (spec.id, inst.goal)
            assert inst.locale == spec.params[seed].get("locale", "en")


def test_a_good_file_loads(tmp_path):
    (spec,) = load_file(write(tmp_path, GOOD))
    assert spec.instance(0).goal == "Star Hello"
    assert spec.instance(0).keypoints[0].args == {"subject": "Hello"}


@pytest.mark.parametrize(
    ("change", "field", "reason"),
    [
        (('check = "mail.starred"', 'check = "mail.sparkles"'), "keypoints[0].check", "unknown check"),
        (("args = { subject", 'args = { colour = "red", subject'), "keypoints[0].args", "no argument 'colour'"),
        (('category = "short"', 'category = "tiny"'), "category", "must be one of"),
        (('apps = ["mail"]', 'apps = ["fax"]'), "apps", "non-empty list"),
        (('oracle = [["click", "a"]]', 'oracle = [["dance", "a"]]'), "oracle[0]", "op one of"),
        (('subject = "Hello"', 'topic = "Hello"'), "params[0]", "no value for placeholder {subject}"),
        (('goal = "Star {subject}"', 'goal = "Star {subject}"\nwhatever = 1'), "whatever", "not a task field"),
        (('oracle = [["click", "a"]]\n', ""), "oracle", "needs an oracle"),
    ],
)
def test_malformed_files_name_file_field_and_reason(tmp_path, change, field, reason):
    path = write(tmp_path, GOOD.replace(*change))
    with pytest.raises(TaskFileError) as err:
        load_file(path)
    msg = str(err.value)
    assert str(path) in msg and "t.ok" in msg and f"field '{field}'" in msg and reason in msg


def test_bad_toml_and_duplicates_are_refused(tmp_path):
    with pytest.raises(TaskFileError, match="not valid TOML"):
        load_file(write(tmp_path, "[[task]\nid=1"))
    d = tmp_path / "cat"
    d.mkdir()
    write(d, GOOD, "a.toml")
    write(d, GOOD, "b.toml")
    with pytest.raises(TaskFileError, match="already defined"):
        load_catalog(d)


def test_setup_ops_are_validated(tmp_path):
    bad = GOOD + '[[task.setup]]\nop = "mail"\nsubjekt = "x"\n'
    with pytest.raises(TaskFileError, match=r"field 'setup\[0\].subjekt'"):
        load_file(write(tmp_path, bad))


def test_checks_declare_their_arguments():
    expected = {"mail.sent", "drive.cell", "cal.event", "bank.transfer", "expense.report", "answer.contains"}
    assert expected <= set(CHECKS)
