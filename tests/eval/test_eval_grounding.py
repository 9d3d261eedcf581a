"""The grounding eval on the real ScreenSpot-Pro and ScreenSpot-v2 annotation layouts, against a loopback
OpenAI-compatible stand-in server: the request it sends, the parse precedence, the scoring rule, metrics,
checkpoint and resume, the reports, and the CLI."""

from __future__ import annotations

import base64
import json
import re
import subprocess
import sys
from pathlib import Path

import pytest
from PIL import Image

from venuskit.actions.prompts import grounding_prompt
from venuskit.eval.grounding import (
    EvalError,
    GroundingEvalConfig,
    GroundingItem,
    grounding_model_config,
    load_dataset,
    read_reply,
    run_grounding_eval,
    score,
)
from venuskit.eval.report import bar_chart_svg, write_html_summary
from venuskit.models.standin_server import Reply, StandinServer

# Three records as ScreenSpot-Pro ships them (fields, order and conventions of annotations/<app>_<os>.json).
PRO = [
    {
        "img_filename": "vivado_windows/screenshot_2024-12-10_00-12-57.png",
        "bbox": [345, 1023, 377, 1052],
        "instruction": "search report in vivado",
        "instruction_cn": "在Vivado中搜索报告",
        "id": "vivado_windows_9",
        "application": "vivado",
        "platform": "windows",
        "img_size": [2560, 1440],
        "ui_type": "icon",
        "group": "CAD",
    },
    {
        "img_filename": "vivado_windows/screenshot_2024-12-10_00-12-57.png",
        "bbox": [100, 200, 300, 240],
        "instruction": "open the project settings",
        "instruction_cn": "打开项目设置",
        "id": "vivado_windows_10",
        "application": "vivado",
        "platform": "windows",
        "img_size": [2560, 1440],
        "ui_type": "text",
        "group": "CAD",
    },
    {
        "img_filename": "pycharm_macos/screenshot_2024-11-05_15-52-48.png",
        "bbox": [674, 181, 882, 216],
        "instruction": "change color theme in pycharm",
        "instruction_cn": "在 PyCharm 中更改主题颜色",
        "id": "pycharm_macos_60",
        "application": "pycharm",
        "platform": "macos",
        "img_size": [3840, 2160],
        "ui_type": "text",
        "group": "Dev",
    },
    {
        "img_filename": "pycharm_macos/screenshot_2024-11-05_15-52-48.png",
        "bbox": [-1, -1, -1, -1],
        "instruction": "open the flight simulator",
        "instruction_cn": "打开飞行模拟器",
        "id": "pycharm_macos_61",
        "application": "pycharm",
        "platform": "macos",
        "img_size": [3840, 2160],
        "ui_type": "icon",
        "group": "Dev",
    },
]
# ScreenSpot-v2: screenspot_web_v2.json, bbox [x, y, w, h] in pixels, no img_size (it comes from the image).
V2 = [
    {
        "img_filename": "web_3b0ad239-da6b-4f6f-8f12-f674dc90ff33.png",
        "bbox": [42, 1102, 197, 70],
        "instruction": "view the details of the item",
        "data_type": "text",
        "data_source": "shop",
    },
    {
        "img_filename": "web_3b0ad239-da6b-4f6f-8f12-f674dc90ff33.png",
        "bbox": [93, 74, 86, 132],
        "instruction": "view the previous photo",
        "data_type": "icon",
        "data_source": "shop",
    },
]


def _png(path, size, colour=(240, 240, 240)):
    path.parent.mkdir(parents=True, exist_ok=True)
    Image.new("RGB", size, colour).save(path)


@pytest.fixture
def pro(tmp_path):
    root = tmp_path / "ScreenSpot-Pro"
    (root / "annotations").mkdir(parents=True)
    for app in ("vivado_windows", "pycharm_macos"):
        recs = [r for r in PRO if r["img_filename"].startswith(app)]
        (root / "annotations" / f"{app}.json").write_text(json.dumps(recs, ensure_ascii=False))
        _png(root / "images" / recs[0]["img_filename"], tuple(recs[0]["img_size"]))
    return root


@pytest.fixture
def v2(tmp_path):
    root = tmp_path / "ScreenSpot-v2"
    root.mkdir()
    (root / "screenspot_web_v2.json").write_text(json.dumps(V2))
    _png(root / "screenspotv2_image" / V2[0]["img_filename"], (1280, 1300))
    return root


