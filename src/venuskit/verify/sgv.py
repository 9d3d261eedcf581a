"""SGV: the trajectory verifier. Five stages, each callable alone:

1. `extract_keypoints(goal)`: keypoints from the goal alone, before the trajectory is seen (or given ones,
   e.g. a world contract's keypoint descriptions).
2. `make_windows(episode, ...)`: windows of consecutive steps, each screenshot with its action drawn.
3. window checks: every judge judges every window against every keypoint, in parallel (`workers`,
   a per-call timeout); a judge that raises, hangs or answers garbage abstains and the run goes on.
4. hard rules first: keypoints the rule judges (OCR, log) agree on are settled without a model call;
   only the still-open keypoints go to ONE final judgment per model judge over <= `max_evidence`
   selected screenshots. Judges vote; ties never resolve to satisfied (see voting.py).
5. the `Report`: a verdict (`uncertain` when completion hinges on a keypoint nobody could decide), per-keypoint
   results with every vote, the cost, and what the record lacked.
"""

from __future__ import annotations

import dataclasses
import math
import threading
import time
from collections.abc import Callable, Sequence
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import dataclass, field
from pathlib import Path

from venuskit.actions.types import Action, Answer, CallUser, Finished, TakeNote
from venuskit.actions.types import Sequence as ActionSequence
from venuskit.infra.config import field_help, help_text, option
from venuskit.record.episode import Episode, Outcome, Step
from venuskit.record.overlay import focus_after
from venuskit.record.store import EpisodeWriter, load_episode, step_png
from venuskit.verify import ocr
from venuskit.verify import page_rules as P
from venuskit.verify import rules as R
from venuskit.verify import text as T
from venuskit.verify.evidence import (
    EVIDENCE_MODES,
    Evidence,
    LogFacts,
    Overlay,
    Window,
    describe_action,
    echoes,
    log_facts,
    public_url,
)
from venuskit.verify.images import readable
from venuskit.verify.judges import Judge, Keypoints, VLMJudge, abstain_all, is_rule
from venuskit.verify.keypoints import split_goal
from venuskit.verify.report import UNCERTAIN, Cost, KeypointResult, Report, Vote
from venuskit.verify.voting import majority, position, settled_by_rules


@dataclass
class SGVConfig:
    """How SGV cuts the trajectory and calls its judges."""

    window: int = option("Consecutive steps each window shows a judge.", default=3)
    stride: int = option("Steps between window starts; <= window so no step is skipped.", default=3)
    workers: int = option("Window checks that run at the same time.", default=4)
    timeout_s: float = option("Seconds one judge call may take before it abstains.", default=60.0)
    final_judgment: bool = field(
        default=True,
        metadata=help_text("Ask each model judge once more over the selected evidence for open keypoints."),
    )
    max_evidence: int = option("Screenshots at most in the final judgment.", default=3)
    model_windows: bool = field(
        default=False,
        metadata=help_text("Model judges also check every window (one image per step); off: rules read the windows "
                       "and each model judge makes one final judgment over the selected evidence."),
    )  # fmt: skip
    evidence: str = field(
        default="generic",
        metadata=help_text("generic: pixels, the action log, URL and title as any site has them; world: also the "
                       "outcome parameters a server put in redirect URLs (the bundled world's flashes)."),
    )  # fmt: skip
    click_targets: bool = field(
        default=True, metadata=help_text("Read the text under each click (OCR) into the action's description.")
    )

    def __post_init__(self) -> None:
        if self.window < 1:
            raise ValueError(f"window must be at least 1 step, got {self.window}; try window=3.")
        if not 1 <= self.stride <= self.window:
            raise ValueError(
                f"stride={self.stride} would skip steps with window={self.window}; set 1 <= stride <= window."
            )
        if self.workers < 1:
            raise ValueError(f"workers must be at least 1, got {self.workers}; use workers=1 for serial checks.")
        if self.timeout_s <= 0:
            raise ValueError(f"timeout_s must be positive, got {self.timeout_s}; try timeout_s=60.")
        if self.max_evidence < 1:
            raise ValueError(f"max_evidence must be at least 1 (the final screenshot), got {self.max_evidence}.")
        if self.evidence not in EVIDENCE_MODES:
            raise ValueError(f"evidence must be one of {', '.join(EVIDENCE_MODES)}, got {self.evidence!r}.")

    @classmethod
    def help(cls) -> dict[str, str]:
        return field_help(cls)


