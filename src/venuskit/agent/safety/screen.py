"""The gate on the computer surface: X windows have no DOM, so the gate reads what is on the screen.

What an action activates is found as in the browser (`gate.activations`: every press and release, every
activating key), then judged from the screenshot the model saw and the X server's read-back in its
observation: the label under the pointer (the nano reader's text line there: "Move to Trash", "Don't Save",
"Replace"), the focused window (its title and app), the text on the screen (a dialog's question, for Enter on
its default button), and, in the terminal, the command Enter runs (what is typed, after the prompt's text).
Declared operations for the desktop apps (`envs/desktop/operations.toml`: delete or overwrite a file, quit
without saving, send) name the kind; the approvals are the browser gate's (`SafetyGate`): the same approvers,
allow-lists, records and failing closed.

A control drawn without text (an icon-only button) has no label to read: a declared key or the dialog it opens
is then what the gate sees.
"""

from __future__ import annotations

import re
import tomllib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Any

from venuskit.actions.keys import activation
from venuskit.actions.types import Action, Hotkey, KeyDown, Launch, Type
from venuskit.agent.hooks import StepContext
from venuskit.agent.safety.approve import Approver
from venuskit.agent.safety.gate import SafetyGate, activations
from venuskit.agent.safety.ops import OperationsFileError
from venuskit.agent.safety.rules import NOT_CONSEQUENTIAL, Finding

LABEL_REACH = (12, 8)  # pixels around a text line that still count as its control (a button's padding)
NEAR_LINE = 36  # a point this close to a line (on its row) takes that line as its label: an icon beside its text
_FIELDS = ("kind", "label", "keys", "app", "window", "screen", "command", "summary")
_PROMPT = re.compile(r"[$#>]\s(.*)$")


@dataclass(frozen=True)
class ScreenOp:
    """A declared desktop operation: every pattern it gives must match (see operations.toml)."""

    kind: str
    summary: str
    label: re.Pattern[str] | None = None
    keys: frozenset[str] = frozenset()
    app: re.Pattern[str] | None = None
    window: re.Pattern[str] | None = None
    screen: re.Pattern[str] | None = None
    command: re.Pattern[str] | None = None

    def matches(self, seen: Seen) -> bool:
        if self.label is not None and not (seen.label and self.label.search(seen.label)):
            return False
        if self.keys and seen.keys not in self.keys:
            return False
        if self.command is not None and not (seen.command and self.command.search(seen.command)):
            return False
        if self.app is not None and not self.app.search(seen.app):
            return False
        if self.window is not None and not self.window.search(seen.window):
            return False
        return self.screen is None or bool(self.screen.search(seen.screen_text()))

    def describe(self, seen: Seen) -> str:
        values = {"label": seen.label, "window": seen.window or seen.app, "command": seen.command, "keys": seen.keys}
        return re.sub(r"\{(\w+)\}", lambda m: str(values.get(m.group(1), "?"))[:80], self.summary or self.kind)


@dataclass
class Seen:
    """What one activation lands on, as read from the screen."""

    via: str  # point | keys | enter
    window: str = ""
    app: str = ""
    label: str = ""  # the text under the pointer
    keys: str = ""  # the canonical combo, "+"-joined
    command: str = ""  # the terminal command Enter runs
    point: tuple[int, int] | None = None
    lines: tuple[str, ...] = ()

    def screen_text(self) -> str:
        return "\n".join(self.lines)

    def record(self) -> dict[str, Any]:
        out = {"via": self.via, "window": self.window, "app": self.app, "label": self.label, "keys": self.keys,
               "command": self.command}  # fmt: skip
        if self.point is not None:
            out["point"] = list(self.point)
        return {k: v for k, v in out.items() if v}


@dataclass(frozen=True)
class ScreenOperations:
    ops: tuple[ScreenOp, ...] = ()

    def match(self, seen: Seen) -> ScreenOp | None:
        return next((op for op in self.ops if op.matches(seen)), None)

    @property
    def kinds(self) -> tuple[str, ...]:
        return tuple(dict.fromkeys(op.kind for op in self.ops))


