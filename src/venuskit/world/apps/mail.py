"""Mail: folders, search, read, compose, reply/forward, attachments (view, save to Drive, download, attach from the
computer through the browser's file chooser), drafts, archive, trash."""

from __future__ import annotations

from typing import Any

from venuskit.world import files, i18n
from venuskit.world.web import Ctx, Response, Router, as_int, not_found, redirect

FOLDERS = ("inbox", "starred", "sent", "drafts", "archive", "trash")
PAGE = 50


def register(router: Router) -> None:
    router.add("GET", "/mail/", lambda ctx: redirect("/mail/inbox"))
    router.add("GET", "/mail/compose", compose)
    router.add("POST", "/mail/send", send)
    router.add("GET", "/mail/m/{mid:int}", read)
    router.add("POST", "/mail/m/{mid:int}/act", act)
    router.add("GET", "/mail/att/{aid:int}", view_attachment)
    router.add("GET", "/mail/att/{aid:int}/download", download_attachment)
    router.add("POST", "/mail/att/{aid:int}/save", save_attachment)
    router.add("GET", "/mail/{folder}", folder_list)


def _counts(ctx: Ctx) -> dict[str, int]:
    s = ctx.state
    return {
        "inbox": s.scalar("SELECT COUNT(*) FROM mails WHERE folder = 'inbox' AND unread = 1"),
        "drafts": s.scalar("SELECT COUNT(*) FROM mails WHERE folder = 'drafts'"),
    }


def _page(ctx: Ctx, template: str, **kw: Any) -> Response:
    return ctx.render(template, app="mail", folders=FOLDERS, counts=_counts(ctx), **kw)


def folder_list(ctx: Ctx, folder: str) -> Response:
    if folder not in FOLDERS:
        return not_found(f"No folder {folder}.")
    q = ctx.req.arg("q")
    sql, params = "SELECT m.*, (SELECT COUNT(*) FROM attachments a WHERE a.mail_id = m.id) AS n_att FROM mails m", []
    if q:  # search spans every folder but Trash, like the big webmail products
        like = f"%{q}%"
        sql += (
            " WHERE folder != 'trash' AND (subject LIKE ? OR body LIKE ? OR sender_name LIKE ? OR sender LIKE ?"
            " OR recipients LIKE ?)"
        )
        params = [like] * 5
    elif folder == "starred":
        sql += " WHERE starred = 1 AND folder != 'trash'"
    else:
        sql += " WHERE folder = ?"
        params = [folder]
    rows = ctx.state.rows(sql + f" ORDER BY sent_at DESC, id DESC LIMIT {PAGE}", params)
    return _page(ctx, "mail/list.html", folder=folder, mails=rows, query=q)


def read(ctx: Ctx, mid: int) -> Response:
    s = ctx.state
    mail = s.one("SELECT * FROM mails WHERE id = ?", (mid,))
    if mail is None:
        return not_found("This message no longer exists.")
    if mail["folder"] == "drafts":
        return redirect(f"/mail/compose?draft={mid}")
    if mail["unread"]:
        s.write("UPDATE mails SET unread = 0 WHERE id = ?", (mid,))
    atts = s.rows("SELECT * FROM attachments WHERE mail_id = ? ORDER BY id", (mid,))
    back = mail["folder"] if mail["folder"] in FOLDERS else "inbox"
    return _page(ctx, "mail/read.html", folder=back, mail=mail, atts=atts)


