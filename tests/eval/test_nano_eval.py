"""venus-nano's world figures carry what the done decision is judged by: premature Finished, side effects, an
interval around every success rate."""

from __future__ import annotations

import pytest

from venuskit.eval.nano_eval import world_success, world_tally
from venuskit.models.nano import load_default
from venuskit.tasks import splits


def test_tally_counts_premature_finish_and_side_effects():
    rows = [
        {"success": True, "premature_finish": False, "side_effect": False},
        {"success": False, "premature_finish": True, "side_effect": True},
        {"success": False, "premature_finish": True, "side_effect": False},
        {"success": False, "premature_finish": False, "side_effect": False},
    ]
    t = world_tally(rows)
    assert (t["n"], t["solved"], t["premature_finish"], t["side_effects"]) == (4, 1, 2, 1)
    low, high = t["ci95"]
    assert 0.0 < low < 0.25 < high < 1.0  # 1 of 4 is not a precise figure
    assert world_tally([])["ci95"] == [0.0, 1.0]


@pytest.mark.browser
@pytest.mark.slow
def test_world_rows_say_how_each_episode_ended(tmp_path):
    template = splits.world_templates("heldout", "short")[0]
    seed = splits.eval_seeds(splits.load().world_eval_seeds, 1)
    result = world_success(load_default(), [template], seed, "browser", tmp_path, max_steps=6)
    (row,) = result["rows"]
    assert row["verdict"] in ("completed", "partial", "failed", "infeasible", "error")
    assert row["premature_finish"] == (row["end"] in ("finished", "answer") and not row["success"])
    assert row["side_effect"] == bool(row["forbidden"])
    assert result["solved"] == int(row["success"])
