"""Trajectory-level hard rules: generic GUI/web facts that settle a keypoint without a model call.

Every rule reads only what any browser or app episode records: the actions, each step's URL and page
title, the raw screenshots (through an optional OCR `read`), and the keypoint's own words. None of them
knows an app. Indices: `steps[i]` is the screen *before* action i, so what action i did shows on i + 1.

- `opened`: a quoted name is the title of a page the agent reached by its own click (an item "opened").
- `submitted`: the keypoint's values were typed into a form that a click/Enter then submitted (the page
  changed and the new URL reports a done-state, no error); other values come from the page the form was
  reached from (the mail replied to) or, with OCR, from the form as it was submitted.
- `clicked_effect`: a click on the page of the named item led to a page whose URL (query/fragment) or
  freshly changed screen names the keypoint's state ("is in Trash", "shows Accepted", "is gone").
- `still_there`: a "still there" keypoint whose quoted names OCR reads on the final screenshot.
- `never_shown`: a keypoint whose quoted value never appears after the agent's first action (not typed,
  not in a title or URL, not read on any later screenshot) is contradicted.
- `answered`: a keypoint about the final answer ("The answer gives 312.80"): the answer must give the value
  the keypoint names, and its key values (amounts, dates, codes, names) must have been on a screen the agent
  saw (OCR), or in a page's title or URL; a value no screen ever showed is a hallucination (contradicted).
- `clicked_named`: "Click the "OK" button", "Select HF2", "Press Submit": a click landed on that text (the text
  under the click, read by OCR into `Evidence.target`), the whole text, not a part of it.
- `one_click`: "Star the email "X"": on a page about X, a click on the label the keypoint's verb names ("Star").
- `undone`: a keypoint satisfied at some step and later taken back: a click on "Delete", "Unstar", "Leave"... on
  a page about it (contradicted at that click).
- `side_effects`: deletions the goal does not ask for (LogFacts; they block `completed`).

Under generic evidence (`SGVConfig.evidence`) URLs carry no server outcome parameters, so a submit is a click
on a submit-like label (Send, Save, Submit...) that changed the page; under world evidence the URL's
done-flags count too.

Rules return `(status, step, reason)` or None when they do not apply; judges turn that into votes.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from urllib.parse import unquote, urlsplit

from venuskit.actions.types import CLICK_ACTIONS, Hotkey, PressEnter, SelectOption
from venuskit.models.lexicon import ISO_DATE, days
from venuskit.verify import text as T
from venuskit.verify.evidence import Evidence
from venuskit.verify.images import changed_fraction, mark_change, png_size
from venuskit.verify.keypoints import SORT_POINT, split_goal

Read = Callable[[Evidence], str]  # OCR text of a step's raw screenshot ("" when it has none)
Lines = Callable[[Evidence], "tuple[tuple[tuple[int, int, int, int], str], ...]"]  # OCR lines with pixel boxes
Result = tuple[str, int | None, str]

_POINTER = CLICK_ACTIONS | {PressEnter.name, Hotkey.name}
# A URL query/fragment with one of these reports that something was done (a flash, a redirect flag).
_DONE = re.compile(r"success|confirm|submit|sent|saved|done|complete|thank|added|created|updated|posted|moved|"
                   r"trashed|deleted|removed|accepted|declined|starred|archived|paid|placed|booked|changed",
                   re.I)  # fmt: skip
_ERROR = re.compile(r"error|invalid|fail|denied|reject|discard|cancel|missing|required", re.I)
_DELETED = re.compile(r"trashed|deleted|removed|moved_to_trash|discarded|purged", re.I)
_NEGATED = re.compile(r"\b(not|no|never|nothing|none|without|gone|deleted|removed|unchanged|still|stays?|kept|"
                      r"keeps?|remains?|any more|anymore|no longer|unread|unstarred|off)\b", re.I)  # fmt: skip
_STILL = re.compile(r"\b(still|remains?|stays?|kept|unchanged)\b", re.I)
# A state participle the keypoint asserts ("is archived"): shown by a flash or a fresh label after the click.
_STATE = re.compile(r"\b(archived|accepted|declined|starred|pinned|liked|approved|confirmed|booked|joined|"
                    r"published)\b",
                    re.I)  # fmt: skip
_OPENED = re.compile(r"\b(opened|viewed|open)\b", re.I)
# "打开表格“X”", "在云盘中打开“X”": a Chinese keypoint that only opens (no verb after the name: "打开邮件“X”并
# 回复" is a reply as well).
_ZH_OPEN_ONLY = re.compile(r"^\s*(?:请)?(?:在[^，,。；;\s]{1,10}(?:中|里))?(?:打开|查看)[\u3400-\u9fff]{0,4}"
                           r"\s*[。.]?\s*$")  # fmt: skip
_GONE = re.compile(r"\b(gone|deleted|removed|in (?:the )?trash)\b", re.I)
_REMOVAL = re.compile(r"\s*(delete|remove|cancel|decline|reject|unsubscribe|archive|clear|disable|turn off|"
                      r"uninstall|empty|unstar|trash|discard)\b", re.I)  # fmt: skip
# The same in Chinese, anywhere in the keypoint's own words ("从云盘删除文件“X”", "在购物车里删掉“X”"); a mark
# taken off ("取消星标", "从收藏中移除") is no removal of the item.
_ZH_REMOVAL = re.compile(r"删除|删掉|删去|移除|去掉|拿掉|(?:移|扔|放)(?:至|到|进)回收站|清空")
_ZH_MARK_OFF = re.compile(r"取消|星标|标签|收藏|标记")
_IDS = re.compile(r"\d+")
_UNCHANGED = 0.001
# Labels of buttons that commit a form, that take a change back, and that delete (the text under the click).
_SUBMIT_LABEL = re.compile(r"^\W*(send|submit|save|post|publish|confirm|place order|pay|transfer|add|create|reply|"
                           r"comment|log ?in|sign ?in|ok|apply|update|book|order|buy|request|done|"
                           r"发送|提交|保存|存草稿|存为|确认|发布|付款|支付|转账|登录|添加|加入|创建|新建|回复|更新|应用|申请|"
                           r"预订|预约|购买|下单|评论|完成)", re.I)  # fmt: skip
_UNDO_LABEL = re.compile(r"^\W*(delete|trash|remove|unstar|undo|leave|discard|move to inbox|to inbox|restore|"
                         r"删除|撤销|移除|退出|恢复|取消星标|移到收件箱|移回收件箱)", re.I)  # fmt: skip
_DELETE_LABEL = re.compile(r"^\W*(delete|trash|remove|discard|move to trash|删除|移除|移到废纸篓)", re.I)
_ASKS_REMOVAL = re.compile(r"\b(delete|remove|trash|discard|empty|clear|purge|unstar|leave|restore|undo|cancel|"
                           r"decline|archive|drop|take .* out)\b|删除|移除|退出|恢复|取消|归档", re.I)  # fmt: skip
# Imperatives whose whole effect is one click on a button of the same name, on the item's own page.
_ONE_CLICK = ("star", "unstar", "archive", "accept", "decline", "join", "leave", "like", "restore", "trash",
              "delete", "unarchive", "mark")  # fmt: skip
# "Mark X as unread": the state a "mark" keypoint asks for, which the clicked label must name too ("Mark as read" is
# the opposite act).
_MARK_AS = re.compile(r"\bmark\b.*?\bas\s+(?:an?\s+)?(?P<state>[a-z-]+)", re.I)
_GIVE = re.compile(r"^\s*give\s+(?:it|them|both|each|all|each of them|both of them|the \w+)?\s*an?\s+"
                   r"(?P<verb>like|star)\b", re.I)  # fmt: skip
# The one-click acts in Chinese: what asks for it in a keypoint -> the labels that do it.
_ZH_ONE_CLICK = {
    "unstar": ("取消[^，,。；;]{0,8}?(?:星标|加星)", "取消星标|取消加星"),
    "star": ("加星|星标|标星", "加星|星标|标星"),
    "unarchive": ("取消归档|(?:移|放|挪)回收件箱", "取消归档|移回收件箱|移到收件箱|移至收件箱"),
    "archive": ("(?<!已)归档", "归档"), "accept": ("接受", "接受"),
    "decline": ("拒绝", "拒绝"), "delete": ("删除|删掉", "删除|永久删除|移至回收站|移到回收站"),
    "like": ("点赞|点个赞|赞一下", "点赞|赞"), "restore": ("恢复|还原", "恢复|还原"),
    "join": ("加入(?:小组|群组|群|社区|活动)", "加入"), "leave": ("退出(?:小组|群组|群|社区|活动)", "退出"),
    "mark": ("(?:标|标记|设|设置)为未读", "(?:标|标记|设|设置)为未读"),  # the label names the state itself
}
_ADVERBS = frozenset({"please", "permanently", "now", "then", "also", "just", "simply", "quickly", "finally"})
_SPEECH = re.compile(r"\b(?:tell|tells|say|says|saying|said|write|writes|writing|message|reply|comment|note|subject|"
                     r"body|text|reads?)\b|告诉|说|写|回复|内容|备注|附言", re.I)  # fmt: skip
_REASON_OPENERS = frozenset({"you", "you're", "you've", "your", "it", "it's", "this", "that", "there", "the", "since",
                             "because", "as", "we", "we're", "i", "i'm", "i've", "my", "our"})  # fmt: skip
_GLUED_OBJECTS = frozenset({"group", "forever", "event", "invite", "invitation", "post", "file", "message", "email",
                            "all"})  # fmt: skip
_FOR_GOOD = re.compile(r"permanent|forever|for good|永久|彻底", re.I)
_BACK = re.compile(r"^\s*(?:bring|move|put|get)\s+(?:it|them|the \w+|this \w+)\s+back\b", re.I)  # = restore
_EACH = re.compile(r"\b(?:both|each|all|every)\b", re.I)
# "… by archiving them": the act a keypoint names by its means, each of the items it lists ("them")
_BY_DOING = re.compile(r"\bby\s+(?P<stem>[a-z]+?)ing\s+(?P<what>them|it|each|all|both)\b", re.I)
_CLICK_KP = re.compile(r"^\s*(?:click|press|tap|hit|select|choose|check)\b\s*(?:on\s+)?(?:(?:the|a|an)\s+)?"
                       r"(?P<rest>.+?)\s*[.。]?$", re.I)  # fmt: skip
_ROLES = frozenset({"button", "link", "item", "option", "checkbox", "icon", "widget", "box", "labeled", "named",
                    "entry"})  # fmt: skip


def kids(action) -> tuple:  # noqa: ANN001 - an Action or None
    if action is None:
        return ()
    return tuple(getattr(action, "actions", ())) or (action,)


def _names(act) -> list[str]:  # noqa: ANN001
    return [a.name for a in kids(act)]


def clicked(step: Evidence) -> bool:
    """The step's action is the agent's own click or Enter (not a typed URL, scroll or end)."""
    return step.error is None and any(n in _POINTER for n in _names(step.act))


def typed_texts(step: Evidence) -> list[str]:
    return [a.content for a in kids(step.act) if a.name == "Type"] if step.error is None else []


def target(step: Evidence) -> str:
    """The text under the step's click, as OCR read it ("" when none was read)."""
    return (step.target or "").strip()


def clicked_word(step: Evidence) -> str:
    """The word under the click, read alone (`Evidence.under`), else the text under it."""
    if 0 <= step.under_at < len(step.under):
        return step.under[step.under_at]
    return target(step)


