"""Forum: interest groups, a home feed, posts with title and body, comments, reactions and search.

Consequential action (logged for the contract): `forum.delete` (deleting one of your posts, which also
removes its comments). Posting, commenting, reacting and joining are ordinary, reversible-looking edits.
"""

from __future__ import annotations

from typing import Any

from venuskit.world.data_forum import KINDS
from venuskit.world.web import Ctx, Response, Router, not_found, redirect

_POSTS = ("SELECT p.*, g.name AS group_name, g.color AS group_color, "
          "(SELECT COUNT(*) FROM comments c WHERE c.post_id = p.id) AS n_comments, "
          "(SELECT COUNT(*) FROM reactions r WHERE r.post_id = p.id) AS n_reactions "
          "FROM posts p JOIN forum_groups g ON g.id = p.group_id")  # fmt: skip


def register(router: Router) -> None:
    router.add("GET", "/forum/", feed)
    router.add("GET", "/forum/groups", groups)
    router.add("GET", "/forum/search", search)
    router.add("GET", "/forum/g/{gid:int}", group)
    router.add("POST", "/forum/g/{gid:int}/join", join)
    router.add("GET", "/forum/g/{gid:int}/new", new_post_form)
    router.add("POST", "/forum/g/{gid:int}/new", new_post)
    router.add("GET", "/forum/p/{pid:int}", post)
    router.add("POST", "/forum/p/{pid:int}/comment", comment)
    router.add("POST", "/forum/p/{pid:int}/react", react)
    router.add("GET", "/forum/p/{pid:int}/delete", delete_form)
    router.add("POST", "/forum/p/{pid:int}/delete", delete)


def _page(ctx: Ctx, template: str, **kw: Any) -> Response:
    kw.setdefault("section", "")
    mine = ctx.state.rows("SELECT * FROM forum_groups WHERE joined = 1 ORDER BY name")
    return ctx.render(template, app="forum", my_groups=mine, me=ctx.state.user()["email"], kinds=KINDS, **kw)


def _sorted(sort: str) -> str:
    return " ORDER BY n_reactions DESC, p.created DESC" if sort == "top" else " ORDER BY p.created DESC, p.id DESC"


def feed(ctx: Ctx) -> Response:
    sort = "top" if ctx.req.arg("sort") == "top" else "new"
    rows = ctx.state.rows(_POSTS + " WHERE g.joined = 1" + _sorted(sort) + " LIMIT 40")
    return _page(ctx, "forum/feed.html", section="feed", posts=rows, sort=sort)


def groups(ctx: Ctx) -> Response:
    rows = ctx.state.rows("SELECT g.*, (SELECT COUNT(*) FROM posts p WHERE p.group_id = g.id) AS n_posts "
                          "FROM forum_groups g ORDER BY g.name")  # fmt: skip
    return _page(ctx, "forum/groups.html", section="discover", groups=rows)


def search(ctx: Ctx) -> Response:
    q = ctx.req.arg("q")
    rows = ctx.state.rows(_POSTS + " WHERE p.title LIKE ? OR p.body LIKE ? ORDER BY p.created DESC LIMIT 40",
                          (f"%{q}%", f"%{q}%")) if q else []  # fmt: skip
    return _page(ctx, "forum/feed.html", section="search", posts=rows, sort="", query=q)


def _group(ctx: Ctx, gid: int) -> dict[str, Any] | None:
    return ctx.state.one("SELECT * FROM forum_groups WHERE id = ?", (gid,))


def group(ctx: Ctx, gid: int) -> Response:
    g = _group(ctx, gid)
    if g is None:
        return not_found("This group does not exist.")
    sort = "top" if ctx.req.arg("sort") == "top" else "new"
    rows = ctx.state.rows(_POSTS + " WHERE p.group_id = ?" + _sorted(sort), (gid,))
    return _page(ctx, "forum/group.html", section=f"g{gid}", g=g, posts=rows, sort=sort)


def join(ctx: Ctx, gid: int) -> Response:
    g = _group(ctx, gid)
    if g is None:
        return not_found("This group does not exist.")
    want = ctx.req.arg("do") != "leave"
    if bool(g["joined"]) != want:
        ctx.state.write("UPDATE forum_groups SET joined = ?, members = members + ? WHERE id = ?",
                        (int(want), 1 if want else -1, gid))  # fmt: skip
    return redirect(f"/forum/g/{gid}?flash={'group_joined' if want else 'group_left'}")


