"""Text rules shared by the judges and the keypoint splitter: normalisation for OCR matching, the
needles (quoted strings and key values) a keypoint names, and the phrases that matter for verdicts."""

from __future__ import annotations

import re
import unicodedata

from venuskit.models.lexicon import (
    CODE,
    DATE,
    EMAIL,
    HAN,
    HAN_CHAR,
    IBAN,
    ISO_DATE,
    QUOTE_MARKS,
    QUOTED,
    TIME,
    URL,
    quoted_spans,
)

# Words with which a Finished/Answer/CallUser reports that the task cannot be done (en and zh). The same
# list as the world contracts use, repeated here because verify may not import tasks.
INFEASIBLE_MARKERS = (
    "cannot", "can't", "can not", "not possible", "impossible", "unable", "no such", "does not exist",
    "doesn't exist", "not found", "not available", "no option", "unclear", "ambiguous", "infeasible", "not supported",
    "无法", "不能", "不存在", "没有", "找不到", "不支持", "不明确", "不确定",
)  # fmt: skip

_SPACE = re.compile(r"\s+")
_THOUSANDS = re.compile(r"(?<=\d),(?=\d{3}\b)")
_DASHES = str.maketrans({"–": "-", "—": "-", "−": "-", "：": ":", "，": ",", "。": ".", "、": ",", "．": "."})
# Sentence punctuation OCR often drops or reads differently (the Chinese model reads "，" as "," or not at
# all): left out of normalised text, except a dot or comma between digits (1150.00 stays 1150.00).
_SOFT_PUNCT = re.compile(r"[!?;,()\[\]·…]|(?<!\d)[.:](?!\d)|(?<=\d)[.:](?!\d)|(?<!\d)[.:](?=\d)")

# The values a keypoint names outside its quotes (the shapes are `venuskit.models.lexicon`'s, one copy for the
# models and the verifier): e-mail addresses, URLs, IBANs, codes, ISO dates, times, decimal amounts.
DECIMAL_AMOUNT = re.compile(r"\b\d[\d,]*\.\d+\b")  # "27.95", "1,150.00"
_KEY_VALUES = (EMAIL, URL, IBAN, CODE, ISO_DATE, TIME, DECIMAL_AMOUNT)
_ANSWER_CUES = re.compile(
    r"\?|？|\b(answer|tell me|let me know|report back|what is|what's|how much|how many|which|when does|who)\b"
    r"|告诉我|请回答|回答|多少|是什么|叫什么|哪|谁|几点",
    re.IGNORECASE,
)


def normalise(text: str) -> str:
    """Case-folded text without whitespace or quotes, so OCR output that dropped the spaces between
    English words ("TransfersenttoGreenLeaf") still matches "Transfer sent to Green Leaf"."""
    text = unicodedata.normalize("NFKC", text).translate(_DASHES).casefold()
    text = _THOUSANDS.sub("", text)
    text = _SPACE.sub("", text)
    text = _SOFT_PUNCT.sub("", text)
    return "".join(ch for ch in text if ch not in QUOTE_MARKS)


# Characters OCR takes for one another on screenshots (l/I/1, O/0, q/g, S/5, B/8, Z/2): one class each, so that
# "quis" read as "guis" or "AzbZArI" read as "AzbZArl" still matches. Used only where OCR text meets a name.
_CONFUSED = str.maketrans({"1": "l", "i": "l", "|": "l", "!": "l", "0": "o", "q": "g", "5": "s", "8": "b", "2": "z"})


_CONFUSED_CASED = str.maketrans({"1": "l", "I": "l", "|": "l", "!": "l", "0": "O", "q": "g", "5": "S", "8": "B",
                                 "2": "Z"})  # fmt: skip


# A file name's dot that OCR reads as a dash ("（已签署)-pdf" for "（已签署）.pdf"), in normalised text.
_EXT_DOT = re.compile(r"-(pdf|docx?|xlsx?|pptx?|csv|txt|png|jpe?g|zip)")


