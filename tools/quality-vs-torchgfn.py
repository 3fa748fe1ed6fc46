#!/usr/bin/python3
"""Continuous GFlowNet quality against torchgfn's own scripts, same target, budget and seeds.

--scenario diffusion (default): runs torchgfn's tutorials/examples/train_diffusion_sampler.py (its code, under Debian's
python3-torch with versus-torchgfn.py's stand-ins for the packages Debian lacks) and gfn-train
on configs/diffusion_gmm2.yaml (the script's argparse defaults: 32 steps, sigma 5, PISGradNet
64/64/64 with 2 joint layers, TB, Adam 1e-3 / logZ 0.1, batch 200), for the same iterations and
seeds, one thread each, interleaved (ours then theirs for seed 0, theirs then ours for seed 1,
...). Both are evaluated once at the end on 2,000 trajectories (the script's eval_n):
  delta_logz     log Z - ELBO (the script's Δ_elbo; gfn-train's summary.json delta_logz)
  delta_logz_iw  log Z - IW ELBO (Δ_iw_elbo; delta_logz_iw)
  w2, mmd        2-Wasserstein and RBF MMD² between the 2,000 learned terminating states (for
                 torchgfn its own Sampler's states of that evaluation, captured; for ours the
                 first row of the run's last samples/validation_*.npy) and one set of 2,000
                 exact samples of the target, the same for both sides and every seed
                 (diffusion_reference: torchgfn's target, built as the script builds it,
                 target.sample(2000, seed=12345), the draws torchgfn's side has always been
                 scored against; our run's own per-seed target samples are not used)
                 (tools/plotting/sample_metrics.py, POT)
torchgfn's target: --target_seed 3 for gmm2, so both sides learn the same mixture (gfn-runtime's
gmm2 is SimpleGaussianMixture's default seed 3; the script's default is 2). Its EUBO is inf on
this torchgfn (its PF exits one step early, docs/environments.md), so it is not compared.
--target grid25: torchgfn's "gmm25_prior" (Grid25GaussianMixture, the same 25 components; its
target_seed changes nothing).
--scenario line: torchgfn's tutorials/examples/train_line.py (mixture of N(2, 0.5²) and N(5, 0.5²),
5 steps, 64 x 3 MLPs, 1.28e6 trajectories of batch 256 = 5,000 iterations, exploration scale 2
falling to 0) against gfn-train on configs/line.yaml (the same settings, docs/environments.md
"Line"); the script has no evaluation and fixes its seed (train(seed=4444)): the wrapper gives
gfn.utils.common.set_seed the chosen seed instead, and records the 10,000 terminating states the
script samples at the end and its logZ. Compared: logz_error = |logZ - log Z| (log Z = log 2)
and w2 / mmd of the first 2,000 learned states against one fixed set of 2,000 exact samples of
R / Z, the same for both sides (line_reference: numpy default_rng(12345), the draws torchgfn's
side has always been scored against; our run's own per-seed target samples are not used), and
w2_target, the 2-Wasserstein distance of those 2,000 states to R / Z itself (1-D quantile
coupling, no reference sample).
The tool only reads torchgfn's objects (a wrapper records the last evaluation's states and
metrics); it does not change the script's training.

    /usr/bin/python3 tools/quality-vs-torchgfn.py --torchgfn /tmp/torchgfn --seeds 0 1 2 \
        --iterations 2000
(--torchgfn: a source tree with src/gfn, benchmark/ and tutorials/examples; see
versus-torchgfn.py for extracting one. torchgfn's scripts import tqdm: python3-tqdm, which
tools/setup.sh installs.) Prints a table per seed and the seed means; --json
writes every figure. Exit codes: 0 success, 2 bad arguments, 1 a run failed.
"""
import argparse
import glob
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from plotting.sample_metrics import rbf_mmd2, wasserstein2  # noqa: E402

METRICS = {"diffusion": ("delta_logz", "delta_logz_iw", "w2", "mmd"),
           "line": ("logz_error", "w2", "mmd", "w2_target")}
# The figures our side reads from summary.json (the others come from the samples).
SUMMARY_KEYS = {"diffusion": ("delta_logz", "delta_logz_iw"), "line": ("logz_error",)}
HEADERS = {"delta_logz": "ΔlogZ", "delta_logz_iw": "ΔlogZ^RW", "logz_error": "|logZ error|",
           "w2": "W2", "mmd": "MMD²", "w2_target": "W2 to R/Z"}

