"""Goal text: the template writer (the composer's clauses) and the checks on a model's paraphrase.

`--writer URL` asks an OpenAI-compatible model to paraphrase a composed goal (the call is made by
venuskit.flywheel.synth; this module builds the request and judges the reply). A paraphrase may only reword. It
is kept only if:

- it states every value the contract pins (the same check a composed goal passes), each template value verbatim;
- every value it states is the template's: numbers as whole tokens (a "7" is not the "76.20" it hides in), quoted
  spans in any quotes ("…", “…”, '…', ‘…’, 「…」, 『…』, 《…》), e-mail addresses, URLs, and capitalised names;
- it gives no new instruction: no more clauses than the template (sentences and "then"/"然后"-like joints) and no
  more action verbs of any kind (send, delete, pay, share, change, submit, create; en and zh) than the template;
- it is not much longer than the template.

Otherwise the template goal stays, and the reason is returned: a model may reword a task, never change what it
asks for or slip an instruction in (a poisoned or hijacked writer is an injection channel into the training set).
"""

from __future__ import annotations

import re
from importlib import resources

from venuskit.tasks.synth.compose import Plan
from venuskit.tasks.synth.reject import Rejected, check_goal_states

MAX_LENGTH_RATIO, MAX_LENGTH_SLACK = 1.5, 40  # characters: a rewording may be a little longer, never a second task
_NUMBER = re.compile(r"\d+(?:[.,:]\d+)*")
# Quoted spans, one group per kind of quotes. A single quote opens only where no letter precedes it and closes
# only where none follows, so the apostrophe of "Felix's" is not a quote.
_QUOTES = (r"\"([^\"]+)\"", r"“([^”]+)”", r"‘([^’]+)’", r"「([^」]+)」", r"『([^』]+)』", r"《([^》]+)》",
           r"(?<![\w'])'([^'\n]+)'(?![\w])")  # fmt: skip
_QUOTED = re.compile("|".join(_QUOTES))
_EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
_URL = re.compile(r"\b(?:https?://|www\.)[^\s\"'”’」』》]+")
_NAME = re.compile(r"(?<![\w@.])[A-Z][\w&-]*")  # a capitalised word: part of a name, an app, a product
_SENTENCE_START = re.compile(r"(?:^|[.!?。！？]\s+)([A-Z][\w&-]*)")
_PLAIN_CAPITALS = frozenset({"I", "Please", "Could", "Can", "Would", "Will", "Kindly"})
# Where one instruction ends and the next begins: sentence ends and the words that join steps.
_JOINT = re.compile(r"[.!?;。！？；](?=\s|$)|\b(?:and then|then|afterwards|after that|finally|next|also|additionally|"
                    r"later|as well as|once that is done)\b|然后|之后|接着|最后|随后|此外|另外|同时|并且|再者",
                    re.IGNORECASE)  # fmt: skip
# Action verbs by kind, en and zh: a paraphrase may swap one for another of its kind ("transfer" -> "wire"), never
# use more of a kind than the template does.
_VERBS: dict[str, tuple[str, ...]] = {
    "send": ("send", "forward", "email", "mail", "reply", "answer", "respond", "message", "write", "发送", "发给",
             "发邮件", "转发", "回复", "寄"),
    "delete": ("delete", "remove", "erase", "trash", "wipe", "destroy", "clear", "purge", "empty", "删除", "删掉",
               "移除", "清空", "删"),
    "pay": ("transfer", "wire", "pay", "buy", "purchase", "order", "checkout", "转账", "汇款", "支付", "付款",
            "购买", "下单", "买"),
    "share": ("share", "post", "publish", "invite", "grant", "comment", "tweet", "分享", "共享", "发布", "发帖",
              "评论", "邀请", "授权"),
    "change": ("change", "set", "update", "rename", "move", "edit", "modify", "replace", "修改", "更改", "设置",
               "设为", "改为", "移动", "重命名", "编辑", "替换"),
    "submit": ("submit", "approve", "accept", "decline", "reject", "confirm", "sign", "agree", "提交", "批准",
               "接受", "拒绝", "确认", "签署", "同意"),
    "create": ("add", "create", "save", "upload", "download", "export", "copy", "restore", "archive", "mark", "star",
               "join", "leave", "book", "schedule", "cancel", "添加", "创建", "保存", "上传", "下载", "导出", "复制",
               "恢复", "归档", "标记", "加入", "退出", "预订", "取消"),
}  # fmt: skip
_VERB_KIND = {w: kind for kind, words in _VERBS.items() for w in words}
_VERB = re.compile("|".join(rf"\b{w}\b" if w.isascii() else w for w in sorted(_VERB_KIND, key=len, reverse=True)),
                   re.IGNORECASE)  # fmt: skip


def _quoted(text: str) -> list[tuple[str, str]]:
    """(the span as written, its inner text) for every quoted span."""
    return [(m.group(0), next(g for g in m.groups() if g is not None)) for m in _QUOTED.finditer(text)]


def _unquoted(text: str) -> str:
    """The text with every quoted span (a value, not an instruction) replaced by a placeholder word."""
    return _QUOTED.sub(" VALUE ", text)


