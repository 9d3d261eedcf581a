"""The shapes of values in task text and on screens, written once for venus-nano's features, the judge's features
and the verifier's text rules (`venuskit.verify.text`): quoted spans, e-mail addresses, URLs, IBANs, codes, dates,
times, Chinese characters.

Each consumer picks the shapes it needs; none writes its own copy of one (three copies had drifted: an IBAN of
digits only in one, two groups or three as the shortest in the others; three different sets of quote marks).

    quoted_spans('Star "Budget" and «Loyer»')   # [("Budget", 6), ("Loyer", 19)]: each span's text and offset
    IBAN.findall("to NO93 8601 1117 947")      # ["NO93 8601 1117 947"]
"""

from __future__ import annotations

import re

# Quote marks, as pairs: straight and typographic double quotes, typographic single quotes, guillemets, and the
# corner brackets of Chinese and Japanese text. A straight single quote opens a span only where it is no
# apostrophe (not inside a word: "don't" is no quote, "'Budget'" and "('Budget')" are).
QUOTE_PAIRS = (('"', '"'), ("“", "”"), ("‘", "’"), ("«", "»"), ("「", "」"), ("『", "』"))
QUOTE_MARKS = "".join(dict.fromkeys(c for pair in QUOTE_PAIRS for c in pair)) + "'"
QUOTED = re.compile("|".join(f"{re.escape(a)}([^{re.escape(b)}]*){re.escape(b)}" for a, b in QUOTE_PAIRS)
                    + r"|(?<![\w])'([^']*)'(?![\w])")  # fmt: skip

EMAIL = re.compile(r"[\w.+-]+@[\w-]+(?:\.[\w-]+)+")
URL = re.compile(r"https?://[^\s\"'<>]+")
# Country, check digits, then groups of four letters or digits and a shorter tail: 15 (Norway) to 34 characters,
# with or without the spaces of the printed form.
IBAN = re.compile(r"\b[A-Z]{2}\d{2}(?: ?[A-Z0-9]{4}){2,7}(?: ?[A-Z0-9]{1,3})?\b")
# A reference code: letters, a dash, a number (ER-2024-0031, CC-4300, A-12): what a keypoint requires verbatim.
CODE = re.compile(r"\b[A-Z]{1,5}-\d[\w-]*\b")
# Anything code-like, for ranking fuzzy matches rather than requiring them: reference codes and order numbers
# (#10234), capitals with a number after a dash (INV-AB12), capitals joined by a dash (MX-OPS), capitals with
# digits (TX66130001, the country of an IBAN).
CODE_LIKE = re.compile(CODE.pattern + r"|#\d{3,}|\b[A-Z]{2,}-[A-Z0-9-]*\d[A-Z0-9-]*\b|\b[A-Z]{2,}-[A-Z]{2,}\b"
                       r"|\b[A-Z]{2,}\d{2,}\b")  # fmt: skip
ISO_DATE = re.compile(r"\b\d{4}-\d{2}-\d{2}\b")
# A date as pages write it: ISO, "12 Mar 2024" / "3 March", "3月12日", "2024年3月12日".
DATE = re.compile(ISO_DATE.pattern
                  + r"|\b\d{1,2}\s(?:Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\.?(?:\s\d{4})?"
                  r"|\d{1,2}月\d{1,2}日|\d{4}年\d{1,2}月\d{1,2}日")  # fmt: skip
TIME = re.compile(r"\b\d{1,2}:\d{2}\b")
_MONTHS = ("jan", "feb", "mar", "apr", "may", "jun", "jul", "aug", "sep", "oct", "nov", "dec")
_MON = r"(?P<{}>Jan|Feb|Mar|Apr|May|Jun|Jul|Aug|Sep|Oct|Nov|Dec)[a-z]*\.?"
# The day a text names, as (month, day): ISO, "1 March" (or "13Mar", as OCR glues it), "March 1, 2024", "3月1日",
# "2024 年 3 月 1 日". A bare "03/01" is left out: which of its numbers is the month, the text does not say.
_DAY = re.compile(r"\b\d{4}-(?P<im>\d{2})-(?P<id>\d{2})\b"
                  r"|\b(?P<dd>\d{1,2})\s*" + _MON.format("dm")
                  + r"|" + _MON.format("md") + r"\s+(?P<mdd>\d{1,2})\b(?!:)"
                  r"|(?P<zm>\d{1,2})\s*月\s*(?P<zd>\d{1,2})\s*[日号]", re.I)  # fmt: skip


def days(text: str) -> set[tuple[int, int]]:
    """The days `text` names, as (month, day) pairs; the year is left out (screens often drop it)."""
    out = set()
    for m in _DAY.finditer(text):
        g = m.groupdict()
        if g["im"]:
            month, day = int(g["im"]), int(g["id"])
        elif g["dm"]:
            month, day = _MONTHS.index(g["dm"][:3].lower()) + 1, int(g["dd"])
        elif g["md"]:
            month, day = _MONTHS.index(g["md"][:3].lower()) + 1, int(g["mdd"])
        else:
            month, day = int(g["zm"]), int(g["zd"])
        if 1 <= month <= 12 and 1 <= day <= 31:
            out.add((month, day))
    return out


HAN = "\u3400-\u9fff"  # CJK unified ideographs (extension A and the basic block), as a character-class range
HAN_CHAR = re.compile(f"[{HAN}]")


def quoted_spans(text: str) -> list[tuple[str, int]]:
    """The non-empty quoted spans of `text`, in order: each span's text (without its quotes) and its offset."""
    out = []
    for m in QUOTED.finditer(text):
        i = next(k for k in range(1, len(QUOTE_PAIRS) + 2) if m.group(k) is not None)
        if m.group(i):
            out.append((m.group(i), m.start(i)))
    return out
