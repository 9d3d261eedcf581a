"""Training rows from recorded episodes: SFT rows (UI-Venus-2 chat format) and step-level RL rows.

Pipeline: episode folders → `venuskit.record.export.chat_rows` (system prompt per surface, N_IMG history, image
placeholders) → filters (verdicts, good prefix) → SFT or RL rows → validation (rejections counted per reason) →
dedup → domain mix → a `datasets.Dataset` with the images in a top-level `images` column (images nested inside
`messages` get serialised into dicts by datasets, which TRL then rejects: reference/training.md §7.12).

SFT row:  prompt (chat messages, `{"type": "image"}` placeholders), completion ([assistant message with
          `<think>…</think>\\n<action>…</action>`]), images (paths, in placeholder order), surface, domain
RL row:   prompt, images, surface, domain, gt_actions (JSON list of Action.to_dict()), gt_boxes (JSON list of
          normalised [x1, y1, x2, y2] or null per gt action), episode_id, step
"""

from __future__ import annotations

import hashlib
import json
import logging
import random
from collections import Counter
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from venuskit.record.episode import Episode
from venuskit.record.export import chat_rows
from venuskit.record.store import load_episode
from venuskit.train.rewards import completion_text, parse_grounding, parse_reply

log = logging.getLogger(__name__)

DOMAIN_OF_SURFACE = {
    "mobile": "mobile",
    "browser": "web",
    "computer": "computer",
    "captcha": "captcha",
    "grounding": "grounding",
}
DOMAINS = frozenset(DOMAIN_OF_SURFACE.values())


@dataclass
class Rejections:
    """Rows dropped, counted per reason, so a run can say what it left out (and training goes on without them)."""

    counts: Counter[str] = field(default_factory=Counter)

    def add(self, reason: str, n: int = 1) -> None:
        self.counts[reason] += n

    @property
    def total(self) -> int:
        return sum(self.counts.values())

    def report(self) -> str:
        return ", ".join(f"{k}: {v}" for k, v in sorted(self.counts.items())) or "none"

    def log(self, what: str = "rows") -> None:
        if self.counts:
            log.warning("Rejected %d %s (%s); training proceeds on the rest.", self.total, what, self.report())


# ---- episodes → chat rows, with verdict filters ---------------------------------------------------

UNDECIDED = "uncertain"  # SGV's verdict when no rule and no judge could decide (train may not import verify)


@dataclass(frozen=True)
class VerdictFilter:
    """Keep an episode when `episode.verdicts[slot]` is one of `accept`; a dict verdict is read through its
    "verdict" (else "success") key. With `use_prefix`, a verdict dict holding "good_prefix": n keeps only the
    first n steps of an episode that is otherwise rejected (partial-prefix steps of a failed run).
    A verifier's `uncertain` (SGV could not decide) is never kept: only decided successes train."""

    slot: str = "contract"
    accept: tuple[Any, ...] = ("success", "pass", "completed", True)
    use_prefix: bool = True

    def __post_init__(self) -> None:
        if UNDECIDED in self.accept:
            raise ValueError(f"VerdictFilter(accept=...) may not accept {UNDECIDED!r}: SGV says it when it cannot "
                             "tell; route those episodes to a stronger judge or a person, and keep decided ones.")

    def undecided(self, ep: Episode) -> bool:
        v = ep.verdicts.get(self.slot)
        return isinstance(v, dict) and v.get("verdict") == UNDECIDED

    def steps_to_keep(self, ep: Episode) -> int | None:
        """None: all steps; 0: reject the episode; n: the first n steps."""
        v = ep.verdicts.get(self.slot)
        value = v.get("verdict", v.get("success")) if isinstance(v, dict) else v
        if value in self.accept:
            return None
        prefix = v.get("good_prefix") if isinstance(v, dict) and self.use_prefix else None
        return int(prefix) if isinstance(prefix, int) and prefix > 0 else 0


def episode_chat_rows(
    episode_dirs: Iterable[Path | str],
    rejections: Rejections,
    *,
    n_img: int = 2,
    verdict: VerdictFilter | None = None,
    only_finished: bool = False,
) -> list[dict[str, Any]]:
    """Chat rows (see venuskit.record.export) of every kept step; dropped steps are counted in `rejections`."""
    rows: list[dict[str, Any]] = []
    for d in episode_dirs:
        ep = load_episode(d)
        if only_finished and not ep.finished:
            rejections.add("unfinished_episode", len(ep.steps))
            continue
        keep = verdict.steps_to_keep(ep) if verdict is not None else None
        if keep == 0:
            rejections.add("verdict_uncertain" if verdict is not None and verdict.undecided(ep) else "verdict",
                           len(ep.steps))  # fmt: skip
            continue
        _count_unusable_steps(Path(d), ep, rejections)
        for row in chat_rows(d, ep, n_img=n_img):
            if keep is not None and row["step"] >= keep:
                rejections.add("after_good_prefix")
                continue
            rows.append(row)
    return rows


