"""The UI-Venus-2 call grammar: parse_response, format_call / format_response, spans and errors."""

from __future__ import annotations

import ast

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from venuskit.actions import (
    SURFACES,
    ActionError,
    ActionParseError,
    Answer,
    CallUser,
    Click,
    Drag,
    Finished,
    Hotkey,
    KeyDown,
    LaunchApp,
    LongPress,
    Point,
    PressBack,
    Scroll,
    SelectOption,
    Sequence,
    Swipe,
    Type,
    Wait,
    describe_actions,
    format_call,
    format_response,
    parse_response,
)
from venuskit.actions.grammar import GRAMMARS, quote

SURFACE_NAMES = ["mobile", "browser", "computer", "captcha"]
GRID = {"mobile": 1000, "browser": 1000, "computer": 999, "captcha": 999}
FAST = settings(max_examples=150, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])


def one(text: str, surface: str = "mobile"):
    r = parse_response(text, surface)
    assert len(r.actions) == 1
    return r.actions[0]


# ---- the envelope ----------------------------------------------------------------------------------


def test_upstream_mobile_example_parses():
    text = "<think>Kuwo Music is open. I should enter the My page.</think>\n<action>Click(point=(897, 937))</action>"
    r = parse_response(text, "mobile")
    assert r.thought == "Kuwo Music is open. I should enter the My page."
    assert r.actions == [Click(point=Point(0.897, 0.937))]
    assert r.raw == text and r.conclusion is None


def test_missing_opening_think_is_the_pre_opened_template():
    r = parse_response("The search box is on top.\n</think>\n<action>Click(point=(10, 20))</action>", "mobile")
    assert r.thought == "The search box is on top."


def test_reasoning_content_is_spliced_back_when_text_has_no_think():
    r = parse_response("<action>Wait()</action>", "mobile", reasoning_content="  loading  ")
    assert r.thought == "loading" and r.actions == [Wait()]
    assert parse_response("<action>Wait()</action>", "mobile").thought is None
    # the text's own thought wins over the channel
    assert parse_response("<think>mine</think><action>Wait()</action>", "mobile", "other").thought == "mine"


def test_bare_action_and_whitespace_around_tags():
    assert one("  \n<action>  PressBack()  </action>\n") == PressBack()


def test_tags_are_case_insensitive_and_calls_may_span_lines():
    a = one("<THINK>t</THINK><Action>Drag(\n  start=(1, 2),\n  end=(3, 4),\n)</Action>")
    assert a == Drag(start=Point(0.001, 0.002), end=Point(0.003, 0.004))


def test_raw_newline_inside_a_string_is_read_as_a_newline():
    assert one("<action>Type(content='line one\nline two')</action>") == Type(content="line one\nline two")
    assert one('<action>Type(content="""a\r\nb""")</action>') == Type(content="a\r\nb")


def test_box_and_point_are_aliases_on_every_surface():
    for surface in SURFACE_NAMES:
        scale = GRID[surface]
        want = Click(point=Point(500 / scale, 250 / scale))
        assert one("<action>Click(box=(500, 250))</action>", surface) == want
        assert one("<action>Click(point=(500, 250))</action>", surface) == want


def test_strings_may_use_either_quote_and_escapes():
    assert one("""<action>Type(content="it's")</action>""") == Type(content="it's")
    assert one(r"<action>Type(content='tab\there\\')</action>") == Type(content="tab\there\\")
    assert one("<action>Type(content='a' 'b')</action>") == Type(content="ab")


# ---- per-surface meaning ---------------------------------------------------------------------------


