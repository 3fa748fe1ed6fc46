#!/usr/bin/python3
"""tools/plotting/sample_metrics.py and tools/gfn-sample-metrics (docs/outputs.md
"sample_metrics.csv"): w2 equals the exact optimal assignment of scipy's
linear_sum_assignment (equal sizes), POT's ot.emd2 called directly (unequal sizes) and the sorted
matching in 1-D; mmd equals gfn-diffusion's mix_rbf_mmd2(biased=True) written out with torch
(the kernel matrix of the concatenated sets), is 0 for identical sets and grows with a shift.
On synthetic run directories: one sample_metrics.csv row per samples/validation_*.npy with
those values, rows reused when their file is not newer and recomputed when it is, a malformed
file refused (exit 2, naming it), no file without samples (exit 0, saying why), and a clear
error naming python3-pot when POT cannot be imported (exit 2).
Usage: sample_metrics_test.py TOOLS_DIR WORK_DIR. Exit code 1 on a failure."""

import csv
import math
import os
import shutil
import subprocess
import sys
import time

import numpy as np
import ot
import torch
from scipy.optimize import linear_sum_assignment

TOOLS = sys.argv[1]
sys.path.insert(0, TOOLS)
from plotting import sample_metrics  # noqa: E402

FAILURES = []


def expect(condition, what):
    if not condition:
        FAILURES.append(what)


def close(a, b, rel=1e-9, abs_=1e-12):
    return math.isclose(a, b, rel_tol=rel, abs_tol=abs_)


def gfn_diffusion_mmd(x, y, sigmas=(0.01, 0.1, 1, 10, 100)):
    """energy_sampling/sample_metrics.py _mix_rbf_kernel + _mmd2(biased=True), float64."""
    x, y = torch.tensor(x, dtype=torch.float64), torch.tensor(y, dtype=torch.float64)
    m = x.size(0)
    z = torch.cat((x, y), 0)
    zzt = z @ z.t()
    diag = torch.diag(zzt).unsqueeze(1).expand_as(zzt)
    exponent = diag - 2 * zzt + diag.t()
    k = sum(torch.exp(-exponent / (2 * s ** 2)) for s in sigmas)
    k_xx, k_xy, k_yy = k[:m, :m], k[:m, m:], k[m:, m:]
    return float(k_xx.sum() / m ** 2 + k_yy.sum() / m ** 2 - 2 * k_xy.sum() / m ** 2)


def check_formulas():
    rng = np.random.default_rng(0)
    for d in (2, 5, 32):
        x = rng.normal(size=(60, d))
        y = rng.normal(size=(60, d)) * 1.5 + 0.7
        cost = ((x[:, None, :] - y[None, :, :]) ** 2).sum(-1)
        rows, cols = linear_sum_assignment(cost)
        expected = math.sqrt(cost[rows, cols].mean())
        w2 = sample_metrics.wasserstein2(x, y)
        expect(close(w2, expected, rel=1e-7), f"d={d}: w2 {w2} != assignment {expected}")
        mmd = sample_metrics.rbf_mmd2(x, y)
        ref = gfn_diffusion_mmd(x, y)
        expect(close(mmd, ref, rel=1e-9, abs_=1e-12), f"d={d}: mmd {mmd} != gfn-diffusion {ref}")
        expect(mmd > 0, f"d={d}: mmd {mmd} of shifted sets not > 0")
        expect(abs(sample_metrics.rbf_mmd2(x, x)) < 1e-12, f"d={d}: mmd(x, x) != 0")
        expect(sample_metrics.wasserstein2(x, x) < 1e-9, f"d={d}: w2(x, x) != 0")
    x, y = rng.normal(size=(30, 3)), rng.normal(size=(45, 3)) + 1.0
    direct = math.sqrt(ot.emd2(ot.unif(30), ot.unif(45), ot.dist(x, y)))
    expect(close(sample_metrics.wasserstein2(x, y), direct), "unequal sizes: w2 != ot.emd2")
    a, b = rng.normal(size=(200, 1)), rng.exponential(size=(200, 1))
    sorted_match = math.sqrt(((np.sort(a[:, 0]) - np.sort(b[:, 0])) ** 2).mean())
    expect(close(sample_metrics.wasserstein2(a, b), sorted_match, rel=1e-7),
           "1-D: w2 != the sorted matching")
    # A translation moves every point by |shift|: W2 of a set and its translate is |shift|.
    shift = np.array([3.0, -4.0])
    x = rng.normal(size=(80, 2))
    expect(close(sample_metrics.wasserstein2(x, x + shift), 5.0, rel=1e-7), "translation: w2 != 5")


