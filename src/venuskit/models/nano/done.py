"""The done check: venus-nano may say Finished only with evidence on screen that the goal's action happened.

The network's Finished was learned from oracle episodes, where it always follows the last step of a solution. On
templates it has not seen it fires after any change that looks like an ending: a success flash for another action
("File moved to Trash" when asked to star), the page an app-link click opened, a message it sent by mistake. The
check holds Finished against what the agent's actions changed, read from its own screenshots only:

- a success flash new since the last screen says an action the goal asks for ("Conversation archived"), names one
  of the goal's values (the event title, the recipient), or says no action in particular ("Recipient saved.");
- a line naming one of the goal's values was on the last screen and is gone from a page that otherwise stayed
  (trashed, archived, moved), and it is not text the agent typed itself (a search box emptied is no effect);
- the agent clicked a control whose label says an action the goal asks for ("Archive", "Save", "Accept") and
  names nothing the goal does not ("Change password" is not evidence for changing a display name, nor "Search
  posts" for reacting to a post);
- the agent's last click changed the pixels under it while the rest of the screen stayed (a star or a check box
  toggled: icons carry no text to read), unless the icon namer names it as another item action than the goal's (a
  star toggled is no evidence that the file on its row was deleted).

The actions the goal asks for are its verbs, not the words that say what state its object is in: "Move the
archived email back to the inbox" and "把已归档的邮件移回收件箱" ask for no archiving, so a click on "Archive" (or a
line gone after it) is no evidence (`asked_acts`); nor the verbs it refuses or leaves for later ("it needs no
answer", "先不要下单", "提醒自己稍后回复": a reply sent is no evidence of marking a mail unread). A line gone
from the screen is no evidence either when the click before it named an action the goal does not ask for: opening
the Archive folder is what made the search header go.

None of these counts while the goal dictates a text the agent never typed (`unwritten`: a quoted or colon value
that reads as a sentence, on no line of the screen, with nothing typed): a reply opened and sent without its words
is no reply. Without any of these, Finished is not offered to the type head; the agent acts on.

A question is answered with a value read from the screen (`answer_options`): never "Done.", never the question's own
words or values (the code it says to search for is not the subject it asks for), never a success flash ("Saved."),
never a search box's placeholder ("Search mail", "搜索商品"), and when the question asks for a value with a shape
(an e-mail address, an amount, a number, a date, a time, a code), a value of that shape ("Choose Files" is no
organiser's e-mail address); a person is named, never given by a shaped value (an e-mail address is no full
name). With no such value on screen, Finished is not offered either.
"""

from __future__ import annotations

import functools
import re
from typing import Any

from venuskit.models.lexicon import HAN_CHAR
from venuskit.models.nano.entities import (
    ENTITY_KINDS,
    Entity,
    concepts,
    containment,
    goal_entities,
    lexicon,
    norm,
    says_done,
)
from venuskit.models.nano.history import Past
from venuskit.models.nano.reader import Screen

TOGGLE_BOX = 0.03  # half-size, as a share of the screen's width, of the area under a click compared for a toggle
TOGGLE_NEAR = 0.02  # share of that area's pixels that must change
TOGGLE_FAR = 0.02  # share of the rest of the screen that may change (a toast); more is another page
FLASH_CHARS = 48  # a success flash is a short line; a longer one is a message snippet that happens to say "done"
SAME_PAGE = 0.5  # share of the last screen's lines still shown when the page is the same one
CONTROL_CHARS = 30  # a clicked text this long or shorter is a control's label; longer is a list row or a snippet


# Concepts of the lexicon that name an action, not a place or a thing: a success flash says which one happened.
ACTION_CONCEPTS = frozenset({"create", "delete", "forever", "restore", "archive", "star", "unstar", "reply", "forward",
                             "send", "save", "cancel", "edit", "accept", "decline", "join", "leave", "like", "comment",
                             "buy", "pay", "attach", "download", "read", "off", "on"})  # fmt: skip


