"""Exports of recorded episodes: chat JSONL in the UI-Venus-2 history protocol, and Parquet step rows.

Both load with `datasets.load_dataset("json" | "parquet", data_files=...)`.

Chat JSONL (one line per step, TRL's conversational prompt-completion layout):
    {"episode_id", "step", "surface", "goal",
     "prompt": [system, user, assistant, ..., user]   # actions.history.build_messages, image placeholders
     "completion": [{"role": "assistant",
                     "content": [{"type": "text", "text": "<think>…</think>\\n<action>…</action>"}]}],
     "images": ["/abs/path/step_0002.png", ...],      # in placeholder order; cast with datasets.Image()
     "action": "Click(point=(500, 120))", "error": null}
History is rebuilt the way the runner (venuskit.agent) builds it live: every earlier step whose reply
parsed (`step.action` set) is a past turn with its raw reply replayed verbatim, and `Step.feedback`, the
exact text shown before that step's screenshot (errors, GetUrl, notes), is replayed as recorded. Replies
that did not parse never enter the history. The completion is the step's reply normalised to
`<think>…</think>\n<action>…</action>`. The system prompt is `config["system_prompt"]` when the runner
saved it, else rebuilt with actions.prompts.system_prompt.

Parquet (one row per step, screenshot bytes in a top-level `image` column that datasets decodes as an
Image): episode_id, step, image, instruction, surface, history (earlier actions as call text), action
(call text), action_json, thought, raw_output, error, screen_width, screen_height, finished, outcome,
verdicts (JSON text), final_image (on the row of the step that led to `Episode.final`: the screen the
episode ended on; null elsewhere).

Only PNG files inside an episode folder are read (`store.image_path`); an episode that cannot be read is
skipped, named in the log and in `ExportReport.skipped`, and the others are exported.
"""

from __future__ import annotations

import dataclasses
import json
import logging
import os
from collections.abc import Callable, Iterable, Iterator
from pathlib import Path
from typing import Any, Literal

import pyarrow as pa
import pyarrow.parquet as pq

from venuskit.actions.history import Turn, build_messages, normalize_response
from venuskit.actions.prompts import system_prompt
from venuskit.actions.types import Action
from venuskit.record.episode import Episode, Step
from venuskit.record.store import EpisodeStoreError, final_png, image_path, load_episode, step_png

log = logging.getLogger(__name__)

EpisodeFilter = Callable[[Episode], bool]


def action_text(action: Action | None, surface: str) -> str | None:
    """The UI-Venus-2 call text of `action` on `surface` (e.g. "Click(point=(500, 120))"); JSON when the
    grammar module is not available."""
    if action is None:
        return None
    try:  # imported here: the grammar module is heavier than the record needs for loading
        from venuskit.actions.grammar import format_call
    except ImportError:
        return json.dumps(action.to_dict(), ensure_ascii=False)
    return format_call(action, surface)


def episode_system_prompt(ep: Episode) -> str:
    """The system prompt the episode ran with: as saved by the runner, else rebuilt from the manifest."""
    saved = ep.config.get("system_prompt")
    if isinstance(saved, str) and saved:
        return saved
    date = ep.config.get("current_date") or (ep.created[:10] if ep.created else None)
    return system_prompt(ep.surface, ep.goal, current_date=date, sudo_password=ep.config.get("sudo_password"))


def _episodes(
    episode_dirs: Iterable[Path | str], only_finished: bool, select: EpisodeFilter | None, skipped: list[str] | None
) -> Iterator[tuple[Path, Episode]]:
    for d in episode_dirs:
        try:
            ep = load_episode(d)
        except EpisodeStoreError as e:  # one unreadable episode does not stop the export of the others
            log.warning("skipped: %s", e)
            if skipped is not None:
                skipped.append(str(e))
            continue
        for problem in ep.problems:
            log.warning("%s: %s", d, problem)
        if (only_finished and not ep.finished) or (select is not None and not select(ep)):
            continue
        yield Path(d), ep