def page_item(title: str | None) -> str:
    """A world page title's own part: what stands before " · " and the signed-in user's name ("Q · Alex Morgan")."""
    return re.split(r"\s+·\s+", title or "")[0]


def page(step: Evidence) -> tuple[str | None, str | None]:
    return (step.url, step.title)


def tail(url: str | None) -> str:
    """Query and fragment of a URL, decoded: where apps put flashes and done-flags (never the path, which
    names the view: /mail/trash is a folder, not a deletion)."""
    if not url:
        return ""
    parts = urlsplit(url)
    return unquote(f"{parts.query}#{parts.fragment}").replace("+", " ")


def _ids(url: str | None) -> set[str]:
    if not url:
        return set()
    parts = urlsplit(url)
    return set(_IDS.findall(f"{parts.path}?{parts.query}"))


def context(steps: Sequence[Evidence], s: int) -> list[str]:
    """Titles of the page of step `s` and of the page it was reached from by a click when both URLs name
    the same item id (/m/45 -> /compose?reply=45, /p/23 -> /p/23/delete): what the action at `s` is about. The
    page it was reached from is the last one before it, however many steps stayed on it."""
    titles = [steps[s].title or ""]
    j = s - 1
    while j >= 0 and page(steps[j]) == page(steps[s]):
        j -= 1  # clicks that stayed on this page (a stray click on the top bar's date) did not open it
    if j >= 0 and clicked(steps[j]) and _ids(steps[j].url) & _ids(steps[s].url):
        titles.append(steps[j].title or "")
    return titles


def needles(kp: str) -> list[str]:
    """What the keypoint names: its key values and proper names, except values it changes from and single letters
    (the columns in "B、C、D 列", which any word may hold)."""
    old = T.old_values(kp)
    return [n for n in dict.fromkeys(T.needles(kp) + T.proper_names(kp)) if n not in old and len(T.normalise(n)) >= 2]


def own_words(kp: str) -> str:
    """The keypoint's own words: outside quotes, and before a colon that introduces a value ('Your comment
    says: I have it, still in the box' asserts a text, not that something is "still" there)."""
    return re.split(r"[:：]\s", T.unquoted(kp), maxsplit=1)[0]


def positive(kp: str) -> bool:
    """A keypoint that asserts something exists or holds (rules can prove those), not a negation or an
    imperative to remove something."""
    return not _NEGATED.search(own_words(kp)) and not removal(kp)


def removal(kp: str) -> bool:
    """A keypoint that asks to take something away ("Delete the file "X"", "从云盘删除文件“X”")."""
    return bool(_REMOVAL.match(kp) or _ZH_REMOVAL.search(own_words(kp)))


def is_invariant(kp: str) -> bool:
    """A keypoint that asks for something to stay as it was: it holds before the agent does anything. So does a sort
    point (how the results were ranked, where no page offers a sort) and a fence around the goal's deletions ("Keep
    your other posts"), which are no progress of their own."""
    return bool(_STILL.search(own_words(kp)) or SORT_POINT.match(kp) or _KEEP_OTHERS.match(T.unquoted(kp)))


def first(kp: str, rules: Sequence[Callable[[], Result | None]]) -> Result | None:
    """The first decisive result of `rules` (tried in order, lazily: later ones may OCR), else the first
    `not_visible`, else None (no rule applies)."""
    seen = None
    for rule in rules:
        found = rule()
        if found is not None and found[0] in ("satisfied", "contradicted"):
            return found
        seen = seen or found
    return seen


def settle(kp: str, steps: Sequence[Evidence], rules: Sequence[Callable[[], Result | None]],
           lines: Lines | None = None) -> Result | None:  # fmt: skip
    """`first` of the rules, except that a satisfied keypoint that was taken back later is contradicted."""
    found = first(kp, rules)
    if found is not None and found[0] == "satisfied":
        return undone(kp, steps, found[1]) or restored(kp, steps, found[1], lines) or found
    return found


# ---- opened -----------------------------------------------------------------------------------------


def opened(kp: str, steps: Sequence[Evidence]) -> Result | None:
    quoted = T.quoted(kp)
    if not quoted or not (_OPENED.search(T.unquoted(kp)) or _ZH_OPEN_ONLY.match(T.unquoted(kp))):
        return None
    for j in range(1, len(steps)):
        title, before = steps[j].title or "", steps[j - 1].title or ""
        if (
            clicked(steps[j - 1])
            and all(T.contains(title, q) for q in quoted)
            and not all(T.contains(before, q) for q in quoted)
        ):
            return "satisfied", j, f"the agent's click at step {j - 1} opened the page titled {title!r}"
    return "not_visible", None, "no page the agent clicked to has that title"


# ---- typed and submitted -------------------------------------------------------------------------------


@dataclass(frozen=True)
class Submit:
    """A form submit: text typed on one page, then a click/Enter at `at` that changed the page (`at + 1`)
    to one whose URL reports a done-state and no error."""

    at: int
    typed: tuple[str, ...]
    context: tuple[str, ...]
    done_url: str


def submits(steps: Sequence[Evidence]) -> list[Submit]:
    found = []
    for s in range(len(steps) - 1):
        typed = [*steps[s].echo, *typed_texts(steps[s])]
        if not typed or not clicked(steps[s]) or page(steps[s + 1]) == page(steps[s]):
            continue
        after = tail(steps[s + 1].url) + " " + (steps[s + 1].title or "")
        label = target(steps[s])
        # Reply, Edit, New event open a form: text typed before them went into another one (or none)
        done = _DONE.search(after) or _SUBMIT_LABEL.match(label) and not OPENS_FORM.match(label)
        done = done or _titled_with(typed, steps[s], steps[s + 1])
        if done and not _ERROR.search(after):
            found.append(Submit(s, tuple(typed), tuple(form_context(steps, s)), after))
    return found


def _titled_with(typed: list[str], before: Evidence, after: Evidence) -> bool:
    """The click made the page's title name text the agent typed, which it did not name before ("设置 · 林晓" ->
    "设置 · 林晓（产品）" once the new display name was saved): the app took the entry, whatever the click's label
    read (a drop-down's list drawn over the Save button)."""
    old, new = before.title or "", after.title or ""
    if _RESULTS.search(new) or _QUERY.search(tail(after.url)):
        return False  # a search's results page names what was searched: no entry was saved
    return any(len(t.strip()) >= 2 and T.contains(new, t) and not T.contains(old, t) for t in typed)


def form_context(steps: Sequence[Evidence], s: int) -> list[str]:
    """Titles of the form page and of the page the form was opened from (same item id)."""
    return context(steps, _form_start(steps, s))


def _form_start(steps: Sequence[Evidence], s: int) -> int:
    start = s
    while start >= 1 and page(steps[start - 1]) == page(steps[s]):
        start -= 1
    return start


def _entered(value: str, steps: Sequence[Evidence], s: int, read: Read, lines: Lines | None = None) -> bool:
    """A value read on the form at its submit (step `s`) but not typed is in the form when the page had it there as
    the form opened (filled in for the agent), or the agent picked it: a click on its words, or on the row that
    reads it (the box beside a file's name in a picker), or an option chosen in a drop-down after which the form
    read it where it had not before (a saved payee). A value that only came into view as the agent scrolled is one
    choice of a list (a file picker), not an entry."""
    start = _form_start(steps, s)
    picked = any(clicked_on(e, value, lines) or clicked(e) and _picked_file(e, value, read)
                 for e in steps[start:s + 1])  # fmt: skip
    return picked or _chosen(value, steps, start, s, lines) or \
        (steps[start].png is not None and T.contains(read(steps[start]), value))  # fmt: skip


def _chosen(value: str, steps: Sequence[Evidence], start: int, s: int, lines: Lines | None) -> bool:
    """A drop-down's option chosen between steps `start` and `s`, after which the screen read `value` at a place
    where it had not before (the chosen option in its box; the open list may have shown it already)."""
    def at(e: Evidence) -> list[tuple[int, int, int, int]]:
        return [b for b, t in lines(e) if T.ocr_contains(t, value)] if lines is not None and e.png is not None else []

    def new(after: list, before: list) -> bool:
        return any(all(abs(a[1] - b[1]) > 8 or abs(a[0] - b[0]) > 30 for b in before) for a in after)

    return any(isinstance(steps[i].act, SelectOption) and new(at(steps[i + 1]), at(steps[i]))
               for i in range(start, min(s, len(steps) - 1)))  # fmt: skip


def clicked_on(e: Evidence, value: str, lines: Lines | None) -> bool:
    """A click on `value`: on its words (under the click, or the control's label), or on the row that reads it."""
    return clicked(e) and (T.contains(" ".join(e.under), value) or T.contains(target(e), value)
                           or on_row_of(e, value, lines))  # fmt: skip


def same_row(a: tuple[int, int, int, int], b: tuple[int, int, int, int]) -> bool:
    """Two text boxes overlap by half the shorter one's height: one row of a list or table."""
    overlap = min(a[3], b[3]) - max(a[1], b[1])
    return overlap >= 0.5 * min(a[3] - a[1], b[3] - b[1])


def click_y(step: Evidence) -> float | None:
    p = _point(step)
    if p is None or step.png is None:
        return None
    return p[1] * png_size(step.png)[1]


def on_row_of(step: Evidence, name: str, lines: Lines | None) -> bool:
    """The click landed on the row of a line that reads `name` (an item's other controls share its row: the star
    of the mail "by Amil", on Amil's row)."""
    y = click_y(step)
    if lines is None or y is None:
        return False
    if any(y1 - (y2 - y1) <= y <= y2 + (y2 - y1) for (_, y1, _, y2), t in lines(step) if T.ocr_contains(t, name)):
        return True
    return any(y1 - 4 <= y <= y2 + 4 and T.ocr_contains(t, name) for (_, y1, _, y2), t in text_rows(lines(step)))


def text_rows(found: Sequence[tuple[tuple[int, int, int, int], str]]) -> list[tuple[tuple[int, int, int, int], str]]:
    """OCR's lines joined into rows, left to right: a name the line finder split at its brackets ("预算副本", "(旧)",
    ".xlsx") reads whole again. Lines are one row while their vertical centres fall inside the row's span."""
    rows: list[list[tuple[tuple[int, int, int, int], str]]] = []
    for box, t in sorted(found, key=lambda line: (line[0][1] + line[0][3]) / 2):
        centre = (box[1] + box[3]) / 2
        if rows and min(b[1] for b, _ in rows[-1]) <= centre <= max(b[3] for b, _ in rows[-1]):
            rows[-1].append((box, t))
        else:
            rows.append([(box, t)])
    out = []
    for row in rows:
        row.sort(key=lambda line: line[0][0])
        boxes = [b for b, _ in row]
        box = (min(b[0] for b in boxes), min(b[1] for b in boxes), max(b[2] for b in boxes), max(b[3] for b in boxes))
        out.append((box, " ".join(t for _, t in row)))
    return out


def _picked_file(e: Evidence, name: str, read: Read) -> bool:
    """A click on a file's name in a list whose OCR put the extension on a line of its own ("Atlas保密协议 (已签署)"
    over "-pdf"): the name without its extension was under the click and names one file on that screen (a ".docx"
    of the same name beside it would make the click ambiguous)."""
    stem = T.file_stem(name)
    if stem is None or e.png is None or not T.contains(" ".join(e.under), stem):
        return False
    return T.ocr_key(read(e)).count(T.ocr_key(stem)) == 1


