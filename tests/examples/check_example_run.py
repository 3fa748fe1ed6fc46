#!/usr/bin/python3
"""Checks a finished gfn-train run of an example plugin against torchgfn's definition of its
environment (docs/environments.md "torchgfn's SetAddition and PerfectBinaryTree (plugins)").

  check_example_run.py --run DIR --reference MODULE.py [--max-ratio 0.5]

MODULE.py is the transcription of torchgfn's environment (tests/examples/compare_env.py explains
it); the environment's options are read back from the run's config.yaml (env.options, every
option written by the plugin loader). Checked:
  - distribution.csv lists torchgfn's terminating states, each once, and its p_true is
    torchgfn's R(x) / Z (relative 1e-5);
  - summary.json's l1_exact is sum_x |p_learned(x) - R(x)/Z| recomputed from those (1e-5);
  - the run learned: the last validation's l1_exact (metrics.csv) is at most --max-ratio times the
    first one's.
Exit code 0 when all hold, 1 otherwise (each failure printed).
"""

import argparse
import csv
import importlib.util
import json
import math
import os
import sys

import yaml


def load_reference(path):
    spec = importlib.util.spec_from_file_location("reference", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def options_of(run):
    with open(os.path.join(run, "config.yaml")) as f:
        options = yaml.safe_load(f)["env"]["options"]
    # The loader keeps each value as the text of its scalar; read it as YAML would.
    return {k: yaml.safe_load(v) if isinstance(v, str) else v for k, v in options.items()}


def read_csv(path):
    with open(path, newline="") as f:
        return list(csv.DictReader(f))


def check_distribution(run, env, failures):
    term = env.terminating_states()
    rewards = env.reward_fn(term).double()
    truth = {tuple(row): float(r) / float(rewards.sum()) for row, r in zip(term.tolist(), rewards)}
    rows = read_csv(os.path.join(run, "distribution.csv"))
    dim = term.shape[1]
    seen, l1 = set(), 0.0
    for row in rows:
        x = tuple(int(row[f"x{i}"]) for i in range(dim))
        if x not in truth or x in seen:
            failures.append(f"distribution.csv: {x} is not a new torchgfn terminating state")
            continue
        seen.add(x)
        if not math.isclose(float(row["p_true"]), truth[x], rel_tol=1e-5, abs_tol=1e-9):
            failures.append(f"distribution.csv: p_true{x} = {row['p_true']}, R/Z = {truth[x]}")
        l1 += abs(float(row["p_learned"]) - truth[x])
    if len(seen) != len(truth):
        failures.append(f"distribution.csv: {len(seen)} states, torchgfn has {len(truth)}")
    return l1


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--run", required=True)
    parser.add_argument("--reference", required=True)
    parser.add_argument("--max-ratio", type=float, default=0.5)
    args = parser.parse_args()
    env = load_reference(args.reference).make(options_of(args.run))
    failures = []
    l1 = check_distribution(args.run, env, failures)
    with open(os.path.join(args.run, "summary.json")) as f:
        summary = json.load(f)
    if not math.isclose(summary["l1_exact"], l1, rel_tol=1e-5, abs_tol=1e-5):
        failures.append(f"summary.json l1_exact {summary['l1_exact']} != recomputed {l1}")
    metrics = read_csv(os.path.join(args.run, "metrics.csv"))
    first, last = float(metrics[0]["l1_exact"]), float(metrics[-1]["l1_exact"])
    if not last <= args.max_ratio * first:
        failures.append(f"l1_exact {first} -> {last}: not below {args.max_ratio} of the first")
    for f in failures:
        print(f"FAILED: {f}")
    print(f"{'ok' if not failures else 'FAILED'}: {args.run}: l1_exact {first:.5f} (iteration "
          f"{metrics[0]['iteration']}) -> {last:.5f} (iteration {metrics[-1]['iteration']}), "
          f"recomputed {l1:.5f} over {env.n_terminating_states()} terminating states")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
