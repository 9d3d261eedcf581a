"""Environments: the `Env` protocol and its backends.

`BrowserEnv` needs the optional Playwright dependency (`pip install venuskit[browser]`), so it is
imported lazily: `import venuskit.envs` works without it.
"""

from __future__ import annotations

from typing import Any

from venuskit.envs.base import (
    ActionRefused,
    ActionTimeout,
    BrowserCrashed,
    Env,
    EnvError,
    Observation,
    StepResult,
)
from venuskit.envs.netguard import LOOPBACK_HOSTS, NetGuard, NetPolicy, url_allowed

_LAZY = {"BrowserEnv": "venuskit.envs.browser", "BrowserConfig": "venuskit.envs.browser"}

__all__ = [
    "LOOPBACK_HOSTS", "ActionRefused", "ActionTimeout", "BrowserConfig", "BrowserCrashed", "BrowserEnv", "Env",
    "EnvError", "NetGuard", "NetPolicy", "Observation", "StepResult", "url_allowed",
]  # fmt: skip


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'venuskit.envs' has no attribute {name!r}")
