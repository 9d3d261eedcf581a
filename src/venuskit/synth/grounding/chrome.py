"""Platform frames around the panels: desktop window chrome (Windows, macOS, Linux), a web site header, and a
mobile app bar with bottom navigation. Their controls are targets of the families "window", "nav_bar" and
"mobile_nav"."""

from __future__ import annotations

from venuskit.synth.grounding.context import Ctx, esc
from venuskit.synth.grounding.controls import _gt, icon_buttons
from venuskit.synth.grounding.instructions import ordinal
from venuskit.synth.grounding.vocab import vocab

_SHAPE = {"close": ("cross", "叉号"), "max": ("square", "方框"), "min": ("dash", "横线")}
_WINDOW_BUTTONS = {  # key: (icon, English verb, Chinese verb)
    "min": ("dash-lg", "minimise the window", "最小化窗口"),
    "max": ("square", "maximise the window", "最大化窗口"),
    "close": ("x-lg", "close the window", "关闭窗口"),
}


def window_frame(ctx: Ctx, platform: str, title: str, body: str) -> str:
    """Title bar, menu bar (one menu sometimes open), toolbar, the body, and a status bar."""
    ctx.title = ""
    menubar = _menubar(ctx)
    toolbar = icon_buttons(ctx, "window", ("in the main toolbar", "主工具栏中")) if ctx.rng.random() < 0.8 else ""
    return (
        f'<div class="app win {platform}">{_titlebar(ctx, platform, title)}{menubar}{toolbar}'
        f"{body}{_statusbar(ctx)}</div>"
    )


def _titlebar(ctx: Ctx, platform: str, title: str) -> str:
    if platform == "macos":
        lights = []
        for key, colour, zh in (("close", "#ff5f57", "红"), ("min", "#febc2e", "黄"), ("max", "#28c840", "绿")):
            _, fn_en, fn_zh = _WINDOW_BUTTONS[key]
            name = {"close": "red", "min": "yellow", "max": "green"}[key]
            tid = ctx.add(
                "window",
                "icon",
                {
                    "functional": (
                        fn_en if key != "max" else "make the window full screen",
                        fn_zh if key != "max" else "让窗口全屏",
                    ),
                    "visual": (f"the {name} circle at the top-left of the window", f"窗口左上角的{zh}色圆点"),
                },
                f"window_{key}",
            )
            lights.append(f'<span class="light" style="background:{colour}" data-gt-hit="cross" {_gt(tid)}></span>')
        lights_html = f'<div class="lights">{"".join(lights)}</div>'
        return f'<div class="titlebar mac">{lights_html}<span class="wtitle">{esc(title)}</span></div>'
    btns = []
    for key in ("min", "max", "close"):
        icon, fn_en, fn_zh = _WINDOW_BUTTONS[key]
        tid = ctx.add(
            "window",
            "icon",
            {
                "functional": (fn_en, fn_zh),
                "visual": (
                    f"the {_SHAPE[key][0]} button at the top-right of the window",
                    f"窗口右上角的{_SHAPE[key][1]}按钮",
                ),
            },
            f"window_{key}",
        )
        cls = "wbtn close" if key == "close" else "wbtn"
        btns.append(f'<button class="{cls}" {_gt(tid)}>{ctx.icon(icon, ctx.px(0.8))}</button>')
    app_icon = ctx.icon("app", ctx.px(1)) if platform == "windows" else ""
    return (
        f'<div class="titlebar {platform}">{app_icon}<span class="wtitle">{esc(title)}</span>'
        f'<div class="wbtns">{"".join(btns)}</div></div>'
    )


def _menubar(ctx: Ctx) -> str:
    items = vocab()["menubar"][: ctx.rng.randint(4, 8)]
    open_at = ctx.rng.randrange(len(items)) if ctx.rng.random() < 0.25 else -1
    parts = []
    for i, pair in enumerate(items):
        label = ctx.t(pair)
        tid = ctx.add(
            "window",
            "text",
            {
                "literal": (f"{ctx.verb[0]} the {ctx.q(label)[0]} menu", f"{ctx.verb[1]}{ctx.q(label)[1]}菜单"),
                "functional": (f"open the {pair[0]} menu in the menu bar", f"打开菜单栏中的{pair[1]}菜单"),
                "positional": (f"the {ordinal(i)[0]} item of the menu bar", f"菜单栏的{ordinal(i)[1]}项"),
            },
            "menubar_item",
        )
        menu = _menu_list(ctx) if i == open_at else ""
        parts.append(
            f'<div class="mitem{" on" if i == open_at else ""}"><span {_gt(tid)}>{esc(label)}</span>{menu}</div>'
        )
    return f'<div class="menubar">{"".join(parts)}</div>'


def _menu_list(ctx: Ctx) -> str:
    items = []
    for act in ctx.pick_acts(ctx.rng.randint(3, 6)):
        text = ctx.t((act.en, act.zh))
        tid = ctx.add(
            "window",
            "text",
            {
                "literal": (
                    f"{ctx.verb[0]} {ctx.q(text)[0]} in the open menu",
                    f"{ctx.verb[1]}展开菜单中的{ctx.q(text)[1]}",
                ),
                "functional": (act.fn_en, act.fn_zh),
            },
            "menu_item",
        )
        items.append(f"<li {_gt(tid)}><span>{esc(text)}</span></li>")
    return f'<ul class="menu drop">{"".join(items)}</ul>'


