"""What `generate` writes, format by format: the exact ScreenSpot-Pro and ScreenSpot-v2 field names and box
conventions, Parquet rows that the training code accepts and scores, refusals, and determinism by seed."""

from __future__ import annotations

import json

import pyarrow.parquet as pq
import pytest

from venuskit.envs.browser import png_size
from venuskit.synth.grounding.generator import generate
from venuskit.synth.grounding.render import Renderer
from venuskit.synth.grounding.spec import GroundingConfig

pytestmark = pytest.mark.browser

PRO_FIELDS = {
    "img_filename",
    "bbox",
    "instruction",
    "instruction_cn",
    "id",
    "application",
    "platform",
    "img_size",
    "ui_type",
    "group",
}
V2_FIELDS = {"img_filename", "bbox", "instruction", "data_type", "data_source"}


@pytest.fixture(scope="module")
def renderer():
    with Renderer(timeout_s=20) as r:
        yield r


def config(**kw):
    base = dict(n=40, seed=12, refusal_share=0.2, max_per_page=20)
    return GroundingConfig(**{**base, **kw})


def test_screenspot_pro_layout(renderer, tmp_path):
    report = generate(config(), tmp_path, "screenspot-pro", renderer=renderer)
    records = [r for f in sorted((tmp_path / "annotations").glob("*.json")) for r in json.loads(f.read_text())]
    assert len(records) == report.samples == 40
    assert 0 < report.refusals < 40
    ids = set()
    for rec in records:
        assert set(rec) >= PRO_FIELDS
        name = tmp_path / "images" / rec["img_filename"]
        assert rec["img_filename"].startswith(f"{rec['application']}_{rec['platform']}/")
        w, h = png_size(name.read_bytes())
        assert rec["img_size"] == [w, h]
        assert rec["ui_type"] in ("text", "icon") and rec["instruction"] and rec["instruction_cn"]
        if rec["instruction_style"] == "refusal":
            assert rec["bbox"] == [-1, -1, -1, -1] and rec["gt_type"] == "negative"  # as ScreenSpot-Pro marks it
        else:
            assert rec["gt_type"] == "positive"
            x1, y1, x2, y2 = rec["bbox"]
            assert 0 <= x1 < x2 <= w and 0 <= y1 < y2 <= h
        ids.add(rec["id"])
    assert len(ids) == len(records)
    assert json.loads((tmp_path / "manifest.json").read_text())["samples"] == 40


def test_screenspot_v2_layout(renderer, tmp_path):
    generate(config(platforms=("android", "ios", "windows", "web")), tmp_path, "screenspot-v2", renderer=renderer)
    splits = {p.stem: json.loads(p.read_text()) for p in tmp_path.glob("screenspot_*_v2.json")}
    assert set(splits) <= {"screenspot_mobile_v2", "screenspot_desktop_v2", "screenspot_web_v2"} and splits
    prefix = {"screenspot_mobile_v2": "mobile_", "screenspot_desktop_v2": "pc_", "screenspot_web_v2": "web_"}
    for split, records in splits.items():
        for rec in records:
            assert set(rec) >= V2_FIELDS
            assert rec["img_filename"].startswith(prefix[split])
            w, h = png_size((tmp_path / "screenspotv2_image" / rec["img_filename"]).read_bytes())
            assert rec["data_type"] in ("text", "icon")
            assert rec["gt_type"] == ("negative" if rec["bbox"] == [-1, -1, -1, -1] else "positive")
            if rec["bbox"] != [-1, -1, -1, -1]:
                x, y, bw, bh = rec["bbox"]  # [x, y, w, h]
                assert bw > 0 and bh > 0 and x + bw <= w and y + bh <= h
            if split != "screenspot_web_v2":
                assert rec["data_source"] in ("android", "ios", "windows")


def test_parquet_rows_are_grounding_rl_rows(renderer, tmp_path):
    from venuskit.train.data import Rejections, validate_rows
    from venuskit.train.rewards import grounding_reward

    generate(config(), tmp_path, "parquet", renderer=renderer)
    rows = pq.read_table(tmp_path / "grounding.parquet").to_pylist()
    assert len(rows) == 40
    rejections = Rejections()
    assert len(validate_rows(rows, rejections, "rl")) == 40, rejections.report()
    for row in rows:
        assert row["surface"] == row["domain"] == "grounding"
        assert row["prompt"][0]["content"][0]["type"] == "image"
        assert row["instruction"] in row["prompt"][0]["content"][1]["text"]
        box = json.loads(row["gt_boxes"])[0]
        assert row["gt_type"] == ("negative" if row["instruction_style"] == "refusal" else "positive")
        if row["instruction_style"] == "refusal":
            answer = "[-1,-1]"
        else:
            answer = f"[{round(500 * (box[0] + box[2]))},{round(500 * (box[1] + box[3]))}]"  # the centre, 0-1000 grid
        assert grounding_reward([answer], gt_boxes=row["gt_boxes"]) == [1.0], (row["instruction"], answer, box)
        assert grounding_reward(["[999,999]" if answer == "[-1,-1]" else "[-1,-1]"], gt_boxes=row["gt_boxes"]) == [0.0]


def test_the_same_seed_writes_the_same_data(renderer, tmp_path):
    a, b = tmp_path / "a", tmp_path / "b"
    for out in (a, b):
        generate(config(n=25), out, "screenspot-pro", renderer=renderer)
    files = sorted(p.name for p in (a / "annotations").glob("*.json"))
    assert files and files == sorted(p.name for p in (b / "annotations").glob("*.json"))
    for name in files:
        assert (a / "annotations" / name).read_text() == (b / "annotations" / name).read_text()
