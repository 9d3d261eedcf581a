"""What the judge computes from a request before its network sees it: for each keypoint, how the keypoint's
values and words meet the evidence (typed text, clicked labels, page titles and URLs, the text OCR reads on the
screenshots, the answer), a few facts of the trajectory; for a proposed step, what is under the click and how it
relates to the goal. Plus hashed words (the keypoint's, the clicked labels') for the network's embeddings.

Everything here is read from the request itself (`wire.Request`); the screenshots are read by venus-nano's
reader (`venuskit.models.nano.reader`), the same one the verifier's OCR rules use.
"""

from __future__ import annotations

import math
import re
import unicodedata
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field

import numpy as np

from venuskit.models.judge.wire import Request
from venuskit.models.lexicon import CODE, EMAIL, HAN, IBAN, QUOTE_MARKS, QUOTED, quoted_spans

BUCKETS = 4096  # hashed vocabulary of each bag
MAX_BAG = 48
_VALUE = re.compile("|".join(p.pattern for p in (EMAIL, IBAN, CODE)) + r"|\d[\d,.:/-]*\d|\d")
_NAME = re.compile(r"\b[A-Z][\w&'.-]*(?:\s+[A-Z][\w&'.-]*)*")
_HAN = re.compile(f"[{HAN}]{{2,}}")
_WORD = re.compile(r"[a-z][a-z'-]{2,}")
_STOP_TEXT = """the and for with from that this your you into onto them they their its has have was are is not but all
    any one two new find then also what which when where who how"""
_STOP = frozenset(_STOP_TEXT.split())
_SUBMIT = re.compile(r"^\W*(send|submit|save|post|publish|confirm|place order|pay|transfer|add|create|reply|comment|"
                     r"log ?in|sign ?in|ok|apply|update|book|order|buy|request|done|发送|提交|保存|确认|发布|付款|"
                     r"支付|登录|添加|创建|下单|评论|完成)", re.I)  # fmt: skip
_UNDO = re.compile(r"^\W*(delete|trash|remove|unstar|undo|leave|discard|move to inbox|restore|"
                   r"删除|撤销|移除|退出|恢复)", re.I)  # fmt: skip
_DONE = re.compile(r"\b(sent|saved|added|updated|created|deleted|moved|archived|published|placed|submitted|"
                   r"confirmed|joined|accepted|declined|paid|success)\b|已", re.I)  # fmt: skip
_ERROR = re.compile(r"\b(error|invalid|failed|required|missing|denied)\b|错误|失败|必填", re.I)
_REMOVAL = re.compile(r"\b(delete|remove|trash|no longer|not|unstar|leave|cancel|decline)\b|删除|移除|取消", re.I)
_ANSWER = re.compile(r"^\s*(answer\b|tell me|let me know|report)|\?|？", re.I)
_END = ("Finished", "Answer", "CallUser")


_UNMATCHED = re.compile(f"[\\s{re.escape(QUOTE_MARKS)},]")  # what matching ignores: spaces, quotes, commas


def norm(text: str) -> str:
    """Case-folded, width-folded text without spaces or quotes: how values are matched against OCR."""
    text = unicodedata.normalize("NFKC", text).casefold()
    return _UNMATCHED.sub("", text)


def has(haystack: str, needle: str) -> bool:
    n = norm(needle)
    return bool(n) and n in norm(haystack)


def values(text: str) -> list[str]:
    """The values a keypoint names: quoted spans, codes, numbers, e-mails, capitalised names (not its first word),
    Chinese runs. Deduplicated, in order."""
    quoted = [span for span, _ in quoted_spans(text)]
    rest = QUOTED.sub(" ", text)
    first = re.match(r"\s*\S+", rest)
    names = [m.group(0) for m in _NAME.finditer(rest) if not first or m.start() >= first.end()]
    found = quoted + _VALUE.findall(rest) + names + _HAN.findall(rest)
    return list(dict.fromkeys(v.strip(" .,:;") for v in found if len(norm(v)) >= 2 or v.isdigit()))


def words(text: str) -> list[str]:
    return [w for w in _WORD.findall(unicodedata.normalize("NFKC", text).casefold()) if w not in _STOP]


def bag(tokens: list[str], salt: str) -> list[int]:
    """Hashed token ids (1..BUCKETS-1; 0 pads)."""
    return [1 + zlib.crc32(f"{salt}:{t}".encode()) % (BUCKETS - 1) for t in tokens][:MAX_BAG]


def _frac(found: list[bool]) -> float:
    return sum(found) / len(found) if found else 0.0


