"""UI-Venus-2 system prompts, grounding prompt and feedback texts (reference/ui-venus.md §2.1-2.5)."""

import re

import pytest

from venuskit.actions import prompts
from venuskit.actions.prompts import (
    CAPTCHA_TASK,
    grounding_prompt,
    notes_feedback,
    step_feedback,
    system_prompt,
)

ACTIONS = "- Click(point=(x1, y1))\n> Tap at the point.\n- Finished(content='')\n> Done."
BOX_ACTIONS = "- Click(box=(x1, y1))\n> Tap at the point.\n- Drag(start=(x1, y1), end=(x2, y2))\n> Drag."
OUTPUT_FORMAT = "### Output Format\n<think> your thinking process </think>\n<action> the next action </action>"


@pytest.mark.parametrize("surface", ["mobile", "browser", "computer", "captcha"])
def test_every_surface_has_header_actions_format_and_task_last(surface):
    goal = "Open the settings and turn on dark mode"
    p = system_prompt(surface, goal, current_date="2026-05-01", sudo_password="pw", action_text=ACTIONS)
    header = "**You are a GUI Browser Agent.**" if surface == "browser" else "**You are a GUI Agent.**"
    assert p.startswith(header)
    assert "### Available Actions" in p and ACTIONS in p
    assert re.search(r"<think>[^<]*</think>\n<action>[^<]*</action>", p)
    expected_task = CAPTCHA_TASK if surface == "captcha" else goal
    if surface == "captcha":
        p = system_prompt(surface, "", action_text=ACTIONS)
    assert p.endswith(f"### User Task\n{expected_task}")
    assert "{" not in p.replace(ACTIONS, ""), "an unfilled placeholder leaked into the prompt"


@pytest.mark.parametrize(
    "surface,calls",
    [
        ("mobile", ["- Click(point=(x1, y1))", "- Swipe(start=(x1, y1), end=(x2, y2))", "- LaunchApp(app='')"]),
        ("browser", ["- Scroll(point=(x1, y1), direction=", "- TakeNote(content='')", "- GetUrl()"]),
        ("computer", ["- Click(box=(x1, y1))", "- Sequence(actions=", "- KeyDown(keys="]),
        ("captcha", ["- Click(box=(x1, y1))", "- Drag(start=(x1, y1), end=(x2, y2))"]),
    ],
)
def test_default_action_list_comes_from_describe_actions(surface, calls):
    from venuskit.actions.describe import describe_actions

    p = system_prompt(surface, "goal", current_date="2026-05-01")
    assert describe_actions(surface) in p
    assert "top-left corner (0, 0) to the bottom-right corner (999, 999)" in p
    for call in calls:
        assert call in p
    section = p.split("### Available Actions")[1].split("### Instructions")[0]
    assert ("point=" in section) == (surface in ("mobile", "browser"))


def test_browser_prompt_has_date_notes_and_no_password():
    p = system_prompt("browser", "Find the cheapest flight", current_date="2026-05-01", action_text=ACTIONS)
    assert "Today is 2026-05-01." in p
    assert "TakeNote" in p and "password" not in p


def test_browser_prompt_defaults_to_today():
    import datetime

    p = system_prompt("browser", "x", action_text=ACTIONS)
    assert f"Today is {datetime.date.today().isoformat()}." in p


def test_computer_prompt_password_line_only_when_given():
    with_pw = system_prompt("computer", "Install vim", sudo_password="s3cret", action_text=BOX_ACTIONS)
    assert "The password of the computer is s3cret." in with_pw.splitlines()[0]
    without = system_prompt("computer", "Install vim", action_text=BOX_ACTIONS)
    assert "password" not in without
    assert "Today is" not in with_pw


def test_captcha_is_mobile_prompt_plus_extension_with_one_output_format():
    p = system_prompt("captcha", CAPTCHA_TASK, action_text=BOX_ACTIONS)
    mobile = system_prompt("mobile", "ignored", action_text=BOX_ACTIONS)
    mobile_body = mobile.split("\n### Output Format")[0]
    assert p.startswith(mobile_body)
    assert "### CAPTCHA-Specific Extension" in p
    assert p.count("### Output Format") == 1 and p.count("### User Task") == 1
    assert "separated by commas" in p and "submit" in p
    # the examples are one <action> with a comma-separated sequence in box= syntax
    assert "<action>Click(box=(371,918)),Type(content='12'),Click(box=(530,918)),Type(content='5')</action>" in p
    assert p.index("### CAPTCHA-Specific Extension") < p.index("### Output Format")


def test_goal_text_is_not_expanded_as_a_template():
    goal = "Type {actions} and {goal} literally"
    p = system_prompt("mobile", goal, action_text=ACTIONS)
    assert p.endswith("### User Task\n" + goal)
    assert p.count(ACTIONS) == 1


def test_unknown_surface_is_a_clear_error():
    with pytest.raises(ValueError, match="Unknown surface"):
        system_prompt("tv", "x", action_text=ACTIONS)


def test_missing_template_value_is_a_clear_error():
    with pytest.raises(KeyError, match="needs a value for {goal}"):
        prompts.fill("a {goal}", {})


def test_grounding_prompt_strips_trailing_period_and_asks_for_point():
    p = grounding_prompt("the blue Submit button.")
    assert "instruction: \nthe blue Submit button. \n\n" in p
    assert "in the format [x,y]" in p and "[-1,-1]" in p
    assert grounding_prompt("Save") == grounding_prompt("Save.")


def test_step_feedback_joins_error_url_options_and_is_none_when_empty():
    assert step_feedback() is None
    fb = step_feedback(error="Click needs point=(x, y).", response="<action>Click()</action>", url="http://a/b")
    assert fb.startswith("Previous action execution failed.\nAction: <action>Click()</action>\nError: Click needs")
    assert fb.endswith("Current URL: http://a/b")
    opts = step_feedback(options=[{"index": 0, "text": "Red"}, {"index": 1, "text": "Blue"}])
    assert opts == "Available options for the select element:\n0. Red\n1. Blue"


def test_notes_feedback():
    assert notes_feedback([]) is None
    assert notes_feedback(["price 12", " ", "seat 3A"]) == "Notes from earlier steps:\n- price 12\n- seat 3A"


def test_templates_are_data_files():
    for name in ("mobile", "browser", "computer", "captcha"):
        assert prompts.load_template(name).strip()
    with pytest.raises(ValueError, match="no prompt template"):
        prompts.load_template("nope")
