"""Episode kinds of the world set: how each episode is made from a task's oracle, and the labels it is meant to get.

Every kind is a plan of oracle-style steps (`venuskit.tasks.oracle`), run in real Chromium; the episode's label
is the contract's verdict, whatever the kind meant. A kind whose contract label is not one it intends is
rejected (reported, never kept), except the noisy-oracle kinds, which stand in for an imperfect policy: their
label is whatever the contract says.

    oracle            the scripted solution                                     -> completed
    partial           the oracle stopped after its first progress keypoint       -> partial
    null              Finished at once                                          -> failed
    wrong_target      opens another item than the goal names, then stops        -> failed
    noisy_extra       the oracle with an extra harmless step                    -> any (the contract says)
    noisy_omit        the oracle with one step left out                         -> any
    noisy_swap        the oracle with two neighbouring steps swapped            -> any
    infeasible_right  an infeasible task's oracle (asks the user)               -> infeasible
    infeasible_wrong  an infeasible task "done" anyway, Finished claims success  -> failed
    agent             venus-nano rolled out on the task (a real policy's mistakes) -> any (the contract says)
  adversarial (they look done, or nearly, but are not):
    claimed_done      Finished claims success, the change was never made        -> failed / partial
    typed_claim       a success message typed into a text field, not submitted   -> failed / partial
    not_submitted     the oracle with its final submit click dropped            -> failed / partial
    wrong_item        the oracle's actions on another item than the goal names   -> failed / partial
    side_effect       the oracle plus an undeclared consequential action         -> failed
    undone            the oracle, then its write undone (sent then deleted...)   -> failed / partial
    wrong_recipient   the right values sent to another address or account       -> failed / partial
    banner_only       the success page (banner and all) opened by URL, no write  -> failed / partial
    partial_items     a multi-item task with its last item left undone           -> partial / failed
    lookalike         the same action on an item of the same name in another app -> failed
  question tasks (oracle and null as above):
    no_answer         the oracle's navigation, then Finished without an answer   -> failed
    wrong_answer      the oracle's navigation, then a made-up wrong value         -> failed (adversarial)
    near_miss         the oracle's navigation, then another value of the same shape from the same screen,
                      or the right value with two digits swapped                -> failed (adversarial)

`banner_only` and `near_miss` are made from the oracle's own recorded episode (`Trace`): the URL its submit
led to, the text OCR reads on its last screen.
"""

from __future__ import annotations

import random
import re
import zlib
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from venuskit.models.lexicon import EMAIL, IBAN

LABELS = ("completed", "partial", "infeasible", "failed")
# What the adversarial episodes say or type. ASCII, and free of the words with which a Finished reports
# infeasibility (tasks.contract.INFEASIBLE_MARKERS), so an infeasible task "done" anyway stays `failed`.
CLAIM = "All done, the task is complete."
TYPED_CLAIM = "Done - task complete: "
# Made-up answers for questions whose value has no digit to change (a name, a status): never in the world data.
DECOY = {"en": "Jordan Whitfield", "zh": "周晓岚"}
# Another colleague's address: the wrong recipient of the right message (a person of the world's company).
DECOY_ADDRESS = "lena.fischer@northwind.example"
_HAS_TEXT = re.compile(r":has-text\('([^']*)'\)")
_EXTENSION = re.compile(r"\.[A-Za-z]{2,5}$")
_END_OPS = ("finish", "finish_from", "call_user")
_HARMLESS = ("click", ".topbar .sim-date")  # the simulated date in every app's top bar: clicking it does nothing

Steps = tuple[tuple[str, ...], ...]


@dataclass(frozen=True)
class Kind:
    name: str
    intended: tuple[str, ...]  # contract labels this kind is meant to produce; others are rejected
    adversarial: bool
    applies: tuple[str, ...]  # task types it is made from: state (changes something), question, infeasible
    help: str
    policy: str = "transform"  # oracle | transform | noisy | agent: which policy made it (noisy, agent: any label)
    needs_trace: bool = False  # made from the oracle's recorded episode of the same task