@dataclass
class Evidence:
    """The request's evidence, read once for all its keypoints."""

    req: Request
    ocr: list[str] = field(default_factory=list)  # text of each shown screenshot, in order
    typed: list[str] = field(default_factory=list)
    targets: list[str] = field(default_factory=list)
    titles: list[str] = field(default_factory=list)
    urls: list[str] = field(default_factory=list)
    answer: str = ""
    rows: list[str] = field(default_factory=list)  # the text of each screen row (lines at one height), all shots


Lines = list[tuple[tuple[int, int, int, int], str]]


def screen_rows(lines: Lines) -> list[str]:
    """Lines grouped into rows by vertical overlap (a table row's cells), each row's texts joined left to right."""
    rows: list[tuple[int, int, list[tuple[int, str]]]] = []
    for (x1, y1, _, y2), text in sorted(lines, key=lambda b: b[0][1]):
        mid = (y1 + y2) / 2
        for i, (top, bottom, cells) in enumerate(rows):
            if top <= mid <= bottom:
                cells.append((x1, text))
                rows[i] = (min(top, y1), max(bottom, y2), cells)
                break
        else:
            rows.append((y1, y2, [(x1, text)]))
    return [" ".join(t for _, t in sorted(cells)) for _, _, cells in rows]


def read_evidence(req: Request, read: Callable[[bytes], Lines]) -> Evidence:
    steps = req.history
    answer = next((s.answer for s in reversed(steps) if s.answer), "")
    shots = [read(png) for _, png in req.shown]
    return Evidence(req, ["\n".join(t for _, t in lines) for lines in shots], [s.typed for s in steps if s.typed],
                    [s.target for s in steps if s.target], [s.title for s in steps if s.title],
                    [s.url for s in steps if s.url], answer,
                    rows=[row for lines in shots for row in screen_rows(lines)])  # fmt: skip


N_KEYPOINT = 45


def keypoint_features(kp: str, ev: Evidence) -> np.ndarray:
    """The numeric features of one keypoint against the request's evidence (N_KEYPOINT floats)."""
    req, steps = ev.req, ev.req.history
    vals = values(kp)
    kw = words(kp)
    n = max(1, len(steps))
    last_ocr = ev.ocr[-1] if ev.ocr else ""
    all_ocr = "\n".join(ev.ocr)
    first_ocr = ev.ocr[0] if ev.ocr else ""
    kinds = [s.kind for s in steps]
    end = kinds[-1] if kinds else ""
    submits = [i for i, s in enumerate(steps) if s.kind == "Click" and _SUBMIT.match(s.target)]
    undo_after = bool(submits) and any(_UNDO.match(s.target) for s in steps[submits[-1] + 1 :])
    changed_after_submit = any(i + 1 < len(steps) and (steps[i + 1].title, steps[i + 1].url) != (steps[i].title,
                               steps[i].url) for i in submits)  # fmt: skip
    verb = (kw[:1] or [""])[0]
    verb_clicks = [i for i, s in enumerate(steps) if s.target and words(s.target)[:1] == [verb]]
    verb_on_item = any(any(has(steps[i].title, v) for v in vals) for i in verb_clicks)
    ans_vals = values(ev.answer) if ev.answer else []
    typed_text = "\n".join(ev.typed)
    undo_after_verb = bool(verb_clicks) and any(_UNDO.match(s.target) for s in steps[verb_clicks[-1] + 1 :])
    # the answer read off the row that names the keypoint's thing (the right row, not a neighbour's value)
    same_line = any(any(has(row, a) for a in ans_vals) and any(has(row, v) for v in vals) for row in ev.rows)
    f = [
        1.0,
        min(len(vals), 6) / 6,
        _frac([any(has(t, v) for t in ev.typed) for v in vals]),
        _frac([any(has(t, v) for t in ev.titles) for v in vals]),
        _frac([any(has(u, v) for u in ev.urls) for v in vals]),
        _frac([has(all_ocr, v) for v in vals]),
        _frac([has(last_ocr, v) for v in vals]),
        _frac([has(last_ocr, v) and not has(typed_text, v) for v in vals]),
        _frac([has(ev.answer, v) for v in vals]),
        float(bool(ev.answer)),
        float(bool(_ANSWER.search(kp))),
        float("?" in req.goal or "？" in req.goal),
        math.log1p(len(steps)) / 3,
        *(float(end == k) for k in _END),
        float(end not in _END),
        kinds.count("Click") / n,
        kinds.count("Type") / n,
        kinds.count("Open") / n,
        float(bool(submits)),
        float(changed_after_submit),
        (submits[-1] + 1) / n if submits else 0.0,
        float(undo_after),
        float(any(_UNDO.match(t) for t in ev.targets)),
        float(len(kinds) >= 2 and kinds[-2] == "Open"),
        _frac([has(last_ocr, w) for w in kw]),
        _frac([any(has(t, w) for t in ev.targets) for w in kw]),
        _frac([any(has(t, w) for t in ev.titles) for w in kw]),
        float(bool(verb_clicks)),
        float(verb_on_item),
        float(bool(_DONE.search(last_ocr)) and not _DONE.search(first_ocr)),
        float(bool(_ERROR.search(last_ocr))),
        _frac([has(first_ocr, v) for v in vals]),
        float(bool(steps) and any(has(steps[-1].title, v) for v in vals)),
        len(set(ev.titles)) / n,
        float(req.kind == "final"),
        min(len(req.keypoints), 6) / 6,
        float(bool(_REMOVAL.search(kp))),
        float(bool(re.search(r"\b(still|keep|remain)", kp, re.I))),
        _frac([any(has(t, v) or has(v, t) for t in ev.typed) and not any(norm(t) == norm(v) for t in ev.typed)
               for v in vals]),  # fmt: skip
        _frac([has(all_ocr, v) and not has(typed_text, v) for v in ans_vals]),
        _frac([any(has(t, v) for t in ev.titles + ev.urls) for v in ans_vals]),
        float(undo_after_verb),
        float(same_line),
    ]
    assert len(f) == N_KEYPOINT, len(f)
    return np.asarray(f, dtype=np.float32)


