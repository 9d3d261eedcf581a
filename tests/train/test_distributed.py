"""Data-parallel training on two processes of this CPU (`accelerate launch --config_file configs/accelerate/cpu.yaml`:
torchrun starts them, torch.distributed joins them over gloo) against one process on the same global batch.

- SFT: 2 processes x 2 rows against 1 process x 2 rows x 2 accumulation steps. The per-step losses agree to a
  relative 1e-4 and the weights after 4 steps to 1e-5, while training moved them by far more than that. A
  checkpoint the 2 processes saved at step 2 resumes on 1 process to the same losses and weights (optimizer,
  scheduler and data position carried over, not only the weights).
- DeepSpeed ZeRO-2 (configs/accelerate/zero2.yaml, the GPU file with mixed precision off): the same losses and
  weights as 1 process.
- MOPD (a GRPOTrainer subclass: generation, teacher scoring, the clipped loss and its all-reduce) with greedy
  decoding (top_k 1), so both layouts draw the same completions: 1 process saves at step 1, 2 processes resume
  from it, and step 2 gives 1 process's loss and weights.
- GRPO is not compared here: it samples on-policy with one seeded stream per process, so its samples (and loss)
  differ between layouts by design, and with greedy decoding every group's rewards are equal (zero advantage).
  Its two-process run is in docs/training.md; its loss, all-reduce and resume paths are MOPD's.

The 2-process runs are the real `accelerate launch ... -m venuskit.cli.main train STAGE` in a subprocess, as a
user starts them; 1-process runs call the same `venus train` command in this process (it saves the interpreter
start-up). Nearly all of the wall time is process start-up: 1-2 minutes on 2 lightly loaded cores, 8 minutes
at load average 15-18 on a shared 2-core machine.
"""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest
import torch
from train_fixtures import record_episodes  # noqa: E402
from typer.testing import CliRunner

from venuskit.actions.types import Click, LongPress
from venuskit.cli.train_cmd import app

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
CONFIGS = ROOT / "configs" / "accelerate"
LOSS_RTOL = 1e-4
WEIGHT_ATOL = 1e-5
FAST = ["--report_to", "none", "--logging_steps", "1", "--disable_tqdm", "true", "--gradient_checkpointing",
        "false", "--seed", "0", "--data_seed", "0", "--lr_scheduler_type", "constant"]  # fmt: skip


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def venus_train(
    processes: int, stage: str, args: list[str], out: Path, config: str = "cpu", *launch_args: str
) -> dict:
    """Run `venus train STAGE` on `processes` processes under configs/accelerate/CONFIG.yaml; returns its one
    result line."""
    argv = [stage, *FAST, *args, "--output_dir", str(out)]
    if processes == 1:
        result = CliRunner().invoke(app, argv)
        assert result.exit_code == 0, (result.output[-3000:], result.exception)
        output = result.output
    else:
        launch = ["-m", "accelerate.commands.launch", "--config_file", str(CONFIGS / f"{config}.yaml"),
                  "--num_processes", str(processes), "--main_process_port", str(_free_port()),
                  "--num_cpu_threads_per_process", "1", *launch_args]  # fmt: skip
        cmd = [sys.executable, *launch, "-m", "venuskit.cli.main", "train", *argv]
        env = dict(os.environ, HF_HUB_OFFLINE="1", TOKENIZERS_PARALLELISM="false")
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=600, env=env, cwd=ROOT)
        assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-4000:]
        output = proc.stdout
    marker = '{"output_dir"'
    assert output.count(marker) == 1, output[-2000:]  # one result line per run, whatever the process count
    return json.loads(output[output.index(marker) :].splitlines()[0])


def losses(run: Path) -> dict[int, float]:
    """Step -> training loss of a run, from its last checkpoint's trainer state (a resumed run's state holds the
    steps before its checkpoint too)."""
    last = max(run.glob("checkpoint-*"), key=lambda p: int(p.name.split("-")[1]))
    history = json.loads((last / "trainer_state.json").read_text())["log_history"]
    return {h["step"]: h["loss"] for h in history if "loss" in h}


