"""Judges: each looks at windows of steps (and, once, at the selected evidence) and votes per keypoint.

- `VLMJudge`: a multimodal model behind any OpenAI-compatible endpoint (vLLM, SGLang, a hosted API, a
  trained judge). Prompts are data files in `verify/prompt_templates/`. A timeout, a server error or a
  reply that does not parse becomes an `abstain` vote with the reason, never an exception.
- `OcrJudge`: a hard rule. Keypoint strings (quoted text, key values, proper names) read by OCR on a
  screenshot, where at least one of them is text the agent typed that was not on screen before it typed
  it and is not just sitting in the field it typed into (the page changed since).
- `LogJudge`: a hard rule over the action log: pages opened, text typed, whether a question was answered.

Rule judges (`is_rule = True`) settle keypoints before any model's final judgment is asked for.
"""

from __future__ import annotations

import functools
import json
import re
import threading
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any, Protocol, runtime_checkable

from venuskit.actions.prompts import fill, read_template
from venuskit.models.openai_backend import ModelConfig, ModelError, OpenAIBackend, png_to_data_url
from venuskit.verify import ocr
from venuskit.verify import page_rules as P
from venuskit.verify import rules as R
from venuskit.verify import text as T
from venuskit.verify.evidence import Evidence, Window
from venuskit.verify.report import Cost, Vote

_TEMPLATES = Path(__file__).with_name("prompt_templates")  # shipped as package data (pyproject: **/*.txt)
Keypoints = list[tuple[int, str]]  # (index in the episode's keypoint list, text)


@runtime_checkable
class Judge(Protocol):
    name: str

    def check_window(self, window: Window, keypoints: Keypoints) -> list[Vote]: ...

    def final(self, goal: str, evidence: list[Evidence], keypoints: Keypoints) -> list[Vote]: ...


def is_rule(judge: Judge) -> bool:
    """Rule judges settle keypoints without a model; anything else is asked for a final judgment."""
    return bool(getattr(judge, "is_rule", False))


def abstain_all(judge: str, keypoints: Keypoints, reason: str) -> list[Vote]:
    return [Vote(judge, k, "abstain", None, reason) for k, _ in keypoints]


def load_template(name: str) -> str:
    return read_template(_TEMPLATES, name)


def numbered(keypoints: Keypoints) -> str:
    """Keypoints as the prompt lists them: 1-based local numbers (the reply refers to these)."""
    return "\n".join(f"{n}. {text}" for n, (_, text) in enumerate(keypoints, start=1))


# ---- parsing model replies --------------------------------------------------------------------------

_THINK = re.compile(r"<think>.*?</think>", re.DOTALL)
_LINE = re.compile(
    r"^\W*(\d+)\W+(satisfied|contradicted|not[ _]visible)\b(?:.*?\bstep\s*(\d+))?[\s:,.-]*(.*)$",
    re.IGNORECASE | re.MULTILINE,
)
_STATUS_ALIASES = {"not visible": "not_visible", "unknown": "not_visible", "unclear": "not_visible"}


def json_object(reply: str) -> Any:
    """The first JSON object in a reply (think blocks and code fences around it are ignored), or None."""
    body = _THINK.sub("", reply)
    start = body.find("{")
    while start != -1:
        try:
            return json.JSONDecoder().raw_decode(body[start:])[0]
        except ValueError:
            start = body.find("{", start + 1)
    return None


def _status(value: Any) -> str | None:
    s = str(value).strip().casefold()
    s = _STATUS_ALIASES.get(s, s)
    return s if s in ("satisfied", "contradicted", "not_visible") else None


def _step(value: Any, allowed: set[int]) -> int | None:
    try:
        step = int(value)
    except (TypeError, ValueError):
        return None
    return step if step in allowed else None


