"""Offline formats without TensorFlow: TFRecord framing and tf.train.Example bytes as TensorFlow writes them,
AndroidControl / GUI-Odyssey / Multimodal-Mind2Web files in their real layouts, each benchmark's matching rule,
and `venus eval offline` scoring a loopback stand-in server (a stand-in for a model server, not a model) that
answers the ground truth, a shifted tap, or nothing useful."""

from __future__ import annotations

import gzip
import io
import json
import struct

import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from PIL import Image
from typer.testing import CliRunner

from venuskit.actions import format_response
from venuskit.actions.types import Click, Point, Swipe, Type
from venuskit.cli.main import app
from venuskit.eval.offline import matching
from venuskit.eval.offline.data import samples
from venuskit.models.standin_server import StandinServer
from venuskit.record.formats import androidcontrol as AC
from venuskit.record.formats.tfrecord import (
    TFRecordError,
    decode_example,
    encode_example,
    masked_crc,
    read_records,
    write_records,
)

W, H = 400, 800


def png(color: tuple[int, int, int], size: tuple[int, int] = (W, H)) -> bytes:
    buf = io.BytesIO()
    Image.new("RGB", size, color).save(buf, format="PNG")
    return buf.getvalue()


# ---- TFRecord and Example ---------------------------------------------------------------------------------


def test_example_bytes_are_tensorflows_wire_format():
    # Example{features{feature{key:"a" value{bytes_list{value:"xy"}}}}}, encoded by hand from example.proto.
    bytes_list = b"\x0a\x02xy"  # BytesList.value (1, length-delimited)
    feature = b"\x0a" + bytes([len(bytes_list)]) + bytes_list  # Feature.bytes_list (1)
    entry = b"\x0a\x01a" + b"\x12" + bytes([len(feature)]) + feature  # map entry: key (1), value (2)
    features = b"\x0a" + bytes([len(entry)]) + entry  # Features.feature (1)
    assert encode_example({"a": [b"xy"]}) == b"\x0a" + bytes([len(features)]) + features
    ints = decode_example(encode_example({"n": [3, 2**40], "f": [0.5], "s": ["zh 中文"], "e": []}))
    assert ints == {"n": [3, 2**40], "f": [0.5], "s": ["zh 中文".encode()], "e": []}


def test_tfrecord_framing_and_hostile_files(tmp_path):
    assert masked_crc(b"") == 0xA282EAD8  # crc32c("") = 0, masked as TensorFlow masks it
    path = tmp_path / "r.tfrecord"
    write_records(path, [b"first", b""], compress=False)
    raw = path.read_bytes()
    assert raw[:8] == struct.pack("<Q", 5) and raw[12:17] == b"first"
    assert list(read_records(path)) == [b"first", b""]
    write_records(tmp_path / "g", [b"zipped"], compress=True)
    assert gzip.decompress((tmp_path / "g").read_bytes())[12:18] == b"zipped"
    assert list(read_records(tmp_path / "g")) == [b"zipped"]
    (tmp_path / "bad").write_bytes(raw[:12] + b"FIRST" + raw[17:])
    with pytest.raises(TFRecordError, match="data CRC .* byte 0"):
        list(read_records(tmp_path / "bad"))
    (tmp_path / "cut").write_bytes(raw[:15])
    with pytest.raises(TFRecordError, match="truncated"):
        list(read_records(tmp_path / "cut"))
    (tmp_path / "huge").write_bytes(struct.pack("<Q", 2**40) + struct.pack("<I", masked_crc(struct.pack("<Q", 2**40))))
    with pytest.raises(TFRecordError, match="over the"):
        list(read_records(tmp_path / "huge"))
    with pytest.raises(TFRecordError, match="not a tf.train.Example"):
        decode_example(b"\xff\xff\xff")


# ---- AndroidControl ---------------------------------------------------------------------------------------

AC_ACTIONS = [
    {"action_type": "click", "x": 100, "y": 200},
    {"action_type": "input_text", "text": "Lunch at noon"},
    {"action_type": "scroll", "direction": "down"},
    {"action_type": "navigate_back"},
]


