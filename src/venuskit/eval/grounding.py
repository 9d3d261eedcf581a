"""The grounding eval: the ScreenSpot-Pro protocol with the UI-Venus-2 grounding prompt and parse precedence.

Data: real ScreenSpot-Pro (`annotations/*.json` + `images/`, bbox [x1,y1,x2,y2] px with `img_size`) and
ScreenSpot-v2 (`screenspot_{mobile,desktop,web}_v2.json` + `screenspotv2_image/`, bbox [x,y,w,h] px; mirrors
that store [x1,y1,x2,y2] in 0..1 are read too), and what `venus synth grounding` writes in either layout.

Protocol (reference/ui-venus.md §2.5, §3.1): one user message, image then the grounding prompt, no system
message, thinking off, temperature 0. The reply is read as: a box [x1,y1,x2,y2] → its centre; two points
[x1,y1],[x2,y2] → their centre; a point [x,y]; else the numbers in it (2 → a point, 4 or more → the centre of the
first four). Values are on the 0-1000 grid. [-1,-1] is a refusal. A sample is correct when the normalised point
lies inside the normalised box (edges included); a negative sample (ScreenSpot-Pro's `gt_type: "negative"`, and
files written before that convention whose refusals have a bbox of -1s and say "positive") is correct when the
model refuses; a reply with no coordinates is `wrong_format`. Negative samples are reported under gt_type
"negative", as ScreenSpot-Pro's own breakdowns do.

Test-time zoom-in (`zoom` K > 1, as the strongest grounding methods of the ScreenSpot-Pro era do): the model is
asked once on the full screen; the window of 1/K of the screen's width and height around its answer is cropped
(whole pixels, shifted inside the screen) and the model is asked again on the crop, which it sees at the crop's own
resolution; the second answer is mapped back through `venuskit.actions.coords.CropFrame`. A first answer that
refuses or cannot be read is final; a second one that refuses or cannot be read keeps the first. Each record keeps
the first answer's score (`first_correctness`), so one run gives the figures with and without zoom on the same
samples (`metrics["zoom"]`).

Every answered sample is appended to `details.jsonl` at once, so an interrupted run resumes where it stopped;
samples whose request failed are not written and are retried on resume.
"""

from __future__ import annotations

import io
import json
import logging
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import FIRST_COMPLETED, Future, ThreadPoolExecutor, wait
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from venuskit.actions.coords import CropFrame, crop_around, normalise_box
from venuskit.actions.grounding import GT_NEGATIVE as NEGATIVE
from venuskit.actions.grounding import GT_POSITIVE as POSITIVE
from venuskit.actions.grounding import GroundingReply, parse_grounding
from venuskit.actions.history import grounding_messages
from venuskit.actions.types import Point
from venuskit.eval.metrics import wilson
from venuskit.eval.report import write_html_summary, write_json_report
from venuskit.infra import untrusted
from venuskit.models.openai_backend import ModelConfig, ModelError, OpenAIBackend, config_dict
from venuskit.synth.grounding.boxes import xywh_to_xyxy

log = logging.getLogger(__name__)

CATEGORIES = ("platform", "application", "group", "ui_type", "instruction_style", "gt_type", "language")
DETAILS = "details.jsonl"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


class EvalError(RuntimeError):
    """The eval cannot start or cannot go on (bad data folder, a model server that keeps failing)."""


# ---- data ----------------------------------------------------------------------------------------


@dataclass
class GroundingItem:
    """One eval sample in a layout-free form. bbox is [x1,y1,x2,y2] in image pixels; None = expect a refusal."""

    key: str
    img_path: str
    instruction: str
    bbox: tuple[float, float, float, float] | None
    img_size: tuple[int, int] | None = None
    platform: str | None = None
    application: str | None = None
    group: str | None = None
    ui_type: str | None = None
    instruction_style: str = "instruction"
    gt_type: str = "positive"
    language: str = "en"
    task_filename: str = ""


