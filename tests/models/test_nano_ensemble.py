"""venus-nano ensembles: several training seeds in one checkpoint, deciding with the mean of their distributions."""

import io
import json
import subprocess
import sys
from pathlib import Path

import pytest
import torch

from tests.train.nano_fixtures import nano_examples
from venuskit.models.nano import CheckpointError, NanoError, NanoModel
from venuskit.models.nano.action_types import TYPES
from venuskit.models.nano.model import build_ensemble
from venuskit.models.nano.net import NanoEnsemble, NanoNet, NetConfig, collate
from venuskit.train.nano.common import part_logps, repeat_encoded, sample, step_accuracy


def _nets(n: int, cfg: NetConfig | None = None) -> list[NanoNet]:
    out = []
    for seed in range(n):
        torch.manual_seed(seed)
        out.append(NanoNet(cfg or NetConfig()).eval())
    return out


def _saved(tmp_path: Path, nets: list[NanoNet]) -> list[Path]:
    paths = []
    for i, net in enumerate(nets):
        folder = tmp_path / f"seed{i}"
        folder.mkdir(parents=True)
        paths.append(NanoModel(net, {"stage": "sft", "seed": i}).save(folder / "venus-nano.pt"))
    return paths


@pytest.fixture(scope="module")
def examples():
    return nano_examples(n_screens=3)


@torch.no_grad()
def test_each_head_is_the_mean_of_the_members_distributions(examples):
    a, b = _nets(2)
    ens = NanoEnsemble([a, b]).eval()
    batch = collate([ex.features for ex in examples])
    ea, eb, ee = a.encode(batch), b.encode(batch), ens.encode(batch)
    mean = (torch.softmax(a.type_logits(ea), -1) + torch.softmax(b.type_logits(eb), -1)) / 2
    assert torch.allclose(torch.softmax(ens.type_logits(ee), -1), mean, atol=1e-5)
    types = ens.type_logits(ee).argmax(-1)
    (pa, ta, na), (pb, tb, nb), (pe, te, ne) = a.heads(ea, types), b.heads(eb, types), ens.heads(ee, types)
    assert torch.allclose(torch.softmax(pe, -1), (torch.softmax(pa, -1) + torch.softmax(pb, -1)) / 2, atol=1e-5)
    assert torch.allclose(torch.softmax(te, -1), (torch.softmax(ta, -1) + torch.softmax(tb, -1)) / 2, atol=1e-5)
    assert torch.allclose(torch.sigmoid(ne), (torch.sigmoid(na) + torch.sigmoid(nb)) / 2, atol=1e-5)
    # A network with itself decides exactly as it does alone.
    twin = NanoEnsemble([a, a]).eval()
    assert step_accuracy(twin, examples) == step_accuracy(a, examples)


@torch.no_grad()
def test_an_ensemble_can_be_a_teacher_scoring_sampled_actions(examples):
    ens = NanoEnsemble(_nets(2)).eval()
    batch = collate([ex.features for ex in examples])
    student = _nets(1)[0]
    allowed = torch.ones(2 * len(examples), len(TYPES), dtype=torch.bool)
    s = sample(student, repeat_encoded(student.encode(batch), 2), allowed, torch.Generator().manual_seed(0))
    lp = part_logps(ens, repeat_encoded(ens.encode(batch), 2), s)
    assert lp.shape == (2 * len(examples), 3) and bool(torch.isfinite(lp).all()) and bool((lp <= 1e-6).all())


def test_an_ensemble_checkpoint_round_trips_and_names_its_members(tmp_path: Path, examples):
    nets = _nets(3)
    paths = _saved(tmp_path, nets)
    out = build_ensemble(paths, tmp_path / "new" / "ens.pt")  # its folder is made
    model = NanoModel.load(out)
    assert isinstance(model.net, NanoEnsemble) and len(model.net.members) == 3
    assert model.meta["stage"] == "ensemble" and model.meta["seed"] == [0, 1, 2]
    names = [m["name"] for m in model.meta["members"]]
    assert names == ["seed0/venus-nano.pt", "seed1/venus-nano.pt", "seed2/venus-nano.pt"]  # folder/file, no path
    assert all(m["sha256"] == NanoModel.load(p).checkpoint["sha256"] for m, p in zip(model.meta["members"], paths, strict=True))
    assert str(tmp_path) not in json.dumps(model.describe())
    # The file's networks decide as the in-memory ensemble of the saved (fp16) members.
    saved = NanoEnsemble([NanoModel.load(p).net for p in paths]).eval()
    assert step_accuracy(model.net, examples) == step_accuracy(saved, examples)
    assert model.describe()["parameters"] == 3 * sum(p.numel() for p in nets[0].parameters())


