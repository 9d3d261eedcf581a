"""The text venus-nano reads: normalisation and fuzzy containment for OCR'd text, hashed words, the hand-written
en/zh lexicon of UI vocabulary (`lexicon.toml`: "Permanently delete" and "Delete forever" share a concept), and the
typed values of the task text (entities: quoted strings, the text after a colon, e-mail addresses, IBANs, codes,
amounts, dates, times, numbers, names) and of screen lines (what an answer is made of).
"""

from __future__ import annotations

import functools
import re
import tomllib
import zlib
from dataclasses import dataclass
from importlib import resources

from venuskit.models.lexicon import (
    CODE_LIKE,
    DATE,
    EMAIL,
    HAN,
    HAN_CHAR,
    IBAN,
    QUOTE_MARKS,
    QUOTED,
    TIME,
    quoted_spans,
)

ENTITY_KINDS = ("quoted", "colon", "email", "iban", "code", "amount", "date", "time", "number", "name")
SCREEN_KINDS = ("s_amount", "s_email", "s_iban", "s_date", "s_time", "s_code", "s_number", "s_word")
ANSWER_KINDS = ("amount", "number", "email", "person", "date", "time", "code", "word")
BUCKETS = 4096  # hashed word vocabulary
MAX_WORDS = 12

_WORD = re.compile(f"[a-z0-9]+|[{HAN}]", re.I)
_NORM = re.compile(r"[\W_]+", re.U)
# A goal's words: what stands between spaces, quote marks and punctuation.
_GOAL_WORD = re.compile(f"[^\\s{re.escape(QUOTE_MARKS)}:：,，.。?？!！()（）、；;]+")
_AMOUNT = re.compile(r"[-+−]?(?:[€$£¥]\s?)?\d{1,3}(?:[,.\s]\d{3})*[.,]\d{2}(?:\s?(?:EUR|USD|€|欧元|元))?"
                     r"|[€$£¥]\s?\d+")  # fmt: skip
NUMBER = re.compile(r"\d[\d,.:/]*\d|\d")
_NAME = re.compile(r"\b[A-Z][a-z]+(?:\s+(?:[A-Z]\.\s?)?[A-Z][a-z]+)+|\b[A-Z]\.\s?[A-Z][a-z]+")
_UPPER_WORD = re.compile(r"\b[A-Z]{3,}\b")
_OPTION = re.compile(r"^(\d+)\.\s(.*)$")
_QUESTION = re.compile(r"\?|？|\b(how many|how much|what|which|who|when)\b|多少|什么|哪|谁|几", re.I)
_ARITH = re.compile(r"(\d+)\s*([+\-−×xX*÷/])\s*(\d+)")
STOP = frozenset([
    "the", "a", "an", "to", "of", "in", "on", "for", "and", "or", "with", "from", "your", "you", "it", "its",
    "is", "are", "be", "this", "that", "as", "at", "by", "me", "my", "them", "they", "so", "than", "then",
    "not", "any", "all", "do", "does", "did", "has", "have",
])


@functools.lru_cache(maxsize=1 << 16)
def norm(text: str) -> str:
    """Case-folded, with spaces and punctuation removed: OCR drops spaces ("Searchmail"), matching must not care."""
    return _NORM.sub("", text.casefold())


def words(text: str) -> list[str]:
    return [w.casefold() for w in _WORD.findall(text)]


def word_ids(text: str) -> list[int]:
    ids = [zlib.crc32(w.encode()) % (BUCKETS - 1) + 1 for w in words(text)[:MAX_WORDS]]
    return ids or [0]


@functools.lru_cache(maxsize=1 << 16)
def grams(text: str, n: int = 3) -> frozenset[str]:
    s = norm(text)
    if len(s) <= n:
        return frozenset({s}) if s else frozenset()
    return frozenset(s[i : i + n] for i in range(len(s) - n + 1))


@functools.lru_cache(maxsize=1 << 18)
def containment(small: str, big: str) -> float:
    """Share of `small`'s character trigrams found in `big`: fuzzy 'small is in big', robust to OCR slips."""
    ns = norm(small)
    if not ns:
        return 0.0
    if len(ns) <= 3:
        return float(ns in norm(big))
    a = grams(small)
    return len(a & grams(big)) / len(a)


