"""A gfn-train run directory (output.dir) read into dicts and tensors (docs/python.md,
docs/outputs.md "The run directory" for every file and column).

    run = RunDir("runs/hypergrid_2d")
    run.summary["l1_exact"], run.metrics["l1_exact"][-1], run.final_metrics()
    run.model()           # model.pt: {"pf_trunk.0.weight": tensor, ..., "logZ": tensor}
    run.estimators()      # the export (model.json): {"pf": module, "pb": ..., "logZ": ...}

CSV columns are float64 torch tensors ('nan' and empty cells are NaN), or lists of floats when
torch cannot be imported. Optional files that are absent are None (restarts / attempts: []).
A file that cannot be read raises RunDirError naming the file and the line.
"""

import csv
import glob
import json
import math
import os
import re

import yaml

try:
    import torch
except ImportError:  # the readers work without torch: columns are lists
    torch = None


class RunDirError(Exception):
    """A run directory file that cannot be read; the message names the file (and line)."""


def _column(values):
    return torch.tensor(values, dtype=torch.float64) if torch is not None else values


def _number(path, line_no, name, text):
    if not text.strip():
        return math.nan
    try:
        return float(text)
    except ValueError:
        raise RunDirError(f"{path}: line {line_no}: column '{name}': '{text}' is not a "
                          "number") from None


def read_csv_columns(path, key=None):
    """A CSV file with a header as {column: tensor} (lists without torch). With key, the
    rows are grouped by that column's text first: {key value: {column: tensor}} (for
    modes_timeline.csv's agent: the trainer's rank as an int, or "total")."""
    try:
        with open(path, newline="") as f:
            reader = csv.reader(f)
            header = [h.strip() for h in next(reader, [])]
            rows = [(n, row) for n, row in enumerate(reader, start=2) if row]
    except OSError as e:
        raise RunDirError(f"{path}: cannot read: {e.strerror}") from e
    if not header or (key is not None and key not in header):
        raise RunDirError(f"{path}: line 1: no header" + (f" with '{key}'" if key else ""))
    groups = {}
    for line_no, row in rows:
        if len(row) != len(header):
            raise RunDirError(f"{path}: line {line_no}: {len(row)} values, the header has "
                              f"{len(header)}")
        cells = dict(zip(header, row))
        group = None
        if key is not None:
            group = cells.pop(key).strip()
            group = int(group) if group.isdigit() else group
        columns = groups.setdefault(group, {h: [] for h in header if h != key})
        for name, text in cells.items():
            columns[name].append(_number(path, line_no, name, text))
    if key is None:
        return {h: _column(v) for h, v in groups.get(None, {h: [] for h in header}).items()}
    return {g: {h: _column(v) for h, v in cols.items()} for g, cols in groups.items()}


def _parse(path, parse):
    """parse(open file) of path; RunDirError naming the file (and the line) when it cannot be
    read or parsed."""
    try:
        with open(path) as f:
            return parse(f)
    except OSError as e:
        raise RunDirError(f"{path}: cannot read: {e.strerror}") from e
    except json.JSONDecodeError as e:
        raise RunDirError(f"{path}: line {e.lineno}: invalid JSON: {e.msg}") from e
    except yaml.YAMLError as e:
        raise RunDirError(f"{path}: invalid YAML: {e}") from e


def read_json(path):
    """A JSON file (summary.json, timing.json, buffer_manager_<rank>.json)."""
    return _parse(path, json.load)


def read_yaml(path):
    """A YAML file (config.yaml) as a dict."""
    return _parse(path, yaml.safe_load) or {}


def read_jsonl(path):
    """A JSON-lines file (restarts.jsonl) as a list of records; [] when it is absent."""
    if not os.path.exists(path):
        return []
    records = []
    with open(path) as f:
        for line_no, line in enumerate(f, start=1):
            if line.strip():
                try:
                    records.append(json.loads(line))
                except json.JSONDecodeError as e:
                    raise RunDirError(f"{path}: line {line_no}: invalid JSON: {e.msg}") from e
    return records


class RunDir:
    """Every file of one run directory, read when the object is made.

    Attributes (None when the file is absent):
      path, config (config.yaml), summary (summary.json), timing (timing.json),
      metrics, training, distribution, density, logp_logr, sample_metrics ({column: tensor}),
      modes_timeline ({agent: {column: tensor}}, agent = trainer rank or "total"),
      buffer_managers ({rank: dict} of buffer_manager_<rank>.json; {} without managers),
      restarts, attempts (the records of restarts.jsonl / attempts.jsonl; [] when absent).
    A run still running (no summary.json yet) reads too: its summary is None.
    """

    CSV_FILES = ("metrics", "training", "distribution", "density", "logp_logr", "sample_metrics")

    def __init__(self, path):
        if not os.path.isdir(path):
            raise RunDirError(f"{path}: not a directory")
        self.path = os.path.abspath(path)
        self.config = self._optional("config.yaml", read_yaml)
        self.summary = self._optional("summary.json", read_json)
        self.timing = self._optional("timing.json", read_json)
        for name in self.CSV_FILES:
            setattr(self, name, self._optional(name + ".csv", read_csv_columns))
        self.modes_timeline = self._optional(
            "modes_timeline.csv", lambda p: read_csv_columns(p, key="agent"))
        self.buffer_managers = {}
        for path in glob.glob(os.path.join(self.path, "buffer_manager_*.json")):
            match = re.search(r"buffer_manager_(\d+)\.json$", path)
            if match:
                self.buffer_managers[int(match.group(1))] = read_json(path)
        self.restarts = read_jsonl(self.file("restarts.jsonl"))
        self.attempts = read_jsonl(self.file("attempts.jsonl"))

    def __repr__(self):
        return f"RunDir({self.path!r})"

    def file(self, name):
        """The path of a file of the run directory."""
        return os.path.join(self.path, name)

    def _optional(self, name, reader):
        path = self.file(name)
        return reader(path) if os.path.exists(path) else None

    def final_metrics(self):
        """The last metrics.csv row (the final validation) as {column: float}; None without
        metrics.csv or rows."""
        if not self.metrics or len(self.metrics["iteration"]) == 0:
            return None
        return {k: float(v[-1]) for k, v in self.metrics.items()}

    def model(self):
        """model.pt, the final parameters under gfn-runtime's names ({"pf_trunk.0.weight":
        float32 tensor, ..., "logZ": tensor}). Needs torch."""
        if torch is None:
            raise RunDirError(f"{self.file('model.pt')}: reading it needs torch "
                              "(Debian's python3-torch)")
        if not os.path.exists(self.file("model.pt")):
            raise RunDirError(f"{self.file('model.pt')}: no such file (the run has not ended)")
        return torch.load(self.file("model.pt"))

    def estimators(self):
        """The exported estimators as torch modules ({"pf": module, "pb": module or None,
        "logF": module or None, "logZ": tensor}) and model.json's dict: torchgfn's classes
        when installed, else modules with the same names (gfn_runtime.export.load). Needs
        the export files: output.export: true, or `gfn-export RUN_DIR` after the run."""
        if not os.path.exists(self.file("model.json")):
            raise RunDirError(f"{self.file('model.json')}: no such file; export the model with "
                              f"output.export: true or `gfn-export {self.path}`")
        from . import export  # torch only here
        return export.load(self.path)
