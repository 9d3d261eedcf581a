"""Scoring trajectory verifiers against contract labels (issue 4's bench).

A labelled set is built once from real world episodes: each bundled task is run in real Chromium through
`run_world_task`, by its oracle or by a transformed copy of it, and the label of every episode is the
contract verdict stored in its manifest (`verdicts.contract`), never anything a verifier said. The tasks
are state-changing ones, question tasks (answered with Finished(content=...), contract `answer.contains`)
and infeasible ones, in English and Chinese variants (the world's UI and data switch language), on the
desktop browser and, for a share of the tasks that declare it, the mobile preset (412x915 @2x). Kinds:

    oracle            the scripted solution                                   -> completed
    partial           the oracle stopped after its first progress keypoint     -> partial
    null              Finished at once                                        -> failed
    wrong_target      opens another item than the goal names, then stops      -> failed
    infeasible_right  an infeasible task's oracle (asks the user)             -> infeasible
    infeasible_wrong  an infeasible task "done" anyway, Finished claims success -> failed
  adversarial (they look done but are not):
    claimed_done      Finished claims success, the change was never made      -> failed / partial
    typed_claim       a success message typed into a text field, not submitted -> failed / partial
    not_submitted     the oracle with its final submit click dropped          -> failed / partial
    wrong_item        the oracle's actions on another item than the goal names -> failed / partial
    side_effect       the oracle plus an undeclared consequential action      -> failed
  question tasks (oracle and null as above):
    no_answer         the oracle's navigation, then Finished without an answer  -> failed
    wrong_answer      the oracle's navigation, then a made-up wrong value (adversarial) -> failed

An episode whose contract label is not what its kind intends (or whose script broke) is rejected and
reported, so the set holds only episodes that are what they say. Then any verifier configuration is run
over the set and scored: a 4x4 confusion matrix, completed-vs-rest precision/recall/F1/FPR, Cohen's kappa
and macro-F1 over the four verdicts, the share of adversarial episodes not called completed, and cost.

    index = build_set(Path("runs/verify-bench"), n_tasks=10, seed=0)
    result = run_bench(Path("runs/verify-bench"), make_judges("ocr,log"))
"""

from __future__ import annotations

import datetime as dt
import json
import math
import random
import re
import statistics
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from venuskit.eval.report import write_json_report

LABELS = ("completed", "partial", "infeasible", "failed")
INDEX = "index.json"
SET_FORMAT = 1
# What the adversarial episodes say or type. ASCII, and free of the words with which a Finished reports
# infeasibility (tasks.contract.INFEASIBLE_MARKERS), so an infeasible task "done" anyway stays `failed`.
CLAIM = "All done, the task is complete."
TYPED_CLAIM = "Done - task complete: "
_HAS_TEXT = re.compile(r":has-text\('([^']*)'\)")
_EXTENSION = re.compile(r"\.[A-Za-z]{2,5}$")
_END_OPS = ("finish", "finish_from", "call_user")


@dataclass(frozen=True)
class Kind:
    name: str
    intended: tuple[str, ...]  # contract labels this kind is meant to produce; others are rejected
    adversarial: bool
    applies: tuple[str, ...]  # task types it is made from: state (changes something), question, infeasible
    help: str


_S, _Q, _I = ("state",), ("question",), ("infeasible",)
KINDS: tuple[Kind, ...] = (
    Kind("oracle", ("completed",), False, _S + _Q, "the task's scripted solution"),
    Kind("partial", ("partial",), False, _S, "the oracle stopped after its first progress keypoint"),
    Kind("null", ("failed",), False, _S + _Q, "Finished at once, nothing done"),
    Kind("wrong_target", ("failed",), False, _S, "opens another item than the goal names, then stops"),
    Kind("claimed_done", ("failed", "partial"), True, _S, "Finished claims success without the change"),
    Kind("typed_claim", ("failed", "partial"), True, _S, "a success message typed into a field, not submitted"),
    Kind("not_submitted", ("failed", "partial"), True, _S, "the oracle with its final submit click dropped"),
    Kind("wrong_item", ("failed", "partial"), True, _S, "the oracle's actions on another item than the goal's"),
    Kind("side_effect", ("failed",), True, _S, "the oracle plus an undeclared consequential action"),
    Kind("no_answer", ("failed",), False, _Q, "a question task: the oracle's navigation, then no answer"),
    Kind("wrong_answer", ("failed",), True, _Q, "a question task: the oracle's navigation, then a made-up value"),
    Kind("infeasible_right", ("infeasible",), False, _I, "an infeasible task's oracle: it asks the user"),
    Kind("infeasible_wrong", ("failed",), False, _I, "an infeasible task done anyway: Finished claims success"),
)
MOBILE_SHARE = 1 / 3  # of the tasks that declare the mobile surface, when both surfaces are asked for
# Made-up answers for questions whose value has no digit to change (a name, a status): never in the world data.
DECOY = {"en": "Jordan Whitfield", "zh": "周晓岚"}
KIND_BY_NAME = {k.name: k for k in KINDS}

