"""Replies and coordinates for the counter fixture page, shared by the agent and CLI tests."""

from __future__ import annotations

from pathlib import Path

from venuskit.actions import Click, Point, format_call
from venuskit.actions.coords import point_from_pixels

PAGES = Path(__file__).parent / "pages"
W, H = 1024, 768  # the desktop preset's CSS viewport (device scale factor 1)


def click(x: int, y: int) -> str:
    call = format_call(Click(point=Point(*point_from_pixels(x, y, W, H))), "browser")
    return f"<think>Click at {x},{y}.</think>\n<action>{call}</action>"


ADD = click(200, 140)  # the "Add one" button
NAME = click(300, 320)  # the name field
FINISH = "<think>Done.</think>\n<action>Finished(content='done')</action>"