def stated_values(goal: str) -> list[str]:
    """The values a goal spells out: quoted text, e-mail addresses and numbers (dates, times, amounts, IBAN
    groups)."""
    quoted = [inner for _, inner in _quoted(goal)]
    plain = _unquoted(goal)
    return list(dict.fromkeys(quoted + _EMAIL.findall(plain) + _NUMBER.findall(_EMAIL.sub(" ", plain))))


def paraphrase_messages(goal: str, locale: str) -> list[dict[str, str]]:
    template = resources.files("venuskit.tasks.synth").joinpath("prompts/paraphrase.md").read_text("utf-8")
    values = "; ".join(stated_values(goal)) or "(none)"
    text = template.format(language="Chinese" if locale == "zh" else "English", values=values, goal=goal)
    return [{"role": "user", "content": text}]


def clean_reply(text: str) -> str:
    """The paraphrase out of a model reply: reasoning dropped, one line, surrounding quotes stripped."""
    text = re.sub(r"<think>.*?</think>", "", text, flags=re.DOTALL).strip()
    text = " ".join(text.split())
    return text.strip("\"'“”")


def paraphrase_problem(plan: Plan, template_goal: str, paraphrase: str) -> str | None:
    """Why a paraphrase cannot replace the template goal, or None if it can."""
    limit = int(MAX_LENGTH_RATIO * len(template_goal)) + MAX_LENGTH_SLACK
    if not paraphrase:
        return "it is empty"
    if len(paraphrase) > limit:
        return f"it is far longer than the template goal ({len(paraphrase)} characters, at most {limit})"
    try:
        check_goal_states(plan, paraphrase)
    except Rejected as e:
        return f"it drops a value: {e.detail}"
    for value in stated_values(template_goal):
        if value not in paraphrase:
            return f"it does not keep {value!r} verbatim"
    return _new_value(template_goal, paraphrase) or _new_instruction(template_goal, paraphrase)


def _new_value(template: str, paraphrase: str) -> str | None:
    """The first value the paraphrase states that the template does not (as a whole value, not a substring)."""
    inner = {v for _, v in _quoted(template)}
    for span, value in _quoted(paraphrase):
        if value not in inner and value not in _unquoted(template):
            return f"it adds {span!r}, which the template goal does not state"
    t_plain, p_plain = _unquoted(template), _unquoted(paraphrase)
    for pattern in (_EMAIL, _URL):
        known = set(pattern.findall(template))
        extra = next((v for v in pattern.findall(p_plain) if v not in known), None)
        if extra is not None:
            return f"it adds {extra!r}, which the template goal does not state"
    numbers = set(_NUMBER.findall(template))
    extra = next((v for v in _NUMBER.findall(_EMAIL.sub(" ", p_plain)) if v not in numbers), None)
    if extra is not None:
        return f"it adds {extra!r}, which the template goal does not state"
    return _new_name(t_plain, p_plain)


def _new_name(template: str, paraphrase: str) -> str | None:
    """A capitalised word (a name: 'Mallory') or a Latin word in a Chinese goal that the template does not have."""
    known = set(re.findall(r"[\w&-]+", template))
    openers = set(_SENTENCE_START.findall(paraphrase)) | _PLAIN_CAPITALS
    latin_in_zh = re.search(r"[\u4e00-\u9fff]", template) is not None
    words = re.findall(r"(?<![\w@.])[A-Za-z][\w&-]*", paraphrase) if latin_in_zh else _NAME.findall(paraphrase)
    extra = next((w for w in words if w not in known and w not in openers and w != "VALUE"), None)
    return None if extra is None else f"it adds the name {extra!r}, which the template goal does not state"


def _new_instruction(template: str, paraphrase: str) -> str | None:
    """A clause or an action verb more than the template has: an instruction the template does not give."""
    t_plain, p_plain = _unquoted(template), _unquoted(paraphrase)
    t_clauses, p_clauses = _clauses(t_plain), _clauses(p_plain)
    if p_clauses > t_clauses:
        return f"it adds a clause ({p_clauses} instructions where the template goal gives {t_clauses})"
    t_verbs, p_verbs = _verbs(t_plain), _verbs(p_plain)
    for kind, count in p_verbs.items():
        if count > t_verbs.get(kind, 0):
            said = ", ".join(sorted({m.group(0).lower() for m in _VERB.finditer(p_plain)
                                     if _VERB_KIND[m.group(0).lower()] == kind}))  # fmt: skip
            return (f"it adds an instruction to {kind} ({said}: {count} where the template goal has "
                    f"{t_verbs.get(kind, 0)})")  # fmt: skip
    return None


def _clauses(text: str) -> int:
    return sum(1 for piece in _JOINT.split(text) if re.search(r"\w", piece))


def _verbs(text: str) -> dict[str, int]:
    counts: dict[str, int] = {}
    for m in _VERB.finditer(text):
        kind = _VERB_KIND[m.group(0).lower()]
        counts[kind] = counts.get(kind, 0) + 1
    return counts
