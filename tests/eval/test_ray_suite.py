"""The world suite as Ray actors on a real local Ray cluster (`ray start --head` on this machine, started and stopped
here): the oracle's verdicts, episodes spread over two actors, the report written."""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path

import pytest

from venuskit.eval.suites.world import WorldSuiteConfig, run_world_suite
from venuskit.runs.parallel import Parallel, local_ray_head

pytestmark = [pytest.mark.browser, pytest.mark.slow]
TEMPLATES = "bank.txn_category,infeasible.old_statement,mail.who_cc"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def ray_head():
    with local_ray_head(num_cpus=2) as address:
        yield address


def ledger(out: Path) -> dict[str, dict]:
    return {r["key"]: r for r in map(json.loads, (out / "results.jsonl").read_text().splitlines())}


def test_world_suite_on_ray(ray_head, tmp_path):
    # The oracle is deterministic: a feasible task ends completed, an infeasible one infeasible, on any back end
    # (serial and process runs give the same verdicts: tests/eval/test_suite_world.py).
    config = WorldSuiteConfig(out=str(tmp_path), templates=TEMPLATES, sgv="off")
    summary = run_world_suite(config, Parallel(workers=2, ray=ray_head))
    rows = ledger(tmp_path)
    expected = {"bank.txn_category": "completed", "infeasible.old_statement": "infeasible", "mail.who_cc": "completed"}
    assert {r["template"]: r["contract"] for r in rows.values()} == expected
    assert summary["success"] == 1.0 and summary["infra_errors"] == 0
    assert len({r["pid"] for r in rows.values()}) == 2, "both actors ran episodes"
    assert os.getpid() not in {r["pid"] for r in rows.values()}
    assert (tmp_path / "report.html").is_file()
    config = json.loads((tmp_path / "suite.json").read_text())
    assert config["parallel"] == {"workers": 2, "ray": ray_head, "backend": "ray", "max_infra_retries": 2}


def test_an_unreachable_cluster_is_a_clear_error(tmp_path):
    config = WorldSuiteConfig(out=str(tmp_path), templates="mail.who_cc", sgv="off")
    with pytest.raises(ValueError, match="Could not connect to the Ray cluster"):
        run_world_suite(config, Parallel(workers=1, ray=f"127.0.0.1:{free_port()}"))
    assert not (tmp_path / "suite.json").exists()  # refused before anything was written
