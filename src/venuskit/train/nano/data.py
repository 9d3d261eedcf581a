"""Training rows -> venus-nano examples.

The rows are venuskit's own step-level rows (`venuskit.train.data.build_rows(kind="rl")`, what `venus train rows`
writes): the UI-Venus-2 chat prompt with image placeholders, the images, and the reference actions parsed from
the assistant's reply with `parse_response` (`gt_actions`), plus the target element box of each (`gt_boxes`,
from the episode's `nano_targets.json` when the collector recorded one). Grounding rows
(`venuskit.train.data.grounding_row`) carry the instruction in the user turn and the target box.

An example is the network's input features (read from the screenshot exactly as at inference, through the same
`NanoInput`) and its supervision (`targets.target_for`). Features are cached on disk by row, so a rerun (or the
next stage) does not read the screens again.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import logging
import pickle
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import Future
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from venuskit.actions import ActionParseError, parse_response
from venuskit.actions.types import Action, Click, Point, Type, action_from_dict
from venuskit.models.nano.features import Features, NanoInput
from venuskit.models.nano.model import NanoError, NanoModel
from venuskit.train.nano.targets import Target, target_for

log = logging.getLogger(__name__)
TARGETS = "nano_targets.json"


@dataclass
class Example:
    features: Features
    target: Target
    row: dict[str, Any]  # the row it came from (prompt, images, gt_actions, gt_boxes, surface, domain)

    @property
    def domain(self) -> str:
        return str(self.row.get("domain", ""))


def _text_parts(content: Any) -> list[str]:
    if isinstance(content, str):
        return [content]
    return [p.get("text") or "" for p in content or [] if isinstance(p, dict) and p.get("type") == "text"]


def input_from_row(row: dict[str, Any]) -> NanoInput:
    """The NanoInput of a row: goal and surface from the system prompt, history from the assistant turns,
    feedback from the last user turn's text, the screenshot = the row's last image."""
    images = row.get("images") or []
    if not images:
        raise ValueError("A training row without images.")
    png = _image_bytes(images[-1])
    prompt = row["prompt"]
    surface = row.get("surface", "browser")
    if surface == "grounding":
        text = " ".join(_text_parts(prompt[-1]["content"]))
        goal = text.split("instruction: \n", 1)[-1].split(". \n\nThe output", 1)[0].strip()
        return NanoInput(png, goal, "grounding")
    system = " ".join(_text_parts(prompt[0]["content"])) if prompt and prompt[0].get("role") == "system" else ""
    goal = system.rsplit("### User Task", 1)[-1].strip()
    history: list[Action] = []
    shots: list[bytes | None] = []
    shown: Any = None  # the image of the user turn before each assistant turn
    k = 0  # images are consumed in order by the image placeholders
    for m in prompt[:-1]:
        if m.get("role") == "user":
            n = sum(1 for p in m["content"] or [] if isinstance(p, dict) and p.get("type") == "image")
            shown = images[k + n - 1] if n else None
            k += n
        elif m.get("role") == "assistant":
            try:
                acts = list(parse_response(" ".join(_text_parts(m["content"])), surface).actions)
            except ActionParseError:
                continue
            history += acts
            shots += [shown] * len(acts)
    last = prompt[-1] if prompt and prompt[-1].get("role") == "user" else {"content": []}
    labels = ("History Screenshot:", "Current Screenshot:")
    fb = "\n".join(t for t in _text_parts(last["content"]) if t.strip() and not t.strip().startswith(labels)) or None
    return NanoInput(png, goal, surface, history, fb, [_image_bytes(x) if x is not None else None for x in shots])


def _image_bytes(image: Any) -> bytes:
    if isinstance(image, (str, Path)):
        return Path(image).read_bytes()
    if isinstance(image, dict) and image.get("bytes"):
        return image["bytes"]
    if isinstance(image, dict) and image.get("path"):
        return Path(image["path"]).read_bytes()
    if isinstance(image, bytes):
        return image
    raise ValueError(f"Cannot read a row image of type {type(image).__name__}.")


def targets_of(chat: dict[str, Any]) -> list[Sequence[float] | None] | None:
    """`boxes_of` for build_rows: the recorded target box of a row's step, from its episode's nano_targets.json."""
    images = chat.get("images") or []
    if not images:
        return None
    folder = Path(images[-1]).parent
    path = folder / TARGETS
    if not path.is_file():
        return None
    targets = json.loads(path.read_text("utf-8"))
    step = int(chat.get("step", -1))
    if not 0 <= step < len(targets):
        return None
    return [targets[step].get("box")]


def reference_rows(episode_dirs: Iterable[Path | str]) -> list[dict[str, Any]]:
    """Rows whose reference is the oracle's relabel (rollout episodes): the chat rows of the student's steps with
    gt_actions / gt_boxes replaced by the oracle's action at that state (`nano_targets.json`)."""
    from venuskit.train.data import Rejections, episode_chat_rows

    rows = []
    rej = Rejections()
    for d in episode_dirs:
        path = Path(d) / TARGETS
        if not path.is_file():
            continue
        targets = json.loads(path.read_text("utf-8"))
        for chat in episode_chat_rows([d], rej, n_img=50):
            t = targets[chat["step"]] if chat["step"] < len(targets) else None
            if not t or not t.get("action"):
                continue
            try:
                ref = list(parse_response(f"<action>{t['action']}</action>", chat["surface"]).actions)
            except ActionParseError:
                continue
            rows.append({"prompt": chat["prompt"], "images": list(chat["images"]), "surface": chat["surface"],
                         "domain": "web" if chat["surface"] == "browser" else chat["surface"],
                         "gt_actions": json.dumps([a.to_dict() for a in ref]), "gt_boxes": json.dumps([t.get("box")]),
                         "episode_id": chat["episode_id"], "step": chat["step"],
                         "agreed": bool(t.get("agreed"))})  # fmt: skip
    return rows


