#!/usr/bin/python3
"""Replay studies: 4 agents + 1 buffer manager replaying stored terminating states, against one
agent, on the same budget (trajectories sampled forward, or target evaluations).

Method: every variant trains the experiment CONFIG (default torchgfn's tb_box_2d scenario,
configs/bench/torchgfn/tb_box_2d.yaml) for ITERS iterations of a GLOBAL batch of BATCH
trajectories sampled forward, validating every INTERVAL iterations on N_SAMPLES samples, and
reads one metrics.csv column (--metric: jsd, train_box.py's KDE Jensen-Shannon divergence, or
delta_logz, log Z - ELBO, for the diffusion targets) against another (--x: trajectories, the
trajectories sampled forward, replayed items cost no sampling; or target_evaluations, every
log R evaluation including local search's; metrics.csv holds trainer rank 0's count, which
the study multiplies by the number of trainers, the trainers being symmetric).
Variants (--variants picks some):
  one             1 trainer
  one+replay R    1 trainer + 1 buffer manager replaying R states per iteration (the single
                  agent of Sendera et al.'s "TB + expl. + LS" row when --set enables local search)
  four            4 trainers averaging their gradients every iteration (train.average
                  gradients: one model, the same global batch), no manager
  four+replay R   the same 4 trainers + 1 buffer manager: each trainer also trains on R
                  states the manager replays (buffer.remote_batch_size, remote_sampler SAMPLER),
                  as trajectories sampled backward with its PB, on top of its BATCH / 4
--set KEY=VALUE (repeatable) applies to every variant (e.g. env.R0=0.001, local_search keys).
Seeds are run interleaved (every variant for seed 0, then seed 1, ...). For each run the curve
is METRIC against X; the table gives the mean final METRIC and, for each variant, the X at
which its curve (seed mean) first reaches the one-agent seed mean's final METRIC.

Usage: tools/replay-study/study.py [--config C] [--name box_replay_r0_0.1] [--seeds 3]
         [--iters 600] [--replay 4 16] [--metric jsd] [--x trajectories] [--set K=V ...]
         [--out docs/results]
Writes OUT/NAME.csv (every validation row) and OUT/NAME.png, and prints the table.
"""
import argparse
import csv
import math
import os
import subprocess
import sys

import matplotlib
matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
LABELS = {"trajectories": "trajectories sampled forward (all agents)",
          "target_evaluations": "target evaluations (all agents)",
          "jsd": "KDE JSD", "delta_logz": "ΔlogZ = log Z - ELBO",
          "delta_logz_iw": "ΔlogZ^RW = log Z - IW ELBO"}


def sets(pairs):
    return [a for kv in pairs for a in ("--set", kv)]


def variants(args):
    layout = sets([f"train.average={args.average}", "train.average_every=1",
                   "layout.coordinator=false"])
    out = {"one": (1, sets(["layout.num_buffers=0"])),
           "four": (4, layout + sets(["layout.num_buffers=0"]))}
    for r in args.replay:
        replay = sets(["layout.num_buffers=1", f"buffer.remote_batch_size={r}",
                       f"buffer.remote_sampler={args.sampler}", "layout.coordinator=false"])
        out[f"one+replay {r}"] = (2, replay)
        out[f"four+replay {r}"] = (5, layout + replay)
    if args.variants:
        unknown = [v for v in args.variants if v not in out]
        if unknown:
            sys.exit(f"study.py: unknown variant(s) {unknown}; known: {sorted(out)}")
        out = {name: out[name] for name in args.variants}
    return out


def run(args, name, np_, extra, seed):
    out = os.path.join(args.work, f"{name}_s{seed}")
    trainers = 4 if name.startswith("four") else 1
    if args.batch % trainers:
        sys.exit(f"study.py: --batch {args.batch} is not a multiple of {trainers} trainers")
    # train.batch_size is the global batch: gfn-train splits it over the trainers.
    cmd = [os.path.join(args.build, "bin/gfn-train"), "--config", args.config] + sets([
        f"train.batch_size={args.batch}", f"train.n_iterations={args.iters}",
        "validation.enabled=true", f"validation.interval={args.interval}",
        f"validation.n_samples={args.n_samples}", "output.log_every=1000",
        f"train.seed={seed}", f"output.dir={out}"]) + sets(args.set) + extra
    if np_ > 1:
        cmd = ["bash", os.path.join(ROOT, "tools/mpirun.sh"), "-np", str(np_)] + cmd
    done = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
    if done.returncode != 0:
        sys.exit(f"{name} seed {seed} failed:\n{done.stderr[-3000:]}")
    with open(os.path.join(out, "metrics.csv")) as f:
        rows = list(csv.DictReader(f))
    for key in (args.x, args.metric):
        if rows and key not in rows[0]:
            sys.exit(f"study.py: {out}/metrics.csv has no column {key!r}")
    scale = trainers if args.x == "target_evaluations" else 1  # rank 0's count (above)
    return [(scale * float(r[args.x]), float(r[args.metric]), float(r["modes_found"]))
            for r in rows]