_S, _Q, _I = ("state",), ("question",), ("infeasible",)
_NOT_DONE = ("failed", "partial")
KINDS: tuple[Kind, ...] = (
    Kind("oracle", ("completed",), False, _S + _Q, "the task's scripted solution", "oracle"),
    Kind("partial", ("partial",), False, _S, "the oracle stopped after its first progress keypoint"),
    Kind("null", ("failed",), False, _S + _Q, "Finished at once, nothing done"),
    Kind("wrong_target", ("failed",), False, _S, "opens another item than the goal names, then stops"),
    Kind("noisy_extra", LABELS, False, _S + _Q, "the oracle with an extra harmless step", "noisy"),
    Kind("noisy_omit", LABELS, False, _S + _Q, "the oracle with one step left out", "noisy"),
    Kind("noisy_swap", LABELS, False, _S + _Q, "the oracle with two neighbouring steps swapped", "noisy"),
    Kind("claimed_done", _NOT_DONE, True, _S, "Finished claims success without the change"),
    Kind("typed_claim", _NOT_DONE, True, _S, "a success message typed into a field, not submitted"),
    Kind("not_submitted", _NOT_DONE, True, _S, "the oracle with its final submit click dropped"),
    Kind("wrong_item", _NOT_DONE, True, _S, "the oracle's actions on another item than the goal's"),
    Kind("side_effect", ("failed",), True, _S, "the oracle plus an undeclared consequential action"),
    Kind("undone", _NOT_DONE, True, _S, "the oracle, then its write undone (sent then deleted, starred then not)"),
    Kind("wrong_recipient", _NOT_DONE, True, _S, "the right values sent to another address or account"),
    Kind("banner_only", _NOT_DONE, True, _S, "the page the submit leads to, banner and all, opened by URL, no write",
         needs_trace=True),  # fmt: skip
    Kind("partial_items", ("partial", "failed"), True, _S, "a multi-item task with its last item left undone"),
    Kind("lookalike", _NOT_DONE, True, _S, "the same action on an item of the same name in another app"),
    Kind("no_answer", ("failed",), False, _Q, "a question task: the oracle's navigation, then no answer"),
    Kind("wrong_answer", ("failed",), True, _Q, "a question task: the oracle's navigation, then a made-up value"),
    Kind("near_miss", ("failed",), True, _Q, "a question task: a near-miss value (same shape, same screen)",
         needs_trace=True),  # fmt: skip
    Kind("infeasible_right", ("infeasible",), False, _I, "an infeasible task's oracle: it asks the user", "oracle"),
    Kind("infeasible_wrong", ("failed",), False, _I, "an infeasible task done anyway: Finished claims success"),
    Kind("agent", LABELS, False, _S + _Q + _I, "venus-nano rolled out on the task", "agent"),
)
KIND_BY_NAME = {k.name: k for k in KINDS}


@dataclass(frozen=True)
class Plan:
    """How to run one episode: oracle-style steps (None: the task's own oracle), maybe stopped early, or (agent)
    venus-nano acting on its own."""

    steps: Steps | None = None
    stop_at_progress: bool = False
    agent: bool = False


@dataclass(frozen=True)
class Trace:
    """What the kinds made from the oracle's episode need of it: each step's URL, and the text OCR reads
    on its last screen (the one the answer was read from)."""

    urls: tuple[str | None, ...] = ()
    last_screen_text: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


# ---- task facts ----------------------------------------------------------------------------------


def task_type(spec: Any) -> str:
    """infeasible; question (the oracle ends with an answer: Finished(content) or one read off the page);
    or state (it changes something and ends with a bare Finished)."""
    if not spec.feasible:
        return "infeasible"
    last = spec.oracle[-1] if spec.oracle else ("finish",)
    return "question" if last[0] == "finish_from" or (last[0] == "finish" and len(last) > 1) else "state"


def expected_answer(inst: Any) -> str | None:
    """The value the contract wants in the answer (`answer.contains` text), else the oracle's literal one."""
    for kp in inst.keypoints:
        if kp.check == "answer.contains" and isinstance(kp.args.get("text"), str):
            return kp.args["text"]
    last = inst.oracle[-1] if inst.oracle else ()
    return last[1] if len(last) > 1 and last[0] == "finish" else None


def locale_of(inst: Any) -> str:
    params = inst.spec.params
    return params[inst.seed % len(params)].get("locale", "en") if params else "en"


def wrong_value(value: str, locale: str = "en") -> str:
    """A made-up wrong answer: the last two digits shifted by 3 (312.80 -> 312.13, TX61200457 -> TX61200480),
    or a decoy name when the value has no digit."""
    digits = [i for i, ch in enumerate(value) if ch.isdigit()][-2:]
    if not digits:
        return DECOY.get(locale, DECOY["en"])
    chars = list(value)
    for i in digits:
        chars[i] = str((int(chars[i]) + 3) % 10)
    return "".join(chars)


def shape(value: str) -> str:
    """A value's shape: digits as 9, letters as A, the rest kept (312.80 -> 999.99, TX61200457 -> AA99999999)."""
    return re.sub(r"[^\W\d_]", "A", re.sub(r"\d", "9", value.strip()))


