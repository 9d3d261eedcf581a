"""The page inspector the safety gate reads: what is under a point, what Enter would submit, where a value shows.

Read by the harness only (the safety gate and the secrets mask), never by a policy: the agent stays vision-only.
Every call runs in an isolated JavaScript world (CDP `Page.createIsolatedWorld`): the DOM is the page's, but
the prototypes and globals are not, so a hostile page can neither lie to the gate by patching
`Element.prototype.closest` nor read the values the mask looks for by patching `String.prototype.includes`.
A page can still lie through the DOM itself (a button labelled "Next" in a form that posts a transfer); the
gate reads the form's action for that reason, and a click into a frame is reported as such (not inspected).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from venuskit.actions import coords
from venuskit.envs.base import EnvError
from venuskit.envs.browser.config import BrowserConfig

Cdp = Callable[[str, dict[str, Any]], Any]  # one command on the page's CDP session

WORLD_NAME = "venuskit-inspect"
MAX_FIELDS = 40  # form fields described per form; a form with more is described by its first 40


@dataclass(frozen=True)
class FormInfo:
    """A form as the browser would submit it: absolute action URL, method, submitter and named fields.
    Password values are never read: a filled password field's value is reported as "•••"."""

    action: str
    method: str  # get | post | dialog
    fields: tuple[dict[str, Any], ...] = ()  # {name, type, label, value}
    submitter: dict[str, str] = field(default_factory=dict)  # {name, value, text} of the button that submits
    heading: str = ""  # the form's legend/heading, else the page's first heading


@dataclass(frozen=True)
class Target:
    """The element an action would land on, described for rules: tag, role, visible text and labels, the link
    it follows or the form it submits."""

    tag: str
    url: str  # the page's URL
    type: str = ""
    role: str = ""
    text: str = ""
    aria_label: str = ""
    title: str = ""
    name: str = ""
    value: str = ""  # buttons' value only; text fields' values are in form.fields
    href: str = ""
    labels: tuple[str, ...] = ()
    sensitive: bool = False  # a password / payment / one-time-code field
    submits: bool = False  # activating it submits `form`
    frame: bool = False  # the point is inside a frame this document cannot inspect
    form: FormInfo | None = None
    heading: str = ""  # the page's first heading
    context: str = ""  # the text of the nearest block around the control (a list row, a card)

    @classmethod
    def from_json(cls, raw: dict[str, Any]) -> Target:
        form = raw.get("form")
        known = {k: v for k, v in raw.items() if k in cls.__dataclass_fields__ and k not in ("form", "labels")}
        return cls(**known, labels=tuple(raw.get("labels") or ()), form=FormInfo(
            action=form["action"], method=form["method"], fields=tuple(form.get("fields") or ()),
            submitter=form.get("submitter") or {}, heading=form.get("heading", ""),
        ) if form else None)  # fmt: skip

    def words(self) -> str:
        """Everything a person reads on or next to the control, lower-cased, for keyword rules."""
        parts = [self.text, self.aria_label, self.title, self.value, *self.labels]
        if self.form is not None:
            parts.append(self.form.submitter.get("text", ""))
        return " ".join(p for p in parts if p).casefold()


