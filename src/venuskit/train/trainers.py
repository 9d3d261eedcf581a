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
"""

from __future__ import annotations

import functools
import json
import logging
import os
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import torch
from trl import GRPOConfig, GRPOTrainer, SFTConfig, SFTTrainer

from venuskit.record.store import iter_episode_dirs
from venuskit.train import losses as L
from venuskit.train.data import (
    DOMAINS,
    Rejections,
    VerdictFilter,
    build_rows,
    dedup,
    mix_domains,
    to_dataset,
    validate_rows,
)
from venuskit.train.processing import load_processor, model_type
from venuskit.train.rewards import (
    RewardOptions,
    RewardWeights,
    action_type_reward,
    domain_rewards,
    gt_actions_of,
    gt_boxes_of,
    judge,
    parse_reply,
)

log = logging.getLogger(__name__)
os.environ.setdefault("HF_HUB_OFFLINE", "1") if os.environ.get("VENUSKIT_OFFLINE") else None


# ---- configs --------------------------------------------------------------------------------------


def _help(text: str, default: Any) -> Any:
    return field(default=default, metadata={"help": text})


@dataclass
class _DataFields:
    """Fields every stage shares (mixed into the TRL configs)."""

    model: str = _help("Base model folder (HF format: config.json, weights, tokenizer, processor).", "")
    data: str = _help(
        "Training data: a folder of recorded episodes (one sub-folder per episode) or a rows .jsonl written by "
        "`venuskit.train.data` / `venus train rows`.",
        "",
    )
    n_img: int = _help("Past screenshots kept in each prompt (UI-Venus-2 N_IMG; the current one is always sent).", 2)
    domain_weights: str = _help("Domain mix, e.g. 'grounding=1,mobile=2' (empty: keep the data's own mix).", "")
    verdict_slot: str = _help(
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

    completion_only_loss: bool | None = _help("Loss on the completion tokens only (the model's reply).", True)
    max_length: int | None = _help(
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

    domain: str = _help(f"Domain whose rewards to use: one of {sorted(DOMAINS)}.", "")
    format_weight: float = _help("w_f: weight of the format reward (keep it small; format rewards get hacked).", 0.1)
    type_weight: float = _help("w_t: weight of the action-type reward.", 0.3)
    param_weight: float = _help("w_p: weight of the parameter reward (counts only when the type is right).", 0.6)
    point_tol: float = _help("Point hit radius (normalised units) when a row has no target box.", 0.05)
    text_f1: float = _help("τ: token-F1 a Type/Finished/CallUser/Answer content needs to count as right.", 0.5)
    shaping: str = _help("Pointer misses: 'none' (0) or 'gaussian' (0.5·exp(-d²/2σ²), σ=0.05).", "none")
    epsilon_high: float | None = _help("Upper clip ε_high of the asymmetric (DAPO) clip; ε_low is `epsilon`.", 0.28)

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

    teachers: str = _help("Domain teachers: 'domain=model_folder,...'; every domain in the data needs one.", "")
    lam: float = _help("λ: extra weight on the action span when the type is right but a parameter is wrong.", 1.0)
    estimator: str = _help(
        "'sampled' (teacher log-probs of the sampled tokens; vLLM teachers work) or 'exact' "
        "(full-vocabulary reverse KL; local teachers).",
        "sampled",
    )
    unparsable_weight: float = _help("Weight on every token of a reply that does not parse (0 ignores them).", 1.0)
    hint: bool = _help("Put 'The correct action type is X.' in the teacher's prompt (never the student's).", True)
    teacher_prefix_sharing: bool = _help(
        "Run each group's shared hinted teacher prompt once and score the group's completions from its KV cache "
        "(same log-probs up to float rounding, ~num_generations x less teacher prompt compute). False runs one "
        "full teacher forward per sample; models without Qwen-VL mRoPE indexing always do.",
        True,
    )
    num_generations: int | None = _help("Samples per prompt (MOPD needs no group baseline; 2 is enough).", 2)
    epsilon_high: float | None = _help("Upper clip ε_high; ε_low is `epsilon`.", 0.2)

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


# ---- data and models ------------------------------------------------------------------------------


def load_rows(cfg: _DataFields, kind: str) -> list[dict[str, Any]]:
    """Rows for `kind` ("sft" or "rl") from cfg.data (episodes folder or rows .jsonl); bad rows are logged."""
    path = Path(cfg.data)
    weights = parse_weights(cfg.domain_weights) or None
    verdict = VerdictFilter(slot=cfg.verdict_slot) if cfg.verdict_slot else None
    if path.is_dir():
        rows, _ = build_rows(
            list(iter_episode_dirs(path)), kind, n_img=cfg.n_img, verdict=verdict, domain_weights=weights
        )
    else:
        rej = Rejections()
        raw = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
        rows = dedup(validate_rows(raw, rej, kind), rej)
        rows = mix_domains(rows, weights) if weights else rows
        rej.log(f"{kind} rows")
    if not rows:
        raise ValueError(f"No usable {kind} rows in {cfg.data}; see the rejection counts logged above.")
    return rows


def load_model(path: str | Path, dtype: torch.dtype = torch.float32) -> Any:
    """A trainable model keeps float32 master weights (mixed precision computes in bf16/fp16 under autocast)."""
    from transformers import AutoModelForImageTextToText

    return AutoModelForImageTextToText.from_pretrained(path, dtype=dtype)


def _teacher_dtype(cfg: Any) -> torch.dtype:
    """Frozen teachers need no float32 master copy: they are stored in the run's compute precision (a 9B teacher
    is 18 GB in bf16 instead of 36 GB; its matmuls ran in bf16 under autocast anyway)."""
    return torch.bfloat16 if cfg.bf16 else torch.float16 if cfg.fp16 else torch.float32


def resolve_resume(cfg: Any) -> str | None:
    """cfg.resume_from_checkpoint: None, a checkpoint path, or "last" (the newest checkpoint in output_dir)."""
    from transformers.trainer_utils import get_last_checkpoint

    value = cfg.resume_from_checkpoint
    if value in (None, "", False):
        return None
    if value in ("last", True, "true", "True"):
        last = get_last_checkpoint(cfg.output_dir) if Path(cfg.output_dir).is_dir() else None
        if last is None:
            raise ValueError(f"resume_from_checkpoint='last' but {cfg.output_dir} holds no checkpoint-* folder.")
        return last
    return str(value)


# ---- SFT and GRPO -----------------------------------------------------------------------------------


def make_sft_trainer(cfg: VenusSFTConfig, rows: list[dict[str, Any]] | None = None) -> SFTTrainer:
    rows = rows if rows is not None else load_rows(cfg, "sft")
    dataset = to_dataset([{k: r[k] for k in ("prompt", "completion", "images")} for r in rows])
    return SFTTrainer(
        model=load_model(cfg.model), args=cfg, train_dataset=dataset, processing_class=load_processor(cfg.model)
    )


def make_grpo_trainer(cfg: VenusGRPOConfig, rows: list[dict[str, Any]] | None = None) -> GRPOTrainer:
    rows = rows if rows is not None else load_rows(cfg, "rl")
    rows = [r for r in rows if r["domain"] == cfg.domain] or _no_domain_rows(cfg.domain, rows)
    weights = RewardWeights(cfg.format_weight, cfg.type_weight, cfg.param_weight)
    funcs, reward_weights = domain_rewards(cfg.domain, weights, cfg.reward_options())
    cfg.reward_weights = reward_weights
    return GRPOTrainer(
        model=load_model(cfg.model),
        reward_funcs=funcs,
        args=cfg,
        train_dataset=to_dataset(rows),
        processing_class=load_processor(cfg.model),
    )


def _no_domain_rows(domain: str, rows: list[dict[str, Any]]) -> list[dict[str, Any]]:
    present = sorted({r["domain"] for r in rows})
    raise ValueError(f"`domain`={domain!r} but the data has no rows of that domain; it holds {present}.")


def train(trainer: Any, cfg: Any) -> Any:
    """Run training (resuming if asked), save the final model and processor to output_dir; returns TRL's output."""
    checkpoint = resolve_resume(cfg)
    if checkpoint is not None:
        _restore_weights(trainer, checkpoint)
    result = trainer.train(resume_from_checkpoint=checkpoint)
    trainer.save_model(cfg.output_dir)
    trainer.processing_class.save_pretrained(cfg.output_dir)
    return result