def _statusbar(ctx: Ctx) -> str:
    rng = ctx.rng
    texts = [
        (f"Ln {rng.randint(1, 300)}, Col {rng.randint(1, 80)}", "cursor position"),
        ("UTF-8", "encoding"),
        (f"{rng.choice((75, 100, 125, 150))}%", "zoom level"),
    ]
    parts = []
    for text, what in texts:
        tid = ctx.add(
            "window",
            "text",
            {
                "literal": (
                    f"{ctx.verb[0]} {ctx.q(text)[0]} in the status bar",
                    f"{ctx.verb[1]}状态栏中的{ctx.q(text)[1]}",
                ),
                "functional": (
                    f"change the {what}",
                    {"cursor position": "跳转到指定行", "encoding": "更改文件编码", "zoom level": "调整缩放比例"}[
                        what
                    ],
                ),
            },
            "status_item",
        )
        parts.append(f"<span {_gt(tid)}>{esc(text)}</span>")
    return f'<div class="statusbar">{"".join(parts)}</div>'


def web_frame(ctx: Ctx, title: str, body: str) -> str:
    """A site header: logo, navigation links, a search box and account icons; the body below."""
    logo = ctx.add(
        "nav_bar",
        "text",
        {
            "literal": (f"{ctx.verb[0]} the {ctx.q(title)[0]} logo", f"{ctx.verb[1]}{ctx.q(title)[1]}标志"),
            "functional": ("go back to the home page", "返回首页"),
        },
        "logo",
    )
    links = []
    for i, pair in enumerate(ctx.pick("sections", ctx.rng.randint(2, max(2, min(6, int(ctx.w // 260)))))):
        label = ctx.t(pair)
        tid = ctx.add(
            "nav_bar",
            "text",
            {
                "literal": ctx.click(label, ("link in the header", "导航链接")),
                "functional": (f"go to the {pair[0]} section of the site", f"进入网站的{pair[1]}栏目"),
                "positional": (f"the {ordinal(i)[0]} link in the top navigation", f"顶部导航的{ordinal(i)[1]}个链接"),
            },
            "nav_link",
        )
        links.append(f'<a href="#" class="navlink" {_gt(tid)}>{esc(label)}</a>')
    icons = icon_buttons(ctx, "nav_bar", ("in the site header", "网站页眉中"))
    return (
        f'<div class="app web"><header class="site"><a href="#" class="logo" {_gt(logo)}>{esc(title)}</a>'
        f'<nav>{"".join(links)}</nav><div class="grow"></div>{icons}</header>{body}</div>'
    )


def mobile_frame(ctx: Ctx, title: str, body: str) -> str:
    """Status bar, app bar (back, title, actions), the body, bottom navigation and a floating action button."""
    back = ctx.add(
        "mobile_nav",
        "icon",
        {
            "functional": ("go back to the previous screen", "返回上一个页面"),
            "visual": ("the back arrow in the top-left corner", "左上角的返回箭头"),
        },
        "back",
    )
    acts = []
    for act in ctx.pick_acts(ctx.rng.randint(1, 2)):
        tid = ctx.add(
            "mobile_nav",
            "icon",
            {
                "functional": (act.fn_en, act.fn_zh),
                "literal": (f"tap the {act.icon_en} icon in the app bar", f"点击顶栏中的{act.icon_zh}图标"),
            },
            "appbar_action",
        )
        acts.append(f'<button class="iconbtn" {_gt(tid)}>{ctx.icon(act.icon, ctx.px(1.4))}</button>')
    appbar = (
        f'<div class="appbar"><button class="iconbtn" {_gt(back)}>{ctx.icon("arrow-left", ctx.px(1.4))}</button>'
        f'<span class="atitle">{esc(title)}</span>{"".join(acts)}</div>'
    )
    status = (
        f'<div class="sbar"><span>{ctx.rng.randint(7, 23)}:{ctx.rng.randint(10, 59)}</span><span class="grow"></span>'
        f"{ctx.icons.svg('wifi', ctx.px(0.9))}{ctx.icons.svg('battery-full', ctx.px(1.1))}</div>"
    )
    return f'<div class="app mobile">{status}{appbar}{body}{_fab(ctx)}{_bottom_nav(ctx)}</div>'


def _bottom_nav(ctx: Ctx) -> str:
    acts = ctx.pick_acts(ctx.rng.randint(3, 5))
    active = ctx.rng.randrange(len(acts))
    items = []
    for i, act in enumerate(acts):
        label = ctx.t((act.en, act.zh))
        tid = ctx.add(
            "mobile_nav",
            "icon",
            {
                "literal": (f"tap {ctx.q(label)[0]} in the bottom bar", f"点击底部栏中的{ctx.q(label)[1]}"),
                "functional": (act.fn_en, act.fn_zh),
                "positional": (f"the {ordinal(i)[0]} item of the bottom navigation", f"底部导航的{ordinal(i)[1]}项"),
                "visual": ("the highlighted item of the bottom bar", "底部栏中高亮的项") if i == active else None,
            },
            "bottom_nav_item",
        )
        items.append(
            f'<div class="bnav{" on" if i == active else ""}" {_gt(tid)}>{ctx.icon(act.icon, ctx.px(1.4))}'
            f"<span>{esc(label)}</span></div>"
        )
    return f'<nav class="bottom">{"".join(items)}</nav>'


def _fab(ctx: Ctx) -> str:
    if ctx.rng.random() < 0.4:
        return ""
    tid = ctx.add(
        "mobile_nav",
        "icon",
        {
            "functional": ("create a new item", "新建一个项目"),
            "visual": ("the round plus button floating at the bottom right", "右下角悬浮的圆形加号按钮"),
        },
        "fab",
    )
    return f'<button class="fab" data-gt-hit="cross" {_gt(tid)}>{ctx.icon("plus-lg", ctx.px(1.6))}</button>'