_HELPERS = r"""
const attr = (e, n) => (e && e.getAttribute(n)) || '';
const CONTROL = 'button, a[href], input, select, textarea, label, summary, [role=button], [role=link], ' +
                '[role=menuitem], [role=tab], [onclick]';
const kindOf = e => String((e.tagName === 'INPUT' || e.tagName === 'BUTTON') ? e.type : attr(e, 'type')).toLowerCase();
const isSubmit = e => !!e && ((e.tagName === 'BUTTON' && kindOf(e) === 'submit') ||
                               (e.tagName === 'INPUT' && ['submit', 'image'].includes(kindOf(e))));
const isButtonInput = e => e.tagName === 'INPUT' && ['submit', 'image', 'button', 'reset'].includes(kindOf(e));
// What a person reads on an element. A field's value is not text: it may be what was typed (a password).
const text = e => {
  if (!e) return '';
  const s = e.tagName === 'INPUT' ? (isButtonInput(e) ? e.value : '') :
            (e.tagName === 'TEXTAREA' || e.tagName === 'SELECT') ? '' : (e.innerText || e.textContent || '');
  return String(s).replace(/\s+/g, ' ').trim().slice(0, 200);
};
const sensitive = e => {
  const ac = attr(e, 'autocomplete').toLowerCase();
  return kindOf(e) === 'password' || /cc-|current-password|new-password|one-time-code/.test(ac);
};
const firstHeading = root => text((root || document).querySelector('h1, h2, h3, legend'));
// The text around a control: the nearest enclosing block that says more than the control itself (a list row,
// a card), so "Delete" on a file row reads "Delete: Copy of contract ...".
const contextOf = ctl => {
  const own = text(ctl).length;
  let e = ctl.parentElement;
  for (let i = 0; e && e !== document.body && i < 6; i++, e = e.parentElement) {
    const s = (e.innerText || '').replace(/\s+/g, ' ').trim();
    if (s.length > own + 2) return s.length <= 300 ? s : '';
  }
  return '';
};
const fieldValue = e => {
  if (kindOf(e) === 'password') return e.value ? '•••' : '';
  if (e.type === 'checkbox' || e.type === 'radio') return e.checked ? e.value : null;
  if (e.tagName === 'SELECT') return e.selectedOptions[0] ? e.selectedOptions[0].text.trim() : '';
  return String(e.value).slice(0, 200);
};
const formInfo = (form, submitter) => {
  const fields = [];
  for (const e of Array.from(form.elements)) {
    if (!e.name || e.disabled || isSubmit(e) || ['button', 'reset'].includes(kindOf(e))) continue;
    const value = fieldValue(e);
    if (value === null) continue;
    const label = e.labels && e.labels[0] ? text(e.labels[0]) : (e.placeholder || attr(e, 'aria-label'));
    fields.push({name: e.name, type: kindOf(e) || e.tagName.toLowerCase(), label, value, sensitive: sensitive(e)});
    if (fields.length >= MAXF) break;
  }
  const sub = submitter ? {name: submitter.name || '', value: submitter.value || '', text: text(submitter)} : {};
  const action = (submitter && submitter.getAttribute('formaction') !== null) ? submitter.formAction : form.action;
  const method = ((submitter && submitter.getAttribute('formmethod')) || form.method || 'get').toLowerCase();
  return {action, method, fields, submitter: sub, heading: firstHeading(form) || firstHeading(document)};
};
const describe = (ctl, submitter) => {
  const form = ctl.form || ctl.closest('form');
  const submits = !!form && (submitter === ctl || isSubmit(ctl));
  return {
    tag: ctl.tagName.toLowerCase(), url: location.href, type: kindOf(ctl), role: attr(ctl, 'role'),
    text: text(ctl), aria_label: attr(ctl, 'aria-label'), title: attr(ctl, 'title'), name: ctl.name || '',
    value: (isSubmit(ctl) || ctl.tagName === 'BUTTON') ? String(ctl.value || '') : '',
    href: ctl.tagName === 'A' ? ctl.href : '', labels: ctl.labels ? Array.from(ctl.labels, text) : [],
    sensitive: sensitive(ctl), submits, form: form ? formInfo(form, submits ? ctl : null) : null,
    heading: firstHeading(document), context: contextOf(ctl),
  };
};
""".replace("MAXF", str(MAX_FIELDS))

_AT_POINT_JS = (
    "(([x, y]) => {"
    + _HELPERS
    + r"""
  const el = document.elementFromPoint(x, y);
  if (!el) return null;
  if (el.tagName === 'IFRAME' || el.tagName === 'FRAME' || el.tagName === 'OBJECT' || el.tagName === 'EMBED')
    return {tag: el.tagName.toLowerCase(), url: location.href, frame: true, text: attr(el, 'title')};
  let ctl = el.closest(CONTROL) || el;
  if (ctl.tagName === 'LABEL' && ctl.control) ctl = ctl.control;
  return describe(ctl, null);
})"""
)

# A key on the focused control. Enter: a text field submits its form through the form's default button (implicit
# submission, HTML 4.10.21.2), a button or link is activated, a textarea takes a newline. Space: a button,
# checkbox, radio or link is activated; where text is typed it is a space. "select": the focused <select> that an
# option is chosen in; an inline change handler on it (onchange="form.submit()") submits its form.
_FOCUS_JS = (
    "(([key]) => {"
    + _HELPERS
    + r"""
  const a = document.activeElement;
  if (!a || a === document.body || a === document.documentElement) return null;
  if (a.tagName === 'IFRAME' || a.tagName === 'FRAME') return {tag: a.tagName.toLowerCase(), url: location.href,
                                                                frame: true};
  const form = a.form || a.closest('form');
  const typing = a.isContentEditable || a.tagName === 'TEXTAREA' || (a.tagName === 'INPUT' &&
    !['submit', 'image', 'button', 'reset', 'checkbox', 'radio', 'file', 'color', 'range'].includes(kindOf(a)));
  if (key === 'select') {
    if (a.tagName !== 'SELECT') return null;
    const info = describe(a, null);
    info.submits = !!form && a.hasAttribute('onchange');
    return info;
  }
  if (key === 'space') return (typing || a.tagName === 'SELECT') ? null : describe(a, isSubmit(a) ? a : null);
  if (a.tagName === 'INPUT' && form && !isSubmit(a)) {
    const def = Array.from(form.elements).find(isSubmit) || null;
    const info = describe(a, null);
    info.submits = true;
    info.form = formInfo(form, def);
    return info;
  }
  return describe(a, isSubmit(a) ? a : null);
})"""
)

