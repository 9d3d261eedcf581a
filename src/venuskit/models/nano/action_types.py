"""The action types venus-nano chooses between, and how venuskit actions map onto them.

Each type is one venuskit action (`model.to_actions` turns a choice back into it); `action_type` is the one mapping
the other way (the features read the agent's history through it, training targets are built with it), and
`allowed_types` says which types a surface accepts (inference and the on-policy stages mask the same way).
"""

from __future__ import annotations

import torch

from venuskit.actions.types import (
    Action,
    Answer,
    CallUser,
    Click,
    DoubleClick,
    Finished,
    Hotkey,
    LongPress,
    PressEnter,
    Scroll,
    SelectOption,
    Swipe,
    Type,
)

TYPES = ("Click", "Type", "PressEnter", "SelectAll", "SelectOption", "Scroll", "ScrollUp", "Finished", "CallUser")
TYPE_INDEX = {t: i for i, t in enumerate(TYPES)}
POINTER_TYPES = frozenset({"Click"})
TEXT_TYPES = frozenset({"Type", "SelectOption", "Finished"})
SURFACES = ("browser", "mobile", "captcha", "grounding")
MOBILE_ONLY_OFF = frozenset({"SelectAll", "SelectOption"})  # the mobile surface has no Hotkey or SelectOption


def action_type(a: Action) -> str | None:
    """The network's type for a venuskit action, or None when venus-nano cannot express it."""
    if isinstance(a, (Click, DoubleClick, LongPress)):
        return "Click"
    if isinstance(a, Type):
        return "Type"
    if isinstance(a, PressEnter):
        return "PressEnter"
    if isinstance(a, Hotkey) and {k.lower() for k in a.keys} == {"ctrl", "a"}:
        return "SelectAll"
    if isinstance(a, SelectOption):
        return "SelectOption"
    if isinstance(a, Scroll):
        return "ScrollUp" if a.direction == "up" else ("Scroll" if a.direction == "down" else None)
    if isinstance(a, Swipe):
        return "Scroll" if a.end.y < a.start.y else "ScrollUp"  # finger up = content moves down the page
    if isinstance(a, (Finished, Answer)):
        return "Finished"
    if isinstance(a, CallUser):
        return "CallUser"
    return None


def allowed_types(surface: str) -> torch.Tensor:
    """(len(TYPES),) bool: the types `surface` accepts (a CAPTCHA is clicked and typed, a grounding request is
    one click)."""
    allowed = torch.ones(len(TYPES), dtype=torch.bool)
    if surface in ("mobile", "captcha"):
        for t in MOBILE_ONLY_OFF:
            allowed[TYPE_INDEX[t]] = False
    if surface in ("captcha", "grounding"):
        allowed[:] = False
        allowed[TYPE_INDEX["Click"]] = True
        if surface == "captcha":
            allowed[TYPE_INDEX["Type"]] = True
    return allowed
