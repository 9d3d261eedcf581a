"""The desktop environment: the computer surface on Xvfb with openbox and real Debian apps.

    config.py    DesktopConfig
    env.py       DesktopEnv: reset from a snapshot, the step, the X server's read-back, crash recovery
    home.py      the home folder: skeleton, snapshot and settings restored per episode; the task dict checked
    handlers.py  one handler per computer-grammar action (XTest input)
    xclient.py   the X connection: XTest, pointer/keys/focus/windows as the server sees them, repaint events
    xserver.py   Xvfb (its screen memory-mapped), the session bus, openbox; process lifetimes
    keys.py      model key names -> X keysyms
    apps.py      the apps (editor, file manager, spreadsheet, terminal, image viewer, appearance settings)
    skel.py      the window manager's configuration and the home folder's skeleton
    viewer.py    a live view of the screen on a loopback web page
"""

from venuskit.envs.desktop.apps import APPS, AppSpec
from venuskit.envs.desktop.config import DesktopConfig
from venuskit.envs.desktop.env import AppCrashed, DesktopCrashed, DesktopEnv, InputNotSeen
from venuskit.envs.desktop.xclient import Window

__all__ = ["APPS", "AppCrashed", "AppSpec", "DesktopConfig", "DesktopCrashed", "DesktopEnv", "InputNotSeen", "Window"]
