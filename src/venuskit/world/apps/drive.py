"""Drive: file list (My Drive, Recent, Starred, Trash, search), PDF viewer, document editor, small spreadsheet;
uploads through the browser's file chooser (exact bytes) and downloads."""

from __future__ import annotations

import json
from typing import Any

from venuskit.world import files
from venuskit.world.web import Ctx, Response, Router, not_found, redirect

VIEWS = ("mydrive", "recent", "starred", "trash")
SHEET_MIN = (8, 5)  # rows, columns shown even for a small sheet
SHEET_MAX = (500, 52)  # rows, columns a save may claim: the grid is built cell by cell from these numbers


def register(router: Router) -> None:
    router.add("GET", "/drive/", file_list)
    router.add("GET", "/drive/f/{fid:int}", open_file)
    router.add("POST", "/drive/f/{fid:int}/save", save_file)
    router.add("POST", "/drive/f/{fid:int}/act", act)
    router.add("POST", "/drive/new", new_file)
    router.add("POST", "/drive/upload", upload)
    router.add("GET", "/drive/f/{fid:int}/download", download)


def _page(ctx: Ctx, template: str, **kw: Any) -> Response:
    return ctx.render(template, app="drive", views=VIEWS, **kw)


def file_list(ctx: Ctx) -> Response:
    view = ctx.req.arg("view") or "mydrive"
    q = ctx.req.arg("q")
    sql = "SELECT f.*, d.kind FROM files f JOIN docs d ON d.id = f.doc_id WHERE "
    if view == "trash":
        sql, params = sql + "trashed = 1", []
    else:
        sql, params = sql + "trashed = 0", []
        if view == "starred":
            sql += " AND starred = 1"
    if q:
        sql, params = sql + " AND (f.name LIKE ? OR d.body LIKE ?)", [f"%{q}%", f"%{q}%"]
    order = "modified DESC" if view == "recent" or q else "folder, name"
    rows = ctx.state.rows(f"{sql} ORDER BY {order} LIMIT 100", params)
    return _page(ctx, "drive/list.html", view=view, files=rows, query=q)


def _file(ctx: Ctx, fid: int) -> dict[str, Any] | None:
    return ctx.state.one("SELECT f.*, d.kind, d.body, d.title FROM files f JOIN docs d ON d.id = f.doc_id "
                         "WHERE f.id = ?", (fid,))  # fmt: skip


def open_file(ctx: Ctx, fid: int) -> Response:
    f = _file(ctx, fid)
    if f is None:
        return not_found("This file does not exist.")
    if f["kind"] == "pdf":
        return ctx.render("viewer.html", app="drive", title=f["name"], doc=f, back="/drive/", save_url=None, bare=True)
    body = json.loads(f["body"])
    if f["kind"] == "upload":
        return _page(ctx, "drive/upload.html", view="", f=f, info=body)
    if f["kind"] == "sheet":
        return _page(ctx, "drive/sheet.html", view="", f=f, cells=_grid(body.get("cells", [])))
    return _page(ctx, "drive/doc.html", view="", f=f, text=body.get("text", ""))


def _grid(cells: list[list[str]]) -> list[list[str]]:
    rows = max(SHEET_MIN[0], len(cells) + 1)
    cols = max(SHEET_MIN[1], max((len(r) for r in cells), default=0))
    return [[(cells[r][c] if r < len(cells) and c < len(cells[r]) else "") for c in range(cols)] for r in range(rows)]


