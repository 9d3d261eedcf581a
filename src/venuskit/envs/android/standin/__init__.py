"""The stand-in device: adbd's transport protocol in front of Chromium showing the bundled world's mobile pages.
A stand-in for a phone that cannot exist on this project's machines, named as one wherever it appears."""

from __future__ import annotations

from venuskit.envs.android.standin.device import (
    NOT_MODELLED,
    STANDIN_NOTE,
    StandinConfig,
    StandinDevice,
    in_process,
)

__all__ = ["NOT_MODELLED", "STANDIN_NOTE", "StandinConfig", "StandinDevice", "in_process"]
