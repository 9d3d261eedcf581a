"""UI-Venus-1.5: `<think>…</think><action>Click(box=(x, y))</action><conclusion>…</conclusion>`.

reference/ui-venus.md §2.6. Points are `box=` (`point=` also read) on a 0-1000 grid divided by 1000;
1000 itself is accepted because 1.5 calls its space "0-1000". One grammar holds the union of the
mobile and web prompts: Click, Drag, Scroll, Type, Launch, Wait, Finished, CallUser, LongPress,
PressBack/Home/Enter/Recent, plus the web Hover, DoubleClick and Hotkey (at most 3 keys).

Two calls are overloaded and map to different venuskit actions:
- `Scroll(start=, end=[, direction=])` is a touch Swipe from start to end (direction is redundant and
  ignored); `Scroll(direction=)` alone is a wheel Scroll (web). Writing a Scroll drops its amount.
- `Launch(app=)` is LaunchApp; `Launch(url=)` is Launch.
"""

from __future__ import annotations

from typing import Any

from venuskit.actions.grammar import (
    ActionParseError,
    CallSpec,
    Grammar,
    Param,
    Response,
    check_thought,
    format_call,
    parse_action_block,
    split_envelope,
)
from venuskit.actions.types import (
    Action,
    ActionError,
    CallUser,
    Click,
    DoubleClick,
    Drag,
    Finished,
    Hotkey,
    Hover,
    Launch,
    LaunchApp,
    LongPress,
    PressBack,
    PressEnter,
    PressHome,
    PressRecent,
    Scroll,
    Swipe,
    Type,
    Wait,
)


def _build_scroll(v: dict[str, Any]) -> Action:
    if "start" in v or "end" in v:
        if "start" not in v or "end" not in v:
            raise ActionError("Scroll needs both start=(x1, y1) and end=(x2, y2), or only direction=.")
        return Swipe(start=v["start"], end=v["end"])
    if "direction" not in v:
        raise ActionError("Scroll needs start=(x1, y1) and end=(x2, y2), or direction='down/up/right/left'.")
    return Scroll(direction=v["direction"])


def _unbuild_scroll(a: Action) -> dict[str, Any]:
    if isinstance(a, Swipe):
        return {"start": a.start, "end": a.end}
    assert isinstance(a, Scroll)
    if a.point is not None:
        raise ActionError("UI-Venus-1.5 cannot scroll at a point; use a Swipe(start, end) or a Scroll without point.")
    return {"direction": a.direction}


def _build_launch(v: dict[str, Any]) -> Action:
    if ("app" in v) == ("url" in v):
        raise ActionError("Launch takes exactly one of app='' or url=''.")
    return LaunchApp(app=v["app"]) if "app" in v else Launch(url=v["url"])


def _unbuild_launch(a: Action) -> dict[str, Any]:
    return {"app": a.app} if isinstance(a, LaunchApp) else {"url": a.url}  # type: ignore[attr-defined]


_BOX = Param("point", "point")
_CONTENT = Param("content", "text", required=False, default="", always=True)


def _calls() -> dict[str, CallSpec]:
    specs = [
        CallSpec("Click", (Click,), (_BOX,)),
        CallSpec("Drag", (Drag,), (Param("start", "point"), Param("end", "point"))),
        CallSpec("Scroll", (Swipe, Scroll), (Param("start", "point", required=False),
                 Param("end", "point", required=False), Param("direction", "direction", required=False)),
                 build=_build_scroll, unbuild=_unbuild_scroll),
        CallSpec("Type", (Type,), (Param("content", "text"),)),
        CallSpec("Launch", (LaunchApp, Launch), (Param("app", "text", required=False),
                 Param("url", "text", required=False)), build=_build_launch, unbuild=_unbuild_launch),
        CallSpec("Wait", (Wait,), (Param("seconds", "number", required=False),)),
        CallSpec("Finished", (Finished,), (_CONTENT,)),
        CallSpec("CallUser", (CallUser,), (_CONTENT,)),
        CallSpec("LongPress", (LongPress,), (_BOX, Param("duration", "number", required=False))),
        CallSpec("PressBack", (PressBack,)),
        CallSpec("PressHome", (PressHome,)),
        CallSpec("PressEnter", (PressEnter,)),
        CallSpec("PressRecent", (PressRecent,)),
        CallSpec("Hover", (Hover,), (_BOX,)),
        CallSpec("DoubleClick", (DoubleClick,), (_BOX,)),
        CallSpec("Hotkey", (Hotkey,), (Param("keys", "keys", max_items=3),)),
    ]  # fmt: skip
    return {s.call: s for s in specs}


GRAMMAR = Grammar("UI-Venus-1.5", _calls(), point_kw="box", grid=1000, clamp=False, grid_limit=1001)


def parse(text: str, reasoning_content: str | None = None) -> Response:
    """Parse one UI-Venus-1.5 response; `.conclusion` holds the `<conclusion>` text (None if absent)."""
    env = split_envelope(text, reasoning_content, trailer="conclusion")
    actions, spans = parse_action_block(env.body, env.body_start, GRAMMAR)
    return Response(thought=env.thought, actions=actions, raw=text, action_spans=spans, conclusion=env.conclusion)


def format_action(action: Action) -> str:
    """The UI-Venus-1.5 call for `action`, e.g. `Click(box=(500, 300))`."""
    return format_call(action, GRAMMAR)


def format_response(thought: str, action: Action, conclusion: str = "") -> str:
    """`<think>…</think><action>…</action><conclusion>…</conclusion>` as UI-Venus-1.5 writes it."""
    check_thought(thought)
    check_thought(conclusion)
    return f"<think>{thought}</think><action>{format_action(action)}</action><conclusion>{conclusion}</conclusion>"


__all__ = ["GRAMMAR", "ActionParseError", "format_action", "format_response", "parse"]
