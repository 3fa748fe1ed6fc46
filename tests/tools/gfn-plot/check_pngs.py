#!/usr/bin/python3
"""Checks a run directory after gfn-train with output.plots=true (docs/outputs.md "Plots"): every
PNG tools/gfn-plot writes exists, is a non-empty PNG of the expected pixel size, and the
data files it reads were written. --density (a continuous run): density.csv has the grid
columns and three densities each summing to 1 (p_true "nan" only beyond 2 dimensions, where
the grid is 2-D), and distribution.png holds heat maps or curves, not a one-line note.
--skipped NAME ...: PNGs that must not be drawn (no data), each named with its reason by a
"gfn-plot: skipped NAME: <why>" line of RUN_DIR.log (run_plots_e2e.sh keeps the log there).
--samples K (a continuous run with exact samples of a target in K dimensions): one
samples/validation_<iteration>.npy per metrics.csv row, float32 [2, n, K] with n =
min(validation.n_samples, 2000); sample_metrics.csv with a row per file whose w2 equals a
direct POT call (sqrt of ot.emd2 on squared Euclidean costs) on that file and a positive mmd;
samples.png and sample_distance.png of the documented size.
Usage: check_pngs.py RUN_DIR [--density] [--samples K] [--skipped NAME ...] [--data FILE ...]
(default: DATA_FILES). Exit code 1 on a failure."""

import csv
import math
import os
import struct
import sys

EXPECTED = {  # name -> (width, height) in pixels, as docs/outputs.md "Plots" documents
    "distribution.png": (1200, 500),
    "quality.png": (1200, 1000),
    "loss.png": (1200, 500),
    "modes.png": (1200, 500),
    "timing.png": (1200, 500),
    "modes_agents.png": (1200, 500),
}
DATA_FILES = ("metrics.csv", "training.csv", "distribution.csv", "timing.json", "config.yaml",
              "modes_timeline.csv", "buffer_manager_2.json")


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    if len(head) < 24 or head[:8] != b"\x89PNG\r\n\x1a\n" or head[12:16] != b"IHDR":
        raise ValueError(f"{path}: not a PNG")
    return struct.unpack(">II", head[16:24])


def check_density(run_dir):
    """The failures of density.csv and of the distribution.png drawn from it."""
    failures = []
    with open(os.path.join(run_dir, "density.csv"), newline="") as f:
        rows = list(csv.reader(f))
    header, values = rows[0], [[float(v) for v in r] for r in rows[1:] if r]
    coords = [c for c in header if c.startswith("x")]
    if header[len(coords):] != ["p_learned", "p_target", "p_true"] or coords not in (
            ["x0"], ["x0", "x1"]):
        return [f"density.csv: header {header}"]
    if len(values) != 100 ** len(coords):
        failures.append(f"density.csv: {len(values)} rows, expected 100^{len(coords)}")
    for j, name in enumerate(header[len(coords):], start=len(coords)):
        column = [r[j] for r in values]
        if name == "p_true" and all(math.isnan(v) for v in column):
            continue  # d > 2: no marginal in closed form
        total = sum(column)
        if abs(total - 1) > 1e-6 or min(column) < 0:
            failures.append(f"density.csv: {name} sums to {total} (min {min(column)})")
    size = os.path.getsize(os.path.join(run_dir, "distribution.png"))
    if size < 30000:  # a note on white is ~10 kB, two heat maps with colour bars ~60 kB
        failures.append(f"distribution.png: only {size} bytes (no density drawn?)")
    return failures


SAMPLE_PNGS = {"samples.png": (1200, 500), "sample_distance.png": (1200, 500)}


