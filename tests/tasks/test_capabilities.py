"""The capability catalogs: they load, their provenance is real, their domains come from the seeded world, and a
broken catalog is refused with a message that says where."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from venuskit.tasks.spec import APPS, bundled
from venuskit.tasks.synth.catalog import CatalogError, bundled_catalog, capabilities_dir, load_catalog
from venuskit.tasks.synth.reject import SeedWorlds
from venuskit.tasks.synth.sample import Domains
from venuskit.world.apps.helptext import HELP

CAT = bundled_catalog()


def test_every_app_has_a_catalog_of_composable_capabilities():
    for app in APPS:
        caps = [c for c in CAT.by_app(app) if c.composable]
        assert len(caps) >= 4, app
        assert any(c.kind == "act" for c in caps), app
    assert len(CAT.composable()) >= 55
    # the catalogs know what the help pages say the apps cannot do, and what no contract can check
    assert sum(not c.supported for c in CAT.caps.values()) >= 8
    assert {c.app for c in CAT.caps.values() if c.kind == "view"} >= {"mail", "calendar", "bank", "shop"}


def test_provenance_names_real_help_sections_and_templates():
    templates = bundled()
    for c in CAT.caps.values():
        assert c.help in [t for t, _ in HELP[c.app]["en"]["sections"]], c.id
        assert all(t in templates for t in c.templates), c.id
    linked = {t for c in CAT.caps.values() for t in c.templates}
    assert len(linked) >= 80  # most hand-written templates are covered by some capability


def test_reads_produce_typed_values_that_some_capability_accepts():
    produced = {pr.type for c in CAT.composable() for pr in c.produces}
    assert produced >= {"iban", "amount", "date", "time", "place", "code", "file", "email"}
    for t in produced:
        assert any(t in p.accepts or "*" in p.accepts for c in CAT.composable() for p in c.params), t
    # data can flow across apps: mail feeds the bank, the calendar feeds mail, drive feeds expense
    readers = {pr.type: {c.app for c in CAT.composable() for x in c.produces if x.type == pr.type}
               for c in CAT.composable() for pr in c.produces}  # fmt: skip
    assert "mail" in readers["iban"] and {"drive", "bank", "shop", "mail"} <= readers["amount"]


def test_state_domains_read_the_seeded_world_in_its_locale():
    worlds = SeedWorlds()
    domains = Domains(CAT, worlds)
    en = [r["name"] for r in domains.state_rows("catalog", "en")]
    zh = [r["name"] for r in domains.state_rows("catalog", "zh")]
    assert "Wireless Mouse" in en and "无线鼠标" in zh and len(en) == len(zh) == 36
    groups = [r["name"] for r in domains.state_rows("group", "en")]
    assert "Book Club" in groups
    payees = domains.state_rows("saved_payee", "en")
    assert {"name", "iban"} <= set(payees[0]) and any(p["name"] == "Green Leaf Landlord" for p in payees)


def _copy_catalog(tmp_path: Path) -> Path:
    dst = tmp_path / "caps"
    shutil.copytree(capabilities_dir(), dst)
    return dst


@pytest.mark.parametrize(
    ("old", "new", "message"),
    [
        ('check = "mail.starred", args = { subject = "{subject}" } }]',
         'check = "mail.starry", args = { subject = "{subject}" } }]', "unknown check 'mail.starry'"),
        ('goal = "star the email \\"{subject}\\" from {sender.name}"',
         'goal = "star the email \\"{subjekt}\\" from {sender.name}"', "placeholder {subjekt} names no parameter"),
        ('templates = ["mail.star_message"]', 'templates = ["mail.star_msg"]', "no hand-written template"),
        ('help = "Compose"\ntemplates = ["infeasible.schedule_send"]', 'help = "Compose"\ntemplates = []\nreason = ""',
         "needs the reason"),
    ],
)  # fmt: skip
def test_a_broken_catalog_is_refused_with_file_capability_and_field(tmp_path, old, new, message):
    root = _copy_catalog(tmp_path)
    path = root / "mail.toml"
    text = path.read_text(encoding="utf-8")
    assert old in text
    if "reason" in new:  # drop the unsupported entry's reason line
        text = text.replace('reason = "Compose offers Send and Save draft only; there is no scheduled sending."\n', "")
        new = new.replace('\nreason = ""', "")
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    with pytest.raises(CatalogError) as err:
        load_catalog(root)
    assert message in str(err.value) and "mail.toml" in str(err.value)


def test_a_pool_defined_twice_is_refused(tmp_path):
    root = _copy_catalog(tmp_path)
    (root / "extra.toml").write_text('[pools.sender]\nen = ["x"]\n', encoding="utf-8")
    with pytest.raises(CatalogError, match="pool 'sender' is defined twice"):
        load_catalog(root)


def test_venus_tasks_catalog_lists_every_capability():
    out = subprocess.run([sys.executable, "-m", "venuskit.cli.main", "tasks", "catalog", "--json"],
                         capture_output=True, text=True, timeout=120)  # fmt: skip
    assert out.returncode == 0, out.stderr
    lines = [json.loads(x) for x in out.stdout.strip().splitlines()]
    rows, summary = lines[:-1], lines[-1]["summary"]
    assert summary["capabilities"] == len(CAT.composable()) == sum(summary["by_app"].values())
    assert {r["id"] for r in rows} == set(CAT.caps)
    star = next(r for r in rows if r["id"] == "mail.star")
    assert star["checks"] == ["mail.starred"] and star["templates"] == ["mail.star_message"]
    bad = subprocess.run([sys.executable, "-m", "venuskit.cli.main", "tasks", "catalog", "--app", "fax"],
                         capture_output=True, text=True, timeout=120)  # fmt: skip
    assert bad.returncode == 2 and "Unknown app 'fax'" in bad.stderr and "Traceback" not in bad.stderr
