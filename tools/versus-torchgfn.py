#!/usr/bin/python3
"""gfn-bench-train --suite against torchgfn's own benchmark, side by side, interleaved.

Runs torchgfn's cross-library benchmark (benchmark/benchmark_libraries.py of GFNOrg/torchgfn,
its torchgfn runner only) and `gfn-bench-train --suite` on the same scenarios and batch sizes,
one thread each (OMP_NUM_THREADS=1, train.num_threads 1) and the same OpenBLAS kernels
(OPENBLAS_CORETYPE as our runtime chooses it, see openblas_coretype), alternating which goes
first in each round so a swing of the machine's speed hits both. Prints per scenario and batch the mean ms per
iteration of each side (median over the rounds) and the speed-up torchgfn / ours (median of the
per-round ratios, with its range), and checks that both models have the same parameter count.

torchgfn is run from a source tree (--torchgfn DIR, holding src/gfn and benchmark/) under
Debian's python3-torch: the script copies src/gfn, benchmark_libraries.py, lib_runners/base.py
and lib_runners/torchgfn_runner.py into a temporary directory (lib_runners/__init__.py there
imports nothing: the original imports the gflownet and gfnx runners, which need JAX), and gives
gfn/__init__.py's package-metadata version lookup a fallback. The source tree is not modified.
torchgfn imports four packages Debian 12 does not have: tensordict, torch_geometric and
linear_attention_transformer (graph states and transformer estimators) are replaced by
import-only stand-ins whose every class refuses to be constructed, so a scenario that used one
would fail, not run something else; einops is used by the K-hot preprocessor for one
`rearrange(x, "... a b -> ... (a b)")`, which the stand-in computes as x.flatten(-2), the same
reshape. torchgfn asks for torch >= 2.6; Debian's python3-torch is 1.13, on which the nine
scenarios run (checked 2026-11-28, torchgfn f39bfc96).

    git -C <torchgfn git dir> archive HEAD | tar -x -C /tmp/torchgfn   # or a clone
    # (a mirror without the large blob src/gfn/gym/helpers/chip_design/plc_wrapper_main:
    #  ... archive HEAD -- src/gfn benchmark ':(exclude)src/gfn/gym/helpers/chip_design/plc_wrapper_main')
    /usr/bin/python3 tools/versus-torchgfn.py --torchgfn /tmp/torchgfn --rounds 3 \
        --scenario tb_hypergrid_small --batch-sizes 32 128 512

--suite DIR chooses our side's configs (gfn-bench-train --suite DIR; default
configs/bench/torchgfn, the built-in environments); a scenario is the same file stem on both
sides. configs/bench/torchgfn_python holds torchgfn's two HyperGrid scenarios with the
environment written in Python (examples/python_env/hypergrid.py, env.python; run from the
repository root): torchgfn's Python HyperGrid against ours under gfn-train's embedded Python:

    /usr/bin/python3 tools/versus-torchgfn.py --torchgfn /tmp/torchgfn --rounds 3 \
        --suite configs/bench/torchgfn_python \
        --scenario tb_hypergrid_small tb_hypergrid_medium --batch-sizes 128

docs/performance.md "torchgfn's benchmark suite" has the figures and the machine.
Exit codes: 0 success, 2 bad arguments, 1 a run failed.
"""
import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path

RUNNER_FILES = ["benchmark_libraries.py", "lib_runners/base.py", "lib_runners/torchgfn_runner.py"]


def prepare_torchgfn(source: Path, work: Path) -> Path:
    """A runnable copy of torchgfn's package and benchmark in `work`; returns its root."""
    if not (source / "src" / "gfn").is_dir() or not (source / "benchmark").is_dir():
        raise ValueError(f"--torchgfn {source}: not a torchgfn source tree (no src/gfn or benchmark/)")
    shutil.copytree(source / "src" / "gfn", work / "gfn")
    init = work / "gfn" / "__init__.py"
    text = init.read_text()
    lookup = 'met.version("torchgfn")'
    if lookup in text:
        fallback = "_version_or_none()"
        text = text.replace(lookup, fallback, 1)
        text = ("import importlib.metadata as _met\n\n\ndef _version_or_none():\n"
                "    try:\n        return _met.version(\"torchgfn\")\n"
                "    except _met.PackageNotFoundError:\n        return \"source\"\n\n\n" + text)
        init.write_text(text)
    (work / "benchmark" / "lib_runners").mkdir(parents=True)
    (work / "benchmark" / "__init__.py").write_text("")
    (work / "benchmark" / "lib_runners" / "__init__.py").write_text("")
    for name in RUNNER_FILES:
        shutil.copy(source / "benchmark" / name, work / "benchmark" / name)
    return work