def parse_votes(judge: str, reply: str, keypoints: Keypoints, steps: set[int]) -> list[Vote]:
    """Votes from a judge reply (JSON, or "1: satisfied (step 3) reason" lines). Keypoints the reply does not
    decide get an abstain vote; a reply that decides none is garbage and every keypoint abstains."""
    found: dict[int, Vote] = {}
    data = json_object(reply)
    items = data.get("keypoints") if isinstance(data, dict) else None
    for item in items if isinstance(items, list) else []:
        if not isinstance(item, dict):
            continue
        n, status = _step(item.get("id"), set(range(1, len(keypoints) + 1))), _status(item.get("status"))
        if n is not None and status is not None:
            found[n] = Vote(
                judge, keypoints[n - 1][0], status, _step(item.get("step"), steps), str(item.get("reason", ""))
            )
    if not found:
        for m in _LINE.finditer(_THINK.sub("", reply)):
            n, status = int(m.group(1)), _status(m.group(2).replace(" ", "_"))
            if 1 <= n <= len(keypoints) and status is not None:
                found[n] = Vote(judge, keypoints[n - 1][0], status, _step(m.group(3), steps), m.group(4).strip())
    if not found:
        return abstain_all(judge, keypoints, f"unparsable reply: {reply.strip()[:200]!r}")
    return [found.get(n) or Vote(judge, k, "abstain", None, "the reply did not decide this keypoint")
            for n, (k, _) in enumerate(keypoints, start=1)]  # fmt: skip


# ---- the model judge --------------------------------------------------------------------------------


def count_images(messages: list[dict[str, Any]]) -> int:
    """Image parts in a chat request."""
    return sum(1 for m in messages if isinstance(m.get("content"), list)
               for part in m["content"] if isinstance(part, dict) and part.get("type") == "image_url")  # fmt: skip


class VLMJudge:
    """A multimodal model judge over an OpenAI-compatible endpoint. Thread-safe: windows run in parallel.
    `lists_keypoints`: the model is asked to list a goal's keypoints (a judge trained only to decide them,
    such as the nano judge, is not: the rule splitter lists them)."""

    is_rule = False

    def __init__(self, backend: OpenAIBackend | ModelConfig, *, name: str = "vlm", timeout_s: float = 60.0,
                 lists_keypoints: bool = True) -> None:  # fmt: skip
        if isinstance(backend, ModelConfig):
            # One attempt per call: the verifier's timeout is a budget, and an abstention is recorded anyway.
            backend = OpenAIBackend(_with_timeout(backend, timeout_s))
        self.backend = backend
        self.name = name
        self.lists_keypoints = lists_keypoints
        self.cost = Cost()
        self._lock = threading.Lock()

    @classmethod
    def from_url(cls, url: str, model: str, *, api_key: str | None = None, name: str = "vlm",
                 timeout_s: float = 60.0, temperature: float = 0.0, seed: int | None = None) -> VLMJudge:  # fmt: skip
        extra = {"seed": seed} if seed is not None else {}
        cfg = ModelConfig(base_url=url, model=model, api_key=api_key or "EMPTY", temperature=temperature,
                          max_tokens=1024, extra_sampling=extra)  # fmt: skip
        return cls(cfg, name=name, timeout_s=timeout_s)

    @functools.cached_property
    def provenance(self) -> dict[str, Any]:
        """What a verdict records of this judge: the model's name and the checkpoint its server names (venuskit's
        servers name one; None for others)."""
        return {"model": self.backend.config.model, "checkpoint": self.backend.checkpoint()}

    # -- calls --

    def complete(self, messages: list[dict[str, Any]]) -> str:
        """One model call; counts calls and tokens. Raises ModelError (callers turn it into abstentions)."""
        t0 = time.perf_counter()
        try:
            completion = self.backend.complete(messages)
        finally:
            with self._lock:
                self.cost.calls += 1
                self.cost.images += count_images(messages)
                self.cost.seconds += time.perf_counter() - t0
        with self._lock:
            self.cost.tokens += completion.usage.prompt_tokens + completion.usage.completion_tokens
            self.cost.prompt_tokens += completion.usage.prompt_tokens
        return completion.text

    def _votes(self, messages: list[dict[str, Any]], keypoints: Keypoints, steps: set[int]) -> list[Vote]:
        try:
            reply = self.complete(messages)
        except ModelError as exc:
            return abstain_all(self.name, keypoints, f"judge error: {exc}")
        return parse_votes(self.name, reply, keypoints, steps)

    # -- the Judge protocol --

    def check_window(self, window: Window, keypoints: Keypoints) -> list[Vote]:
        if not keypoints:
            return []
        return self._votes(window_messages(window, keypoints), keypoints, {s.index for s in window.steps})

    def final(self, goal: str, evidence: list[Evidence], keypoints: Keypoints, history: str = "") -> list[Vote]:
        if not keypoints:
            return []
        return self._votes(final_messages(goal, evidence, keypoints, history), keypoints, {e.index for e in evidence})

    # -- other jobs for the same model --

    def extract_keypoints(self, goal: str) -> list[str] | None:
        """Keypoints of `goal` from the model (text only), or None when it fails or replies garbage."""
        if not self.lists_keypoints:
            return None
        try:
            data = json_object(self.complete(keypoint_messages(goal)))
        except ModelError:
            return None
        items = data.get("keypoints") if isinstance(data, dict) else None
        points = [str(p).strip() for p in items if str(p).strip()] if isinstance(items, list) else []
        return points or None

    def judge_step(self, intro: str, images: list[tuple[str, bytes]]) -> tuple[str | None, str]:
        """(raw verdict word or None, reasoning or the error) for the step verifier."""
        try:
            reply = self.complete(step_messages(intro, images))
        except ModelError as exc:
            return None, f"judge error: {exc}"
        data = json_object(reply)
        if isinstance(data, dict) and data.get("verdict"):
            return str(data["verdict"]), str(data.get("reasoning") or data.get("reason") or "")
        m = re.search(
            r"\b(CORRECT|INCORRECT|INEFFECTIVE|EXPLORATORY|correct|explore|invalid|wrong)\b", _THINK.sub("", reply)
        )
        return (m.group(1), reply.strip()[:300]) if m else (None, f"unparsable reply: {reply.strip()[:200]!r}")