def near_miss_value(value: str, screen_text: str) -> str | None:
    """A value a careless reader would give: another value of the same shape that the same screen shows (the
    neighbouring row's amount, another date); else the right value with two different neighbouring digits
    swapped (312.80 -> 312.08); None for a value with neither (a name: `wrong_answer` covers it)."""
    want, norm = shape(value), re.sub(r"\W", "", value).casefold()
    if any(ch.isdigit() for ch in value):
        tokens = re.findall(r"[\w.,:@+-]+", screen_text)
        for tok in sorted(set(tokens), key=tokens.index):
            tok = tok.strip(".,:+-")
            if shape(tok) == want and re.sub(r"\W", "", tok).casefold() != norm:
                return tok
        digits = [i for i, ch in enumerate(value) if ch.isdigit()]
        for a, b in zip(reversed(digits[:-1]), reversed(digits[1:]), strict=True):
            if b == a + 1 and value[a] != value[b]:
                chars = list(value)
                chars[a], chars[b] = chars[b], chars[a]
                return "".join(chars)
    return None


# ---- plans ---------------------------------------------------------------------------------------


def core(oracle: Steps) -> Steps:
    """The oracle without its closing Finished / CallUser."""
    end = len(oracle)
    while end and oracle[end - 1][0] in _END_OPS:
        end -= 1
    return oracle[:end]


def item_step(steps: Steps) -> int | None:
    """Index of the first step that picks an item by its text (`...:has-text('X')`)."""
    return next((i for i, s in enumerate(steps) if len(s) > 1 and _HAS_TEXT.search(s[1])), None)


def negate(step: tuple[str, ...]) -> tuple[str, ...]:
    """The same step on the first *other* item: `:has-text('X')` -> `:not(:has-text('X'))` (once). A file
    name keeps its extension (`:has-text('.docx')`), so the other item opens in the same editor."""

    def other(m: re.Match[str]) -> str:
        ext = _EXTENSION.search(m.group(1))
        return f":not({m.group(0)})" + (f":has-text('{ext.group(0)}')" if ext else "")

    return (step[0], _HAS_TEXT.sub(other, step[1], count=1), *step[2:])


def rng_for(inst: Any, kind: str) -> random.Random:
    """A generator fixed by the task instance and the kind (stable across runs and Python versions)."""
    return random.Random(zlib.crc32(f"{inst.spec.id}@{inst.seed}#{kind}".encode()))


def plan_for(kind: str, inst: Any, surface: str = "browser", trace: Trace | None = None) -> Plan | None:
    """The plan of `kind` for a task instance, or None where the kind does not apply to the task (or to the
    surface: kinds that open a page by typed URL need the desktop browser; kinds made from the oracle's
    episode need its `trace`)."""
    k = KIND_BY_NAME.get(kind)
    if k is None:
        raise ValueError(f"Unknown episode kind {kind!r}; known kinds: {', '.join(KIND_BY_NAME)}.")
    if task_type(inst.spec) not in k.applies or (k.needs_trace and trace is None):
        return None
    if kind == "agent":
        return Plan(agent=True)
    steps = core(inst.oracle)
    if kind in ("oracle", "infeasible_right"):
        return Plan()
    if kind == "partial":
        return Plan(stop_at_progress=True) if any(kp.progress for kp in inst.keypoints) else None
    if kind == "null":
        return Plan((("finish", "Done."),))
    if kind in ("claimed_done", "infeasible_wrong"):
        # Go where the work would happen (the oracle's first step, when more follow), then claim it is done.
        first = steps[:1] if steps[:1] and steps[0][0] == "click" else ()
        nav = first if len(steps) >= 3 or kind == "infeasible_wrong" else ()
        return Plan((*nav, ("finish", CLAIM)))
    if k.policy == "noisy":
        return _noisy(kind, inst, steps)
    if kind in ("no_answer", "wrong_answer", "near_miss"):
        return _question(kind, inst, steps, trace)
    made = _ADVERSARIES[kind](inst, steps, surface, trace)
    return None if made is None else Plan(made)


def _question(kind: str, inst: Any, steps: Steps, trace: Trace | None) -> Plan | None:
    if kind == "no_answer":
        return Plan((*steps, ("finish",)))
    value = expected_answer(inst)
    if value is None:
        return None
    if kind == "wrong_answer":
        return Plan((*steps, ("finish", wrong_value(value, locale_of(inst)))))
    miss = near_miss_value(value, trace.last_screen_text if trace else "")
    return None if miss is None else Plan((*steps, ("finish", miss)))


