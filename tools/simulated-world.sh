#!/usr/bin/env bash
# Large worlds on one machine with simulated hosts (docs/launchers.md "Simulated hosts"):
# every rank gets GFN_HOSTNAME (its host's name), so the role planner's hostname placement
# plans node-local buffer managers and agent groups per simulated host, as on a cluster.
# torch backend: gfn-launch --hosts; mpi backend: mpirun with one app context per host.
# The layouts (a manager per host, a coordinator, equal agent groups):
#   16 ranks: 5 hosts (4,3,3,3,3): 10 trainers in 2 agent groups, 5 managers, 1 coordinator
#   32 ranks: 7 hosts (5,5,5,5,4,4,4): 24 trainers in 4 agent groups, 7 managers
#   64 ranks: 8 hosts of 8: 55 trainers in 5 agent groups of 11, 8 managers
# (32 ranks on 8 hosts would leave 23 trainers, which no number of equal agent groups > 1
# divides.) HyperGrid 2-D, 64 trajectories per trainer per iteration, sync submission.
# Prints per world: wall time, peak RSS (total, per rank by role) and the checks: exit 0,
# every manager's TRAINER_EXIT counts match (exit_mismatches 0) and every item submitted was
# received once, every rank's peak RSS reported.
#   tools/simulated-world.sh [--np "16 32 64"] [--backend "mpi torch"] [--iterations 20]
#                            [--out DIR] [--build BUILD_DIR]
set -uo pipefail
nps=16 backends="mpi torch" iterations=20 out=runs/worlds build=""
while [ $# -gt 0 ]; do
  case "$1" in
    --np) nps=$2 ;; --backend) backends=$2 ;; --iterations) iterations=$2 ;;
    --out) out=$2 ;; --build) build=$2 ;;
    *) echo "simulated-world: unknown option '$1'" >&2; exit 2 ;;
  esac
  shift 2
done
root=$(cd "$(dirname "$0")/.." && pwd)
build=${build:-$root/build}
cd "$root"
failed=0
for np in $nps; do
  case $np in
    16) hosts=(4 3 3 3 3) groups=2 ;;
    32) hosts=(5 5 5 5 4 4 4) groups=4 ;;
    64) hosts=(8 8 8 8 8 8 8 8) groups=5 ;;
    *) echo "simulated-world: --np must be 16, 32 or 64" >&2; exit 2 ;;
  esac
  trainers=$((np - ${#hosts[@]} - 1))
  for b in $backends; do
    dir=$out/np${np}_$b
    rm -rf "$dir"
    mkdir -p "$dir"
    args=(--config configs/hypergrid_demo.yaml --set transport.backend="$b"
          --set layout.num_buffers=${#hosts[@]} --set layout.num_agent_groups=$groups
          --set layout.placement=hostname --set train.n_iterations="$iterations"
          --set train.batch_size=$((64 * trainers)) --set validation.n_samples=2000
          --set transport.timeout_s=300 --set output.progress=off --set output.dir="$dir")
    start=$(date +%s.%N)
    if [ "$b" = torch ]; then
      spec=""
      for h in "${!hosts[@]}"; do spec+="host$h:${hosts[$h]},"; done
      "$build/bin/gfn-launch" --hosts "${spec%,}" -- "$build/bin/gfn-train" "${args[@]}" >"$dir.log" 2>&1
    else
      contexts=()
      for h in "${!hosts[@]}"; do
        [ "$h" -gt 0 ] && contexts+=(:)
        contexts+=(-np "${hosts[$h]}" -x "GFN_HOSTNAME=host$h" "$build/bin/gfn-train" "${args[@]}")
      done
      OMPI_MCA_mpi_yield_when_idle=1 mpirun --allow-run-as-root --oversubscribe --bind-to none \
        "${contexts[@]}" >"$dir.log" 2>&1
    fi
    rc=$?
    wall=$(echo "$(date +%s.%N) - $start" | bc)
    s=$dir/summary.json
    ok=1
    [ $rc -eq 0 ] || { echo "  FAILED: exit code $rc ($dir.log)"; ok=0; }
    [ "$(jq -r "(.peak_rss_mb.per_rank | length) == $np and (.peak_rss_mb.per_rank | min) > 0" "$s" 2>/dev/null)" = true ] ||
      { echo "  FAILED: not every rank's peak RSS reported"; ok=0; }
    [ "$(jq -r ".roles.trainer == $trainers and .roles.buffer_manager == ${#hosts[@]}" "$s" 2>/dev/null)" = true ] ||
      { echo "  FAILED: roles $(jq -c .roles "$s" 2>/dev/null)"; ok=0; }
    received=0 mismatches=0 managers=0
    for m in "$dir"/buffer_manager_*.json; do
      [ -f "$m" ] || continue
      managers=$((managers + 1))
      received=$((received + $(jq -r .items_received "$m")))
      mismatches=$((mismatches + $(jq -r .exit_mismatches "$m")))
    done
    [ $managers -eq ${#hosts[@]} ] && [ $mismatches -eq 0 ] &&
      [ "$received" = "$(jq -r .items_submitted "$s" 2>/dev/null)" ] ||
      { echo "  FAILED: managers $managers, TRAINER_EXIT mismatches $mismatches, items received $received"; ok=0; }
    # Hostname placement: every trainer's manager is on the trainer's simulated host (the
    # layout table rank 0 logs: rank, host, role, manager, agent group, trainers).
    awk '{ sub(/^\[rank 0\] /, ""); $0 = $0 }
         $2 ~ /^host[0-9]+$/ && $3 ~ /^(trainer|manager|coordinator)$/ {
           host[$1] = $2; if ($3 == "trainer") manager[$1] = $4 }
         END { n = 0; for (t in manager) { n++; if (host[manager[t]] != host[t]) exit 1 }; exit n == 0 }' \
      "$dir.log" || { echo "  FAILED: a trainer's manager is on another host"; ok=0; }
    [ $ok -eq 1 ] || failed=1
    largest() { grep -o "largest $1 [0-9]* MB" "$dir.log" | grep -o '[0-9]*' | head -1; }
    printf '%s ranks, %-5s: %s, wall %.1f s, peak RSS %s MB in all; largest per rank: trainer %s MB, manager %s MB, coordinator %s MB\n' \
      "$np" "$b" "$([ $ok -eq 1 ] && echo ok || echo FAILED)" "$wall" \
      "$(jq -r .peak_rss_mb.total "$s" 2>/dev/null)" "$(largest trainer)" "$(largest manager)" \
      "$(largest coordinator)"
  done
done
[ $failed -eq 0 ] && echo "simulated-world: PASS" || echo "simulated-world: FAILED"
exit $failed
