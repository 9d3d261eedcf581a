"""Rules over the page: is activating this control consequential, and what would it do?

Inputs are the inspector's description of the control an action lands on (`envs.browser.inspect.Target`):
its tag, text and labels (en and zh), and the form it submits. In order:

1. a control inside a frame cannot be inspected: consequential (fail closed);
2. a declared operation (the world's or the user's) that the submission matches: its kind; a declared
   look-alike ([[safe]]) on a trusted origin is let through;
3. a submission that carries filled fields to another origin, or sensitive fields (password, card, one-time
   code) from a page outside the trusted origins: `data.submit` (submitting personal data);
4. a POST form, or a script button outside any form, whose words say commit: the word's kind;
5. a link or Launch that carries data (a query or fragment) to an origin outside the trusted ones: `data.submit`
   (a GET is a way out too); plain browsing elsewhere is left to the network allowlist;
6. anything else is not consequential (navigation, typing, scrolling, GET searches, drafts, carts).

Words are matched on word boundaries in English and as substrings in Chinese.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any
from urllib.parse import urlsplit

from venuskit.agent.safety.ops import Operations

# kind -> words that commit it, when a form is POSTed (or a script button is pressed) by a control saying them.
LEXICON: dict[str, tuple[str, ...]] = {
    "send": ("send", "send now", "发送", "寄出"),
    "pay": ("pay", "pay now", "buy now", "purchase", "支付", "付款", "购买", "立即购买"),
    "transfer": ("transfer", "confirm transfer", "send money", "wire", "转账", "确认转账", "汇款"),
    "checkout": ("place order", "checkout", "check out", "complete order", "confirm order", "order now", "下单",
                 "提交订单", "结算", "确认订单"),
    "delete": ("delete", "remove", "erase", "trash", "move to trash", "delete forever", "wipe", "destroy",
               "删除", "移除", "清空", "永久删除", "移至回收站", "移到回收站"),
    "password": ("change password", "update password", "reset password", "set password", "修改密码", "更改密码",
                 "重置密码", "设置密码"),
    "permissions": ("grant", "grant access", "give access", "make public", "share", "permissions", "make admin",
                    "authorize", "authorise", "授权", "共享", "分享", "权限", "设为公开"),
    "post": ("post", "publish", "post comment", "comment", "tweet", "share publicly", "发布", "发表", "评论",
             "发帖"),
    "submit": ("submit", "confirm", "approve", "agree", "i agree", "accept terms", "accept and continue",
               "sign contract", "提交", "确认", "批准", "同意", "签署"),
}  # fmt: skip
SENSITIVE_NAMES = re.compile(r"pass(word)?|pin|otp|one.?time|backup.?code|recovery|cvv|cvc|card|iban|ssn|secret|token",
                             re.IGNORECASE)  # fmt: skip
_ASCII_WORD = re.compile(r"^[a-z ]+$")


@dataclass(frozen=True)
class Finding:
    """The rules' verdict on one action."""

    consequential: bool
    kind: str = ""  # a declared kind (bank.transfer), a lexicon kind (delete), data.submit, unknown
    reason: str = ""
    source: str = "rules"  # rules | declared | judge | fail-closed
    summary: str = ""  # what the person approving reads
    fields: dict[str, str] = field(default_factory=dict)  # the submission's values (sensitive ones as •••)
    target: dict[str, Any] = field(default_factory=dict)  # the inspected control, for the record

    def record(self) -> dict[str, Any]:
        out = {"consequential": self.consequential, "kind": self.kind, "source": self.source, "reason": self.reason}
        if self.summary:
            out["summary"] = self.summary
        if self.fields:
            out["fields"] = self.fields
        if self.target:
            out["target"] = self.target
        return out


NOT_CONSEQUENTIAL = Finding(False)


