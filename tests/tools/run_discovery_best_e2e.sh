#!/usr/bin/env bash
# configs/discovery_8d_best.yaml end to end, shortened to 10 iterations (the best
# mode-discovery settings: 4 agents + 1 buffer manager, each agent sampling 32 trajectories
# forward and replaying 64 from the manager, the budget counted in trajectories sampled
# forward), under mpirun:
#  - every forward-sampled trajectory is counted: trajectories_sampled = 10 x 4 x 32 = 1280
#    (the first iteration too, which has nothing to replay yet);
#  - every later iteration replayed 64 per agent: remote_items_trained = 9 x 4 x 64 = 2304;
#  - validation.fresh_samples reports fresh_sample_modes (a number, at most n_modes), and
#    mode_probability is HyperGrid 8-D's 2.51 / 201,052.16;
#  - modes_timeline.csv counts sampled trajectories (128 per iteration).
#   run_discovery_best_e2e.sh GFN_TRAIN OUT_DIR
set -euo pipefail
train=$1 out=$2
rm -rf "$out"
OMPI_MCA_mpi_yield_when_idle=1 mpirun --allow-run-as-root --oversubscribe --bind-to none -np 5 \
  "$train" --config configs/discovery_8d_best.yaml --set train.n_iterations=10 \
  --set validation.fresh_samples=2000 --set output.dir="$out"
s="$out/summary.json"
check() {  # check JQ_EXPRESSION DESCRIPTION
  [ "$(jq -r "$1" "$s")" = "true" ] || { echo "FAILED: $2: $(jq -c "$1" "$s")"; jq . "$s" | head -60; exit 1; }
}
check '.trajectories_sampled == 1280' "trajectories_sampled = 10 x 4 x 32"
check '.remote_items_trained == 2304' "remote_items_trained = 9 x 4 x 64"
check '.roles.trainer == 4 and .roles.buffer_manager == 1' "4 trainers and 1 manager"
check '(.fresh_sample_modes | type) == "number" and .fresh_sample_modes <= .n_modes' "fresh_sample_modes"
check '.fresh_sample_modes_found <= .fresh_sample_modes' "fresh_sample_modes_found"
check '(.mode_probability - 2.51 / 201052.16 | fabs) < 1e-9' "mode_probability"
check '.n_modes == 256' "n_modes"
if [ "$(jq -r '.modes_found' "$s")" -gt 0 ]; then
  last=$(grep '^total,' "$out/modes_timeline.csv" | tail -1 | cut -d, -f3,4)
  it=${last%,*} traj=${last#*,}
  expect=$((it * 128))
  [ "$traj" -eq "$expect" ] || { echo "FAILED: timeline trajectories $traj at iteration $it, expected $expect"; exit 1; }
fi
echo "OK: discovery_8d_best shortened: $(jq -c '{modes_found, fresh_sample_modes, trajectories_sampled}' "$s")"
