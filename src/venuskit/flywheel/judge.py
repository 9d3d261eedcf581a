"""Training the nano judge from contract-labelled world episodes of the training templates.

Rows are made from exactly the requests the judge will be sent: SGV runs over each episode with a capturing
judge in the model slot (with the rule judges, so that it sees the keypoints rules leave open; and alone, so
that it sees every keypoint), and the step verifier replays each recorded step and each constructed fault
with a capturing step judge. Each request is read by the judge's own featurizer. Labels come from the
contracts (this is training data: the contract is its label source, and no verifier reads it here):

- a keypoint from the goal: true when the episode is `completed`; otherwise the contract keypoints that share
  a value with it (a quoted name, a code, a number) decide (all must hold); with none sharing one, false when
  no contract keypoint holds, else the row is left out (unknown);
- a contract keypoint text (the `contract` keypoint source): its own contract result;
- a proposed step: a fault by construction (`eval.step_bench`) is 1, a recorded right step 0.

Only training templates (`tasks.splits`) on train seeds may be used: `build_rows` refuses anything else.

    net, card, metrics = train_judge(Path("runs/judge-train"), seed=0)
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from venuskit.eval.verify_bench.world_set import build_set, load_index

TRAIN_SET = {"n_tasks": 32, "others": 4}  # the set `venus verify train-judge` builds (training templates)


class CaptureJudge:
    """A model-slot judge that answers nothing (every vote abstains) and keeps what it was asked: the request
    messages, read by the judge's featurizer into keypoint rows."""

    is_rule = False

    def __init__(self, name: str = "capture") -> None:
        from venuskit.verify.report import Cost

        self.name, self.cost = name, Cost()
        self.asked: list[tuple[list[str], Any]] = []  # (keypoint texts, features.Evidence)

    def check_window(self, window: Any, keypoints: list[tuple[int, str]]) -> list[Any]:
        from venuskit.verify.judges import abstain_all

        return abstain_all(self.name, keypoints, "capture")

    def final(self, goal: str, evidence: list[Any], keypoints: list[tuple[int, str]], history: str = "") -> list[Any]:
        from venuskit.models.judge import features as F
        from venuskit.models.judge.model import read_screen
        from venuskit.models.judge.wire import parse_request
        from venuskit.verify.judges import abstain_all, final_messages

        req = parse_request(final_messages(goal, evidence, keypoints, history))
        self.asked.append((list(req.keypoints), F.read_evidence(req, read_screen)))
        return abstain_all(self.name, keypoints, "capture")


@dataclass
class StepCapture:
    """A step judge that lets every proposal pass and keeps the request's step-head inputs."""

    name: str = "capture"
    asked: list[tuple[Any, list[int]]] = field(default_factory=list)

    def judge_step(self, intro: str, images: list[tuple[str, bytes]]) -> tuple[str | None, str]:
        from venuskit.models.judge.model import step_inputs
        from venuskit.models.judge.wire import parse_request
        from venuskit.verify.judges import step_messages

        self.asked.append(step_inputs(parse_request(step_messages(intro, images))))
        return None, "capture"


def keypoint_label(text: str, contract: dict[str, Any], label: str) -> float | None:
    """The label of a keypoint text on an episode whose contract verdict is `contract` (see the module doc)."""
    from venuskit.models.judge.features import has, values

    results = [k for k in contract.get("keypoints", []) if isinstance(k, dict)]
    exact = [k for k in results if k.get("desc") == text]
    if exact:
        return float(bool(exact[0].get("ok")))
    if label == "completed":
        return 1.0
    vals = values(text)
    shared = [k for k in results if any(has(str(k.get("desc", "")), v) for v in vals)]
    if shared:
        return float(all(k.get("ok") for k in shared))
    return 0.0 if not any(k.get("ok") for k in results) else None


def check_training_items(items: list[dict[str, Any]]) -> None:
    """Refuse any item of a held-out template or outside the train seeds."""
    from venuskit.tasks import splits

    s = splits.load()
    bad = [i["id"] for i in items if splits.world_split(i["task"]) != "train"
           or not splits.in_range(int(i["seed"]), s.world_train_seeds)]  # fmt: skip
    if bad:
        raise ValueError(f"The judge trains on training templates and train seeds only; {len(bad)} items are not "
                         f"(e.g. {bad[0]}).")  # fmt: skip


