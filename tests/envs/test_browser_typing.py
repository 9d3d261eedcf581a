"""Type reaches every field as a person's typing does, in real Chromium: date and time segments, a number,
a key-listening phone mask, a contenteditable editor, a widget that only hears keys, Chinese text, newlines.
The page logs every keyboard event, so the test sees what the page heard, not only what the field shows."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest

from venuskit.actions.types import Type
from venuskit.envs.browser import BrowserConfig, BrowserEnv
from venuskit.envs.browser.keys import typing_runs

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def env(pages_url: str) -> Iterator[BrowserEnv]:
    with BrowserEnv(BrowserConfig(settle_s=0.0)) as env:
        env.reset({"start_url": f"{pages_url}/typing.html"})
        yield env


def type_into(env: BrowserEnv, field: str, text: str) -> tuple[str, list[dict[str, Any]]]:
    """Focus `field`, Type `text`, return the field's value (or text) and the keyboard events the page heard."""
    env.page.evaluate(f"(e => {{ if ('value' in e) e.value = ''; else e.textContent = ''; e.digits = '' }})"
                      f"(document.getElementById('{field}'))")  # fmt: skip
    env.page.focus(f"#{field}")
    env.page.evaluate("window.__keys = []")
    result = env.step(Type(content=text))
    assert result.error is None, result.error
    value = env.page.evaluate(f"(e => e.value ?? e.textContent)(document.getElementById('{field}'))")
    return value, env.page.evaluate("window.__keys")


@pytest.mark.parametrize(
    "field, text, value",
    [("date", "05172024", "2024-05-17"), ("time", "0930PM", "21:30"), ("number", "-42.5", "-42.5"),
     ("phone", "5551234567", "(555) 123-4567"), ("keys", "AbC!", "AbC!")],
)  # fmt: skip
def test_fields_that_listen_to_keys_get_the_text(env: BrowserEnv, field: str, text: str, value: str) -> None:
    got, heard = type_into(env, field, text)
    assert got == value
    assert [e["key"] for e in heard if e["type"] == "keydown" and e["key"] != "Shift"] == list(text)


def test_each_character_is_a_whole_key_press_with_shift_for_capitals(env: BrowserEnv) -> None:
    value, heard = type_into(env, "plain", "Hi!")
    assert value == "Hi!"
    per_key = [(e["type"], e["key"] or e["data"], e["shift"]) for e in heard if e["type"] != "beforeinput"]
    assert per_key == [
        ("keydown", "Shift", True),
        ("keydown", "H", True), ("keypress", "H", True), ("input", "H", False), ("keyup", "H", True),
        ("keyup", "Shift", False),
        ("keydown", "i", False), ("keypress", "i", False), ("input", "i", False), ("keyup", "i", False),
        ("keydown", "Shift", True),
        ("keydown", "!", True), ("keypress", "!", True), ("input", "!", False), ("keyup", "!", True),
        ("keyup", "Shift", False),
    ]  # fmt: skip
    assert all(e["trusted"] for e in heard)  # real input events, not script-made ones


def test_chinese_lands_as_an_input_method_commit(env: BrowserEnv) -> None:
    value, heard = type_into(env, "plain", "你好，世界 ok")
    assert value == "你好，世界 ok"
    inputs = [e["data"] for e in heard if e["type"] == "input"]
    assert inputs == ["你好，世界", " ", "o", "k"]  # the phrase committed at once, then the keys
    assert not any(e["type"] == "keydown" and e["key"] in "你好，世界" for e in heard)


def test_contenteditable_and_newlines(env: BrowserEnv) -> None:
    value, heard = type_into(env, "editor", "Dear Ada")
    assert value == "Dear Ada" and sum(e["type"] == "keydown" for e in heard) == len("Dear Ada") + 2  # 2 Shifts
    value, heard = type_into(env, "area", "one\ntwo")
    assert value == "one\ntwo" and [e["key"] for e in heard if e["type"] == "keydown"].count("Enter") == 1


def test_typing_runs() -> None:
    assert typing_runs("Hi 你好!\nok") == [
        ("shift", "H"), ("keys", "i "), ("commit", "你好"), ("shift", "!"), ("enter", "\n"), ("keys", "ok"),
    ]  # fmt: skip
    assert typing_runs("") == [] and typing_runs("café") == [("keys", "caf"), ("commit", "é")]
