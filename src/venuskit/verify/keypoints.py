"""The rule-based keypoint splitter: the goal's own clauses, nothing the goal does not state.

Used when no model judge is given (or the model's list cannot be parsed). It splits sentences and
coordinated imperatives ("Open X and reply Y" -> two points), turns a question into "Answer: ...", and
adds a "sorted by ..." point for each superlative (WebJudge's rule: "cheapest" means the sort was used).
Quoted spans are never split.
"""

from __future__ import annotations

import re

from venuskit.models.lexicon import HAN_CHAR, QUOTED
from venuskit.verify.text import ZH_CHANGE_TO

# Imperative verbs that start a new keypoint after "and" / ", then" (so "Add milk and eggs" stays one point).
_VERB_TEXT = """
    accept add answer archive attach book buy call cancel change check choose click close confirm copy create
    decline delete disable download edit email enable enter file fill filter find forward give go hit install
    invite list make mark move navigate open order pay play post press put rate read record remove rename reply
    report reset restore save say schedule search select send set share show sign sort star start submit switch
    tap tell transfer turn type unsubscribe update upload use visit write"""
VERBS = frozenset(_VERB_TEXT.split())
# Clauses that only say how to get somewhere ("Find", "Switch between the tabs to find", "Navigate through the
# file tree") are no keypoint of their own when a clause follows: no trajectory shows "finding" as such, and
# what was found shows in the clause that acts on it.
_SEEKING = ("find", "locate", "look", "search", "navigate", "browse", "scroll", "switch")
_POLITE = frozenset({"please", "don't", "do", "never", "always", "make", "keep", "leave", "then"})
_TO_FIND = re.compile(r"\bto (?:find|locate|see)$", re.IGNORECASE)
# superlative -> what the results must be sorted by
SUPERLATIVES = {
    "cheapest": "price, lowest first",
    "least expensive": "price, lowest first",
    "lowest price": "price, lowest first",
    "most expensive": "price, highest first",
    "highest price": "price, highest first",
    "newest": "date, newest first",
    "latest": "date, newest first",
    "most recent": "date, newest first",
    "oldest": "date, oldest first",
    "earliest": "date, oldest first",
    "highest rated": "rating, highest first",
    "best rated": "rating, highest first",
    "top rated": "rating, highest first",
    "most popular": "popularity, highest first",
    "largest": "size or amount, largest first",
    "biggest": "size or amount, largest first",
    "smallest": "size or amount, smallest first",
    "shortest": "duration, shortest first",
    "longest": "duration, longest first",
}
_SENTENCE_END = re.compile(r"(?<=[.!?。！？])\s+(?=\S)|(?<=[。！？])")
# A full stop that ends no sentence: after an initial ("approver D. Kim") or a short title ("Dr. Lee", "e.g.").
_ABBREVIATION = re.compile(r"(?:^|[\s(])(?:[A-Z]|Mr|Mrs|Ms|Dr|Prof|St|No|vs|etc|e\.g|i\.e|approx)\.$")
# Words that start no imperative: after "then" they continue the sentence ("…, then the total is due").
_NOT_A_VERB = frozenset({"the", "a", "an", "it", "its", "they", "this", "that", "these", "those", "you", "your", "i",
                         "we", "he", "she", "there", "is", "are", "was", "will", "to", "on", "in", "at", "by"})
# ", but only save it as a draft": a step of its own (what it names must happen too), its adverb dropped so that the
# keypoint reads as the act ("Save it as a draft"); ", but keep the X" and ", but do not Y" start no step (no verb).
_COORD = re.compile(r";\s+|,\s+(?:and\s+)?then\s+|\s+and\s+then\s+|,\s+and\s+|,\s+but\s+(?:only\s+|just\s+)?|"
                    r"\s+and\s+|\s+then\s+", re.IGNORECASE)  # fmt: skip


