"""The fixed splits: held-out templates, CAPTCHA types and grounding families, and disjoint seed ranges."""

import collections
import json
import math

from venuskit.synth.captcha.registry import all_types
from venuskit.synth.grounding.families import PANEL_FAMILIES
from venuskit.tasks import splits
from venuskit.tasks.spec import bundled


def test_every_listed_item_exists():
    s = splits.load()
    assert s.world_heldout <= set(bundled())
    assert s.captcha_heldout_types <= {t.name for t in all_types()}
    assert s.grounding_heldout_families <= set(PANEL_FAMILIES)


def test_a_quarter_of_short_and_medium_of_every_app_is_held_out():
    by_app = collections.defaultdict(list)
    for t in bundled().values():
        if t.category in ("short", "medium"):
            by_app[(t.category, t.apps[0])].append(t.id)
    assert {app for _, app in by_app} >= {"mail", "calendar", "drive", "expense", "bank", "shop", "forum", "settings"}
    for (category, app), ids in by_app.items():
        held = [i for i in ids if splits.world_split(i) == "heldout"]
        assert len(held) >= math.ceil(len(ids) / 4), f"{category}/{app}: {len(held)} of {len(ids)} held out"
        assert len(held) < len(ids), f"{category}/{app}: nothing left to train on"


def test_captcha_holds_out_at_least_15_types_and_grounding_families():
    s = splits.load()
    assert len(s.captcha_heldout_types) >= 15
    assert {t.family for t in all_types() if t.name in s.captcha_heldout_types} == {t.family for t in all_types()}
    assert 1 <= len(s.grounding_heldout_families) < len(PANEL_FAMILIES)


def test_seed_ranges_are_disjoint_and_miniwob_is_never_training():
    s = splits.load()
    for a, b in (
        (s.world_train_seeds, s.world_eval_seeds),
        (s.captcha_train_seeds, s.captcha_eval_seeds),
        (s.grounding_train_seeds, s.grounding_eval_seeds),
    ):
        assert a[1] < b[0] or b[1] < a[0]
    assert s.miniwob_training is False
    assert splits.eval_seeds(s.world_eval_seeds, 3) == [5000, 5001, 5002]


def test_split_listing_partitions_the_catalog():
    train, held = splits.world_templates("train"), splits.world_templates("heldout")
    assert not set(train) & set(held)
    assert len(train) + len(held) == len(bundled())
    assert set(splits.world_templates("heldout", "short")) <= set(held)


def test_no_held_out_item_reaches_venus_nano_training(monkeypatch, tmp_path):
    """Every stage's data comes through collect: held-out templates are refused, seeds are training seeds, the
    default template set is the training split, and grounding pages use training families and seeds only."""
    import pytest

    from venuskit.flywheel import collect, rows
    from venuskit.flywheel.nano import NanoTrainConfig, templates_of

    s = splits.load()
    trained = templates_of(NanoTrainConfig(out=tmp_path))
    assert trained and not set(trained) & s.world_heldout
    jobs = collect.world_jobs(trained, ["browser", "mobile"]) + collect.world_jobs(trained, ["browser"], seed_offset=1000)
    assert all(splits.in_range(j.seed, s.world_train_seeds) for j in jobs)
    for held in sorted(s.world_heldout):
        with pytest.raises(ValueError, match="held-out"):
            collect.world_jobs([held], ["browser"])
    seen = {}
    monkeypatch.setattr("venuskit.synth.grounding.generate", lambda cfg, out, fmt: seen.setdefault("cfg", cfg))
    collect.grounding_data(tmp_path / "g", 10, seed=3)
    assert not set(seen["cfg"].families) & s.grounding_heldout_families
    assert splits.in_range(seen["cfg"].seed, s.grounding_train_seeds)
    with pytest.raises(ValueError, match="not a training seed"):
        collect.grounding_data(tmp_path / "g2", 10, seed=s.grounding_eval_seeds[0])
    # CAPTCHA: instances of training types on training seeds only; a held-out type in a rows file is refused.
    monkeypatch.setattr("venuskit.synth.captcha.dataset.synthesise", lambda cfg: seen.setdefault("captcha", cfg))
    collect.captcha_data(tmp_path / "c", 2, seed_start=0)
    assert seen["captcha"].types and not set(seen["captcha"].types) & s.captcha_heldout_types
    assert splits.in_range(seen["captcha"].seed_start, s.captcha_train_seeds)
    (tmp_path / "c2").mkdir()
    (tmp_path / "c2" / "rows.jsonl").write_text(json.dumps({"type": sorted(s.captcha_heldout_types)[0]}) + "\n")
    with pytest.raises(ValueError, match="held out"):
        rows.captcha_rows(tmp_path / "c2")


def test_the_miniwob_set_keeps_half_of_each_family_apart_by_a_fixed_rule():
    """The verifier's MiniWoB++ rules are designed on one share and measured on the other: the rule depends on the
    task names alone, so the same family always splits the same way, and every family of two or more keeps some
    tasks apart."""
    from venuskit.eval.verify_bench.miniwob_set import FAMILIES, share_of

    for family in FAMILIES.values():
        shares = [splits.miniwob_share(t, family) for t in family]
        assert shares.count("kept_apart") == len(family) // 2
        assert shares == [share_of(t) for t in family]  # the set's items carry the same share
    assert splits.miniwob_share("click-button", FAMILIES["buttons and choices"]) == "kept_apart"
