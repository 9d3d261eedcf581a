"""The records of grounding synthesis: the config, what a family asks for, and what the page gave back.

Flow: `GroundingConfig` → compose (one `PageSpec` per page seed, with `TargetSpec`s: what each target is and how
to describe it) → render (`Label`s: where each target really is, in screenshot pixels) → `Sample`s (one
instruction per kept target, plus refusal samples) → writers.

Boxes are `[x1, y1, x2, y2]` in screenshot pixels with x2/y2 exclusive pixel edges (a 1-pixel element at
column 10 is [10, y, 11, y+1]); a refusal sample has no box and is written as `[-1, -1, -1, -1]`.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from venuskit.infra.config import field_help

# Instruction styles (synthesis.md §6 / issue 6). "refusal" names an element that is not on the screen.
STYLES = ("literal", "functional", "visual", "positional")
REFUSAL = "refusal"
PLATFORMS = ("web", "windows", "macos", "linux", "android", "ios")
LANGUAGES = ("en", "zh")
FORMATS = ("screenspot-pro", "screenspot-v2", "parquet")
DEFAULT_ICON_DIR = "/usr/share/bootstrap-icons/svg"  # Debian package bootstrap-icons (installed by setup.sh)

# Screenshot limits: a CSS viewport under 320 px lays nothing out, and over 8K pixels a side Chromium's
# screenshot runs out of texture memory; both are refused up front.
MIN_CSS_SIDE = 320
MAX_CSS_SIDE = 3840
MAX_SHOT_SIDE = 7680
MIN_TARGET_PX = 4


class SynthError(ValueError):
    """A bad synthesis request (unknown family, impossible size, missing icon set)."""


class RenderError(RuntimeError):
    """A page failed to render (browser error, timeout, crash); the generator skips it and logs its seed."""


@dataclass(frozen=True)
class Resolution:
    """A CSS viewport and the device scale factor; the screenshot is (width·dsf) × (height·dsf) pixels."""

    width: int
    height: int
    dsf: float = 1.0

    def __post_init__(self) -> None:
        for side in (self.width, self.height):
            if not (isinstance(side, int) and MIN_CSS_SIDE <= side <= MAX_CSS_SIDE):
                raise SynthError(
                    f"A viewport side must be an integer of {MIN_CSS_SIDE}..{MAX_CSS_SIDE} CSS px, "
                    f"got {self.width}x{self.height}."
                )
        if not 0.5 <= self.dsf <= 4:
            raise SynthError(f"The device scale factor must be within 0.5..4, got {self.dsf}.")
        if max(self.width, self.height) * self.dsf > MAX_SHOT_SIDE:
            raise SynthError(f"{self} makes a screenshot wider than {MAX_SHOT_SIDE} px; lower the size or the dsf.")

    @property
    def shot_size(self) -> tuple[int, int]:
        return round(self.width * self.dsf), round(self.height * self.dsf)

    def __str__(self) -> str:
        return f"{self.width}x{self.height}@{self.dsf:g}"

    @classmethod
    def parse(cls, text: str) -> Resolution:
        """'1920x1080' or '1920x1080@2'."""
        size, _, dsf = text.strip().partition("@")
        try:
            w, h = (int(v) for v in size.lower().split("x"))
            return cls(w, h, float(dsf) if dsf else 1.0)
        except ValueError as e:
            if isinstance(e, SynthError):
                raise
            raise SynthError(f"A resolution looks like 1920x1080 or 1920x1080@2, got {text!r}.") from e


@dataclass
class GroundingConfig:
    """What `venus synth grounding` makes. Every field has help text; bad values are refused here."""

    n: int = field(default=100, metadata={"help": "Samples to write (labelled targets plus refusal samples)."})
    seed: int = field(default=0, metadata={"help": "Run seed; page i is composed from (seed, i) alone."})
    families: tuple[str, ...] | None = field(
        default=None, metadata={"help": "Element families to use (None: all). See `families.FAMILIES`."}
    )
    platforms: tuple[str, ...] = field(default=PLATFORMS, metadata={"help": f"Platforms to mock: {PLATFORMS}."})
    zh_share: float = field(default=0.3, metadata={"help": "Share of pages whose UI text is Chinese."})
    resolutions: tuple[Resolution, ...] | None = field(
        default=None, metadata={"help": "Fixed resolutions to draw from (None: a realistic mix per platform)."}
    )
    max_per_page: int | None = field(
        default=None, metadata={"help": "Cap on samples per screenshot (None: every kept target)."}
    )
    refusal_share: float = field(default=0.05, metadata={"help": "Share of samples that are refusals ([-1,-1])."})
    style_weights: dict[str, float] = field(
        default_factory=lambda: {"literal": 1.0, "functional": 1.0, "visual": 0.7, "positional": 0.7},
        metadata={"help": "Relative weight of each instruction style where a target offers several."},
    )
    icon_dir: str = field(default=DEFAULT_ICON_DIR, metadata={"help": "Folder of SVG icons (bootstrap-icons)."})
    page_timeout_s: float = field(default=20.0, metadata={"help": "Seconds one page may take to render."})
    max_failures: int = field(
        default=20, metadata={"help": "Consecutive pages that may fail to render before the run stops."}
    )

    def __post_init__(self) -> None:
        from venuskit.synth.grounding.families import FAMILIES

        if not isinstance(self.n, int) or self.n < 1:
            raise SynthError(f"n must be a positive number of samples, got {self.n!r}.")
        if self.families is not None:
            self.families = tuple(self.families)
            unknown = sorted(set(self.families) - set(FAMILIES))
            if unknown or not self.families:
                raise SynthError(f"Unknown element families {unknown}; known: {', '.join(sorted(FAMILIES))}.")
        self.platforms = tuple(self.platforms)
        bad = sorted(set(self.platforms) - set(PLATFORMS))
        if bad or not self.platforms:
            raise SynthError(f"Unknown platforms {bad}; known: {', '.join(PLATFORMS)}.")
        if self.resolutions is not None:
            self.resolutions = tuple(
                r if isinstance(r, Resolution) else Resolution.parse(str(r)) for r in self.resolutions
            )
            if not self.resolutions:
                raise SynthError("resolutions must name at least one size, or be None for the default mix.")
        for name in ("zh_share", "refusal_share"):
            if not 0.0 <= getattr(self, name) <= 1.0:
                raise SynthError(f"{name} must be within 0..1, got {getattr(self, name)!r}.")
        if self.max_per_page is not None and self.max_per_page < 1:
            raise SynthError(f"max_per_page must be at least 1 (or None), got {self.max_per_page!r}.")
        unknown_styles = sorted(set(self.style_weights) - set(STYLES))
        if unknown_styles or not any(w > 0 for w in self.style_weights.values()):
            raise SynthError(f"style_weights takes positive weights for {STYLES}, got {self.style_weights!r}.")
        if self.page_timeout_s <= 0 or self.max_failures < 1:
            raise SynthError("page_timeout_s must be positive and max_failures at least 1.")

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["resolutions"] = [str(r) for r in self.resolutions] if self.resolutions else None
        return data

    @classmethod
    def help(cls) -> dict[str, str]:
        return field_help(cls)


@dataclass
class TargetSpec:
    """One target as composed: how to find it in the page (`tid` = its data-gt id) and how to name it.

    `instructions` maps a style to an (English, Chinese) pair. A visual instruction may hold `{region}`, filled
    after rendering with where the box landed ("in the top-right area")."""

    tid: str
    family: str
    ui_type: str  # "text" | "icon"
    instructions: dict[str, tuple[str, str]]
    element_type: str = ""  # finer kind inside the family (e.g. "checkbox", "day_cell")


@dataclass
class PageSpec:
    """One composed page: everything needed to render it again from its seed."""

    seed: int
    html: str
    resolution: Resolution
    platform: str
    application: str
    group: str
    language: str
    theme: str
    mobile: bool
    targets: dict[str, TargetSpec]
    # Refusal instructions (en, zh) with the words that must not appear on the rendered page for them to hold.
    absent: list[tuple[str, str, tuple[str, ...]]] = field(default_factory=list)

    @property
    def page_id(self) -> str:
        return f"p{self.seed:012d}"


@dataclass
class Label:
    """Where a target landed: a box in screenshot pixels (x2, y2 exclusive) and, for a point target (a slider
    value), the exact point. `css` is the unrounded CSS box, kept for the pixel check."""

    tid: str
    box: tuple[int, int, int, int]
    css: tuple[float, float, float, float]
    kind: str = "box"  # "box" | "point" | "range" | "canvas"
    point: tuple[float, float] | None = None


@dataclass
class Sample:
    """One grounding sample: an instruction about one screenshot and its answer (None for a refusal)."""

    sample_id: str
    page: PageSpec
    instruction: str
    instruction_cn: str
    style: str
    box: tuple[int, int, int, int] | None
    ui_type: str
    element_type: str
    family: str
    point: tuple[float, float] | None = None

    @property
    def refusal(self) -> bool:
        return self.box is None


def ensure_dir(path: str | Path) -> Path:
    p = Path(path)
    p.mkdir(parents=True, exist_ok=True)
    return p
