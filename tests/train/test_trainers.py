"""Trainer configs refuse bad combinations before any model loads; every trainer saves, resumes and changes
every trainable parameter (real TRL, tiny Qwen2.5-VL, CPU)."""

from __future__ import annotations

import pytest
import torch  # noqa: E402
from train_fixtures import fast_args, grounding_rows, record_episodes  # noqa: E402

from venuskit.train import trainers as T  # noqa: E402
from venuskit.train.trainers import stages  # noqa: E402


@pytest.fixture()
def episodes(tmp_path):
    record_episodes(tmp_path / "eps", 2)
    return tmp_path / "eps"


def test_configs_refuse_bad_values_naming_the_field(tiny_model, episodes, tmp_path):
    common = dict(model=str(tiny_model), data=str(episodes), **fast_args(tmp_path / "o"))
    with pytest.raises(ValueError, match="`teachers`: the mobile teacher .* has no config.json"):
        T.VenusMOPDConfig(teachers=f"mobile={tmp_path}/nope", **common)
    with pytest.raises(ValueError, match="`teachers` names domain 'desk'"):
        T.VenusMOPDConfig(teachers=f"desk={tiny_model}", **common)
    with pytest.raises(ValueError, match="set beta=0"):
        T.VenusMOPDConfig(teachers=f"mobile={tiny_model}", beta=0.1, **common)
    with pytest.raises(ValueError, match="`domain`='desk' is not a domain"):
        T.VenusGRPOConfig(domain="desk", **common)
    with pytest.raises(ValueError, match="epsilon_high"):
        T.VenusGRPOConfig(domain="mobile", epsilon=0.3, epsilon_high=0.2, num_generations=4, **common)
    with pytest.raises(ValueError, match="`data`=.* does not exist"):
        T.VenusSFTConfig(**dict(common, data=str(tmp_path / "missing")))
    with pytest.raises(ValueError, match="`domain_weights` item 'desk=1'"):
        T.VenusSFTConfig(domain_weights="desk=1", **common)


def test_mopd_without_a_teacher_for_a_data_domain_fails_before_loading(tiny_model, episodes, tmp_path, monkeypatch):
    cfg = T.VenusMOPDConfig(
        model=str(tiny_model), data=str(episodes), teachers=f"web={tiny_model}", **fast_args(tmp_path / "o")
    )

    def no_load(path):
        raise AssertionError("a model was loaded before the config was checked")

    monkeypatch.setattr(stages, "load_model", no_load)
    with pytest.raises(ValueError, match=r"`teachers` has no teacher for the data's domain\(s\) \['mobile'\]"):
        T.make_mopd_trainer(cfg)
    grpo = T.VenusGRPOConfig(
        model=str(tiny_model), data=str(episodes), domain="web", num_generations=4, **fast_args(tmp_path / "g")
    )
    with pytest.raises(ValueError, match="no rows of that domain"):
        T.make_grpo_trainer(grpo)


# What MOPDTrainer relies on in TRL's GRPOTrainer: the private methods it overrides (their parameters) and what
# their bodies do with the batch dict (keys written and read, the entropy forward before advantages are read).
TRL_PRIVATE = {
    "_generate_and_score_completions": (["self", "inputs"],
                                        ['"completion_ids"', '"completion_mask"', '"old_per_token_logps"',
                                         '"sampling_per_token_logps"', '"advantages"']),
    "_compute_loss": (["self", "model", "inputs"],
                      ['inputs["advantages"]', '"tool_mask"', '"num_items_in_batch"', "compute_entropy=True"]),
    "_get_per_token_logps_and_entropies": (["self", "model", "input_ids", "attention_mask", "logits_to_keep"], []),
}  # fmt: skip


