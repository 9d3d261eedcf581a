"""A tampered episode folder: paths that lead outside it are never read (export, view, resume), a manifest
or step of the wrong shape is a typed error or a listed problem, and the viewer runs no script in Chromium."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from record_helpers import make_png, record_episode

from venuskit.actions.types import Click, Point
from venuskit.record import EpisodeStoreError, EpisodeWriter, load_episode
from venuskit.record.episode import Outcome
from venuskit.record.export import export_chat_jsonl, export_parquet
from venuskit.record.viewer import page_html, render_html

SECRET = make_png(7, 7, (1, 2, 3)) + b"SECRET-BYTES"  # a valid PNG, so only confinement keeps it out
XSS = "<img src=x onerror=\"window.pwned=1;alert(1)\"><script>window.pwned=2;alert(2)</script>"


def _steps(n: int) -> list[tuple[str, Click, None]]:
    return [(f"<think>t</think><action>Click(point=({i}00, 100))</action>", Click(point=Point(i / 10, 0.1)), None)
            for i in range(1, n + 1)]  # fmt: skip


def _rewrite_step(folder: Path, line: int, **fields: object) -> None:
    lines = (folder / "steps.jsonl").read_text().splitlines()
    step = json.loads(lines[line])
    step.update(fields)
    lines[line] = json.dumps(step)
    (folder / "steps.jsonl").write_text("\n".join(lines) + "\n")


def _rewrite_manifest(folder: Path, **fields: object) -> None:
    manifest = json.loads((folder / "manifest.json").read_text())
    manifest.update(fields)
    (folder / "manifest.json").write_text(json.dumps(manifest))


@pytest.fixture
def tampered(tmp_path: Path) -> Path:
    """Three steps; step 1's screenshot names a file outside the folder, step 2's is a link to it."""
    (tmp_path / "secret.png").write_bytes(SECRET)
    folder = record_episode(tmp_path / "runs", _steps(3), finish=Outcome(terminated=True, reason="finished"))
    _rewrite_step(folder, 1, screenshot="../../secret.png")
    (folder / "step_0002.png").unlink()
    os.symlink(tmp_path / "secret.png", folder / "step_0002.png")
    return folder


def test_paths_outside_the_folder_are_never_read(tampered: Path, tmp_path: Path) -> None:
    ep = load_episode(tampered)
    assert [s.index for s in ep.steps] == [0, 2]  # the line naming ../../secret.png is not a valid step
    assert any("line 2 is not a valid step" in p and "screenshot" in p for p in ep.problems)
    assert "Step 2: screenshot step_0002.png is not a file inside the episode folder; it is not read." in ep.problems
    export_parquet([tampered], tmp_path / "rows.parquet")
    export_chat_jsonl([tampered], tmp_path / "rows.jsonl")
    assert b"SECRET-BYTES" not in (tmp_path / "rows.parquet").read_bytes()
    assert "secret.png" not in (tmp_path / "rows.jsonl").read_text()
    assert "step_0002.png" not in (tmp_path / "rows.jsonl").read_text()  # the link is not handed on either
    assert "no screenshot" in page_html(tampered) and b"SECRET-BYTES" not in page_html(tampered).encode()
    with pytest.raises(EpisodeStoreError, match="Cannot resume"):
        EpisodeWriter.open(tampered)  # resuming needs every line; the damaged one is named


def test_resume_never_sends_a_linked_file_to_the_model(tmp_path: Path) -> None:
    (tmp_path / "secret.png").write_bytes(SECRET)
    folder = record_episode(tmp_path / "runs", _steps(2))
    (folder / "step_0001.png").unlink()
    os.symlink(tmp_path / "secret.png", folder / "step_0001.png")
    with EpisodeWriter.open(folder) as w:
        assert [w.read_png(s) is None for s in w.load_steps()] == [False, True]


@pytest.mark.parametrize(
    "field, value, message",
    [
        ("screen", ["<script>alert(1)</script>", 48], "screen must be"),
        ("outcome", {"reason": ["x"]}, "reason must be str"),
        ("outcome", {"reward": "NaN"}, "reward must be a finite number"),
        ("final", {"after_step": 1, "screenshot": "/etc/passwd"}, "final.screenshot"),
        ("task", "goal", "task must be dict"),
        ("finished", "yes", "finished must be bool"),
        ("surface", "<script>", "surface must be one of"),
    ],
)
def test_a_malformed_manifest_is_a_typed_error(tmp_path: Path, field: str, value: object, message: str) -> None:
    folder = record_episode(tmp_path, _steps(1))
    _rewrite_manifest(folder, **{field: value})
    with pytest.raises(EpisodeStoreError, match=message):
        load_episode(folder)
    with pytest.raises(EpisodeStoreError, match=message):
        EpisodeWriter.open(folder)


@pytest.mark.parametrize(
    "field, value", [("index", "<img src=x onerror=alert(1)>"), ("index", True), ("index", -1), ("info", [1]),
                     ("screenshot", "sub/step_0000.png"), ("screenshot", ".hidden.png"), ("attempts", ["x"])],
)  # fmt: skip
def test_a_malformed_step_is_a_listed_problem(tmp_path: Path, field: str, value: object) -> None:
    folder = record_episode(tmp_path, _steps(2))
    _rewrite_step(folder, 0, **{field: value})
    ep = load_episode(folder)
    assert [s.index for s in ep.steps] == [1] and f"{field} must" in " ".join(ep.problems)


@pytest.mark.browser
def test_the_viewer_runs_no_script_in_chromium(tmp_path: Path) -> None:
    """Every text field that passes validation holds script; Chromium opens the page and nothing runs."""
    from venuskit.actions.types import GetUrl
    from venuskit.envs.browser import BrowserConfig, BrowserEnv

    extra = {0: {"thought": XSS, "url": f"http://127.0.0.1/{XSS}", "title": XSS, "feedback": XSS,
                 "info": {XSS: XSS}, "attempts": [{"raw": XSS}]}}  # fmt: skip
    outcome = Outcome(terminated=True, reason=XSS, answer=XSS, error={"message": XSS})
    error = {"type": XSS, "message": XSS}
    folder = record_episode(tmp_path, [(XSS, Click(point=Point(0.5, 0.5)), error)], goal=XSS, finish=outcome,
                            step_extra=extra)  # fmt: skip
    _rewrite_manifest(folder, episode_id=XSS, created=XSS, model={"name": XSS}, task={"goal": XSS, XSS: XSS},
                      verdicts={XSS: XSS}, final={"after_step": 0, "url": XSS, "title": XSS})  # fmt: skip
    page = render_html(folder).read_text()
    assert "<script>" not in page and "<img src=x" not in page
    with BrowserEnv(BrowserConfig(settle_s=0.05)) as env:
        obs = env.reset({"start_url": (folder / "episode.html").as_uri()})
        info = env.step(GetUrl()).info
        fired = env.page.evaluate("typeof window.pwned !== 'undefined'")
    assert "dialogs" not in info and "dialogs" not in obs.info and not fired
