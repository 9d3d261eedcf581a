"""Test-time zoom-in in the grounding eval: ask once, crop 1/K of the screen around the answer, ask again on the
crop, map the second answer back through `venuskit.actions.coords.CropFrame`.

The stand-in server here is a named stand-in, not a model: it finds the red target in whatever image it is sent
and answers its centre, but on a screen wider than 2000 px it answers 80 px to the right, as a model that sees a
4K screen shrunk would be off. On the full screen it misses the 60x40 target; on the 960x540 crop of zoom 4 it
is exact, so only an exact mapping back scores. Figures with venus-nano are in docs/eval.md."""

from __future__ import annotations

import base64
import io
import json

import numpy as np
import pytest
from PIL import Image, ImageDraw
from typer.testing import CliRunner

from venuskit.actions.prompts import grounding_prompt
from venuskit.eval.grounding import GroundingEvalConfig, grounding_model_config, run_grounding_eval
from venuskit.models.standin_server import StandinServer

W, H = 3840, 2160
TARGETS = {"the save button": (1234, 777), "the export icon": (3790, 2140), "the search field": (31, 1500)}
REFUSE = "the flight simulator"


@pytest.fixture
def screens(tmp_path):
    """One 4K screen per target (a 60x40 red box on grey), in the ScreenSpot-Pro layout, plus a refusal sample."""
    root = tmp_path / "pro"
    (root / "annotations").mkdir(parents=True)
    records = []
    for i, (text, (cx, cy)) in enumerate(TARGETS.items()):
        img = Image.new("RGB", (W, H), (200, 200, 200))
        box = [max(0, cx - 30), max(0, cy - 20), min(W, cx + 30), min(H, cy + 20)]
        ImageDraw.Draw(img).rectangle([box[0], box[1], box[2] - 1, box[3] - 1], fill=(230, 10, 10))
        (root / "images" / "app_windows").mkdir(parents=True, exist_ok=True)
        img.save(root / "images" / "app_windows" / f"s{i}.png")
        records.append({"img_filename": f"app_windows/s{i}.png", "bbox": box, "instruction": text, "id": f"t{i}",
                        "application": "app", "platform": "windows", "img_size": [W, H], "ui_type": "icon",
                        "group": "Dev", "gt_type": "positive"})  # fmt: skip
    records.append({**records[0], "bbox": [-1, -1, -1, -1], "instruction": REFUSE, "id": "neg", "gt_type": "negative"})
    (root / "annotations" / "app_windows.json").write_text(json.dumps(records))
    return root


def _image(req) -> Image.Image:
    url = req["messages"][0]["content"][0]["image_url"]["url"]
    return Image.open(io.BytesIO(base64.b64decode(url.split(",", 1)[1]))).convert("RGB")


def red_finder(on_crop: str | None = None):
    """The stand-in's script: the red box's centre on the 0-1000 grid (80 px off on a screen wider than 2000 px);
    `on_crop` replaces the answer on a crop (a refusal, prose)."""

    def script(req):
        text = req["messages"][0]["content"][1]["text"]
        if text == grounding_prompt(REFUSE):
            return "[-1,-1]"
        img = _image(req)
        if img.width < 2000 and on_crop is not None:
            return on_crop
        a = np.asarray(img)
        ys, xs = np.nonzero((a[:, :, 0] > 200) & (a[:, :, 1] < 50))
        cx, cy = (xs.min() + xs.max() + 1) / 2, (ys.min() + ys.max() + 1) / 2
        cx += 80 if img.width > 2000 else 0
        return f"[{round(1000 * cx / img.width)},{round(1000 * cy / img.height)}]"

    return script


def run(root, out, srv, zoom):
    model = grounding_model_config(srv.base_url, srv.model_name, max_retries=0)
    return run_grounding_eval(GroundingEvalConfig(data=str(root), out=str(out), model=model, zoom=zoom, workers=2))