# ---- the lexicon -------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Lexicon:
    concepts: dict[str, tuple[str, ...]]
    done: tuple[str, ...]
    questions: dict[str, tuple[str, ...]]
    consequential: dict[str, tuple[str, ...]]  # the action check's words (`models.nano.guard`), by concept


@functools.cache
def lexicon() -> Lexicon:
    raw = tomllib.loads(resources.files("venuskit.models.nano").joinpath("lexicon.toml").read_text("utf-8"))
    return Lexicon({k: tuple(v) for k, v in raw["concepts"].items()}, tuple(raw["done"]["words"]),
                   {k: tuple(v) for k, v in raw["questions"].items()},
                   {k: tuple(v) for k, v in raw["consequential"].items()})  # fmt: skip


_VERB_NOUN = ("s", "ed", "ing", "er", "ers")
_ADVERB = ("ly", "ful", "fully")  # permanent -> permanently, success -> successful; only for words of 4+ letters


@functools.lru_cache(maxsize=1 << 12)
def inflections(form: str) -> frozenset[str]:
    """A word's regular English inflections: "star" -> stars, starred, starring; "delete" -> deleted, deleting;
    "reply" -> replies, replied. Only these, so "start" is not a star, "ready" not read and "only" not on, which a
    match on any word that starts with the form (as before) let through."""
    out = {form, *(form + x for x in _VERB_NOUN)}
    if len(form) >= 4:
        out.update(form + x for x in _ADVERB)
    if form.endswith(("s", "x", "z", "ch", "sh")):
        out.add(form + "es")  # search -> searches
    if form.endswith("e"):
        out.update(form[:-1] + x for x in ("ing", "ed", "er", "ers"))  # delete -> deleting
    if len(form) > 2 and form[-1] == "y" and form[-2] not in "aeiou":
        out.update(form[:-1] + x for x in ("ies", "ied", "ier"))  # reply -> replies, replied
    if len(form) >= 3 and form[-1] not in "aeiouwxy" and form[-2] in "aeiou" and form[-3] not in "aeiou":
        out.update(form + form[-1] + x for x in ("ed", "ing", "er"))  # star -> starred, stop -> stopping
    return frozenset(out)


def _has_form(text: str, low: str, toks: list[str], form: str) -> bool:
    if HAN_CHAR.search(form):
        return form in text
    if " " in form:
        return form in low
    forms = inflections(form)
    return any(t in forms for t in toks)


@functools.lru_cache(maxsize=1 << 16)
def concepts(text: str) -> frozenset[str]:
    """The lexicon groups whose words occur in `text`."""
    low = text.casefold()
    toks = re.findall(r"[a-z]+", low)
    return frozenset(c for c, forms in lexicon().concepts.items() if any(_has_form(text, low, toks, f) for f in forms))


@functools.lru_cache(maxsize=1 << 14)
def first_concept(text: str) -> str | None:
    """The group of a label's first word (its verb: "Delete forever" -> delete)."""
    toks = words(text)
    if not toks:
        return None
    head = toks[0] if not HAN_CHAR.match(toks[0]) else text.strip()[:2]
    found = concepts(head)
    return min(found) if found else None


def says_done(text: str) -> bool:
    low = text.casefold()
    toks = re.findall(r"[a-z]+", low)
    return any(_has_form(text, low, toks, f) for f in lexicon().done)


# ---- the task text -----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Entity:
    text: str
    kind: str  # one of ENTITY_KINDS
    start: int  # character offset in the goal