def _restore_weights(trainer: Any, checkpoint: str) -> None:
    """Load a checkpoint's weights through from_pretrained. transformers 5.x saves Qwen-VL weights in the
    checkpoint key layout (visual.*, model.layers.*), which Trainer's raw state-dict loader does not convert back:
    it warns about missing keys and silently keeps the old weights. Optimizer, scheduler and RNG state are still
    restored by Trainer."""
    restored = load_model(checkpoint).state_dict()
    trainer.accelerator.unwrap_model(trainer.model).load_state_dict(restored)
    trainer._load_from_checkpoint = lambda *args, **kwargs: None


# ---- MOPD -------------------------------------------------------------------------------------------


class MOPDTrainer(GRPOTrainer):
    """GRPOTrainer whose advantages are per-token MOPD signals from domain teachers (see the module docstring)."""

    def __init__(self, *args: Any, teachers: dict[str, Any], **kwargs: Any) -> None:
        args_cfg: VenusMOPDConfig = kwargs["args"]
        kwargs.setdefault("reward_funcs", [_named_type_reward])
        args_cfg.reward_weights = [0.0]  # the task reward is logged only; teachers supply the signal
        super().__init__(*args, **kwargs)
        from trl.trainer.utils import add_fused_lm_head

        self.mopd = args_cfg
        self.teachers: dict[str, Any] = {}
        for domain, model in teachers.items():
            model.eval().requires_grad_(False)
            if args_cfg.estimator == "sampled":
                add_fused_lm_head(model, temperature=self.temperature)
            self.teachers[domain] = self.accelerator.prepare_model(model, evaluation_mode=True)
        self._mopd_pending: dict[str, Any] | None = None

    # -- scoring a generation batch
    def _generate_and_score_completions(self, inputs: list[dict[str, Any]]) -> dict[str, Any]:
        out = super()._generate_and_score_completions(inputs)
        weights = self._mopd_weights(out["completion_ids"], out["completion_mask"], inputs)
        teacher = self._teacher_prompts(out, inputs)
        out["mopd_weights"] = weights
        if self.mopd.estimator == "exact":
            # Full teacher log-probs (B, T, V): exact reverse KL needs them; memory grows with the vocabulary.
            out["mopd_teacher_logprobs"] = self._teacher_full_logprobs(out, inputs, teacher)
        else:
            out["mopd_teacher_logps"] = self._teacher_logps(out, inputs, teacher)
            old = out.get("sampling_per_token_logps", out.get("old_per_token_logps"))
            if old is not None:  # otherwise set in the loss forward, where π_old = π_θ (see _get_per_token_logps...)
                out["advantages"] = L.mopd_advantages(out["mopd_teacher_logps"], old, weights)
        supervised = (weights > 0).to(out["completion_mask"].dtype)
        out["tool_mask"] = supervised * out["tool_mask"] if "tool_mask" in out else supervised
        mask = out["completion_mask"] * out["tool_mask"]
        out["num_items_in_batch"] = self.accelerator.gather(mask.sum()).sum()
        self._log_mopd(weights, out["completion_mask"])
        return out

    def _mopd_weights(
        self, completion_ids: torch.Tensor, completion_mask: torch.Tensor, inputs: list[dict[str, Any]]
    ) -> torch.Tensor:
        tok = self._tokenizer
        rows = []
        for ids, m, x in zip(completion_ids.tolist(), completion_mask.tolist(), inputs, strict=True):
            ids = ids[: int(sum(m))]
            text = tok.decode(ids, skip_special_tokens=True, clean_up_tokenization_spaces=False)
            gt = gt_actions_of(x["gt_actions"]) or []
            response = parse_reply(text, x["surface"])
            verdicts = (
                None if response is None else judge(response.actions, gt, gt_boxes_of(x.get("gt_boxes"), len(gt)))
            )
            spans = response.action_spans if response is not None else []
            offsets = L.token_char_offsets(tok, ids)
            w = L.mopd_token_weights(
                offsets, verdicts, spans, len(gt), lam=self.mopd.lam, unparsable_weight=self.mopd.unparsable_weight
            )
            rows.append(w + [0.0] * (completion_ids.size(1) - len(w)))
        return torch.tensor(rows, dtype=torch.float32, device=completion_ids.device)

    def _teacher_prompts(self, out: dict[str, Any], inputs: list[dict[str, Any]]) -> TeacherPrompts:
        """The distinct hinted teacher prompts of the batch, tokenised with the student's image token counts.

        The images are the student's, so the teacher reuses the pixel_values TRL already computed; only the text
        differs (the hint). Samples of one GRPO group (same prompt, images and hint) share one row."""
        from trl.data_utils import apply_chat_template, prepare_multimodal_messages

        vision = _SampleVision.of(out)
        prompt_ids, prompt_mask = out["prompt_ids"].tolist(), out["prompt_mask"].tolist()  # one device sync
        owner, reps, seen = [], [], {}
        for i, x in enumerate(inputs):
            key = (self._hint(x), tuple(t for t, m in zip(prompt_ids[i], prompt_mask[i], strict=True) if m))
            row = next((u for u in seen.get(key, []) if vision.same(reps[u], i)), None)
            if row is None:
                row = len(reps)
                reps.append(i)
                seen.setdefault(key, []).append(row)
            owner.append(row)
        texts = []
        for i in reps:
            prompt = inputs[i]["prompt"]
            prompt = L.hinted_messages(prompt, self._hint(inputs[i])) if self.mopd.hint else prompt
            imgs = inputs[i].get("images")
            prompt = prepare_multimodal_messages(prompt, images=imgs) if imgs else prompt
            text = apply_chat_template({"prompt": prompt}, self.processing_class, **self.chat_template_kwargs)
            texts.append(_expand_image_tokens(self.processing_class, text["prompt"], vision.grids(i)))
        return TeacherPrompts.build(self.processing_class, texts, reps, owner, vision, self.accelerator.device)

    def _hint(self, x: dict[str, Any]) -> str:
        return L.action_type_hint([a.name for a in gt_actions_of(x["gt_actions"]) or []]) if self.mopd.hint else ""

    @torch.no_grad()
    def _teacher_logps(
        self, out: dict[str, Any], inputs: list[dict[str, Any]], teacher: TeacherPrompts
    ) -> torch.Tensor:
        """log π_T(y_t | hinted prompt, y_<t) of the sampled completion tokens, each sample on its domain's teacher."""
        result = torch.zeros_like(out["completion_ids"], dtype=torch.float32)
        for domain, idx in _groups(inputs).items():
            result[idx] = self._score_teacher(self.teachers[domain], out, teacher, idx, full_vocab=False).float()
        return result

    def _score_teacher(
        self, model: Any, out: dict[str, Any], prompts: TeacherPrompts, idx: list[int], full_vocab: bool
    ) -> torch.Tensor:
        """Teacher log-probs on the completion tokens of samples `idx`: (n, T) of the sampled tokens, or (n, T, V)
        over the vocabulary when full_vocab (exact estimator; the teacher then has no fused head)."""
        core = self.accelerator.unwrap_model(model)
        rows = sorted({prompts.owner[i] for i in idx})
        local = torch.tensor([rows.index(prompts.owner[i]) for i in idx], device=self.accelerator.device)
        completion_ids, completion_mask = out["completion_ids"][idx], out["completion_mask"][idx]
        T = completion_ids.size(1)
        with self.accelerator.autocast():
            if self.mopd.teacher_prefix_sharing and hasattr(core.base_model, "get_rope_index"):
                kw = _shared_prefix_inputs(core, prompts.select(rows), local, completion_ids, completion_mask)
            else:
                kw = prompts.select(rows).full_inputs(local, completion_ids, completion_mask)
            if full_vocab:
                logits = L.completion_positions(model(**kw).logits, T).float() / self.temperature
                return torch.log_softmax(logits, -1)
            labels = kw["input_ids"].masked_fill(kw["attention_mask"][:, -kw["input_ids"].size(1) :] == 0, -100)
            labels[:, :-T] = -100
            return model(**kw, labels=labels, fused_lm_head=True).log_probs[:, -T:]

    # -- the loss
    def _compute_loss(self, model: Any, inputs: dict[str, Any]) -> torch.Tensor:
        if self.mopd.estimator == "exact":
            return self._exact_loss(model, inputs)
        if inputs.get("old_per_token_logps") is None and inputs.get("sampling_per_token_logps") is None:
            self._mopd_pending = inputs  # advantages need π_old = the loss forward's own log-probs, detached
        try:
            return super()._compute_loss(model, inputs)
        finally:
            self._mopd_pending = None

    def _get_per_token_logps_and_entropies(self, model: Any, *args: Any, **kwargs: Any) -> Any:
        result = super()._get_per_token_logps_and_entropies(model, *args, **kwargs)
        pending = self._mopd_pending
        if pending is not None and kwargs.get("compute_entropy"):
            # TRL's _compute_loss reads inputs["advantages"] right after this forward; with one update per
            # generation batch π_old equals these log-probs, which saves a separate no-grad student forward.
            pending["advantages"] = L.mopd_advantages(
                pending["mopd_teacher_logps"], result[0].detach(), pending["mopd_weights"]
            )
            self._mopd_pending = None
        return result

    @torch.no_grad()
    def _teacher_full_logprobs(
        self, out: dict[str, Any], inputs: list[dict[str, Any]], teacher: TeacherPrompts
    ) -> torch.Tensor:
        result: torch.Tensor | None = None
        for domain, idx in _groups(inputs).items():
            logprobs = self._score_teacher(self.teachers[domain], out, teacher, idx, full_vocab=True)
            if result is None:
                result = logprobs.new_zeros((out["completion_ids"].size(0), *logprobs.shape[1:]))
            result[idx] = logprobs
        assert result is not None
        return result

    def _exact_loss(self, model: Any, inputs: dict[str, Any]) -> torch.Tensor:
        """Σ_t w_t·KL(π_θ‖π_T)_t over supervised tokens, normalised like TRL's dapo loss."""
        student = self._full_logits(model, _student_inputs(inputs), inputs["completion_ids"].size(1))
        per_token = inputs["mopd_weights"] * L.exact_reverse_kl(student, inputs["mopd_teacher_logprobs"])
        mask = inputs["completion_mask"] * inputs["tool_mask"]
        n = inputs["num_items_in_batch"].clamp(min=1.0) / self.accelerator.num_processes
        n = n * self.current_gradient_accumulation_steps / self.args.steps_per_generation
        return (per_token * mask).sum() / n

    def _full_logits(self, model: Any, kw: dict[str, Any], T: int) -> torch.Tensor:
        kw = dict(kw)
        kw.pop("num_images", None)
        logits = model(**kw).logits
        return L.completion_positions(logits, T).float() / self.temperature

    def _log_mopd(self, weights: torch.Tensor, mask: torch.Tensor) -> None:
        mode = "train" if self.model.training else "eval"
        supervised = ((weights > 0) * mask).sum() / mask.sum().clamp(min=1)
        self._metrics[mode]["mopd/supervised_token_frac"].append(self.accelerator.gather(supervised).mean().item())