def keypoint_rows(folder: Path, task: str, label: str, given: list[str] | None, rules: list[Any], into: Any) -> None:
    """The keypoint rows of one contract-labelled episode, added to `into` (a `train.judge.Rows`): SGV is run three
    times with a capturing judge in the model slot (beside the rule judges; alone; alone on the `given` keypoint
    texts, or on the goal's again when there are none, as the shipped judge was trained), and every keypoint it is
    asked about gets the contract's label where one follows."""
    from venuskit.models.judge import features as F
    from venuskit.record.store import load_episode
    from venuskit.verify.sgv import SGVConfig, prepare, verify_episode

    contract = load_episode(folder).verdicts.get("contract", {})
    config = SGVConfig()
    prepared = prepare(folder, evidence=config.evidence, targets=config.click_targets)  # read once, verified thrice
    for judges, keypoints in ((rules, None), ([], None), ([], given)):
        capture = CaptureJudge()
        verify_episode(prepared, [*judges, capture], config=config, keypoints=keypoints)
        for texts, ev in capture.asked:
            for text in texts:
                y = keypoint_label(text, contract, label)
                if y is not None:
                    feats, bags = F.keypoint_features(text, ev), F.keypoint_bags(text, ev)
                    into.add(feats, bags, y, task, beside_rules=bool(judges))


def rollout_rows(labelled: list[dict[str, Any]], rules: list[Any] | None = None) -> Any:
    """Keypoint rows from the loop's contract-labelled rollouts (rows of `flywheel.loop.label`): training tasks on
    train seeds only (`check_training_items` refuses the rest); an episode that never ran is left out. The label is
    the rollout's contract verdict; the contract's own keypoint texts are the given keypoints of the third pass."""
    from venuskit.train.judge import Rows
    from venuskit.verify.judges import make_judges

    usable = [r for r in labelled if not r.get("infra_error") and r.get("episode_dir")]
    check_training_items([{"id": r["episode_dir"], "task": r["template"], "seed": r["seed"]} for r in usable])
    rules = rules if rules is not None else make_judges("ocr,log")
    kp = Rows()
    for r in usable:
        given = [str(k["desc"]) for k in r.get("keypoints", []) if isinstance(k, dict) and k.get("desc")]
        keypoint_rows(Path(r["episode_dir"]), r["template"], r["contract"], given or None, rules, kp)
    return kp


def cached_rows(path: Path, make: Callable[[], dict[str, Any]] | None = None) -> dict[str, Any]:
    """Judge rows (head -> `train.judge.Rows`) kept in a run folder: a pickle that run wrote, made by `make` and
    written when absent."""
    import pickle

    from venuskit.infra.atomic import write_bytes

    if path.exists():
        with path.open("rb") as f:
            return pickle.load(f)  # noqa: S301 - written by this run (a resumed round reads its own rows)
    if make is None:
        raise ValueError(f"{path} is missing: those judge rows were never written; rerun the loop from that round.")
    rows = make()
    write_bytes(path, pickle.dumps(rows), durable=True)
    return rows


