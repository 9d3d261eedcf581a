"""A stopped run ends on its one-line message: Playwright's dispatcher errors reach the log as one line."""

from __future__ import annotations

import subprocess
import sys

# Playwright's own code path: the dispatcher's listener error, as it logs one when a SIGTERM lands mid-reply.
_SCRIPT = """
import logging, types
logging.basicConfig(level=logging.INFO, format="%(asctime)s %(message)s")
import venuskit.envs.browser.driver  # noqa: F401 (installs the filter)
from playwright._impl.connection import Connection
from playwright._impl._errors import Error
conn = types.SimpleNamespace()
Connection._on_event_listener_error(conn, Error("Cannot find command to respond: abc@93"))
assert isinstance(conn._error, Error)  # the next call still raises it, where the env classifies it
print("ok", flush=True)
"""


def test_a_dispatcher_error_is_logged_as_one_line_without_a_traceback() -> None:
    done = subprocess.run([sys.executable, "-c", _SCRIPT], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert "Error occurred in event listener: Cannot find command to respond: abc@93" in done.stderr
    assert "Traceback" not in done.stderr and len(done.stderr.strip().splitlines()) == 1
