"""Scoring the step verifier against actions whose rightness is known by construction.

The set is the one `venus verify bench` builds (`verify_bench.build_set`). Every recorded step of its oracle and
partial episodes is replayed through a `StepVerifier` the way the runner would have shown it: a `StepContext`
rebuilt from the record (that step's screenshot, URL and title; the recorded steps before it as history), in
step order, one fresh verifier per episode, so what the verifier remembers of earlier screens is what it would
have remembered in the run. Those actions are right: rejecting one is a false rejection.

At the same moments, faulty proposals are made. Each is bad by construction, never by what a verifier says:

    type_without_focus   Type on a fresh page (the first step, or right after a navigation): no field has focus
                         (the world's pages autofocus nothing)
    type_after_control   Type right after a click on this page that focused no text field (the oracle typed
                         nothing after it: it clicks a field only to type into it), so keys go to a button/checkbox
    out_of_vocabulary    an action the surface does not have (a computer-only TripleClick on the oracle's target)
    repeated_failure     a recorded action that failed (its step has an error), again at the next step, same page
    repeat_no_effect     a click again right after the record shows it changed nothing but a caret (same URL)
    blank_click          a click on empty page background on a fresh page (a uniform box of page colour)
    blank_click_repeat   that blank click again on the unchanged screen, after it did nothing (in the history)
    wrong_item           the set's wrong_item / wrong_target episode's action where it leaves the oracle, on the
                         identical screen: it works on another item than the goal names (their contract: not done)
    premature_finish     Finished at the first step (the null episodes: contract `failed`), and the partial
                         episodes' closing Finished (contract `partial`: the task is not done there)

Metrics: false-rejection rate over the right steps, catch rate per fault kind and overall (micro and macro),
precision and recall of "reject", the labels given, and cost (model calls, seconds per proposal).

    result = run_step_bench("runs/verify-bench")                       # rules only
    result = run_step_bench(set_dir, judge=VLMJudge.from_url(url, "judge"))
"""

from __future__ import annotations

import statistics
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from venuskit.actions.coords import point_from_pixels
from venuskit.actions.surfaces import check_surface
from venuskit.actions.types import (
    CLICK_TYPES,
    Action,
    ActionError,
    Click,
    Finished,
    LaunchApp,
    Point,
    PressRecent,
    TripleClick,
    Type,
)
from venuskit.eval import metrics as M
from venuskit.eval.verify_bench import load_index
from venuskit.infra import untrusted
from venuskit.record.episode import Episode, Step

RIGHT_KINDS = ("oracle", "partial")
WRONG_KINDS = ("wrong_item", "wrong_target")  # set episodes whose divergent action is a wrong_item fault
RIGHT = "right"
_CLICKS = CLICK_TYPES
# A blank box spans this share of the screen (width, height): wider than a sidebar, so that its centre is far
# from any label whose invisible link padding could reach it.
_BLANK = (0.25, 0.12)
_CARET = 1e-4  # share of changed pixels a click may leave (a caret) and still count as "changed nothing"
_TYPED = "hello"  # what the Type faults type when the episode typed nothing itself


@dataclass(frozen=True)
class FaultKind:
    name: str
    help: str


FAULTS: tuple[FaultKind, ...] = (
    FaultKind("type_without_focus", "Type on a fresh page, where no field has focus"),
    FaultKind("type_after_control", "Type after a click that focused a button or checkbox, not a text field"),
    FaultKind("out_of_vocabulary", "an action the surface does not have"),
    FaultKind("repeated_failure", "a recorded failing action, repeated on the same page"),
    FaultKind("repeat_no_effect", "a click repeated after the record shows it changed nothing"),
    FaultKind("blank_click", "a click on empty page background"),
    FaultKind("blank_click_repeat", "the blank click again, after it changed nothing"),
    FaultKind("wrong_item", "the set's wrong-item action where it leaves the oracle, on the same screen"),
    FaultKind("premature_finish", "Finished before the task is done"),
)
FAULT_NAMES = tuple(f.name for f in FAULTS)


@dataclass(frozen=True)
class Proposal:
    """One action shown to the verifier at one moment of a recorded episode."""

    kind: str  # RIGHT or a fault kind
    step: int
    action: Action
    png: bytes
    url: str | None
    title: str | None
    history: tuple[Step, ...]


# ---- pixels --------------------------------------------------------------------------------------


def _rgb(png: bytes) -> Any:
    import numpy as np

    with untrusted.open_image(png) as im:
        return np.asarray(im.convert("RGB"))


