"""`venus synth grounding-convert`: files written before refusals said `gt_type: "negative"` are rewritten as
ScreenSpot-Pro marks them, in place; a second run changes nothing; a broken file is named and the folder is left
as it was."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from venuskit.cli.synth_cmd import app
from venuskit.eval.grounding import load_dataset

runner = CliRunner()


def old_record(i: int, refusal: bool) -> dict:
    """A record as `venus synth grounding` wrote it before: a refusal had a -1 box and said "positive"."""
    return {
        "img_filename": "mail_web/p0.png",
        "bbox": [-1, -1, -1, -1] if refusal else [10, 20, 110, 60],
        "instruction": f"instruction {i}",
        "instruction_cn": f"指令 {i}",
        "id": f"mail_web_0_{i}",
        "application": "mail",
        "platform": "web",
        "img_size": [1280, 800],
        "ui_type": "text",
        "group": "Office",
        "instruction_style": "refusal" if refusal else "literal",
        "gt_type": "positive",
    }


def test_pro_files_written_before_are_converted_once(tmp_path):
    ann = tmp_path / "annotations"
    ann.mkdir()
    (ann / "mail_web.json").write_text(json.dumps([old_record(i, refusal=i % 3 == 0) for i in range(6)]))
    res = runner.invoke(app, ["grounding-convert", str(tmp_path), "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.output) == {"files": 1, "samples": 6, "negative": 2, "changed": 2}
    records = json.loads((ann / "mail_web.json").read_text())
    assert [r["gt_type"] for r in records] == ["negative", "positive", "positive", "negative", "positive", "positive"]
    assert records[0]["bbox"] == [-1, -1, -1, -1]  # kept: readers that always read a box still see a refusal
    assert [i.gt_type for i in load_dataset(tmp_path)].count("negative") == 2
    again = runner.invoke(app, ["grounding-convert", str(tmp_path), "--json"])
    assert json.loads(again.output)["changed"] == 0


def test_v2_files_are_converted(tmp_path):
    recs = [
        {**old_record(i, refusal=i == 1), "bbox": [-1, -1, -1, -1] if i == 1 else [5, 5, 40, 20]} for i in range(3)
    ]
    (tmp_path / "screenspot_web_v2.json").write_text(json.dumps(recs))
    res = runner.invoke(app, ["grounding-convert", str(tmp_path), "--json"])
    assert json.loads(res.output)["changed"] == 1
    assert [r["gt_type"] for r in json.loads((tmp_path / "screenspot_web_v2.json").read_text())] == [
        "positive",
        "negative",
        "positive",
    ]


def test_bad_input_is_named_and_nothing_is_lost(tmp_path):
    res = runner.invoke(app, ["grounding-convert", str(tmp_path)])
    assert res.exit_code == 2 and "holds no ScreenSpot files" in res.output
    (tmp_path / "annotations").mkdir()
    broken = tmp_path / "annotations" / "mail_web.json"
    broken.write_text('[{"bbox": [-1, -1, -1, -1], "gt_type": "positive"')  # cut short
    good = tmp_path / "annotations" / "shop_web.json"  # sorts after the broken one
    good.write_text(json.dumps([old_record(0, refusal=True)]))
    res = runner.invoke(app, ["grounding-convert", str(tmp_path)])
    assert res.exit_code == 2 and "mail_web.json" in res.output and "Nothing in the folder was changed" in res.output
    assert broken.read_text() == '[{"bbox": [-1, -1, -1, -1], "gt_type": "positive"'
    assert json.loads(good.read_text())[0]["gt_type"] == "positive"  # not half converted
    broken.write_text(json.dumps([old_record(1, refusal=False)]))  # once fixed, the whole folder converts
    res = runner.invoke(app, ["grounding-convert", str(tmp_path), "--json"])
    assert json.loads(res.output) == {"files": 2, "samples": 2, "negative": 1, "changed": 1}