def _on_form(screen: str, value: str) -> bool:
    """`value` is read on the screen; a file name also when OCR read its dot as a dash ("（已签署)-pdf")."""
    return T.contains(screen, value) or T.file_stem(value) is not None and T.ocr_contains(screen, value)


# When or how often a thing is to happen, said in words no value holds ("tomorrow at 8", "repeat every weekday",
# "明天早上 8 点自动发出"): a submitted form does not show it was set, so `submitted` leaves such keypoints alone.
_WHEN = re.compile(r"\b(?:tomorrow|tonight|next (?:week|month|day)|every (?:day|week|weekday|month|\w+day)|daily|"
                   r"weekly|monthly|repeat\w*|recurr\w*|schedul\w*|at \d{1,2}\s*(?:am|pm|o'clock)?\b)|"
                   r"明天|后天|今晚|下周|每天|每周|每月|工作日|重复|定时|自动发|\d+\s*点", re.I)  # fmt: skip


# "In next week's calendar", "在下周的日历中": where the item is (the week the calendar shows), not when it happens
_CALENDAR_PLACE = re.compile(r"\bin\s+(?:next|this|last)\s+week['’]s\s+calendar\b|"
                             r"在(?:下|本|这|上)周的?日历(?:中|里|上)", re.I)  # fmt: skip


def _unchecked_when(kp: str, values: list[str]) -> bool:
    rest = _CALENDAR_PLACE.sub(" ", T.unquoted(kp))
    for v in values:
        rest = rest.replace(v, " ")
    return bool(_WHEN.search(rest))


def submitted(kp: str, steps: Sequence[Evidence], read: Read | None = None, goal: str = "",
              lines: Lines | None = None) -> Result | None:  # fmt: skip
    """Every value of the keypoint was typed and submitted, came from the form's context, or (with OCR)
    was on the form when it was submitted; at least one was typed, or is a key value read on the form. A keypoint
    that describes its content ("saying the amount of …") is left to `page_rules.described_entry`: its values say
    where the content comes from, and typing them is no content. A change of the user's own setting is not made
    on a form about an item the goal names elsewhere (`_about_other_item`)."""
    end = T.kept_length_end(kp)  # an event moved "keeping its 45 minutes": its new end was entered too
    gone = T.left_out(kp)
    want = [n for n in needles(kp) if n not in gone] + ([end] if end and end not in needles(kp) else [])
    if T.described(kp) is not None or T.sourced_value(kp):
        return None
    if _SEARCH_KP.match(kp) and any(e.url for e in steps):
        return None  # a web search is `searched`'s: a submit of its text into a price filter is no search
    if not want or not positive(kp) or _unchecked_when(kp, want) or _clause_verb(T.unquoted(kp)) in _ONE_CLICK:
        return None  # "Star the file "X" you created": a click's act; typing X when creating it is no star
    if one_click_verb(kp)[1] and not sends_mail(kp):
        return None  # "接受“X”的邀请", "把邮件“X”移回收件箱": a click's act; a mail that quotes X does neither
    if _QUANTITY_OF.search(kp):
        return None  # a count is read off the cart (`page_rules.cart_quantity`); typing the item's name sets none
    if _SWITCH.search(own_words(kp)) and not T.needles(kp):
        return None  # "按 IT 要求开启推送通知": a switch with no value is `switched`'s; "IT" typed in a reply is none
    if ORDER_KP.match(T.unquoted(kp)) or _NEW_PASSWORD.search(T.unquoted(kp)):
        return None  # an order is a click's (`page_rules.ordered`); a new password goes into masked fields
        # (`page_rules.masked_entry`): typed where it shows, into an event's form, it changed no password
    mail = sends_mail(kp)
    for sub in reversed(submits(steps)):
        if _about_other_item(kp, goal, sub) or mail and not sends(steps[sub.at]) \
                or not opened_as_asked(kp, steps, sub.at):
            continue
        typed = {n for n in want if any(T.contains(t, n) for t in sub.typed)}
        known = typed | {n for n in want if any(T.contains(c, n) for c in sub.context) or T.contains(sub.done_url, n)}
        form = set()
        if read is not None and known != set(want):
            screen = read(steps[sub.at])
            form = {n for n in want
                    if n not in known and _on_form(screen, n) and _entered(n, steps, sub.at, read, lines)}  # fmt: skip
        keys = {n for n in form if n in T.key_values(kp)}
        if known | form == set(want) and (typed or keys):
            kept = left_in(gone, steps, sub.at, read, lines)
            if kept:
                why = f"{kept[0]!r}, which the keypoint leaves out, was on the form as it opened and never clicked off"
                return "not_visible", None, f"submitted at step {sub.at}, but {why}"
            how = f"typed {sorted(typed)}" if typed else f"on the form: {sorted(keys)}"
            if T.own_recipient(kp) and not sent_to_own(steps, sub.at, lines):
                return "not_visible", None, f"{how}, submitted; sent to the user's own address, which no screen " \
                                            "says is theirs"  # fmt: skip
            by = f"{target(steps[sub.at])!r}, " if target(steps[sub.at]) else ""
            return "satisfied", sub.at + 1, f"{how}, submitted at step {sub.at} ({by}{sub.done_url.strip()!r})"
    return None


def left_in(gone: list[str], steps: Sequence[Evidence], s: int, read: Read | None, lines: Lines | None) -> list[str]:
    """Of the values a keypoint leaves out (`text.left_out`), those the form committed at step `s` showed as it
    opened (an attachment a forward carries) and no click in the form took off (a click on its words or its row)."""
    start = _form_start(steps, s)
    if not gone or read is None or steps[start].png is None:
        return []
    shown = read(steps[start])
    return [g for g in gone if _on_form(shown, g) and not any(clicked_on(e, g, lines) for e in steps[start:s])]


# Where the user's own account is shown, and the label of its address there ("Email", "邮箱")
_ACCOUNT_PAGE = re.compile(r"\b(?:settings|profile|account)\b|设置|个人资料|账户|账号", re.I)
_ADDRESS_LABEL = re.compile(r"^\W*(?:(?:account|your|login|sign-in)\s+)?e-?mail(?:\s+address)?\W*$|"
                            r"^\W*(?:登录|注册|账户|账号)?(?:邮箱|电子邮件|电子邮箱)(?:地址)?\W*$", re.I)  # fmt: skip


def own_addresses(steps: Sequence[Evidence], lines: Lines | None) -> set[str]:
    """The addresses a screen of the user's settings or profile gives as theirs: an e-mail address right of a label
    that reads "Email" ("邮箱") on its row, or on the line just below it."""
    found: set[str] = set()
    for e in steps:
        if lines is None or e.png is None or not _ACCOUNT_PAGE.search(e.title or ""):
            continue
        shown = lines(e)
        labels = [b for b, t in shown if _ADDRESS_LABEL.match(t)]
        for b, t in shown:
            for label in labels:
                row = same_row(b, label) and b[0] >= label[2]
                below = 0 <= b[1] - label[3] <= 2 * (label[3] - label[1]) + 10 and abs(b[0] - label[0]) <= 40
                if row or below:
                    found |= {a.casefold() for a in T.emails(t)}
    return found


def sent_to_own(steps: Sequence[Evidence], commit: int, lines: Lines | None) -> bool:
    """Every address typed into the form committed at `commit` is one a settings or profile screen the agent saw
    gives as the user's own (`own_addresses`): a mail "to your own account's email address" went where it asks."""
    typed = {a.casefold() for e in steps[_form_start(steps, commit) : commit + 1] for t in typed_texts(e)
             for a in T.emails(t)}  # fmt: skip
    return bool(typed) and typed <= own_addresses(steps[: commit + 1], lines)


# A keypoint that asks to send a mail ("Email the file "X" to Y", "把文档作为附件发给 Y"): only a click that sends
# commits it. Its recipient and subject typed into an event's form and saved sent nothing.
# A reply to a mail ("Reply to Omar's email …", "回复张三的邮件…"), not to a forum post
_REPLY_MAIL = (r"^\s*reply\s+(?:to\s+)?(?:all\b|everyone\b|[^,.;]{0,60}?\b(?:e-?mail|mail|message)\b)|"
               r"^\s*(?:全部)?回复[^，,。；;]{0,24}?邮件")
_SENDS_MAIL = re.compile(r"^\s*(?:e-?mail|mail|forward)\b|^\s*send\s+(?:an?\s+|the\s+)?(?:e-?mail|mail|message)\b|"
                         rf"{_REPLY_MAIL}|发给|发送给|发邮件|发一封|^\s*转发", re.I)  # fmt: skip


def sends_mail(kp: str) -> bool:
    return bool(_SENDS_MAIL.search(own_words(kp)))


# A reply or a forward is written in the form its own control opens on the mail: a new message (Compose, 写邮件)
# with the same text is neither, even sent. (names: the icon namer's; words: the control's label, or the form's URL)
_OPENED_AS = {"reply": (re.compile(_REPLY_MAIL, re.I),
                        re.compile(r"^\W*(?:reply|回复|全部回复)", re.I), ("reply", "reply_all")),
              "forward": (re.compile(r"^\s*forward\b|^\s*转发", re.I), re.compile(r"^\W*(?:forward|转发)", re.I),
                          ("forward",))}  # fmt: skip


def opened_as_asked(kp: str, steps: Sequence[Evidence], s: int) -> bool:
    """The form committed at step `s` was opened by the control the keypoint's verb names, when it names a reply or
    a forward: the click before the form's page read that word (or showed that icon), or the form's URL names it."""
    for name, (asks, label, icons) in _OPENED_AS.items():
        if not asks.search(own_words(kp)):
            continue
        start = _form_start(steps, s)
        if start < 1:
            return True  # the form is on the page the run began on (a one-page task): no click opened it
        opener = steps[start - 1]
        by_click = clicked(opener) and (bool(label.match(clicked_word(opener)) or label.match(target(opener)))
                                        or opener.icon in icons)  # fmt: skip
        return by_click or name in tail(steps[start].url).casefold() or name in (steps[start].url or "").casefold()
    return True


def sends(step: Evidence) -> bool:
    """The click is on a control that sends: a label that says so, or an icon the icon namer calls "send"."""
    return bool(re.match(rf"^\W*(?:{_FORBIDDABLE['send'][1]})", target(step), re.I)) or step.icon == "send"


# "Change your display name to "V"", "把你的显示名称改为“V”": a setting of the user's own, named by no quoted item.
_OWN_SETTING = re.compile(r"^\s*(?:change|set|update)\s+your\b[^\"“”]*?\bto\b|^[^\"“”]*?(?:你|我)的[^\"“”]*?"
                          rf"(?:{T.ZH_CHANGE_TO})", re.I)  # fmt: skip


def _about_other_item(kp: str, goal: str, sub: Submit) -> bool:
    """A change of the user's own setting submitted on a form about an item the goal names and the keypoint does
    not ("Accept the invitation to "Design crit", then change your display name to …": the name typed into the
    event's form and saved renamed the event). The user's settings are on no page titled with another item."""
    if not goal or _OWN_SETTING.search(kp) is None:
        return False
    others = [q for q in T.quoted(goal) if not any(T.contains(q, w) for w in T.quoted(kp))]
    return any(T.contains(c, q) for q in others for c in sub.context)


