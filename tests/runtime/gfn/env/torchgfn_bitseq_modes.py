#!/usr/bin/python3
"""Writes the mode sets torchgfn's NonAutoregressiveBitSequence draws (its _make_modes, in
src/gfn/gym/bitSequenceNonAutoregressive.py), computed with Debian's python3-torch, for
non_autoregressive_bit_sequence_test.cc to compare with the C++ environment's (a ctest fixture).

  torchgfn_bitseq_modes.py OUT

Each line of OUT is one case: `seq_size n_modes seed` then the n_modes x seq_size mode bits,
row-major. The draws follow torchgfn's procedure: torch.manual_seed(seed); for seq_size < 8 one
torch.randint(0, 2, (n_modes, seq_size)); otherwise candidates of seq_size // 8 block indices, each
one torch.randint(0, 5, (seq_size // 8,)) draw, a candidate drawn before being skipped, until
n_modes distinct ones exist, each mode the concatenation of its blocks.
"""

import sys

import torch

# The TB paper's 8-bit blocks, in torchgfn's order.
BLOCKS = [
    [0, 0, 0, 0, 0, 0, 0, 0],
    [1, 1, 1, 1, 1, 1, 1, 1],
    [1, 1, 1, 1, 0, 0, 0, 0],
    [0, 0, 0, 0, 1, 1, 1, 1],
    [0, 0, 1, 1, 1, 1, 0, 0],
]

# (seq_size, n_modes, seed): the benchmark's two scenarios (seed 0, torchgfn's default), all 5
# one-block modes, longer sequences with rejections, and the random modes of short sequences.
CASES = [(8, 2, 0), (8, 4, 0), (8, 5, 3), (16, 7, 1), (24, 20, 5), (4, 2, 0), (6, 3, 11)]


def modes(seq_size, n_modes, seed):
    torch.manual_seed(seed)
    n_blocks = seq_size // 8
    if n_blocks == 0:
        return torch.randint(0, 2, (n_modes, seq_size), dtype=torch.long).flatten().tolist()
    drawn = []
    while len(drawn) < n_modes:
        candidate = tuple(torch.randint(0, 5, (n_blocks,)).tolist())
        if candidate not in drawn:
            drawn.append(candidate)
    return [bit for candidate in drawn for block in candidate for bit in BLOCKS[block]]


def main():
    with open(sys.argv[1], "w") as out:
        for seq_size, n_modes, seed in CASES:
            values = [seq_size, n_modes, seed] + modes(seq_size, n_modes, seed)
            out.write(" ".join(str(v) for v in values) + "\n")


if __name__ == "__main__":
    main()