# Line's target R / Z (train_line.py: N(2, 0.5²) and N(5, 0.5²), equal weights) and the one
# exact reference sample both sides' learned states are scored against: the generator and seed
# the torchgfn wrapper has used since the first runs (numpy default_rng(12345), n draws), so
# the recorded torchgfn figures stay comparable. Our run's own target samples (the second row of
# its validation_*.npy, drawn per seed) are not used: a reference drawn afresh per seed on one
# side and fixed on the other scores the two sides against different references (W2 of 2,000
# against 2,000 samples moves by ~0.02 with the reference alone, docs/results/
# continuous_vs_torchgfn.md "Line").
LINE_MUS, LINE_SIGMA, LINE_REFERENCE_SEED = (2.0, 5.0), 0.5, 12345


def line_reference(n):
    """The exact reference: float32 [n, 1], the torchgfn wrapper's draws."""
    rng = np.random.default_rng(LINE_REFERENCE_SEED)
    return rng.normal(rng.choice(list(LINE_MUS), size=n), LINE_SIGMA)[:, None].astype(np.float32)


def line_target_quantiles(m):
    """Quantiles F^-1((k + 1/2) / m), k < m, of Line's R / Z (bisection on its CDF, float64)."""
    from scipy.stats import norm
    u = (np.arange(m) + 0.5) / m
    lo = np.full(m, min(LINE_MUS) - 12 * LINE_SIGMA)
    hi = np.full(m, max(LINE_MUS) + 12 * LINE_SIGMA)
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        cdf = np.mean([norm.cdf(mid, mu, LINE_SIGMA) for mu in LINE_MUS], axis=0)
        below = cdf < u
        lo, hi = np.where(below, mid, lo), np.where(below, hi, mid)
    return 0.5 * (lo + hi)


def w2_to_line_target(x, per_atom=64):
    """2-Wasserstein distance between the empirical distribution of x [n, 1] and Line's R / Z
    itself (no reference sample): in 1-D the optimal coupling is the quantile coupling, so
    W2² = sum_i ∫ over ((i-1)/n, i/n] of (x_(i) - F^-1(u))² du, by the midpoint rule on
    per_atom points per atom."""
    x = np.sort(np.asarray(x, dtype=np.float64).ravel())
    q = line_target_quantiles(len(x) * per_atom).reshape(len(x), per_atom)
    return float(np.sqrt(np.mean((q - x[:, None]) ** 2)))

# The diffusion scenario's exact reference, the same for both sides: torchgfn's target as
# train_diffusion_sampler.py builds it (DiffusionSampling with target_kwargs {"seed":
# --target_seed}), DIFFUSION_REFERENCE_SEED draws through its own sample(n, seed=...) (which
# seeds torch temporarily, so the draws do not depend on the run). The wrapper drew the same set
# at the end of each torchgfn run, so the recorded torchgfn figures stay comparable; ours was
# scored against its run's own target samples (the second row of its validation_*.npy, drawn
# per seed), a different reference on each side.
DIFFUSION_REFERENCE_SEED = 12345
REFERENCE = """import sys
import numpy as np
from gfn.gym.diffusion_sampling import DiffusionSampling
out, target = sys.argv[1], sys.argv[2]
target_seed, n, seed = (int(a) for a in sys.argv[3:6])
env = DiffusionSampling(target_str=target, target_kwargs={"seed": target_seed},
                        num_discretization_steps=32)
np.save(out, env.target.sample(n, seed=seed).detach().numpy().astype(np.float32))
"""


# Our target names that torchgfn registers under another (DiffusionSampling.DIFFUSION_TARGETS):
# grid25 is its Grid25GaussianMixture, "gmm25_prior" (the same 25 components, no seed).
TORCHGFN_TARGETS = {"grid25": "gmm25_prior"}


def torchgfn_target(target):
    """The --target the tool gives the script: torchgfn's name of our target."""
    return TORCHGFN_TARGETS.get(target, target)


def torchgfn_target_seed(target):
    """The --target_seed the tool gives the script: 3 for gmm2 (gfn-runtime's gmm2 is
    SimpleGaussianMixture's default seed 3), else the script's default 2."""
    return 3 if target == "gmm2" else 2


def diffusion_reference(root, env, work, target, n):
    """The diffusion scenario's exact reference: float32 [n, d], torchgfn's target's
    sample(n, seed=DIFFUSION_REFERENCE_SEED); drawn once per target and n (cached in work)."""
    out = work / f"reference_{target}_{n}.npy"
    if not out.is_file():
        subprocess.run(["/usr/bin/python3", str(work / "reference.py"), str(out),
                        torchgfn_target(target),
                        str(torchgfn_target_seed(target)), str(n),
                        str(DIFFUSION_REFERENCE_SEED)],
                       cwd=root, env=env, check=True, stdout=subprocess.DEVNULL,
                       stderr=subprocess.DEVNULL)
    return np.load(out)