def centre_answer(item: GroundingItem) -> str:
    w, h = item.img_size
    x1, y1, x2, y2 = item.bbox
    return f"[{round(500 * (x1 + x2) / w)},{round(500 * (y1 + y2) / h)}]"


# ---- parsing and scoring -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "reply, point, refused, kind",
    [
        ("[500,250]", (0.5, 0.25), False, "point"),
        ("[100,200,300,400]", (0.2, 0.3), False, "box"),
        ("[100,200],[300,400]", (0.2, 0.3), False, "two_points"),
        ("The element is at [100, 200, 300, 400] or [900,900].", (0.2, 0.3), False, "box"),  # a box beats a point
        ("(250, 750)", (0.25, 0.75), False, "point"),
        ("<think>it is top left, maybe [1,1]</think>[600,400]", (0.6, 0.4), False, "point"),
        ("x: 120 y: 880", (0.12, 0.88), False, "scrape_point"),
        ("from 100 200 to 300 400 then 5", (0.2, 0.3), False, "scrape_box"),
        ("[-1,-1]", None, True, "point"),
        ("[-1,-1,-1,-1]", None, True, "box"),
        ("I cannot find it.", None, False, "none"),
        ("[500.5, 100.25]", (0.5005, 0.10025), False, "point"),
    ],
)
def test_parse_precedence(reply, point, refused, kind):
    pred = read_reply(reply)
    if kind == "none":
        assert pred is None
        return
    assert (pred.refused, pred.kind) == (refused, kind)
    if point is None:
        assert pred.point is None
    else:
        assert (pred.point.x, pred.point.y) == pytest.approx(point)


def test_scoring_rule():
    item = GroundingItem("k", "x.png", "i", (100, 100, 200, 200), img_size=(1000, 1000))
    refusal = GroundingItem("r", "x.png", "i", None, img_size=(1000, 1000))
    assert score(item, read_reply("[150,150]")) == "correct"
    assert score(item, read_reply("[100,200]")) == "correct"  # edges count
    assert score(item, read_reply("[99,150]")) == "wrong"
    assert score(item, read_reply("[-1,-1]")) == "wrong"
    assert score(item, read_reply("no idea")) == "wrong_format"
    assert score(refusal, read_reply("[-1,-1]")) == "correct"
    assert score(refusal, read_reply("[10,10]")) == "wrong"
    assert score(refusal, read_reply("no idea")) == "wrong_format"


# ---- reading the real layouts --------------------------------------------------------------------


def test_screenspot_pro_layout_is_read(pro):
    items = load_dataset(pro)
    assert [i.instruction for i in items] == [r["instruction"] for r in PRO[2:] + PRO[:2]]  # files sorted by name
    vivado = next(i for i in items if i.key.endswith("vivado_windows_9:en"))
    assert vivado.bbox == (345, 1023, 377, 1052) and vivado.img_size == (2560, 1440)
    assert (vivado.platform, vivado.application, vivado.group, vivado.ui_type) == ("windows", "vivado", "CAD", "icon")
    assert vivado.img_path.endswith("images/vivado_windows/screenshot_2024-12-10_00-12-57.png")
    refusal = next(i for i in items if i.key.endswith("pycharm_macos_61:en"))
    assert refusal.bbox is None and refusal.gt_type == "negative"  # a -1 box said "positive" before: negative
    assert [i.instruction for i in load_dataset(pro, language="cn")][0] == "在 PyCharm 中更改主题颜色"


def test_a_negative_sample_is_scored_by_refusal_even_with_a_box(tmp_path):
    """ScreenSpot-Pro's --gt_type negative asks about a sample whose record keeps its box; only a refusal is
    right there, in either layout."""
    root = tmp_path / "pro"
    (root / "annotations").mkdir(parents=True)
    (root / "annotations" / "vivado_windows.json").write_text(json.dumps([{**PRO[0], "gt_type": "negative"}]))
    (item,) = load_dataset(root)
    assert item.bbox is None and item.gt_type == "negative"
    assert score(item, read_reply("[-1,-1]")) == "correct" and score(item, read_reply("[140,720]")) == "wrong"
    v2 = tmp_path / "v2"
    v2.mkdir()
    (v2 / "screenspot_web_v2.json").write_text(json.dumps([{**V2[0], "gt_type": "negative"}]))
    (item,) = load_dataset(v2)
    assert item.bbox is None and item.gt_type == "negative"