def load_dataset(data: str | Path, images: str | Path | None = None, language: str = "en") -> list[GroundingItem]:
    """Read a ScreenSpot-Pro or ScreenSpot-v2 folder (the layout is detected) into GroundingItems."""
    data = Path(data)
    if language not in ("en", "cn", "zh"):
        raise EvalError(f"language must be en or cn, got {language!r}.")
    language = "cn" if language == "zh" else language
    if (data / "annotations").is_dir():
        return _load_pro(data / "annotations", Path(images) if images else data / "images", language)
    v2_files = sorted(data.glob("screenspot_*.json"))
    if v2_files:
        default_images = data / "screenspotv2_image" if (data / "screenspotv2_image").is_dir() else data / "images"
        return _load_v2(v2_files, Path(images) if images else default_images, language)
    raise EvalError(
        f"{data} holds no ScreenSpot data: expected annotations/*.json (ScreenSpot-Pro) or "
        "screenspot_{mobile,desktop,web}_v2.json (ScreenSpot-v2)."
    )


def _read_list(path: Path) -> list[dict[str, Any]]:
    try:
        records = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, json.JSONDecodeError) as e:
        raise EvalError(f"Could not read {path}: {e}.") from e
    if not isinstance(records, list):
        raise EvalError(f"{path} must hold a JSON list of samples.")
    return records


def _refusal(box: list[float]) -> bool:
    return all(v == -1 for v in box)


def _instruction(rec: dict[str, Any], language: str) -> str | None:
    if language == "cn":
        return rec.get("instruction_cn")
    return rec.get("instruction") or rec.get("prompt_to_evaluate") or rec.get("name")


def _load_pro(folder: Path, images: Path, language: str) -> list[GroundingItem]:
    items = []
    for path in sorted(folder.rglob("*.json")):
        task = str(path.relative_to(folder).with_suffix(""))
        for i, rec in enumerate(_read_list(path)):
            text = _instruction(rec, language)
            if not text:
                continue  # e.g. no instruction_cn for this sample
            box = rec.get("bbox", [-1, -1, -1, -1])
            size = tuple(rec["img_size"]) if rec.get("img_size") else None
            gt_type = _gt_type(rec, box)
            items.append(
                GroundingItem(
                    key=f"{task}:{rec.get('id', i)}:{language}",
                    img_path=str(images / rec["img_filename"]),
                    instruction=text,
                    bbox=None if gt_type == NEGATIVE else tuple(box),
                    img_size=size,
                    platform=rec.get("platform"),
                    application=rec.get("application"),
                    group=rec.get("group"),
                    ui_type=rec.get("ui_type"),
                    instruction_style=rec.get("instruction_style", "instruction"),
                    gt_type=gt_type,
                    language=language,
                    task_filename=task,
                )
            )
    return items


def _gt_type(rec: dict[str, Any], box: list[float]) -> str:
    """ScreenSpot-Pro's gt_type; a bbox of -1s is negative whatever the file says (files written before)."""
    return NEGATIVE if rec.get("gt_type") == NEGATIVE or _refusal(box) else POSITIVE


def _load_v2(files: list[Path], images: Path, language: str) -> list[GroundingItem]:
    items = []
    for path in files:
        split = path.stem.replace("screenspot_", "").replace("_v2", "")
        for i, rec in enumerate(_read_list(path)):
            text = _instruction(rec, language)
            if not text:
                continue
            img = images / rec.get("img_filename", rec.get("file_name", ""))
            size = tuple(rec["img_size"]) if rec.get("img_size") else None
            box = None if rec.get("gt_type") == NEGATIVE else _v2_box(rec["bbox"], img, size)
            items.append(
                GroundingItem(
                    key=f"{path.stem}:{rec.get('id', i)}:{language}",
                    img_path=str(img),
                    instruction=text,
                    bbox=box,
                    img_size=size,
                    platform=rec.get("platform", split),
                    application=rec.get("data_source") or rec.get("application"),
                    group=rec.get("group", split),
                    ui_type=rec.get("data_type") or rec.get("ui_type"),
                    instruction_style=rec.get("instruction_style", "instruction"),
                    gt_type=NEGATIVE if box is None else POSITIVE,
                    language=language,
                    task_filename=path.stem,
                )
            )
    return items


