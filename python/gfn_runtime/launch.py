"""Launching gfn-train from Python: a run or a seed study from a config dict (docs/python.md).

    run = launch({"env": {"ndim": 2, "height": 8}, "train": {"n_trajectories": 3200}},
                 run_dir="runs/a", launcher="mpirun", np=3)
    runs = seed_study(config, seeds=[1, 2, 3], root="runs/seeds")

launch() writes the config as YAML into the run directory (launch.yaml; output.dir set to the
run directory), runs gfn-train under the launcher (None: one process; "mpirun": Open MPI's
mpirun with tools/mpirun.sh's flags, -np N; "gfn-launch": gfn-launch -n N, torchrun-style
ranks for transport.backend torch), passes every line the job prints to on_line (default:
sys.stdout; the progress lines are parse_progress()'s), and returns the run directory read
(RunDir). A job that fails raises LaunchError with its exit code and last lines.
"""

import copy
import os
import re
import shutil
import subprocess
import sys
import tempfile

import yaml

from .run_dir import RunDir

LAUNCHERS = (None, "none", "mpirun", "gfn-launch")
# tools/mpirun.sh: running as root, more ranks than cores, no pinning, no busy-waiting.
MPIRUN_FLAGS = ("--allow-run-as-root", "--oversubscribe", "--bind-to", "none")
PROGRESS = re.compile(r"progress: iteration (\d+)/(\d+) \((\d+)%\).*?\| loss (\S+)"
                      r"(?: \| modes (\d+)/(\d+))?")


class LaunchError(RuntimeError):
    """gfn-train could not be started or ended with a non-zero exit code; the message gives
    the command, the exit code and the job's last lines. Attributes: returncode, run_dir,
    tail (those lines)."""

    def __init__(self, message, returncode=None, run_dir=None, tail=()):
        super().__init__(message)
        self.returncode, self.run_dir, self.tail = returncode, run_dir, list(tail)


def default_bin_dir():
    """Where gfn-train is looked for first: the installed prefix's bin/ (recorded in
    _installed.py by `cmake --install`), else the source tree's build/bin/ beside python/."""
    try:
        from ._installed import BIN_DIR
        return BIN_DIR
    except ImportError:
        here = os.path.dirname(os.path.abspath(__file__))
        return os.path.normpath(os.path.join(here, "..", "..", "build", "bin"))


def find_program(name, path=None):
    """The program `name` (gfn-train, gfn-launch, gfn-export): `path` when given, else
    default_bin_dir()/name, then PATH. Raises LaunchError when none is an executable file."""
    candidates = [path] if path else [os.path.join(default_bin_dir(), name), shutil.which(name)]
    for candidate in candidates:
        if candidate and os.path.isfile(candidate) and os.access(candidate, os.X_OK):
            return os.path.abspath(candidate)
    raise LaunchError(f"{name}: not found (looked at {', '.join(c for c in candidates if c)} "
                      "and PATH); pass its path")


def parse_progress(line):
    """A progress line of trainer rank 0 (docs/outputs.md "Progress") as {"iteration",
    "total", "percent", "loss", "modes_found", "n_modes"} (the modes None when the environment
    defines none); None for any other line."""
    match = PROGRESS.search(line)
    if not match:
        return None
    it, total, percent, loss, found, n_modes = match.groups()
    return {"iteration": int(it), "total": int(total), "percent": int(percent),
            "loss": float(loss), "modes_found": int(found) if found else None,
            "n_modes": int(n_modes) if n_modes else None}


def command_line(config_path, launcher=None, np=1, gfn_train=None, extra_args=()):
    """The command that runs gfn-train on config_path under the launcher (see launch())."""
    if launcher not in LAUNCHERS:
        raise ValueError(f"launcher {launcher!r}: expected one of None, 'none', 'mpirun', "
                         "'gfn-launch'")
    train = [find_program("gfn-train", gfn_train), "--config", config_path, *extra_args]
    if launcher in (None, "none"):
        if np != 1:
            raise ValueError(f"np {np} needs a launcher ('mpirun' or 'gfn-launch')")
        return train
    if launcher == "mpirun":
        mpirun = shutil.which("mpirun")
        if mpirun is None:
            raise LaunchError("mpirun: not on PATH (Debian's openmpi-bin)")
        return [mpirun, *MPIRUN_FLAGS, "-np", str(np), *train]
    gfn_launch = find_program("gfn-launch", os.path.join(os.path.dirname(train[0]),
                                                         "gfn-launch"))
    return [gfn_launch, "-n", str(np), "--", *train]


