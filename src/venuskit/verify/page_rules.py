"""Keypoint rules from what any page shows: no app's layout, no URL convention, no server flash.

They read the clicks (the words under each red dot, read from the region of the screenshot the click was made on:
`Evidence.under`), what the agent typed, and the screens it saw, and each names the evidence it used.

- `clicked_item`: "Click on the link "nunc"", "Press login", "Select BQrG, MH", "Find the email by Amil": a click
  landed on the named item (the words under the red dot, in the window where the click happened), not on the
  goal's own text shown on the page, nor on an item that differs from it only in case ("yes" for "Yes", both on
  the screen), and the screen changed after it (or the run ended there). Navigation to a
  named item (tabs, sections, tree folders, menus on the way) is credited by the item's click, not by the path.
  Contradicted when the agent clicked nothing at all, or when its clicks landed on other readable items while the
  named one stood on a screen it saw (or the page ended the run right after a click on another item).
- `entered_values`: "Enter the username "emile" and the password "EBQr"…", "Select 4 with the spinner", "Forward
  that email to Pierette": each value the keypoint names was in a field when the form was committed: read on the
  screen of the committing click (the window before the submit, not the final screen) as text that was not on
  the first screen, or typed whole by the agent (a masked field shows dots). A value typed as a near miss (a
  prefix, another case, another value) and nowhere on the committed form is contradicted. A keypoint that names a
  field by its rank ("the 2nd textbox") is only ever contradicted: which field is the 2nd, pixels alone do not say.
  Text typed after a click on the goal's own words went into no field; a field holding a cut of one of the goal's
  words ("thrill" for "thriller movies") is contradicted. A rename ("Rename X to Y", "把X重命名为Y") enters the new
  name only, on a form whose screen showed the old one where the typing began (else another item was renamed).
  When the run's last form typed only what another step of the goal asks (the next step's search), the form
  committed before it is the keypoint's. A mail "to your own account's address" is never satisfied here.
- `dragged_to`: "Drag Amandie to the 5th position" (top, bottom, up/down by one): the drag started on the item
  and dropped it where that rank is, counted among the rows of its list on the screen before the drag.
- `sorted_list`: "Sort the numbers in increasing order": the list's numbers, read top to bottom on the screen of
  the agent's last click, are in that order.
- `copied`: "Copy the text in the textarea …, paste it into the textbox": the text entered is a text the page
  showed before it was entered (outside the goal); one that stops inside a word the page showed whole is a copy cut
  short (contradicted).
- `described_entry`: "Write an email to X with the subject "S" saying the amount of the RIVERSIDE VET payment on
  2024-03-12": the entry (X, S) as `entered_values` checks it, and the content typed besides it as the answer to the
  question the description asks ("what is the amount of …?"), with the answer rules, on the screens before it was
  typed. Satisfied when both are; the values that say where the content comes from are not entries.
- `answer_in_place`: "What is the status of ER-2024-0032?", "the salary of 2024-03-01": a question that names a
  record by a code or a day is answered from that record: the value read on the named record's row, or on a screen
  that names it (a detail page); read only on another record's row it is contradicted, read where no record is
  named it is left undecided.
- `order_violations` (SGV's decision): order constraints the goal states ("A, then B"; "… and press Submit"
  after the values): a keypoint done before the one the goal puts first is contradicted.

Rules return `(status, step, reason)` or None (the rule does not apply), as in `rules.py`.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from urllib.parse import unquote

import numpy as np

from venuskit.models.lexicon import CODE, EMAIL, IBAN, ISO_DATE, days
from venuskit.verify import rules as R
from venuskit.verify import text as T
from venuskit.verify.evidence import Evidence
from venuskit.verify.images import changed_fraction, mark_change, png_size
from venuskit.verify.keypoints import SORT_POINT, ZH_SORT

Result = tuple[str, int | None, str]
Lines = Callable[[Evidence], "tuple[tuple[tuple[int, int, int, int], str], ...]"]

_ORDINAL = re.compile(r"\b\d+(?:st|nd|rd|th)\b|\b(?:first|second|third|fourth|fifth|last)\b", re.I)
# "into both fields", "3 newsletters": the value goes into each field ("as" after an IBAN's last digits is no count)
_MANY = re.compile(r"\b(?:all|every|each|both)\b|\b\d+\s+\w{2,}s\b", re.I)
_NAVIGATE = re.compile(r"^\s*(?:find|go to|open|navigate to|look for|locate|search for)\s+(?:the\s+)?(?:\w+\s+){0,2}"
                       r"(?:by|from|of|named|called)\s+(?P<name>[A-Z@][\w@.'-]*(?:\s+[A-Z][\w.'-]*)*)\s*[.]?$",
                       re.I)  # fmt: skip
_ENTRY = re.compile(r"^\s*(?:enter|type|comment|fill(?: in)?|input|write|select|set|choose|use the \w+ to enter|"
                    r"reply|forward|send|transfer|search for)\b", re.I)  # fmt: skip
# Money a keypoint moves, named by words ("your share", "the money I owe her"): without a figure, its amount is
# described
_MONEY = re.compile(r"^\s*(?:send|transfer|pay)\b.*\b(?:money|share|amount|owed?|total|price|sum|cost)\b", re.I)
# "Save Sofia Larsen with the IBAN … as a new recipient": an entry too, of a new item's fields
# (and in Chinese: "在银行中把 X 保存为新的收款人", "把 X 添加到常用收款人")
_SAVE_AS_NEW = re.compile(r"^\s*(?:save|add)\b(?=.*\bas an? new\b)|"
                          r"^[^，,；;。]*?(?:保存|添加|存|加)为新的?|^[^，,；;。]*?添加到常用", re.I)  # fmt: skip
# "…, without sending money": an act the keypoint forbids, named by its verb and object
_WITHOUT = re.compile(r"\bwithout\s+(?P<verb>[a-z]{3,}?)(?:ing)\b(?P<what>[^,.;]*)", re.I)
# "Rename X to Y" / "把X重命名为Y": only the new name is entered (the old one is the item's, on the page already).
_RENAME = re.compile(r"^\s*(?:rename\b.*?\bto\b|(?:请)?(?:把|将).*?(?:重命名|改名)为)", re.I)
# "Comment on Lucas's post "X" with "Y"": X and its author name the post commented on; only Y is typed.
_COMMENT_ON = re.compile(r"^\s*comment\s+on\b.*?\bwith\b(?=\s*[\"“])", re.I)
_AFFIX = re.compile(r"\b(?P<kind>starts|begins|ends) with\s+[\"“](?P<text>[^\"”]+)[\"”]", re.I)
_SENDS = re.compile(r"^\s*(?:reply|forward|send|comment|search for)\b", re.I)
_FIELD_WORDS = re.compile(r"\b(?:with the (?:spinner|slider)|as the (?:date|time))\b", re.I)
_SUBMIT_WORDS = re.compile(r"^\W*(?:submit|send|save|log ?in|sign ?in|ok|search|go|done|confirm|apply|post|reply|"
                           r"forward|next|continue|agree|yes)\W*$", re.I)  # fmt: skip
_CLOSE_WORDS = re.compile(r"^\W*(?:cancel|close|discard|back|x)\W*$", re.I)
_TIME = re.compile(r"\b(\d{1,2}):(\d{2})\s*([AaPp][Mm])?\b")
_SPACED_TIME = re.compile(r"^\s*(\d{1,2})\s*[: ]\s*(\d{2})\s*([AaPp][Mm])\s*$")  # a time field's segments
_DATE = re.compile(r"\b(\d{1,2})/(\d{1,2})/(\d{4})\b")
_NUMBER = re.compile(r"(?<![\w.:/-])-?\d+(?![\w.:/])")
_MONEY_VERB = re.compile(r"^\s*(?:send|transfer|pay)\b", re.I)
_MAX_SPAN = 6


# ---- the words under a click -----------------------------------------------------------------------------


def span_hits(step: Evidence, name: str) -> bool:
    """The click's word (or a run of words around it) reads `name`, or the whole row under it does."""
    want = T.ocr_key(name)
    return bool(want) and any(T.ocr_key(t) == want for t in _spans(step))


def _spans(step: Evidence) -> list[str]:
    """What a click may have been on: the row under it, and each run of words around its word."""
    words, at = step.under, step.under_at
    out = [R.target(step)]
    if at >= 0:
        out += [" ".join(words[i : j + 1]) for i in range(max(0, at - _MAX_SPAN), at + 1)
                for j in range(at, min(len(words), i + _MAX_SPAN))]  # fmt: skip
    return out


def case_twin(step: Evidence, name: str, lines: Lines | None, rows: Rows = None) -> bool:
    """The click read `name` only in another case while its screen shows `name` in its own case elsewhere (off the
    task box): two items that differ only in case ("Yes" and "yes"), and the click took the other one."""
    cased = T.ocr_key(name, cased=True)
    if lines is None or step.png is None or not span_hits(step, name):
        return False
    if any(T.ocr_key(t, cased=True) == cased for t in _spans(step)):
        return False
    return any(T.ocr_key(t, cased=True) == cased for b, t in lines(step)
               if rows is None or not rows[0] - 4 <= (b[1] + b[3]) / 2 <= rows[1] + 4)  # fmt: skip


Rows = tuple[int, int] | None  # the pixel rows of the page's task box (the goal as the page shows it), if any


def task_rows(steps: Sequence[Evidence], goal: str, lines: Lines | None) -> Rows:
    """Where the page shows the goal itself (MiniWoB++'s yellow box, a task banner): the run of consecutive rows of
    the first screen that are pieces of the goal and together spell most of it. None when no screen does."""
    first = next((e for e in steps if e.png is not None), None)
    if first is None or lines is None:
        return None
    want = T.ocr_key(goal)
    run: list[tuple[int, int]] = []
    best: list[tuple[int, int]] = []
    spelled = 0
    for box, text in sorted(lines(first), key=lambda x: x[0][1]):
        piece = T.ocr_key(text)
        if not (len(piece) >= 2 and piece in want):
            run, spelled = [], 0
            continue
        if run and box[1] - max(b for _, b in run) > 1.5 * (box[3] - box[1]):  # a row far below: not the same box
            run, spelled = [], 0
        run.append((box[1], box[3]))
        spelled += len(piece)
        if spelled >= 0.6 * len(want) and len(run) > len(best):
            best = list(run)
    return (min(a for a, _ in best), max(b for _, b in best)) if best else None


def on_goal_text(step: Evidence, goal: str, rows: Rows = None) -> bool:
    """The click landed on the goal's own words as the page shows them (the task box), not on an item: inside the
    task box's rows, or on a row that is a piece of the goal of some length."""
    y = R.click_y(step)
    if rows is not None and y is not None and rows[0] - 4 <= y <= rows[1] + 4:
        return True
    row = T.normalise(" ".join(step.under)) or T.normalise(R.target(step))
    return len(row) >= 8 and row in T.normalise(goal)


# The one-click acts an icon does, by the icon namer's names (`models/nano/icon_names.toml`): a back or undo arrow on
# a row of the trash restores it. Toggles show their state in the icon (filled in once done, emptied once undone);
# the other acts take the item's row off the list it was on (into the trash, the archive, back to its folder).
_ICON_ACTS = {"star": ("star",), "unstar": ("star",), "delete": ("trash",), "trash": ("trash",),
              "restore": ("undo", "back"), "archive": ("archive",)}  # fmt: skip
_TOGGLES = {"star": True, "unstar": False}


def icon_act(kp: str, steps: Sequence[Evidence], lines: Lines | None) -> Result | None:
    """One-click acts done with icons on the rows of the items the keypoint quotes ("Star the Drive file "X"",
    "删除“A”和“B”", "从回收站恢复“X”并给它加星标"): for every act the keypoint asks and every item it quotes, the
    agent's last such click on the item's row (a line that reads it, at the click's height) did the act: a toggle
    filled the icon in (star) or emptied it (unstar) while the rest of the screen stayed; another act's icon (the
    namer's name for it: a trash can for delete) took the row off the list. A labelled control is `R.one_click`'s."""
    verbs, quoted = R.one_click_verbs(kp), T.quoted(kp)
    if not verbs or not quoted or lines is None or any(v not in _ICON_ACTS for v in verbs):
        return None
    if R._FOR_GOOD.search(R.own_words(kp)) or R.one_click_verb(kp)[1] and set(R.needles(kp)) - set(quoted):
        return None  # "permanently": the row's trash can only moves it; a Chinese keypoint naming a value asks more
    done = []
    for verb in verbs:
        for name in quoted:
            found = _icon_act_on(verb, name, steps, lines)
            if found is None:
                return None
            done.append((*found, verb, name))
    acts = "; ".join(f"{v} {n!r}: the click at step {s} on an icon on its row {how}" for s, how, v, n in sorted(done))
    return "satisfied", max(s for s, *_ in done) + 1, acts


def _icon_act_on(verb: str, name: str, steps: Sequence[Evidence], lines: Lines) -> tuple[int, str] | None:
    """The step of the agent's last click on `name`'s row that did `verb` with an icon and what it did, or None (none
    did, or the last toggle went the other way)."""
    for s in range(len(steps) - 2, -1, -1):
        step, after = steps[s], steps[s + 1]
        if not R.clicked(step) or step.png is None or after.png is None or not R.on_row_of(step, name, lines):
            continue
        icon = icon_clicked(step)
        if verb in _TOGGLES:
            if icon not in _ICON_ACTS[verb] if icon else re.search(r"\w", R.clicked_word(step)):
                continue  # another icon, or a labelled control
            if changed_fraction(step.png, after.png) > _STAYED:
                continue
            delta = mark_change(step.png, after.png, R._point(step) or (0.0, 0.0), near=True)
            if delta is None or abs(delta) < _FILLED:
                continue
            return (s, "filled it in" if delta > 0 else "emptied it") if (delta > 0) == _TOGGLES[verb] else None
        if icon in _ICON_ACTS[verb] and _left_list(step, after, name, lines):
            return s, f"({icon}) took the row off the list"
    return None


def icon_clicked(step: Evidence) -> str:
    """The icon namer's name for what the click hit, when OCR read no word there (nothing, or one stray glyph: a
    star read as "立"); "" otherwise."""
    return step.icon if len(T.normalise(R.clicked_word(step))) <= 1 else ""


def _left_list(step: Evidence, after: Evidence, name: str, lines: Lines) -> bool:
    """The next screen is the same list (the same page, most of its lines still there) without `name`."""
    if R.page(step) != R.page(after):
        return False
    before, later = R.text_rows(lines(step)), R.text_rows(lines(after))
    still = {T.normalise(t) for _, t in later}
    kept = sum(T.normalise(t) in still for _, t in before)
    return kept >= 0.6 * len(before) and not any(T.ocr_contains(t, name) for _, t in [*lines(after), *later])


_STAYED = 0.03  # the share of the screen a toggle may change (the icon, a badge): more is another view opened
_FILLED = 0.1  # the share of an icon's box that must turn filled (or empty) for a toggle to count


def _changed_after(steps: Sequence[Evidence], s: int) -> bool:
    """The click at s did something visible: the next screen differs (or the run ended on it)."""
    if s + 1 >= len(steps):
        return True
    a, b = steps[s], steps[s + 1]
    if R.page(a) != R.page(b):
        return True
    if a.png is None or b.png is None:
        return True
    return changed_fraction(a.png, b.png) > 0.0002  # a ticked checkbox is ~0.2% of a small page


def pointer_steps(steps: Sequence[Evidence]) -> list[int]:
    return [s for s in range(len(steps)) if R.clicked(steps[s])]


# ---- clicked the named item ----------------------------------------------------------------------------------


def item_names(kp: str) -> list[str]:
    """What a click keypoint names: `rules.click_names` ("Click on the link "X"", "Press login", "Select BQrG, MH"),
    or the named item of a navigation clause ("Find the email by Amil" -> Amil); [] when it names an item by rank
    ("the 3rd radio button") or names none."""
    if _ORDINAL.search(T.unquoted(kp)):
        return []
    names = R.click_names(kp)
    if names:
        return names
    m = _NAVIGATE.match(T.unquoted(kp)) if not T.quoted(kp) else None
    return [m.group("name")] if m else []


_SELECT = re.compile(r"^\s*(?:select|check|tick|choose|mark)\b", re.I)
_NOTHING = re.compile(r"^\s*(?:select|check|tick|choose|mark)\s+(?:nothing|none)\b", re.I)


def clicked_item(kp: str, goal: str, steps: Sequence[Evidence], lines: Lines | None = None) -> Result | None:
    names = item_names(kp)
    clicks = pointer_steps(steps)
    rows = task_rows(steps, goal, lines)
    if _NOTHING.match(kp):
        return _nothing(steps, goal, clicks, rows)
    if not names:
        if re.match(r"^\s*(?:click|press|tap|hit)\b", kp, re.I) and not clicks and steps:
            return "contradicted", steps[-1].index, "the agent clicked nothing"
        return None
    if not clicks:
        return ("contradicted", steps[-1].index, "the agent clicked nothing") if steps else None
    many = _each(kp)
    row_ok = bool(_NAVIGATE.match(T.unquoted(kp))) and not T.quoted(kp)  # an item found by a name on its row
    at: dict[str, int] = {}
    for name in names:
        hits = [s for s in clicks if (span_hits(steps[s], name) or row_ok and R.on_row_of(steps[s], name, lines))
                and not on_goal_text(steps[s], goal, rows) and not case_twin(steps[s], name, lines, rows)
                and _changed_after(steps, s)]  # fmt: skip
        if hits:
            at[name] = hits[-1]
    if len(at) == len(names) and not many:
        extra = _extra_picks(kp, steps, goal, clicks, at, rows) if _SELECT.match(kp) else None
        if extra is not None:
            return extra
        step = max(at.values())
        words = ", ".join(f"{n!r} at step {s}" for n, s in sorted(at.items(), key=lambda x: x[1]))
        return "satisfied", step, f"the click landed on {words} (the words under the red dot)"
    missing = [n for n in names if n not in at]
    if not missing:
        return "not_visible", None, f"a click on {sorted(at)} was made; the keypoint asks for more than one"
    return _missed(missing, goal, steps, clicks, lines, rows)


def _item_clicks(steps: Sequence[Evidence], goal: str, clicks: list[int], rows: Rows) -> list[int]:
    """Clicks that read as an item (a word under the red dot, off the task box), not as a submit-like control."""
    return [s for s in clicks if R.clicked_word(steps[s]) and not on_goal_text(steps[s], goal, rows)
            and not _SUBMIT_WORDS.match(R.clicked_word(steps[s]))]  # fmt: skip


def _nothing(steps: Sequence[Evidence], goal: str, clicks: list[int], rows: Rows) -> Result | None:
    """"Select nothing": contradicted by a click on an item; satisfied when the only clicks read as a submit."""
    picked = _item_clicks(steps, goal, clicks, rows)
    if picked:
        s = picked[0]
        return "contradicted", s, f"the click at step {s} picked {R.clicked_word(steps[s])!r}; the goal asks for none"
    submits = [s for s in clicks if _SUBMIT_WORDS.match(R.clicked_word(steps[s]) or "")]
    if submits and len(submits) == len(clicks):
        word = R.clicked_word(steps[submits[0]])
        return "satisfied", submits[0], f"no item was clicked; the only clicks read as {word!r}"
    return None


