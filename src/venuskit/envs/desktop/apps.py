"""The desktop's applications: real Debian programs, how to start them and how to recognise their windows.

A task names apps by the keys of `APPS` and gives their arguments (paths relative to the home folder). The root
menu (right-click on the desktop) starts the same commands, so the agent can open any of them itself.

The web browser is Debian's Chromium, headed on the desktop's display, with the same network guard as the browser
env's (venuskit.envs.netguard): a black-hole proxy for every host but loopback, no WebRTC UDP. Its profile lives in
the episode's home folder (a hidden folder, like any app's settings), so every episode starts a fresh browser;
downloads land in ~/Downloads and uploads go through its own file chooser, where the other apps' files are.
"""

from __future__ import annotations

from dataclasses import dataclass
from xml.sax.saxutils import escape, quoteattr

from venuskit.envs.netguard import WEBRTC_ARGS, NetPolicy, proxy_args

# Chromium on the desktop: no sandbox (containers), no GPU, nothing phoning home, no first-run or keyring prompts,
# no session restore, no "unsupported flag" bar (--test-type); the network guard's proxy switches (loopback only)
# and WebRTC policy.
CHROMIUM_ARGV: tuple[str, ...] = (
    "chromium", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--disable-component-update",
    "--disable-sync", "--no-first-run", "--no-default-browser-check", "--password-store=basic",
    "--disable-smooth-scrolling", "--disable-session-crashed-bubble", "--disable-features=Translate,MediaRouter",
    "--renderer-process-limit=1", "--test-type", *proxy_args(NetPolicy()), *WEBRTC_ARGS,
)  # fmt: skip


@dataclass(frozen=True)
class AppSpec:
    name: str  # the key tasks use
    label: str  # the root menu's label
    argv: tuple[str, ...]  # the command before the task's arguments
    wm_class: str  # the class part of WM_CLASS its main window has
    package: str  # the Debian package (for error messages)
    busy: tuple[str, ...] = ()  # window titles (their start) it shows while its first content still loads


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
        AppSpec("chromium", "Web Browser", CHROMIUM_ARGV, "Chromium", "chromium",
                busy=("Untitled", "Loading", "New Tab", "about:blank", "127.0.0.1", "localhost")),
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