def _mask_quotes(text: str) -> tuple[str, list[str]]:
    """Replace quoted spans by placeholders so splitting never cuts inside them."""
    spans: list[str] = []

    def keep(m: re.Match[str]) -> str:
        spans.append(m.group(0))
        return f"\x00{len(spans) - 1}\x00"

    return QUOTED.sub(keep, text), spans


def _unmask(text: str, spans: list[str]) -> str:
    return re.sub(r"\x00(\d+)\x00", lambda m: spans[int(m.group(1))], text)


def _sentences(text: str) -> list[str]:
    """The text's sentences: split after . ! ? (and their Chinese forms), except after an abbreviation."""
    out, start = [], 0
    for m in _SENTENCE_END.finditer(text):
        if m.end() > start and not _ABBREVIATION.search(text[start : m.start()].rstrip()):
            out.append(text[start : m.start()])
            start = m.end()
    return [piece for t in [*out, text[start:]] if t.strip() for piece in _scene_first(t)]


def _scene_first(sentence: str) -> list[str]:
    """A sentence that opens with a scene before a semicolon ("You already read the email X; mark it as unread") is
    two: the scene, then the request, so that the scene goes with the request as its context."""
    head, sep, rest = sentence.partition(";")
    return [head, rest] if sep and rest.strip() and context_only(head) else [sentence]


# Adverbs of sequence between a coordination and the next step's verb (", and finally post …").
_SEQUENCE = frozenset({"finally", "lastly", "also", "afterwards", "next"})
# ", then in the spreadsheet "X", set cell C4 to …": a step whose place comes before its verb.
_FRONTED = re.compile(r"(?:in|on|at|from)\s[^,]{1,60},\s+(?P<verb>\w+)", re.IGNORECASE)


def _fronted_step(rest: str) -> bool:
    m = _FRONTED.match(rest)
    return m is not None and m.group("verb").casefold() in VERBS


def _clauses(sentence: str) -> list[str]:
    """Split at coordinations where the next part starts with an imperative verb; after "then", at any word that
    can start one (a next step, whatever its verb: ", then react with Celebrate"), as in Chinese after 然后."""
    parts: list[str] = []
    pos = 0
    for m in _COORD.finditer(sentence):
        end = m.end()
        adverb = re.match(r"(\w+),?\s+", sentence[end:])
        sequenced = bool(adverb and adverb.group(1).casefold() in _SEQUENCE)
        if sequenced:  # ", and finally post …": "post" starts the step
            end += adverb.end()
        nxt = sentence[end:].split(maxsplit=1)
        word = nxt[0].casefold().strip(",.") if nxt else ""
        # ", and finally react with Like …": after a word of order, as after "then", any word that can start a step
        # ("also" orders nothing: "Buy milk, and also eggs" is one step)
        then = "then" in m.group(0).casefold() or sequenced and adverb.group(1).casefold() != "also"
        step = word in VERBS or then and (word.isalpha() and word.isascii() and word not in _NOT_A_VERB
                                          or _fronted_step(sentence[end:])) \
            or sequenced and _fronted_step(sentence[end:])  # ", and finally in the sheet "X", set …"
        shared = m.group(0).strip().casefold() == "and" and len(sentence[pos : m.start()].split()) == 1
        if step and not shared:  # "File and submit X": two verbs of one object
            parts.append(sentence[pos : m.start()])
            pos = end
    parts.append(sentence[pos:])
    return [p.strip(" ,;") for p in parts if p.strip(" ,;")]


# After a question, a clause that only says how to answer it ("Answer with the code", "Tell me its status",
# "请回答金额"): a qualifier of that answer, not a keypoint of its own (no trajectory meets "请回答金额" alone).
_QUALIFIER = re.compile(r"^(?:answer|tell me|let me know|reply with|give)\b|^(?:请|并)?(?:回答|告诉我|给出|写出|说明)|"
                        r"^请?(?:用|以|按)[^，,。]{1,20}?(?:格式)?(?:回答|作答)",  # "请用 HH:MM 格式回答"
                        re.IGNORECASE)  # fmt: skip