def _row_key(row: dict[str, Any]) -> str:
    from venuskit.models.nano.features import version

    h = hashlib.sha1(version().encode())
    h.update(json.dumps(row.get("prompt"), sort_keys=True, default=str).encode())
    h.update(str(row.get("images", [])[-1:]).encode())
    h.update(str(row.get("gt_actions")).encode())
    return h.hexdigest()


class FeatureCache:
    """Features by row key, kept in one pickle in the run folder (our own file, written atomically)."""

    def __init__(self, path: Path | None) -> None:
        self.path = path
        self.data: dict[str, Features] = {}
        if path is not None and path.is_file():
            try:
                with path.open("rb") as fh:
                    self.data = pickle.load(fh)  # noqa: S301 - a file this run wrote itself
            except (pickle.UnpicklingError, AttributeError, ImportError, EOFError) as exc:
                # An older venuskit's classes (moved or renamed) or a torn file: the features are read again.
                log.warning("feature cache %s is unreadable (%s); recomputing its features", path, exc)
                self.data = {}

    def holds(self, row: dict[str, Any]) -> bool:
        """Whether the row's features are in the cache (read already)."""
        return _row_key(row) in self.data

    def save(self) -> None:
        if self.path is not None:
            from venuskit.infra.atomic import write_bytes

            write_bytes(self.path, pickle.dumps(self.data), durable=False)


def examples(rows: Iterable[dict[str, Any]], model: NanoModel, cache: FeatureCache | None = None,
             log_every: int = 500, save_every_s: float = 300.0, on_save: Callable[[], None] | None = None,
             workers: int = 1) -> tuple[list[Example], dict[str, int]]:  # fmt: skip
    """Examples of every row venus-nano can learn from; the rest counted by reason.

    Reading tens of thousands of screens takes longer than a sitting, so the cache is saved (and `on_save` called,
    e.g. to save the reader's cache) every `save_every_s` seconds of new reading and when the reading is
    interrupted: a rerun reads only the rows not yet read. `workers` > 1 reads the unread rows in that many
    processes first (`read_ahead`); the features are the same, row by row, as a serial read's."""
    rows = list(rows)
    skipped: dict[str, int] = {}
    out: list[Example] = []
    cache = cache or FeatureCache(None)
    saved_at, fresh, took, unsaved = time.monotonic(), 0, 0.0, False

    def save() -> None:
        nonlocal took, unsaved
        if not unsaved:  # every row came from the cache: a gigabyte file is not written again unchanged
            return
        start = time.monotonic()
        cache.save()
        if on_save is not None:
            on_save()
        took, unsaved = time.monotonic() - start, False

    def read(n: int) -> None:
        nonlocal fresh, unsaved, saved_at
        fresh += n
        unsaved = unsaved or n > 0
        # A cache of tens of thousands of rows is gigabytes: saving waits at least 20x its last save's time,
        # so saving never costs more than a twentieth of the reading.
        if n and time.monotonic() - saved_at > max(save_every_s, 20 * took):
            save()
            saved_at = time.monotonic()

    try:
        if workers > 1:
            for n in read_ahead(rows, model, cache, workers, log_every):
                read(n)
        for i, row in enumerate(rows):
            ex, fresh_row = _example(row, model, cache, skipped)
            if ex is not None:
                out.append(ex)
            if log_every and (i + 1) % log_every == 0:
                log.info("features: %d rows (%d read)", i + 1, fresh + fresh_row)
            read(int(fresh_row))
    except BaseException:  # KeyboardInterrupt, a broken screenshot: what was read is kept for the rerun
        unsaved = unsaved or workers > 1  # the reading processes' last chunks are merged as they stop
        try:
            save()
        except OSError as exc:  # a full disk must not hide the error that stopped the reading
            log.warning("could not save the feature cache after an interruption: %s", exc)
        raise
    save()
    return out, skipped