def _v2_box(box: list[float], img: Path, size: tuple[int, int] | None) -> tuple[float, ...] | None:
    """ScreenSpot-v2 [x, y, w, h] pixels → [x1, y1, x2, y2]; mirrors with [x1, y1, x2, y2] in 0..1 → pixels."""
    if _refusal(box):
        return None
    if all(0.0 <= v <= 1.0 for v in box) and any(isinstance(v, float) for v in box):
        w, h = size or image_size(img)
        return box[0] * w, box[1] * h, box[2] * w, box[3] * h
    return xywh_to_xyxy(box)


def image_size(path: str | Path) -> tuple[int, int]:
    try:
        return untrusted.check_image(Path(path).read_bytes())  # the header only
    except (OSError, untrusted.ImageRejected) as e:
        raise EvalError(f"Could not open the image {path}: {e}.") from e


# ---- parsing and scoring -------------------------------------------------------------------------


def read_reply(text: str, grid: int = 1000) -> GroundingReply | None:
    """The eval's reading of a reply: venuskit.actions' one grounding reader, lenient (module docstring)."""
    return parse_grounding(text, strict=False, grid=grid)


def score(item: GroundingItem, pred: GroundingReply | None) -> str:
    """correct | wrong | wrong_format, by the ScreenSpot-Pro rule (normalised point in normalised box)."""
    if pred is None:
        return "wrong_format"
    if item.bbox is None:
        return "correct" if pred.refused else "wrong"
    if pred.refused or pred.point is None:
        return "wrong"
    size = item.img_size or image_size(item.img_path)
    x1, y1, x2, y2 = normalise_box(item.bbox, size)
    return "correct" if x1 <= pred.point.x <= x2 and y1 <= pred.point.y <= y2 else "wrong"


# ---- metrics -------------------------------------------------------------------------------------


def calc_metrics(results: list[dict[str, Any]]) -> dict[str, Any]:
    """ScreenSpot-Pro's per-list metrics: action (overall), text and icon accuracy, counts."""
    total = len(results)
    correct = sum(r["correctness"] == "correct" for r in results)
    text = [r for r in results if r.get("ui_type") == "text"]
    icon = [r for r in results if r.get("ui_type") == "icon"]
    return {
        "num_correct_action": correct,
        "num_total": total,
        "wrong_format_num": sum(r["correctness"] == "wrong_format" for r in results),
        "action_acc": correct / total if total else 0.0,
        "text_acc": _acc(text),
        "icon_acc": _acc(icon),
    }


def _acc(results: list[dict[str, Any]]) -> float:
    return sum(r["correctness"] == "correct" for r in results) / len(results) if results else 0.0


def _grouped(results: list[dict[str, Any]], keys: tuple[str, ...], fmt: Callable[[tuple], str]) -> dict[str, Any]:
    groups: dict[tuple, list[dict[str, Any]]] = {}
    for r in results:
        groups.setdefault(tuple(r.get(k) for k in keys), []).append(r)
    return {fmt(k): calc_metrics(v) for k, v in sorted(groups.items(), key=lambda kv: str(kv[0]))}


def zoom_metrics(results: list[dict[str, Any]]) -> dict[str, Any] | None:
    """Accuracy before and after zoom-in on the same samples (counts, Wilson 95% intervals) and how many answers
    the second look fixed or broke; None when the run did not zoom."""
    zoomed = [r for r in results if r.get("zoom_factor", 1.0) > 1]
    if not zoomed:
        return None
    n = len(zoomed)
    first = sum(r["first_correctness"] == "correct" for r in zoomed)
    final = sum(r["correctness"] == "correct" for r in zoomed)
    return {
        "factor": zoomed[0]["zoom_factor"],
        "samples": n,
        "without_zoom": {"correct": first, "acc": first / n, "ci95": wilson(first, n)},
        "with_zoom": {"correct": final, "acc": final / n, "ci95": wilson(final, n)},
        "fixed": sum(r["first_correctness"] != "correct" and r["correctness"] == "correct" for r in zoomed),
        "broken": sum(r["first_correctness"] == "correct" and r["correctness"] != "correct" for r in zoomed),
        "second_look": sum("zoom" in r for r in zoomed),
    }


