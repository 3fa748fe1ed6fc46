"""tools/quality-vs-torchgfn.py: its wrappers against a stand-in torchgfn tree of the same shape
(the functions the wrappers record, a script that calls them as torchgfn's do), our side on a
few real gfn-train iterations, the table and the refusals.

The wrappers must record the evaluation's forward states and metrics (diffusion), give the line
script the chosen seed in place of its fixed one and record its final samples and logZ, and the
distances must be those of tools/plotting/sample_metrics.py on the recorded samples.
Run with Debian's python3: /usr/bin/python3 quality_vs_torchgfn_test.py <script> <gfn-train>
"""
import importlib.util
import io
import json
import math
import sys
import tempfile
import unittest
from contextlib import redirect_stdout
from pathlib import Path

import numpy as np

SCRIPT = Path(sys.argv.pop(1))
GFN_TRAIN = sys.argv.pop(1)
spec = importlib.util.spec_from_file_location("quality_vs_torchgfn", SCRIPT)
quality = importlib.util.module_from_spec(spec)
spec.loader.exec_module(quality)

FILES = {
    "src/gfn/__init__.py": "",
    "src/gfn/utils/__init__.py": "",
    "src/gfn/utils/common.py": "SEEN = []\ndef set_seed(seed):\n    SEEN.append(seed)\n",
    "src/gfn/samplers.py": """import torch
class _States:
    def __init__(self, t):
        self.tensor = t
class _Trajectories:
    def __init__(self, t):
        self.terminating_states = _States(t)
class Sampler:
    def sample_trajectories(self, env, n=None, states=None, **kwargs):
        x = torch.full((n, 2), 3.0) if states is None else torch.zeros(n, 2)
        return _Trajectories(torch.cat([x, torch.ones(n, 1)], 1))
""",
    "src/gfn/gym/__init__.py": "",
    "src/gfn/gym/diffusion_sampling.py": """import torch
class _Target:
    def __init__(self, seed):
        self.seed = seed
    def sample(self, batch_size, seed=None):
        # (0, 0) for target seed 3 and the draw seed 12345 only: a wrong one moves the reference.
        return torch.full((batch_size, 2), float(self.seed - 3 + (seed or 0) - 12345))
class DiffusionSampling:
    def __init__(self, target_str, target_kwargs, num_discretization_steps, device=None):
        # torchgfn's registry names: grid25 is "gmm25_prior" there; an unknown name fails.
        if target_str not in ("gmm2", "gmm25_prior"):
            raise ValueError(f"Invalid target: {target_str}")
        self.target = _Target(**target_kwargs)
    @staticmethod
    def density_metrics(**kwargs):
        return {"Δ_elbo": 1.5, "Δ_iw_elbo": 0.25, "eubo": float("inf")}
""",
    "src/gfn/gflownet.py": """import torch
import gfn.utils.common as common
class TBGFlowNet:
    def sample_terminating_states(self, env, n):
        self.logZ = torch.tensor(float(common.SEEN[-1]))
        return type("S", (), {"tensor": torch.cat([torch.full((n, 1), 3.5), torch.ones(n, 1)], 1)})()
""",
    "tutorials/__init__.py": "",
    "tutorials/examples/__init__.py": "",
    "tutorials/examples/train_diffusion_sampler.py": """import argparse
from gfn.gym.diffusion_sampling import DiffusionSampling
from gfn.samplers import Sampler
if __name__ == "__main__":
    p = argparse.ArgumentParser()
    for a in ("--seed", "--n_iterations", "--eval_interval", "--target", "--target_seed"):
        p.add_argument(a)
    args = p.parse_args()
    assert args.target_seed == ("3" if args.target == "gmm2" else "2"), args.target_seed
    env = DiffusionSampling(target_str=args.target, target_kwargs={"seed": int(args.target_seed)},
                            num_discretization_steps=32)
    Sampler().sample_trajectories(env, n=40)   # training batch
    Sampler().sample_trajectories(env, n=60)   # the evaluation's
    Sampler().sample_trajectories(env, n=60, states=1)  # its EUBO walk
    DiffusionSampling.density_metrics(fwd=1)
""",
    "tutorials/examples/train_line.py": """import math
from gfn.gflownet import TBGFlowNet
from gfn.utils.common import set_seed
class Line:
    def log_partition(self):
        return math.log(2)
if __name__ == "__main__":
    set_seed(4444)
    TBGFlowNet().sample_terminating_states(Line(), 3000)
""",
}