STUB_FINDER = """import importlib.abc, importlib.machinery, sys, types
_STUBBED = {"tensordict", "torch_geometric", "linear_attention_transformer"}


def _placeholder(qualname):
    def _refuse(*args, **kwargs):
        raise RuntimeError(qualname + ": not installed (versus-torchgfn.py's import-only stand-in)")
    return type(qualname.rsplit(".", 1)[-1], (), {"__init__": _refuse,
                "__init_subclass__": classmethod(lambda cls, **kwargs: None)})


class _StubModule(types.ModuleType):
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        value = _placeholder(self.__name__ + "." + name)
        setattr(self, name, value)
        return value


class _Finder(importlib.abc.MetaPathFinder, importlib.abc.Loader):
    def find_spec(self, name, path, target=None):
        if name.split(".")[0] in _STUBBED:
            return importlib.machinery.ModuleSpec(name, self, is_package=True)
        return None

    def create_module(self, spec):
        module = _StubModule(spec.name)
        module.__path__ = []
        return module

    def exec_module(self, module):
        pass


sys.meta_path.insert(0, _Finder())
"""

EINOPS_STANDIN = """def rearrange(x, pattern, **axes):
    if pattern.replace(" ", "") == "...ab->...(ab)":
        return x.flatten(-2)
    raise NotImplementedError("einops stand-in (versus-torchgfn.py): only '... a b -> ... (a b)'")
"""


def write_standins(stubs: Path) -> Path:
    """The stand-ins for the packages Debian lacks (module docstring); returns their directory."""
    (stubs / "einops").mkdir(parents=True)
    (stubs / "einops" / "__init__.py").write_text(EINOPS_STANDIN)
    (stubs / "sitecustomize.py").write_text(STUB_FINDER)
    return stubs


def openblas_coretype() -> str:
    """The OpenBLAS kernel set our side runs (runtime/process/blas_kernels.cc's rule from the
    CPU flags; a user-set OPENBLAS_CORETYPE wins), "" when OpenBLAS's own guess is right.
    OpenBLAS 0.3.21 falls back to its Prescott kernels on CPUs it does not know (this AMD EPYC
    VM included), 3-4x slower on these GEMMs: torchgfn's python3-torch loads the same
    libopenblas, so without this it would be measured on slower kernels than ours."""
    if os.environ.get("OPENBLAS_CORETYPE"):
        return os.environ["OPENBLAS_CORETYPE"]
    try:
        flags = next((line.split(":", 1)[1].split() for line in
                      Path("/proc/cpuinfo").read_text().splitlines()
                      if line.startswith("flags")), [])
    except OSError:
        return ""
    if {"avx512f", "avx512bw", "avx512vl", "avx512dq", "avx512cd"} <= set(flags):
        return "SkylakeX"
    if {"avx2", "fma"} <= set(flags):
        return "Haswell"
    return ""


def one_thread_env(extra_path: str = "") -> dict:
    """One thread (OpenMP, MKL, OpenBLAS) and the same OpenBLAS kernels as our side."""
    env = dict(os.environ, OMP_NUM_THREADS="1", MKL_NUM_THREADS="1", OPENBLAS_NUM_THREADS="1")
    coretype = openblas_coretype()
    if coretype:
        env["OPENBLAS_CORETYPE"] = coretype
    if extra_path:
        env["PYTHONPATH"] = extra_path
    return env


def run_torchgfn(root: Path, scenario: str, batch: int, out: Path) -> dict:
    """torchgfn's summary for its own library: mean/std ms per iteration, phases, params."""
    shutil.rmtree(out, ignore_errors=True)
    cmd = ["/usr/bin/python3", str(root / "benchmark" / "benchmark_libraries.py"), "--cpu",
           "--libraries", "torchgfn", "--scenario", scenario, "--batch-sizes", str(batch),
           "--seeds", "0", "--output", str(out)]
    path = f"{root}:{root.parent / 'standins'}"
    subprocess.run(cmd, cwd=root, env=one_thread_env(path), check=True,
                   stdout=subprocess.DEVNULL)
    files = sorted(out.glob(f"benchmark_{scenario}_*.json"))
    if not files:
        raise RuntimeError(f"torchgfn wrote no result for {scenario} batch {batch} in {out}")
    data = json.loads(files[-1].read_text())
    summary = data["summary"]["torchgfn"]
    return {"ms": summary["mean_iter_time_ms"], "sd": summary["std_iter_time_ms"],
            "params": data["results"][0].get("n_params"),
            "phases": {k: v["mean_ms"] for k, v in summary["phase_times"].items()}}


