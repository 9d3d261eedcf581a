"""Every CAPTCHA type on real Chromium: its oracle passes through the browser env, and its page (DOM,
URLs, cookies, storage, every response) never contains the answer.

Seeds: 2 per type on the desktop preset (the leak scan compares the two), 1 per widget kind on the
mobile preset. About 2-3 minutes on 2 busy cores. `venus captcha audit --seeds 0-19` runs the same
check over more seeds (the ≥99% bar per type).
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from venuskit.actions.types import Click, Drag
from venuskit.envs.browser import BrowserConfig, BrowserEnv
from venuskit.synth.captcha.audit_run import audit_type
from venuskit.synth.captcha.harness import labels, measure_layout, open_instance, submit
from venuskit.synth.captcha.oracle import plan, run_actions
from venuskit.synth.captcha.registry import all_types
from venuskit.synth.captcha.server import CaptchaServer

pytestmark = [pytest.mark.browser]

TYPES = [t.name for t in all_types()]
CI_SEEDS = [0, 1]
MOBILE = [
    "text_warped",
    "click_chars_order",
    "grid_select_icon",
    "slider_jigsaw",
    "jigsaw_multi",
    "match3",
    "maze_trace",
    "path_finder",
    "hold_button",
    "double_click",
    "robot_grid",
    "rotate_upright",
]


@pytest.fixture(scope="module")
def srv() -> Iterator[CaptchaServer]:
    with CaptchaServer() as server:
        yield server


@pytest.fixture(scope="module")
def desk() -> Iterator[BrowserEnv]:
    with BrowserEnv(BrowserConfig(settle_s=0.05, drag_duration_s=0.25)) as env:
        yield env


@pytest.fixture(scope="module")
def mob() -> Iterator[BrowserEnv]:
    with BrowserEnv(BrowserConfig(preset="mobile", settle_s=0.05, drag_duration_s=0.3)) as env:
        yield env


@pytest.mark.slow
@pytest.mark.parametrize("name", TYPES)
def test_oracle_passes_and_the_page_hides_the_answer(desk: BrowserEnv, srv: CaptchaServer, name: str) -> None:
    audit = audit_type(desk, srv, name, CI_SEEDS, leaks=True)
    assert audit.passed == audit.n, audit.failures
    assert audit.leaks == []


@pytest.mark.slow
@pytest.mark.parametrize("name", MOBILE)
def test_oracle_passes_with_touch_input(mob: BrowserEnv, srv: CaptchaServer, name: str) -> None:
    audit = audit_type(mob, srv, name, [2], leaks=False)
    assert audit.passed == audit.n, audit.failures


def test_a_wrong_drag_fails_with_a_partial_score(desk: BrowserEnv, srv: CaptchaServer) -> None:
    issued, _ = open_instance(desk, srv, "slider_jigsaw", 4)
    layout = measure_layout(desk.page)
    good = plan(issued.instance, layout)[0]
    assert isinstance(good, Drag)
    short = Drag(start=good.start, end=type(good.end)(good.start.x + (good.end.x - good.start.x) / 2, good.end.y))
    assert run_actions(desk, [short]) == []
    result = submit(desk, srv, issued)
    assert not result.passed and 0.3 < result.partial < 0.95 and "off by" in result.reason


def test_the_page_verify_button_submits_once(desk: BrowserEnv, srv: CaptchaServer) -> None:
    issued, _ = open_instance(desk, srv, "grid_dot_count", 1)
    layout = measure_layout(desk.page)
    actions = plan(issued.instance, layout) + [Click(point=layout.point("verify"))]
    assert run_actions(desk, actions) == []
    desk.page.wait_for_function("() => document.querySelector('.vc-status').textContent.includes('Verified')")
    assert srv.result(issued.id).passed
    assert submit(desk, srv, issued).passed, "the harness's submit after a Verify click keeps the first verdict"


def test_grounding_labels_are_exact_boxes_in_the_screenshot(mob: BrowserEnv, srv: CaptchaServer) -> None:
    issued, obs = open_instance(mob, srv, "click_vowels", 3)
    layout = measure_layout(mob.page)
    scale = obs.width / layout.viewport[0]
    found = labels(issued.instance, layout, scale)
    assert scale == 2 and len(found) == len(issued.instance.answer["boxes"])
    image = layout.rect("image")
    for lab, box in zip(found, issued.instance.answer["boxes"], strict=False):
        assert lab["bbox"] == [
            round((image.x + box[0]) * 2, 1),
            round((image.y + box[1]) * 2, 1),
            round((image.x + box[2]) * 2, 1),
            round((image.y + box[3]) * 2, 1),
        ]
        assert 0 <= lab["bbox"][0] < lab["bbox"][2] <= obs.width and 0 <= lab["bbox"][1] < lab["bbox"][3] <= obs.height
