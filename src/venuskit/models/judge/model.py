"""The nano judge as a chat model: `complete(messages) -> (text, usage)` answers the verifier's questions in the
verifier's reply format, so `venuskit.models.serve.ChatServer` serves it like any model (`venus serve judge`).

    keypoints over steps (SGV's final call, a window, WebJudge's per-screenshot call)
        -> {"keypoints": [{"id": 1, "status": "satisfied", "step": 7, "reason": "p=0.97"}, ...]}
    one proposed step (the step verifier's model slot)
        -> {"verdict": "INCORRECT", "reasoning": "..."}
    "list the key points of this task" -> {"keypoints": []}: this judge decides keypoints, it does not list them

A keypoint is `satisfied` when p >= `hi`, `contradicted` when p <= `lo`, else `not_visible` (a vote that does
not count); thresholds are chosen on held-out training folds and stored with the weights.

The checkpoint ships in the package (`weights/judge.pt` with `weights/judge.json`: sha256, thresholds,
training figures; `weights/MODEL_CARD.md`). A missing or altered file is a `JudgeError` naming the file and the
command that rebuilds it.
"""

from __future__ import annotations

import hashlib
import io
import json
import threading
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from venuskit.infra import untrusted
from venuskit.infra.atomic import write_bytes, write_json, write_text
from venuskit.models.judge import features as F
from venuskit.models.judge.tokens import count_prompt_tokens, text_tokens
from venuskit.models.judge.wire import Request, WireError, parse_request

WEIGHTS = Path(__file__).with_name("weights") / "judge.pt"
REBUILD = "venus verify train-judge --seed 0"
FEATURE_VERSION = 1


class JudgeError(RuntimeError):
    """The judge's checkpoint is missing, altered, or of another feature version."""


@dataclass
class Thresholds:
    hi: float = 0.8  # p(satisfied) at or above: satisfied
    lo: float = 0.2  # at or below: contradicted
    step: float = 0.5  # p(wrong) at or above: the proposed step is rejected


@dataclass
class Card:
    """What is stored next to the weights."""

    sha256: str
    feature_version: int = FEATURE_VERSION
    thresholds: Thresholds = field(default_factory=Thresholds)
    config: dict[str, Any] = field(default_factory=dict)
    training: dict[str, Any] = field(default_factory=dict)


def _digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def save(net: Any, path: Path, card: Card) -> Card:
    """Write the weights (fp16), the card beside them (`judge.json`) and the model card (`MODEL_CARD.md`), each
    atomically; returns the card with the file's digest."""
    import torch

    path.parent.mkdir(parents=True, exist_ok=True)
    state = {k: v.half() if v.is_floating_point() else v for k, v in net.state_dict().items()}
    buf = io.BytesIO()
    torch.save({"state_dict": state, "config": card.config, "feature_version": FEATURE_VERSION}, buf)
    write_bytes(path, buf.getvalue(), durable=True)
    card.sha256 = _digest(path)
    write_json(path.with_suffix(".json"), asdict(card), durable=True, indent=1)
    write_text(path.with_name("MODEL_CARD.md"), model_card(card), durable=True)
    return card


def _data_line(t: dict[str, Any], req: dict[str, Any], counts: dict[str, Any], picks: str) -> str:
    loop = t.get("loop")
    if loop:  # a `venus loop --judge` round's judge: the flywheel's rollouts, and the base set's episodes if any
        return (f"- Data: contract-labelled world episodes of **training templates** only, train seeds: the "
                f"rollouts of `venus loop` run `{loop['run']}`, rounds 0-{loop['rounds'] - 1} "
                f"({loop['rollout_episodes']} episodes; keypoint rows per round {json.dumps(loop['rows_by_round'])})"
                f", plus {loop['judge_set_episodes']} episodes of the judge set `{loop['judge_set'] or 'none'}`; "
                f"{t.get('episodes', '?')} episodes in all.")  # fmt: skip
    return (f"- Data: contract-labelled world episodes of the **training templates** only, train seeds "
            f"(`src/venuskit/tasks/splits.toml`): a {req.get('set_kind', '?')} set of split {req.get('split', '?')}, "
            f"{req.get('n_tasks', '?')} tasks, seed {req.get('seed', '?')} ({picks}); "
            f"{counts.get('episodes', '?')} episodes by label {json.dumps(counts.get('by_label', {}))}"
            + (f", by policy {json.dumps(counts['by_policy'])}" if counts.get("by_policy") else "")
            + (f"; synthesised train-split tasks from {', '.join(t['task_files'])} join the hand-written training "
               "templates in the pool" if t.get("task_files") else "")
            + "".join(_also_line(a) for a in t.get("also", []))
            + ".")  # fmt: skip