REMOVALS = frozenset({"delete", "forever", "archive", "restore"})  # actions that take an item off the list shown


def acts_of(text: str) -> frozenset[str]:
    """The actions a text names ("Email sent" reports a send)."""
    found = concepts(text)
    return (found | ({"send"} if "sent" in found else set())) & ACTION_CONCEPTS


# A participle between a determiner and its noun, or a Chinese 已…的, says what state the object is in ("the archived
# email", "your saved payee", "已删除的文件"); the goal's actions are its other words.
_STATE = re.compile(r"\b((?:the|a|an|your|my|this|that|these|those|its|their)\s+)\w+ed\b(?=\s+\w)|已\w{1,4}?的", re.I)


# "Email" at the head of a clause is a verb: "…, then email the Drive file to Noah" sends a mail (the lexicon's
# "email" is the mail, a noun, everywhere else: "the email from Ann"); so is 发邮件.
_MAIL_VERB = re.compile(r"(?:^|[,;:.!]\s*|\b(?:then|and|also|please)\s+)e-?mail\b(?!\s+(?:address|subject)\b)"
                        r"|发(?:一封)?邮件", re.I)  # fmt: skip


# A verb said not to be done, or left for later, is not asked for: "it needs no answer", "do not send it", "without
# sending money", "so you remember to answer it later", 不用回复, 提醒自己稍后回复. English: the two words after a
# negation ("do not check out"), the word after "no" ("no answer"; "no longer important" is a state and refuses
# nothing; the "no" goes either way: it is also the lexicon's declining), or the one before "later" ("answer it
# later", not "later that afternoon", which says when). Chinese: the lexicon's verb after the cue.
_SPARED = re.compile(r"\b(?:(?:do|does|did|should|need|must)\s+not|(?:do|does|did|should|need|must)n['’]?t|won['’]?t"
                     r"|but\s+not|never|no\s+need\s+to|without)\s+(\w+(?:\s+\w+)?)"
                     r"|\bno\s+(?:longer|more)\b|\bno\s+(\w+)"
                     r"|\b(\w+)(?:\s+(?:it|them|this|that|to\s+it|to\s+them))?\s+later\b"
                     r"(?!\s+(?:that|than|this|in|on|at|today|tonight|the)\b)", re.I)  # fmt: skip
_SPARED_ZH = re.compile(r"(?:不用|不要|无需|不必|不需要|稍后|回头|晚点|以后再)再?")


def _spared(text: str) -> tuple[str, list[str]]:
    """`text` with the verbs it says not to do, or to do later, blanked (`_SPARED`), and those verbs."""
    verbs: list[str] = []

    def blank(m: re.Match[str]) -> str:
        verbs.append(m.group(1) or m.group(2) or m.group(3) or "")  # "no longer": no verb, and no declining
        a, b = (0, len(m.group(0))) if m.group(3) is None else (m.start(3) - m.start(), m.end(3) - m.start())
        return m.group(0)[:a] + " " * (b - a) + m.group(0)[b:]

    text = _SPARED.sub(blank, text)
    for m in reversed(list(_SPARED_ZH.finditer(text))):
        verb = next((f for f in _han_verbs() if text.startswith(f, m.end())), "")
        verbs.append(verb)
        text = text[: m.end()] + " " * len(verb) + text[m.end() + len(verb) :]
    return text, verbs


@functools.cache
def _han_verbs() -> tuple[str, ...]:
    """The lexicon's Chinese words of actions, longest first (取消星标 before 取消)."""
    forms = {f for c in ACTION_CONCEPTS for f in lexicon().concepts.get(c, ()) if HAN_CHAR.search(f)}
    return tuple(sorted(forms, key=len, reverse=True))