# Runs the script as __main__ after wrapping two of torchgfn's functions to record (not
# change) the last evaluation: its metrics and the forward sampler's terminating states.
WRAPPER = """import json, runpy, sys
import numpy as np
import gfn.gym.diffusion_sampling as ds
import gfn.samplers as samplers
out, argv = sys.argv[1], sys.argv[2:]
seen = {}
_sample = samplers.Sampler.sample_trajectories
def sample_trajectories(self, env, n=None, states=None, *args, **kwargs):
    trajectories = _sample(self, env, n, states, *args, **kwargs)
    if states is None:
        seen["x"] = trajectories.terminating_states.tensor[:, :-1].detach().numpy().copy()
        seen["env"] = env
    return trajectories
samplers.Sampler.sample_trajectories = sample_trajectories
_metrics = ds.DiffusionSampling.density_metrics
def density_metrics(*args, **kwargs):
    result = _metrics(*args, **kwargs)
    seen["metrics"] = {k: float(v) for k, v in result.items()}
    seen["learned"] = seen["x"]
    return result
ds.DiffusionSampling.density_metrics = staticmethod(density_metrics)
sys.argv = ["train_diffusion_sampler.py"] + argv
runpy.run_module("tutorials.examples.train_diffusion_sampler", run_name="__main__")
np.save(out + ".npy", seen["learned"].astype(np.float32))
json.dump(seen["metrics"], open(out + ".json", "w"))
"""

# train_line.py: the chosen seed in place of its fixed one; records the first 2,000 of its final
# 10,000 samples (the tool scores them, line_distances).
LINE_WRAPPER = """import json, math, runpy, sys
import numpy as np
import gfn.gflownet
import gfn.utils.common as common
out, seed = sys.argv[1], int(sys.argv[2])
_set_seed = common.set_seed
common.set_seed = lambda *args, **kwargs: _set_seed(seed)
seen = {}
_sample = gfn.gflownet.TBGFlowNet.sample_terminating_states
def sample_terminating_states(self, env, n, *args, **kwargs):
    states = _sample(self, env, n, *args, **kwargs)
    seen.update(x=states.tensor[:, :1].detach().numpy().copy(), logz=float(self.logZ.item()),
                log_partition=float(env.log_partition()))
    return states
gfn.gflownet.TBGFlowNet.sample_terminating_states = sample_terminating_states
sys.argv = ["train_line.py"]
runpy.run_module("tutorials.examples.train_line", run_name="__main__")
np.save(out + ".npy", seen["x"][None, :2000].astype(np.float32))
json.dump({"logz_error": abs(seen["logz"] - seen["log_partition"])}, open(out + ".json", "w"))
"""