def _build_options(req: dict[str, Any], task_files: list[str], primary: bool = True) -> list[str]:
    """The `venus verify train-judge` options that build the set of `req` (beside its --seed). The task files
    join the primary set's pool; another set's (`--also`) request does not say whether they joined its pool, so
    its picks do: a pool with them is mostly synthesised tasks."""
    opts = []
    if req.get("n_tasks", 32) != 32:
        opts.append(f"--n-tasks {req['n_tasks']}")
    if req.get("others", 4) != 4:
        opts.append(f"--others {req['others']}")
    if req.get("locales"):
        opts.append(f"--locales {','.join(req['locales'])}")
    synthesised = any(str(pick[0]).startswith("synth.") for pick in req.get("tasks", []))
    opts += [f"--tasks {Path(f).stem}" for f in task_files if primary or synthesised]
    if req.get("limit") is not None:
        opts.append(f"--max-tasks {req['limit']}")
    return opts


def _also_line(also: dict[str, Any]) -> str:
    req, counts = also["request"], also["counts"]
    locales = f", locales {','.join(req['locales'])}" if req.get("locales") else ""
    return (f"; and the set `{also['set']}` (seed {req.get('seed')}, {req.get('n_tasks')} tasks{locales}): "
            f"{counts.get('episodes', '?')} episodes by label {json.dumps(counts.get('by_label', {}))}")


def _reproduce(t: dict[str, Any]) -> str:
    seed = t.get("config", {}).get("seed", 0)
    if t.get("loop"):
        return f"rerun `venus loop --judge` into the same folder (seed {seed}); its `loop.json` holds every option"
    req, files = t.get("set_request", {}), t.get("task_files", [])
    set_seed = req.get("seed", seed)
    opts = [f"--seed {set_seed}", *_build_options(req, files)]
    also = t.get("also", [])
    if not also:
        opts += [] if seed == set_seed else [f"--fit-seed {seed}"]
        return f"`venus verify train-judge {' '.join(opts)}` (`--workers N` runs it on N processes, the same set)"
    first = [f"`venus verify train-judge --seed {a['request'].get('seed', 0)} "
             f"{' '.join(_build_options(a['request'], files, primary=False))} --set runs/judge-{a['set']} "
             f"--out runs/judge-{a['set']}/judge.pt`" for a in also]
    opts += [f"--set runs/judge-{t.get('set', 'train')}", *(f"--also runs/judge-{a['set']}" for a in also),
             f"--fit-seed {seed}"]  # fmt: skip
    return (f"build the other sets with {', '.join(first)} (each also fits a judge of its own), then "
            f"`venus verify train-judge {' '.join(opts)}` (`--workers N` runs each on N processes, the same sets)")


