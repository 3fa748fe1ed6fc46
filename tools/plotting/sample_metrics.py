"""Sample distances of a continuous run to its target (docs/outputs.md "Sample distances").

Each validation of a continuous environment with exact samples of its target writes
samples/validation_<iteration, 8 digits>.npy (runtime/output/validation_samples.h): float32
[2, n, k], row 0 the learned sampler's terminating states, row 1 as many exact samples of
R / Z, in the target's coordinates. From each file:

  w2   the exact 2-Wasserstein distance between the two empirical distributions (uniform
       weights): sqrt(ot.emd2(a, b, M)) with M the squared Euclidean costs (float64), as
       gfn-diffusion's energy_sampling/sample_metrics.py `wasserstein(power=2)`;
  mmd  the squared RBF MMD, biased (V-statistic), with the sum of the kernels
       exp(-|x - y|^2 / (2 sigma^2)) for sigma in 0.01, 0.1, 1, 10, 100: gfn-diffusion's
       `mix_rbf_mmd2(biased=True)`, reported there as RBF_MMD.

Optimal transport is POT's (Debian python3-pot, tools/setup.sh); PotMissing says how to install
it. Cost: the exact transport of n = 2,000 against 2,000 points takes seconds (network simplex
on a 2,000 x 2,000 cost matrix); the MMD three n x n kernel sums. update() reuses the rows of an
existing sample_metrics.csv whose sample file is not newer than it.
"""

import csv
import math
import os

import numpy as np

from plotting.run_dir import (SAMPLE_METRICS_COLUMNS, DataError, read_numeric_csv, read_samples,
                              sample_files)

CSV_NAME = "sample_metrics.csv"
COLUMNS = SAMPLE_METRICS_COLUMNS
MMD_SIGMAS = (0.01, 0.1, 1.0, 10.0, 100.0)


class PotMissing(Exception):
    """POT (Python Optimal Transport) cannot be imported; str(e) says how to install it."""


def _ot():
    try:
        import ot
    except ImportError as e:
        raise PotMissing("POT (Python Optimal Transport, module 'ot') is not installed: "
                         f"{e}; install python3-pot (tools/setup.sh installs it)") from None
    return ot


def wasserstein2(x, y):
    """Exact 2-Wasserstein distance between the empirical distributions of x [n, k] and
    y [m, k] (uniform weights), with POT's network simplex (ot.emd2) in float64."""
    ot = _ot()
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)
    cost = ot.dist(x, y, metric="sqeuclidean")
    w2_squared = ot.emd2(ot.unif(len(x)), ot.unif(len(y)), cost, numItermax=10_000_000)
    return math.sqrt(max(float(w2_squared), 0.0))


def rbf_mmd2(x, y, sigmas=MMD_SIGMAS):
    """Biased squared MMD of x [n, k] and y [m, k] with the sum of RBF kernels of bandwidths
    `sigmas`: mean K(x, x') + mean K(y, y') - 2 mean K(x, y), in float64."""
    x = np.asarray(x, dtype=np.float64)
    y = np.asarray(y, dtype=np.float64)

    def kernel_mean(a, b):
        squared = np.maximum((a * a).sum(1)[:, None] + (b * b).sum(1)[None, :] - 2 * a @ b.T, 0)
        return sum(np.exp(-squared / (2 * s * s)).mean() for s in sigmas)

    return float(kernel_mean(x, x) + kernel_mean(y, y) - 2 * kernel_mean(x, y))


def _cached_rows(run_path):
    """{iteration: row} of an existing sample_metrics.csv (none when unreadable)."""
    path = os.path.join(run_path, CSV_NAME)
    if not os.path.exists(path):
        return {}, 0.0
    try:
        columns = read_numeric_csv(path, COLUMNS)
    except DataError:
        return {}, 0.0
    rows = zip(*(columns[c] for c in COLUMNS))
    return {int(r[0]): dict(zip(COLUMNS, r)) for r in rows}, os.path.getmtime(path)


def update(run_path):
    """Writes run_path/sample_metrics.csv (COLUMNS, one row per sample file, by iteration) and
    returns its path; None, writing nothing, when the run has no sample files (validation
    off, or no exact samples of the target). Raises PotMissing, or DataError for a
    malformed sample file."""
    files = sample_files(run_path)
    if not files:
        return None
    cached, written_at = _cached_rows(run_path)
    rows = []
    for iteration, path in files:
        if iteration in cached and os.path.getmtime(path) <= written_at:
            rows.append(cached[iteration])
            continue
        learned, exact = read_samples(path)
        rows.append({"iteration": iteration, "n_samples": len(learned), "dim": learned.shape[1],
                     "w2": wasserstein2(learned, exact), "mmd": rbf_mmd2(learned, exact)})
    out = os.path.join(run_path, CSV_NAME)
    with open(out + ".tmp", "w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(COLUMNS)
        for r in rows:
            writer.writerow([int(r["iteration"]), int(r["n_samples"]), int(r["dim"]),
                             f"{r['w2']:.9g}", f"{r['mmd']:.9g}"])
    os.replace(out + ".tmp", out)
    return out
