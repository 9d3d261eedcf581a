"""Grounding samples harvested from the bundled world's apps: every visible interactive element of a
real world page becomes a labelled target whose box lies on the screenshot."""

from __future__ import annotations

import pytest

from venuskit.envs.browser import BrowserConfig, BrowserEnv
from venuskit.synth.grounding.harvest import harvest_page
from venuskit.world.server import WorldServer

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("path", ["/mail/", "/bank/"])
def test_world_pages_yield_labelled_targets(path):
    server = WorldServer().start()
    try:
        episode = server.new_episode(seed=0)
        with BrowserEnv(BrowserConfig()) as env:
            harvest = harvest_page(env, server.bind_url(episode, path), application=path.strip("/"))
    finally:
        server.stop()
    w, h = harvest.rendered.size
    assert len(harvest.samples) >= 10  # nav links, buttons, inputs of a real app page
    for s in harvest.samples:
        assert s.box is not None  # harvested targets exist on the page; no refusals here
        x1, y1, x2, y2 = s.box
        assert 0 <= x1 < x2 <= w and 0 <= y1 < y2 <= h and (x2 - x1) >= 4 and (y2 - y1) >= 4
    assert any(s.instruction for s in harvest.samples)
