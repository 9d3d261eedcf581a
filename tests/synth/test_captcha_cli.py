"""`venus captcha list|answer|synth|serve|audit` (the lead mounts `captcha_cmd.app` as `venus captcha`)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

import pytest
from typer.testing import CliRunner

from venuskit.actions import parse_response
from venuskit.cli.captcha_cmd import app
from venuskit.synth.captcha.registry import make_instance

runner = CliRunner()


def run(*args: str) -> str:
    result = runner.invoke(app, list(args))
    assert result.exit_code == 0, result.output
    return result.output


def test_list_json_counts_types_and_families() -> None:
    data = json.loads(run("list", "--json"))
    assert data["n_types"] >= 70 and data["n_families"] >= 10
    assert sum(len(f["types"]) for f in data["families"].values()) == data["n_types"]
    assert "slider_jigsaw" in run("list")


def test_answer_is_the_same_for_the_same_type_and_seed() -> None:
    first, again = (
        run("answer", "--type", "cube_net", "--seed", "4"),
        run("answer", "--type", "cube_net", "--seed", "4"),
    )
    assert first == again
    assert json.loads(first)["answer"] == make_instance("cube_net", 4).answer
    bad = runner.invoke(app, ["answer", "--type", "nope"])
    assert bad.exit_code == 2 and "Unknown CAPTCHA type" in bad.output


def test_synth_without_a_browser_writes_assets_labels_and_rows(tmp_path: Path) -> None:
    summary = json.loads(run("synth", "--n", "12", "--out", str(tmp_path), "--no-browser", "--types", "text,grid"))
    rows = [json.loads(line) for line in (tmp_path / "rows.jsonl").read_text().splitlines()]
    assert summary["rows"] == 12 == len(rows) and len({r["type"] for r in rows}) == 12
    for row in rows:
        assert row["answer"]["check"] and row["labels"]
        assert all((tmp_path / "images" / name).read_bytes()[:4] == b"\x89PNG" for name in row["images"])


@pytest.mark.browser
def test_synth_with_a_browser_writes_screenshots_and_reference_responses(tmp_path: Path) -> None:
    run(
        "synth",
        "--n",
        "3",
        "--out",
        str(tmp_path),
        "--types",
        "click_vowels,slider_jigsaw,text_warped",
        "--seed-start",
        "5",
    )
    rows = [json.loads(line) for line in (tmp_path / "rows.jsonl").read_text().splitlines()]
    assert [r["type"] for r in rows] == ["click_vowels", "slider_jigsaw", "text_warped"]
    for row in rows:
        assert (tmp_path / "images" / row["image"]).read_bytes()[:4] == b"\x89PNG" and row["size"] == [1024, 768]
        assert all(0 <= lab["bbox"][0] < lab["bbox"][2] <= 1024 for lab in row["labels"])
        assert parse_response(row["reference_response"], "captcha").actions
        assert "CAPTCHA-Specific Extension" in row["system"]


def test_serve_prints_a_url_a_person_can_open() -> None:
    code = "from venuskit.cli.captcha_cmd import app; app()"
    proc = subprocess.Popen(
        [sys.executable, "-c", code, "serve", "--type", "dice_sum", "--seed", "2"],
        stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL,
        text=True,
    )
    try:
        url = proc.stdout.readline().strip()  # type: ignore[union-attr]
        assert url.startswith("http://127.0.0.1:") and "/c/" in url  # seed 2, created by the harness side
        with urllib.request.urlopen(url, timeout=10) as r:
            page = r.read().decode()
        assert r.status == 200 and "Type the sum of all the dice." in page
        base = url.split("/c/")[0]
        with urllib.request.urlopen(f"{base}/new?type=dice_sum", timeout=10) as r:  # a page gets a drawn seed
            assert r.status == 200 and "Type the sum of all the dice." in r.read().decode() and r.url != url
    finally:
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=30)


def test_ctrl_c_as_soon_as_the_url_is_printed_stops_the_server() -> None:
    code = "from venuskit.cli.captcha_cmd import app; app()"
    proc = subprocess.Popen([sys.executable, "-c", code, "serve", "--type", "dice_sum", "--seed", "2"],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)  # fmt: skip
    url = proc.stdout.readline().strip()  # type: ignore[union-attr]
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == 0 and "Traceback" not in err, err[-2000:]
    with pytest.raises(OSError):  # the server is gone, not left running behind a dead foreground
        urllib.request.urlopen(url, timeout=5)


@pytest.mark.browser
def test_audit_reports_per_type_results() -> None:
    result = runner.invoke(app, ["audit", "--types", "dice_sum,grid_binary", "--seeds", "0,1", "--json"])
    assert result.exit_code == 0, result.output
    data = json.loads(result.output[result.output.index("{") :])
    assert data["ok"] and [t["type"] for t in data["types"]] == ["dice_sum", "grid_binary"]
    assert all(t["passed"] == t["n"] == 2 and t["leaks"] == [] for t in data["types"])