def compute_metrics(results: list[dict[str, Any]]) -> dict[str, Any]:
    """Overall, by each category, and ScreenSpot-Pro's own breakdowns (same keys as its eval script)."""
    metrics: dict[str, Any] = {"overall": calc_metrics(results)}
    correct, total = metrics["overall"]["num_correct_action"], metrics["overall"]["num_total"]
    metrics["action_acc_ci95"] = wilson(correct, total)
    zoom = zoom_metrics(results)
    if zoom is not None:
        metrics["zoom"] = zoom
    metrics["by_category"] = {c: _grouped(results, (c,), lambda k: str(k[0])) for c in CATEGORIES}
    metrics["fine_grained"] = _grouped(
        results,
        ("platform", "application", "instruction_style", "gt_type"),
        lambda k: f"plat:{k[0]} app:{k[1]} inst_style:{k[2]} gt_type:{k[3]}",
    )
    metrics["seeclick_style"] = _grouped(
        results,
        ("platform", "instruction_style", "gt_type"),
        lambda k: f"plat:{k[0]} inst_style:{k[1]} gt_type:{k[2]}",
    )
    metrics["leaderboard_simple_style"] = _grouped(results, ("group",), lambda k: f"group:{k[0]}")
    metrics["leaderboard_detailed_style"] = _grouped(results, ("application",), lambda k: f"app:{k[0]}")
    return metrics


# ---- the run -------------------------------------------------------------------------------------


@dataclass
class GroundingEvalConfig:
    """`venus eval grounding`: where the data is, which model, where results go."""

    data: str = field(metadata={"help": "A ScreenSpot-Pro or ScreenSpot-v2 folder."})
    out: str = field(metadata={"help": "Folder for details.jsonl (the checkpoint), report.json and summary.html."})
    model: ModelConfig = field(metadata={"help": "The OpenAI-compatible server and sampling."})
    images: str | None = field(default=None, metadata={"help": "Image folder, if not the layout's default."})
    language: str = field(default="en", metadata={"help": "en (instruction) or cn (instruction_cn)."})
    workers: int = field(default=4, metadata={"help": "Requests in flight at once."})
    grid: int = field(default=1000, metadata={"help": "Coordinate grid of the replies: 1000 (UI-Venus-2) or 999."})
    limit: int | None = field(default=None, metadata={"help": "Evaluate only the first N samples."})
    zoom: float = field(
        default=1.0,
        metadata={"help": "Zoom-in factor K: ask again on the 1/K crop around the first answer (1 = ask once)."},
    )
    resume: bool = field(default=True, metadata={"help": "Skip samples already in details.jsonl."})
    max_consecutive_errors: int = field(default=5, metadata={"help": "Failed requests in a row that stop the run."})

    def __post_init__(self) -> None:
        if self.workers < 1 or self.grid not in (999, 1000) or (self.limit is not None and self.limit < 1):
            raise ValueError("workers must be >= 1, grid 999 or 1000, and limit (if given) >= 1.")
        if self.max_consecutive_errors < 1:
            raise ValueError("max_consecutive_errors must be at least 1.")
        if not 1 <= self.zoom <= 16:
            raise ValueError(f"zoom must be between 1 (ask once) and 16, got {self.zoom}.")


def grounding_model_config(
    base_url: str,
    model: str,
    api_key: str = "EMPTY",
    timeout_s: float = 120.0,
    max_tokens: int = 1024,
    max_retries: int = 3,
) -> ModelConfig:
    """The sampling UI-Venus-2's grounding client uses: greedy, thinking off, 1024 tokens."""
    return ModelConfig(
        base_url=base_url,
        model=model,
        api_key=api_key,
        temperature=0.0,
        max_tokens=max_tokens,
        timeout_s=timeout_s,
        max_retries=max_retries,
        chat_template_kwargs={"enable_thinking": False},
    )


def _png(path: str) -> bytes:
    data = Path(path).read_bytes()
    if data.startswith(PNG_SIGNATURE):
        return data
    with untrusted.open_image(data) as im:  # JPEG or WebP screenshots go out as PNG, as the prompt's data URL says
        buf = io.BytesIO()
        im.convert("RGB").save(buf, format="PNG")
        return buf.getvalue()