# An order placed: "Buy one Juniper Desk Plant with standard delivery …", "Place the order (…)", "提交订单（…）",
# "为公司订 3 件“X”：…", "Pay with the Mastercard". Placed by a click (`page_rules.ordered`), never by typing the
# item's name: a name typed into the shop's price filter and applied is no order.
ORDER_KP = re.compile(r"^\s*(?:buy|order|purchase|place\s+(?:the|your)\s+order)\b|^\s*pay\s+(?:with|by|using)\b"
                      r"|^\s*(?:请)?(?:买|购买|订购|提交订单|下单)|^\s*为.{0,6}订", re.I)  # fmt: skip
_NEW_PASSWORD = re.compile(r"\b(?:change|update|reset|set)\s+(?:your\s+|the\s+)?(?:password|passcode|pin)\b|"
                           r"(?:修改|更改|重置|设置)(?:你的)?密码|密码(?:改为|改成)", re.I)  # fmt: skip
_QUANTITY_OF = re.compile(r"\bquantity\s+of\b|数量|[”\"]\s*(?:改成|改为)\s*"
                          r"(?:\d{1,3}|[一二两三四五六七八九十])\s*[件个份]", re.I)  # fmt: skip


# ---- a search --------------------------------------------------------------------------------------------

# "Search for "X"", "在邮件中搜索“PRJ-7741”": a search for one quoted text.
_SEARCH_KP = re.compile(r"^\s*(?:search(?:\s+for)?\b|请?(?:在[^，,“”\"]{1,12}?(?:中|里|上)?)?\s*(?:搜索|查找))", re.I)
# The URL parameters apps put a search's text in (a price filter's "min=冰川" is none of them).
_QUERY = re.compile(r"(?:^|[?&#])(?:q|query|search|keyword|keywords|kw|term)=(?P<text>[^&#]*)", re.I)
_ONLY_PLACE = re.compile(r"\s*(?:(?:in|on|within)\s+[\w\s'’-]{1,30})?\s*[.。!！]?\s*", re.I)  # after the quoted text
_RESULTS = re.compile(r"\bresults?\b|搜索结果|结果", re.I)


def searched(kp: str, steps: Sequence[Evidence]) -> Result | None:
    """A search keypoint that asks only the search (at most a place after it: "in your mail"): the agent typed the
    quoted text exactly, and a later page carries it as its search (a URL parameter such as `q=`, or a title that
    says it shows its results: "Results for “X”"). Typed into another field (a price filter) it is no search."""
    quoted = T.quoted(kp)
    if _SEARCH_KP.match(kp) is None or len(quoted) != 1 or not _ONLY_PLACE.fullmatch(re.split(r"[\"”」]", kp)[-1]):
        return None  # "搜索“冰川”，按价格从低到高排序": a search and more, which the search alone does not meet
    want = T.normalise(quoted[0])
    typed = [s for s in range(len(steps)) for t in typed_texts(steps[s]) if T.normalise(t) == want]
    if not typed:
        return None
    for s in range(typed[0] + 1, len(steps)):
        query = [T.normalise(m.group("text")) for m in _QUERY.finditer(tail(steps[s].url))]
        title = steps[s].title or ""
        if want in query or _RESULTS.search(title) and T.contains(title, quoted[0]):
            where = f"the URL {tail(steps[s].url)!r}" if want in query else f"the title {title!r}"
            return "satisfied", s, f"typed {quoted[0]!r} at step {typed[0]}; {where} at step {s} carries the search"
    return None


# ---- a click's visible effect ---------------------------------------------------------------------------


_ORIGIN = re.compile(r"\b(?:from|out of)\s+(?:the\s+)?([A-Z][\w-]*(?:\s+[A-Z][\w-]*)*)")


# A keypoint that changes a field to a value: "Change your display name to "V"", "把显示名称改为“V”".
_CHANGE_TO = re.compile(rf"^\s*(?:change|set|update|rename)\b.*\bto\b|{T.ZH_CHANGE_TO}", re.I)


def clicked_effect(kp: str, steps: Sequence[Evidence], read: Read | None = None) -> Result | None:
    """A click on the named item's page whose result names the keypoint's state: its other values appear
    in the new URL's query/fragment or (OCR) freshly on the changed screen; "gone" keypoints need a URL
    reporting a deletion."""
    quoted = T.quoted(kp)
    if not quoted or _CHANGE_TO.search(T.unquoted(kp)):
        return None  # "change X to "V"": "V" is a value to save, no item whose page the click was on
    gone = bool(_GONE.search(T.unquoted(kp)))
    origins = {m.casefold() for m in _ORIGIN.findall(T.unquoted(kp))}  # "back from Trash": where it was, not its state
    rest = [n for n in needles(kp) if n not in quoted and n.casefold() not in origins] + _STATE.findall(T.unquoted(kp))
    if not gone and (not rest or not positive(kp)):
        return None
    for s in range(len(steps) - 2, -1, -1):
        if not clicked(steps[s]) or typed_texts(steps[s]) or steps[s].echo:
            continue
        if not all(any(T.contains(c, q) for c in context(steps, s)) for q in quoted):
            continue
        new, old = tail(steps[s + 1].url), tail(steps[s].url)
        if gone and _DELETED.search(new) and not _DELETED.search(old):
            return "satisfied", s + 1, f"the click at step {s} on {steps[s].title!r} led to {new!r}"
        if not gone and _effect_shown(rest, steps[s], steps[s + 1], read):
            return "satisfied", s + 1, f"after the click at step {s} on {steps[s].title!r} the page shows {rest}"
    return None


def _effect_shown(rest: list[str], before: Evidence, after: Evidence, read: Read | None) -> bool:
    new, old = tail(after.url), tail(before.url)
    if all(T.contains(new, n) and not T.contains(old, n) for n in rest):
        return bool(_DONE.search(new)) and not _ERROR.search(new)
    if read is None or before.png is None or after.png is None:
        return False
    if changed_fraction(before.png, after.png) <= _UNCHANGED:
        return False
    a, b = read(after), read(before)
    return all(T.contains(a, n) and not T.contains(b, n) for n in rest)


# ---- clicks on named things ----------------------------------------------------------------------------------


def click_names(kp: str) -> list[str]:
    """What a "click this" keypoint names: its quoted text, else the words after the verb without role words
    ("Click on Tab #2" -> Tab #2, "Select nb, 8qiSp3m and x" -> nb, 8qiSp3m, x); [] for a description longer
    than a label ("Click the trash icon to delete it") or none ("Click the button")."""
    m = _CLICK_KP.match(kp)
    if m is None:
        return []
    if T.quoted(kp):
        return T.quoted(kp)
    names = []
    for part in re.split(r",\s*|\s+and\s+", m.group("rest")):
        words = part.split()
        while words and words[0].casefold() in _ROLES | {"the", "a", "an", "on"}:
            words = words[1:]
        while words and words[-1].casefold() in _ROLES:
            words = words[:-1]
        if not words or len(words) > 3 or words[0].casefold() in ("nothing", "all", "every", "each"):
            return []
        names.append(" ".join(words))
    return names


def clicked_named(kp: str, steps: Sequence[Evidence]) -> Result | None:
    """Every name of a "click this" keypoint was the whole text under one of the agent's clicks."""
    names = click_names(kp)
    if not names:
        return None
    at = {}
    for n in names:
        hits = [s for s in range(len(steps)) if clicked(steps[s]) and T.normalise(target(steps[s])) == T.normalise(n)]
        if not hits:
            return "not_visible", None, f"no click landed on {n!r}"
        at[n] = hits[-1]
    step = max(at.values())
    return "satisfied", step, f"the agent clicked {sorted(at)} (last at step {step})"


def one_click_verb(kp: str) -> tuple[str, str | None]:
    """The act a one-click keypoint asks ("star", "restore", …; "" for none of them), and the key of the Chinese
    wording that asked it, if one did."""
    give, by = _GIVE.match(T.unquoted(kp)), _BY_DOING.search(T.unquoted(kp))
    verb = give.group("verb").casefold() if give else _clause_verb(T.unquoted(kp))
    if by is not None:  # "Clear your inbox of X, Y and Z by archiving them": the act is the gerund's
        stem = by.group("stem").casefold()
        verb = next((v for v in (stem, stem + "e", stem[:-1]) if v in _ONE_CLICK), verb)
    zh = next((v for v, (asks, _) in _ZH_ONE_CLICK.items() if re.search(asks, own_words(kp))), None)
    verb = zh or ("restore" if _BACK.match(T.unquoted(kp)) else verb)
    return (verb if verb in _ONE_CLICK else ""), zh


_ONE_CLICK_WORD = re.compile(r"\b(?:" + "|".join(_ONE_CLICK) + r")\b", re.I)


def one_click_verbs(kp: str) -> list[str]:
    """Every one-click act a keypoint asks, in the order it asks them ("从回收站恢复“X”并给它加星标": restore, then
    star; "Restore "X" and star it" the same). `one_click_verb` gives the first; a rule that checks only that one
    would credit half the keypoint. A Chinese act whose words hold another's ("取消星标" holds "星标") is one act."""
    own = own_words(kp)
    spans = [(m.start(), m.end(), v) for v, (asks, _) in _ZH_ONE_CLICK.items() for m in re.finditer(asks, own)]
    zh = [(i, v) for i, j, v in spans if not any(a <= i and j <= b and (a, b) != (i, j) for a, b, _ in spans)]
    first = one_click_verb(kp)[0]
    english = [(m.start(), m.group().casefold()) for m in _ONE_CLICK_WORD.finditer(own)]
    found = [v for _, v in sorted(zh + english)]
    if first and first not in found:
        found.insert(0, first)  # "Bring it back" (restore), "… by archiving them": the act is not its own word
    return list(dict.fromkeys(found))


# Several items, each acted on ("都", "分别", "三封通讯（“A”“B”“C”）"): a count of them says so too
_ZH_EACH = re.compile(r"都|分别|两|各|所有|全部|这些|[三四五六七八九十]\s*[封个份条篇件项张场]")


def one_click(kp: str, steps: Sequence[Evidence]) -> Result | None:
    """A one-click keypoint ("Star the email "X"", "Join the "Book Club" group", "Give both a Like", "Bring it back
    to the inbox" = restore): on a page about the quoted item, the agent clicked a label that starts with the
    keypoint's own verb, and the screen or page changed. A keypoint that asks it of each of several items ("both",
    "each", "all") needs a click on each one's page."""
    verb, zh = one_click_verb(kp)
    quoted = T.quoted(kp)
    if verb not in _ONE_CLICK or not quoted or zh and set(needles(kp)) - set(quoted):
        return None  # a Chinese keypoint that also names a value asks more than the click
    by = _BY_DOING.search(own_words(kp))
    each = len(quoted) > 1 and bool(_EACH.search(own_words(kp)) or _ZH_EACH.search(own_words(kp))
                                    or by is not None and by.group("what").casefold() != "it")  # fmt: skip
    groups = [[q] for q in quoted] if each else [quoted]
    final = bool(_FOR_GOOD.search(own_words(kp)))  # "Permanently delete": the label must say so too
    state = _MARK_AS.search(own_words(kp)) if verb == "mark" and not zh else None
    if verb == "mark" and state is None and not zh:
        return None  # "Mark the task done" names no state a label can be matched on
    found = [_one_click_on(verb, names, steps, _ZH_ONE_CLICK[zh][1] if zh else None, final,
                           state.group("state").casefold() if state else None) for names in groups]  # fmt: skip
    if any(s is None for s in found):
        return None
    at = max(s for s in found if s is not None)
    return "satisfied", at + 1, f"on {steps[at].title!r} the agent clicked {target(steps[at])!r}" + \
        (f" (and on the page of each of {quoted})" if each else "")