def test_computer_swipe_is_scroll_at_the_cursor_positive_vertical_is_up():
    assert one("<action>Swipe(amount=5, axis='vertical')</action>", "computer") == Scroll(direction="up", amount=5)
    assert one("<action>Swipe(amount=-7, axis='vertical')</action>", "computer") == Scroll(direction="down", amount=7)
    assert one("<action>Swipe(amount=3, axis='horizontal')</action>", "computer") == Scroll(
        direction="right", amount=3
    )
    assert one("<action>Swipe(amount=-1, axis='horizontal')</action>", "computer") == Scroll(
        direction="left", amount=1
    )
    assert format_call(Scroll(direction="down", amount=7), "computer") == "Swipe(amount=-7, axis='vertical')"


def test_computer_sequence_and_cursor_pointer_actions():
    r = parse_response(
        "<think>save</think>\n<action>Sequence(actions=[Click(box=(10, 20)), Hotkey(keys=['ctrl', 's']), "
        "Click()])</action>",
        "computer",
    )
    (seq,) = r.actions
    assert isinstance(seq, Sequence)
    assert seq.actions == (Click(point=Point(10 / 999, 20 / 999)), Hotkey(keys=("ctrl", "s")), Click())
    assert one("<action>Drag(end=(999, 0))</action>", "computer") == Drag(end=Point(1.0, 0.0))


def test_mobile_swipe_browser_scroll_longpress_hotkey():
    assert one("<action>Swipe(start=(500, 800), end=(500, 200))</action>") == Swipe(
        start=Point(0.5, 0.8), end=Point(0.5, 0.2)
    )
    assert one("<action>Scroll(point=(500, 500), direction='down')</action>", "browser") == Scroll(
        point=Point(0.5, 0.5), direction="down"
    )
    assert one("<action>LongPress(point=(1, 2), duration=20)</action>", "browser") == LongPress(
        point=Point(0.001, 0.002), duration=20
    )
    assert one("<action>Hotkey(keys=('ctrl', 'tab'))</action>", "browser") == Hotkey(keys=("ctrl", "tab"))
    assert one("<action>SelectOption(index=3)</action>", "browser") == SelectOption(index=3)
    assert one("<action>LaunchApp(app='Settings')</action>") == LaunchApp(app="Settings")


def test_captcha_takes_a_comma_separated_sequence_each_one_action():
    text = "<think>two fields</think><action>Click(box=(385,932)),Type(content='10'),Click(box=(514,932)),Type(content='7')</action>"
    r = parse_response(text, "captcha")
    assert r.actions == [
        Click(point=Point(385 / 999, 932 / 999)),
        Type(content="10"),
        Click(point=Point(514 / 999, 932 / 999)),
        Type(content="7"),
    ]
    assert [text[slice(*s.name_span)] for s in r.action_spans] == ["Click", "Type", "Click", "Type"]


def test_grid_range_rejected_on_mobile_browser_clamped_on_computer_captcha():
    for surface in ("mobile", "browser"):
        with pytest.raises(ActionParseError, match="outside the grid 0..999"):
            parse_response("<action>Click(point=(1000, 5))</action>", surface)
        with pytest.raises(ActionParseError, match="outside the grid"):
            parse_response("<action>Click(point=(-1, 5))</action>", surface)
    assert one("<action>Click(point=(999.5, 0))</action>", "mobile") == Click(point=Point(0.9995, 0.0))
    for surface in ("computer", "captcha"):
        big = one(f"<action>Click(box=(1000, {10**40}))</action>", surface)
        assert big == Click(point=Point(1.0, 1.0))
        assert one("<action>Click(box=(-5, -1e300))</action>", surface) == Click(point=Point(0.0, 0.0))


def test_every_grammar_reads_exactly_its_surface_actions():
    for surface, grammar in GRAMMARS.items():
        handled = {cls.name for spec in grammar.calls.values() for cls in spec.handles}
        assert handled == set(SURFACES[surface].actions), surface


# ---- round trips ----------------------------------------------------------------------------------


