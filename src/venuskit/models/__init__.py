"""Policy and judge backends: any OpenAI-compatible server (vLLM, SGLang, hosted APIs), and a test stand-in.

`standin_server.StandinServer` is a scripted stand-in for tests, not a model; import it from its module.
"""

from venuskit.models.openai_backend import (
    Completion,
    ModelConfig,
    ModelError,
    ModelResponseError,
    ModelTimeout,
    ModelUnavailable,
    OpenAIBackend,
    Usage,
    png_to_data_url,
    splice_reasoning,
)

__all__ = [
    "Completion",
    "ModelConfig",
    "ModelError",
    "ModelResponseError",
    "ModelTimeout",
    "ModelUnavailable",
    "OpenAIBackend",
    "Usage",
    "png_to_data_url",
    "splice_reasoning",
]
