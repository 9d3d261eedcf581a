"""The flywheel's curves and ablations as plots in the HTML report: every measured figure is drawn with its interval,
every missing one says it was not measured."""

from __future__ import annotations

import base64
import io
import re

import pytest
from PIL import Image

from venuskit.eval.flywheel_report import axes_groups, figures_html, rate_of

SUMMARY = {"n": 19, "success": 2 / 19, "ci95": [0.029, 0.314]}
FIGURES = {
    "scaling": [{"tasks": 81, "examples": 900, "heldout_short": {"n": 19, "success": 1 / 19, "ci95": [0.009, 0.246]},
                 "validation_short": {"n": 8, "success": 0.25, "ci95": [0.07, 0.59]}},
                {"tasks": 341, "examples": 3000, "heldout_short": SUMMARY,
                 "validation_short": {"n": 8, "success": 0.375, "ci95": [0.137, 0.694]},
                 "validation_teacher_forced": {"n": 245, "step_acc": 0.46}}],  # the first point has none (older)
    "axes": {"full": {"name": "341", "heldout_short": SUMMARY}, "tasks": {"heldout_short": SUMMARY},
             "verification": {"sgv_kept": {"heldout_short": 2 / 19, "n": 19},
                              "unfiltered": {"heldout_short": 1 / 19, "n": 19}}},
    "skins": {"default": {"success": 0.1, "n": 20, "ci95": [0.03, 0.3]}, "heldout": SUMMARY, "heldout_skins": [900]},
    "rounds": [{"round": 0, "eval_success": 1 / 19, "eval_episodes": 19, "eval_ci95": [0.009, 0.246],
                "rollout_success": 0.2, "sgv_precision": None, "judge_miniwob_precision": 1.0},
               {"round": 1, "eval_success": 2 / 19, "eval_episodes": 19, "eval_ci95": [0.029, 0.314],
                "rollout_success": 0.25, "sgv_precision": 1.0, "judge_miniwob_precision": 0.9}],
    "ablation": {"sft": {"world_short_success": 0.0526, "n": 57}, "grpo": {"world_short_success": 0.07, "n": 57}},
}  # fmt: skip


def _images(page: str) -> list[Image.Image]:
    return [Image.open(io.BytesIO(base64.b64decode(b))) for b in re.findall(r'src="data:image/png;base64,([^"]+)"',
                                                                            page)]  # fmt: skip


def test_every_measured_figure_is_a_plot():
    page = figures_html(FIGURES)
    images = _images(page)
    assert len(images) == 5 and all(im.format == "PNG" and im.size[0] > 300 for im in images)
    for title in ("Scaling", "Axes", "Skins", "Loop rounds", "Stage ablation"):
        assert f"<h2>{title}" in page
    assert "Not measured" not in page


def test_a_figure_not_measured_says_so_and_draws_nothing():
    page = figures_html({"scaling": [], "axes": None, "skins": None, "rounds": [], "ablation": {}})
    assert _images(page) == [] and page.count("Not measured") == 5
    assert "--curves" in page and "--skins" in page  # how to measure it


def test_rates_carry_their_interval_and_a_bare_rate_gets_one_from_its_count():
    assert rate_of(SUMMARY) == (2 / 19, 0.029, 0.314, 19)
    rate, low, high, n = rate_of(0.5, 10)
    assert rate == 0.5 and n == 10 and low == pytest.approx(0.237, abs=1e-3) and high == pytest.approx(0.763, abs=1e-3)
    assert rate_of(None) is None and rate_of({"success": None}) is None
    groups = axes_groups(FIGURES["axes"])
    assert groups["environments down (one skin)"] is None  # the one-skin point was not run: drawn as not measured
    assert groups["verification down (unfiltered)"][3] == 19