def new_post_form(ctx: Ctx, gid: int, err: str = "", form: dict[str, str] | None = None) -> Response:
    g = _group(ctx, gid)
    if g is None:
        return not_found("This group does not exist.")
    return _page(ctx, "forum/new.html", section=f"g{gid}", g=g, err=err, f=form or {"title": "", "body": ""})


def new_post(ctx: Ctx, gid: int) -> Response:
    s = ctx.state
    g = _group(ctx, gid)
    if g is None:
        return not_found("This group does not exist.")
    f = {"title": ctx.req.arg("title"), "body": ctx.req.form.get("body", "").strip()}
    if not g["joined"]:
        return new_post_form(ctx, gid, ctx.t("join_to_post"), f)
    if not f["title"]:
        return new_post_form(ctx, gid, ctx.t("post_needs_title"), f)
    user = s.user()
    pid = s.insert("posts", group_id=gid, author_name=user["name"], author=user["email"], title=f["title"],
                   body=f["body"], created=s.now(), source="user")  # fmt: skip
    return redirect(f"/forum/p/{pid}?flash=post_published")


def _post(ctx: Ctx, pid: int) -> dict[str, Any] | None:
    return ctx.state.one(_POSTS + " WHERE p.id = ?", (pid,))


def post(ctx: Ctx, pid: int) -> Response:
    s = ctx.state
    p = _post(ctx, pid)
    if p is None:
        return not_found("This post was deleted or never existed.")
    comments = s.rows("SELECT * FROM comments WHERE post_id = ? ORDER BY created, id", (pid,))
    counts = {r["kind"]: r["n"] for r in s.rows("SELECT kind, COUNT(*) AS n FROM reactions WHERE post_id = ? "
                                               "GROUP BY kind", (pid,))}  # fmt: skip
    mine = s.scalar("SELECT kind FROM reactions WHERE post_id = ? AND who = ?", (pid, s.user()["email"]))
    return _page(ctx, "forum/post.html", section=f"g{p['group_id']}", p=p, comments=comments, counts=counts,
                 my_reaction=mine, err=ctx.req.arg("err"))  # fmt: skip


def comment(ctx: Ctx, pid: int) -> Response:
    s = ctx.state
    if _post(ctx, pid) is None:
        return not_found("This post was deleted or never existed.")
    body = ctx.req.form.get("body", "").strip()
    if not body:
        return redirect(f"/forum/p/{pid}?err=comment_empty")
    user = s.user()
    s.insert("comments", post_id=pid, author_name=user["name"], author=user["email"], body=body, created=s.now())
    return redirect(f"/forum/p/{pid}?flash=comment_added#comments")


def react(ctx: Ctx, pid: int) -> Response:
    """One reaction per person: a new kind replaces the old one, the same kind again takes it back."""
    s = ctx.state
    kind = ctx.req.arg("kind")
    if _post(ctx, pid) is None or kind not in KINDS:
        return not_found("Unknown post or reaction.")
    me = s.user()["email"]
    old = s.scalar("SELECT kind FROM reactions WHERE post_id = ? AND who = ?", (pid, me))
    s.write("DELETE FROM reactions WHERE post_id = ? AND who = ?", (pid, me))
    if old != kind:
        s.insert("reactions", post_id=pid, who=me, kind=kind)
    return redirect(f"/forum/p/{pid}")


def delete_form(ctx: Ctx, pid: int) -> Response:
    p = _post(ctx, pid)
    if p is None or p["author"] != ctx.state.user()["email"]:
        return not_found("You can only delete your own posts.")
    return _page(ctx, "forum/delete.html", section=f"g{p['group_id']}", p=p)


def delete(ctx: Ctx, pid: int) -> Response:
    s = ctx.state
    p = _post(ctx, pid)
    if p is None or p["author"] != s.user()["email"]:
        return not_found("You can only delete your own posts.")
    for table, col in (("comments", "post_id"), ("reactions", "post_id"), ("posts", "id")):
        s.write(f"DELETE FROM {table} WHERE {col} = ?", (pid,))
    s.log("forum", "forum.delete", post_id=pid, title=p["title"], group=p["group_name"])
    return redirect(f"/forum/g/{p['group_id']}?flash=post_deleted")