Steps = tuple[tuple[str, ...], ...]


# ---- episode plans: transformed oracles ----------------------------------------------------------


@dataclass(frozen=True)
class Plan:
    """How to run one episode: oracle-style steps (None: the task's own oracle), maybe stopped early."""

    steps: Steps | None = None
    stop_at_progress: bool = False


def _core(oracle: Steps) -> Steps:
    """The oracle without its closing Finished / CallUser."""
    end = len(oracle)
    while end and oracle[end - 1][0] in _END_OPS:
        end -= 1
    return oracle[:end]


def _item_step(core: Steps) -> int | None:
    """Index of the first step that picks an item by its text (`...:has-text('X')`)."""
    return next((i for i, s in enumerate(core) if len(s) > 1 and _HAS_TEXT.search(s[1])), None)


def _negate(step: tuple[str, ...]) -> tuple[str, ...]:
    """The same step on the first *other* item: `:has-text('X')` -> `:not(:has-text('X'))` (once). A file
    name keeps its extension (`:has-text('.docx')`), so the other item opens in the same editor."""

    def other(m: re.Match[str]) -> str:
        ext = _EXTENSION.search(m.group(1))
        return f":not({m.group(0)})" + (f":has-text('{ext.group(0)}')" if ext else "")

    return (step[0], _HAS_TEXT.sub(other, step[1], count=1), *step[2:])


def _side_effect(inst: Any) -> Steps | None:
    """Steps that trash a file (or a mail) the goal does not mention, then return to the start page."""
    words = [v for v in inst.params.values() if isinstance(v, str) and "'" not in v and 0 < len(v) < 80]
    avoid = "".join(f":not(:has-text('{w}'))" for w in words)
    if "drive.trash" not in inst.spec.consequential:
        return (("goto", "/drive/"), ("click", f".file-row{avoid} button[value=trash]"), ("goto", inst.start))
    if "mail.trash" not in inst.spec.consequential:
        return (("goto", "/mail/inbox"), ("click", f"a.mail-row{avoid}"), ("click", "button[value=trash]"),
                ("goto", inst.start))  # fmt: skip
    return None


def task_type(spec: Any) -> str:
    """infeasible; question (the oracle ends with an answer: Finished(content) or one read off the page);
    or state (it changes something and ends with a bare Finished)."""
    if not spec.feasible:
        return "infeasible"
    last = spec.oracle[-1] if spec.oracle else ("finish",)
    return "question" if last[0] == "finish_from" or (last[0] == "finish" and len(last) > 1) else "state"


def expected_answer(inst: Any) -> str | None:
    """The value the contract wants in the answer (`answer.contains` text), else the oracle's literal one."""
    for kp in inst.keypoints:
        if kp.check == "answer.contains" and isinstance(kp.args.get("text"), str):
            return kp.args["text"]
    last = inst.oracle[-1] if inst.oracle else ()
    return last[1] if len(last) > 1 and last[0] == "finish" else None


def wrong_value(value: str, locale: str = "en") -> str:
    """A made-up wrong answer: the last two digits shifted by 3 (312.80 -> 312.13, TX61200457 -> TX61200480),
    or a decoy name when the value has no digit."""
    digits = [i for i, ch in enumerate(value) if ch.isdigit()][-2:]
    if not digits:
        return DECOY.get(locale, DECOY["en"])
    chars = list(value)
    for i in digits:
        chars[i] = str((int(chars[i]) + 3) % 10)
    return "".join(chars)


def locale_of(inst: Any) -> str:
    params = inst.spec.params
    return params[inst.seed % len(params)].get("locale", "en") if params else "en"


