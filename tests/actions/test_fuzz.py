"""10,000 fuzzed model outputs: parse_response either returns a sane Response or raises ActionParseError.

Nothing else may escape (no TypeError, IndexError, RecursionError, OverflowError, UnicodeError...).
Derandomized, so a failure reproduces; the counts below add up to 10,000 for the UI-Venus-2 grammar,
plus a smaller pass over the dialect parsers.
"""

from __future__ import annotations

import contextlib

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from venuskit.actions import Action, ActionParseError, format_call, format_response, parse_response
from venuskit.actions.dialects import guir1, pyautogui, uitars, venus15
from venuskit.actions.grammar import GRAMMARS

SURFACES = st.sampled_from(["mobile", "browser", "computer", "captcha"])


def fuzz(n: int) -> settings:
    return settings(
        max_examples=n,
        derandomize=True,
        deadline=None,
        database=None,
        suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large, HealthCheck.filter_too_much],
    )


def parse_or_refuse(text: str, surface: str, reasoning: str | None = None) -> None:
    try:
        r = parse_response(text, surface, reasoning)
    except ActionParseError as e:
        assert str(e)  # every refusal explains itself
        return
    assert r.raw is text and r.actions and all(isinstance(a, Action) for a in r.actions)
    assert len(r.action_spans) == len(r.actions)
    for span, action in zip(r.action_spans, r.actions, strict=True):
        name = text[slice(*span.name_span)]
        assert name.isidentifier() and text[span.args_span[1]] == ")"
        format_call(action, surface)  # whatever we accept, we can also write


# ---- building blocks ------------------------------------------------------------------------------

TOKENS = ["<think>", "</think>", "<action>", "</action>", "<conclusion>", "</conclusion>", "<THINK>", "<action",
          "Click(", "Sequence(actions=[", "Swipe(", "Type(content=", "point=", "box=", "(1,2)", "(999, 999)", ")",
          "]", "[", ",", "'", '"', "'''", "\\", "\n", "\r\n", " ", "=", "**", "*", "#", "lambda: 0", "(", "{", "}",
          "\x00", "\ud800", "\u202e", "\u200b", "（", "）", "😀", "1e999", "-", "10" * 30]  # fmt: skip
any_char = st.characters(codec=None) | st.characters(categories=["Cs"])
wild_text = st.text(any_char, max_size=120)
CALL_NAMES = sorted({c for g in GRAMMARS.values() for c in g.calls} | {"click", "Fly", "__import__", "eval", "print"})
KW_NAMES = ["point", "box", "start", "end", "content", "keys", "amount", "axis", "direction", "actions", "index",
            "duration", "seconds", "repeat", "app", "url", "x", "_"]  # fmt: skip


EDGE_NUMBERS = ["1e999", "-1e999", "1e308", "-0.0", "0x10", "1_000", "0b1", "1j", "nan", "inf", "9" * 4301,
                "10" * 200, "0.5", "999", "999.9", "1000", "-1", "4096", "4097", "0", "1e-320"]  # fmt: skip


def _number_source() -> st.SearchStrategy[str]:
    huge = st.integers(-(10**400), 10**400).map(str)
    floats = st.floats(allow_nan=False, allow_infinity=False).map(repr)
    return st.one_of(st.integers(-2000, 2000).map(str), huge, st.sampled_from(EDGE_NUMBERS), floats)


def _literal_source() -> st.SearchStrategy[str]:
    # kept cheap: generating deep literals dominates the run time, not parsing them
    numbers = st.one_of(st.integers(-2000, 2000).map(str), st.sampled_from(EDGE_NUMBERS))
    base = st.one_of(
        numbers,
        st.text(any_char, max_size=12).map(repr),
        st.sampled_from(["True", "None", "...", "x", "b'x'", "f'{x}'", "''", "'ctrl'", "'vertical'", "'up'"]),
    )

    def extend(children: st.SearchStrategy[str]) -> st.SearchStrategy[str]:
        many = st.lists(children, max_size=4).map(", ".join)
        return st.one_of(
            many.map(lambda s: f"({s})"),
            many.map(lambda s: f"[{s}]"),
            children.map(lambda s: f"-{s}"),
            st.tuples(children, children).map(lambda t: f"{{{t[0]}: {t[1]}}}"),
            st.tuples(children, children).map(lambda t: f"{t[0]} + {t[1]}"),
            st.tuples(st.sampled_from(CALL_NAMES), st.sampled_from(KW_NAMES), children).map(
                lambda t: f"{t[0]}({t[1]}={t[2]})"
            ),
        )

    return st.recursive(base, extend, max_leaves=5)


LITERALS = _literal_source()