@pytest.fixture
def ac_dir(tmp_path):
    shots = [png((20 * i, 40, 90)) for i in range(5)]
    forest = AC.forest_bytes([(80, 180, 120, 220), (0, 0, W, 100)])
    ep = AC.ACEpisode(7, "Reply to Ana", shots, [W] * 5, [H] * 5, AC_ACTIONS,
                      ["Open the mail", "Type the reply", "Scroll down", "Go back"], [forest] * 5)  # fmt: skip
    write_records(tmp_path / "android_control-00000-of-00001", [ep.to_example()], compress=True)
    (tmp_path / "splits.json").write_text(json.dumps({"train": [], "test": [7]}))
    return tmp_path


def test_androidcontrol_round_trip_and_samples(ac_dir):
    (ep,) = AC.read_androidcontrol(ac_dir)
    assert (ep.episode_id, ep.goal, ep.actions, len(ep.screenshots)) == (7, "Reply to Ana", AC_ACTIONS, 5)
    got = list(samples("androidcontrol", ac_dir, split="test"))
    assert [s.key for s in got] == ["7/0", "7/1", "7/2", "7/3"]
    assert got[0].gt["box"] == (80.0, 180.0, 120.0, 220.0)  # the smallest node holding the tap
    assert got[2].instruction == "Scroll down" and len(got[2].history) == 2
    assert isinstance(got[1].history[0][1], Click)
    assert list(samples("androidcontrol", ac_dir, split="train")) == []


def test_aitw_tap_rule():
    box = (80.0, 180.0, 120.0, 220.0)
    size = (W, H)
    assert matching.tap_matches((100 + 0.13 * W, 200), (100, 200), None, size)  # 0.13 of the screen: close enough
    assert not matching.tap_matches((100 + 0.15 * W, 200), (100, 200), None, size)
    # 1.4x growth: the 40 px box gains 28 px each side -> x in [52, 148], y in [152, 248]. Both taps inside it match
    # though they lie 0.165 of the screen apart; one 5 px further out does not (0.176 apart, outside the box).
    assert matching.tap_matches((145, 240), (85, 185), box, size)
    assert not matching.tap_matches((150, 240), (85, 185), box, size)
    gt = {"action_type": "scroll", "direction": "down"}
    up_swipe = Swipe(start=Point(0.5, 0.8), end=Point(0.5, 0.2))  # the finger goes up: the view scrolls down
    assert matching.match_androidcontrol([up_swipe], gt, size).step_ok
    assert not matching.match_androidcontrol([Swipe(start=Point(0.5, 0.2), end=Point(0.5, 0.8))], gt, size).step_ok
    typed = matching.match_androidcontrol([Type(content=" lunch AT noon")], AC_ACTIONS[1], size)
    assert typed.type_ok and typed.step_ok and typed.ground_ok is None


# ---- GUI-Odyssey ------------------------------------------------------------------------------------------