def plan_for(kind: str, inst: Any, surface: str = "browser") -> Plan | None:
    """The plan of `kind` for a task instance, or None where the kind does not apply to the task (or to the
    surface: the side effect goes to its page by typed URL, which the mobile surface has no action for)."""
    k = KIND_BY_NAME[kind]
    if task_type(inst.spec) not in k.applies or (kind == "side_effect" and surface != "browser"):
        return None
    oracle: Steps = inst.oracle
    core = _core(oracle)
    if kind in ("oracle", "infeasible_right"):
        return Plan()
    if kind == "no_answer":
        return Plan((*core, ("finish",)))
    if kind == "wrong_answer":
        value = expected_answer(inst)
        return None if value is None else Plan((*core, ("finish", wrong_value(value, locale_of(inst)))))
    if kind == "partial":
        return Plan(stop_at_progress=True) if any(kp.progress for kp in inst.keypoints) else None
    if kind == "null":
        return Plan((("finish", "Done."),))
    if kind in ("claimed_done", "infeasible_wrong"):
        # Go where the work would happen (the oracle's first step, when more follow), then claim it is done.
        nav = core[:1] if (len(core) >= 3 or kind == "infeasible_wrong") and core[:1] and core[0][0] == "click" else ()
        return Plan((*nav, ("finish", CLAIM)))
    return _adversarial_plan(kind, inst, core)


def _adversarial_plan(kind: str, inst: Any, core: Steps) -> Plan | None:
    finish: Steps = (("finish",),)
    if kind == "typed_claim":
        at = next((i for i, s in enumerate(core) if s[0] in ("fill", "type")), None)
        if at is None:
            return None
        return Plan((*core[:at], ("type", core[at][1], TYPED_CLAIM + inst.goal), ("finish", CLAIM)))
    if kind == "not_submitted":
        last = max((i for i, s in enumerate(core) if s[0] == "click"), default=0)
        return Plan(core[:last] + core[last + 1 :] + finish) if last >= 1 else None
    item = _item_step(core)
    if kind == "wrong_item":
        return None if item is None else Plan((*core[:item], _negate(core[item]), *core[item + 1 :], *finish))
    if kind == "wrong_target":  # only where the item is picked before the work: else it equals wrong_item
        ok = item is not None and item < len(core) - 1
        return Plan((*core[:item], _negate(core[item]), *finish)) if ok else None
    if kind == "side_effect":
        side = _side_effect(inst)
        return None if side is None else Plan(side + inst.oracle)
    raise ValueError(f"Unknown episode kind {kind!r}; known kinds: {', '.join(KIND_BY_NAME)}.")


# ---- building the labelled set -------------------------------------------------------------------


Pick = tuple[str, int, str]  # (task id, variant seed, surface)
SURFACES = ("browser", "mobile")


def pick_tasks(n_tasks: int, seed: int, *, locales: Sequence[str] = ("en", "zh"),
               surfaces: Sequence[str] = SURFACES, questions: bool = True) -> list[Pick]:  # fmt: skip
    """`n_tasks` feasible tasks (a third of them question tasks, unless `questions` is False) plus about a
    quarter as many infeasible ones. Each gets a variant of a locale drawn from `locales` and a surface:
    the mobile preset for about a third of the tasks that declare it when both surfaces are asked for."""
    from venuskit.tasks.spec import bundled

    _check_choice("locale", locales, ("en", "zh"))
    _check_choice("surface", surfaces, SURFACES)
    specs = bundled()
    rng = random.Random(seed)

    def pool(kind: str) -> list[str]:
        return sorted(t for t, s in specs.items() if task_type(s) == kind and not s.interrupts
                      and s.category in ("short", "medium", "infeasible") and len(s.oracle) <= 9
                      and set(s.surfaces) & set(surfaces))  # fmt: skip

    n_q = n_tasks // 3 if questions else 0
    chosen = rng.sample(pool("state"), min(n_tasks - n_q, len(pool("state"))))
    chosen += rng.sample(pool("question"), min(n_q, len(pool("question"))))
    chosen += rng.sample(pool("infeasible"), min(len(pool("infeasible")), math.ceil(n_tasks / 4)))
    return [(t, _variant_seed(specs[t], rng, locales), _surface(specs[t], rng, surfaces)) for t in chosen]