@st.composite
def calls(draw) -> str:
    name = draw(st.sampled_from(CALL_NAMES))
    kws = draw(st.lists(st.tuples(st.sampled_from(KW_NAMES), LITERALS), max_size=2))
    positional = draw(st.lists(LITERALS, max_size=1))
    return f"{name}({', '.join([*positional, *(f'{k}={v}' for k, v in kws)])})"


@st.composite
def mutated_valid(draw, action_strategy) -> tuple[str, str]:
    surface = draw(SURFACES)
    actions = draw(st.lists(action_strategy(surface), min_size=1, max_size=3 if surface == "captcha" else 1))
    text = format_response(draw(st.text(max_size=30).filter(lambda t: "<" not in t)), actions, surface)
    for _ in range(draw(st.integers(1, 4))):
        i = draw(st.integers(0, len(text)))
        j = draw(st.integers(i, min(len(text), i + 12)))
        op = draw(st.sampled_from(["delete", "insert", "duplicate", "replace"]))
        piece = draw(st.sampled_from(TOKENS) | st.text(any_char, max_size=3))
        if op == "delete":
            text = text[:i] + text[j:]
        elif op == "insert":
            text = text[:i] + piece + text[i:]
        elif op == "duplicate":
            text = text[:j] + text[i:j] + text[j:]
        else:
            text = text[:i] + piece + text[j:]
    return surface, text


# ---- the 10,000 -------------------------------------------------------------------------------------


@fuzz(2000)
@given(surface=SURFACES, text=wild_text, reasoning=st.none() | wild_text)
def test_random_text(surface, text, reasoning):
    parse_or_refuse(text, surface, reasoning)


@fuzz(3000)
@given(data=st.data())
def test_mutated_valid_responses(data, action_strategy):
    surface, text = data.draw(mutated_valid(action_strategy))
    parse_or_refuse(text, surface)


@fuzz(2000)
@given(surface=SURFACES, body=st.lists(calls(), min_size=1, max_size=2).map(",".join), think=st.booleans())
def test_random_nested_literals(surface, body, think):
    parse_or_refuse(("<think>t</think>" if think else "") + f"<action>{body}</action>", surface)


@fuzz(1000)
@given(surface=SURFACES, parts=st.lists(st.sampled_from(TOKENS) | st.text(any_char, max_size=4), max_size=30))
def test_unbalanced_tags(surface, parts):
    parse_or_refuse("".join(parts), surface)


@fuzz(1000)
@given(
    surface=SURFACES,
    template=st.sampled_from(
        [
            "Click(point=({a}, {b}))",
            "Click(box=({a}, {b}))",
            "Swipe(amount={a}, axis='vertical')",
            "Hotkey(keys=['a'], repeat={a})",
            "LongPress(point=(1, 2), duration={a})",
            "SelectOption(index={a})",
            "Wait(seconds={a})",
            "Drag(start=({a}, {b}), end=(1, 1))",
            "Scroll(point=({a}, 5), direction='up', amount={b})",
        ]
    ),
    a=_number_source(),
    b=_number_source(),
)
def test_huge_and_odd_numbers(surface, template, a, b):
    parse_or_refuse(f"<action>{template.format(a=a, b=b)}</action>", surface)


@fuzz(1000)
@given(
    surface=SURFACES,
    name=st.sampled_from(["Click", "Clíck", "Сlick", "Ｃlick", "点击", "Click\u200b", "\u202eClick"]),
    open_=st.sampled_from(["(", "（", "\u00a0(", " ("]),
    content=st.text(any_char, max_size=20),
    quote=st.sampled_from(["'", '"', "'''", "‘"]),
)
def test_unicode(surface, name, open_, content, quote):
    parse_or_refuse(f"<think>{content}</think><action>{name}{open_}point=(1, 2))</action>", surface)
    parse_or_refuse(f"<action>Type(content={quote}{content}{quote})</action>", surface)


# ---- the dialects get a smaller pass ---------------------------------------------------------------


def _refuse_only(fn, *args, **kw) -> None:
    with contextlib.suppress(ActionParseError):
        fn(*args, **kw)


@fuzz(400)
@given(text=wild_text | st.lists(calls(), min_size=1, max_size=2).map("\n".join), mode=st.booleans())
def test_dialects_refuse_cleanly(text, mode):
    frame = {"coord_mode": "resized_pixels", "width": 1920, "height": 1080} if mode else {}
    _refuse_only(uitars.parse, "Thought: t\nAction: " + text.replace("Click(", "click(start_box="), **frame)
    _refuse_only(uitars.parse, text, **frame)
    _refuse_only(guir1.parse, text, 1080, 2400)
    _refuse_only(guir1.parse, "[{'action': 'click', 'point': " + text + "}]", 1080, 2400)
    _refuse_only(pyautogui.parse, text.replace("Click(", "pyautogui.click("), 1920, 1080)
    _refuse_only(venus15.parse, f"<think>t</think><action>{text}</action><conclusion>c</conclusion>")