def mean_curve(curves):
    n = min(len(c) for c in curves)
    return ([sum(c[i][0] for c in curves) / len(curves) for i in range(n)],
            [sum(c[i][1] for c in curves) / len(curves) for i in range(n)])


def first_reaching(xs, ys, target):
    return next((x for x, y in zip(xs, ys) if y <= target), None)


def write_csv(path, args, rows):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(["variant", "seed", args.x, args.metric, "modes_found"])
        w.writerows(rows)


def print_table(args, curves, means):
    target = means["one"][1][-1] if "one" in means else None
    reach = f"{args.x} until {args.metric} <= {target:.4f}" if target is not None else ""
    print(f"| variant | final {args.metric} (mean of {args.seeds}) | modes found (mean) | {reach} |")
    print("| --- | --- | --- | --- |")
    for name, (xs, ys) in means.items():
        modes = sum(c[-1][2] for c in curves[name]) / len(curves[name])
        reached = first_reaching(xs, ys, target) if target is not None else None
        shown = f"{reached:.0f}" if reached is not None else "not reached"
        print(f"| {name} | {ys[-1]:.4f} | {modes:.1f} | {shown if target is not None else ''} |")
    return target


def plot(path, args, means, target):
    fig, ax = plt.subplots(figsize=(7, 4))
    for name, (xs, ys) in means.items():
        ax.plot(xs, ys, label=name)
    if target is not None:
        ax.axhline(target, color="grey", linestyle=":", label="one agent, final")
    if all(y > 0 for _, ys in means.values() for y in ys if not math.isnan(y)):
        ax.set_yscale("log")
    ax.set_xlabel(LABELS.get(args.x, args.x))
    ax.set_ylabel(f"{LABELS.get(args.metric, args.metric)} (mean of {args.seeds} seeds)")
    ax.set_title(args.title or f"{args.name}, global batch {args.batch}")
    ax.legend()
    fig.tight_layout()
    fig.savefig(path, dpi=110)


def parse_args():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--config", default=os.path.join(ROOT, "configs/bench/torchgfn/tb_box_2d.yaml"))
    p.add_argument("--name", default="box_replay_r0_0.1", help="output file stem")
    p.add_argument("--title", default="")
    p.add_argument("--seeds", type=int, default=3)
    p.add_argument("--iters", type=int, default=600)
    p.add_argument("--batch", type=int, default=64, help="global batch (all trainers)")
    p.add_argument("--interval", type=int, default=25)
    p.add_argument("--n-samples", type=int, default=4000)
    p.add_argument("--replay", type=int, nargs="*", default=[4, 16],
                   help="remote items per trainer and iteration, variants for each")
    p.add_argument("--variants", nargs="*", help="run only these variants (default: one, four, "
                   "four+replay R for each R)")
    p.add_argument("--sampler", default="prioritized")
    p.add_argument("--average", default="gradients", help="models or gradients")
    p.add_argument("--metric", default="jsd", help="metrics.csv column, lower is better")
    p.add_argument("--x", default="trajectories", help="metrics.csv column of the budget")
    p.add_argument("--set", action="append", default=[], metavar="KEY=VALUE",
                   help="experiment override for every variant (repeatable)")
    p.add_argument("--build", default=os.path.join(ROOT, "build"))
    p.add_argument("--work", default="/tmp/replay-study")
    p.add_argument("--out", default=os.path.join(ROOT, "docs/results"))
    args = p.parse_args()
    if args.variants is None:
        args.variants = ["one", "four"] + [f"four+replay {r}" for r in args.replay]
    return args


def main():
    args = parse_args()
    vs = variants(args)
    curves = {name: [] for name in vs}
    rows = []
    for seed in range(args.seeds):
        for name, (np_, extra) in vs.items():
            curve = run(args, name, np_, extra, seed)
            curves[name].append(curve)
            rows += [(name, seed, x, y, m) for x, y, m in curve]
            print(f"{name} seed {seed}: final {args.metric} {curve[-1][1]:.4f}", file=sys.stderr)
    os.makedirs(args.out, exist_ok=True)
    stem = os.path.join(args.out, args.name)
    write_csv(stem + ".csv", args, rows)
    means = {name: mean_curve(c) for name, c in curves.items()}
    plot(stem + ".png", args, means, print_table(args, curves, means))


if __name__ == "__main__":
    main()
