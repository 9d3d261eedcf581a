"""The Android env: phones, emulators and the venuskit stand-in device, through a real adb server.

`AndroidEnv` needs the optional adbutils dependency (`pip install venuskit[android]`) and an adb binary (Debian's
`adb`), so it is imported lazily: `import venuskit.envs.android` works without them. The stand-in device
(`venuskit.envs.android.standin`) is a loopback process that speaks adbd's protocol in front of Chromium; it is
not Android (docs/android.md).
"""

from __future__ import annotations

from typing import Any

from venuskit.envs.android.config import AndroidConfig
from venuskit.envs.android.errors import (
    AdbNotInstalled,
    AdbServerDown,
    DeviceDisconnected,
    DeviceNotFound,
    DeviceOffline,
    DeviceTimeout,
    DeviceUnauthorized,
    ScreencapInvalid,
    TypingUnsupported,
)

_LAZY = {"AndroidEnv": "venuskit.envs.android.env", "AdbServer": "venuskit.envs.android.adb",
         "list_devices": "venuskit.envs.android.devices"}  # fmt: skip

__all__ = [
    "AdbNotInstalled", "AdbServer", "AdbServerDown", "AndroidConfig", "AndroidEnv", "DeviceDisconnected",
    "DeviceNotFound", "DeviceOffline", "DeviceTimeout", "DeviceUnauthorized", "ScreencapInvalid",
    "TypingUnsupported", "list_devices",
]  # fmt: skip


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        import importlib

        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'venuskit.envs.android' has no attribute {name!r}")