def origin_of(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower() if parts.scheme in ("http", "https") else parts.scheme + ":"


def said(words: str) -> str | None:
    """The lexicon kind the words name, the longest match first ('delete forever' before 'delete')."""
    best: tuple[int, str] | None = None
    for kind, phrases in LEXICON.items():
        for phrase in phrases:
            hit = re.search(rf"\b{re.escape(phrase)}\b", words) if _ASCII_WORD.match(phrase) else phrase in words
            if hit and (best is None or len(phrase) > best[0]):
                best = (len(phrase), kind)
    return best[1] if best else None


def _values(target: Any) -> dict[str, str]:
    """Submitted name=value pairs, the submitter's own included; sensitive values are never carried."""
    form = target.form
    values = {f["name"]: ("•••" if _sensitive(f) and f["value"] else str(f["value"])) for f in form.fields}
    if form.submitter.get("name"):
        values[form.submitter["name"]] = form.submitter.get("value", "")
    return values


def _sensitive(f: dict[str, Any]) -> bool:
    return bool(f.get("sensitive")) or bool(SENSITIVE_NAMES.search(str(f.get("name", ""))))


def _brief(target: Any) -> dict[str, Any]:
    """The control as the record keeps it: no field values (they are in `fields`, redacted)."""
    out = {"tag": target.tag, "text": target.text or target.aria_label or target.title, "url": target.url}
    if target.href:
        out["href"] = target.href
    if target.form is not None:
        out["form"] = {"method": target.form.method, "action": target.form.action}
    return {k: v for k, v in out.items() if v}


def classify_submission(target: Any, ops: Operations, trusted: frozenset[str]) -> Finding:
    """A control that submits its form (a click on a submit button, Enter in a field)."""
    form = target.form
    values = _values(target)
    brief = _brief(target)
    page, dest = origin_of(target.url), origin_of(form.action)
    trusted = trusted or frozenset({page})
    op = ops.match(form.method, form.action, values)
    if op is not None and op.consequential:
        shown = _visible(target, values)
        return Finding(True, op.kind, f"the form submits to a declared {op.kind} operation", "declared",
                       op.describe({**shown, **values}), shown, brief)  # fmt: skip
    if op is not None and page in trusted and dest in trusted:
        return Finding(False, op.kind, f"a declared look-alike ({op.kind})", "declared", target=brief)
    filled = [f for f in form.fields if f["value"] and f["type"] != "hidden"]
    if filled and dest != page:
        return Finding(True, "data.submit", f"the form sends {len(filled)} filled field(s) to another site ({dest})",
                       summary=f"send form data to {dest}", fields=_visible(target, values), target=brief)  # fmt: skip
    secret = [f for f in filled if _sensitive(f)]
    if secret and (page not in trusted or dest not in trusted):
        return Finding(True, "data.submit", f"the form sends a password, card or code field to {dest}, "
                       "which is not a trusted site", summary=f"send credentials to {dest}",
                       fields=_visible(target, values), target=brief)  # fmt: skip
    kind = said(target.words()) if form.method != "get" else None
    if kind is not None:
        words = form.submitter.get("text") or target.text
        return Finding(True, kind, f"the control says {words!r} and POSTs a form", summary=f"{kind}: {words}",
                       fields=_visible(target, values), target=brief)  # fmt: skip
    return Finding(False, target=brief)


def _visible(target: Any, values: dict[str, str]) -> dict[str, str]:
    """What a person approving should see: the filled values the form submits (sensitive ones masked, hidden
    ones too: a review page carries the transfer in hidden fields), the text around the control (`context`: the
    list row of a Delete button) and the page's heading (`heading`)."""
    shown = {k: v for k, v in values.items() if v}
    for key, value in (("context", target.context), ("heading", target.heading or target.form.heading)):
        if value and key not in shown:
            shown[key] = value
    return shown


def classify_target(target: Any, ops: Operations, trusted: frozenset[str]) -> Finding:
    """Activating `target` (a click, or Enter on it)."""
    if target.frame:
        return Finding(True, "unknown", "the point is inside a frame the gate cannot inspect", "fail-closed",
                       "act inside an embedded frame", target=_brief(target))  # fmt: skip
    if target.submits and target.form is not None:
        return classify_submission(target, ops, trusted)
    if target.href:
        return classify_navigation(target.href, ops, trusted, _brief(target))
    script_button = target.form is None and (target.tag == "button" or target.role in ("button", "menuitem"))
    kind = said(target.words()) if script_button else None
    if kind is not None:
        words = target.text or target.aria_label or target.title
        return Finding(True, kind, f"a script button says {words!r}", summary=f"{kind}: {words}",
                       target=_brief(target))  # fmt: skip
    return Finding(False, target=_brief(target))


def classify_navigation(url: str, ops: Operations, trusted: frozenset[str], brief: dict | None = None) -> Finding:
    """Following a link or a Launch(url)."""
    op = ops.match("get", url, {})
    if op is not None:
        return Finding(True, op.kind, f"the link opens a declared {op.kind} operation", "declared", op.describe({}),
                       target=brief or {"href": url})  # fmt: skip
    dest = origin_of(url)
    carries = urlsplit(url).query or urlsplit(url).fragment
    if trusted and dest not in trusted and dest.startswith("http") and carries:
        return Finding(True, "data.submit", f"the URL carries data ({len(carries)} characters) to another site, "
                       f"{dest}", summary=f"open {url}", target=brief or {"href": url})  # fmt: skip
    return Finding(False, target=brief or {})
