"""The venus-nano network: candidates in, a distribution over (action type, target, text argument) out.

    candidates (text lines, icons, regions, coarse cells)  -- relational features + hashed words + icon pixels
        -> per-candidate vectors, conditioned on the goal and the state -> self-attention over candidates
    type head     softmax over TYPES (from the state and an attention pool of the candidates)
    pointer head  softmax over candidates, conditioned on the chosen type
    text head     softmax over text options (goal entities, screen lines and values, <select> options, "Done."),
                  + newline flag
    Both pointer and text heads add a linear scorer over the raw relational features whose weights the state and
    the type choose.

The three parts are the "tokens" of an action for GRPO and MOPD: `part_logps` gives log π of each.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
import torch
import torch.nn.functional as F
from torch import nn

from venuskit.models.nano.action_types import TYPES
from venuskit.models.nano.candidates import ICON_PX
from venuskit.models.nano.entities import BUCKETS
from venuskit.models.nano.features import CAND_DIM, ICON_NAME_COLS, STATE_DIM, TEXT_DIM, Features

NEG = -1e9


@dataclass
class NetConfig:
    """Size of the network. The default is what ships; `large` configs serve as MOPD teachers."""

    dim: int = 64
    layers: int = 2
    heads: int = 4
    icon_dim: int = 16
    dropout: float = 0.1
    word_dropout: float = 0.25  # share of hashed words hidden in training: the relational features must carry it
    # Read the icon-name block of the candidate features (`models.nano.icons`). Off, those columns are dropped and
    # the network sees exactly the features of checkpoints trained before the block existed (they load as off).
    icon_names: bool = False

    @classmethod
    def named(cls, name: str) -> NetConfig:
        sizes = {"small": cls(), "large": cls(dim=96, layers=3)}
        if name not in sizes:
            raise ValueError(f"Unknown nano size {name!r}; expected one of {sorted(sizes)}.")
        return sizes[name]

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)


@dataclass
class Batch:
    cand_x: torch.Tensor  # (B, N, CAND_DIM)
    cand_mask: torch.Tensor  # (B, N) bool, True = real
    cand_words: torch.Tensor  # (B, N, W) long, 0 = padding
    icons: torch.Tensor  # (K, P, P): the icon candidates' patches
    icon_pos: torch.Tensor  # (K,) long: their flat positions in (B * N)
    goal_words: torch.Tensor  # (B, W)
    state: torch.Tensor  # (B, STATE_DIM)
    text_x: torch.Tensor  # (B, M, TEXT_DIM)
    text_mask: torch.Tensor  # (B, M)

    def repeat(self, g: int) -> Batch:
        """Each row repeated g times, adjacent (a GRPO group per state)."""
        b, n = self.cand_mask.shape
        pos = (self.icon_pos // n)[:, None] * g + torch.arange(g)[None, :]  # (K, g) new rows of each patch
        icon_pos = (pos * n + (self.icon_pos % n)[:, None]).reshape(-1)
        icons = self.icons.repeat_interleave(g, 0)
        return Batch(self.cand_x.repeat_interleave(g, 0), self.cand_mask.repeat_interleave(g, 0),
                     self.cand_words.repeat_interleave(g, 0), icons, icon_pos, self.goal_words.repeat_interleave(g, 0),
                     self.state.repeat_interleave(g, 0), self.text_x.repeat_interleave(g, 0),
                     self.text_mask.repeat_interleave(g, 0))  # fmt: skip


def _pad_words(rows: list[list[int]], width: int) -> np.ndarray:
    out = np.zeros((len(rows), width), np.int64)
    for i, r in enumerate(rows):
        out[i, : len(r[:width])] = r[:width]
    return out


def collate(feats: list[Features]) -> Batch:
    b = len(feats)
    n = max(1, max(len(f.cands) for f in feats))
    m = max(1, max(len(f.texts) for f in feats))
    wmax = 12
    cand_x = np.zeros((b, n, CAND_DIM), np.float32)
    cand_mask = np.zeros((b, n), bool)
    cand_words = np.zeros((b, n, wmax), np.int64)
    text_x = np.zeros((b, m, TEXT_DIM), np.float32)
    text_mask = np.zeros((b, m), bool)
    icons, icon_pos = [], []
    for i, f in enumerate(feats):
        k = len(f.cands)
        cand_x[i, :k] = f.cand_x
        cand_mask[i, :k] = True
        if k:
            cand_words[i, :k] = _pad_words(f.cand_words, wmax)
        if len(f.icon_index):
            icons.append(f.icons.astype(np.float32))
            icon_pos += [i * n + j for j in f.icon_index]
        t = len(f.texts)
        text_x[i, :t] = f.text_x
        text_mask[i, :t] = True
    goal = _pad_words([f.goal_words for f in feats], 32)
    state = np.stack([f.state for f in feats])
    patches = np.concatenate(icons) if icons else np.zeros((0, ICON_PX, ICON_PX), np.float32)
    t = torch.from_numpy
    return Batch(t(cand_x), t(cand_mask), t(cand_words), t(patches), torch.tensor(icon_pos, dtype=torch.long), t(goal),
                 t(state), t(text_x), t(text_mask))  # fmt: skip


@dataclass
class Encoded:
    cands: torch.Tensor  # (B, N, d)
    state: torch.Tensor  # (B, d)
    pooled: torch.Tensor  # (B, d)
    batch: Batch
    cand_x: torch.Tensor  # (B, N, the columns this network reads)


class NanoNet(nn.Module):
    def __init__(self, cfg: NetConfig | None = None) -> None:
        super().__init__()
        self.cfg = cfg = cfg or NetConfig()
        d = cfg.dim
        self.words = nn.Embedding(BUCKETS, d, padding_idx=0)
        self.icon = nn.Sequential(
            nn.Conv2d(1, 8, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
            nn.Conv2d(8, cfg.icon_dim, 3, padding=1), nn.ReLU(), nn.AdaptiveAvgPool2d(1), nn.Flatten(),
        )  # fmt: skip
        self.state_in = nn.Sequential(nn.Linear(STATE_DIM + d, d), nn.ReLU(), nn.Linear(d, d))
        cols = [i for i in range(CAND_DIM) if cfg.icon_names or i not in ICON_NAME_COLS]
        self._cols = None if len(cols) == CAND_DIM else torch.tensor(cols)  # not a parameter: old files load as-is
        self.cand_in = nn.Sequential(nn.Linear(len(cols) + 2 * d + cfg.icon_dim, d), nn.ReLU(), nn.Linear(d, d))
        layer = nn.TransformerEncoderLayer(d, cfg.heads, 2 * d, cfg.dropout, batch_first=True)
        self.encoder = nn.TransformerEncoder(layer, cfg.layers, enable_nested_tensor=False)
        self.pool_q = nn.Linear(d, d)
        self.type_head = nn.Sequential(nn.Linear(2 * d, d), nn.ReLU(), nn.Linear(d, len(TYPES)))
        self.type_emb = nn.Embedding(len(TYPES), d)
        self.ptr_head = nn.Sequential(nn.Linear(d, d), nn.ReLU(), nn.Linear(d, 1))
        self.text_in = nn.Sequential(nn.Linear(TEXT_DIM, d), nn.ReLU(), nn.Linear(d, d))
        self.text_head = nn.Sequential(nn.Linear(d, d), nn.ReLU(), nn.Linear(d, 1))
        self.nl_head = nn.Linear(2 * d, 1)
        # Linear scorers over the raw relational features, their weights set by the state and the type: the part of
        # the decision that transfers to unseen tasks most directly ("the line that holds the quoted subject").
        self.ptr_lin = nn.Linear(d, len(cols))
        self.text_lin = nn.Linear(d, TEXT_DIM)

    def _bag(self, ids: torch.Tensor) -> torch.Tensor:
        if self.training and self.cfg.word_dropout > 0:
            ids = ids.masked_fill(torch.rand(ids.shape) < self.cfg.word_dropout, 0)
        emb = self.words(ids)
        n = (ids > 0).sum(-1, keepdim=True).clamp(min=1)
        return emb.sum(-2) / n

    def encode(self, b: Batch) -> Encoded:
        g = self._bag(b.goal_words)
        s = self.state_in(torch.cat([b.state, g], -1))
        cw = self._bag(b.cand_words)
        bsz, n = b.cand_mask.shape
        icon = torch.zeros(bsz * n, self.cfg.icon_dim)
        if len(b.icon_pos):
            icon = icon.index_copy(0, b.icon_pos, self.icon(b.icons.unsqueeze(1)))
        icon = icon.view(bsz, n, -1)
        cx = b.cand_x if self._cols is None else b.cand_x.index_select(-1, self._cols)
        x = self.cand_in(torch.cat([cx, cw, cw * g[:, None], icon], -1)) + s[:, None]
        x = self.encoder(x, src_key_padding_mask=~b.cand_mask)
        att = (x @ self.pool_q(s)[:, :, None]).squeeze(-1).masked_fill(~b.cand_mask, NEG)
        pooled = (torch.softmax(att, -1)[:, :, None] * x).sum(1)
        return Encoded(x, s, pooled, b, cx)

    def type_logits(self, e: Encoded) -> torch.Tensor:
        return self.type_head(torch.cat([e.state, e.pooled], -1))

    def heads(self, e: Encoded, types: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        """(pointer logits (B, N), text logits (B, M), newline logit (B,)) given the action type of each row."""
        q = e.state + self.type_emb(types)
        b = e.batch
        ptr = self.ptr_head(e.cands + q[:, None]).squeeze(-1) + (e.cand_x * self.ptr_lin(q)[:, None]).sum(-1)
        ptr = ptr.masked_fill(~b.cand_mask, NEG)
        t = self.text_in(b.text_x)
        txt = self.text_head(t + q[:, None]).squeeze(-1) + (b.text_x * self.text_lin(q)[:, None]).sum(-1)
        txt = txt.masked_fill(~b.text_mask, NEG)
        nl = self.nl_head(torch.cat([q, e.pooled], -1)).squeeze(-1)
        return ptr, txt, nl


@dataclass
class EnsembleEncoded:
    members: list[Encoded]
    batch: Batch


class NanoEnsemble(nn.Module):
    """Several networks of one recipe trained with different seeds, deciding as one: each head's distribution is the
    members' mean (the log of the mean probability; the newline flag's mean probability as a logit), and the pointer
    and text heads of every member are conditioned on the one type chosen from the mean. Seeds of the same recipe
    disagree most where the training data says least (held-out wordings, the done decision), and the mean keeps what
    they agree on. Inference only: training stages take one network (`NanoModel.load_trainable`)."""

    def __init__(self, members: list[NanoNet]) -> None:
        super().__init__()
        if len(members) < 2:
            raise ValueError(f"An ensemble needs at least 2 networks, got {len(members)}.")
        if len({repr(m.cfg) for m in members}) != 1:
            raise ValueError("The networks of an ensemble must share one NetConfig (seeds of one recipe).")
        self.members = nn.ModuleList(members)
        self.cfg = members[0].cfg

    def encode(self, b: Batch) -> EnsembleEncoded:
        return EnsembleEncoded([m.encode(b) for m in self.members], b)

    def type_logits(self, e: EnsembleEncoded) -> torch.Tensor:
        return _mean_logp([m.type_logits(x) for m, x in zip(self.members, e.members, strict=True)])

    def heads(self, e: EnsembleEncoded, types: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor, torch.Tensor]:
        outs = [m.heads(x, types) for m, x in zip(self.members, e.members, strict=True)]
        nl = torch.stack([torch.sigmoid(o[2]) for o in outs]).mean(0).clamp(1e-6, 1 - 1e-6)
        return _mean_logp([o[0] for o in outs]), _mean_logp([o[1] for o in outs]), torch.logit(nl)


def _mean_logp(logits: list[torch.Tensor]) -> torch.Tensor:
    """log of the mean of the members' softmax distributions (masked entries stay at about NEG)."""
    logp = torch.stack([F.log_softmax(x, -1) for x in logits])
    return torch.logsumexp(logp, 0) - float(np.log(len(logits)))


def masked_log_softmax(logits: torch.Tensor) -> torch.Tensor:
    return F.log_softmax(logits, -1)


def logsumexp_positive(logp: torch.Tensor, positive: torch.Tensor) -> torch.Tensor:
    """log Σ_{k ∈ positives} p_k per row (several candidates can be right: a row and the text inside it)."""
    return torch.logsumexp(logp.masked_fill(~positive, NEG), -1)