def evaluate_item(backend: OpenAIBackend, item: GroundingItem, grid: int = 1000, zoom: float = 1.0) -> dict[str, Any]:
    """Ask the model about one sample (and again on a crop when zoom > 1) and score the reply. Raises ModelError
    when a request fails."""
    if not Path(item.img_path).is_file():
        raise EvalError(f"The image {item.img_path} of sample {item.key} does not exist.")
    png = _png(item.img_path)
    completion = backend.complete(grounding_messages(item.instruction, png))
    first = pred = read_reply(completion.text, grid)
    size = item.img_size or image_size(item.img_path)
    record = asdict(item)
    if zoom > 1 and first is not None and first.point is not None:
        pred, record["zoom"] = _zoom_in(backend, item.instruction, png, first, grid, zoom)
    record.update(
        prompt_to_evaluate=item.instruction,
        img_size=list(size),
        bbox=list(item.bbox) if item.bbox else None,
        pred=_pred_pixels(pred, size),
        parse=pred.kind if pred is not None else "none",
        raw_response=completion.text,
        correctness=score(item, pred),
        zoom_factor=zoom,
        first_pred=_pred_pixels(first, size),
        first_correctness=score(item, first),
    )
    return record


def _pred_pixels(pred: GroundingReply | None, size: tuple[int, int]) -> list[float] | None:
    if pred is not None and pred.refused:
        return [-1, -1]
    return None if pred is None or pred.point is None else [pred.point.x * size[0], pred.point.y * size[1]]


def _zoom_in(
    backend: OpenAIBackend, instruction: str, png: bytes, first: GroundingReply, grid: int, zoom: float
) -> tuple[GroundingReply, dict[str, Any]]:
    """The second look: the crop of 1/zoom of the screen around the first answer, asked the same question; its
    answer mapped back to the full screen. A second answer that refuses or cannot be read keeps the first."""
    assert first.point is not None
    with untrusted.open_image(png) as im:  # the dataset's screenshot: outside bytes
        frame = crop_around((first.point.x, first.point.y), im.size, zoom)
        buf = io.BytesIO()
        im.convert("RGB").crop(frame.box).save(buf, format="PNG")
    completion = backend.complete(grounding_messages(instruction, buf.getvalue()))
    second = read_reply(completion.text, grid)
    info = {"crop": list(frame.box), "raw_response": completion.text, "parse": second.kind if second else "none"}
    if second is None or second.point is None:
        return first, {**info, "kept": "first"}
    return _on_full(second, frame), {**info, "kept": "second"}


def _on_full(reply: GroundingReply, frame: CropFrame) -> GroundingReply:
    x, y = frame.to_full((reply.point.x, reply.point.y))  # type: ignore[union-attr]
    return GroundingReply(Point(x, y), kind=reply.kind)


class _Checkpoint:
    """details.jsonl: one JSON line per answered sample, appended and flushed as answers arrive."""

    def __init__(self, path: Path, resume: bool, zoom: float = 1.0) -> None:
        self.path = path
        self.lock = threading.Lock()
        self.done: dict[str, dict[str, Any]] = {}
        if resume and path.exists():
            for line in path.read_text(encoding="utf-8").splitlines():
                try:
                    rec = json.loads(line)
                except json.JSONDecodeError:
                    continue  # a line cut by a crash: that sample runs again
                if rec.get("zoom_factor", 1.0) == zoom:  # an answer from another zoom factor runs again
                    self.done[rec["key"]] = rec
        path.parent.mkdir(parents=True, exist_ok=True)
        self._fh = path.open("a" if resume else "w", encoding="utf-8")

    def add(self, record: dict[str, Any]) -> None:
        with self.lock:
            self._fh.write(json.dumps(record, ensure_ascii=False) + "\n")
            self._fh.flush()
            self.done[record["key"]] = record

    def close(self) -> None:
        self._fh.close()


Progress = Callable[[int, int], None]


