"""Harvest grounding samples from any page: every visible interactive element is a labelled target.

This is the hook for the bundled world's apps (venuskit.world, issue 3): give it the URLs of world pages and it
writes ScreenSpot-style samples from them, with the same label rules as synthesis (visible, inside the viewport
and its clipping ancestors, not covered, at least 4×4 pixels, boxes rounded outward plus the snapping pad). The
page is opened through `BrowserEnv`, so its network guard and hang watchdog apply.

An element is interactive if it is a link, button, form control or summary, has an ARIA widget
role, an onclick attribute, a positive tabindex or contenteditable. Its instruction is literal, built from its
accessible name (aria-label, aria-labelledby, text, associated label, value, placeholder, title, alt); an element
without a name gives no sample, and a name that two elements share gives none either.
"""

from __future__ import annotations

import zlib
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

from venuskit.actions.coords import SNAP_PAD, css_to_pixels
from venuskit.envs.browser import BrowserConfig, BrowserEnv, png_size
from venuskit.synth.grounding.compose import runtime_js
from venuskit.synth.grounding.instructions import ambiguous, quote_en, quote_zh
from venuskit.synth.grounding.render import Rendered
from venuskit.synth.grounding.spec import MIN_TARGET_PX, Label, PageSpec, Resolution, Sample
from venuskit.synth.grounding.writers import make_writer

_KIND = {  # role: (English noun, Chinese noun, verb en, verb zh)
    "link": ("link", "链接", "click", "点击"),
    "button": ("button", "按钮", "click", "点击"),
    "textbox": ("field", "输入框", "click", "点击"),
    "checkbox": ("checkbox", "复选框", "click", "点击"),
    "radio": ("option", "选项", "select", "选择"),
    "combobox": ("dropdown", "下拉框", "open", "打开"),
    "tab": ("tab", "标签页", "click", "点击"),
    "switch": ("switch", "开关", "click", "点击"),
    "slider": ("slider", "滑块", "click", "点击"),
    "menuitem": ("menu item", "菜单项", "click", "点击"),
    "option": ("option", "选项", "choose", "选择"),
    "treeitem": ("item", "项", "click", "点击"),
}


@dataclass
class Harvest:
    """One harvested page: its screenshot and kept labels (as a Rendered), and the samples made from them."""

    spec: PageSpec
    rendered: Rendered
    samples: list[Sample]


def harvest_page(env: BrowserEnv, url: str, application: str | None = None, limit: int | None = None) -> Harvest:
    """Open `url` in `env` and label every visible interactive element on the first screen."""
    env.reset({"start_url": url})
    page = env.page
    page.evaluate(runtime_js().strip().rstrip(";"))  # the runtime is one function expression, called at once
    data = page.evaluate("(limit) => window.__gt.harvest(limit)", limit)
    png = page.screenshot(type="png", animations="disabled", caret="hide")
    size = png_size(png)
    dsf = env.config.scale()
    vw, vh = env.config.css_viewport()
    spec = PageSpec(
        seed=zlib.crc32(url.encode()),
        html="",
        resolution=Resolution(vw, vh, dsf),
        platform="web",
        application=application or _app_name(url),
        group="Web",
        language="en",
        theme="",
        mobile=env.config.mobile,
        targets={},
    )
    labels, named = _labels(data["labels"], dsf, size)
    rendered = Rendered(png, size, labels, "")
    return Harvest(spec, rendered, _samples(spec, labels, named))


def _app_name(url: str) -> str:
    parts = urlsplit(url)
    first = next((p for p in parts.path.split("/") if p), "")
    name = f"{parts.hostname or 'page'}_{first}" if first else (parts.hostname or "page")
    return "".join(ch if ch.isalnum() else "_" for ch in name)[:48]


def _labels(raw: list[dict[str, Any]], dsf: float, size: tuple[int, int]) -> tuple[dict[str, Label], dict[str, dict]]:
    labels: dict[str, Label] = {}
    info: dict[str, dict] = {}
    for i, item in enumerate(raw):
        css = (item["x"], item["y"], item["w"], item["h"])
        core = css_to_pixels(*css, dsf, size)
        if core[2] - core[0] < MIN_TARGET_PX or core[3] - core[1] < MIN_TARGET_PX:
            continue
        tid = f"h{i}"
        labels[tid] = Label(tid, css_to_pixels(*css, dsf, size, pad=SNAP_PAD), css)
        info[tid] = item
    return labels, info


def _samples(spec: PageSpec, labels: dict[str, Label], info: dict[str, dict]) -> list[Sample]:
    samples = []
    for tid, label in labels.items():
        item = info[tid]
        name = " ".join(str(item.get("name") or "").split())
        if not name:
            continue
        noun_en, noun_zh, verb_en, verb_zh = _KIND.get(item["role"], ("element", "元素", "click", "点击"))
        en = f"{verb_en} the {quote_en(name)} {noun_en}"
        zh = f"{verb_zh}{quote_zh(name)}{noun_zh}"
        ui_type = "text" if item.get("has_text") else "icon"
        samples.append(Sample("", spec, en, zh, "literal", label.box, ui_type, item["role"], "harvest"))
    clash = ambiguous([s.instruction for s in samples])
    samples = [s for s in samples if s.instruction.lower() not in clash]
    for i, s in enumerate(samples):
        s.sample_id = f"{spec.application}_{spec.platform}_{spec.seed}_{i}"
    return samples


def harvest_world(
    urls: Iterable[str], out: str | Path, fmt: str = "screenspot-pro", config: BrowserConfig | None = None
) -> list[Harvest]:
    """Harvest each URL and write the samples (the world's pages, once venuskit.world serves them)."""
    writer = make_writer(fmt, out)
    results = []
    with BrowserEnv(config or BrowserConfig()) as env:
        try:
            for url in urls:
                h = harvest_page(env, url)
                writer.add_page(h.spec, h.rendered, h.samples)
                results.append(h)
        finally:
            writer.close()
    return results
