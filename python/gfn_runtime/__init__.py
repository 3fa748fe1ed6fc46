"""gfn_runtime: gfn-train's run directories read from Python, and runs launched from Python
(docs/python.md).

  RunDir(path)            a run directory's files as dicts and tensors (run_dir.py)
  launch(config, ...)     gfn-train on a config dict, under a launcher; returns a RunDir
  seed_study(config, seeds, ...)   the same over several train.seed values
  export                  the exported estimators as torch modules (imported on use: torch)
Pure Python; the readers need PyYAML, the tensors and the modules torch (without torch the
CSV columns are lists).
"""

from .launch import LaunchError, find_program, launch, parse_progress, seed_study
from .run_dir import RunDir, RunDirError

__all__ = ["RunDir", "RunDirError", "LaunchError", "find_program", "launch", "parse_progress",
           "seed_study"]
__version__ = "0.1.0"