# A request to report something back that is not phrased as a question ("tell me the largest amount").
_REPORT = re.compile(r"^(?:tell me|let me know)\b|^请?告诉我", re.IGNORECASE)
_QUESTION_END = re.compile(r"[?？]\s*(?:\([^()]*(?:\([^()]*\)[^()]*)*\))?$")  # a question, maybe with a context note


def _tidy(clause: str) -> str:
    clause = clause.strip().rstrip(".。")
    if _QUESTION_END.search(clause) or _REPORT.match(clause):
        return f"Answer: {clause}"
    return clause[:1].upper() + clause[1:]


def sort_points(goal: str) -> list[str]:
    folded = goal.casefold()
    points = []
    for word, order in SUPERLATIVES.items():
        if re.search(rf"\b{re.escape(word)}\b", folded):
            points.append(f'The "{word}" one is found from results sorted by {order} (the sort function was used)')
    return points


# "按价格从低到高排序": a sort asked in Chinese, a step of its own (its verb comes last)
ZH_SORT = re.compile(r"^按\s*(?P<key>价格|日期|时间|评分|销量|金额)\s*"
                     r"(?P<dir>从低到高|从高到低|从新到旧|从旧到新|升序|降序)?\s*排序")  # fmt: skip
# The point `sort_points` writes, read back by the rules: its quoted superlative is no value to show on a screen.
SORT_POINT = re.compile(r'^The "(?P<word>[^"]+)" one is found from results sorted by (?P<key>[^,]+), '
                        r"(?P<first>\w+) first \(the sort function was used\)$")  # fmt: skip


def means_only(clause: str) -> bool:
    """A clause that only says how to get somewhere: a seeking verb alone ("Find"), any clause that ends "to find"
    ("Switch between the tabs to find", "Expand the sections below, to find"), or moving around ("Navigate
    through the file tree")."""
    words = clause.strip(" ,.").split()
    if words and _TO_FIND.search(clause.strip(" ,.")):
        return True  # "Expand the sections below, to find": whatever the verb, it only leads to what is found
    if not words or words[0].casefold() not in _SEEKING:
        return False
    return len(words) == 1 or words[0].casefold() in _SEEKING[4:]


def _outcomes(clauses: list[str]) -> list[str]:
    """The clauses without the means-only ones that another clause follows."""
    return [c for i, c in enumerate(clauses) if i == len(clauses) - 1 or not means_only(c)]


def context_only(sentence: str) -> bool:
    """A sentence that sets the scene and asks nothing ("HR emailed you about your move", "You deleted the
    email X by mistake", "Ethan wrote two posts: "A" and "B""): it starts with no imperative, holds no question
    and no colon after which a request may follow (a colon that only lists quoted names is none). Applied to
    (masked) sentences that another sentence follows, and never to Chinese text."""
    words = sentence.strip().split()
    first = words[0].casefold().strip("\"'“,") if words else ""
    if not first or not first[0].isascii() or not first[0].isalpha():
        return False
    if re.search(r"[?？]", sentence) or re.search(r"[:：]", sentence) and not _LISTED.search(sentence):
        return False
    return first not in VERBS | _POLITE


# After a colon, only quoted names (masked) joined by commas, "and", "or": a list of things, not a request.
_LISTED = re.compile(r"[:：]\s*(?:\x00\d+\x00\s*(?:(?:,|and\b|or\b|、|和|及)\s*)*)+[.。]?\s*$")


