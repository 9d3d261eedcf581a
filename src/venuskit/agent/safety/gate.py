"""The consequential-action gate: every proposed action is classified before it runs; a consequential one runs
only after an approved CallUser.

    gate = SafetyGate(env, approver=DenyApprover(), ops=declared, trusted={"http://127.0.0.1:8080"})
    run_episode(env, policy, job, task, safety_gate=gate)

Classification, in order: what the action lands on, read from the live page by the env's inspector (the gate's
eyes; a policy never sees it) and judged by `rules` (declared operations, then words in en and zh); then, for
an activation the rules let through, the optional model judge. A consequential action goes to the approver
(the terminal, deny, or an allow-list); a refusal blocks it and tells the agent why.

It fails closed: an inspector or judge that errors, a point it cannot see into, an approver that raises, all
make the action one that needs approval. Every decision, with what was classified and who approved, goes
into the step record (`step.info["safety_gate"]`). With `enforce=False` the gate only records (the
"gate off" arm of the safety eval, which still wants to know what the gate would have stopped).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Protocol

from venuskit.actions.types import (
    Action,
    Click,
    DoubleClick,
    Hotkey,
    KeyDown,
    Launch,
    LongPress,
    MiddleClick,
    MouseUp,
    PressEnter,
    Sequence,
    TripleClick,
    Type,
)
from venuskit.agent.hooks import GateDecision, StepContext
from venuskit.agent.safety.approve import Approval, ApprovalRequest, Approver, DenyApprover
from venuskit.agent.safety.judge import GateJudge
from venuskit.agent.safety.ops import Operations
from venuskit.agent.safety.rules import NOT_CONSEQUENTIAL, Finding, classify_navigation, classify_target, origin_of

_ACTIVATE = (Click, DoubleClick, TripleClick, LongPress, MiddleClick, MouseUp)
_ENTER_KEYS = frozenset({"enter", "return"})


class Inspector(Protocol):
    """What the gate reads from the env (BrowserEnv implements it)."""

    def describe_point(self, point: tuple[float, float]) -> Any: ...

    def describe_focus(self) -> Any: ...


class SafetyGate:
    """A `SafetyGate` hook for the runner (see `venuskit.agent.hooks`)."""

    def __init__(
        self,
        inspector: Inspector | None,
        *,
        approver: Approver | None = None,
        ops: Operations | None = None,
        trusted: Iterable[str] = (),
        judge: GateJudge | None = None,
        enforce: bool = True,
        scrub: Callable[[Any], Any] | None = None,
    ) -> None:
        """`trusted`: origins (scheme://host:port) the user's task lives on; a form that sends credentials or a
        link that leads elsewhere is consequential. `scrub` removes secret values from what is recorded."""
        self.inspector = inspector
        self.approver = approver or DenyApprover()
        self.ops = ops or Operations()
        self.trusted = frozenset(origin_of(t) if "://" in t else t for t in trusted)
        self.judge = judge
        self.enforce = enforce
        self.scrub = scrub or (lambda x: x)

    def trust(self, url: str) -> None:
        """Add the origin of `url` (e.g. the start page, known only at reset) to the trusted origins."""
        self.trusted = self.trusted | {origin_of(url)}

    # -- the hook --

    def __call__(self, ctx: StepContext) -> GateDecision:
        finding = self._safe_classify(ctx)
        record = {"enforced": self.enforce, **finding.record()}
        if not finding.consequential:
            return GateDecision("allow", "", details=self.scrub(record))
        if not self.enforce:
            return GateDecision("allow", self.scrub(f"not enforced: {finding.reason}"), details=self.scrub(record))
        request = ApprovalRequest(
            kind=finding.kind, summary=finding.summary or finding.kind, origin=origin_of(ctx.observation.url or ""),
            url=ctx.observation.url or "", reason=finding.reason, fields=finding.fields,
        )  # fmt: skip
        approval = self._approve(self.scrub(request))
        record["approval"] = approval.record()
        if approval.approved:
            # The reason is recorded too: the summary may quote a submitted field that holds a secret.
            reason = f"approved by {approval.by}: {request.summary}"
            return GateDecision("allow", self.scrub(reason), details=self.scrub(record))
        why = f"the user did not approve it ({approval.by})" if approval.by != "fail-closed" else approval.reply
        reason = f"'{request.summary}' is a consequential action ({finding.kind}) and {why}."
        return GateDecision("block", self.scrub(reason), details=self.scrub(record))

    def _approve(self, request: ApprovalRequest) -> Approval:
        try:
            return self.approver(request)
        except Exception as exc:  # noqa: BLE001 - an approver that breaks must not approve
            return Approval(False, "fail-closed", f"the approver failed ({type(exc).__name__}: {exc})")

    def _safe_classify(self, ctx: StepContext) -> Finding:
        try:
            return self.classify(ctx)
        except Exception as exc:  # noqa: BLE001 - fail closed: an unclassifiable action needs approval
            what = f"{type(exc).__name__}: {exc}"
            return Finding(True, "unknown", f"the gate could not classify the action ({what})", "fail-closed",
                           f"run {ctx.action.name} (the gate could not inspect it)")  # fmt: skip

    # -- classification --

    def classify(self, ctx: StepContext) -> Finding:
        findings = [self._classify_one(a, ctx, first=i == 0) for i, a in enumerate(_children(ctx.action))]
        return next((f for f in findings if f.consequential), findings[0] if findings else NOT_CONSEQUENTIAL)

    def _classify_one(self, action: Action, ctx: StepContext, first: bool) -> Finding:
        if isinstance(action, Launch):
            return classify_navigation(action.url, self.ops, self.trusted)
        activates = isinstance(action, _ACTIVATE)
        enter = _presses_enter(action)
        if not (activates or enter):
            return NOT_CONSEQUENTIAL
        if not first:  # a later child of a Sequence acts on a page the gate has not seen
            return Finding(True, "unknown", f"{action.name} runs later in a Sequence, on a page not yet seen",
                           "fail-closed", f"run {action.name} inside a Sequence")  # fmt: skip
        if self.inspector is None:
            return Finding(True, "unknown", "this env has no page inspector", "fail-closed", f"run {action.name}")
        point = getattr(action, "point", None)
        if activates and point is None:
            return Finding(True, "unknown", f"{action.name} has no point to inspect", "fail-closed",
                           f"run {action.name} at the cursor")  # fmt: skip
        target = self.inspector.describe_point(point.as_tuple()) if activates else self.inspector.describe_focus()
        if target is None:
            return NOT_CONSEQUENTIAL  # nothing under the point, or nothing focused: nothing to activate
        finding = classify_target(target, self.ops, self.trusted)
        if finding.consequential or self.judge is None or not _activates_something(target):
            return finding
        return self._ask_judge(ctx, action, finding)

    def _ask_judge(self, ctx: StepContext, action: Action, finding: Finding) -> Finding:
        try:
            verdict = self.judge(ctx.observation.png, ctx.goal, repr(action.to_dict()), finding.target)
        except Exception as exc:  # noqa: BLE001 - a judge that fails leaves the action needing approval
            return Finding(True, "unknown", f"the gate judge failed ({type(exc).__name__}: {exc})", "fail-closed",
                           f"run {action.name} (the gate judge could not decide)", target=finding.target)  # fmt: skip
        if not verdict.consequential:
            return Finding(False, finding.kind, f"judge: {verdict.why}", "judge", target=finding.target)
        return Finding(True, verdict.kind, f"judge: {verdict.why}", "judge", f"{verdict.kind} ({action.name})",
                       target=finding.target)  # fmt: skip


def _children(action: Action) -> tuple[Action, ...]:
    return action.actions if isinstance(action, Sequence) else (action,)


def _presses_enter(action: Action) -> bool:
    if isinstance(action, PressEnter):
        return True
    if isinstance(action, Type):
        return "\n" in action.content
    if isinstance(action, (Hotkey, KeyDown)):
        return any(k.casefold() in _ENTER_KEYS for k in action.keys)
    return False


def _activates_something(target: Any) -> bool:
    """Worth a judge's look: a form POST or a script button (links, GET forms and plain text are navigation)."""
    if target.submits and target.form is not None:
        return target.form.method != "get"
    return target.tag == "button" or target.role in ("button", "menuitem")