@dataclass
class _SampleVision:
    """Per-sample slices of the student's vision inputs (TRL concatenates every sample's images in order)."""

    pixel_values: torch.Tensor | None
    image_grid_thw: torch.Tensor | None
    image_start: list[int]  # sample i owns images image_start[i]:image_start[i+1] ...
    row_start: list[int]  # ... and pixel rows row_start[i]:row_start[i+1]

    @classmethod
    def of(cls, out: dict[str, Any]) -> _SampleVision:
        n = out["prompt_ids"].size(0)
        num_images = out.get("num_images") or [0] * n
        grid = out.get("image_grid_thw")
        rows = grid.prod(-1).tolist() if grid is not None else []
        image_start = [0]
        for k in num_images:
            image_start.append(image_start[-1] + k)
        row_start = [sum(rows[:s]) for s in image_start]
        return cls(out.get("pixel_values"), grid, image_start, row_start)

    def grids(self, i: int) -> torch.Tensor | None:
        grid = self.image_grid_thw
        return None if grid is None else grid[self.image_start[i] : self.image_start[i + 1]]

    def pixels(self, i: int) -> torch.Tensor | None:
        return None if self.pixel_values is None else self.pixel_values[self.row_start[i] : self.row_start[i + 1]]

    def same(self, i: int, j: int) -> bool:
        """Whether samples i and j carry identical images (a GRPO group repeats one row G times)."""
        if self.pixel_values is None:
            return True
        gi, gj = self.grids(i), self.grids(j)
        return gi.shape == gj.shape and torch.equal(gi, gj) and torch.equal(self.pixels(i), self.pixels(j))