@pytest.mark.parametrize("surface", SURFACE_NAMES)
@FAST
@given(data=st.data())
def test_format_then_parse_round_trips_every_action(surface, data, action_strategy, snap):
    action = data.draw(action_strategy(surface))
    thought = data.draw(st.text(max_size=20).filter(lambda t: "<" not in t))
    text = format_response(thought, [action], surface)
    r = parse_response(text, surface)
    assert r.actions == [snap(action, GRID[surface])]
    assert r.thought == thought.strip()
    # spans: the name and the argument list are exactly where format_call put them
    (span,) = r.action_spans
    call = format_call(action, surface)
    assert text[slice(*span.call_span)] == call
    assert call.startswith(text[slice(*span.name_span)] + "(")
    assert text[slice(*span.args_span)] == call[call.index("(") + 1 : -1]


@FAST
@given(data=st.data())
def test_captcha_sequences_round_trip_with_spans(data, action_strategy, snap):
    actions = data.draw(st.lists(action_strategy("captcha"), min_size=1, max_size=5))
    text = format_response("solve", actions, "captcha")
    r = parse_response(text, "captcha")
    assert r.actions == [snap(a, 999) for a in actions]
    assert [text[slice(*s.call_span)] for s in r.action_spans] == [format_call(a, "captcha") for a in actions]


def test_format_call_is_canonical_per_surface():
    p = Point(0.5, 0.25)
    assert format_call(Click(point=p), "mobile") == "Click(point=(500, 250))"
    assert format_call(Click(point=p), "computer") == "Click(box=(500, 250))"
    assert format_call(Click(point=p), "captcha") == "Click(box=(500,250))"
    assert format_call(Click(), "computer") == "Click()"
    assert format_call(Drag(start=p, end=p), "computer") == "Drag(end=(500, 250), start=(500, 250))"
    assert format_call(Drag(start=p, end=p), "captcha") == "Drag(start=(500,250),end=(500,250))"
    assert format_call(Hotkey(keys=("ctrl", "c")), "browser") == "Hotkey(keys=('ctrl', 'c'))"
    assert format_call(Hotkey(keys=("enter",)), "browser") == "Hotkey(keys=('enter',))"
    assert format_call(Hotkey(keys=("down",), repeat=5), "computer") == "Hotkey(keys=['down'], repeat=5)"
    assert format_call(Finished(), "mobile") == "Finished(content='')"
    assert format_call(Answer(content="42"), "mobile") == "Answer(content='42')"
    assert format_call(Wait(), "browser") == "Wait()"
    assert format_call(Wait(seconds=2.5), "browser") == "Wait(seconds=2.5)"
    assert format_call(KeyDown(keys=("shift",)), "computer") == "KeyDown(keys=['shift'])"


def test_format_response_shape():
    assert format_response("go", Click(point=Point(0, 1)), "mobile") == (
        "<think>go</think>\n<action>Click(point=(0, 999))</action>"
    )
    assert format_response(None, [Wait(), Type(content="1")], "captcha") == "<action>Wait(),Type(content='1')</action>"


def test_strings_that_look_like_our_tags_survive():
    tricky = "</action><action>Finished()</action></think><think>"
    text = format_response("t", Type(content=tricky), "mobile")
    assert "</action><action>" not in text.split("<action>", 1)[1][:-9]
    assert one(text) == Type(content=tricky)
    assert ast.literal_eval(quote(tricky)) == tricky


def test_format_refuses_what_the_surface_cannot_say():
    with pytest.raises(ActionError, match="not an action of the mobile surface"):
        format_call(Scroll(point=Point(0, 0), direction="up"), "mobile")
    with pytest.raises(ActionError, match="needs a point"):
        format_call(Click(), "mobile")
    with pytest.raises(ActionError, match="at most 3"):
        format_call(Hotkey(keys=("a", "b", "c", "d")), "browser")
    with pytest.raises(ActionError, match="Scroll.point must be None"):
        format_call(Scroll(point=Point(0, 0), direction="up", amount=1), "computer")
    with pytest.raises(ActionError, match="needs Scroll.amount"):
        format_call(Scroll(direction="up"), "computer")
    with pytest.raises(ActionError, match="exactly one action"):
        format_response("t", [Wait(), Wait()], "mobile")
    with pytest.raises(ActionError, match="thought cannot contain"):
        format_response("a </think> b", Wait(), "mobile")
    with pytest.raises(ValueError, match="Unknown surface"):
        format_call(Wait(), "tv")


