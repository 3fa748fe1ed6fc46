#!/usr/bin/python3
"""Box 2-D with 4 agents + 1 buffer manager replaying stored terminating states, against one
agent, on the same budget of trajectories sampled forward.

Method: every variant trains torchgfn's tb_box_2d scenario (configs/bench/torchgfn/tb_box_2d.yaml:
delta 0.1, 5 Beta components, TB, tied PB, 256 x 2 MLP) for ITERS iterations of a GLOBAL batch of
BATCH trajectories sampled forward (summary.json trajectories_sampled: replayed items cost no
sampling), validating every INTERVAL iterations with the KDE Jensen-Shannon divergence of
N_SAMPLES learned against N_SAMPLES exact samples (train_box.py's metric). Variants:
  one            1 trainer
  four           4 trainers averaging their gradients every iteration (train.average
                 gradients: one model, the same global batch), no manager
  four+replay R  the same 4 trainers + 1 buffer manager: each trainer also trains on R
                 states the manager replays (buffer.remote_batch_size, remote_sampler SAMPLER),
                 as trajectories sampled backward with its PB, on top of its BATCH / 4
Seeds are run interleaved (every variant for seed 0, then seed 1, ...). For each run
the curve is the JSD against trajectories sampled; the table gives the mean final JSD and, for
each variant, the trajectories sampled until its curve (seed mean) first reaches the one-agent
seed mean's final JSD.

Usage: tools/box-replay/study.py [--seeds 3] [--iters 600] [--r0 0.1] [--replay 4 16]
                                 [--out docs/results]
Writes OUT/box_replay_r0_<R0>.csv (every validation row) and .png, and prints the table.
"""
import argparse
import csv
import os
import subprocess
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def variants(replays, sampler, average):
    layout = ["--set", f"train.average={average}", "--set", "train.average_every=1",
              "--set", "layout.coordinator=false"]
    out = {
        "one": (1, ["--set", "layout.num_buffers=0"]),
        "four": (4, layout + ["--set", "layout.num_buffers=0"]),
    }
    for r in replays:
        out[f"four+replay {r}"] = (5, layout + ["--set", "layout.num_buffers=1",
                                                "--set", f"buffer.remote_batch_size={r}",
                                                "--set", f"buffer.remote_sampler={sampler}"])
    return out


def run(args, name, np_, extra, seed):
    out = os.path.join(args.work, f"{name}_s{seed}")
    cmd = [os.path.join(args.build, "bin/gfn-train"),
           "--config", os.path.join(ROOT, "configs/bench/torchgfn/tb_box_2d.yaml"),
           "--set", f"train.batch_size={args.batch}", "--set", f"train.n_iterations={args.iters}",
           "--set", "validation.enabled=true", "--set", f"validation.interval={args.interval}",
           "--set", f"validation.n_samples={args.n_samples}", "--set", "output.log_every=1000",
           "--set", f"train.seed={seed}", "--set", f"env.R0={args.r0}",
           "--set", f"output.dir={out}"] + extra
    if np_ > 1:
        cmd = ["bash", os.path.join(ROOT, "tools/mpirun.sh"), "-np", str(np_)] + cmd
    done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        sys.exit(f"{name} seed {seed} failed:\n{done.stderr[-3000:]}")
    with open(os.path.join(out, "metrics.csv")) as f:
        return [(int(r["trajectories"]), float(r["jsd"]), int(r["modes_found"]))
                for r in csv.DictReader(f)]


def mean_curve(curves):
    xs = [x for x, _, _ in curves[0]]
    return xs, [sum(c[i][1] for c in curves) / len(curves) for i in range(len(xs))]


def final_modes(curves):
    return sum(c[-1][2] for c in curves) / len(curves)


def first_reaching(xs, ys, target):
    return next((x for x, y in zip(xs, ys) if y <= target), None)


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--seeds", type=int, default=3)
    p.add_argument("--iters", type=int, default=600)
    p.add_argument("--batch", type=int, default=64)
    p.add_argument("--interval", type=int, default=25)
    p.add_argument("--n-samples", type=int, default=4000)
    p.add_argument("--replay", type=int, nargs="+", default=[4, 16],
                   help="remote items per trainer and iteration, one variant each")
    p.add_argument("--sampler", default="prioritized")
    p.add_argument("--average", default="gradients", help="models or gradients")
    p.add_argument("--r0", type=float, default=0.1,
                   help="env.R0, the reward outside the corners (0.1: the scenario's)")
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--work", default="/tmp/box-replay-study")
    p.add_argument("--out", default=os.path.join(ROOT, "docs/results"))
    args = p.parse_args()
    vs = variants(args.replay, args.sampler, args.average)
    curves = {name: [] for name in vs}
    rows = []
    for seed in range(args.seeds):
        for name, (np_, extra) in vs.items():
            curve = run(args, name, np_, extra, seed)
            curves[name].append(curve)
            rows += [(name, seed, x, y, m) for x, y, m in curve]
            print(f"{name} seed {seed}: final jsd {curve[-1][1]:.4f}", file=sys.stderr)
    os.makedirs(args.out, exist_ok=True)
    stem = os.path.join(args.out, f"box_replay_r0_{args.r0}")
    with open(stem + ".csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["variant", "seed", "trajectories_sampled", "jsd", "modes_found"])
        w.writerows(rows)
    means = {name: mean_curve(c) for name, c in curves.items()}
    target = means["one"][1][-1]
    print(f"| variant | final JSD (mean of {args.seeds}) | modes found (of 4, mean) "
          f"| sampled until JSD <= {target:.4f} |")
    print("| --- | --- | --- | --- |")
    for name, (xs, ys) in means.items():
        reached = first_reaching(xs, ys, target)
        print(f"| {name} | {ys[-1]:.4f} | {final_modes(curves[name]):.1f} "
              f"| {reached if reached is not None else 'not reached'} |")
    fig, ax = plt.subplots(figsize=(7, 4))
    for name, (xs, ys) in means.items():
        ax.plot(xs, ys, label=name)
    ax.axhline(target, color="grey", linestyle=":", label="one agent, final")
    ax.set_yscale("log")
    ax.set_xlabel("trajectories sampled forward (all agents)")
    ax.set_ylabel(f"KDE JSD (mean of {args.seeds} seeds)")
    ax.set_title(f"Box 2-D (tb_box_2d, R0 {args.r0}), global batch {args.batch}")
    ax.legend()
    fig.tight_layout()
    fig.savefig(stem + ".png", dpi=110)


if __name__ == "__main__":
    main()
