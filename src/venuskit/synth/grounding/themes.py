"""Looks: themes (colours, corner radius), densities, fonts, and the resolutions each platform is drawn at.

Every colour an instruction may name comes from `vocab.colours()`, so "the red 'Delete' button" is red.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from venuskit.synth.grounding.spec import Resolution
from venuskit.synth.grounding.vocab import colours

_ASSETS = Path(__file__).resolve().parents[1] / "assets"

FONTS_EN = ("DejaVu Sans", "Liberation Sans", "Liberation Serif", "DejaVu Serif")
FONTS_ZH = ("Noto Sans CJK SC", "Noto Serif CJK SC")
MONO = ("DejaVu Sans Mono", "Liberation Mono")
DENSITIES = {"compact": (12, 4), "normal": (14, 7), "comfortable": (16, 10)}  # name → (font px, padding px)

# (CSS width, CSS height, device scale factor): common screens per platform, up to 3840x2160 screenshots.
RESOLUTIONS: dict[str, tuple[tuple[int, int, float], ...]] = {
    "web": (
        (1280, 800, 1),
        (1366, 768, 1),
        (1440, 900, 1),
        (1536, 864, 1.25),
        (1920, 1080, 1),
        (1280, 720, 1.5),
        (1920, 1080, 2),
        (2560, 1440, 1),
    ),
    "windows": (
        (1366, 768, 1),
        (1920, 1080, 1),
        (1536, 864, 1.25),
        (1280, 720, 1.5),
        (2560, 1440, 1),
        (1920, 1080, 2),
        (3840, 2160, 1),
    ),
    "linux": ((1280, 800, 1), (1920, 1080, 1), (2560, 1440, 1), (1920, 1080, 2), (1280, 720, 3)),
    "macos": ((1440, 900, 2), (1512, 982, 2), (1280, 800, 2), (1728, 1117, 2), (1920, 1080, 2)),
    "android": ((360, 800, 3), (412, 915, 2.625), (393, 873, 2.75), (412, 915, 2), (384, 854, 2)),
    "ios": ((390, 844, 3), (430, 932, 3), (375, 667, 2), (393, 852, 3)),
}
MOBILE_PLATFORMS = frozenset({"android", "ios"})


@dataclass(frozen=True)
class Theme:
    name: str
    dark: bool
    bg: str
    fg: str
    muted: str
    panel: str
    border: str
    accent: str  # a name from vocab colours
    radius: int
    font: str
    mono: str
    fs: int
    pad: int

    @property
    def accent_hex(self) -> str:
        return colours()[self.accent][0]

    def css_vars(self) -> str:
        c = colours()
        return (
            f":root{{--bg:{self.bg};--fg:{self.fg};--muted:{self.muted};--panel:{self.panel};--border:{self.border};"
            f"--accent:{c[self.accent][0]};--danger:{c['red'][0]};--ok:{c['green'][0]};--radius:{self.radius}px;"
            f"--font:'{self.font}','Noto Sans CJK SC',sans-serif;--mono:'{self.mono}',monospace;--fs:{self.fs}px;"
            f"--pad:{self.pad}px;--hover:{'#ffffff14' if self.dark else '#0000000d'}}}"
        )


_LIGHT = (
    ("#f5f6f8", "#1f2328", "#6b7280", "#ffffff", "#d0d7de"),
    ("#ffffff", "#111827", "#6b7280", "#f9fafb", "#e5e7eb"),
    ("#eef2f7", "#0f172a", "#64748b", "#ffffff", "#cbd5e1"),
    ("#fbf7f0", "#292524", "#78716c", "#fffdf8", "#e7e0d6"),
)
_DARK = (
    ("#0d1117", "#e6edf3", "#8b949e", "#161b22", "#30363d"),
    ("#1e1e1e", "#d4d4d4", "#9ca3af", "#252526", "#3c3c3c"),
    ("#0f172a", "#e2e8f0", "#94a3b8", "#1e293b", "#334155"),
)
ACCENTS = ("blue", "green", "purple", "teal", "orange", "pink")


def pick_theme(rng: random.Random, language: str) -> Theme:
    dark = rng.random() < 0.35
    bg, fg, muted, panel, border = rng.choice(_DARK if dark else _LIGHT)
    density = rng.choice(tuple(DENSITIES))
    fs, pad = DENSITIES[density]
    font = rng.choice(FONTS_ZH) if language == "zh" else rng.choice(FONTS_EN)
    name = f"{'dark' if dark else 'light'}-{density}"
    return Theme(
        name=name,
        dark=dark,
        bg=bg,
        fg=fg,
        muted=muted,
        panel=panel,
        border=border,
        accent=rng.choice(ACCENTS),
        radius=rng.choice((0, 3, 6, 10)),
        font=font,
        mono=rng.choice(MONO),
        fs=fs,
        pad=pad,
    )


def pick_resolution(rng: random.Random, platform: str, fixed: tuple[Resolution, ...] | None) -> Resolution:
    if fixed:
        return rng.choice(fixed)
    w, h, dsf = rng.choice(RESOLUTIONS[platform])
    return Resolution(w, h, float(dsf))


@cache
def base_css() -> str:
    """The static stylesheet of every family (theme values come in as CSS variables)."""
    return (_ASSETS / "grounding.css").read_text(encoding="utf-8")
