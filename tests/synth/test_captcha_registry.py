"""The CAPTCHA registry and generators, without a browser: counts, determinism, answers kept apart,
a blank submission never passing, and a static leak scan of every type's page."""

from __future__ import annotations

import json

import pytest

from venuskit.synth.captcha import draw
from venuskit.synth.captcha.audit import PageView, find_leaks, png_metadata
from venuskit.synth.captcha.checker import check, rules
from venuskit.synth.captcha.families.spatial import folds_to_cube, normalise
from venuskit.synth.captcha.page import page_style, render_page
from venuskit.synth.captcha.registry import FAMILIES, all_types, by_family, get_type, make_instance, select_types
from venuskit.synth.captcha.server import CaptchaServer
from venuskit.synth.captcha.spec import WIDGET_KINDS
from venuskit.synth.captcha.widgets import STATE_SCHEMAS, validate_state

TYPES = [t.name for t in all_types()]


def test_at_least_seventy_types_in_ten_families() -> None:
    fams = by_family()
    assert len(TYPES) >= 70 and len(set(TYPES)) == len(TYPES)
    assert set(fams) == set(FAMILIES) and len(fams) >= 10
    assert all(len(names) >= 5 for names in fams.values())


def test_selection_by_type_and_family_and_unknown_names() -> None:
    chosen = [t.name for t in select_types(["rotation", "text_warped", "rotate_whirl"])]
    assert chosen[-1] == "text_warped" and chosen.count("rotate_whirl") == 1 and len(chosen) == 7
    with pytest.raises(ValueError, match="venus captcha list"):
        get_type("no_such_type")
    with pytest.raises(ValueError, match="non-negative integer"):
        make_instance("text_warped", -1)


@pytest.mark.parametrize("name", TYPES)
def test_instances_are_deterministic_and_well_formed(name: str) -> None:
    a, b = make_instance(name, 7), make_instance(name, 7)
    assert a.puzzle.assets == b.puzzle.assets and a.answer == b.answer and a.prompt == b.prompt
    assert a.widget == b.widget
    others = [make_instance(name, s) for s in (0, 1, 2)]
    assert any(o.puzzle.assets != a.puzzle.assets or o.answer != a.answer for o in others), "seeds must vary"
    assert a.answer["check"] in rules() and a.widget.kind in WIDGET_KINDS
    json.dumps(a.answer)  # the answer is plain data (it is printed by `venus captcha answer`)
    assert a.puzzle.targets, "every type yields grounding labels"
    for data in a.puzzle.assets.values():
        assert data[:8] == b"\x89PNG\r\n\x1a\n" and png_metadata(data) == "", "PNG assets carry pixels only"


BLANK = {
    "text": {"text": ""},
    "click": {"points": [], "dbl": []},
    "grid": {"selected": []},
    "slider": {"value": 0},
    "swap": None,
    "line": {"segments": []},
    "hold": {"held_ms": 0, "presses": 0},
    "arrows": None,
    "drag": None,
}


def _untouched(inst) -> dict:  # type: ignore[no-untyped-def]
    """The state a page posts when nobody touched the widget."""
    p, kind = inst.widget.params, inst.widget.kind
    state = dict(BLANK[kind]) if BLANK[kind] is not None else {}
    if kind == "swap":
        state = {"order": list(range(p["rows"] * p["cols"]))}
    elif kind == "arrows":
        state = {"value": p.get("start", 0), "pos": p.get("grid_start", [0, 0])}
    elif kind == "drag":
        state = {"pieces": [[x + w / 2, y + h / 2] for x, y, w, h in p["pieces"]]}
    if inst.widget.robot:
        state["robot"] = False
    return validate_state(inst.widget, state)


@pytest.mark.parametrize("name", TYPES)
def test_an_untouched_widget_never_passes(name: str) -> None:
    for seed in range(4):
        inst = make_instance(name, seed)
        verdict = check(inst.answer, _untouched(inst), [])
        assert not verdict.passed and verdict.partial < 1, f"seed {seed} passes without any action"


def _static_view(iid: str, name: str, seed: int) -> PageView:
    inst = make_instance(name, seed)
    server = CaptchaServer()
    page = render_page(iid, inst.prompt, inst.widget, page_style(name, seed))
    return PageView(
        "", {"page": page, "js": server.static["captcha.js"].decode(), "css": server.static["captcha.css"].decode()}
    )


@pytest.mark.parametrize("name", TYPES)
def test_rendered_pages_do_not_contain_the_answer(name: str) -> None:
    view, baseline = _static_view("0" * 32, name, 3), _static_view("0" * 32, name, 4)
    assert find_leaks(view, make_instance(name, 3), baseline) == []


def test_the_leak_scan_catches_a_page_that_leaks() -> None:
    inst = make_instance("slider_jigsaw", 3)
    view, baseline = _static_view("0" * 32, "slider_jigsaw", 3), _static_view("0" * 32, "slider_jigsaw", 4)
    target = inst.answer["target"]
    view.parts["page"] += f'<div data-x="{target}"></div>'
    assert any(f'"{target}"' in leak for leak in find_leaks(view, inst, baseline))
    leaky = PageView("", {"js": 'const cfg = {"solution": 4};'})
    assert find_leaks(leaky, make_instance("text_warped", 0)) == ["answer-like key '\"solution\":'"]
    text = make_instance("text_wavy_word", 1)
    assert find_leaks(PageView("", {"dom": f"<p>{text.answer['text'].upper()}</p>"}), text)


def test_state_schemas_cover_every_widget_kind() -> None:
    assert set(STATE_SCHEMAS) == set(WIDGET_KINDS)


def test_cube_net_folding_rule() -> None:
    cross = normalise({(0, 1), (1, 0), (1, 1), (1, 2), (1, 3), (2, 1)})
    stairs = normalise({(0, 0), (0, 1), (1, 1), (1, 2), (2, 2), (2, 3)})
    assert folds_to_cube(cross) and folds_to_cube(stairs)
    assert not folds_to_cube(normalise({(r, c) for r in range(2) for c in range(3)}))  # a 2x3 block
    assert not folds_to_cube(normalise({(0, c) for c in range(6)}))  # a straight line
    assert not folds_to_cube(normalise({(0, 0), (0, 1), (0, 2), (0, 3), (1, 0), (1, 3)}))  # a U


def test_a_an() -> None:
    assert draw.a_an("arrow") == "an arrow" and draw.a_an("star") == "a star"


def _answer_frame(inst) -> int:  # type: ignore[no-untyped-def]
    if inst.answer["check"] == "arrows":
        return inst.answer["value"]
    return inst.answer["target"] // inst.widget.params["step"]


@pytest.mark.parametrize("name", [t.name for t in all_types() if "frame-2" in make_instance(t.name, 0).puzzle.assets])
def test_file_sizes_do_not_point_at_the_answer_frame(name: str) -> None:
    """A script that picks the smallest (or largest) frame file must do no better than chance."""
    ranks = []
    for seed in range(60):
        inst = make_instance(name, seed)
        frames = {k: len(v) for k, v in inst.puzzle.assets.items() if k.startswith("frame-")}
        ranks.append(sorted(frames, key=frames.__getitem__).index(f"frame-{_answer_frame(inst)}") / (len(frames) - 1))
    assert 0.35 < sum(ranks) / len(ranks) < 0.65, "the answer frame's file size stands out"
    assert sum(r == 0 for r in ranks) <= 17 and sum(r == 1 for r in ranks) <= 17
