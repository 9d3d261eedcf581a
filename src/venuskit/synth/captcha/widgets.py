"""Typed validation of what a page posts back: `{"state": {...}, "log": [...], "elapsed_ms": n}`.

Each widget kind has a fixed state schema; a post with a missing or unknown key, a wrong type, a
non-finite number or an oversized list is refused with a reason (and the server counts it as a fail).
"""

from __future__ import annotations

import math
from typing import Any

from venuskit.synth.captcha.spec import Widget

MAX_BODY_BYTES = 64 * 1024
MAX_LOG = 600
MAX_ABS = 100_000.0
LOG_TYPES = frozenset({"down", "up", "move", "tap", "dbl", "key", "op", "cancel"})


class SubmissionError(ValueError):
    """A malformed answer post; the message says what is wrong."""


# kind -> {key: (type, limit)}; types: str, num, int, bool, ints, points, segs, pair
STATE_SCHEMAS: dict[str, dict[str, tuple[str, int]]] = {
    "text": {"text": ("str", 200)},
    "click": {"points": ("points", 64), "dbl": ("points", 32)},
    "grid": {"selected": ("ints", 100)},
    "slider": {"value": ("num", 0)},
    "drag": {"pieces": ("points", 16)},
    "swap": {"order": ("ints", 100)},
    "line": {"segments": ("segs", 64)},
    "arrows": {"value": ("int", 0), "pos": ("pair", 0)},
    "hold": {"held_ms": ("num", 0), "presses": ("int", 0)},
}


def _num(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) and abs(v) <= MAX_ABS


def _int(v: Any) -> bool:
    return isinstance(v, int) and not isinstance(v, bool) and abs(v) <= MAX_ABS


def _nums(v: Any, n: int) -> bool:
    return isinstance(v, list) and len(v) == n and all(_num(x) for x in v)


def _valid(kind: str, limit: int, v: Any) -> bool:
    if kind == "str":
        return isinstance(v, str) and len(v) <= limit
    if kind == "num":
        return _num(v)
    if kind == "int":
        return _int(v)
    if kind == "bool":
        return isinstance(v, bool)
    if kind == "pair":
        return isinstance(v, list) and len(v) == 2 and all(_int(x) for x in v)
    if not isinstance(v, list) or len(v) > limit:
        return False
    if kind == "ints":
        return all(_int(x) for x in v)
    width = {"points": 2, "segs": 4}[kind]
    return all(_nums(x, width) for x in v)


def schema_for(widget: Widget) -> dict[str, tuple[str, int]]:
    schema = dict(STATE_SCHEMAS[widget.kind])
    if widget.robot:
        schema["robot"] = ("bool", 0)
    return schema


def validate_state(widget: Widget, state: Any) -> dict[str, Any]:
    if not isinstance(state, dict):
        raise SubmissionError(f"'state' must be a JSON object, got {type(state).__name__}.")
    schema = schema_for(widget)
    missing, unknown = set(schema) - set(state), set(state) - set(schema)
    if missing or unknown:
        raise SubmissionError(
            f"A {widget.kind} state needs exactly the keys {sorted(schema)}; "
            f"missing {sorted(missing)}, unknown {sorted(unknown)[:5]}."
        )
    for key, (kind, limit) in schema.items():
        if not _valid(kind, limit, state[key]):
            raise SubmissionError(f"state.{key} must be {kind}" + (f" (at most {limit})" if limit else "") + ".")
    return state


def validate_log(log: Any) -> list[dict[str, Any]]:
    if not isinstance(log, list) or len(log) > MAX_LOG:
        raise SubmissionError(f"'log' must be a list of at most {MAX_LOG} events.")
    for i, ev in enumerate(log):
        ok = (
            isinstance(ev, dict)
            and set(ev) <= {"t", "type", "part", "x", "y"}
            and ev.get("type") in LOG_TYPES
            and _num(ev.get("t"))
            and isinstance(ev.get("part", ""), str)
            and len(ev.get("part", "")) <= 24
            and all(_num(ev[k]) for k in ("x", "y") if k in ev)
        )
        if not ok:
            raise SubmissionError(f"log[{i}] is not a valid event ({{t, type, part, x, y}} with a known type).")
    return log


def validate_submission(widget: Widget, payload: Any) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """(state, log) from a decoded JSON post, or SubmissionError with the reason."""
    if not isinstance(payload, dict):
        raise SubmissionError("The answer must be a JSON object with 'state' and 'log'.")
    extra = set(payload) - {"state", "log", "elapsed_ms"}
    if extra:
        raise SubmissionError(f"Unknown top-level keys in the answer: {sorted(extra)[:5]}.")
    if "elapsed_ms" in payload and not _num(payload["elapsed_ms"]):
        raise SubmissionError("'elapsed_ms' must be a finite number.")
    return validate_state(widget, payload.get("state")), validate_log(payload.get("log", []))
