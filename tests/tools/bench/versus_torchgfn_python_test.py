"""tools/versus-torchgfn.py with our side on configs/bench/torchgfn_python (the Python HyperGrid).

The whole script path runs: a stand-in torchgfn tree whose benchmark/benchmark_libraries.py
writes a result in torchgfn's format (mean ms per iteration, phases, its parameter count: the
count configs/bench/torchgfn/<scenario>.yaml states, torchgfn's) and logs how it was called,
against the real gfn-bench-train --suite configs/bench/torchgfn_python. Checked: both
HyperGrid scenarios get a row; our parameter count, computed by gfn-bench-train on the Python
environment, equals the one the config states and torchgfn's; the speed-up is the median of the
per-round ratios of the two sides' figures; torchgfn ran once per round with one thread, on
the CPU, its runner only; the table names our suite.
Run from the repository root with Debian's python3:
  /usr/bin/python3 versus_torchgfn_python_test.py <script> <gfn-bench-train>
"""
import contextlib
import importlib.util
import io
import json
import re
import statistics
import sys
import tempfile
import unittest
from pathlib import Path

SCRIPT = Path(sys.argv.pop(1))
BENCH = sys.argv.pop(1)
spec = importlib.util.spec_from_file_location("versus_torchgfn", SCRIPT)
versus = importlib.util.module_from_spec(spec)
spec.loader.exec_module(versus)

SUITE = "configs/bench/torchgfn_python"
SCENARIOS = ["tb_hypergrid_small", "tb_hypergrid_medium"]

# torchgfn's benchmark_libraries.py as far as versus-torchgfn.py reads it: the arguments it
# passes and the result file (summary.torchgfn and results[0].n_params). The figures are
# made up (a per-scenario ms per iteration that changes with the call count); the parameter
# count is torchgfn's, from the built-in config's comment.
FAKE_BENCHMARK = """import argparse, json, os, re
from pathlib import Path
p = argparse.ArgumentParser()
p.add_argument("--cpu", action="store_true")
p.add_argument("--libraries", nargs="+")
p.add_argument("--scenario")
p.add_argument("--batch-sizes", nargs="+", type=int)
p.add_argument("--seeds", nargs="+", type=int)
p.add_argument("--output")
a = p.parse_args()
log = Path(LOG)
calls = log.read_text().count("\\n") if log.exists() else 0
with log.open("a") as f:
    f.write(json.dumps({"scenario": a.scenario, "batch": a.batch_sizes, "cpu": a.cpu,
                        "libraries": a.libraries, "omp": os.environ.get("OMP_NUM_THREADS")}) + "\\n")
text = Path(CONFIGS, a.scenario + ".yaml").read_text()
params = int(re.search(r"([0-9,]+) trainable parameters", text).group(1).replace(",", ""))
ms = 100.0 + 10.0 * calls
out = Path(a.output)
out.mkdir(parents=True, exist_ok=True)
(out / f"benchmark_{a.scenario}_torchgfn_0.json").write_text(json.dumps({
    "results": [{"n_params": params}],
    "summary": {"torchgfn": {"mean_iter_time_ms": ms, "std_iter_time_ms": 1.0,
                             "phase_times": {"sample": {"mean_ms": ms / 2}}}}}))
"""


def stated_params(path: Path) -> int:
    return int(re.search(r"([0-9,]+) trainable parameters", path.read_text())
               .group(1).replace(",", ""))


class VersusPythonSuite(unittest.TestCase):
    def make_tree(self, root: Path, log: Path) -> Path:
        (root / "src" / "gfn").mkdir(parents=True)
        (root / "src" / "gfn" / "__init__.py").write_text("")
        (root / "benchmark" / "lib_runners").mkdir(parents=True)
        for name in versus.RUNNER_FILES:
            (root / "benchmark" / name).write_text(f"# {name}\n")
        configs = Path("configs/bench/torchgfn").resolve()
        (root / "benchmark" / "benchmark_libraries.py").write_text(
            f"LOG = {str(log)!r}\nCONFIGS = {str(configs)!r}\n" + FAKE_BENCHMARK)
        return root

    def test_python_hypergrid_side_by_side(self):
        with tempfile.TemporaryDirectory() as tmp:
            tmp = Path(tmp)
            log = tmp / "torchgfn_calls.jsonl"
            tree = self.make_tree(tmp / "torchgfn", log)
            report = tmp / "versus.json"
            stdout = io.StringIO()
            with contextlib.redirect_stdout(stdout):
                rc = versus.main(["--torchgfn", str(tree), "--bench", BENCH, "--suite", SUITE,
                                  "--scenario", *SCENARIOS, "--batch-sizes", "4",
                                  "--rounds", "2", "--json", str(report)])
            text = stdout.getvalue()
            print(text)
            self.assertEqual(rc, 0)
            rows = json.loads(report.read_text())
            self.assertEqual([(r["scenario"], r["batch"]) for r in rows],
                             [(s, 4) for s in SCENARIOS])
            for r in rows:
                ours_config = Path(SUITE) / (r["scenario"] + ".yaml")
                builtin_config = Path("configs/bench/torchgfn") / (r["scenario"] + ".yaml")
                self.assertEqual(r["suite"], SUITE)
                self.assertEqual(r["ours_params"], stated_params(ours_config))
                self.assertEqual(r["ours_params"], stated_params(builtin_config))
                self.assertEqual(r["torchgfn_params"], r["ours_params"])
                self.assertEqual(len(r["rounds"]), 2)
                ratios = []
                for one in r["rounds"]:
                    self.assertGreater(one["ours"]["ms"], 0)
                    self.assertEqual(one["ours"]["params"], r["ours_params"])
                    ratios.append(one["torchgfn"]["ms"] / one["ours"]["ms"])
                self.assertAlmostEqual(r["speedup"], statistics.median(ratios))
                self.assertEqual((r["speedup_min"], r["speedup_max"]), (min(ratios), max(ratios)))
                self.assertIn(f"| {r['scenario']} | 4 | {r['ours_params']:,} / "
                              f"{r['ours_params']:,} |", text)
            calls = [json.loads(line) for line in log.read_text().splitlines()]
            self.assertEqual([c["scenario"] for c in calls],
                             [s for s in SCENARIOS for _ in range(2)])
            for c in calls:
                self.assertEqual((c["batch"], c["cpu"], c["libraries"], c["omp"]),
                                 ([4], True, ["torchgfn"], "1"))
            self.assertIn(f"# ours: gfn-bench-train --suite {SUITE}", text)
            self.assertNotIn("DIFFER", text)


if __name__ == "__main__":
    unittest.main()
