#!/usr/bin/python3
"""Checks the figures an example's README.md states against a run of its commands, each to the
precision it is printed with (half a unit of its last digit): "0.0198" holds for
[0.01975, 0.01985], "5e-6" for [4.5e-6, 5.5e-6], an integer exactly.

  check_readme_figures.py RUN_DIR NAME=FIGURE ...

NAME is a key of summary.json (iterations, l1_exact, l1_sampled, logz_error, ...), or:
  first_l1      l1_exact of the first validation (metrics.csv's first row);
  states        terminating states validated (distribution.csv's rows);
  Z             the partition function, exp(log Z) with log Z = summary.json's logz +- its
                logz_error (the README's "log Z = log 6112"), to the nearest integer;
  uniform_l1    the exact L1 of the uniform PF over the terminating states: sum over them of
                |1 / n - R(x) / Z| (distribution.csv's p_true).
Exit code 1 when a figure differs (each printed), 0 otherwise.
"""

import csv
import json
import math
import os
import sys
from decimal import Decimal


def tolerance(text):
    return 0.5 * 10.0 ** Decimal(text).as_tuple().exponent


def measured(run, name):
    summary = json.load(open(os.path.join(run, "summary.json")))
    dist = list(csv.DictReader(open(os.path.join(run, "distribution.csv"))))
    if name == "first_l1":
        return float(next(csv.DictReader(open(os.path.join(run, "metrics.csv"))))["l1_exact"])
    if name == "states":
        return len(dist)
    if name == "Z":
        return math.exp(summary["logz"] + summary["logz_error"])  # within logz_error of either
    if name == "uniform_l1":
        return sum(abs(1.0 / len(dist) - float(r["p_true"])) for r in dist)
    return summary[name]


def main(run, figures):
    failures = 0
    for item in figures:
        name, text = item.split("=", 1)
        got = measured(run, name)
        if name == "Z":  # log Z = log(text) within the run's own logz_error
            summary = json.load(open(os.path.join(run, "summary.json")))
            ok = abs(summary["logz"] - math.log(float(text))) <= summary["logz_error"] + 1e-6
        else:
            ok = abs(got - float(text)) <= tolerance(text) * (1 + 1e-9)
        print(f"{name}: README {text}, run {got:.6g}: {'ok' if ok else 'DIFFERS'}")
        failures += 0 if ok else 1
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2:]))
