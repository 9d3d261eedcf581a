"""The nano judge: a small model trained here that decides SGV's keypoints and checks a proposed step, served
through the same OpenAI wire format as any VLM judge (`venus serve judge`; `--judges ocr,log,nano`).

    model = JudgeModel.load()                    # the shipped weights (weights/judge.pt, MODEL_CARD.md)
    text, usage = model.complete(messages)       # a verifier request in, the verifier's reply format out
    url = served_url()                           # the same model behind a loopback ChatServer in this process
"""

from __future__ import annotations

import atexit
import threading
from typing import Any

from venuskit.models.judge.model import WEIGHTS, JudgeError, JudgeModel
from venuskit.models.judge.tokens import count_prompt_tokens
from venuskit.models.judge.wire import WireError

_SERVED: dict[str, Any] = {}
_LOCK = threading.Lock()


def served_url(weights: str | None = None) -> str:
    """The base URL (…/v1) of the judge served in this process by `venuskit.models.serve.ChatServer`, started on
    first use and stopped at exit: the verifier then reaches it over HTTP like any VLM server."""
    from venuskit.models.serve import ChatServer

    key = weights or str(WEIGHTS)
    with _LOCK:
        if key not in _SERVED:
            server = ChatServer(JudgeModel.load(key)).start()
            atexit.register(server.stop)
            _SERVED[key] = server
        return _SERVED[key].base_url


__all__ = ["WEIGHTS", "JudgeError", "JudgeModel", "WireError", "count_prompt_tokens", "served_url"]
