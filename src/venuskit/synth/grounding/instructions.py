"""Instruction wording: ordinals, screen regions, style choice, refusal instructions and the ambiguity filter.

Families write their own sentences (they know what a target is); this module holds the shared pieces. English
and Chinese are written side by side: `instruction` (en) and `instruction_cn` (zh), as ScreenSpot-Pro has them.
A visual instruction may hold REGION, replaced after rendering by where the target landed on the screen.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Iterable, Sequence

from venuskit.synth.grounding.spec import STYLES

REGION = "⟨region⟩"  # a marker no label text contains, so str.replace cannot hit a label
Pair = tuple[str, str]

_ORD_EN = (
    "first",
    "second",
    "third",
    "fourth",
    "fifth",
    "sixth",
    "seventh",
    "eighth",
    "ninth",
    "tenth",
    "eleventh",
    "twelfth",
)
_ORD_ZH = "一二三四五六七八九十"


def ordinal(i: int) -> Pair:
    """0-based index → ("second", "第二")."""
    en = _ORD_EN[i] if i < len(_ORD_EN) else f"{i + 1}th"
    return en, "第" + _zh_number(i + 1)


def _zh_number(n: int) -> str:
    if n <= 10:
        return _ORD_ZH[n - 1]
    if n < 20:
        return "十" + (_ORD_ZH[n - 11] if n > 10 else "")
    tens, ones = divmod(n, 10)
    return _ORD_ZH[tens - 1] + "十" + (_ORD_ZH[ones - 1] if ones else "")


def region_of(cx: float, cy: float, width: int, height: int) -> Pair:
    """Where a point lies on the screen, in thirds: ("in the top-right area", "右上方")."""
    col = min(2, int(3 * cx / width))
    row = min(2, int(3 * cy / height))
    en_row, zh_row = (("top", "上"), ("middle", "中"), ("bottom", "下"))[row]
    en_col, zh_col = (("left", "左"), ("centre", "中"), ("right", "右"))[col]
    if (row, col) == (1, 1):
        return "in the centre of the screen", "屏幕中央"
    if row == 1:
        return f"on the {en_col} side", f"{zh_col}侧"
    if col == 1:
        return f"at the {en_row} of the screen", f"屏幕{zh_row}方"
    return f"in the {en_row}-{en_col} area", f"{zh_col}{zh_row}方"


def fill_region(pair: Pair, region: Pair) -> Pair:
    return pair[0].replace(REGION, region[0]).strip(), pair[1].replace(REGION, region[1]).strip()


def choose_style(available: Iterable[str], weights: dict[str, float], rng: random.Random) -> str | None:
    """One style among those a target offers, by weight; None if it offers none the config allows."""
    options = [s for s in STYLES if s in set(available) and weights.get(s, 0) > 0]
    if not options:
        return None
    return rng.choices(options, weights=[weights[s] for s in options])[0]


def ambiguous(instructions: Sequence[str]) -> set[str]:
    """Instructions that occur more than once on one page (case-insensitive): they cannot name one target."""
    counts = Counter(text.strip().lower() for text in instructions)
    return {text for text, n in counts.items() if n > 1}


def quote_en(text: str) -> str:
    return f"'{text}'"


def quote_zh(text: str) -> str:
    return f"“{text}”"


def refusal_pair(label: Pair, function: Pair, kind: Pair, rng: random.Random) -> Pair:
    """An instruction naming something that is not on the screen (the page checks that its label is absent)."""
    if rng.random() < 0.5:
        return f"click the {quote_en(label[0])} {kind[0]}", f"点击{quote_zh(label[1])}{kind[1]}"
    return function
