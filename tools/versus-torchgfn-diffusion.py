#!/usr/bin/python3
"""Our diffusion sampler against torchgfn's train_diffusion_sampler.py, per training iteration.

torchgfn's side is its own script, tutorials/examples/train_diffusion_sampler.py, run unchanged
(runpy, as `python -m tutorials.examples.train_diffusion_sampler`) with its argparse defaults
(PISGradNet 64/64/64, 2 joint layers, Trajectory Balance, Adam 1e-3 / logZ 1e-1, batch 200,
32 steps, sigma 5) and --target, --n_iterations warmup + iters + 1, a large --eval_interval:
it evaluates only at iteration 0 and the last one, and neither is timed. The script's training
loop iterates over `tqdm(range(n_iterations))`; the driver below stands in for tqdm with an
iterator that records the clock at every step, so an iteration's time is the script's own loop
body (on-policy sampling with save_logprobs, zero_grad, the TB loss, backward, Adam step and
its progress-bar update with loss.item()), from one step of the loop to the next. The driver
also counts the parameters of the script's TBGFlowNet (PF, PB and logZ).

Our side: gfn-bench-train --suite configs/bench/torchgfn_diffusion --scenario <target>
--batch-sizes <batch> (Agent::train_iteration of the ContinuousLearner; the configs are
configs/diffusion_gmm2.yaml's settings). A scenario is the config's file stem; its env.target
and env.sigma are passed to the script as --target and --sigma, env.n_steps as --num_steps.

One thread each: OMP_NUM_THREADS, MKL_NUM_THREADS and OPENBLAS_NUM_THREADS 1, and
torch.set_num_threads(1) before the script starts; ours train.num_threads 1 (the configs).
Both on the same OpenBLAS kernels (versus-torchgfn.py's openblas_coretype).
Rounds alternate which side goes first; the speed-up is torchgfn / ours per round, median and
range over the rounds; the table gives each side's median over the rounds of its mean ms per
iteration. torchgfn is prepared as tools/versus-torchgfn.py prepares it (its copy of src/gfn
with the version fallback and the stand-ins for the packages Debian lacks), plus the tutorial
script and its package's EXAMPLES_OUTPUTS (a temporary directory).

    /usr/bin/python3 tools/versus-torchgfn-diffusion.py --torchgfn /tmp/torchgfn --rounds 5 \\
        --scenario diffusion_gmm2 diffusion_many_well --warmup 20 --iters 100

The torchgfn tree needs src/gfn, benchmark/ and tutorials/examples/train_diffusion_sampler.py.
docs/performance.md "Against torchgfn's diffusion sampler" has the figures and the machine.
Exit codes: 0 success, 2 bad arguments, 1 a run failed.
"""
import argparse
import importlib.util
import json
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

import yaml

_spec = importlib.util.spec_from_file_location("versus_torchgfn",
                                               Path(__file__).with_name("versus-torchgfn.py"))
versus = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(versus)

TUTORIAL = Path("tutorials") / "examples" / "train_diffusion_sampler.py"
RESULT_TAG = "versus-torchgfn-diffusion:"

# Runs the tutorial script as __main__ after pinning one thread, with a tqdm that records the
# clock at every step of the loop and a TBGFlowNet that remembers itself (for its parameters).
DRIVER = """import json, runpy, sys, time, types
import torch
torch.set_num_threads(1)
stamps = []


class _Bar:
    def __init__(self, iterable, *args, **kwargs):
        self.iterable = iterable

    def __iter__(self):
        for item in self.iterable:
            stamps.append(time.perf_counter())
            yield item
        stamps.append(time.perf_counter())

    def set_postfix(self, *args, **kwargs):
        pass


sys.modules["tqdm"] = types.SimpleNamespace(tqdm=_Bar)
import gfn.gflownet
made = []


class _Recorded(gfn.gflownet.TBGFlowNet):
    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        made.append(self)


gfn.gflownet.TBGFlowNet = _Recorded
sys.argv = ["train_diffusion_sampler.py"] + sys.argv[1:]
runpy.run_module("tutorials.examples.train_diffusion_sampler", run_name="__main__")
ms = [1e3 * (b - a) for a, b in zip(stamps, stamps[1:])]
params = sum(p.numel() for p in made[0].parameters() if p.requires_grad) if made else None
print(TAG + json.dumps({"iteration_ms": ms, "n_params": params,
                        "threads": torch.get_num_threads()}))
"""


def prepare(source: Path, work: Path) -> Path:
    """torchgfn as versus-torchgfn.py prepares it, plus the tutorial and the driver."""
    if not (source / TUTORIAL).is_file():
        raise ValueError(f"--torchgfn {source}: no {TUTORIAL}")
    root = versus.prepare_torchgfn(source, work / "torchgfn")
    versus.write_standins(work / "standins")
    examples = root / TUTORIAL.parent
    examples.mkdir(parents=True)
    (root / "tutorials" / "__init__.py").write_text("")
    outputs = work / "outputs"
    (examples / "__init__.py").write_text(
        f"from pathlib import Path\nEXAMPLES_OUTPUTS = Path({str(outputs)!r})\n")
    shutil.copy(source / TUTORIAL, examples / TUTORIAL.name)
    (root / "versus_driver.py").write_text(f"TAG = {RESULT_TAG!r}\n" + DRIVER)
    return root


