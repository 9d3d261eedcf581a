"""What a trajectory verifier returns: per-keypoint results with their votes, a verdict, and its cost.

The verdict is one of the four decided ones (`DECIDED`) or `uncertain`: no rule and no judge could decide a keypoint
on which completion hinges (nothing contradicted, nothing else failed the run). An uncertain report says which
keypoints and why (`undecided`), and keeps the verdict SGV would give if forced to choose (`forced`: open keypoints
counted as not met), so that four-way figures can still be computed. Whoever keeps verdicts keeps decided ones:
`uncertain` is never a success.

A Report is plain data: `to_dict()` is what goes into the episode manifest's `verdicts[slot]`, and
`Report.from_dict` reads it back (for benches that compare verdicts across runs).
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

STATUSES = ("satisfied", "contradicted", "not_visible", "abstain")  # what one judge can say about a keypoint
KEYPOINT_STATUSES = ("satisfied", "contradicted", "open")  # what the vote decides
DECIDED = ("completed", "partial", "infeasible", "failed")
UNCERTAIN = "uncertain"
VERDICTS = (*DECIDED, UNCERTAIN)


@dataclass
class Vote:
    """One judge's opinion of one keypoint, with the step it saw as evidence (None: no particular step)."""

    judge: str
    keypoint: int  # index into the keypoint list
    status: str  # one of STATUSES
    step: int | None
    reason: str = ""

    def __post_init__(self) -> None:
        if self.status not in STATUSES:
            raise ValueError(f"Vote.status must be one of {STATUSES}, got {self.status!r}.")


@dataclass
class KeypointResult:
    text: str
    status: str  # one of KEYPOINT_STATUSES
    evidence_step: int | None
    decided_by: str  # a judge or rule name, "vote(a,b,c)" for a majority, "none" when nobody could tell
    votes: list[Vote] = field(default_factory=list)


@dataclass
class Cost:
    """Model calls, images sent and tokens spent (all tokens, and the prompt's alone, as the server counted
    them), and wall-clock seconds of the whole verification."""

    calls: int = 0
    tokens: int = 0
    seconds: float = 0.0
    images: int = 0
    prompt_tokens: int = 0

    def __add__(self, other: Cost) -> Cost:
        return Cost(*(a + b for a, b in zip(dataclasses.astuple(self), dataclasses.astuple(other), strict=True)))

    def __sub__(self, other: Cost) -> Cost:
        return Cost(*(a - b for a, b in zip(dataclasses.astuple(self), dataclasses.astuple(other), strict=True)))


@dataclass
class Report:
    verdict: str  # one of VERDICTS
    keypoints: list[KeypointResult]
    cost: Cost
    missing: list[str]  # what the record lacked (screenshots, a torn line, an unfinished run), in words
    reason: str
    method: str  # "sgv" | "final_screenshot" | "webjudge"
    forced: str = ""  # the decided verdict when forced to choose (open keypoints as not met); = verdict if decided
    undecided: list[dict[str, str]] = field(default_factory=list)  # {"keypoint", "why"} of each open keypoint
    judges: dict[str, dict[str, Any]] = field(default_factory=dict)  # model judges: name -> model, checkpoint

    def __post_init__(self) -> None:
        if self.verdict not in VERDICTS:
            raise ValueError(f"Report.verdict must be one of {VERDICTS}, got {self.verdict!r}.")
        self.forced = self.forced or self.verdict
        if self.forced not in DECIDED:
            raise ValueError(f"Report.forced must be one of {DECIDED}, got {self.forced!r}.")

    @property
    def decided(self) -> bool:
        return self.verdict != UNCERTAIN

    def to_dict(self) -> dict[str, Any]:
        return dataclasses.asdict(self)

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Report:
        keypoints = [
            KeypointResult(**{**k, "votes": [Vote(**v) for v in k.get("votes", [])]}) for k in d.get("keypoints", [])
        ]
        return cls(
            verdict=d["verdict"],
            keypoints=keypoints,
            cost=Cost(**d.get("cost", {})),
            missing=list(d.get("missing", [])),
            reason=d.get("reason", ""),
            method=d.get("method", "sgv"),
            forced=d.get("forced", ""),
            undecided=list(d.get("undecided", [])),
            judges=dict(d.get("judges", {})),
        )