# A reaction asked by its label: "React with Celebrate to X's post "Q"", "给…帖子“Q”点一个“庆祝”", "用“庆祝”回应…".
_REACT = re.compile(r"^\s*react\s+with\s+[\"“]?(?P<en>[^\"”]+?)[\"”]?\s+to\b"
                    r"|点(?:一个|一下|个)?[“\"](?P<zh>[^”\"]+)[”\"]"
                    r"|用[“\"](?P<by>[^”\"]+)[”\"](?:回应|回复|表态)", re.I)  # fmt: skip


def reacted(kp: str, steps: Sequence[Evidence]) -> Result | None:
    """A reaction keypoint: on a page about the post it quotes, the agent's latest click on a reaction label was on
    the one it names ("庆祝", or "Celebrate 3" with its count) and changed the screen."""
    m = _REACT.search(kp)
    if m is None:
        return None
    kind = T.normalise(m.group("en") or m.group("zh") or m.group("by"))
    posts = [q for q in T.quoted(kp) if T.normalise(q) != kind]
    if not posts:
        return None
    for s in range(len(steps) - 2, -1, -1):
        if not clicked(steps[s]) or kind not in _reaction_labels(steps[s]):
            continue
        on_post = all(any(T.contains(c, q) for c in context(steps, s)) for q in posts)
        if on_post and _changed(steps[s], steps[s + 1], 0.0):
            return "satisfied", s + 1, f"on {steps[s].title!r} the agent clicked the reaction {target(steps[s])!r}"
    return None


def _reaction_labels(step: Evidence) -> set[str]:
    """What a click on a reaction button reads as: its label without the count after it or the reaction's picture
    before it, which OCR reads as a stray glyph ("○Love", "凸 Like 3"), and the word under the click alone."""
    label = re.sub(r"[\d\s]+$", "", re.sub(r"^\W+", "", target(step)))
    return {T.normalise(label), T.normalise(clicked_word(step))} - {""}


def _clause_verb(text: str) -> str:
    """The verb a one-click keypoint starts with: its first word after any adverb ("Permanently delete ..."), or,
    when the keypoint opens with a reason ("You can't make it to "X": decline the invitation"), the first word of
    the clause after its colon or semicolon. A colon after a word of speech ("tell them: ...") opens a message,
    whose words are not the act."""
    for clause in re.split(r"[:;：；]\s*", text):
        words = [w.casefold().strip(",.") for w in clause.split()]
        while words and words[0] in _ADVERBS:
            words = words[1:]
        if words and words[0] in _ONE_CLICK:
            return words[0]
        if not words or words[0] not in _REASON_OPENERS or _SPEECH.search(clause):
            break  # a clause that asks something else, or a message's words, follow
    words = text.split()
    return words[0].casefold().strip(",.") if words else ""


def _label_verb(text: str, verb: str) -> bool:
    """The label starts with the verb as a word, or glued to the object OCR reads without its space ("Leavegroup",
    "Deleteforever")."""
    first = (text.split() or [""])[0]
    glued = first[len(verb):]
    return first == verb or first.startswith(verb) and (glued in _GLUED_OBJECTS or verb == "mark" and
                                                        glued.startswith("as"))  # "Markasunread"  # fmt: skip


def _names_state(label: str, state: str) -> bool:
    """The label names the state as a word, or at its end as OCR glues it ("Markasunread"; "unread" is no "read")."""
    return state in re.findall(r"[a-z-]+", label) or re.sub(r"\s", "", label).endswith("as" + state)


def _asks_to_confirm(label: str, after: Evidence) -> bool:
    """The click opened a page titled with its own label of two words or more (the app's name after " · " aside): a
    dialog that asks to confirm the act ("Delete post", "删除帖子"). One word is a folder's name as well ("Archive",
    "归档")."""
    title = re.split(r"\s+[·|–-]\s+", after.title or "")[0]
    words = len(title.split()) if not T.HAN_CHAR.search(title) else len(T.HAN_CHAR.findall(title)) // 2
    return words >= 2 and _opened_as(label, after)


def _one_click_on(verb: str, names: list[str], steps: Sequence[Evidence], zh: str | None = None,
                  final: bool = False, state: str | None = None) -> int | None:  # fmt: skip
    """The latest step that clicked a `verb` label (or one that starts with the Chinese labels `zh`) on a page about
    all of `names` and changed the screen; with `final`, a label that says the act is for good ("Delete forever");
    with `state`, a label that names that state ("Mark as unread")."""
    for s in range(len(steps) - 2, -1, -1):
        text = re.sub(r"^\W+", "", target(steps[s]).casefold())
        if not clicked(steps[s]) or not (_label_verb(text, verb) or zh and re.match(zh, text)):
            continue
        if final and not _FOR_GOOD.search(text) or state and not _names_state(text, state):
            continue
        if _asks_to_confirm(text, steps[s + 1]):
            continue  # "Delete post" opened the page "Delete post": a confirmation, the act is not done yet
        about = context(steps, s)
        if all(any(T.contains(c, q) for c in about) for q in names) and _changed(steps[s], steps[s + 1], 0.0):
            return s
    return None


# Words a short keypoint may hold besides the button's own ("Save it as a draft" -> save, draft).
_FILLER = frozenset({"it", "them", "as", "a", "an", "the", "to", "your", "this", "that", "for", "now", "please"})
_ZH_FILLER = set("请把它将这个该封一下")
# Labels that open a form or a view rather than commit one: their click does not do what the keypoint says.
OPENS_FORM = re.compile(r"^\W*(?:reply|forward|new|compose|edit|open|view|write|"
                        r"回复|转发|新建|写|编辑|打开|查看)", re.I)  # fmt: skip


def pressed(kp: str, steps: Sequence[Evidence]) -> Result | None:
    """A short keypoint that names one button's act ("Save it as a draft", "Submit the report for approval", "存为
    草稿"): the agent clicked a committing label made only of the keypoint's own words (Chinese: characters), and the
    screen changed. Keypoints that name an item or a value are left to the rules that check them."""
    if T.quoted(kp) or needles(kp) or not positive(kp):
        return None
    own = own_words(kp)
    words = [w for w in re.findall(r"[a-z]+", own.casefold()) if w not in _FILLER]
    han = [c for c in own if T.HAN_CHAR.match(c) and c not in _ZH_FILLER]
    if han and not (2 <= len(han) <= 8) or not han and not 1 <= len(words) <= 5:
        return None
    for s in range(len(steps) - 2, -1, -1):
        label = target(steps[s])
        if not clicked(steps[s]) or not _SUBMIT_LABEL.match(label) or OPENS_FORM.match(label):
            continue
        mine = [c for c in label if T.HAN_CHAR.match(c)] if han else \
            [w for w in re.findall(r"[a-z]+", label.casefold()) if w not in _FILLER]  # fmt: skip
        if len(mine) >= (2 if han else 1) and set(mine) <= set(han or words) and mine[0] == (han or words)[0] \
                and _changed(steps[s], steps[s + 1]):  # fmt: skip
            return "satisfied", s + 1, f"the agent clicked {label!r} at step {s}, and the screen changed"
    return None


# "Remove the star from "X"", "Unstar "X"": what goes is a mark on X, not X. X leaving the list it was on (a Starred
# view) looks the same as X deleted, so a gone row says nothing about which of the two was done.
_MARK_OFF = re.compile(r"\s*(?:un(?:star|pin|flag|label|mark)\b"
                       r"|(?:remove|delete|clear|take)\s+[^\"“「『]*?\b(?:from|off)\b\s*[\"“「『])", re.I)  # fmt: skip


# A removal inside a quoted container ("在 FinPortal 草稿报销单“X”中删除来自 Cafe Sacher 的错误费用行", "In your
# FinPortal draft "X", delete the wrong line from Cafe Sacher"): what goes is named after the verb, not quoted.
_IN_CONTAINER = re.compile(r"[”\"]\s*(?:中|里|内)\s*(?:删除|删掉|删去|移除|去掉)(?P<zh>[^，,。；;“”\"]+)|"
                           r"^\s*in\s+[^,]*?[\"“][^\"”]+[\"”]\s*,\s*(?:delete|remove)\s+(?P<en>[^\"“”]+)$",
                           re.I)  # fmt: skip


def removal_items(kp: str) -> list[str]:
    """What a removal keypoint takes away: the names it quotes, or, of a removal inside a quoted container
    (`_IN_CONTAINER`), the names after its verb ("Cafe Sacher")."""
    m = _IN_CONTAINER.search(kp)
    if m is None:
        return T.quoted(kp)
    what = (m.group("zh") or m.group("en")).strip()
    return [n for n in needles(what) if n != what and n not in T.quoted(kp)]


def removed_row(kp: str, steps: Sequence[Evidence], lines: Lines | None) -> Result | None:
    """A removal keypoint ("Delete the file "X"", "Take X out of the cart", "在报销单“R”中删除来自 X 的费用行"): the
    agent clicked on the row that showed X (OCR: a line with X at the click's height), and X is not on the next
    screen of the same page. X is what `removal_items` names."""
    items = removal_items(kp)
    zh = _ZH_REMOVAL.search(own_words(kp))
    asks = _REMOVAL.match(T.unquoted(kp).lstrip()) or _GONE.search(kp) or zh or _IN_CONTAINER.search(kp)
    if lines is None or not items or not asks:
        return None
    if _MARK_OFF.match(kp) or zh and _ZH_MARK_OFF.search(own_words(kp)):
        return None
    for s in range(len(steps) - 2, -1, -1):
        step, after = steps[s], steps[s + 1]
        point = _point(step)
        if not clicked(step) or point is None or step.png is None or after.png is None:
            continue
        if _TRASH_PAGE.search(page_item(step.title)) and not _PURGE.search(kp):
            continue  # a row gone from the trash was brought back (or purged, which the keypoint does not ask)
        if urlsplit(step.url or "").path != urlsplit(after.url or "").path:
            continue  # the click on the row opened another page (the report "X" whose line is to go): no removal
        h = png_size(step.png)[1]
        row = [t for (x1, y1, x2, y2), t in lines(step) if y1 - 4 <= point[1] * h <= y2 + 4]
        later = " ".join(t for _, t in lines(after))
        if all(any(T.contains(t, q) for t in row) and not T.contains(later, q) for q in items):
            return "satisfied", s + 1, f"the click at step {s} was on the row of {items}, gone from the next screen"
    for s in range(len(steps) - 2, -1, -1):  # a remove button below the item's name (a cart's row of lines)
        if clicked(steps[s]) and _DELETE_LABEL.match(target(steps[s])) and \
                all(_taken_off(q, steps[s], steps[s + 1], lines) for q in items):  # fmt: skip
            return "satisfied", s + 1, f"the click on {target(steps[s])!r} at step {s} took {items} off the screen"
    return None


def _truncates(shown: str, name: str) -> bool:
    """A list's text is `name`, whole or cut short ("Old pitch deck notes...." for "Old pitch deck notes.docx")."""
    head = T.normalise(shown.rstrip(".…"))
    return bool(head) and (head in T.normalise(name) or T.normalise(name) in head)