def ocr_key(text: str, *, cased: bool = False) -> str:
    """`normalise`d text with OCR's usual confusions folded (rn -> m, vv -> w, and the classes above). `cased`:
    letters keep their case (a typed value is case-sensitive: "hannaH" is not "Hannah"); only the glyphs OCR
    confuses across case or with digits are folded."""
    if not cased:
        text = _EXT_DOT.sub(r"\1", normalise(text))
        return text.replace("rn", "m").replace("vv", "w").translate(_CONFUSED)
    text = _SOFT_PUNCT.sub("", _SPACE.sub("", unicodedata.normalize("NFKC", text).translate(_DASHES)))
    return "".join(ch for ch in text if ch not in QUOTE_MARKS).replace("rn", "m").translate(_CONFUSED_CASED)


# A file name's extension, as the world's files have them: OCR often puts it on a line of its own, under the name.
FILE_EXT = re.compile(r"\.(?:pdf|docx?|xlsx?|pptx?|csv|txt|png|jpe?g|zip)$", re.I)


def file_stem(name: str) -> str | None:
    """The name of a file without its extension ("Atlas NDA.pdf" -> "Atlas NDA"); None when `name` has none."""
    m = FILE_EXT.search(name.strip())
    return name.strip()[: m.start()].strip() or None if m else None


def ocr_contains(haystack: str, needle: str) -> bool:
    """`contains` for text OCR read: `needle` occurs in `haystack` up to OCR's usual confusions."""
    n = ocr_key(needle)
    return bool(n) and n in ocr_key(haystack)


def quoted(text: str) -> list[str]:
    """The quoted spans of `text`, in order, without their quotes."""
    return [span.strip() for span, _ in quoted_spans(text)]


def unquoted(text: str) -> str:
    """`text` with its quoted spans blanked out (the keypoint's own words, not the values it quotes)."""
    return QUOTED.sub(" ", text)


def emails(text: str) -> list[str]:
    """The e-mail addresses outside the quotes."""
    return [m.group(0).rstrip(".,;:") for m in EMAIL.finditer(unquoted(text))]


def key_values(text: str) -> list[str]:
    """Key values outside the quotes: e-mails, URLs, IBANs, codes, dates, times, decimal amounts."""
    outside = unquoted(text)
    return [m.group(0).rstrip(".,;:") for pattern in _KEY_VALUES for m in pattern.finditer(outside)]


_NAME = re.compile(r"\b[A-Z][\w&'.-]*(?:\s+(?:&\s+|of\s+|de\s+)?[A-Z][\w&'.-]*)*")
_NAME_STOP = frozenset({"I", "A", "An", "The", "Answer", "EUR", "USD", "OK", "IBAN"})


_HAN_RUN = re.compile(f"[{HAN}](?:[{HAN}0-9A-Za-z.·\\- ]*[{HAN}0-9])?")


def proper_names(text: str) -> list[str]:
    """Capitalised word runs outside quotes, except the first word of the text (an imperative verb); in a
    mostly non-Chinese sentence, also each run of Chinese text (a name or value set into it: "冰川登山水壶
    0.5 升 went into the cart")."""
    outside = IBAN.sub(" ", QUOTED.sub(" ", text))  # an IBAN is a value of its own ("IBAN DE89" is no name)
    first = re.match(r"\s*\S+", outside)
    start = first.end() if first else 0
    names = [m.group(0).rstrip(".") for m in _NAME.finditer(outside) if m.start() >= start
             and m.group(0) not in _NAME_STOP]  # fmt: skip
    han = len(HAN_CHAR.findall(outside))
    words = outside
    for pattern in _KEY_VALUES:  # an e-mail address or a code is a value, not the sentence's language
        words = pattern.sub(" ", words)
    if 0 < han < 0.5 * len(re.findall(r"[^\W\d_]", words)):
        names += [m.group(0).strip() for m in _HAN_RUN.finditer(outside) if len(m.group(0).strip()) >= 2]
    elif han:  # quotes kept as a mark, not a space: "主题为“X”的邮件" sets off no "的邮件"
        names += [m.group(0) for m in _ZH_SPACED.finditer(IBAN.sub(" ", QUOTED.sub("\x00", text)))]
    return names


