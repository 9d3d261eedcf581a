"""Grounding synthesis without a browser: config validation, box maths, deterministic composition of every family,
instruction pieces and the sample filters."""

from __future__ import annotations

import random
import re

import pytest

from venuskit.actions.coords import SNAP_PAD, css_to_pixels, normalise_box
from venuskit.synth.grounding.boxes import xywh_to_xyxy, xyxy_to_xywh
from venuskit.synth.grounding.compose import compose_page, page_seed
from venuskit.synth.grounding.families import CHROME_FAMILIES, FAMILIES, PANEL_FAMILIES
from venuskit.synth.grounding.instructions import REGION, ambiguous, ordinal, region_of
from venuskit.synth.grounding.render import Rendered
from venuskit.synth.grounding.samples import occurrences, page_samples
from venuskit.synth.grounding.spec import GroundingConfig, Label, Resolution, SynthError
from venuskit.synth.grounding.vocab import IconSet, icon_set

ICONS = icon_set(GroundingConfig().icon_dir)


# ---- bad input fails fast, with a message that says what to do ----------------------------------


def test_unknown_family_is_refused_with_the_known_names():
    with pytest.raises(SynthError, match=r"Unknown element families \['buttons'\].*button, canvas_chart"):
        GroundingConfig(families=("button", "buttons"))


@pytest.mark.parametrize(
    "text, message",
    [
        ("100x100", "integer of 320..3840"),
        ("4000x2000", "integer of 320..3840"),
        ("3840x2160@3", "wider than 7680"),
        ("1920x1080@0", "within 0.5..4"),
        ("big", "looks like 1920x1080"),
    ],
)
def test_impossible_sizes_are_refused(text, message):
    with pytest.raises(SynthError, match=re.escape(message)):
        GroundingConfig(resolutions=(text,))


def test_other_bad_settings_are_refused():
    for kwargs in (
        {"n": 0},
        {"platforms": ("amiga",)},
        {"zh_share": 1.5},
        {"max_per_page": 0},
        {"style_weights": {"poetic": 1.0}},
    ):
        with pytest.raises(SynthError):
            GroundingConfig(**kwargs)


def test_a_missing_icon_set_says_how_to_install_one(tmp_path):
    with pytest.raises(SynthError, match="apt-get install bootstrap-icons"):
        IconSet(tmp_path)


def test_resolution_parse_and_screenshot_size():
    r = Resolution.parse("412x915@2.625")
    assert (r.width, r.height, r.dsf) == (412, 915, 2.625)
    assert r.shot_size == (1082, 2402)
    assert Resolution.parse("1920x1080").dsf == 1.0


# ---- boxes ---------------------------------------------------------------------------------------


def test_css_boxes_scale_by_dsf_and_round_outward():
    # 100.25..180.75 CSS at dsf 2 covers pixels 200.5..361.5: outward is 200..362.
    assert css_to_pixels(100.25, 50.5, 80.5, 30.0, 2.0, (4000, 4000)) == (200, 101, 362, 161)
    # exact edges stay exact despite float noise
    assert css_to_pixels(10.0, 10.0, 10.0, 10.0, 3.0, (1000, 1000)) == (30, 30, 60, 60)
    # the snapping pad widens every side, and the image clips it
    assert css_to_pixels(0.0, 0.0, 10.0, 10.0, 1.0, (10, 10), pad=SNAP_PAD) == (0, 0, 10, 10)
    assert css_to_pixels(5.0, 5.0, 2.0, 2.0, 1.0, (20, 20), pad=1) == (4, 4, 8, 8)
    # a fractional dsf: 10 * 2.625 = 26.25 → 26, 20 * 2.625 = 52.5 → 53
    assert css_to_pixels(10.0, 10.0, 10.0, 10.0, 2.625, (500, 500)) == (26, 26, 53, 53)


def test_box_layout_conversions_round_trip():
    assert xyxy_to_xywh((10, 20, 40, 60)) == [10, 20, 30, 40]
    assert xywh_to_xyxy([10, 20, 30, 40]) == (10, 20, 40, 60)
    assert normalise_box((0, 0, 960, 540), (1920, 1080)) == (0.0, 0.0, 0.5, 0.5)


# ---- composition ---------------------------------------------------------------------------------


def test_a_page_is_rebuilt_exactly_from_its_seed():
    config = GroundingConfig()
    a, b = compose_page(page_seed(3, 7), config, ICONS), compose_page(page_seed(3, 7), config, ICONS)
    assert a.html == b.html and a.targets == b.targets and a.resolution == b.resolution
    c = compose_page(page_seed(3, 8), config, ICONS)
    assert c.html != a.html