def _row_gone(step: Evidence, after: Evidence, lines: Lines) -> list[str]:
    """The item of the row a click was on (the row's longest text), when the next screen of the same page and view
    (the same URL, most of its lines still there) no longer shows it and the list closed up under it: the click
    took that row off the list. [] otherwise (a status on the row that changed is not its item)."""
    point = _point(step)
    if point is None or step.png is None or after.png is None or step.url != after.url:
        return []  # another page or view (a query that changed): the click opened or showed something else
    h = png_size(step.png)[1]
    before, later = lines(step), lines(after)
    row = [(b, t) for b, t in before if b[1] - 4 <= point[1] * h <= b[3] + 4 and len(T.normalise(t)) >= 4]
    still = {T.normalise(t) for _, t in later}
    kept = sum(T.normalise(t) in still for _, t in before)
    box, name = max(row, key=lambda r: len(T.normalise(r[1])), default=((0, 0, 0, 0), ""))  # the row's item
    if len(T.normalise(name)) < 6 or kept < 0.6 * len(before) or T.contains(" ".join(still), name.rstrip(".…")):
        return []
    # the list closed up: the next item below now stands where the gone row stood
    nxt = min(((b, t) for b, t in before if b[1] >= box[3] and b[0] < box[2] and b[2] > box[0]),
              key=lambda r: r[0][1], default=None)  # fmt: skip
    moved = nxt is not None and any(T.normalise(t) == T.normalise(nxt[1]) and abs(b[1] - box[1]) <= 8
                                    for b, t in later)  # fmt: skip
    return [name] if moved else []


def _point(step: Evidence) -> tuple[float, float] | None:
    p = next((getattr(a, "point", None) for a in kids(step.act) if getattr(a, "point", None) is not None), None)
    return (p.x, p.y) if p is not None else None


def _changed(before: Evidence, after: Evidence, least: float = _UNCHANGED) -> bool:
    if page(before) != page(after):
        return True
    return before.png is not None and after.png is not None and changed_fraction(before.png, after.png) > least


# Labels that bring back what a removal took away (an archived mail moved back, a deleted file restored).
_REVERSE_LABEL = re.compile(r"^\W*(undo|restore|move\s*to\s*inbox|unarchive|recover|put\s*back|"
                            r"撤销|恢复|还原|移回收件箱|移到收件箱|移至收件箱|取消归档)", re.I)  # fmt: skip
# The trash's own page, where a row that goes was brought back or deleted for good; and a keypoint that asks for the
# latter
_TRASH_PAGE = re.compile(r"\b(?:trash|bin|deleted items)\b|回收站|已删除", re.I)
_PURGE = re.compile(r"\b(?:permanently|forever|for good|empty|(?:from|in) (?:the |your )?(?:trash|bin))\b|"
                    r"彻底|永久|清空|从回收站|回收站(?:中|里)", re.I)  # fmt: skip


def restored(kp: str, steps: Sequence[Evidence], at: int | None, lines: Lines | None) -> Result | None:
    """A removal satisfied at step `at`, taken back later by a click on the back or undo arrow (the icon namer's
    name) on the item's row of the trash's page: the item was restored."""
    if at is None or lines is None or not _ASKS_REMOVAL.search(T.unquoted(kp)) or _BRINGS_BACK.match(T.unquoted(kp)):
        return None
    quoted = T.quoted(kp)
    for s in range(max(at, 0), len(steps)):
        e = steps[s]
        if clicked(e) and e.icon in ("undo", "back") and _TRASH_PAGE.search(page_item(e.title)) and quoted \
                and all(on_row_of(e, q, lines) for q in quoted):  # fmt: skip
            return "contradicted", s, f"after step {at} the agent clicked the {e.icon} arrow on the row of {quoted} " \
                                      f"in {e.title!r}"  # fmt: skip
    return None


_BRINGS_BACK = re.compile(r"^\s*(?:restore|undo|unarchive|recover|move .* back|bring .* back)\b|恢复|还原|撤销|"
                          r"取消归档|移回", re.I)  # fmt: skip


def undone(kp: str, steps: Sequence[Evidence], at: int | None) -> Result | None:
    """A keypoint satisfied at step `at`, taken back later: a click on an undoing label ("Delete", "Unstar",
    "Leave", "Move to Inbox"...) on a page about the keypoint's item (or, when the keypoint names none, on a page
    of the same part of the site: "Save it as a draft" is not taken back by deleting a calendar event next). A
    removal ("Archive X", "Delete X") is taken back by a label that brings the item back ("Move to Inbox",
    "Restore", "Undo"); a keypoint that itself brings something back is not checked here."""
    if at is None or _BRINGS_BACK.match(T.unquoted(kp)):
        return None
    labels = _REVERSE_LABEL if _ASKS_REMOVAL.search(T.unquoted(kp)) else _UNDO_LABEL
    quoted = T.quoted(kp) or needles(kp)[:1]
    for s in range(max(at, 0), len(steps)):
        if not clicked(steps[s]) or not labels.match(target(steps[s])):
            continue
        about = context(steps, s) + [steps[s - 1].title or ""] if s else context(steps, s)
        about = [page_item(c) for c in about]  # "… · Alexandra Morgan": the signed-in user, no item
        nameless = not quoted and section(steps[s].url) == section(steps[min(at, len(steps) - 1)].url)
        if nameless or any(T.contains(c, q) for c in about for q in quoted) or not (steps[s].title or ""):
            return "contradicted", s, f"after step {at} the agent clicked {target(steps[s])!r} on {steps[s].title!r}"
    return None


# "Open the expense guide PDF in Drive": a file named by what it is, not quoted. Words that say what kind of thing it
# is ("file", "document") are in no name; its other words are ("Expense portal guide.pdf").
_OPEN_DESCRIBED = re.compile(r"^\s*open\s+(?:the|your)\s+(?P<what>[a-z][a-z0-9 '-]*?)"
                             r"(?:\s+(?:in|from|on)\s+(?:the\s+|your\s+)?(?P<app>[A-Z]\w+))?\s*$", re.I)  # fmt: skip
# "打开云盘里的报销指南 PDF", "在云盘中打开报销指南 PDF": the same in Chinese, the app before the description
_ZH_OPEN_DESCRIBED = re.compile(r"^\s*(?:请)?(?:在(?P<app>[\u4e00-\u9fff]{2,4}?)(?:中|里))?打开"
                                r"(?:(?P<app2>[\u4e00-\u9fff]{2,4}?)(?:中|里)的)?"
                                r"(?P<what>[^“”\"，,。；;]+?)\s*$")  # fmt: skip
_KIND_NOUNS = frozenset({"file", "document", "doc", "item", "one", "page", "attachment", "文件", "文档", "附件"})


def opened_described(kp: str, steps: Sequence[Evidence]) -> Result | None:
    """"Open the expense guide PDF in Drive" ("打开云盘里的报销指南 PDF"): a click opened a page whose title's item
    holds every word of the description (as a word's start: "PDF" is the name's ".pdf"; a Chinese word anywhere),
    from a page of the app the keypoint names. Needs two such words at least: one ("Open the report") names no file
    among others."""
    m = (_OPEN_DESCRIBED.match(kp) or _ZH_OPEN_DESCRIBED.match(kp)) if not T.quoted(kp) else None
    words = [w for w in (m.group("what").casefold().split() if m else []) if w not in _KIND_NOUNS]
    if m is None or len(words) < 2:
        return None
    app = m.group("app") or m.groupdict().get("app2")
    for s in range(len(steps) - 1):
        before, after = steps[s], steps[s + 1]
        item = page_item(after.title)
        if not clicked(before) or item == page_item(before.title):
            continue
        if app and not re.search(_word_start(app), before.title or "", re.I):
            continue
        if all(re.search(_word_start(w), item, re.I) for w in words):
            return "satisfied", after.index, f"the click at step {s} opened {item!r} (the {m.group('what')})"
    return None


def _word_start(word: str) -> str:
    """A pattern for `word` at a word's start; a Chinese word anywhere (its script puts no spaces between words)."""
    return rf"(?<![^\W_]){re.escape(word)}" if word.isascii() else re.escape(word)


def section(url: str | None) -> str:
    """The part of a site a URL is in: its host and first path segment ("/mail/drafts" and "/mail/d/3" share it)."""
    parts = urlsplit(url or "")
    return f"{parts.netloc}/{parts.path.strip('/').split('/')[0]}"


# ---- the interface's language ---------------------------------------------------------------------------

_THEN = re.compile(r"\b(?:then|after that|afterwards|and also|before|once)\b|然后|之后|接着|随后|最后|再", re.I)


def _sole_act(text: str, start: int) -> bool:
    """Whether the act found at `start` is the keypoint's only one: a few words lead to it ("Switch the workspace
    language", "请把工作区语言") and no later act is chained on ("..., then react with Celebrate"). A rule that
    proves one act cannot settle a keypoint that asks for two."""
    before = text[:start]
    return len(before.split()) <= 4 and len(T.HAN_CHAR.findall(before)) <= 6 and not _THEN.search(text)


_TITLE_PARTS = re.compile(r"\s+[·|–—-]\s+")  # "Settings · Lin Xiao", "Inbox - Mail"


def _fixed_parts(titles: list[str]) -> set[str]:
    """The parts of a page title that every titled page of the run shares (the signed-in user's name, the site's):
    a language switch retitles the rest."""
    split = [{p for p in _TITLE_PARTS.split(t) if p.strip()} for t in titles if t.strip()]
    return set.intersection(*split) if len(split) > 1 else set()


_LANGUAGE = re.compile(r"\blanguage\b.*?\b(?P<en>chinese|english)\b|语言.*?(?P<zh>中文|英文|汉语|英语)", re.I)


def language_switched(kp: str, steps: Sequence[Evidence]) -> Result | None:
    """"Switch the workspace language to Chinese", "把工作区语言切换为英文": after one of the agent's clicks the page
    titles turn to that language's script (Chinese: Han characters; English: none) and stay so to the end. Whose
    setting it was, a title does not say; the app's own pages are the only ones that retitle themselves."""
    m = _LANGUAGE.search(T.unquoted(kp))
    if m is None or not positive(kp) or len(steps) < 2 or not _sole_act(T.unquoted(kp), m.start()):
        return None
    chinese = (m.group("en") or m.group("zh")).casefold() in ("chinese", "中文", "汉语")
    fixed = _fixed_parts([e.title or "" for e in steps])

    def parts(e: Evidence) -> list[str]:
        return [p for p in _TITLE_PARTS.split(e.title or "") if p.strip()]

    def in_target(e: Evidence, names: set[str] = frozenset()) -> bool | None:
        # a user's or site's name says nothing of the language
        told = [p for p in parts(e) if p not in fixed and p not in names] or parts(e)
        if not told:
            return None
        return bool(T.HAN_CHAR.search(" ".join(told))) == chinese

    for s in range(len(steps) - 1):
        # a part the switch left as it was is a name too (the user's, renamed earlier in the episode)
        kept = set(parts(steps[s])) & set(parts(steps[s + 1]))
        if clicked(steps[s]) and in_target(steps[s], kept) is False and in_target(steps[s + 1], kept) is True \
                and all(in_target(e, kept) is not False for e in steps[s + 1 :]):  # fmt: skip
            return "satisfied", s + 1, f"after the click at step {s} the titles turned {steps[s + 1].title!r}"
    if in_target(steps[-1]) is not True:
        return "not_visible", None, "the last page's title is not in the language asked for"
    return None


# ---- a setting switched on or off ---------------------------------------------------------------------------