def load_screen_operations(path: Path | str) -> ScreenOperations:
    """Read a desktop declarations file ([[op]] tables). Raises OperationsFileError naming what is wrong."""
    path = Path(path)
    try:
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise OperationsFileError(f"{path}: cannot be read as TOML ({e}).") from e
    raw = doc.get("op")
    if not isinstance(raw, list) or not raw or set(doc) - {"op"}:
        raise OperationsFileError(f"{path}: declare each operation as an [[op]] table (and nothing else).")
    return ScreenOperations(tuple(_screen_op(r, f"{path}: op[{i}]") for i, r in enumerate(raw)))


def _screen_op(raw: Any, where: str) -> ScreenOp:
    if not isinstance(raw, dict) or not isinstance(raw.get("kind"), str):
        raise OperationsFileError(f"{where}: must be a table with a kind.")
    unknown = set(raw) - set(_FIELDS)
    if unknown:
        raise OperationsFileError(f"{where}: unknown field {sorted(unknown)[0]!r}; an op has {', '.join(_FIELDS)}.")
    if not any(k in raw for k in ("label", "keys", "command")):
        raise OperationsFileError(f"{where}: needs a label, keys or a command to match an action by.")
    patterns = {}
    for name in ("label", "app", "window", "screen", "command"):
        if name in raw:
            try:
                patterns[name] = re.compile(str(raw[name]))
            except re.error as e:
                raise OperationsFileError(f"{where}.{name}: not a valid regular expression ({e}).") from e
    keys = raw.get("keys", [])
    if not isinstance(keys, list) or not all(isinstance(k, str) for k in keys):
        raise OperationsFileError(f"{where}.keys: must be a list of combos like \"shift+delete\".")
    return ScreenOp(raw["kind"], str(raw.get("summary", "")), keys=frozenset(_combo(k.split("+")) for k in keys),
                    **patterns)  # fmt: skip


def desktop_operations() -> ScreenOperations:
    """The desktop apps' declared operations (shipped with the desktop env)."""
    return load_screen_operations(Path(str(resources.files("venuskit.envs.desktop").joinpath("operations.toml"))))


def _combo(keys: Iterable[str]) -> str:
    """A combo as the ops name it: canonical key names, lower-cased ('Delete' and 'delete' are one key)."""
    from venuskit.actions.keys import canonical

    return "+".join(canonical(k).lower() for k in keys)


def read_lines(png: bytes) -> list[tuple[tuple[int, int, int, int], str]]:
    """The text lines of a screenshot with their pixel boxes (the nano reader, shared with venus-nano and SGV)."""
    from venuskit.models.nano.reader import default_reader

    return [(tuple(line.box), line.text) for line in default_reader().read(png).lines if line.text]


def label_at(lines: list[tuple[tuple[int, int, int, int], str]], x: int, y: int) -> str:
    """The text of the control under (x, y): the line whose box (grown by a button's padding) holds the point, else
    the nearest line on the same row within NEAR_LINE pixels; "" when nothing is written there."""
    dx, dy = LABEL_REACH
    inside = [(b, t) for b, t in lines if b[0] - dx <= x <= b[2] + dx and b[1] - dy <= y <= b[3] + dy]
    if inside:
        return min(inside, key=lambda bt: (bt[0][2] - bt[0][0]) * (bt[0][3] - bt[0][1]))[1]
    row = [(min(abs(x - b[0]), abs(x - b[2])), t) for b, t in lines if b[1] - dy <= y <= b[3] + dy]
    near = [(d, t) for d, t in row if d <= NEAR_LINE]
    return min(near)[1] if near else ""