# ---- chat JSONL ---------------------------------------------------------------------------------


def _completion(step: Step) -> str | None:
    if step.action is None or not step.raw_output:
        return None
    try:
        return normalize_response(step.raw_output)
    except ValueError:
        return None


def _image_ref(path: Path, image_paths: str, base: Path | None) -> str:
    if image_paths == "relative" and base is not None:
        return os.path.relpath(path.resolve(), base.resolve())
    return str(path.resolve())


def chat_rows(
    episode_dir: Path | str,
    episode: Episode | None = None,
    *,
    n_img: int = 2,
    skip_errors: bool = True,
    image_paths: Literal["absolute", "relative"] = "absolute",
    base: Path | None = None,
) -> Iterator[dict[str, Any]]:
    """Chat rows of one episode (see the module docstring). Steps without an image, without a parsed
    action or (with skip_errors) with an error give no row; a step whose reply parsed is history for the
    rows after it either way."""
    path = Path(episode_dir)
    ep = episode or load_episode(path)
    system = episode_system_prompt(ep)
    turns: list[Turn] = []
    for step in ep.steps:
        shot = image_path(path, step.screenshot)  # never a file outside the episode folder
        completion = _completion(step)
        if shot is not None and completion is not None and not (skip_errors and step.error):
            yield _chat_row(ep, step, system, turns, shot, completion, n_img, image_paths, base)
        if step.action is not None and step.raw_output:
            # The protocol never decodes images, so the file path stands in for the bytes here.
            key = str(shot).encode() if shot is not None else None
            turns.append(Turn(png=key, response=step.raw_output, feedback=step.feedback))


def _chat_row(
    ep: Episode, step: Step, system: str, turns: list[Turn], shot: Path,
    completion: str, n_img: int, image_paths: str, base: Path | None,
) -> dict[str, Any]:  # fmt: skip
    messages, keys = build_messages(
        system, turns, str(shot).encode(), n_img=n_img, surface=ep.surface,
        feedback=step.feedback, inline_images=False,
    )  # fmt: skip
    return {
        "episode_id": ep.episode_id,
        "step": step.index,
        "surface": ep.surface,
        "goal": ep.goal,
        "prompt": messages,
        "completion": [{"role": "assistant", "content": [{"type": "text", "text": completion}]}],
        "images": [_image_ref(Path(k.decode()), image_paths, base) for k in keys],
        "action": action_text(step.action, ep.surface),
        "error": json.dumps(step.error, ensure_ascii=False) if step.error else None,
    }


def export_chat_jsonl(
    episode_dirs: Iterable[Path | str],
    out_path: Path | str,
    *,
    n_img: int = 2,
    only_finished: bool = False,
    select: EpisodeFilter | None = None,
    skip_errors: bool = True,
    image_paths: Literal["absolute", "relative"] = "absolute",
    skipped: list[str] | None = None,
) -> int:
    """Write chat rows of every episode to `out_path` (JSON Lines); returns the number of rows.
    image_paths="relative" makes image paths relative to the output file's folder. Episodes that cannot be
    read are skipped; their errors are appended to `skipped`."""
    if image_paths not in ("absolute", "relative"):
        raise ValueError(f"image_paths must be 'absolute' or 'relative', got {image_paths!r}.")
    out = _output(out_path)
    tmp = out.with_name(f".{out.name}.tmp")
    count = 0
    try:
        with open(tmp, "w", encoding="utf-8") as f:
            for path, ep in _episodes(episode_dirs, only_finished, select, skipped):
                rows = chat_rows(path, ep, n_img=n_img, skip_errors=skip_errors, image_paths=image_paths,
                                 base=out.parent)  # fmt: skip
                for row in rows:
                    f.write(json.dumps(row, ensure_ascii=False) + "\n")
                    count += 1
        os.replace(tmp, out)  # a half-written export never replaces a good one
    finally:
        tmp.unlink(missing_ok=True)  # after a failure (a full disk): no half file left behind
    return count


