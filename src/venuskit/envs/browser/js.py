"""The JavaScript the env runs in pages, as data: the observation's one page read and the <select> helpers."""

from __future__ import annotations

# Every document notes that it began to leave, before the action that caused it returns: a link followed or a
# script's location change fires the page's navigate event at once, a form's submit event fires at once (its navigate
# event comes a task later), while Playwright may hear of the new document hundreds of ms later on a loaded machine.
# The event is kept, so that a page handler that cancels it (a script-driven form) is seen when the note is read.
LEAVING_INIT_JS = """(() => {
  if (window.top !== window || !window.navigation) return;
  navigation.addEventListener("navigate", (e) => {
    if (!e.destination.sameDocument && !e.downloadRequest) window.__venusLeaving = e;
  });
  window.addEventListener("submit", (e) => {
    const by = e.submitter || {}, target = by.formTarget || e.target.target;
    const method = (by.formMethod || e.target.method || "").toLowerCase();
    if ((!target || target === "_self") && method !== "dialog") window.__venusLeaving = e;
  }, true);
})();"""
# Read and clear the note (a cancelled navigation must not make every later step wait).
TAKE_LEAVING_JS = """() => {
  const e = window.__venusLeaving; window.__venusLeaving = null;
  return !!e && !e.defaultPrevented;
}"""
SELECT_AT_JS = "([x, y]) => document.elementFromPoint(x, y)?.closest('select') ?? null"
OPTION_JS = "(o, i) => ({index: i, text: o.text.trim(), value: o.value, disabled: o.disabled})"
OPTIONS_JS = f"s => Array.from(s.options, {OPTION_JS})"
# Whether typing now would land in a text field: true / false, or null when focus is inside a frame or a
# shadow root this document cannot see into. Step checks read it as `info["focus_editable"]`.
FOCUS_JS = """(() => {
  const a = document.activeElement;
  if (!a || a === document.body || a === document.documentElement) return false;
  if (a.tagName === 'IFRAME' || a.tagName === 'FRAME' || a.shadowRoot) return null;
  if (a.isContentEditable) return true;
  if (a.disabled || a.readOnly) return false;
  if (a.tagName === 'TEXTAREA') return true;
  const kinds = /^(button|submit|reset|checkbox|radio|file|image|range|color|hidden)$/i;
  return a.tagName === 'INPUT' && !kinds.test(a.type);
})()"""


# The observation's one page read (BrowserEnv._read_and_capture). The <select> check runs only in the document observed
# before the click (docId, its performance.timeOrigin; null: unknown), so a click that navigated does not
# report a <select> of the next page. PROBE is replaced by the env's page_probe call, or null.
READ_PAGE_JS = """async ([point, docId, fontsMs]) => {
  const fonts = document.fonts;
  const waited = !!fonts && fonts.status !== 'loaded';
  if (waited)
    await Promise.race([fonts.ready, new Promise(done => setTimeout(done, fontsMs))]);
  const doc = performance.timeOrigin;
  let options = null;
  if (point && (docId === null || doc === docId)) {
    const select = document.elementFromPoint(point[0], point[1])?.closest('select');
    if (select) options = Array.from(select.options, OPTION);
  }
  const vv = window.visualViewport;
  const view = vv ? [vv.pageLeft, vv.pageTop, vv.scale] : [window.scrollX, window.scrollY, 1];
  return [document.title, doc, options, PROBE, view, FOCUS, waited];
}""".replace("OPTION", OPTION_JS).replace("FOCUS", FOCUS_JS)


PROBE_CALL_JS = "(() => { try { return [true, (PROBE)()]; } catch (e) { return [false, String(e)]; } })()"


def page_read_js(probe: str | None) -> str:
    """READ_PAGE_JS with the probe function's call; a probe that throws yields [false, its message]."""
    call = "null" if probe is None else PROBE_CALL_JS.replace("PROBE", probe)
    return READ_PAGE_JS.replace("PROBE", call)
