"""The action check: venus-nano does not click a control that commits an action the goal does not ask for.

On templates it has not seen, the pointer head finds a control of the right type by its place or by loose meaning
and clicks the trash can when asked to star, Accept when asked to decline, Buy when asked how many are left. The
report puts a step verifier before each action; this is its rule form, read from the screen alone:

- what a control commits is what its label says ("Delete forever", "Accept", "购买") or what the icon namer names
  its picture (a trash can), in the lexicon's consequential words (`lexicon.toml`, `[consequential]`): removing,
  archiving, buying, paying, sending, accepting or declining, joining or leaving, making something new ("New
  document", "Compose", 写邮件);
- the goal asks for its verbs (`done.asked_acts`); a payment is a transfer of money ("Send €20 to Bob" pays), an
  order is paid; any action but one on an item in place (delete, archive, restore, star, mark read, like, switch,
  keep) may end with a Send, Submit or Post and may make something on the way, so only a goal asking for in-place
  actions alone holds sending and making back (the agent that typed "删除" into a new mail's To line and sent it,
  when asked to delete an email forever; the one that composed a mail when asked to move one back to the inbox);
  a verb the goal refuses or leaves for later is not asked for, and is held back even where another verb would
  bring it in ("save it as a draft; do not send it"; the agent that sent a reply to the mail it was asked to archive,
  "不用回复", or to mark unread "to answer later");
- a control that commits something the goal does not ask for is not offered to the pointer head, unless it names
  one of the goal's values (an e-mail whose subject says "delete" is the object, not a control).

A goal that dictates a text (`done.unwritten`: a quoted or colon value that reads as a sentence and is on no line of
the screen: the reply's words, the comment) holds sending back until the agent has typed something: a Send, Submit
or Post before any typing sends without the text (the agent that opened the reply and clicked Send).

A goal whose verb the lexicon does not know ("Get rid of the draft") asks for nothing it can tell, so nothing is
held back but what it refuses ("加一件到购物车，先不要下单" holds 下单 back). A question asks for no action at all,
whatever its words: answering one never needs deleting, buying, joining or sending ("Answer with the e-mail address"
is no reply to send; "the bank reference of the payment" names the payment as its object), nor making a document.
A question mark inside quotes asks nothing (a post's title).
"""

from __future__ import annotations

import functools
import re

from venuskit.models.lexicon import HAN_CHAR, quoted_spans
from venuskit.models.nano.done import CONTROL_CHARS, asked_acts, refused_acts
from venuskit.models.nano.entities import containment, goal_entities, lexicon, norm

# What else a goal's action commits: a payment is sent and a transfer paid, an order is paid. Deleting does not imply
# deleting forever: "Move it to the trash" is no "Delete forever".
IMPLIED = {"send": {"pay"}, "pay": {"send"}, "buy": {"pay"}}
# Actions on an item in place. A goal asking only for these never sends anything; any other action may end with a
# Send, Submit or Post (a reply, a comment, a form, a new event's invitations).
# Saving keeps a change where it is ("Archive it; … but keep it" asks for no mail).
IN_PLACE = frozenset({"delete", "forever", "archive", "restore", "star", "unstar", "read", "like", "download", "on",
                      "off", "save"})  # fmt: skip


@functools.cache
def _forms() -> tuple[tuple[re.Pattern[str], str], ...]:
    """The consequential words as patterns, longest first (read once: `commits` runs on every candidate)."""
    forms = sorted(((f, c) for c, fs in lexicon().consequential.items() for f in fs),
                   key=lambda x: -len(x[0].lstrip("^")))  # fmt: skip
    # A Chinese word right after 已 is a state; an English one is a whole word, as written on a button; a form with
    # ^ is the label's first word (`commits` pads the label with one space).
    pattern = {True: "(?<!已){}", False: "(?<![a-z]){}(?![a-z])"}

    def compile_form(form: str) -> re.Pattern[str]:
        first, word = form.startswith("^"), form.lstrip("^")
        return re.compile(("^ " if first else "") + pattern[bool(HAN_CHAR.search(word))].format(re.escape(word)))

    return tuple((compile_form(f), c) for f, c in forms)


def commits(text: str) -> frozenset[str]:
    """The consequential actions a control's label commits ("Delete forever" -> delete, forever)."""
    low = " " + " ".join(re.findall(r"[a-z]+|[^\sa-z]+", text.casefold())) + " "
    found = set()
    for pattern, concept in _forms():  # longest first, each match blanked: 取消订阅 is leaving, not also 订阅
        hit = pattern.search(low)
        if hit:
            found.add(concept)
            low = low[: hit.start()] + " " * (hit.end() - hit.start()) + low[hit.end():]
    return frozenset(found)


def asks_question(goal: str) -> bool:
    """The goal has a question mark outside its quotes. A question word is not enough ("Buy the cheapest product that
    comes up when you search"), and a post titled "Anyone selling a spare lamp?" is named, not asked, by 'Reply to
    "Anyone selling a spare lamp?" with …'."""
    for text, start in quoted_spans(goal):
        goal = goal[:start] + " " * len(text) + goal[start + len(text) :]
    return "?" in goal or "？" in goal


def wanted_acts(goal: str, question: bool) -> frozenset[str] | None:
    """The actions the goal asks for, with what they imply; None when the check cannot tell (no known verb)."""
    if question and asks_question(goal):
        # A question asks for no consequential action: "Answer with the IBAN" is its answer, not a reply to send,
        # and the payment or order it asks about is its object ("the bank reference of the payment on 13 March").
        return frozenset()
    acts = set(asked_acts(goal, instructions=True))
    if not acts and not question:
        return None
    for a in list(acts):
        acts |= IMPLIED.get(a, set())
    if acts - IN_PLACE:  # ... and may make something new on the way (a mail composed, a post or a transfer created)
        acts |= {"send", "create"}
    return frozenset(acts - refused_acts(goal))  # "…, save it as a draft; do not send it" holds Send back


def unasked(goal: str, labels: list[str], question: bool, unsent: bool = False) -> list[int]:
    """Indices of the labels (a candidate's text, or its icon's name) that commit an action the goal does not ask
    for and name none of its values. `unsent`: the goal's text is not written yet (`unwritten`), so sending is
    not asked for now either."""
    wanted = wanted_acts(goal, question)
    if wanted is None:  # no verb the lexicon knows: only what the goal refuses ("先不要下单"), or an early send
        wanted = frozenset(lexicon().consequential) - refused_acts(goal)
    if unsent:
        wanted = wanted - {"send"}
    values = [e.text for e in goal_entities(goal) if len(norm(e.text)) >= 3]
    out = []
    for i, label in enumerate(labels):
        if not label or len(label) > CONTROL_CHARS or not commits(label) - wanted:
            continue
        if not any(containment(v, label) >= 0.8 for v in values):
            out.append(i)
    return out


def with_glyphs(held: list[int], labels: list[str], container: list[int | None]) -> list[int]:
    """`held` and the glyphs inside a held control: a candidate whose label has no word of its own (an unnamed icon,
    a "?" or "→" the reader took for text) does what the smallest region holding it says ("? 发送" is a Send button;
    the agent clicked its "?" and sent the reply it was told not to write). `container`: `candidates.containers`."""
    held_set = set(held)
    glyphs = [i for i, k in enumerate(container) if k in held_set and i not in held_set
              and not re.search(r"\w", labels[i])]  # fmt: skip
    return sorted(held_set | set(glyphs))

