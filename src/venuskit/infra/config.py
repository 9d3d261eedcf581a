"""Config dataclasses' help text: one way to attach it to a field and one way to read it back.

Every command's config is a dataclass whose fields carry their help (`venus … --help` and the saved run config
read it from there), as TRL's configs do:

    @dataclass
    class SuiteConfig:
        out: str = option("Run folder.")
        workers: int = option("Workers at once.", default=1)
        model: str = field(default="nano", metadata=help_text("oracle, nano or a model URL."))
"""

from __future__ import annotations

import dataclasses
from typing import Any


def help_text(text: str) -> dict[str, str]:
    """A field's metadata carrying its help."""
    return {"help": text}


def option(text: str, *default: Any, **kw: Any) -> Any:
    """A dataclass field with help: `option(help)`, `option(help, default)` or `option(help, default_factory=f)`."""
    if len(default) > 1:
        raise TypeError("option() takes the help text and at most one default.")
    if default:
        kw["default"] = default[0]
    return dataclasses.field(metadata=help_text(text), **kw)


def field_help(cls: Any) -> dict[str, str]:
    """Field name -> help text of a config dataclass (or instance)."""
    return {f.name: f.metadata.get("help", "") for f in dataclasses.fields(cls)}