def run_ours(bench: str, suite: str, scenario: str, batch: int, out: Path, extra=()) -> dict:
    """gfn-bench-train's figures for one case (`extra`: more gfn-bench-train arguments)."""
    cmd = [bench, "--suite", suite, "--scenario", scenario, "--batch-sizes", str(batch),
           "--json", str(out), *extra]
    subprocess.run(cmd, env=one_thread_env(), check=True, stdout=subprocess.DEVNULL)
    case = json.loads(out.read_text())["cases"][0]
    fig = case["figures"]
    return {"ms": fig["ms_per_iteration"]["mean"], "sd": fig["ms_per_iteration"]["stddev"],
            "params": case["parameters"]["n_params"],
            "phases": {k: fig[k + "_ms"]["value"] for k in ("sample", "loss", "backward", "optimizer")}}


def measure(args, root: Path, work: Path) -> list:
    rows = []
    for scenario in args.scenario:
        for batch in args.batch_sizes:
            rounds = []
            for r in range(args.rounds):
                sides = [("torchgfn", lambda: run_torchgfn(root, scenario, batch, work / "tg")),
                         ("ours", lambda: run_ours(args.bench, args.suite, scenario, batch,
                                                   work / "ours.json"))]
                if r % 2:
                    sides.reverse()
                rounds.append({name: fn() for name, fn in sides})
                print(f"# {scenario} b{batch} round {r + 1}: torchgfn {rounds[-1]['torchgfn']['ms']:.3f} ms,"
                      f" ours {rounds[-1]['ours']['ms']:.3f} ms", flush=True)
            rows.append(dict(summarize(scenario, batch, rounds), suite=args.suite))
    return rows


def summarize(scenario: str, batch: int, rounds: list) -> dict:
    ratios = [r["torchgfn"]["ms"] / r["ours"]["ms"] for r in rounds]
    return {"scenario": scenario, "batch": batch,
            "torchgfn_ms": statistics.median(r["torchgfn"]["ms"] for r in rounds),
            "ours_ms": statistics.median(r["ours"]["ms"] for r in rounds),
            "speedup": statistics.median(ratios), "speedup_min": min(ratios),
            "speedup_max": max(ratios),
            "torchgfn_params": rounds[0]["torchgfn"]["params"],
            "ours_params": rounds[0]["ours"]["params"], "rounds": rounds}


def print_table(rows: list, suite: str) -> None:
    print(f"# ours: gfn-bench-train --suite {suite}")
    print("| scenario | batch | params (torchgfn / ours) | torchgfn ms/iter | ours ms/iter "
          "| speed-up (median, range) |")
    print("| --- | ---: | ---: | ---: | ---: | ---: |")
    for r in rows:
        params = f"{r['torchgfn_params']:,} / {r['ours_params']:,}"
        if r["torchgfn_params"] != r["ours_params"]:
            params += " DIFFER"
        print(f"| {r['scenario']} | {r['batch']} | {params} | {r['torchgfn_ms']:.3f} | "
              f"{r['ours_ms']:.3f} | {r['speedup']:.1f}x ({r['speedup_min']:.1f}-{r['speedup_max']:.1f}) |")


def parse_args(argv):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--torchgfn", required=True, type=Path, help="torchgfn source tree")
    p.add_argument("--suite", default="configs/bench/torchgfn", help="gfn-bench-train --suite DIR: our side's configs "
                   "(configs/bench/torchgfn_python: the Python HyperGrid)")
    p.add_argument("--bench", default="build/bin/gfn-bench-train")
    p.add_argument("--scenario", nargs="+", required=True, help="scenario names (both sides)")
    p.add_argument("--batch-sizes", nargs="+", type=int, default=[32, 128, 512])
    p.add_argument("--rounds", type=int, default=3, help="interleaved rounds per cell (>= 1)")
    p.add_argument("--json", type=Path, help="write every round's figures here")
    args = p.parse_args(argv)
    if args.rounds < 1 or any(b < 1 for b in args.batch_sizes):
        p.error("--rounds and every --batch-sizes value must be >= 1")
    return args


def main(argv) -> int:
    args = parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="versus-torchgfn-") as tmp:
        work = Path(tmp)
        try:
            root = prepare_torchgfn(args.torchgfn.resolve(), work / "torchgfn")
            write_standins(work / "standins")
        except ValueError as e:
            print(f"versus-torchgfn: error: {e}", file=sys.stderr)
            return 2
        try:
            rows = measure(args, root, work)
        except (subprocess.CalledProcessError, RuntimeError, KeyError) as e:
            print(f"versus-torchgfn: error: {e}", file=sys.stderr)
            return 1
    print_table(rows, args.suite)
    if args.json:
        args.json.write_text(json.dumps(rows, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