# ---- reading in several processes ----

CHUNK = 24  # rows a worker reads per task at least: whole episodes (`_chunks`)
# A reading process starts in ~6 s (torch and onnxruntime imported, the recognizer built): worth it from a few
# hundred rows (at 77 rows two processes read at 0.84x one; benchmarks/collection.py).
PROCESS_MIN_ROWS = 200
_WORKER: dict[str, Any] = {}


def read_ahead(rows: list[dict[str, Any]], model: NanoModel, cache: FeatureCache, workers: int,
               log_every: int = 500) -> Iterator[int]:  # fmt: skip
    """Read the features of every unread, learnable row in `workers` processes into `cache` (and the new crops into
    `model.reader`'s cache); yields the rows read after each chunk, so the caller can save as it goes.

    PP-OCR is most of reading and one process's intra-op threads use two cores at 1.7x; two processes of one
    thread each also read the rest of a row (finding lines, the features) in parallel."""
    todo = [r for r in rows if isinstance(_reference(r), tuple) and _row_key(r) not in cache.data]
    if len(todo) < max(PROCESS_MIN_ROWS, 2 * CHUNK):
        return
    import multiprocessing as mp
    from concurrent.futures import FIRST_COMPLETED, ProcessPoolExecutor, wait
    from concurrent.futures.process import BrokenProcessPool

    chunks = _chunks(todo)
    start, done, logged = time.monotonic(), 0, 0
    # spawn, not fork: onnxruntime's and torch's thread pools do not survive a fork.
    pool = ProcessPoolExecutor(workers, mp.get_context("spawn"), initializer=_worker_init,
                               initargs=(dict(model.reader.cache),))  # fmt: skip
    merged: set[Future] = set()

    def merge(fut: Future) -> int:
        merged.add(fut)
        try:
            feats, crops = fut.result()
        except BrokenProcessPool as exc:  # killed (out of memory, a signal): no traceback from the pool
            raise NanoError(f"a process reading rows died ({exc}); the rows read so far are kept, and the same "
                            "command resumes from them") from None  # fmt: skip
        cache.data.update(feats)
        model.reader.cache.update(crops)
        return len(feats)

    submitted = [pool.submit(_worker_read, c) for c in chunks[: 2 * workers]]
    queued = chunks[2 * workers :]
    try:
        pending = set(submitted)
        while pending:
            ready, pending = wait(pending, return_when=FIRST_COMPLETED)
            for fut in ready:
                n = merge(fut)
                done += n
                if queued:
                    submitted.append(pool.submit(_worker_read, queued.pop(0)))
                    pending.add(submitted[-1])
                yield n
            if log_every and done - logged >= log_every:
                logged = done
                log.info("features: %d of %d unread rows read (%.2f s a row, %d processes)", done, len(todo),
                         (time.monotonic() - start) / done, workers)  # fmt: skip
    except BaseException:
        # Stopped (Ctrl-C, SIGTERM, an error): the chunks the workers finish while the pool stops are kept too.
        pool.shutdown(wait=True, cancel_futures=True)
        for fut in submitted:
            if fut not in merged and fut.done() and not fut.cancelled() and fut.exception() is None:
                merge(fut)
        raise
    finally:
        pool.shutdown(wait=True, cancel_futures=True)


