"""The judge's network: two small heads over hand-made evidence features and hashed word bags.

- keypoint head: p(the keypoint is satisfied at the end of the run), from `features.keypoint_features` and the
  mean embeddings of the keypoint's words and of the clicked labels;
- step head: p(the proposed step is wrong or ineffective), from `features.step_features` and the words under
  the proposed click.
"""

from __future__ import annotations

import torch
from torch import nn

from venuskit.models.judge.features import BUCKETS, N_KEYPOINT, N_STEP


def _mlp(n_in: int, hidden: int, dropout: float) -> nn.Sequential:
    return nn.Sequential(nn.Linear(n_in, hidden), nn.ReLU(), nn.Dropout(dropout), nn.Linear(hidden, hidden),
                         nn.ReLU(), nn.Linear(hidden, 1))  # fmt: skip


class JudgeNet(nn.Module):
    def __init__(self, dim: int = 16, hidden: int = 64, dropout: float = 0.1) -> None:
        super().__init__()
        self.kp_words = nn.EmbeddingBag(BUCKETS, dim, mode="mean", padding_idx=0)
        self.targets = nn.EmbeddingBag(BUCKETS, dim, mode="mean", padding_idx=0)
        self.step_words = nn.EmbeddingBag(BUCKETS, dim, mode="mean", padding_idx=0)
        self.kp_head = _mlp(N_KEYPOINT + 2 * dim, hidden, dropout)
        self.step_head = _mlp(N_STEP + dim, hidden, dropout)

    def keypoints(self, feats: torch.Tensor, kp_bag: torch.Tensor, target_bag: torch.Tensor) -> torch.Tensor:
        """Logits of `satisfied`, one per row; bags are (rows, MAX_BAG) padded with 0."""
        x = torch.cat([feats, self.kp_words(kp_bag), self.targets(target_bag)], dim=1)
        return self.kp_head(x).squeeze(1)

    def steps(self, feats: torch.Tensor, bag: torch.Tensor) -> torch.Tensor:
        """Logits of `the proposed step is wrong`, one per row."""
        return self.step_head(torch.cat([feats, self.step_words(bag)], dim=1)).squeeze(1)


def pad(bags: list[list[int]], width: int) -> torch.Tensor:
    out = torch.zeros((len(bags), width), dtype=torch.long)
    for i, b in enumerate(bags):
        out[i, : len(b[:width])] = torch.tensor(b[:width], dtype=torch.long)
    return out
