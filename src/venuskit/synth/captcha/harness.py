"""Harness code shared by the oracle, the evaluation and the synthesis: open an instance in a browser
env, measure where the widget's parts are, submit the widget state, and turn hidden targets into
grounding labels. This code may read the page through `env.page`; a policy never does.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from venuskit.actions import coords
from venuskit.actions.types import Point
from venuskit.envs.base import EnvError, Observation
from venuskit.synth.captcha.server import CaptchaServer, Issued
from venuskit.synth.captcha.spec import CheckResult, Instance

_LAYOUT_JS = """() => {
  const parts = {};
  for (const e of document.querySelectorAll('[data-part]')) {
    const r = e.getBoundingClientRect();
    parts[e.dataset.part] = [r.left, r.top, r.width, r.height];
  }
  return {vw: window.innerWidth, vh: window.innerHeight, parts};
}"""
_READY_JS = "() => !!window.venusCaptcha && [...document.images].every(i => i.complete && i.naturalWidth > 0)"
_SUBMIT_JS = "() => window.venusCaptcha ? window.venusCaptcha.submit() : null"


@dataclass(frozen=True)
class Rect:
    x: float
    y: float
    w: float
    h: float

    @property
    def center(self) -> tuple[float, float]:
        return (self.x + self.w / 2, self.y + self.h / 2)


@dataclass(frozen=True)
class Layout:
    """Where the widget's parts are, in CSS pixels of the viewport."""

    viewport: tuple[int, int]
    parts: dict[str, Rect]

    def rect(self, name: str) -> Rect:
        try:
            return self.parts[name]
        except KeyError:
            raise EnvError(f"The CAPTCHA page has no part named {name!r}.") from None

    def css(self, name: str, x: float | None = None, y: float | None = None) -> tuple[float, float]:
        """A point of part `name` (part-relative px; None: the part's centre) in viewport CSS px."""
        r = self.rect(name)
        return (r.x + (r.w / 2 if x is None else x), r.y + (r.h / 2 if y is None else y))

    def point(self, name: str, x: float | None = None, y: float | None = None) -> Point:
        """The same point as a normalised venuskit Point (conversion in actions.coords)."""
        cx, cy = self.css(name, x, y)
        vw, vh = self.viewport
        return Point(*coords.point_from_pixels(round(cx), round(cy), vw, vh))

    def visible(self, name: str) -> bool:
        r, (vw, vh) = self.rect(name), self.viewport
        return r.x >= 0 and r.y >= 0 and r.x + r.w <= vw and r.y + r.h <= vh


def measure_layout(page: Any, wait_s: float = 5.0) -> Layout:
    """Read every [data-part] box once the page's images and widget code are ready."""
    page.wait_for_function(_READY_JS, timeout=wait_s * 1000)
    data = page.evaluate(_LAYOUT_JS)
    parts = {k: Rect(*v) for k, v in data["parts"].items()}
    return Layout((int(data["vw"]), int(data["vh"])), parts)


def open_instance(env: Any, server: CaptchaServer, type_name: str, seed: int) -> tuple[Issued, Observation]:
    """Create (type, seed) on the server and load its page in the env."""
    issued = server.create(type_name, seed)
    return issued, env.reset({"start_url": issued.url})


def submit(env: Any, server: CaptchaServer, issued: Issued) -> CheckResult:
    """Post the widget's state as the page would on Verify, then read the server's verdict.
    A page that cannot submit (its script gone, the tab crashed) is a fail with the reason."""
    from playwright.sync_api import Error as PlaywrightError

    try:
        env.page.evaluate(_SUBMIT_JS)
    except (PlaywrightError, EnvError) as e:  # a dead tab or a page without its script: a failed attempt
        first = (str(e).strip().splitlines() or [type(e).__name__])[0]
        return server.result(issued.id) or CheckResult(False, 0.0, f"The page could not submit: {first}")
    return server.result(issued.id) or CheckResult(False, 0.0, "The page did not submit an answer.")


def labels(instance: Instance, layout: Layout, scale: float = 1.0) -> list[dict[str, Any]]:
    """Grounding labels for the instance's targets: exact boxes in screenshot pixels (CSS px x scale)."""
    out = []
    for t in instance.puzzle.targets:
        r = layout.rect(t.part)
        x1, y1, x2, y2 = (0, 0, r.w, r.h) if t.box is None else t.box
        box = [(r.x + x1) * scale, (r.y + y1) * scale, (r.x + x2) * scale, (r.y + y2) * scale]
        box = [round(v, 1) for v in box]
        out.append(
            {
                "instruction": t.label,
                "part": t.part,
                "bbox": box,
                "point": [round((box[0] + box[2]) / 2, 1), round((box[1] + box[3]) / 2, 1)],
            }
        )
    return out
