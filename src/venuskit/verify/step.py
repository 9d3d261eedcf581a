"""The step verifier: checks a proposed action before it runs (the runner's step-check hook).

Rules first, no model: an action outside the surface's vocabulary, the same action as a step that
failed, typing with no field focused, and a click repeated where the last identical click changed
nothing. Then, with a model judge, the UI-Venus ReflectionSupervisor protocol: the current screenshot
with the proposed action drawn, the recent actions, the proposed action -> CORRECT / EXPLORATORY /
INEFFECTIVE / INCORRECT (or correct / explore / invalid / wrong). invalid and wrong reject (ok=False)
and the runner re-samples with the reason as feedback. A verifier that fails or answers garbage never
blocks the agent: that proposal passes, with the failure in `details` (upstream defaults to CORRECT too).

`StepVerdict` has the fields of `venuskit.agent.hooks.CheckResult` (verify may not import agent). The
context is duck-typed like `agent.hooks.StepContext`: goal, surface, step_index, observation (.png,
.url, .title), action, and history (the episode's earlier record Steps; when a runner passes none, the
verifier remembers what it was shown itself).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from venuskit.actions.prompts import fill
from venuskit.actions.surfaces import check_surface
from venuskit.actions.types import (
    Action,
    ActionError,
    Click,
    DoubleClick,
    Launch,
    LaunchApp,
    LongPress,
    PressBack,
    PressHome,
    TripleClick,
    Type,
)
from venuskit.actions.types import Sequence as ActionSequence
from venuskit.record.overlay import draw_action, focus_after
from venuskit.verify.evidence import describe_action
from venuskit.verify.images import changed_fraction
from venuskit.verify.judges import VLMJudge, load_template

REFLECTION_MAP = {"CORRECT": "correct", "EXPLORATORY": "explore", "INEFFECTIVE": "invalid", "INCORRECT": "wrong"}
LABELS = ("correct", "explore", "invalid", "wrong")
_FOCUS = (Click, DoubleClick, TripleClick, LongPress)
_BLUR = (Launch, LaunchApp, PressBack, PressHome)
_GRID = 0.03  # points closer than this share of the screen count as the same place
_STILL = 0.002  # share of changed pixels below which "nothing changed"
_AROUND = 0.15  # half-size of the region around a click that is compared, as a share of the screen
_MEMORY = 8  # steps the verifier remembers screenshots of


@dataclass(frozen=True)
class StepVerdict:
    ok: bool = True
    label: str = "correct"  # correct | explore | invalid | wrong
    reason: str = ""
    details: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class _Past:
    index: int
    action: Action | None
    error: str | None
    url: str | None
    png: bytes | None


def _kids(action: Action | None) -> tuple[Action, ...]:
    if action is None:
        return ()
    return action.actions if isinstance(action, ActionSequence) else (action,)


def action_key(action: Action | None) -> tuple:
    """An action with its points snapped to a coarse grid: two clicks on the same control look equal."""
    if action is None:
        return ()
    d = action.to_dict()
    for k in ("point", "start", "end"):
        if d.get(k) is not None:
            d[k] = tuple(round(v / _GRID) for v in d[k])
    return tuple(sorted((k, repr(v)) for k, v in d.items()))


def to_label(word: str | None) -> str | None:
    if word is None:
        return None
    w = word.strip()
    return REFLECTION_MAP.get(w.upper()) or (w.lower() if w.lower() in LABELS else None)


class StepVerifier:
    """A step check for `EpisodeRunner(step_check=StepVerifier(...))`."""

    def __init__(self, judge: VLMJudge | None = None, rules: bool = True, surface: str | None = None) -> None:
        self.judge = judge
        self.rules = rules
        self.surface = surface  # overrides ctx.surface (e.g. a stricter vocabulary than the policy's)
        self._seen: dict[int, tuple[bytes | None, str | None, Action | None]] = {}
        self._goal: str | None = None

    def describe(self) -> dict[str, Any]:
        """What an episode manifest records of this check: rules on or off, and the judge model (its checkpoint
        where its server names one)."""
        return {"rules": self.rules, "judge": self.judge.provenance if self.judge is not None else None}

    def __call__(self, ctx: Any) -> StepVerdict:
        self._remember(ctx)
        history = self._history(ctx)
        if self.rules:
            verdict = self._rule_verdict(ctx, history)
            if verdict is not None:
                return verdict
        if self.judge is not None:
            return self._ask(ctx, history)
        return StepVerdict(True, "correct", "no rule objected", {"checked_by": "rules"})

    # ---- what happened before -----------------------------------------------------------------

    def _remember(self, ctx: Any) -> None:
        png = ctx.observation.png
        first = self._seen.get(0)
        new_episode = ctx.goal != self._goal or (ctx.step_index == 0 and first is not None and first[0] != png)
        if new_episode or any(i > ctx.step_index for i in self._seen):
            self._seen.clear()
        self._goal = ctx.goal
        # The last proposal seen for a step is the one that ran (earlier ones were rejected and re-sampled).
        self._seen[ctx.step_index] = (png, getattr(ctx.observation, "url", None), ctx.action)
        for old in sorted(self._seen)[:-_MEMORY]:  # keep every action, but screenshots of recent steps only
            _, url, action = self._seen[old]
            self._seen[old] = (None, url, action)

    def _history(self, ctx: Any) -> list[_Past]:
        steps = tuple(getattr(ctx, "history", ()) or ())
        if steps:
            return [_Past(s.index, s.action, (s.error or {}).get("message") if s.error else None, s.url,
                          self._seen.get(s.index, (None,))[0]) for s in steps]  # fmt: skip
        return [_Past(i, a, None, url, png) for i, (png, url, a) in sorted(self._seen.items()) if i < ctx.step_index]

    # ---- rules ------------------------------------------------------------------------------------

    def _rule_verdict(self, ctx: Any, history: list[_Past]) -> StepVerdict | None:
        for rule in (self._vocabulary, self._failed_before, self._type_without_focus, self._dead_click):
            found = rule(ctx, history)
            if found is not None:
                name, reason = found
                return StepVerdict(False, "invalid", reason, {"checked_by": f"rule:{name}"})
        return None

    def _vocabulary(self, ctx: Any, history: list[_Past]) -> tuple[str, str] | None:
        try:
            check_surface(ctx.action, self.surface or ctx.surface)
        except (ActionError, ValueError) as exc:
            return "vocabulary", str(exc)
        return None

    def _failed_before(self, ctx: Any, history: list[_Past]) -> tuple[str, str] | None:
        key = action_key(ctx.action)
        for past in reversed(history):
            if past.error and action_key(past.action) == key:
                return "repeated_failure", (
                    f"The same action failed at step {past.index} ({past.error}); repeating it will fail again. "
                    "Try a different action."
                )
        return None

    def _type_without_focus(self, ctx: Any, history: list[_Past]) -> tuple[str, str] | None:
        kids = _kids(ctx.action)
        if not kids or not isinstance(kids[0], Type) or (self.surface or ctx.surface) not in ("browser", "mobile"):
            return None
        editable = (getattr(ctx.observation, "info", None) or {}).get("focus_editable")
        if editable is not None:  # the env read the page's focus: a fact, not a guess from the history
            return None if editable else ("type_without_focus", (
                "Type needs a focused text field, but the focused element does not take text. "
                "Click the field first."))  # fmt: skip
        if ctx.step_index and len(history) < ctx.step_index:
            return None  # earlier steps are unknown (a resumed run): do not guess
        url = getattr(ctx.observation, "url", None)
        for past in reversed(history):
            acts = _kids(past.action)
            if any(isinstance(a, _BLUR) for a in acts):
                break
            if any(isinstance(a, (*_FOCUS, Type)) for a in acts):
                if past.url and url and past.url != url:
                    break  # focus was on another page
                return None
        return "type_without_focus", (
            "Type needs a focused input field, but no field was clicked on this page. Click the field first."
        )

    def _dead_click(self, ctx: Any, history: list[_Past]) -> tuple[str, str] | None:
        kids = _kids(ctx.action)
        point = getattr(kids[0], "point", None) if len(kids) == 1 and isinstance(kids[0], _FOCUS) else None
        prev = history[-1] if history and history[-1].index == ctx.step_index - 1 else None
        if point is None or prev is None or prev.png is None or action_key(prev.action) != action_key(ctx.action):
            return None
        png = ctx.observation.png
        box = (max(0.0, point.x - _AROUND), max(0.0, point.y - _AROUND), min(1.0, point.x + _AROUND),
               min(1.0, point.y + _AROUND))  # fmt: skip
        if changed_fraction(prev.png, png, box) < _STILL and changed_fraction(prev.png, png) < _STILL:
            return "no_change", (
                f"The same click at step {prev.index} changed nothing on the screen; clicking there again will not "
                "either. Try another element or action."
            )
        return None

    # ---- the model ---------------------------------------------------------------------------------

    def _ask(self, ctx: Any, history: list[_Past]) -> StepVerdict:
        assert self.judge is not None
        cursor = None
        for past in history:
            cursor = focus_after(past.action, cursor)
        lines = [f"Step {p.index}: {describe_action(p.action)}" + (f" -- failed: {p.error}" if p.error else "")
                 for p in history[-4:]]  # fmt: skip
        intro = fill(load_template("step"), {
            "goal": ctx.goal, "surface": self.surface or ctx.surface, "step": str(ctx.step_index),
            "history": "\n".join(lines) or "(none: this is the first step)", "action": describe_action(ctx.action),
        })  # fmt: skip
        images = []
        prev = history[-1] if history else None
        if prev is not None and prev.png is not None:
            images.append((f"Previous screenshot (step {prev.index}) with the action taken then:",
                           draw_action(prev.png, prev.action, label=f"Step {prev.index}")))  # fmt: skip
        images.append(("Current screenshot with the proposed action:",
                       draw_action(ctx.observation.png, ctx.action, cursor=cursor, label="Proposed")))  # fmt: skip
        word, reason = self.judge.judge_step(intro, images)
        label = to_label(word)
        if label is None:  # a dead or confused verifier must not block the agent
            return StepVerdict(True, "correct", "", {"checked_by": self.judge.name, "unjudged": reason})
        return StepVerdict(label in ("correct", "explore"), label, reason,
                           {"checked_by": self.judge.name, "raw_verdict": word})  # fmt: skip
