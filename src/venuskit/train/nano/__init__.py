"""venus-nano's training stages: each a function over examples (rows read into features), an init checkpoint and a
TRL-style config, returning the new checkpoint and its metrics.

    from venuskit.train.nano import sft, grpo, mopd, SFTConfig
    result = sft(examples, Path("runs/nano/sft"), SFTConfig(seed=0))     # StageResult(checkpoint, metrics)

The recipe that collects the data and chains the stages (`venus nano train`) joins the world and the synthesis
packages, so it lives in `venuskit.flywheel.nano`.

Modules: targets (a reference action -> supervision), data (rows -> examples), common (losses, sampling, metrics),
sft, grpo, mopd.
"""

from venuskit.train.nano.common import StageResult
from venuskit.train.nano.data import Example, examples, input_from_row, reference_rows
from venuskit.train.nano.grpo import GRPOConfig, grpo
from venuskit.train.nano.mopd import MOPDConfig, mopd
from venuskit.train.nano.sft import SFTConfig, sft

__all__ = [
    "Example",
    "GRPOConfig",
    "MOPDConfig",
    "SFTConfig",
    "StageResult",
    "examples",
    "grpo",
    "input_from_row",
    "mopd",
    "reference_rows",
    "sft",
]