@functools.lru_cache(maxsize=256)  # read on every step of an episode, and the goal stays the same
def _action_text(goal: str, instructions: bool) -> tuple[str, tuple[str, ...]]:
    """The goal's words that say actions (`asked_acts`), and the verbs it says not to do (`_spared`)."""
    found = goal_entities(goal)
    quotes = [(q.start, q.start + len(q.text)) for q in found if q.kind == "quoted"]
    text = goal
    for e in found:
        if not (instructions and e.kind == "colon" and _instruction(goal, e, quotes)):
            text = text.replace(e.text, " ")
    kept, verbs = _spared(_STATE.sub(lambda m: m.group(1) or " ", text))
    return kept, tuple(verbs)


def refused_acts(goal: str) -> frozenset[str]:
    """The actions the goal says not to do, or to leave for later ("do not send it", "it needs no answer"): what it
    asks for does not bring them in ("Write a reply, save it as a draft; do not send it" sends nothing)."""
    return acts_of(" ".join(_action_text(goal, True)[1]))


def asked_acts(goal: str, instructions: bool = False) -> frozenset[str]:
    """The actions a goal asks for: `acts_of` its text without its values (a quoted title, the words it dictates:
    'Star "Delete old drafts"' asks for no deleting), without the words that describe its object's state or say
    what not to do (`_spared`), and a send where a clause starts with "email" (`_MAIL_VERB`). `instructions`: the
    rest of an instruction after its colon is kept, not taken for a value ("Claim your flight: … File and submit the
    report …, then reply"): the action check reads it so; the done check, measured without it, does not yet."""
    text = _action_text(goal, instructions)[0]
    return acts_of(text) | ({"send"} if _MAIL_VERB.search(text.strip()) else set())


# A dictated text reads as a sentence: a stop or a comma inside or at its end. Not a version's dot, and not a colon
# or a 、: titles have them ("FYI: new parking rules", "知悉：新的停车规定"), and lists of names.
SENTENCE = re.compile(r"[.!?,;](?:\s|$)|[。！？，；]")


def unwritten(goal: str, typed: list[str], shown: list[str]) -> bool:
    """The goal dictates a text the agent has not written: it has typed nothing, and one of the goal's quoted or
    colon values that reads as a sentence is on no line of the screen (`shown`). A name is not dictated: an item the
    goal removes ('删掉"冰川滑雪镜"', then 提交订单) is gone from the screen without anything typed; nor is the rest
    of an instruction after its colon ("Tidy up Drive: delete …"), which says actions."""
    if any(t.strip() for t in typed):
        return False
    found = goal_entities(goal)
    quotes = [(q.start, q.start + len(q.text)) for q in found if q.kind == "quoted"]
    dictated = [e.text for e in found if e.kind in ("quoted", "colon") and len(norm(e.text)) >= 3
                and SENTENCE.search(e.text) and not (e.kind == "colon" and _instruction(goal, e, quotes))]  # fmt: skip
    return any(not any(_hits_entity(line, [v]) for line in shown) for v in dictated)


def _instruction(goal: str, colon: Entity, quotes: list[tuple[int, int]]) -> bool:
    """A colon value that is no dictated text: the rest of an instruction (the words before the colon ask for no
    action, or the value names things in quotes: 'Tidy up Drive: delete "a.txt"…'), or the tail of a colon inside
    a quoted title ("Your price alert: Lisbon flights")."""
    if any(a <= colon.start <= b or a >= colon.start for a, b in quotes):
        return True
    return not asked_acts(goal[: colon.start])


def _hits_entity(text: str, values: list[str]) -> bool:
    return any(containment(v, text) >= 0.8 for v in values)


def _lines(screen: Screen) -> list[str]:
    return [e.text for e in screen.lines if e.text and len(e.text) <= 120]