def weights(folder: Path) -> dict[str, torch.Tensor]:
    from safetensors.torch import load_file

    return load_file(folder / "model.safetensors")


def max_diff(a: dict[str, torch.Tensor], b: dict[str, torch.Tensor]) -> float:
    assert a.keys() == b.keys()
    return max(float((a[k].float() - b[k].float()).abs().max()) for k in a)


def assert_same_run(a: Path, b: Path) -> None:
    la, lb = losses(a), losses(b)
    assert la.keys() == lb.keys(), (la, lb)
    assert [lb[k] for k in sorted(lb)] == pytest.approx([la[k] for k in sorted(la)], rel=LOSS_RTOL), (la, lb)
    assert max_diff(weights(a), weights(b)) <= WEIGHT_ATOL


@pytest.fixture(scope="module")
def data(tmp_path_factory) -> Path:
    root = tmp_path_factory.mktemp("dist")
    record_episodes(root / "eps", 8, Click, seed=0, steps=1)
    record_episodes(root / "eps", 4, LongPress, seed=5, steps=1)
    from venuskit.record.store import iter_episode_dirs
    from venuskit.train.data import build_rows

    rows, _ = build_rows(list(iter_episode_dirs(root / "eps")), "rl")
    (root / "rl.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    return root


def test_sft_two_processes_and_zero2_match_one_and_a_checkpoint_resumes_on_one(tiny_model, data, tmp_path):
    common = ["--model", str(tiny_model), "--data", str(data / "eps"), "--max_steps", "4", "--save_steps", "2",
              "--per_device_train_batch_size", "2", "--learning_rate", "3e-3"]  # fmt: skip
    two, one, resumed = tmp_path / "two", tmp_path / "one", tmp_path / "resumed"
    assert venus_train(2, "sft", common, two)["global_step"] == 4
    assert (two / "checkpoint-2" / "rng_state_1.pth").is_file()  # a second rank took part
    one_proc = [*common, "--gradient_accumulation_steps", "2"]
    assert venus_train(1, "sft", one_proc, one)["global_step"] == 4
    assert_same_run(two, one)
    assert max_diff(weights(two), weights(tiny_model)) > 100 * WEIGHT_ATOL  # the comparison is not vacuous
    venus_train(1, "sft", [*one_proc, "--resume_from_checkpoint", str(two / "checkpoint-2")], resumed)
    assert_same_run(two, resumed)
    # the GPU config file itself: DeepSpeed ZeRO-2 on its CPU accelerator (gloo), float32 so it must match exactly
    zero2 = tmp_path / "zero2"
    venus_train(2, "sft", common, zero2, "zero2", "--mixed_precision", "no")
    assert (zero2 / "checkpoint-2" / "global_step2").is_dir()  # DeepSpeed's own checkpoint layout: it really ran
    assert_same_run(one, zero2)


def test_mopd_checkpoint_of_one_process_resumes_on_two_to_the_same_step(tiny_model, data, tmp_path):
    common = ["--model", str(tiny_model), "--data", str(data / "rl.jsonl"), "--teachers", f"mobile={tiny_model}",
              "--max_steps", "2", "--save_steps", "1", "--per_device_train_batch_size", "2", "--top_k", "1",
              "--max_completion_length", "12", "--learning_rate", "1e-3"]  # fmt: skip
    one, two = tmp_path / "one", tmp_path / "two"
    venus_train(1, "mopd", [*common, "--gradient_accumulation_steps", "2"], one)
    venus_train(2, "mopd", [*common, "--resume_from_checkpoint", str(one / "checkpoint-1")], two)
    assert_same_run(one, two)
    assert all(loss != 0 for loss in losses(two).values())  # the hinted teacher disagrees: a signal to compare
    assert max_diff(weights(two), weights(tiny_model)) > 100 * WEIGHT_ATOL