def _count_unusable_steps(path: Path, ep: Episode, rejections: Rejections) -> None:
    # chat_rows skips these silently; count them here with the same rules so the log says why.
    for step in ep.steps:
        if not step.screenshot or not (path / step.screenshot).is_file():
            rejections.add("missing_image")
        elif step.action is None or not step.raw_output:
            rejections.add("unparsable_gt_action")
        elif step.error:
            rejections.add("step_error")


# ---- chat rows → SFT / RL rows ----------------------------------------------------------------------


def sft_row(chat: dict[str, Any]) -> dict[str, Any]:
    return {
        "prompt": chat["prompt"],
        "completion": chat["completion"],
        "images": list(chat["images"]),
        "surface": chat["surface"],
        "domain": chat.get("domain") or DOMAIN_OF_SURFACE.get(chat["surface"], chat["surface"]),
    }


def rl_row(chat: dict[str, Any], gt_boxes: Sequence[Sequence[float] | None] | None = None) -> dict[str, Any] | None:
    """The step-level RL row of a chat row; None when its ground-truth reply does not parse."""
    response = parse_reply(completion_text(chat["completion"]), chat["surface"])
    if response is None:
        return None
    return {
        "prompt": chat["prompt"],
        "images": list(chat["images"]),
        "surface": chat["surface"],
        "domain": chat.get("domain") or DOMAIN_OF_SURFACE.get(chat["surface"], chat["surface"]),
        "gt_actions": json.dumps([a.to_dict() for a in response.actions]),
        "gt_boxes": json.dumps(list(gt_boxes) if gt_boxes is not None else [None] * len(response.actions)),
        "episode_id": chat.get("episode_id", ""),
        "step": int(chat.get("step", 0)),
    }


def grounding_row(
    image: Any, instruction: str, box: Sequence[float] | None, answer: str | None = None
) -> dict[str, Any]:
    """A grounding row (UI-Venus-2 no-think format: user message = image then the grounding prompt).
    `box` is the normalised target (None for a negative sample, whose answer is [-1,-1]). With `answer` (e.g.
    "[500,450]") the row also carries an SFT completion."""
    from venuskit.actions.prompts import grounding_prompt

    prompt = [
        {
            "role": "user",
            "content": [{"type": "image", "text": None}, {"type": "text", "text": grounding_prompt(instruction)}],
        }
    ]
    row: dict[str, Any] = {
        "prompt": prompt,
        "images": [image],
        "surface": "grounding",
        "domain": "grounding",
        "gt_actions": None,
        "gt_boxes": json.dumps([list(box) if box is not None else [-1, -1, -1, -1]]),
    }
    if answer is not None:
        row["completion"] = [{"role": "assistant", "content": [{"type": "text", "text": answer}]}]
    return row


def _image_ok(image: Any) -> bool:
    if isinstance(image, (str, Path)):
        return Path(image).is_file()
    if isinstance(image, dict):
        return bool(image.get("bytes")) or (bool(image.get("path")) and Path(image["path"]).is_file())
    return image is not None  # PIL images, raw bytes


def validate_rows(rows: Iterable[dict[str, Any]], rejections: Rejections, kind: str) -> list[dict[str, Any]]:
    """Keep rows whose images all exist and (placeholders = images) and whose ground truth parses; count the rest.
    kind: "sft" (the completion must parse for the surface) or "rl" (gt_actions must be present)."""
    kept = []
    for row in rows:
        reason = _row_problem(row, kind)
        if reason:
            rejections.add(reason)
        else:
            kept.append(row)
    return kept


def _row_problem(row: dict[str, Any], kind: str) -> str | None:
    images = row.get("images") or []
    placeholders = sum(
        1
        for m in row.get("prompt", [])
        if isinstance(m.get("content"), list)
        for p in m["content"]
        if isinstance(p, dict) and p.get("type") == "image"
    )
    if not all(_image_ok(i) for i in images) or placeholders != len(images) or not images:
        return "missing_image"
    if row.get("surface") == "grounding":
        answer = completion_text(row.get("completion")) if kind == "sft" else None
        bad = not row.get("gt_boxes") or (answer is not None and parse_grounding(answer, strict=True) is None)
        return "unparsable_gt_action" if bad else None
    if kind == "sft" and parse_reply(completion_text(row.get("completion")), row["surface"]) is None:
        return "unparsable_gt_action"
    if kind == "rl" and not row.get("gt_actions"):
        return "unparsable_gt_action"
    return None