# ---- stage 1: keypoints ------------------------------------------------------------------------------


def extract_keypoints(goal: str, judge: Judge | None = None) -> list[str]:
    """Keypoints from the goal alone. With a model judge that can (`extract_keypoints`), the model lists
    them; without one, or when its reply is unusable, the deterministic rule-based splitter does."""
    if not goal.strip():
        return []
    ask = getattr(judge, "extract_keypoints", None)
    points = ask(goal) if callable(ask) else None
    return list(dict.fromkeys(points)) if points else split_goal(goal)


# ---- stage 2: windows ---------------------------------------------------------------------------------


def _scrub(action: Action | None, reveal: bool) -> Action | None:
    """The action without the agent's own words (the overlay banner would show them), unless `reveal`."""
    if isinstance(action, ActionSequence):
        return ActionSequence(actions=tuple(_scrub(a, reveal) for a in action.actions))
    if isinstance(action, (Finished, Answer)) and not reveal:
        return type(action)()
    if isinstance(action, CallUser):
        return CallUser()
    if isinstance(action, TakeNote):
        return TakeNote(content="")
    return action


# What a withheld report that the task cannot be done reads as: the fact, not the agent's words.
IMPOSSIBLE = "The agent reported that the task cannot be done."


def evidence_view(episode: Episode, evidence: str = "generic") -> Episode:
    """The record as a verifier may read it, and nothing more: the goal, the surface, and per step the
    screenshot, the URL (`public_url`: under generic evidence without a server's outcome parameters), the
    title, the action and the env's error message; the runner's end reason. Left out: everything that is,
    or holds, a label (the manifest's verdicts, the env's reward in the outcome and in step info, the task
    dict beyond the goal) and the agent's own words (thoughts, raw replies, the text of Finished/Answer
    unless the goal asks a question, of CallUser and TakeNote; a Finished that reports the task impossible
    keeps that fact, in `IMPOSSIBLE`'s words)."""
    asks = T.asks_for_answer(episode.goal)
    steps = [Step(index=s.index, screenshot=s.screenshot, url=public_url(s.url, evidence), title=s.title,
                  action=_withhold(s.action, asks),
                  error={"message": str(s.error.get("message", ""))} if s.error else None)
             for s in episode.steps]  # fmt: skip
    out = episode.outcome
    return Episode(episode_id=episode.episode_id, task={"goal": episode.goal}, surface=episode.surface,
                   screen=episode.screen, outcome=Outcome(out.terminated, out.truncated, out.needs_user, out.reason),
                   finished=episode.finished, steps=steps, problems=list(episode.problems))  # fmt: skip


def _withhold(action: Action | None, keep_answer: bool) -> Action | None:
    if isinstance(action, ActionSequence):
        return ActionSequence(actions=tuple(_withhold(a, keep_answer) for a in action.actions))
    if isinstance(action, (Finished, Answer)) and not keep_answer:
        return type(action)(content=IMPOSSIBLE if T.reports_infeasible(action.content) else "")
    if isinstance(action, CallUser):
        return CallUser()
    if isinstance(action, TakeNote):
        return TakeNote(content="(withheld)")
    return action


def step_views(episode: Episode, folder: Path | None, *, targets: bool = False) -> list[Evidence]:
    """One Evidence per step: raw and annotated screenshot, factual action text, page, error, echo, and (with
    `targets`) the text OCR reads under the step's click. Pass an `evidence_view` of the record."""
    asks = T.asks_for_answer(episode.goal)
    echo = echoes(episode.steps)
    views, cursor = [], None
    for i, step in enumerate(episode.steps):
        last = i == len(episode.steps) - 1
        content = getattr(step.action, "content", None)
        answer = content if last and asks and isinstance(step.action, (Finished, Answer)) and content else None
        png = step_png(folder, step) if folder is not None else None
        png = png if png is not None and readable(png) else None  # an unreadable PNG is reported as missing
        overlay = Overlay(png, _scrub(step.action, answer is not None), cursor, f"Step {i}") if png else None
        target = _target(png, step.action) if targets else None
        under = _under(png, step.action) if targets else None
        icon = _icon(png, step.action) if targets else ""
        error = step.error.get("message") if step.error else None
        views.append(Evidence(i, png, overlay, describe_action(step.action, answer=answer, target=target),
                              step.url, step.title, error, step.action, echo[i], target=target,
                              under=under.words if under else (), under_at=under.at if under else -1,
                              icon=icon))  # fmt: skip
        cursor = focus_after(step.action, cursor)
    return views


