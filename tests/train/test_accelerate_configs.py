"""The shipped accelerate configs (configs/accelerate/*.yaml) read by accelerate's own config loader, which refuses
unknown keys, and the DeepSpeed ones turned into the DeepSpeed config accelerate hands DeepSpeed, validated by
DeepSpeed's own schema (its pydantic ZeRO config). That they also train on two CPU processes, with the losses
and weights of one process, is tests/train/test_distributed.py."""

from __future__ import annotations

from pathlib import Path

import pytest
from accelerate.commands.config.config_args import load_config_from_file
from accelerate.utils import DeepSpeedPlugin, DistributedType

CONFIGS = Path(__file__).resolve().parents[2] / "configs" / "accelerate"


def zero_section(name: str) -> dict:
    """The `zero_optimization` section accelerate builds from a shipped DeepSpeed config file."""
    ds = load_config_from_file(str(CONFIGS / f"{name}.yaml")).deepspeed_config
    plugin = DeepSpeedPlugin(
        zero_stage=ds["zero_stage"],
        offload_optimizer_device=ds["offload_optimizer_device"],
        offload_param_device=ds["offload_param_device"],
        zero3_init_flag=ds["zero3_init_flag"],
        zero3_save_16bit_model=ds.get("zero3_save_16bit_model", False),
    )
    return plugin.deepspeed_config["zero_optimization"]


def test_every_config_loads_with_accelerate():
    loaded = {p.stem: load_config_from_file(str(p)) for p in sorted(CONFIGS.glob("*.yaml"))}
    assert set(loaded) == {"cpu", "fsdp2", "zero2", "zero3"}
    assert loaded["cpu"].distributed_type == DistributedType.MULTI_GPU and loaded["cpu"].mixed_precision == "no"
    assert loaded["fsdp2"].fsdp_config["fsdp_version"] == 2
    assert {loaded[z].deepspeed_config["zero_stage"] for z in ("zero2", "zero3")} == {2, 3}


def test_a_misspelt_key_is_refused(tmp_path):
    bad = tmp_path / "bad.yaml"
    bad.write_text((CONFIGS / "zero2.yaml").read_text().replace("num_machines:", "num_machine:"))
    with pytest.raises(ValueError, match="unknown keys"):
        load_config_from_file(str(bad))


@pytest.mark.parametrize("name,stage", [("zero2", 2), ("zero3", 3)])
def test_deepspeed_configs_pass_deepspeeds_own_schema(name, stage):
    from deepspeed.runtime.zero.config import DeepSpeedZeroConfig

    zero = DeepSpeedZeroConfig(**zero_section(name))
    assert zero.stage == stage
    assert zero.offload_optimizer.device == zero.offload_param.device == "none"
    assert zero.gather_16bit_weights_on_model_save is (stage == 3)  # ZeRO-3 saves a whole 16-bit model


def test_deepspeeds_schema_refuses_a_bad_value():
    from deepspeed.runtime.zero.config import DeepSpeedZeroConfig
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match="offload_optimizer.device"):
        DeepSpeedZeroConfig(**dict(zero_section("zero2"), offload_optimizer={"device": "gpu"}))


@pytest.mark.parametrize(
    "launched, given, bf16, fp16",
    [
        (None, None, False, False),  # no accelerate, no GPU: TRL's bf16-everywhere default would be refused
        ("bf16", None, True, False),  # zero2.yaml as shipped: DeepSpeed refuses a stage that disagrees
        ("fp16", None, False, True),
        ("no", None, False, False),  # cpu.yaml
        ("bf16", False, False, False),  # a flag on the command line wins
    ],
)
def test_precision_follows_the_launch_unless_given(tiny_model, tmp_path, monkeypatch, launched, given, bf16, fp16):
    from train_fixtures import fast_args, record_episodes

    from venuskit.train import trainers as T

    record_episodes(tmp_path / "eps", 1)
    if launched is None:
        monkeypatch.delenv("ACCELERATE_MIXED_PRECISION", raising=False)
    else:
        monkeypatch.setenv("ACCELERATE_MIXED_PRECISION", launched)
    args = {**fast_args(tmp_path / "o"), "bf16": given, "use_cpu": False}
    cfg = T.VenusSFTConfig(model=str(tiny_model), data=str(tmp_path / "eps"), **args)
    assert (cfg.bf16, cfg.fp16) == (bf16, fp16)
    assert cfg.use_cpu  # no accelerator here: without it a torchrun rank would not join the gloo group
