"""Element families, part 2: composite widgets (date pickers, tables, spreadsheets, tree views, text spans,
canvas and SVG charts, images and product cards, code editors, message lists, dialogs and banners).

Chart boxes come from the drawing code: Python lays the bars and points out, and the same numbers are both
drawn (canvas/SVG) and registered as labels. Text-span targets are DOM ranges of one text node.
"""

from __future__ import annotations

import calendar
import json
import re

from venuskit.synth.grounding.context import Ctx, esc
from venuskit.synth.grounding.controls import NAMED, _gt
from venuskit.synth.grounding.instructions import ordinal
from venuskit.synth.grounding.vocab import vocab


def datepicker(ctx: Ctx) -> str:
    rng = ctx.rng
    year, month = rng.randint(2023, 2027), rng.randint(1, 12)
    m_en, m_zh = vocab()["months"][month - 1]
    first, days = calendar.monthrange(year, month)  # first: Monday = 0
    selected = rng.randint(1, days)
    head = f"{m_en} {year}" if ctx.lang == "en" else f"{year}年{month}月"
    nav = [
        _month_arrow(ctx, "previous", "上", "chevron-left"),
        f'<span class="mtitle">{esc(head)}</span>',
        _month_arrow(ctx, "next", "下", "chevron-right"),
    ]
    wd = "".join(f"<span>{esc(ctx.t(d))}</span>" for d in vocab()["weekdays"])
    cells = ["<span></span>"] * first
    seen: dict[int, int] = {}
    for day in range(1, days + 1):
        weekday = (first + day - 1) % 7
        nth = seen[weekday] = seen.get(weekday, -1) + 1
        wname = vocab()["weekday_names"][weekday]
        tid = ctx.add(
            "datepicker",
            "text",
            {
                "literal": (f"{ctx.verb[0]} {m_en} {day} in the calendar", f"{ctx.verb[1]}日历中的{month}月{day}日"),
                "functional": (f"pick {m_en} {day}, {year} as the date", f"选择{year}年{month}月{day}日"),
                "positional": (
                    f"the {ordinal(nth)[0]} {wname[0]} of {m_en} in the calendar",
                    f"日历中{month}月的{ordinal(nth)[1]}个{wname[1]}",
                )
                if nth < 4
                else None,
                "visual": ("the highlighted day in the calendar", "日历中高亮的日期") if day == selected else None,
            },
            "day_cell",
        )
        cls = "day on" if day == selected else "day"
        cells.append(f'<button class="{cls}" {_gt(tid)}>{day}</button>')
    return (
        f'<div class="cal"><div class="calnav">{"".join(nav)}</div><div class="wd">{wd}</div>'
        f'<div class="days">{"".join(cells)}</div></div>'
    )


def _month_arrow(ctx: Ctx, en: str, zh: str, icon: str) -> str:
    tid = ctx.add(
        "datepicker",
        "icon",
        {
            "functional": (f"show the {en} month in the calendar", f"在日历中显示{zh}个月"),
            "visual": (
                f"the {'left' if en == 'previous' else 'right'} arrow next to the month name",
                f"月份名称{'左' if en == 'previous' else '右'}侧的箭头",
            ),
        },
        "month_arrow",
    )
    return f'<button class="iconbtn" {_gt(tid)}>{ctx.icon(icon, ctx.px(1))}</button>'