def test_guiodyssey_reading_and_matching(tmp_path):
    (tmp_path / "screenshots").mkdir()
    (tmp_path / "annotations").mkdir()
    steps = [("CLICK", [[250, 500]]), ("TEXT", "hello world"), ("SCROLL", [[500, 800], [500, 200]]),
             ("CLICK", "KEY_BACK"), ("COMPLETE", "")]  # fmt: skip
    for i in range(len(steps)):
        (tmp_path / "screenshots" / f"e1_{i}.png").write_bytes(png((i * 30, 0, 0)))
    ann = {"episode_id": "e1", "device_info": {"h": H, "w": W, "device_name": "Pixel 7 Pro"},
           "task_info": {"category": "Social_Sharing", "app": ["Mail"], "meta_task": "", "task": "t",
                         "instruction": "Share the photo"}, "step_length": len(steps),
           "steps": [{"step": i, "screenshot": f"e1_{i}.png", "action": a, "info": info, "ps": ""}
                     for i, (a, info) in enumerate(steps)]}  # fmt: skip
    (tmp_path / "annotations" / "e1.json").write_text(json.dumps(ann))
    got = list(samples("guiodyssey", tmp_path))
    assert [s.gt["action"] for s in got] == [a for a, _ in steps] and got[0].size == (W, H)
    click = lambda x, y: [Click(point=Point(x, y))]  # noqa: E731
    assert matching.match_guiodyssey(click(0.25 + 0.13, 0.5), "CLICK", [[250, 500]]).step_ok
    assert not matching.match_guiodyssey(click(0.25 + 0.15, 0.5), "CLICK", [[250, 500]]).step_ok
    assert matching.match_guiodyssey([Type(content="hello wrld")], "TEXT", "hello world").step_ok  # ANLS 0.91
    assert not matching.match_guiodyssey([Type(content="goodbye")], "TEXT", "hello world").step_ok
    up = [Swipe(start=Point(0.5, 0.7), end=Point(0.5, 0.3))]
    assert matching.match_guiodyssey(up, "SCROLL", [[500, 800], [500, 200]]).step_ok
    assert matching.match_guiodyssey(up, "SCROLL", [[500, 200], [500, 800]]).type_ok
    assert not matching.match_guiodyssey(up, "SCROLL", [[500, 200], [500, 800]]).step_ok
    (tmp_path / "annotations" / "evil.json").write_text(json.dumps({**ann, "steps": [
        {"step": 0, "screenshot": "../../etc/passwd", "action": "CLICK", "info": [[1, 1]]}]}))  # fmt: skip
    with pytest.raises(ValueError, match="plain file name"):
        list(samples("guiodyssey", tmp_path))


# ---- Multimodal-Mind2Web ------------------------------------------------------------------------------------


def mind2web_parquet(path, rows):
    image = pa.struct([("bytes", pa.binary()), ("path", pa.string())])
    schema = pa.schema([("action_uid", pa.string()), ("raw_html", pa.string()), ("cleaned_html", pa.string()),
                        ("operation", pa.string()), ("pos_candidates", pa.list_(pa.string())),
                        ("neg_candidates", pa.list_(pa.string())), ("website", pa.string()), ("domain", pa.string()),
                        ("subdomain", pa.string()), ("annotation_id", pa.string()), ("confirmed_task", pa.string()),
                        ("screenshot", image), ("action_reprs", pa.list_(pa.string())),
                        ("target_action_index", pa.string()), ("target_action_reprs", pa.string())])  # fmt: skip
    pq.write_table(pa.Table.from_pylist(rows, schema=schema), path)


def m2w_row(i, op, value, rect):
    attrs = json.dumps({"backend_node_id": str(100 + i), "bounding_box_rect": rect, "class": "btn"})
    cand = json.dumps({"tag": "button", "attributes": attrs, "is_original_target": True, "backend_node_id": str(i)})
    return {"action_uid": f"u{i}", "raw_html": "<html/>", "cleaned_html": "<html/>",
            "operation": json.dumps({"op": op, "original_op": op, "value": value}), "pos_candidates": [cand],
            "neg_candidates": [], "website": "shop", "domain": "Shopping", "subdomain": "Retail", "annotation_id": "t1",
            "confirmed_task": "Buy a red scarf", "screenshot": {"bytes": png((200, 200, 200), (1280, 2000)), "path": None},
            "action_reprs": ["[button] Search -> CLICK", "[textbox] q -> TYPE: red scarf"],
            "target_action_index": str(i), "target_action_reprs": ""}  # fmt: skip