_SWITCH = re.compile(r"\b(?:(?P<on>turn on|switch on|enable|activate|tick|check)|(?P<off>turn off|switch off|disable|"
                     r"deactivate|untick|uncheck|stop|mute))\s+(?P<obj>[^(（,，;；.]+)|"
                     r"\bturn\s+(?P<obj2>[^(（,，;；.]+?)\s+(?P<dir2>on|off)\b|"
                     r"(?:(?P<zon>开启|打开|启用|勾选)|(?P<zoff>关闭|关掉|停用|取消勾选))"
                     r"(?P<zobj>[^（(，,；;。]+)", re.I)  # fmt: skip
_KEEP = re.compile(r"\b(?:keep|leave)\s+(?P<obj>[^)）,，;；.]+)|(?:保持|保留)(?P<zobj>[^（()），,；;。]*)|"
                   r"(?P<zobj2>[^（(，,；;。]+?)保持", re.I)  # fmt: skip
_SWITCH_STOP = frozenset({"the", "this", "that", "for", "and", "your", "about", "all", "any", "are", "they", "them",
                          "their", "its", "off", "on", "as", "is", "it", "unchanged", "still", "setting", "settings"})
_ZH_SWITCH_STOP = set("的了在上时我你此把并和与将保持开启关闭不变")


def _switch_words(text: str) -> set[str]:
    """What names a switch, for matching a keypoint to a row's label: English words (plural s dropped) or Chinese
    characters."""
    han = {c for c in text if T.HAN_CHAR.match(c) and c not in _ZH_SWITCH_STOP}
    words = {w.removesuffix("s") for w in re.findall(r"[a-z]{3,}", text.casefold()) if w not in _SWITCH_STOP}
    return han | words


def _overlap(asked: set[str], label: str) -> float:
    return len(asked & _switch_words(label)) / len(asked) if asked else 0.0


def _row_label(step: Evidence, lines: Lines) -> str:
    """The texts on the clicked row: a switch's label, whether the click hit the box or the label."""
    point = _point(step)
    if point is None or step.png is None:
        return ""
    h = png_size(step.png)[1]
    y = point[1] * h
    return " ".join(t for b, t in lines(step) if b[1] - 4 <= y <= b[3] + 4 and len(T.normalise(t)) >= 2)


def switched(kp: str, steps: Sequence[Evidence], lines: Lines | None) -> Result | None:
    """"Turn off push notifications (keep email notifications on)", "开启此设备的推送通知，并保持邮件通知开启": the
    agent's last click on the row whose label names the setting filled its box or switch (on) or emptied it (off),
    as asked, and a later click on a committing label (Save) on that page changed the screen. Rows the keypoint says
    to keep are left alone: a click that changed one leaves the rule undecided, as does a box whose change the
    pixels do not tell."""
    m = _SWITCH.search(own_words(kp))
    if m is None or lines is None or not _sole_act(own_words(kp), m.start()):
        return None
    on = bool(m.group("on") or m.group("zon") or (m.group("dir2") or "").casefold() == "on")
    asked = _switch_words(m.group("obj") or m.group("obj2") or m.group("zobj") or "")
    kept = [_switch_words(next(g for g in k.groups() if g)) for k in _KEEP.finditer(own_words(kp)[m.end():])]
    kept = [k for k in kept if k]
    if len(asked) < 2 and not any(T.HAN_CHAR.match(c) for c in asked):
        return None
    last = None
    for s in range(len(steps) - 1):
        if not clicked(steps[s]) or steps[s].png is None or steps[s + 1].png is None:
            continue
        label = _row_label(steps[s], lines)
        mine, keep = _overlap(asked, label), max((_overlap(k, label) for k in kept), default=0.0)
        if max(mine, keep) < 0.5:
            continue
        delta = mark_change(steps[s].png, steps[s + 1].png, _point(steps[s]) or (0.0, 0.0))
        if delta is None or abs(delta) < 0.2:
            continue
        if keep >= mine:
            return None  # a row to keep was switched
        last = (s, delta > 0, label)
    if last is None or last[1] != on:
        return None
    s, _, label = last
    for t in range(s + 1, len(steps) - 1):
        if steps[t].title != steps[s].title:
            break  # the agent left the settings page unsaved: a Save in another app (an event's form) is not its
        name = target(steps[t])
        if clicked(steps[t]) and _SUBMIT_LABEL.match(name) and not OPENS_FORM.match(name) \
                and _changed(steps[t], steps[t + 1]):  # fmt: skip
            state = "on" if on else "off"
            return "satisfied", t + 1, f"the click at step {s} switched {label!r} {state}; {name!r} at step {t} saved"
    return None


# ---- a step the goal forbids ("Don't buy it yet", "先不要发送") ------------------------------------------------

# verb family -> (the words that forbid it, the labels that do it, the flags a page's URL raises once it is done)
_FORBIDDABLE = {
    "buy": (r"buy|purchase|order|place|check ?out|pay|下单|购买|买|结算|支付|付款",
            r"buy|purchase|place (?:the |your )?order|order now|check ?out|pay|confirm (?:the )?(?:order|purchase|"
            r"payment)|下单|购买|立即购买|结算|支付|付款|提交订单",
            r"order(?:ed|_placed|-placed| placed)|purchased|paid|下单成功|支付成功"),
    "send": (r"send|发送|发出|寄出", r"send|发送", r"sent|已发送"),
    # money moved: "转账" alone is also the bank's tab, so only the confirming label or the page's flag decides
    "transfer": (r"transfer|wire|转账|汇款|转钱", r"confirm transfer|send money|确认转账|确认汇款",
                 r"transfer_done|transferred|转账成功|已转账"),
    "submit": (r"submit|file|提交|报销(?!单|指南)", r"submit|send for approval|提交", r"submitted|已提交"),
    "post": (r"post|publish|发布|发帖", r"post|publish|发布", r"posted|published|已发布"),
    "delete": (r"delete|remove|trash|删除|删|移除", r"delete|remove|trash|move to trash|删除|移除",
               r"deleted|trashed|removed|已删除"),
}
_FORBID = re.compile(r"^\s*(?:but\s+|and\s+)?(?:please\s+)?(?:do not|don't|never)\s+(?P<en>\w+(?: \w+)?)|"
                     r"^\s*(?:请)?(?:先|暂时|暂|还)?(?:不要|别|勿)(?P<zh>\S{1,4})", re.I)  # fmt: skip
_OTHERS = re.compile(r"\b(?:other|others|else|any more|anything)\b|其他|其它|别的|任何", re.I)


def forbidden_family(kp: str) -> str | None:
    """The verb family a prohibition keypoint forbids ("Don't buy it yet" -> buy, "先不要发送" -> send), else None."""
    m = _FORBID.match(T.unquoted(kp))
    if m is None:
        return None
    verb = (m.group("en") or m.group("zh") or "").casefold()
    return next((f for f, (words, _, _) in _FORBIDDABLE.items() if re.match(rf"(?:{words})", verb)), None)


def refrained(kp: str, steps: Sequence[Evidence], goal: str = "") -> Result | None:
    """A prohibition ("Don't buy it yet", "先不要下单", "do not send it"): contradicted by a click on a label that does
    the forbidden thing, or a page whose URL flags it done ("?sent=1"); satisfied when the run ended with neither (a
    click on an unread label, an icon, is taken by the page it led to). A key press that may submit a form (Enter,
    a hotkey) leaves it undecided: what it did, the pixels do not say. A prohibition that only fences in what the goal
    asks for elsewhere ("Delete X. Don't delete other files.") is not decided here: the click it allows and the
    one it forbids have the same label."""
    family = forbidden_family(kp)
    if family is None or not steps or _OTHERS.search(T.unquoted(kp)):
        return None
    rest = T.unquoted(goal.replace(kp.split(" (")[0], " "))
    if re.search(rf"(?<![a-z])(?:{_FORBIDDABLE[family][0]})(?![a-z])", rest, re.I):
        return None
    _, labels, flags = _FORBIDDABLE[family]
    label_re, flag_re = re.compile(rf"^\W*(?:{labels})", re.I), re.compile(rf"(?:{flags})", re.I)
    unread = False
    for s, e in enumerate(steps):
        if s and flag_re.search(tail(e.url)) and not flag_re.search(tail(steps[0].url)):
            return "contradicted", e.index, f"the page at step {s} flags it done: {tail(e.url)!r}"
        if not clicked(e):
            continue
        if label_re.match(target(e)):
            return "contradicted", e.index, f"the agent clicked {target(e)!r} at step {s}, which the goal forbids"
        unread = unread or bool({PressEnter.name, Hotkey.name} & set(_names(e.act)))
    if unread:
        return "not_visible", None, "a key press (Enter, a hotkey) may have done what the goal forbids"
    return "satisfied", steps[-1].index, f"no click on a label that does what the goal forbids ({family})"


# "Keep your other posts", "Don't delete any other files", "保留你的其他帖子": what the run must not delete besides
# what the goal names.
_KEEP_OTHERS = re.compile(r"^\s*(?:keep|leave)\s+(?:all\s+)?(?:of\s+)?(?:your|the|my)?\s*other\b"
                          r"|^\s*(?:don'?t|do not|never)\s+(?:delete|remove|trash)\s+(?:any\s+)?(?:of\s+)?"
                          r"(?:your\s+|the\s+)?other\b"
                          r"|^\s*(?:请)?(?:保留|不要删除?|别删除?)[^“”\"]{0,6}?(?:其他|其它|别的)", re.I)  # fmt: skip


def kept_others(kp: str, goal: str, steps: Sequence[Evidence], lines: Lines | None) -> Result | None:
    """"Keep your other posts": contradicted at the first click that deleted something the goal does not name
    (`side_effects`), satisfied when the run deleted nothing else. It holds before any action, so it is no progress
    of its own (`is_invariant`)."""
    if not _KEEP_OTHERS.match(T.unquoted(kp)) or not steps:
        return None
    extra = side_effects(goal, steps, lines)
    if extra:
        return "contradicted", extra[0] + 1, f"the click at step {extra[0]} deleted something the goal does not name"
    return "satisfied", steps[-1].index, "no click deleted anything the goal does not name"


# ---- still there ------------------------------------------------------------------------------------------


def still_there(kp: str, steps: Sequence[Evidence], read: Read | None) -> Result | None:
    quoted = T.quoted(kp)
    if read is None or not quoted or not _STILL.search(own_words(kp)) or _GONE.search(own_words(kp)):
        return None
    last = next((e for e in reversed(steps) if e.png is not None), None)
    if last is None:
        return None
    if all(T.contains(read(last), q) for q in quoted):
        return "satisfied", last.index, f"OCR reads {quoted} on the final screen"
    return "not_visible", None, f"OCR does not read {quoted} on the final screen"


# ---- never shown ---------------------------------------------------------------------------------------


def never_shown(kp: str, steps: Sequence[Evidence], read: Read | None) -> Result | None:
    """A positive keypoint whose quoted value the agent never produced or saw after its first action:
    not typed, not in any later title or URL, and (with OCR) not read on any later screenshot. Without
    OCR this only decides trajectories that have no screenshot after the first action. A keypoint that asks
    for a click on the quoted thing ("Click on the link "X"") is not about producing it: it is to be clicked where
    it already stands, so this rule leaves it alone."""
    quoted = T.quoted(kp)
    if not quoted or not positive(kp) or not steps or click_names(kp) or SORT_POINT.match(kp):
        return None  # a sort point quotes its superlative ("cheapest"), which no sort control needs to say
    later = steps[1:]
    if read is None and any(e.png is not None for e in later):
        return None
    for q in quoted:
        seen = any(T.contains(t, q) for e in steps for t in typed_texts(e)) or any(
            T.contains(e.title or "", q) or T.contains(unquote(e.url or ""), q) for e in later
        )
        if not seen and not any(e.png is not None and T.ocr_contains(read(e), q) for e in later if read is not None):
            return "contradicted", steps[-1].index, f"{q!r} never appears after the agent's first action"
    return None