def _toggled(prev: Screen, now: Screen, point: tuple[float, float]) -> bool:
    """The pixels around the last click changed, and (almost) nothing else did."""
    a, b = prev.gray, now.gray
    if a is None or b is None or a.shape != b.shape:
        return False
    h, w = a.shape
    r = max(6, int(TOGGLE_BOX * w))
    x, y = int(point[0] * w), int(point[1] * h)
    x1, y1, x2, y2 = max(0, x - r), max(0, y - r), min(w, x + r), min(h, y + r)
    diff = abs(a.astype("int16") - b.astype("int16")) > 24
    near = diff[y1:y2, x1:x2]
    if near.size == 0 or near.mean() < TOGGLE_NEAR:
        return False
    rest = diff.sum() - near.sum()
    return rest / max(1, diff.size - near.size) <= TOGGLE_FAR


# What an icon on an item toggles or takes away; starring and unstarring are one toggle, the same star.
ITEM_TOGGLES = REMOVALS | {"star", "unstar", "like"}


def _toggles_asked(icon: str, wanted: frozenset[str] | set[str]) -> bool:
    """A toggle is evidence unless the icon it toggled says an item action the goal does not ask for: a star
    toggled is no evidence of deleting the file on its row (the icon namer's words; an unnamed box may be any)."""
    said = {"star" if a == "unstar" else a for a in acts_of(icon) & ITEM_TOGGLES}
    return not said or bool(said & {"star" if a == "unstar" else a for a in wanted})


def done_evidence(goal: str, screen: Screen, past: Past, last_click: tuple[float, float] | None,
                  clicked_icon: str = "") -> str:  # fmt: skip
    """Why Finished is warranted now ("" when nothing on screen ties the agent's actions to the goal). `last_click`:
    the point of the last action when it was a click; `clicked_icon`: the icon namer's words for what it landed on
    ("star", "trash delete"), when it landed on an icon."""
    if past.prev is None:
        return ""  # nothing has been done yet
    if unwritten(goal, past.typed, _lines(screen)):
        return ""  # the words the goal dictates were never typed: whatever was sent or saved lacks them
    # A reply or a forward is sent: "Message sent" reports it. "on" and "off" are prepositions as often as switches
    # ("Feedback on your proposal"): they tie nothing to the goal.
    acts = asked_acts(goal)
    wanted = (acts | ({"send"} if acts & {"reply", "forward"} else set())) - {"on", "off"}
    values = [e.text for e in goal_entities(goal) if len(norm(e.text)) >= 3]
    before = _lines(past.prev)
    before_n = {norm(t) for t in before}
    now = _lines(screen)
    now_n = {norm(t) for t in now}
    for t in now:
        if norm(t) in before_n or len(t) > FLASH_CHARS or not says_done(t):
            continue
        said = acts_of(t) - {"save", "on", "off"}  # "Saved" ends any edit: it names no action of its own
        if said & wanted or _hits_entity(t, values) or not said or not wanted:
            return f"new on screen: {t!r}"  # a flash of the goal's action, of its object, or of no action at all
    same_page = len(before_n & now_n) >= SAME_PAGE * max(1, len(before_n))  # else everything is gone, not the object
    # A line goes when its item is removed or moved; when the last click's label says another removal or move than
    # the goal asks for (Archive, Delete, Restore), that click made it go, not the goal's action.
    last_label = past.clicked[-1] if last_click is not None and past.clicked else None
    unasked = bool(last_label and acts_of(last_label) & REMOVALS - wanted)
    for t in before if same_page and not unasked else []:
        if norm(t) not in now_n and _hits_entity(t, values) and not any(_hits_entity(n, [t]) for n in now) \
                and not any(_hits_entity(typed, [t]) for typed in past.typed):  # the line is what it typed
            return f"gone from the screen: {t!r}"
    things = concepts(goal)
    for t in past.clicked:
        if t and len(t) <= CONTROL_CHARS and acts_of(t) & wanted and concepts(t) - ACTION_CONCEPTS <= things:
            return f"clicked {t!r}"
    if last_click is not None and _toggled(past.prev, screen, last_click) and _toggles_asked(clicked_icon, wanted):
        return "the last click toggled what it clicked"
    return ""


