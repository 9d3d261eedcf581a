"""The fixed train / held-out splits (`splits.toml`), read by every training stage and every evaluation.

    from venuskit.tasks import splits
    splits.world_split("mail.star_message")   # "train" or "heldout"
    splits.world_templates("heldout", category="short")
    splits.in_range(seed, splits.load().world_eval_seeds)
    splits.training_templates(["short"])        # the training split less the validation slice
    splits.require_train_template(task_id)      # raises for a held-out template (every training input checks)
    splits.training_skins(), splits.heldout_skins(3)   # skins (venuskit.world.skins) are split like seeds

The file is data, drawn once (its header says how); tests/tasks/test_splits.py asserts the rules, so a
change to the catalog that breaks them fails loudly instead of leaking held-out items into training.
"""

from __future__ import annotations

import functools
import hashlib
import tomllib
from collections.abc import Iterable
from dataclasses import dataclass
from importlib import resources
from typing import Literal

Split = Literal["train", "heldout"]
SeedRange = tuple[int, int]  # inclusive


@dataclass(frozen=True)
class Splits:
    world_heldout: frozenset[str]
    world_train_seeds: SeedRange
    world_eval_seeds: SeedRange
    world_train_skins: SeedRange
    world_heldout_skins: SeedRange
    captcha_heldout_types: frozenset[str]
    captcha_train_seeds: SeedRange
    captcha_eval_seeds: SeedRange
    grounding_heldout_families: frozenset[str]
    grounding_train_seeds: SeedRange
    grounding_eval_seeds: SeedRange
    miniwob_training: bool


def _range(raw: list[int], where: str) -> SeedRange:
    if len(raw) != 2 or raw[0] > raw[1]:
        raise ValueError(f"splits.toml: {where} must be [low, high] with low <= high, got {raw!r}.")
    return int(raw[0]), int(raw[1])


@functools.cache
def load() -> Splits:
    raw = tomllib.loads(resources.files("venuskit.tasks").joinpath("splits.toml").read_text("utf-8"))
    w, c, g = raw["world"], raw["captcha"], raw["grounding"]
    return Splits(
        world_heldout=frozenset(w["heldout"]),
        world_train_seeds=_range(w["train_seeds"], "world.train_seeds"),
        world_eval_seeds=_range(w["eval_seeds"], "world.eval_seeds"),
        world_train_skins=_range(w["train_skins"], "world.train_skins"),
        world_heldout_skins=_range(w["heldout_skins"], "world.heldout_skins"),
        captcha_heldout_types=frozenset(c["heldout_types"]),
        captcha_train_seeds=_range(c["train_seeds"], "captcha.train_seeds"),
        captcha_eval_seeds=_range(c["eval_seeds"], "captcha.eval_seeds"),
        grounding_heldout_families=frozenset(g["heldout_families"]),
        grounding_train_seeds=_range(g["train_seeds"], "grounding.train_seeds"),
        grounding_eval_seeds=_range(g["eval_seeds"], "grounding.eval_seeds"),
        miniwob_training=bool(raw["miniwob"]["training"]),
    )


def in_range(seed: int, rng: SeedRange) -> bool:
    return rng[0] <= seed <= rng[1]


def world_split(task_id: str) -> Split:
    """A hand-written template's split from the list; a registered synthesised task's from its `split:` tag
    (held out when any capability it composes comes from a held-out template; venuskit.tasks.synth.build)."""
    if task_id in load().world_heldout:
        return "heldout"
    from venuskit.tasks.spec import registered

    spec = registered().get(task_id)
    return "heldout" if spec is not None and "split:heldout" in spec.tags else "train"


def world_templates(split: Split | Literal["all"] = "all", category: str | None = None) -> list[str]:
    """World template ids of a split (and category), sorted: the bundled ones and any registered task files'
    (e.g. synthesised tasks, `venuskit.tasks.spec.register_file`)."""
    from venuskit.tasks.spec import bundled, registered

    return sorted(
        t.id
        for t in {**bundled(), **registered()}.values()
        if (split == "all" or world_split(t.id) == split) and (category is None or t.category == category)
    )


