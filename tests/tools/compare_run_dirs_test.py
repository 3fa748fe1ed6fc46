#!/usr/bin/env python3
"""tests/tools/compare_run_dirs.py, the check of a restarted job's run directory: it passes
for two runs that differ only in times and the record of attempts, and fails for each thing a
restart used to lose (a manager's empty mode-discovery curve, a time report missing a step,
a training.csv row, a file)."""
import json
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

SCRIPT = Path(__file__).with_name("compare_run_dirs.py")


def write_run(root, elapsed, timeline, steps, rows, attempts):
    if root.exists():
        for f in root.iterdir():
            f.unlink()
    root.mkdir(parents=True, exist_ok=True)
    (root / "training.csv").write_text(
        "iteration,trajectories,elapsed_s,loss\n" +
        "".join(f"{i},{16 * i},{elapsed * i:.3f},{1.0 / i:.5f}\n" for i in rows))
    (root / "buffer_manager_2.json").write_text(json.dumps(
        {"rank": 2, "submissions": 7, "wall_s": elapsed, "modes_timeline": timeline}))
    (root / "timing.json").write_text(json.dumps(
        {"trainers": {"ranks": [{"rank": 0, "steps": {s: elapsed for s in steps}}]}}))
    (root / "summary.json").write_text(json.dumps(
        {"modes_found": 3, "wall_s": elapsed, "attempts": attempts,
         "restarts": {"count": len(attempts) - 1}}))
    (root / "config.yaml").write_text(f"output:\n  dir: {root}\ntrain:\n  seed: 1\n")
    (root / "attempts.jsonl").write_text("{}\n" * len(attempts))


class CompareRunDirs(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.root = Path(self.tmp.name)
        self.timeline = [[0.1, 64, 1], [0.5, 640, 3]]
        write_run(self.root / "ref", 0.01, self.timeline, ["sample", "loss"], range(1, 6),
                  [{"attempt": 1}])

    def tearDown(self):
        self.tmp.cleanup()

    def compare(self, **changes):
        args = dict(elapsed=0.02, timeline=[[0.3, 128, 2], [0.9, 704, 3]],
                    steps=["sample", "loss"], rows=range(1, 6),
                    attempts=[{"attempt": 1}, {"attempt": 2}])
        args.update(changes)
        write_run(self.root / "run", **args)
        (self.root / "run" / "restarts.jsonl").write_text("{}\n")
        return subprocess.run([sys.executable, str(SCRIPT), str(self.root / "ref"),
                               str(self.root / "run")], capture_output=True, text=True)

    def test_times_and_the_attempts_record_may_differ(self):
        done = self.compare()
        self.assertEqual(done.returncode, 0, done.stdout)
        self.assertIn("same run directory: 5 files compared", done.stdout)

    def test_an_empty_manager_timeline_fails(self):
        done = self.compare(timeline=[])
        self.assertEqual(done.returncode, 1)
        self.assertIn("modes_timeline: ends at 3 modes in the reference, 0 here", done.stdout)

    def test_a_time_report_missing_a_step_fails(self):
        done = self.compare(steps=["sample"])
        self.assertEqual(done.returncode, 1)
        self.assertIn("keys differ: ['loss']", done.stdout)

    def test_a_missing_or_repeated_row_fails(self):
        self.assertIn("5 rows in the reference, 4 here",
                      self.compare(rows=[1, 2, 4, 5]).stdout)
        self.assertIn("row 3 differs", self.compare(rows=[1, 2, 2, 4, 5]).stdout)

    def test_a_missing_file_fails(self):
        write_run(self.root / "run", 0.02, self.timeline, ["sample", "loss"], range(1, 6), [])
        (self.root / "run" / "timing.json").unlink()
        done = subprocess.run([sys.executable, str(SCRIPT), str(self.root / "ref"),
                               str(self.root / "run")], capture_output=True, text=True)
        self.assertEqual(done.returncode, 1)
        self.assertIn("only in the reference: ['timing.json']", done.stdout)


if __name__ == "__main__":
    unittest.main()