def _with_timeout(cfg: ModelConfig, timeout_s: float) -> ModelConfig:
    from dataclasses import replace

    return replace(cfg, timeout_s=timeout_s, max_retries=0)


def _total(evidence: list[Evidence]) -> int:
    return max((e.index for e in evidence), default=-1) + 1


def _image(png: bytes) -> dict[str, Any]:
    return {"type": "image_url", "image_url": {"url": png_to_data_url(png)}}


def window_messages(window: Window, keypoints: Keypoints) -> list[dict[str, Any]]:
    """The request for one window check: the keypoints, then each step's description and annotated screenshot."""
    intro = fill(load_template("window"), {
        "goal": window.goal, "keypoints": numbered(keypoints), "first": str(window.steps[0].index),
        "last": str(window.steps[-1].index), "total": str(window.facts.n_steps),
    })  # fmt: skip
    return _messages(intro, window.steps)


def final_messages(goal: str, evidence: list[Evidence], keypoints: Keypoints,
                   history: str = "") -> list[dict[str, Any]]:  # fmt: skip
    """The request for a final judgment: the open keypoints, the whole action history, the selected steps."""
    answer = any("the agent told the user" in e.action for e in evidence)
    note = "The agent's final answer is quoted in its last step; check it against the screenshots." if answer else ""
    intro = fill(load_template("final"), {
        "goal": goal, "keypoints": numbered(keypoints), "total": str(_total(evidence)), "answer_note": note,
        "history": history or "\n".join(e.header() for e in evidence),
    })  # fmt: skip
    return _messages(intro, evidence)


def step_messages(intro: str, images: list[tuple[str, bytes]]) -> list[dict[str, Any]]:
    """The request for one step check: the step prompt, then each (caption, screenshot)."""
    content: list[dict[str, Any]] = [{"type": "text", "text": intro}]
    for caption, png in images:
        content += [{"type": "text", "text": caption}, _image(png)]
    return [{"role": "system", "content": load_template("step_system")}, {"role": "user", "content": content}]


