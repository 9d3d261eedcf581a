"""Fixtures shared across the test packages: loopback web servers for fixture pages."""

from __future__ import annotations

import functools
import http.server
import threading
from pathlib import Path

import pytest


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