GOAL_SOURCES = frozenset({"done", "word", *ENTITY_KINDS})  # text options taken from the goal itself
# The text option sources with the shape an answer kind asks for (a total may be summed from the screen's amounts;
# "When does it end? Answer with the time (HH:MM)" asks for a time). A person, a title or a status has no shape.
ANSWER_SHAPES = {"email": ("s_email",), "amount": ("s_amount", "computed"), "number": ("s_number", "computed"),
                 "date": ("s_date", "s_time"), "time": ("s_time",),
                 "code": ("s_code", "s_number", "s_iban")}  # fmt: skip
# A clock time glued to a Chinese date ("2024年3月27日14:30－16:00") is read as a number: its text has the shape.
_CLOCK = re.compile(r"\d{1,2}[:：]\d{2}")
# A person is named, not given by a shaped value: "Who asked …? Answer with their full name" is no e-mail address.
NOT_A_PERSON = frozenset({"s_email", "s_amount", "s_iban", "s_date", "s_time", "s_code", "s_number", "computed"})
# A line that starts by searching is a search box's placeholder or a search control ("Search mail", "搜索商品",
# "Search in Drive"), never the value a question asks for.
_SEARCH_LABEL = re.compile(r"^\W*(?:search|搜索|查找)", re.I)


def answer_options(texts: list[Any], kind: str | None = None) -> list[int]:
    """Indices of the text options (`features.TextOption`) that can answer a question asking for `kind`
    (`entities.answer_kind`): read from the screen or the page's options, not a success flash, and of the kind's
    shape where it has one."""
    shaped = ANSWER_SHAPES.get(kind or "")
    return [i for i, o in enumerate(texts) if o.source not in GOAL_SOURCES and not says_done(o.text)
            and not _SEARCH_LABEL.match(o.text) and not (kind == "person" and o.source in NOT_A_PERSON)
            and (shaped is None or o.source in shaped or "s_time" in shaped and _CLOCK.fullmatch(o.text))]  # fmt: skip


# What a question can name its subject by; not a dictated text, nor a bare count.
SUBJECT_KINDS = frozenset({"quoted", "code", "date", "name", "email", "iban", "amount"})


def bound_answers(entities: list[Any], cands: list[Any], texts: list[Any], kind: str | None) -> list[int] | None:
    """Indices of the text options read inside a region (a list row, a card) whose text names one of the question's
    subjects (`entities.goal_entities` of `SUBJECT_KINDS`): "Which IBAN do you have saved for Harbor Music School?"
    is answered from the card that says Harbor Music School, not from the card below it. None when the question
    asks for a value with no shape (a title, a status: any line may be it), when no line on screen names a subject
    inside a region, or when one names it outside every region (a page title: the whole page is about it, as an
    order's page is about "Order #62230" and its status badge sits beside the title, not in the item's card)."""
    if kind not in ANSWER_SHAPES:
        return None
    values = [e.text for e in entities if e.kind in SUBJECT_KINDS and len(norm(e.text)) >= 3]
    named = [c.box for c in cands if c.kind == "text" and any(containment(v, c.text) >= 0.8 for v in values)]
    boxes = [r.box for r in cands if r.kind == "region"]
    regions = [r for r in boxes if any(_inside(b, r) for b in named)]
    if not regions or any(not any(_inside(b, r) for r in boxes) for b in named):
        return None
    smallest = [r for r in regions if not any(o != r and _inside(o, r) for o in regions)]  # the row, not the page
    return [k for k, o in enumerate(texts) if getattr(o, "line", None) is not None
            and any(_inside(cands[o.line].box, r) for r in smallest)]  # fmt: skip


def _inside(box: tuple[int, int, int, int], outer: tuple[int, int, int, int]) -> bool:
    return outer[0] <= box[0] and outer[1] <= box[1] and box[2] <= outer[2] and box[3] <= outer[3]