def model_card(card: Card) -> str:
    """The judge's MODEL_CARD.md: data, rows, thresholds, out-of-fold figures, config and digest, how to rebuild."""
    t = card.training
    req, counts = t.get("set_request", {}), t.get("set_counts", {})
    picks = f"{len(req.get('tasks', []))} (task, seed, surface) picks, listed in `judge.json`" if req else "none"
    lines = [
        "# venus-judge: the nano keypoint judge",
        "",
        "A small network (two heads over evidence features and hashed word bags) that decides SGV's keypoints and",
        "checks proposed steps. Served through the OpenAI wire format (`venus serve judge`), used as",
        "`venus verify … --judges ocr,log,nano` and as the step verifier's model slot.",
        "",
        _data_line(t, req, counts, picks),
        f"- Rows: {json.dumps(t.get('rows'))} from {json.dumps(t.get('templates'))} templates.",
        f"- Thresholds (out-of-fold, folds grouped by template): satisfied at p >= {card.thresholds.hi}, "
        f"contradicted at p <= {card.thresholds.lo}, step rejected at p >= {card.thresholds.step}.",
        f"- Out-of-fold figures: {json.dumps(t.get('out_of_fold', {}))}.",
        f"- Config: {json.dumps(t.get('config', {}))}; sha256 `{card.sha256}` (of `{WEIGHTS.name}`).",
        f"- Reproduce: {_reproduce(t)}.",
        "- Not for: pages unlike the training world's (the figures on MiniWoB++ in docs/verify.md say how far it",
        "  carries), or any use where a wrong `completed` is costly without the rule judges beside it.",
    ]
    return "\n".join(lines) + "\n"


def load_card(path: Path = WEIGHTS) -> Card:
    side = path.with_suffix(".json")
    if not path.is_file() or not side.is_file():
        raise JudgeError(f"The judge's checkpoint {path} (or its card {side.name}) is missing; rebuild it with "
                         f"`{REBUILD}`.")  # fmt: skip
    try:
        raw = json.loads(side.read_text("utf-8"))
        card = Card(**{**raw, "thresholds": Thresholds(**raw.get("thresholds", {}))})
    except (ValueError, TypeError) as e:
        raise JudgeError(f"The judge's card {side} is unreadable ({e}); rebuild it with `{REBUILD}`.") from e
    if card.sha256 != _digest(path):
        raise JudgeError(f"The judge's checkpoint {path} does not match the digest in {side.name} (altered or "
                         f"truncated); rebuild it with `{REBUILD}`.")  # fmt: skip
    if card.feature_version != FEATURE_VERSION:
        raise JudgeError(f"The judge's checkpoint {path} was trained on features v{card.feature_version}, this "
                         f"venuskit computes v{FEATURE_VERSION}; rebuild it with `{REBUILD}`.")  # fmt: skip
    return card


def read_screen(png: bytes) -> list[tuple[tuple[int, int, int, int], str]]:
    """The text lines of a screenshot with their boxes (venus-nano's reader, shared with the verifier's OCR)."""
    from venuskit.models.nano.reader import default_reader

    return [(tuple(line.box), line.text) for line in default_reader().read(png).lines if line.text]