def write_samples(run, iteration, learned, exact):
    os.makedirs(os.path.join(run, "samples"), exist_ok=True)
    path = os.path.join(run, "samples", f"validation_{iteration:08d}.npy")
    np.save(path, np.stack([learned, exact]).astype(np.float32))
    return path


def tool(*args, env=None):
    return subprocess.run([sys.executable, os.path.join(TOOLS, "gfn-sample-metrics"), *args],
                          capture_output=True, text=True, env=env)


def read_rows(run):
    with open(os.path.join(run, "sample_metrics.csv"), newline="") as f:
        return list(csv.DictReader(f))


def check_run_dirs(work):
    rng = np.random.default_rng(1)
    run = os.path.join(work, "run")
    os.makedirs(run)
    sets = {100: (rng.normal(size=(50, 2)), rng.normal(size=(50, 2)) + 2.0),
            200: (rng.normal(size=(50, 2)), rng.normal(size=(50, 2)) + 0.5)}
    for it, (learned, exact) in sets.items():
        write_samples(run, it, learned, exact)
    r = tool(run)
    expect(r.returncode == 0, f"gfn-sample-metrics failed: {r.stderr}")
    rows = read_rows(run)
    expect(list(rows[0].keys()) == ["iteration", "n_samples", "dim", "w2", "mmd"],
           f"header {list(rows[0].keys())}")
    expect([int(row["iteration"]) for row in rows] == [100, 200], f"rows {rows}")
    for row in rows:
        learned, exact = (s.astype(np.float32) for s in sets[int(row["iteration"])])
        w2 = sample_metrics.wasserstein2(learned, exact)
        expect(close(float(row["w2"]), w2, rel=1e-8), f"csv w2 {row['w2']} != {w2}")
        mmd = gfn_diffusion_mmd(learned, exact)
        expect(close(float(row["mmd"]), mmd, rel=1e-7), f"csv mmd {row['mmd']} != {mmd}")
        expect(row["n_samples"] == "50" and row["dim"] == "2", f"row {row}")
    expect(float(rows[0]["w2"]) > float(rows[1]["w2"]), "the farther set has the smaller w2")
    # A newer sample file is recomputed, an older one reused.
    time.sleep(1.1)
    write_samples(run, 200, sets[100][0], sets[100][0])
    tool(run)
    rows = read_rows(run)
    expect(float(rows[1]["w2"]) < 1e-6, f"rewritten file not recomputed: {rows[1]}")
    expect(close(float(rows[0]["w2"]), sample_metrics.wasserstein2(
        *(s.astype(np.float32) for s in sets[100])), rel=1e-8), "row 100 changed")
    # Malformed: float64, or not [2, n, k].
    bad = os.path.join(work, "bad")
    os.makedirs(os.path.join(bad, "samples"))
    np.save(os.path.join(bad, "samples", "validation_00000001.npy"), np.zeros((3, 4, 2)))
    r = tool(bad)
    expect(r.returncode == 2 and "validation_00000001.npy" in r.stderr,
           f"malformed file: exit {r.returncode}, {r.stderr}")
    # No samples: no file, a reason, exit 0.
    empty = os.path.join(work, "empty")
    os.makedirs(empty)
    r = tool(empty)
    expect(r.returncode == 0 and "no samples" in r.stdout and
           not os.path.exists(os.path.join(empty, "sample_metrics.csv")),
           f"run without samples: exit {r.returncode}, {r.stdout}")
    # POT missing: a module 'ot' that cannot be imported shadows python3-pot.
    shadow = os.path.join(work, "no_pot")
    os.makedirs(os.path.join(shadow, "ot"))
    with open(os.path.join(shadow, "ot", "__init__.py"), "w") as f:
        f.write("raise ImportError('simulated: POT not installed')\n")
    os.remove(os.path.join(run, "sample_metrics.csv"))
    r = tool(run, env=dict(os.environ, PYTHONPATH=shadow))
    expect(r.returncode == 2 and "python3-pot" in r.stderr and "POT" in r.stderr,
           f"POT missing: exit {r.returncode}, {r.stderr}")


def main():
    work = sys.argv[2]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    check_formulas()
    check_run_dirs(work)
    for f in FAILURES:
        print(f"sample_metrics_test: {f}", file=sys.stderr)
    if not FAILURES:
        print("sample_metrics_test: ok")
    return 1 if FAILURES else 0


if __name__ == "__main__":
    sys.exit(main())
