"""What a family builder gets: the page's random stream, language, theme and icon set, a panel budget, and
`add()` to register a target. Builders return HTML; every target they create carries `data-gt="<tid>"`."""

from __future__ import annotations

import html
import random
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from venuskit.synth.grounding.instructions import Pair, quote_en, quote_zh
from venuskit.synth.grounding.spec import TargetSpec
from venuskit.synth.grounding.themes import Theme
from venuskit.synth.grounding.vocab import Act, IconSet, colours, vocab


def esc(text: Any) -> str:
    return html.escape(str(text), quote=True)


@dataclass
class Ctx:
    rng: random.Random
    lang: str
    theme: Theme
    icons: IconSet
    acts: tuple[Act, ...]
    mobile: bool = False
    w: float = 400.0  # content budget of the panel being built, CSS px
    h: float = 300.0
    title: str = ""  # the visible title of that panel
    targets: dict[str, TargetSpec] = field(default_factory=dict)
    used: set[str] = field(default_factory=set)  # labels and action keys already on the page
    icons_used: set[str] = field(default_factory=set)
    scripts: list[str] = field(default_factory=list)  # inline scripts (charts) appended after the body
    overlays: list[str] = field(default_factory=list)  # page-level layers (dialogs, banners)
    _n: int = 0

    # -- text --

    def t(self, pair: Sequence[str]) -> str:
        """The page-language member of an (en, zh) pair."""
        return pair[1] if self.lang == "zh" else pair[0]

    @property
    def verb(self) -> Pair:
        return ("tap", "点击") if self.mobile else ("click", "点击")

    def q(self, label: str) -> Pair:
        """A visible label quoted for the English and the Chinese instruction."""
        return quote_en(label), quote_zh(label)

    def click(self, label: str, what: Pair = ("", "")) -> Pair:
        """("click the 'Save' button", "点击“保存”按钮"); `what` names the kind of element."""
        en_what = f" {what[0]}" if what[0] else ""
        en_the = "the " if what[0] else ""
        return f"{self.verb[0]} {en_the}{quote_en(label)}{en_what}", f"{self.verb[1]}{quote_zh(label)}{what[1]}"

    def colour(self, name: str) -> tuple[str, str, str]:
        """(hex, English name, Chinese name) of a vocabulary colour."""
        hex_, zh = colours()[name]
        return hex_, name, zh

    # -- drawing from the banks without repeats on one page --

    def pick(self, bank: str | Sequence[Any], k: int, key: Any = None) -> list[Any]:
        """k items of a bank, preferring ones not yet used on this page."""
        items = list(vocab()[bank]) if isinstance(bank, str) else list(bank)
        ident = key or (lambda item: str(item[0] if isinstance(item, (list, tuple)) else item))
        fresh = [it for it in items if ident(it) not in self.used]
        chosen = self.rng.sample(fresh, min(k, len(fresh)))
        if len(chosen) < k:  # the bank ran out: repeat labels (the ambiguity filter drops clashing instructions)
            chosen += self.rng.sample(items, min(k - len(chosen), len(items)))
        self.used.update(ident(it) for it in chosen)
        return chosen

    def pick_acts(self, k: int) -> list[Act]:
        chosen = self.pick(self.acts, k, key=lambda a: a.key)
        self.used.update(a.en for a in chosen)
        return chosen

    # -- targets --

    def add(self, family: str, ui_type: str, instructions: dict[str, Pair], element_type: str = "") -> str:
        tid = f"t{self._n}"
        self._n += 1
        self.targets[tid] = TargetSpec(
            tid, family, ui_type, {k: v for k, v in instructions.items() if v}, element_type or family
        )
        return tid

    def icon(self, name: str, size: float | None = None) -> str:
        self.icons_used.add(name)
        return self.icons.svg(name, size or round(self.theme.fs * 1.25))

    def px(self, factor: float) -> float:
        """A length that scales with the theme's density (its font size)."""
        return round(self.theme.fs * factor, 1)