# Chinese imperatives: a sentence with none of them, right before a question, only sets the scene
# ("云盘里有个文件提到了“X”。是哪个文件？").
_ZH_DO = re.compile(
    "请|把|将|给|打开|点击|点|删除|发送|发|搜索|查找|找到|切换|设置|设为|添加|加入|创建|新建|回复|转发|保存|存|修改|更改|改|上传|"
    "下载|移动|移到|标记|取消|接受|拒绝|预订|购买|买|支付|付|转账|填写|输入|选择|进入|前往|打|开启|关闭|恢复|归档|加星|邀请|写"
)


def zh_context(sentence: str, following: str) -> bool:
    """A Chinese sentence that states a fact before a question and asks for nothing itself (its quoted names,
    masked, never count as a request)."""
    if not re.match(r"\s*[\u3400-\u9fff]", sentence) or re.search(r"[?？]", sentence):
        return False
    return bool(_QUESTION_END.search(following.strip().rstrip("。"))) and not _ZH_DO.search(
        re.sub(r"\x00\d+\x00", "", sentence))


# Chinese coordinates imperatives with a comma ("把A保存到云盘，然后在云盘中打开确认"): a part that starts, after a
# connective, with an imperative (or "在…中" before one, or a "don't") is a clause of its own.
_ZH_CONNECTIVE = re.compile(r"^(?:然后|之后|接着|最后|随后|再|并且|并|同时|还要|也要?)\s*")
_ZH_NEXT = re.compile(r"^(?:然后|之后|接着|最后|随后)")  # "then": a next step, whatever its first word
# A step's first word: a multi-character request verb, or a one-character one followed by what makes it a verb
# here ("加一件", "发给", "改为", "存为"); alone it starts nouns too ("发票支付" is a way to pay, not "send").
_ZH_VERBS = "|".join(sorted((v for v in _ZH_DO.pattern.split("|") if len(v) > 1), key=len, reverse=True))
_ZH_STEP = re.compile(rf"^(?:请)?(?:先?不要|别|把|将|给|(?:{_ZH_VERBS})|"
                      rf"[加发改存买写点打付删搜找选填输设回转](?=[一个件封份条到给为成上明入下掉出]))")
# Where or by what the act happens ("在日历中", "在云盘新建", "按 IT 要求", "根据邮件"): a step may start with it
# before its verb.
_ZH_PLACE = re.compile(r"^(?:在[^，,；;。]{1,24}?(?:中|里|上|内)|按照?[^，,；;。]{1,16}?(?:要求|内容|说明|所写|所述)|"
                       r"根据[^，,；;。]{1,16}?(?:，|\s)|"
                       rf"[从在][^，,；;。\x00]{{1,12}}?(?=(?:{_ZH_VERBS})))\s*")  # fmt: skip
_ZH_COMMA = re.compile(r"[，,；;]")
# A second field set in the same breath ("把显示名称改为“X”，部门改为 Sales"): a short name, then the change verb.
_ZH_FIELD_CHANGE = re.compile(rf"^[\u3400-\u9fff]{{1,8}}(?:{ZH_CHANGE_TO})")


def _zh_clauses(sentence: str) -> list[str]:
    """A Chinese sentence's coordinated imperatives; a colon header ("处理X的邮件：把A…，把B…") goes with the first
    as context. Commas inside brackets (placeholders keep quotes whole) never split; a part with no verb of its
    own (a place, a condition: "在有货的结果中，把最便宜的一件加入购物车") stays with the clause it qualifies."""
    header, body = "", sentence
    m = re.match(r"^([^:：]+)[:：]\s*(.+)$", sentence)
    if m and _starts_step(m.group(2)):
        header, body = m.group(1).strip(), m.group(2)
    parts, depth, start = [], 0, 0
    for i, ch in enumerate(body):
        depth += ch in "（(" and 1 or 0
        depth -= ch in "）)" and depth > 0 and 1 or 0
        if depth == 0 and _ZH_COMMA.match(ch) and _starts_step(body[i + 1 :]):
            parts.append(body[start:i])
            start = i + 1
    parts.append(body[start:])
    clauses: list[str] = []
    for part in (p.strip(" ，,；;") for p in parts):
        part = _ZH_CONNECTIVE.sub("", part) if clauses else part
        if clauses and not _has_step(clauses[-1]):
            clauses[-1] = f"{clauses[-1]}，{part}"
        elif part:
            clauses.append(part)
    if header and clauses:
        clauses[0] = f"{clauses[0]} ({header})"
    return clauses or [sentence]


