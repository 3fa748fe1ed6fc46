#!/usr/bin/python3
"""gfn_runtime.launch and seed_study (python/gfn_runtime/launch.py; docs/python.md) running
gfn-train: configs/hypergrid_demo.yaml as a dict on 3 ranks under mpirun (2 trainers + 1
buffer manager, no coordinator), its progress lines streamed to a callback; a 2-seed study of
configs/hypergrid_2d.yaml under gfn-launch (one rank each); a config gfn-train refuses. Checked:
the world and roles summary.json reports, the progress lines counting up to the run's
iterations, the final metrics equal to summary.json's, the manager's file, each seed's
config.yaml and directory, different results for different seeds, and LaunchError carrying
gfn-train's message.

  launch_test.py GFN_TRAIN WORK_DIR
"""

import math
import os
import shutil
import sys

import yaml

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.normpath(os.path.join(HERE, "..", ".."))
sys.path.insert(0, os.path.join(REPO, "python"))

import gfn_runtime  # noqa: E402

failures = []


def expect(ok, what):
    print(("ok:     " if ok else "FAILED: ") + what)
    if not ok:
        failures.append(what)


def config(name, **sections):
    with open(os.path.join(REPO, "configs", name)) as f:
        c = yaml.safe_load(f)
    for section, values in sections.items():
        c.setdefault(section, {}).update(values)
    return c


def same_final(run):
    final = run.final_metrics()
    return all(math.isclose(final[k], run.summary[k], rel_tol=1e-4, abs_tol=1e-9)
               for k in ("l1_exact", "jsd", "logz_error"))


def check_mpirun(gfn_train, work):
    c = config("hypergrid_demo.yaml", layout={"coordinator": False},
               train={"n_trajectories": 2560},  # 20 iterations of 128
               validation={"interval": 10, "n_samples": 2000},
               output={"progress_every_s": 0.01, "log_every": 5})
    lines, progress = [], []

    def on_line(line):
        lines.append(line)
        p = gfn_runtime.parse_progress(line)
        if p:
            progress.append(p)

    run = gfn_runtime.launch(c, os.path.join(work, "demo"), launcher="mpirun", np=3,
                             gfn_train=gfn_train, on_line=on_line)
    s = run.summary
    expect(s["world_size"] == 3 and len(s["population"]["agents"]) == 2,
           f"3 ranks, 2 trainers: world_size {s['world_size']}, roles {s['roles']}")
    expect(list(run.buffer_managers) == [2] and "modes_found" in run.buffer_managers[2],
           f"buffer_manager_2.json read: ranks {list(run.buffer_managers)}")
    iters = [p["iteration"] for p in progress]
    expect(bool(iters) and iters == sorted(iters) and iters[-1] == s["iterations"] == 20 and
           progress[-1]["total"] == 20 and progress[-1]["n_modes"] == s["n_modes"],
           f"{len(progress)} progress lines streamed, iterations {iters} up to summary's "
           f"{s['iterations']}")
    expect(any("wrote" in line and "summary.json" in line for line in lines),
           f"the job's log streamed ({len(lines)} lines)")
    expect(same_final(run), "the final metrics are summary.json's")
    expect(run.config["layout"]["coordinator"] is False and
           os.path.exists(run.file("launch.yaml")), "launch.yaml written, config.yaml read")
    expect(c["output"]["dir"] == "runs/demo", "the caller's config dict is left as it was")


def check_seed_study(gfn_train, work):
    c = config("hypergrid_2d.yaml", train={"n_trajectories": 1280},  # 10 iterations
               validation={"interval": 10, "n_samples": 2000},
               model={"hidden_dim": 32})
    runs = gfn_runtime.seed_study(c, [1, 2], os.path.join(work, "seeds"), launcher="gfn-launch",
                                  np=1, gfn_train=gfn_train, on_line=lambda line: None)
    seeds = [r.config["train"]["seed"] for r in runs]
    dirs = [os.path.basename(r.path) for r in runs]
    expect(seeds == [1, 2] and dirs == ["seed_1", "seed_2"],
           f"one run per seed: seeds {seeds} in {dirs}")
    expect(all(r.config["transport"]["backend"] == "torch" and r.summary["iterations"] == 10
               and same_final(r) for r in runs), "torch backend under gfn-launch, 10 iterations")
    logz = [r.summary["logz"] for r in runs]
    expect(logz[0] != logz[1], f"the seeds train differently: logZ {logz}")


def check_failure(gfn_train, work):
    c = config("hypergrid_2d.yaml", train={"n_trajectorie": 10})
    try:
        gfn_runtime.launch(c, os.path.join(work, "bad"), gfn_train=gfn_train,
                           on_line=lambda line: None)
        expect(False, "a config gfn-train refuses raises LaunchError")
    except gfn_runtime.LaunchError as e:
        expect(e.returncode not in (0, None) and "n_trajectorie" in str(e),
               f"LaunchError, exit code {e.returncode}: {e.tail[-1:]}")


def main():
    gfn_train, work = sys.argv[1:3]
    shutil.rmtree(work, ignore_errors=True)
    os.makedirs(work)
    check_mpirun(gfn_train, work)
    check_seed_study(gfn_train, work)
    check_failure(gfn_train, work)
    print(f"{'FAIL' if failures else 'PASS'}: {len(failures)} failed")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