# ---- answers ---------------------------------------------------------------------------------------------


def final_answer(steps: Sequence[Evidence]) -> str | None:
    """The text of the final Finished/Answer, or None (no answer, or the agent ended otherwise). Rules read it
    only for keypoints about the answer: there the answer is the deliverable, a claim to check."""
    if not steps:
        return None
    ends = [a for a in kids(steps[-1].act) if a.name in ("Finished", "Answer")]
    content = getattr(ends[-1], "content", None) if ends else None
    return content.strip() if isinstance(content, str) and content.strip() else None


# A question that asks for a total: its answer may be a sum no screen shows.
_TOTAL = re.compile(r"\b(total|sum|altogether|in all|combined|add(?:ed)? up)\b|一共|总额|总计|合计|总共", re.I)
_AMOUNT = re.compile(r"(?<![\d.,])\d{1,3}(?:[,\s]\d{3})*(?:\.\d{1,2})?(?![\d])|(?<![\d.,])\d+(?:\.\d{1,2})?(?![\d])")
MAX_ADDENDS = 14  # amounts on one screen searched for a subset that sums to the answer (2^14 sums)


def answered(kp: str, steps: Sequence[Evidence], read: Read | None = None, answer: str | None = None,
             addends: Read | None = None) -> Result | None:  # fmt: skip
    """The final answer gives the value the keypoint names (if it names one), and each key value of the
    answer was on a screen the agent saw (not just typed by it) or in a page title/URL. Without OCR only the
    log decides: no answer or a wrong value is contradicted, a value in a title/URL is satisfied.
    The answer must be of the kind the question asks for, when it says (an e-mail address, a file name, a time,
    an amount, a person's name: `text.asked_kind`); a UI label or another kind of value is contradicted.
    `answer`: the text that answers, when it is not the final Finished/Answer (content a form was given).
    A question asking for a total may be answered with a sum of amounts one screen showed (read by `addends`, when
    given: the rows of the item the question names, `page_rules.answered`). (Which figure of
    a screen answers the question is not checked here: `page_rules.answer_in_place` checks it, from the rows
    OCR reads, when the question names a record by a code or a day.)"""
    rest = T.answer_keypoint(kp)
    if rest is None or not steps:
        return None
    last, answer = steps[-1].index, final_answer(steps) if answer is None else answer
    if answer is None:
        return "contradicted", last, "the agent ended without giving an answer"
    if T.reports_nothing_found(answer, rest):
        return "contradicted", last, f"the answer {answer!r} reports that nothing was found, not what was asked"
    wrong = [v for v in T.expected_values(rest) if not T.contains_value(answer, v)]
    if wrong:
        return "contradicted", last, f"the answer {answer!r} does not give {wrong}"
    kind = T.asked_kind(rest)
    if kind is not None and not T.is_kind(answer, kind):
        return "contradicted", last, f"the question asks for {kind}; the answer {answer!r} gives none"
    seen = {v: _seen_at(v, steps, read) for v in T.answer_values(answer)}
    unseen = [v for v, at in seen.items() if at is None]
    if unseen and read is not None and _TOTAL.search(rest):
        summed = {v: _summed_at(v, steps, addends or read) for v in unseen}
        if all(at is not None for at in summed.values()):
            at = max(summed.values())
            return "satisfied", at, f"the answer's total {unseen} is a sum of amounts on the screen of step {at}"
    by_index = {e.index: e for e in steps}
    lone = [v for v, at in seen.items() if at in by_index and read is not None and _only_lone(v, by_index[at], read)]
    if not unseen and lone:
        return "not_visible", None, f"{lone} stood on screen only as a figure on its own (a count, a field, a " \
                                    "badge): what it counts, the screen does not say"  # fmt: skip
    if not unseen:
        at = max(s for s in seen.values() if s is not None) if seen else last
        return "satisfied", at, f"the answer's values {list(seen)} were on screen (step {at})"
    if read is None:
        return "not_visible", None, f"{unseen} are in no page title or URL; OCR would have to look"
    return "contradicted", last, f"the answer gives {unseen}, which no screen the agent saw ever showed"


def _amount(text: str) -> float | None:
    try:
        return float(re.sub(r"[,\s]", "", text))
    except ValueError:
        return None


def _summed_at(value: str, steps: Sequence[Evidence], read: Read) -> int | None:
    """The latest step whose screen shows two or more amounts that add up to `value` (to the cent). A total with
    cents is summed from amounts with cents only: a day of the month or a count is no addend of "96.45"."""
    want = _amount(re.sub(r"[^\d.,]", "", value))
    if want is None:
        return None
    cents = re.search(r"\.\d{2}$", value.strip()) is not None
    for e in reversed(steps):
        if e.png is None:
            continue
        found = [a for m in _AMOUNT.finditer(read(e)) if (a := _amount(m.group(0))) is not None and 0 < a < want
                 and (not cents or "." in m.group(0))]  # fmt: skip
        found = list(dict.fromkeys(found))[:MAX_ADDENDS]
        sums = {0}
        for a in found:  # subset sums in cents, pruned above the answer
            sums |= {t + round(a * 100) for t in sums if t + round(a * 100) <= round(want * 100)}
        if round(want * 100) in sums and round(want * 100) not in {round(a * 100) for a in found}:
            return e.index
    return None


def _only_lone(value: str, step: Evidence, read: Read) -> bool:
    """A short figure ("1", "12") that OCR reads only as a line of its own on the last screen that shows it (the one
    the answer was read from): a quantity field, a badge or a page number as much as the answer; a figure inside
    words ("仅剩3件", "3 left") says what it counts."""
    v = T.normalise(value)
    if not v.isdigit() or len(v) > 2 or step.png is None:
        return False
    holding = [T.normalise(line) for line in read(step).splitlines() if T.contains_value(line, value)]
    return bool(holding) and all(line == v for line in holding)


def _seen_at(value: str, steps: Sequence[Evidence], read: Read | None) -> int | None:
    """The latest step whose title/URL or (OCR) raw screenshot shows `value`, skipping screens where it may
    only sit in a field the agent typed it into."""
    for e in reversed(steps):  # the title's own part: the signed-in user's name after " · " answers nothing
        if T.contains_value(page_item(e.title), value) or T.contains_value(unquote(e.url or ""), value):
            return e.index
    if read is None:
        return None
    for e in reversed(steps):
        if e.png is None or any(T.contains(t, value) for t in (*e.echo, *typed_texts(e))):
            continue
        text = read(e)
        # line by line too: normalising joins lines, so a figure that ends one line runs on into the next
        # line's digits ("-312.80" + "2024-03-05") and whole-text matching alone would miss it
        if T.contains_value(text, value) or any(T.contains_value(line, value) for line in text.splitlines()):
            return e.index
        if any(_same_day(line, value) for line in text.splitlines()):
            return e.index
    return None


def _same_day(line: str, value: str) -> bool:
    """An ISO date answer ("2024-03-18") that a screen writes its own way ("Mon, 18 Mar 2024"): the same day and
    month, and the same year where the line gives one."""
    if not ISO_DATE.fullmatch(value.strip()) or not days(value) & days(line):
        return False
    years = re.findall(r"\b(?:19|20)\d{2}\b", line)
    return not years or value.strip()[:4] in years


# ---- side effects ----------------------------------------------------------------------------------------


def _opened_as(label: str, after: Evidence) -> bool:
    """The click opened a page titled with its label alone (the app's name after " · " aside): navigation."""
    title = re.split(r"\s+[·|–-]\s+", after.title or "")[0]
    return bool(title) and T.normalise(title) == T.normalise(label)


_FROM_TRASH = re.compile(r"\b(?:from|in|out of)\s+(?:the\s+|your\s+)?(?:trash|bin)\b|从回收站|回收站(?:中|里)", re.I)


def side_effects(goal: str, steps: Sequence[Evidence], lines: Lines | None = None) -> list[int]:
    """Steps whose click led to a URL reporting a deletion, or (with OCR) took the row it was on off a list that
    otherwise stayed (a trash icon on a file's row), on a page that is not about anything the goal names (a goal
    without names: one that asks for no deletion at all). A row taken off a list is about what the row itself
    says: a file trashed from Drive is a side effect of a goal that names Drive only as where to create a document."""
    names = needles(goal)
    wants = _FROM_TRASH.sub(" ", goal)  # "bring X back from Trash" asks for no deletion
    asks = bool(_DELETES.search(wants) or _ZH_REMOVAL.search(wants))
    # a removal asked by description ("把那封假冒的密码邮件移到已删除", "delete the phishing email"): no page names its
    # item, so any deletion may be the one asked (its keypoint, which no rule decides, keeps the run from `completed`)
    described = asks and any((_DELETES.search(k) or _ZH_REMOVAL.search(k)) and not T.quoted(k)
                             and not _NEGATED.search(own_words(k)) and not _ZH_NEGATED.search(k)
                             for k in split_goal(wants))  # fmt: skip
    found = []
    for s in range(len(steps) - 1):
        flagged = _DELETED.search(tail(steps[s + 1].url)) and not _DELETED.search(tail(steps[s].url))
        pressed = _DELETE_LABEL.match(target(steps[s])) and _changed(steps[s], steps[s + 1]) and \
            not _opened_as(target(steps[s]), steps[s + 1])  # the "Trash" folder's link opens the page "Trash"
        gone = _row_gone(steps[s], steps[s + 1], lines) if clicked(steps[s]) and lines is not None else []
        if not clicked(steps[s]) or not (flagged or pressed or gone):
            continue
        page = described or (any(T.contains(c, n) for c in context(steps, s) for n in names) if names else asks)
        if gone and lines is not None:
            row = [*gone, *_row_texts(steps[s], lines)]
            related = any(_truncates(t, n) or T.contains(t, n) for t in row for n in names) or asks and page
        else:  # a page whose title names none of them (a cart): a named item the click took off its screen
            related = page or lines is not None and any(_taken_off(n, steps[s], steps[s + 1], lines) for n in names)
        if not related:
            found.append(s)
    return found


_DELETES = re.compile(r"\b(delete|remove|trash|discard|empty|clear|purge)\b", re.I)
_ZH_NEGATED = re.compile(r"不要|别|勿|不得|禁止|保留")


def _taken_off(name: str, step: Evidence, after: Evidence, lines: Lines) -> bool:
    """`name` was read on the step's screen and not on the next one of the same page."""
    if step.png is None or after.png is None or step.url != after.url:
        return False
    return any(T.ocr_contains(t, name) for _, t in lines(step)) and \
        not any(T.ocr_contains(t, name) for _, t in lines(after))  # fmt: skip


def _row_texts(step: Evidence, lines: Lines) -> list[str]:
    """The texts on the row a click was on (within a line's height of the click)."""
    point = _point(step)
    if point is None or step.png is None:
        return []
    y = point[1] * png_size(step.png)[1]
    return [t for b, t in lines(step) if b[1] - 4 <= y <= b[3] + 4]
