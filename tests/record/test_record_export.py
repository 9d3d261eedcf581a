"""Exports: chat JSONL in the UI-Venus-2 history protocol and Parquet step rows, loaded with `datasets`."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from record_helpers import record_episode

from venuskit.actions.prompts import system_prompt
from venuskit.actions.types import Click, Finished, GetUrl, Point, TakeNote, Type, action_from_dict
from venuskit.record.episode import Outcome
from venuskit.record.export import export_chat_jsonl, export_parquet

GOAL = "Turn on dark mode"
MOBILE_STEPS = [
    ("<think>open settings</think>\n<action>Click(point=(500, 300))</action>", Click(point=Point(0.5, 0.3)), None),
    ("focus</think><action>Type(content='hi')</action>", Type(content="hi"), None),  # pre-opened <think>
    ("I am confused", None, {"type": "ActionParseError", "message": "No <action> block was found."}),
    ("<think>display</think>\n<action>Click(point=(100, 900))</action>", Click(point=Point(0.1, 0.9)), None),
    ("<think>done</think>\n<action>Finished(content='ok')</action>", Finished(content="ok"), None),
]
FEEDBACK = {3: {"feedback": "Previous action execution failed.\nAction: I am confused\nError: No <action> block."}}


def colour_of_step(i: int) -> tuple[int, int, int]:
    return (i * 40 % 256, 100, 200)  # record_helpers fills step i's screenshot with this


@pytest.fixture
def mobile_ep(tmp_path) -> Path:
    finish = Outcome(terminated=True, reason="finished")
    return record_episode(tmp_path / "runs", MOBILE_STEPS, goal=GOAL, finish=finish, step_extra=FEEDBACK)


def read_jsonl(path: Path) -> list[dict]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def load(kind: str, path: Path, tmp_path: Path, monkeypatch):
    monkeypatch.setenv("HF_DATASETS_OFFLINE", "1")
    import datasets

    return datasets.load_dataset(kind, data_files=str(path), split="train", cache_dir=str(tmp_path / "hf-cache"))


def test_chat_rows_follow_the_history_protocol(mobile_ep, tmp_path):
    out = tmp_path / "chat.jsonl"
    assert export_chat_jsonl([mobile_ep], out, n_img=2) == 4  # the unparsed step 2 gives no row
    rows = read_jsonl(out)
    assert [r["step"] for r in rows] == [0, 1, 3, 4]

    first = rows[0]
    assert [m["role"] for m in first["prompt"]] == ["system", "user"]
    assert first["prompt"][0]["content"][0]["text"] == system_prompt("mobile", GOAL)
    assert first["completion"] == [{"role": "assistant", "content": [
        {"type": "text", "text": "<think>open settings</think>\n<action>Click(point=(500, 300))</action>"}]}]  # fmt: skip
    assert first["action"] == "Click(point=(500, 300))"
    assert (
        rows[1]["completion"][0]["content"][0]["text"] == "<think>focus</think>\n<action>Type(content='hi')</action>"
    )

    # step 3 was shown the parse error of step 2 as text before its screenshot
    fb_row = rows[2]["prompt"][-1]["content"]
    assert fb_row[0] == {"type": "text", "text": FEEDBACK[3]["feedback"]}
    assert fb_row[1:] == [{"type": "text", "text": "Current Screenshot:\n"}, {"type": "image"}]

    last = rows[3]
    prompt = last["prompt"]
    # history = the parsed steps 0, 1, 3; the unparsed reply of step 2 never enters it
    assert [m["role"] for m in prompt] == ["system"] + ["user", "assistant"] * 3 + ["user"]
    assert prompt[1]["content"] == []  # step 0's screenshot is evicted with n_img=2
    assert prompt[3]["content"] == [{"type": "text", "text": "History Screenshot:"}, {"type": "image"}]
    assert prompt[-1]["content"] == [{"type": "text", "text": "Current Screenshot:\n"}, {"type": "image"}]
    replies = [m["content"][0]["text"] for m in prompt if m["role"] == "assistant"]
    assert replies == [MOBILE_STEPS[i][0] for i in (0, 1, 3)]  # replayed verbatim, as the runner does
    placeholders = sum(p["type"] == "image" for m in prompt for p in m["content"])
    assert placeholders == len(last["images"]) == 3
    assert [Path(p).name for p in last["images"]] == ["step_0001.png", "step_0003.png", "step_0004.png"]
    assert all(Path(p).is_absolute() and Path(p).is_file() for p in last["images"])
    assert (
        last["completion"][0]["content"][0]["text"] == "<think>done</think>\n<action>Finished(content='ok')</action>"
    )


def test_chat_jsonl_loads_with_datasets_and_images_decode(mobile_ep, tmp_path, monkeypatch):
    import datasets

    out = tmp_path / "chat.jsonl"
    export_chat_jsonl([mobile_ep], out)
    ds = load("json", out, tmp_path, monkeypatch)
    assert len(ds) == 4 and {"prompt", "completion", "images", "episode_id"} <= set(ds.column_names)
    ds = ds.cast_column("images", datasets.List(datasets.Image()))
    images = ds[3]["images"]
    assert [im.size for im in images] == [(64, 48)] * 3
    assert [im.convert("RGB").getpixel((5, 5)) for im in images] == [colour_of_step(i) for i in (1, 3, 4)]
    assert ds[3]["prompt"][3]["content"][1]["type"] == "image"


def test_browser_rows_replay_recorded_feedback_without_labels(tmp_path):
    notes = "Notes from earlier steps:\n- price 12"
    steps = [
        ("<think>note it</think>\n<action>TakeNote(content='price 12')</action>", TakeNote(content="price 12"), None),
        ("<think>where am I</think>\n<action>GetUrl()</action>", GetUrl(), None),
        ("<think>go</think>\n<action>Click(point=(100, 200))</action>", Click(point=Point(0.1, 0.2)), None),
    ]
    feedback = {1: {"feedback": notes}, 2: {"feedback": f"{notes}\n\nCurrent URL: http://x/"}}
    d = record_episode(tmp_path, steps, surface="browser", step_extra=feedback)
    out = tmp_path / "b.jsonl"
    export_chat_jsonl([d], out, n_img=2)
    last = read_jsonl(out)[-1]["prompt"]
    assert [m["role"] for m in last] == ["system", "user", "assistant", "user", "assistant", "user"]
    assert last[1]["content"] == [{"type": "image"}]  # step 0: nothing was shown before it, no label
    assert last[3]["content"] == [{"type": "text", "text": notes}, {"type": "image"}]
    assert last[-1]["content"] == [{"type": "text", "text": feedback[2]["feedback"]}, {"type": "image"}]
    assert "Today is" in last[0]["content"][0]["text"]


def test_filters_relative_paths_and_saved_system_prompt(mobile_ep, tmp_path):
    unfinished = record_episode(tmp_path / "runs", MOBILE_STEPS[:1], episode_id="ep2")
    out = tmp_path / "sub" / "chat.jsonl"
    assert export_chat_jsonl([mobile_ep, unfinished], out, only_finished=True) == 4
    assert export_chat_jsonl([mobile_ep, unfinished], out, select=lambda ep: ep.episode_id == "ep2") == 1
    export_chat_jsonl([unfinished], out, image_paths="relative")
    row = read_jsonl(out)[0]
    assert not Path(row["images"][0]).is_absolute()
    assert (out.parent / row["images"][0]).resolve() == (unfinished / "step_0000.png").resolve()

    from venuskit.record.store import EpisodeWriter

    with EpisodeWriter.open(unfinished) as w:
        w.update_manifest(config={"system_prompt": "SAVED PROMPT"})
    export_chat_jsonl([unfinished], out)
    assert read_jsonl(out)[0]["prompt"][0]["content"][0]["text"] == "SAVED PROMPT"


def test_parquet_rows_load_with_datasets(mobile_ep, tmp_path, monkeypatch):
    out = tmp_path / "steps.parquet"
    assert export_parquet([mobile_ep], out) == 5
    ds = load("parquet", out, tmp_path, monkeypatch)
    assert type(ds.features["image"]).__name__ == "Image"
    assert ds[0]["image"].size == (64, 48)
    assert ds[1]["image"].convert("RGB").getpixel((3, 3)) == colour_of_step(1)
    calls = [
        "Click(point=(500, 300))",
        "Type(content='hi')",
        None,
        "Click(point=(100, 900))",
        "Finished(content='ok')",
    ]
    assert ds["action"] == calls
    assert ds[4]["history"] == [calls[0], calls[1], calls[3]]
    assert action_from_dict(json.loads(ds[0]["action_json"])) == Click(point=Point(0.5, 0.3))
    assert json.loads(ds[2]["error"])["type"] == "ActionParseError"
    assert ds[0]["instruction"] == GOAL and ds[0]["surface"] == "mobile"
    assert (ds[0]["screen_width"], ds[0]["screen_height"]) == (64, 48)
    assert json.loads(ds[0]["outcome"])["reason"] == "finished" and ds[0]["finished"] is True


def test_parquet_keeps_rows_of_steps_with_a_missing_screenshot(mobile_ep, tmp_path):
    import pyarrow.parquet as pq

    (mobile_ep / "step_0002.png").unlink()
    out = tmp_path / "steps.parquet"
    assert export_parquet([mobile_ep], out) == 5
    table = pq.read_table(out)
    assert table.column("image").to_pylist()[2] is None
    assert table.column("image").to_pylist()[0]["path"] == "step_0000.png"