def _check_choice(what: str, chosen: Sequence[str], known: Sequence[str]) -> None:
    bad = [c for c in chosen if c not in known] or ([] if chosen else ["(none)"])
    if bad:
        raise ValueError(f"Unknown {what} {bad[0]!r}; choose one or more of {', '.join(known)}.")


def _variant_seed(spec: Any, rng: random.Random, locales: Sequence[str]) -> int:
    locale = rng.choice(sorted(locales))
    seeds = [i for i, p in enumerate(spec.params) if p.get("locale", "en") == locale]
    seeds = seeds or [i for i, p in enumerate(spec.params) if p.get("locale", "en") in locales]
    return rng.choice(seeds or [0])


def _surface(spec: Any, rng: random.Random, surfaces: Sequence[str]) -> str:
    draw = rng.random()  # drawn for every task, so a task's surface does not shift the others' draws
    if "mobile" not in spec.surfaces or "mobile" not in surfaces:
        return "browser"
    return "mobile" if "browser" not in surfaces or draw < MOBILE_SHARE else "browser"


def _pick(task: tuple | list | str) -> Pick:
    if isinstance(task, str):
        return (task, 0, "browser")
    return (task[0], int(task[1]), task[2] if len(task) > 2 else "browser")


def _request_task(p: Pick) -> list[Any]:
    """How a pick is stored in the request: [id, seed] on the desktop browser (as older sets did), else
    [id, seed, surface]."""
    return [p[0], p[1]] if p[2] == "browser" else list(p)


def build_set(
    out_dir: Path | str,
    n_tasks: int = 12,
    seed: int = 0,
    *,
    tasks: Sequence[tuple[str, int] | tuple[str, int, str] | str] | None = None,
    kinds: Sequence[str] | None = None,
    locales: Sequence[str] = ("en", "zh"),
    surfaces: Sequence[str] = SURFACES,
    questions: bool = True,
    rebuild: bool = False,
    settle_s: float = 0.1,
    on_item: Callable[[dict[str, Any]], None] | None = None,
) -> dict[str, Any]:
    """Run every kind on every picked task (one WorldServer, one Chromium per surface) and write
    `out_dir/index.json`. A folder that already holds the index of the same request is reused as it is
    (`rebuild` to start over). `tasks`: explicit (task_id, seed[, surface]) tuples or ids (seed 0, browser)
    instead of `pick_tasks(n_tasks, seed, locales=..., surfaces=..., questions=...)`."""
    out_dir = Path(out_dir)
    chosen = tasks or pick_tasks(n_tasks, seed, locales=locales, surfaces=surfaces, questions=questions)
    picked = [_pick(t) for t in chosen]
    request = {"n_tasks": n_tasks, "seed": seed, "tasks": [_request_task(p) for p in picked],
               "kinds": list(kinds or KIND_BY_NAME)}  # fmt: skip
    cached = load_index(out_dir) if (out_dir / INDEX).exists() and not rebuild else None
    if cached is not None:
        if cached.get("request") == request:
            return cached
        raise ValueError(f"{out_dir} already holds a verifier bench set built for {cached.get('request')}; pass "
                         "another folder, the same options, or rebuild=True (--rebuild).")  # fmt: skip
    for k in request["kinds"]:
        if k not in KIND_BY_NAME:
            raise ValueError(f"Unknown episode kind {k!r}; known kinds: {', '.join(KIND_BY_NAME)}.")
    t0 = time.perf_counter()
    items, rejected, skipped = _run_all(out_dir, picked, request["kinds"], settle_s, on_item)
    created = dt.datetime.now(dt.UTC).isoformat(timespec="seconds")
    index = {"format": SET_FORMAT, "request": request, "created": created,
             "build_seconds": round(time.perf_counter() - t0, 1), "counts": _counts(items),
             "items": items, "rejected": rejected, "skipped": skipped}  # fmt: skip
    write_json_report(out_dir / INDEX, index)
    return index


