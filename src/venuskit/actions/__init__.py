"""The one action vocabulary of venuskit, its coordinate frames and the UI-Venus-2 call grammar.

    from venuskit.actions import parse_response, format_response, Click, Point
    r = parse_response("<think>open it</think>\\n<action>Click(point=(500, 300))</action>", "mobile")
    r.actions  # [Click(point=Point(x=0.5, y=0.3))]

Other model dialects (UI-TARS, GUI-R1, pyautogui, UI-Venus-1.5) live in `venuskit.actions.dialects`.
"""

from venuskit.actions.describe import describe_actions
from venuskit.actions.grammar import (
    ActionParseError,
    ActionSpan,
    Response,
    format_call,
    format_response,
    parse_response,
)
from venuskit.actions.surfaces import SURFACES, check_surface
from venuskit.actions.types import (
    ACTION_TYPES,
    Action,
    ActionError,
    Answer,
    CallUser,
    Click,
    DoubleClick,
    Drag,
    Finished,
    GetScreenshot,
    GetUrl,
    Hotkey,
    Hover,
    KeyDown,
    KeyUp,
    Launch,
    LaunchApp,
    LongPress,
    MiddleClick,
    MouseDown,
    MouseUp,
    Point,
    PressBack,
    PressEnter,
    PressHome,
    PressRecent,
    RightClick,
    Scroll,
    SelectOption,
    Sequence,
    Swipe,
    TakeNote,
    TripleClick,
    Type,
    Wait,
    action_from_dict,
)

__all__ = [
    "ACTION_TYPES", "Action", "ActionError", "ActionParseError", "ActionSpan", "Answer", "CallUser", "Click",
    "DoubleClick", "Drag", "Finished", "GetScreenshot", "GetUrl", "Hotkey", "Hover", "KeyDown", "KeyUp", "Launch",
    "LaunchApp", "LongPress", "MiddleClick", "MouseDown", "MouseUp", "Point", "PressBack", "PressEnter",
    "PressHome", "PressRecent", "Response", "RightClick", "SURFACES", "Scroll", "SelectOption", "Sequence",
    "Swipe", "TakeNote", "TripleClick", "Type", "Wait", "action_from_dict", "check_surface", "describe_actions",
    "format_call", "format_response", "parse_response",
]  # fmt: skip
