"""tools/versus-torchgfn-diffusion.py's whole path, with a stand-in of torchgfn's tutorial script.

The stand-in tutorials/examples/train_diffusion_sampler.py does what the driver relies on in the
real one: parses its arguments, builds a TBGFlowNet (from the stand-in gfn.gflownet; its
parameter count is torchgfn's PISGradNet's, 20,865 + 129 d with the script's default widths:
t_phase 64, t_model 128*64+64 + 64*64+64, s_model 64 d + 64, joint 2 x (64*64+64), head 64 d +
d, logZ 1), loops over tqdm(range(n_iterations)), evaluates (here: sleeps 60 ms) at iteration 0
and the last, and trains (sleeps 4 ms) otherwise; it logs its arguments, its torch thread count
and OMP_NUM_THREADS. Our side is the real gfn-bench-train on configs/bench/torchgfn_diffusion.
Checked: both scenarios get a row with both sides' figures; the timed iterations exclude the two
evaluations (torchgfn's mean is between 4 and 60 ms); the script got the config's target,
sigma and steps, batch 200, warmup + iters + 1 iterations, one thread; our parameter count
equals the stand-in's (torchgfn's formula) for d = 2 and d = 32; the speed-up is the median of
the per-round ratios; the table parses.
Run from the repository root with Debian's python3:
  /usr/bin/python3 versus_torchgfn_diffusion_test.py <script> <gfn-bench-train>
"""
import contextlib
import importlib.util
import io
import json
import statistics
import sys
import tempfile
import unittest
from pathlib import Path

SCRIPT = Path(sys.argv.pop(1))
BENCH = sys.argv.pop(1)
spec = importlib.util.spec_from_file_location("versus_torchgfn_diffusion", SCRIPT)
versus = importlib.util.module_from_spec(spec)
spec.loader.exec_module(versus)

SUITE = "configs/bench/torchgfn_diffusion"
SCENARIOS = {"diffusion_gmm2": ("gmm2", 2), "diffusion_many_well": ("many_well", 32)}

FAKE_GFLOWNET = """import torch


class TBGFlowNet(torch.nn.Module):
    def __init__(self, n_params):
        super().__init__()
        self.theta = torch.nn.Parameter(torch.zeros(n_params))
"""

FAKE_TUTORIAL = """import argparse, json, os, time
import torch
from tqdm import tqdm
from tutorials.examples import EXAMPLES_OUTPUTS
from gfn.gflownet import TBGFlowNet
p = argparse.ArgumentParser()
for name, kind in (("--target", str), ("--sigma", float), ("--num_steps", int), ("--dim", int),
                   ("--batch_size", int), ("--n_iterations", int), ("--eval_interval", int),
                   ("--eval_n", int), ("--eval_batch_size", int), ("--seed", int)):
    p.add_argument(name, type=kind)
a = p.parse_args()
dim = {"gmm2": 2, "many_well": 32}[a.target]
gflownet = TBGFlowNet(20865 + 129 * dim)
with open(LOG, "a") as f:
    f.write(json.dumps(dict(vars(a), threads=torch.get_num_threads(),
                            omp=os.environ.get("OMP_NUM_THREADS"))) + "\\n")
for it in (bar := tqdm(range(a.n_iterations))):
    evaluate = it == 0 or (it + 1) % a.eval_interval == 0 or it == a.n_iterations - 1
    time.sleep(0.060 if evaluate else 0.004)
    bar.set_postfix({"loss": 0.0})
"""


class VersusDiffusion(unittest.TestCase):
    def make_tree(self, root: Path, log: Path) -> Path:
        (root / "src" / "gfn").mkdir(parents=True)
        (root / "src" / "gfn" / "__init__.py").write_text("")
        (root / "src" / "gfn" / "gflownet.py").write_text(FAKE_GFLOWNET)
        (root / "benchmark" / "lib_runners").mkdir(parents=True)
        for name in versus.versus.RUNNER_FILES:
            (root / "benchmark" / name).write_text(f"# {name}\n")
        (root / versus.TUTORIAL).parent.mkdir(parents=True)
        (root / versus.TUTORIAL).write_text(f"LOG = {str(log)!r}\n" + FAKE_TUTORIAL)
        return root

    def test_diffusion_side_by_side(self):
        with tempfile.TemporaryDirectory() as tmp:
            tmp = Path(tmp)
            log = tmp / "tutorial_calls.jsonl"
            tree = self.make_tree(tmp / "torchgfn", log)
            report = tmp / "versus.json"
            stdout = io.StringIO()
            with contextlib.redirect_stdout(stdout):
                rc = versus.main(["--torchgfn", str(tree), "--bench", BENCH, "--suite", SUITE,
                                  "--scenario", *SCENARIOS, "--warmup", "2", "--iters", "3",
                                  "--rounds", "2", "--json", str(report)])
            text = stdout.getvalue()
            print(text)
            self.assertEqual(rc, 0)
            rows = json.loads(report.read_text())
            self.assertEqual([(r["scenario"], r["batch"]) for r in rows],
                             [(s, 200) for s in SCENARIOS])
            for r in rows:
                target, dim = SCENARIOS[r["scenario"]]
                self.assertEqual(r["target"], target)
                self.assertEqual(r["ours_params"], 20865 + 129 * dim)
                self.assertEqual(r["torchgfn_params"], r["ours_params"])
                ratios = []
                for one in r["rounds"]:
                    self.assertGreater(one["ours"]["ms"], 0)
                    self.assertGreater(one["torchgfn"]["ms"], 4.0)
                    self.assertLess(one["torchgfn"]["ms"], 60.0)
                    self.assertEqual(one["torchgfn"]["threads"], 1)
                    ratios.append(one["torchgfn"]["ms"] / one["ours"]["ms"])
                self.assertAlmostEqual(r["speedup"], statistics.median(ratios))
                self.assertEqual((r["speedup_min"], r["speedup_max"]), (min(ratios), max(ratios)))
                self.assertIn(f"| {r['scenario']} | 200 | {r['ours_params']:,} / "
                              f"{r['ours_params']:,} | {r['torchgfn_ms']:.3f} | "
                              f"{r['ours_ms']:.3f} |", text)
            calls = [json.loads(line) for line in log.read_text().splitlines()]
            self.assertEqual([c["target"] for c in calls], ["gmm2", "gmm2", "many_well", "many_well"])
            for c in calls:
                self.assertEqual((c["batch_size"], c["n_iterations"], c["sigma"], c["num_steps"],
                                  c["threads"], c["omp"], c["dim"]), (200, 6, 5.0, 32, 1, "1", None))
                self.assertGreater(c["eval_interval"], c["n_iterations"])
            self.assertNotIn("DIFFER", text)

    def test_a_tree_without_the_tutorial_is_refused(self):
        with tempfile.TemporaryDirectory() as tmp:
            (Path(tmp) / "src" / "gfn").mkdir(parents=True)
            stderr = io.StringIO()
            with contextlib.redirect_stderr(stderr):
                rc = versus.main(["--torchgfn", tmp, "--bench", BENCH, "--suite", SUITE])
            self.assertEqual(rc, 2)
            self.assertIn("train_diffusion_sampler.py", stderr.getvalue())


if __name__ == "__main__":
    unittest.main()
