"""An optional model judge for the gate: a VLM on an OpenAI-compatible server looks at the screenshot, the
proposed action and the inspected control, and says CONSEQUENTIAL: <kind> or SAFE.

The gate asks it only about actions that activate something the rules let through (a form submission or a
script button the words did not flag). A judge that errors, times out or answers out of format makes the gate
fail closed: the action then needs approval.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from venuskit.actions.prompts import fill, read_template
from venuskit.models.openai_backend import ModelConfig, OpenAIBackend, png_to_data_url

PROMPTS = Path(__file__).parent / "prompts"
_VERDICT = re.compile(r"^\s*(CONSEQUENTIAL\s*:\s*([a-z_.]+)|SAFE)\b", re.IGNORECASE)


class JudgeError(RuntimeError):
    """The judge's reply could not be read as a verdict."""


@dataclass(frozen=True)
class JudgeVerdict:
    consequential: bool
    kind: str
    why: str
    raw: str


class GateJudge:
    def __init__(self, backend: OpenAIBackend) -> None:
        self.backend = backend
        self.template = read_template(PROMPTS, "gate_judge")

    @classmethod
    def from_url(cls, url: str, model: str, *, api_key: str = "EMPTY", timeout_s: float = 30.0) -> GateJudge:
        # One attempt: a slow judge is a failed judge, and the gate then asks for approval.
        cfg = ModelConfig(base_url=url, model=model, api_key=api_key, temperature=0.0, max_tokens=256,
                          timeout_s=timeout_s, max_retries=0)  # fmt: skip
        return cls(OpenAIBackend(cfg))

    def __call__(self, png: bytes, goal: str, action: str, target: dict[str, Any]) -> JudgeVerdict:
        text = fill(self.template, {"goal": goal, "action": action, "target": _describe(target)})
        messages = [{"role": "user", "content": [
            {"type": "image_url", "image_url": {"url": png_to_data_url(png)}}, {"type": "text", "text": text}]}]
        raw = self.backend.complete(messages).text
        return parse_verdict(raw)


def parse_verdict(raw: str) -> JudgeVerdict:
    """Read the judge's reply (a <think> block first is skipped); raises JudgeError when it is out of format."""
    body = raw.split("</think>", 1)[-1].strip()
    m = _VERDICT.match(body)
    if m is None:
        raise JudgeError(f"The gate judge answered out of format: {body[:120]!r}.")
    why = body.splitlines()[1].strip() if len(body.splitlines()) > 1 else ""
    kind = (m.group(2) or "").lower()
    return JudgeVerdict(bool(m.group(2)), kind, why, raw)


def _describe(target: dict[str, Any]) -> str:
    parts = [f"{k}={v!r}" for k, v in target.items() if k in ("tag", "text", "href")]
    form = target.get("form")
    if form:
        parts.append(f"submits a {form.get('method', '?').upper()} form to {form.get('action', '?')}")
    return ", ".join(parts) or "nothing identifiable"
