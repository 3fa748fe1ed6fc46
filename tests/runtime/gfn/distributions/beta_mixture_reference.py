#!/usr/bin/env python3
"""Writes reference values of a mixture of Beta distributions with Debian's python3-torch,
for beta_mixture_test.cc (runtime/gfn/distributions/beta_mixture.h):
  log_prob: torch.distributions.MixtureSameFamily(Categorical(logits), Beta(alpha, beta))
            .log_prob(x), an implementation independent of ours;
  samples:  torch.manual_seed(SEED), then Categorical(logits).sample() and the chosen
            component's Beta(alpha, beta).sample() (torchgfn's _sample_beta_mixture), drawn
            from the default generator.
Each case is one block of text: "case K B D", then lines "name v1 v2 ..." of float32 values
(9 significant digits: exact round trips) for log_weights, alpha, beta [B, D, K] and x,
log_prob, samples [B, D].
    beta_mixture_reference.py OUTFILE
"""
import sys

import torch
from torch.distributions import Beta, Categorical, MixtureSameFamily

SEED = 1234


def case(k: int, b: int, d: int, out) -> None:
    log_weights = torch.randn(b, d, k).log_softmax(-1)
    alpha = 0.1 + 99.9 * torch.sigmoid(2.0 * torch.randn(b, d, k))
    beta = 0.1 + 99.9 * torch.sigmoid(2.0 * torch.randn(b, d, k))
    x = torch.rand(b, d).clamp(1e-6, 1 - 1e-6)
    mixture = MixtureSameFamily(Categorical(logits=log_weights), Beta(alpha, beta))
    log_prob = mixture.log_prob(x)
    torch.manual_seed(SEED)
    component = Categorical(logits=log_weights).sample().unsqueeze(-1)
    samples = Beta(alpha.gather(-1, component).squeeze(-1),
                   beta.gather(-1, component).squeeze(-1)).sample()
    out.write(f"case {k} {b} {d}\n")
    for name, t in [("log_weights", log_weights), ("alpha", alpha), ("beta", beta), ("x", x),
                    ("log_prob", log_prob), ("samples", samples)]:
        out.write(name + " " + " ".join(f"{v:.9g}" for v in t.reshape(-1).tolist()) + "\n")


def main() -> None:
    torch.manual_seed(0)
    with open(sys.argv[1], "w") as out:
        for k, b, d in [(1, 16, 2), (5, 64, 2), (3, 9, 1)]:
            case(k, b, d, out)


if __name__ == "__main__":
    main()