@pytest.mark.parametrize("family", sorted(PANEL_FAMILIES))
def test_every_panel_family_composes_targets_with_instructions(family):
    config = GroundingConfig(families=(family,), platforms=("web", "windows"))
    found = []
    for i in range(3):
        spec = compose_page(page_seed(11, i), config, ICONS)
        found += [t for t in spec.targets.values() if t.family == family]
        for t in spec.targets.values():
            # an element's data-gt, a text range in data-gt-ranges (HTML-escaped JSON), or a canvas item id
            assert any(f in spec.html for f in (f'data-gt="{t.tid}"', f"&quot;{t.tid}&quot;", f'"{t.tid}"'))
    assert found, f"no {family} targets in three pages"
    for t in found:
        assert t.ui_type in ("text", "icon")
        assert t.instructions, t
        for style, (en, zh) in t.instructions.items():
            assert style in ("literal", "functional", "visual", "positional")
            assert en.strip() and zh.strip()


def test_every_family_appears_somewhere_in_a_mixed_run():
    config = GroundingConfig()
    seen = set()
    for i in range(120):
        seen |= {t.family for t in compose_page(page_seed(1, i), config, ICONS).targets.values()}
        if seen >= set(FAMILIES):
            break
    assert set(FAMILIES) <= seen, set(FAMILIES) - seen
    assert set(CHROME_FAMILIES) <= seen


def test_chinese_pages_use_chinese_text_and_keep_both_instructions():
    config = GroundingConfig(zh_share=1.0, platforms=("web",))
    spec = compose_page(page_seed(2, 0), config, ICONS)
    assert spec.language == "zh" and 'lang="zh-CN"' in spec.html
    assert re.search(r"[\u4e00-\u9fff]", spec.html)
    literal = [t.instructions["literal"] for t in spec.targets.values() if "literal" in t.instructions]
    assert any(re.search(r"[\u4e00-\u9fff]", en) for en, _ in literal)  # the English instruction quotes the UI


# ---- instructions and filters ----------------------------------------------------------------------


def test_ordinals_and_regions():
    assert ordinal(1) == ("second", "第二") and ordinal(10) == ("eleventh", "第十一")
    assert region_of(1900, 50, 1920, 1080) == ("in the top-right area", "右上方")
    assert region_of(960, 540, 1920, 1080)[0] == "in the centre of the screen"
    assert region_of(10, 540, 1920, 1080)[0] == "on the left side"


def test_occurrences_counts_whole_words_only():
    assert occurrences("Save", "Save the file. Saved! save") == 2
    assert occurrences("保存", "保存文件，已保存") == 2


def _page_with(targets, text=""):
    config = GroundingConfig(refusal_share=0.0)
    spec = compose_page(page_seed(5, 0), config, ICONS)
    spec.targets = {t.tid: t for t in targets}
    labels = {t.tid: Label(t.tid, (10 * i, 10, 10 * i + 8, 18), (0, 0, 1, 1)) for i, t in enumerate(targets)}
    return spec, Rendered(b"", (1920, 1080), labels, text), config


def test_instructions_that_name_two_targets_are_dropped():
    from venuskit.synth.grounding.spec import TargetSpec

    same = {"functional": ("open the settings", "打开设置")}
    targets = [
        TargetSpec("a", "button", "text", same),
        TargetSpec("b", "icon_button", "icon", same),
        TargetSpec("c", "button", "text", {"functional": ("print the page", "打印页面")}),
    ]
    spec, rendered, config = _page_with(targets)
    samples = page_samples(spec, rendered, config, random.Random(0))
    assert [s.instruction for s in samples] == ["print the page"]
    assert ambiguous(["Open", "open ", "Close"]) == {"open"}


def test_a_literal_label_shown_twice_falls_back_to_another_style():
    from venuskit.synth.grounding.spec import TargetSpec

    t = TargetSpec(
        "a", "button", "text", {"literal": ("click 'Save'", "点击“Save”"), "functional": ("save the file", "保存文件")}
    )
    spec, rendered, config = _page_with([t], text="Save ... Save as")
    config.style_weights = {"literal": 1.0, "functional": 1e-9}
    (sample,) = page_samples(spec, rendered, config, random.Random(0))
    assert sample.style == "functional"


def test_visual_instructions_get_the_screen_region_filled_in():
    from venuskit.synth.grounding.spec import TargetSpec

    t = TargetSpec("a", "button", "text", {"visual": (f"the red 'Stop' button {REGION}", f"{REGION}的红色按钮")})
    spec, rendered, config = _page_with([t])
    (sample,) = page_samples(spec, rendered, config, random.Random(0))
    assert sample.instruction == "the red 'Stop' button in the top-left area"
    assert sample.instruction_cn == "左上方的红色按钮"


def test_refusals_name_only_things_absent_from_the_page():
    config = GroundingConfig(refusal_share=0.5)
    spec = compose_page(page_seed(9, 1), config, ICONS)
    spec.absent = [
        ("click the 'Export' button", "点击“导出”按钮", ("Export", "导出")),
        ("click the 'Print' button", "点击“打印”按钮", ("Print", "打印")),
    ]
    labels = {}
    rendered = Rendered(b"", (1920, 1080), labels, "File Edit Print preview")
    samples = page_samples(spec, rendered, GroundingConfig(refusal_share=1.0), random.Random(0))
    assert [s.instruction for s in samples] == ["click the 'Export' button"]
    assert samples[0].box is None and samples[0].style == "refusal"