def keypoint_messages(goal: str) -> list[dict[str, Any]]:
    return [{"role": "user", "content": fill(load_template("keypoints"), {"goal": goal})}]


def _messages(intro: str, steps: Sequence[Evidence]) -> list[dict[str, Any]]:
    content: list[dict[str, Any]] = [{"type": "text", "text": intro}]
    for step in steps:
        content.append({"type": "text", "text": step.header()})
        if step.annotated is not None:
            content.append(_image(step.annotated))
    return [{"role": "system", "content": load_template("judge_system")}, {"role": "user", "content": content}]


# ---- OCR -------------------------------------------------------------------------------------------

_NEGATIVE = re.compile(
    r"\b(delete|remove|cancel|decline|reject|unsubscribe|archive|clear|disable|turn off|recall|uninstall|empty|"
    r"unstar|mark as unread)\b", re.IGNORECASE)  # fmt: skip
proper_names = T.proper_names  # kept importable from here


class OcrJudge:
    """OCR as a hard rule, through the verifier's one shared reader (`verify.ocr`: each screen read once)."""

    name = "ocr"
    is_rule = True

    def __init__(self, name: str = "ocr") -> None:
        self.name = name
        self.cost = Cost()  # OCR calls no model; kept so every judge reports a cost

    def read(self, png: bytes) -> str:
        """All text OCR finds on the screenshot, one line per text line."""
        return ocr.text(png)

    def check_window(self, window: Window, keypoints: Keypoints) -> list[Vote]:
        """Trajectory rules (rules.py), voted once, on the window that holds the final step: they need the
        screens before and after an action, and the end state."""
        if not window.is_last:
            return abstain_all(self.name, keypoints, "the OCR rules vote on the last window")
        steps = list(window.before) + list(window.steps)
        return [self._rules(k, text, steps, window.goal) for k, text in keypoints]

    def _rules(self, k: int, text: str, steps: list[Evidence], goal: str = "") -> Vote:
        read, lines = self.read_step, self.lines_step
        found = R.settle(text, steps, [
            lambda: P.answered(text, steps, read, lines), lambda: P.described_entry(text, steps, read, lines, goal),
            lambda: P.clicked_item(text, goal, steps, lines), lambda: P.entered_values(text, steps, lines, goal, read),
            lambda: P.affix_entry(text, steps, lines), lambda: P.dragged_to(text, steps, lines, goal),
            lambda: P.sorted_list(text, steps, lines), lambda: P.sorted_by(text, steps, lines),
            lambda: P.copied(text, goal, steps, read),
            lambda: P.cells_hold(text, steps, lines, read), lambda: P.row_added(text, steps, lines),
            lambda: P.line_added(text, steps, lines),
            lambda: P.masked_entry(text, steps, lines),
            lambda: P.appended_line(text, steps, lines, read), lambda: P.chosen_option(text, steps, lines),
            lambda: P.guest_added(text, steps, lines),
            lambda: P.put_to(text, steps, lines), lambda: P.opened_from(text, goal, steps, lines),
            lambda: P.reasoned_request(text, steps, lines), lambda: P.filtered(text, steps, lines),
            lambda: P.ordered(text, steps, lines),
            lambda: P.cart_quantity(text, steps, lines), lambda: P.added_to_cart(text, steps),
            lambda: R.searched(text, steps), lambda: R.opened_described(text, steps),
            lambda: R.submitted(text, steps, read, goal, lines), lambda: R.clicked_effect(text, steps, read),
            lambda: R.one_click(text, steps), lambda: R.reacted(text, steps),
            lambda: P.icon_act(text, steps, lines), lambda: R.pressed(text, steps),
            lambda: R.removed_row(text, steps, self.lines_step), lambda: R.switched(text, steps, self.lines_step),
            lambda: R.still_there(text, steps, read), lambda: R.never_shown(text, steps, read),
            lambda: R.refrained(text, steps, goal), lambda: R.kept_others(text, goal, steps, lines),
        ], lines)  # fmt: skip
        if found is not None:
            return Vote(self.name, k, *found)
        if _NEGATIVE.search(text):
            return Vote(self.name, k, "abstain", None, "OCR cannot show that something is gone")
        return Vote(self.name, k, "abstain", None, "no OCR rule applies")

    def read_step(self, step: Evidence) -> str:
        return self.read(step.png) if step.png is not None else ""

    def lines_step(self, step: Evidence) -> tuple:
        return ocr.lines(step.png) if step.png is not None else ()

    def final(self, goal: str, evidence: list[Evidence], keypoints: Keypoints) -> list[Vote]:
        typed = [(e.index, a.content) for e in evidence for a in _kids(e.act) if a.name == "Type"]
        first_typed = {t: s for s, t in reversed(typed)}
        return [self._judge(k, text, evidence, evidence, [t for _, t in typed], first_typed) for k, text in keypoints]

    def _judge(self, k: int, text: str, steps, trajectory, typed: list[str], first_typed: dict[str, int]) -> Vote:
        if T.answer_keypoint(text) is not None:  # the answer against the screens this judgment is shown
            found = P.answered(text, steps, self.read_step, self.lines_step)
            if found is not None:
                return Vote(self.name, k, *found)
        if _NEGATIVE.search(text):
            return Vote(self.name, k, "abstain", None, "OCR cannot show that something is gone")
        want = T.needles(text) + proper_names(text)
        mine = [n for n in want if any(T.contains(t, n) for t in typed)]
        if not mine:
            return Vote(self.name, k, "abstain", None, "the keypoint names no text the agent typed")
        fresh = [n for n in mine if not self._seen_before(n, trajectory, _first_step(n, first_typed))]
        if len(fresh) < len(mine):
            return Vote(self.name, k, "abstain", None, "the typed text was already on screen before it was typed")
        for step in sorted(steps, key=lambda e: -e.index):
            if step.png is None or any(T.contains(e, n) for n in mine for e in step.echo):
                continue
            screen = self.read(step.png)
            if all(T.contains(screen, n) for n in want):
                return Vote(self.name, k, "satisfied", step.index, f"OCR read {', '.join(map(repr, want))}")
        return Vote(self.name, k, "not_visible", None, f"OCR did not find {', '.join(map(repr, want))} together")

    def _seen_before(self, needle: str, trajectory, before: int) -> bool:
        return any(
            e.png is not None and e.index <= before and T.contains(self.read(e.png), needle) for e in trajectory
        )


