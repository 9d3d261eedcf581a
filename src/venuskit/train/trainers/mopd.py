"""MOPD on TRL: `MOPDTrainer`, a GRPOTrainer whose advantages are per-token signals from domain teachers, the
teachers' hinted prompts (with a group's shared prefix scored once), and `make_mopd_trainer`.

MOPDTrainer overrides TRL private methods (`_generate_and_score_completions`, `_compute_loss`,
`_get_per_token_logps_and_entropies`); pyproject pins TRL's upper bound and tests/train/test_trainers.py fails with
a clear message when those methods change.
"""

from __future__ import annotations

import functools
from dataclasses import dataclass
from typing import Any

import torch
from trl import GRPOTrainer

from venuskit.train import losses as L
from venuskit.train.data import to_dataset
from venuskit.train.processing import load_processor
from venuskit.train.rewards import action_type_reward, gt_actions_of, gt_boxes_of, judge, parse_reply
from venuskit.train.trainers import stages
from venuskit.train.trainers.configs import VenusMOPDConfig


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
    rows = rows if rows is not None else stages.load_rows(cfg, "rl")
    missing = sorted({r["domain"] for r in rows} - set(cfg.teacher_paths))
    if missing:
        raise ValueError(
            f"`teachers` has no teacher for the data's domain(s) {missing}; add "
            f"{','.join(f'{d}=PATH' for d in missing)} to --teachers."
        )
    needed = {r["domain"] for r in rows}
    dtype = stages.teacher_dtype(cfg)
    teachers = {d: stages.load_model(p, dtype) for d, p in cfg.teacher_paths.items() if d in needed}
    return MOPDTrainer(
        model=stages.load_model(cfg.model),
        args=cfg,
        train_dataset=to_dataset(rows),
        processing_class=load_processor(cfg.model),
        teachers=teachers,
    )
