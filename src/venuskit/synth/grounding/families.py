"""The registry of element families, and the applications whose screens compose them.

A family is a builder `(Ctx) -> html` (controls.py, widgets.py) or a platform frame (chrome.py). An application
is a realistic mix: its core families come first, then extras, on the platforms it exists on. `group` follows
ScreenSpot-Pro's categories (Dev, Creative, CAD, Scientific, Office, OS) plus Web for sites.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from venuskit.synth.grounding import controls, widgets
from venuskit.synth.grounding.context import Ctx

Builder = Callable[[Ctx], str]

PANEL_FAMILIES: dict[str, Builder] = {
    "button": controls.buttons,
    "icon_button": controls.icon_buttons,
    "link": controls.links,
    "tab": controls.tabs,
    "pagination": controls.pagination,
    "input": controls.inputs,
    "checkbox": controls.checkboxes,
    "radio": controls.radios,
    "toggle": controls.toggles,
    "dropdown": controls.dropdowns,
    "slider": controls.sliders,
    "datepicker": widgets.datepicker,
    "table": widgets.table,
    "spreadsheet": widgets.spreadsheet,
    "tree": widgets.tree,
    "text": widgets.text_spans,
    "canvas_chart": widgets.canvas_chart,
    "svg_chart": widgets.svg_chart,
    "image": widgets.images,
    "code": widgets.code_editor,
    "list": widgets.message_list,
}
OVERLAY_FAMILIES: dict[str, Builder] = {"dialog": widgets.dialog}
CHROME_FAMILIES = ("window", "nav_bar", "mobile_nav")  # drawn by chrome.py around every page of their platform
FAMILIES: tuple[str, ...] = (*PANEL_FAMILIES, *OVERLAY_FAMILIES, *CHROME_FAMILIES)
WIDE = frozenset({"table", "spreadsheet", "code", "canvas_chart", "svg_chart", "text", "image", "list", "datepicker"})
TALL = frozenset({"spreadsheet", "code", "tree", "table"})

DESKTOP = ("windows", "macos", "linux")
ALL = ("web", *DESKTOP, "android", "ios")


@dataclass(frozen=True)
class App:
    name: str
    group: str
    platforms: tuple[str, ...]
    core: tuple[str, ...]
    extra: tuple[str, ...]


APPS: tuple[App, ...] = (
    App(
        "mail",
        "Office",
        ALL,
        ("list", "icon_button"),
        ("button", "tab", "input", "checkbox", "dropdown", "text", "link"),
    ),
    App(
        "shop",
        "Web",
        ("web", "android", "ios"),
        ("image", "pagination"),
        ("dropdown", "slider", "radio", "checkbox", "button", "input", "link", "tab"),
    ),
    App(
        "dashboard",
        "Scientific",
        ("web", *DESKTOP),
        ("canvas_chart", "svg_chart", "table"),
        ("tab", "dropdown", "datepicker", "button", "pagination", "toggle"),
    ),
    App(
        "spreadsheet",
        "Office",
        DESKTOP + ("web",),
        ("spreadsheet",),
        ("icon_button", "dropdown", "button", "svg_chart"),
    ),
    App("code_editor", "Dev", DESKTOP, ("code", "tree"), ("tab", "icon_button", "input", "list", "toggle")),
    App("file_manager", "OS", DESKTOP, ("tree", "table"), ("link", "icon_button", "button", "input")),
    App(
        "settings",
        "OS",
        ALL,
        ("toggle", "slider"),
        ("radio", "dropdown", "checkbox", "button", "input", "tab", "link"),
    ),
    App(
        "image_editor",
        "Creative",
        DESKTOP,
        ("icon_button", "slider"),
        ("image", "tree", "dropdown", "toggle", "canvas_chart"),
    ),
    App("cad", "CAD", DESKTOP, ("icon_button", "svg_chart", "tree"), ("input", "dropdown", "slider", "tab")),
    App("calendar", "Office", ALL, ("datepicker",), ("list", "button", "tab", "input", "dropdown", "checkbox")),
    App(
        "docs", "Office", ("web", *DESKTOP), ("text", "icon_button"), ("dropdown", "button", "tab", "link", "checkbox")
    ),
    App(
        "social",
        "Web",
        ("web", "android", "ios"),
        ("image", "text"),
        ("list", "button", "icon_button", "input", "tab"),
    ),
    App(
        "forms",
        "Web",
        ("web", "android", "ios"),
        ("input", "checkbox", "radio"),
        ("dropdown", "datepicker", "button", "slider"),
    ),
    App(
        "media",
        "Creative",
        ("web", "android", "ios", *DESKTOP),
        ("slider", "image"),
        ("icon_button", "list", "tab", "toggle"),
    ),
)


def apps_for(platform: str) -> list[App]:
    return [a for a in APPS if platform in a.platforms]