def _extra_picks(kp: str, steps: Sequence[Evidence], goal: str, clicks: list[int], at: dict[str, int],
                 rows: Rows) -> Result | None:  # fmt: skip
    """"Select A, B": a click on another item of the same list (a click in the column of the named ones) picks one
    the goal did not name."""
    xs = [R._point(steps[s])[0] for s in at.values() if R._point(steps[s]) is not None]
    for s in _item_clicks(steps, goal, clicks, rows):
        p = R._point(steps[s])
        if s in at.values() or p is None or not any(abs(p[0] - x) <= 0.05 for x in xs):
            continue
        if not any(span_hits(steps[s], n) for n in at):
            return "contradicted", s, f"the click at step {s} also picked {R.clicked_word(steps[s])!r}, which the " \
                                      "goal does not name"  # fmt: skip
    return None


def _missed(missing: list[str], goal: str, steps: Sequence[Evidence], clicks: list[int], lines: Lines | None,
            rows: Rows) -> Result:  # fmt: skip
    """No click hit `missing`: contradicted when the named item was there to click (OCR read it on a screen the
    agent saw, off the task box, so a click on it would have been read too); else not decided (OCR cannot read
    the name: "♥♥♥", "ヘルプ"; or it never showed)."""
    others = [s for s in clicks if R.clicked_word(steps[s]) and not on_goal_text(steps[s], goal, rows)]
    shown = [n for n in missing if _legible(n, steps, lines, rows)]
    if len(shown) < len(missing):
        why = "no click read as another item" if not others else "it never stood on a screen the agent saw"
        return "not_visible", None, f"no click landed on {missing}, and {why}"
    words = ", ".join(f"{R.clicked_word(steps[s])!r} (step {s})" for s in others[-3:]) or "nothing readable"
    return "contradicted", steps[clicks[-1]].index, f"the clicks landed on {words}, not on {missing}, which stood " \
                                                    "on a screen the agent saw"  # fmt: skip


def _legible(name: str, steps: Sequence[Evidence], lines: Lines | None, rows: Rows | None = None) -> bool:
    """OCR reads `name` somewhere on a screen the agent saw (off the task box when its `rows` are given): else a
    click on it may have been misread, and missing it proves nothing."""
    if lines is None:
        return False
    return any(T.ocr_contains(text, name) for e in steps if e.png is not None for box, text in lines(e)
               if rows is None or not rows[0] - 4 <= (box[1] + box[3]) / 2 <= rows[1] + 4)  # fmt: skip


# ---- values in their fields when the form was committed -----------------------------------------------------


_POSSESSIVE = re.compile(r"['’]s$")


def entry_values(kp: str) -> list[str]:
    """The values an entry keypoint names: quoted text, times, dates, e-mail addresses, numbers, and names outside
    quotes; of a rename, the new name."""
    rename = _RENAME.match(kp) or _COMMENT_ON.match(kp)
    if rename:
        return [as_asked(q, kp) for q in T.quoted(kp[rename.end() :])]
    if not _entry(kp) or _AFFIX.search(kp) or T.COMMENTS.match(kp):
        return []  # a comment with no quoted text ("Comment on X's post "Q""): its post is no value to type
    if T.REPLY_TO_POST.match(kp) and not T.quoted(kp):
        return []  # "Reply to X's post": its author is no value to type
    if R.click_names(kp) and not _FIELD_WORDS.search(kp) and not T.quoted(kp):
        return []  # "Select BQrG, MH": items to click, not values to enter
    stated = T.stated_text(kp)  # a message after "says:" is one value; its names and numbers are not others
    own = T.unquoted(kp[: kp.rindex(stated)] if stated else kp)
    found = T.quoted(kp)
    found += [m.group(0) for m in _TIME.finditer(own)]
    found += [m.group(0) for m in _DATE.finditer(own)]
    found += T.emails(own)  # the recipient: a field value like any other
    found += [m.group(0) for m in IBAN.finditer(own)]  # one value, not its digit groups
    rest = _ORDINAL.sub(" ", _DATE.sub(" ", _TIME.sub(" ", EMAIL.sub(" ", IBAN.sub(" ", own)))))
    found += [m.group(0) for m in _NUMBER.finditer(rest)]
    if _MONEY_VERB.match(kp):  # "Send 27.95 EUR to …": the amount is a value of the form too
        found += [m.group(0) for m in T.DECIMAL_AMOUNT.finditer(rest)]
    # "Save Sofia Larsen … as a new recipient": the name after the verb is the item saved (`proper_names` skips a
    # run that starts with the sentence's first word, so it would miss it)
    english_save = _SAVE_AS_NEW.match(kp) and not T.HAN_CHAR.search(kp)
    names = T.proper_names(f"then {rest.lstrip()[len(rest.split()[0]):]}" if english_save else rest)
    found += [n for n in names if not _POSSESSIVE.search(n)]  # "X's payment request email": a source, no entry
    found += [stated] if stated else []
    if _MONEY.search(own) and not re.search(r"\d", own):
        return []  # "Pay her your share (the total divided by …)": the amount is described; its names are not the act
    gone = T.old_values(own)
    return list(dict.fromkeys(as_asked(v.strip(), own) for v in found if v.strip() and v.strip() not in gone))


def _entry(kp: str) -> bool:
    return bool(_ENTRY.match(kp) or _SAVE_AS_NEW.match(kp))


# A Chinese label that commits a new item ("添加收款人", "保存", "确认添加")
_ZH_SAVES = re.compile(r"^\W*(?:确认)?(?:添加|保存|新增|创建|提交|确定)")


def _saves(label: str, kp: str) -> bool:
    """The label commits a new item the keypoint names: a submit word, or add / save / create with the keypoint's own
    words ("Add recipient")."""
    words = re.findall(r"[a-z]+", label.casefold())
    own = set(re.findall(r"[a-z]+", kp.casefold())) | {"add", "save", "create"}
    named = bool(words) and words[0] in ("add", "save", "create") and set(words) <= own
    return bool(_SUBMIT_WORDS.match(label) or _ZH_SAVES.match(label)) or named


def _each(kp: str) -> bool:
    """The keypoint asks for its value in several fields or items ("into both fields"); an IBAN's digit groups are
    no count."""
    return bool(_MANY.search(IBAN.sub(" ", T.unquoted(kp))))


def _bare(text: str) -> str:
    return text.strip().rstrip(".。!！").strip()


def as_asked(value: str, kp: str) -> str:
    """The value as the keypoint asks it typed: "type "Abc" in all lower case letters" wants "abc" (the rules
    compare typed text case and all; without this a run that typed the value as quoted would pass)."""
    m = _CASE.search(kp)
    if m is None:
        return value
    return value.upper() if (m.group("up") or m.group("caps")) else value.lower()


_CASE = re.compile(r"\b(?:lower|(?P<up>upper))[\s-]?case\b|(?P<caps>\ball caps\b|\bcapital letters\b|大写)|小写",
                   re.I)  # fmt: skip


def same_value(a: str, b: str) -> bool:
    """Equal as typed text (case kept), or, when the value `b` is a time or a date and nothing else, as the same
    time / date written another way (a time field shows "02 41 AM" for 2:41 AM). A message that holds a time
    ("See you at 12:30") is not its time."""
    if a.strip() == b.strip():
        return True
    ta, tb = _TIME.search(a) or _SPACED_TIME.search(a), _TIME.search(b) or _SPACED_TIME.search(b)
    if ta and tb and _alone(tb, b):
        return _minutes(ta) == _minutes(tb)
    da, db = _DATE.search(a), _DATE.search(b)
    if da and db and _alone(db, b):
        return tuple(int(x) for x in da.groups()) == tuple(int(x) for x in db.groups())
    return False


def _alone(m: re.Match[str], text: str) -> bool:
    """The match is all of `text` but spaces and punctuation."""
    return not re.sub(r"[\W_]+", "", text[: m.start()] + text[m.end() :])


def _minutes(m: re.Match[str]) -> int:
    h, mm, ampm = int(m.group(1)), int(m.group(2)), (m.group(3) or "").upper()
    if ampm == "PM" and h < 12:
        h += 12
    if ampm == "AM" and h == 12:
        h = 0
    return h * 60 + mm


def commit_step(steps: Sequence[Evidence], after: int) -> int | None:
    """The click (or Enter) that committed the form: the first after step `after` that is not a click into a
    field that the agent then typed into, that does not read as Cancel/Close, and after which the screen
    changed (or the run ended)."""
    for s in range(after + 1, len(steps)):
        if not R.clicked(steps[s]):
            continue
        if s + 1 < len(steps) and R.typed_texts(steps[s + 1]):
            continue  # a click into the next field
        if _CLOSE_WORDS.match(R.clicked_word(steps[s]) or ""):
            continue
        if _changed_after(steps, s):
            return s
    return None


def _fresh_on(step: Evidence, first: Evidence, value: str, lines: Lines) -> bool:
    """`value` is the whole text of a row on this screen that was not on the first screen at that place (a
    field's content, not the page's fixed text such as the goal); a field shown in segments ("02" "41" "AM") is
    read as one row. Letters keep their case."""
    want = T.ocr_key(value, cased=True)
    return any(same_value(t, value) or T.ocr_key(t, cased=True) == want for t in fresh_texts(step, first, lines))