def _chunks(rows: list[dict[str, Any]]) -> list[list[dict[str, Any]]]:
    """The rows in order, cut into chunks of about CHUNK rows at episode boundaries: a row reads its episode's past
    screens too, and they are in the screen cache of the process that read the episode's earlier rows."""
    chunks: list[list[dict[str, Any]]] = []
    cur: list[dict[str, Any]] = []
    last: str | None = None
    for row in rows:
        image = (row.get("images") or [None])[-1]
        episode = str(Path(image).parent) if isinstance(image, str) else None  # in-memory screens: no episode
        if len(cur) >= CHUNK and (episode is None or episode != last):
            chunks.append(cur)
            cur = []
        cur.append(row)
        last = episode
    return [*chunks, cur] if cur else chunks


def _worker_init(crops: dict[str, tuple[str, float]]) -> None:
    import signal

    import torch

    # Ctrl-C reaches the whole process group: the run's process saves what was read and stops the pool; a worker
    # finishes its chunk quietly instead of printing a traceback of its own.
    signal.signal(signal.SIGINT, signal.SIG_IGN)

    from venuskit.models.nano.net import NanoNet, NetConfig
    from venuskit.models.nano.reader import Reader

    torch.set_num_threads(1)
    reader = Reader(crops, threads=1)
    _WORKER["model"] = NanoModel(NanoNet(NetConfig()), reader=reader)  # the net is unused: features only
    _WORKER["known"] = len(reader.cache)


def _worker_read(chunk: list[dict[str, Any]]) -> tuple[dict[str, Features], dict[str, tuple[str, float]]]:
    """One chunk's features by row key, and the crops this worker recognised since its last chunk."""
    model: NanoModel = _WORKER["model"]
    feats = {_row_key(row): model.features(input_from_row(row)) for row in chunk}
    cache = model.reader.cache
    new = dict(itertools.islice(cache.items(), _WORKER["known"], None))  # a dict keeps insertion order
    _WORKER["known"] = len(cache)
    return feats, new


def _reference(row: dict[str, Any]) -> tuple[list[Action], list[Any], bool] | str:
    """The row's reference actions, target boxes and whether it is a click-then-type; or why venus-nano cannot
    learn from the row ("refusal": a grounding row without a target; "sequence": more than the heads take)."""
    actions = [action_from_dict(a) for a in json.loads(row["gt_actions"])] if row.get("gt_actions") else []
    boxes = json.loads(row["gt_boxes"]) if row.get("gt_boxes") else [None]
    if row.get("surface") == "grounding":
        box = boxes[0]
        if box is None or box[0] < 0:
            return "refusal"
        actions = [Click(point=Point((box[0] + box[2]) / 2, (box[1] + box[3]) / 2))]
    click_type = len(actions) == 2 and isinstance(actions[0], Click) and isinstance(actions[1], Type)
    if len(actions) != 1 and not click_type:
        return "sequence"
    return actions, boxes, click_type


def _example(row: dict[str, Any], model: NanoModel, cache: FeatureCache,
             skipped: dict[str, int]) -> tuple[Example | None, bool]:  # fmt: skip
    """One row's example (None when venus-nano cannot learn from it; `skipped` says why) and whether its features
    were read now rather than found in the cache."""
    ref = _reference(row)
    if isinstance(ref, str):
        skipped[ref] = skipped.get(ref, 0) + 1
        return None, False
    actions, boxes, click_type = ref
    key = _row_key(row)
    feats = cache.data.get(key)
    fresh = feats is None
    if feats is None:
        feats = model.features(input_from_row(row))
        cache.data[key] = feats
    box = boxes[0] if boxes and boxes[0] is not None else None
    target = target_for(feats, actions[-1], tuple(box) if box and not click_type else None)
    if click_type and target is not None:  # a CAPTCHA answer: click the field, type the answer (one decision)
        click = target_for(feats, actions[0], tuple(box) if box else None)
        target.ptr = click.ptr if click is not None else None
    if target is None:
        skipped[f"type:{actions[0].name}"] = skipped.get(f"type:{actions[0].name}", 0) + 1
        return None, fresh
    return Example(feats, target, row), fresh