def act(ctx: Ctx, mid: int) -> Response:
    s = ctx.state
    mail = s.one("SELECT * FROM mails WHERE id = ?", (mid,))
    if mail is None:
        return not_found("This message no longer exists.")
    do = ctx.req.arg("do")
    if do in ("star", "unstar"):
        s.write("UPDATE mails SET starred = ? WHERE id = ?", (int(do == "star"), mid))
        return redirect(f"/mail/m/{mid}")
    if do == "unread":
        s.write("UPDATE mails SET unread = 1 WHERE id = ?", (mid,))
        return redirect(f"/mail/{mail['folder']}")
    if do == "trash":
        s.write("UPDATE mails SET prev_folder = folder, folder = 'trash' WHERE id = ?", (mid,))
        s.log("mail", "mail.trash", mail_id=mid, subject=mail["subject"])
        return redirect(f"/mail/{mail['folder']}?flash=moved_to_trash")
    if do == "archive" and mail["folder"] not in ("archive", "trash", "drafts"):
        s.write("UPDATE mails SET prev_folder = folder, folder = 'archive' WHERE id = ?", (mid,))
        return redirect(f"/mail/{mail['folder']}?flash=archived")
    if do == "to_inbox" and mail["folder"] == "archive":
        s.write("UPDATE mails SET folder = 'inbox' WHERE id = ?", (mid,))
        return redirect("/mail/archive?flash=moved_to_inbox")
    if do == "restore":
        s.write("UPDATE mails SET folder = COALESCE(prev_folder, 'inbox') WHERE id = ?", (mid,))
        return redirect("/mail/trash")
    if do == "delete_forever" and mail["folder"] == "trash":
        s.write("DELETE FROM mails WHERE id = ?", (mid,))
        s.log("mail", "mail.delete_forever", mail_id=mid, subject=mail["subject"])
        return redirect("/mail/trash")
    return not_found(f"Unknown mail action {do!r}.")


def _quote(ctx: Ctx, mail: dict[str, Any]) -> str:
    head = ctx.t("wrote", date=i18n.date_time(ctx.locale, mail["sent_at"]), name=mail["sender_name"])
    quoted = "\n".join("> " + line for line in mail["body"].splitlines())
    return f"\n\n{head}\n{quoted}"


def _prefixed(prefix: str, subject: str) -> str:
    return subject if subject.lower().startswith(prefix.lower()) else f"{prefix} {subject}"


def compose(ctx: Ctx) -> Response:
    s, arg = ctx.state, ctx.req.arg
    draft: dict[str, Any] = {"to": arg("to"), "cc": "", "subject": "", "body": "", "id": "", "reply_to": "",
                             "forward_of": ""}  # fmt: skip
    carried: list[dict[str, Any]] = []
    num = ctx.req.num
    reply = num("reply") if num("reply") is not None else num("replyall")
    if reply is not None:
        orig = s.one("SELECT * FROM mails WHERE id = ?", (reply,))
        if orig:
            to = orig["sender"] if orig["folder"] != "sent" else orig["recipients"]
            cc = _others(orig, s.user()["email"]) if arg("replyall") else ""
            draft.update(to=to, cc=cc, subject=_prefixed("Re:", orig["subject"]), body=_quote(ctx, orig),
                         reply_to=orig["id"])  # fmt: skip
    elif num("forward") is not None:
        orig = s.one("SELECT * FROM mails WHERE id = ?", (num("forward"),))
        if orig:
            fwd = (f"\n\n{ctx.t('fwd_header')}\n{ctx.t('from')}: {orig['sender_name']} <{orig['sender']}>\n"
                   f"{ctx.t('date')}: {i18n.date_time(ctx.locale, orig['sent_at'])}\n{ctx.t('subject')}: "
                   f"{orig['subject']}\n\n{orig['body']}")  # fmt: skip
            draft.update(subject=_prefixed("Fwd:", orig["subject"]), body=fwd, forward_of=orig["id"])
            carried = s.rows("SELECT * FROM attachments WHERE mail_id = ?", (orig["id"],))
    elif num("draft") is not None:
        d = s.one("SELECT * FROM mails WHERE id = ? AND folder = 'drafts'", (num("draft"),))
        if d:
            draft.update(to=d["recipients"], cc=d["cc"], subject=d["subject"], body=d["body"], id=d["id"],
                         reply_to=d["reply_to"] or "", forward_of=d["forward_of"] or "")  # fmt: skip
            carried = s.rows("SELECT * FROM attachments WHERE mail_id = ?", (d["id"],))
    files = s.rows("SELECT f.*, d.kind FROM files f JOIN docs d ON d.id = f.doc_id WHERE trashed = 0 "
                   "ORDER BY modified DESC")  # fmt: skip
    return _page(ctx, "mail/compose.html", folder="", draft=draft, carried=carried, files=files,
                 error=arg("error"))  # fmt: skip


def _others(mail: dict[str, Any], me: str) -> str:
    addrs = [mail["sender"]] + [a.strip() for a in (mail["recipients"] + "," + mail["cc"]).split(",")]
    return ", ".join(dict.fromkeys(a for a in addrs[1:] if a and a != me and a != mail["sender"]))