def table(ctx: Ctx) -> str:
    """A data table: sortable headers, a name column and per-row edit/delete buttons."""
    rng = ctx.rng
    cols = [("Name", "名称")] + ctx.pick([c for c in vocab()["columns"] if c[0] != "Name"], rng.randint(1, 3))
    n_rows = max(1, min(12, int((ctx.h - ctx.px(2.6)) // ctx.px(2.5)) - 1))
    names = ctx.pick("people_zh" if ctx.lang == "zh" else "people_en", n_rows, key=str)
    head = []
    for en, zh in cols:
        label = ctx.t((en, zh))
        tid = ctx.add(
            "table",
            "text",
            {
                "literal": (
                    f"{ctx.verb[0]} the {ctx.q(label)[0]} column header",
                    f"{ctx.verb[1]}{ctx.q(label)[1]}列标题",
                ),
                "functional": (f"sort the table by {en.lower()}", f"按{zh}排序表格"),
            },
            "column_header",
        )
        head.append(f'<th><span class="th" {_gt(tid)}>{esc(label)}</span></th>')
    head.append("<th></th>")
    rows = [f"<tr>{''.join(head)}</tr>"]
    for r, name in enumerate(names):
        rows.append(_table_row(ctx, r, name, cols[1:]))
    return f'<table class="tbl">{"".join(rows)}</table>'


def _table_row(ctx: Ctx, r: int, name: str, cols: list) -> str:
    oe, oz = ordinal(r)
    cell = ctx.add(
        "table",
        "text",
        {
            "literal": ctx.click(name),
            "functional": (f"open the record of {name}", f"打开{name}的记录"),
        },
        "table_cell",
    )
    tds = [f'<td><a href="#" class="link" {_gt(cell)}>{esc(name)}</a></td>']
    tds += [f"<td>{esc(_cell_value(ctx, c))}</td>" for c in cols]
    btns = []
    for key, icon, en, zh in (("edit", "pencil", "edit", "编辑"), ("delete", "trash", "delete", "删除")):
        tid = ctx.add(
            "table",
            "icon",
            {
                "functional": (f"{en} the row of {name}", f"{zh}{name}这一行"),
                "positional": (f"the {en} button in the {oe} row of the table", f"表格第{oz[1:]}行的{zh}按钮"),
                "visual": (
                    f"the {'red trash can' if key == 'delete' else 'pencil'} icon in the row of {name}",
                    f"{name}所在行的{'红色垃圾桶' if key == 'delete' else '铅笔'}图标",
                ),
            },
            f"row_{key}",
        )
        style = f' style="--c:{ctx.colour("red")[0]}"' if key == "delete" else ""
        btns.append(f'<button class="iconbtn"{style} {_gt(tid)}>{ctx.icon(icon, ctx.px(1))}</button>')
    tds.append(f'<td class="acts">{"".join(btns)}</td>')
    return f"<tr>{''.join(tds)}</tr>"


def _cell_value(ctx: Ctx, col: tuple[str, str]) -> str:
    rng, en = ctx.rng, col[0]
    if en in ("Price", "Score", "Quantity", "Size"):
        return {
            "Price": f"${rng.randint(3, 999)}.{rng.randint(0, 99):02d}",
            "Score": str(rng.randint(0, 100)),
            "Quantity": str(rng.randint(1, 250)),
            "Size": f"{rng.randint(1, 900)} KB",
        }[en]
    if en in ("Date", "Modified"):
        return f"2025-{rng.randint(1, 12):02d}-{rng.randint(1, 28):02d}"
    bank = {"Status": "statuses", "Role": "roles", "Owner": "people_zh" if ctx.lang == "zh" else "people_en"}.get(en)
    if bank:
        item = rng.choice(vocab()[bank])
        return item if isinstance(item, str) else ctx.t(item)
    if en == "Email":
        return f"user{rng.randint(1, 999)}@example.com"
    return rng.choice(("PDF", "Image", "Folder", "Text", "Sheet")) if en == "Type" else "—"


def spreadsheet(ctx: Ctx) -> str:
    """A sheet grid with lettered columns and numbered rows; cells, headers and sheet tabs are targets."""
    rng = ctx.rng
    n_cols = max(2, min(12, int((ctx.w - 40) // ctx.px(6.5))))
    n_rows = max(2, min(30, int((ctx.h - ctx.px(5)) // ctx.px(1.9)) - 1))
    letters = [chr(ord("A") + i) for i in range(n_cols)]
    head = ['<th class="corner"></th>']
    for col in letters:
        tid = ctx.add(
            "spreadsheet",
            "text",
            {
                "literal": (f"{ctx.verb[0]} the column header {col}", f"{ctx.verb[1]}列标题 {col}"),
                "functional": (f"select column {col}", f"选中 {col} 列"),
            },
            "column_header",
        )
        head.append(f"<th {_gt(tid)}>{col}</th>")
    rows = [f"<tr>{''.join(head)}</tr>"]
    picked = set(rng.sample(range(n_cols * n_rows), min(n_cols * n_rows, rng.randint(8, 30))))
    for r in range(1, n_rows + 1):
        rh = (
            ctx.add(
                "spreadsheet",
                "text",
                {
                    "literal": (f"{ctx.verb[0]} the row header {r}", f"{ctx.verb[1]}行号 {r}"),
                    "functional": (f"select row {r}", f"选中第 {r} 行"),
                },
                "row_header",
            )
            if rng.random() < 0.3
            else None
        )
        tds = [f"<th {_gt(rh)}>{r}</th>" if rh else f"<th>{r}</th>"]
        for c, col in enumerate(letters):
            value = _sheet_value(rng)
            if (r - 1) * n_cols + c in picked:
                tid = ctx.add(
                    "spreadsheet",
                    "text",
                    {
                        "literal": (f"{ctx.verb[0]} cell {col}{r}", f"{ctx.verb[1]}单元格 {col}{r}"),
                        "positional": (f"the cell in column {col}, row {r}", f"第 {r} 行 {col} 列的单元格"),
                        "functional": (f"select the cell that holds {value}", f"选中内容为 {value} 的单元格")
                        if value
                        else None,
                    },
                    "cell",
                )
                tds.append(f"<td {_gt(tid)}>{esc(value)}</td>")
            else:
                tds.append(f"<td>{esc(value)}</td>")
        rows.append(f"<tr>{''.join(tds)}</tr>")
    return f'<div class="sheet"><table class="sgrid">{"".join(rows)}</table>{_sheet_tabs(ctx)}</div>'


def _sheet_value(rng) -> str:
    roll = rng.random()
    if roll < 0.35:
        return ""
    if roll < 0.8:
        return str(rng.randint(0, 99999))
    return f"{rng.uniform(0, 1000):.2f}"


def _sheet_tabs(ctx: Ctx) -> str:
    tabs = []
    for i in range(ctx.rng.randint(2, 4)):
        name = f"Sheet{i + 1}" if ctx.lang == "en" else f"工作表{i + 1}"
        tid = ctx.add(
            "spreadsheet",
            "text",
            {
                "literal": ctx.click(name, ("sheet tab", "工作表标签")),
                "functional": (f"switch to sheet {i + 1}", f"切换到第 {i + 1} 个工作表"),
            },
            "sheet_tab",
        )
        tabs.append(f'<span class="stab{" on" if i == 0 else ""}" {_gt(tid)}>{esc(name)}</span>')
    return f'<div class="stabs">{"".join(tabs)}</div>'


def tree(ctx: Ctx) -> str:
    """A file tree: folders with expand carets (separate small targets) and files."""
    rng = ctx.rng
    rows_fit = max(3, min(18, int(ctx.h // ctx.px(1.9))))
    folders = ctx.pick("folders", min(5, rows_fit // 2))
    files = ctx.pick("files", rows_fit)
    lines, fi = [], 0
    for folder in folders:
        expanded = rng.random() < 0.6 and fi < len(files)
        lines.append(_tree_row(ctx, folder, 0, True, expanded))
        for _ in range(rng.randint(1, 3) if expanded else 0):
            if fi < len(files) and len(lines) < rows_fit:
                lines.append(_tree_row(ctx, files[fi], 1, False, False))
                fi += 1
        if len(lines) >= rows_fit:
            break
    while fi < len(files) and len(lines) < rows_fit:
        lines.append(_tree_row(ctx, files[fi], 0, False, False))
        fi += 1
    return f'<div class="tree">{"".join(lines)}</div>'


def _tree_row(ctx: Ctx, name: str, depth: int, folder: bool, expanded: bool) -> str:
    tid = ctx.add(
        "tree",
        "text",
        {
            "literal": (
                f"{ctx.verb[0]} {ctx.q(name)[0]} in the file tree",
                f"{ctx.verb[1]}文件树中的{ctx.q(name)[1]}",
            ),
            "functional": (
                f"open the {name} folder" if folder else f"open the file {name}",
                f"打开{name}文件夹" if folder else f"打开文件{name}",
            ),
        },
        "tree_row",
    )
    caret = '<span class="caret"></span>'
    if folder:
        cid = ctx.add(
            "tree",
            "icon",
            {
                "functional": (
                    f"{'collapse' if expanded else 'expand'} the {name} folder",
                    f"{'折叠' if expanded else '展开'}{name}文件夹",
                ),
                "visual": (f"the small arrow to the left of the {name} folder", f"{name}文件夹左侧的小箭头"),
            },
            "tree_caret",
        )
        arrow = ctx.icon("caret-down-fill" if expanded else "caret-right-fill", ctx.px(0.8))
        caret = f'<span class="caret" {_gt(cid)}>{arrow}</span>'
    icon = ctx.icon("folder-fill" if folder else "file-earmark-text", ctx.px(1))
    pad = f' style="padding-left:{depth * ctx.px(1.4)}px"' if depth else ""
    return f'<div class="trow"{pad} {_gt(tid)}>{caret}{icon}<span>{esc(name)}</span></div>'


_WORD = re.compile(r"[A-Za-z]{4,}")


def text_spans(ctx: Ctx) -> str:
    """Paragraphs whose words (English) or characters (Chinese) are targets, boxed by DOM ranges."""
    rng = ctx.rng
    bank = vocab()["sentences_zh" if ctx.lang == "zh" else "sentences_en"]
    n_par = max(1, min(3, int(ctx.h // ctx.px(6))))
    paras = []
    for p in range(n_par):
        text = " ".join(rng.sample(bank, 2)) if ctx.lang == "en" else "".join(rng.sample(bank, 2))
        spans = _zh_chars(ctx, text, p) if ctx.lang == "zh" else _en_words(ctx, text, p)
        paras.append(f"<p class=\"para\" data-gt-ranges='{esc(json.dumps(spans))}'>{esc(text)}</p>")
    return "".join(paras)


def _en_words(ctx: Ctx, text: str, p: int) -> list:
    words = list(_WORD.finditer(text))
    tokens = text.split()
    out = []
    for m in ctx.rng.sample(words, min(len(words), 5)):
        w = m.group()
        extra = {}
        if tokens and tokens[0].strip(".,") == w:
            extra["positional"] = (
                f"the first word of the {ordinal(p)[0]} paragraph",
                f"第{ordinal(p)[1][1:]}段的第一个单词",
            )
        tid = ctx.add(
            "text",
            "text",
            {
                "literal": (f"{ctx.verb[0]} the word {ctx.q(w)[0]}", f"{ctx.verb[1]}单词{ctx.q(w)[1]}"),
                **extra,
            },
            "word",
        )
        out.append([tid, m.start(), m.end()])
    return out


def _zh_chars(ctx: Ctx, text: str, p: int) -> list:
    chars = [i for i, ch in enumerate(text) if "\u4e00" <= ch <= "\u9fff"]
    out = []
    for i in ctx.rng.sample(chars, min(len(chars), 5)):
        extra = {}
        if i == chars[0]:
            extra["positional"] = (
                f"the first character of the {ordinal(p)[0]} paragraph",
                f"第{ordinal(p)[1][1:]}段的第一个字",
            )
        tid = ctx.add(
            "text",
            "text",
            {
                "literal": (
                    f"{ctx.verb[0]} the character {ctx.q(text[i])[0]}",
                    f"{ctx.verb[1]}文字{ctx.q(text[i])[1]}",
                ),
                **extra,
            },
            "character",
        )
        out.append([tid, i, i + 1])
    return out


def _chart_data(ctx: Ctx, n: int) -> tuple[list[tuple[str, str]], list[int]]:
    start = ctx.rng.randrange(12)
    months = [vocab()["months"][(start + i) % 12] for i in range(n)]
    values = ctx.rng.sample(range(5, 100), n)  # distinct, so "the tallest bar" names one bar
    return months, values


def _bar_layout(w: float, h: float, n: int) -> tuple[list[tuple[float, float, float, float]], float]:
    """Bars of a chart w × h (CSS px) for values in 0..100: (x, y, width, height) each, and the baseline y."""
    left, bottom = 8.0, 22.0
    slot = (w - left - 8) / n
    bw = max(4.0, round(slot * 0.6, 2))
    base = h - bottom
    return [(round(left + i * slot + (slot - bw) / 2, 2), 0.0, bw, 0.0) for i in range(n)], base


_CHART_ZH = {"bar": "柱状", "line": "折线"}


def _chart_instructions(ctx: Ctx, kind: str, i: int, months: list, values: list, what: tuple[str, str]) -> dict:
    m_en, m_zh = months[i]
    inst = {
        "literal": (f"{ctx.verb[0]} the {what[0]} for {m_en}", f"{ctx.verb[1]}{m_zh}的{what[1]}"),
        "positional": (f"the {ordinal(i)[0]} {what[0]} from the left", f"从左数{ordinal(i)[1]}个{what[1]}"),
    }
    if values[i] == max(values):
        inst["visual"] = (f"the highest {what[0]} in the {kind} chart", f"{_CHART_ZH[kind]}图中最高的{what[1]}")
    elif values[i] == min(values):
        inst["visual"] = (f"the lowest {what[0]} in the {kind} chart", f"{_CHART_ZH[kind]}图中最低的{what[1]}")
    return inst


def canvas_chart(ctx: Ctx) -> str:
    """A bar chart drawn on a <canvas>; each bar's box is the rectangle the drawing code fills."""
    n = max(3, min(12, int(ctx.w // 36)))
    w, h = float(int(max(160, ctx.w - 4))), float(int(max(120, min(ctx.h - 4, 320))))  # whole CSS px
    months, values = _chart_data(ctx, n)
    bars, base = _bar_layout(w, h, n)
    colour = ctx.colour(ctx.rng.choice(NAMED[:6]))[0]
    items, draw = {}, []
    for i, (x, _, bw, _) in enumerate(bars):
        bh = round((base - 10) * values[i] / 100, 2)
        tid = ctx.add(
            "canvas_chart", "icon", _chart_instructions(ctx, "bar", i, months, values, ("bar", "柱子")), "bar"
        )
        items[tid] = [x, round(base - bh, 2), bw, bh]
        draw.append([tid, x, round(base - bh, 2), bw, bh, ctx.t(months[i])[:3]])
    cid = f"cv{len(ctx.scripts)}"
    spec = json.dumps(
        {
            "items": items,
            "bars": draw,
            "w": w,
            "h": h,
            "base": base,
            "colour": colour,
            "fg": ctx.theme.muted,
            "font": f"{ctx.px(0.75)}px {ctx.theme.font}",
        }
    )
    ctx.scripts.append(f"__drawBars(document.getElementById('{cid}'), {spec});")
    return f'<canvas id="{cid}" class="chart" style="width:{w}px;height:{h}px"></canvas>'


def svg_chart(ctx: Ctx) -> str:
    """An SVG chart: bars (<rect>) or a line of points (<circle>), each shape a target."""
    n = max(3, min(12, int(ctx.w // 36)))
    w, h = float(int(max(160, ctx.w - 4))), float(int(max(120, min(ctx.h - 4, 320))))  # whole CSS px
    months, values = _chart_data(ctx, n)
    bars, base = _bar_layout(w, h, n)
    colour = ctx.colour(ctx.rng.choice(NAMED[:6]))[0]
    line = ctx.rng.random() < 0.5
    shapes, pts, labels = [], [], []
    for i, (x, _, bw, _) in enumerate(bars):
        bh = round((base - 14) * values[i] / 100, 2)
        cx = x + bw / 2
        labels.append(f'<text x="{cx}" y="{h - 6}" text-anchor="middle">{esc(ctx.t(months[i])[:3])}</text>')
        if line:
            tid = ctx.add(
                "svg_chart",
                "icon",
                _chart_instructions(ctx, "line", i, months, values, ("data point", "数据点")),
                "point",
            )
            pts.append(f"{cx},{base - bh}")
            circle = f'<circle cx="{cx}" cy="{base - bh}" r="{ctx.px(0.42)}" fill="{colour}"'
            shapes.append(f'{circle} {_gt(tid)} data-gt-hit="cross"/>')
        else:
            tid = ctx.add(
                "svg_chart", "icon", _chart_instructions(ctx, "bar", i, months, values, ("bar", "柱子")), "bar"
            )
            shapes.append(f'<rect x="{x}" y="{base - bh}" width="{bw}" height="{bh}" fill="{colour}" {_gt(tid)}/>')
    poly = (
        f'<polyline points="{" ".join(pts)}" fill="none" stroke="{colour}" stroke-opacity="0.45" stroke-width="2"/>'
        if line
        else ""
    )
    axis = f'<line x1="4" y1="{base}" x2="{w - 4}" y2="{base}" class="axis"/>'
    return (
        f'<svg class="chart" width="{w}" height="{h}" viewBox="0 0 {w} {h}">{axis}{poly}{"".join(shapes)}'
        f'<g class="ticks">{"".join(labels)}</g></svg>'
    )


def images(ctx: Ctx) -> str:
    """Product cards (picture, name, price, add-to-cart) or a row of avatars."""
    if ctx.rng.random() < 0.3:
        return _avatars(ctx)
    card_w = ctx.px(11)
    n = max(1, min(6, int(ctx.w // (card_w + 10))))
    cards = []
    for pid, en, zh in ctx.pick("products", n, key=lambda p: p[0]):
        name = ctx.t((en, zh))
        cname = ctx.rng.choice(NAMED[:7])
        hex_, c_en, c_zh = ctx.colour(cname)
        pic = ctx.add(
            "image",
            "icon",
            {
                "visual": (f"the picture of a {c_en} {en.lower()}", f"{c_zh}{zh}的图片"),
                "functional": (f"view the {en.lower()} product photo", f"查看{zh}的商品图片"),
            },
            "product_image",
        )
        title = ctx.add(
            "image",
            "text",
            {
                "literal": ctx.click(name),
                "functional": (f"open the {en.lower()} product page", f"打开{zh}的商品页面"),
            },
            "product_name",
        )
        add = ctx.add(
            "image",
            "text",
            {
                "functional": (f"add the {en.lower()} to the cart", f"把{zh}加入购物车"),
                "positional": (f"the add-to-cart button under the {en.lower()}", f"{zh}下方的加入购物车按钮"),
            },
            "add_to_cart",
        )
        price = f"${ctx.rng.randint(5, 400)}.{ctx.rng.choice(('00', '99', '49'))}"
        ctx.icons_used.add(pid)
        cards.append(
            f'<div class="card" style="width:{card_w}px"><div class="pic" {_gt(pic)}>'
            f'<span style="color:{hex_}">{ctx.icons.svg(pid, card_w * 0.45)}</span></div>'
            f'<a href="#" class="link pname" {_gt(title)}>{esc(name)}</a><div class="price">{price}</div>'
            f'<button class="btn" {_gt(add)}>{esc(ctx.t(("Add to cart", "加入购物车")))}</button></div>'
        )
    return f'<div class="cards">{"".join(cards)}</div>'


def _avatars(ctx: Ctx) -> str:
    people = ctx.pick(
        "people_zh" if ctx.lang == "zh" else "people_en", max(2, min(8, int(ctx.w // ctx.px(4)))), key=str
    )
    parts = []
    for i, person in enumerate(people):
        cname = NAMED[i % 7]
        hex_, c_en, c_zh = ctx.colour(cname)
        initials = person[0] if ctx.lang == "zh" else "".join(p[0] for p in person.split()[:2])
        tid = ctx.add(
            "image",
            "icon",
            {
                "functional": (f"open {person}'s profile", f"打开{person}的个人主页"),
                "visual": (f"the {c_en} avatar with the initials {initials}", f"写着“{initials}”的{c_zh}头像"),
                "positional": (f"the {ordinal(i)[0]} avatar from the left", f"从左数{ordinal(i)[1]}个头像"),
            },
            "avatar",
        )
        parts.append(
            f'<span class="avatar" style="background:{hex_}" title="{esc(person)}" {_gt(tid)}>{esc(initials)}</span>'
        )
    return f'<div class="row avatars">{"".join(parts)}</div>'


def code_editor(ctx: Ctx) -> str:
    """An editor: a run button, a gutter of line numbers and highlighted code whose function names are targets."""
    rng = ctx.rng
    n_lines = max(3, min(40, int((ctx.h - ctx.px(2.5)) // ctx.px(1.55))))
    names = rng.sample(vocab()["code_words"], min(len(vocab()["code_words"]), max(2, n_lines // 4)))
    run = ctx.add(
        "code",
        "icon",
        {
            "functional": ("run the code in the editor", "运行编辑器中的代码"),
            "visual": ("the green play button above the code", "代码上方的绿色播放按钮"),
        },
        "run_button",
    )
    bar = (
        f'<div class="codebar"><span class="ftab">{esc(rng.choice(("main.py", "app.py", "tasks.py")))}</span>'
        f'<button class="iconbtn" style="--c:{ctx.colour("green")[0]}" {_gt(run)}>'
        f"{ctx.icon('play-fill', ctx.px(1))}</button></div>"
    )
    gutter, lines = [], []
    for ln, tokens in enumerate(_code_lines(rng, names, n_lines), start=1):
        gid = (
            ctx.add(
                "code",
                "text",
                {
                    "literal": (
                        f"{ctx.verb[0]} line number {ln} in the editor gutter",
                        f"{ctx.verb[1]}编辑器边栏中的行号 {ln}",
                    ),
                    "functional": (f"set a breakpoint on line {ln}", f"在第 {ln} 行设置断点"),
                },
                "line_number",
            )
            if rng.random() < 0.35
            else None
        )
        gutter.append(f'<div class="ln" {_gt(gid)}>{ln}</div>' if gid else f'<div class="ln">{ln}</div>')
        lines.append(f'<div class="cl">{"".join(_token(ctx, t, k, ln) for t, k in tokens) or " "}</div>')
    return (
        f'<div class="editor">{bar}<div class="codebody"><div class="gutter">{"".join(gutter)}</div>'
        f'<div class="code">{"".join(lines)}</div></div></div>'
    )


def _code_lines(rng, names: list[str], n: int) -> list[list[tuple[str, str]]]:
    out: list[list[tuple[str, str]]] = []
    defined: list[str] = []
    while len(out) < n:
        if names and (not out or rng.random() < 0.25):
            name = names.pop()
            defined.append(name)
            out.append([("def", "kw"), (" ", ""), (name, "def"), ("(path, retries=3):", "")])
        elif defined and rng.random() < 0.3:
            out.append(
                [
                    ("    ", ""),
                    ("result", ""),
                    (" = ", ""),
                    (rng.choice(defined), "call"),
                    (f"(item, {rng.randint(1, 9)})", ""),
                ]
            )
        elif rng.random() < 0.15:
            out.append([])
        else:
            out.append(
                [("    ", ""), ("return", "kw"), (" ", ""), (f'"{rng.choice(("ok", "done", "retry"))}"', "str")]
            )
    return out[:n]


def _token(ctx: Ctx, text: str, kind: str, line: int) -> str:
    if kind == "def":
        tid = ctx.add(
            "code",
            "text",
            {
                "literal": (
                    f"{ctx.verb[0]} the function name {ctx.q(text)[0]} where it is defined",
                    f"{ctx.verb[1]}定义处的函数名{ctx.q(text)[1]}",
                ),
                "positional": (f"the function name defined on line {line}", f"第 {line} 行定义的函数名"),
            },
            "code_token",
        )
        return f'<span class="tk def" {_gt(tid)}>{esc(text)}</span>'
    return f'<span class="tk {kind}">{esc(text)}</span>' if kind else esc(text)


def message_list(ctx: Ctx) -> str:
    """An inbox: rows with an avatar, sender, subject and time, and a star button per row."""
    rng = ctx.rng
    n = max(1, min(10, int(ctx.h // ctx.px(3.6))))
    senders = ctx.pick("people_zh" if ctx.lang == "zh" else "people_en", n, key=str)
    subjects = ctx.pick("subjects", n)
    rows = []
    for i, (who, subj) in enumerate(zip(senders, subjects, strict=False)):
        subject = ctx.t(subj)
        row = ctx.add(
            "list",
            "text",
            {
                "literal": ctx.click(subject),
                "functional": (
                    f"open the message from {who} about {subj[0].lower()}",
                    f"打开{who}发来的关于“{subj[1]}”的消息",
                ),
                "positional": (f"the {ordinal(i)[0]} message in the list", f"列表中的{ordinal(i)[1]}条消息"),
            },
            "list_row",
        )
        star = ctx.add(
            "list",
            "icon",
            {
                "functional": (f"star the message from {who}", f"收藏{who}发来的消息"),
                "positional": (
                    f"the star icon of the {ordinal(i)[0]} message",
                    f"第{ordinal(i)[1][1:]}条消息的星形图标",
                ),
            },
            "star",
        )
        initials = who[0] if ctx.lang == "zh" else "".join(p[0] for p in who.split()[:2])
        time = f"{rng.randint(7, 22)}:{rng.choice(('05', '17', '30', '42', '58'))}"
        rows.append(
            f'<div class="mrow" {_gt(row)}><span class="avatar sm">{esc(initials)}</span>'
            f'<div class="mtext"><b>{esc(who)}</b><span>{esc(subject)}</span></div><span class="muted">{time}</span>'
            f'<button class="iconbtn" {_gt(star)}>{ctx.icon("star", ctx.px(1))}</button></div>'
        )
    return f'<div class="mlist">{"".join(rows)}</div>'


def dialog(ctx: Ctx) -> str:
    """A page-level layer: a modal dialog, a cookie banner or a toast. Returns "" (it goes to ctx.overlays)."""
    kind = ctx.rng.choice(("modal", "banner", "banner", "toast", "toast", "banner"))  # a modal hides the rest
    ctx.overlays.append({"modal": _modal, "banner": _banner, "toast": _toast}[kind](ctx))
    return ""


def _modal(ctx: Ctx) -> str:
    act = ctx.pick_acts(1)[0]
    title = ctx.t((f"{act.en}?", f"{act.zh}？"))
    body = ctx.t((f"Do you want to {act.fn_en}?", f"确定要{act.fn_zh}吗？"))
    close = _dialog_close(ctx, ("dismiss the dialog", "关闭对话框"))
    cancel = ctx.add(
        "dialog",
        "text",
        {
            "literal": ctx.click(ctx.t(("Cancel", "取消")), ("button in the dialog", "按钮")),
            "functional": ("cancel and keep things as they are", "取消操作"),
        },
        "dialog_cancel",
    )
    ok_label = ctx.t((act.en, act.zh))
    ok = ctx.add(
        "dialog",
        "text",
        {
            "literal": ctx.click(ok_label, ("button in the dialog", "按钮")),
            "functional": (f"confirm: {act.fn_en}", f"确认{act.fn_zh}"),
            "visual": ("the filled button at the bottom right of the dialog", "对话框右下角的实心按钮"),
        },
        "dialog_confirm",
    )
    return (
        f'<div class="backdrop"></div><div class="modal"><div class="mhead"><b>{esc(title)}</b>{close}</div>'
        f'<p>{esc(body)}</p><div class="row end">'
        f'<button class="btn outline" {_gt(cancel)}>{esc(ctx.t(("Cancel", "取消")))}'
        f'</button><button class="btn" {_gt(ok)}>{esc(ok_label)}</button></div></div>'
    )


def _dialog_close(ctx: Ctx, fn: tuple[str, str]) -> str:
    tid = ctx.add(
        "dialog",
        "icon",
        {
            "functional": fn,
            "visual": ("the × in the corner of the dialog", "对话框角上的 × 号"),
        },
        "dialog_close",
    )
    return f'<button class="iconbtn" {_gt(tid)}>{ctx.icon("x-lg", ctx.px(1))}</button>'


def _banner(ctx: Ctx) -> str:
    accept, reject = ctx.t(("Accept all", "全部接受")), ctx.t(("Reject", "拒绝"))
    a = ctx.add(
        "dialog",
        "text",
        {"literal": ctx.click(accept), "functional": ("accept all cookies", "接受所有 Cookie")},
        "banner_accept",
    )
    r = ctx.add(
        "dialog",
        "text",
        {"literal": ctx.click(reject), "functional": ("reject the cookies", "拒绝 Cookie")},
        "banner_reject",
    )
    text = ctx.t(("We use cookies to improve your experience.", "我们使用 Cookie 来改善你的体验。"))
    return (
        f'<div class="banner"><span>{esc(text)}</span><button class="btn outline" {_gt(r)}>{esc(reject)}</button>'
        f'<button class="btn" {_gt(a)}>{esc(accept)}</button></div>'
    )


def _toast(ctx: Ctx) -> str:
    act = ctx.pick_acts(1)[0]
    undo = ctx.t(("Undo", "撤销"))
    u = ctx.add(
        "dialog",
        "text",
        {
            "literal": (
                f"{ctx.verb[0]} {ctx.q(undo)[0]} in the notification",
                f"{ctx.verb[1]}通知中的{ctx.q(undo)[1]}",
            ),
            "functional": (f"undo the {act.en.lower()} that just happened", f"撤销刚才的{act.zh}操作"),
        },
        "toast_action",
    )
    close = _dialog_close(ctx, ("dismiss the notification", "关闭通知"))
    text = ctx.t((f"{act.en} completed.", f"{act.zh}已完成。"))
    undo_button = f'<button class="btn ghost" {_gt(u)}>{esc(undo)}</button>'
    return f'<div class="toast"><span>{esc(text)}</span>{undo_button}{close}</div>'


BAR_SCRIPT = """
window.__drawBars = (canvas, spec) => {
  const dpr = window.devicePixelRatio || 1;
  canvas.width = Math.round(spec.w * dpr); canvas.height = Math.round(spec.h * dpr);
  const g = canvas.getContext("2d");
  const draw = (opts) => {
    g.setTransform(dpr, 0, 0, dpr, 0, 0);
    g.clearRect(0, 0, spec.w, spec.h);
    g.fillStyle = spec.fg; g.font = spec.font; g.textAlign = "center";
    g.fillRect(4, spec.base, spec.w - 8, 1);
    for (const [id, x, y, w, h, label] of spec.bars) {
      g.fillText(label, x + w / 2, spec.h - 6);
      if (opts.hide === id) continue;
      g.fillStyle = opts.key === id ? "rgb(255,0,255)" : spec.colour;
      g.fillRect(x, y, w, h);
      g.fillStyle = spec.fg;
    }
  };
  window.__gt.canvas(canvas, spec.items, draw);
};
"""
