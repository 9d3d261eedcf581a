"""The grounding eval on ScreenSpot-format files written by `venus synth grounding`: the same seed written in
both layouts, answered by a stand-in that knows the true boxes (from the Parquet rows, a third, independent
copy), must score 100% in each layout; a stand-in that always answers the screen centre scores exactly the
share of boxes that hold the centre."""

from __future__ import annotations

import base64
import hashlib
import json
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from venuskit.actions.prompts import grounding_prompt
from venuskit.eval.grounding import GroundingEvalConfig, grounding_model_config, run_grounding_eval
from venuskit.models.standin_server import StandinServer
from venuskit.synth.grounding.generator import generate
from venuskit.synth.grounding.render import Renderer
from venuskit.synth.grounding.spec import GroundingConfig

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    root = tmp_path_factory.mktemp("synth")
    config = GroundingConfig(n=36, seed=8, refusal_share=0.15, max_per_page=12)
    with Renderer() as renderer:
        for fmt in ("screenspot-pro", "screenspot-v2", "parquet"):
            generate(config, root / fmt, fmt, renderer=renderer)
    rows = pq.read_table(root / "parquet" / "grounding.parquet").to_pylist()
    return root, rows


def _digest(png: bytes) -> str:
    return hashlib.sha1(png).hexdigest()


def answers_from_rows(rows, mode="oracle"):
    """Replies keyed by (prompt, image): one instruction ("minimise the window") can recur on other screens."""
    by_prompt = {}
    for row in rows:
        box = json.loads(row["gt_boxes"])[0]
        if mode == "centre":
            reply = "[500,500]"
        elif box == [-1, -1, -1, -1]:
            reply = "[-1,-1]"
        else:
            reply = f"[{round(500 * (box[0] + box[2]))},{round(500 * (box[1] + box[3]))}]"
        by_prompt[grounding_prompt(row["instruction"]), _digest(Path(row["images"][0]).read_bytes())] = reply

    def script(req):
        image, text = req["messages"][0]["content"]
        return by_prompt[text["text"], _digest(base64.b64decode(image["image_url"]["url"].split(",", 1)[1]))]

    return script


def run(folder, srv, out):
    model = grounding_model_config(srv.base_url, srv.model_name, max_retries=0)
    return run_grounding_eval(GroundingEvalConfig(data=str(folder), out=str(out), model=model))


@pytest.mark.parametrize("fmt", ["screenspot-pro", "screenspot-v2"])
def test_true_boxes_score_everything(data, fmt, tmp_path):
    root, rows = data
    with StandinServer(answers_from_rows(rows)) as srv:
        report = run(root / fmt, srv, tmp_path)
    overall = report["metrics"]["overall"]
    assert overall["num_total"] == 36 and overall["action_acc"] == 1.0
    styles = report["metrics"]["by_category"]["instruction_style"]
    assert "refusal" in styles and {"literal", "functional"} <= set(styles)


@pytest.mark.parametrize("fmt", ["screenspot-pro", "screenspot-v2"])
def test_a_centre_clicker_scores_the_share_of_boxes_holding_the_centre(data, fmt, tmp_path):
    root, rows = data
    expected = sum(
        1
        for r in rows
        if (b := json.loads(r["gt_boxes"])[0]) != [-1, -1, -1, -1] and b[0] <= 0.5 <= b[2] and b[1] <= 0.5 <= b[3]
    )
    with StandinServer(answers_from_rows(rows, "centre")) as srv:
        report = run(root / fmt, srv, tmp_path)
    assert report["metrics"]["overall"]["num_correct_action"] == expected
