"""A venus-nano whose network's preferences are set by the test, so a test sees what the checks at decision time
(`NanoModel.decide`: the done check, the action check) change of them."""

from __future__ import annotations

import torch

from venuskit.models.nano.action_types import TYPE_INDEX, TYPES
from venuskit.models.nano.model import NanoModel
from venuskit.models.nano.net import NanoNet, NetConfig


def scripted_model(type_name: str, *, ptr: list[float] | None = None, text: dict[int, float] | None = None,
                   **checks: bool) -> NanoModel:  # fmt: skip
    """A model whose type head always prefers `type_name`, whose pointer logits are `ptr` (when given) and whose
    text options `text` maps are raised to those logits; `checks` are NanoModel's flags (done_check=False...)."""
    torch.manual_seed(0)
    net = NanoNet(NetConfig())
    model = NanoModel(net, reader=object(), **checks)  # type: ignore[arg-type]

    def type_logits(e):
        out = torch.zeros(1, len(TYPES))
        out[0, TYPE_INDEX[type_name]] = 10.0
        return out

    heads = net.heads

    def biased_heads(e, types):
        p, txt, nl = heads(e, types)
        txt = txt.clone()
        for i, v in (text or {}).items():
            txt[0, i] = v
        return (torch.tensor([ptr]) if ptr is not None else p), txt, nl

    net.type_logits = type_logits  # type: ignore[method-assign]
    net.heads = biased_heads  # type: ignore[method-assign]
    return model
