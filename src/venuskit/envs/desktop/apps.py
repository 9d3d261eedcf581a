"""The desktop's applications: real Debian programs, how to start them and how to recognise their windows.

A task names apps by the keys of `APPS` and gives their arguments (paths relative to the home folder). The root
menu (right-click on the desktop) starts the same commands, so the agent can open any of them itself.
"""

from __future__ import annotations

from dataclasses import dataclass
from xml.sax.saxutils import escape, quoteattr


@dataclass(frozen=True)
class AppSpec:
    name: str  # the key tasks use
    label: str  # the root menu's label
    argv: tuple[str, ...]  # the command before the task's arguments
    wm_class: str  # the class part of WM_CLASS its main window has
    package: str  # the Debian package (for error messages)


APPS: dict[str, AppSpec] = {
    a.name: a
    for a in (
        AppSpec("xterm", "Terminal", ("xterm", "-fa", "DejaVu Sans Mono", "-fs", "11", "-bg", "white", "-fg", "black",
                                      "-geometry", "90x28", "-title", "Terminal"), "XTerm", "xterm"),
        AppSpec("mousepad", "Text Editor", ("mousepad",), "Mousepad", "mousepad"),
        AppSpec("pcmanfm", "Files", ("pcmanfm",), "Pcmanfm", "pcmanfm"),
        AppSpec("gnumeric", "Spreadsheet", ("gnumeric", "--no-splash"), "Gnumeric", "gnumeric"),
        AppSpec("gpicview", "Image Viewer", ("gpicview",), "Gpicview", "gpicview"),
        AppSpec("lxappearance", "Appearance", ("lxappearance",), "Lxappearance", "lxappearance"),
    )
}  # fmt: skip


def get_app(name: str) -> AppSpec:
    if name not in APPS:
        raise ValueError(f"Unknown desktop app {name!r}; the desktop has {', '.join(APPS)}.")
    return APPS[name]


def openbox_menu() -> str:
    """menu.xml for openbox: one item per app, running the app's own command."""
    items = "".join(
        f"    <item label={quoteattr(a.label)}><action name=\"Execute\"><command>{escape(_shell(a.argv))}</command>"
        "</action></item>\n"
        for a in APPS.values()
    )
    return (f'<?xml version="1.0" encoding="UTF-8"?>\n<openbox_menu xmlns="http://openbox.org/3.4/menu">\n'
            f'  <menu id="root-menu" label="Applications">\n{items}  </menu>\n</openbox_menu>\n')  # fmt: skip


def _shell(argv: tuple[str, ...]) -> str:
    import shlex

    return " ".join(shlex.quote(a) for a in argv)