def merge_rows(parts: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """One head -> Rows mapping from several, in order."""
    from venuskit.train.judge import Rows

    merged: dict[str, Any] = {}
    for part in parts:
        for head, rows in part.items():
            into = merged.setdefault(head, Rows())
            for i in range(len(rows)):
                into.add(rows.feats[i], rows.bags[i], rows.labels[i], rows.groups[i], rows.beside_rules[i])
    return merged


def bench_judge(set_dir: str, weights: str, out: Path, key: str = "judge_bench") -> dict[str, Any]:
    """SGV with the rule judges and the judge at `weights` on a held-out set (a world or MiniWoB++ set; goal
    keypoints, generic evidence): precision and recall of `completed` with Wilson intervals, as `<key>_*`; the
    whole bench result goes to `out`."""
    from venuskit.eval.verify_bench.protocol import run_bench
    from venuskit.infra.atomic import write_json
    from venuskit.verify.judges import make_judges

    result = run_bench(set_dir, make_judges("ocr,log,nano", nano_weights=weights), methods=("sgv",))
    write_json(out, result, durable=True)
    return {f"{key}_episodes": result["n_episodes"], f"{key}_precision": result["precision"],
            f"{key}_recall": result["recall"],
            f"{key}_ci95": {m: result["ci95"].get(m) for m in ("precision", "recall")}}  # fmt: skip


@dataclass(frozen=True)
class RowsWorkerSpec:
    """What a worker making judge rows needs (it crosses processes): the set and the task files it names."""

    set_dir: str
    task_files: tuple[str, ...] = ()

    def __call__(self) -> RowsWorker:
        return RowsWorker(self)


class RowsWorker:
    """Makes the keypoint and step rows of one task instance's episodes per job (its episodes share screens, so
    they share this process's OCR cache)."""

    def __init__(self, spec: RowsWorkerSpec) -> None:
        from venuskit.tasks.spec import register_file
        from venuskit.verify.judges import make_judges

        for path in spec.task_files:
            register_file(path)
        self.set_dir, self.rules = Path(spec.set_dir), make_judges("ocr,log")

    def run(self, job: dict[str, Any]) -> dict[str, Any]:
        kp, steps = item_rows(self.set_dir, job["items"], self.rules)
        return {"key": job["key"], "keypoints": kp, "steps": steps}

    def close(self) -> None:
        return None


def item_rows(set_dir: Path, items: list[dict[str, Any]], rules: list[Any]) -> tuple[Any, Any]:
    """The keypoint rows of every item and the step rows of its right ones (the faults by construction are made
    against the wrong episodes among `items`, so one task instance's items come together)."""
    from venuskit.eval.step_bench import (
        RIGHT,
        RIGHT_KINDS,
        episode_proposals,
        load_replay,
        verify_proposal,
        wrong_episodes,
    )
    from venuskit.train.judge import Rows
    from venuskit.verify.step import StepVerifier

    kp, steps = Rows(), Rows()
    for item in items:
        keypoint_rows(set_dir / item["episode_dir"], item["task"], item["label"], item.get("keypoints") or None,
                      rules, kp)  # fmt: skip
    wrong = wrong_episodes(set_dir, items)
    for item in (i for i in items if i["kind"] in RIGHT_KINDS):
        episode, pngs = load_replay(set_dir / item["episode_dir"])
        capture = StepCapture()
        verifier = StepVerifier(judge=capture, rules=True)
        for p in episode_proposals(episode, pngs, partial=item["kind"] == "partial",
                                   wrong=wrong.get((item["task"], item["seed"]), ())):  # fmt: skip
            before = len(capture.asked)
            verify_proposal(verifier, None, episode, p)
            if len(capture.asked) > before:
                feats, bag = capture.asked[-1]
                steps.add(feats, (bag,), float(p.kind != RIGHT), item["task"])
    return kp, steps


def build_rows(set_dir: Path | str, *, on_item: Callable[[str], None] | None = None, workers: int = 1,
               task_files: Sequence[str] = ()) -> dict[str, Any]:  # fmt: skip
    """Keypoint and step rows from every episode of a training set, one job per task instance on
    `runs.parallel.run_jobs` (`workers` processes; the rows come back in the set's order, as one process makes
    them). `task_files`: the synthesised task files the set's items name."""
    from venuskit.runs.parallel import Parallel, run_jobs

    set_dir = Path(set_dir)
    items = load_index(set_dir)["items"]
    check_training_items(items)
    groups: dict[str, list[dict[str, Any]]] = {}
    for item in items:
        groups.setdefault(f"{item['task']}@{item['seed']}", []).append(item)
    jobs = [{"key": k, "items": v} for k, v in groups.items()]
    made: dict[str, dict[str, Any]] = {}

    def record(result: dict[str, Any]) -> None:
        if result.get("infra_error"):
            raise RuntimeError(f"Judge rows of {result['key']} could not be made: {result['infra_error']}")
        made[result["key"]] = result
        for item in groups[result["key"]]:
            if on_item is not None:
                on_item(item["id"])

    spec = RowsWorkerSpec(str(set_dir), tuple(str(p) for p in task_files))
    run_jobs(jobs, spec, Parallel(workers=workers), record)
    return merge_rows([{"keypoints": made[j["key"]]["keypoints"]} for j in jobs]
                      + [{"steps": made[j["key"]]["steps"]} for j in jobs])  # fmt: skip


def set_rows(set_dir: Path, *, on_item: Callable[[str], None] | None = None, workers: int = 1,
             task_files: Sequence[str] = ()) -> dict[str, Any]:  # fmt: skip
    """`build_rows` of a training set, kept in it (`judge_rows.v<feature version>.pkl`) so that a later fit that
    names the set again (`train_judge(also=...)`) reads them instead of making them again. Delete the file after
    changing the rules or the featurizer's reading to make them again."""
    from venuskit.models.judge.model import FEATURE_VERSION

    check_training_items(load_index(set_dir)["items"])  # kept rows too: a held-out set never joins a fit
    path = set_dir / f"judge_rows.v{FEATURE_VERSION}.pkl"
    return cached_rows(path, lambda: build_rows(set_dir, on_item=on_item, workers=workers, task_files=task_files))


def train_judge(set_dir: Path | str, seed: int = 0, *, out: Path | None = None, build: bool = True,
                on_item: Callable[[str], None] | None = None, tasks: Sequence[str] = (),
                n_tasks: int = TRAIN_SET["n_tasks"], others: int = TRAIN_SET["others"],
                workers: int = 1, limit: int | None = None, locales: Sequence[str] = ("en", "zh"),
                also: Sequence[Path | str] = (), fit_seed: int | None = None) -> dict[str, Any]:  # fmt: skip
    """Build (or reuse) the training set, make the rows, fit, and write the weights, their card and the model
    card (default: the packaged weights). Returns the training figures. `tasks`: synthesised task files whose
    train-split tasks join the hand-written training templates in the set's pool (their held-out tasks never do:
    the set draws the train split, and `build_rows` checks every item again). `workers`: processes that run the
    set's episodes and then make its rows (`runs.parallel`); the set and the rows are those of one process.
    `limit`: the set holds only the first `limit` picks the build runs (`world_set.build_set`). `locales`: the
    task variants drawn. `also`: training sets built before (by other calls, e.g. other seeds or locales) whose
    rows join the fit, in order after this set's; every set's rows are kept in it (`set_rows`). `fit_seed`: seeds
    the folds, the initialisation and the batch order (default `seed`, which also picks the set's tasks)."""
    from venuskit.models.judge import model as M
    from venuskit.runs.parallel import Parallel
    from venuskit.tasks.spec import register_file
    from venuskit.tasks.synth.taskfile import task_file
    from venuskit.train.judge import JudgeTrainConfig, fit

    t0, c0 = time.perf_counter(), time.process_time()
    files = [str(task_file(p)) for p in tasks]
    for path in files:
        register_file(path)
    if build:
        build_set(set_dir, n_tasks, seed, split="train", others=others, parallel=Parallel(workers=workers),
                  task_files=files, limit=limit, locales=tuple(locales))  # fmt: skip
    r0 = time.perf_counter()
    dirs = [Path(set_dir), *(Path(d) for d in also)]
    where = [d.resolve() for d in dirs]
    twice = sorted({str(d) for d, r in zip(dirs, where, strict=True) if where.count(r) > 1})
    if twice:  # its rows would count twice in the fit and its thresholds
        raise ValueError(f"A training set is named more than once ({', '.join(twice)}): name each set once.")
    missing = [str(d) for d in dirs[1:] if not (d / "index.json").is_file()]
    if missing:
        raise FileNotFoundError(f"No training set at {', '.join(missing)}: build each with `venus verify train-judge "
                                f"--set DIR` (its own seed) first.")  # fmt: skip
    rows = merge_rows([set_rows(d, on_item=on_item, workers=workers, task_files=files) for d in dirs])
    t_rows = time.perf_counter() - r0
    net, card, metrics = fit(rows, JudgeTrainConfig(seed=seed if fit_seed is None else fit_seed))
    index = load_index(set_dir)
    card.training.update({"set": Path(set_dir).name, "set_request": index["request"], "set_counts": index["counts"],
                          "task_files": [Path(p).name for p in tasks],
                          "also": [{"set": d.name, **{k: load_index(d)[k] for k in ("request", "counts")}}
                                   for d in dirs[1:]],
                          "rows_seconds": round(t_rows, 1), "workers": workers})  # fmt: skip
    path = out or M.WEIGHTS
    card = M.save(net, path, card)  # the weights, judge.json and MODEL_CARD.md
    metrics.update({"weights": str(path), "bytes": path.stat().st_size,
                    "wall_seconds": round(time.perf_counter() - t0, 1),
                    "cpu_seconds_total": round(time.process_time() - c0, 1)})  # fmt: skip
    return metrics