def run_grounding_eval(
    config: GroundingEvalConfig, on_progress: Progress | None = None, backend: OpenAIBackend | None = None
) -> dict[str, Any]:
    """Evaluate every sample (resuming from details.jsonl), then write report.json and summary.html."""
    items = load_dataset(config.data, config.images, config.language)
    if config.limit:
        items = items[: config.limit]
    if not items:
        raise EvalError(f"No samples with a {config.language} instruction in {config.data}.")
    out = Path(config.out)
    ckpt = _Checkpoint(out / DETAILS, config.resume, config.zoom)
    backend = backend or OpenAIBackend(config.model)
    pending = [it for it in items if it.key not in ckpt.done]
    try:
        failed, last_error = _answer_all(backend, pending, config, ckpt, len(items), on_progress)
    finally:
        ckpt.close()
    results = [ckpt.done[it.key] for it in items if it.key in ckpt.done]
    report = _write_reports(results, config, out)
    if failed:
        raise EvalError(
            f"{failed} of {len(items)} requests failed (last: {last_error}); the report covers the "
            f"{len(results)} answered samples. Rerun the same command to finish them."
        )
    return report


def _answer_all(
    backend: OpenAIBackend,
    pending: list[GroundingItem],
    config: GroundingEvalConfig,
    ckpt: _Checkpoint,
    total: int,
    on_progress: Progress | None,
) -> tuple[int, ModelError | None]:
    """Keep `workers` requests in flight; stop submitting after max_consecutive_errors failures in a row.
    Returns how many requests failed, and the last error."""
    queue = iter(pending)
    streak, failed, last_error = 0, 0, None
    with ThreadPoolExecutor(max_workers=config.workers) as pool:
        running: dict[Future, GroundingItem] = {}
        _refill(pool, running, queue, backend, config)
        while running:
            finished, _ = wait(running, return_when=FIRST_COMPLETED)
            for fut in finished:
                item = running.pop(fut)
                try:
                    ckpt.add(fut.result())
                    streak = 0
                except ModelError as e:
                    streak, failed, last_error = streak + 1, failed + 1, e
                    log.warning("Sample %s failed (%s); it will run again on resume.", item.key, e)
                if on_progress:
                    on_progress(len(ckpt.done), total)
            if streak >= config.max_consecutive_errors:
                for fut in running:
                    fut.cancel()
                raise EvalError(
                    f"{streak} requests in a row failed (last: {last_error}). {len(ckpt.done)} answers are "
                    f"saved in {ckpt.path}; rerun the same command to resume."
                )
            _refill(pool, running, queue, backend, config)
    return failed, last_error


def _refill(
    pool: ThreadPoolExecutor,
    running: dict,
    queue: Iterable[GroundingItem],
    backend: OpenAIBackend,
    config: GroundingEvalConfig,
) -> None:
    while len(running) < config.workers:
        item = next(queue, None)  # type: ignore[call-overload]
        if item is None:
            return
        running[pool.submit(evaluate_item, backend, item, config.grid, config.zoom)] = item


def _write_reports(results: list[dict[str, Any]], config: GroundingEvalConfig, out: Path) -> dict[str, Any]:
    metrics = compute_metrics(results)
    run = {
        "data": config.data,
        "language": config.language,
        "grid": config.grid,
        "zoom": config.zoom,
        "model": config_dict(config.model),
        "answered": len(results),
    }
    report = {"metrics": metrics, "details": results, "run_config": run}
    write_json_report(out / "report.json", report)
    accuracy = {c: {k: v["action_acc"] for k, v in groups.items()} for c, groups in metrics["by_category"].items()}
    counts = {c: {k: v["num_total"] for k, v in groups.items()} for c, groups in metrics["by_category"].items()}
    overall = metrics["overall"]
    headline = {
        "accuracy": overall["action_acc"],
        "text": overall["text_acc"],
        "icon": overall["icon_acc"],
        "samples": overall["num_total"],
        "wrong format": overall["wrong_format_num"],
    }
    write_html_summary(
        f"Grounding eval: {config.model.model}",
        accuracy,
        out / "summary.html",
        headline=headline,
        counts_by_category=counts,
        config=run,
    )
    return report