def dedup(rows: Iterable[dict[str, Any]], rejections: Rejections) -> list[dict[str, Any]]:
    """Drop rows whose prompt text, image bytes and target are all equal to an earlier row's."""
    seen: set[str] = set()
    out = []
    for row in rows:
        key = _row_key(row)
        if key in seen:
            rejections.add("duplicate")
            continue
        seen.add(key)
        out.append(row)
    return out


def _row_key(row: dict[str, Any]) -> str:
    h = hashlib.sha1()
    h.update(json.dumps(row.get("prompt"), sort_keys=True, default=str).encode())
    h.update(json.dumps(row.get("completion") or row.get("gt_actions"), sort_keys=True, default=str).encode())
    for image in row.get("images") or []:
        h.update(_image_bytes(image))
    return h.hexdigest()


def _image_bytes(image: Any) -> bytes:
    if isinstance(image, (str, Path)) and Path(image).is_file():
        return Path(image).read_bytes()
    if isinstance(image, dict):
        return image.get("bytes") or str(image.get("path")).encode()
    return image if isinstance(image, bytes) else repr(image).encode()


def mix_domains(
    rows: Sequence[dict[str, Any]], weights: dict[str, float], total: int | None = None, seed: int = 0
) -> list[dict[str, Any]]:
    """Resample rows so domain d makes up weights[d] / Σ weights of `total` rows (default: len(rows)).
    A domain with too few rows is repeated (shuffled each pass); a weight for a domain with no rows is an error."""
    by_domain: dict[str, list[dict[str, Any]]] = {}
    for row in rows:
        by_domain.setdefault(row["domain"], []).append(row)
    missing = [d for d, w in weights.items() if w > 0 and not by_domain.get(d)]
    if missing:
        raise ValueError(
            f"Domain mix weights name {missing}, but the data has no rows for them; "
            f"domains present: {sorted(by_domain)}."
        )
    rng = random.Random(seed)
    norm = sum(w for w in weights.values() if w > 0)
    n = len(rows) if total is None else total
    out: list[dict[str, Any]] = []
    for d, w in sorted(weights.items()):
        if w > 0:
            out += _draw(by_domain[d], round(n * w / norm), rng)
    rng.shuffle(out)
    return out


def _draw(pool: list[dict[str, Any]], k: int, rng: random.Random) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    while len(out) < k:
        batch = pool[:]
        rng.shuffle(batch)
        out += batch[: k - len(out)]
    return out


def to_dataset(rows: list[dict[str, Any]]) -> Any:
    """A `datasets.Dataset` with `images` cast to a list of Image features (decoded to PIL when read)."""
    import datasets

    if not rows:
        raise ValueError("No training rows are left after filtering; see the rejection counts in the log.")
    ds = datasets.Dataset.from_list(rows)
    return ds.cast_column("images", datasets.Sequence(datasets.Image()))


def build_rows(
    episode_dirs: Iterable[Path | str],
    kind: str,
    *,
    n_img: int = 2,
    verdict: VerdictFilter | None = None,
    domain_weights: dict[str, float] | None = None,
    seed: int = 0,
    boxes_of: Callable[[dict[str, Any]], Sequence[Sequence[float] | None] | None] | None = None,
) -> tuple[list[dict[str, Any]], Rejections]:
    """Episodes → validated, deduplicated (and optionally domain-mixed) SFT or RL rows, plus the rejection counts.
    `boxes_of(chat_row)` supplies target boxes for RL rows when the caller has them (else point tolerance)."""
    if kind not in ("sft", "rl"):
        raise ValueError(f"kind must be 'sft' or 'rl', got {kind!r}.")
    rej = Rejections()
    chats = episode_chat_rows(episode_dirs, rej, n_img=n_img, verdict=verdict)
    if kind == "sft":
        rows = [sft_row(c) for c in chats]
    else:
        rows = []
        for c in chats:
            row = rl_row(c, boxes_of(c) if boxes_of else None)
            rows.append(row) if row is not None else rej.add("unparsable_gt_action")
    rows = dedup(validate_rows(rows, rej, kind), rej)
    if domain_weights:
        rows = mix_domains(rows, domain_weights, seed=seed)
    rej.log(f"{kind} rows")
    return rows, rej
