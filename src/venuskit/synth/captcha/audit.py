"""Leak audit: nothing the page can see may contain the answer (DESIGN.md invariant 5).

`capture_view(page)` reloads an instance's page with a response listener and collects everything a
script or an agent reading the page could see: the DOM, form values, the widget's initial state,
every URL, response header and body (PNG files: their metadata chunks, where text could hide),
cookies, localStorage and sessionStorage. `find_leaks(view, instance)` searches that for the
encodings of the hidden answer a careless page would use (the answer string, its JSON, target
coordinates, cell lists, slider targets) and for answer-like keys.

Short numbers occur in any page by coincidence, so a hit counts as a leak only if the same string is
absent from a `baseline` view (another instance of the same type, whose answer differs): a string
present in both is page furniture, not the answer.
"""

from __future__ import annotations

import json
import re
import struct
from dataclasses import dataclass, field
from typing import Any

from venuskit.synth.captcha.spec import Instance

ANSWER_KEYS = re.compile(r"""["'\s,{](answer|solution|correct|expected|hidden|secret|target)["']?\s*[:=]""", re.I)


@dataclass
class PageView:
    """Everything a page exposes, as text."""

    url: str
    parts: dict[str, str] = field(default_factory=dict)  # source name -> text

    def text(self) -> str:
        return "\n".join(self.parts.values())


def png_metadata(data: bytes) -> str:
    """The bytes of every PNG chunk except the pixel data (IDAT), as latin-1 text."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        return ""
    out, pos = [], 8
    while pos + 8 <= len(data):
        length, kind = struct.unpack(">I4s", data[pos : pos + 8])
        if kind not in (b"IDAT", b"IHDR", b"IEND"):
            out.append(kind.decode("latin-1") + data[pos + 8 : pos + 8 + length].decode("latin-1"))
        pos += 12 + length
    return "".join(out)


_FETCHED_JS = "() => performance.getEntriesByType('resource').filter(e => e.responseEnd > 0).length"


def _wait_for_responses(page: Any, responses: list[Any], wait_s: float) -> None:
    """Until every resource the page fetched (preloads included) has reached our listener; cheaper than
    Playwright's 'networkidle', which always waits 500 ms."""
    for _ in range(int(wait_s / 0.025)):
        page.wait_for_timeout(25)
        if len(responses) >= 1 + page.evaluate(_FETCHED_JS):  # + the document itself
            return


def capture_view(page: Any, wait_s: float = 5.0) -> PageView:
    """Reload the page with a response listener and collect all it exposes."""
    from playwright.sync_api import Error as PlaywrightError  # the [browser] extra; the scan itself needs none

    responses: list[Any] = []

    def keep(response: Any) -> None:  # Playwright wraps handlers: it needs a Python function here
        responses.append(response)

    page.on("response", keep)
    try:
        page.reload(wait_until="load")
        page.wait_for_function("() => !!window.venusCaptcha", timeout=wait_s * 1000)
        _wait_for_responses(page, responses, wait_s)
    finally:
        page.remove_listener("response", keep)
    view = PageView(page.url)
    for i, r in enumerate(responses):
        try:
            body = r.body()
        except PlaywrightError:  # a redirect or an aborted request has no body; its URL still counts
            body = b""
        ctype = r.headers.get("content-type", "")
        text = png_metadata(body) if body[:4] == b"\x89PNG" else body.decode("utf-8", "replace")
        view.parts[f"response {i} {r.url}"] = f"{r.url}\n{json.dumps(r.headers)}\n{ctype}\n{text}"
    view.parts["dom"] = page.content()
    view.parts["values"] = json.dumps(
        page.evaluate("() => [...document.querySelectorAll('input,textarea,select')].map(e => e.value)")
    )
    view.parts["state"] = json.dumps(page.evaluate("() => window.venusCaptcha.state()"))
    view.parts["storage"] = page.evaluate(
        "() => JSON.stringify({local: {...localStorage}, session: {...sessionStorage}})"
    )
    view.parts["cookies"] = json.dumps(page.context.cookies())
    view.parts["url"] = page.url
    return view


def _num(v: float) -> str:
    return str(int(v)) if float(v).is_integer() else str(round(v, 1))


def _pair_forms(x: float, y: float) -> list[str]:
    a, b = _num(x), _num(y)
    return [f"{a},{b}", f"{a}, {b}", f"{a} {b}"]


def _list_forms(values: list[Any]) -> list[str]:
    return [json.dumps(values), json.dumps(values, separators=(",", ":"))]


def _scalar_forms(v: Any) -> list[str]:
    s = _num(v) if isinstance(v, (int, float)) else str(v)
    return [f'"{s}"', f"'{s}'", f">{s}<", f"={s}", f":{s},", f":{s}}}", f"{s}px", f"({s}"]


def answer_encodings(answer: dict[str, Any]) -> set[str]:
    """Strings a page that leaked this answer would contain."""
    kind, out = answer["check"], {json.dumps(answer), json.dumps(answer, sort_keys=True, separators=(",", ":"))}
    if kind == "text":
        out |= {t for t in [answer["text"], *answer.get("alts", [])] if len(t) >= 3}
    elif kind in ("int", "arrows", "value"):
        key = {"int": "value", "arrows": "value", "value": "target"}[kind]
        if key in answer and abs(answer[key]) >= 10:  # a lone digit is in every page; keys and JSON still count
            out |= set(_scalar_forms(answer[key]))
        if "pos" in answer:
            out |= set(_list_forms(answer["pos"]))
    elif kind == "cells":
        out |= set(_list_forms(answer["required"])) if len(answer["required"]) > 1 else set()
    elif kind == "order":
        for acc in answer["accept"]:
            out |= set(_list_forms(acc))
    elif kind == "all":
        for part in answer["parts"]:
            out |= answer_encodings(part)
    for box in answer.get("boxes") or []:
        if box is not None:
            out |= set(_pair_forms((box[0] + box[2]) / 2, (box[1] + box[3]) / 2)) | set(_list_forms(box))
    for key in ("point",):
        if isinstance(answer.get(key), list):
            out |= set(_pair_forms(*answer[key]))
    for p in (answer.get("oracle") or {}).get("points", []) + [(answer.get("oracle") or {}).get("point")]:
        if p:
            out |= set(_pair_forms(*p))
    return {s for s in out if len(s) >= 3}


def find_leaks(view: PageView, instance: Instance, baseline: PageView | None = None) -> list[str]:
    """Answer encodings found in the view (and not in the baseline), plus answer-like keys. [] = clean."""
    text, base = view.text(), baseline.text() if baseline else ""
    low, base_low = text.casefold(), base.casefold()
    leaks = []
    for enc in sorted(answer_encodings(instance.answer)):
        e = enc.casefold()
        if e in low and e not in base_low:
            where = next(k for k, v in view.parts.items() if e in v.casefold())
            leaks.append(f"{enc!r} in {where}")
    for m in ANSWER_KEYS.finditer(text):
        leaks.append(f"answer-like key {m.group(0)!r}")
    return leaks
