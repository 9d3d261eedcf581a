"""One config dataclass per stage, subclassing TRL's: help text on every field, refusals in `__post_init__`,
checked before any model loads."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from trl import GRPOConfig, SFTConfig

from venuskit.infra.config import option
from venuskit.train.data import DOMAINS
from venuskit.train.processing import model_type
from venuskit.train.rewards import RewardOptions


@dataclass
class _DataFields:
    """Fields every stage shares (mixed into the TRL configs)."""

    model: str = option("Base model folder (HF format: config.json, weights, tokenizer, processor).", "")
    data: str = option(
        "Training data: a folder of recorded episodes (one sub-folder per episode) or a rows .jsonl written by "
        "`venuskit.train.data` / `venus train rows`.",
        "",
    )
    n_img: int = option("Past screenshots kept in each prompt (UI-Venus-2 N_IMG; the current one is always sent).", 2)
    domain_weights: str = option("Domain mix, e.g. 'grounding=1,mobile=2' (empty: keep the data's own mix).", "")
    verdict_slot: str = option(
        "Keep only episodes whose verdicts[slot] is a success (or their good prefix); empty keeps every episode.", ""
    )

    def _check_data_fields(self) -> None:
        if not self.model:
            raise ValueError("`model` is required: pass the base model folder, e.g. --model ./UI-Venus-2-9B.")
        if not (Path(self.model) / "config.json").is_file():
            raise ValueError(f"`model`={self.model!r} has no config.json; pass a folder saved with save_pretrained.")
        if not self.data:
            raise ValueError(
                "`data` is required: pass an episodes folder or a rows .jsonl, e.g. --data runs/episodes."
            )
        if not Path(self.data).exists():
            raise ValueError(f"`data`={self.data!r} does not exist; pass an episodes folder or a rows .jsonl file.")
        parse_weights(self.domain_weights)  # a clear error now rather than after the model loads
        if self.n_img < 0:
            raise ValueError(f"`n_img` must be 0 or more, got {self.n_img}.")
        self._default_precision()

    def _default_precision(self) -> None:
        """Device and precision follow the launch, so the same stage flags run on CPU processes and on GPUs and
        only the accelerate config changes. With no accelerator at all, use_cpu is set: without it a process
        started by torchrun finds no GPU backend and trains alone instead of joining the gloo group. Left unset,
        bf16 / fp16 follow the accelerate config's mixed_precision (DeepSpeed refuses a mismatch), and outside
        accelerate bf16 is on only where a bf16 GPU is (TRL turns it on everywhere; transformers refuses a CPU)."""
        import torch

        if not torch.accelerator.is_available():
            self.use_cpu = True
        if getattr(self, "bf16", None) is not None or getattr(self, "fp16", False):
            return
        launched = os.environ.get("ACCELERATE_MIXED_PRECISION")
        if launched in ("no", "bf16", "fp16"):
            self.bf16, self.fp16 = launched == "bf16", launched == "fp16"
            return
        from transformers.utils import is_torch_bf16_gpu_available

        self.bf16 = not self.use_cpu and is_torch_bf16_gpu_available()


def parse_weights(text: str) -> dict[str, float]:
    """'a=1,b=2' → {'a': 1.0, 'b': 2.0}; domains must be known."""
    out: dict[str, float] = {}
    for item in filter(None, (s.strip() for s in text.split(","))):
        name, sep, value = item.partition("=")
        if not sep or name.strip() not in DOMAINS:
            raise ValueError(
                f"`domain_weights` item {item!r} must be domain=weight with a domain in {sorted(DOMAINS)}."
            )
        out[name.strip()] = float(value)
    return out


def parse_teachers(text: str) -> dict[str, str]:
    """'mobile=path,web=path' → {'mobile': 'path', 'web': 'path'}."""
    out: dict[str, str] = {}
    for item in filter(None, (s.strip() for s in text.split(","))):
        name, sep, path = item.partition("=")
        out[name.strip()] = path.strip()
        if not sep or not path.strip():
            raise ValueError(f"`teachers` item {item!r} must be domain=path, e.g. mobile=./teachers/mobile.")
    return out


@dataclass
class VenusSFTConfig(_DataFields, SFTConfig):
    """`venus train sft`: mid-training on trajectory rows, loss on the completion only."""

    completion_only_loss: bool | None = option("Loss on the completion tokens only (the model's reply).", True)
    max_length: int | None = option(
        "Truncate rows to this many tokens. None (default) never truncates: cutting image placeholders breaks "
        "Qwen-VL ('image features and image tokens do not match'); bound length with n_img instead.",
        None,
    )

    def __post_init__(self) -> None:
        self._check_data_fields()
        if self.packing and model_type(self.model) == "qwen3_5":
            raise ValueError("packing=True breaks Qwen3.5's Gated-DeltaNet sample boundaries; set packing=False.")
        if self.completion_only_loss is False and self.assistant_only_loss:
            raise ValueError(
                "assistant_only_loss needs a {% generation %} chat template; use completion_only_loss=True."
            )
        super().__post_init__()


def _check_grpo_common(cfg: GRPOConfig) -> None:
    if cfg.loss_type not in ("grpo", "bnpo", "dr_grpo", "dapo"):
        raise ValueError(f"loss_type={cfg.loss_type!r}: venuskit supports grpo, bnpo, dr_grpo and dapo.")
    if cfg.epsilon_high is not None and cfg.epsilon_high < cfg.epsilon:
        raise ValueError(
            f"epsilon_high ({cfg.epsilon_high}) is below epsilon ({cfg.epsilon}); the upper clip "
            "should be at least the lower one (DAPO uses 0.28 vs 0.2)."
        )


@dataclass
class VenusGRPOConfig(_DataFields, GRPOConfig):
    """`venus train grpo --domain D`: step-level GRPO with the rule rewards of one domain."""

    domain: str = option(f"Domain whose rewards to use: one of {sorted(DOMAINS)}.", "")
    format_weight: float = option("w_f: weight of the format reward (keep it small; format rewards get hacked).", 0.1)
    type_weight: float = option("w_t: weight of the action-type reward.", 0.3)
    param_weight: float = option("w_p: weight of the parameter reward (counts only when the type is right).", 0.6)
    point_tol: float = option("Point hit radius (normalised units) when a row has no target box.", 0.05)
    text_f1: float = option("τ: token-F1 a Type/Finished/CallUser/Answer content needs to count as right.", 0.5)
    shaping: str = option("Pointer misses: 'none' (0) or 'gaussian' (0.5·exp(-d²/2σ²), σ=0.05).", "none")
    epsilon_high: float | None = option("Upper clip ε_high of the asymmetric (DAPO) clip; ε_low is `epsilon`.", 0.28)

    def __post_init__(self) -> None:
        self._check_data_fields()
        if self.domain not in DOMAINS:
            raise ValueError(f"`domain`={self.domain!r} is not a domain; pass --domain with one of {sorted(DOMAINS)}.")
        if min(self.format_weight, self.type_weight, self.param_weight) < 0:
            raise ValueError("Reward weights must be >= 0; set format_weight/type_weight/param_weight accordingly.")
        if self.shaping not in ("none", "gaussian"):
            raise ValueError(f"`shaping`={self.shaping!r}: use 'none' or 'gaussian'.")
        super().__post_init__()
        _check_grpo_common(self)

    def reward_options(self) -> RewardOptions:
        return RewardOptions(point_tol=self.point_tol, text_f1=self.text_f1, shaping=self.shaping)  # type: ignore[arg-type]


@dataclass
class VenusMOPDConfig(_DataFields, GRPOConfig):
    """`venus train mopd --teachers mobile=path,...`: multi-teacher on-policy distillation."""

    teachers: str = option("Domain teachers: 'domain=model_folder,...'; every domain in the data needs one.", "")
    lam: float = option("λ: extra weight on the action span when the type is right but a parameter is wrong.", 1.0)
    estimator: str = option(
        "'sampled' (teacher log-probs of the sampled tokens; vLLM teachers work) or 'exact' "
        "(full-vocabulary reverse KL; local teachers).",
        "sampled",
    )
    unparsable_weight: float = option("Weight on every token of a reply that does not parse (0 ignores them).", 1.0)
    hint: bool = option("Put 'The correct action type is X.' in the teacher's prompt (never the student's).", True)
    teacher_prefix_sharing: bool = option(
        "Run each group's shared hinted teacher prompt once and score the group's completions from its KV cache "
        "(same log-probs up to float rounding, ~num_generations x less teacher prompt compute). False runs one "
        "full teacher forward per sample; models without Qwen-VL mRoPE indexing always do.",
        True,
    )
    num_generations: int | None = option("Samples per prompt (MOPD needs no group baseline; 2 is enough).", 2)
    epsilon_high: float | None = option("Upper clip ε_high; ε_low is `epsilon`.", 0.2)

    def __post_init__(self) -> None:
        self._check_data_fields()
        self.teacher_paths = parse_teachers(self.teachers)
        if not self.teacher_paths:
            raise ValueError("`teachers` is required: pass --teachers domain=model_folder[,domain=model_folder...].")
        for domain, path in self.teacher_paths.items():
            if domain not in DOMAINS:
                raise ValueError(f"`teachers` names domain {domain!r}; domains are {sorted(DOMAINS)}.")
            if not (Path(path) / "config.json").is_file():
                raise ValueError(f"`teachers`: the {domain} teacher {path!r} has no config.json; fix the path.")
        if self.estimator not in ("sampled", "exact"):
            raise ValueError(f"`estimator`={self.estimator!r}: use 'sampled' or 'exact'.")
        if self.lam < 0 or self.unparsable_weight < 0:
            raise ValueError("`lam` and `unparsable_weight` must be >= 0.")
        if self.beta != 0.0:
            raise ValueError("MOPD distils toward the teachers, not a reference model; set beta=0.")
        if self.estimator == "exact" and self.use_vllm:
            raise ValueError(
                "estimator='exact' needs the teacher's full logits (a local teacher); use "
                "estimator='sampled' with use_vllm, or drop use_vllm."
            )
        super().__post_init__()
        _check_grpo_common(self)