def _noisy(kind: str, inst: Any, steps: Steps) -> Plan | None:
    """An imperfect run of the oracle: one extra harmless step, one step left out, or two neighbours swapped.
    Where the change makes a later step impossible the oracle gives up (CallUser), as a stuck agent would."""
    rng, end = rng_for(inst, kind), inst.oracle[len(steps) :]
    if kind == "noisy_extra":
        at = rng.randrange(len(steps) + 1)
        extra = steps[at - 1] if at and steps[at - 1][0] == "fill" and rng.random() < 0.5 else _HARMLESS
        return Plan((*steps[:at], extra, *steps[at:], *end))
    if len(steps) < 2:
        return None
    if kind == "noisy_omit":
        at = rng.randrange(len(steps))
        return Plan((*steps[:at], *steps[at + 1 :], *end))
    at = rng.randrange(len(steps) - 1)
    return Plan((*steps[:at], steps[at + 1], steps[at], *steps[at + 2 :], *end))


# ---- adversaries ---------------------------------------------------------------------------------

_FINISH: Steps = (("finish",),)
_CLAIMED: Steps = (("finish", CLAIM),)


def _typed_claim(inst: Any, steps: Steps, surface: str, trace: Trace | None) -> Steps | None:
    at = next((i for i, s in enumerate(steps) if s[0] in ("fill", "type")), None)
    if at is None:
        return None
    return (*steps[:at], ("type", steps[at][1], TYPED_CLAIM + inst.goal), *_CLAIMED)


def _not_submitted(inst: Any, steps: Steps, surface: str, trace: Trace | None) -> Steps | None:
    last = max((i for i, s in enumerate(steps) if s[0] == "click"), default=0)
    return steps[:last] + steps[last + 1 :] + _FINISH if last >= 1 else None


def _wrong_item(inst: Any, steps: Steps, surface: str, trace: Trace | None) -> Steps | None:
    item = item_step(steps)
    return None if item is None else (*steps[:item], negate(steps[item]), *steps[item + 1 :], *_FINISH)


def _wrong_target(inst: Any, steps: Steps, surface: str, trace: Trace | None) -> Steps | None:
    item = item_step(steps)  # only where the item is picked before the work: else it equals wrong_item
    return (*steps[:item], negate(steps[item]), *_FINISH) if item is not None and item < len(steps) - 1 else None


def _side_effect(inst: Any, steps: Steps, surface: str, trace: Trace | None) -> Steps | None:
    """Steps that trash a file (or a mail) the goal does not mention, then return to the start page."""
    if surface != "browser":  # its page is opened by typed URL, which the mobile surface has no action for
        return None
    words = [v for v in inst.params.values() if isinstance(v, str) and "'" not in v and 0 < len(v) < 80]
    avoid = "".join(f":not(:has-text('{w}'))" for w in words)
    if "drive.trash" not in inst.spec.consequential:
        return (("goto", "/drive/"), ("click", f".file-row{avoid} button[value=trash]"), ("goto", inst.start),
                *inst.oracle)  # fmt: skip
    if "mail.trash" not in inst.spec.consequential:
        return (("goto", "/mail/inbox"), ("click", f"a.mail-row{avoid}"), ("click", "button[value=trash]"),
                ("goto", inst.start), *inst.oracle)  # fmt: skip
    return None


def _picked(steps: Steps) -> str | None:
    item = item_step(steps)
    return _HAS_TEXT.search(steps[item][1]).group(1) if item is not None else None


def _undone(inst: Any, steps: Steps, surface: str, trace: Trace | None) -> Steps | None:
    """The oracle's write, then the write taken back through the apps' own pages: a sent mail moved to the
    trash, a star taken off, an archived mail moved back, a trashed file restored, a new event deleted, a
    joined group left, a cart line removed. Typed URLs (the way back to a list) need the desktop browser."""
    last = next((s for s in reversed(steps) if s[0] == "click"), None)
    if last is None:
        return None
    sel, name, desktop = last[1], _picked(steps), surface == "browser"
    undo: Steps | None = None
    if sel == "button[value=send]" and desktop:
        undo = (("goto", "/mail/sent"), ("click", "a.mail-row"), ("click", "button[value=trash]"))
    elif sel == "button[value=star]":
        undo = (("click", "button[value=unstar]"),)
    elif "star-btn" in sel:
        undo = (last,)  # the star is a toggle
    elif sel == "button[value=archive]" and name and desktop:
        undo = (("goto", "/mail/archive"), ("click", f"a.mail-row:has-text('{name}')"),
                ("click", "button[value=to_inbox]"))  # fmt: skip
    elif "button[value=trash]" in sel and ".file-row" in sel and name and desktop:
        undo = (("goto", "/drive/?view=trash"), ("click", f".file-row:has-text('{name}') button[value=restore]"))
    elif sel == "form button.primary" and "calendar" in inst.spec.apps and steps[0][1] == ".sidebar a.fab":
        undo = (("click", "button[value=delete]"),)  # a new event's page, right after saving it
    elif "button[value=join]" in sel:
        undo = (("click", "#leave-group"),)
    elif sel == "#add-to-cart" and desktop:
        undo = (("goto", "/shop/cart"), ("click", ".cline button[value=remove]"))
    return None if undo is None else (*steps, *undo, *_FINISH)


