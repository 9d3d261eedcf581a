"""What parsing returns or raises: the parsed response, the spans of its calls, and the typed errors."""

from __future__ import annotations

from dataclasses import dataclass, field

from venuskit.actions.types import Action


class ActionParseError(ValueError):
    """Model output that is not a valid action in its grammar. The message says what and where;
    `offset` (character in the parsed text), `call` and `argument` carry the same facts for code."""

    def __init__(
        self, message: str, *, offset: int | None = None, call: str | None = None, argument: str | None = None
    ) -> None:
        self.reason, self.offset, self.call, self.argument = message, offset, call, argument
        super().__init__(_where(message, offset, call, argument))


def _where(message: str, offset: int | None, call: str | None, argument: str | None) -> str:
    head = f"{call}: argument {argument!r} " if argument else (f"{call}: " if call else "")
    tail = f" (at character {offset})" if offset is not None else ""
    text = f"{head}{message.rstrip('.')}{tail}."
    return text[:1].upper() + text[1:]


class BadValue(ValueError):
    """A bad argument value, raised by value converters; the call parser adds where it happened."""


def short(v: object, limit: int = 60) -> str:
    r = repr(v)
    return r if len(r) <= limit else r[: limit - 3] + "..."


@dataclass(frozen=True)
class ActionSpan:
    """Where one call sits in the raw text: `text[slice(*name_span)]` is the call name and
    `text[slice(*args_span)]` the argument list inside the parentheses (MOPD masks tokens by these)."""

    name_span: tuple[int, int]
    args_span: tuple[int, int]

    @property
    def call_span(self) -> tuple[int, int]:
        """The whole call, name to closing parenthesis."""
        return (self.name_span[0], self.args_span[1] + 1)


@dataclass(frozen=True)
class Response:
    """One parsed model response."""

    thought: str | None
    actions: list[Action]
    raw: str
    action_spans: list[ActionSpan] = field(default_factory=list)
    conclusion: str | None = None  # UI-Venus-1.5 `<conclusion>`; None elsewhere

    @property
    def action(self) -> Action:
        """The single action of a one-action response (every surface but CAPTCHA)."""
        if len(self.actions) != 1:
            raise ValueError(f"This response holds {len(self.actions)} actions; read .actions instead.")
        return self.actions[0]