def blank_point(png: bytes, share: tuple[float, float] = _BLANK) -> Point | None:
    """The centre of a box (`share` of the screen's width and height) filled with nothing but the page background, the
    one nearest the screen's centre; None if there is none. The background is the colour at the bottom-left
    corner: a uniform box of any other colour may be a text area or a button, which a click would change."""
    import numpy as np

    im = _rgb(png)
    h, w, _ = im.shape
    content = np.any(im != im[h - 1, 0], axis=2).astype(np.int64)
    ii = np.pad(content.cumsum(0).cumsum(1), ((1, 0), (1, 0)))
    bw, bh = max(1, round(share[0] * w)), max(1, round(share[1] * h))
    sums = ii[bh:, bw:] - ii[:-bh, bw:] - ii[bh:, :-bw] + ii[:-bh, :-bw]  # content pixels per box, by top-left
    ys, xs = np.nonzero(sums == 0)
    if not len(ys):
        return None
    cx, cy = xs + bw / 2, ys + bh / 2
    k = int(np.argmin((cx - w / 2) ** 2 + (cy - h / 2) ** 2))
    return Point(*point_from_pixels(float(cx[k]), float(cy[k]), w, h))


def changed_pixels(a: bytes, b: bytes) -> float:
    """Share of pixels that differ at all between two screenshots (1.0 for different sizes)."""
    import numpy as np

    ia, ib = _rgb(a), _rgb(b)
    if ia.shape != ib.shape:
        return 1.0
    return float(np.any(ia != ib, axis=2).mean())


# ---- faulty proposals ----------------------------------------------------------------------------


def _page(url: str | None) -> str | None:
    return url.split("#", 1)[0] if url else url


def _fresh(steps: Sequence[Step], i: int) -> bool:
    """The screen of step i is a freshly loaded page: nothing has focus on it."""
    return i == 0 or _page(steps[i - 1].url) != _page(steps[i].url)


def _typed_text(steps: Sequence[Step]) -> str:
    typed = [s.action.content.rstrip("\n") for s in steps if isinstance(s.action, Type)]
    return next((t for t in typed if t), _TYPED)


def out_of_vocabulary(action: Action, surface: str) -> Action:
    """An action the surface does not accept, aimed where `action` aims (checked: never one it does accept)."""
    point = getattr(action, "point", None) or Point(0.5, 0.5)
    for candidate in (TripleClick(point=point), LaunchApp(app="Settings"), PressRecent()):
        try:
            check_surface(candidate, surface)
        except ActionError:
            return candidate
    raise ValueError(f"Every candidate action is in the {surface} vocabulary; add one that is not.")


def _type_faults(steps: Sequence[Step], i: int) -> list[tuple[str, Action]]:
    if isinstance(steps[i].action, Type):
        return []  # typing may be right here
    if _fresh(steps, i):
        return [("type_without_focus", Type(content=_typed_text(steps)))]
    if isinstance(steps[i - 1].action, _CLICKS):
        return [("type_after_control", Type(content=_typed_text(steps)))]
    return []


def _repeat_faults(steps: Sequence[Step], pngs: Sequence[bytes | None], i: int) -> list[tuple[str, Action]]:
    """The previous step's action again, where the record shows it failed or changed nothing."""
    prev = steps[i - 1] if i else None
    if prev is None or prev.action is None or _page(prev.url) != _page(steps[i].url) or prev.action == steps[i].action:
        return []
    if prev.error:
        return [("repeated_failure", prev.action)]
    a, b = pngs[i - 1], pngs[i]
    if isinstance(prev.action, _CLICKS) and a is not None and b is not None and changed_pixels(a, b) <= _CARET:
        return [("repeat_no_effect", prev.action)]
    return []


Record = tuple[list[Step], list[bytes | None]]  # an episode's steps and their screenshots


def _wrong_item_faults(steps: Sequence[Step], pngs: Sequence[bytes | None], i: int,
                       wrong: Sequence[Record]) -> list[tuple[str, Action]]:  # fmt: skip
    """The wrong episodes' actions at step i, where they leave this episode's actions on the identical screen."""
    found: list[tuple[str, Action]] = []
    for w_steps, w_pngs in wrong:
        if len(w_steps) <= i or w_pngs[i] is None or pngs[i] is None or w_steps[i].action is None:
            continue
        same_before = all(a.action == b.action for a, b in zip(w_steps[:i], steps[:i], strict=True))
        action = w_steps[i].action
        new = same_before and action != steps[i].action and all(action != a for _, a in found)
        if new and not isinstance(action, Finished) and changed_pixels(w_pngs[i], pngs[i]) == 0.0:
            found.append(("wrong_item", action))
    return found


