"""From a rendered page to samples: one instruction per kept target, the quality filters, and refusals.

Filters, in order: the target's family must be requested; a literal instruction that quotes text shown more than
once on the page is not used (another style is tried); a word or character target must occur once in the page
text; instructions that name two targets are dropped (both); refusals hold only if none of their words is on
the page.
"""

from __future__ import annotations

import random
import re

from venuskit.synth.grounding.instructions import REGION, ambiguous, choose_style, fill_region, region_of
from venuskit.synth.grounding.render import Rendered
from venuskit.synth.grounding.spec import REFUSAL, GroundingConfig, Label, PageSpec, Sample, TargetSpec

_QUOTED = re.compile(r"'([^']+)'")


def occurrences(term: str, text: str) -> int:
    """How often `term` appears in `text` as a whole word (for Latin script) or as a substring (CJK)."""
    if not term:
        return 0
    if term.isascii():
        return len(re.findall(rf"(?<![\w]){re.escape(term)}(?![\w])", text, flags=re.IGNORECASE))
    return text.count(term)


def page_samples(spec: PageSpec, rendered: Rendered, config: GroundingConfig, rng: random.Random) -> list[Sample]:
    positives = []
    for tid, label in rendered.labels.items():
        target = spec.targets.get(tid)
        if target is None or (config.families and target.family not in config.families):
            continue
        sample = _sample(spec, target, label, rendered, config, rng)
        if sample is not None:
            positives.append(sample)
    clash = ambiguous([s.instruction for s in positives])
    positives = [s for s in positives if s.instruction.strip().lower() not in clash]
    samples = positives + _refusals(spec, rendered.text, len(positives), config, rng)
    if config.max_per_page is not None and len(samples) > config.max_per_page:
        keep = set(rng.sample(range(len(samples)), config.max_per_page))
        samples = [s for i, s in enumerate(samples) if i in keep]
    for i, s in enumerate(samples):
        s.sample_id = f"{spec.application}_{spec.platform}_{spec.seed}_{i}"
    return samples


def _sample(
    spec: PageSpec, target: TargetSpec, label: Label, rendered: Rendered, config: GroundingConfig, rng: random.Random
) -> Sample | None:
    options = dict(target.instructions)
    if target.element_type in ("word", "character"):
        quoted = _QUOTED.search(options.get("literal", ("", ""))[0])
        if quoted and occurrences(quoted.group(1), rendered.text) != 1:
            return None  # "the word 'report'" must name one word on the screen
    while options:
        style = choose_style(options, config.style_weights, rng)
        if style is None:
            return None
        pair = options.pop(style)
        quoted = _QUOTED.search(pair[0]) if style == "literal" else None
        if (
            quoted
            and occurrences(quoted.group(1), rendered.text) > 1
            and target.element_type not in ("word", "character")
        ):
            continue  # the quoted label shows elsewhere too: another style says it better
        if REGION in pair[0] or REGION in pair[1]:
            box = label.box
            pair = fill_region(pair, region_of((box[0] + box[2]) / 2, (box[1] + box[3]) / 2, *rendered.size))
        return Sample(
            "",
            spec,
            pair[0],
            pair[1],
            style,
            label.box,
            target.ui_type,
            target.element_type,
            target.family,
            label.point,
        )
    return None


def _refusals(spec: PageSpec, text: str, n_pos: int, config: GroundingConfig, rng: random.Random) -> list[Sample]:
    share = config.refusal_share
    if share <= 0 or not spec.absent:
        return []
    wanted = n_pos * share / (1 - share) if share < 1 else len(spec.absent)
    count = int(wanted) + (rng.random() < wanted - int(wanted))  # stochastic rounding keeps the share exact on average
    lowered = text.lower()
    usable = [a for a in spec.absent if not any(term.lower() in lowered for term in a[2])]
    chosen = rng.sample(usable, min(count, len(usable)))
    return [Sample("", spec, en, zh, REFUSAL, None, "text", "refusal", "refusal") for en, zh, _ in chosen]
