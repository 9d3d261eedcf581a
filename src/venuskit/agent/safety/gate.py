"""The consequential-action gate: every proposed action is classified before it runs; a consequential one runs
only after an approved CallUser.

    gate = SafetyGate(env, approver=DenyApprover(), ops=declared, trusted={"http://127.0.0.1:8080"})
    run_episode(env, policy, job, task, safety_gate=gate)

Classification: first what the action activates, whatever path reaches it (`activations`): every pointer action
that presses and releases (clicks of any button, a long press, a drag or swipe at both ends, a mouse button
down or up), every key that activates the focused element (Enter and NumpadEnter in any combo, Space, an Alt
access key; typed newlines and spaces too), choosing an option. Key names are canonical before the gate sees
them (`actions.keys`), so the env presses what was judged. Each activated element is read from the live page by
the env's inspector (the gate's eyes; a policy never sees it) and judged by `rules` (declared operations, then
words in en and zh); then, for an activation the rules let through, the optional model judge. A consequential
action goes to the approver (the terminal, deny, or an allow-list); a refusal blocks it and tells the agent why.

What the DOM cannot show (a script that rewrites a form as it submits, a script button that posts, a select
whose change submits) is held at the network layer: the env asks the gate about every request it sends
(`screen_request`), a request to a declared consequential operation that no approved action asked for is held
there, pending, and goes out only once the approver allows it (`decide_requests`); else it never does.

It fails closed: an inspector or judge that errors, a point it cannot see into, an approver that raises, all
make the action one that needs approval. Every decision, with what was classified and who approved, goes
into the step record (`step.info["safety_gate"]`). With `enforce=False` the gate only records (the
"gate off" arm of the safety eval, which still wants to know what the gate would have stopped).
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from venuskit.actions.keys import activation
from venuskit.actions.types import (
    Action,
    Click,
    DoubleClick,
    Drag,
    Hotkey,
    KeyDown,
    Launch,
    LongPress,
    MiddleClick,
    MouseDown,
    MouseUp,
    PressEnter,
    RightClick,
    SelectOption,
    Sequence,
    Swipe,
    TripleClick,
    Type,
)
from venuskit.agent.hooks import GateDecision, StepContext
from venuskit.agent.safety.approve import Approval, ApprovalRequest, Approver, DenyApprover
from venuskit.agent.safety.judge import GateJudge
from venuskit.agent.safety.ops import Operations
from venuskit.agent.safety.rules import (
    NOT_CONSEQUENTIAL,
    SENSITIVE_NAMES,
    Finding,
    classify_navigation,
    classify_target,
    origin_of,
)
from venuskit.envs.base import BrowserCrashed
from venuskit.envs.netguard import OutgoingRequest

# Pointer actions that press and release a button (or a finger) on what is under them: each fires click-like
# events there (a drag's press and release fire a click on the element both ends share).
_PRESS_AT_POINT = (Click, DoubleClick, TripleClick, RightClick, MiddleClick, LongPress, MouseDown, MouseUp)


class Inspector(Protocol):
    """What the gate reads from the env (BrowserEnv implements it)."""

    def describe_point(self, point: tuple[float, float]) -> Any: ...

    def describe_focus(self, key: str = "enter") -> Any: ...

    def describe_accesskey(self, key: str) -> Any: ...


@dataclass(frozen=True)
class Activation:
    """One thing an action activates: the element at a point, the focused element under a key ("enter", "space",
    "select"), the element with an access key, or `unknown` (why the gate cannot tell: it fails closed)."""

    via: Literal["point", "focus", "accesskey", "unknown"]
    point: tuple[float, float] | None = None
    key: str = ""
    why: str = ""


def activations(action: Action) -> list[Activation]:
    """Everything `action` activates on the page, whatever path reaches it (empty: it activates nothing)."""
    if isinstance(action, _PRESS_AT_POINT):
        return [_at(action.point, action.name)]
    if isinstance(action, (Drag, Swipe)):
        return [_at(action.start, action.name), _at(action.end, action.name)]
    if isinstance(action, PressEnter):
        return [Activation("focus", key="enter")]
    if isinstance(action, Type):  # each newline is Enter; a space on a focused button presses it
        return [Activation("focus", key=k) for k, c in (("enter", "\n"), ("space", " ")) if c in action.content]
    if isinstance(action, (Hotkey, KeyDown)):
        return _key_activations(action)
    if isinstance(action, SelectOption):  # a change that a <select onchange="form.submit()"> turns into a POST
        return [Activation("focus", key="select")]
    return []


def _at(point: Any, name: str) -> Activation:
    if point is None:
        return Activation("unknown", why=f"{name} acts at the cursor, which the gate cannot inspect")
    return Activation("point", point=point.as_tuple())


def _key_activations(action: Hotkey | KeyDown) -> list[Activation]:
    kind = activation(action.keys)
    if kind is None:
        return []
    if kind == "moves-focus":
        return [Activation("unknown", why=f"{'+'.join(action.keys)} moves the focus and activates what it reaches")]
    if getattr(action, "repeat", 1) > 1:
        return [Activation("unknown", why=f"{'+'.join(action.keys)} is pressed {action.repeat} times: the later "
                                          "presses act on a page not yet seen")]  # fmt: skip
    if kind.startswith("accesskey:"):
        return [Activation("accesskey", key=kind.split(":", 1)[1])]
    return [Activation("focus", key=kind)]


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
        self._approved: Counter[str] = Counter()  # kinds the action now running was approved for, once each

    def trust(self, url: str) -> None:
        """Add the origin of `url` (e.g. the start page, known only at reset) to the trusted origins."""
        self.trusted = self.trusted | {origin_of(url)}

    # -- the hook --

    def __call__(self, ctx: StepContext) -> GateDecision:
        self._approved = Counter()  # a new action: what the last one was approved for no longer holds
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
            self._approved[finding.kind] += 1  # its own request, when the network layer sees it, goes out
            # The reason is recorded too: the summary may quote a submitted field that holds a secret.
            reason = f"approved by {approval.by}: {request.summary}"
            return GateDecision("allow", self.scrub(reason), details=self.scrub(record))
        why = f"the user did not approve it ({approval.by})" if approval.by != "fail-closed" else approval.reply
        reason = f"'{request.summary}' is a consequential action ({finding.kind}) and {why}."
        return GateDecision("block", self.scrub(reason), details=self.scrub(record))

    # -- the network layer: requests the env sends, screened before they leave --

    def screen_request(self, request: OutgoingRequest) -> dict[str, Any] | None:
        """Called by the env for every request it is about to send. None: not a declared consequential operation.
        Else the record of a request that goes out now ("allow": the action running was approved for it, or the
        gate only records) or is held, pending, until `decide_requests` ("hold")."""
        op = self.ops.match(request.method, request.url, request.fields)
        if op is None or not op.consequential:
            return None
        record = {"kind": op.kind, "method": request.method.upper(), "url": request.url,
                  "summary": op.describe(request.fields), "enforced": self.enforce}  # fmt: skip
        if not self.enforce:
            return self.scrub({**record, "decision": "allow", "reason": "not enforced"})
        if self._approved[op.kind] > 0:
            self._approved[op.kind] -= 1
            return self.scrub({**record, "decision": "allow", "reason": "the action that sent it was approved"})
        return self.scrub({**record, "decision": "hold"})

    def decide_requests(self, held: list[tuple[OutgoingRequest, dict[str, Any]]], when: str) -> list[dict[str, Any]]:
        """Ask the approver about each held request (none was approved as an action: the DOM did not show it, or it
        came from a script, a timer or the page's own load). A refused one is never sent."""
        out = []
        for request, record in held:
            fields = {k: ("•••" if SENSITIVE_NAMES.search(k) and v else v) for k, v in request.fields.items()}
            ask = ApprovalRequest(
                kind=record["kind"], summary=record["summary"], origin=origin_of(request.url), url=request.url,
                reason=f"the page sent a request to a declared {record['kind']} operation ({when}) that no approved "
                "action asked for", fields=fields,
            )  # fmt: skip
            approval = self._approve(self.scrub(ask))
            decision = "allow" if approval.approved else "block"
            out.append(self.scrub({**record, "when": when, "reason": ask.reason, "fields": fields,
                                   "approval": approval.record(), "decision": decision}))  # fmt: skip
        return out

    def _approve(self, request: ApprovalRequest) -> Approval:
        try:
            return self.approver(request)
        except Exception as exc:  # noqa: BLE001 - an approver that breaks must not approve
            return Approval(False, "fail-closed", f"the approver failed ({type(exc).__name__}: {exc})")

    def _safe_classify(self, ctx: StepContext) -> Finding:
        try:
            return self.classify(ctx)
        except BrowserCrashed:
            raise  # the env died under the inspection: an infrastructure error the run retries, not a verdict
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
        found = activations(action)
        if not found:
            return NOT_CONSEQUENTIAL
        if not first:  # a later child of a Sequence acts on a page the gate has not seen
            return Finding(True, "unknown", f"{action.name} runs later in a Sequence, on a page not yet seen",
                           "fail-closed", f"run {action.name} inside a Sequence")  # fmt: skip
        findings = [self._classify_activation(a, action, ctx) for a in found]
        return next((f for f in findings if f.consequential), findings[0])

    def _classify_activation(self, what: Activation, action: Action, ctx: StepContext) -> Finding:
        if what.via == "unknown":
            return Finding(True, "unknown", what.why, "fail-closed", f"run {action.name} (the gate cannot see what "
                           "it activates)")  # fmt: skip
        if self.inspector is None:
            return Finding(True, "unknown", "this env has no page inspector", "fail-closed", f"run {action.name}")
        if what.via == "point":
            target = self.inspector.describe_point(what.point)
        elif what.via == "accesskey":
            target = self.inspector.describe_accesskey(what.key)
        else:
            target = self.inspector.describe_focus(what.key)
        if target is None:
            return NOT_CONSEQUENTIAL  # nothing there, nothing focused, no such key: nothing to activate
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


def _activates_something(target: Any) -> bool:
    """Worth a judge's look: a form POST or a script button (links, GET forms and plain text are navigation)."""
    if target.submits and target.form is not None:
        return target.form.method != "get"
    return target.tag == "button" or target.role in ("button", "menuitem")
