"""`venus synth grounding`: compose, render, label and write pages until N samples are written.

Page i is composed from `page_seed(config.seed, i)` alone, so any page can be rebuilt (the pixel check does).
A page that fails to render is skipped, its seed logged and listed in manifest.json; it never yields a label.
After `config.max_failures` failures in a row the run stops with an error (the browser, not a page, is broken).
"""

from __future__ import annotations

import logging
import random
import time
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from venuskit.synth.grounding.compose import compose_page, page_seed
from venuskit.synth.grounding.render import Renderer
from venuskit.synth.grounding.samples import page_samples
from venuskit.synth.grounding.spec import GroundingConfig, RenderError, SynthError, ensure_dir
from venuskit.synth.grounding.vocab import icon_set
from venuskit.synth.grounding.writers import make_writer, write_json

log = logging.getLogger(__name__)
Progress = Callable[[int, int], None]


@dataclass
class SynthReport:
    out: str
    format: str
    samples: int = 0
    refusals: int = 0
    targets: int = 0  # labelled targets the pages yielded (before the per-page cap and the ambiguity filter)
    pages: int = 0
    skipped: list[dict[str, Any]] = field(default_factory=list)
    rejected: Counter[str] = field(default_factory=Counter)  # labels the renderer did not keep, by reason
    by_family: Counter[str] = field(default_factory=Counter)
    elapsed_s: float = 0.0

    @property
    def targets_per_s(self) -> float:
        return self.targets / self.elapsed_s if self.elapsed_s else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "out": self.out,
            "format": self.format,
            "samples": self.samples,
            "refusals": self.refusals,
            "targets": self.targets,
            "pages": self.pages,
            "skipped": self.skipped,
            "rejected": dict(self.rejected),
            "by_family": dict(self.by_family),
            "elapsed_s": round(self.elapsed_s, 2),
            "targets_per_s": round(self.targets_per_s, 1),
        }


def generate(
    config: GroundingConfig,
    out: str | Path,
    fmt: str = "screenspot-pro",
    on_progress: Progress | None = None,
    renderer: Renderer | None = None,
) -> SynthReport:
    """Write config.n samples to `out` in format `fmt`; returns what was done (also saved as manifest.json)."""
    icons = icon_set(config.icon_dir)  # a missing icon set fails here, before any browser starts
    out = ensure_dir(out)
    writer = make_writer(fmt, out)
    report = SynthReport(out=str(out), format=fmt)
    own = renderer is None
    renderer = renderer or Renderer(config.page_timeout_s)
    started = time.perf_counter()
    try:
        _run(config, icons, renderer, writer, report, on_progress)
    finally:
        report.elapsed_s = time.perf_counter() - started
        writer.close()
        if own:
            renderer.close()
        write_json(out / "manifest.json", {"config": config.to_dict(), **report.to_dict()})
    return report


def _run(
    config: GroundingConfig,
    icons: Any,
    renderer: Renderer,
    writer: Any,
    report: SynthReport,
    on_progress: Progress | None,
) -> None:
    failures = 0
    index = 0
    while report.samples < config.n:
        seed = page_seed(config.seed, index)
        index += 1
        spec = compose_page(seed, config, icons)
        try:
            rendered = renderer.render(spec)
        except RenderError as e:
            failures += 1
            log.warning("Skipped page seed %d: %s", seed, e)
            report.skipped.append({"seed": seed, "error": str(e)})
            if failures >= config.max_failures:
                raise SynthError(
                    f"{failures} pages in a row failed to render (last: {e}); the browser is broken, "
                    f"not the pages. {report.samples} samples were written to {report.out}."
                ) from e
            continue
        failures = 0
        samples = page_samples(spec, rendered, config, random.Random(seed ^ 0x5A5A))
        samples = samples[: config.n - report.samples]
        writer.add_page(spec, rendered, samples)
        _tally(report, rendered, samples)
        if on_progress:
            on_progress(report.samples, config.n)


def _tally(report: SynthReport, rendered: Any, samples: list) -> None:
    report.pages += 1
    report.targets += len(rendered.labels)
    report.rejected.update(rendered.rejected)
    report.samples += len(samples)
    report.refusals += sum(1 for s in samples if s.refusal)
    report.by_family.update(s.family for s in samples)
