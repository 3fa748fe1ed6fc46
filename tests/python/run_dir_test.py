#!/usr/bin/python3
"""gfn_runtime's readers (python/gfn_runtime/run_dir.py, export.py; docs/python.md) on a run
directory gfn-train writes here: a 1-rank HyperGrid 2-D h8 run of 20 iterations with
validation every 10 and the export on. The values read are checked against the files read
another way (csv, json) and against each other: the final metrics equal summary.json's and the
last metrics.csv row, distribution.csv's L1 is summary's l1_exact, model.pt's shapes follow
model.hidden_dim, the exported modules recompute gfn-runtime's logits, the population's modes
are the timeline's; without torch the same columns come as lists; a malformed file is named
with its line.

  run_dir_test.py GFN_TRAIN WORK_DIR
"""

import csv
import json
import math
import os
import shutil
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(REPO, "python"))

import torch  # noqa: E402

import gfn_runtime  # noqa: E402
from gfn_runtime import export  # noqa: E402

HIDDEN = 32
failures = []


def expect(ok, what):
    print(("ok:     " if ok else "FAILED: ") + what)
    if not ok:
        failures.append(what)


def close(a, b, rel=1e-6):
    return (math.isnan(a) and math.isnan(b)) or math.isclose(a, b, rel_tol=rel, abs_tol=1e-9)


def make_run(gfn_train, out):
    sets = {"train.n_trajectories": 2560, "validation.interval": 10, "validation.n_samples": 2000,
            "model.hidden_dim": HIDDEN, "output.export": "true", "output.dir": out,
            "output.log_every": 5, "output.progress": "off"}
    cmd = [gfn_train, "--config", os.path.join(REPO, "configs", "hypergrid_2d.yaml")]
    for key, value in sets.items():
        cmd += ["--set", f"{key}={value}"]
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)


def check_metrics(run):
    with open(run.file("metrics.csv"), newline="") as f:
        last = list(csv.DictReader(f))[-1]
    final = run.final_metrics()
    expect(all(close(final[k], float(v)) for k, v in last.items()),
           f"final_metrics() is metrics.csv's last row: {final}")
    for key in ("l1_exact", "jsd", "logz_error", "l1_sampled"):
        expect(close(final[key], run.summary[key], 1e-4),
               f"final {key} {final[key]} = summary.json's {run.summary[key]}")
    expect(run.metrics["iteration"].dtype == torch.float64 and
           run.metrics["iteration"].tolist() == [10.0, 20.0],
           f"metrics.csv iterations as a float64 tensor: {run.metrics['iteration']}")
    expect(run.training["iteration"][-1].item() == run.summary["iterations"] == 20,
           "training.csv ends at summary's 20 iterations")
    dist = run.distribution
    l1 = (dist["p_learned"] - dist["p_true"]).abs().sum().item()
    expect(len(dist["p_true"]) == 64 and close(dist["p_true"].sum().item(), 1.0, 1e-5),
           "distribution.csv: 64 states, p_true sums to 1")
    expect(close(l1, run.summary["l1_exact"], 1e-3),
           f"sum |p_learned - p_true| {l1:.6g} = summary's l1_exact {run.summary['l1_exact']:.6g}")
    total = run.modes_timeline["total"]["modes_found"]
    expect(int(total[-1]) == run.summary["population"]["modes_found"],
           f"modes_timeline's population count {total[-1]} = summary's "
           f"{run.summary['population']['modes_found']}")
    expect(isinstance(run.timing, dict) and run.restarts == [] and run.density is None,
           "timing.json a dict, no restarts, no density.csv")


def check_model(run):
    model = run.model()
    trunk = sorted(k for k in model if k.startswith("pf_trunk.") and k.endswith(".weight"))
    expect(bool(trunk) and all(model[k].shape[0] == HIDDEN for k in trunk) and
           all(model[k].dtype == torch.float32 for k in model),
           f"model.pt: PF trunk weights {[tuple(model[k].shape) for k in trunk]} have "
           f"{HIDDEN} rows (model.hidden_dim), float32")
    expect(close(model["logZ"].item(), run.summary["logz"], 1e-5),
           f"model.pt logZ {model['logZ'].item():.6g} = summary's {run.summary['logz']:.6g}")
    estimators, sidecar = run.estimators()
    first = estimators["pf"].trunk[0]
    expect(first.out_features == HIDDEN and first.in_features == sidecar["pf"]["input_dim"],
           f"the exported PF's first layer: {first}")
    expect(torch.equal(first.weight, model[trunk[0]]), "its weights are model.pt's")
    expect(export.check(run.path, estimators, sidecar, report=lambda line: None),
           "the modules recompute model_check.pt's logits within 1e-5")


def check_without_torch(run):
    script = ("import sys, json; sys.modules['torch'] = None; sys.path.insert(0, sys.argv[1]);"
              "import gfn_runtime; r = gfn_runtime.RunDir(sys.argv[2]);"
              "print(json.dumps([type(r.metrics['l1_exact']).__name__, r.metrics['l1_exact'],"
              " r.modes_timeline['total']['modes_found']]))")
    out = subprocess.run([sys.executable, "-c", script, os.path.join(REPO, "python"), run.path],
                         check=True, capture_output=True, text=True).stdout
    kind, l1, modes = json.loads(out)
    expect(kind == "list" and l1 == run.metrics["l1_exact"].tolist() and
           modes == run.modes_timeline["total"]["modes_found"].tolist(),
           f"without torch: lists, the same values ({kind}, {l1})")


def check_errors(run, work):
    bad = os.path.join(work, "bad")
    shutil.copytree(run.path, bad)
    with open(os.path.join(bad, "metrics.csv")) as f:
        lines = f.read().splitlines()
    lines[2] = lines[2].replace(",", ",abc,", 1)
    with open(os.path.join(bad, "metrics.csv"), "w") as f:
        f.write("\n".join(lines) + "\n")
    try:
        gfn_runtime.RunDir(bad)
        expect(False, "a malformed metrics.csv is refused")
    except gfn_runtime.RunDirError as e:
        expect("metrics.csv: line 3:" in str(e), f"a malformed metrics.csv is refused: {e}")
    os.remove(os.path.join(bad, "model.json"))
    try:
        os.remove(os.path.join(bad, "metrics.csv"))
        gfn_runtime.RunDir(bad).estimators()
        expect(False, "estimators() without model.json is refused")
    except gfn_runtime.RunDirError as e:
        expect("gfn-export" in str(e), f"estimators() without model.json: {e}")


def main():
    gfn_train, work = sys.argv[1:3]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    make_run(gfn_train, os.path.join(work, "run"))
    run = gfn_runtime.RunDir(os.path.join(work, "run"))
    expect(run.config["model"]["hidden_dim"] == HIDDEN and run.config["env"]["ndim"] == 2,
           "config.yaml read: model.hidden_dim, env.ndim")
    check_metrics(run)
    check_model(run)
    check_without_torch(run)
    check_errors(run, work)
    print(f"{'FAIL' if failures else 'PASS'}: {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
