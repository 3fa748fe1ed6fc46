"""Reference values for runtime/gfn/targets/ (targets_test.cc), computed as torchgfn does:
gmm2's parameters by torchgfn's SimpleGaussianMixture construction (numpy default_rng(3),
scipy's Wishart), the Gaussian mixtures' and the funnel's log densities by torch.distributions.

    targets_reference.py OUT

Writes lines "params gmm2 <locations 4> <covariances 8> <weights 2>" and
"point <target> <dim> <x_1 .. x_d> <log R(x)>".
"""
import math
import sys

import numpy as np
import torch
import torch.distributions as D
from scipy.stats import wishart


def gmm2_parameters():
    rng = np.random.default_rng(3)
    locs = rng.uniform(-10.0, 10.0, size=(2, 2))
    covs = np.array([wishart.rvs(df=4, scale=np.eye(2), random_state=rng) for _ in range(2)])
    w = rng.uniform(0.3, 0.7, size=2)
    return locs, covs, w / w.sum()


def mixture(locs, covs, w):
    return D.MixtureSameFamily(
        D.Categorical(probs=torch.tensor(w, dtype=torch.float64)),
        D.MultivariateNormal(loc=torch.tensor(locs, dtype=torch.float64),
                             covariance_matrix=torch.tensor(covs, dtype=torch.float64)))


def grid25():
    locs = np.array([(a, b) for a in [-10, -5, 0, 5, 10] for b in [-10, -5, 0, 5, 10]], float)
    return mixture(locs, np.stack([0.3 * np.eye(2)] * 25), np.full(25, 1 / 25))


def funnel_log_prob(x):
    x0 = x[:, 0]
    rest = D.Normal(torch.zeros_like(x[:, 1:]), torch.exp(0.5 * x[:, :1]).expand_as(x[:, 1:]))
    return D.Normal(0.0, 1.0).log_prob(x0) + rest.log_prob(x[:, 1:]).sum(1)


def main():
    out = open(sys.argv[1], "w")
    locs, covs, w = gmm2_parameters()
    values = list(locs.ravel()) + list(covs.ravel()) + list(w)
    out.write("params gmm2 " + " ".join(repr(float(v)) for v in values) + "\n")
    g = torch.Generator().manual_seed(0)
    cases = [("gmm2", mixture(locs, covs, w).log_prob, 2),
             ("grid25", grid25().log_prob, 2),
             ("funnel", funnel_log_prob, 5)]
    for name, log_prob, dim in cases:
        x = (torch.rand(8, dim, generator=g, dtype=torch.float64) - 0.5) * 16.0
        if name == "funnel":
            x[:, 0] = x[:, 0] / 3.0  # x0 in [-2.7, 2.7]: the funnel's neck and mouth
        lp = log_prob(x)
        for row, v in zip(x.tolist(), lp.tolist()):
            out.write(f"point {name} {dim} " + " ".join(repr(c) for c in row) + f" {v!r}\n")
    out.close()


if __name__ == "__main__":
    main()
