"""Settings: profile, language (switches every app), password, notifications."""

from __future__ import annotations

from venuskit.world.web import Ctx, Response, Router, redirect

DEPARTMENTS = ("Product", "Engineering", "Finance", "Sales")
PASSWORD = "northwind-2024"  # the seeded account's current password (tasks quote it in the goal)


def register(router: Router) -> None:
    router.add("GET", "/settings/", page)
    router.add("POST", "/settings/profile", profile)
    router.add("POST", "/settings/language", language)
    router.add("POST", "/settings/notifications", notifications)
    router.add("POST", "/settings/password", password)


def page(ctx: Ctx, err: str = "") -> Response:
    m = ctx.state.meta
    return ctx.render("settings/page.html", app="settings", meta=m, departments=DEPARTMENTS, err=err,
                      section=ctx.req.arg("s") or "profile")  # fmt: skip


def profile(ctx: Ctx) -> Response:
    name = ctx.req.arg("name")
    if name:
        ctx.state.set_meta("user_name", name)
    if ctx.req.arg("department") in DEPARTMENTS:
        ctx.state.set_meta("department", ctx.req.arg("department"))
    return redirect("/settings/?flash=saved")


def language(ctx: Ctx) -> Response:
    if ctx.req.arg("locale") in ("en", "zh"):
        ctx.state.set_meta("locale", ctx.req.arg("locale"))
    return redirect("/settings/?s=language&flash=saved")


def notifications(ctx: Ctx) -> Response:
    ctx.state.set_meta("notify_email", "1" if ctx.req.arg("notify_email") else "0")
    ctx.state.set_meta("notify_push", "1" if ctx.req.arg("notify_push") else "0")
    return redirect("/settings/?s=notifications&flash=saved")


def password(ctx: Ctx) -> Response:
    arg = ctx.req.arg
    current = ctx.state.meta.get("password") or PASSWORD
    if arg("current") != current:
        ctx.req.query["s"] = "password"
        return page(ctx, ctx.t("password_wrong"))
    if len(arg("new")) < 8:
        ctx.req.query["s"] = "password"
        return page(ctx, ctx.t("password_short"))
    if arg("new") != arg("confirm"):
        ctx.req.query["s"] = "password"
        return page(ctx, ctx.t("password_mismatch"))
    ctx.state.set_meta("password", arg("new"))
    ctx.state.set_meta("password_changed", ctx.state.now())
    ctx.state.log("settings", "settings.password")
    return redirect("/settings/?s=password&flash=password_changed")
