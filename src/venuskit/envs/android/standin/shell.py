"""The stand-in's /system/bin/sh: the part of a POSIX shell that adb clients send.

Words with single quotes, double quotes and backslashes; `;`, `&&`, `||` and pipes; `$?`; a `#` comment. That
covers what venuskit's backend sends, what adbutils adds (`cmd; echo X4EXIT:$?` to learn an exit code without
shell v2) and the usual one-liners (`dumpsys window | grep mCurrentFocus`). Anything else — redirections,
other variables, subshells — is answered with a clear error and status 2 rather than run half-understood.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

OPERATORS = ("&&", "||", ";", "|")
UNSUPPORTED = set("<>()`")


@dataclass
class Result:
    out: bytes = b""
    err: bytes = b""
    rc: int = 0


Command = Callable[[list[str], bytes], Result]  # argv (argv[0] is the command), what was piped in


class ShellSyntaxError(ValueError):
    """A command line this shell does not run."""


def tokenize(line: str, status: int = 0) -> list[tuple[str, str]]:
    """("word", text) and ("op", operator) tokens; quotes removed, `$?` expanded to `status`."""
    tokens: list[tuple[str, str]] = []
    word: list[str] | None = None
    i, n = 0, len(line)
    while i < n:
        c = line[i]
        if c in " \t\n":
            if word is not None:
                tokens.append(("word", "".join(word)))
                word = None
            i += 1
            continue
        op = next((o for o in OPERATORS if line.startswith(o, i)), None)
        if op is not None:
            if word is not None:
                tokens.append(("word", "".join(word)))
                word = None
            tokens.append(("op", op))
            i += len(op)
            continue
        if c == "#" and word is None:
            break  # a comment runs to the end of the line
        if c in UNSUPPORTED or (c == "&" and not line.startswith("&&", i)):
            raise ShellSyntaxError(f"the stand-in's shell does not run {c!r} (redirections, subshells, background "
                                   "jobs); send plain commands joined by ; && || or |")  # fmt: skip
        word = word if word is not None else []
        i = _word_part(line, i, word, status)
    if word is not None:
        tokens.append(("word", "".join(word)))
    return tokens


def _word_part(line: str, i: int, word: list[str], status: int) -> int:
    """Read one quoted or unquoted piece of a word into `word`; return the index after it."""
    c = line[i]
    if c == "'":
        end = line.find("'", i + 1)
        if end < 0:
            raise ShellSyntaxError("unterminated single quote")
        word.append(line[i + 1 : end])
        return end + 1
    if c == '"':
        i += 1
        while i < len(line) and line[i] != '"':
            if line[i] == "\\" and i + 1 < len(line) and line[i + 1] in '"\\$`\n':
                word.append(line[i + 1])
                i += 2
            elif line.startswith("$?", i):
                word.append(str(status))
                i += 2
            else:
                word.append(line[i])
                i += 1
        if i >= len(line):
            raise ShellSyntaxError("unterminated double quote")
        return i + 1
    if c == "\\":
        if i + 1 < len(line):
            word.append(line[i + 1])
        return i + 2
    if line.startswith("$?", i):
        word.append(str(status))
        return i + 2
    if c == "$":
        raise ShellSyntaxError("the stand-in's shell expands no variable but $?")
    word.append(c)
    return i + 1


def run_line(line: str, commands: Mapping[str, Command]) -> Result:
    """Run a command line; stdout and stderr of its commands in order, the status of the last one run."""
    out, err = bytearray(), bytearray()
    status, skip, pending = 0, False, ""
    rest = line
    while True:
        try:
            tokens = tokenize(rest, status)  # re-read after each list element: `$?` changes as commands run
        except ShellSyntaxError as e:
            return Result(bytes(out), bytes(err) + f"/system/bin/sh: {e}\n".encode(), 2)
        pipeline, connector, consumed = _next_pipeline(tokens)
        if pipeline and not skip:
            result = _run_pipeline(pipeline, commands)
            out += result.out
            err += result.err
            status = result.rc
        if connector is None:
            return Result(bytes(out), bytes(err), status)
        pending = connector
        skip = (pending == "&&" and status != 0) or (pending == "||" and status == 0)
        rest = _after(rest, consumed, status)


def _next_pipeline(tokens: list[tuple[str, str]]) -> tuple[list[list[str]], str | None, int]:
    """The first pipeline's commands, the list operator after it (None: end of line), how many list operators
    (; && ||) precede the rest."""
    pipeline: list[list[str]] = [[]]
    for kind, text in tokens:
        if kind == "op" and text == "|":
            pipeline.append([])
        elif kind == "op":
            return [c for c in pipeline if c], text, 1
        else:
            pipeline[-1].append(text)
    return [c for c in pipeline if c], None, 0


def _after(line: str, _count: int, status: int) -> str:
    """The line after its first list operator (outside quotes)."""
    i, n = 0, len(line)
    while i < n:
        c = line[i]
        if c == "'":
            i = line.index("'", i + 1) + 1
            continue
        if c == '"':
            j = i + 1
            while j < n and line[j] != '"':
                j += 2 if line[j] == "\\" else 1
            i = j + 1
            continue
        if c == "\\":
            i += 2
            continue
        for op in ("&&", "||", ";"):
            if line.startswith(op, i):
                return line[i + len(op) :]
        i += 1
    return ""


def _run_pipeline(pipeline: list[list[str]], commands: Mapping[str, Command]) -> Result:
    stdin, err, result = b"", bytearray(), Result()
    for argv in pipeline:
        command = commands.get(argv[0])
        if command is None:
            result = Result(err=f"/system/bin/sh: {argv[0]}: inaccessible or not found\n".encode(), rc=127)
        else:
            result = command(argv, stdin)
        err += result.err
        stdin = result.out
    return Result(result.out, bytes(err), result.rc)