def save_file(ctx: Ctx, fid: int) -> Response:
    s, f = ctx.state, _file(ctx, fid)
    if f is None or f["kind"] in ("pdf", "upload"):
        return not_found("This file cannot be edited.")
    name = ctx.req.arg("name") or f["name"]
    if f["kind"] == "sheet":
        rows, cols = min(ctx.req.num("rows") or 0, SHEET_MAX[0]), min(ctx.req.num("cols") or 0, SHEET_MAX[1])
        cells = [[ctx.req.form.get(f"c{r}_{c}", "").strip() for c in range(cols)] for r in range(rows)]
        while cells and not any(cells[-1]):
            cells.pop()
        body = {"cells": [_trim(r) for r in cells]}
    else:
        body = {"text": ctx.req.form.get("text", "")}
    text = json.dumps(body, ensure_ascii=False)
    s.write("UPDATE docs SET body = ?, title = ? WHERE id = ?", (text, name, f["doc_id"]))
    s.write("UPDATE files SET name = ?, modified = ? WHERE id = ?", (name, s.now(), fid))
    return redirect(f"/drive/f/{fid}?flash=saved")


def _trim(row: list[str]) -> list[str]:
    while row and not row[-1]:
        row = row[:-1]
    return row


def act(ctx: Ctx, fid: int) -> Response:
    s, f = ctx.state, _file(ctx, fid)
    if f is None:
        return not_found("This file does not exist.")
    do = ctx.req.arg("do")
    if do in ("star", "unstar"):
        s.write("UPDATE files SET starred = ? WHERE id = ?", (int(do == "star"), fid))
    elif do == "trash":
        s.write("UPDATE files SET trashed = 1 WHERE id = ?", (fid,))
        s.log("drive", "drive.trash", file_id=fid, name=f["name"])
        return redirect("/drive/?flash=file_trashed")
    elif do == "restore":
        s.write("UPDATE files SET trashed = 0 WHERE id = ?", (fid,))
        return redirect("/drive/?view=trash")
    elif do == "rename" and ctx.req.arg("name"):
        s.write("UPDATE files SET name = ?, modified = ? WHERE id = ?", (ctx.req.arg("name"), s.now(), fid))
    else:
        return not_found(f"Unknown file action {do!r}.")
    return redirect(ctx.req.arg("back") or "/drive/")


def new_file(ctx: Ctx) -> Response:
    s = ctx.state
    kind = "sheet" if ctx.req.arg("kind") == "sheet" else "doc"
    name = ctx.t("untitled_sheet" if kind == "sheet" else "untitled_doc")
    body = {"cells": []} if kind == "sheet" else {"text": ""}
    doc = s.insert("docs", kind=kind, title=name, body=json.dumps(body))
    fid = s.insert(
        "files", name=name, folder=ctx.t("my_drive"), doc_id=doc, size=1024, modified=s.now(), source="user"
    )
    return redirect(f"/drive/f/{fid}")


def upload(ctx: Ctx) -> Response:
    """Files chosen in the browser's own file chooser, stored with their exact bytes in My Drive."""
    s = ctx.state
    if ctx.req.error:
        return _page(ctx, "drive/list.html", view="mydrive", files=_listing(ctx), query="", error=ctx.req.error)
    if not ctx.req.files:
        return _page(ctx, "drive/list.html", view="mydrive", files=_listing(ctx), query="", error=ctx.t("pick_a_file"))
    fids = []
    for up in ctx.req.files:
        doc, size = files.store_upload(s, up)
        fids.append(s.insert("files", name=up.name, folder=ctx.t("my_drive"), doc_id=doc, size=size,
                             modified=s.now(), source="upload"))  # fmt: skip
    # one file: show it (its page is titled with its name); several: the list
    return redirect(f"/drive/f/{fids[0]}?flash=uploaded" if len(fids) == 1 else "/drive/?flash=uploaded")


def _listing(ctx: Ctx) -> list[dict[str, Any]]:
    return ctx.state.rows("SELECT f.*, d.kind FROM files f JOIN docs d ON d.id = f.doc_id WHERE trashed = 0 "
                          "ORDER BY folder, name LIMIT 100")  # fmt: skip


def download(ctx: Ctx, fid: int) -> Response:
    f = _file(ctx, fid)
    data = files.doc_bytes(ctx.state, f["doc_id"]) if f is not None else None
    if f is None or data is None:
        return not_found("This file cannot be downloaded.")
    return Response(body=data, content_type="application/octet-stream", headers=files.download_headers(f["name"]))
