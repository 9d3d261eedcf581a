"""Envs sharing one Chromium (BrowserConfig.share_browser): one browser process, a context each (nothing
crosses between them), an extra env far cheaper than a browser, and a killed browser relaunched for all."""

from __future__ import annotations

import os
import signal

import pytest

from venuskit.actions.types import GetUrl
from venuskit.envs.browser import BrowserConfig, BrowserEnv
from venuskit.infra.proc import rss_mb

pytestmark = pytest.mark.browser


def _rss(*envs: BrowserEnv) -> float:
    return rss_mb(set().union(*(e.memory_pids() for e in envs)))


def test_envs_share_one_browser_but_nothing_else(pages_url: str) -> None:
    config = BrowserConfig(share_browser=True, settle_s=0.0)
    first, second = BrowserEnv(config), BrowserEnv(config)
    try:
        first.reset({"start_url": f"{pages_url}/page2.html"})
        alone = _rss(first)
        second.reset({"start_url": f"{pages_url}/page2.html"})
        assert first.browser_pid == second.browser_pid
        extra = _rss(first, second) - alone
        # The goal is <= 150 MB (benchmarks/step_overhead.py measures it: ~146). The bound here leaves room for a
        # loaded machine and still fails if an env started a browser of its own (~250 MB and more).
        assert extra < 200, f"an extra env sharing the browser costs {extra:.0f} MB summed RSS"
        first.page.evaluate("document.cookie = 'who=first'; localStorage.setItem('who', 'first')")
        assert second.page.evaluate("[document.cookie, localStorage.getItem('who')]") == ["", None]
        second.close()  # leaves the browser to the env still using it
        assert first.step(GetUrl()).error is None and first.page.evaluate("document.cookie") == "who=first"
        second = BrowserEnv(config)
        second.reset({"start_url": f"{pages_url}/page2.html"})
        old = second.browser_pid
        os.kill(old, signal.SIGKILL)  # both envs lose the browser; each relaunches on its next step
        for env in (first, second):
            result = env.step(GetUrl())
            assert result.info.get("relaunched") and env.browser_pid != old
        assert first.browser_pid == second.browser_pid  # and they share the new one
    finally:
        first.close()
        second.close()