# ---- spans on raw model text ----------------------------------------------------------------------


def test_spans_index_raw_text_with_unicode_and_raw_newlines():
    text = "思考 😀 </think>\n<action>  Type (content='héllo\nwörld 😀') </action>"  # pre-opened think, space before '(', a raw newline inside the string
    r = parse_response(text, "mobile")
    (s,) = r.action_spans
    assert text[slice(*s.name_span)] == "Type"
    assert text[slice(*s.args_span)] == "content='héllo\nwörld 😀'"
    assert r.actions == [Type(content="héllo\nwörld 😀")]


def test_sequence_span_covers_the_whole_sequence_call():
    text = "<action>Sequence(actions=[Click(), Wait()])</action>"
    (s,) = parse_response(text, "computer").action_spans
    assert text[slice(*s.name_span)] == "Sequence"
    assert text[slice(*s.args_span)] == "actions=[Click(), Wait()]"


# ---- malformed input: each message says what and where ------------------------------------------

MALFORMED = [
    # (surface, text, fragments the message must contain)
    ("mobile", "Click(point=(1, 2))", ["no <action>"]),
    ("mobile", "", ["no <action>"]),
    ("mobile", "<action>Click(point=(1, 2))", ["never closed", "character 0"]),
    ("mobile", "<action></action>", ["empty", "character 8"]),
    ("mobile", "<action>Wait()</action><action>Wait()</action>", ["2 <action> tags", "character 23"]),
    ("mobile", "<action>Wait()</action></action>", ["exactly one </action>"]),
    ("mobile", "<think>a<action>Wait()</action>", ["<think> tag is never closed", "character 0"]),
    ("mobile", "<think>a</think></think><action>Wait()</action>", ["more than one </think>", "character 16"]),
    ("mobile", "<think>a</think><action>Wait()</action><think>", ["<think> tag appears after </think>"]),
    ("mobile", "<think><think>a</think><action>Wait()</action>", ["more than one <think>"]),
    ("mobile", "hello <think>a</think><action>Wait()</action>", ["unexpected text 'hello", "before <think>"]),
    ("mobile", "<think>a</think> so: <action>Wait()</action>", ["unexpected text 'so:", "before <action>"]),
    ("mobile", "<action>Wait()</action> done", ["unexpected text 'done'", "after </action>", "character 24"]),
    ("mobile", "<action>Click(point=(1, 2)</action>", ["not valid call syntax", "character 8"]),
    ("mobile", "<action>Click</action>", ["expected a call", "'Click'"]),
    ("mobile", "<action>click(point=(1, 2))</action>", ["click is not an action of the mobile surface", "Click,"]),
    ("mobile", "<action>Scroll(point=(1, 2), direction='up')</action>", ["Scroll is not an action of the mobile"]),
    ("computer", "<action>LaunchApp(app='x')</action>", ["LaunchApp is not an action of the computer surface"]),
    ("browser", "<action>Swipe(start=(1, 2), end=(3, 4))</action>", ["not an action of the browser surface"]),
    ("mobile", "<action>Click((1, 2))</action>", ["Click: positional arguments", "Click(point=(x1, y1))",
                                                  "character 14"]),
    ("mobile", "<action>Click(**{'point': (1, 2)})</action>", ["Click: **kwargs are not allowed"]),
    ("mobile", "<action>Click(point=(1, 2), point=(3, 4))</action>", ["argument 'point' is given twice"]),
    ("mobile", "<action>Click(point=(1, 2), box=(3, 4))</action>", ["argument 'box' is given twice",
                                                                    "character 28"]),
    ("mobile", "<action>Click(where=(1, 2))</action>", ["unknown keyword 'where'", "Click takes point"]),
    ("mobile", "<action>Click()</action>", ["Click: missing point"]),
    ("computer", "<action>Click(point=(1, 2, 3))</action>", ["argument 'point' must be a pair (x, y)"]),
    ("computer", "<action>Click(box='(1, 2)')</action>", ["must be a pair"]),
    ("computer", "<action>Click(box=(True, 2))</action>", ["the literal True is not allowed"]),
    ("computer", "<action>Click(box=(x, 2))</action>", ["only literal numbers", "'x'", "character 19"]),
    ("mobile", "<action>Click(point=(1e999, 2))</action>", ["not finite"]),
    ("computer", "<action>Click(box=(1+2, 3))</action>", ["only literal numbers", "'1+2'"]),
    ("computer", "<action>Click(box=__import__('os').system('x'))</action>", ["only literal numbers"]),
    ("mobile", "<action>Type(content=None)</action>", ["literal None is not allowed"]),
    ("mobile", "<action>Type(content=5)</action>", ["argument 'content' must be a string, got 5"]),
    ("mobile", "<action>Type(content=f'{x}')</action>", ["only literal"]),
    ("mobile", "<action>Type(content=b'x')</action>", ["literal b'x' is not allowed"]),
    ("mobile", "<action>Click(point=(1, 2)),Click(point=(1, 2))</action>", ["exactly one call", "found 2"]),
    ("mobile", "<action>Click(point=(1, 2)),</action>", ["exactly one call"]),
    ("captcha", "<action>()</action>", ["holds no call"]),
    ("captcha", "<action>" + ",".join(["Wait()"] * 33) + "</action>", ["33 calls"]),
    ("computer", "<action>Swipe(amount=0, axis='vertical')</action>", ["Swipe: Swipe.amount must be a non-zero"]),
    ("computer", "<action>Swipe(amount=5000, axis='vertical')</action>", ["Scroll.amount must be an integer in 1..4096"]),
    ("computer", "<action>Swipe(amount=2.5, axis='vertical')</action>", ["'amount' must be an integer"]),
    ("computer", "<action>Swipe(amount=2, axis='diagonal')</action>", ["'vertical' or 'horizontal'"]),
    ("computer", "<action>Swipe(amount=2)</action>", ["missing axis"]),
    ("browser", "<action>Scroll(point=(1, 2), direction='sideways')</action>", ["one of up, down, left, right"]),
    ("browser", "<action>Hotkey(keys=('ctrl', 'shift', 'alt', 't'))</action>", ["4 keys; at most 3"]),
    ("computer", "<action>Hotkey(keys=[])</action>", ["non-empty list of key names"]),
    ("computer", "<action>Hotkey(keys=['a'], repeat=0)</action>", ["Hotkey.repeat must be an integer in 1..128"]),
    ("browser", "<action>LongPress(point=(1, 2), duration=0)</action>", ["LongPress.duration", "(0, 60]"]),
    ("browser", "<action>SelectOption(index=-1)</action>", ["non-negative integer"]),
    ("computer", "<action>Sequence(actions=[Click()])</action>", ["Sequence needs 2..32 actions, got 1"]),
    ("computer", "<action>Sequence(actions=[Finished(), Click()])</action>", ["only be the last action"]),
    ("computer", "<action>Sequence(actions=[Click(), Sequence(actions=[Click(), Click()])])</action>",
     ["cannot contain another Sequence"]),
    ("computer", "<action>Sequence(actions=Click())</action>", ["must be a list of calls"]),
    ("computer", "<action>Sequence(actions=[Click(), 3])</action>", ["expected a call", "'3'"]),
    ("computer", "<action>Sequence(actions=[Click(), LaunchApp(app='x')])</action>",
     ["LaunchApp is not an action of the computer surface"]),
    ("mobile", "<action>Click(point=(1, 2))  # tap</action>", ["not valid call syntax"]),
    ("mobile", "<action>Click(point=(1, 2)) + 1</action>", ["expected a call"]),
    ("mobile", "<action>Click(point=(" + "1" * 5000 + ", 2))</action>", ["not valid call syntax", "4300 digits"]),
    ("mobile", "<action>Type(content='\x00')</action>", ["null bytes"]),
]  # fmt: skip