def test_screenspot_v2_layout_is_read(v2, tmp_path):
    items = load_dataset(v2)
    assert items[0].bbox == (42, 1102, 239, 1172)  # [x, y, w, h] → [x1, y1, x2, y2]
    assert items[0].img_size is None and items[0].application == "shop" and items[0].ui_type == "text"
    # a mirror that stores [x1, y1, x2, y2] normalised to 0..1
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    (mirror / "screenspot_web_v2.json").write_text(json.dumps([{**V2[0], "bbox": [0.25, 0.5, 0.5, 0.75]}]))
    _png(mirror / "images" / V2[0]["img_filename"], (1280, 1300))
    assert load_dataset(mirror)[0].bbox == (320.0, 650.0, 640.0, 975.0)


def test_a_folder_without_screenspot_data_is_a_clear_error(tmp_path):
    with pytest.raises(EvalError, match="expected annotations/\\*.json"):
        load_dataset(tmp_path)


# ---- the run against a stand-in server ----------------------------------------------------------


def oracle(items: list[GroundingItem], overrides: dict[str, str] | None = None):
    """A stand-in script: the right answer for each prompt (or an override by instruction)."""
    by_prompt = {}
    for item in items:
        item.img_size = item.img_size or Image.open(item.img_path).size
        answer = "[-1,-1]" if item.bbox is None else centre_answer(item)
        by_prompt[grounding_prompt(item.instruction)] = (overrides or {}).get(item.instruction, answer)
    return lambda req: by_prompt[req["messages"][0]["content"][1]["text"]]


def eval_config(data, out, srv, **kw):
    model = grounding_model_config(srv.base_url, srv.model_name, max_retries=0)
    return GroundingEvalConfig(data=str(data), out=str(out), model=model, **kw)


def test_the_request_is_the_ui_venus_2_grounding_call(pro, tmp_path):
    items = load_dataset(pro)
    with StandinServer(oracle(items)) as srv:
        run_grounding_eval(eval_config(pro, tmp_path / "out", srv, workers=1))
        requests = srv.chat_requests()
    assert len(requests) == 4
    body = requests[0].json
    assert [m["role"] for m in body["messages"]] == ["user"]  # no system message
    image, text = body["messages"][0]["content"]
    assert image["type"] == "image_url" and text["type"] == "text"  # image first
    assert text["text"] == grounding_prompt(items[0].instruction)
    assert body["chat_template_kwargs"] == {"enable_thinking": False}
    assert body["temperature"] == 0 and body["max_tokens"] == 1024
    sent = base64.b64decode(image["image_url"]["url"].split(",", 1)[1])
    assert sent == Path(items[0].img_path).read_bytes()


def test_metrics_by_category_and_the_upstream_breakdowns(pro, tmp_path):
    items = load_dataset(pro)
    overrides = {
        "search report in vivado": "[999,999]",
        "open the project settings": "It is the gear.",
        "change color theme in pycharm": "[175,90,230,100]",
    }  # a box, scored by its centre
    with StandinServer(oracle(items, overrides)) as srv:
        report = run_grounding_eval(eval_config(pro, tmp_path / "out", srv))
    m = report["metrics"]
    assert m["overall"] == {
        "num_correct_action": 2,
        "num_total": 4,
        "wrong_format_num": 1,
        "action_acc": 0.5,
        "text_acc": 0.5,
        "icon_acc": 0.5,
    }
    assert m["by_category"]["platform"]["macos"]["action_acc"] == 1.0
    assert m["by_category"]["platform"]["windows"]["action_acc"] == 0.0
    assert m["by_category"]["gt_type"]["negative"]["num_correct_action"] == 1
    assert "plat:macos app:pycharm inst_style:instruction gt_type:negative" in m["fine_grained"]
    assert set(m["leaderboard_simple_style"]) == {"group:CAD", "group:Dev"}
    assert "plat:windows app:vivado inst_style:instruction gt_type:positive" in m["fine_grained"]
    details = {d["key"].split(":")[1]: d for d in report["details"]}
    assert details["pycharm_macos_60"]["parse"] == "box" and details["pycharm_macos_60"]["correctness"] == "correct"
    assert details["pycharm_macos_61"]["pred"] == [-1, -1]
    assert details["vivado_windows_9"]["pred"] == pytest.approx([0.999 * 2560, 0.999 * 1440])
    saved = json.loads((tmp_path / "out" / "report.json").read_text())
    assert saved["metrics"]["overall"] == m["overall"] and len(saved["details"]) == 4


