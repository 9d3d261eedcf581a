"""Grounding data with pixel-exact labels: composed screens from element families, labels read from the
rendered page, ScreenSpot-Pro / ScreenSpot-v2 / Parquet writers, a pixel check, and harvesting from any page.

    from venuskit.synth.grounding import GroundingConfig, generate
    report = generate(GroundingConfig(n=1000, seed=0), "data/grounding", fmt="screenspot-pro")

Modules: spec (records, config), vocab (text banks, icon set), themes, context + controls + widgets + chrome
(element families), families (registry, applications), compose (page from seed), render (Chromium, labels),
samples (instructions, filters, refusals), writers, generator, pixelcheck, harvest, boxes (box conversions).
Names are imported lazily so `boxes` and `spec` load without Playwright.
"""

from __future__ import annotations

from importlib import import_module
from typing import Any

_EXPORTS = {
    "GroundingConfig": "spec",
    "Resolution": "spec",
    "Sample": "spec",
    "SynthError": "spec",
    "RenderError": "spec",
    "FAMILIES": "families",
    "generate": "generator",
    "SynthReport": "generator",
    "Renderer": "render",
    "check_page": "pixelcheck",
    "harvest_page": "harvest",
    "harvest_world": "harvest",
    "compose_page": "compose",
    "page_seed": "compose",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    if name not in _EXPORTS:
        raise AttributeError(f"module 'venuskit.synth.grounding' has no attribute {name!r}")
    return getattr(import_module(f"venuskit.synth.grounding.{_EXPORTS[name]}"), name)