# Alt+key: the element whose access key it is (a label's access key goes to its control).
_ACCESSKEY_JS = (
    "(([key]) => {"
    + _HELPERS
    + r"""
  const el = Array.from(document.querySelectorAll('[accesskey]')).find(
    e => attr(e, 'accesskey').toLowerCase().split(/\s+/).includes(key));
  if (!el) return null;
  const ctl = (el.tagName === 'LABEL' && el.control) ? el.control : el;
  return describe(ctl, isSubmit(ctl) ? ctl : null);
})"""
)

# Where each needle shows on screen: fields whose value holds it, and text runs that contain it.
_BOXES_JS = r"""(([needles]) => {
  const boxes = [];
  const push = r => { if (r.width > 0 && r.height > 0) boxes.push([r.left, r.top, r.width, r.height]); };
  const hit = s => needles.some(n => s.indexOf(n) !== -1);
  for (const e of document.querySelectorAll('input, textarea')) if (e.value && hit(e.value))
    push(e.getBoundingClientRect());
  const walker = document.createTreeWalker(document.body || document.documentElement, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    if (!hit(n.data)) continue;
    const range = document.createRange();
    range.selectNodeContents(n);
    for (const r of range.getClientRects()) push(r);
  }
  for (const e of document.querySelectorAll('[title], [alt], [placeholder]')) {
    const s = [e.title, e.alt, e.placeholder].join(' ');
    if (hit(s)) push(e.getBoundingClientRect());
  }
  return boxes;
})"""


def _evaluate(cdp: Cdp, fn_js: str, args: list[Any]) -> Any:
    """`fn_js(args)` in a fresh isolated world of the main frame; raises EnvError if the page cannot answer."""
    frame_id = cdp("Page.getFrameTree", {})["frameTree"]["frame"]["id"]
    world = cdp("Page.createIsolatedWorld", {"frameId": frame_id, "worldName": WORLD_NAME})
    params = {"expression": f"({fn_js})({json.dumps(args)})", "contextId": world["executionContextId"],
              "returnByValue": True}  # fmt: skip
    reply = cdp("Runtime.evaluate", params)
    if "exceptionDetails" in reply:
        raise EnvError(f"The page inspector failed: {reply['exceptionDetails'].get('text', 'an exception')}.")
    return reply["result"].get("value")


def describe_point(cdp: Cdp, config: BrowserConfig, point: tuple[float, float]) -> Target | None:
    """The control under a normalised point of the last screenshot (None: nothing there)."""
    width, height = config.css_viewport()
    x, y = coords.point_to_pixels(point, width, height)
    raw = _evaluate(cdp, _AT_POINT_JS, [x, y])
    return None if raw is None else Target.from_json(raw)


def describe_focus(cdp: Cdp, key: str = "enter") -> Target | None:
    """What `key` ("enter", "space" or "select") would act on: the focused control, with the form it submits
    (None: nothing focused, or a key that only types there)."""
    raw = _evaluate(cdp, _FOCUS_JS, [key])
    return None if raw is None else Target.from_json(raw)


def describe_accesskey(cdp: Cdp, key: str) -> Target | None:
    """The control whose access key is `key` (None: no such control)."""
    raw = _evaluate(cdp, _ACCESSKEY_JS, [key.lower()])
    return None if raw is None else Target.from_json(raw)


def value_boxes(cdp: Cdp, config: BrowserConfig, needles: list[str], size: tuple[int, int]) -> list[coords.Box]:
    """Screenshot-pixel boxes (for an image of `size`) of every field and text run that shows a needle."""
    needles = [n for n in needles if n]
    if not needles:
        return []
    found = _evaluate(cdp, _BOXES_JS, [needles]) or []
    dsf = config.scale()
    return [coords.css_to_pixels(x, y, w, h, dsf, size, pad=2) for x, y, w, h in found]
