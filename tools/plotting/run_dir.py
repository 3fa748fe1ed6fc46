"""Reading a gfn-train run directory for tools/gfn-plot (docs/outputs.md "Plots").

A run directory holds, all written by gfn-train (roles/run_job.cc, roles/trainer/trainer.cc):
  config.yaml       the effective configuration (env.name, env.ndim, ...)
  summary.json      the final metrics
  metrics.csv       one row per validation (iteration, trajectories, loss, l1_exact, ...)
  training.csv      one row every output.log_every iterations (loss, logz, modes_found)
  distribution.csv  enumerable environments: x0..x{d-1}, p_learned, p_true
  density.csv       continuous environments: x0[, x1] (grid of the first two coordinates),
                    p_learned, p_target (KDEs of learned and exact samples), p_true (R/Z)
  timing.json       the trainers' time and load-imbalance reports (seconds)
  logp_logr.csv     BitSequence: the test set's log p_theta(x), log R(x) (the Spearman pairs)
  modes_timeline.csv  first discoveries per agent (trainer rank) and for the population
                    ("total"): agent, modes_found, iteration, trajectories, wall_s
  buffer_manager_<rank>.json  each buffer manager's counts, modes_found among them
  samples/validation_<iteration>.npy  continuous environments with exact samples of the
                    target: float32 [2, n, k], the learned sampler's and the exact samples
  sample_metrics.csv  tools/gfn-sample-metrics (or gfn-plot) from those: iteration,
                    n_samples, dim, w2, mmd
Every reader checks what it reads and raises DataError naming the file and the line, so a
malformed file never gives a silently wrong picture.
"""

import csv
import glob
import json
import math
import os
import re

import numpy as np
import yaml


class DataError(Exception):
    """A run directory file that cannot be read; the message names the file (and line)."""


METRICS_COLUMNS = ("iteration", "trajectories", "loss", "logz", "l1_exact", "jsd", "logz_error",
                   "l1_sampled", "modes_found", "elapsed_s")
TRAINING_COLUMNS = ("iteration", "trajectories", "elapsed_s", "loss", "logz", "modes_found")
TIMELINE_COLUMNS = ("modes_found", "iteration", "trajectories", "wall_s")
SAMPLE_METRICS_COLUMNS = ("iteration", "n_samples", "dim", "w2", "mmd")
SAMPLES_FILE = re.compile(r"validation_(\d{8})\.npy$")


def read_samples(path):
    """(learned [n, k], exact [n, k]) float32 of one samples/validation_*.npy; DataError naming
    the file when it is not a float32 [2, n >= 1, k >= 1] .npy array."""
    try:
        data = np.load(path, allow_pickle=False)
    except (OSError, ValueError) as e:
        raise DataError(f"{path}: cannot read as .npy: {e}") from e
    if data.dtype != np.float32 or data.ndim != 3 or data.shape[0] != 2 or min(data.shape) < 1:
        raise DataError(f"{path}: expected float32 [2, n, k], got {data.dtype} "
                        f"{list(data.shape)}")
    return data[0], data[1]


def sample_files(run_path):
    """[(iteration, path)] of the run's samples/validation_*.npy, by iteration."""
    found = []
    for path in glob.glob(os.path.join(run_path, "samples", "validation_*.npy")):
        match = SAMPLES_FILE.search(path)
        if match:
            found.append((int(match.group(1)), path))
    return sorted(found)


def read_modes_timeline(path):
    """modes_timeline.csv as {agent: {column: [float, ...]}}, agent an int rank or 'total'.
    Raises DataError naming path and line."""
    try:
        with open(path, newline="") as f:
            rows = list(csv.reader(f))
    except OSError as e:
        raise DataError(f"{path}: cannot read: {e.strerror}") from e
    if not rows or [h.strip() for h in rows[0]] != ["agent", *TIMELINE_COLUMNS]:
        raise DataError(f"{path}: line 1: expected the header agent,{','.join(TIMELINE_COLUMNS)}")
    agents = {}
    for line_no, row in enumerate(rows[1:], start=2):
        if not row:
            continue
        if len(row) != 1 + len(TIMELINE_COLUMNS):
            raise DataError(f"{path}: line {line_no}: {len(row)} values, the header has "
                            f"{1 + len(TIMELINE_COLUMNS)}")
        agent = row[0].strip()
        if agent != "total":
            if not agent.isdigit():
                raise DataError(f"{path}: line {line_no}: agent '{agent}' is neither a rank "
                                "nor 'total'")
            agent = int(agent)
        columns = agents.setdefault(agent, {c: [] for c in TIMELINE_COLUMNS})
        for name, text in zip(TIMELINE_COLUMNS, row[1:]):
            try:
                columns[name].append(float(text))
            except ValueError:
                raise DataError(f"{path}: line {line_no}: column '{name}': '{text}' is not a "
                                f"number") from None
    return agents