# In Chinese text, a name or value set off by spaces from the words around it ("在银行中把 湖畔托儿所（IBAN …）保存为",
# "向常用收款人 海港音乐学校 转账"): Chinese writes no spaces between its own words, so the spaces mark an inserted
# value. It must follow Chinese (not "FinPortal 中提交…", where the space only sets off a Latin word), and what
# comes next is Chinese or ends the clause (a verb before a value, "转账 25.00 欧元", is set off too).
_ZH_SPACED = re.compile(f"(?<=[{HAN}] )[{HAN}][{HAN}·]{{1,15}}(?=[（(，,。；;：:）)]|$| [{HAN}])")


# A Chinese clause that gives a field and its value, "，地点 北辰会议室，" / "，审批人 王芳。": the value is the one
# spaceless run after the field's name, up to the clause's end.
_ZH_LABELLED = re.compile(f"(?:^|[，,；;])\\s*[{HAN}]{{1,6}}\\s+"
                          "(?P<value>[^\\s，,；;。“”\"）)]+)(?=\\s*(?:[，,；;。）)]|$))")  # fmt: skip

# "…，内容是：陈杰你好，我已预订…": a field's name and a colon, then its value to the end of the keypoint. A colon
# between digits is the value's own (a time: "告诉对方：我参加，12:30 见"), as in a message after "says:".
_ZH_COLON = re.compile(f"[{HAN}]{{1,4}}[:：]\\s*(?P<value>(?:[^“”\"：:]|(?<=\\d):(?=\\d)){{2,}}?)\\s*[。.]?$")


# "… that says: Hi Lucas, I will drop the laptop on Thursday": a message given unquoted after a colon, one value to
# the keypoint's end (its names and commas are part of it, not values of their own).
_STATED = re.compile(r"\b(?:says?|saying|reads?|reading|(?:the |with the )?(?:text|message|body|note|comment))"
                     r"\s*:\s*(?P<value>(?:[^“”\":：]|(?<=\d):(?=\d)){2,}?)\s*[.。!]?$", re.I)  # fmt: skip


# A quoted value the keypoint leaves out ("… only the attachment "A" (leave out "B")", "（不要带“B”）"): no value to
# enter, and what must not go with the rest
_LEFT_OUT = re.compile(r"(?:\b(?:leave out|leaving out|without|except|not|minus|drop(?:ping)?|remove|removing)|"
                       r"不要带|不带|不要|去掉|除了|删掉)\s*(?:the\s+)?(?:attachment\s+|file\s+|附件)?"
                       r"(?P<q>[\"“][^\"”]+[\"”])", re.I)  # fmt: skip


def left_out(text: str) -> list[str]:
    """The quoted values `text` asks to leave out (`_LEFT_OUT`)."""
    return [m.group("q").strip("\"“”") for m in _LEFT_OUT.finditer(text)]


def stated_text(text: str) -> str | None:
    """The message a keypoint gives unquoted after a colon ("that says: …", "内容是：…"), else None."""
    m = _STATED.search(text) or _ZH_COLON.search(text)
    return m.group("value").strip() if m else None


# Content a keypoint describes instead of quoting ("containing the total of order #7", "saying the amount of the X
# payment", "and the text the reference number in the email "Y""): the words after the verb say where the content
# comes from. A quoted content ("containing the text "Status: in progress"") is no description.
_DESCRIBED = re.compile(r"\b(?:saying|containing|that says|(?:with|and) the (?:text|body|message|content))\s+"
                        r"(?=(?:the|your|its|my|their|his|her)\b)"
                        r"(?!the\s+(?:text|message|words?|line|note|body)\s*[:\"“])", re.IGNORECASE)  # fmt: skip


