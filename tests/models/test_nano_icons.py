"""venus-nano's icon namer: what an icon means, read from the reader's own patch; trained on two general icon
libraries and tested on the world's hand-drawn icons, which no training picture shows."""

from pathlib import Path

import numpy as np
import pytest

from venuskit.flywheel.icons import library_set, world_icons
from venuskit.models.nano.features import MATCH_DIM, NanoInput, build
from venuskit.models.nano.icons import IconNamer, NamerError, classes, default_namer, icon_names
from venuskit.models.nano.reader import default_reader
from venuskit.synth.grounding.render import Renderer
from venuskit.synth.icons import render_sheets
from venuskit.train.nano.icons import NamerConfig, accuracy, sheet_patches, train_namer

pytestmark = pytest.mark.slow

ICON_BLOCK = slice(4 * MATCH_DIM, 5 * MATCH_DIM)  # own, row, container, label, then the icon's name


@pytest.fixture(scope="module")
def renderer():
    with Renderer() as r:
        yield r


def _patches(icons, seed, renderer):
    return sheet_patches((s.png, [(b, i.label, i.source) for b, i in s.items]) for s in render_sheets(icons, seed,
                                                                                                       renderer))


def test_the_shipped_namer_names_the_worlds_own_icons_it_never_saw(renderer):
    namer = default_namer()
    assert namer is not None and namer.names == classes()
    core = {"star", "trash", "reply", "forward", "plus", "search", "settings"}
    icons = [i for i in world_icons() if i.label in core]
    assert {i.label for i in icons} == core
    data = _patches([i for i in icons for _ in range(6)], 7, renderer)
    assert len(data.y) >= 30  # the reader finds most of them as icons
    got = accuracy(namer, data)
    assert got["acc"] >= 0.8, got
    # No training picture is one of the world's: the libraries' files are Bootstrap's and Adwaita's.
    named, others = library_set()
    assert all(s.split(":")[0] in ("bootstrap", "adwaita") for s in named)
    assert not any(i.source.startswith("world:") for i in others)


def test_a_namer_trained_on_a_few_library_files_names_them_in_new_looks(renderer, tmp_path: Path):
    named, others = library_set()
    pick = [i for s, i in named.items() if i.label in ("star", "trash", "reply", "plus")]
    train = _patches([i for i in pick for _ in range(10)] + [i for i in others[:40] for _ in range(2)], 1, renderer)
    test = _patches([i for i in pick for _ in range(3)], 2, renderer)
    namer = train_namer(train, NamerConfig(epochs=20))
    assert accuracy(namer, test)["acc"] >= 0.7  # chance among the 44 classes is ~2%
    namer.save(tmp_path / "n.pt")
    again = IconNamer.load(tmp_path / "n.pt")
    assert again.sha256 == namer.sha256
    assert [n for n, _ in again.name(test.x)] == [n for n, _ in namer.name(test.x)]


def test_a_damaged_or_foreign_namer_file_is_a_clear_error(tmp_path: Path):
    bad = tmp_path / "bad.pt"
    bad.write_bytes(b"not a checkpoint")
    with pytest.raises(NamerError, match="not an icon-namer file"):
        IconNamer.load(bad)
    import torch

    namer = default_namer()
    payload = torch.load(str(Path(__file__).parents[2] / "src/venuskit/models/nano/weights/icon-namer.pt"),
                         weights_only=True)  # fmt: skip
    payload["names"] = payload["names"][:-2] + ["other"]
    other = tmp_path / "other.pt"
    torch.save(payload, other)
    with pytest.raises(NamerError, match="another name table"):
        IconNamer.load(other)
    payload["names"] = list(namer.names)
    payload["state"]["body.0.weight"] = payload["state"]["body.0.weight"] * 2
    torch.save(payload, other)
    with pytest.raises(NamerError, match="SHA-256"):
        IconNamer.load(other)
    assert len(icon_names()) + 1 == len(namer.names)