def _prepare(config, run_dir, launcher):
    """A copy of config with output.dir = run_dir (made absolute; a fresh temporary directory
    when run_dir and output.dir are both unset), progress lines on, transport.backend torch
    under gfn-launch."""
    config = copy.deepcopy(config)
    output = config.setdefault("output", {})
    run_dir = run_dir or output.get("dir") or tempfile.mkdtemp(prefix="gfn-run-")
    output["dir"] = os.path.abspath(run_dir)
    output.setdefault("progress", "lines")
    if launcher == "gfn-launch":
        transport = config.setdefault("transport", {})
        if transport.get("backend", "torch") != "torch":
            raise ValueError("launcher 'gfn-launch' starts torchrun-style ranks: "
                             f"transport.backend must be torch, not {transport['backend']!r}")
        transport["backend"] = "torch"
    return config, output["dir"]


def launch(config, run_dir=None, launcher=None, np=1, gfn_train=None, on_line=None,
           extra_args=(), env=None, tail_lines=40):
    """Runs gfn-train on a config dict and returns the run directory read (RunDir).

    config: the YAML's contents as a dict (configs/*.yaml read with yaml.safe_load, or built
      by hand); it is not modified. run_dir: output.dir (default: the config's, else a new
      temporary directory); it is made and the YAML written into it as launch.yaml.
    launcher: None / "none" (one process, np 1), "mpirun" (mpirun --allow-run-as-root
      --oversubscribe --bind-to none -np np, OMPI_MCA_mpi_yield_when_idle=1 as
      tools/mpirun.sh) or "gfn-launch" (gfn-launch -n np; sets transport.backend torch).
    gfn_train: the program (default: find_program("gfn-train")). on_line(line): called with
      every line the job prints, stdout and stderr merged, without the newline (default:
      written to sys.stdout); parse_progress(line) reads the progress lines.
    extra_args: more gfn-train arguments (e.g. ["--set", "train.lr=0.01"]). env: extra
      environment variables. Blocks until the job ends; LaunchError when it fails.
    """
    config, run_dir = _prepare(config, run_dir, launcher)
    os.makedirs(run_dir, exist_ok=True)
    config_path = os.path.join(run_dir, "launch.yaml")
    with open(config_path, "w") as f:
        yaml.safe_dump(config, f, sort_keys=False)
    cmd = command_line(config_path, launcher, np, gfn_train, extra_args)
    run_env = dict(os.environ, OMPI_MCA_mpi_yield_when_idle="1", **(env or {}))
    on_line = on_line or (lambda line: print(line, file=sys.stdout, flush=True))
    tail = []
    try:
        proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                env=run_env, text=True, errors="replace", bufsize=1)
    except OSError as e:
        raise LaunchError(f"{cmd[0]}: cannot start: {e.strerror}", run_dir=run_dir) from e
    with proc:
        for line in proc.stdout:
            line = line.rstrip("\n")
            tail = (tail + [line])[-tail_lines:]
            on_line(line)
    if proc.returncode != 0:
        raise LaunchError(f"{' '.join(cmd)}: exit code {proc.returncode}; last lines:\n" +
                          "\n".join(tail), proc.returncode, run_dir, tail)
    return RunDir(run_dir)


def seed_study(config, seeds, root=None, **launch_args):
    """The same config trained once per train.seed in seeds, one after the other, each in
    root/seed_<seed> (root default: a new temporary directory); returns their RunDirs in the
    order of seeds. launch_args: launch()'s (launcher, np, gfn_train, on_line, ...)."""
    root = root or tempfile.mkdtemp(prefix="gfn-seeds-")
    runs = []
    for seed in seeds:
        run_config = copy.deepcopy(config)
        run_config.setdefault("train", {})["seed"] = seed
        runs.append(launch(run_config, os.path.join(root, f"seed_{seed}"), **launch_args))
    return runs