def _first_point(action: Action | None) -> object | None:
    kids = action.actions if isinstance(action, ActionSequence) else (action,)
    return next((p for a in kids for p in [getattr(a, "point", None) or getattr(a, "start", None)] if p is not None),
                None)  # fmt: skip


def _target(png: bytes | None, action: Action | None) -> str | None:
    """The text under the action's (first) point on the screenshot it was taken on."""
    point = _first_point(action)
    if png is None or point is None:
        return None
    try:
        return ocr.text_at(png, point)
    except ocr.OcrUnavailable:
        return None


def _under(png: bytes | None, action: Action | None) -> ocr.Under | None:
    """The words of the row under the action's (first) point, each read alone: the region under the red dot."""
    point = _first_point(action)
    if png is None or point is None:
        return None
    try:
        return ocr.words_at(png, point)
    except ocr.OcrUnavailable:
        return None


def _icon(png: bytes | None, action: Action | None) -> str:
    """What the icon under a click draws, as the icon namer names it ("" for none): a star OCR reads as "立"."""
    point = _first_point(action)
    if png is None or point is None:
        return ""
    try:
        return ocr.icon_at(png, point)
    except ocr.OcrUnavailable:
        return ""


def make_windows(episode: Episode, folder: Path | None, size: int, stride: int,
                 evidence: str = "generic") -> list[Window]:  # fmt: skip
    """Windows of `size` consecutive steps every `stride` steps, covering every step, over `evidence_view`."""
    if size < 1 or not 1 <= stride <= size:
        raise ValueError(f"Windows need size >= 1 and 1 <= stride <= size, got size={size}, stride={stride}.")
    episode = evidence_view(episode, evidence)
    views = step_views(episode, folder)
    return _windows(episode, views, trajectory_facts(episode, views), size, stride)


def trajectory_facts(episode: Episode, views: list[Evidence], read: bool = False) -> LogFacts:
    """The log facts plus the side effects (deletions the goal names nothing of), which need the views; with `read`,
    OCR also looks for a row a click took off the list (`rules.side_effects`)."""
    facts = log_facts(episode, [v.png for v in views])
    lines = _lines if read else None
    return dataclasses.replace(facts, side_effects=tuple(R.side_effects(episode.goal, views, lines)))


def _lines(step: Evidence) -> tuple:
    try:
        return ocr.lines(step.png) if step.png is not None else ()
    except ocr.OcrUnavailable:
        return ()


def _windows(episode: Episode, views: list[Evidence], facts: LogFacts, size: int, stride: int) -> list[Window]:
    windows: list[Window] = []
    for start in range(0, len(views), stride):
        end = min(start + size, len(views))
        windows.append(Window(len(windows), episode.goal, episode.surface, tuple(views[start:end]), facts,
                              is_last=end == len(views), before=tuple(views[:start])))  # fmt: skip
        if end == len(views):
            break
    return windows


# ---- stage 3: parallel calls with a per-call timeout -----------------------------------------------------


@dataclass
class _Call:
    judge: str
    keypoints: Keypoints
    fn: Callable[[], list[Vote]]


def run_calls(calls: list[_Call], workers: int, timeout_s: float) -> list[list[Vote]]:
    """Run judge calls on a thread pool. A call that raises or runs past `timeout_s` becomes abstain votes
    naming why; the pool is not waited for (a hung judge cannot hold the verifier)."""
    if not calls:
        return []
    started: dict[int, float] = {}
    lock = threading.Lock()

    def run(i: int) -> list[Vote]:
        with lock:
            started[i] = time.monotonic()
        return calls[i].fn()

    pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="sgv-judge")
    futures: dict[Future, int] = {pool.submit(run, i): i for i in range(len(calls))}
    results: dict[int, list[Vote]] = {}
    backstop = time.monotonic() + timeout_s * (math.ceil(len(calls) / workers) + 1)
    try:
        pending = set(futures)
        while pending:
            done, pending = wait(pending, timeout=min(0.05, timeout_s), return_when=FIRST_COMPLETED)
            for f in done:
                results[futures[f]] = _result(f, calls[futures[f]])
            pending = _expire(pending, futures, started, lock, calls, results, timeout_s, backstop)
    finally:
        pool.shutdown(wait=False, cancel_futures=True)
    return [results[i] for i in range(len(calls))]