def _run_all(out_dir: Path, picked: list[Pick], kinds: list[str], settle_s: float,
             on_item: Callable[[dict[str, Any]], None] | None) -> tuple[list, list, list]:  # fmt: skip
    from contextlib import ExitStack

    from venuskit.envs.browser import BrowserConfig, BrowserEnv
    from venuskit.tasks.spec import get_task
    from venuskit.world.server import WorldServer

    items: list[dict[str, Any]] = []
    rejected: list[dict[str, Any]] = []
    skipped: list[dict[str, Any]] = []
    with ExitStack() as stack:
        server = stack.enter_context(WorldServer())
        envs: dict[str, Any] = {}  # one Chromium per surface, started when a task first needs it
        for task_id, task_seed, surface in picked:
            inst = get_task(task_id).instance(task_seed)
            if surface not in envs:
                preset = "mobile" if surface == "mobile" else "desktop"
                envs[surface] = stack.enter_context(BrowserEnv(BrowserConfig(settle_s=settle_s, preset=preset)))
            for kind in kinds:
                plan = plan_for(kind, inst, surface)
                if plan is None:
                    skipped.append({"task": task_id, "kind": kind, "why": "does not apply to this task"})
                    continue
                try:
                    row = _run_one(server, envs[surface], out_dir / "episodes", inst, kind, plan, surface)
                except Exception as e:  # noqa: BLE001 - one broken run is reported, the set goes on
                    row = {"id": _item_id(inst, surface, kind), "task": task_id, "kind": kind, "label": None,
                           "oracle_error": f"the run raised {type(e).__name__}: {e}"}  # fmt: skip
                why = _rejection(row)
                (rejected if why else items).append({**row, "why": why} if why else row)
                if on_item is not None:
                    on_item({**row, "rejected": why})
    return items, rejected, skipped


def _item_id(inst: Any, surface: str, kind: str) -> str:
    return f"{inst.spec.id}@{inst.seed}{'' if surface == 'browser' else '/' + surface}#{kind}"


def _run_one(server: Any, env: Any, episodes: Path, inst: Any, kind: str, plan: Plan,
             surface: str = "browser") -> dict[str, Any]:  # fmt: skip
    from venuskit.eval.world import OraclePolicy, run_world_task
    from venuskit.tasks.oracle import Oracle

    task_id = inst.spec.id
    policy: Any = "oracle"
    if plan.steps is not None:
        policy = OraclePolicy(env, Oracle(plan.steps, surface), surface)
    run = run_world_task(task_id, inst.seed, policy=policy, out=episodes, server=server, env=env, surface=surface,
                         stop_at_progress=plan.stop_at_progress)  # fmt: skip
    k = KIND_BY_NAME[kind]
    return {"id": _item_id(inst, surface, kind), "task": task_id, "seed": inst.seed, "kind": kind,
            "surface": surface, "locale": locale_of(inst), "type": task_type(inst.spec),
            "adversarial": k.adversarial, "intended": list(k.intended), "label": run.verdict.verdict,
            "reason": run.verdict.reason, "episode_dir": str(run.episode_dir.relative_to(episodes.parent)),
            "goal": inst.goal, "keypoints": [kp.desc for kp in inst.keypoints], "end": run.episode.outcome.reason,
            "oracle_error": run.oracle_error}  # fmt: skip


def _rejection(row: dict[str, Any]) -> str | None:
    if row["oracle_error"]:
        return f"the script broke: {row['oracle_error']}"
    if row["label"] not in row["intended"]:
        return f"the contract says {row['label']!r} ({row['reason']}), the kind intends {'/'.join(row['intended'])}"
    return None


def _counts(items: list[dict[str, Any]]) -> dict[str, Any]:
    return {"episodes": len(items), "by_label": dict(Counter(i["label"] for i in items)),
            "by_kind": dict(Counter(i["kind"] for i in items)),
            "by_locale": dict(Counter(i.get("locale", "en") for i in items)),
            "by_surface": dict(Counter(i.get("surface", "browser") for i in items)),
            "by_type": dict(Counter(i.get("type", "state") for i in items)),
            "adversarial": sum(i["adversarial"] for i in items)}  # fmt: skip


def load_index(set_dir: Path | str) -> dict[str, Any]:
    path = Path(set_dir) / INDEX
    if not path.exists():
        raise FileNotFoundError(f"{set_dir} holds no verifier bench set (no {INDEX}); build one with build_set "
                                "or `venus verify bench --set DIR`.")  # fmt: skip
    index = json.loads(path.read_text(encoding="utf-8"))
    if index.get("format") != SET_FORMAT:
        raise ValueError(f"{path} has format {index.get('format')!r}; this venuskit reads format {SET_FORMAT}.")
    return index


# ---- metrics (pure) ------------------------------------------------------------------------------


def _div(num: float, den: float) -> float:
    """num/den, and 0.0 for an empty denominator (the usual convention for precision with no positives)."""
    return num / den if den else 0.0