def _expand_image_tokens(processor: Any, text: str, grids: torch.Tensor | None) -> str:
    """Replace each image placeholder in a templated prompt by the image's tokens, as the processor does when it
    processes the image itself; the grids come from the student's already-processed images."""
    token = getattr(processor, "image_token", None)
    if grids is None or token is None:
        return text
    parts = text.split(token)
    if len(parts) - 1 != grids.size(0):
        raise ValueError(f"The teacher prompt has {len(parts) - 1} image placeholders for {grids.size(0)} images.")
    expanded = [processor.replace_image_token({"image_grid_thw": grids}, k) for k in range(grids.size(0))]
    return parts[0] + "".join(e + rest for e, rest in zip(expanded, parts[1:], strict=True))


@dataclass
class TeacherPrompts:
    """The distinct hinted teacher prompts of a generation batch (left-padded rows) and which row each sample uses."""

    owner: list[int]  # sample i's teacher prompt is row owner[i]
    input_ids: torch.Tensor  # (U, P)
    attention_mask: torch.Tensor
    mm_token_type_ids: torch.Tensor | None
    pixel_values: torch.Tensor | None  # the rows' images, concatenated in row order
    image_grid_thw: torch.Tensor | None
    num_images: list[int]  # per row

    @classmethod
    def build(
        cls, processor: Any, texts: list[str], reps: list[int], owner: list[int], vision: _SampleVision, device: Any
    ) -> TeacherPrompts:
        tokenizer = getattr(processor, "tokenizer", processor)
        enc = tokenizer(texts, padding=True, padding_side="left", return_tensors="pt")
        ids = enc["input_ids"].to(device)
        mm = None
        if getattr(processor, "image_token_id", None) is not None:
            mm = (ids == processor.image_token_id).long() + 2 * (ids == processor.video_token_id).long()
        pixels = [vision.pixels(i) for i in reps]
        grids = [vision.grids(i) for i in reps]
        return cls(
            owner=owner,
            input_ids=ids,
            attention_mask=enc["attention_mask"].to(device),
            mm_token_type_ids=mm,
            pixel_values=None if vision.pixel_values is None else torch.cat(pixels),
            image_grid_thw=None if vision.image_grid_thw is None else torch.cat(grids),
            num_images=[vision.image_start[i + 1] - vision.image_start[i] for i in reps],
        )

    def select(self, rows: list[int]) -> TeacherPrompts:
        """The prompts of `rows` only (one domain's), with their images; owner is left unchanged."""
        pixels = grids = None
        if self.image_grid_thw is not None:
            starts = [sum(self.num_images[:r]) for r in range(len(self.num_images) + 1)]
            sizes = self.image_grid_thw.prod(-1).tolist()
            row_starts = [sum(sizes[:start]) for start in starts]
            grids = torch.cat([self.image_grid_thw[starts[r] : starts[r + 1]] for r in rows])
            pixels = torch.cat([self.pixel_values[row_starts[r] : row_starts[r + 1]] for r in rows])
        mm = None if self.mm_token_type_ids is None else self.mm_token_type_ids[rows]
        n = [self.num_images[r] for r in rows]
        return TeacherPrompts(self.owner, self.input_ids[rows], self.attention_mask[rows], mm, pixels, grids, n)

    def vision_kwargs(self) -> dict[str, Any]:
        kw: dict[str, Any] = {}
        if self.pixel_values is not None:
            kw["pixel_values"], kw["image_grid_thw"] = self.pixel_values, self.image_grid_thw
        return kw

    def full_inputs(
        self, local: torch.Tensor, completion_ids: torch.Tensor, completion_mask: torch.Tensor
    ) -> dict[str, Any]:
        """One full forward per sample: its row's prompt followed by its completion (images repeated per sample)."""
        kw: dict[str, Any] = {
            "input_ids": torch.cat([self.input_ids[local], completion_ids], dim=1),
            "attention_mask": torch.cat([self.attention_mask[local], completion_mask], dim=1),
        }
        if self.mm_token_type_ids is not None:
            mm = self.mm_token_type_ids[local]
            kw["mm_token_type_ids"] = torch.cat([mm, mm.new_zeros(completion_ids.shape)], dim=1)
        if self.pixel_values is not None:
            repeated = self.select(local.tolist())
            kw["pixel_values"], kw["image_grid_thw"] = repeated.pixel_values, repeated.image_grid_thw
        return kw