def _result(f: Future, call: _Call) -> list[Vote]:
    try:
        votes = f.result()
    except Exception as exc:  # noqa: BLE001 - any judge failure is an abstention, recorded with its cause
        return abstain_all(call.judge, call.keypoints, f"judge raised {type(exc).__name__}: {exc}")
    if not isinstance(votes, list) or not all(isinstance(v, Vote) for v in votes):
        return abstain_all(call.judge, call.keypoints, f"judge returned {type(votes).__name__}, not a list of votes")
    return votes


def _expire(pending, futures, started, lock, calls, results, timeout_s, backstop) -> set:
    now = time.monotonic()
    with lock:
        late = {f for f in pending if futures[f] in started and now - started[futures[f]] > timeout_s}
    if now > backstop:
        late = set(pending)
    for f in late:
        call = calls[futures[f]]
        results[futures[f]] = abstain_all(call.judge, call.keypoints, f"judge did not answer within {timeout_s} s")
        f.cancel()
    return pending - late


# ---- stage 4: rules, final judgment, votes ----------------------------------------------------------------


def select_evidence(views: list[Evidence], facts: LogFacts, votes: list[Vote], limit: int) -> list[Evidence]:
    """<= `limit` steps for the final judgment: the final screen, the last screen change, steps that votes
    cite, screens right after consequential-looking actions, then the latest steps."""
    shown = [v for v in views if v.png is not None] or views
    if not shown:
        return []
    by_index = {v.index: v for v in shown}
    picks: list[tuple[int, str]] = [(shown[-1].index, "final screen")]
    if facts.last_change is not None:
        picks.append((facts.last_change, "last change of the screen"))
    cited = sorted({v.step for v in votes if v.step is not None and v.status in ("satisfied", "contradicted")})
    picks += [(s, "cited by a judge") for s in reversed(cited)]
    picks += [(s + 1, "screen after a consequential-looking action") for s in reversed(facts.consequential)]
    picks += [(v.index, "recent step") for v in reversed(shown)]
    chosen: dict[int, str] = {}
    for index, note in picks:
        if index in by_index and index not in chosen and len(chosen) < limit:
            chosen[index] = note
    return [dataclasses.replace(by_index[i], note=chosen[i]) for i in sorted(chosen)]


@dataclass
class _Tally:
    """Votes and positions per keypoint while the stages run."""

    keypoints: list[str]
    votes: dict[int, list[Vote]] = field(default_factory=dict)

    def add(self, votes: list[Vote]) -> None:
        for v in votes:
            if 0 <= v.keypoint < len(self.keypoints):
                self.votes.setdefault(v.keypoint, []).append(v)

    def position(self, judge: str, k: int) -> Vote:
        return position(judge, k, [v for v in self.votes.get(k, []) if v.judge == judge])


def _decide(tally: _Tally, judges: Sequence[Judge], final: dict[str, dict[int, Vote]]) -> list[KeypointResult]:
    """Rules settle first; the rest is a majority of the model judges (their final vote when they gave one,
    else their window position), joined by any rule that took a side."""
    results = []
    for k, text in enumerate(tally.keypoints):
        rules = [tally.position(j.name, k) for j in judges if is_rule(j)]
        settled = settled_by_rules(rules)
        if settled is None:
            models = [_model_position(tally, j.name, k, final) for j in judges if not is_rule(j)]
            decisive_rules = [v for v in rules if v.status in ("satisfied", "contradicted")]
            settled = majority(models + decisive_rules if models else rules)
        status, step, by = settled
        results.append(KeypointResult(text, status, step, by, tally.votes.get(k, [])))
    return results


