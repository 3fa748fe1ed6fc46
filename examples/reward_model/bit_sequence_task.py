"""The BitSequence task of the Trajectory Balance paper (sec. 5.2) in Python, as gfn-runtime's
`bit_sequence` environment defines it (runtime/gfn/env/bit_sequence.h): the mode set M drawn
from torch's CPU generator seeded with env.modes_seed (the same draws as the C++ side), the
words of a state turned into bits, and log R(x) = -beta * min_{y in M} Hamming(bits(x), y).
Used by export.py (the data its proxy learns) and by the tests (an exact TorchScript reward).
"""
import torch

# The 8-bit blocks H a mode is made of (torchgfn make_modes_set, the TB paper).
BLOCKS = torch.tensor([[0, 0, 0, 0, 0, 0, 0, 0],
                       [1, 1, 1, 1, 1, 1, 1, 1],
                       [1, 1, 1, 1, 0, 0, 0, 0],
                       [0, 0, 0, 0, 1, 1, 1, 1],
                       [0, 0, 1, 1, 1, 1, 0, 0]], dtype=torch.long)


def make_modes(seq_size: int, n_modes: int, seed: int) -> torch.Tensor:
    """int64 [n_modes, seq_size]: n_modes distinct concatenations of seq_size / 8 blocks."""
    gen = torch.Generator().manual_seed(seed)
    rows, seen = [], set()
    while len(rows) < n_modes:
        pick = torch.randint(0, 5, (seq_size // 8,), generator=gen, dtype=torch.long)
        key = tuple(pick.tolist())
        if key in seen:
            continue
        seen.add(key)
        rows.append(BLOCKS.index_select(0, pick).reshape(-1))
    return torch.stack(rows)


class ExactBitSequenceReward(torch.nn.Module):
    """log R of complete sequences, int64 [B, L] words of k bits -> float32 [B]."""

    def __init__(self, modes: torch.Tensor, word_size: int, beta: float):
        super().__init__()
        self.register_buffer("modes", modes.float())
        self.register_buffer("shifts", torch.arange(word_size - 1, -1, -1, dtype=torch.long))
        self.beta = beta

    def forward(self, states: torch.Tensor) -> torch.Tensor:
        bits = states.unsqueeze(-1).bitwise_right_shift(self.shifts).bitwise_and(1)
        bits = bits.reshape(states.shape[0], -1).float()                    # [B, n]
        distance = (bits.unsqueeze(1) - self.modes.unsqueeze(0)).abs().sum(-1)  # [B, |M|]
        return distance.min(1).values * -self.beta