# A recipient named by whose it is, not by its address ("to your own account's email address", "to yourself",
# "发给自己"): which address on the screens is the user's own, the pixels do not say.
# The Chinese verbs that set a field to a value ("部门改为 Sales", "把时区设为“UTC+8”"): one list for the splitter and
# the rules that read such a change.
ZH_CHANGE_TO = "改为|改成|设为|设置为|更改为|修改为"


_OWN_RECIPIENT = re.compile(r"\bto\s+(?:yourself|your\s+own\s+(?:account|e-?mail|address|inbox)\b)|发给(?:你)?自己",
                            re.IGNORECASE)  # fmt: skip


def own_recipient(kp: str) -> bool:
    """The keypoint sends to the user's own address without writing it (`_OWN_RECIPIENT`)."""
    return bool(_OWN_RECIPIENT.search(unquoted(kp))) and not emails(kp)


def described(kp: str) -> tuple[str, str] | None:
    """(the keypoint without its description, the description) of a keypoint that describes the content it asks
    for ("… with the subject "S" saying the amount of the X payment" -> ("… with the subject "S"", "the amount of
    the X payment")), else None."""
    sent = _SENT_DESCRIBED.match(kp)
    if sent:  # the amount is the content; the rest ("Send to X at the IBAN …") is the entry
        return f"{sent.group('verb')} {sent.group('rest')}".strip(" .。"), sent.group("about")
    m = _DESCRIBED.search(kp) or (_COMMENT_WITH.search(kp) if COMMENTS.match(kp) else None) or _GIVES.search(kp) \
        or (_ZH_GIVES.search(kp) if REPLY_TO_POST.match(kp) else None)  # fmt: skip
    if m is None:
        return None
    return kp[: m.start()].rstrip(" ,"), kp[m.end() :].strip(" .。")


# "Reply to X's post with a comment that gives the start time": a message named by what it must tell
_GIVES = re.compile(r"\s*,?\s*\bwith\s+an?\s+(?:comment|reply|message|note|answer|response)\s+(?:that|which)\s+"
                    r"(?:gives|states|says|tells|names|mentions|includes|contains)\s+"
                    r"(?=(?:the|your|its|my|their|his|her)\b)", re.IGNORECASE)  # fmt: skip
# The same in Chinese ("请在孙杰的帖子下评论，告诉对方开始时间"): after the comma, what the comment must tell
_ZH_GIVES = re.compile(r"\s*[，,]\s*(?:并)?(?:告诉|告知)(?:对方|他们|她们|他|她|楼主|提问者)?\s*")
# "Reply to Julian Kim's post", "请在孙杰的帖子下评论" (the post named by its author; its title, if anywhere, in the
# scene: "Julian Kim asked in the forum "Q"", "孙杰在论坛提问“Q”")
REPLY_TO_POST = re.compile(r"^\s*(?:(?:reply|respond|answer)\s+(?:to\s+)?(?P<who>[^\"“”]+?)['’]s\s+"
                           r"(?:post|question|thread|comment)\b|"
                           r"请?在(?P<zh>[^“”\"，,。]{1,20}?)的(?:帖子|提问|问题)(?:下面?|里|中)?(?:评论|回复|留言)|"
                           r"请?(?:回复|评论)(?P<zh2>[^“”\"，,。]{1,20}?)的(?:帖子|提问|问题))",
                           re.IGNORECASE)  # fmt: skip


def post_title(kp: str) -> str | None:
    """The title of the post a reply keypoint names by its author, from its scene: "Reply to Julian Kim's post …
    (Julian Kim asked in the forum "Q")" -> Q; "请在孙杰的帖子下评论 (孙杰在论坛提问“Q”)" -> Q."""
    m = REPLY_TO_POST.match(kp)
    if m is None:
        return None
    if m.group("who"):
        who = re.escape(m.group("who").strip())
        said = re.search(rf"\b{who}\s+(?:asked|posted|wrote|published|started)\b[^\"“”;]{{0,40}}?"
                         r"[\"“](?P<q>[^\"“”]+)[\"”]", kp)  # fmt: skip
    else:
        who = re.escape((m.group("zh") or m.group("zh2")).strip())
        said = re.search(rf"{who}\s*(?:在[^\"“”;；，,]{{0,8}}?)?(?:提问|发帖|问|发布|写)了?[^\"“”;；]{{0,10}}?"
                         r"[\"“](?P<q>[^\"“”]+)[\"”]", kp)  # fmt: skip
    return said.group("q") if said else None