def confusion(labels: Sequence[str], preds: Sequence[str], classes: Sequence[str] = LABELS) -> list[list[int]]:
    """Rows: the true label; columns: the prediction, both in `classes` order."""
    pos = {c: i for i, c in enumerate(classes)}
    matrix = [[0] * len(classes) for _ in classes]
    for y, p in zip(labels, preds, strict=True):
        if y not in pos or p not in pos:
            raise ValueError(f"Labels and predictions must be in {list(classes)}; got {y!r} -> {p!r}.")
        matrix[pos[y]][pos[p]] += 1
    return matrix


def binary_scores(labels: Sequence[str], preds: Sequence[str], positive: str = "completed") -> dict[str, float]:
    """Precision, recall, F1 and false-positive rate of `positive` against every other label."""
    pairs = list(zip(labels, preds, strict=True))
    tp = sum(y == positive and p == positive for y, p in pairs)
    fp = sum(y != positive and p == positive for y, p in pairs)
    fn = sum(y == positive and p != positive for y, p in pairs)
    tn = len(pairs) - tp - fp - fn
    precision, recall = _div(tp, tp + fp), _div(tp, tp + fn)
    return {"precision": precision, "recall": recall, "f1": _div(2 * precision * recall, precision + recall),
            "fpr": _div(fp, fp + tn), "tp": tp, "fp": fp, "fn": fn, "tn": tn}  # fmt: skip


def cohen_kappa(labels: Sequence[str], preds: Sequence[str], classes: Sequence[str] = LABELS) -> float:
    """Cohen's kappa: agreement beyond what the two marginal distributions give by chance."""
    matrix = confusion(labels, preds, classes)
    n = sum(map(sum, matrix))
    if n == 0:
        return 0.0
    observed = sum(matrix[i][i] for i in range(len(classes))) / n
    chance = sum(sum(matrix[i]) * sum(row[i] for row in matrix) for i in range(len(classes))) / n**2
    if chance == 1.0:  # both sides used one and the same class throughout
        return 1.0 if observed == 1.0 else 0.0
    return (observed - chance) / (1 - chance)


def macro_f1(labels: Sequence[str], preds: Sequence[str], classes: Sequence[str] = LABELS) -> float:
    """Mean per-class F1 over the classes that occur in the labels or the predictions (as scikit-learn does)."""
    present = [c for c in classes if c in set(labels) | set(preds)]
    return statistics.fmean(binary_scores(labels, preds, c)["f1"] for c in present) if present else 0.0


def adversarial_catch(adversarial: Sequence[bool], preds: Sequence[str]) -> float:
    """Share of adversarial episodes (all of which are not completed) that the verifier did not call completed."""
    caught = [p != "completed" for a, p in zip(adversarial, preds, strict=True) if a]
    return _div(sum(caught), len(caught))


def cost_summary(costs: Sequence[dict[str, float]]) -> dict[str, dict[str, float]]:
    """Median and mean per episode of each cost field (calls, tokens, seconds)."""
    fields = ("calls", "tokens", "seconds")
    return {f: {"median": _num(statistics.median([c.get(f, 0) for c in costs])) if costs else 0.0,
                "mean": _num(statistics.fmean([c.get(f, 0) for c in costs])) if costs else 0.0,
                "total": _num(sum(c.get(f, 0) for c in costs))} for f in fields}  # fmt: skip


def _num(x: float) -> float:
    return round(float(x), 4)


def score(items: Sequence[dict[str, Any]], preds: Sequence[str], costs: Sequence[dict[str, float]]) -> dict[str, Any]:
    """Every bench metric for one verifier over the labelled items (in item order)."""
    labels = [i["label"] for i in items]
    b = binary_scores(labels, preds)
    by_kind: dict[str, dict[str, int]] = {}
    for item, p in zip(items, preds, strict=True):
        row = by_kind.setdefault(item["kind"], {"n": 0, "correct": 0, "called_completed": 0})
        row["n"] += 1
        row["correct"] += p == item["label"]
        row["called_completed"] += p == "completed"
    return {"n_episodes": len(items), "precision": _num(b["precision"]), "recall": _num(b["recall"]),
            "f1": _num(b["f1"]), "fpr": _num(b["fpr"]), "kappa": _num(cohen_kappa(labels, preds)),
            "macro_f1_4way": _num(macro_f1(labels, preds)),
            "accuracy": _num(_div(sum(y == p for y, p in zip(labels, preds, strict=True)), len(labels))),
            "adversarial_catch": _num(adversarial_catch([i["adversarial"] for i in items], preds)),
            "n_adversarial": sum(bool(i["adversarial"]) for i in items),
            "confusion": {"classes": list(LABELS), "rows_true_cols_pred": confusion(labels, preds)},
            "cost": cost_summary(costs), "by_kind": by_kind}  # fmt: skip


