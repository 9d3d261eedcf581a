"""The UI-Venus-2 history protocol (reference/ui-venus.md §2.1, §2.4, §7)."""

import base64

import pytest

from venuskit.actions.history import (
    CURRENT_LABEL,
    HISTORY_LABEL,
    Turn,
    build_messages,
    grounding_messages,
    normalize_response,
)

SYS = "**You are a GUI Agent.** ...\n### User Task\nDo it"


def png(i: int) -> bytes:
    # distinct byte strings stand in for screenshots; the protocol never decodes them
    return b"\x89PNG-fake-" + bytes([i])


def url(i: int) -> str:
    return "data:image/png;base64," + base64.b64encode(png(i)).decode()


def turns(n: int, **kw) -> list[Turn]:
    return [Turn(png=png(i), response=f"<think>t{i}</think>\n<action>Wait()</action>", **kw) for i in range(n)]


def test_mobile_protocol_keeps_last_n_img_and_empty_turns_for_evicted():
    msgs = build_messages(SYS, turns(4), png(9), n_img=2, surface="mobile")
    roles = [m["role"] for m in msgs]
    assert roles == ["system"] + ["user", "assistant"] * 4 + ["user"]
    assert msgs[0] == {"role": "system", "content": SYS}
    assert msgs[1]["content"] == "" and msgs[3]["content"] == ""  # turns 0, 1 evicted
    assert msgs[5]["content"] == [{"type": "text", "text": HISTORY_LABEL},
                                  {"type": "image_url", "image_url": {"url": url(2)}}]  # fmt: skip
    assert msgs[7]["content"][1]["image_url"]["url"] == url(3)
    assert msgs[-1]["content"] == [{"type": "text", "text": "Current Screenshot:\n"},
                                   {"type": "image_url", "image_url": {"url": url(9)}}]  # fmt: skip
    # every assistant response is replayed verbatim, evicted or not
    assert [m["content"] for m in msgs if m["role"] == "assistant"] == [t.response for t in turns(4)]


def test_n_img_zero_sends_only_the_current_screenshot():
    msgs = build_messages(SYS, turns(3), png(9), n_img=0, surface="computer")
    images = [p for m in msgs if isinstance(m["content"], list) for p in m["content"] if p["type"] == "image_url"]
    assert len(images) == 1 and images[0]["image_url"]["url"] == url(9)
    assert len(msgs) == 1 + 2 * 3 + 1


def test_first_turn_is_system_plus_current():
    msgs = build_messages(SYS, [], png(0), surface="mobile")
    assert [m["role"] for m in msgs] == ["system", "user"]
    assert msgs[1]["content"][0]["text"] == CURRENT_LABEL


def test_captcha_user_turn_is_just_the_image():
    msgs = build_messages(SYS, [], png(0), surface="captcha")
    assert msgs == [{"role": "system", "content": SYS},
                    {"role": "user", "content": [{"type": "image_url", "image_url": {"url": url(0)}}]}]  # fmt: skip


def test_turn_without_screenshot_is_an_empty_user_turn():
    t = [Turn(png=None, response="r0"), Turn(png=png(1), response="r1")]
    msgs = build_messages(SYS, t, png(9), n_img=2, surface="mobile")
    assert msgs[1]["content"] == ""
    assert msgs[3]["content"][1]["image_url"]["url"] == url(1)


def test_browser_has_no_labels_drops_old_turns_and_prepends_feedback_and_notes():
    t = turns(4)
    t[3] = Turn(png=png(3), response="r3", feedback="Current URL: http://x/", notes=("price 12",))
    msgs = build_messages(SYS, t, png(9), n_img=2, surface="browser",
                          feedback="Previous action execution failed.", notes=("price 12", "seat 3A"))  # fmt: skip
    assert [m["role"] for m in msgs] == ["system", "user", "assistant", "user", "assistant", "user"]
    assert msgs[1]["content"] == [{"type": "image_url", "image_url": {"url": url(2)}}]
    assert msgs[3]["content"] == [
        {"type": "text", "text": "Current URL: http://x/"},
        {"type": "text", "text": "Notes from earlier steps:\n- price 12"},
        {"type": "image_url", "image_url": {"url": url(3)}},
    ]
    last = msgs[-1]["content"]
    assert last[0]["text"] == "Previous action execution failed."
    assert last[1]["text"] == "Notes from earlier steps:\n- price 12\n- seat 3A"
    assert last[2]["image_url"]["url"] == url(9)
    texts = [p.get("text", "") for m in msgs[1:] if isinstance(m["content"], list) for p in m["content"]]
    assert not any("Screenshot" in s for s in texts)


def test_placeholder_variant_returns_images_in_order_and_list_contents():
    msgs, images = build_messages(SYS, turns(3), png(9), n_img=2, surface="mobile", inline_images=False)
    assert images == [png(1), png(2), png(9)]
    assert all(isinstance(m["content"], list) for m in msgs)
    assert msgs[1]["content"] == []  # evicted
    placeholders = [p for m in msgs for p in m["content"] if p["type"] == "image"]
    assert placeholders == [{"type": "image"}] * 3
    assert msgs[2]["content"] == [{"type": "text", "text": turns(3)[0].response}]
    inline = build_messages(SYS, turns(3), png(9), n_img=2, surface="mobile")
    assert len(msgs) == len(inline)


def test_bad_arguments_are_clear_errors():
    with pytest.raises(ValueError, match="n_img"):
        build_messages(SYS, [], png(0), n_img=-1, surface="mobile")
    with pytest.raises(ValueError, match="Unknown surface"):
        build_messages(SYS, [], png(0), surface="android")


def test_grounding_messages_are_user_only_image_first():
    msgs = grounding_messages("the OK button.", png(1))
    assert len(msgs) == 1 and msgs[0]["role"] == "user"
    image, text = msgs[0]["content"]
    assert image["image_url"]["url"] == url(1)
    assert "\nthe OK button. \n" in text["text"]


@pytest.mark.parametrize(
    "raw,reasoning,expected",
    [
        ("<think>go</think>\n<action>Click(point=(1, 2))</action>", None, "<think>go</think>\n<action>Click(point=(1, 2))</action>"),
        ("go on</think><action> Wait() </action>", None, "<think>go on</think>\n<action>Wait()</action>"),
        ("<action>Wait()</action>", "from channel", "<think>from channel</think>\n<action>Wait()</action>"),
        ("<action>Wait()</action>", None, "<think></think>\n<action>Wait()</action>"),
    ],
)  # fmt: skip
def test_normalize_response(raw, reasoning, expected):
    assert normalize_response(raw, reasoning) == expected


def test_normalize_response_refuses_zero_or_two_actions():
    with pytest.raises(ValueError, match="(?i)no <action>"):
        normalize_response("<think>hm</think> Click(point=(1,2))")
    with pytest.raises(ValueError, match="exactly one"):
        normalize_response("<action>Wait()</action><action>Wait()</action>")