# "Send the amount of the CEDAR BAKERY payment on 2024-03-13 … to Noah Ivanova at the IBAN …", "Transfer the total of
# your FinPortal draft "X" … to …", "Send the Catering amount in the spreadsheet "S" to …": money sent, its amount
# described by where it comes from (a quoted name inside the description is part of it).
_SENT_DESCRIBED = re.compile(r"^\s*(?P<verb>send|transfer|pay)\s+(?P<about>the\s+(?:[\w']+\s+){0,3}"
                             r"(?:amount|total|sum|balance|price)\b(?:[^\"“”]|[\"“][^\"“”]*[\"”])+?)"
                             r"\s+(?P<rest>to\s+\S.*)$", re.IGNORECASE)  # fmt: skip


# "Comment on X's post "Q" with the bank reference of …": after the post's name, "with" + a description is the content.
_COMMENT_WITH = re.compile(r"(?<=[\"”」])\s*,?\s*with\s+(?=(?:the|your|its|my|their|his|her)\b)", re.IGNORECASE)
COMMENTS = re.compile(r"^\s*comment\s+on\b", re.IGNORECASE)  # a comment keypoint; its post is no value to type


# A value named by where it comes from ("on the date Lucas Walsh proposes in the email "X"", "with the location the
# place … in the email "X""): the source's name is no value to type, and the value itself no entry rule can read.
_SOURCED = re.compile(r"\bthe\s+(?:date|day|time|place|location|venue|amount|total|price|code|reference|number|name|"
                      r"address|department)\b[^\"“”]{0,60}?\b(?:in|from)\s+(?:the|your)\s+(?:email|e-mail|mail|message|"
                      r"document|spreadsheet|sheet|post|calendar|file|note)\b", re.IGNORECASE)  # fmt: skip


# "… to start at 11:15 on the same day, keeping its 45 minutes", "改到当天11:15开始，时长仍为 45 分钟": a moved event's
# end is a value of the form too
_KEPT_LENGTH = re.compile(r"\bstart(?:s|ing)?\s+at\s+(?P<t>\d{1,2}:\d{2})\b.*?\bkeep(?:ing|s)?\s+"
                          r"(?:its|the(?:\s+same)?)\s+(?P<n>\d+)\s*(?P<u>minutes?|mins?|hours?)\b|"
                          r"(?P<zt>\d{1,2}:\d{2})\s*开始.*?时长(?:仍为|仍是|不变，?|保持)?\s*(?P<zn>\d+)\s*(?P<zu>分钟|小时)",
                          re.IGNORECASE)  # fmt: skip


def kept_length_end(kp: str) -> str | None:
    """The end time ("12:00") of an event moved to start at a time and keep its length, else None."""
    m = _KEPT_LENGTH.search(kp)
    if m is None:
        return None
    start, n, unit = m.group("t") or m.group("zt"), int(m.group("n") or m.group("zn")), m.group("u") or m.group("zu")
    hours, minutes = (int(x) for x in start.split(":"))
    total = hours * 60 + minutes + n * (60 if unit.casefold().startswith("hour") or unit == "小时" else 1)
    return f"{total // 60 % 24:02d}:{total % 60:02d}"


# "move "X" from 2024-03-19 to 2024-03-21", "把“X”从 2024-03-19 改到 2024-03-21": the value before the change is what
# was there, no value to enter.
_WHEN_VALUE = r"\d{4}-\d{2}-\d{2}|\d{1,2}:\d{2}"
# Only after a verb of change: "Schedule X on D from 10:00 to 11:00" (从 10:00 到 11:00) is a range, both values new.
_CHANGED_FROM = re.compile(rf"\b(?:move|change|reschedule|shift|push|postpone|bring)\b[^,;]*?\bfrom\s+"
                           rf"(?P<old>{_WHEN_VALUE})\s+to\s+(?:{_WHEN_VALUE})|"
                           rf"从\s*(?P<zh>{_WHEN_VALUE})\s*(?:改到|改成|改为|移到|调到|调整到|挪到)\s*(?:{_WHEN_VALUE})",
                           re.I)  # fmt: skip