def _output(out_path: Path | str) -> Path:
    out = Path(out_path)
    if out.is_dir():
        raise IsADirectoryError(f"--out {out} is a folder; give a file name such as {out / 'export.out'}.")
    out.parent.mkdir(parents=True, exist_ok=True)
    return out


# ---- Parquet ------------------------------------------------------------------------------------

PARQUET_SCHEMA = pa.schema(
    [
        ("episode_id", pa.string()),
        ("step", pa.int32()),
        ("image", pa.struct([("bytes", pa.binary()), ("path", pa.string())])),
        ("instruction", pa.string()),
        ("surface", pa.string()),
        ("history", pa.list_(pa.string())),
        ("action", pa.string()),
        ("action_json", pa.string()),
        ("thought", pa.string()),
        ("raw_output", pa.string()),
        ("error", pa.string()),
        ("screen_width", pa.int32()),
        ("screen_height", pa.int32()),
        ("finished", pa.bool_()),
        ("outcome", pa.string()),
        ("verdicts", pa.string()),
        ("final_image", pa.struct([("bytes", pa.binary()), ("path", pa.string())])),
    ],
    # `datasets` reads this to decode the image column as an Image feature; other columns are inferred.
    metadata={
        b"huggingface": json.dumps(
            {"info": {"features": {"image": {"_type": "Image"}, "final_image": {"_type": "Image"}}}}
        ).encode()
    },
)


def _json(value: Any) -> str | None:
    return json.dumps(value, ensure_ascii=False, default=str) if value else None


def parquet_rows(episode_dir: Path | str, episode: Episode | None = None) -> Iterator[dict[str, Any]]:
    """One row per step (steps whose screenshot is missing get a null image)."""
    path = Path(episode_dir)
    ep = episode or load_episode(path)
    outcome = _json(dataclasses.asdict(ep.outcome))
    verdicts = _json(ep.verdicts)
    final = final_png(path, ep)
    history: list[str] = []
    for step in ep.steps:
        png = step_png(path, step)
        ends = final is not None and ep.final is not None and ep.final.after_step == step.index
        call = action_text(step.action, ep.surface)
        yield {
            "episode_id": ep.episode_id,
            "step": step.index,
            "image": {"bytes": png, "path": step.screenshot} if png is not None else None,
            "instruction": ep.goal,
            "surface": ep.surface,
            "history": list(history),
            "action": call,
            "action_json": _json(step.action.to_dict()) if step.action is not None else None,
            "thought": step.thought,
            "raw_output": step.raw_output,
            "error": _json(step.error),
            "screen_width": int(ep.screen[0]),
            "screen_height": int(ep.screen[1]),
            "finished": ep.finished,
            "outcome": outcome,
            "verdicts": verdicts,
            "final_image": {"bytes": final, "path": ep.final.screenshot} if ends else None,  # type: ignore[union-attr]
        }
        if call is not None:
            history.append(call)


def export_parquet(
    episode_dirs: Iterable[Path | str],
    out_path: Path | str,
    *,
    only_finished: bool = False,
    select: EpisodeFilter | None = None,
    skipped: list[str] | None = None,
) -> int:
    """Write one Parquet row per step of every episode (one row group per episode); returns the row count.
    Episodes that cannot be read are skipped; their errors are appended to `skipped`."""
    out = _output(out_path)
    tmp = out.with_name(f".{out.name}.tmp")
    count = 0
    try:
        with pq.ParquetWriter(tmp, PARQUET_SCHEMA) as writer:
            for path, ep in _episodes(episode_dirs, only_finished, select, skipped):
                rows = list(parquet_rows(path, ep))
                if rows:
                    writer.write_table(pa.Table.from_pylist(rows, schema=PARQUET_SCHEMA))
                    count += len(rows)
        os.replace(tmp, out)
    finally:
        tmp.unlink(missing_ok=True)
    return count
