"""How an episode's infrastructure failure is told from the agent's.

A run that many episodes share (a suite, a collection, a round of the loop) re-runs an episode whose
infrastructure failed and counts it apart; an agent's own failure is a result. One rule for every run.
"""

from __future__ import annotations

import re
from typing import Any

# Errors that say the infrastructure failed, not the agent: the model server could not be reached or timed out,
# the browser died, the page could not be loaded at all.
INFRA_ERROR_TYPES = frozenset({"ModelUnavailable", "ModelTimeout", "BrowserCrashed"})
_RETRYABLE_HTTP = re.compile(r"answered HTTP (\d{3})")
# A screenshot the browser could not take (a tab swapped documents under a loaded machine).
_CAPTURE = ("captureScreenshot", "Not attached to an active page")


def infra_error(episode: Any) -> str | None:
    """Why an episode's infrastructure failed (None: whatever happened is the agent's doing). A model server
    that cannot be reached, times out or answers 5xx/429, a browser that crashed, an env that could not even
    load the start page: none of these says anything about the agent."""
    o = episode.outcome
    err = o.error or {}
    if o.reason == "error":
        kind, message = str(err.get("type", "")), str(err.get("message", ""))
        if kind in INFRA_ERROR_TYPES:
            return f"{kind}: {message}"
        status = _RETRYABLE_HTTP.search(message)
        if kind == "ModelResponseError" and status and (int(status.group(1)) >= 500 or status.group(1) == "429"):
            return f"{kind}: {message}"
        if not episode.steps:  # env.reset failed: the start page never loaded
            return f"{kind or 'EnvError'} at reset: {message}"
    crashed = next((s for s in episode.steps if (s.error or {}).get("type") == "BrowserCrashed"), None)
    if crashed is not None:
        return f"BrowserCrashed at step {crashed.index}: {crashed.error.get('message')}"
    return None


def browser_failure(episode: Any) -> str | None:
    """A step the browser failed on its own: a screenshot it could not take or an action past its time limit
    (no world page hangs, so that is the machine too). Never the agent's doing on the world's own pages."""
    for s in episode.steps:
        err = s.error or {}
        message = str(err.get("message", ""))
        if err.get("type") == "ActionTimeout" or any(c in message for c in _CAPTURE):
            return f"{err.get('type', 'EnvError')} at step {s.index}: {message}"
    return None