def fresh_texts(step: Evidence, first: Evidence, lines: Lines) -> list[str]:
    """The texts of this screen that the first screen did not show at that place, each alone and, where a row
    holds several, joined as the row."""
    if step.png is None:
        return []
    old = {(T.ocr_key(t), b[1] // 8) for b, t in lines(first)} if first.png is not None else set()
    fresh = [(b, t) for b, t in lines(step) if (T.ocr_key(t), b[1] // 8) not in old]
    rows: dict[int, list[tuple[int, str]]] = {}
    for b, t in fresh:
        rows.setdefault(b[1] // 8, []).append((b[0], t))
    return [t for _, t in fresh] + [" ".join(t for _, t in sorted(r)) for r in rows.values() if len(r) > 1]


@dataclass
class Field:
    """What the agent typed into one field, from the log: the field is where the click before the typing landed
    (clicks within a few pixels of each other are one field); a Type adds to its text, a select-all before it
    replaces it. `label`: the text OCR reads just above or left of it (its label), when read."""

    point: tuple[float, float]
    step: int  # the click that focused it
    text: str = ""
    last: int = -1  # the step of its last Type
    label: str = ""


def fields(steps: Sequence[Evidence], before: int, lines: Lines | None = None) -> list[Field]:
    """The fields the agent typed into before step `before`, each with its text as the log builds it."""
    found: list[Field] = []
    current: Field | None = None
    select_all = False
    for s in range(min(before, len(steps))):
        step = steps[s]
        p = R._point(step)
        if p is not None and R.clicked(step):
            # the same spot on another page (a post's body where a mail's body was) is another field
            current = next((f for f in found if abs(f.point[1] - p[1]) < 0.02 and abs(f.point[0] - p[0]) < 0.3
                            and _same_page(steps[f.step], step)), None) or Field(p, s)  # fmt: skip
            select_all = False
        for a in R.kids(step.act) if step.error is None else ():
            if a.name == "Hotkey" and {k.casefold() for k in a.keys} >= {"a"} and len(a.keys) == 2:
                select_all = True
            elif a.name == "Type":
                if current is None:
                    current = Field((0.0, 0.0), s)
                if current not in found:
                    found.append(current)
                body = a.content.rstrip("\n")
                current.text = body if select_all else current.text + body
                current.last, select_all = s, False
    if lines is not None:
        for f in found:
            f.label = _label(steps[f.step], f.point, lines)
    return found


def _another_items_form(kp: str, values: list[str], goal: str, steps: Sequence[Evidence], commit: int,
                        here: list[Field]) -> bool:  # fmt: skip
    """The form committed at `commit` holds none of the keypoint's values and is about an item the goal quotes
    elsewhere ("Vendor review.docx", in a later step)."""
    if any(T.contains(kp, f.text) or any(same_value(f.text.strip(), v) for v in values) for f in here):
        return False
    others = [q for q in T.quoted(goal) if not T.contains(kp, q)]
    return any(T.contains(c, q) for c in R.form_context(steps, commit) for q in others)


def _same_page(a: Evidence, b: Evidence) -> bool:
    """Two steps on one page: the same title, or the same URL (a form whose title follows what is typed)."""
    return a.title == b.title or bool(a.url) and a.url == b.url


def _label(step: Evidence, point: tuple[float, float], lines: Lines) -> str:
    """The row just above the point (within two rows, overlapping it sideways) or just left of it on its row."""
    if step.png is None:
        return ""
    from venuskit.verify.images import png_size

    w, h = png_size(step.png)
    x, y = point[0] * w, point[1] * h
    best, dist = "", 1e9
    for (x1, y1, x2, y2), text in lines(step):
        row = y2 - y1
        above = y2 <= y + 2 and y - y2 <= 3 * row + 20 and x1 - 40 <= x
        left = y1 - 6 <= y <= y2 + 6 and x2 <= x
        d = (y - y2) if above else (x - x2) if left else 1e9
        if d < dist:
            best, dist = text, d
    return best


_PAIR = re.compile(r"\b(?:the\s+)?(?P<noun>[a-z][\w ]{1,24}?)\s+[\"“](?P<value>[^\"”]+)[\"”]", re.I)


def _pairs(kp: str) -> dict[str, str]:
    """value -> the noun the keypoint names it by ('the username "emile"' -> emile: username)."""
    out = {}
    for m in _PAIR.finditer(kp):
        noun = m.group("noun").split()[-1]
        if noun.casefold() not in ("text", "enter", "type", "and", "with", "number", "value"):
            out[m.group("value")] = noun
    return out


# "Save X with the IBAN in X's payment request email as a new recipient": a value named by the mail it is in, which
# names its sender; the value typed must be the one that mail showed.
_FROM_SENDERS = re.compile(r"\bthe\s+(?:IBAN|amount|total|reference|code|number|date|time)\b[^,;\"“”]{0,40}?"
                           r"\b(?:in|from)\s+[^,;\"“”]{1,40}?['’]s\s+[^,;\"“”]{0,40}?\b(?:e-?mail|mail|message)\b",
                           re.I)  # fmt: skip


def entered_values(kp: str, steps: Sequence[Evidence], lines: Lines | None, goal: str = "",
                   read: R.Read | None = None) -> Result | None:  # fmt: skip
    found = _entered(kp, steps, lines, goal)
    sourced = _FROM_SENDERS.search(kp)
    if found is None or found[0] != "satisfied" or sourced is None:
        return found
    content = typed_content(kp, steps[: (found[1] or len(steps)) + 1], sourced.group(0))
    if read is None or content is None:
        return "not_visible", None, f"{found[2]}; which value {sourced.group(0)!r} holds, no rule read"
    return as_described(found, found[1], sourced.group(0), content, steps, read, lines)


def _entered(kp: str, steps: Sequence[Evidence], lines: Lines | None, goal: str = "") -> Result | None:
    values = entry_values(kp)
    if not values or not steps or T.described(kp) is not None:  # content described: `described_entry` checks it
        return None
    if T.sourced_value(kp):
        return None  # "on the date X proposes in the email "Y"": Y is no value to type, and the date no field shows
    found = _entered_values(kp, values, steps, lines, goal)
    if found is not None and found[0] == "satisfied" and not _on_its_item(kp, steps, found[1]):
        return None  # a comment went in, but not on a page about the post the keypoint names
    if found is not None and found[0] == "satisfied" and T.own_recipient(kp) \
            and not (found[1] is not None and R.sent_to_own(steps, found[1], lines)):
        return "not_visible", None, f"{found[2]}; sent to the user's own address, which no screen says is theirs"
    if found is not None and found[0] == "satisfied" and found[1] is not None and lines is not None:
        unconfirmed = _unconfirmed(steps, found[1], lines)
        if unconfirmed:
            return "not_visible", None, f"{found[2]}; {unconfirmed}"
    broken = _forbidden_click(kp, steps) if found is not None and found[0] == "satisfied" else None
    if broken is not None:
        return "contradicted", broken, f"the click at step {broken} on {R.target(steps[broken])!r} did what " \
                                       f"the keypoint forbids ({_WITHOUT.search(kp).group(0)!r})"  # fmt: skip
    return found


# A click that moves a form on to its review ("Continue", "下一步"), and the label that then confirms it.
_ONWARD = re.compile(r"^\W*(?:continue|next|review|proceed)\b|^\W*(?:下一步|继续)", re.I)
_CONFIRM = re.compile(r"^\W*confirm\b|^\W*确认", re.I)


def _unconfirmed(steps: Sequence[Evidence], commit: int, lines: Lines) -> str:
    """Why a form moved on to a review that offers a confirming label ("Continue" -> "Confirm transfer") is not
    committed yet: no later click on that label; "" when it was, or when the click was no such step."""
    if commit + 1 >= len(steps) or not _ONWARD.match(R.target(steps[commit])):
        return ""
    offered = [t for _, t in lines(steps[commit + 1]) if _CONFIRM.match(t)]
    if not offered or any(_CONFIRM.match(R.target(e)) for e in steps[commit + 1 :] if R.clicked(e)):
        return ""
    return f"{R.target(steps[commit])!r} led to a review that offers {offered[0]!r}, which the agent never clicked"


def _forbidden_click(kp: str, steps: Sequence[Evidence]) -> int | None:
    """Of "…, without sending money", the first click on a label that starts with the verb and names the object
    ("Send money"); a "Send" of another step's mail names no money."""
    m = _WITHOUT.search(T.unquoted(kp))
    if m is None:
        return None
    verb, what = m.group("verb").lower(), re.findall(r"[a-z]{3,}", m.group("what").lower())
    for s, step in enumerate(steps):
        label = R.target(step).lower()  # only a click or tap has text under it
        if label.startswith(verb) and (not what or any(w in label for w in what)):
            return s
    return None


def _form_about(steps: Sequence[Evidence], s: int, names: list[str]) -> bool:
    """The form committed at step `s` was on a page about every one of `names` (its title, or the title of the page
    it was opened from)."""
    about = R.form_context(steps, s)
    return all(any(T.contains(c, q) for c in about) for q in names)


def _new_lines(before: Evidence, after: Evidence, lines: Lines) -> list[str]:
    """The lines of `after` whose text `before` did not show anywhere: what the click between them made the page
    say ("Saved.", "Password changed.")."""
    old = {T.normalise(t) for _, t in lines(before)}
    return [t for _, t in lines(after) if T.normalise(t) not in old]


def _on_its_item(kp: str, steps: Sequence[Evidence], commit: int | None) -> bool:
    """Of a comment keypoint, the form was on (or opened from) the page of the post it names."""
    m = _COMMENT_ON.match(kp)
    if m is None or commit is None:
        return True
    return _form_about(steps, min(commit, len(steps) - 1), T.quoted(kp[: m.end()]))


def _others_form(kp: str, values: list[str], goal: str, here: list[Field]) -> bool:
    """The form's fields hold what another step of the goal gives ("Room Borealis" for the event, after "Set the
    department to Finance") and none of this keypoint's values: a field the agent worked out (the event's end time
    from "one-hour") does not make it this keypoint's form."""
    if any(same_value(f.text.strip(), v) for f in here for v in values):
        return False
    return any(T.contains(goal, f.text) and not T.contains(kp, f.text) for f in here)


def _entered_values(kp: str, values: list[str], steps: Sequence[Evidence], lines: Lines | None,
                    goal: str) -> Result | None:  # fmt: skip
    rows = task_rows(steps, goal, lines) if goal else None
    typed = [(s, t.strip()) for s in range(len(steps)) for t in R.typed_texts(steps[s])]
    by_rank = bool(_ORDINAL.search(T.unquoted(kp)))
    last_typed = max((s for s, _ in typed), default=-1)
    commit = commit_step(steps, last_typed) if typed else _last_commit(steps)
    if commit is None:
        if typed and _SENDS.match(kp):
            return "contradicted", steps[-1].index, "the agent typed but never sent or submitted the form"
        return None
    if R.OPENS_FORM.match(R.clicked_word(steps[commit]) or ""):
        return None  # Reply, Edit, New event open a form: what was typed before the click was not sent by it
    if _SAVE_AS_NEW.match(kp) and not _saves(R.target(steps[commit]), kp):
        return None  # "Save X as a new recipient": a click away to another page ("Settings") saved nothing
    filled = fields(steps, commit, lines)
    # typing after a click on the goal's own words (the task box) went into no field
    filled = [f for f in filled if not (goal and on_goal_text(steps[f.step], goal, rows))]
    # the fields of the committed page itself (`fields` also keeps those of forms the agent left on other pages)
    here = [f for f in filled if f.text.strip() and steps[f.step].title == steps[commit].title]
    if goal and here and (_others_form(kp, values, goal, here)
                          or _another_items_form(kp, values, goal, steps, commit, here)):  # fmt: skip
        # the last form typed what another step of the goal asks ("quiet cafe" into a search), or was about an item
        # only another step names (a document the goal's last step edits): this keypoint's form, if any, was
        # committed before it
        return _entered_values(kp, values, steps[: min(f.step for f in here)], lines, goal)
    stated = T.stated_text(kp) if _entry(kp) else None

    def same(text: str, v: str) -> bool:  # a stated message is held with or without its closing full stop
        return same_value(text.strip(), v) or v == stated and _bare(text) == _bare(v)

    held = {v: [f for f in filled if same(f.text, v)] for v in values}
    on_form = {v: lines is not None and _fresh_on(steps[commit], steps[0], v, lines) for v in values}
    # what the form is about, named by its page or the page it was opened from ("Reply to the email "X" saying …":
    # X is the mail's title there), is not a value to type
    about = R.form_context(steps, commit)
    named = {v: not held[v] and any(T.contains(c, v) for c in about) for v in values}
    misplaced = _misplaced(kp, filled, held)
    if misplaced:
        return "contradicted", commit, misplaced
    # keystrokes into a time or date widget do not read as its value ("0241A" for 2:41 AM): no "other" text there
    widget = any(_TIME.search(v) or _DATE.search(v) for v in values)
    others = [f for f in filled if f.text.strip() and not widget
              and not any(same(f.text, v) for v in values)]  # fmt: skip
    wrong = [v for v in values if not held[v] and not on_form[v] and not named[v]
             and (others or _SENDS.match(kp) and typed)]  # fmt: skip
    if wrong:
        got = others[-1].text if others else typed[-1][1]
        if same_value(got, wrong[0]):
            return "contradicted", commit, f"{got!r} was typed after a click on the goal's own words, into no field"
        return "contradicted", commit, f"the form was committed at step {commit} with {got!r} typed, not {wrong[0]!r}"
    cut = _cut_word(kp, others)
    if cut:
        return "contradicted", commit, cut
    shown = _widget_shows(values, steps[commit], steps[0], lines) if widget else None
    if shown:
        return "contradicted", commit, f"the form committed at step {commit} showed {shown!r}, not {values}"
    if _each(kp) and others:  # "into both text fields": every field gets the value
        return "contradicted", commit, f"a field held {others[-1].text!r}; the keypoint asks for {values} in each"
    if by_rank:
        return None  # which field is "the 2nd" the pixels do not say; only a wrong value is decided
    if all(held[v] or on_form[v] or named[v] for v in values) and not all(named.values()):
        if not _renamed_item_shown(kp, steps, typed[0][0] if typed else commit, lines):
            return None  # the new name went in, but whose form it was the screens do not say
        if not _saved_as_asked(kp, steps[commit]):
            return None  # ", then save": the form was left by another click
        if R.sends_mail(kp) and not R.sends(steps[commit]) or not R.opened_as_asked(kp, steps, commit):
            return None  # a mail goes only by its Send (a click on the menu or away left it unsent, or sent it
            # later), and a reply or forward in the form its own control opened
        where = {v: "on the form" if on_form[v] else "named by the page" if named[v] else
                 f"in the field typed at step {held[v][-1].last}" for v in values}  # fmt: skip
        how = [f"{v!r} {w}" for v, w in where.items()]
        word = R.clicked_word(steps[commit])
        by = f" on {word!r}" if word else ""
        return "satisfied", commit, f"{', '.join(how)} when the form was committed by the click at step {commit}{by}"
    return None


# A keypoint that ends in its save (", then save", "并保存"): only a click on a saving label commits it.
_THEN_SAVE = re.compile(r",\s+then\s+save$|(?:并|然后|，)\s*保存$", re.I)


def _saved_as_asked(kp: str, commit: Evidence) -> bool:
    return not _THEN_SAVE.search(kp.strip().rstrip(".。")) or bool(_SAVE.match(R.target(commit)))


# "Add the line "X" at the end of the document "Y"": X is typed into Y's body, which a save commits.
_APPEND = re.compile(r"^\s*(?:add|append)\s+(?:the\s+|a\s+)?(?:line|text|sentence|note|paragraph)\s+(?=[\"“])", re.I)
_AT_END = re.compile(r"\bat the (?:end|bottom)\b|末尾|结尾", re.I)


def appended_line(kp: str, steps: Sequence[Evidence], lines: Lines | None,
                  read: R.Read | None = None) -> Result | None:  # fmt: skip
    """"Add the line "X" at the end of the document "Y"": X was typed on Y's page (or a page opened from it), a click
    committed it and changed the screen, and the committed screen shows X; with "at the end", no line of the
    document's column stands below it. "Add the bank reference of the X payment on <day> at the end of the document
    "Y"": the line typed there is the content, checked as the answer to the question its description asks (as
    described content is)."""
    quoted = T.quoted(kp)
    if lines is None or not quoted:
        return None
    if _APPEND.match(kp) is not None:
        return _appended(kp, quoted[0], quoted[1:], steps, lines)
    m = _APPEND_ABOUT.match(kp)
    if m is None or read is None or T.sourced_value(m.group("about")) and not _IDENTIFIER.match(m.group("about")):
        return None  # a value named by its source ("the time X proposes in the email "Q""): no screen says which
    content = typed_content(kp, steps)
    if content is None:
        return None
    placed = _appended(kp, content[1], T.quoted(kp[m.end() :]), steps, lines)  # the document's name, not the source's
    if placed is None or placed[0] != "satisfied":
        return placed
    return as_described(placed, placed[1], m.group("about"), content, steps, read, lines)


# "the reference number in the email "Q"": an identifier named by its source is one code, which the answer rules
# find on the source's screen (unlike a time or a place it "proposes", of which a mail may give several)
_IDENTIFIER = re.compile(r"^\s*the\s+(?:[\w-]+\s+)?(?:reference|code|number|id)\b(?:\s+number)?\s+(?:in|from)\b", re.I)
# "Add the bank reference of the X payment on 2024-03-08 at the end of the document "Y"": a line described, not quoted.
_APPEND_ABOUT = re.compile(r"^\s*(?:add|append)\s+(?P<about>the\s+.+?)\s+at the (?:end|bottom) of\s+the\s+"
                           r"(?:document|file|note)\s+(?=[\"“])", re.I)  # fmt: skip


def _appended(kp: str, value: str, items: list[str], steps: Sequence[Evidence], lines: Lines) -> Result | None:
    """`value` typed on a page about `items`, committed, and shown after the commit (at the end, when asked)."""
    last = max((s for s in range(len(steps)) for t in R.typed_texts(steps[s]) if T.contains(t, value)), default=None)
    commit = commit_step(steps, last) if last is not None else None
    if commit is None or commit + 1 >= len(steps):
        return None
    if not _form_about(steps, commit, items):
        return None  # typed and saved, but in no page about the document the keypoint names
    if not _saved_as_asked(kp, steps[commit]):
        return None  # ", then save": a click away to another app ("Mail") kept nothing
    shown = lines(steps[commit + 1])
    box = next((b for b, t in shown if T.ocr_contains(t, value)), None)
    if box is None:
        return None
    kept = {T.normalise(t) for _, t in lines(steps[commit])}  # the document's lines; a fresh "Saved." is none
    below = [t for b, t in _column(shown, box) if b[1] > box[3] and T.normalise(t) in kept]
    if _AT_END.search(T.unquoted(kp)) and below:
        return "contradicted", commit + 1, f"{value!r} was saved with a line of the document below it"
    return "satisfied", commit + 1, f"{value!r} typed on {steps[commit].title!r}, committed at step {commit} by " \
                                    f"{R.clicked_word(steps[commit])!r}, and shown after it"  # fmt: skip


# "Save the attachment of X's email "Q" to Drive": a click that puts an item somewhere, and the page's word it did.
_PUT_TO = re.compile(r"^\s*(?P<verb>(?i:save|copy|move))\b.*\bto\s+(?:the\s+|your\s+)?"
                     r"(?P<place>[A-Z][\w-]*(?: [A-Z][\w-]*)?)\s*$")  # fmt: skip
_ZH_PUT_TO = re.compile(r"(?P<verb>保存|复制|移动)(?:到|至)(?P<place>[\u4e00-\u9fff]{2,4}?)(?=[中里内并，,。]|$)")
_PAST = {"save": "saved", "copy": "copied", "move": "moved", "保存": "已保存", "复制": "已复制", "移动": "已移动"}
# "… then open it from Drive to check it is there", "在云盘中打开确认": the item just put there, opened from there.
_OPEN_FROM = re.compile(r"^\s*open\s+(?:it|them|the file)\s+(?:from|in)\s+(?:the\s+|your\s+)?(?P<place>[A-Z][\w-]*)\b"
                        r"|在(?P<zh>[\u4e00-\u9fff]{2,4}?)(?:中|里)打开")  # fmt: skip
_FILE_NAME = re.compile(r"[^\s/\\]+\.(?:pdf|docx?|xlsx?|pptx?|csv|txt|png|jpe?g|zip)\b", re.I)


def _put_asked(kp: str) -> tuple[str, str] | None:
    """The verb and the place of a keypoint that puts an item somewhere ("save", "Drive"; "保存", "云盘")."""
    m = _PUT_TO.match(T.unquoted(kp).strip(" .")) or _ZH_PUT_TO.search(R.own_words(kp))
    return (m.group("verb").casefold(), m.group("place")) if m else None


def put_to(kp: str, steps: Sequence[Evidence], lines: Lines | None) -> Result | None:
    """"Save the attachment of … email "Q" to Drive" ("把邮件“Q”的附件保存到云盘"): on a page about Q, the agent
    clicked a label that starts with the verb ("Save to Drive", "保存到云盘"), and the next screen says, freshly, that
    it was done there ("Saved to Drive", "已保存到云盘")."""
    asked, quoted = _put_asked(kp), T.quoted(kp)
    if asked is None or not quoted or lines is None:
        return None
    s = _put_step(*asked, quoted, steps, lines)
    if s is None:
        return None
    done = f"on {steps[s].title!r} the agent clicked {_control(steps[s], lines)!r}; the page then said it was " \
           f"{_PAST[asked[0]]} to {asked[1]}"  # fmt: skip
    if R.one_click_verbs(kp):  # "…保存到云盘并在云盘中加星标": the star is asked too, and the save alone shows half
        acted = _then_acted(kp, s, steps, lines)
        return None if acted is None else ("satisfied", acted[0] + 1, f"{done}; {acted[1]}")
    return "satisfied", s + 1, done


def _then_acted(kp: str, s: int, steps: Sequence[Evidence], lines: Lines) -> tuple[int, str] | None:
    """After a save at step `s`, every icon act the keypoint also asks done on the saved file's row (`icon_act`): the
    file is the one file name the page of the save showed, of the kind the keypoint names ("PDF")."""
    verbs = R.one_click_verbs(kp)
    if any(v not in _ICON_ACTS for v in verbs):
        return None
    kind = re.search(r"\b(pdf|docx?|xlsx?|pptx?|csv|txt)\b", kp, re.I)
    files = {t.strip() for _, t in lines(steps[s]) if T.FILE_EXT.search(t.strip()) and
             (kind is None or t.strip().casefold().endswith("." + kind.group(1).casefold()))}  # fmt: skip
    if len(files) != 1:
        return None  # no file, or two the act could be on
    name = files.pop()
    acts = [(verb, _icon_act_on(verb, name, steps, lines)) for verb in verbs]
    if any(found is None or found[0] <= s for _, found in acts):
        return None
    return max(found[0] for _, found in acts), "; ".join(f"{verb} {name!r}: the click at step {found[0]} on an icon "
                                                         f"on its row {found[1]}" for verb, found in acts)  # fmt: skip


def _put_step(verb: str, place: str, about: list[str], steps: Sequence[Evidence], lines: Lines) -> int | None:
    """The latest step that clicked a label starting with `verb` on a page about all of `about` (any page, for []),
    after which the next screen said, in a line it did not show before, that it was done to `place`."""
    said = re.compile(re.escape(_PAST[verb]) + "(?:to|到|至)" + re.escape(re.sub(r"\W", "", place.casefold())))
    for s in range(len(steps) - 2, -1, -1):
        label = re.sub(r"\W", "", _control(steps[s], lines).casefold())
        if not R.clicked(steps[s]) or not label.startswith(verb) or _PAST[verb] in label:
            continue
        if not all(any(T.contains(c, q) for c in R.context(steps, s)) for q in about):
            continue
        before = {re.sub(r"\W", "", t.casefold()) for _, t in lines(steps[s])}
        if any(said.search(re.sub(r"\W", "", t.casefold())) and re.sub(r"\W", "", t.casefold()) not in before
               for _, t in lines(steps[s + 1])):  # fmt: skip
            return s
    return None


def _wrapped_at(shown: tuple, x: float, y: float) -> str | None:
    """A label that wraps ("Saveto" over "Drive") read at a point between its two lines: the lines right above and
    below it, both across its x, less than a line's height apart; None when there are no such lines."""
    across = [(b, t) for b, t in shown if b[0] - 4 <= x <= b[2] + 4]
    above, below = [r for r in across if r[0][3] <= y], [r for r in across if r[0][1] >= y]
    if not above or not below:
        return None
    (a, top), (b, bottom) = max(above, key=lambda r: r[0][3]), min(below, key=lambda r: r[0][1])
    return f"{top} {bottom}" if b[1] - a[3] < min(a[3] - a[1], b[3] - b[1]) else None


def _control(step: Evidence, lines: Lines) -> str:
    """The whole label of the control a click was on: the text under it, with the lines stacked on it in the same
    column (a button whose label wraps: "Saveto" over "Drive")."""
    point, under = R._point(step), R.target(step)
    if point is None or step.png is None:
        return under
    w, h = png_size(step.png)
    x, y = point[0] * w, point[1] * h
    hit = next((b for b, _ in lines(step) if b[0] - 4 <= x <= b[2] + 4 and b[1] - 4 <= y <= b[3] + 4), None)
    if hit is None:  # the click between the two lines of the label, at the button's centre
        return _wrapped_at(lines(step), x, y) or under
    # lines of the same column right above or below the hit one (a gap of about half a line: a list's next row is
    # further away)
    gap = 0.6 * (hit[3] - hit[1])
    stack = [(b, t) for b, t in lines(step) if b[0] < hit[2] and b[2] > hit[0]
             and (b == hit or -gap <= hit[1] - b[3] <= gap or -gap <= b[1] - hit[3] <= gap)]  # fmt: skip
    return " ".join(t for _, t in sorted(stack, key=lambda r: r[0][1])) if len(stack) > 1 else under


def _same_name(title: str, read: str) -> bool:
    """A page title (exact) and a file name OCR read: the same, up to one misread character in a long name."""
    if title == read:
        return True
    return len(title) == len(read) >= 8 and sum(a != b for a, b in zip(title, read, strict=True)) <= 1


def opened_from(kp: str, goal: str, steps: Sequence[Evidence], lines: Lines | None) -> Result | None:
    """"… then open it from Drive to check it is there" after "Save the attachment … to Drive": after the click that
    put the item there (`put_to`), a page titled with a file name that page showed was opened in another app."""
    m = _OPEN_FROM.search(kp)
    put = next((a for clause in re.split(r"[,，;；]|\bthen\b|然后", goal) if (a := _put_asked(clause))), None)
    if m is None or put is None or lines is None or (m.group("place") or m.group("zh")) != put[1]:
        return None
    s = _put_step(*put, [], steps, lines)
    if s is None:
        return None
    names = [T.normalise(n) for _, t in lines(steps[s]) for n in _FILE_NAME.findall(t)]
    for e in steps[s + 1:]:
        title = T.normalise(R.page_item(e.title))
        if any(_same_name(title, n) for n in names) and R.section(e.url) != R.section(steps[s].url):
            return "satisfied", e.index, f"after the click at step {s} put it there, the page {e.title!r} was opened"
    return None


# An order placed: "Buy one Juniper Desk Plant with standard delivery to your home address, paid with your saved Visa
# card", "Place the order (standard delivery home, Visa)", "提交订单（标准配送到家，Visa 支付）", "Pay with the
# Mastercard".
_PLACE = re.compile(r"^\W*(?:place\s*(?:the\s*)?order|buy\s*now|pay\s*now|confirm\s*order|submit\s*order"
                    r"|提交订单|立即购买|确认下单)", re.I)  # fmt: skip
_ORDER_PAGE = re.compile(r"(?:order|订单)\s*#\s*\d+", re.I)
# What a keypoint asks of the order -> what the order's page says when it was done so (its option's own words).
_OPTIONS = {r"\bstandard\b|标准": r"standard|标准", r"\bexpress\b|加急": r"express|加急",
            r"\bnext[- ]day\b|次日": r"next-?day|次日", r"\bvisa\b": r"visa", r"\bmastercard\b": r"mastercard",
            r"\binvoice\b|发票": r"invoice|发票", r"\bgift card\b|礼品卡": r"gift ?card|礼品卡"}  # fmt: skip
_ADDRESS = {r"\bhome\b|到家|家庭": r"home|家", r"\boffice\b|公司": r"office|公司"}
_BUY_ITEM = re.compile(r"^\s*(?:buy|order|purchase)\s+(?P<qty>one|a|an|two|three|four|five|\d+)\s+(?:of\s+the\s+)?"
                       r"(?P<item>[A-Z][^,:(]*?)(?=\s+(?:with|for|to|by|and|paid)\b|\s*[,:(]|\s*$)", re.I)  # fmt: skip
_ZH_BUY_QTY = re.compile(r"(?P<qty>\d+|[一二两三四五六七八九十])\s*[件个份]\s*[“\"]")


def ordered(kp: str, steps: Sequence[Evidence], lines: Lines | None) -> Result | None:
    """An order keypoint: the agent clicked a label that places the order ("Place order", "提交订单") and the next page
    is the order ("Order #50001"). On that page stand the item the keypoint names (with its count, where it gives
    one), each delivery and payment option it asks for, and the address under the label it names on the checkout
    screen ("Home", "家"); one of them missing leaves the keypoint undecided (OCR may have missed it). An order the
    keypoint does not name ("the cheapest product …"): left to a rule that ranks it."""
    own = T.unquoted(kp)
    if not R.ORDER_KP.match(own) or lines is None or _MOST.search(own) or _LEAST.search(own):
        return None
    s = next((i for i in range(len(steps) - 2, -1, -1) if R.clicked(steps[i]) and _PLACE.match(R.target(steps[i]))
              and _ORDER_PAGE.search(steps[i + 1].title or "")), None)  # fmt: skip
    if s is None:
        return None
    shown = lines(steps[s + 1]) if steps[s + 1].png is not None else ()
    # in reading order, and column by column (a name that wraps: "ErgonomicSeat" over "Cushion")
    by_column = sorted(shown, key=lambda r: (r[0][0] // 8, r[0][1]))
    page = " ".join(t for _, t in shown) + " | " + " ".join(t for _, t in by_column)
    m = _BUY_ITEM.match(own)
    items = T.quoted(kp) or ([m.group("item")] if m else [])
    missing = [i for i in items if not T.ocr_contains(page, i)]
    if missing:
        return "not_visible", None, f"the order placed at step {s} does not show {missing}"
    qty = (_count(m.group("qty")) or 1) if m and m.group("qty") else None
    z = _ZH_BUY_QTY.search(kp)
    qty = _count(z.group("qty")) if z else qty
    if qty is not None and not re.search(rf"(?:quantity|qty|数量)\W*{qty}(?!\d)|[x×]\s*{qty}(?!\d)", page, re.I):
        return "not_visible", None, f"the order's page does not show the count {qty}"
    for asks, says in _OPTIONS.items():
        if re.search(asks, own, re.I) and not re.search(says, page, re.I):
            return "not_visible", None, f"the order placed at step {s} does not say {says!r}"
    checkout = [e for e in steps[: s + 1] if e.url == steps[s].url]  # the checkout page, scrolled or not
    for asks, label in _ADDRESS.items():
        if re.search(asks, own, re.I) and not any(_ships_to(label, e, page, lines) for e in reversed(checkout)):
            return "not_visible", None, "the order's page does not show the address the keypoint names"
    return "satisfied", s + 1, f"the agent clicked {R.target(steps[s])!r} at step {s}; {steps[s + 1].title!r} " \
                               "shows what the keypoint asks"  # fmt: skip


def _ships_to(label: str, checkout: Evidence, page: str, lines: Lines) -> bool:
    """The address the checkout screen gives under `label` ("Home · Alex Morgan" over "12 Elm St …") stands on the
    order's page (its first ten characters: the page may wrap it)."""
    screen = lines(checkout) if checkout.png is not None else ()
    heads = [b for b, t in screen if re.match(rf"^\W*(?:{label})\b", t.strip(), re.I) or
             re.match(rf"^\W*(?:{label})(?:\W|$)", t.strip(), re.I)]  # fmt: skip
    for head in heads:
        below = [(b, t) for b, t in screen if 0 <= b[1] - head[3] <= 40 and abs(b[0] - head[0]) <= 40]
        for first, _ in below:  # each line under the label, whole: OCR may cut it at a comma ("北风科技，" "海淀区")
            row = sorted((b, t) for b, t in screen if abs(b[1] - first[1]) <= 6 and b[0] >= first[0])
            address = "".join(t for _, t in row)
            if len(T.normalise(address)) >= 8 and T.normalise(address)[:10] in T.normalise(page):
                return True
    return False


# "Show only the money coming in on your checking account since 2024-03-01", "只查看收入": a list narrowed by a
# filter form, its values carried by the URL (or shown in the form once it was applied).
_SHOW_ONLY = re.compile(r"^\s*(?:show|list|display|view|see)\s+only\b|^\s*filter\b"
                        r"|^\s*(?:请)?(?:只|仅)(?:查看|显示|看|列出)|^\s*筛选", re.I)  # fmt: skip
# The direction of money a keypoint asks: its words, the URL parameter that carries it, a form's shown choice.
_FLOW = [(r"\b(?:coming in|incoming|income|deposits?|money in)\b|收入|入账|转入",
          r"(?:dir|direction|flow|type|kind)=(?:in|incoming|income|credit)\b", r"^\W*(?:money in|incoming|转入)\W*$"),
         (r"\b(?:going out|outgoing|spending|expenses?|money out)\b|支出|出账|转出",
          r"(?:dir|direction|flow|type|kind)=(?:out|outgoing|expense|debit)\b",
          r"^\W*(?:money out|outgoing|转出)\W*$")]  # fmt: skip
_ACCOUNTS = (r"checking|活期", r"savings|储蓄", r"credit card|信用卡")
_APPLY = re.compile(r"^\W*(?:filter|apply|search|show|go|筛选|应用|搜索|查询)\b", re.I)


def filtered(kp: str, steps: Sequence[Evidence], lines: Lines | None) -> Result | None:
    """A "show only …" keypoint: on the final page (the account it names, by its title), each date it gives and the
    direction of money it asks ("coming in") are in the URL's query, or, with OCR, the date stands in the form and
    the last click before the end applied it ("Filter") and changed the list. Undecided otherwise."""
    own = T.unquoted(kp)
    if not _SHOW_ONLY.match(own) or len(steps) < 2:
        return None
    last = steps[-1]
    for pattern in _ACCOUNTS:
        if re.search(pattern, own, re.I) and not re.search(pattern, last.title or "", re.I):
            return None
    query, screen = R.tail(last.url), [t for _, t in lines(last)] if lines and last.png is not None else []
    for asks, param, shown in _FLOW:
        if re.search(asks, own, re.I) and not re.search(param, query, re.I) and \
                not any(re.search(shown, t, re.I) for t in screen):  # fmt: skip
            return None
    dates = ISO_DATE.findall(own)
    if not dates or not all(d in query for d in dates) and not (_applied(steps, lines) and all(
            any(d in t for t in screen) for d in dates)):  # fmt: skip
        return None
    return "satisfied", last.index, f"the final page {last.title!r} is filtered by {dates} ({query or 'its form'})"


def _applied(steps: Sequence[Evidence], lines: Lines | None) -> bool:
    """The agent's last click before the end was on a label that applies a filter, and it changed the screen."""
    clicks = [s for s in range(len(steps) - 1) if R.clicked(steps[s])]
    return bool(clicks) and lines is not None and bool(_APPLY.match(R.target(steps[clicks[-1]]))) and \
        R._changed(steps[clicks[-1]], steps[clicks[-1] + 1])  # fmt: skip


# "Change the quantity of the Juniper Desk Plant in your cart from one to two": a count a cart shows under the item.
_QUANTITY = re.compile(r"^\s*(?:change|set|update|increase|decrease|raise|lower)\s+the\s+quantity\s+of\s+(?:the\s+)?"
                       r"(?P<item>.+?)\s+in\s+(?:your\s+|the\s+)?(?:shopping\s+)?(?:cart|basket)\s+"
                       r"(?:from\s+(?P<old>\w+)\s+)?to\s+(?P<new>\w+)\s*[.。]?$", re.I)  # fmt: skip
# "把“冰川羊毛袜”改成 2 件", "将“X”的数量改为两个", "购物车里的“X”需要 3 件": a count with its measure word (or the
# word 数量), so no other change.
_ZH_QUANTITY = re.compile(r"[“\"](?P<item>[^”\"]+)[”\"](?P<of>的数量)?\s*"
                          r"(?:改成|改为|调成|调到|调整为|设为|增加到|减少到|加到|减到|需要|要)\s*"
                          r"(?P<new>\d{1,3}|[一二两三四五六七八九十])\s*"
                          r"(?P<unit>[件个份支双盒瓶本包套])?")  # fmt: skip
_COUNTS = {w: i for i, w in enumerate(["zero", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine",
                                       "ten"])}  # fmt: skip
_COUNTS |= {w: i + 1 for i, w in enumerate("一二三四五六七八九十")} | {"两": 2}


def cart_quantity(kp: str, steps: Sequence[Evidence], lines: Lines | None) -> Result | None:
    """The last screen that shows the item with a count under it (the cart's quantity: a lone number below the name,
    within a few lines) shows the count asked for, and an earlier one showed another (the agent changed it). Left
    there with another count (no click on that page after it): contradicted."""
    m = _QUANTITY.match(kp) or _ZH_QUANTITY.search(kp)
    if m is not None and m.re is _ZH_QUANTITY and not (m.group("of") or m.group("unit")):
        m = None
    new = _count(m.group("new")) if m else None
    if m is None or new is None or lines is None:
        return None
    item = (T.quoted(kp) or [m.group("item")])[0]
    seen = [(s, q) for s in range(len(steps)) if steps[s].png is not None
            for q in [_quantity_near(lines(steps[s]), item)] if q is not None]  # fmt: skip
    if not seen:
        return None
    s, q = seen[-1]
    if q == new and seen[0][1] != new:
        return "satisfied", steps[s].index, f"the quantity under {item!r} went from {seen[0][1]} to {q} (step {s})"
    later = any(R.clicked(e) and e.title == steps[s].title for e in steps[s + 1 :])
    if q != new and not later:
        return "contradicted", steps[s].index, f"the cart was left with {q} under {item!r}, not {new}"
    return None


def _count(word: str) -> int | None:
    word = word.casefold()
    return int(word) if word.isdigit() else _COUNTS.get(word)


def _quantity_near(shown: tuple, item: str) -> int | None:
    """The lone number nearest below the line that reads `item`, within four of its heights and its width's reach."""
    box = next((b for b, t in shown if T.ocr_contains(t, item)), None)
    if box is None:
        return None
    height = box[3] - box[1]
    near = [(b[1] - box[3], int(t.strip())) for b, t in shown if re.fullmatch(r"\d{1,3}", t.strip())
            and 0 <= b[1] - box[3] <= 4 * height and box[0] - 60 <= b[0] <= box[2] + 60]  # fmt: skip
    return min(near)[1] if near else None


# "Put one Gel Pens (10) in your shopping cart", "Add a Juniper Desk Plant to the cart": one of an item, added.
_TO_CART = re.compile(r"^\s*(?:put|add|place)\s+(?:one|a|an|1)\s+(?P<item>.+?)\s+(?:in|into|to)\s+(?:your\s+|the\s+)?"
                      r"(?:shopping\s+)?(?:cart|basket)\s*[.。]?$", re.I)  # fmt: skip
_ADD_TO_CART = re.compile(r"^\W*(?:add\s*to\s*(?:cart|basket)|加入购物车)", re.I)


def added_to_cart(kp: str, steps: Sequence[Evidence]) -> Result | None:
    """"Put one X in your shopping cart": on a page about X (its title, or the page it was opened from), the agent's
    last click on "Add to cart" changed the screen. Any count other than one is left to the cart's own rules."""
    m = _TO_CART.match(kp)
    if m is None:
        return None
    item = (T.quoted(kp) or [m.group("item")])[0]
    for s in range(len(steps) - 2, -1, -1):
        if not R.clicked(steps[s]) or not _ADD_TO_CART.match(R.target(steps[s])):
            continue
        if any(T.contains(c, item) for c in R.context(steps, s)) and R._changed(steps[s], steps[s + 1]):
            return "satisfied", s + 1, f"on {steps[s].title!r} the agent clicked {R.target(steps[s])!r}"
        return None  # the last "Add to cart" was on another item's page
    return None


# "Request a return of X from order #N because it arrived damaged": a form committed by the keypoint's own verb, with
# the reason picked on it.
_BECAUSE = re.compile(r"^\s*(?P<verb>[a-z]+)\b(?P<what>.*?)\s+because\s+(?:it|they|he|she)?\s*(?P<why>[^,.;]+?)\s*$",
                      re.I)
_ORDER_NO = re.compile(r"#\s?\d{3,}")


def reasoned_request(kp: str, steps: Sequence[Evidence], lines: Lines | None) -> Result | None:
    """A request with its reason: the agent's last click on a label made of the keypoint's words, starting with its
    verb ("Request return"), was on a page about the order it names (#N) showing the item; the last labelled click
    on that form before it was the reason ("Arrived damaged"); the next screen shows the item and says, freshly,
    that it was done ("Return requested")."""
    m = _BECAUSE.match(T.unquoted(kp).strip(" ."))
    if m is None or lines is None:
        return None
    verb, why = m.group("verb").casefold(), T.normalise(m.group("why"))
    words = set(re.findall(r"[a-z]+", kp.casefold()))
    items = T.quoted(kp) + T.proper_names(m.group("what"))
    codes = _ORDER_NO.findall(m.group("what"))
    for s in range(len(steps) - 2, -1, -1):
        label = re.findall(r"[a-z]+", R.target(steps[s]).casefold())
        if not R.clicked(steps[s]) or not label or label[0] != verb or not set(label) <= words:
            continue
        start = R._form_start(steps, s)
        picked = [R.target(steps[p]) for p in range(start, s) if R.clicked(steps[p]) and R.target(steps[p])]
        if not picked or T.normalise(picked[-1]) != why:
            return None  # the reason last picked on the form is not the keypoint's (or none was picked)
        shown = " ".join(t for _, t in lines(steps[s]))
        if not all(T.ocr_contains(shown, q) or any(T.contains(c, q) for c in R.context(steps, s))
                   for q in items + codes):  # fmt: skip
            return None
        after = " ".join(t for _, t in lines(steps[s + 1]))
        done = [t for t in _new_lines(steps[s], steps[s + 1], lines) if _said_done(t, label)]
        if done and all(T.ocr_contains(after, q) for q in items):
            return "satisfied", s + 1, f"{picked[-1]!r} picked, {R.target(steps[s])!r} clicked at step {s}; the " \
                                       f"page then said {done[0]!r}"  # fmt: skip
        return None
    return None


def _said_done(line: str, label: list[str]) -> bool:
    """A line that reports the label's act done: its object and the verb in the past ("Return requested." for
    "Request return")."""
    said = re.findall(r"[a-z]+", line.casefold())
    verb, rest = label[0], label[1:]
    done = any(w.startswith(verb) and w.endswith("ed") for w in said) and all(w in said for w in rest)
    return done and not _REFUSED.search(line)


# A line that reports a change done ("Password changed.", "密码已更新"), and one that refuses it ("… must have 8
# characters", "Passwords do not match").
_DONE = re.compile(r"\b(?:changed|updated|saved|set|reset)\b|已(?:更改|修改|更新|保存|重置)|成功", re.I)
_REFUSED = re.compile(r"\b(?:must|invalid|incorrect|wrong|error|failed|not|cannot|can't|doesn't|don't)\b|"
                      r"必须|错误|失败|不", re.I)  # fmt: skip
# Fields that show dots for what was typed: what went into them only the log and the page's answer tell.
_MASKED = re.compile(r"\b(?:password|passcode|pin)\b|密码", re.I)


_ZH_CHANGE_LABEL = re.compile(r"^\W*(?:修改|更改|重置|设置|确认)")  # "修改密码": a change committed in Chinese


def masked_entry(kp: str, steps: Sequence[Evidence], lines: Lines | None) -> Result | None:
    """"Change your password from "A" to "B"": every quoted value was typed (in the keypoint's order) into fields that
    did not show it (masked), on one page; then a click on a label made of the keypoint's own words ("Change
    password", "Save") changed the screen, and a fresh line on it names what the keypoint changes ("Password
    changed."). The pixels cannot show which value went into which masked field; the order of typing stands in."""
    values = T.quoted(kp)
    if not values or lines is None or not _MASKED.search(T.unquoted(kp)) or not R.positive(kp):
        return None
    typed = [(s, t.strip()) for s in range(len(steps)) for t in R.typed_texts(steps[s])]
    at = _typed_in_order(values, typed)
    if at is None:
        return None
    last = max(s for s, t in typed if t in values)
    shown = any(e.png is not None and T.ocr_contains(" ".join(t for _, t in lines(e)), v)
                for e in steps[at[0]:last + 2] for v in values)  # fmt: skip
    commit = commit_step(steps, last)
    if shown or commit is None or commit + 1 >= len(steps) or R.page(steps[commit])[1] != R.page(steps[at[0]])[1]:
        return None  # a value on screen is no masked field's; `entered_values` reads it
    label = R.clicked_word(steps[commit]) or ""
    own = set(re.findall(r"[a-z]+", T.unquoted(kp).casefold()))
    words = re.findall(r"[a-z]+", label.casefold())
    if not (words and set(words) <= own or R._SUBMIT_LABEL.match(label) or _ZH_CHANGE_LABEL.match(label)) \
            or R.OPENS_FORM.match(label):  # fmt: skip
        return None
    fresh = [t for t in _new_lines(steps[commit], steps[commit + 1], lines) if _MASKED.search(t) and _DONE.search(t)
             and not _REFUSED.search(t)]  # "The new password must have …" names it too, and refuses it  # fmt: skip
    if not fresh:
        return None
    return "satisfied", commit + 1, f"typed {values} into masked fields, committed by {label!r} at step {commit}; " \
                                    f"the page then said {fresh[0]!r}"  # fmt: skip


def _typed_in_order(values: list[str], typed: list[tuple[int, str]]) -> list[int] | None:
    """The steps at which each value was first typed, each after the one before; None when one was not."""
    at: list[int] = []
    for v in values:
        s = next((s for s, t in typed if t == v and (not at or s > at[-1])), None)
        if s is None:
            return None
        at.append(s)
    return at


def _renamed_item_shown(kp: str, steps: Sequence[Evidence], start: int, lines: Lines | None) -> bool:
    """For a rename: the item's old name was on the screen (or in the title) where the agent began typing, so the
    form was that item's (a rename of another item gives the right new name to the wrong one). True otherwise."""
    rename = _RENAME.match(kp)
    if rename is None:
        return True
    old = T.quoted(kp[: rename.end()])
    step = steps[start]
    shown = (step.title or "") + " " + (" ".join(t for _, t in lines(step)) if lines is not None else "")
    return bool(old) and all(T.ocr_contains(shown, name) for name in old)


def _widget_shows(values: list[str], step: Evidence, first: Evidence, lines: Lines | None) -> str | None:
    """A time or date widget showing another time or date on the committed form (the value set wrong)."""
    if lines is None:
        return None
    for t in fresh_texts(step, first, lines):
        parsed = _TIME.search(t) or _SPACED_TIME.search(t) or _DATE.search(t)
        if parsed and not any(same_value(t, v) for v in values):
            return t
    return None


def _misplaced(kp: str, filled: list[Field], held: dict[str, list[Field]]) -> str | None:
    """A value the keypoint names by its field ('the username "emile"') typed into a field whose label names
    another of the keypoint's fields, or that field holding something else. Only values to be entered count (a
    rename's old name is the item's, never typed)."""
    pairs = {v: n for v, n in _pairs(kp).items() if v in held}
    nouns = {n.casefold() for n in pairs.values()}
    for value, noun in pairs.items():
        mine = [f for f in filled if f.label and T.ocr_contains(f.label, noun)]
        for f in held.get(value, []):
            theirs = [n for n in nouns if n != noun.casefold() and f.label and T.ocr_contains(f.label, n)]
            if theirs and not T.ocr_contains(f.label, noun):
                return f"{value!r} was typed into the field labelled {f.label!r}, not the {noun} field"
        for f in mine:
            if f.text.strip() and not same_value(f.text.strip(), value):
                return f"the field labelled {f.label!r} held {f.text!r}, not {value!r}"
    return None


def affix_entry(kp: str, steps: Sequence[Evidence], lines: Lines | None) -> Result | None:
    """"Enter an item that starts with "Par"": on the committed form, a fresh text that starts (ends) with it and
    is more than it, and that the page itself offered before it was committed (a suggestion, a list item)."""
    found = list(_AFFIX.finditer(kp))
    if not found or not _entry(kp) or lines is None or not steps:
        return None
    commit = _last_commit(steps) or commit_step(steps, max((s for s in range(len(steps)) if R.typed_texts(steps[s])),
                                                           default=-1))  # fmt: skip
    if commit is None or steps[commit].png is None:
        return None
    old = {(T.normalise(t), b[1] // 8) for b, t in lines(steps[0])}
    fresh = [t.strip() for b, t in lines(steps[commit]) if (T.normalise(t), b[1] // 8) not in old]
    fits = [t for t in fresh if all(_fits(t, m) for m in found)]
    if not fits:
        return "contradicted", commit, f"no entry on the form committed at step {commit} fits {kp!r} ({fresh[:4]})"
    offered = [t for t in fits if any(T.normalise(x) == T.normalise(t) for e in steps[:commit] if e.png is not None
                                      for b, x in lines(e) if (T.normalise(x), b[1] // 8) not in old)]  # fmt: skip
    if not offered:
        return None
    return "satisfied", commit, f"{offered[0]!r} on the form committed at step {commit}, offered by the page before"


def affix_of(kp: str) -> bool:
    """The keypoint quotes how an entry starts or ends ("an item that starts with "Par""), not the entry."""
    return bool(_AFFIX.search(kp))


def _fits(text: str, m: re.Match[str]) -> bool:
    want, got = m.group("text").casefold(), text.casefold()
    ok = got.endswith(want) if m.group("kind").casefold() == "ends" else got.startswith(want)
    return ok and len(got) > len(want)


def _cut_word(kp: str, others: list[Field]) -> str | None:
    """A field holds a near miss of one of the keypoint's own words ("thrill" for "thriller movies"): that value was
    asked for, and it is not what went in."""
    words = re.findall(r"[^\W\d_]{3,}", T.unquoted(kp))
    for f in others:
        text = f.text.strip()
        miss = next((w for w in words if len(text) >= 3 and near_miss(text, w) and w.casefold().startswith(
            text.casefold())), None)  # fmt: skip
        if miss:
            return f"the field typed at step {f.last} holds {text!r}, a cut of the goal's {miss!r}"
    return None


def near_miss(typed: str, wanted: str) -> bool:
    """A typed text that stands for the wanted one but is not it: a prefix, an extension, or the same letters in
    another case."""
    a, b = typed.casefold(), wanted.casefold()
    return a != b and (b.startswith(a) or a.startswith(b)) or (a == b and typed != wanted)


# A page's word that the form was saved: the answer to a commit the screens show, when the click's own label is not
# readable (a list drawn over it).
_SAVED = re.compile(r"^\W*(?:(?:changes |settings |profile )?(?:saved|updated)|已保存|保存成功|已更新)\W*$", re.I)


# "Add X@Y as a guest to "Roadmap review" this Friday", "把 X@Y 添加为本周五“Roadmap review”的参与者": a person put
# on an existing event's guest list
_GUEST = re.compile(r"^\s*(?:add|invite)\s+(?P<who>[^\s\"“”]+@[^\s\"“”]+)\s+(?:as\s+an?\s+(?:guest|attendee|"
                    r"participant)\s+)?to\s+(?:the\s+(?:event|meeting)\s+)?[\"“](?P<item>[^\"”]+)[\"”]|"
                    r"^\s*(?:请)?(?:把|将)\s*(?P<zwho>[^\s\"“”]+@[^\s\"“”]+)\s*(?:添加|加|邀请)为.{0,8}?[“\"]"
                    r"(?P<zitem>[^”\"]+)[”\"]的?(?:参与者|参会者|参会人|嘉宾|受邀人|与会者)", re.I)  # fmt: skip


def guest_added(kp: str, steps: Sequence[Evidence], lines: Lines | None) -> Result | None:
    """A guest added to a named event: the address typed on a form about the event (its page, or one opened from
    it), a save click that changed the screen, and the screen after it, about the event, shows the address."""
    m = _GUEST.match(kp)
    if m is None or lines is None:
        return None
    who, item = m.group("who") or m.group("zwho"), m.group("item") or m.group("zitem")
    typed = [s for s in range(len(steps)) if any(T.contains(t, who) for t in R.typed_texts(steps[s]))]
    for t in range(len(steps) - 2, -1, -1):
        if not typed or t < typed[0] or not R.clicked(steps[t]) or not _SAVE.match(R.target(steps[t])):
            continue
        after = steps[t + 1]
        if not R._changed(steps[t], after) or after.png is None:
            continue
        if not _form_about(steps, t, [item]) or not T.contains(after.title or "", item) and \
                not any(T.contains(x, item) for _, x in lines(after)):  # fmt: skip
            continue
        if any(T.contains(x, who) for _, x in lines(after)):
            return "satisfied", t + 1, f"{who!r} typed on {steps[t].title!r}, saved at step {t}, and shown on the " \
                                       f"event's page after it"  # fmt: skip
        return None
    return None


def chosen_option(kp: str, steps: Sequence[Evidence], lines: Lines | None) -> Result | None:
    """"Set the department in your profile to Sales" done with a drop-down: after the agent's last pick of an option,
    a click made the page say it saved ("Saved."), and on that screen the line right under the field's label (the
    field the keypoint names: "Department") reads the value. Another value there leaves it to the other rules."""
    zh = _ZH_SET_FIELD.match(kp)
    values = [zh.group("value")] if zh else entry_values(kp)
    picks = [s for s in range(len(steps)) if "SelectOption" in R._names(steps[s].act)]
    if len(values) != 1 or not picks or lines is None or not (zh or _entry(kp)):
        return None
    for t in range(picks[-1] + 1, len(steps) - 1):
        saved = [x for x in _new_lines(steps[t], steps[t + 1], lines) if _SAVED.match(x)]
        if not R.clicked(steps[t]) or not saved:
            continue
        shown = _under_label(kp, lines(steps[t + 1]))
        if shown is not None and same_value(shown, values[0]):
            return "satisfied", t + 1, f"{values[0]!r} under its label when the page said {saved[0]!r} (step {t + 1})"
        return None
    return None


# "Set the department in your profile to Sales", "Change your time zone to …": the field the keypoint sets.
_SET_FIELD = re.compile(r"^\s*(?:set|change|select|choose)\s+(?:the\s+|your\s+)?(?P<field>[a-z][a-z ]{2,30}?)\s+"
                        r"(?:in|on|of|for|to)\b", re.I)  # fmt: skip


# "部门改为 Sales", "把时区设为“UTC+8”": the field (a short name) and the value it is set to.
_ZH_SET_FIELD = re.compile(r"^\s*(?:请)?(?:把|将)?(?P<field>[\u3400-\u9fff]{1,8})"
                           rf"(?:{T.ZH_CHANGE_TO})"
                           r"\s*[“\"]?(?P<value>[^“”\"，,。；;]+?)[”\"]?\s*[。.]?\s*$")  # fmt: skip


def _under_label(kp: str, screen: tuple) -> str | None:
    """The text of the line right under the label of the field the keypoint sets (the field's value)."""
    m = _SET_FIELD.match(T.unquoted(kp)) or _ZH_SET_FIELD.match(kp)
    if m is None:
        return None
    field = m.group("field").casefold().split()
    for box, text in screen:
        if re.findall(r"\w+", text.casefold()) != field:
            continue
        below = [(b, x) for b, x in screen if 0 <= b[1] - box[3] <= 2 * (box[3] - box[1]) and abs(b[0] - box[0]) <= 40]
        if below:
            return min(below, key=lambda r: r[0][1])[1]
    return None


def _last_commit(steps: Sequence[Evidence]) -> int | None:
    """Without typing (a spinner, a date picker): the agent's last click that reads as a submit-like control."""
    for s in range(len(steps) - 1, -1, -1):
        if R.clicked(steps[s]) and _SUBMIT_WORDS.match(R.clicked_word(steps[s]) or ""):
            return s
    return None


# ---- order constraints the goal states ------------------------------------------------------------------------


def then_pairs(goal: str, keypoints: Sequence[str]) -> list[tuple[int, int, int]]:
    """(i, j, slack): keypoint j must come after keypoint i. The goal joins them with "then" (two clicks in a
    stated order: no slack), or j is a closing submit ("… and press Submit", "then hit Submit") after every other
    keypoint (slack 1: a value confirmed on the screen the submit led to is not after it)."""
    plain = " ".join(goal.split())
    last = len(keypoints) - 1
    closing = last >= 1 and any(_SUBMIT_WORDS.match(n) for n in R.click_names(keypoints[last]))
    pairs = [(i, last, 1) for i in range(last)] if closing else []
    for j in range(1, len(keypoints)):
        head = _head(keypoints[j])
        if head and not (closing and j == last) and re.search(rf"\bthen\s+{re.escape(head)}", plain, re.I):
            pairs.append((j - 1, j, 0))
    return pairs


def _head(kp: str) -> str:
    words = kp.split()[:2]
    return " ".join(words).rstrip(",.").casefold()


def order_violations(goal: str, texts: Sequence[str], steps: Sequence[int | None]) -> dict[int, str]:
    """Keypoints done before the one the goal puts first: {j: why}, from each keypoint's evidence step."""
    out = {}
    for i, j, slack in then_pairs(goal, texts):
        si, sj = steps[i], steps[j]
        if si is not None and sj is not None and sj + slack < si:
            out[j] = f"done at step {sj}, before {texts[i]!r} (step {si}); the goal puts it after"
    return out


# ---- lists: dragging an item to a rank, sorting ---------------------------------------------------------------

_DRAG = re.compile(r"^\s*drag\s+(?P<name>.+?)\s+(?P<where>to the top|to the bottom|up by one position|"
                   r"down by one position|to the (?P<n>\d+)(?:st|nd|rd|th) position)\s*[.]?$", re.I)  # fmt: skip


def _column(lines: tuple, box: tuple[int, int, int, int]) -> list[tuple[tuple[int, int, int, int], str]]:
    """The rows stacked with `box` in one column (same left edge within a few pixels, close vertical steps)."""
    col = sorted([(b, t) for b, t in lines if abs(b[0] - box[0]) <= 12 and t.strip()], key=lambda x: x[0][1])
    idx = next((k for k, (b, _) in enumerate(col) if b[1] == box[1]), None)
    if idx is None:
        return col
    gap = 3 * max(b[3] - b[1] for b, _ in col)
    a = idx
    while a > 0 and col[a][0][1] - col[a - 1][0][3] < gap:
        a -= 1
    z = idx
    while z < len(col) - 1 and col[z + 1][0][1] - col[z][0][3] < gap:
        z += 1
    return col[a : z + 1]


def dragged_to(kp: str, steps: Sequence[Evidence], lines: Lines | None, goal: str = "") -> Result | None:
    m = _DRAG.match(kp)
    if m is None or lines is None:
        return None
    rows = task_rows(steps, goal, lines)
    off_box = (lambda e: tuple((b, t) for b, t in lines(e) if rows is None or not rows[0] - 4 <= (b[1] + b[3]) / 2
                               <= rows[1] + 4))  # fmt: skip
    name = m.group("name")
    drags = [s for s in range(len(steps)) if any(a.name == "Drag" for a in R.kids(steps[s].act))]
    if not drags:
        return ("contradicted", steps[-1].index, "the agent dragged nothing") if steps else None
    for s in reversed(drags):
        step = steps[s]
        act = next(a for a in R.kids(step.act) if a.name == "Drag")
        if step.png is None or act.start is None or not span_hits(step, name):
            continue
        from venuskit.verify.images import png_size

        w, h = png_size(step.png)
        row = next(((b, t) for b, t in off_box(step) if T.ocr_key(t) == T.ocr_key(name)), None)
        if row is None:
            return None
        col = _column(off_box(step), row[0])
        ranks = [b for b, _ in col]
        now = ranks.index(row[0]) + 1
        drop = act.end.y * h
        others = [b for b in ranks if b != row[0]]
        lands = 1 + sum((b[1] + b[3]) / 2 < drop for b in others)
        n = len(ranks)
        where = m.group("where").casefold()
        want = (1 if "top" in where else n if "bottom" in where else now - 1 if "up by one" in where
                else now + 1 if "down by one" in where else int(m.group("n")))  # fmt: skip
        ok = lands == want
        return ("satisfied" if ok else "contradicted", s,
                f"the drag at step {s} took {name!r} from row {now} of {n} and dropped it at row {lands} "
                f"({'the' if ok else 'not the'} asked row {want}), counted on the screen it was made on")  # fmt: skip
    return "contradicted", steps[drags[-1]].index, f"no drag started on {name!r}"


_SORT = re.compile(r"^\s*sort\b.*\b(?P<dir>increasing|ascending|decreasing|descending)\b", re.I)


def sorted_list(kp: str, steps: Sequence[Evidence], lines: Lines | None) -> Result | None:
    m = _SORT.match(kp)
    if m is None or lines is None:
        return None
    clicks = pointer_steps(steps)
    drags = [s for s in range(len(steps)) if any(a.name == "Drag" for a in R.kids(steps[s].act))]
    if not clicks or (drags and clicks[-1] < drags[-1]) or steps[clicks[-1]].png is None:
        return None  # no click after the last move: what the page did with the order is not shown
    s = clicks[-1]
    numbers = [(b, int(t)) for b, t in lines(steps[s]) if re.fullmatch(r"-?\d+", t.strip())]
    if len(numbers) < 3:
        return None
    col = _column(tuple((b, str(v)) for b, v in numbers), numbers[0][0])
    values = [int(t) for _, t in col]
    up = m.group("dir").casefold() in ("increasing", "ascending")
    ok = values == sorted(values, reverse=not up)
    return ("satisfied" if ok else "contradicted", s,
            f"the list read {values} top to bottom on the screen of the click at step {s}")  # fmt: skip


# A sort point ("The "cheapest" one is found from results sorted by price, lowest first"): the words by which a sort
# control's label or a sort parameter names its criterion and its direction ("Price: low to high", sort=price_asc).
_SORT_KEYS = {"price": r"price|cost|价格", "date": r"date|new|old|recent|latest|arriv|最新|日期|时间",
              "rating": r"rating|rated|review|评分", "size or amount": r"size|amount|金额|大小",
              "popularity": r"popular|top|best.?sell|销量|最热", "duration": r"duration|length|时长"}  # fmt: skip
_UP = r"low|asc|increas|old|earli|small|short|min|从低到高|升序|最早"
_DOWN = r"high|desc|decreas|new|recent|latest|larg|big|long|max|top|review|rated|从高到低|降序|最新|最高"
_UP_FIRST = frozenset({"lowest", "oldest", "smallest", "shortest"})  # the rest: highest, newest, largest, longest
_SORT_PARAM = re.compile(r"[?&#](?:sort|order|orderby|order_by|sort_by|sortby)=(?P<value>[^&#]+)", re.I)
_SORT_OFFER = re.compile(r"\bsort(?:ed)?\b|\border by\b|排序", re.I)


def sorted_by(kp: str, steps: Sequence[Evidence], lines: Lines | None) -> Result | None:
    """A sort point or a sort step: a later page's sort parameter, or a click on a sort control (on a screen that
    offers sorting), names its criterion and direction; the last one the agent used decides. No such use where a
    screen offered a sort: contradicted (WebJudge's rule). No screen the agent saw after its first action offered
    one (a bank's transaction list): a superlative's point is met, there was nothing to use; a sort the goal asks
    for outright stays open."""
    asked = _sort_asked(kp)
    if asked is None or not steps:
        return None
    key, first = asked
    wanted = re.compile(_SORT_KEYS.get(key, re.escape(key)), re.I), re.compile(_UP if first in _UP_FIRST else _DOWN)
    start, used = _sort_param(steps[0].url), []  # (step, as asked, what says so), in order
    for s, step in enumerate(steps[1:], 1):
        param = _sort_param(step.url)
        if param and param != start:
            used.append((s, all(w.search(param.lower()) for w in wanted), f"the page at step {s} is sorted by "
                                                                         f"{param!r}"))  # fmt: skip
        label = R.target(step)
        offered = label and lines is not None and any(_SORT_OFFER.search(t) for _, t in lines(step))
        if offered and all(w.search(label.lower()) for w in wanted):  # another label: maybe no sort control at all
            used.append((s, True, f"the click at step {s} on the sort control {label!r}"))
    if used:  # the last sort the agent used is the order the results were left in
        s, ok, what = used[-1]
        return ("satisfied" if ok else "contradicted"), steps[s].index, what
    if lines is None:
        return None
    offers = [s for s in range(1, len(steps)) if any(_SORT_OFFER.search(t) for _, t in lines(steps[s]))]
    if offers:
        return "contradicted", steps[-1].index, f"a sort was offered at step {offers[0]} and never used by " \
                                                f"{key}, {first} first"  # fmt: skip
    if not SORT_POINT.match(kp):
        return None  # a sort the goal asks for in so many words ("按价格从低到高排序") is no means to do without
    return "satisfied", steps[-1].index, "no screen the agent saw offers a sort: the list was read as it came"


# A Chinese sort's key and direction, in the words of `keypoints.SUPERLATIVES`' orders
_ZH_SORT_KEY = {"价格": "price", "日期": "date", "时间": "date", "评分": "rating", "销量": "popularity",
                "金额": "size or amount"}  # fmt: skip
_ZH_SORT_FIRST = {"从低到高": "lowest", "升序": "lowest", "从旧到新": "oldest", "从高到低": "highest",
                  "降序": "highest", "从新到旧": "newest"}  # fmt: skip


def _sort_asked(kp: str) -> tuple[str, str] | None:
    """(criterion, which comes first) of a sort point or of a Chinese sort step ("按价格从低到高排序")."""
    m = SORT_POINT.match(kp)
    if m is not None:
        return m.group("key"), m.group("first")
    z = ZH_SORT.match(kp.strip())
    if z is None or kp.strip()[z.end() :].strip(" 。."):
        return None  # a sort with more after it ("…排序，告诉我…") asks more than the sort
    key = _ZH_SORT_KEY[z.group("key")]
    first = _ZH_SORT_FIRST.get(z.group("dir") or "", "newest" if key == "date" else "highest")
    return key, first


def _sort_param(url: str | None) -> str:
    m = _SORT_PARAM.search(unquote(url or ""))
    return m.group("value") if m else ""


# ---- copied text ---------------------------------------------------------------------------------------------

_COPY = re.compile(r"^\s*copy\b.*\bpaste\b", re.I)


def copied(kp: str, goal: str, steps: Sequence[Evidence], read: Callable[[Evidence], str] | None) -> Result | None:
    """The text entered was on the page before it was entered (off the goal): most of its words read on a screen
    the agent saw first (a narrow text area wraps and OCR reads it in pieces); none of them: made up."""
    if not _COPY.match(kp) or read is None:
        return None
    typed = [(s, t.strip()) for s in range(len(steps)) for t in R.typed_texts(steps[s]) if t.strip()]
    if not typed:
        return None
    s, text = typed[-1]
    words = [w for w in re.findall(r"\w{3,}", text) if not T.ocr_contains(goal, w)]
    screens = " ".join(read(e) for e in steps[:s] if e.png is not None)
    seen = [w for w in words if T.ocr_contains(screens, w)]
    share = len(seen) / len(words) if words else 0.0
    if words and share < 0.3:
        return "contradicted", s, f"the text entered at step {s} ({text!r}) was not on the page before: " \
                                  f"{len(seen)} of its {len(words)} words were"  # fmt: skip
    cut = _cut_short(text, screens)
    if cut:
        return "contradicted", s, f"the text entered at step {s} stops inside a word: {cut}"
    if share < 0.6 or _ORDINAL.search(T.unquoted(kp)):
        return None  # which text area is "the 2nd", the pixels do not say
    return "satisfied", s, f"{len(seen)} of the {len(words)} words entered at step {s} were on the page before"


def _cut_short(text: str, screens: str) -> str | None:
    """A copy cut short: its last word is never read whole on the screens, while a longer word that begins with it
    is ("vivamu" where the page shows "vivamus"). An OCR misreading of the page's word makes no such longer word,
    so it never contradicts a whole copy."""
    tail = re.findall(r"\w+", text.casefold())
    if not tail or len(tail[-1]) < 2:
        return None
    shown = set(re.findall(r"\w+", screens.casefold()))
    longer = sorted(w for w in shown if w.startswith(tail[-1]) and len(w) > len(tail[-1]))
    if tail[-1] in shown or not longer:
        return None
    return f"{tail[-1]!r}, where the page showed {longer[0]!r}"


# ---- an answer read where the question points -------------------------------------------------------------


def answered(kp: str, steps: Sequence[Evidence], read: R.Read, lines: Lines | None,
             answer: str | None = None) -> Result | None:  # fmt: skip
    """`rules.answered` (each value of the answer was on a screen), then read where the question points: on the
    named record (`answer_in_place`) and as the value of the named field (`answer_at_field`). `answer`: the text
    that answers, when it is not the final Finished/Answer."""
    found = answer_in_table(kp, steps, lines, R.answered(kp, steps, read, answer, _named_rows(kp, lines)), answer)
    found = answer_at_field(kp, steps, lines, answer_in_place(kp, steps, lines, found, answer), answer)
    found = answer_ranked(kp, steps, lines, answer_on_its_row(kp, steps, lines, found, answer), answer)
    found = answer_not_one_row(kp, steps, lines, found, answer)
    found = answer_not_self_made(kp, steps, read, found, answer)
    found = answer_count_on_item(kp, steps, lines, answer_item_shown(kp, steps, lines, found), answer)
    return answer_not_chrome(kp, steps, lines, found, answer)


def answer_count_on_item(kp: str, steps: Sequence[Evidence], lines: Lines | None, found: Result | None,
                         answer: str | None = None) -> Result | None:  # fmt: skip
    """A short figure ("6") asked about a quoted item ("How many comments does the post "Q" have?") stands on
    nearly every screen (a date, another post's count): it is credited only where it was read on a screen about the
    item (its title names it) or on a row that names it; read elsewhere only, the keypoint is left undecided."""
    if found is None or found[0] != "satisfied" or lines is None:
        return found
    items = T.quoted(T.answer_keypoint(kp) or "")
    values = T.answer_values((R.final_answer(steps) if answer is None else answer) or "")
    if not items or not values or not all(re.fullmatch(r"\d{1,3}", v) for v in values):
        return found
    about = [e for e in steps if e.png is not None and any(T.contains(e.title or "", q) for q in items)]
    for v in values:
        on_page = any(T.contains_value(t, v) for e in about for _, t in lines(e))
        on_row = any(T.contains_value(t, v) and any(T.ocr_contains(t, q) for q in items)
                     for e in steps if e.png is not None for _, t in R.text_rows(lines(e)))  # fmt: skip
        if not on_page and not on_row:
            return "not_visible", None, f"{found[2]}; but {v!r} stood on no screen about {items[0]!r} nor on its row"
    return found


def _named_rows(kp: str, lines: Lines | None) -> R.Read | None:
    """A total of what the question names ("How much did you pay FIXIT HARDWARE …?") adds up amounts of the rows
    that name it, not any amounts of the screen: a list of other payees' charges holds some subset that sums to
    nearly any figure. The names are of two words or more (a one-word name may be a month or a place)."""
    names = [n for n in T.proper_names(T.answer_keypoint(kp) or "") if len(n.split()) >= 2]
    if not names or lines is None:
        return None
    return lambda e: "\n".join(t for _, t in R.text_rows(lines(e)) if any(T.ocr_contains(t, n) for n in names))


# The title of a form that makes a new item ("新建日程", "New event", "Compose")
_NEW_TITLE = re.compile(r"\b(?:new|create|compose)\b|新建|创建|新邮件|写邮件|发帖|新增", re.I)


def answer_not_self_made(kp: str, steps: Sequence[Evidence], read: R.Read, found: Result | None,
                         answer: str | None = None) -> Result | None:  # fmt: skip
    """A question about an item it quotes ("下周的“定价委员会”是谁组织的？") asks about what exists: when the agent
    typed that name into a form that makes a new item ("新建日程") and the answer was on no screen before, it was read
    off the item the agent made (its own address as the organiser), so the keypoint is left undecided."""
    if found is None or found[0] != "satisfied":
        return found
    rest, answer = T.answer_keypoint(kp) or "", (R.final_answer(steps) if answer is None else answer) or ""
    quoted = T.quoted(rest)
    made = [s for s, e in enumerate(steps) if quoted and _NEW_TITLE.search(R.page_item(e.title))
            and any(T.contains(t, q) for t in R.typed_texts(e) for q in quoted)]  # fmt: skip
    if not made or any(R._seen_at(v, steps[: made[0]], read) is not None for v in T.answer_values(answer)):
        return found
    return "not_visible", None, f"{found[2]}; but only after the agent typed {quoted[0]!r} into a new item's form " \
                                f"(step {made[0]}): the answer may be of the item it made"  # fmt: skip


def answer_not_one_row(kp: str, steps: Sequence[Evidence], lines: Lines | None, found: Result | None,
                       answer: str | None = None) -> Result | None:  # fmt: skip
    """A total asked of what the question names ("一共付给 FIXIT HARDWARE 多少钱", "How much did you pay X in all")
    answered with the amount of one of its rows, on a screen where another of its rows shows another amount: one
    charge, not the total (left undecided: the other row may lie outside the asked range)."""
    rows = _named_rows(kp, lines)
    rest, answer = T.answer_keypoint(kp) or "", (R.final_answer(steps) if answer is None else answer) or ""
    if found is None or found[0] != "satisfied" or rows is None or not R._TOTAL.search(rest):
        return found
    for v in (v for v in T.answer_values(answer) if _FIGURE.fullmatch(v.lstrip("-+"))):
        want = _figure(v)
        for e in steps:
            amounts = [a for t in (rows(e).splitlines() if e.png is not None else []) if (a := _row_amount(t))]
            if len(amounts) >= 2 and want is not None and any(abs(abs(a) - abs(want)) < 0.005 for a in amounts) \
                    and any(abs(abs(a) - abs(want)) >= 0.005 for a in amounts):  # fmt: skip
                return "not_visible", None, f"{found[2]}; but {v!r} is one row's amount of several on the screen " \
                                            f"of step {e.index}, and the question asks for the total"  # fmt: skip
    return found


def _row_amount(row: str) -> float | None:
    """The amount with cents on a list's row ("24 Feb FIXIT HARDWARE -55.25"), if it has one."""
    found = re.findall(r"[-−]?\d[\d,]*\.\d{2}(?!\d)", row)
    return _figure(found[-1]) if found else None


def answer_item_shown(kp: str, steps: Sequence[Evidence], lines: Lines | None, found: Result | None) -> Result | None:
    """A question that names its item by a name of two words or more ("What does the Nimbus Noise Machine cost in
    the shop?") is answered from a screen that shows the item: when no screen the agent saw and no page title ever
    read that name, the value credited on screen was read off something else (another product's card in a search's
    results), so the keypoint is left undecided."""
    if found is None or found[0] != "satisfied" or lines is None:
        return found
    names = [re.sub(r"['’]s$", "", n) for n in T.proper_names(T.answer_keypoint(kp) or "")]
    for name in (n for n in names if len(n.split()) >= 2):
        shown = any(T.ocr_contains(e.title or "", name) or e.png is not None
                    and any(T.ocr_contains(t, name) for _, t in [*lines(e), *R.text_rows(lines(e))])
                    for e in steps)  # fmt: skip
        if not shown:
            return "not_visible", None, f"{found[2]}; but {name!r}, the item the question names, was on no screen"
    return found


def _in_typed_field(values: list[str], steps: Sequence[Evidence], screens: list[Evidence], lines: Lines) -> bool:
    """Every line that showed each value holds the point where the agent clicked a field it then typed into, on
    that page (a click on another page's field at the same height is no field of this one)."""
    points = [(f.point, R.page(steps[f.step])) for f in fields(steps, len(steps)) if f.point != (0.0, 0.0)]
    if not points:
        return False
    for v in values:
        boxes = [(b, e) for e in screens for b, t in lines(e) if T.contains_value(t, v)]
        if not boxes:
            return False
        for b, e in boxes:
            w, h = png_size(e.png)
            if not any(b[0] - 4 <= x * w <= b[2] + 4 and b[1] - 4 <= y * h <= b[3] + 4
                       for (x, y), page in points if page == R.page(e)):  # fmt: skip
                return False
    return True


def answer_not_chrome(kp: str, steps: Sequence[Evidence], lines: Lines | None, found: Result | None,
                      answer: str | None = None) -> Result | None:
    """An answer read from the apps' fixed frame is no answer about their content: each of its values stood, on every
    screen the agent saw across two pages or more, in the same place of the top bar or the sidebar (the user's
    avatar letter "林", a group's name in the sidebar's list); and no answer is the text of a field the agent typed
    into (a search box's placeholder "Search mail")."""
    if found is None or found[0] != "satisfied" or lines is None:
        return found
    answer = (R.final_answer(steps) if answer is None else answer) or ""
    screens = [e for e in steps if e.png is not None]
    if not T.answer_values(answer):
        return found
    if _in_typed_field(T.answer_values(answer), steps, screens, lines):
        return "contradicted", steps[-1].index, f"the answer {answer!r} is the text of a field the agent typed into " \
                                                "(its placeholder), not what the page says"  # fmt: skip
    if len({(R.section(e.url), e.title) for e in screens}) < 2 or any(_FIGURE.fullmatch(v) for v in
                                                                      T.answer_values(answer)):  # fmt: skip
        return found  # a figure in a fixed place may be a count that stayed (a badge, "only 3 left")
    for v in T.answer_values(answer):
        places = [{(b[0] // 8, b[1] // 8) for b, t in lines(e) if T.contains_value(t, v) and _in_frame(b, size)}
                  for e in screens for size in [png_size(e.png)]]  # fmt: skip
        if not all(places) or not set.intersection(*places):
            return found
    return "contradicted", steps[-1].index, f"the answer {answer!r} is the apps' own frame: it stood in the same " \
                                            "place of the top bar or sidebar on every screen"  # fmt: skip


def _in_frame(box: tuple[int, int, int, int], size: tuple[int, int]) -> bool:
    """A line in the band where apps keep their frame: the top bar (the top 8%) or a sidebar's short entries (ending
    in the left fifth) of a screen of `size` pixels."""
    w, h = size
    return box[3] <= 0.08 * h or box[2] <= 0.2 * w


def answer_in_table(kp: str, steps: Sequence[Evidence], lines: Lines | None, found: Result | None,
                    answer: str | None = None) -> Result | None:
    """A figure that stood on screen only on its own ("17": a count, a field, a badge, `rules.answered` cannot say
    what it counts) is a table's cell when the row it stands on names what the question asks about ("Monitors")
    and its column's header names what it asks of it ("In stock" for "How many Monitors are in stock?")."""
    if found is None or found[0] != "not_visible" or lines is None:
        return found
    rest, answer = T.answer_keypoint(kp) or "", (R.final_answer(steps) if answer is None else answer) or ""
    figures, asked = T.answer_values(answer), _key_words(rest)
    if not figures or not (asked or T.HAN_CHAR.search(rest)) or not all(_FIGURE.fullmatch(v) for v in figures):
        return found
    for e in reversed(steps):
        screen = lines(e) if e.png is not None else ()
        for v in figures:
            for box, _ in [(b, t) for b, t in screen if T.normalise(t) == T.normalise(v)]:
                row = [t for b, t in screen if b[2] < box[0] and abs((b[1] + b[3]) - (box[1] + box[3])) <= 8]
                head = _column_head(box, screen)
                if head and _heads(head, rest) and any(_row_names(t, rest, asked, head) for t in row):
                    return "satisfied", e.index, f"the answer {v!r} stands in the row {row[-1]!r} under the " \
                                                 f"column {head!r}"  # fmt: skip
    return found


# "the largest incoming amount", "最便宜的那件的价格": the figure a question ranks, and which end of the list it wants.
_MOST = re.compile(r"\b(?:largest|biggest|highest|greatest|most expensive|maximum)\b|最大|最高|最贵|最多", re.I)
_LEAST = re.compile(r"\b(?:smallest|lowest|cheapest|least expensive|minimum)\b|最小|最低|最便宜|最少", re.I)
# Question words that name no column. Not `_NOT_A_KEY`: that one leaves out "amount", "value", "number", the very
# nouns a figure column is headed by.
_NO_NOUN = frozenset({"tell", "the", "what", "which", "answer", "your", "you", "and", "with", "one", "that", "from"})
_SIGNED = re.compile(r"^[-+−]?\s*(?:[€$£¥]\s*)?\d{1,3}(?:,\d{3})*(?:\.\d{1,2})?(?:\s*(?:EUR|USD|GBP|CNY|元))?$")


def answer_ranked(kp: str, steps: Sequence[Evidence], lines: Lines | None, found: Result | None,
                  answer: str | None = None) -> Result | None:
    """A figure asked by its rank ("the largest incoming amount") is the end of the column it stands in, where the
    question's own noun heads that column ("Amount", "金额"): among that column's figures of the answer's sign, the
    largest (or the smallest). Read on the last screen that shows it; another figure of that column beyond it:
    contradicted. A figure that stood on the screen only outside such a column (the account's balance beside the
    transactions' Amount column) is left undecided: what it ranks, the screen does not say."""
    if found is None or found[0] != "satisfied" or lines is None:
        return found
    rest, answer = T.answer_keypoint(kp) or "", (R.final_answer(steps) if answer is None else answer) or ""
    most, least = _MOST.search(rest), _LEAST.search(rest)
    value = _figure(answer)
    if not (most or least) or value is None or not _SIGNED.fullmatch(answer.strip()):
        return found
    asked = _LEAST.sub(" ", _MOST.sub(" ", rest))
    for e in reversed(steps):
        screen = lines(e) if e.png is not None else ()
        boxes = [b for b, t in screen if _SIGNED.fullmatch(t.strip()) and _figure(t) == value]
        if not boxes:
            continue
        for box in boxes:
            column = _figure_column(box, screen)
            head = _column_head(box, screen)
            if head is None or not _heads(head, asked):
                continue
            same = [x for x in column if (x < 0) == (value < 0)]
            end = max(same, key=abs) if most else min(same, key=abs)
            if abs(end) != abs(value):
                return "contradicted", e.index, f"the column {head!r} also shows {end}, " \
                    f"{'larger' if most else 'smaller'} than the answer {answer!r}"  # fmt: skip
            return found
        return "not_visible", None, f"the answer {answer!r} stood on screen, but in no column headed by what the " \
                                    "question ranks"  # fmt: skip
    return found


def _figure_column(box: tuple[int, int, int, int], screen: tuple) -> list[float]:
    """The figures of the column `box` stands in: the lines whose right edges line up with its own (figures are
    right-aligned), below the column's head."""
    return [a for b, t in screen if abs(b[2] - box[2]) <= 8 and _SIGNED.fullmatch(t.strip())
            and (a := _figure(t)) is not None]  # fmt: skip


def _figure(text: str) -> float | None:
    """The signed amount a figure's text gives ("-312.80", "€ 4,200.00")."""
    return R._amount(re.sub(r"[^\d.,-]", "", text.replace("−", "-")))


def _row_names(text: str, question: str, asked: set[str], head: str) -> bool:
    """A row's cell names what the question asks about, other than what its column's header names: a key word
    ("Monitors"), or, in Chinese, the cell's characters ("显示器" in "显示器的库存有多少？")."""
    han = "".join(T.HAN_CHAR.findall(text))
    if han:
        return len(han) >= 2 and han in question and han != "".join(T.HAN_CHAR.findall(head))
    return _names_key(text, asked - _key_words(head))


def _heads(head: str, question: str) -> bool:
    """A column's header names what the question asks: a word of the question ("Amount" for "the largest incoming
    amount") or, in Chinese, the header's characters ("金额" in "最大的一笔收入金额")."""
    han = "".join(T.HAN_CHAR.findall(head))
    if han:
        return len(han) >= 2 and han in question
    words = {w.casefold().removesuffix("s") for w in re.findall(r"[A-Za-z]{3,}", question)} - _NO_NOUN
    return any(w in words for w in (t.casefold().removesuffix("s") for t in re.findall(r"[A-Za-z]{3,}", head)))


def _column_head(box: tuple[int, int, int, int], screen: tuple) -> str | None:
    """The nearest line above `box` in its column that is no figure (the column's header), if any."""
    above = [(b, t) for b, t in screen if b[3] <= box[1] and b[0] < box[2] and b[2] > box[0]
             and not _SIGNED.fullmatch(t.strip())]  # fmt: skip
    return max(above, key=lambda r: r[0][3])[1] if above else None


def _comment_posted(entry: str, steps: Sequence[Evidence], kp: str = "") -> Result | None:
    """"Comment on X's post "Q"" (its text described elsewhere), or "Reply to X's post" whose scene (in `kp`) gives
    its title Q: the agent typed on Q's page (or one opened from it) and committed it there with a click that
    changed the screen."""
    title = T.post_title(kp) if T.REPLY_TO_POST.match(entry) else None
    names = T.quoted(entry) if T.COMMENTS.match(entry) else [title] if title else []
    if not names:
        return None
    # the latest typing committed on the post's page (a goal's later parts type elsewhere: a search in the shop)
    for typed in reversed([s for s in range(len(steps)) if R.typed_texts(steps[s])]):
        commit = commit_step(steps, typed)
        word = R.clicked_word(steps[commit]) or "" if commit is not None else ""
        if commit is None or not (_SUBMIT_WORDS.match(word) or R._SUBMIT_LABEL.match(word)):
            continue
        if _form_about(steps, commit, names):
            return "satisfied", commit, f"a comment typed on {steps[commit].title!r}, committed at step {commit} " \
                                        f"by {word!r}"  # fmt: skip
    return None


def described_entry(kp: str, steps: Sequence[Evidence], read: R.Read | None, lines: Lines | None,
                    goal: str = "") -> Result | None:  # fmt: skip
    """A keypoint that describes the content it asks for instead of quoting it ("… with the subject "S" saying the
    amount of the RIVERSIDE VET payment on 2024-03-12"): its entry ("… with the subject "S"") is checked as any entry
    (`entered_values`, else `rules.submitted`), and the text typed besides it, up to the form's commit, as the answer
    to the question the description asks ("what is the amount of …?"), by the answer rules, on the screens the agent
    saw before it typed it: a value of the asked kind, shown on a screen, where the question points (the row of the
    day or code it names). Satisfied when both are, contradicted when either is. Typing the description's own
    values ("2024-03-12", the source's title) is no content."""
    split = T.described(kp)
    if split is None or read is None or not steps:
        return None
    entry, about = split
    # "Transfer to X, a saved recipient, with the reference "R"": once its amount is taken out as the content, the
    # rest is a money form sent, its values the recipient and the reference
    probe = re.sub(r"^\s*(?:transfer|pay)\b", "Send", entry, flags=re.I)
    form = (entered_values(probe, steps, lines, goal, read) or R.submitted(entry, steps, read)
            or _comment_posted(entry, steps, kp)) if entry else None  # fmt: skip
    if form is None or form[0] != "satisfied":
        return form
    commit = min(form[1] if form[1] is not None else len(steps) - 1, len(steps) - 1)
    content = typed_content(kp, steps[: commit + 1], about, skip=_recipient_step(kp, steps, commit))
    if content is None:
        return "not_visible", None, f"{form[2]}; nothing typed besides the keypoint's own values gives {about!r}"
    return as_described(form, commit, about, content, steps, read, lines)


def typed_content(kp: str, steps: Sequence[Evidence], about: str | None = None,
                  skip: int | None = None) -> tuple[int, str] | None:  # fmt: skip
    """(step, text) of the last text typed in `steps` that is none of the keypoint's own values: the content a
    keypoint describes ("… saying the amount of …", "set cell C4 to the amount …"). With `about` (the description),
    the last one of the kind it asks for, if any was typed: a form's amount, not the reference typed after it.
    `skip`: a step whose text is no content (a mail's recipient)."""
    typed = [(s, t.strip()) for s in range(len(steps)) for t in R.typed_texts(steps[s])
             if t.strip() and not T.contains(kp, t.strip()) and s != skip]  # fmt: skip
    kind = T.asked_kind(about) if about else None
    of_kind = [(s, t) for s, t in typed if kind is not None and T.is_kind(t, kind)]
    return (of_kind or typed or [None])[-1]


def _recipient_step(kp: str, steps: Sequence[Evidence], commit: int) -> int | None:
    """Of a mail keypoint, the step that typed the form's first text when that text is an address alone: the
    recipient (To comes first), never the content, even when the content asked for is that same address ("… to your
    own account's email address saying your own account's email address")."""
    if not re.search(r"\be-?mail\b|邮件", kp, re.I):
        return None
    for s in range(R._form_start(steps, commit), commit + 1):
        texts = [t.strip() for t in R.typed_texts(steps[s]) if t.strip()]
        if texts:
            return s if len(texts) == 1 and T.emails(texts[0]) == [texts[0]] else None
    return None


def as_described(done: Result, at_step: int | None, about: str, content: tuple[int, str], steps: Sequence[Evidence],
                 read: R.Read, lines: Lines | None) -> Result:  # fmt: skip
    """An act `done` (satisfied) whose content typed at `content` must answer "what is <about>?" by the answer rules,
    on the screens before it was typed: satisfied when it does, contradicted (at `at_step`) when it does not,
    undecided when the screens do not say."""
    at, text = content
    found = answered(f"Answer: what is {about}?", steps[: at + 1], read, lines, answer=text)
    if found is None or found[0] == "not_visible":
        return "not_visible", None, f"the content {text!r} typed at step {at}: {found[2] if found else 'unread'}"
    if found[0] == "contradicted":
        return "contradicted", at_step, f"the content {text!r} typed at step {at} for {about!r}: {found[2]}"
    return "satisfied", done[1], f"{done[2]}; the content {text!r} typed at step {at}: {found[2]}"


def answer_in_place(kp: str, steps: Sequence[Evidence], lines: Lines | None, found: Result | None,
                    answer: str | None = None) -> Result | None:  # fmt: skip
    """`rules.answered` says each value of the answer was on a screen; this asks whether it was read where the
    question points. A question that names a record by a code or a day ("the status of ER-2024-0032", "the salary
    of 2024-03-01") is answered from that record: a value is credited when a screen shows it on the row of the named
    code or day, or on a screen that shows them with no other record's code or day on the value's row (a detail
    page). Read only on the row of another record of the same kind (ER-2024-0031's row), it is contradicted; read
    elsewhere (a list that shows no day), the keypoint is left undecided: pixels show the value, not whose it is."""
    if found is None or found[0] != "satisfied" or lines is None:
        return found
    rest, answer = T.answer_keypoint(kp) or "", (R.final_answer(steps) if answer is None else answer) or ""
    codes = [c for c in dict.fromkeys(CODE.findall(rest)) if not T.contains(answer, c)]
    asked_days = days(rest) - days(answer)
    if not codes and not asked_days:
        return found
    named = codes + [f"{m}/{d}" for m, d in sorted(asked_days)]
    values = [v for v in T.answer_values(answer) if not days(v) & asked_days and v not in codes]
    places = [(e.index, _place(lines(e), v, codes, asked_days)) for v in values for e in steps if e.png is not None]
    there = [i for i, p in places if p == "there"]
    if there:
        return "satisfied", max(there), f"{found[2]}, beside {named}"
    seen = [p for _, p in places if p is not None]
    if not seen:  # credited otherwise (a total of several amounts): nothing here to place
        return found
    if all(p == "other" for p in seen):
        return "contradicted", steps[-1].index, f"the answer {values} was read only on another record's row, " \
                                                f"not {named}"  # fmt: skip
    return "not_visible", None, f"the answer {values} was on screen, never beside {named}: whose it is, is not shown"


def _place(screen: tuple, value: str, codes: list[str], asked: set[tuple[int, int]]) -> str | None:
    """Where `value` stands on one screen: "there" (on the named record's row, or on a screen that names the record
    with no other record on the value's row), "other" (on another record's row), "loose" (on the screen, no record
    named near it) or None (not on this screen)."""
    at = [box for box, t in screen if T.contains_value(t, value)]
    if not at:
        return None
    named = any(_names(t, codes, asked) for _, t in screen)
    rows = [[t for b, t in screen if _same_row(b, box)] for box in at]
    others = [any(_other_record(t, codes, asked) for t in row) for row in rows]
    beside = [any(_names(t, codes, asked) for t in row) for row in rows]
    if any(b or named and not o for b, o in zip(beside, others, strict=True)):
        return "there"
    return "other" if all(others) else "loose"


def _names(text: str, codes: list[str], asked: set[tuple[int, int]]) -> bool:
    return any(T.contains(text, c) for c in codes) or bool(days(text) & asked)


def _other_record(text: str, codes: list[str], asked: set[tuple[int, int]]) -> bool:
    """The text names a record of the kind the question names, and not the one it names."""
    other_code = bool(codes) and any(not any(T.contains(c, o) for c in codes) for o in CODE.findall(text))
    other_day = bool(asked) and bool(days(text) - asked)
    return other_code or other_day


_same_row = R.same_row  # one row of a list or table (rules.py holds it: its own checks read rows too)


# A question that names the field its answer is read from: "(with the status)", "(请回答类别)", "(Tell me its
# current status)". A kind of value ("the amount", "邮箱地址") or a person or title is no field a screen labels.
_FIELD = re.compile(r"\(\s*(?:请回答|(?:answer\s+)?with\s+(?:the\s+|its\s+|their\s+)?|tell me\s+(?:its\s+|the\s+)?"
                    r"(?:current\s+)?)(?P<field>[^()]{1,24}?)\s*\)\s*$", re.I)  # fmt: skip
_NOT_A_FIELD = re.compile(r"name|title|subject|address|number|figure|名|标题|主题|地址|号码|总额|数字", re.I)


# "<field> name" names the field; a person's or the user's own name ("full name", "your name") names none
_NAME_OF = re.compile(r"^(?P<field>[a-z][a-z-]{3,}|[\u4e00-\u9fff]{2,4})\s*(?:name|名称)$", re.I)
_NOT_NAMED = frozenset({"full", "first", "last", "user", "your", "their", "file", "display", "account"})


def asked_field(rest: str) -> str | None:
    """The field a question's answer is read from, when it names one a screen would label ("status", "类别")."""
    m = _FIELD.search(rest)
    field = m.group("field").strip() if m else ""
    named = _NAME_OF.match(field)  # "the department name", "部门名称": the department's field
    field = named.group("field") if named and named.group("field").casefold() not in _NOT_NAMED else field
    if not field or T.asked_kind(field) or _NOT_A_FIELD.search(field) or len(field.split()) > 2:
        return None
    return field if not T.HAN_CHAR.search(field) or len(field) <= 4 else None


def answer_at_field(kp: str, steps: Sequence[Evidence], lines: Lines | None, found: Result | None,
                    answer: str | None = None) -> Result | None:  # fmt: skip
    """An answer to a question that names its field ("the status", "类别") is the value the screen gives that field:
    on the field's own line ("Status: APPROVED"), right of its label on the row, on the line just below it (a
    detail page), or, when the question names a record by its code, anywhere down the field's column (a table).
    A value read elsewhere (another field's value, a label such as "参考号") is left undecided, as is an answer
    whose field no screen the agent saw labels."""
    if found is None or found[0] != "satisfied" or lines is None:
        return found
    rest, answer = T.answer_keypoint(kp) or "", (R.final_answer(steps) if answer is None else answer) or ""
    field = asked_field(rest)
    if field is None:
        return found
    column = bool(CODE.findall(rest))
    values, asked = T.answer_values(answer), frozenset(_asked_keys(rest.replace(field, " ")) - _key_words(field))
    labelled = False
    for e in steps:
        screen = lines(e) if e.png is not None else ()
        labels = [b for b, t in screen if T.normalise(t).startswith(T.normalise(field))]
        labelled = labelled or bool(labels)
        for label in labels:
            if any(_at_label(label, screen, v, column, asked) for v in values):
                return found
    if not labelled:
        return "not_visible", None, f"no screen the agent saw labels the field {field!r} the question asks for"
    return "not_visible", None, f"the answer {values} was on screen, but not as the value of {field!r}"


# Words of a question that name no row ("what", "amount", "tell"): the rest ("Venue hire", "total", "start",
# "Board prep") are what a row's label must share for the figure on that row to be the one asked for.
_NOT_A_KEY = frozenset(re.findall(r"\w+", "what which how much many the tell answer with your you was were are for "
                                          "from and that this does did give its their his her amount value number "
                                          "figure please let know"))  # fmt: skip
_FIGURE = re.compile(r"(?<![\w.:])(?:\d{1,2}:\d{2}|\d[\d,]*\.\d{2}|\d+)(?![\w.:])")
_TIME_RANGE = re.compile(r"(\d{1,2}:\d{2})\s*(?:[-–—~－～]|to|until|至|到)\s*(\d{1,2}:\d{2})", re.I)
_STARTS = re.compile(r"\b(?:start\w*|begin\w*)\b|开始", re.I)
_ENDS = re.compile(r"\b(?:end\w*|finish\w*|until)\b|结束", re.I)


# Row words a Chinese question or row says in its own script ("总金额是多少" asks for the "Tot." row's figure).
# ("一共", "总共" say "in all" of a count; they name no row.)
_ZH_KEYS = {"subtotal": "小计", "total": "(?<!小)(?:总额|总计|合计|总金额|总价)", "shipping": "运费"}


def _key_words(text: str) -> set[str]:
    words = {w.casefold() for w in re.findall(r"[A-Za-z]{3,}", text)} - _NOT_A_KEY
    words |= {key for key, zh in _ZH_KEYS.items() if re.search(zh, text)}
    return {w.removesuffix("s") for w in words}  # "costs" names the row "Cost"


def _asked_keys(question: str) -> set[str]:
    """`_key_words` of a question, and of a Chinese one its characters as one key ("zh:…"): a row names it when a
    word of the row, whole, is in the question ("储蓄账户" in "你的储蓄账户现在余额是多少？")."""
    han = "".join(T.HAN_CHAR.findall(question))
    return _key_words(question) | ({f"zh:{han}"} if han else set())


def _names_key(text: str, asked: set[str]) -> bool:
    """A row's text shares a word with the question: a word of it begins with one ("Venuehire", as OCR glues it,
    for "venue"; "Subtotal" is not "total"), or it is an abbreviation of one ("Tot." for "total", "Amt." for
    "amount")."""
    return bool(_named(text, asked))


def _named(text: str, asked: set[str]) -> set[str]:
    """The question's words a row's text names (`_names_key`); a Chinese row names its runs of characters that stand
    whole in the question ("酒店住宿" in "酒店住宿应使用哪个…")."""
    toks = re.findall(r"[a-z]+\.?", text.casefold())
    named = {w for w in asked if w in _ZH_KEYS and re.search(_ZH_KEYS[w], text)}  # "合计 €47.10" is the total's row
    zh = [w[3:] for w in asked if w.startswith("zh:")]
    named |= {run for run in re.findall(r"[\u3400-\u9fff]{2,}", text) if any(run in q for q in zh)}
    return named | {w for w in asked for tok in toks if tok.rstrip(".").startswith(w) or tok.endswith(".") and
                    len(tok) >= 4 and w.startswith(tok[:-1])}  # fmt: skip


def _figures(text: str) -> list[str]:
    """The figures of a line, letters glued to them or not ("Tips20.00", "·14.90", "订单#48213已发货")."""
    return [m.group(0) for m in _FIGURE.finditer(re.sub(r"[A-Za-z·\u3400-\u9fff]", " ", text))]


def _sentence(row: str) -> bool:
    """Running text, not a labelled row: a question mark, or three lower-case words ("could we meet on … at 13:30")."""
    return "?" in row or len(re.findall(r"\b[a-z]{2,}\b", _FIGURE.sub(" ", row))) >= 3


def _shape(value: str) -> str:
    return "time" if ":" in value else "amount" if "." in value else "count"


def answer_on_its_row(kp: str, steps: Sequence[Evidence], lines: Lines | None, found: Result | None,
                      answer: str | None = None) -> Result | None:  # fmt: skip
    """A figure is the value of the row it stands on: "Tips  20.00" is no answer to "the Venue hire amount" when
    the same screen shows "Venue hire  27.95", nor "Subtotal  14.90" to "the total of order #70422" beside
    "Total  24.80". A figure credited elsewhere (`rules.answered`) is contradicted when, on every screen that shows
    it, its row's words share none of the question's words while another row of that screen does and holds another
    figure of the same shape (an amount, a time, a count). A time asked as the start ("the start time of X") that
    stood only as a range's end ("11:15 - 23:00"), or asked as the end that stood only as its start, is
    contradicted too. A figure on a row the question names, or on no labelled row, keeps its credit."""
    if found is None or found[0] != "satisfied" or lines is None:
        return found
    rest, answer = T.answer_keypoint(kp) or "", (R.final_answer(steps) if answer is None else answer) or ""
    asked = _asked_keys(rest)
    figures = [v for v in T.answer_values(answer) if _FIGURE.fullmatch(v.lstrip("-+"))]
    if not figures or len(re.sub(r"EUR|USD|GBP|CNY|[^A-Za-z]", "", _FIGURE.sub(" ", answer))) > 3:
        return found  # a name or a sentence that holds a figure ("Training room 3") is no figure answer
    for v in figures:
        wrong = _wrong_end(rest, v, steps, lines) or (asked and _wrong_row(asked, v.lstrip("-+"), steps, lines)) or \
            _day_only(rest, v.lstrip("-+"), steps, lines) or _stamp_only(rest, v, steps, lines)  # fmt: skip
        if wrong:
            return "contradicted", steps[-1].index, wrong
    return found


def _day_only(rest: str, v: str, steps: Sequence[Evidence], lines: Lines) -> str | None:
    """A count or an amount asked, answered with a figure that every screen showed only inside a date (the "14" of
    "Thu, 14 Mar 2024" in a page's header)."""
    if T.asked_kind(rest) not in ("a count", "an amount"):
        return None
    holding = [t for e in steps if e.png is not None for _, t in lines(e) if v in _figures(t)]
    if holding and all(days(t) for t in holding):
        return f"{v!r} stood on screen only inside a date ({holding[0]!r})"
    return None


# A time asked from a text ("the meeting time in X's forum post "Q"", "邮件里说的会议时间"): its own words say it.
_TIME_IN_TEXT = re.compile(r"\btime\b.*\bin\b.*\b(?:post|email|e-mail|mail|message|comment|note|document)\b|"
                           r"(?:帖子|邮件|消息|文档|评论).{0,12}(?:时间|几点)", re.I)  # fmt: skip


def _stamp_only(rest: str, v: str, steps: Sequence[Evidence], lines: Lines) -> str | None:
    """A time asked from a text, answered with a time that stood alone in its box, or in a date, on every screen that
    showed it (the post's or the mail's own time stamp, "·08:00", "Thu, 14 Mar 2024, 08:00"), while a sentence on
    such a screen gives another time ("We meet at 16:15 …")."""
    if ":" not in v or not _TIME_IN_TEXT.search(rest):
        return None
    shown = [e for e in steps if e.png is not None and any(v in _figures(t) for _, t in lines(e))]
    if not shown or not all(_stamp(t, v) for e in shown for _, t in lines(e) if v in _figures(t)):
        return None
    for e in shown:
        other = [t for t in _rows(lines(e)) if _sentence(t) and any(":" in f and f != v for f in _figures(t))]
        if other:
            return f"{v!r} stood alone (a time stamp), while the text says {other[0]!r}"
    return None


def _stamp(text: str, v: str) -> bool:
    """The OCR box holding time `v` is a time stamp: the time alone ("·08:00"), or a date with it that is no sentence
    ("Thu, 14 Mar 2024, 08:00"; not "could we meet on 2024-03-20 at 13:30")."""
    return re.sub(r"[\W_]", "", text) == v.replace(":", "") or bool(days(text)) and not _sentence(text)


def _wrong_end(rest: str, v: str, steps: Sequence[Evidence], lines: Lines) -> str | None:
    starts, ends = bool(_STARTS.search(rest)), bool(_ENDS.search(rest))
    if starts == ends or ":" not in v:
        return None
    at = [m for e in steps if e.png is not None for t in _rows(lines(e)) for m in _TIME_RANGE.finditer(t)
          if v in m.groups()]  # fmt: skip
    if at and all(m.group(2 if starts else 1) == v and m.group(1) != m.group(2) for m in at):
        return f"{v!r} stood only as the {'end' if starts else 'start'} of {at[0].group(0)!r}; the question asks " \
               f"for the {'start' if starts else 'end'}"  # fmt: skip
    return None


def _rows(screen: tuple) -> list[str]:
    """The screen's rows as text, left to right (OCR splits "11:15 - 23:00" into boxes)."""
    ordered = sorted(screen, key=lambda r: r[0][0])
    return list(dict.fromkeys(" ".join(t for c, t in ordered if _same_row(c, b)) for b, _ in screen))


# The words that name what figure is asked, not whose it is: every account's card says 余额, every order's page Total
# (and Shipping, a part of the total "shipping included" asks for).
_WHAT_IS_ASKED = frozenset({"balance", "total", "amount", "sum", "price", "cost", "shipping", "subtotal", "tax", "fee",
                            "delivery", "discount", "余额", "金额", "总额", "总计", "合计", "总金额", "价格", "费用",
                            "总价", "运费", "小计", "税", "税费", "折扣", "手续费"})  # fmt: skip


def _wrong_row(asked: set[str], v: str, steps: Sequence[Evidence], lines: Lines) -> str | None:
    """`v` stood on no row the question names, while a row it names showed another figure of `v`'s shape, on every
    screen that shows `v` (a screen without such a rival row leaves it). An amount is judged across screens: it is
    contradicted on any one screen with a rival when no row of `v` named the question, or when they named only what is
    asked and a rival names whose it is (a balance read off another card: "日常活期账户 / €8,869.28" beside "储蓄账户 /
    €12,800.00", a card's name above its figure; the same figure under "余额" on that account's own page)."""
    rivals, alone, named = [], False, set()
    for e in steps:
        screen = lines(e) if e.png is not None else ()
        for box in [b for b, t in screen if v in _figures(t)]:
            row = _label_of(screen, box)
            if _sentence(row) or _names_key(row, asked) and _shape(v) != "amount":
                return None  # on a row the question names, or in a sentence (a mail's "could we meet at 13:30?")
            named |= _named(row, asked)
            others = [(t, f) for b, u in screen if not _same_row(b, box) and not days(u) for f in _figures(u)
                      if f != v and _shape(f) == _shape(v) for t in [_label_of(screen, b)] if _names_key(t, asked)]
            rivals += others
            alone = alone or not others  # fmt: skip
    if _shape(v) == "amount" and named:  # a row of `v` named only what is asked, a rival names whose it is
        rivals = [(t, f) for t, f in rivals if not named - _WHAT_IS_ASKED and _named(t, asked) - _WHAT_IS_ASKED]
    elif alone:
        return None  # on a screen where no row the question names holds a figure of its kind
    if not rivals:
        return None
    return f"{v!r} stood on no row that names what the question asks about; the row {rivals[0][0]!r} it names " \
           f"showed {rivals[0][1]!r}"  # fmt: skip


def _label_of(screen: tuple, box: tuple[int, int, int, int]) -> str:
    """The words that label the figure in `box`: its row's text; for a figure alone on its row, the nearest line of
    words above it that starts where it starts, within three of its heights (a card's name over its balance)."""
    row = " ".join(t for b, t in screen if _same_row(b, box))
    if _words(row):
        return row
    h = box[3] - box[1]
    above = [(b, t) for b, t in screen if b[3] <= box[1] and box[1] - b[3] <= 3 * h and abs(b[0] - box[0]) <= 30
             and _words(t)]  # fmt: skip
    return max(above, key=lambda bt: bt[0][3])[1] if above else row


def _words(text: str) -> bool:
    """Text that says something besides figures and currency: two letters or a Chinese character."""
    rest = re.sub(r"EUR|USD|GBP|CNY|RMB", "", _FIGURE.sub(" ", text))
    return bool(re.search(r"[A-Za-z]{2}|[\u3400-\u9fff]", rest))


def _at_label(label: tuple[int, int, int, int], screen: tuple, value: str, column: bool,
              asked: frozenset[str] = frozenset()) -> bool:  # fmt: skip
    """`value` is on the label's own line, right of it on its row, on the next line below it, or (a table column)
    anywhere below it in its column: when the question names a record by its code, or on a row whose other cells
    share one of the question's key words `asked` ("Hotel / lodging" for "a hotel stay")."""
    below = sorted((b for b, t in screen if b[1] >= label[3] - 2 and b[0] < label[2] + 20 and b[2] > label[0] - 20),
                   key=lambda b: b[1])  # fmt: skip
    right = [b for b, _ in screen if b != label and _same_row(b, label) and b[0] >= label[2]]
    for box, text in screen:
        if not T.contains_value(text, value):
            continue
        if box == label or box in right:
            return True
        # below: down a table's column, or the next line under a label that has nothing right of it
        if box in below and (column or not right and box[1] <= below[0][3]):
            return True
        if box in below and asked and any(_names_key(t, set(asked)) for b, t in screen if b != box and
                                          _same_row(b, box)):  # fmt: skip
            return True
    return False


# ---- a spreadsheet's cells -----------------------------------------------------------------------------------

_CELL = r"[A-Z]{1,2}[1-9]\d{0,2}"
_SAVE = re.compile(r"^\W*(?:save|保存)", re.I)  # what commits a sheet (a broader submit label might be Send)
_ZH_SET = re.compile(rf"(?P<cell>{_CELL})\s*(?:改为|改成|设为|设成|填为|填成|填入|填上|填写|写入|写上|写成|为)\s*"
                     r"(?P<value>[^，,；;。、\s]+)")  # fmt: skip
_EN_VERB = re.compile(r"\b(?:set|change|update|make)\b", re.I)
_EN_SET = re.compile(rf"\b(?:cell\s+)?(?P<cell>{_CELL})\s+to\s+(?P<value>[^,;]+?)(?=\s*(?:,|;|\band\b|\bthen\b|"
                     r"\bin\b|\.?$))")  # fmt: skip
_EN_PUT = re.compile(rf"(?P<values>[^,;:]+?)\s+in(?:to)?\s+(?:cells?\s+)?(?P<cells>{_CELL}(?:\s*(?:,|and|&)\s*"
                     rf"{_CELL})*)\b")  # fmt: skip


def cell_values(kp: str) -> list[tuple[str, str]]:
    """The (cell, value) pairs a spreadsheet keypoint asks for: "把 B2 改为 140", "set C3 to 95", "the headers Title
    and Author in A1 and B1", "Dune / Frank Herbert in A2 and B2". A list of values is paired with its list of cells in
    order; a list whose lengths differ is no pair (the rule then says nothing)."""
    text = T.unquoted(kp) if not T.quoted(kp) else kp
    pairs = [(m["cell"], m["value"].strip(" \"“”")) for m in _ZH_SET.finditer(text)]
    if _EN_VERB.search(text):
        pairs += [(m["cell"], m["value"].strip(" .\"“”")) for m in _EN_SET.finditer(text)]
    if pairs:
        return pairs
    for m in _EN_PUT.finditer(text):
        cells = re.findall(_CELL, m["cells"])
        values = [v.strip(" .") for v in re.split(r"\s*(?:/|,|\band\b|&)\s*", m["values"]) if v.strip()]
        if len(values) < len(cells):
            return []
        values = values[-len(cells):]
        values[0] = _trailing_value(values[0])
        if not values[0]:
            return []
        pairs += [(c, v.strip("\"“”")) for c, v in zip(cells, values, strict=True)]
    return pairs


# A cell's value given by what it is, not written out: "the amount Copperline Print's payment request email asks for"
_DESCRIBED_VALUE = re.compile(r"^the\s+(?:amount|total|sum|price|date|time|code|reference|number|balance)\b", re.I)


def _described_cell(kp: str, about: str, steps: Sequence[Evidence], lines: Lines,
                    read: R.Read | None) -> Result | None:  # fmt: skip
    """A cell set to a described value: the text typed last (before the last save), not one of the keypoint's own
    words, reads in the cell after the save, and answers "what is <description>?" by the answer rules on the
    screens before it was typed. A value named by its source ("… in the email "Q"") is left undecided."""
    if read is None or T.sourced_value(about):
        return None
    content = typed_content(kp, steps)
    if content is None:
        return None
    held = cells_hold(kp.replace(about, f'"{content[1]}"'), steps, lines)
    if held is None or held[0] != "satisfied":
        return None
    return as_described(held, held[1], about, content, steps, read, lines)


def _trailing_value(words: str) -> str:
    """The value at the end of a phrase ("with the headers Title" -> Title): its last run of capitalised words,
    numbers or quoted text."""
    q = re.search(r"[\"“]([^\"”]+)[\"”]\s*$", words)
    if q:
        return q.group(1)
    run = re.search(r"(?:(?<=\s)|^)((?:[A-Z0-9][\w.'-]*\s*)+)$", words)
    return run.group(1).strip() if run else ""


def _grid(screen: tuple) -> tuple[dict[str, float], dict[int, float], float, float]:
    """Column letters and row numbers of a spreadsheet shown on a screen: each header's centre (x for a letter,
    y for a number), and the spacing of columns and of rows. Letters stand on one line, numbers in one column."""
    letters = [(t.strip(), (b[0] + b[2]) / 2, b[1]) for b, t in screen if re.fullmatch(r"\s*[A-Z]\s*", t)]
    numbers = [(int(t), (b[1] + b[3]) / 2, b[0]) for b, t in screen if re.fullmatch(r"\s*[1-9]\d?\s*", t)]
    top = max({round(y / 8) for _, _, y in letters}, key=lambda r: sum(round(y / 8) == r for _, _, y in letters),
              default=None)  # fmt: skip
    cols = {c: x for c, x, y in letters if round(y / 8) == top}
    left = max({round(x / 8) for _, _, x in numbers}, key=lambda r: sum(round(x / 8) == r for _, _, x in numbers),
               default=None)  # fmt: skip
    rows = {n: y for n, y, x in numbers if round(x / 8) == left}
    if len(cols) < 2 or len(rows) < 2:
        return {}, {}, 0.0, 0.0
    xs, ys = sorted(cols.values()), sorted(rows.values())
    return cols, rows, float(np.diff(xs).min()), float(np.diff(ys).min())


def _in_cell(screen: tuple, cell: str, value: str) -> bool | None:
    """Whether the screen's grid shows `value` in `cell`: a line reading the value that lies mostly inside the
    cell's column (half a column either side of its letter: cells align text left, numbers right) and whose centre
    is on the cell's row. None when the screen shows no such column or row."""
    cols, rows, dx, dy = _grid(screen)
    col, row = re.match(r"([A-Z]+)(\d+)", cell).groups()  # type: ignore[union-attr]
    if col not in cols or int(row) not in rows:
        return None
    x, y = cols[col], rows[int(row)]

    def inside(b: tuple[int, int, int, int]) -> bool:
        shared = min(b[2], x + dx / 2) - max(b[0], x - dx / 2)
        return shared >= 0.6 * max(1, b[2] - b[0]) and abs((b[1] + b[3]) / 2 - y) < dy / 2

    return any(T.normalise(t) == T.normalise(value) and inside(b) for b, t in screen)


def cells_hold(kp: str, steps: Sequence[Evidence], lines: Lines | None, read: R.Read | None = None) -> Result | None:
    """"把 B2 改为 140，C3 改为 95", "the headers Title and Author in A1 and B1": on the screen right after the agent's
    last click on a saving label (Save, 保存) that changed the screen, with nothing typed after it, each value reads in
    its cell of the grid (by the column letters and row numbers on that screen), and any name the keypoint quotes
    (the file's) is on that screen or in its page title. A value read in another cell, or a save not made, leaves
    the rule undecided. One cell set to a described value ("set cell C4 to the amount X's email asks for"): the text
    typed last before the save is the value, checked as the answer to the question the description asks."""
    pairs = cell_values(kp)
    if not pairs or lines is None:
        return None
    about = pairs[0][1] if len(pairs) == 1 and _DESCRIBED_VALUE.match(pairs[0][1]) else None
    if about is not None:
        return _described_cell(kp, about, steps, lines, read)
    named = [q for q in T.quoted(kp) if not any(T.normalise(q) == T.normalise(v) for _, v in pairs)]
    saved = _sheet_saved(steps, named, lines)
    if saved is None:
        return None
    save, screen = saved
    if all(_in_cell(screen, c, v) for c, v in pairs):
        cells = ", ".join(f"{c}={v}" for c, v in pairs)
        return "satisfied", save + 1, f"after the save at step {save} the grid reads {cells}"
    return None


def _sheet_saved(steps: Sequence[Evidence], named: list[str], lines: Lines) -> tuple[int, tuple] | None:
    """The sheet's last save that changed the screen, with nothing typed into the sheet after it, and the OCR lines of
    the screen it led to, which shows every name in `named` (or its page title does); None when there is none."""
    saves = [t for t in range(len(steps) - 1) if R.clicked(steps[t]) and _SAVE.match(R.target(steps[t]))
             and R._changed(steps[t], steps[t + 1])]  # fmt: skip
    files = [q for q in named if _FILE_NAME.search(q)]
    # the sheet's saves, where its page is titled: a later save in another app (an event's form) is not the sheet's
    saves = [t for t in saves if all(T.contains(steps[t].title or "", q) for q in files)] or saves
    if not saves or any(R.typed_texts(e) for e in steps[saves[-1] + 1 :] if e.title == steps[saves[-1]].title):
        return None  # typed into the sheet after its last save (typing on another app's page later is no edit)
    shown = steps[saves[-1] + 1]
    if shown.png is None:
        return None
    screen = lines(shown)
    if not all(T.contains(shown.title or "", q) or any(T.contains(t, q) for _, t in screen) for q in named):
        return None
    return saves[-1], screen


# "add a new row after the last one with Training in column A and 1200, 800, 1500 in columns B, C and D",
# "最后一行之后新增一行：A 列填 培训，B、C、D 列分别填 1200、800、1500": a row of values given by column.
_NEW_ROW = re.compile(r"\b(?:add|append|insert)\b[^.;]*?\b(?:new\s+)?row\b|(?:新增|添加|增加|加|插入)一行", re.I)
_COLUMNS = r"[A-Z](?:(?:\s*,\s*|\s+and\s+|\s*&\s*|\s*[、，和及]\s*)[A-Z])*"
_EN_IN_COLUMNS = re.compile(rf"\s+in\s+columns?\s+(?P<cols>{_COLUMNS})\b")
_ZH_COLUMNS = re.compile(rf"(?P<cols>{_COLUMNS})\s*列(?:分别)?(?:填写|填入|填|写|为)\s*(?P<values>[^，,；;。]+)")
_LIST_SEP = re.compile(r"\s*(?:,|、|，|\band\b|&|和|及)\s*")


def column_values(kp: str) -> list[tuple[str, str]]:
    """The (column, value) pairs of a new row: "Training in column A and 1200, 800, 1500 in columns B, C and D",
    "A 列填 培训，B、C、D 列分别填 1200、800、1500". Values pair with their columns in order; a list whose length
    differs from its columns' gives no pairs."""
    pairs: list[tuple[str, str]] = []
    groups = [(m["cols"], m["values"], False) for m in _ZH_COLUMNS.finditer(kp)]
    start = 0
    for m in _EN_IN_COLUMNS.finditer(kp):  # the values are the words since the last "in column(s) …"
        groups.append((m["cols"], re.sub(r"^\s*(?:and\s+)?", "", kp[start : m.start()]), True))
        start = m.end()
    for cols_text, values_text, english in groups:
        cols = re.findall(r"[A-Z]", cols_text)
        values = [v.strip(" .") for v in _LIST_SEP.split(values_text.strip()) if v.strip(" .")]
        if len(values) < len(cols):
            return []
        values = values[-len(cols) :]
        if english:  # "… after the last one with Training": the value ends the phrase
            values[0] = _trailing_value(values[0])
        values = [v.strip(" \"“”") for v in values]
        if not all(values):
            return []
        pairs += list(zip(cols, values, strict=True))
    return pairs


# A line added with its values listed ("添加正确的一行：2024-03-11，类别 TRV-HTL，商户 Hotel Wien Mitte，164.00 欧元",
# "Add the correct one: 2024-03-11, category TRV-HTL, …"): each listed part, its label and currency aside, is a value.
_ADD_LINE = re.compile(r"^\s*(?:add|insert)\b[^:：\"“]*[:：]|^\s*(?:请)?(?:添加|新增|加上)[^:：“\"]{0,10}[:：]", re.I)
_LINE_LABEL = re.compile(r"^(?:类别|商户|金额|日期|描述|说明|category|merchant|amount|date|description)\s*", re.I)
_LINE_CURRENCY = re.compile(r"\s*(?:欧元|元|EUR|USD|GBP)$", re.I)


def line_values(kp: str) -> list[str]:
    """The values a keypoint that adds a line lists after its colon (`_ADD_LINE`)."""
    if not _ADD_LINE.match(kp):
        return []
    listed = re.split(r"[，,;；、]", re.split(r"[:：]", kp, maxsplit=1)[1])
    return [v for v in (_LINE_CURRENCY.sub("", _LINE_LABEL.sub("", p.strip(" 。."))).strip() for p in listed) if v]


def line_added(kp: str, steps: Sequence[Evidence], lines: Lines | None) -> Result | None:
    """A line added in place, on the list's own page (an expense report's "Add Ln" under its lines): the agent's
    last click on a committing label ("Add", "添加") after which one row of the same page reads every listed value
    and the control it clicked moved down (the list grew above it; values still in the input row stand on the
    control's own row). Nothing else decides it: the page does not change, so no submit is seen."""
    values = line_values(kp)
    if len(values) < 2 or lines is None:
        return None
    for s in range(len(steps) - 2, -1, -1):
        step, after = steps[s], steps[s + 1]
        y, word = R.click_y(step), R.clicked_word(step) or ""
        if y is None or after.png is None or not R._SUBMIT_LABEL.match(word) or \
                R.page(step)[0] is not None and R.page(step)[0] != R.page(after)[0]:  # fmt: skip
            continue
        moved = [b for b, t in lines(after) if T.normalise(t).startswith(T.normalise(word)) and b[1] > y + 8]
        if not moved:
            continue
        control = min(moved, key=lambda b: b[1])
        rows = [t for b, t in R.text_rows(lines(after)) if b[3] < control[1] and
                all(T.ocr_contains(t, v) for v in values)]  # fmt: skip
        if rows:
            return "satisfied", s + 1, f"the click on {word!r} at step {s} added the line {rows[0]!r}"
    return None


def row_added(kp: str, steps: Sequence[Evidence], lines: Lines | None) -> Result | None:
    """A new row of values by column (`column_values`): after the sheet's last save, one row of the grid reads each
    value in its column, and on the sheet's first screen that row was empty and the row above it was not (the row
    after the last one). The values written over a row that held text before are contradicted: that row was
    replaced, not added."""
    pairs = column_values(kp) if _NEW_ROW.search(T.unquoted(kp)) else []
    if not pairs or lines is None:
        return None
    saved = _sheet_saved(steps, T.quoted(kp), lines)
    if saved is None:
        return None
    save, screen = saved
    first = next((e for e in steps if e.title == steps[save].title and e.png is not None), None)
    _, rows, _, _ = _grid(screen)
    for row in sorted(rows):
        if not all(_in_cell(screen, f"{c}{row}", v) for c, v in pairs):
            continue
        before = lines(first) if first is not None else ()
        held = [t for c, _ in pairs for t in _cell_texts(before, f"{c}{row}")]
        if held:
            return "contradicted", save + 1, f"the values went into row {row}, which held {held[0]!r} before"
        if row - 1 in _grid(before)[1] and not any(_cell_texts(before, f"{c}{row - 1}") for c, _ in pairs):
            return None  # an empty row above it: not the row after the last one
        cells = ", ".join(f"{c}{row}={v}" for c, v in pairs)
        return "satisfied", save + 1, f"after the save at step {save} the new row reads {cells}"
    return None


def _cell_texts(screen: tuple, cell: str) -> list[str]:
    """The texts the screen's grid shows in `cell` (as `_in_cell` places them)."""
    cols, rows, dx, dy = _grid(screen)
    col, row = re.match(r"([A-Z]+)(\d+)", cell).groups()  # type: ignore[union-attr]
    if col not in cols or int(row) not in rows:
        return []
    x, y = cols[col], rows[int(row)]
    return [t for b, t in screen if min(b[2], x + dx / 2) - max(b[0], x - dx / 2) >= 0.6 * max(1, b[2] - b[0])
            and abs((b[1] + b[3]) / 2 - y) < dy / 2 and t.strip()]  # fmt: skip