def send(ctx: Ctx) -> Response:
    s, arg = ctx.state, ctx.req.arg
    do = arg("do") or "send"
    draft_id = ctx.req.num("id")
    if do == "discard":
        if draft_id:
            s.write("DELETE FROM mails WHERE id = ? AND folder = 'drafts'", (draft_id,))
        return redirect("/mail/inbox")
    to = _addresses(arg("to"))
    if (do == "send" and not to) or ctx.req.error:  # nothing is sent or saved: the compose page, as it was typed
        kept = {k: arg(k) for k in ("to", "cc", "subject", "body", "id", "reply_to", "forward_of")}
        why = ctx.req.error or ctx.t("to_required")
        return _page(ctx, "mail/compose.html", folder="", files=[], carried=[], error=why, draft=kept)
    user = s.user()
    fields = dict(folder="sent" if do == "send" else "drafts", sender_name=user["name"], sender=user["email"],
                  recipients=", ".join(to) if to else arg("to"), cc=", ".join(_addresses(arg("cc"))),
                  subject=arg("subject"), body=ctx.req.form.get("body", ""), sent_at=s.now(), unread=0,
                  reply_to=ctx.req.num("reply_to"), forward_of=ctx.req.num("forward_of"))  # fmt: skip
    kept = [n for n in map(as_int, ctx.req.all("keep_att")) if n is not None]
    carried = s.rows(f"SELECT * FROM attachments WHERE id IN ({','.join('?' * len(kept))})", kept) if kept else []
    if draft_id:
        s.write("DELETE FROM mails WHERE id = ? AND folder = 'drafts'", (draft_id,))
    mid = s.insert("mails", **fields)
    for att in carried:
        s.insert("attachments", mail_id=mid, name=att["name"], doc_id=att["doc_id"], size=att["size"])
    for fid in [n for n in map(as_int, ctx.req.all("att")) if n is not None]:
        f = s.one("SELECT * FROM files WHERE id = ?", (fid,))
        if f:
            s.insert("attachments", mail_id=mid, name=f["name"], doc_id=f["doc_id"], size=f["size"])
    for up in ctx.req.files:  # chosen in the browser's own file chooser ("Attach from computer")
        doc, size = files.store_upload(s, up)
        s.insert("attachments", mail_id=mid, name=up.name, doc_id=doc, size=size)
    if do == "send":
        s.log("mail", "mail.send", mail_id=mid, to=fields["recipients"], subject=fields["subject"])
        return redirect("/mail/inbox?flash=mail_sent")
    return redirect("/mail/drafts?flash=draft_saved")


def _addresses(text: str) -> list[str]:
    return [a.strip() for a in text.replace(";", ",").split(",") if a.strip()]


def view_attachment(ctx: Ctx, aid: int) -> Response:
    att = ctx.state.one("SELECT a.*, d.body, d.kind FROM attachments a JOIN docs d ON d.id = a.doc_id WHERE a.id = ?",
                        (aid,))  # fmt: skip
    if att is None:
        return not_found("This attachment no longer exists.")
    return ctx.render("viewer.html", app="mail", title=att["name"], doc=att, back=f"/mail/m/{att['mail_id']}",
                      save_url=f"/mail/att/{aid}/save", bare=True)  # fmt: skip


def download_attachment(ctx: Ctx, aid: int) -> Response:
    att = ctx.state.one("SELECT * FROM attachments WHERE id = ?", (aid,))
    data = files.doc_bytes(ctx.state, att["doc_id"]) if att is not None else None
    if att is None or data is None:
        return not_found("This attachment cannot be downloaded.")
    return Response(body=data, content_type="application/octet-stream", headers=files.download_headers(att["name"]))


def save_attachment(ctx: Ctx, aid: int) -> Response:
    s = ctx.state
    att = s.one("SELECT * FROM attachments WHERE id = ?", (aid,))
    if att is None:
        return not_found("This attachment no longer exists.")
    exists = s.one("SELECT id FROM files WHERE doc_id = ? AND trashed = 0 AND source = 'mail'", (att["doc_id"],))
    if exists is None:
        s.insert("files", name=att["name"], folder=ctx.t("my_drive"), doc_id=att["doc_id"], size=att["size"],
                 modified=s.now(), source="mail")  # fmt: skip
    back = ctx.req.arg("back") or f"/mail/m/{att['mail_id']}"
    return redirect(f"{back}?flash=saved_to_drive" if "?" not in back else back)
