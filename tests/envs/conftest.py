"""Fixtures for the env tests: two real loopback HTTP servers serving tests/envs/pages/.

`/redirect?to=URL` answers 302 to URL (for the network guard's redirect test), `/pong` answers a
small CORS-enabled text body (so a page on one server can fetch from the other) and `/stall?s=N`
answers after N seconds (a subresource that holds a page's load event back); `/slow?s=N` answers a page titled
"slow answer" after N seconds (a submit whose server is slow).
"""

from __future__ import annotations

import http.server
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from urllib.parse import parse_qs, urlsplit

import pytest

PAGES = Path(__file__).parent / "pages"


class _PagesHandler(http.server.SimpleHTTPRequestHandler):
    def __init__(self, *args: object, **kwargs: object) -> None:
        super().__init__(*args, directory=str(PAGES), **kwargs)  # type: ignore[arg-type]

    def do_GET(self) -> None:
        parts = urlsplit(self.path)
        if parts.path == "/redirect":
            self.send_response(302)
            self.send_header("Location", parse_qs(parts.query)["to"][0])
            self.send_header("Content-Length", "0")
            self.end_headers()
        elif parts.path == "/stall":
            time.sleep(float(parse_qs(parts.query)["s"][0]))
            self.send_response(204)
            self.end_headers()
        elif parts.path == "/slow":
            time.sleep(float(parse_qs(parts.query)["s"][0]))
            body = b"<!doctype html><title>slow answer</title><h1>Answered</h1>"
            self.send_response(200)
            self.send_header("Content-Type", "text/html")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        elif parts.path == "/pong":
            body = b"pong"
            self.send_response(200)
            self.send_header("Content-Type", "text/plain")
            self.send_header("Access-Control-Allow-Origin", "*")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)
        else:
            super().do_GET()

    def log_message(self, *args: object) -> None:  # keep test output readable
        pass


def _serve() -> tuple[http.server.ThreadingHTTPServer, int]:
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), _PagesHandler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, server.server_address[1]


@pytest.fixture(scope="session")
def pages_url() -> Iterator[str]:
    """Base URL of the fixture-page server, as http://127.0.0.1:PORT."""
    server, port = _serve()
    yield f"http://127.0.0.1:{port}"
    server.shutdown()
    server.server_close()


@pytest.fixture(scope="session")
def other_url() -> Iterator[str]:
    """A second loopback server, addressed by the host name localhost (another origin, another host)."""
    server, port = _serve()
    yield f"http://localhost:{port}"
    server.shutdown()
    server.server_close()