def _shared_prefix_inputs(
    core: Any,
    prompts: TeacherPrompts,
    local: torch.Tensor,
    completion_ids: torch.Tensor,
    completion_mask: torch.Tensor,
) -> dict[str, Any]:
    """Model inputs that score each completion after its (shared) teacher prompt from a KV cache.

    The prompts minus their last token run once (images included); the cache is then repeated per sample and the
    forward continues with [last prompt token, completion]: its T outputs predict exactly the completion tokens.
    Positions are the full sequence's mRoPE positions: the prompt's own, then +1 per token after the last
    (text) prompt token, which is what the model computes for prompt + completion in one pass."""
    backbone = core.base_model
    ids, mask = prompts.input_ids, prompts.attention_mask
    positions, _ = backbone.get_rope_index(
        ids, mm_token_type_ids=prompts.mm_token_type_ids, image_grid_thw=prompts.image_grid_thw, attention_mask=mask
    )
    prefill = backbone(
        input_ids=ids[:, :-1],
        attention_mask=mask[:, :-1],
        position_ids=positions[..., :-1],
        mm_token_type_ids=None if prompts.mm_token_type_ids is None else prompts.mm_token_type_ids[:, :-1],
        use_cache=True,
        **prompts.vision_kwargs(),
    )
    kv = getattr(prefill, "cache", None) or prefill.past_key_values
    kv.reorder_cache(local)  # one copy of its prompt's cache per sample
    steps = torch.arange(completion_ids.size(1) + 1, device=ids.device)
    return {
        "input_ids": torch.cat([ids[local, -1:], completion_ids], dim=1),
        "attention_mask": torch.cat([mask[local], completion_mask], dim=1),
        "position_ids": positions[:, local, -1:] + steps,
        _cache_kwarg(backbone): kv,
    }


