"""The Android env's typed errors: each names what went wrong and what fixes it. A step returns them in
`StepResult.error` when it still has a screen to show, and raises them when it has none (the runner then records
the step, ends the episode as an error and leaves its folder resumable)."""

from __future__ import annotations

from venuskit.envs.base import ActionRefused, ActionTimeout, EnvError


class AdbNotInstalled(EnvError):
    """No adb binary to start a server with."""

    kind = "AdbNotInstalled"


class AdbServerDown(EnvError):
    """No adb server answers at the configured host and port (and none could be started)."""

    kind = "AdbServerDown"


class DeviceNotFound(EnvError):
    """The adb server does not list the device (never connected, unplugged, or the serial is wrong)."""

    kind = "DeviceNotFound"


class DeviceOffline(EnvError):
    """The device is listed but offline: its adbd does not answer (booting, a dead connection)."""

    kind = "DeviceOffline"


class DeviceUnauthorized(EnvError):
    """The device has not accepted this computer's adb key (the 'Allow USB debugging?' prompt)."""

    kind = "DeviceUnauthorized"


class DeviceDisconnected(EnvError):
    """The device went away in the middle of an episode and did not come back in time."""

    kind = "DeviceDisconnected"


class DeviceTimeout(ActionTimeout):
    """A command on the device did not finish in time (a hung `input`, `screencap` or adbd)."""

    kind = "DeviceTimeout"


class ScreencapInvalid(EnvError):
    """`screencap -p` returned something that is not a whole PNG, twice."""

    kind = "ScreencapInvalid"


class TypingUnsupported(ActionRefused):
    """Text `input text` cannot type and no ADBKeyboard IME to type it with."""

    kind = "TypingUnsupported"


# Errors after which the device (or the adb server) is not known to be usable: the env tries to recover.
CONNECTION_ERRORS = (AdbServerDown, DeviceNotFound, DeviceOffline, DeviceDisconnected, DeviceTimeout)