def old_values(kp: str) -> set[str]:
    """The dates and times a keypoint names as what they change from (`_CHANGED_FROM`)."""
    return {m.group("old") or m.group("zh") for m in _CHANGED_FROM.finditer(kp)}


def sourced_value(kp: str) -> bool:
    """The keypoint asks for a value it names only by its source (`_SOURCED`)."""
    return bool(_SOURCED.search(kp))


def needles(text: str) -> list[str]:
    """Strings a keypoint requires to appear: quoted spans first, then key values outside the quotes
    (e-mails, URLs, IBANs, codes, dates, times, decimal amounts), then the values of Chinese "field value"
    clauses and of a closing "field: value". Deduplicated, in order."""
    found = quoted(text)
    outside = QUOTED.sub(" ", text)
    # a quoted name is no gap between a field and its value ("取消邮件“X”的星标" labels nothing "的星标")
    labelled = _ZH_LABELLED.finditer(QUOTED.sub("\x00", text))
    found += [m.group("value") for m in labelled if "\x00" not in m.group("value")]
    found += [m.group("value") for m in _ZH_COLON.finditer(outside)]
    found += [m.group("value") for m in _STATED.finditer(outside)]
    for pattern in _KEY_VALUES:
        found += [m.group(0).rstrip(".,;:") for m in pattern.finditer(outside)]
    out: list[str] = []
    for n in found:
        if len(normalise(n)) >= 2 and normalise(n) not in {normalise(o) for o in out}:
            out.append(n)
    return out


def contains(haystack: str, needle: str) -> bool:
    """Whether normalised `needle` occurs in normalised `haystack`."""
    n = normalise(needle)
    return bool(n) and n in normalise(haystack)


def reports_infeasible(text: str | None) -> bool:
    folded = (text or "").casefold()
    return any(m in folded for m in INFEASIBLE_MARKERS)


# An answer that only reports that a search found nothing ("No posts match your search.", "没有找到"): a page's own
# empty-result line read back, not the thing a question asks for.
_NOTHING_FOUND = re.compile(r"\bno\b[^.?!]{0,40}\b(?:match(?:es|ed)?|found|results?)\b|\bnot found\b|"
                            r"\bnothing\b[^.?!]{0,20}\bfound\b|\b0 results\b|"
                            r"没有(?:找到|匹配|结果)|无(?:结果|匹配)|未找到", re.I)  # fmt: skip
# Questions that "nothing" may rightly answer: a count, whether something exists.
_EXISTENCE = re.compile(r"^\W*(?:how many|is there|are there|does|do|did|has|have|is|are|was|were|any)\b|是否|有没有|"
                        r"有几|多少", re.I)  # fmt: skip


def reports_nothing_found(answer: str, question: str) -> bool:
    """The answer only says that nothing was found, to a question that asks for a thing (not a count or whether
    something exists, which "none" may answer)."""
    return bool(_NOTHING_FOUND.search(answer)) and not _EXISTENCE.search(question)


def asks_for_answer(goal: str) -> bool:
    """Whether the goal asks the agent to report something back (a question, "answer with", "tell me")."""
    return bool(_ANSWER_CUES.search(goal))


# ---- answers to question tasks ------------------------------------------------------------------------