def make_tree(root: Path) -> Path:
    for name, text in FILES.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    for name in quality.versus_module().RUNNER_FILES:
        (root / "benchmark" / name).parent.mkdir(parents=True, exist_ok=True)
        (root / "benchmark" / name).write_text("")
    return root


class QualityVersusTorchgfn(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.work = Path(self.tmp.name)
        self.root, self.env = quality.prepare(make_tree(self.work / "source"), self.work / "w")

    def tearDown(self):
        self.tmp.cleanup()

    def test_diffusion_wrapper_records_the_evaluation(self):
        args = quality.parse_args(["--torchgfn", "x", "--iterations", "7"])
        m = quality.run_torchgfn(args, self.root, self.env, self.work / "w", 5)
        self.assertEqual((m["delta_logz"], m["delta_logz_iw"]), (1.5, 0.25))
        # learned (3, 3) against exact (0, 0): every pair is 3 sqrt 2 apart.
        self.assertAlmostEqual(m["w2"], 3 * math.sqrt(2), places=5)
        self.assertGreater(m["mmd"], 0)

    def test_grid25_runs_under_torchgfns_name(self):
        # grid25 is torchgfn's "gmm25_prior": the script and the reference get that name (the
        # stand-in refuses "grid25" as torchgfn's registry does), with the script's target_seed 2.
        args = quality.parse_args(["--torchgfn", "x", "--iterations", "7", "--target", "grid25"])
        self.assertEqual(quality.torchgfn_target("grid25"), "gmm25_prior")
        self.assertEqual(quality.torchgfn_target("gmm2"), "gmm2")
        m = quality.run_torchgfn(args, self.root, self.env, self.work / "w", 5)
        self.assertEqual((m["delta_logz"], m["delta_logz_iw"]), (1.5, 0.25))
        # learned (3, 3) against the stand-in's draws at target seed 2: (-1, -1), 4 sqrt 2 away.
        self.assertAlmostEqual(m["w2"], 4 * math.sqrt(2), places=5)

    def test_line_wrapper_swaps_the_seed_and_records_samples(self):
        args = quality.parse_args(["--torchgfn", "x", "--scenario", "line"])
        m = quality.run_torchgfn(args, self.root, self.env, self.work / "w", 7)
        self.assertAlmostEqual(m["logz_error"], 7 - math.log(2), places=5)  # logZ = the seed
        # 2,000 states at 3.5 against the reference: W2² = mean (3.5 - y)² over its draws.
        reference = quality.line_reference(2000)
        self.assertAlmostEqual(m["w2"], math.sqrt(float(((reference - 3.5) ** 2).mean())),
                               places=5)
        # ... and against R / Z itself: E (X - 3.5)² = 0.5² + 1.5² (both modes 1.5 away).
        self.assertAlmostEqual(m["w2_target"], math.sqrt(2.5), places=3)

    def fake_gfn_train(self, learned, own_target, iteration, summary):
        """A stand-in gfn-train writing what a run writes: samples/validation_<iteration>.npy
        with the learned states np.full(learned) and, as its second row, target samples of its
        own np.full(own_target), and summary.json."""
        fake = self.work / "fake-gfn-train"
        fake.write_text(f"""#!/usr/bin/python3
import json, sys
from pathlib import Path
import numpy as np
out = Path([a.split("=", 1)[1] for a in sys.argv if a.startswith("output.dir=")][0])
(out / "samples").mkdir(parents=True)
pair = np.stack([np.full({learned}), np.full({own_target})]).astype(np.float32)
np.save(out / "samples" / "validation_{iteration}.npy", pair)
(out / "summary.json").write_text(json.dumps({summary!r}))
""")
        fake.chmod(0o755)
        return fake

    def test_line_scores_both_sides_against_one_reference(self):
        # A stand-in gfn-train that writes what a line run writes: learned states at 3.5 and,
        # as its second row, target samples of its own (all at 2: far from the reference).
        fake = self.fake_gfn_train("(2000, 1), 3.5", "(2000, 1), 2.0", "00005000",
                                   {"logz_error": 0.125})
        args = quality.parse_args(["--torchgfn", "x", "--scenario", "line", "--gfn-train",
                                   str(fake)])
        ours = quality.run_ours(args, self.work, 7)
        theirs = quality.run_torchgfn(args, self.root, self.env, self.work / "w", 7)
        self.assertEqual(ours["logz_error"], 0.125)
        # The same learned states on both sides give the same distances: both against
        # line_reference, not against the run's own target samples (W2 there would be 1.5).
        for k in ("w2", "mmd", "w2_target"):
            self.assertAlmostEqual(ours[k], theirs[k], places=6, msg=k)
        self.assertGreater(abs(ours["w2"] - 1.5), 0.05)

    def test_diffusion_scores_both_sides_against_one_reference(self):
        # A stand-in gfn-train that writes what a diffusion run writes: the learned states at
        # (3, 3), 60 of them as torchgfn's stand-in evaluation has, and as its second row target
        # samples of its own at (1, 1) (the old scoring's reference: W2 2 sqrt 2 there).
        fake = self.fake_gfn_train("(60, 2), 3.0", "(60, 2), 1.0", "00002000",
                                   {"delta_logz": 0.5, "delta_logz_iw": 0.125})
        args = quality.parse_args(["--torchgfn", "x", "--gfn-train", str(fake)])
        work = self.work / "w"

        def reference(n):
            return quality.diffusion_reference(self.root, self.env, work, args.target, n)
        ours = quality.run_ours(args, work, 7, reference)
        theirs = quality.run_torchgfn(args, self.root, self.env, work, 7)
        self.assertEqual((ours["delta_logz"], ours["delta_logz_iw"]), (0.5, 0.125))
        # The same learned states on both sides give the same distances: both against
        # torchgfn's target.sample(60, seed=12345) (the stand-in's (0, 0): 3 sqrt 2), not ours
        # against the run's own target samples.
        for k in ("w2", "mmd"):
            self.assertAlmostEqual(ours[k], theirs[k], places=6, msg=k)
        self.assertAlmostEqual(ours["w2"], 3 * math.sqrt(2), places=5)
        self.assertEqual(reference(60).shape, (60, 2))
        self.assertEqual(float(abs(reference(60)).max()), 0.0)

    def test_w2_to_line_target_of_exact_samples_shrinks_with_n(self):
        rng = np.random.default_rng(0)
        exact = [rng.normal(rng.choice([2.0, 5.0], size=n), 0.5)[:, None] for n in (200, 20000)]
        small, large = (quality.w2_to_line_target(x) for x in exact)
        self.assertLess(large, small)
        self.assertLess(large, 0.05)
        # A shift by 0.3 of every state adds about 0.3 (W2 of a translate).
        self.assertAlmostEqual(quality.w2_to_line_target(exact[1] + 0.3), 0.3, delta=0.04)

    def test_ours_reads_summary_and_samples(self):
        args = quality.parse_args(["--torchgfn", "x", "--iterations", "3", "--gfn-train", GFN_TRAIN])
        m = quality.run_ours(args, self.work, 0, lambda n: quality.diffusion_reference(
            self.root, self.env, self.work / "w", args.target, n))
        summary = json.loads((self.work / "ours_s0" / "summary.json").read_text())
        self.assertEqual(m["delta_logz"], summary["delta_logz"])
        self.assertTrue(math.isfinite(m["w2"]) and m["w2"] > 0)
        out = io.StringIO()
        with redirect_stdout(out):
            quality.print_table([{"seed": 0, "ours": m, "torchgfn": m}], quality.METRICS["diffusion"])
        self.assertIn(f"| mean | ours | {m['delta_logz']:.4f}", out.getvalue())
        # --side ours: the table lists our side only.
        out = io.StringIO()
        with redirect_stdout(out):
            quality.print_table([{"seed": 0, "ours": m}], quality.METRICS["diffusion"])
        self.assertIn("| mean | ours |", out.getvalue())
        self.assertNotIn("torchgfn", out.getvalue())

    def test_one_side_runs_that_side_only(self):
        src = self.work / "source"
        out = io.StringIO()
        with redirect_stdout(out):
            code = quality.main(["--torchgfn", str(src), "--scenario", "line", "--side",
                                 "torchgfn", "--seeds", "3", "--json", str(self.work / "t.json")])
        self.assertEqual(code, 0)
        rows = json.loads((self.work / "t.json").read_text())
        self.assertEqual(list(rows[0]), ["torchgfn", "seed"])
        self.assertAlmostEqual(rows[0]["torchgfn"]["logz_error"], 3 - math.log(2), places=5)

    def test_refusals(self):
        self.assertEqual(quality.main(["--torchgfn", str(self.work / "nowhere")]), 2)
        with self.assertRaises(SystemExit):
            quality.parse_args(["--torchgfn", "x", "--iterations", "0"])


if __name__ == "__main__":
    unittest.main()
