"""What venus-nano sees: the screen read into candidates, the task text cut into entities, its own history, and the
relational features that join them.

Why relational features: a pixels-only pointer trained here matched word *length*, not spelling (the feasibility
note). So reading is explicit — read elements are the candidate targets — and what transfers to task templates no
training run has seen is *matching*, never a template id:

- entities of the task text (quoted strings, the text after a colon, e-mail addresses, IBANs, codes, amounts, dates,
  times, numbers, names) against each element's text, its row, its container and its label;
- the task's words and their meaning (a hand-written en/zh lexicon of UI vocabulary, `lexicon.toml`) against a
  control's label, so "Permanently delete" finds "Delete forever" and "退出小组" finds the leave button;
- the agent's own history read back from its earlier screenshots: what it clicked (the text under each click),
  what it typed, which entities are used, whether its last action changed the screen;
- for answers, screen entities typed by a regex (amount, e-mail, date, time, code, number) scored by the kind of
  answer the question asks for and by their nearness to lines that match the question.

Inputs are only what a model may see: the screenshots (current and earlier), the task text, the agent's own
earlier actions and the harness's feedback text (errors, <select> options). No DOM, no accessibility tree.

Modules: entities (the text), candidates (the screen), history (the agent's own actions read back); this module
joins them into one decision's numbers.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

import numpy as np

from venuskit.actions.types import Action, Click, DoubleClick, LongPress
from venuskit.models.lexicon import HAN_CHAR
from venuskit.models.nano.action_types import SURFACES, TYPES
from venuskit.models.nano.candidates import (
    CAND_KINDS,
    ICON_PX,
    Candidate,
    candidates,
    containers,
    icon_patch,
    label_of,
    page_instruction,
    row_mates,
    under,
    visual,
)
from venuskit.models.nano.done import acts_of, bound_answers, done_evidence, unwritten
from venuskit.models.nano.entities import (
    ANSWER_KINDS,
    ENTITY_KINDS,
    NUMBER,
    SCREEN_KINDS,
    STOP,
    answer_kind,
    computed,
    concepts,
    containment,
    first_concept,
    goal_entities,
    goal_words,
    norm,
    options_of,
    says_done,
    screen_entities,
    word_ids,
    words,
)
from venuskit.models.nano.guard import unasked, with_glyphs
from venuskit.models.nano.history import Past, history_types, used_entities
from venuskit.models.nano.icons import MIN_PROB, OTHER, default_namer, namer_version, words_of
from venuskit.models.nano.reader import Screen, read_scale

TEXT_SOURCES = ("done", *ENTITY_KINDS, "word", "screen", *SCREEN_KINDS, "option", "computed")
VERSION = 12  # bump when features change: cached features of an older version are recomputed (10: unwritten text,
# questions ask for nothing consequential; 11: the action check holds back making something new; 12: and what the
# goal refuses or defers; the done check reads no refused verb, nor a toggle of another item action's icon)


def version() -> str:
    """What cached features depend on: this module's VERSION and the icon namer's weights."""
    return f"{VERSION}+{namer_version()}"


@dataclass
class NanoInput:
    """Everything venus-nano may look at for one decision."""

    png: bytes
    goal: str
    surface: str = "browser"
    history: list[Action] = field(default_factory=list)  # its own earlier actions, oldest first
    feedback: str | None = None  # the harness's text before this screenshot (errors, options, notes)
    history_pngs: list[bytes | None] = field(default_factory=list)  # the screenshot each earlier action was taken on


@dataclass
class TextOption:
    text: str
    source: str  # one of TEXT_SOURCES
    index: int | None = None  # SelectOption index
    line: int | None = None  # the candidate (a text line) a value was read from


@dataclass
class Features:
    """Numeric features of one decision, plus what is needed to turn a choice back into an action."""

    size: tuple[int, int]
    cands: list[Candidate]
    cand_x: np.ndarray  # (N, CAND_DIM)
    cand_words: list[list[int]]
    icons: np.ndarray  # (K, ICON_PX, ICON_PX) float16: the patches of the icon candidates
    icon_index: list[int]  # which candidates the patches belong to
    goal_words: list[int]
    state: np.ndarray  # (STATE_DIM,)
    texts: list[TextOption]
    text_x: np.ndarray  # (M, TEXT_DIM)
    # The done check (`models.nano.done`): why Finished is warranted now, "" when nothing on screen says so, None
    # when it does not apply (a question, CAPTCHA, grounding; features cached before the check existed).
    done_evidence: str | None = None
    asks_answer: bool = False  # the goal is a question: Finished carries a value, never "Done."
    answer_kind: str | None = None  # what it asks for (`entities.answer_kind`): the done check's shape of the answer
    # The action check (`models.nano.guard`): candidates whose label or icon commits an action the goal does not ask
    # for; the pointer head is not offered them.
    unasked: list[int] = field(default_factory=list)
    # A question's answers read inside the region (a list row, a card) that shows its subject (`done.bound_answers`);
    # None when no line on screen names the subject.
    bound: list[int] | None = None


def _onehot(value: str | None, kinds: Sequence[str]) -> list[float]:
    return [float(value == k) for k in kinds]


# ---- matching the goal ----------------------------------------------------------------------------------

MATCH_NAMES = ("ent_quoted", "ent_email", "ent_code", "ent_amount_date", "ent_name", "exact", "part_of_entity",
               "in_goal", "word_frac", "trigram", "concept_any", "concept_frac", "verb_in_goal",
               "entity_used")  # fmt: skip
MATCH_DIM = len(MATCH_NAMES)
_GROUPS = {"quoted": 0, "colon": 0, "email": 1, "iban": 2, "code": 2, "number": 2, "amount": 3, "date": 3, "time": 3,
           "name": 4}  # fmt: skip


class Goal:
    """The task text, parsed once per decision, and its matches against any screen text."""

    def __init__(self, goal: str, used: set[str] | None = None) -> None:
        self.text = goal
        self.gnorm = norm(goal)
        self.entities = goal_entities(goal)
        self.words = goal_words(goal)
        self.wordset = {w.casefold() for w, _ in self.words} | set(words(goal))
        self.concepts = concepts(goal)
        self.answer = answer_kind(goal)
        self.used = used or set()  # norm() of entities already typed or clicked
        self._cache: dict[str, list[float]] = {}

    def match(self, text: str) -> list[float]:
        if text not in self._cache:
            self._cache[text] = self._match(text)
        return self._cache[text]

    def _match(self, text: str) -> list[float]:
        t = norm(text)
        if not t:
            return [0.0] * MATCH_DIM
        groups = [0.0] * 5
        best, best_e = 0.0, None
        exact = part = 0.0
        for e in self.entities:
            c = containment(e.text, text)
            g = _GROUPS[e.kind]
            groups[g] = max(groups[g], c)
            if c > best:
                best, best_e = c, e
            ne = norm(e.text)
            exact = max(exact, float(ne == t))
            part = max(part, float(len(t) >= 3 and t in ne))
        lw = words(text)
        in_goal = float(len(t) >= 2 and t in self.gnorm)
        word_frac = sum(w in self.wordset for w in lw) / len(lw) if lw else 0.0
        cs = concepts(text)
        shared = cs & self.concepts
        verb = first_concept(text)
        used = float(best >= 0.8 and best_e is not None and norm(best_e.text) in self.used)
        return [*groups, exact, part, in_goal, word_frac, containment(text, self.text), float(bool(shared)),
                len(shared) / max(1, len(cs)), float(verb is not None and verb in self.concepts), used]  # fmt: skip


# ---- one decision's features ------------------------------------------------------------------------------

GEO_NAMES = ("cx", "cy", "w", "h", "area", *(f"kind_{k}" for k in CAND_KINDS), "text_len", "numeric", "cjk",
             "sidebar", "topbar", "bottom", "height_rel", "row_size", "has_text", "mean_b", "mean_g", "mean_r",
             "std", "saturated", "dark", "bias")  # fmt: skip
HIST_NAMES = ("clicked_n", "last_click_in", "typed_in", "text_clicked_before", "new_on_screen", "dx_last", "dy_last",
              "same_row_last", "label_used", "container_clicked")  # fmt: skip
CAND_DIM = 5 * MATCH_DIM + len(GEO_NAMES) + len(HIST_NAMES)  # own, row, container, label, icon name
ICON_NAME_COLS = range(4 * MATCH_DIM, 5 * MATCH_DIM)  # the icon-name block (a network reads it when configured to)


def build(inp: NanoInput, screen: Screen, past: Past | None = None) -> Features:
    """The features of one decision from the input, its read screen and its read-back history."""
    past = past or Past([], [], [], None)
    w, h = screen.width, screen.height
    goal = page_instruction(screen) or inp.goal if inp.surface == "captcha" else inp.goal
    g = Goal(goal, used_entities(goal_entities(goal), past))
    cands = candidates(screen)
    n = len(cands)
    own = [g.match(c.text) for c in cands]
    rows = row_mates(cands)
    boxes = {i: c.box for i, c in enumerate(cands)}
    container = containers(cands)
    prev_texts = {norm(e.text) for e in past.prev.lines if e.text} if past.prev else None
    clicked_norm = {norm(t) for t in past.clicked if t}
    last_click = past.clicks[-1] if past.clicks else None
    heights = [c.box[3] - c.box[1] for c in cands if c.kind == "text"]
    med_h = float(np.median(heights)) if heights else 16.0
    zero = [0.0] * MATCH_DIM
    icon_index = [i for i, c in enumerate(cands) if c.kind == "icon"]
    icons = np.stack([icon_patch(screen.gray, cands[i].box) for i in icon_index]).astype(np.float16) if icon_index \
        else np.zeros((0, ICON_PX, ICON_PX), np.float16)  # fmt: skip
    names = _icon_names(icon_index, icons)
    named = {i: [p * v for v in g.match(words_of(name))] for i, (name, p) in names.items()}
    x_rows = []
    for i, c in enumerate(cands):
        row = [max((own[j][k] for j in rows[i]), default=0.0) for k in range(MATCH_DIM)]
        k = container[i]
        cont = g.match(cands[k].text) if k is not None else zero
        label_text = label_of(screen, c.box) if c.kind in ("region", "icon", "cell") or not c.text else ""
        label = g.match(label_text) if label_text else zero
        x1, y1, x2, y2 = c.box
        cx, cy = (x1 + x2) / 2 / w, (y1 + y2) / 2 / h
        geo = [cx, cy, (x2 - x1) / w, (y2 - y1) / h, (x2 - x1) * (y2 - y1) / (w * h) * 20,
               *_onehot(c.kind, CAND_KINDS),
               min(len(c.text), 60) / 60, float(bool(NUMBER.fullmatch(c.text.replace(" ", "")))),
               float(bool(HAN_CHAR.search(c.text))), float(cx < 0.23), float((y1 + y2) / 2 < 64 / read_scale(w, h)),
               float(cy > 0.9), min((y2 - y1) / med_h, 4.0) / 4 if c.kind == "text" else 0.0, len(rows[i]) / 10,
               float(bool(c.text)), *visual(screen, c.box), 1.0]  # fmt: skip
        inside = [(x1 - 4 <= px * w <= x2 + 4 and y1 - 4 <= py * h <= y2 + 4) for px, py in past.clicks]
        typed_in = max((float(len(norm(t)) >= 3 and norm(t)[:24] in norm(c.text)) for t in past.typed), default=0.0)
        dx = (cx - last_click[0]) if last_click else 0.0
        dy = (cy - last_click[1]) if last_click else 0.0
        nc = norm(c.text)
        new = float(prev_texts is not None and bool(nc) and nc not in prev_texts)
        cont_clicked = float(k is not None and any(x1b <= px * w <= x2b and y1b <= py * h <= y2b
                                                   for px, py in past.clicks
                                                   for x1b, y1b, x2b, y2b in [boxes[k]]))  # fmt: skip
        hist = [min(sum(inside), 3) / 3, float(bool(inside) and inside[-1]), typed_in,
                float(bool(nc) and nc in clicked_norm), new, dx, dy, float(abs(dy) < 0.02 and last_click is not None),
                float(bool(label_text) and norm(label_text) in clicked_norm), cont_clicked]  # fmt: skip
        x_rows.append(own[i] + row + cont + label + named.get(i, zero) + geo + hist)
    cand_x = np.asarray(x_rows, np.float16).reshape(n, CAND_DIM)  # float16: features are cached by the thousand
    texts, text_x = _text_options(inp, g, cands, own, rows, container, past, screen)
    state = _state(inp, g, cands, own, past, screen, text_x, texts)
    evidence = None
    if inp.surface in ("browser", "mobile") and g.answer is None:
        last = inp.history[-1] if inp.history else None
        evidence = done_evidence(goal, screen, past, past.clicks[-1] if _is_click(last) else None,
                                 _clicked_icon(past) if _is_click(last) else "")  # fmt: skip
    # What each candidate says it does, for the action check: its text and its icon's name ("trash delete").
    labels = [" ".join(filter(None, (c.text, words_of(names[i][0]) if i in names else ""))) for i, c in
              enumerate(cands)]  # fmt: skip
    held: list[int] = []
    if inp.surface in ("browser", "mobile"):
        unsent = unwritten(goal, past.typed, [line.text for line in screen.lines])
        held = with_glyphs(unasked(goal, labels, g.answer is not None, unsent), labels, container)
    bound = bound_answers(g.entities, cands, texts, g.answer) if g.answer is not None else None
    return Features((w, h), cands, cand_x, [word_ids(c.text) for c in cands], icons, icon_index, word_ids(goal),
                    state, texts, text_x, evidence, g.answer is not None, g.answer, held, bound)  # fmt: skip


def _icon_names(index: list[int], patches: np.ndarray) -> dict[int, tuple[str, float]]:
    """The icon candidates the namer names (`models.nano.icons`), with the name's probability. Their features are
    the goal's match against the name's words scaled by it ("star the message" against a star icon)."""
    namer = default_namer()
    if namer is None or not index:
        return {}
    named = zip(index, namer.name(patches.astype(np.float32)), strict=True)
    return {i: (name, p) for i, (name, p) in named if name != OTHER and p >= MIN_PROB}


def _clicked_icon(past: Past) -> str:
    """The namer's words for the icon the last click landed on, read on the screen it was taken on: an icon, or a
    glyph the reader took for text ("★"). "" when it landed on a label or the namer names nothing."""
    if past.prev is None or not past.clicks:
        return ""
    el = under(past.prev, *past.clicks[-1])
    if el is None or not (el.kind == "icon" or (len(el.text.strip()) <= 2 and not re.search(r"\w", el.text))):
        return ""
    names = _icon_names([0], icon_patch(past.prev.gray, el.box)[None])
    return words_of(names[0][0]) if names else ""


def _is_click(action: Action | None) -> bool:
    return isinstance(action, (Click, DoubleClick, LongPress)) and getattr(action, "point", None) is not None


# ---- what changed on screen, held against the goal (the done decision) ----------------------------------------

DONE_NAMES = ("done_goal_verb", "done_other_verb", "done_entity", "new_goal_verb", "new_other_verb", "new_entity",
              "new_lines")  # fmt: skip


def _changes(g: Goal, cands: list[Candidate], past: Past) -> list[float]:
    """Whether what changed on screen matches the goal's verb and objects, not merely that something succeeded: a
    new done-like line (a flash) whose action is one the goal asks for, one it does not ask for ("File moved to
    Trash" when asked to star), one that names a goal entity; the same over every line new since the last screen.
    Finished should follow the first kind, never the second."""
    before = {norm(e.text) for e in past.prev.lines if e.text} if past.prev is not None else set()
    new = [c.text for c in cands if c.kind == "text" and c.text and len(c.text) <= 80 and norm(c.text) not in before]
    flashes = [t for t in new if says_done(t)]
    asked = acts_of(g.text)

    def verbs(texts: list[str]) -> tuple[float, float, float]:
        acts = [acts_of(t) for t in texts]
        goal_verb = any(a & asked for a in acts)
        other = any(a - asked for a in acts)
        entity = any(max((containment(e.text, t) for e in g.entities), default=0.0) >= 0.8 for t in texts)
        return float(goal_verb), float(other), float(entity)

    if past.prev is None:  # the first screen: nothing has changed yet
        return [0.0] * len(DONE_NAMES)
    return [*verbs(flashes), *verbs(new), min(len(new), 10) / 10]


# ---- the decision's state ---------------------------------------------------------------------------------

STATE_NAMES = (*(f"surface_{s}" for s in SURFACES), *(f"last_{t}" for t in (*TYPES, "none")),
               *(f"prev_{t}" for t in (*TYPES, "none")), *(f"answer_{k}" for k in (*ANSWER_KINDS, "none")),
               "steps", "typed_any", "clicks", "exec_failed", "options", "has_quoted", "has_colon", "has_email",
               "question", "entities", "entities_used", "unused_visible", "best_exact", "best_unclicked_entity",
               "screen_same", "has_prev", "done_visible", "done_new", "since_type", "cands", "last_click_region",
               "last_click_text", "last_click_icon", "best_answer", "last_clicked_verb", "all_used",
               *DONE_NAMES)  # fmt: skip
STATE_DIM = len(STATE_NAMES)


def _state(inp: NanoInput, g: Goal, cands: list[Candidate], own: list[list[float]], past: Past, screen: Screen,
           text_x: np.ndarray, texts: list[TextOption]) -> np.ndarray:  # fmt: skip
    kinds = history_types(inp.history)
    last = _onehot(kinds[-1] if kinds else "none", (*TYPES, "none"))
    prev = _onehot(kinds[-2] if len(kinds) > 1 else "none", (*TYPES, "none"))
    since_type = next((i for i, k in enumerate(reversed(kinds)) if k == "Type"), 6)
    fb = inp.feedback or ""
    ents = g.entities
    n_used = sum(norm(e.text) in g.used for e in ents)
    unused_visible = max((o[0] if max(o[0], o[1], o[2], o[3], o[4]) >= 0.8 and not o[13] else 0.0 for o in own),
                         default=0.0)  # fmt: skip
    texts_now = {norm(c.text) for c in cands if c.text and c.kind != "region"}
    if past.prev is not None:
        before = {norm(e.text) for e in past.prev.lines if e.text}
        same = len(before & texts_now) / max(1, len(before | texts_now))
    else:
        same = 0.0
    done_lines = [c.text for c in cands if c.kind == "text" and c.text and says_done(c.text) and len(c.text) <= 60]
    done_new = any(
        norm(t) not in ({norm(e.text) for e in past.prev.lines} if past.prev else set()) for t in done_lines
    )
    ans = text_x[:, _TEXT_COL["answer_fit"]] * text_x[:, _TEXT_COL["near_keyword"]] if len(texts) else np.zeros(1)
    last_verb = float(bool(past.clicked) and first_concept(past.clicked[-1] or "") in g.concepts)
    extra = [min(len(inp.history), 12) / 12, float(bool(past.typed)), min(len(past.clicks), 10) / 10,
             float("execution failed" in fb or "error" in fb.casefold()), float(bool(options_of(fb))),
             float(any(e.kind == "quoted" for e in ents)), float(any(e.kind == "colon" for e in ents)),
             float(any(e.kind == "email" for e in ents)), float(g.answer is not None), min(len(ents), 6) / 6,
             n_used / max(1, len(ents)), unused_visible, max((o[5] for o in own), default=0.0),
             max((o[0] for o in own if not o[13]), default=0.0), same, float(past.prev is not None),
             float(bool(done_lines)), float(done_new), min(since_type, 6) / 6, min(len(cands), 200) / 200,
             float(past.last_click_kind == "region"), float(past.last_click_kind == "text"),
             float(past.last_click_kind == "icon"), float(ans.max()) if len(ans) else 0.0, last_verb,
             float(bool(ents) and n_used == len(ents)), *_changes(g, cands, past)]  # fmt: skip
    vec = _onehot(inp.surface, SURFACES) + last + prev + _onehot(g.answer or "none", (*ANSWER_KINDS, "none")) + extra
    return np.asarray(vec, np.float32)


# ---- text options (Type content, answers, <select> options) -----------------------------------------------

TEXT_FEATS = ("typed_exact", "typed_part", "unused_rank", "goal_pos", "label_affinity", "first_unused", "answer_fit",
              "near_keyword", "row_match", "on_screen", "in_goal", "length", "n_words", "digit", "currency", "cy",
              "cx", "main_area", "height_rel", "period", "option_match", "kind_used", "key_asked", "line_asked",
              "column_asked", "is_key")  # fmt: skip
_TEXT_COL = {n: len(TEXT_SOURCES) + MATCH_DIM + i for i, n in enumerate(TEXT_FEATS)}
TEXT_DIM = len(TEXT_SOURCES) + MATCH_DIM + len(TEXT_FEATS)
_FITS = {"amount": ("s_amount",), "number": ("s_number", "computed"), "email": ("s_email",),
         "person": ("screen", "s_word", "s_email"), "date": ("s_date",), "time": ("s_time",),
         "code": ("s_code", "s_number", "s_iban"), "word": ("s_word", "screen")}  # fmt: skip


# The words every question is framed in: they say that something is asked, not what.
_FRAME = frozenset(["which", "what", "who", "whom", "when", "where", "how", "many", "much", "answer", "please",
                    "reply", "请", "回", "答", "多", "少", "几", "什", "么", "哪", "谁", "是", "的"])  # fmt: skip


@dataclass
class _Bindings:
    """A question's label-value pairs on screen: how much of each text line's key, column header and own line the
    question asks about, and which lines are keys (an answer is a key's value, not the key)."""

    asked: frozenset[str] = frozenset()  # the question's own words ("category", "status", "剩", "件")
    key: dict[int, float] = field(default_factory=dict)
    column: dict[int, float] = field(default_factory=dict)
    keys: set[int] = field(default_factory=set)

    def score(self, text: str) -> float:
        """How much of `text` the question's own words name: "Category", "Stat." for status, "Cc" for copied."""
        ws = [w for w in words(text) if w not in STOP]
        if not ws or not self.asked:
            return 0.0
        return max(sum(w in self.asked for w in ws) / len(ws), containment(text, self.joined),
                   float(bool(concepts(text) & concepts(self.joined))))  # fmt: skip

    @functools.cached_property
    def joined(self) -> str:  # the asked words as one text, for trigram containment and concepts
        return " ".join(sorted(self.asked))


def _asked_words(g: Goal) -> frozenset[str]:
    """The goal's words outside its entities, its first word and its names (runs of capitalised words)."""
    spans = [(e.start, e.start + len(e.text)) for e in g.entities]
    caps = {m.start() for m in re.finditer(r"\b[A-Z][\w'’]*(?:\s+[A-Z][\w'’]*)+", g.text)}
    caps |= {m.start() for m in re.finditer(r"(?<=\s)[A-Z][\w'’]*\s+([A-Z][\w'’]*)", g.text)}
    first = min((at for _, at in g.words), default=-1)
    out = set()
    for w, at in g.words:
        if at == first or any(a <= at < b for a, b in spans) or (w[:1].isupper() and (at in caps or w.isupper())):
            continue
        out.update(words(w))
    return frozenset(out - _FRAME)


def _bindings(g: Goal, cands: list[Candidate], rows: list[list[int]], container: list[int | None]) -> _Bindings:
    """For a question, each text line's key (the nearest text left of it on its line, in the same container: the
    "Category" of "Category  Pets") and its column's header (the top of the run of lines stacked right above it).
    Empty for other goals, which never answer."""
    if g.answer is None:
        return _Bindings()
    out = _Bindings(_asked_words(g))
    text = [i for i, c in enumerate(cands) if c.kind == "text" and len(norm(c.text)) >= 2]
    is_text = set(text)
    above: dict[int, int | None] = {}
    top: dict[int, int] = {}
    for i in text:
        x1, y1, x2, y2 = cands[i].box
        cy, tol = (y1 + y2) / 2, max(3.0, (y2 - y1) / 4)  # a key sits on its value's line
        left = [j for j in rows[i] if j in is_text and container[j] == container[i] and 0 <= x1 - cands[j].box[2] < 250
                and abs((cands[j].box[1] + cands[j].box[3]) / 2 - cy) <= tol]  # fmt: skip
        if left:
            j = max(left, key=lambda j: cands[j].box[2])
            out.key[i] = out.score(cands[j].text)
            out.keys.add(j)
        # The column's header: the top of the run of lines stacked right above (a table's cells, then its head).
        up = [j for j in text if cands[j].box[1] < y1 and 0 <= y1 - cands[j].box[3] < max(12, y2 - y1)
              and cands[j].box[0] < x2 and cands[j].box[2] > x1]  # fmt: skip
        above[i] = max(up, key=lambda j: cands[j].box[3]) if up else None
    for i in sorted(text, key=lambda i: cands[i].box[1]):  # top-down, so each line's run above is known
        j = above[i]
        top[i] = i if j is None else top[j]
        out.column[i] = out.score(cands[top[i]].text) if top[i] != i else 0.0
    return out


def _focus_label(screen: Screen, past: Past) -> str:
    """The label of the field the last click landed on (what is being filled in now)."""
    if not past.clicks or past.prev is None:
        return ""
    el = under(past.prev, *past.clicks[-1])
    if el is None:
        return ""
    label = label_of(past.prev, el.box)
    return label or (el.text if el.kind != "text" else el.text)


def _text_options(inp: NanoInput, g: Goal, cands: list[Candidate], own: list[list[float]], rows: list[list[int]],
                  container: list[int | None], past: Past, screen: Screen
                  ) -> tuple[list[TextOption], np.ndarray]:  # fmt: skip
    opts: list[TextOption] = [TextOption("Done.", "done")]
    opts += [TextOption(e.text, e.kind) for e in g.entities]
    seen = {norm(o.text) for o in opts}
    for wtext, _ in g.words:
        if norm(wtext) not in seen:
            seen.add(norm(wtext))
            opts.append(TextOption(wtext, "word"))
    line_of: dict[str, int] = {}
    for i, c in enumerate(cands):
        if c.kind not in ("text", "icon") or not norm(c.text) or len(c.text) > 80:
            continue
        found = screen_entities(c.text) + [(c.text, "screen")] + [(v, "computed") for v in computed(c.text)]
        bare = "".join(ch for ch in c.text if ch.isalnum())
        if inp.surface == "captcha" and 3 <= len(bare) < len(c.text):
            found.append((bare, "screen"))  # distorted text read with specks of noise: its letters alone
        for value, source in found:
            if norm(value) and norm(value) not in seen:
                seen.add(norm(value))
                opts.append(TextOption(value, source, None, i))
                line_of[norm(value)] = i
    opts += [TextOption(label, "option", index) for index, label in options_of(inp.feedback)]
    screen_norm = [norm(c.text) for c in cands if c.text and c.kind != "region"]
    typed_n = [norm(t) for t in past.typed]
    ent_order = [norm(e.text) for e in sorted(g.entities, key=lambda e: e.start) if e.kind not in ("number",)]
    unused = [e for e in ent_order if e not in g.used]
    focus = _focus_label(screen, past)
    heights = [c.box[3] - c.box[1] for c in cands if c.kind == "text"]
    med_h = float(np.median(heights)) if heights else 16.0
    w, h = screen.width, screen.height
    kw_lines = {i for i, o in enumerate(own) if max(o[0:5]) >= 0.8 or o[8] >= 0.5 or o[10] > 0}
    bind = _bindings(g, cands, rows, container)
    out = []
    for o in opts:
        nt = norm(o.text)
        is_ent = o.source in ENTITY_KINDS
        start = next((e.start for e in g.entities if norm(e.text) == nt), None)
        before = g.text[max(0, start - 40) : start] if start is not None else ""
        affinity = max(containment(focus, before), containment(before[-12:], focus)) if focus and before else 0.0
        i = line_of.get(nt)
        cand = cands[i] if i is not None else None
        near = 0.0
        row = 0.0
        if i is not None:
            row = max((max(own[j][0:5] + own[j][10:11]) for j in rows[i]), default=0.0)
            cx1, cy1, cx2, cy2 = cand.box  # type: ignore[union-attr]
            for j in kw_lines:
                if j == i:
                    continue
                bx1, by1, bx2, by2 = cands[j].box
                same_row = abs((by1 + by2) - (cy1 + cy2)) / 2 <= max(8, (cy2 - cy1) / 2)
                below = 0 <= cy1 - by2 <= 60 and bx1 - 20 <= cx1 <= bx2 + 20
                if same_row or below:
                    near = 1.0
                    break
            near = max(near, float(i in kw_lines and o.source != "screen"))
        fits = _FITS.get(g.answer or "", ())
        lm = g.match(o.text) if o.source in ("screen", "option", *SCREEN_KINDS) else [0.0] * MATCH_DIM
        cy = ((cand.box[1] + cand.box[3]) / 2 / h) if cand else 0.0
        cx = ((cand.box[0] + cand.box[2]) / 2 / w) if cand else 0.0
        feats = [float(nt in typed_n), float(any(nt and (nt in t or t in nt) for t in typed_n if t)),
                 (unused.index(nt) / 5 if nt in unused else 1.0) if is_ent else 0.0,
                 start / max(1, len(g.text)) if start is not None else 0.0, affinity,
                 float(bool(unused) and nt == unused[0]), float(o.source in fits), near, row,
                 float(bool(nt) and any(nt in s for s in screen_norm)), float(bool(nt) and nt in g.gnorm),
                 min(len(o.text), 80) / 80, min(len(words(o.text)), 12) / 12, float(bool(re.search(r"\d", o.text))),
                 float(bool(re.search(r"[$€£¥]|EUR|USD|元", o.text))), cy, cx, float(cx > 0.23),
                 min((cand.box[3] - cand.box[1]) / med_h, 4.0) / 4 if cand else 0.0,
                 float(o.text.endswith((".", "。"))),
                 containment(o.text, g.text) if o.source == "option" else 0.0,
                 float(is_ent and nt in g.used),
                 bind.key.get(i, 0.0) if i is not None else 0.0,
                 bind.score(cand.text.replace(o.text, " ")) if cand and nt != norm(cand.text) else 0.0,
                 bind.column.get(i, 0.0) if i is not None else 0.0, float(i in bind.keys)]  # fmt: skip
        out.append(_onehot(o.source, TEXT_SOURCES) + lm + feats)
    return opts, np.asarray(out, np.float16).reshape(len(opts), TEXT_DIM)