def _first_step(needle: str, first_typed: dict[str, int]) -> int:
    return min((s for t, s in first_typed.items() if T.contains(t, needle)), default=0)


def _kids(action: Any) -> tuple[Any, ...]:
    if action is None:
        return ()
    return tuple(getattr(action, "actions", ())) or (action,)


# ---- the action log ---------------------------------------------------------------------------------

_TYPING = re.compile(r"^\s*(type|enter|input|fill in|fill|write|search for|search)\b", re.IGNORECASE)
_OPENING = re.compile(r"^\s*(open|go to|visit|navigate to|launch|load)\b", re.IGNORECASE)
_ANSWERING = re.compile(r"^\s*(answer\b|tell me|let me know|report)", re.IGNORECASE)
_DOMAIN = re.compile(
    r"\b(?:https?://)?(?:(?:[a-z0-9-]+\.)+[a-z]{2,}|\d{1,3}(?:\.\d{1,3}){3}|localhost)(?::\d+)?(?:/[^\s\"']*)?",
    re.IGNORECASE,
)


class LogJudge:
    """Facts from the action log, as a hard rule: a page that was opened, text that was typed, a question
    left without an answer. Never reads thoughts; reads final content only to know an answer exists."""

    name = "log"
    is_rule = True

    def __init__(self, name: str = "log") -> None:
        self.name = name
        self.cost = Cost()

    def check_window(self, window: Window, keypoints: Keypoints) -> list[Vote]:
        votes = [self._judge(k, text, window.steps, window if window.is_last else None) for k, text in keypoints]
        if window.is_last:  # trajectory rules over every step, voted once
            steps = list(window.before) + list(window.steps)
            pairs = zip(votes, keypoints, strict=True)
            votes = [self._trajectory(v, text, steps, window.goal) for v, (_, text) in pairs]
        return votes

    def _trajectory(self, vote: Vote, text: str, steps: list[Evidence], goal: str = "") -> Vote:
        if vote.status in ("satisfied", "contradicted"):
            return vote
        found = R.settle(text, steps, [
            lambda: R.answered(text, steps), lambda: R.opened(text, steps), lambda: R.searched(text, steps),
            lambda: P.sorted_by(text, steps, None),
            lambda: R.submitted(text, steps, goal=goal),
            lambda: R.language_switched(text, steps),
            lambda: R.clicked_effect(text, steps), lambda: R.one_click(text, steps), lambda: R.reacted(text, steps),
            lambda: R.never_shown(text, steps, None),
        ])  # fmt: skip
        return vote if found is None else Vote(self.name, vote.keypoint, *found)

    def final(self, goal: str, evidence: list[Evidence], keypoints: Keypoints) -> list[Vote]:
        return [self._judge(k, text, evidence, None) for k, text in keypoints]

    def _judge(self, k: int, text: str, steps: Sequence[Evidence], last: Window | None) -> Vote:
        if _OPENING.match(text):
            return self._opened(k, text, steps)
        if _TYPING.match(text) and T.quoted(text) and not P.affix_of(text):
            # an address outside the quotes is typed as exactly (else a mail to another recipient passes)
            described = T.described(text)
            entry = described[0] if described else text  # a description's values say where content comes from
            wanted = [P.as_asked(q, T.unquoted(entry)) for q in T.quoted(entry)] + T.emails(entry)
            vote = self._typed(k, wanted, steps)
            if vote.status == "satisfied" and (described or T.own_recipient(text)):  # not in the log: the content
                # it describes, or whose the address typed is
                why = "typed the keypoint's values; what it describes (content, recipient) the log does not show"
                return Vote(self.name, k, "abstain", None, why)
            return vote
        if _ANSWERING.match(text) and last is not None:
            return self._answered(k, last)
        return Vote(self.name, k, "abstain", None, "no log rule applies")

    def _opened(self, k: int, text: str, steps: Sequence[Evidence]) -> Vote:
        targets = [m.group(0).rstrip(".,") for m in _DOMAIN.finditer(text)]
        if not targets:
            return Vote(self.name, k, "abstain", None, "the keypoint names no URL")
        for step in steps:
            if step.url and all(T.contains(step.url, t.split("://")[-1]) for t in targets):
                return Vote(self.name, k, "satisfied", step.index, f"the page {step.url} was open")
        return Vote(self.name, k, "not_visible", None, "no step was on that URL")

    def _typed(self, k: int, wanted: list[str], steps: Sequence[Evidence]) -> Vote:
        """Each wanted text typed exactly (one Type action's whole text, case and all: a prefix or a look-alike
        is not it); a typed text that is a near miss of a wanted one (a prefix, another case) contradicts."""
        typed = [(step.index, a.content.strip()) for step in steps if step.error is None for a in _kids(step.act)
                 if a.name == "Type"]  # fmt: skip
        at = {w: max((i for i, c in typed if c == w.strip()), default=None) for w in wanted}
        if all(s is not None for s in at.values()):
            return Vote(self.name, k, "satisfied", max(at.values()), f"typed {', '.join(map(repr, wanted))} exactly")
        for w, s in at.items():
            near = [(i, c) for i, c in typed if s is None and c and P.near_miss(c, w.strip())]
            if near:
                return Vote(self.name, k, "contradicted", near[-1][0], f"typed {near[-1][1]!r}, not {w!r}")
        return Vote(self.name, k, "not_visible", None, "that text was not typed in these steps")

    def _answered(self, k: int, window: Window) -> Vote:
        facts, final = window.facts, window.steps[-1].index
        if facts.ended_with not in ("Finished", "Answer") or facts.answer is None:
            return Vote(self.name, k, "contradicted", final, "the agent ended without answering")
        return Vote(self.name, k, "not_visible", final, "an answer was given; its correctness needs a look")