def read_manager_timelines(run_path):
    """{rank: {"elapsed_s": [...], "items_received": [...], "modes_found": [...]}} from the
    modes_timeline arrays of buffer_manager_<rank>.json ([elapsed_s, items_received,
    modes_found] rows). Raises DataError naming the file for a malformed row."""
    timelines = {}
    for path in glob.glob(os.path.join(run_path, "buffer_manager_*.json")):
        match = re.search(r"buffer_manager_(\d+)\.json$", path)
        data = read_json(path)
        if not match or not isinstance(data, dict) or "modes_timeline" not in data:
            continue
        rows = data["modes_timeline"]
        columns = {"elapsed_s": [], "items_received": [], "modes_found": []}
        if not isinstance(rows, list):
            raise DataError(f"{path}: modes_timeline: expected a list of rows")
        for i, row in enumerate(rows):
            if (not isinstance(row, list) or len(row) != 3 or
                    not all(isinstance(v, (int, float)) and not isinstance(v, bool)
                            for v in row)):
                raise DataError(f"{path}: modes_timeline row {i}: expected [elapsed_s, "
                                f"items_received, modes_found], got {row!r}")
            for name, value in zip(columns, row):
                columns[name].append(float(value))
        timelines[int(match.group(1))] = columns
    return timelines


def read_managers(run_path):
    """{rank: modes_found} from buffer_manager_<rank>.json (managers that report it)."""
    managers = {}
    for path in glob.glob(os.path.join(run_path, "buffer_manager_*.json")):
        match = re.search(r"buffer_manager_(\d+)\.json$", path)
        data = read_json(path)
        if match and isinstance(data, dict) and "modes_found" in data:
            managers[int(match.group(1))] = data["modes_found"]
    return managers


def read_numeric_csv(path, required):
    """Columns of a numeric CSV file as {name: [float, ...]}. 'nan' and 'inf' are numbers;
    every row must have one value per header column. Raises DataError naming path and line."""
    try:
        with open(path, newline="") as f:
            rows = list(csv.reader(f))
    except OSError as e:
        raise DataError(f"{path}: cannot read: {e.strerror}") from e
    if not rows:
        raise DataError(f"{path}: empty file (expected a header line)")
    header = [h.strip() for h in rows[0]]
    missing = [c for c in required if c not in header]
    if missing:
        raise DataError(f"{path}: line 1: header lacks column(s) {', '.join(missing)}")
    columns = {name: [] for name in header}
    for line_no, row in enumerate(rows[1:], start=2):
        if not row:
            continue
        if len(row) != len(header):
            raise DataError(f"{path}: line {line_no}: {len(row)} values, the header has "
                            f"{len(header)}")
        for name, text in zip(header, row):
            try:
                value = float(text) if text.strip() else math.nan
            except ValueError:
                raise DataError(f"{path}: line {line_no}: column '{name}': '{text}' is not a "
                                f"number") from None
            columns[name].append(value)
    return columns


def read_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except OSError as e:
        raise DataError(f"{path}: cannot read: {e.strerror}") from e
    except json.JSONDecodeError as e:
        raise DataError(f"{path}: line {e.lineno}: invalid JSON: {e.msg}") from e


class RunDir:
    """The files of one run directory; optional files are None when absent."""

    def __init__(self, path):
        if not os.path.isdir(path):
            raise DataError(f"{path}: not a directory")
        self.path = path
        self.label = os.path.basename(os.path.normpath(path))
        self.config = self._read_config()
        self.env = self.config["env"]
        self.metrics = read_numeric_csv(self._file("metrics.csv"), METRICS_COLUMNS)
        self.training = self._optional_csv("training.csv", TRAINING_COLUMNS)
        self.distribution = self._optional_csv("distribution.csv", ("p_learned", "p_true"))
        self.density = self._optional_csv("density.csv", ("p_learned", "p_target", "p_true"))
        summary = self._file("summary.json")
        self.summary = read_json(summary) if os.path.exists(summary) else None
        timing = self._file("timing.json")
        self.timing = read_json(timing) if os.path.exists(timing) else None
        self.logp_logr = self._optional_csv("logp_logr.csv", ("log_p", "log_r"))
        timeline = self._file("modes_timeline.csv")
        self.modes_timeline = read_modes_timeline(timeline) if os.path.exists(timeline) else None
        self.managers = read_managers(path)
        self.sample_files = sample_files(path)
        self.sample_metrics = self._optional_csv("sample_metrics.csv", SAMPLE_METRICS_COLUMNS)
        self.manager_timelines = read_manager_timelines(path)

    def _file(self, name):
        return os.path.join(self.path, name)

    def _optional_csv(self, name, required):
        path = self._file(name)
        return read_numeric_csv(path, required) if os.path.exists(path) else None

    @property
    def continuous(self):
        """True for a continuous environment's run (summary.json engine.evaluator)."""
        engine = (self.summary or {}).get("engine")
        return isinstance(engine, dict) and engine.get("evaluator") == "continuous"

    def _read_config(self):
        path = self._file("config.yaml")
        try:
            with open(path) as f:
                config = yaml.safe_load(f)
        except OSError as e:
            raise DataError(f"{path}: cannot read: {e.strerror}") from e
        except yaml.YAMLError as e:
            raise DataError(f"{path}: invalid YAML: {e}") from e
        env = (config or {}).get("env")
        if not isinstance(env, dict) or "name" not in env:
            raise DataError(f"{path}: no env.name")
        return config
