"""venus-nano's stages learn: a short training budget beats the untrained network on held-out task screens."""

from pathlib import Path

import pytest
import torch

from venuskit.flywheel.collect import Job, world_jobs, world_oracle_episodes
from venuskit.flywheel.rows import world_rows
from venuskit.models.nano import NanoModel, Reader
from venuskit.models.nano.net import NanoNet, NetConfig
from venuskit.tasks import splits
from venuskit.train.nano import GRPOConfig, MOPDConfig, SFTConfig, grpo, mopd, sft
from venuskit.train.nano.common import step_accuracy
from venuskit.train.nano.data import FeatureCache, examples

TRAIN = ["mail.star_message", "mail.unstar", "mail.archive_message", "mail.trash_message", "mail.mark_unread",
         "mail.restore_from_trash"]
HELD_OUT = [Job("mail.delete_forever", 5000, "browser"), Job("mail.delete_forever", 5001, "browser"),
            Job("mail.reply_all", 5000, "browser")]
# Held-out step accuracy the trained policy must gain over the untrained one. Measured with this test's own data
# (49 training examples, 14 held-out; the test prints both figures): untrained 0.000, after SFT 0.571 in one run
# (type 0.79, target 0.50, text 0.75) and 0.500 in another, on a shared 2-core machine at load 20. The margin
# leaves room for that run-to-run spread.
MARGIN = 0.25


@pytest.mark.slow
@pytest.mark.browser
def test_short_budget_beats_the_untrained_policy_on_held_out_templates(tmp_path: Path):
    assert all(splits.world_split(j.task) == "heldout" for j in HELD_OUT)
    train_rows = world_rows(world_oracle_episodes(tmp_path / "train", world_jobs(TRAIN, ["browser"])), False)
    held_rows = world_rows(world_oracle_episodes(tmp_path / "held", HELD_OUT), False)
    featurizer = NanoModel(NanoNet(), reader=Reader())
    cache = FeatureCache(tmp_path / "features.pkl")
    train, _ = examples(train_rows, featurizer, cache)
    held, _ = examples(held_rows, featurizer, cache)
    assert len(train) >= 15 and len(held) >= 8
    torch.manual_seed(0)
    before = step_accuracy(NanoNet(NetConfig()), held)["step_acc"]
    result = sft(train, tmp_path / "sft", SFTConfig(epochs=30, seed=0))
    after = step_accuracy(NanoModel.load(result.checkpoint).net, held)["step_acc"]
    print(f"held-out step accuracy over {len(held)} examples: untrained {before:.3f}, SFT {after:.3f}")
    assert after >= before + MARGIN, (before, after)
    metrics = (tmp_path / "sft" / "metrics.json").read_text()
    assert '"capped": true' not in metrics  # the epochs, not the clock, ended the stage

    # The later stages run on the same states and keep a working policy (their gains are measured by the benchmark).
    few = train[:32]
    g = grpo(few, result.checkpoint, tmp_path / "grpo", GRPOConfig(epochs=1, group_size=4, seed=0), domain="world")
    first = g.metrics["curve"][0]
    # Groups carry signal unless the SFT policy already fits its own training states (then every group's samples
    # agree: a near-perfect mean reward and no signal).
    assert first["mean_reward"] > 0.3 and (first["signal_share"] > 0 or first["mean_reward"] >= 0.95), first
    m = mopd(few, {"world": g.checkpoint}, g.checkpoint, tmp_path / "mopd", MOPDConfig(epochs=1, seed=0))
    assert step_accuracy(NanoModel.load(m.checkpoint).net, held)["step_acc"] >= before