def test_bad_ensembles_are_refused_with_a_clear_error(tmp_path: Path):
    one = _saved(tmp_path, _nets(1))
    with pytest.raises(NanoError, match="at least 2"):
        build_ensemble(one, tmp_path / "e.pt")
    large = NanoModel(NanoNet(NetConfig.named("large"))).save(tmp_path / "large.pt")
    with pytest.raises(NanoError, match="one NetConfig"):
        build_ensemble([one[0], large], tmp_path / "e.pt")
    pair = build_ensemble(_saved(tmp_path / "p", _nets(2)), tmp_path / "pair.pt")
    with pytest.raises(NanoError, match="ensemble already"):
        build_ensemble([pair, one[0]], tmp_path / "e.pt")
    with pytest.raises(CheckpointError, match="does not exist"):
        build_ensemble([one[0], tmp_path / "missing.pt"], tmp_path / "e.pt")
    assert not (tmp_path / "e.pt").exists()


@pytest.mark.parametrize("members", [3, 0, 10_000, "2", True])
def test_a_checkpoint_whose_member_count_was_altered_is_refused(tmp_path: Path, members):
    path = build_ensemble(_saved(tmp_path, _nets(2)), tmp_path / "ens.pt")
    payload = torch.load(io.BytesIO(path.read_bytes()), weights_only=True)
    payload["members"] = members
    torch.save(payload, tmp_path / "altered.pt")
    with pytest.raises(CheckpointError, match=r"altered\.pt.*(member count|do not fit)"):
        NanoModel.load(tmp_path / "altered.pt")


def test_training_starts_from_the_first_member_and_leaves_the_ensemble_file_alone(tmp_path: Path, examples):
    paths = _saved(tmp_path, _nets(2))
    out = build_ensemble(paths, tmp_path / "ens.pt")
    before = out.read_bytes()
    model = NanoModel.load_trainable(out)
    assert isinstance(model.net, NanoNet) and model.meta["seed"] == 0 and model.meta["stage"] == "sft"
    assert model.meta["from_ensemble"]["name"] == "ens.pt" and "members" not in model.meta
    first = NanoModel.load(paths[0]).net
    assert step_accuracy(model.net, examples) == step_accuracy(first, examples)
    with torch.no_grad():
        for p in model.net.parameters():
            p.add_(1.0)  # training the copy
    assert out.read_bytes() == before
    assert step_accuracy(NanoModel.load(out).net.members[0], examples) == step_accuracy(first, examples)
    single = NanoModel.load_trainable(paths[1])
    assert single.meta == {"stage": "sft", "seed": 1}  # a single network is returned as it is


def test_cli_builds_an_ensemble_and_reports_a_bad_member_in_one_line(tmp_path: Path):
    paths = _saved(tmp_path, _nets(2))
    cmd = [sys.executable, "-m", "venuskit.cli.main", "nano", "ensemble", *map(str, paths), "--out",
           str(tmp_path / "ens.pt")]  # fmt: skip
    done = subprocess.run(cmd, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout.splitlines()[-1])["members"] == 2
    info = subprocess.run([sys.executable, "-m", "venuskit.cli.main", "nano", "info", "--checkpoint",
                           str(tmp_path / "ens.pt")], capture_output=True, text=True, timeout=120)  # fmt: skip
    assert json.loads(info.stdout)["stage"] == "ensemble"
    (tmp_path / "bad.pt").write_bytes(b"not a checkpoint")
    bad = subprocess.run([*cmd[:5], str(paths[0]), str(tmp_path / "bad.pt"), "--out", str(tmp_path / "e2.pt")],
                         capture_output=True, text=True, timeout=120)  # fmt: skip
    assert bad.returncode != 0 and "Traceback" not in bad.stderr
    assert "bad.pt" in bad.stderr and "cannot be read" in bad.stderr
    assert not (tmp_path / "e2.pt").exists()


def test_sft_and_grpo_continue_from_an_ensemble_checkpoint_as_one_network(tmp_path: Path, examples):
    from venuskit.train.nano import GRPOConfig, SFTConfig, grpo, sft

    ens = build_ensemble(_saved(tmp_path, _nets(2)), tmp_path / "ens.pt")
    tuned = sft(examples, tmp_path / "sft", SFTConfig(epochs=1, batch_size=8), init=ens)
    assert isinstance(NanoModel.load(tuned.checkpoint).net, NanoNet)
    web = [ex for ex in examples if ex.domain == "web"]
    rl = grpo(web, ens, tmp_path / "grpo", GRPOConfig(epochs=1, group_size=2))
    after = NanoModel.load(rl.checkpoint)
    assert isinstance(after.net, NanoNet) and after.meta["from_ensemble"]["name"] == "ens.pt"
    assert after.meta["stage"] == "grpo" and "members" not in after.meta
