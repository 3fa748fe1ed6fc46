#!/usr/bin/env python3
"""Compares the run directory of a restarted job with a fault-free run of the same experiment.

    compare_run_dirs.py REF_DIR RUN_DIR

A restarted job's run directory must be the one a fault-free run writes (docs/checkpoints.md
"Automatic restart"): the same files, and in each file the same bits where the run is
deterministic, the same rows and keys otherwise. What may differ, and only that:
  - times and memory: every CSV column and JSON key ending in "_s" or "_ms", "cpu_s",
    "ms_per_iteration*", "peak_rss_mb", the seconds of the timing report (timing.json: same
    roles, ranks and steps);
  - a buffer manager's modes_timeline points (the arrival order of the trainers' DATA is not
    deterministic): both rise to the same number of modes;
  - the record of the attempts: restarts.jsonl (only after a restart), attempts.jsonl and
    summary.json's "restarts" and "attempts";
  - config.yaml's output.dir and launch.restart_* values; checkpoint rank files (they hold the
    times too: same directories and file names).
Prints every difference and exits 1 when there is one, 0 otherwise.
"""
import csv
import json
import sys
from pathlib import Path

RESTART_RECORDS = {"restarts.jsonl", "attempts.jsonl"}
SUMMARY_RECORDS = {"restarts", "attempts"}


def is_time_key(key):
    key = str(key)
    return (key.endswith("_s") or key.endswith("_ms") or key.startswith("ms_per_iteration")
            or key == "peak_rss_mb")


def files_of(root):
    return {str(p.relative_to(root)) for p in root.rglob("*") if p.is_file()}


def compare_csv(name, a_path, b_path, problems):
    with open(a_path, newline="") as fa, open(b_path, newline="") as fb:
        a, b = list(csv.reader(fa)), list(csv.reader(fb))
    if not a or not b or a[0] != b[0]:
        problems.append(f"{name}: headers differ: {a[:1]} vs {b[:1]}")
        return
    if len(a) != len(b):
        problems.append(f"{name}: {len(a) - 1} rows in the reference, {len(b) - 1} here")
        return
    kept = [i for i, col in enumerate(a[0]) if not is_time_key(col)]
    for n, (ra, rb) in enumerate(zip(a[1:], b[1:]), start=1):
        if [ra[i] for i in kept if i < len(ra)] != [rb[i] for i in kept if i < len(rb)]:
            problems.append(f"{name}: row {n} differs: {ra} vs {rb}")
            return


def compare_manager_timeline(where, a, b, problems):
    """A buffer manager's [elapsed_s, items_received, modes_found] points: the items at which
    a mode turns up depend on the order the trainers' DATA arrive in (not deterministic), so
    both curves must rise and reach the same number of modes."""
    for name, points in (("the reference", a), ("here", b)):
        if any(q[1] < p[1] or q[2] <= p[2] for p, q in zip(points, points[1:])):
            problems.append(f"{where}: not rising {name}: {points}")
    final = [p[-1][2] if p else 0 for p in (a, b)]
    if final[0] != final[1]:
        problems.append(f"{where}: ends at {final[0]} modes in the reference, {final[1]} here "
                        f"({len(a)} points vs {len(b)})")


def compare_json(where, a, b, problems, values=True):
    """Same keys and array lengths everywhere; equal leaves unless `values` is False (timing)
    or the key is a time."""
    if isinstance(a, dict) and isinstance(b, dict):
        if set(a) != set(b):
            problems.append(f"{where}: keys differ: {sorted(set(a) ^ set(b))}")
        for key in set(a) & set(b):
            if where.endswith("summary.json") and key in SUMMARY_RECORDS:
                continue
            if key == "modes_timeline" and isinstance(a[key], list):
                compare_manager_timeline(f"{where}.modes_timeline", a[key], b[key], problems)
                continue
            compare_json(f"{where}.{key}", a[key], b[key], problems,
                         values and not is_time_key(key))
    elif isinstance(a, list) and isinstance(b, list):
        if len(a) != len(b):
            problems.append(f"{where}: {len(a)} entries in the reference, {len(b)} here")
            return
        for i, (x, y) in enumerate(zip(a, b)):
            compare_json(f"{where}[{i}]", x, y, problems, values)
    elif values and a != b:
        problems.append(f"{where}: {a!r} in the reference, {b!r} here")
    elif type(a) is not type(b) and not (isinstance(a, (int, float)) and
                                         isinstance(b, (int, float))):
        problems.append(f"{where}: a {type(a).__name__} in the reference, a "
                        f"{type(b).__name__} here")


def config_lines(path):
    skip = ("dir:", "restart_count:", "restart_reason:")
    return [line for line in Path(path).read_text().splitlines()
            if not line.strip().startswith(skip)]


def compare_file(name, a, b, problems):
    if name.startswith("checkpoints/") or name.endswith(".png"):
        return  # checkpoint rank files and figures: the same names are enough
    if name == "config.yaml":
        if config_lines(a) != config_lines(b):
            problems.append("config.yaml differs beyond output.dir and launch.restart_*")
    elif name.endswith(".csv"):
        compare_csv(name, a, b, problems)
    elif name.endswith(".json"):
        compare_json(name, json.loads(Path(a).read_text()), json.loads(Path(b).read_text()),
                     problems, values=name != "timing.json")
    elif Path(a).read_bytes() != Path(b).read_bytes():
        problems.append(f"{name}: the bytes differ")


def main():
    ref, run = Path(sys.argv[1]), Path(sys.argv[2])
    a, b = files_of(ref) - RESTART_RECORDS, files_of(run) - RESTART_RECORDS
    problems = []
    if a != b:
        problems.append(f"files only in the reference: {sorted(a - b)}; only here: "
                        f"{sorted(b - a)}")
    for name in sorted(a & b):
        compare_file(name, ref / name, run / name, problems)
    for p in problems:
        print("DIFFERS:", p)
    if not problems:
        print(f"same run directory: {len(a)} files compared")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
