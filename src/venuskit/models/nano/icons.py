"""Naming icons: what a picture on a button means, read from its pixels.

Text lines are matched to the task by their words; an icon has none, so a policy trained on a few apps learns where
their icons sit, not what they are, and on a new app clicks the trash can when asked to star. The namer is a small
network over the reader's own icon patch (`candidates.icon_patch`, 16×16 grey) that says which of the names in
`icon_names.toml` the icon draws ("star", "trash", "reply"...) or none of them. Its words then go through the same
matching as a label's (`features`), so "star the message" meets a star icon by meaning.

It is trained on two general icon libraries (`venuskit.train.nano.icons`, `venus nano icons`), never on the world's
own icons, and ships as `weights/icon-namer.pt` (a few tens of KB) with the weights' SHA-256, which enters the
feature version: features cached with another namer are read again.
"""

from __future__ import annotations

import functools
import hashlib
import io
import tomllib
from dataclasses import dataclass
from importlib import resources
from pathlib import Path

import numpy as np
import torch
from torch import nn

from venuskit.models.nano.candidates import ICON_PX

OTHER = "other"  # an icon none of the names draws (or not an icon at all: a lone glyph, a bullet)
DEFAULT_NAMER = "weights/icon-namer.pt"
MIN_PROB = 0.5  # below this the namer's best name is not used: a wrong name is worse than none


class NamerError(RuntimeError):
    """An icon-namer file that cannot be used (missing, damaged, or for another name table)."""


@dataclass(frozen=True)
class IconName:
    name: str
    words: str  # matched against the task like a label's text
    bootstrap: tuple[str, ...]  # Bootstrap Icons files that draw it (training pictures)
    adwaita: tuple[str, ...]  # Adwaita symbolic icons that draw it (training pictures)


@functools.cache
def icon_names() -> tuple[IconName, ...]:
    data = tomllib.loads(resources.files("venuskit.models.nano").joinpath("icon_names.toml").read_text("utf-8"))
    return tuple(IconName(k, v["words"], tuple(v.get("bootstrap", ())), tuple(v.get("adwaita", ())))
                 for k, v in data["names"].items())  # fmt: skip


def classes() -> tuple[str, ...]:
    """The namer's outputs: every name, then OTHER."""
    return (*(n.name for n in icon_names()), OTHER)


def words_of(name: str) -> str:
    return next((n.words for n in icon_names() if n.name == name), "")


class IconNet(nn.Module):
    """Two conv blocks and a linear layer over a 16×16 patch (mean removed; either polarity)."""

    def __init__(self, n_classes: int, width: int = 32) -> None:
        super().__init__()
        self.body = nn.Sequential(
            nn.Conv2d(1, width, 3, padding=1), nn.BatchNorm2d(width), nn.ReLU(),
            nn.Conv2d(width, width, 3, padding=1), nn.BatchNorm2d(width), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(width, 2 * width, 3, padding=1), nn.BatchNorm2d(2 * width), nn.ReLU(), nn.MaxPool2d(2),
            nn.Flatten(), nn.Dropout(0.2), nn.Linear(2 * width * (ICON_PX // 4) ** 2, 128), nn.ReLU(),
            nn.Linear(128, n_classes),
        )  # fmt: skip

    def forward(self, patches: torch.Tensor) -> torch.Tensor:
        """(K, P, P) → (K, classes) logits. A patch is scaled to unit contrast so light and dark themes read alike."""
        x = patches.float()
        x = x / x.flatten(1).std(-1).clamp(min=1e-3)[:, None, None]
        return self.body(x.unsqueeze(1))


def _half(state: dict[str, torch.Tensor]) -> dict[str, torch.Tensor]:
    """The weights as stored: floating tensors in fp16 (half the file; names do not need more)."""
    return {k: v.detach().cpu().half() if v.is_floating_point() else v.detach().cpu() for k, v in state.items()}


def weights_digest(state: dict[str, torch.Tensor]) -> str:
    """SHA-256 over a state dict, key by key (venus-nano's checkpoints and the namer's files check it at load)."""
    h = hashlib.sha256()
    for k in sorted(state):
        h.update(k.encode())
        h.update(state[k].detach().cpu().contiguous().numpy().tobytes())
    return h.hexdigest()


class IconNamer:
    """A trained IconNet with its name table. `name(patches)` → the best name and its probability per patch."""

    def __init__(self, net: IconNet, names: tuple[str, ...], meta: dict | None = None) -> None:
        self.net = net.eval()
        self.names = names
        self.meta = meta or {}
        self.sha256 = weights_digest(_half(net.state_dict()))

    @torch.no_grad()
    def probs(self, patches: np.ndarray) -> np.ndarray:
        if len(patches) == 0:
            return np.zeros((0, len(self.names)), np.float32)
        return torch.softmax(self.net(torch.from_numpy(np.asarray(patches, np.float32))), -1).numpy()

    def name(self, patches: np.ndarray) -> list[tuple[str, float]]:
        p = self.probs(patches)
        return [(self.names[int(i)], float(row[i])) for row, i in zip(p, p.argmax(-1), strict=True)]

    def save(self, path: str | Path) -> None:
        state = _half(self.net.state_dict())
        width = self.net.body[0].out_channels
        payload = {"format": "venuskit.icon-namer/1", "names": list(self.names), "width": width, "state": state,
                   "sha256": weights_digest(state), "meta": self.meta}  # fmt: skip
        buf = io.BytesIO()
        torch.save(payload, buf)
        from venuskit.infra.atomic import write_bytes

        write_bytes(Path(path), buf.getvalue(), durable=True)

    @classmethod
    def load(cls, path: str | Path) -> IconNamer:
        p = Path(path)
        try:
            payload = torch.load(io.BytesIO(p.read_bytes()), map_location="cpu", weights_only=True)
        except Exception as exc:  # noqa: BLE001 - any unpickling failure means the file is damaged
            raise NamerError(f"{p}: not an icon-namer file ({type(exc).__name__})") from exc
        if not isinstance(payload, dict) or payload.get("format") != "venuskit.icon-namer/1":
            raise NamerError(f"{p}: not an icon-namer file")
        if not isinstance(payload.get("state"), dict) or weights_digest(payload["state"]) != payload.get("sha256"):
            raise NamerError(f"{p}: its weights do not match the SHA-256 stored with them")
        names = tuple(payload["names"])
        if names != classes():
            raise NamerError(f"{p}: trained for another name table (icon_names.toml changed); train it again")
        net = IconNet(len(names), int(payload["width"]))
        net.load_state_dict({k: v.float() if v.is_floating_point() else v for k, v in payload["state"].items()})
        return cls(net, names, payload.get("meta", {}))


def default_path() -> Path:
    return Path(str(resources.files("venuskit.models.nano").joinpath(DEFAULT_NAMER)))


@functools.cache
def default_namer() -> IconNamer | None:
    """The shipped namer; None where no namer ships (features then carry no icon names)."""
    p = default_path()
    return IconNamer.load(p) if p.is_file() else None


def namer_version() -> str:
    """What the features depend on: the shipped namer's weights, or "none"."""
    namer = default_namer()
    return namer.sha256[:16] if namer is not None else "none"