# ---- running verifiers over the set --------------------------------------------------------------

Verify = Callable[[Path, "list[str] | None"], Any]  # (episode dir, keypoints or None) -> venuskit.verify Report


def item_keypoints(item: dict[str, Any]) -> list[str] | None:
    """The contract's keypoint descriptions; None for an infeasible task, which has none, so that the
    verifier splits the goal itself instead of calling zero keypoints trivially satisfied."""
    return list(item["keypoints"]) or None


def run_verifier(set_dir: Path | str, items: Sequence[dict[str, Any]], verify: Verify,
                 on_item: Callable[[dict[str, Any], Any], None] | None = None) -> dict[str, Any]:  # fmt: skip
    """Verify every item; returns the scored metrics plus each item's prediction. A verifier that raises on
    one episode does not lose the bench: the item is left out of the metrics and listed under `errors`."""
    kept, preds, costs, rows, errors = [], [], [], [], []
    for item in items:
        try:
            report = verify(Path(set_dir) / item["episode_dir"], item_keypoints(item))
        except Exception as e:  # noqa: BLE001 - one broken episode or judge must not throw the run away
            errors.append({"id": item["id"], "error": f"{type(e).__name__}: {e}"})
            continue
        kept.append(item)
        preds.append(report.verdict)
        cost = {"calls": report.cost.calls, "tokens": report.cost.tokens, "seconds": report.cost.seconds}
        costs.append(cost)
        rows.append({"id": item["id"], "verdict": report.verdict, "reason": report.reason, **cost})
        if on_item is not None:
            on_item(item, report)
    return {**score(kept, preds, costs), "errors": errors, "predictions": rows}


def run_bench(set_dir: Path | str, judges: Sequence[Any], *, config: Any = None, baseline: bool = True,
              kinds: Sequence[str] | None = None,
              on_item: Callable[[str, dict[str, Any], Any], None] | None = None) -> dict[str, Any]:  # fmt: skip
    """SGV (`verify_episode`) and, side by side, the naive baseline (`verify_final_screenshot`, the final
    screenshot only) with the same judges, over the set's items (only those of `kinds`, if given). Returns
    SGV's metrics at the top level and the baseline's under `baseline`; per-item predictions under `items`."""
    from venuskit.verify.sgv import SGVConfig, verify_episode, verify_final_screenshot

    index = load_index(set_dir)
    unknown = set(kinds or ()) - set(KIND_BY_NAME)
    if unknown:
        raise ValueError(f"Unknown episode kind {sorted(unknown)[0]!r}; known kinds: {', '.join(KIND_BY_NAME)}.")
    items = [i for i in index["items"] if not kinds or i["kind"] in kinds]
    cfg = config or SGVConfig()
    sgv = run_verifier(set_dir, items, lambda d, kp: verify_episode(d, judges, config=cfg, keypoints=kp),
                       None if on_item is None else lambda i, r: on_item("sgv", i, r))  # fmt: skip
    result: dict[str, Any] = {**_public(sgv), "set": str(set_dir), "set_counts": index["counts"],
                              "rejected": len(index["rejected"])}  # fmt: skip
    per_item = {r["id"]: {"sgv": r["verdict"]} for r in sgv["predictions"]}
    if baseline:
        base = run_verifier(set_dir, items, lambda d, kp: verify_final_screenshot(d, judges, keypoints=kp),
                            None if on_item is None else lambda i, r: on_item("baseline", i, r))  # fmt: skip
        result["baseline"] = _public(base)
        for r in base["predictions"]:
            per_item.setdefault(r["id"], {})["baseline"] = r["verdict"]
    result["items"] = [{"id": i["id"], "kind": i["kind"], "adversarial": i["adversarial"], "label": i["label"],
                        **per_item.get(i["id"], {})} for i in items]  # fmt: skip
    return result


def _public(scored: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in scored.items() if k != "predictions"}
