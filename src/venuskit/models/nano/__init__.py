"""venus-nano: the embedded default policy — a small vision-only network trained here by venuskit's own stages.

    from venuskit.models.nano import load_default, Reader
    model = load_default()
    model.act(png, goal, history=[], surface="browser")   # -> "<think>…</think>\\n<action>Click(point=(…))</action>"
    model.complete(messages)                              # OpenAI-style chat messages -> (text, usage)
    Reader().read(png).lines                              # text lines and icons read from the pixels

Modules, from the pixels up: reader (lines + PP-OCR recognition with a crop cache), entities (text
normalisation, the UI lexicon, the typed values of the task and of screen lines), candidates (what can be pointed
at, and its geometry), history (the agent's own earlier actions read back), features (one decision's relational
features), action_types (what the network chooses between), net (the torch network), model (decisions, replies,
checkpoints).
"""

from venuskit.models.nano.features import NanoInput
from venuskit.models.nano.model import (
    CheckpointError,
    NanoError,
    NanoModel,
    default_checkpoint,
    input_from_messages,
    load_default,
)
from venuskit.models.nano.reader import Line, Reader, ReaderError, Screen, default_reader

__all__ = [
    "CheckpointError",
    "Line",
    "NanoError",
    "NanoInput",
    "NanoModel",
    "Reader",
    "ReaderError",
    "Screen",
    "default_checkpoint",
    "default_reader",
    "input_from_messages",
    "load_default",
]