def _starts_step(text: str) -> bool:
    text = text.lstrip()
    rest = _ZH_CONNECTIVE.sub("", text)
    rest = re.sub(r"^请(?=按|根据|在)", "", rest)  # "请按邮件内容修改…": the polite word before a place or a source
    return bool(_ZH_NEXT.match(text) or _ZH_STEP.match(_ZH_PLACE.sub("", rest)) or _ZH_STEP.match(rest)
                or _ZH_REPORT.match(rest) or ZH_SORT.match(rest) or _ZH_FIELD_CHANGE.match(rest))  # fmt: skip


# "…，告诉我最便宜的商品叫什么": a request to report back is a step of its own (an `Answer:` point), never part of
# the act before it, which a form's submit alone could then satisfy.
_ZH_REPORT = re.compile(r"^请?告诉我")


def zh_scene(sentence: str, following: str, following_is_scene: bool = False) -> bool:
    """A Chinese sentence that tells what happened before the request that follows it: no step of its own at its
    start and no question, and either what happened to you ("X通过邮件邀请你…", "你误删了邮件“X”"; "你" as the one
    it happened to, not "你需要", which asks), what someone did ("…转发了…"), or a plain statement with no request verb
    outside its quoted names ("孙杰在论坛提问“…”", "时间写在黄娜的帖子“…”里"), before a request or another such
    sentence."""
    plain = re.sub(r"\x00\d+\x00", "", sentence)
    if not HAN_CHAR.search(plain) or re.search(r"[?？]", plain) or _starts_step(sentence) or plain.startswith("请"):
        return False
    request = following.lstrip().startswith("请") or _starts_step(following) or following_is_scene
    if "了" in plain and request:
        return True  # "欧阳雪转发了…的账单。请从活期账户…", "刘娜在邮件中提议了…。把它加到日历中…"
    if "你" in plain and not re.search(r"你(?:需要|要|得|必须|应该|应|可以|来)", plain) and request:
        return True
    return not _ZH_ASKS.search(re.sub(r"写在|写着", "", plain)) and (following.lstrip().startswith("请") or
                                                                    following_is_scene)  # fmt: skip


# What makes a sentence ask: 请/把/将, a modal ("B2 应为 3600"), a request verb of several characters, or one of one
# character where it acts as one ("发给", "改为"; not the noun "发票"). "写在…里" says where something is written.
_ZH_ASKS = re.compile(rf"请|把|将|应|需|必须|务必|要|得|{_ZH_VERBS}|"
                      r"[加发改存买写点打付删搜找选填输设回转](?=[一个件封份条到给为成上明入下掉出])")


def _has_step(clause: str) -> bool:
    """The clause holds a verb of its own, outside quoted names (masked)."""
    return _starts_step(clause) or bool(_ZH_DO.search(re.sub(r"\x00\d+\x00", "", _ZH_PLACE.sub("", clause))))


def _scenes(sentences: list[str]) -> list[bool]:
    """Which sentences only set the scene for a later one, judged from the last back (a scene may precede a scene)."""
    scene = [False] * len(sentences)
    for i in range(len(sentences) - 2, -1, -1):
        sentence, following = sentences[i], sentences[i + 1]
        scene[i] = context_only(sentence) or zh_context(sentence, following) or zh_scene(sentence, following,
                                                                                         scene[i + 1]) \
            or view_only(sentence) and bool(_QUESTION_END.search(following.strip().rstrip("。.")))  # fmt: skip
    return scene