def test_mind2web_rows_and_matching(tmp_path):
    rows = [m2w_row(1, "TYPE", "red scarf", "100,50,300,40"), m2w_row(0, "CLICK", "", "640.5,1500,100,50")]
    mind2web_parquet(tmp_path / "test.parquet", rows)
    got = list(samples("mind2web", tmp_path))
    assert [s.gt["op"] for s in got] == ["CLICK", "TYPE"]  # ordered by target_action_index
    assert got[0].gt["box"] == [640.5, 1500.0, 740.5, 1550.0] and got[0].size == (1280, 2000)
    inside = [Click(point=Point(690 / 1280, 1525 / 2000))]
    assert matching.match_mind2web(inside, got[0].gt, got[0].size).step_ok
    typed = matching.match_mind2web([Click(point=Point(200 / 1280, 70 / 2000)), Type(content="red scarf")],
                                    got[1].gt, got[1].size)  # fmt: skip
    assert typed.step_ok and typed.pred["op_f1"] == 1.0
    partial = matching.match_mind2web([Click(point=Point(200 / 1280, 70 / 2000)), Type(content="red hat")],
                                      got[1].gt, got[1].size)  # fmt: skip
    assert partial.ground_ok and not partial.step_ok and 0 < partial.pred["op_f1"] < 1


# ---- the eval, end to end against a stand-in server ----------------------------------------------------------


def answering(table):
    """A stand-in server script: the reply for (goal's first line, step), found in the request's text."""

    def reply(request):
        msgs = request["messages"]
        text = " ".join(p.get("text", "") if isinstance(p, dict) else str(p) for m in msgs if m["role"] != "assistant"
                        for p in (m["content"] if isinstance(m["content"], list) else [{"text": m["content"]}]))
        step = sum(m["role"] == "assistant" for m in msgs)
        return next((r for (goal, s), r in table.items() if s == step and goal in text), "<action>Wait()</action>")

    return reply


@pytest.mark.parametrize("shift,expect_ground", [(0.0, 1.0), (0.1, 1.0), (0.2, 0.0)])
def test_offline_cli_scores_androidcontrol(ac_dir, tmp_path, shift, expect_ground):
    table = {}
    for s in samples("androidcontrol", ac_dir):
        action = AC.from_ac(s.gt["action"], *s.size)
        if isinstance(action, Click):  # a tap `shift` of the screen width to the right, outside the grown box
            action = Click(point=Point(min(1.0, action.point.x + shift), action.point.y))
        table[("Reply to Ana", s.step)] = format_response("t", action, "mobile")
    with StandinServer(answering(table)) as srv:
        out = tmp_path / f"ac-{shift}"
        result = CliRunner().invoke(app, ["eval", "offline", "--format", "androidcontrol", "--data", str(ac_dir),
                                          "--model", srv.base_url, "--model-name", srv.model_name, "--out", str(out),
                                          "--json"])  # fmt: skip
    assert result.exit_code == 0, result.output
    head = json.loads(result.output.strip().splitlines()[-1])
    assert set(head["settings"]) == {"high", "low"} and head["steps"] == 8
    assert head["type_acc"] == 1.0 and head["grounding_acc"] == expect_ground
    assert head["step_sr"] == (1.0 if expect_ground else 0.75)
    details = [json.loads(line) for line in (out / "details.jsonl").read_text().splitlines()]
    low = next(d for d in details if d["key"] == "low/7/1")
    assert low["gt"]["action"] == AC_ACTIONS[1] and low["raw"] == table[("Reply to Ana", 1)]
    assert (out / "summary.html").is_file()


def test_offline_cli_refusals(ac_dir, tmp_path):
    bad = CliRunner().invoke(app, ["eval", "offline", "--format", "guiodyssey", "--data", str(ac_dir), "--model",
                                   "nano", "--settings", "low", "--out", str(tmp_path)])  # fmt: skip
    assert bad.exit_code == 2 and "no step instructions" in bad.output
    (tmp_path / "android_control-x").write_bytes(b"not a tfrecord at all")
    garbage = CliRunner().invoke(app, ["eval", "offline", "--format", "androidcontrol", "--data",
                                       str(tmp_path / "android_control-x"), "--model", "http://127.0.0.1:9/v1",
                                       "--model-name", "m", "--out", str(tmp_path / "o")])  # fmt: skip
    assert garbage.exit_code == 2 and "not a TFRecord file" in garbage.output
    assert "Traceback" not in garbage.output