def versus_module():
    spec = importlib.util.spec_from_file_location("versus_torchgfn", HERE / "versus-torchgfn.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def prepare(source: Path, work: Path):
    vt = versus_module()
    for script in ("train_diffusion_sampler.py", "train_line.py"):
        if not (source / "tutorials" / "examples" / script).is_file():
            raise ValueError(f"--torchgfn {source}: no tutorials/examples/{script}")
    root = vt.prepare_torchgfn(source, work / "torchgfn")
    shutil.copytree(source / "tutorials", root / "tutorials")
    (root / "tutorials" / "__init__.py").touch()
    vt.write_standins(work / "standins")
    (work / "wrapper.py").write_text(WRAPPER)
    (work / "line_wrapper.py").write_text(LINE_WRAPPER)
    (work / "reference.py").write_text(REFERENCE)
    return root, vt.one_thread_env(f"{root}:{work / 'standins'}")


def distances(learned, reference):
    return {"w2": wasserstein2(learned, reference), "mmd": rbf_mmd2(learned, reference)}


def line_distances(learned):
    """Line: learned [n, 1] against line_reference(n) (the same for both sides) and against
    R / Z itself."""
    return dict(distances(learned, line_reference(len(learned))),
                w2_target=w2_to_line_target(learned))


def run_torchgfn(args, root, env, work, seed):
    out = work / f"torchgfn_s{seed}"
    if args.scenario == "line":
        cmd = ["/usr/bin/python3", str(work / "line_wrapper.py"), str(out), str(seed)]
    else:
        cmd = ["/usr/bin/python3", str(work / "wrapper.py"), str(out), "--seed", str(seed),
               "--n_iterations", str(args.iterations), "--eval_interval", str(args.iterations),
               "--target", torchgfn_target(args.target),
               "--target_seed", str(torchgfn_target_seed(args.target))]
    subprocess.run(cmd, cwd=root, env=env, check=True, stdout=subprocess.DEVNULL,
                   stderr=subprocess.DEVNULL)
    metrics = json.loads(Path(str(out) + ".json").read_text())
    if args.scenario == "line":
        return dict(line_distances(np.load(str(out) + ".npy")[0]), logz_error=metrics["logz_error"])
    learned = np.load(str(out) + ".npy")
    return dict(distances(learned, diffusion_reference(root, env, work, args.target,
                                                       len(learned))),
                delta_logz=metrics["Δ_elbo"], delta_logz_iw=metrics["Δ_iw_elbo"])


def run_ours(args, work, seed, reference=None):
    """Our side; reference(n) gives the diffusion scenario's exact reference (diffusion_reference
    through the torchgfn tree; unused for line)."""
    out = work / f"ours_s{seed}"
    line = args.scenario == "line"
    iterations = 5000 if line else args.iterations
    cmd = [args.gfn_train, "--config", args.config, "--set", f"train.seed={seed}",
           "--set", f"train.n_iterations={iterations}",
           "--set", f"validation.interval={iterations}", "--set", "validation.n_samples=2000",
           "--set", f"output.dir={out}", "--set", "output.log_every=1000000"]
    cmd += [] if line else ["--set", f"env.target={args.target}"]
    subprocess.run(cmd, env=versus_module().one_thread_env(), check=True,
                   stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    summary = json.loads((out / "summary.json").read_text())
    files = sorted(glob.glob(str(out / "samples" / "validation_*.npy")))
    if not files:
        raise RuntimeError(f"{out}: no samples/validation_*.npy")
    learned = np.load(files[-1])[0]
    figures = line_distances(learned) if line else distances(learned, reference(len(learned)))
    return dict(figures, **{k: summary[k] for k in SUMMARY_KEYS[args.scenario]})


def print_table(rows, metrics):
    print("| seed | side | " + " | ".join(HEADERS[k] for k in metrics) + " |")
    print("| --- | --- | " + " | ".join("---:" for _ in metrics) + " |")
    sides = [side for side in ("torchgfn", "ours") if rows and side in rows[0]]
    for r in rows:
        for side in sides:
            print(f"| {r['seed']} | {side} | " + " | ".join(f"{r[side][k]:.4f}" for k in metrics)
                  + " |")
    for side in sides:
        mean = [float(np.mean([r[side][k] for r in rows])) for k in metrics]
        print(f"| mean | {side} | " + " | ".join(f"{m:.4f}" for m in mean) + " |")


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--torchgfn", required=True, type=Path, help="torchgfn source tree")
    p.add_argument("--gfn-train", default="build/bin/gfn-train")
    p.add_argument("--scenario", choices=sorted(METRICS), default="diffusion")
    p.add_argument("--config", help="our side's experiment (default: configs/diffusion_gmm2.yaml, "
                   "configs/line.yaml for --scenario line)")
    p.add_argument("--target", default="gmm2", help="a target both sides have (gmm2, grid25: torchgfn's "
                   "gmm25_prior)")
    p.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    p.add_argument("--iterations", type=int, default=2000,
                   help="diffusion only (the line script's budget is fixed: 5,000)")
    p.add_argument("--json", type=Path, help="write every figure here")
    p.add_argument("--side", choices=("both", "ours", "torchgfn"), default="both",
                   help="run one side only (e.g. ours again after a change, beside an earlier "
                   "--json of the other); the table then lists that side")
    args = p.parse_args(argv)
    if args.iterations < 1:
        p.error("--iterations must be >= 1")
    if args.config is None:
        args.config = "configs/line.yaml" if args.scenario == "line" else "configs/diffusion_gmm2.yaml"
    return args


def main(argv) -> int:
    args = parse_args(argv)
    rows = []
    with tempfile.TemporaryDirectory(prefix="quality-vs-torchgfn-") as tmp:
        work = Path(tmp)
        try:
            root, env = prepare(args.torchgfn.resolve(), work)
        except ValueError as e:
            print(f"quality-vs-torchgfn: error: {e}", file=sys.stderr)
            return 2
        try:
            for i, seed in enumerate(args.seeds):
                sides = [("ours", lambda: run_ours(args, work, seed, lambda n: diffusion_reference(
                    root, env, work, args.target, n))),
                         ("torchgfn", lambda: run_torchgfn(args, root, env, work, seed))]
                sides = [s for s in sides if args.side in ("both", s[0])]
                if i % 2:
                    sides.reverse()
                rows.append(dict({name: fn() for name, fn in sides}, seed=seed))
                print(f"# seed {seed}: " + ", ".join(f"{name} {rows[-1][name]}" for name, _ in
                                                      sorted(sides)), flush=True)
        except (subprocess.CalledProcessError, RuntimeError, KeyError) as e:
            print(f"quality-vs-torchgfn: error: {e}", file=sys.stderr)
            return 1
    print_table(rows, METRICS[args.scenario])
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