def keypoint_bags(kp: str, ev: Evidence) -> tuple[list[int], list[int]]:
    """Hashed words of the keypoint (with its Chinese characters), and of the labels the agent clicked (the
    last click's marked apart)."""
    kp_tokens = words(kp) + [c for c in kp if "\u3400" <= c <= "\u9fff"]
    targets = [f"{'last:' if i == len(ev.targets) - 1 else ''}{w}" for i, t in enumerate(ev.targets)
               for w in words(t) or [norm(t)[:12]]]  # fmt: skip
    return bag(kp_tokens, "kp"), bag(targets, "tg")


# ---- a proposed step ------------------------------------------------------------------------------

N_STEP = 20
_RED = (200, 90, 90)  # the overlay's red: pixels above/below these bounds are the drawn mark, not the page


def blankness(png_gray: np.ndarray, rgb: np.ndarray, point: tuple[float, float], radius: float = 0.04) -> float:
    """Share of the box around the point that is page background (the colour of the box's own border), red
    overlay pixels left out: near 1 on empty background, low on text, icons and controls."""
    h, w = png_gray.shape
    x, y = int(point[0] * w), int(point[1] * h)
    r = max(4, int(radius * max(w, h)))
    box = rgb[max(0, y - r) : y + r, max(0, x - r) : x + r].astype(np.int16)
    if box.size == 0:
        return 0.0
    red = (box[..., 0] > _RED[0]) & (box[..., 1] < _RED[1]) & (box[..., 2] < _RED[2])
    edge = np.concatenate([box[0], box[-1], box[:, 0], box[:, -1]])
    bg = np.median(edge, axis=0)
    same = np.all(np.abs(box - bg) <= 6, axis=-1) | red
    return float(same.mean())


def step_features(req: Request, target: str, blank: float, screen_text: str) -> np.ndarray:
    p = req.proposed
    kind = p.kind if p else ""
    goal_vals = values(req.goal)
    gw = words(req.goal)
    hist = req.history
    f = [
        1.0,
        *(float(kind == k) for k in ("Click", "Type", "Finished", "Scroll")),
        float(kind not in ("Click", "Type", "Finished", "Scroll")),
        math.log1p(req.step) / 3,
        float(req.step == 0),
        blank,
        float(bool(target)),
        _frac([has(target, v) for v in goal_vals]) if target else 0.0,
        float(any(norm(target) == norm(v) for v in goal_vals)) if target else 0.0,
        _frac([has(target, w) for w in gw]) if target else 0.0,
        float(bool(target) and any(has(screen_text, v) and not has(target, v) for v in goal_vals)),
        _frac([has(screen_text, v) for v in goal_vals]),
        float(bool(_SUBMIT.match(target))),
        float(bool(_UNDO.match(target))),
        float(bool(hist) and hist[-1].kind == "Click"),
        min(len(hist), 8) / 8,
        float("?" in req.goal or "？" in req.goal),
    ]
    assert len(f) == N_STEP, len(f)
    return np.asarray(f, dtype=np.float32)


def step_bag(req: Request, target: str) -> list[int]:
    p = req.proposed
    return bag([f"kind:{p.kind if p else ''}", *words(target)], "st")