def test_zoom_maps_the_second_answer_back_and_reports_both_figures(screens, tmp_path):
    with StandinServer(red_finder()) as srv:
        once = run(screens, tmp_path / "once", srv, zoom=1)
        assert len(srv.chat_requests()) == 4
        zoomed = run(screens, tmp_path / "zoom", srv, zoom=4)
        sizes = [_image(r.json).size for r in srv.chat_requests()[4:]]
    assert once["metrics"]["overall"]["num_correct_action"] == 1  # only the refusal
    assert zoomed["metrics"]["overall"]["num_correct_action"] == 4
    assert sizes.count((960, 540)) == 3 and sizes.count((W, H)) == 4  # no second look after a refusal
    z = zoomed["metrics"]["zoom"]
    assert (z["factor"], z["samples"], z["fixed"], z["broken"], z["second_look"]) == (4, 4, 3, 0, 3)
    assert z["without_zoom"]["correct"] == 1 and z["with_zoom"]["correct"] == 4
    assert z["with_zoom"]["ci95"][0] > 0.4 and z["without_zoom"]["ci95"][1] < 0.81  # Wilson, n = 4
    details = {d["key"].split(":")[1]: d for d in zoomed["details"]}
    corner = details["t1"]  # the export icon sits in the corner: the crop shifts inside the screen
    assert corner["zoom"]["crop"] == [W - 960, H - 540, W, H]
    assert corner["pred"] == pytest.approx([3790, 2140], abs=4)  # one grid step of the crop: 0.96 px x 4
    assert details["t0"]["first_correctness"] == "wrong" and details["t0"]["correctness"] == "correct"
    assert "zoom" not in details["neg"] and details["neg"]["correctness"] == "correct"


def test_a_second_look_that_refuses_or_rambles_keeps_the_first_answer(screens, tmp_path):
    for reply in ("[-1,-1]", "I cannot see it."):
        with StandinServer(red_finder(on_crop=reply)) as srv:
            report = run(screens, tmp_path / reply[:3], srv, zoom=4)
        d = {r["key"].split(":")[1]: r for r in report["details"]}["t0"]
        assert d["zoom"]["kept"] == "first" and d["pred"] == d["first_pred"] and d["correctness"] == "wrong"


def test_resume_reruns_answers_of_another_zoom_factor(screens, tmp_path):
    with StandinServer(red_finder()) as srv:
        run(screens, tmp_path / "o", srv, zoom=1)
        report = run(screens, tmp_path / "o", srv, zoom=2)  # same folder, another factor: every sample again
        assert len(srv.chat_requests()) == 4 + 4 + 3
    assert report["run_config"]["zoom"] == 2 and report["metrics"]["zoom"]["samples"] == 4


def test_cli_zoom_with_venus_nano_in_process(screens, tmp_path):
    """`venus eval grounding --model nano --zoom 2`: venus-nano answers in this process, twice per sample."""
    from venuskit.cli.eval_cmd import app

    res = CliRunner().invoke(app, ["grounding", "--data", str(screens), "--model", "nano", "--zoom", "2", "--limit",
                                   "2", "--out", str(tmp_path / "n"), "--json", "--workers", "1"])  # fmt: skip
    assert res.exit_code == 0, (res.output, res.exception)
    result = json.loads(res.output[res.output.index('{"out"') :])
    assert result["overall"]["num_total"] == 2 and result["zoom"]["factor"] == 2
    details = [json.loads(line) for line in (tmp_path / "n" / "details.jsonl").read_text().splitlines()]
    assert all(d["zoom"]["crop"][2] - d["zoom"]["crop"][0] == W // 2 for d in details if "zoom" in d)
    bad = CliRunner().invoke(app, ["grounding", "--data", str(screens), "--model", "nano", "--zoom", "0.5"])
    assert bad.exit_code == 2 and "zoom must be between 1" in bad.output