# ---- building judges from a spec --------------------------------------------------------------------


def make_judges(
    spec: str,
    *,
    model_url: str | None = None,
    model_name: str | None = None,
    api_key: str | None = None,
    timeout_s: float = 60.0,
    nano_url: str | None = None,
    nano_weights: str | None = None,
) -> list[Judge]:
    """Judges from a spec like "ocr,log", "ocr,log,nano", "ocr,log,vlm" or "vlm*3" (three model judges that
    vote; they sample at temperature 0.7 with different seeds, since three greedy copies would always agree).
    "nano" is the trained judge over the wire: at `nano_url` (a `venus serve judge`), else served in-process
    (`nano_weights`: a judge.pt other than the shipped one, e.g. a `venus loop` round's)."""
    judges: list[Judge] = []
    for item in (p.strip() for p in spec.split(",")):
        kind, _, times = item.partition("*")
        count = _count(item, times)
        if kind == "ocr":
            judges += [OcrJudge(name="ocr" if count == 1 else f"ocr{i + 1}") for i in range(count)]
        elif kind == "log":
            judges += [LogJudge(name="log" if count == 1 else f"log{i + 1}") for i in range(count)]
        elif kind == "vlm":
            judges += _vlm_judges(count, model_url, model_name, api_key, timeout_s)
        elif kind == "nano":
            judges += [nano_judge(nano_url, timeout_s=timeout_s, name="nano" if count == 1 else f"nano{i + 1}",
                                  weights=nano_weights) for i in range(count)]  # fmt: skip
        else:
            raise ValueError(f"Unknown judge {item!r} in {spec!r}; use ocr, log, nano and vlm, e.g. 'ocr,log,nano'.")
    if not judges:
        raise ValueError(f"The judge spec {spec!r} names no judge; use e.g. 'ocr,log' or 'ocr,log,vlm'.")
    return judges


