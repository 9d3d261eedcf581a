"""Text banks (assets/grounding_vocab.json) and the installed icon set.

Icons are real SVG files from Debian's `bootstrap-icons` package (/usr/share/bootstrap-icons/svg). Only the
inner shapes of each file are inlined (as `<svg viewBox>` with `fill="currentColor"`), so an icon's colour is
its button's CSS colour and the page needs no network.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any

from venuskit.synth.grounding.spec import SynthError

_ASSETS = Path(__file__).resolve().parents[1] / "assets"
_SVG_BODY = re.compile(r"<svg[^>]*>(.*)</svg>", re.S)
_VIEWBOX = re.compile(r'viewBox="([^"]+)"')


@dataclass(frozen=True)
class Act:
    """One action of the vocabulary: a text label, an icon and what it does, in English and Chinese."""

    key: str
    en: str
    zh: str
    icon: str
    icon_en: str
    icon_zh: str
    fn_en: str
    fn_zh: str


@cache
def vocab() -> dict[str, Any]:
    return json.loads((_ASSETS / "grounding_vocab.json").read_text(encoding="utf-8"))


@cache
def actions() -> tuple[Act, ...]:
    return tuple(Act(*row) for row in vocab()["actions"])


def colours() -> dict[str, tuple[str, str]]:
    """Colour name → (hex, Chinese name). Only these colours are used where an instruction names a colour."""
    return {k: (v[0], v[1]) for k, v in vocab()["colours"].items()}


class IconSet:
    """The SVG icons of one folder, inlined on demand (and cached: a page uses the same icons many times)."""

    def __init__(self, folder: str | Path) -> None:
        self.folder = Path(folder)
        if not self.folder.is_dir() or not any(self.folder.glob("*.svg")):
            raise SynthError(
                f"No SVG icons in {self.folder}. Install Debian's icon set with "
                "`apt-get install bootstrap-icons`, or pass the folder of another SVG icon set."
            )
        self._cache: dict[str, tuple[str, str]] = {}

    def has(self, name: str) -> bool:
        return name in self._cache or (self.folder / f"{name}.svg").is_file()

    def svg(self, name: str, size: float, extra: str = "") -> str:
        """Inline `<svg>` markup of icon `name`, `size` CSS px square, drawn in the current text colour."""
        viewbox, body = self._load(name)
        return (
            f'<svg class="ic" width="{size:g}" height="{size:g}" viewBox="{viewbox}" fill="currentColor" '
            f'aria-hidden="true"{extra}>{body}</svg>'
        )

    def _load(self, name: str) -> tuple[str, str]:
        if name not in self._cache:
            path = self.folder / f"{name}.svg"
            if not path.is_file():
                raise SynthError(f"The icon {name!r} is not in {self.folder}.")
            text = path.read_text(encoding="utf-8")
            body, viewbox = _SVG_BODY.search(text), _VIEWBOX.search(text)
            if body is None:
                raise SynthError(f"{path} is not an SVG file with an <svg> element.")
            self._cache[name] = (viewbox.group(1) if viewbox else "0 0 16 16", body.group(1).strip())
        return self._cache[name]


@cache
def icon_set(folder: str) -> IconSet:
    return IconSet(folder)


def icon_actions(icons: IconSet) -> tuple[Act, ...]:
    """The actions whose icon is installed (a different icon-set version may lack a few)."""
    return tuple(a for a in actions() if icons.has(a.icon))
