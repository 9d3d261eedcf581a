"""Element families, part 1: controls (buttons, icon buttons, links, tabs, pagination, inputs, checkboxes,
radios, toggles, dropdowns and open menus, sliders).

Each builder takes the page `Ctx` (with the panel's budget `ctx.w × ctx.h` CSS px) and returns the panel's
HTML; targets are registered with `ctx.add` and carry `data-gt`. Instructions are written here because only the
builder knows what a target means; REGION is filled after rendering.
"""

from __future__ import annotations

from venuskit.synth.grounding.context import Ctx, esc
from venuskit.synth.grounding.instructions import REGION, ordinal

SLIDER_INSET = 8  # CSS px: half the handle's width
NAMED = ("blue", "green", "red", "orange", "purple", "teal", "pink", "grey", "black")


def _gt(tid: str) -> str:
    return f'data-gt="{tid}"'


def buttons(ctx: Ctx) -> str:
    """A row of text buttons (solid, outline or plain), some with a leading icon."""
    rng, title = ctx.rng, ctx.title
    acts = ctx.pick_acts(rng.randint(2, max(2, min(6, int(ctx.w // (ctx.px(7)))))))
    parts = []
    for i, act in enumerate(acts):
        label = ctx.t((act.en, act.zh))
        name = "red" if act.key in ("delete", "logout") else rng.choice(NAMED[:7] if rng.random() < 0.6 else ("blue",))
        hex_, cen, czh = ctx.colour(name)
        variant = rng.choice(("", "", "outline", "ghost"))
        oe, oz = ordinal(i)
        tid = ctx.add(
            "button",
            "text",
            {
                "literal": ctx.click(label, ("button", "按钮")),
                "functional": (act.fn_en, act.fn_zh),
                "visual": (f"the {cen} {ctx.q(label)[0]} button {REGION}", f"{REGION}的{czh}{ctx.q(label)[1]}按钮"),
                "positional": (
                    f"the {oe} button from the left in the {ctx.q(title)[0]} panel",
                    f"{ctx.q(title)[1]}面板中从左数{oz}个按钮",
                )
                if title
                else None,
            },
        )
        icon = ctx.icon(act.icon, ctx.px(1.1)) if rng.random() < 0.35 else ""
        parts.append(
            f'<button class="btn {variant}" style="--c:{hex_}" {_gt(tid)}>{icon}<span>{esc(label)}</span></button>'
        )
    return f'<div class="row">{"".join(parts)}</div>'


def icon_buttons(ctx: Ctx, family: str = "icon_button", where: tuple[str, str] | None = None) -> str:
    """A toolbar of icon-only buttons (tooltips in `title`, which a screenshot does not show)."""
    rng = ctx.rng
    size = ctx.px(rng.choice((1.1, 1.25, 1.5)))
    k = max(3, min(12, int(ctx.w // (size * 2.6))))
    acts = ctx.pick_acts(rng.randint(3, k))
    coloured = rng.random() < 0.4
    place = where or (
        (f"in the toolbar of the {ctx.q(ctx.title)[0]} panel", f"{ctx.q(ctx.title)[1]}面板工具栏中")
        if ctx.title
        else ("in the toolbar", "工具栏中")
    )
    parts = []
    for i, act in enumerate(acts):
        name = rng.choice(NAMED[:7]) if coloured else None
        style = f' style="--c:{ctx.colour(name)[0]}"' if name else ""
        oe, oz = ordinal(i)
        visual_en = f"the {name + ' ' if name else ''}{act.icon_en} icon {REGION}"
        visual_zh = f"{REGION}的{ctx.colour(name)[2] if name else ''}{act.icon_zh}图标"
        tid = ctx.add(
            family,
            "icon",
            {
                "literal": (f"{ctx.verb[0]} the {act.icon_en} icon", f"{ctx.verb[1]}{act.icon_zh}图标"),
                "functional": (act.fn_en, act.fn_zh),
                "visual": (visual_en, visual_zh),
                "positional": (f"the {oe} icon {place[0]}", f"{place[1]}的{oz}个图标"),
            },
            "icon_button",
        )
        parts.append(
            f'<button class="iconbtn" title="{esc(act.en)}"{style} {_gt(tid)}>{ctx.icon(act.icon, size)}</button>'
        )
    return f'<div class="toolbar">{"".join(parts)}</div>'


def links(ctx: Ctx) -> str:
    """A breadcrumb trail, or a list of navigation links."""
    if ctx.rng.random() < 0.4:
        return _breadcrumb(ctx)
    items = ctx.pick("sections", ctx.rng.randint(3, max(3, min(9, int(ctx.h // ctx.px(2.2))))))
    parts = []
    for i, pair in enumerate(items):
        label = ctx.t(pair)
        tid = ctx.add(
            "link",
            "text",
            {
                "literal": ctx.click(label, ("link", "链接")),
                "functional": (f"go to the {pair[0]} page", f"打开{pair[1]}页面"),
                "positional": (
                    f"the {ordinal(i)[0]} link in the {ctx.q(ctx.title)[0]} list",
                    f"{ctx.q(ctx.title)[1]}列表中的{ordinal(i)[1]}个链接",
                )
                if ctx.title
                else None,
            },
        )
        parts.append(f'<li><a href="#" class="link" {_gt(tid)}>{esc(label)}</a></li>')
    return f'<ul class="links">{"".join(parts)}</ul>'


def _breadcrumb(ctx: Ctx) -> str:
    items = [("Home", "首页")] + ctx.pick("sections", ctx.rng.randint(2, 4))
    parts = []
    for i, pair in enumerate(items[:-1]):
        label = ctx.t(pair)
        tid = ctx.add(
            "link",
            "text",
            {
                "literal": ctx.click(label, ("link in the breadcrumb", "面包屑链接")),
                "functional": (f"go back up to {pair[0]}", f"返回上级“{pair[1]}”"),
                "positional": (f"the {ordinal(i)[0]} item of the breadcrumb trail", f"面包屑导航的{ordinal(i)[1]}项"),
            },
            "breadcrumb",
        )
        parts.append(f'<a href="#" class="link" {_gt(tid)}>{esc(label)}</a><span class="sep">›</span>')
    parts.append(f"<span>{esc(ctx.t(items[-1]))}</span>")
    return f'<nav class="crumbs">{"".join(parts)}</nav>'


def tabs(ctx: Ctx) -> str:
    """A tab strip with one active tab."""
    k = max(2, min(7, int(ctx.w // ctx.px(7.5))))
    items = ctx.pick("sections", ctx.rng.randint(2, k))
    active = ctx.rng.randrange(len(items))
    parts = []
    for i, pair in enumerate(items):
        label = ctx.t(pair)
        oe, oz = ordinal(i)
        visual = ("the highlighted tab " + REGION, f"{REGION}的高亮标签页") if i == active else None
        tid = ctx.add(
            "tab",
            "text",
            {
                "literal": ctx.click(label, ("tab", "标签页")),
                "functional": (f"switch to the {pair[0]} tab", f"切换到{pair[1]}标签页"),
                "visual": visual,
                "positional": (
                    f"the {oe} tab in the {ctx.q(ctx.title)[0]} panel",
                    f"{ctx.q(ctx.title)[1]}面板中的{oz}个标签页",
                )
                if ctx.title
                else None,
            },
        )
        cls = "tab on" if i == active else "tab"
        parts.append(f'<div class="{cls}" role="tab" {_gt(tid)}>{esc(label)}</div>')
    return f'<div class="tabs">{"".join(parts)}</div>'


def pagination(ctx: Ctx) -> str:
    rng = ctx.rng
    last = rng.randint(6, 40)
    cur = rng.randint(1, last)
    pages = sorted({1, max(1, cur - 1), cur, min(last, cur + 1), last})
    prev_l, next_l = ctx.t(("Previous", "上一页")), ctx.t(("Next", "下一页"))
    parts = [_page_arrow(ctx, prev_l, "previous", "上一页")]
    for i, p in enumerate(pages):
        if i and p - pages[i - 1] > 1:
            parts.append('<span class="ell">…</span>')
        extra = {"positional": ("the last page number in the pagination", "分页中的最后一个页码")} if p == last else {}
        if p == cur:
            extra["visual"] = ("the highlighted page number " + REGION, f"{REGION}高亮的页码")
        tid = ctx.add(
            "pagination",
            "text",
            {
                "literal": (f"{ctx.verb[0]} page {p} in the pagination", f"{ctx.verb[1]}分页中的第 {p} 页"),
                "functional": (f"go to page {p}", f"跳转到第 {p} 页"),
                **extra,
            },
            "page_number",
        )
        parts.append(f'<button class="pg{" on" if p == cur else ""}" {_gt(tid)}>{p}</button>')
    parts.append(_page_arrow(ctx, next_l, "next", "下一页"))
    return f'<div class="pages">{"".join(parts)}</div>'


def _page_arrow(ctx: Ctx, label: str, en: str, zh: str) -> str:
    icon = "chevron-left" if en == "previous" else "chevron-right"
    tid = ctx.add(
        "pagination",
        "text",
        {
            "literal": ctx.click(label, ("button", "按钮")),
            "functional": (f"go to the {en} page", f"翻到{zh}"),
        },
        "page_arrow",
    )
    inner = (
        f"{ctx.icon(icon, ctx.px(0.9))}{esc(label)}"
        if en == "previous"
        else f"{esc(label)}{ctx.icon(icon, ctx.px(0.9))}"
    )
    return f'<button class="pg wide" {_gt(tid)}>{inner}</button>'


def inputs(ctx: Ctx) -> str:
    """Labelled form fields (text, email, password, number, textarea), sometimes a search box."""
    rng = ctx.rng
    rows = max(1, min(5, int(ctx.h // ctx.px(5))))
    fields = ctx.pick("fields", rng.randint(1, rows))
    parts = [_search(ctx)] if rng.random() < 0.3 else []
    for i, (en, zh, kind, ph, fn_en, fn_zh) in enumerate(fields):
        label = ctx.t((en, zh))
        oe, oz = ordinal(i)
        tid = ctx.add(
            "input",
            "text",
            {
                "literal": ctx.click(label, ("field", "输入框")),
                "functional": (f"enter {fn_en}", f"输入{fn_zh}"),
                "visual": (
                    f"the {'large text area' if kind == 'textarea' else 'input box'} below {ctx.q(label)[0]}",
                    f"标签{ctx.q(label)[1]}下方的{'文本区域' if kind == 'textarea' else '输入框'}",
                ),
                "positional": (
                    f"the {oe} input field in the {ctx.q(ctx.title)[0]} form",
                    f"{ctx.q(ctx.title)[1]}表单中的{oz}个输入框",
                )
                if ctx.title
                else None,
            },
            kind,
        )
        placeholder = esc(ph) if ph and rng.random() < 0.7 else ""
        if kind == "textarea":
            control = f'<textarea class="in" rows="2" placeholder="{placeholder}" {_gt(tid)}></textarea>'
        else:
            control = f'<input class="in" type="{kind}" placeholder="{placeholder}" {_gt(tid)}>'
        parts.append(f'<div class="field"><label>{esc(label)}</label>{control}</div>')
    return f'<div class="form">{"".join(parts)}</div>'


def _search(ctx: Ctx) -> str:
    ph = ctx.t(("Search…", "搜索…"))
    tid = ctx.add(
        "input",
        "text",
        {
            "literal": (f"{ctx.verb[0]} the search box", f"{ctx.verb[1]}搜索框"),
            "functional": (f"search in {ctx.title or 'this panel'}", f"在{ctx.title or '此面板'}中搜索"),
            "visual": ("the search box with a magnifying glass " + REGION, f"{REGION}带放大镜的搜索框"),
        },
        "search",
    )
    icon = ctx.icon("search", ctx.px(1))
    return f'<div class="search">{icon}<input class="in" type="search" placeholder="{esc(ph)}" {_gt(tid)}></div>'


def checkboxes(ctx: Ctx, kind: str = "checkbox") -> str:
    """Labelled checkboxes; the target is the clickable label (control and text)."""
    rng = ctx.rng
    items = ctx.pick("settings", rng.randint(2, max(2, min(6, int(ctx.h // ctx.px(2.4))))))
    parts = []
    for i, pair in enumerate(items):
        label, on = ctx.t(pair), rng.random() < 0.4
        verb = ("disable", "停用") if on else ("enable", "启用")
        oe, oz = ordinal(i)
        tid = ctx.add(
            "checkbox",
            "text",
            {
                "literal": (
                    f"{'uncheck' if on else 'check'} {ctx.q(label)[0]}",
                    f"{'取消勾选' if on else '勾选'}{ctx.q(label)[1]}",
                ),
                "functional": (f"{verb[0]} {pair[0].lower()}", f"{verb[1]}{pair[1]}"),
                "positional": (
                    f"the {oe} checkbox in the {ctx.q(ctx.title)[0]} panel",
                    f"{ctx.q(ctx.title)[1]}面板中的{oz}个复选框",
                )
                if ctx.title
                else None,
            },
        )
        checked = " checked" if on else ""
        parts.append(
            f'<label class="check" {_gt(tid)}><input type="checkbox"{checked}><span>{esc(label)}</span></label>'
        )
    return f'<div class="checks">{"".join(parts)}</div>'


def radios(ctx: Ctx) -> str:
    (q_en, q_zh), options = ctx.pick("radios", 1)[0]
    question = ctx.t((q_en, q_zh))
    chosen = ctx.rng.randrange(len(options))
    group = f"r{ctx.rng.randrange(10**6)}"
    parts = [f'<div class="qlabel">{esc(question)}</div>']
    for i, (en, zh) in enumerate(options):
        label = ctx.t((en, zh))
        oe, oz = ordinal(i)
        tid = ctx.add(
            "radio",
            "text",
            {
                "literal": (f"select {ctx.q(label)[0]}", f"选择{ctx.q(label)[1]}"),
                "functional": (f"choose {en} as the {q_en.lower()}", f"将{q_zh}设为{zh}"),
                "positional": (f"the {oe} option under {ctx.q(question)[0]}", f"{ctx.q(question)[1]}下的{oz}个选项"),
            },
        )
        checked = " checked" if i == chosen else ""
        control = f'<input type="radio" name="{group}"{checked}>'
        parts.append(f'<label class="check" {_gt(tid)}>{control}<span>{esc(label)}</span></label>')
    return f'<div class="checks">{"".join(parts)}</div>'


def toggles(ctx: Ctx) -> str:
    """Settings rows with a switch at the right; the target is the switch."""
    rng = ctx.rng
    items = ctx.pick("settings", rng.randint(2, max(2, min(7, int(ctx.h // ctx.px(2.8))))))
    parts = []
    for i, pair in enumerate(items):
        label, on = ctx.t(pair), rng.random() < 0.5
        oe, oz = ordinal(i)
        tid = ctx.add(
            "toggle",
            "icon",
            {
                "literal": (
                    f"{ctx.verb[0]} the switch next to {ctx.q(label)[0]}",
                    f"{ctx.verb[1]}{ctx.q(label)[1]}旁边的开关",
                ),
                "functional": (
                    f"turn {'off' if on else 'on'} {pair[0].lower()}",
                    f"{'关闭' if on else '打开'}{pair[1]}",
                ),
                "positional": (
                    f"the {oe} switch in the {ctx.q(ctx.title)[0]} list",
                    f"{ctx.q(ctx.title)[1]}列表中的{oz}个开关",
                )
                if ctx.title
                else None,
            },
        )
        parts.append(
            f'<div class="setrow"><span>{esc(label)}</span>'
            f'<span class="switch{" on" if on else ""}" role="switch" {_gt(tid)}><i></i></span></div>'
        )
    return f'<div class="settings">{"".join(parts)}</div>'


def dropdowns(ctx: Ctx) -> str:
    """Closed dropdown triggers, one of them possibly open with its option list shown below."""
    rng = ctx.rng
    menus = ctx.pick("dropdowns", rng.randint(1, 2 if ctx.h > ctx.px(14) else 1))
    open_index = rng.randrange(len(menus)) if rng.random() < 0.6 else -1
    parts = []
    for i, ((l_en, l_zh), options) in enumerate(menus):
        label = ctx.t((l_en, l_zh))
        cur = rng.randrange(len(options))
        current = ctx.t(options[cur])
        tid = ctx.add(
            "dropdown",
            "text",
            {
                "literal": (f"open the {ctx.q(label)[0]} dropdown", f"打开{ctx.q(label)[1]}下拉菜单"),
                "functional": (f"change the {l_en.lower()}", f"更改{l_zh}"),
                "visual": (f"the dropdown showing {ctx.q(current)[0]}", f"显示{ctx.q(current)[1]}的下拉框"),
            },
            "dropdown_trigger",
        )
        chevron = ctx.icon("chevron-up" if i == open_index else "chevron-down", ctx.px(0.9))
        menu = _open_menu(ctx, label, (l_en, l_zh), options, cur) if i == open_index else ""
        parts.append(
            f'<div class="field dd"><label>{esc(label)}</label>'
            f'<div class="select" {_gt(tid)}><span>{esc(current)}</span>{chevron}</div>{menu}</div>'
        )
    if open_index < 0 and rng.random() < 0.5 and ctx.h > ctx.px(12):
        parts.append(_context_menu(ctx))
    return f'<div class="form">{"".join(parts)}</div>'


def _open_menu(ctx: Ctx, label: str, name: tuple[str, str], options: list, cur: int) -> str:
    items = []
    for i, (en, zh) in enumerate(options):
        text = ctx.t((en, zh))
        oe, oz = ordinal(i)
        tid = ctx.add(
            "dropdown",
            "text",
            {
                "literal": (
                    f"choose {ctx.q(text)[0]} from the {ctx.q(label)[0]} menu",
                    f"在{ctx.q(label)[1]}菜单中选择{ctx.q(text)[1]}",
                ),
                "functional": (f"set the {name[0].lower()} to {en}", f"把{name[1]}设为{zh}"),
                "positional": (
                    f"the {oe} option in the open {ctx.q(label)[0]} menu",
                    f"展开的{ctx.q(label)[1]}菜单中的{oz}个选项",
                ),
            },
            "menu_option",
        )
        check = ctx.icon("check", ctx.px(1)) if i == cur else '<span class="nocheck"></span>'
        items.append(f"<li {_gt(tid)}>{check}<span>{esc(text)}</span></li>")
    return f'<ul class="menu">{"".join(items)}</ul>'


def _context_menu(ctx: Ctx) -> str:
    acts = ctx.pick_acts(ctx.rng.randint(3, 5))
    items = []
    for act in acts:
        text = ctx.t((act.en, act.zh))
        tid = ctx.add(
            "dropdown",
            "text",
            {
                "literal": (
                    f"{ctx.verb[0]} {ctx.q(text)[0]} in the context menu",
                    f"{ctx.verb[1]}右键菜单中的{ctx.q(text)[1]}",
                ),
                "functional": (act.fn_en, act.fn_zh),
            },
            "context_menu_item",
        )
        items.append(f"<li {_gt(tid)}>{ctx.icon(act.icon, ctx.px(1))}<span>{esc(text)}</span></li>")
    return f'<ul class="menu ctx">{"".join(items)}</ul>'


def sliders(ctx: Ctx) -> str:
    """Labelled sliders. Two targets each: the handle (a box) and a point on the track for a new value."""
    rng = ctx.rng
    items = ctx.pick("sliders", rng.randint(1, max(1, min(4, int(ctx.h // ctx.px(4.5))))))
    parts = []
    for en, zh in items:
        label = ctx.t((en, zh))
        cur = rng.randrange(5, 96, 5)
        new = rng.choice([v for v in range(5, 96, 5) if abs(v - cur) >= 10])
        handle = ctx.add(
            "slider",
            "icon",
            {
                "literal": (
                    f"{ctx.verb[0]} the handle of the {ctx.q(label)[0]} slider",
                    f"{ctx.verb[1]}{ctx.q(label)[1]}滑块的手柄",
                ),
                "visual": (
                    f"the round knob on the {en.lower()} slider, at {cur}%",
                    f"{zh}滑块上位于 {cur}% 的圆形手柄",
                ),
            },
            "slider_handle",
        )
        track = ctx.add(
            "slider",
            "icon",
            {
                "functional": (f"set the {en.lower()} to {new}%", f"把{zh}调到 {new}%"),
                "literal": (
                    f"{ctx.verb[0]} the {ctx.q(label)[0]} slider at {new}%",
                    f"{ctx.verb[1]}{ctx.q(label)[1]}滑块的 {new}% 处",
                ),
            },
            "slider_value",
        )
        # The handle's centre runs from INSET to width - INSET, as in a native range input; the point target
        # uses the same mapping (data-gt-inset), so value v is where the handle would sit.
        at = f"calc({SLIDER_INSET}px + (100% - {2 * SLIDER_INSET}px) * {cur / 100})"
        parts.append(
            f'<div class="slider"><div class="slabel"><span>{esc(label)}</span><span>{cur}%</span></div>'
            f'<div class="track" {_gt(track)} data-gt-value="{new / 100}" data-gt-inset="{SLIDER_INSET}">'
            f'<i class="rail"></i><i class="fill" style="width:{at}"></i>'
            f'<b class="thumb" style="left:{at}" {_gt(handle)} data-gt-hit="cross"></b></div></div>'
        )
    return "".join(parts)