class JudgeModel:
    """The trained judge behind the chat interface. Thread-safe (one forward pass at a time)."""

    def __init__(self, net: Any, card: Card, name: str = "venus-judge",
                 checkpoint: dict[str, str] | None = None) -> None:  # fmt: skip
        self.net, self.card, self.name = net.eval(), card, name
        # Which file decides (name and SHA-256, never a path): servers list it, verdicts record it.
        self.checkpoint = checkpoint
        self._lock = threading.Lock()

    @classmethod
    def load(cls, path: Path | str = WEIGHTS, name: str = "venus-judge") -> JudgeModel:
        import torch

        from venuskit.models.judge.network import JudgeNet

        path = Path(path)
        card = load_card(path)
        try:
            blob = torch.load(path, map_location="cpu", weights_only=True)
            net = JudgeNet(**blob.get("config", {}))
            net.load_state_dict({k: v.float() for k, v in blob["state_dict"].items()})
        except (RuntimeError, KeyError, TypeError, ValueError) as e:
            raise JudgeError(f"The judge's checkpoint {path} cannot be loaded ({e}); rebuild it with "
                             f"`{REBUILD}`.") from e
        return cls(net, card, name, {"name": path.name, "sha256": card.sha256})

    # ---- the chat interface ------------------------------------------------------------------------

    def complete(self, messages: list[dict[str, Any]], **sampling: Any) -> tuple[str, dict[str, Any]]:
        """The reply to one verifier request and its token usage. WireError (a ValueError) for a request that
        is not one of the verifier's questions."""
        req = parse_request(messages)
        if req.kind == "keypoints":
            reply: dict[str, Any] = {"keypoints": []}
        elif req.kind == "step":
            reply = self.check_step(req)
        else:
            reply = {"keypoints": self.decide(req)}
        text = json.dumps(reply, ensure_ascii=False)
        return text, {"prompt_tokens": count_prompt_tokens(messages), "completion_tokens": text_tokens(text)}

    def decide(self, req: Request) -> list[dict[str, Any]]:
        probs = self.keypoint_probs(req, F.read_evidence(req, read_screen))
        t = self.card.thresholds
        step = req.shown[-1][0].index if req.shown else (req.history[-1].index if req.history else None)
        out = []
        for i, p in enumerate(probs, start=1):
            status = "satisfied" if p >= t.hi else "contradicted" if p <= t.lo else "not_visible"
            out.append({"id": i, "status": status, "step": step, "reason": f"p(satisfied)={p:.2f}"})
        return out

    def keypoint_probs(self, req: Request, ev: F.Evidence) -> list[float]:
        import torch

        from venuskit.models.judge.network import pad

        if not req.keypoints:
            return []
        feats = np.stack([F.keypoint_features(kp, ev) for kp in req.keypoints])
        bags = [F.keypoint_bags(kp, ev) for kp in req.keypoints]
        with self._lock, torch.no_grad():
            logits = self.net.keypoints(torch.from_numpy(feats), pad([b[0] for b in bags], F.MAX_BAG),
                                        pad([b[1] for b in bags], F.MAX_BAG))  # fmt: skip
        return torch.sigmoid(logits).tolist()

    def check_step(self, req: Request) -> dict[str, Any]:
        p = self.step_prob(req)
        if p < self.card.thresholds.step:
            return {"verdict": "CORRECT", "reasoning": f"p(wrong)={p:.2f}"}
        return {"verdict": "INCORRECT", "reasoning": f"p(wrong)={p:.2f}: the proposed action does not serve the goal"}

    def step_prob(self, req: Request) -> float:
        import torch

        from venuskit.models.judge.network import pad

        feats, bag = step_inputs(req)
        with self._lock, torch.no_grad():
            logit = self.net.steps(torch.from_numpy(feats[None]), pad([bag], F.MAX_BAG))
        return float(torch.sigmoid(logit)[0])


def step_inputs(req: Request) -> tuple[np.ndarray, list[int]]:
    """The step head's inputs: what is under the proposed click on the current screenshot (the last image)."""
    if not req.images:
        raise WireError("A step check needs the current screenshot.")
    png = req.images[-1][1]
    point = req.proposed.point if req.proposed else None
    target, blank, text = "", 0.0, "\n".join(t for _, t in read_screen(png))
    if point is not None:
        from venuskit.models.nano.reader import default_reader

        with untrusted.open_image(png) as im:
            rgb = np.asarray(im.convert("RGB"))
        gray = rgb.mean(axis=2)
        blank = F.blankness(gray, rgb, point)
        target = _under(default_reader().read(png).lines, point, rgb.shape[1], rgb.shape[0])
    return F.step_features(req, target, blank, text), F.step_bag(req, target)


def _under(lines: list[Any], point: tuple[float, float], w: int, h: int) -> str:
    x, y = point[0] * w, point[1] * h
    best, dist = "", 7.0
    for line in lines:
        x1, y1, x2, y2 = line.box
        d = max(x1 - x, 0, x - x2) + max(y1 - y, 0, y - y2)
        if line.text and d < dist:
            best, dist = line.text, d
    return best