def faults_at(episode: Episode, steps: Sequence[Step], pngs: Sequence[bytes | None], i: int,
              wrong: Sequence[Record] = ()) -> list[tuple[str, Action]]:  # fmt: skip
    """(kind, action) of every faulty proposal made at step i (the blank click's repeat is made separately)."""
    right = steps[i].action
    found = _type_faults(steps, i) + _repeat_faults(steps, pngs, i)
    if getattr(right, "point", None) is not None:
        found.append(("out_of_vocabulary", out_of_vocabulary(right, episode.surface)))
    blank = blank_point(pngs[i]) if _fresh(steps, i) and pngs[i] is not None else None
    if blank is not None:
        found.append(("blank_click", Click(point=blank)))
    found += _wrong_item_faults(steps, pngs, i, wrong)
    if i == 0 and not isinstance(right, Finished):
        found.append(("premature_finish", Finished(content="Done.")))
    return found


def episode_proposals(episode: Episode, pngs: Sequence[bytes | None], *, partial: bool = False,
                      wrong: Sequence[Record] = ()) -> list[Proposal]:  # fmt: skip
    """Every proposal for one episode, in the order a runner's verifier would meet them: at each step the
    faults, then the action that ran (so the verifier remembers that one), then the blank click's repeat.
    A partial episode's closing Finished is a premature_finish fault, not a right step."""
    steps, out = episode.steps, []
    for i, step in enumerate(steps):
        png = pngs[i]
        if png is None or step.action is None:
            continue
        at = Proposal(RIGHT, i, step.action, png, step.url, step.title, tuple(steps[:i]))
        faults = faults_at(episode, steps, pngs, i, wrong)
        out += [replace(at, kind=k, action=a) for k, a in faults]
        closing = partial and i == len(steps) - 1 and isinstance(step.action, Finished)
        out.append(replace(at, kind="premature_finish") if closing else at)
        for kind, action in faults:
            if kind == "blank_click":  # nothing changed: the same screen, with the blank click in the history
                done = Step(index=i, screenshot=step.screenshot, url=step.url, title=step.title, action=action)
                again = replace(at, kind="blank_click_repeat", action=action, step=i + 1)
                out.append(replace(again, history=(*at.history, done)))
    return out


# ---- metrics (pure; the arithmetic is venuskit.eval.metrics) -----------------------------------------

_div, _num = M.div, M.rounded