def in_order(goal: str, results: list[KeypointResult]) -> list[KeypointResult]:
    """The order the goal states ("A, then B"; "… and press Submit" after the rest): a satisfied keypoint whose
    evidence comes before the one the goal puts first is contradicted, by the "order" rule, saying so."""
    steps = [r.evidence_step if r.status == "satisfied" else None for r in results]
    late = P.order_violations(goal, [r.text for r in results], steps)
    out = []
    for k, r in enumerate(results):
        if k in late:
            vote = Vote("order", k, "contradicted", r.evidence_step, late[k])
            r = dataclasses.replace(r, status="contradicted", decided_by="order", votes=[*r.votes, vote])
        out.append(r)
    return out


def _model_position(tally: _Tally, judge: str, k: int, final: dict[str, dict[int, Vote]]) -> Vote:
    vote = final.get(judge, {}).get(k)
    return vote if vote is not None and vote.status != "abstain" else tally.position(judge, k)


def _final_calls(judges, goal, evidence, views, open_kps: Keypoints) -> list[_Call]:
    history = "\n".join(v.header() for v in views)
    calls = []
    for j in judges:
        if is_rule(j):
            continue
        kwargs = {"history": history} if isinstance(j, VLMJudge) else {}
        calls.append(_Call(j.name, open_kps, lambda j=j, kw=kwargs: j.final(goal, evidence, open_kps, **kw)))
    return calls


# ---- stage 5: the verdict and the report --------------------------------------------------------------------


def verdict(results: list[KeypointResult], facts: LogFacts) -> tuple[str, str]:
    """(verdict, reason), `uncertain` included: when completion hinges on a keypoint nobody could decide (no
    keypoint contradicted, no side effect, not infeasible), SGV says so instead of failing the run."""
    name, reason = forced_verdict(results, facts)
    if name in ("completed", "infeasible") or facts.side_effects:
        return name, reason
    open_ = [r for r in results if r.status == "open"]
    if open_ and not any(r.status == "contradicted" for r in results):
        named = "; ".join(f"{r.text!r} ({why_open(r)})" for r in open_[:3])
        return UNCERTAIN, f"{len(open_)} of {len(results)} keypoints could not be decided: {named}"
    return name, reason


def forced_verdict(results: list[KeypointResult], facts: LogFacts) -> tuple[str, str]:
    """(verdict, reason) of the four decided ones, open keypoints counted as not met. Infeasible is checked before
    completed and partial: an agent that only looked around and then reported that the task cannot be done (or
    asked the user) made no progress to credit, and says itself that it did not do the task; keypoints a judge
    found satisfied without any committing action do not outweigh that."""
    done = [r for r in results if r.status == "satisfied"]
    dissent = [r for r in done if any(_counted_against(r, v) for v in r.votes)]
    if facts.side_effects:  # a deletion nobody asked for fails the task, whatever else was done
        return "failed", f"the click at step {facts.side_effects[0]} deleted something the goal does not name"
    if facts.reports_impossible and not facts.consequential:
        return "infeasible", f"the agent ended with {facts.ended_with} reporting it cannot be done, and took no " \
                             "consequential-looking action"  # fmt: skip
    if results and len(done) == len(results) and not dissent:
        return "completed", f"all {len(results)} keypoints satisfied"
    if done and all(R.is_invariant(r.text) for r in done):
        return "failed", 'only keypoints that hold without any action ("still there") are satisfied'
    if done:
        extra = f"; a judge contradicted: {dissent[0].text!r}" if dissent and len(done) == len(results) else ""
        return "partial", f"{len(done)} of {len(results)} keypoints satisfied{extra}"
    if not results:
        return "failed", "no keypoints to check (empty goal)"
    return "failed", "no keypoint satisfied"


def why_open(result: KeypointResult) -> str:
    """Why nobody decided a keypoint, in the judges' own words (their latest reason each)."""
    last: dict[str, str] = {}
    for v in result.votes:
        if v.reason:
            last[v.judge] = v.reason
    return "; ".join(f"{j}: {r}" for j, r in last.items()) or "no judge voted on it"


def undecided(results: list[KeypointResult]) -> list[dict[str, str]]:
    return [{"keypoint": r.text, "why": why_open(r)} for r in results if r.status == "open"]


def _counted_against(result: KeypointResult, vote: Vote) -> bool:
    """A contradicting vote that is not older than the evidence that satisfied the keypoint."""
    if vote.status != "contradicted":
        return False
    return vote.step is None or result.evidence_step is None or vote.step >= result.evidence_step


