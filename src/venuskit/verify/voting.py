"""How votes become keypoint results: one position per judge, then a conservative majority.

- A judge's position on a keypoint is its latest decisive vote (satisfied/contradicted) across windows,
  because the end state counts: done at step 3 and undone at step 8 is contradicted. Two decisive votes
  on the same step that disagree count as contradicted.
- Judges then vote. Abstentions do not count; if every judge abstains the keypoint stays open.
  The status with the most votes wins; a tie never resolves to satisfied (satisfied vs contradicted is
  contradicted, satisfied vs not_visible stays open).
"""

from __future__ import annotations

from collections import Counter

from venuskit.verify.report import Vote

DECISIVE = ("satisfied", "contradicted")


def position(judge: str, keypoint: int, votes: list[Vote]) -> Vote:
    """One judge's standing vote on one keypoint from all its votes on it."""
    decisive = [v for v in votes if v.status in DECISIVE]
    if decisive:
        latest = max(-1 if v.step is None else v.step for v in decisive)
        at = [v for v in decisive if (-1 if v.step is None else v.step) == latest]
        return next((v for v in at if v.status == "contradicted"), at[0])
    unseen = [v for v in votes if v.status == "not_visible"]
    if unseen:
        return unseen[-1]
    reasons = "; ".join(dict.fromkeys(v.reason for v in votes if v.reason))
    return Vote(judge, keypoint, "abstain", None, reasons or "no vote")


def majority(positions: list[Vote]) -> tuple[str, int | None, str]:
    """(status: satisfied | contradicted | open, evidence step, decided_by) from judges' positions."""
    counted = [v for v in positions if v.status != "abstain"]
    if not counted:
        return "open", None, "none"
    tally = Counter(v.status for v in counted)
    top = max(tally.values())
    winners = {s for s, n in tally.items() if n == top}
    if len(winners) > 1:
        status = "contradicted" if "contradicted" in winners else "open"
    else:
        status = winners.pop()
        status = status if status in DECISIVE else "open"
    steps = [v.step for v in counted if v.status == status and v.step is not None]
    names = sorted({v.judge for v in counted})
    decided_by = names[0] if len(names) == 1 else f"vote({','.join(names)})"
    return status, (max(steps) if steps else None), decided_by


def settled_by_rules(positions: list[Vote]) -> tuple[str, int | None, str] | None:
    """A keypoint the rule judges agree on (at least one decisive, none decisive the other way), or None."""
    decisive = [v for v in positions if v.status in DECISIVE]
    if not decisive or len({v.status for v in decisive}) > 1:
        return None
    steps = [v.step for v in decisive if v.step is not None]
    return decisive[0].status, (max(steps) if steps else None), ",".join(sorted({v.judge for v in decisive}))