@functools.cache
def _cache_kwarg_of(cls: type) -> str:
    import inspect

    return "cache" if "cache" in inspect.signature(cls.forward).parameters else "past_key_values"


def _cache_kwarg(backbone: Any) -> str:
    return _cache_kwarg_of(type(backbone))


def _student_inputs(inputs: dict[str, Any]) -> dict[str, Any]:
    kw = {
        "input_ids": torch.cat([inputs["prompt_ids"], inputs["completion_ids"]], dim=1),
        "attention_mask": torch.cat([inputs["prompt_mask"], inputs["completion_mask"]], dim=1),
    }
    for key in ("pixel_values", "image_grid_thw", "mm_token_type_ids"):
        if key in inputs:
            kw[key] = inputs[key]
    return kw


def _groups(inputs: list[dict[str, Any]]) -> dict[str, list[int]]:
    """Sample indices per domain (each domain's samples go to its own teacher in one forward)."""
    groups: dict[str, list[int]] = {}
    for i, x in enumerate(inputs):
        groups.setdefault(x["domain"], []).append(i)
    return groups


def _named_type_reward(completions: list[Any], **kw: Any) -> list[float | None]:
    return action_type_reward(completions, **kw)


_named_type_reward.__name__ = "action_type"


def make_mopd_trainer(cfg: VenusMOPDConfig, rows: list[dict[str, Any]] | None = None) -> MOPDTrainer:
    rows = rows if rows is not None else load_rows(cfg, "rl")
    missing = sorted({r["domain"] for r in rows} - set(cfg.teacher_paths))
    if missing:
        raise ValueError(
            f"`teachers` has no teacher for the data's domain(s) {missing}; add "
            f"{','.join(f'{d}=PATH' for d in missing)} to --teachers."
        )
    needed = {r["domain"] for r in rows}
    teachers = {d: load_model(p, _teacher_dtype(cfg)) for d, p in cfg.teacher_paths.items() if d in needed}
    return MOPDTrainer(
        model=load_model(cfg.model),
        args=cfg,
        train_dataset=to_dataset(rows),
        processing_class=load_processor(cfg.model),
        teachers=teachers,
    )