def _missing(episode: Episode, folder: Path | None, views: list[Evidence]) -> list[str]:
    missing = list(episode.problems)
    if folder is None:
        missing.append("No episode folder was given, so no screenshot could be read.")
    else:
        missing += [f"Step {v.index} has no readable screenshot." for v in views if v.png is None
                    and not any(p.startswith(f"Step {v.index}:") for p in episode.problems)]  # fmt: skip
    if not episode.steps:
        missing.append("The episode has no steps.")
    if not episode.finished:
        why = episode.outcome.reason or "no outcome"
        missing.append(f"The runner did not close the episode ({why}); verified on the {len(episode.steps)} "
                       "recorded steps.")  # fmt: skip
    return missing


def _load(episode: Episode | Path | str, folder: Path | str | None) -> tuple[Episode, Path | None]:
    if isinstance(episode, Episode):
        return episode, Path(folder) if folder is not None else None
    return load_episode(episode), Path(episode)


def _spent(judges: Sequence[Judge]) -> Cost:
    total = Cost()
    for j in judges:
        c = getattr(j, "cost", None)
        if isinstance(c, Cost):
            total = total + dataclasses.replace(c, seconds=0.0)
    return total


def _keypoints(episode: Episode, judges: Sequence[Judge], given: Sequence[str] | None) -> list[str]:
    if given is not None:
        return [str(k) for k in given]
    model = next((j for j in judges if not is_rule(j)), None)
    return extract_keypoints(episode.goal, model)


@dataclass(frozen=True)
class Prepared:
    """An episode as every verifier reads it, whatever its judges and keypoints: the record as a verifier may
    read it, its folder, one view per step and the log facts. `prepare` makes it once for an episode that is
    verified several ways (OCR is most of a verification's own cost; overlays are drawn when a model judge
    first looks at them)."""

    episode: Episode
    folder: Path | None
    views: list[Evidence]
    facts: LogFacts
    evidence: str
    targets: bool


def prepare(episode: Episode | Path | str, *, folder: Path | str | None = None, evidence: str = "generic",
            targets: bool = True) -> Prepared:  # fmt: skip
    ep, where = _load(episode, folder)
    ep = evidence_view(ep, evidence)
    views = step_views(ep, where, targets=targets)
    return Prepared(ep, where, views, trajectory_facts(ep, views, read=targets), evidence, targets)


def _prepare(episode, folder, judges, keypoints, evidence: str = "generic",
             targets: bool = True) -> tuple[Episode, Path | None, _Tally, list[Evidence], LogFacts]:  # fmt: skip
    """What every verifier starts from: the record as a verifier may read it (`evidence_view`), its folder,
    the keypoints, one view per step, log facts. A `Prepared` episode is used as it is when it was read the
    same way (the same evidence view and click targets); else it is read again."""
    if isinstance(episode, Prepared):
        if (episode.evidence, episode.targets) != (evidence, targets):
            raise ValueError(f"This episode was prepared with evidence {episode.evidence!r}, targets "
                             f"{episode.targets}; this verification reads {evidence!r}, {targets}.")  # fmt: skip
        p = episode
    else:
        p = prepare(episode, folder=folder, evidence=evidence, targets=targets)
    return p.episode, p.folder, _Tally(_keypoints(p.episode, judges, keypoints)), p.views, p.facts


def verify_episode(
    episode: Episode | Path | str | Prepared,
    judges: Sequence[Judge],
    config: SGVConfig = SGVConfig(),
    keypoints: Sequence[str] | None = None,
    *,
    folder: Path | str | None = None,
) -> Report:
    """Verify one episode (a folder, an Episode plus its `folder`, or a `Prepared` one) with SGV."""
    t0, before = time.perf_counter(), _spent(judges)
    ep, where, tally, views, facts = _prepare(episode, folder, judges, keypoints, config.evidence,
                                              config.click_targets)  # fmt: skip
    all_kps = list(enumerate(tally.keypoints))
    windows = _windows(ep, views, facts, config.window, config.stride)
    rules, models = [j for j in judges if is_rule(j)], [j for j in judges if not is_rule(j)]
    # Rules first: they cost no model call, and a keypoint they settle is never shown to a model.
    _check_windows(tally, rules, windows, all_kps, config)
    if config.model_windows:
        _check_windows(tally, models, windows, _open(tally, judges, all_kps), config)
    # With model windows, one window already showed every step to every judge: a final call would repeat it.
    final_due = config.final_judgment and (len(windows) > 1 or not config.model_windows)
    final = _final_stage(tally, judges, ep, views, facts, config) if final_due and models else {}
    results = in_order(ep.goal, _decide(tally, judges, final))
    return _report(results, facts, judges, before, t0, _missing(ep, where, views), "sgv")