@pytest.mark.parametrize("surface,text,fragments", MALFORMED)
def test_malformed_inputs_say_what_and_where(surface, text, fragments):
    with pytest.raises(ActionParseError) as info:
        parse_response(text, surface)
    message = str(info.value)
    for fragment in fragments:
        assert fragment.lower() in message.lower(), f"{fragment!r} not in {message!r}"
    assert message[0].isupper() and message.endswith(".")


def test_parse_error_is_a_value_error_with_location_fields():
    with pytest.raises(ValueError) as info:
        parse_response("<action>Click(point=(1, 2), box=(3, 4))</action>", "mobile")
    err = info.value
    assert isinstance(err, ActionParseError)
    assert (err.call, err.argument, err.offset) == ("Click", "box", 28)


def test_non_string_response_is_a_parse_error():
    with pytest.raises(ActionParseError, match="must be a string"):
        parse_response(None, "mobile")  # type: ignore[arg-type]


def test_unknown_surface_is_a_plain_value_error():
    with pytest.raises(ValueError, match="Unknown surface 'tv'"):
        parse_response("<action>Wait()</action>", "tv")


# ---- describe_actions -----------------------------------------------------------------------------


@pytest.mark.parametrize("surface", SURFACE_NAMES)
def test_described_calls_are_exactly_the_grammar_and_examples_are_its_spelling(surface):
    text = describe_actions(surface)
    assert text.startswith("Coordinates range from the top-left corner (0, 0)")
    listed = [line[2:].split("(")[0] for line in text.splitlines() if line.startswith("- ")]
    assert listed == list(GRAMMARS[surface].calls)
    assert all(line.startswith(("- ", "> ", "Coordinates")) for line in text.splitlines())


