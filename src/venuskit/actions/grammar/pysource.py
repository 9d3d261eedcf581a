"""Model text prepared for `ast.parse` (offsets mapped back to the raw text), and the strict literal walker:
model text is parsed, never evaluated."""

from __future__ import annotations

import ast
import math
import warnings
from typing import Any

from venuskit.actions.grammar.response import ActionParseError, ActionSpan, short


class PySource:
    """Model text prepared for `ast.parse`, with a map back to character offsets of the raw text.

    Raw newlines inside string literals (models emit them in `Type(content='a<newline>b')`) are
    rewritten as escapes; with `single_line`, newlines outside strings become spaces, so a call
    may span lines. `wrap` surrounds the text with parentheses so `A(), B()` parses as one tuple.
    """

    def __init__(self, body: str, base: int = 0, *, single_line: bool = True, wrap: bool = True) -> None:
        chars, origin = _escape_scan(body, single_line)
        origin = [base + o for o in origin]
        if wrap:
            chars, origin = ["(", *chars, ")"], [base, *origin, base + len(body)]
        self.text = "".join(chars)
        self.origin = origin + [base + len(body)]  # sentinel for exclusive ends
        self._line_starts = [0] + [i + 1 for i, c in enumerate(self.text) if c == "\n"]

    def parse(self, mode: str = "eval") -> ast.AST:
        try:
            with warnings.catch_warnings():  # e.g. '\d' in a string: a warning about the source, not the action
                warnings.simplefilter("ignore")
                return ast.parse(self.text, mode=mode)
        except SyntaxError as e:
            where = self._syntax_offset(e)
            msg = e.msg if len(e.msg) <= 100 else e.msg[:97] + "..."
            raise ActionParseError(f"the action is not valid call syntax ({msg})", offset=where) from None
        except (ValueError, RecursionError, MemoryError, OverflowError) as e:
            msg = str(e).splitlines()[0][:120] if str(e) else type(e).__name__
            raise ActionParseError(f"the action cannot be parsed ({msg})", offset=self.origin[0]) from None

    def _syntax_offset(self, e: SyntaxError) -> int:
        if not e.lineno or not e.offset or e.lineno > len(self._line_starts):
            return self.origin[0]
        i = self._line_starts[e.lineno - 1] + max(0, e.offset - 1)
        return self.origin[min(i, len(self.origin) - 1)]

    def index(self, lineno: int, col_bytes: int) -> int:
        """ast (line, UTF-8 byte column) -> index into self.text."""
        start = self._line_starts[lineno - 1]
        end = self.text.find("\n", start)
        line = self.text[start : end if end >= 0 else len(self.text)]
        if line.isascii():
            return start + col_bytes
        return start + len(line.encode("utf-8", "surrogatepass")[:col_bytes].decode("utf-8", "ignore"))

    def start(self, node: ast.AST) -> int:
        return self.origin[self.index(node.lineno, node.col_offset)]  # type: ignore[attr-defined]

    def snippet(self, node: ast.AST, limit: int = 50) -> str:
        s = self.index(node.lineno, node.col_offset)  # type: ignore[attr-defined]
        e = self.index(node.end_lineno, node.end_col_offset)  # type: ignore[attr-defined]
        text = self.text[s:e]
        return text if len(text) <= limit else text[: limit - 3] + "..."

    def call_span(self, node: ast.Call) -> ActionSpan:
        f = node.func
        name_s = self.index(f.lineno, f.col_offset)
        name_e = self.index(f.end_lineno, f.end_col_offset)  # type: ignore[arg-type]
        open_paren = self.text.index("(", name_e)
        close_paren = self.index(node.end_lineno, node.end_col_offset) - 1  # type: ignore[arg-type]
        o = self.origin
        return ActionSpan((o[name_s], o[name_e]), (o[open_paren + 1], o[close_paren]))


def _escape_scan(body: str, single_line: bool) -> tuple[list[str], list[int]]:
    """Copy `body`, escaping raw CR/LF inside string literals; returns chars and their source index."""
    out: list[str] = []
    origin: list[int] = []
    quote: str | None = None
    i, n = 0, len(body)
    while i < n:
        c = body[i]
        if quote is None:
            if c in "'\"":
                quote = c * 3 if body.startswith(c * 3, i) else c
                out.extend(quote)
                origin.extend(range(i, i + len(quote)))
                i += len(quote)
                continue
            if c in "\r\n" and (single_line or (c == "\r" and body.startswith("\n", i + 1))):
                c = " "
            elif c == "\r":
                c = "\n"
            out.append(c)
            origin.append(i)
            i += 1
        elif c == "\\" and i + 1 < n:
            nxt = body[i + 1]
            out += ["\\", {"\n": "n", "\r": "r"}.get(nxt, nxt)]
            origin += [i, i + 1]
            i += 2
        elif body.startswith(quote, i):
            out.extend(quote)
            origin.extend(range(i, i + len(quote)))
            i += len(quote)
            quote = None
        else:
            esc = {"\n": "\\n", "\r": "\\r"}.get(c, c)
            out.extend(esc)
            origin.extend([i] * len(esc))
            i += 1
    return out, origin


def literal(node: ast.AST, src: PySource) -> Any:
    """The value of a literal node: int, float, str, tuple or list of those, or a negated number.
    Anything else (names, calls, operators, dicts, booleans, None) is refused."""
    if isinstance(node, ast.Constant):
        v = node.value
        if isinstance(v, str):
            return v
        if isinstance(v, (int, float)) and not isinstance(v, bool):
            return _finite(v, node, src)
        raise ActionParseError(f"the literal {short(v)} is not allowed here", offset=src.start(node))
    if isinstance(node, ast.Tuple):
        return tuple(literal(e, src) for e in node.elts)
    if isinstance(node, ast.List):
        return [literal(e, src) for e in node.elts]
    if (
        isinstance(node, ast.UnaryOp)
        and isinstance(node.op, (ast.USub, ast.UAdd))
        and isinstance(node.operand, ast.Constant)
        and isinstance(node.operand.value, (int, float))
        and not isinstance(node.operand.value, bool)
    ):
        v = _finite(node.operand.value, node, src)
        return -v if isinstance(node.op, ast.USub) else v
    raise ActionParseError(
        f"only literal numbers, strings, tuples and lists are allowed, found {src.snippet(node)!r}",
        offset=src.start(node),
    )


def _finite(v: float, node: ast.AST, src: PySource) -> int | float:
    if isinstance(v, float) and not math.isfinite(v):
        raise ActionParseError(f"the number {src.snippet(node)!r} is not finite", offset=src.start(node))
    return v