def _check_windows(tally: _Tally, judges: Sequence[Judge], windows: list[Window], kps: Keypoints, config) -> None:
    calls = [_Call(j.name, kps, lambda j=j, w=w: j.check_window(w, kps)) for w in windows for j in judges]
    for votes in run_calls(calls if kps else [], config.workers, config.timeout_s):
        tally.add(votes)


def _open(tally: _Tally, judges: Sequence[Judge], kps: Keypoints, *, models_too: bool = False) -> Keypoints:
    """Keypoints the rule judges have not settled (and, with `models_too`, on which the model judges do not
    already stand unanimously decisive)."""
    still = []
    for k, text in kps:
        if settled_by_rules([tally.position(j.name, k) for j in judges if is_rule(j)]):
            continue
        stands = {tally.position(j.name, k).status for j in judges if not is_rule(j)}
        if models_too and len(stands) == 1 and stands <= {"satisfied", "contradicted"}:
            continue
        still.append((k, text))
    return still


def _final_stage(tally, judges, ep, views, facts, config) -> dict[str, dict[int, Vote]]:
    open_kps = _open(tally, judges, list(enumerate(tally.keypoints)), models_too=True)
    if not open_kps:
        return {}
    cited = [v for k, _ in open_kps for v in tally.votes.get(k, [])]
    evidence = select_evidence(views, facts, cited, config.max_evidence)
    calls = _final_calls(judges, ep.goal, evidence, views, open_kps)
    final: dict[str, dict[int, Vote]] = {}
    for call, votes in zip(calls, run_calls(calls, config.workers, config.timeout_s), strict=True):
        tally.add(votes)
        final[call.judge] = {v.keypoint: v for v in votes if v.judge == call.judge}
    return final


def _report(results, facts, judges, before: Cost, t0: float, missing: list[str], method: str) -> Report:
    spent = _spent(judges) - before
    name, reason = verdict(results, facts)
    forced = forced_verdict(results, facts)[0]
    cost = dataclasses.replace(spent, seconds=round(time.perf_counter() - t0, 3))
    # Which weights judged: a model judge's name and checkpoint go into the verdict (rule judges have none).
    models = {j.name: j.provenance for j in judges if getattr(j, "provenance", None) is not None}
    return Report(name, results, cost, missing, reason, method, forced=forced,
                  undecided=undecided(results) if name == UNCERTAIN else [], judges=models)  # fmt: skip


def verify_final_screenshot(
    episode: Episode | Path | str,
    judges: Sequence[Judge],
    keypoints: Sequence[str] | None = None,
    *,
    folder: Path | str | None = None,
    timeout_s: float = 60.0,
    evidence: str = "generic",
) -> Report:
    """The naive baseline: every judge makes one final judgment over the final screenshot only."""
    t0, before = time.perf_counter(), _spent(judges)
    ep, where, tally, views, facts = _prepare(episode, folder, judges, keypoints, evidence, targets=False)
    shown = [v for v in views if v.png is not None]
    evidence = [dataclasses.replace(shown[-1], note="final screen")] if shown else views[-1:]
    kps = list(enumerate(tally.keypoints))
    calls = [_Call(j.name, kps, lambda j=j: j.final(ep.goal, evidence, kps)) for j in judges] if kps else []
    for votes in run_calls(calls, max(1, len(calls)), timeout_s):
        tally.add(votes)
    results = _decide(tally, judges, {})
    return _report(results, facts, judges, before, t0, _missing(ep, where, views), "final_screenshot")


def write_report(folder: Path | str, report: Report, slot: str = "sgv") -> None:
    """Store the report in the episode manifest's `verdicts[slot]` (atomically, other slots kept)."""
    with EpisodeWriter.open(folder) as writer:
        writer.update_manifest(verdicts={**writer.episode.verdicts, slot: report.to_dict()})
