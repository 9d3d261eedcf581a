"""UI-Venus-2 prompts: system prompts per surface, the grounding prompt and the feedback texts.

The prompt wording is data (`prompt_templates/*.txt`); this module only fills placeholders. The action
list comes from `venuskit.actions.describe.describe_actions(surface)`, so the prompt and the validator
share one description of each action. Layout follows reference/ui-venus.md §2.1-2.5: a bold header,
`### Available Actions`, `### Instructions`, `### Output Format` and the task last, under `### User Task`.
"""

from __future__ import annotations

import datetime as _dt
import re
from collections.abc import Iterable
from functools import cache
from pathlib import Path
from typing import Any

from venuskit.actions.surfaces import get_surface

CAPTCHA_TASK = "Help me pass the CAPTCHA."
_PLACEHOLDER = re.compile(r"\{([a-z_]+)\}")
_OUTPUT_FORMAT = "\n### Output Format"
_TEMPLATES = Path(__file__).with_name("prompt_templates")  # shipped as package data (pyproject: **/*.txt)

# Grounding is a user-only prompt that the model was trained on; its wording is kept as the model's
# input format (reference §2.5). The instruction's trailing '.' is stripped because the template adds one.
GROUNDING_TEMPLATE = (
    "Output the center point of the position corresponding to the following instruction: \n"
    "{instruction}. \n\n"
    "The output should just be the coordinates of a point, in the format [x,y]. "
    "Additionally, if the task is infeasible (e.g., the task is not related to the image), "
    "the output should be [-1,-1]."
)


def load_template(name: str) -> str:
    """The text of `prompt_templates/<name>.txt` (without its final newline)."""
    return read_template(_TEMPLATES, name)


@cache
def read_template(folder: Path, name: str) -> str:
    """The text of `<folder>/<name>.txt` without its final newline: every package's prompts-as-data loader."""
    path = folder / f"{name}.txt"
    if not path.is_file():
        where = "/".join(folder.parts[-3:])
        raise ValueError(f"There is no prompt template named {name!r} in {where}.")
    return path.read_text(encoding="utf-8").rstrip("\n")


def fill(template: str, values: dict[str, str]) -> str:
    """Replace `{name}` placeholders in one pass, so text inside a value (a goal with braces) is never
    expanded again. Every placeholder in the template must have a value."""

    def sub(m: re.Match[str]) -> str:
        if m.group(1) not in values:
            raise KeyError(f"The prompt template needs a value for {{{m.group(1)}}}.")
        return values[m.group(1)]

    return _PLACEHOLDER.sub(sub, template)


def _describe(surface: str) -> str:
    # Imported here: describe.py is the one description of the actions and may import grammar code
    # that is heavier than this module needs when a caller passes action_text itself.
    from venuskit.actions.describe import describe_actions

    return describe_actions(surface).rstrip("\n")


def system_prompt(
    surface: str,
    goal: str,
    *,
    current_date: str | None = None,
    sudo_password: str | None = None,
    action_text: str | None = None,
) -> str:
    """The UI-Venus-2 system prompt for `surface` (mobile, browser, computer, captcha) with `goal` last.

    current_date: browser only, e.g. "2026-05-01" (default: today). sudo_password: computer only; the
    password sentence is left out when it is None. action_text: the action list to show; default
    `describe_actions(surface)`. For captcha an empty goal means CAPTCHA_TASK.
    """
    get_surface(surface)  # a clear error for an unknown surface
    actions = action_text.rstrip("\n") if action_text is not None else _describe(surface)
    values = {"actions": actions, "goal": goal}
    if surface == "browser":
        values["current_date"] = current_date or _dt.date.today().isoformat()
    elif surface == "computer":
        values["password_line"] = f" The password of the computer is {sudo_password}." if sudo_password else ""
    elif surface == "captcha":
        values["goal"] = goal or CAPTCHA_TASK
        values["mobile_body"] = _mobile_body(actions)
    return fill(load_template(surface), values)


def _mobile_body(actions: str) -> str:
    """The mobile prompt up to (not including) its output format: the base of the CAPTCHA prompt."""
    mobile = fill(load_template("mobile"), {"actions": actions, "goal": ""})
    body, sep, _ = mobile.partition(_OUTPUT_FORMAT)
    assert sep, "mobile.txt must contain a '### Output Format' section"
    return body.rstrip("\n")


def grounding_prompt(instruction: str) -> str:
    """The user text of a UI-Venus-2 grounding request (the image goes before it in the message)."""
    inst = instruction.strip()
    inst = inst.removesuffix(".")
    return fill(GROUNDING_TEMPLATE, {"instruction": inst})


# ---- feedback texts: what the harness tells the model at the start of the next user message -------


def action_error_feedback(response: str, error: str) -> str:
    """The previous action could not be parsed or run; the model sees why and picks again."""
    return (
        "Previous action execution failed.\n"
        f"Action: {response.strip()}\n"
        f"Error: {error.strip()}\n"
        "The screenshot below shows the page after the failure. Inspect it, then retry or choose another action."
    )


def url_feedback(url: str) -> str:
    return f"Current URL: {url}"


def select_options_feedback(options: Iterable[Any]) -> str:
    """Options of the native <select> just clicked, for SelectOption(index=...)."""
    lines = []
    for i, opt in enumerate(options):
        text = opt.get("text", opt) if isinstance(opt, dict) else opt
        index = opt.get("index", i) if isinstance(opt, dict) else i
        lines.append(f"{index}. {text}")
    return "Available options for the select element:\n" + "\n".join(lines)


def notes_feedback(notes: Iterable[str]) -> str | None:
    """Notes from TakeNote, re-shown in every later user message (browser)."""
    items = [n.strip() for n in notes if n and n.strip()]
    return "Notes from earlier steps:\n- " + "\n- ".join(items) if items else None


def step_feedback(
    *,
    error: str | None = None,
    response: str | None = None,
    url: str | None = None,
    options: Iterable[Any] | None = None,
    text: str | None = None,
) -> str | None:
    """Join the feedback of one finished step into the text that opens the next user message,
    or None when there is nothing to say."""
    parts = []
    if error:
        parts.append(action_error_feedback(response or "", error))
    if url:
        parts.append(url_feedback(url))
    if options:
        parts.append(select_options_feedback(options))
    if text:
        parts.append(text.strip())
    return "\n\n".join(parts) if parts else None