def skin_split(skin: int) -> Split:
    """A skin's split: "train" or "heldout". Raises ValueError for a skin in neither range."""
    s = load()
    if in_range(skin, s.world_train_skins):
        return "train"
    if in_range(skin, s.world_heldout_skins):
        return "heldout"
    low, high = s.world_train_skins[0], s.world_heldout_skins[1]
    raise ValueError(f"Skin {skin} is in neither the training nor the held-out skins ({low}..{high}).")


def training_skins(n: int | None = None) -> list[int]:
    """The training skins (the first n of them, when given; skin 0, the default look, comes first)."""
    return _first(load().world_train_skins, n)


def heldout_skins(n: int | None = None) -> list[int]:
    """The held-out skins (the first n of them, when given): evaluation only, never training."""
    return _first(load().world_heldout_skins, n)


def _first(rng: SeedRange, n: int | None) -> list[int]:
    if n is not None and n > rng[1] - rng[0] + 1:
        raise ValueError(f"Asked for {n} skins from the range {rng}, which holds fewer.")
    return list(range(rng[0], rng[1] + 1 if n is None else rng[0] + n))


def captcha_split(type_name: str) -> Split:
    return "heldout" if type_name in load().captcha_heldout_types else "train"


def grounding_family_split(family: str) -> Split:
    return "heldout" if family in load().grounding_heldout_families else "train"


MiniwobShare = Literal["design", "kept_apart"]


def miniwob_share(task: str, family: Iterable[str]) -> MiniwobShare:
    """A MiniWoB++ task's share in the verifier's set, by a rule fixed before any result was seen: within its
    family, tasks are ordered by the SHA-256 of "venuskit-miniwob-split:<task>"; the 1st, 3rd, 5th... are the design
    share (rules may be designed on it), the 2nd, 4th... are kept apart (a family of n keeps floor(n/2) apart)."""
    tasks = sorted({*family, task}, key=lambda t: hashlib.sha256(f"venuskit-miniwob-split:{t}".encode()).hexdigest())
    return "design" if tasks.index(task) % 2 == 0 else "kept_apart"


def eval_seeds(rng: SeedRange, n: int) -> list[int]:
    """The first n seeds of an evaluation range (fixed, so every report uses the same instances)."""
    if n > rng[1] - rng[0] + 1:
        raise ValueError(f"Asked for {n} seeds from the range {rng}, which holds fewer.")
    return list(range(rng[0], rng[0] + n))


def validation_templates() -> list[str]:
    """One short and one medium *training* template per app, the first by sha256 of its id: a fixed rule, so the
    slice never moves to suit a result. It measures transfer to unseen templates without touching held-out ones;
    training leaves it out unless told otherwise."""
    from venuskit.tasks.spec import bundled

    hand = bundled()  # hand-written templates only: a registered task file must not move the slice
    picked = []
    for category in ("short", "medium"):
        by_app: dict[str, list[str]] = {}
        for tid in world_templates("train", category):
            if tid in hand:
                by_app.setdefault(hand[tid].apps[0], []).append(tid)
        for app in sorted(by_app):
            picked.append(min(by_app[app], key=lambda t: hashlib.sha256(t.encode()).hexdigest()))
    return sorted(picked)


def training_templates(categories: Iterable[str], keep_validation_out: bool = True) -> list[str]:
    """The training split's templates of `categories` (without the validation slice unless asked)."""
    val = set(validation_templates()) if keep_validation_out else set()
    return [t for c in categories for t in world_templates("train", c) if t not in val]


def require_train_template(task_id: str) -> None:
    """Raise for a held-out template: it never enters training data, at any stage."""
    if world_split(task_id) != "train":
        raise ValueError(f"{task_id} is a held-out template; it never enters training data.")


def require_train_seed(seed: int, rng: SeedRange, what: str) -> None:
    """Raise for a seed outside a training range (`what` names the range in the message)."""
    if not in_range(seed, rng):
        raise ValueError(f"{what} seed {seed} is not a training seed {rng}.")


def require_train_skin(skin: int) -> None:
    """Raise for a skin that is not a training skin: a held-out skin never enters training data."""
    if skin_split(skin) != "train":
        raise ValueError(f"Skin {skin} is a held-out skin; it never enters training data.")


def require_train_captcha(type_name: str) -> None:
    if captcha_split(type_name) != "train":
        raise ValueError(f"CAPTCHA type {type_name} is held out; it never enters training data.")
