"""Task synthesis: capability catalogs per app, composed into contract-bound tasks, rejected with reasons,
steered by coverage and by failures. The proving run in real Chromium is `venuskit.flywheel.synth`.

    catalog.py   capability catalogs (tasks/capabilities/*.toml): loading and validation
    sample.py    drawing plans: capabilities, values, data flow (weighted by coverage and failures)
    compose.py   a plan -> one [[task]] table: goal, contract, oracle, tags
    reject.py    the rejection reasons and the static checks on the seeded worlds
    refs.py      how many rows a goal's names pick out (read-only)
    build.py     plan -> checked candidate; tags; splits
    writer.py    the paraphrase request and its guard (--writer)
    coverage.py  coverage, failure attribution, sampling weights (the closed loop's write-back)
    taskfile.py  writing task files the loader reads back

See docs/tasks.md.
"""

from venuskit.tasks.synth.build import Candidate, build_candidate, cap_split, plan_split, train_capabilities
from venuskit.tasks.synth.catalog import Capability, Catalog, CatalogError, bundled_catalog, load_catalog
from venuskit.tasks.synth.coverage import (
    Coverage,
    Failures,
    coverage_of,
    failures_of,
    sampling_weights,
    template_weights,
)
from venuskit.tasks.synth.reject import REASONS, Rejected, SeedWorlds

__all__ = [
    "REASONS", "Candidate", "Capability", "Catalog", "CatalogError", "Coverage", "Failures", "Rejected",
    "SeedWorlds", "build_candidate", "bundled_catalog", "cap_split", "coverage_of", "failures_of", "load_catalog",
    "plan_split", "sampling_weights", "template_weights", "train_capabilities",
]  # fmt: skip
