#!/usr/bin/python3
"""Checks a run directory after gfn-train with output.plots=true (docs/outputs.md "Plots"): every
PNG tools/gfn-plot writes exists, is a non-empty PNG of the expected pixel size, and the
data files it reads were written.
Usage: check_pngs.py RUN_DIR [--data FILE ...] (default: DATA_FILES). Exit code 1 on a failure."""

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


def main(run_dir, data_files):
    failures = []
    for name in data_files:
        if not os.path.isfile(os.path.join(run_dir, name)):
            failures.append(f"{name} missing")
    for name, size in EXPECTED.items():
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
        print(f"check_pngs: {len(EXPECTED)} PNGs of the expected size in {run_dir}")
    return 1 if failures else 0


if __name__ == "__main__":
    args = sys.argv[1:]
    data = args[args.index("--data") + 1:] if "--data" in args else DATA_FILES
    sys.exit(main(args[0], data))