# "The answer is/gives/says/names X", "Answer: X", "答案是 X": a keypoint about the agent's final answer.
_ANSWER_KP = re.compile(
    r"^\s*(?:the\s+)?(?:final\s+)?answer\s*(?::|(?:is|gives|says|names|states|contains|mentions|reports|"
    r"equals)\b)\s*(?P<rest>.*?)\s*[.。]?\s*$|^\s*(?:答案|回答)\s*(?:是|为|:|：)\s*(?P<zh>.*?)\s*[.。]?\s*$",
    re.IGNORECASE,
)
_INTEGER = re.compile(r"(?<![\w.,:-])\d+(?![\w.,:-]*\d)")
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff][\u3400-\u9fff\uf900-\ufaff\w.\-（）()]*")
_ANSWER_STOP = frozenset({"The", "It", "Its", "It's", "Answer", "Yes", "No", "EUR", "USD", "OK", "This", "That"})


def answer_keypoint(kp: str) -> str | None:
    """For a keypoint about the final answer, what follows "The answer is/gives/...": the expected value or
    a description ("the Savings balance", "How much...?"); None for any other keypoint."""
    m = _ANSWER_KP.match(kp)
    if m is None:
        return None
    return (m.group("rest") if m.group("rest") is not None else m.group("zh") or "").strip()


def expected_values(rest: str) -> list[str]:
    """The values an answer keypoint requires the answer to contain. A question ("How much...?") or a bare
    description ("the Savings balance") requires none; "the order number PX-58213" requires the code."""
    if not rest or "?" in rest or "？" in rest or re.match(r"(?:which|what|how|who|when|where|tell me|let me know)\b|"
                                                            r"请?告诉我", rest, re.I):  # fmt: skip
        return []  # the question itself (a keypoint split from the goal): its values are not the answer's
    if re.match(r"(?:the|a|an)\b", rest, re.IGNORECASE):
        return [v for v in quoted(rest) + key_values(rest) + _INTEGER.findall(unquoted(rest))]
    return quoted(rest) or [rest.strip(" .。")]


# What kind of value a question asks for, from its own words (the first that matches wins), and how to tell an
# answer of that kind. Only kinds a value's shape shows (a place only by having a name); a subject or a status is not
# checked.
_ASKED: tuple[tuple[str, re.Pattern[str]], ...] = (
    ("an e-mail address", re.compile(r"e-?mail address|(?:email|mail) of|邮箱|电子邮件地址", re.I)),
    ("an IBAN", re.compile(r"\bIBAN\b")),
    ("a file name", re.compile(r"which (?:file|document)|file ?name|name of the file|哪个文件|文件名", re.I)),
    ("a time", re.compile(r"\bHH:MM\b|\bwhat time\b|\bwhen does .* (?:start|end|begin)\b|几点|什么时间", re.I)),
    ("an amount", re.compile(r"\bhow much\b|\bamount\b|\btotal\b|\bbalance\b|\bin (?:EUR|USD)\b|金额|总额|余额|多少钱|"
                             r"欧元", re.I)),  # fmt: skip
    ("a count", re.compile(r"\bhow many\b|多少[件个位人次张份条台本笔]|几[件个位人次张份条台本笔]", re.I)),
    ("a number", re.compile(r"\bhow many\b|\bthe number\b|\bwith the number\b|多少(?!钱)|数字|几个|几件", re.I)),
    ("a person's name", re.compile(r"\b(?:who (?:wrote|posted|sent|organi[sz]es|created)|their name|full name)\b|"
                                   r"谁(?:发|写|组织|创建|发布)|全名|姓名|叫什么名字", re.I)),  # fmt: skip
    ("a place", re.compile(r"\bthe (?:place|location|venue)\b|\bwhere (?:does|do|is|will)\b|地点|在哪", re.I)),
    ("a code", re.compile(r"\bthe (?:reference|(?:ticket|order|invoice|tracking|booking|case|confirmation) number)\b"
                          r"|\bwith the (?:code|reference)\b|工单号|单号|编号|参考号", re.I)),  # fmt: skip
    ("a subject", re.compile(r"\b(?:the|its) (?:subject|title)\b|主题|标题", re.I)),
)
_NAMED = re.compile(r"[A-Za-z]{2,}|[\u3400-\u9fff]")  # words, not figures alone
_IS_KIND: dict[str, re.Pattern[str]] = {
    "an e-mail address": EMAIL,
    "an IBAN": IBAN,
    "a file name": re.compile(r"\.[A-Za-z][A-Za-z0-9]{1,4}\b"),
    "a time": re.compile(r"\b\d{1,2}[:：.]\d{2}\b|\d{1,2}\s*[点時时]"),
    # a figure standing alone: not the digits of a code, an order number or a date ("ER-2024-0031", "#58871",
    # "2024-03-11", "2024年")
    "an amount": re.compile(r"(?<![A-Za-z0-9_.,/:#-])[-−]?\d+(?:[,\s]\d{3})*(?:[.,]\d{1,2})?"
                            r"(?![A-Za-z0-9_/:年月日号-])"),
    "a count": re.compile(r"^(?!.*\d[.,]\d{1,2}(?!\d))(?=.*(?:\d|[一二两三四五六七八九十零]))", re.S),  # whole
    "a number": re.compile(r"\d|[一二两三四五六七八九十零]"),
    "a person's name": re.compile(r"^\s*[A-Z][\w'’.-]*(?:\s+(?:[A-Z][\w'’.-]*|van|von|de|da|di|del|der|le|la))*"
                                  r"\s*[.。]?\s*$|^\s*[\u3400-\u9fff·]{2,6}\s*[.。]?\s*$"),  # fmt: skip
    "a place": _NAMED,  # a place has a name: a figure alone is a code
    # a code has a digit ("Order 5531", "IT-4471") or is capitals joined by a dash ("TRV-HTL"): "Done." is none
    "a code": re.compile(r"\d|\b[A-Z]{2,}[-_/][A-Z0-9]{2,}\b"),
    # a subject has words: a date alone ("18 Feb", the list's date column) is none (dates are cut out first)
    "a subject": _NAMED,
}