# Moving a view, and nothing else ("Switch the calendar to the week view and go to next week",
# "把日历切换到周视图并翻到下一周"): before a question, the way to where its answer is, which the answer shows; no
# keypoint of its own.
_VIEW_MOVE = re.compile(r"^(?:switch|change|go|move|turn|navigate|flip|jump)\b[^.?]*\b(?:view|week|month|day|year)s?$",
                        re.I)  # fmt: skip
_ZH_VIEW_MOVE = re.compile(r"(?:切换|翻|跳转?|进入|转)到?[^，,。]{0,8}?(?:视图|[上下]一?个?(?:周|星期|月|天|年))$")


def view_only(sentence: str) -> bool:
    """The sentence only moves a view: each of its coordinated parts does (`_VIEW_MOVE`)."""
    parts = [p for p in re.split(r"\s*(?:,|，|\band\b|\bthen\b|并且?|然后|再)\s*", sentence.strip(" .。")) if p]
    return bool(parts) and all(_VIEW_MOVE.match(p) or _ZH_VIEW_MOVE.search(p) for p in parts)


def split_goal(goal: str) -> list[str]:
    """Keypoints of `goal` by rule: one per sentence and per coordinated imperative, plus sort points."""
    masked, spans = _mask_quotes(" ".join(goal.split()))
    points: list[str] = []
    clauses: list[str] = []
    context: list[str] = []  # scene-setting sentences: their names and values go with the next request
    sentences = _sentences(masked)
    scene = _scenes(sentences)
    for i, sentence in enumerate(sentences):
        if scene[i]:
            context.append(sentence.strip().rstrip(".。"))
            continue
        parts = _zh_clauses(sentence) if HAN_CHAR.search(sentence) else _clauses(sentence)
        if context and parts:
            parts[0] = f"{parts[0].rstrip('.。 ')} ({'; '.join(context)})"
            context = []
        clauses += parts
    for clause in _outcomes(clauses):
        point = _tidy(_unmask(clause, spans))
        point = _with_antecedent(point, points)
        if points and points[-1].startswith("Answer:") and _QUALIFIER.match(point.removeprefix("Answer: ")):
            qualifier = re.sub(r"^answer\s+", "", point.removeprefix("Answer: "), flags=re.IGNORECASE)
            points[-1] = f"{points[-1]} ({qualifier})"  # "How much ...? Answer with X" is one point
        elif _SAVE_ONLY.match(point) and points:
            points[-1] = f"{points[-1]}, then save"  # how the edit before it is kept: no act of its own to check
        elif len(point) > 1 and point not in points:
            points.append(point)
    return points + [p for p in sort_points(goal) if p not in points]


# "把这封邮件归档" after "把邮件“X”的附件保存到云盘": the mail a demonstrative points back to, named by the step before
_ZH_THIS_MAIL = re.compile(r"这封邮件|该邮件|此邮件|这封信")
_ZH_NAMED_MAIL = re.compile(r"邮件\s*[“\"](?P<name>[^”\"]+)[”\"]")


def _with_antecedent(point: str, before: list[str]) -> str:
    """A keypoint that names its mail only as "这封邮件" carries the mail an earlier keypoint quotes (the last one),
    as context: "把这封邮件归档 (邮件“X”)"."""
    if QUOTED.search(point) or not _ZH_THIS_MAIL.search(point):
        return point
    named = [m.group("name") for p in before for m in _ZH_NAMED_MAIL.finditer(p)]
    return f"{point} (邮件“{named[-1]}”)" if named else point


# "…, then save" / "and save it": a save with no object of its own commits the step before it (as "并保存" does in
# Chinese, which never splits it off).
_SAVE_ONLY = re.compile(r"^(?:save)(?:\s+(?:it|them|this|that|everything|the\s+(?:file|document|doc|sheet|spreadsheet|"
                        r"changes?|edits?|form|page)))?$", re.I)  # fmt: skip
