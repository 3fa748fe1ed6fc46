#!/usr/bin/env python3
"""Writes the TorchScript modules reward_model_test.cc loads, with Debian's python3-torch
(the format check of docs/environments.md "Reward models"):
  exact rewards, to compare with the environments' own log_reward:
    hypergrid.pt     HyperGrid "original" (ndim 3, height 5, R0 0.1, R1 0.5, R2 2)
    bit_sequence.pt  BitSequence (n 16, k 4, 4 modes of seed 0, beta 0.5)
    coins.pt         examples/custom_env's coins plugin (K 3, C 8, beta 3)
  and modules that must be refused: [B, 1] output, int64 output, NaN, +inf, a tuple, a
  forward that fails on int64 states; and garbage.pt, not TorchScript.
    make_reward_models.py OUTDIR
"""
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "../../../../examples/reward_model"))
from bit_sequence_task import ExactBitSequenceReward, make_modes  # noqa: E402


class HyperGridOriginal(torch.nn.Module):
    """torchgfn's HyperGrid original reward, as runtime/gfn/env/hypergrid.cc computes it."""

    def __init__(self, height: int, r0: float, r1: float, r2: float):
        super().__init__()
        self.height, self.r0, self.r1, self.r2 = height, r0, r1, r2

    def forward(self, states: torch.Tensor) -> torch.Tensor:
        ax = (states.float() / (self.height - 1) - 0.5).abs()
        outer = (ax > 0.25 + 1e-12).all(-1).float()
        band = ((ax > 0.3 + 1e-12) & (ax < 0.4 - 1e-12)).all(-1).float()
        return (self.r0 + outer * self.r1 + band * self.r2).log()


class Coins(torch.nn.Module):
    def __init__(self, coin_types: int, capacity: int, beta: float):
        super().__init__()
        self.register_buffer("values", torch.arange(1, coin_types + 1, dtype=torch.long))
        self.scale = beta / capacity

    def forward(self, states: torch.Tensor) -> torch.Tensor:
        return (states * self.values).sum(1).double() * self.scale


class Column(torch.nn.Module):
    def forward(self, states: torch.Tensor) -> torch.Tensor:
        return states.float().sum(1, keepdim=True)


class Integer(torch.nn.Module):
    def forward(self, states: torch.Tensor) -> torch.Tensor:
        return states.sum(1)


class Constant(torch.nn.Module):
    def __init__(self, value: float):
        super().__init__()
        self.value = value

    def forward(self, states: torch.Tensor) -> torch.Tensor:
        return torch.full([states.shape[0]], self.value)


class Pair(torch.nn.Module):
    def forward(self, states: torch.Tensor):
        return states.float().sum(1), states.float().sum(1)


class NeedsFloats(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.linear = torch.nn.Linear(3, 1)

    def forward(self, states: torch.Tensor) -> torch.Tensor:
        return self.linear(states).squeeze(-1)  # int64 input: a matmul dtype error


def main():
    out = sys.argv[1]
    os.makedirs(out, exist_ok=True)
    modules = {
        "hypergrid": HyperGridOriginal(5, 0.1, 0.5, 2.0),
        "bit_sequence": ExactBitSequenceReward(make_modes(16, 4, 0), 4, 0.5),
        "coins": Coins(3, 8, 3.0),
        "column": Column(), "integer": Integer(), "nan": Constant(float("nan")),
        "posinf": Constant(float("inf")), "neginf": Constant(float("-inf")), "pair": Pair(),
        "needs_floats": NeedsFloats(),
    }
    for name, module in modules.items():
        torch.jit.save(torch.jit.script(module), os.path.join(out, name + ".pt"))
    with open(os.path.join(out, "garbage.pt"), "wb") as f:
        f.write(b"not a zip archive\n" * 10)
    print(f"wrote {len(modules) + 1} files to {out}")


if __name__ == "__main__":
    main()