def _icon_block(png: bytes, screen, boxes: dict, goal: str) -> dict[str, float]:
    """The largest icon-name match of the icon candidates on each drawn icon."""
    f = build(NanoInput(png, goal), screen)
    out = {}
    for label, (x1, y1, x2, y2) in boxes.items():
        hits = [i for i, c in enumerate(f.cands) if c.kind == "icon" and x1 - 4 <= (c.box[0] + c.box[2]) / 2 <= x2 + 4
                and y1 - 4 <= (c.box[1] + c.box[3]) / 2 <= y2 + 4]  # fmt: skip
        out[label] = float(np.max(f.cand_x[hits][:, ICON_BLOCK].astype(float).sum(1))) if hits else 0.0
    return out


def test_features_match_a_named_icon_to_the_goal_by_meaning(renderer):
    """Sheets with the world's star and trash icons in several looks: the star's icon block answers "star" (and a
    Chinese goal of the same meaning), the trash can's answers "delete"; neither ever answers the other."""
    icons = {i.label: i for i in world_icons()}
    reader = default_reader()
    right = {"star": 0, "trash": 0, "zh": 0}
    looks = 6
    for seed in range(looks):
        sheet = next(render_sheets([icons["star"], icons["trash"]], 10 + seed, renderer))
        boxes = {i.label: b for b, i in sheet.items}
        screen = reader.read(sheet.png)
        star = _icon_block(sheet.png, screen, boxes, 'Star the email "Quarterly budget".')
        trash = _icon_block(sheet.png, screen, boxes, 'Delete the email "Quarterly budget".')
        zh = _icon_block(sheet.png, screen, boxes, "给邮件“Quarterly budget”加星标")
        assert star["trash"] == 0 and trash["star"] == 0 and zh["trash"] == 0  # never the other meaning
        right["star"] += star["star"] > 0
        right["trash"] += trash["trash"] > 0
        right["zh"] += zh["star"] > 0
    # A framed icon whose frame the reader takes for the icon may go unnamed (half the looks are framed).
    assert min(right.values()) >= looks // 2, right


def test_venus_nano_icons_trains_measures_and_writes_a_namer(tmp_path: Path):
    import json

    from typer.testing import CliRunner

    from venuskit.cli.main import app

    out = tmp_path / "icons"
    res = CliRunner().invoke(app, ["nano", "icons", "--out", str(out), "--variants", "2", "--epochs", "3"])
    assert res.exit_code == 0, res.output
    printed = json.loads(res.output.strip().splitlines()[-1])
    metrics = json.loads((out / "metrics.json").read_text())
    assert printed["world_default"] == metrics["world_default"] and metrics["world_default"]["n"] > 50
    assert metrics["pictures"]["named_files"] > 100  # the libraries' files of the name table
    assert IconNamer.load(out / "icon-namer.pt").names == classes()
    # --install was not given: the shipped namer is untouched.
    assert default_namer().sha256 != IconNamer.load(out / "icon-namer.pt").sha256


def test_a_network_reads_the_icon_names_only_when_configured_to():
    """The shipped checkpoint (trained before the icon-name block) loads with the block off and sees exactly its
    old features; a network configured on reads it."""
    import torch

    from venuskit.models.nano import load_default
    from venuskit.models.nano.features import CAND_DIM
    from venuskit.models.nano.net import NanoNet, NetConfig, collate

    assert load_default().net.cfg.icon_names is False
    f = build(NanoInput(b"", "Star the email"), default_reader().read(_blank_png()))
    changed = f.cand_x.copy()
    changed[:, ICON_BLOCK] = 1.0
    changed_f = type(f)(**{**f.__dict__, "cand_x": changed})
    for on in (False, True):
        torch.manual_seed(0)
        net = NanoNet(NetConfig(icon_names=on)).eval()
        assert net.cand_in[0].in_features - 2 * net.cfg.dim - net.cfg.icon_dim == CAND_DIM - (0 if on else MATCH_DIM)
        with torch.no_grad():
            a, b = (net.heads(net.encode(collate([x])), torch.zeros(1, dtype=torch.long))[0] for x in (f, changed_f))
        assert torch.equal(a, b) is (not on)


def _blank_png() -> bytes:
    import cv2

    img = np.full((300, 400, 3), 255, np.uint8)
    cv2.putText(img, "Inbox", (20, 40), cv2.FONT_HERSHEY_SIMPLEX, 0.8, (0, 0, 0), 2)
    cv2.rectangle(img, (20, 80), (44, 104), (0, 0, 0), 2)
    return cv2.imencode(".png", img)[1].tobytes()
