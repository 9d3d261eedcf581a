"""LaunchApp(app=...): the names a model says -> Android packages.

A name is looked up in the user's table (AndroidConfig.apps, `--apps FILE`), then in the built-in one below;
each built-in name lists candidate packages, and the first one installed on the device wins (so "settings" is the
world's Settings app on the stand-in and Android's own on a phone). A name with a dot is taken as a package.
The built-in names follow AndroidWorld's activity table (env/adb_utils.py) and the world's eight apps.
"""

from __future__ import annotations

import tomllib
from pathlib import Path

BUILTIN: dict[str, tuple[str, ...]] = {
    # the bundled world's apps, as the stand-in device has them
    "mail": ("com.venuskit.mail", "com.google.android.gm"),
    "calendar": ("com.venuskit.calendar", "com.google.android.calendar"),
    "drive": ("com.venuskit.drive", "com.google.android.apps.docs"),
    "expense": ("com.venuskit.expense",),
    "expenses": ("com.venuskit.expense",),
    "bank": ("com.venuskit.bank",),
    "shop": ("com.venuskit.shop",),
    "forum": ("com.venuskit.forum",),
    "settings": ("com.venuskit.settings", "com.android.settings"),
    "system settings": ("com.android.settings",),
    "home": ("com.venuskit.standin.home",),
    # common Android apps
    "chrome": ("com.android.chrome",), "google chrome": ("com.android.chrome",),
    "gmail": ("com.google.android.gm",), "google mail": ("com.google.android.gm",),
    "google calendar": ("com.google.android.calendar",),
    "google drive": ("com.google.android.apps.docs",),
    "youtube": ("com.google.android.youtube",), "google maps": ("com.google.android.apps.maps",),
    "maps": ("com.google.android.apps.maps",), "photos": ("com.google.android.apps.photos",),
    "google photos": ("com.google.android.apps.photos",), "play store": ("com.android.vending",),
    "google play": ("com.android.vending",), "clock": ("com.google.android.deskclock",),
    "contacts": ("com.google.android.contacts", "com.android.contacts"),
    "phone": ("com.google.android.dialer", "com.android.dialer"), "dialer": ("com.google.android.dialer",),
    "messages": ("com.google.android.apps.messaging",), "camera": ("com.android.camera2",),
    "files": ("com.google.android.documentsui", "com.android.documentsui"),
    "calculator": ("com.google.android.calculator",), "keep": ("com.google.android.keep",),
}  # fmt: skip


class UnknownApp(LookupError):
    """No package for an app name on this device."""


def load_apps_file(path: Path | str) -> dict[str, str]:
    """A user table: TOML `[apps]` (or top-level) string pairs, e.g. `notes = "com.example.notes"`."""
    path = Path(path)
    try:
        data = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as e:
        raise ValueError(f"Cannot read the app table {path}: {e}") from e
    table = data.get("apps", data)
    if not isinstance(table, dict) or not all(isinstance(k, str) and isinstance(v, str) for k, v in table.items()):
        raise ValueError(f"{path}: the app table maps names to package names as strings (notes = \"com.x.notes\").")
    return dict(table)


def resolve(name: str, user: dict[str, str], installed: set[str]) -> str:
    """The package for `name`; raises UnknownApp with what the device has."""
    key = " ".join(name.strip().lower().split())
    if not key:
        raise UnknownApp("LaunchApp needs an app name.")
    if key in user:
        return user[key]
    if "." in key and " " not in key:
        if key in installed or not installed:
            return name.strip()
        raise UnknownApp(f"No package {name.strip()!r} on the device.")
    for package in BUILTIN.get(key, ()):
        if package in installed:
            return package
    for package in sorted(installed):  # "com.venuskit.mail" for "mail": the last part of a package name
        if package.rsplit(".", 1)[-1] == key.replace(" ", ""):
            return package
    known = sorted(p for p in installed if not p.startswith(("android", "com.android.providers")))
    listed = ", ".join(known[:30]) + (" ..." if len(known) > 30 else "")
    raise UnknownApp(f"No app called {name.strip()!r} on the device; add it to the app table (--apps FILE) or "
                     f"name a package. Installed: {listed}.")  # fmt: skip