def score_steps(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Every metric from verdict rows ({"kind", "ok", "label", "checked_by", "seconds", "calls", "tokens"}).
    A fault is caught when it is rejected (ok False); a right step rejected is a false rejection."""
    right = [r for r in rows if r["kind"] == RIGHT]
    faults = [r for r in rows if r["kind"] != RIGHT]
    false_rej = sum(not r["ok"] for r in right)
    caught = sum(not r["ok"] for r in faults)
    # Every kind is listed, also one the set gave no chance to (n 0): an absent kind is not a perfect one.
    by_kind: dict[str, dict[str, Any]] = {k: {"n": 0, "caught": 0, "labels": Counter()} for k in FAULT_NAMES}
    for r in faults:
        k = by_kind.setdefault(r["kind"], {"n": 0, "caught": 0, "labels": Counter()})
        k["n"] += 1
        k["caught"] += not r["ok"]
        k["labels"][r["label"]] += 1
    for k in by_kind.values():
        k["rate"], k["labels"] = _num(_div(k["caught"], k["n"])), dict(k["labels"])
    rates = [k["rate"] for k in by_kind.values() if k["n"]]  # macro: the mean over kinds that occurred
    scores = M.prf(tp=caught, fp=false_rej, fn=len(faults) - caught)  # positive: "reject"
    return {"n_right_steps": len(right), "n_faults": len(faults), "false_rejections": false_rej,
            "false_rejection_rate": _num(_div(false_rej, len(right))), "caught": caught,
            "catch_rate": _num(scores["recall"]),
            "catch_rate_macro": _num(statistics.fmean(rates) if rates else 0.0),
            "catch_by_kind": by_kind, "precision": _num(scores["precision"]), "recall": _num(scores["recall"]),
            "f1": _num(scores["f1"]),
            "ci95": {"precision": [_num(x) for x in M.wilson(caught, caught + false_rej)],
                     "recall": [_num(x) for x in M.wilson(caught, len(faults))]},
            "labels_right": dict(Counter(r["label"] for r in right)),
            "rejected_by": dict(Counter(r["checked_by"] for r in rows if not r["ok"])),
            "cost": step_cost(rows)}  # fmt: skip


def step_cost(rows: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """Model calls and tokens in all, and seconds per proposal (each proposal is one verifier call)."""
    secs = [r.get("seconds", 0.0) for r in rows]
    calls = sum(r.get("calls", 0) for r in rows)
    return {"proposals": len(rows), "calls": calls, "calls_per_step": _num(_div(calls, len(rows))),
            "tokens": sum(r.get("tokens", 0) for r in rows), "seconds_total": _num(sum(secs)),
            "seconds_per_step": {"mean": _num(statistics.fmean(secs)) if secs else 0.0,
                                 "median": _num(statistics.median(secs)) if secs else 0.0,
                                 "max": _num(max(secs, default=0.0))}}  # fmt: skip


# ---- running a verifier over the set -------------------------------------------------------------


def load_replay(folder: Path) -> tuple[Episode, list[bytes | None]]:
    from venuskit.record.store import load_episode, step_png

    episode = load_episode(folder)
    return episode, [step_png(folder, s) for s in episode.steps]


def wrong_episodes(set_dir: Path, items: Sequence[dict[str, Any]]) -> dict[tuple[str, int], list[Record]]:
    out: dict[tuple[str, int], list[Record]] = {}
    for item in items:
        if item["kind"] in WRONG_KINDS:
            episode, pngs = load_replay(set_dir / item["episode_dir"])
            out.setdefault((item["task"], item["seed"]), []).append((episode.steps, pngs))
    return out


def verify_proposal(verifier: Any, judge: Any, episode: Episode, p: Proposal) -> dict[str, Any]:
    from venuskit.agent.hooks import StepContext
    from venuskit.envs.base import Observation

    w, h = episode.screen
    # The page's focus fact of this moment, where the record has it (episodes recorded since it existed).
    recorded = episode.steps[p.step].info if p.step < len(episode.steps) else {}
    info = {"focus_editable": recorded["focus_editable"]} if "focus_editable" in recorded else {}
    obs = Observation(p.png, w, h, p.url, p.title, info=info)
    ctx = StepContext(episode.goal, episode.surface, p.step, obs, p.action, None, "", p.history)
    calls, tokens = (judge.cost.calls, judge.cost.tokens) if judge is not None else (0, 0)
    t0 = time.perf_counter()
    verdict = verifier(ctx)
    seconds = time.perf_counter() - t0
    calls, tokens = (judge.cost.calls - calls, judge.cost.tokens - tokens) if judge is not None else (0, 0)
    return {"step": p.step, "kind": p.kind, "action": p.action.to_dict(), "ok": verdict.ok, "label": verdict.label,
            "reason": verdict.reason, "checked_by": verdict.details.get("checked_by", ""), "seconds": seconds,
            "unjudged": "unjudged" in verdict.details, "calls": calls, "tokens": tokens}  # fmt: skip


def run_step_bench(set_dir: Path | str, judge: Any = None, *, rules: bool = True,
                   on_row: Callable[[dict[str, Any]], None] | None = None) -> dict[str, Any]:  # fmt: skip
    """Replay the right steps and the faulty proposals of every oracle and partial episode of the set through
    `StepVerifier(judge, rules)`; returns `score_steps`'s metrics, the verdict rows, and episodes that could
    not be read (under `errors`, left out of the metrics)."""
    from venuskit.record.store import EpisodeStoreError
    from venuskit.verify.step import StepVerifier

    if judge is None and not rules:
        raise ValueError("A step verifier with no rules and no judge accepts everything; pass a judge or rules=True.")
    set_dir = Path(set_dir)
    index = load_index(set_dir)
    wrong = wrong_episodes(set_dir, index["items"])
    rows: list[dict[str, Any]] = []
    errors: list[dict[str, str]] = []
    for item in (i for i in index["items"] if i["kind"] in RIGHT_KINDS):
        try:
            episode, pngs = load_replay(set_dir / item["episode_dir"])
        except (EpisodeStoreError, OSError, ValueError) as e:
            errors.append({"id": item["id"], "error": f"{type(e).__name__}: {e}"})
            continue
        proposals = episode_proposals(episode, pngs, partial=item["kind"] == "partial",
                                      wrong=wrong.get((item["task"], item["seed"]), ()))  # fmt: skip
        verifier = StepVerifier(judge=judge, rules=rules)  # one per episode, as in a run
        for p in proposals:
            row = {"id": item["id"], **verify_proposal(verifier, judge, episode, p)}
            rows.append(row)
            if on_row is not None:
                on_row(row)
    return {**score_steps(rows), "set": str(set_dir), "n_episodes": len({r["id"] for r in rows}),
            "unjudged": sum(r["unjudged"] for r in rows), "errors": errors, "rows": rows}  # fmt: skip
