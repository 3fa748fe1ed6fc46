#!/usr/bin/env python3
"""Trains a small proxy reward on a BitSequence task and saves it as TorchScript for
`env.reward_model` (README.md here; docs/environments.md "Reward models").

The task is gfn-runtime's `bit_sequence` environment with the options of config.yaml
(n = 16 bits in words of k = 4, 4 modes, seed 0, beta 2; bit_sequence_task.py): the proxy, an
MLP over the sequence's bits, is fitted by least squares to log R on random sequences and on
sequences a few bits from the modes, then saved with torch.jit.save. Its forward takes the
states as gfn-train holds them, int64 [B, n / k] words, and returns log R, float32 [B].

    python3 examples/reward_model/export.py --out "$out/proxy.pt"   # out: outside the checkout
"""
import argparse

import torch

from bit_sequence_task import ExactBitSequenceReward, make_modes


class ProxyReward(torch.nn.Module):
    """An MLP over the bits of a sequence: int64 [B, L] words -> log R float32 [B]."""

    def __init__(self, word_size: int, seq_size: int, hidden: int):
        super().__init__()
        self.register_buffer("shifts", torch.arange(word_size - 1, -1, -1, dtype=torch.long))
        self.net = torch.nn.Sequential(torch.nn.Linear(seq_size, hidden), torch.nn.ReLU(),
                                       torch.nn.Linear(hidden, hidden), torch.nn.ReLU(),
                                       torch.nn.Linear(hidden, 1))

    def forward(self, states: torch.Tensor) -> torch.Tensor:
        bits = states.unsqueeze(-1).bitwise_right_shift(self.shifts).bitwise_and(1)
        return self.net(bits.reshape(states.shape[0], -1).float()).squeeze(-1)


def training_data(modes, word_size, n, gen):
    """Random sequences and sequences with 0..3 bits of a mode flipped, as words."""
    seq_size = modes.shape[1]
    random_bits = torch.randint(0, 2, (n // 2, seq_size), generator=gen)
    near = modes[torch.randint(0, modes.shape[0], (n - n // 2,), generator=gen)].clone()
    flips = torch.rand(near.shape, generator=gen) < 0.1
    bits = torch.cat([random_bits, near ^ flips.long()])
    weights = 2 ** torch.arange(word_size - 1, -1, -1)
    return (bits.view(n, -1, word_size) * weights).sum(-1)  # int64 [n, L]


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--out", required=True, help="the TorchScript file to write")
    parser.add_argument("--seq-size", type=int, default=16)
    parser.add_argument("--word-size", type=int, default=4)
    parser.add_argument("--n-modes", type=int, default=4)
    parser.add_argument("--modes-seed", type=int, default=0)
    parser.add_argument("--beta", type=float, default=2.0)
    parser.add_argument("--steps", type=int, default=1500)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()

    torch.manual_seed(args.seed)
    gen = torch.Generator().manual_seed(args.seed)
    modes = make_modes(args.seq_size, args.n_modes, args.modes_seed)
    target = ExactBitSequenceReward(modes, args.word_size, args.beta)
    proxy = ProxyReward(args.word_size, args.seq_size, hidden=64)
    optimizer = torch.optim.Adam(proxy.parameters(), lr=3e-3)
    for step in range(args.steps):
        x = training_data(modes, args.word_size, 256, gen)
        loss = (proxy(x) - target(x)).pow(2).mean()
        optimizer.zero_grad()
        loss.backward()
        optimizer.step()
    test = training_data(modes, args.word_size, 4096, gen)
    with torch.no_grad():
        error = (proxy(test) - target(test)).abs().mean().item()
    print(f"proxy: mean |log R error| {error:.3f} on 4096 held-out sequences "
          f"(log R spans {target(test).min().item():.0f} .. 0)")
    torch.jit.save(torch.jit.script(proxy.eval()), args.out)
    print(f"wrote {args.out}")


if __name__ == "__main__":
    main()
