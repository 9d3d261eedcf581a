"""A WebJudge-shaped verifier, the cost anchor of the bench (Online-Mind2Web's WebJudge: N+2 calls).

1. key points from the goal: one text-only call (the same keypoints SGV uses when given the same source);
2. one call per screenshot, each showing that one step, every key point (WebJudge scores relevance here; we ask
   the judge's ordinary window question, so the same judge answers both verifiers);
3. one final call over the kept screenshots (the steps a judge voted decisively on, and always the final screen)
   with the whole action history.

Only model judges take part (WebJudge has no rules). `webjudge_cost` counts what such a run sends for an
episode, images and prompt tokens as the judge server counts them, without calling a model: N + 2 calls, one
screenshot per scoring call, and at least the final screen in the final call (a lower bound of WebJudge's cost).
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Sequence
from pathlib import Path

from venuskit.record.episode import Episode
from venuskit.verify import judges as J
from venuskit.verify.evidence import Evidence, LogFacts, Window
from venuskit.verify.report import Cost, Report, Vote
from venuskit.verify.sgv import _Call, _decide, _prepare, _report, _spent, run_calls


def verify_webjudge(episode: Episode | Path | str, judges: Sequence[J.Judge], keypoints: Sequence[str] | None = None,
                    *, folder: Path | str | None = None, evidence: str = "generic", timeout_s: float = 60.0,
                    workers: int = 4) -> Report:  # fmt: skip
    """Verify one episode the WebJudge way with the model judges among `judges` (at least one)."""
    models = [j for j in judges if not J.is_rule(j)]
    if not models:
        raise ValueError("The WebJudge baseline needs a model judge (e.g. --judges ocr,log,nano or --model URL).")
    t0, before = time.perf_counter(), _spent(models)
    ep, where, tally, views, facts = _prepare(episode, folder, models, keypoints, evidence)
    kps = list(enumerate(tally.keypoints))
    shown = [v for v in views if v.png is not None]
    calls = [_Call(j.name, kps, lambda j=j, v=v: j.check_window(_single(ep, v, facts), kps))
             for v in shown for j in models] if kps else []  # fmt: skip
    decisive: set[int] = set()
    for votes in run_calls(calls, workers, timeout_s):
        decisive |= {v.step for v in votes if v.status in ("satisfied", "contradicted") and v.step is not None}
    kept = [dataclasses.replace(v, note="kept") for v in shown if v.index in decisive or v is shown[-1]]
    history = "\n".join(v.header() for v in views)
    finals = [_Call(j.name, kps, lambda j=j: j.final(ep.goal, kept, kps, history=history)) for j in models]
    final: dict[str, dict[int, Vote]] = {}
    for call, votes in zip(finals, run_calls(finals if kps and kept else [], workers, timeout_s), strict=True):
        tally.add(votes)
        final[call.judge] = {v.keypoint: v for v in votes if v.judge == call.judge}
    results = _decide(tally, models, final)
    return _report(results, facts, models, before, t0, [], "webjudge")


def _single(ep: Episode, view: Evidence, facts: LogFacts) -> Window:
    return Window(view.index, ep.goal, ep.surface, (view,), facts, is_last=False)


def webjudge_cost(episode: Episode | Path | str, keypoints: Sequence[str] | None = None, evidence: str = "generic",
                  *, folder: Path | str | None = None) -> Cost:  # fmt: skip
    """What a WebJudge run sends for this episode, counted without a model: N + 2 calls, N + 1 images (one per
    screenshot, and the final screen in the final call) and their prompt tokens as the judge server counts them
    (`venuskit.models.judge.count_prompt_tokens`)."""
    from venuskit.models.judge import count_prompt_tokens

    ep, _, tally, views, facts = _prepare(episode, folder, [], keypoints, evidence, targets=False)
    kps = list(enumerate(tally.keypoints))
    # An overlay has its screenshot's size and an image's tokens depend on its size alone, so the requests are
    # counted with the screenshots themselves instead of drawing every overlay for nothing.
    shown = [dataclasses.replace(v, overlay=v.png) for v in views if v.png is not None]
    requests = [J.keypoint_messages(ep.goal)] if keypoints is None else []
    requests += [J.window_messages(_single(ep, v, facts), kps) for v in shown]
    history = "\n".join(v.header() for v in views)
    requests += [J.final_messages(ep.goal, shown[-1:], kps, history)] if shown else []
    return Cost(calls=len(shown) + 2, images=sum(J.count_images(r) for r in requests),
                prompt_tokens=sum(count_prompt_tokens(r) for r in requests))  # fmt: skip