class ScreenGate(SafetyGate):
    """The safety gate of the computer surface: `SafetyGate`'s approvals over what the screen shows."""

    def __init__(self, *, approver: Approver | None = None, ops: ScreenOperations | None = None,
                 reader: Callable[[bytes], list[tuple[tuple[int, int, int, int], str]]] | None = None,
                 enforce: bool = True, scrub: Callable[[Any], Any] | None = None) -> None:  # fmt: skip
        super().__init__(None, approver=approver, enforce=enforce, scrub=scrub)
        self.screen_ops = ops if ops is not None else desktop_operations()
        self.read = reader or read_lines

    def _classify_one(self, action: Action, ctx: StepContext, first: bool) -> Finding:
        if isinstance(action, Launch):
            return NOT_CONSEQUENTIAL
        seen = self._seen(action, ctx)
        if not seen:
            return NOT_CONSEQUENTIAL
        if not first:
            return Finding(True, "unknown", f"{action.name} runs later in a Sequence, on a screen not yet seen",
                           "fail-closed", f"run {action.name} inside a Sequence")  # fmt: skip
        findings = [self._judge(s, action) for s in seen]
        return next((f for f in findings if f.consequential), findings[0])

    def _judge(self, seen: Seen | Finding, action: Action) -> Finding:
        if isinstance(seen, Finding):
            return seen
        op = self.screen_ops.match(seen)
        if op is None:
            return Finding(False, target=seen.record())
        summary = op.describe(seen)
        fields = {k: v for k, v in (("label", seen.label), ("window", seen.window), ("command", seen.command)) if v}
        return Finding(True, op.kind, f"{action.name} {_how(seen)} is a declared {op.kind} operation", "declared",
                       summary, fields, seen.record())  # fmt: skip

    def _seen(self, action: Action, ctx: StepContext) -> list[Seen | Finding]:
        """What the action activates, read from the screen; a Finding where the gate cannot tell (fail closed)."""
        obs = ctx.observation
        base = {"window": str(obs.info.get("focus") or obs.title or ""), "app": str(obs.info.get("focus_app") or "")}
        kind = activation(action.keys) if isinstance(action, (Hotkey, KeyDown)) else None
        if isinstance(action, (Hotkey, KeyDown)) and (kind is None or kind.startswith("accesskey:")):
            combo = _combo(action.keys)  # a shortcut: judged by the combo (delete, shift+delete, alt+y)
            if not any(combo in op.keys for op in self.screen_ops.ops):
                return []
            lines = self.read(obs.png) if any(op.screen for op in self.screen_ops.ops if combo in op.keys) else []
            return [Seen("keys", keys=combo, lines=tuple(t for _, t in lines), **base)]
        out: list[Seen | Finding] = []
        for what in activations(action):
            if what.via == "point" or (what.via == "unknown" and "cursor" in what.why and obs.info.get("pointer")):
                out.append(self._at_point(what.point, obs, base))
            elif what.via == "focus" and what.key in ("enter", "space"):
                if not any(isinstance(s, Seen) and s.via == "enter" for s in out):  # a typed newline and space: once
                    out.append(self._enter(action, obs, base, what.key))
            elif what.via == "unknown":
                out.append(Finding(True, "unknown", what.why, "fail-closed", f"run {action.name}"))
        return out  # an access key or a chosen option: menus and lists here, not declared operations

    def _at_point(self, point: tuple[float, float] | None, obs: Any, base: dict[str, str]) -> Seen:
        if point is None:  # at the cursor: where the X server has it (the observation's read-back)
            x, y = (int(v) for v in obs.info["pointer"])
        else:
            x, y = round(point[0] * obs.width), round(point[1] * obs.height)
        lines = self.read(obs.png)
        return Seen("point", label=label_at(lines, x, y), point=(x, y), lines=tuple(t for _, t in lines), **base)

    def _enter(self, action: Action, obs: Any, base: dict[str, str], key: str) -> Seen:
        """Enter or Space: a dialog's default button (judged by the screen's text) or, for Enter in a terminal, the
        command it runs (what is on the prompt's line, then what this action types before its newline)."""
        lines = self.read(obs.png)
        combo = _combo(action.keys) if isinstance(action, (Hotkey, KeyDown)) else key
        command = ""
        if key == "enter":
            typed = action.content.split("\n", 1)[0] if isinstance(action, Type) else ""
            prompt = next((m.group(1) for _, t in reversed(lines) if (m := _PROMPT.search(t))), "")
            command = (prompt + typed).strip()
        return Seen("enter", keys=combo, command=command, lines=tuple(t for _, t in lines), **base)


def _how(seen: Seen) -> str:
    if seen.via == "point":
        return f"on {seen.label!r}" if seen.label else "on an unlabelled spot"
    if seen.command:
        return f"running {seen.command!r}"
    return f"({seen.keys}) in {seen.window or seen.app!r}"