def asked_kind(question: str) -> str | None:
    """The kind of value a question (an answer keypoint's text) asks for, when its words say so; else None."""
    return next((kind for kind, cue in _ASKED if cue.search(question)), None)


def is_kind(answer: str, kind: str) -> bool:
    """Whether an answer holds a value of `kind` (its shape: an address, a file extension, a time...)."""
    if kind == "a subject":
        answer = DATE.sub(" ", answer)
    return bool(_IS_KIND[kind].search(answer))


def answer_values(answer: str) -> list[str]:
    """The key values of a final answer, the part a user would act on and that must have been on screen:
    e-mails, URLs, codes, dates, times and amounts, whole numbers; else the whole answer when it is short
    (a bare value such as a name), else the capitalised names and Chinese runs of the sentence.
    Deduplicated, in order."""
    found = quoted(answer) + key_values(answer)
    rest = answer
    for v in found:
        rest = rest.replace(v, " ")
    found += _INTEGER.findall(rest)
    short = answer.strip(" .。")
    if not found and 0 < len(short) <= 40 and len(short.split()) <= 5:  # a bare value: "Office handbook.docx"
        found = [short]
    if not found:  # a sentence: its names carry the claim
        names = [m.group(0).rstrip(".") for m in _NAME.finditer(answer) if m.group(0) not in _ANSWER_STOP]
        found = names + [m.group(0) for m in _CJK.finditer(answer)]
    out: list[str] = []
    for v in found:
        if len(normalise(v)) >= 1 and normalise(v) not in {normalise(o) for o in out}:
            out.append(v)
    return out


def contains_value(haystack: str, needle: str) -> bool:
    """`contains`, except that a value that starts or ends with a digit must not run on into more digits
    ("17" is not read in "2017"; "3" is not in "13" nor in "3.5")."""
    n = normalise(needle)
    if not n:
        return False
    if not (n[0].isdigit() or n[-1].isdigit()):
        return n in normalise(haystack)
    left = r"(?<![\d.])" if n[0].isdigit() else ""
    right = r"(?!\.?\d)" if n[-1].isdigit() else ""
    return re.search(left + re.escape(n) + right, normalise(haystack)) is not None
