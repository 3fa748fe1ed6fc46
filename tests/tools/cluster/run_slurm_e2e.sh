#!/usr/bin/env bash
# configs/slurm/multinode.sbatch as written, submitted with sbatch to a real Slurm 22.05 cluster
# of three namespace nodes (tools/cluster/slurm.sh: slurmctld on node0, a slurmd per node,
# munge), 3 tasks per node (sbatch --nodes=3 --ntasks-per-node=3 over the script's #SBATCH
# values): 5 trainers, a manager per node and the coordinator; CONFIG is the example's YAML made
# small, BIND_TO=none (3 ranks on a node of 2 cores).
#  * complete: the job completes, check_summary passes, the layout table names the kernel
#    hostnames node0..node2 with every trainer's manager on its own node, node1's eth0 carried
#    the traffic. LAUNCHER srun (srun --mpi=pmix) or mpirun (Open MPI in the allocation).
#  * requeue: a longer run (a checkpoint every 20 iterations); once the checkpoint of iteration
#    40 exists the batch script gets USR1 (scancel --signal=USR1 --batch, what Slurm sends
#    before a time limit or preemption): the ranks stop at their next averaging point with a
#    checkpoint, the script requeues the job, and the requeued job (same id,
#    SLURM_RESTART_COUNT=1) continues from that checkpoint to the end. Checked: the job
#    completed with one restart, summary.json's restart resumed from the iteration the first
#    attempt stopped at with 0 iterations redone, training.csv has every iteration once, and
#    the times from USR1 to the stop and to the resumed run are printed.
#  * scontrol: the same run, requeued from outside with `scontrol requeue` (as a preemption
#    with PreemptMode=REQUEUE): Slurm sends SIGTERM to every process of the job, the ranks stop
#    with a checkpoint, the script records why, Slurm requeues the job; the same checks.
#  * timelimit: 300 iterations under `sbatch --time=2 --signal=B:USR1@90`: Slurm itself sends
#    USR1 before each attempt's limit, and the job requeues itself until it is done (MAX_RESTARTS
#    8); every attempt stopped with a checkpoint that the next continued from, 0 redone. Run by
#    hand, not by ctest: the progress per attempt depends on the machine's load.
# The cluster is gone afterwards (no namespace, no /run/NAME); the daemons' logs are kept in
# OUT_DIR/slurm-logs.
# BACKEND torch: the script's BACKEND=torch (Gloo, the rendezvous on the first node).
#   run_slurm_e2e.sh GFN_TRAIN CHECK_SUMMARY OUT_DIR srun|mpirun MODE [BACKEND]
# MODE: complete | requeue | scontrol | timelimit
set -uo pipefail
train=$(realpath "$1") check=$2 out=$(realpath -m "$3") launcher=$4 mode=$5 backend=${6:-mpi}
repo=$(pwd)
here=$(cd "$(dirname "$0")" && pwd)
name=gfns-test
slurm=(bash "$repo/tools/cluster/slurm.sh" --name "$name")
rm -rf "$out"
# The job's working directory: build/bin/gfn-train and configs/ as the script expects them.
mkdir -p "$out/work/build/bin"
ln -s "$train" "$out/work/build/bin/gfn-train"
ln -s "$repo/configs" "$out/work/configs"
finish() { "${slurm[@]}" logs "$out/slurm-logs"; "${slurm[@]}" down; }  # the daemons' logs kept
trap finish EXIT
fail() {
  echo "FAIL: $*"
  "${slurm[@]}" logs "$out/slurm-logs"
  tail -n 40 "$out"/job-*.out
  tail -n 15 "$out"/slurm-logs/*
  exit 1
}
now() { date +%s.%N; }
since() { python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.1f}')" "$@"; }

case "$mode" in
  complete) iterations=20 ;;
  timelimit) iterations=300 ;;
  *) iterations=150 ;;
esac
python3 - "$repo/configs/slurm/hypergrid_multinode.yaml" "$out/config.yaml" "$iterations" <<'PY'
import sys, yaml
c = yaml.safe_load(open(sys.argv[1]))
n = int(sys.argv[3])
c["train"]["n_iterations"] = n
c["validation"].update(interval=n, n_samples=5000)
c["output"].update(plots=False, progress="off", log_every=1)
if n > 20:
    c["checkpoint"] = {"every": 20, "keep": 100}
yaml.safe_dump(c, open(sys.argv[2], "w"), sort_keys=False)
PY

"${slurm[@]}" up 3 || fail "the Slurm cluster did not come up"
limit=()  # a 2-minute limit, USR1 due 90 s before it (Slurm checks about every 30 s)
[ "$mode" = timelimit ] && limit=(--time=2 --signal=B:USR1@90)
id=$(env CONFIG="$out/config.yaml" LAUNCHER="$launcher" BACKEND="$backend" BIND_TO=none \
  MAX_RESTARTS=8 OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 \
  OMPI_MCA_mpi_yield_when_idle=1 "${slurm[@]}" exec 0 \
  sbatch --parsable --nodes=3 --ntasks-per-node=3 "${limit[@]}" --chdir="$out/work" \
  --output="$out/job-%j.out" "$repo/configs/slurm/multinode.sbatch") || fail "sbatch"
submitted=$(now)
run=$out/work/runs/slurm-$id
log=$out/job-$id.out
echo "job $id submitted ($launcher, $backend backend)"

if [ "$mode" = requeue ] || [ "$mode" = scontrol ]; then
  for _ in $(seq 1800); do
    [ -f "$run/checkpoints/iteration_00000040/manifest.json" ] && break
    sleep 0.1
  done
  [ -f "$run/checkpoints/iteration_00000040/manifest.json" ] || fail "no checkpoint at 40"
  if [ "$mode" = requeue ]; then
    "${slurm[@]}" exec 0 scancel --signal=USR1 --batch "$id" || fail "scancel --signal=USR1"
  else
    "${slurm[@]}" exec 0 scontrol requeue "$id" || fail "scontrol requeue"
  fi
  signalled=$(now)
  # restarts.jsonl: written by the requeued job's rank 0 before any communication.
  for _ in $(seq 1800); do [ -f "$run/restarts.jsonl" ] && break; sleep 0.1; done
  [ -f "$run/restarts.jsonl" ] || fail "the job was not restarted within 180 s"
  restarted=$(now)
fi
for _ in $(seq 360); do  # squeue lists pending, running and completing jobs only
  [ -z "$("${slurm[@]}" exec 0 squeue -h -j "$id" 2>/dev/null)" ] && break
  sleep 1
done
finished=$(now)
job=$("${slurm[@]}" exec 0 scontrol show job "$id")
if ! grep -q "JobState=COMPLETED" <<<"$job" || ! grep -q "ExitCode=0:0" <<<"$job"; then
  fail "job $id did not complete:" \
    "$(grep -o -E 'JobState=[A-Z]+|ExitCode=[0-9:]+' <<<"$job" | tr '\n' ' ')"
fi
echo "job $id completed in $(since "$submitted" "$finished") s"

"$check" "$run" 9 "$iterations" 5 3 1 || fail "check_summary"
python3 "$here/check_layout.py" "$log" 9 3 || fail "layout"
rx=$(ip netns exec "$name-n1" cat /sys/class/net/eth0/statistics/rx_bytes)
[ "$rx" -gt 100000 ] || fail "node1 received only $rx bytes over eth0"
echo "node1 eth0 received $rx bytes"

if [ "$mode" != complete ]; then
  # An attempt stopped on the signal at an iteration (rank 0's line) and the next one
  # continued from that checkpoint: Slurm's restart count, summary.json's restarts (the cause,
  # 0 redone) and the log agree; every iteration once. Also accepted, when nothing was redone:
  # an attempt that crashed at start (Open MPI 4.1.4's TCP BTL at times segfaults in MPI_Init
  # under srun: docs/launchers.md), which the script requeues as failed, and under load a USR1
  # that came before gfn-train's handlers (the ranks die of it, exit status 138; the script
  # requeues); both are reported.
  restarts=$(grep -o 'Restarts=[0-9]*' <<<"$job" | cut -d= -f2)
  read -ra stops <<<"$(sed -n \
    's/.*\[rank 0 trainer\].*stopping after iteration \([0-9]*\).*/\1/p' "$log" | tr '\n' ' ')"
  if [ "$mode" = scontrol ]; then
    reason="job $id ended by Slurm \(SIGTERM: scontrol requeue, preemption or scancel\)"
  else
    reason="job $id preempted or at its time limit \(USR1\), exit status [0-9]+"
    [ "$(grep -c "^USR1: stopping gfn-train" "$log")" -ge "${#stops[@]}" ] ||
      fail "the script trapped USR1 $(grep -c "^USR1: stopping" "$log") times," \
        "rank 0 stopped ${#stops[@]} times"
  fi
  [ "${#stops[@]}" -ge 1 ] || fail "rank 0 never stopped on the signal"
  [ "$mode" = timelimit ] || [ "${#stops[@]}" = 1 ] || fail "stopped ${#stops[@]} times, not 1"
  s=$run/summary.json
  python3 - "$(jq -c .restarts "$s")" "$restarts" "$reason" "${stops[@]}" <<'PY' || fail "restarts"
import json, re, sys
restarts, slurm_count, reason = json.loads(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
stops = [int(x) for x in sys.argv[4:]]
attempts = restarts["attempts"]
bad = []
if restarts["count"] != slurm_count or len(attempts) > slurm_count:
    bad.append(f"{len(attempts)} attempts recorded, count {restarts['count']}, Slurm {slurm_count}")
if len(attempts) < slurm_count:  # an attempt killed by an early USR1 before rank 0 noted it
    print(f"WARNING: {slurm_count - len(attempts)} restart(s) without a record")
resumed = [a["resumed_from_iteration"] for a in attempts]
bad += [f"no attempt continued from the stop at {s}" for s in stops if s not in resumed]
for a in attempts:
    r, cause = a["restart"], a["ended_by"]
    if a["iterations_redone"]:
        bad.append(f"restart {r} redid {a['iterations_redone']} iterations")
    if a["resumed_from_iteration"] not in stops + [None]:  # None: before any checkpoint
        bad.append(f"restart {r} resumed from {a['resumed_from_iteration']}, not a stop")
    if re.fullmatch(reason, cause) and not cause.endswith("exit status 138"):
        continue
    if re.fullmatch(reason, cause) or re.fullmatch(r"job \d+ failed with exit status \d+", cause):
        print(f"WARNING: restart {r} after an attempt that ended so: {cause}")
    else:
        bad.append(f"restart {r}: {cause}")
if bad:
    print("FAIL:", "; ".join(bad), json.dumps(restarts))
    sys.exit(1)
PY
  for stop in "${stops[@]}"; do
    grep -q "continuing from .*/runs/slurm-$id/checkpoints/$(printf 'iteration_%08d' "$stop")" \
      "$log" || fail "no attempt continued from the checkpoint of $stop"
  done
  iters=$(tail -n +2 "$run/training.csv" | cut -d, -f1 | tr '\n' ' ')
  [ "$iters" = "$(seq -s ' ' 1 "$iterations") " ] ||
    fail "training.csv iterations are not 1..$iterations once each"
  if [ "$mode" = timelimit ]; then
    echo "timelimit: $restarts requeues, stopped at iterations ${stops[*]}"
  else
    echo "$mode $(since "$submitted" "$signalled") s after submission; stopped with a" \
      "checkpoint at iteration ${stops[0]}; the requeued job resumed" \
      "$(since "$signalled" "$restarted") s later and finished $(since "$restarted" "$finished")" \
      "s after that"
  fi
  jq -c .restarts "$s"
fi

finish
trap - EXIT
ip netns list | grep -q "^$name-" && fail "namespaces left behind"
[ -e "/run/$name" ] && fail "/run/$name left behind"
for p in /proc/[0-9]*; do  # a daemon of this cluster: its SLURM_CONF, or munged's socket
  { tr '\0' '\n' <"$p/environ"; tr '\0' ' ' <"$p/cmdline"; } 2>/dev/null |
    grep -q "/run/$name/" && fail "process ${p#/proc/} ($(cat "$p/comm")) left behind"
done
echo "PASS: sbatch configs/slurm/multinode.sbatch on a Slurm cluster of three nodes," \
  "$launcher, $mode, $backend backend"