def test_an_interrupted_run_resumes_where_it_stopped(v2, pro, tmp_path):
    items = load_dataset(pro)
    answers = oracle(items)
    calls = {"n": 0}

    def dying(req):
        calls["n"] += 1
        return answers(req) if calls["n"] <= 2 else Reply(status=503, error_message="overloaded")

    out = tmp_path / "out"
    failing = pytest.raises(EvalError, match="2 requests in a row failed.*rerun the same command")
    with StandinServer(dying) as srv, failing:
        run_grounding_eval(eval_config(pro, out, srv, workers=1, max_consecutive_errors=2))
    assert len((out / "details.jsonl").read_text().splitlines()) == 2
    with StandinServer(answers) as srv:
        report = run_grounding_eval(eval_config(pro, out, srv, workers=1))
        assert len(srv.chat_requests()) == 2  # only the two that were never answered
    assert report["metrics"]["overall"]["action_acc"] == 1.0 and report["metrics"]["overall"]["num_total"] == 4
    with StandinServer(answers) as srv:  # --fresh: everything again
        run_grounding_eval(eval_config(pro, out, srv, resume=False))
        assert len(srv.chat_requests()) == 4


def test_screenspot_v2_run_and_jpeg_images(v2, tmp_path):
    Image.open(v2 / "screenspotv2_image" / V2[0]["img_filename"]).save(v2 / "screenspotv2_image" / "shot.jpg")
    records = V2 + [{**V2[0], "img_filename": "shot.jpg", "instruction": "open the cart"}]
    (v2 / "screenspot_web_v2.json").write_text(json.dumps(records))
    items = load_dataset(v2)
    with StandinServer(oracle(items)) as srv:
        report = run_grounding_eval(eval_config(v2, tmp_path / "out", srv))
        urls = [r.image_urls()[0] for r in srv.chat_requests()]
    assert report["metrics"]["overall"]["action_acc"] == 1.0
    assert all(base64.b64decode(u.split(",", 1)[1]).startswith(b"\x89PNG") for u in urls)  # the JPEG went as PNG


# ---- reports and CLI -----------------------------------------------------------------------------


def test_html_summary_has_one_bar_per_category_value(tmp_path):
    path = write_html_summary(
        "Grounding: test",
        {"platform": {"web": 0.5, "macos": 1.0}, "ui_type": {"text": 0.25}, "empty": {}},
        tmp_path / "s.html",
        headline={"accuracy": 0.6},
    )
    text = path.read_text()
    assert text.count('class="bar"') == 3 and "<h2>empty</h2>" not in text
    assert "50.0%" in text and "100.0%" in text and "60.0%" in text
    assert re.search(r'<rect x="190" y="\d+" width="420.0" height="22" class="bar"/>', bar_chart_svg({"a": 1.0}))


def test_cli_eval_grounding_with_the_served_model_name(pro, tmp_path):
    items = load_dataset(pro)
    with StandinServer(oracle(items), model_name="ui-venus-2-test") as srv:
        out = subprocess.run(
            [
                sys.executable,
                "-m",
                "venuskit.cli.eval_cmd",
                "grounding",
                "--data",
                str(pro),
                "--model",
                srv.base_url,
                "--out",
                str(tmp_path / "o"),
                "--json",
            ],
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert srv.chat_requests()[0].json["model"] == "ui-venus-2-test"  # read from /v1/models
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout.strip().splitlines()[-1])
    assert result["overall"]["action_acc"] == 1.0
    assert (tmp_path / "o" / "summary.html").is_file() and (tmp_path / "o" / "report.json").is_file()


def test_cli_reports_an_unreachable_server_without_a_traceback(pro, tmp_path):
    out = subprocess.run(
        [
            sys.executable,
            "-m",
            "venuskit.cli.eval_cmd",
            "grounding",
            "--data",
            str(pro),
            "--model",
            "http://127.0.0.1:9/v1",
            "--model-name",
            "m",
            "--out",
            str(tmp_path / "o"),
            "--retries",
            "0",
        ],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 2 and "4 of 4 requests failed" in out.stderr and "Traceback" not in out.stderr
    assert "Could not connect" in out.stderr
