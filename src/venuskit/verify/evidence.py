"""What judges see: one `Evidence` per recorded step (the screenshot with its action drawn and a factual
description of the action), `Window`s of consecutive steps, and `LogFacts` about the whole trajectory.

What judges never see: the agent's thoughts, its raw reply, and the text of Finished/CallUser/TakeNote
(the agent's own claims). The one exception is the final answer of a task that asks a question: that
answer is the deliverable, so it is shown as "the agent told the user ...", to be checked against the
screenshots (a claim to check, never evidence).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

from venuskit.actions.types import (
    CLICK_ACTIONS,
    Action,
    Answer,
    CallUser,
    Drag,
    Finished,
    Hotkey,
    KeyDown,
    KeyUp,
    Launch,
    LaunchApp,
    Point,
    PressEnter,
    Scroll,
    SelectOption,
    Sequence,
    Swipe,
    TakeNote,
    Type,
)
from venuskit.record.episode import Episode, Step
from venuskit.record.overlay import draw_action
from venuskit.verify import text as T
from venuskit.verify.images import changed_fraction

_UNCHANGED = 0.001  # share of changed pixels below which two screenshots count as the same screen
EVIDENCE_MODES = ("generic", "world")
# Query parameters through which a server reports the outcome of the request that redirected here (a flash,
# a status, an error). Under generic evidence they are dropped: many sites set none, and the bundled world's
# handlers set them next to the very rows its contracts read, so reading them is reading the label.
OUTCOME_PARAMS = frozenset({"flash", "msg", "message", "notice", "alert", "toast", "status", "success", "error",
                            "err", "result", "done", "saved", "sent", "notification"})  # fmt: skip
_DONE_WORDS = ("success", "confirm", "submitted", "sent", "saved", "deleted", "done", "complete", "thank")
_POINTER = CLICK_ACTIONS


@dataclass(frozen=True, eq=False)
class Overlay:
    """A step's action drawn on its screenshot, drawn on first use and kept: only a model judge looks at it,
    and encoding a PNG per step was about 40% of a rules-only verification's time."""

    png: bytes
    action: Action | None
    cursor: Point | None
    label: str

    @cached_property
    def drawn(self) -> bytes | None:
        try:
            return draw_action(self.png, self.action, cursor=self.cursor, label=self.label)
        except (OSError, ValueError):  # a screenshot that passed the header and CRC checks but will not decode
            return None


@dataclass(frozen=True)
class Evidence:
    """One step as a judge sees it. `png` is the raw screenshot (what OCR reads), `annotated` the same
    with the step's action drawn (what a model judge sees); both None when the screenshot is missing.
    `overlay` is given as bytes or as an `Overlay` to draw when a judge first asks for it."""

    index: int
    png: bytes | None
    overlay: bytes | Overlay | None
    action: str  # factual description of the action; never the agent's thought or claims
    url: str | None = None
    title: str | None = None
    error: str | None = None  # the env's error for this step's action, if any
    act: Action | None = None  # the parsed action, for rules (Finished/CallUser content is not read by judges)
    echo: tuple[str, ...] = ()  # texts the agent typed on this page before this screenshot (may show in fields)
    note: str = ""  # why this step was picked as evidence
    target: str | None = None  # the text OCR reads under the step's click or tap (what was clicked), if any
    under: tuple[str, ...] = ()  # the words of the text row under the click, each read alone (`ocr.words_at`)
    under_at: int = -1  # which of them the click is on (-1: none)
    icon: str = ""  # what the icon under the click draws, as the icon namer names it ("star", "trash"; "": none)

    @property
    def annotated(self) -> bytes | None:
        return self.overlay.drawn if isinstance(self.overlay, Overlay) else self.overlay

    def header(self) -> str:
        """One line for a prompt: step number, page and action."""
        page = f" page {self.title!r}" if self.title else ""
        page += f" <{self.url}>" if self.url else ""
        err = f" -- the environment reported an error: {self.error}" if self.error else ""
        shot = "" if self.png is not None else " (screenshot missing)"
        return f"Step {self.index}{page}: {self.action}{err}{shot}"


@dataclass(frozen=True)
class LogFacts:
    """Facts from the action log of the whole trajectory (no thoughts, no claims)."""

    n_steps: int
    ended_with: str | None  # Finished / Answer / CallUser when the last step is one, else None
    reports_impossible: bool  # the final Finished/Answer/CallUser says the task cannot be done
    answer: str | None  # the final answer, only when the goal asks a question
    typed: tuple[tuple[int, str], ...]  # (step, text) of every Type action that ran without error
    consequential: tuple[int, ...]  # steps with a consequential-looking action (submit, Enter after typing)
    last_change: int | None  # the last step whose screenshot differs from the one before it
    pages: tuple[tuple[int, str | None, str | None], ...]  # (step, url, title)
    end_reason: str | None = None  # the runner's outcome reason (finished, step_limit, ...)
    side_effects: tuple[int, ...] = ()  # steps whose click deleted something the goal does not name


@dataclass(frozen=True)
class Window:
    """Consecutive steps judged together. `facts` cover the whole trajectory; `is_last` marks the window
    holding the final step (where trajectory-level facts are voted on). Model judges see `steps` only."""

    position: int
    goal: str
    surface: str
    steps: tuple[Evidence, ...]
    facts: LogFacts
    is_last: bool = False
    before: tuple[Evidence, ...] = ()  # every step before the window (rules that need "was it there before?")