def check_samples(run_dir, dim):
    """The failures of samples/*.npy, sample_metrics.csv and the PNGs drawn from them."""
    import numpy as np
    import ot
    import yaml
    failures = []
    with open(os.path.join(run_dir, "config.yaml")) as f:
        n = min(int(yaml.safe_load(f)["validation"]["n_samples"]), 2000)
    with open(os.path.join(run_dir, "metrics.csv"), newline="") as f:
        iterations = [int(r["iteration"]) for r in csv.DictReader(f)]
    try:
        with open(os.path.join(run_dir, "sample_metrics.csv"), newline="") as f:
            rows = {int(r["iteration"]): r for r in csv.DictReader(f)}
    except OSError:
        return ["sample_metrics.csv missing"]
    if sorted(rows) != iterations:
        failures.append(f"sample_metrics.csv iterations {sorted(rows)}, metrics.csv {iterations}")
    for it in iterations:
        path = os.path.join(run_dir, "samples", f"validation_{it:08d}.npy")
        if not os.path.isfile(path):
            failures.append(f"{path} missing")
            continue
        data = np.load(path)
        if data.dtype != np.float32 or data.shape != (2, n, dim):
            failures.append(f"{path}: {data.dtype} {data.shape}, expected float32 (2, {n}, {dim})")
            continue
        if it in rows:
            a, b = data[0].astype(np.float64), data[1].astype(np.float64)
            direct = math.sqrt(ot.emd2(ot.unif(n), ot.unif(n), ot.dist(a, b), numItermax=10**7))
            w2, mmd = float(rows[it]["w2"]), float(rows[it]["mmd"])
            if not math.isclose(w2, direct, rel_tol=1e-6):
                failures.append(f"iteration {it}: w2 {w2} != direct ot.emd2 {direct}")
            if not mmd > 0:
                failures.append(f"iteration {it}: mmd {mmd} not > 0")
    for name, size in SAMPLE_PNGS.items():
        path = os.path.join(run_dir, name)
        if not os.path.isfile(path) or os.path.getsize(path) < 5000:
            failures.append(f"{name} missing or blank")
        elif png_size(path) != size:
            failures.append(f"{name}: {png_size(path)} pixels, expected {size}")
    if not failures:
        print(f"check_pngs: {len(iterations)} sample files of [2, {n}, {dim}], their w2 as "
              "ot.emd2 gives, samples.png and sample_distance.png")
    return failures


def check_skipped(run_dir, skipped):
    """The failures of the PNGs that must be skipped: absent, and the log says why."""
    failures = []
    try:
        with open(run_dir + ".log") as f:
            log = f.read()
    except OSError:
        log = ""
    for name in skipped:
        if os.path.exists(os.path.join(run_dir, name)):
            failures.append(f"{name} drawn without data")
        if f"gfn-plot: skipped {name}: " not in log:
            failures.append(f"{run_dir}.log does not say why {name} is skipped")
    return failures


def main(run_dir, data_files, density=False, skipped=(), samples_dim=None):
    failures = check_density(run_dir) if density else []
    if samples_dim is not None:
        failures += check_samples(run_dir, samples_dim)
    failures += check_skipped(run_dir, skipped)
    for name in data_files:
        if not os.path.isfile(os.path.join(run_dir, name)):
            failures.append(f"{name} missing")
    for name, size in EXPECTED.items():
        if name in skipped:
            continue
        path = os.path.join(run_dir, name)
        if not os.path.isfile(path):
            failures.append(f"{name} missing")
            continue
        if os.path.getsize(path) < 5000:  # a blank 1200x500 PNG is ~3 kB
            failures.append(f"{name}: only {os.path.getsize(path)} bytes")
        try:
            actual = png_size(path)
        except ValueError as e:
            failures.append(str(e))
            continue
        if actual != size:
            failures.append(f"{name}: {actual[0]}x{actual[1]} pixels, expected {size[0]}x{size[1]}")
    for f in failures:
        print(f"check_pngs: {f}", file=sys.stderr)
    if not failures:
        print(f"check_pngs: {len(EXPECTED) - len(skipped)} PNGs of the expected size in "
              f"{run_dir}" + (f", {', '.join(skipped)} skipped with a reason" if skipped else ""))
    return 1 if failures else 0


def option_values(args, flag):
    """The values after `flag` up to the next --option (None when `flag` is absent)."""
    if flag not in args:
        return None
    values = []
    for a in args[args.index(flag) + 1:]:
        if a.startswith("--"):
            break
        values.append(a)
    return values


if __name__ == "__main__":
    args = sys.argv[1:]
    data = option_values(args, "--data")
    sys.exit(main(args[0], DATA_FILES if data is None else data, density="--density" in args,
                  skipped=tuple(option_values(args, "--skipped") or ()),
                  samples_dim=int(option_values(args, "--samples")[0]) if "--samples" in args
                  else None))
