"""The three training stages on TRL 1.16: `venus train sft | grpo | mopd`.

- SFT: TRL's SFTTrainer on prompt/completion rows (loss on the completion only).
- GRPO: TRL's GRPOTrainer with the rule rewards of one domain (`venuskit.train.rewards.domain_rewards`).
- MOPD: `MOPDTrainer`, a GRPOTrainer subclass. TRL keeps generation (HF or vLLM), the VLM plumbing and the
  clipped loss; the subclass routes each sample to its domain teacher, scores the student's tokens under the
  teacher's hinted prompt, and replaces the advantages by per-token A_t = w_t·(log π_T − log π_old) on the
  tokens with w_t > 0 (`venuskit.train.losses`). With one update per generation batch the GRPO surrogate then
  is the sampled-token reverse-KL policy gradient. estimator="exact" instead minimises the full-vocabulary
  reverse KL against a local teacher.

Each stage has one config dataclass that subclasses TRL's (help text on every field, refusals in
`__post_init__`). Data and teachers are checked before any model loads. Checkpoints: TRL's `save_steps`;
resume with `resume_from_checkpoint="last"` (the newest checkpoint in output_dir) or a path.

The package, by what each file holds:
    configs.py   VenusSFTConfig, VenusGRPOConfig, VenusMOPDConfig (and the --domain_weights / --teachers parsers)
    stages.py    rows and models, the SFT and GRPO trainers, `train` (resume, final save)
    mopd.py      MOPDTrainer and its teacher prompts, `make_mopd_trainer`
"""

import os

from venuskit.train.trainers.configs import (
    VenusGRPOConfig,
    VenusMOPDConfig,
    VenusSFTConfig,
    parse_teachers,
    parse_weights,
)
from venuskit.train.trainers.mopd import MOPDTrainer, TeacherPrompts, make_mopd_trainer
from venuskit.train.trainers.stages import (
    leave_process_group,
    load_model,
    load_rows,
    make_grpo_trainer,
    make_sft_trainer,
    resolve_resume,
    train,
)

os.environ.setdefault("HF_HUB_OFFLINE", "1") if os.environ.get("VENUSKIT_OFFLINE") else None

__all__ = [
    "MOPDTrainer",
    "TeacherPrompts",
    "VenusGRPOConfig",
    "VenusMOPDConfig",
    "VenusSFTConfig",
    "leave_process_group",
    "load_model",
    "load_rows",
    "make_grpo_trainer",
    "make_mopd_trainer",
    "make_sft_trainer",
    "parse_teachers",
    "parse_weights",
    "resolve_resume",
    "train",
]
