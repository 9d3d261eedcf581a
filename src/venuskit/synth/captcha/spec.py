"""The records of the CAPTCHA world: a widget the page may know, a puzzle, an instance, a verdict.

The split that keeps answers on the server (DESIGN.md invariant 5): `Widget.params` and `Puzzle.prompt`
are everything the page receives besides the PNG assets; `Puzzle.answer` and `Puzzle.targets` never
leave the server. The page renderer takes a `Widget` and a prompt, never an `Instance`, so it cannot
put the answer into the page by accident.

Coordinates inside a puzzle are CSS pixels of a widget part (the puzzle image, the drag board, ...),
with the origin at the part's top-left; the page shows every image at its natural size.
"""

from __future__ import annotations

import random
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

Box = tuple[float, float, float, float]  # x1, y1, x2, y2 in part pixels

WIDGET_KINDS = ("text", "click", "grid", "slider", "drag", "swap", "line", "arrows", "hold")

# Disjoint seed spaces, so no puzzle is in two of them: synthesis (training data) draws only from TRAIN_SEEDS,
# evaluation only from EVAL_SEEDS (the same ranges as `captcha.train_seeds` / `eval_seeds` in
# venuskit/tasks/splits.toml, which a test asserts), and the server's own `/new` from PUBLIC_SEEDS.
TRAIN_SEEDS = range(0, 1_000_000)
EVAL_SEEDS = range(1_000_000, 2_000_000)
PUBLIC_SEEDS = range(2_000_000, 2**31)


def check_seeds(seeds: list[int] | range, allowed: range, what: str) -> None:
    """Refuse any seed outside `allowed`, naming the range (a puzzle must never cross from training to eval)."""
    ends = [seeds[0], seeds[-1]] if isinstance(seeds, range) and seeds else seeds
    outside = [s for s in ends if s not in allowed]
    if outside:
        raise ValueError(f"{what} seeds must lie in {allowed.start}-{allowed.stop - 1}; {outside[:3]} do not "
                         f"(training draws from {TRAIN_SEEDS.start}-{TRAIN_SEEDS.stop - 1}, evaluation from "
                         f"{EVAL_SEEDS.start}-{EVAL_SEEDS.stop - 1}).")  # fmt: skip


@dataclass(frozen=True)
class Widget:
    """What the page may know about the puzzle's controls: sizes, counts and modes, never the answer."""

    kind: str  # one of WIDGET_KINDS
    params: dict[str, Any] = field(default_factory=dict)
    robot: bool = False  # an "I'm not a robot" checkbox that must be ticked as well

    def __post_init__(self) -> None:
        if self.kind not in WIDGET_KINDS:
            raise ValueError(f"Unknown widget kind {self.kind!r}; expected one of {WIDGET_KINDS}.")


@dataclass(frozen=True)
class Target:
    """A grounding label: `box` within the widget part `part` (None: the whole part)."""

    label: str  # what to click/drag, as an instruction would say it ("the red triangle")
    part: str  # the data-part name of the element, e.g. "image", "handle", "cell-4"
    box: Box | None = None


@dataclass(frozen=True)
class Puzzle:
    """What a generator returns: the public puzzle plus its hidden answer."""

    prompt: str  # the instruction shown above the puzzle
    widget: Widget
    assets: dict[str, bytes]  # asset name -> PNG bytes (served as /a/<id>/<name>.png)
    answer: dict[str, Any]  # hidden; JSON data read only by the checker and the oracle; key "check" picks the rule
    targets: tuple[Target, ...] = ()  # hidden grounding labels


@dataclass(frozen=True)
class Instance:
    """One generated CAPTCHA: the same (type, seed) always gives the same instance."""

    type: str
    family: str
    seed: int
    puzzle: Puzzle

    @property
    def prompt(self) -> str:
        return self.puzzle.prompt

    @property
    def widget(self) -> Widget:
        return self.puzzle.widget

    @property
    def answer(self) -> dict[str, Any]:
        return self.puzzle.answer


@dataclass(frozen=True)
class CheckResult:
    """A checker's verdict: pass/fail plus a partial score in [0, 1] for step-level RL."""

    passed: bool
    partial: float
    reason: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {"passed": self.passed, "partial": round(self.partial, 4), "reason": self.reason}


Generator = Callable[[random.Random], Puzzle]


@dataclass(frozen=True)
class CaptchaType:
    """One registered CAPTCHA type."""

    name: str
    family: str
    widget: str  # widget kind (for listings; the generator builds the Widget)
    summary: str  # one line for `venus captcha list`
    generate: Generator
    image_only: bool = True  # solvable from static images (the synth benchmark's "image families")

    def make(self, seed: int) -> Instance:
        if isinstance(seed, bool) or not isinstance(seed, int) or seed < 0:
            raise ValueError(f"A CAPTCHA seed must be a non-negative integer, got {seed!r}.")
        rng = random.Random(f"{self.name}:{seed}")  # str seeds hash with SHA-512: stable across runs
        return Instance(self.name, self.family, seed, self.generate(rng))