def _wrong_recipient(inst: Any, steps: Steps, surface: str, trace: Trace | None) -> Steps | None:
    """The oracle with the first address (or IBAN) it types replaced: another colleague's address, the IBAN
    with two digits changed. Everything else, the message and the amount, is right."""
    for i, s in enumerate(steps):
        if s[0] not in ("fill", "type") or len(s) < 3:
            continue
        if EMAIL.search(s[2]):
            wrong = EMAIL.sub(DECOY_ADDRESS, s[2], count=1)
        elif IBAN.search(s[2]):
            wrong = IBAN.sub(lambda m: wrong_value(m.group(0)), s[2], count=1)
        else:
            continue
        return (*steps[:i], (s[0], s[1], wrong), *steps[i + 1 :], *_FINISH)
    return None


def _banner_only(inst: Any, steps: Steps, surface: str, trace: Trace | None) -> Steps | None:
    """The oracle up to its last submit, then the page that submit led to (the URL the oracle's episode
    recorded, banner parameter and all) opened by typing it: the success banner shows, nothing was written."""
    if surface != "browser" or trace is None:
        return None
    after = next((u for u in reversed(trace.urls) if u and "flash=" in (urlsplit(u).query or "")), None)
    last = max((i for i, s in enumerate(steps) if s[0] == "click"), default=-1)
    if after is None or last < 0:
        return None
    parts = urlsplit(after)
    return (*steps[:last], ("goto", f"{parts.path}?{parts.query}"), *_CLAIMED)


def _partial_items(inst: Any, steps: Steps, surface: str, trace: Trace | None) -> Steps | None:
    """A task over several named items with the work on its last new item dropped (the steps from that
    item's pick to the end): every other item is done, with all the signs of it."""
    picks = [(i, m.group(1)) for i, s in enumerate(steps) if len(s) > 1 for m in [_HAS_TEXT.search(s[1])] if m]
    names = list(dict.fromkeys(n for _, n in picks))
    if len(names) < 2:
        return None
    cut = next(i for i, n in picks if n == names[-1])
    kept = steps[:cut]
    return (*kept, *_FINISH) if any(s[0] == "click" for s in steps[cut:]) and kept else None


def _lookalike(inst: Any, steps: Steps, surface: str, trace: Trace | None) -> Steps | None:
    """A mail task's action (star, archive, trash) done in Drive instead, on a document that carries the
    mail's subject as its name: the look-alike is made through Drive's own pages first."""
    name = _picked(steps)
    last = next((s for s in reversed(steps) if s[0] == "click"), None)
    if name is None or last is None or surface != "browser" or "'" in name:
        return None
    sel = last[1]
    doc = (("goto", "/drive/"), ("click", "details.newmenu summary"), ("click", "button[value=doc]"),
           ("fill", "input.doc-title", name), ("type", "textarea[name=text]", name),
           ("click", "form.editor button.primary"), ("goto", "/drive/"))  # fmt: skip
    row = f".file-row:has(a.fname:has-text('{name}'))"
    if "mail" in inst.spec.apps and sel in ("button[value=star]", "button[value=archive]"):
        return (*doc, ("click", f"{row} button.star-btn"), *_FINISH)
    if "mail" in inst.spec.apps and sel == "button[value=trash]":
        return (*doc, ("click", f"{row} button[value=trash]"), *_FINISH)
    return None


_ADVERSARIES = {
    "typed_claim": _typed_claim,
    "not_submitted": _not_submitted,
    "wrong_item": _wrong_item,
    "wrong_target": _wrong_target,
    "side_effect": _side_effect,
    "undone": _undone,
    "wrong_recipient": _wrong_recipient,
    "banner_only": _banner_only,
    "partial_items": _partial_items,
    "lookalike": _lookalike,
}