def scenario_settings(suite: str, scenario: str) -> dict:
    """env.target, and env.sigma, env.n_steps, env.target_dim where set, of the scenario's config."""
    path = Path(suite) / f"{scenario}.yaml"
    env = (yaml.safe_load(path.read_text()) or {}).get("env") or {}
    if env.get("name") != "diffusion" or "target" not in env:
        raise ValueError(f"{path}: not an env.name diffusion config with env.target")
    return {k: str(env[k]) for k in ("target", "sigma", "n_steps", "target_dim") if k in env}


def run_torchgfn(root: Path, settings: dict, args) -> dict:
    n = args.warmup + args.iters + 1
    cmd = ["/usr/bin/python3", str(root / "versus_driver.py"), "--target", settings["target"],
           "--batch_size", str(args.batch), "--n_iterations", str(n),
           "--eval_interval", str(10 * n + 10), "--eval_n", str(args.eval_n),
           "--eval_batch_size", str(args.eval_n), "--seed", "0"]
    for key, flag in (("sigma", "--sigma"), ("n_steps", "--num_steps")):
        if key in settings:
            cmd += [flag, settings[key]]
    if settings.get("target_dim", "0") != "0":
        cmd += ["--dim", settings["target_dim"]]
    env = versus.one_thread_env(f"{root}:{root.parent / 'standins'}")
    out = subprocess.run(cmd, cwd=root, env=env, check=True, text=True,
                         capture_output=True).stdout
    lines = [l for l in out.splitlines() if l.startswith(RESULT_TAG)]
    if not lines:
        raise RuntimeError(f"torchgfn's script printed no timing for {settings['target']}")
    data = json.loads(lines[-1][len(RESULT_TAG):])
    timed = data["iteration_ms"][args.warmup:args.warmup + args.iters]
    if len(timed) != args.iters:
        raise RuntimeError(f"torchgfn ran {len(data['iteration_ms'])} iterations, expected {n}")
    return {"ms": statistics.fmean(timed), "sd": statistics.stdev(timed) if len(timed) > 1 else 0.0,
            "params": data["n_params"], "threads": data["threads"]}


def run_ours(args, scenario: str, out: Path) -> dict:
    return versus.run_ours(args.bench, args.suite, scenario, args.batch, out,
                           ["--warmup", str(args.warmup), "--iters", str(args.iters)])


def measure(args, root: Path, work: Path) -> list:
    rows = []
    for scenario in args.scenario:
        settings = scenario_settings(args.suite, scenario)
        rounds = []
        for r in range(args.rounds):
            sides = [("torchgfn", lambda: run_torchgfn(root, settings, args)),
                     ("ours", lambda: run_ours(args, scenario, work / "ours.json"))]
            if r % 2:
                sides.reverse()
            rounds.append({name: fn() for name, fn in sides})
            print(f"# {scenario} b{args.batch} round {r + 1}: torchgfn "
                  f"{rounds[-1]['torchgfn']['ms']:.3f} ms, ours {rounds[-1]['ours']['ms']:.3f} ms",
                  flush=True)
        rows.append(dict(versus.summarize(scenario, args.batch, rounds), suite=args.suite,
                         target=settings["target"], warmup=args.warmup, iters=args.iters))
    return rows


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--torchgfn", required=True, type=Path, help="torchgfn source tree")
    p.add_argument("--suite", default="configs/bench/torchgfn_diffusion",
                   help="gfn-bench-train --suite DIR: our side's configs")
    p.add_argument("--bench", default="build/bin/gfn-bench-train")
    p.add_argument("--scenario", nargs="+", default=["diffusion_gmm2"],
                   help="config stems of --suite (their env.target is torchgfn's --target)")
    p.add_argument("--batch", type=int, default=200, help="trajectories per iteration")
    p.add_argument("--warmup", type=int, default=20, help="untimed iterations per run (>= 1)")
    p.add_argument("--iters", type=int, default=100, help="timed iterations per run (>= 2)")
    p.add_argument("--eval-n", type=int, default=200,
                   help="torchgfn's --eval_n (its untimed evaluations at iteration 0 and the last)")
    p.add_argument("--rounds", type=int, default=3, help="interleaved rounds per scenario (>= 1)")
    p.add_argument("--json", type=Path, help="write every round's figures here")
    args = p.parse_args(argv)
    if args.rounds < 1 or args.batch < 1 or args.warmup < 1 or args.iters < 2 or args.eval_n < 1:
        p.error("need --rounds, --batch, --warmup, --eval-n >= 1 and --iters >= 2")
    return args


def main(argv) -> int:
    args = parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="versus-torchgfn-diffusion-") as tmp:
        work = Path(tmp)
        try:
            root = prepare(args.torchgfn.resolve(), work)
            for scenario in args.scenario:
                scenario_settings(args.suite, scenario)
        except (ValueError, OSError) as e:
            print(f"versus-torchgfn-diffusion: error: {e}", file=sys.stderr)
            return 2
        try:
            rows = measure(args, root, work)
        except (subprocess.CalledProcessError, RuntimeError, KeyError) as e:
            detail = getattr(e, "stderr", None) or ""
            print(f"versus-torchgfn-diffusion: error: {e}\n{detail[-2000:]}", file=sys.stderr)
            return 1
    print(f"# torchgfn: {TUTORIAL} (warm-up {args.warmup}, {args.iters} timed iterations per run)")
    versus.print_table(rows, args.suite)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