def nano_judge(url: str | None = None, *, timeout_s: float = 60.0, name: str = "nano",
               weights: str | None = None) -> VLMJudge:  # fmt: skip
    """The trained nano judge as a VLMJudge: a client of its server (`url`, or one started in this process on
    `weights`, default the shipped ones). It decides keypoints; listing them is left to the rule splitter."""
    from venuskit.models.judge import served_url

    base = url or served_url(weights)
    return VLMJudge(ModelConfig(base_url=base, model="venus-judge", api_key="EMPTY", temperature=0.0,
                                max_tokens=1024), name=name, timeout_s=timeout_s, lists_keypoints=False)  # fmt: skip


def _count(item: str, times: str) -> int:
    if not times:
        return 1
    if not times.isdigit() or not 1 <= int(times) <= 15:
        raise ValueError(f"In judge spec item {item!r}, the count after '*' must be a whole number from 1 to 15.")
    return int(times)


def _vlm_judges(count: int, url: str | None, model: str | None, key: str | None, timeout_s: float) -> list[Judge]:
    if not url or not model:
        raise ValueError(
            "A 'vlm' judge needs a model endpoint: pass model_url (e.g. http://127.0.0.1:8000/v1) and model_name."
        )
    if count == 1:
        return [VLMJudge.from_url(url, model, api_key=key, timeout_s=timeout_s)]
    return [VLMJudge.from_url(url, model, api_key=key, name=f"vlm{i + 1}", timeout_s=timeout_s, temperature=0.7,
                              seed=i) for i in range(count)]  # fmt: skip