def test_trl_still_has_the_private_methods_mopd_overrides():
    import inspect
    import re
    import tomllib
    from pathlib import Path

    import trl
    from packaging.version import Version
    from trl import GRPOTrainer

    deps = tomllib.loads((Path(__file__).parents[2] / "pyproject.toml").read_text())["project"]
    spec = next(d for d in deps["optional-dependencies"]["train"] if d.startswith("trl"))
    low, high = re.fullmatch(r"trl>=([\d.]+),<([\d.]+)", spec).groups()
    assert Version(low) <= Version(trl.__version__) < Version(high), f"trl {trl.__version__} is outside {spec}"
    for name, (params, fragments) in TRL_PRIVATE.items():
        method = getattr(GRPOTrainer, name, None)
        assert method is not None, f"TRL {trl.__version__} has no GRPOTrainer.{name}, which MOPDTrainer overrides."
        got = list(inspect.signature(method).parameters)
        assert got[: len(params)] == params, (
            f"TRL {trl.__version__} changed GRPOTrainer.{name}{inspect.signature(method)}; MOPDTrainer "
            f"(venuskit/train/trainers/mopd.py) overrides it expecting {params}: port it before widening the pin."
        )
        body = inspect.getsource(method)
        missing = [f for f in fragments if f not in body]
        assert not missing, (
            f"TRL {trl.__version__}'s GRPOTrainer.{name} no longer uses {missing}; MOPDTrainer depends on them "
            "(venuskit/train/trainers/mopd.py): port it before widening the TRL pin."
        )
    from trl.trainer.utils import add_fused_lm_head  # noqa: F401 - the sampled estimator's teacher head


def _params(model):
    return {n: p.detach().clone() for n, p in model.named_parameters() if p.requires_grad}


STAGES = {
    "sft": (T.VenusSFTConfig, T.make_sft_trainer, {}),
    "grpo": (
        T.VenusGRPOConfig,
        T.make_grpo_trainer,
        dict(domain="grounding", num_generations=4, max_completion_length=12),
    ),
    "mopd": (T.VenusMOPDConfig, T.make_mopd_trainer, dict(num_generations=2, max_completion_length=24)),
    "mopd-exact": (
        T.VenusMOPDConfig,
        T.make_mopd_trainer,
        dict(num_generations=2, max_completion_length=24, estimator="exact"),
    ),
}


@pytest.mark.slow
@pytest.mark.parametrize("stage", list(STAGES))
def test_trainer_saves_resumes_and_changes_every_parameter(stage, tiny_model, warm_grounding, episodes, tmp_path):
    cfg_cls, make, extra = STAGES[stage]
    rows = None
    if stage == "grpo":  # a random model's replies never parse: every reward 0, no advantage, no update
        tiny_model, episodes = warm_grounding
        rows = grounding_rows(episodes, 2, seed=2, box=[0.0, 0.0, 0.5, 1.0])  # 2 steps = 1 epoch (see report)
    if cfg_cls is T.VenusMOPDConfig:
        extra = dict(extra, teachers=f"mobile={tiny_model}")
    out = tmp_path / "run"
    args = fast_args(
        out,
        max_steps=2,
        learning_rate=1e-2,
        lr_scheduler_type="constant",
        save_strategy="steps",
        save_steps=2,
        **extra,
    )
    trainer = make(cfg_cls(model=str(tiny_model), data=str(episodes), **args), rows)
    before = _params(trainer.model)
    T.train(trainer, trainer.args)
    after = _params(trainer.model)
    unchanged = [n for n in before if torch.equal(before[n], after[n])]
    assert not unchanged, f"{stage}: parameters that training did not change: {unchanged}"
    assert (out / "checkpoint-2").is_dir() and (out / "model.safetensors").is_file()

    # Resuming with nothing left to do restores the checkpoint's weights exactly.
    same = make(cfg_cls(model=str(tiny_model), data=str(episodes), **dict(args, resume_from_checkpoint="last")), rows)
    T.train(same, same.args)
    restored = _params(same.model)
    differ = [n for n in after if not torch.equal(restored[n], after[n])]
    assert not differ, (
        same.state.global_step,
        differ[:5],
        [(restored[n] - after[n]).abs().max().item() for n in differ[:3]],
    )

    resumed = make(
        cfg_cls(
            model=str(tiny_model),
            data=str(episodes),
            **dict(args, max_steps=3, resume_from_checkpoint=str(out / "checkpoint-2")),
        ),
        rows,
    )
    T.train(resumed, resumed.args)
    assert resumed.state.global_step == 3
    assert [h["step"] for h in resumed.state.log_history if "loss" in h] == [1, 2, 3]  # steps 1-2 from the checkpoint
    assert not torch.equal(_params(resumed.model)[next(iter(after))], after[next(iter(after))])