def test_descriptions_spell_points_per_surface():
    assert "- Click(point=(x1, y1))" in describe_actions("mobile")
    assert "- Click(box=(x1, y1))" in describe_actions("captcha")
    assert "- Click(box=(x1, y1)), or Click()" in describe_actions("computer")
    assert "- Swipe(amount=-5, axis='vertical')" in describe_actions("computer")
    assert "- Scroll(point=(x1, y1), direction='up/down/left/right')" in describe_actions("browser")
    assert "- LongPress(point=(x1, y1), duration=20)" in describe_actions("browser")
    assert "- Hotkey(keys=('ctrl', 'c'))" in describe_actions("browser")
    # venuskit extensions are accepted but not advertised
    assert "seconds" not in describe_actions("mobile") and "repeat" not in describe_actions("browser")


def test_describe_subset_keeps_order_and_refuses_unknown_names():
    text = describe_actions("mobile", only=["Finished", "Click"])
    assert [line for line in text.splitlines() if line.startswith("- ")] == [
        "- Click(point=(x1, y1))",
        "- Finished(content='')",
    ]
    with pytest.raises(ValueError, match="not calls of the mobile surface"):
        describe_actions("mobile", only=["Hover"])


def test_every_described_example_without_placeholders_parses():
    # signatures whose examples are literal (no x1/y1 placeholders) must parse as written
    for surface in GRAMMARS:
        for line in describe_actions(surface).splitlines():
            sig = line[2:].split(", or ")[0] if line.startswith("- ") else ""
            if sig and "x1" not in sig and "x2" not in sig and "up/down" not in sig:
                parse_response(f"<action>{sig}</action>", surface)
    assert CallUser(content="") == one("<action>CallUser(content='')</action>")
