#!/usr/bin/env bash
# The whole job over shaped links (docs/performance.md "Shaped links between nodes"): 4 nodes of
# tools/cluster/cluster.sh, each node's eth0 shaped with tc tbf to 1 Gbit/s or 100 Mbit/s
# (egress, both directions shaped since every node shapes its own), against unshaped links.
# gfn-train under mpirun over the nodes (MPI over TCP between nodes, shared memory within
# one), one buffer manager per node placed by hostname, the demo's experiment (HyperGrid 2-D,
# PF and PB MLPs 256 x 2, models averaged every 5 iterations), 16 trajectories per trainer.
# Method: for each world size, ROUNDS rounds; each round runs the three links in a rotated
# order (interleaved, so the VM's drift hits all three alike); per run, from summary.json and
# timing.json: trajectories/s (trajectories / train_s), and the trainers' "average" and
# "submit" seconds per iteration (mean over trainers). Prints the medians over rounds and each
# link's throughput as a ratio to the unshaped links of the same round.
#   tools/cluster/bench_links.sh [--ranks "8 16"] [--rounds 3] [--iterations 200]
#                                [--gfn-train build/bin/gfn-train] [--out runs/bench_links]
# Needs root (namespaces, tc); a few seconds per run (16 ranks, 300 iterations: ~8 s on 2
# cores), ~4 minutes for the defaults of docs/performance.md. Not while something else loads
# the machine.
set -euo pipefail
ranks="8 16" rounds=3 iterations=200 train=build/bin/gfn-train out=runs/bench_links
while [ $# -gt 0 ]; do
  case "$1" in
    --ranks) ranks=$2; shift 2 ;;
    --rounds) rounds=$2; shift 2 ;;
    --iterations) iterations=$2; shift 2 ;;
    --gfn-train) train=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    *) echo "bench_links.sh: unknown option '$1'" >&2; exit 2 ;;
  esac
done
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/../.." && pwd)
train=$(realpath "$train")
mkdir -p "$out"
out=$(realpath "$out")
name=gfnb
cluster() { bash "$here/cluster.sh" --name "$name" "$@"; }
trap 'cluster down' EXIT INT TERM
cluster up 4 >/dev/null

shape() {  # shape none|RATE: every node's eth0 egress
  local i
  for i in 0 1 2 3; do
    ip netns exec "$name-n$i" tc qdisc del dev eth0 root 2>/dev/null || true
    [ "$1" = none ] && continue
    # burst: at least rate / HZ (250) bytes; 100 ms of queue before drops.
    ip netns exec "$name-n$i" tc qdisc add dev eth0 root tbf rate "$1" burst 512kb latency 100ms
  done
}

run_once() {  # run_once NP LINK ROUND: one job; prints "traj_per_s average_ms submit_ms"
  local np=$1 dir="$out/np$1-$2-r$3"
  rm -rf "$dir"
  cluster mpirun-on 0,1,2,3 --oversubscribe --bind-to none -x OMPI_MCA_mpi_yield_when_idle=1 \
    -np "$np" --map-by node "$train" --config "$repo/configs/hypergrid_demo.yaml" \
    --set train.n_iterations="$iterations" --set train.batch_size=$((16 * (np - 4))) \
    --set layout.num_buffers=4 --set layout.coordinator=false \
    --set layout.placement=hostname --set transport.backend=mpi \
    --set output.plots=false --set output.progress=off --set validation.interval=100000 \
    --set output.dir="$dir" >"$dir.log" 2>&1 || { echo "run failed: $dir.log" >&2; tail -20 "$dir.log" >&2; exit 1; }
  /usr/bin/python3 - "$dir" <<'PY'
import json, sys
d = sys.argv[1]
s = json.load(open(f"{d}/summary.json"))
t = json.load(open(f"{d}/timing.json"))["trainers"]["ranks"]
per_it = lambda step: 1000 * sum(r["steps"].get(step, 0) for r in t) / len(t) / s["iterations"]
print(f'{s["trajectories"] / s["train_s"]:.1f} {per_it("average"):.3f} {per_it("submit"):.3f}')
PY
}

links=(none 1gbit 100mbit)
echo "world links round traj_per_s average_ms_per_it submit_ms_per_it ratio_to_unshaped" |
  tee "$out/rounds.txt"
for np in $ranks; do
  for round in $(seq 1 "$rounds"); do
    declare -A got=()
    for k in 0 1 2; do  # rotated order
      link=${links[$(((k + round) % 3))]}
      shape "$link"
      got[$link]=$(run_once "$np" "$link" "$round")
    done
    base=$(cut -d' ' -f1 <<<"${got[none]}")
    for link in "${links[@]}"; do
      read -r tps avg sub <<<"${got[$link]}"
      echo "$np $link $round $tps $avg $sub $(awk -v a="$tps" -v b="$base" 'BEGIN{printf "%.3f", a/b}')"
    done | tee -a "$out/rounds.txt"
    unset got
  done
done
shape none
echo
echo "medians over $rounds rounds (world, link: trajectories/s, average ms/it, submit ms/it, ratio):"
/usr/bin/python3 - "$out/rounds.txt" <<'PY'
import statistics, sys
rows = [l.split() for l in open(sys.argv[1]).read().splitlines()[1:]]
for key in dict.fromkeys((r[0], r[1]) for r in rows):
    sel = [r for r in rows if (r[0], r[1]) == key]
    med = [statistics.median(float(r[i]) for r in sel) for i in (3, 4, 5, 6)]
    print(f"| {key[0]} | {key[1]} | {med[0]:.0f} | {med[1]:.2f} | {med[2]:.2f} | {med[3]:.2f} |")
PY