def goal_entities(goal: str) -> list[Entity]:
    """The values a task names: quoted strings, the text after a colon, e-mail addresses, IBANs, codes, amounts,
    dates, times, numbers and capitalised names — what gets typed, clicked or checked."""
    out: list[Entity] = []
    out += [Entity(text.strip(), "quoted", start) for text, start in quoted_spans(goal)]
    for sep in (": ", "："):
        if sep in goal:
            at = goal.index(sep) + len(sep)
            tail = goal[at:].strip()
            if tail and not QUOTED.fullmatch(tail):
                out.append(Entity(tail, "colon", at))
    taken: list[tuple[int, int]] = []
    for kind, rx in (("email", EMAIL), ("iban", IBAN), ("code", CODE_LIKE), ("amount", _AMOUNT), ("date", DATE),
                     ("time", TIME), ("number", NUMBER), ("name", _NAME)):  # fmt: skip
        for m in rx.finditer(goal):
            span = (m.start(), m.end())
            if any(a <= span[0] < b or a < span[1] <= b for a, b in taken):
                continue  # part of a longer entity found before (the digits of an IBAN)
            text = m.group(0).strip().rstrip(".")
            if kind == "name" and (m.start() == 0 or goal[: m.start()].rstrip().endswith((".", ":"))):
                text = text.split(" ", 1)[1] if " " in text else ""  # a sentence's first word is capitalised anyway
                if not text:
                    continue
            taken.append(span)
            out.append(Entity(text, kind, m.start()))
    seen: set[tuple[str, str]] = set()
    uniq = []
    for e in out:
        key = (norm(e.text), e.kind)
        if key[0] and key not in seen:
            seen.add(key)
            uniq.append(e)
    return uniq


def goal_words(goal: str) -> list[tuple[str, int]]:
    """Content words of the goal (and 2-4 character pieces of Chinese runs) with their offsets."""
    out = [(m.group(0), m.start()) for m in _GOAL_WORD.finditer(goal)
           if len(norm(m.group(0))) >= 2 and m.group(0).casefold() not in STOP]  # fmt: skip
    for m in re.finditer(r"[\u3400-\u9fff]+", goal):
        run = m.group(0)
        for n in (2, 3, 4):
            out += [(run[i : i + n], m.start() + i) for i in range(len(run) - n + 1)]
    return out


def answer_kind(goal: str) -> str | None:
    """The kind of answer a question asks for (None: not a question)."""
    if not _QUESTION.search(goal):
        return None
    low = goal.casefold()
    for kind in ("email", "amount", "time", "date", "code", "number", "person", "word"):
        if any(f in low for f in lexicon().questions.get(kind, ())):
            return kind
    return "word"


def options_of(feedback: str | None) -> list[tuple[int, str]]:
    """(index, label) of the <select> options the harness listed in its feedback."""
    if not feedback or "Available options" not in feedback:
        return []
    tail = feedback.split("Available options for the select element:", 1)[-1]
    out = []
    for line in tail.strip().splitlines():
        m = _OPTION.match(line.strip())
        if not m:
            break
        out.append((int(m.group(1)), m.group(2).strip()))
    return out


def screen_entities(text: str) -> list[tuple[str, str]]:
    """(value, kind) of the typed values inside one screen line (what an answer is made of)."""
    out = []
    taken: list[tuple[int, int]] = []
    for kind, rx in (("s_email", EMAIL), ("s_iban", IBAN), ("s_amount", _AMOUNT), ("s_date", DATE),
                     ("s_time", TIME), ("s_code", CODE_LIKE), ("s_number", NUMBER),
                     ("s_word", _UPPER_WORD)):  # fmt: skip
        for m in rx.finditer(text):
            if any(a <= m.start() < b for a, b in taken):
                continue  # inside a longer value (the digits of an amount, the country code of an IBAN)
            taken.append((m.start(), m.end()))
            out.append((m.group(0).strip(), kind))
    for m in re.finditer(r"(?:^|[:：]\s*)([^:：]{1,40})$", text):  # the value after a "Label:" prefix
        if m.start(1) > 0:
            out.append((m.group(1).strip(), "s_word"))
    return [(v, k) for v, k in out if v]


def computed(text: str) -> list[str]:
    """Results of the simple arithmetic a screen line shows ("12 + 7 = ?" -> "19")."""
    out = []
    for a, op, b in _ARITH.findall(text):
        x, y = int(a), int(b)
        val = {"+": x + y, "-": x - y, "−": x - y, "×": x * y, "x": x * y, "X": x * y, "*": x * y}.get(op)
        if op in "÷/" and y and x % y == 0:
            val = x // y
        if val is not None:
            out.append(str(val))
    return out
