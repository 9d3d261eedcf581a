"""What the env sends for typing and which package LaunchApp names: pure functions, checked without a device (the
device-side effect of each is tested through adb in test_android_env.py)."""

from __future__ import annotations

import base64
import shlex

import pytest

from venuskit.envs.android import apps, text
from venuskit.envs.android.standin.shell import tokenize


def typed_by(commands: list[str]) -> str:
    """What `input text` / `input keyevent` would type, read back through a POSIX shell's quoting."""
    out = []
    for command in commands:
        words = [w for _, w in tokenize(command)]
        if words[:2] == ["input", "text"]:
            out.append(words[2].replace("%s", " "))
        elif words[:2] == ["input", "keyevent"]:
            out.append({"66": "\n", "61": "\t"}[words[2]])
    return "".join(out)


@pytest.mark.parametrize("content", ["hello world", "a'b\"c$HOME;d&e|f`g`(h)<i>#j\\k", "100%sure", "x%", "%s%s",
                                     "line one\nline two\tend", "  lead and trail  ", "w" * 80])
def test_input_text_types_exactly_the_text(content: str) -> None:
    commands = text.input_text_commands(content)
    assert typed_by(commands) == content
    for command in commands:  # one word for the device's shell, a few words of text at a time
        words = shlex.split(command)
        assert len(words) == 3
        if words[1] == "text":
            assert len(words[2].replace("%s", " ")) <= text.CHUNK_CHARS


def test_only_printable_ascii_goes_through_input_text() -> None:
    assert text.input_text_safe("Hello, world!\n\t~")
    assert not text.input_text_safe("café") and not text.input_text_safe("你好")
    assert text.untypable("naïve café ï") == "ïé"


def test_other_text_goes_through_adbkeyboard_base64() -> None:
    commands = text.broadcast_commands("你好\ncafé")
    assert commands[1] == "input keyevent 66"
    sent = [base64.b64decode(c.split()[-1]).decode() for c in commands if "ADB_INPUT_B64" in c]
    assert sent == ["你好", "café"]


def test_launch_app_names_resolve_on_what_the_device_has() -> None:
    phone = {"com.android.settings", "com.google.android.gm", "com.example.notes"}
    standin = {"com.venuskit.settings", "com.venuskit.mail", "com.venuskit.bank"}
    assert apps.resolve("Settings", {}, phone) == "com.android.settings"
    assert apps.resolve("settings", {}, standin) == "com.venuskit.settings"  # the first candidate installed
    assert apps.resolve("mail", {}, phone) == "com.google.android.gm"
    assert apps.resolve("notes", {"notes": "com.example.notes"}, phone) == "com.example.notes"  # the user's table
    assert apps.resolve("Bank", {}, standin) == "com.venuskit.bank"
    assert apps.resolve("com.example.notes", {}, phone) == "com.example.notes"
    with pytest.raises(apps.UnknownApp, match="com.example.notes"):
        apps.resolve("Spotify", {}, phone)
    with pytest.raises(apps.UnknownApp, match="No package"):
        apps.resolve("com.spotify.music", {}, phone)


def test_the_user_app_table_file(tmp_path) -> None:
    good = tmp_path / "apps.toml"
    good.write_text('[apps]\nnotes = "com.example.notes"\n', encoding="utf-8")
    assert apps.load_apps_file(good) == {"notes": "com.example.notes"}
    bad = tmp_path / "bad.toml"
    bad.write_text("notes = 3\n", encoding="utf-8")
    with pytest.raises(ValueError, match="as strings"):
        apps.load_apps_file(bad)
    with pytest.raises(ValueError, match="Cannot read"):
        apps.load_apps_file(tmp_path / "missing.toml")
