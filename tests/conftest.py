"""Fixtures shared across the test packages: loopback web servers for fixture pages."""

from __future__ import annotations

import functools
import http.server
import threading
from pathlib import Path

import pytest

# `make test` runs tests in parallel processes (pytest-xdist, `--dist loadgroup`). Tests that share an expensive
# session or module fixture stay in one process, so that it is built once, not once per process: the tiny Qwen
# models trained inside the training fixtures, the vLLM server, two modules whose fixtures record a set. xdist's own
# loadgroup reads `xdist_group` marks through node ids, which pytest 9 no longer lets it rewrite, so the groups are
# named here by module and the scheduler below groups by them; every other test is a unit of its own.
GROUPS = {
    **dict.fromkeys((f"tests/train/{m}.py" for m in ("test_accelerate_configs", "test_distributed", "test_learning",
                                                      "test_tiny", "test_train_cli", "test_trainers")), "tiny-qwen"),
    "tests/models/test_vllm_integration.py": "vllm",
    "tests/eval/test_verify_bench.py": "verify-bench",
    "tests/eval/test_safety_eval.py": "safety-eval",
}  # fmt: skip


def pytest_xdist_make_scheduler(config: pytest.Config, log: object) -> object | None:
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class ByGroup(LoadScopeScheduling):
        def _split_scope(self, nodeid: str) -> str:
            return GROUPS.get(nodeid.split("::")[0], nodeid)

    return ByGroup(config, log)


class _QuietHandler(http.server.SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:  # keep test output readable
        pass


@pytest.fixture(scope="session")
def serve_dir():
    """serve_dir(path) -> base URL of a real HTTP server on 127.0.0.1 serving that folder (stopped at exit)."""
    servers: list[http.server.ThreadingHTTPServer] = []

    def start(path: Path) -> str:
        handler = functools.partial(_QuietHandler, directory=str(path))
        srv = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=srv.serve_forever, daemon=True).start()
        servers.append(srv)
        return f"http://127.0.0.1:{srv.server_address[1]}"

    yield start
    for srv in servers:
        srv.shutdown()
        srv.server_close()
