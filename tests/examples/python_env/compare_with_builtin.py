#!/usr/bin/env python3
"""Compares a run of the Python HyperGrid (examples/python_env/hypergrid.py) with a run of the
built-in HyperGrid under the same seed and layout.

    compare_with_builtin.py BUILTIN_DIR PYTHON_DIR PYTHON_NAME

The two run directories must be the same run (tests/tools/compare_run_dirs.py's rules: every
file, each deterministic value bit for bit, times excepted): the same sampled trajectories give
the same losses, metrics, modes and l1_exact. Allowed to differ: config.yaml (its env: section
names the Python class), the attempt records (attempts.jsonl: times) and the environment's name, PYTHON_NAME in the Python run ("hypergrid"
in the other), which labels the run. Prints l1_exact of both and every difference; exits 1 when
there is one (or when no l1_exact was computed), 0 otherwise.
"""
import json
import shutil
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "tools"))
import compare_run_dirs  # noqa: E402


def main():
    builtin, python, name = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
    l1 = [json.loads((d / "summary.json").read_text()).get("l1_exact") for d in (builtin, python)]
    print(f"l1_exact: built-in {l1[0]!r}, Python {l1[1]!r}")
    problems = []
    if l1[0] is None or l1[0] != l1[1]:
        problems.append(f"l1_exact: {l1[0]!r} built-in, {l1[1]!r} Python")
    with tempfile.TemporaryDirectory() as tmp:
        # The Python run with its environment's name written as the built-in's.
        renamed = Path(tmp) / "python"
        shutil.copytree(python, renamed)
        for path in renamed.rglob("*"):
            if path.is_file() and path.suffix in (".json", ".jsonl", ".csv", ".txt"):
                text = path.read_text()
                path.write_text(text.replace(f'"{name}"', '"hypergrid"'))
        skipped = {"config.yaml"} | compare_run_dirs.RESTART_RECORDS  # and the attempts' times
        a = compare_run_dirs.files_of(builtin) - skipped
        b = compare_run_dirs.files_of(renamed) - skipped
        if a != b:
            problems.append(f"files only built-in: {sorted(a - b)}; only Python: {sorted(b - a)}")
        for f in sorted(a & b):
            compare_run_dirs.compare_file(f, builtin / f, renamed / f, problems)
        compared = len(a & b)
    for p in problems:
        print("DIFFERS:", p)
    if not problems:
        print(f"same run: {compared} files compared, l1_exact {l1[0]}")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