def public_url(url: str | None, evidence: str = "generic") -> str | None:
    """The URL as a verifier may read it: under "generic" evidence without the outcome parameters
    (`OUTCOME_PARAMS`) a server set on a redirect; under "world" as recorded."""
    if evidence not in EVIDENCE_MODES:
        raise ValueError(f"Unknown evidence mode {evidence!r}; use one of {', '.join(EVIDENCE_MODES)}.")
    if not url or evidence == "world":
        return url
    parts = urlsplit(url)
    if not parts.query:
        return url
    kept = [(k, v) for k, v in parse_qsl(parts.query, keep_blank_values=True) if k.casefold() not in OUTCOME_PARAMS]
    return urlunsplit(parts._replace(query=urlencode(kept)))


def describe_action(action: Action | None, *, answer: str | None = None, target: str | None = None) -> str:
    """A factual description of `action` for a judge. Finished/Answer content is shown only when
    `answer` is given (question tasks); CallUser and TakeNote content never. `target`: the text under a
    click, as OCR read it on the screenshot ("Click at the red dot (0.30, 0.79) on 'Send'")."""
    if action is None:
        return "no action (the reply could not be parsed)"
    if isinstance(action, Sequence):
        return "; ".join(describe_action(a, answer=answer, target=target) for a in action.actions)
    if isinstance(action, (Finished, Answer)):
        if answer is not None:
            return f"{action.name}: the agent told the user {answer!r} (a claim to check against the screenshots)"
        return f"{action.name} (the agent ended the task; its own summary is withheld)"
    if isinstance(action, CallUser):
        return "CallUser (the agent handed over to the user; its message is withheld)"
    if isinstance(action, TakeNote):
        return "TakeNote (the agent's note is withheld)"
    text = _describe_plain(action)
    return f"{text} on {target!r}" if target and getattr(action, "point", None) is not None else text


def _describe_plain(action: Action) -> str:
    if isinstance(action, Type):
        return f"Type {action.content!r} into the focused field"
    if isinstance(action, Scroll):
        return f"Scroll {action.direction} (red arrow)"
    if isinstance(action, (Drag, Swipe)):
        return f"{action.name} along the red arrow"
    if isinstance(action, Launch):
        return f"Open {action.url}"
    if isinstance(action, LaunchApp):
        return f"Open the app {action.app!r}"
    if isinstance(action, (Hotkey, KeyDown, KeyUp)):
        return f"{action.name} {'+'.join(action.keys)}"
    if isinstance(action, SelectOption):
        return f"Choose option {action.index} of the open select element"
    point = getattr(action, "point", None)
    if point is not None:
        return f"{action.name} at the red dot ({point.x:.2f}, {point.y:.2f})"
    return action.name


def _children(action: Action | None) -> tuple[Action, ...]:
    if action is None:
        return ()
    return action.actions if isinstance(action, Sequence) else (action,)


def _page(step: Step) -> tuple[str | None, str | None]:
    return (step.url, step.title)


def echoes(steps: list[Step]) -> list[tuple[str, ...]]:
    """For each step, the texts typed on its page before its screenshot: they may show in input fields,
    so seeing them on screen proves nothing. A page change (URL or title) clears the list."""
    out: list[tuple[str, ...]] = []
    typed: list[str] = []
    page = None
    for i, step in enumerate(steps):
        if i and _page(step) != page and (step.url or step.title):
            typed = []
        page = _page(step)
        out.append(tuple(typed))
        typed += [a.content for a in _children(step.action) if isinstance(a, Type)]
    return out


def _consequential(steps: list[Step]) -> list[int]:
    """Steps whose action looks like it commits something: Enter or a click after typing on the same page,
    a Type ending in a newline, or an action after which the URL names a done-state (sent, saved...)."""
    found = []
    echo = echoes(steps)
    for i, step in enumerate(steps):
        kids = _children(step.action)
        after_typing = bool(echo[i]) or any(isinstance(a, Type) for a in kids[:-1])
        submit = any(isinstance(a, Type) and "\n" in a.content for a in kids) or (
            after_typing and any(a.name in _POINTER or isinstance(a, PressEnter) for a in kids)
        )
        nxt = steps[i + 1].url if i + 1 < len(steps) else None
        done_url = bool(nxt and nxt != step.url and any(w in _url_tail(nxt) for w in _DONE_WORDS))
        if step.error is None and (submit or (done_url and kids)):
            found.append(i)
    return found


def _url_tail(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.path}?{parts.query}#{parts.fragment}".casefold()


def _last_change(pngs: list[bytes | None]) -> int | None:
    last, prev = None, None
    for i, png in enumerate(pngs):
        if png is None:
            continue
        if prev is None or changed_fraction(prev, png) > _UNCHANGED:
            last = i
        prev = png
    return last


def log_facts(episode: Episode, pngs: list[bytes | None]) -> LogFacts:
    steps = episode.steps
    final = _children(steps[-1].action)[-1:] if steps else ()
    end = final[0] if final and final[0].terminal else None
    content = getattr(end, "content", None)
    asks = T.asks_for_answer(episode.goal)
    return LogFacts(
        n_steps=len(steps),
        ended_with=end.name if end is not None else None,
        reports_impossible=isinstance(end, CallUser) or T.reports_infeasible(content),
        answer=content if asks and isinstance(end, (Finished, Answer)) and content else None,
        typed=tuple(
            (s.index, a.content) for s in steps if s.error is None for a in _children(s.action) if isinstance(a, Type)
        ),
        consequential=tuple(_consequential(steps)),
        last_change=_last_change(pngs),
        pages=tuple((s.index, s.url, s.title) for s in steps),
        end_reason=episode.outcome.reason,
    )
