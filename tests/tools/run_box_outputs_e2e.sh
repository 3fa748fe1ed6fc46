#!/usr/bin/env bash
# A continuous run's outputs end to end (Box 2-D and 3-D, world of one, 10 iterations of
# batch 16; docs/outputs.md, docs/export.md):
#  1. summary.json and metrics.csv report the corner modes (check_summary, CONTINUOUS);
#  2. density.csv (the learned and the true density on the validation grid) and every PNG of
#     tools/gfn-plot (output.plots=true), distribution.png drawn from density.csv;
#  3. output.export=true: the state dict under torchgfn's Box estimator names and shapes, its
#     PF / PB (/ log F) forward re-implemented in Python matching gfn-runtime within 1e-5
#     (check_box_export.py), tools/load_in_torchgfn.py --check, gfn-export writing the same
#     tensors from model.pt; tb tied (2-D), db untied (3-D: log F and logZ_value), tb with the
#     uniform PB; the polar Box (torchgfn's BoxPFMLP with PFs0, BoxPBMLP), db untied and tb
#     with its uniform PB.
#   run_box_outputs_e2e.sh GFN_TRAIN GFN_EXPORT CHECK_SUMMARY OUT_DIR
set -euo pipefail
train=$1 export_tool=$2 check_summary=$3 out=$4
here=$(dirname "$0")
compare="/usr/bin/python3 $here/../roles/trainer/compare_state_dicts.py"
rm -rf "$out"
mkdir -p "$out"
short=(--set train.n_iterations=10
       --set train.batch_size=16 --set validation.enabled=true --set validation.interval=5
       --set validation.n_samples=1000 --set output.log_every=5 --set model.hidden_dim=64
       --set output.export=true --set output.plots=true)
# name | config | extra options | n_hidden n_components tied uniform_pb loss [n_components_s0]
cartesian=configs/bench/torchgfn/tb_box_2d.yaml
runs=("tb_2d|$cartesian||2 5 1 0 tb"
      "db_3d|$cartesian|--set env.ndim=3 --set train.loss=db --set model.tied=false --set env.n_components=3 --set validation.n_samples=300 --set validation.interval=10|2 3 0 0 db"
      "uniform_pb|$cartesian|--set model.uniform_pb=true|2 5 1 1 tb"
      "polar_db|configs/box_polar.yaml|--set env.n_components_s0=3 --set train.loss=db --set model.n_hidden=2|2 2 0 0 db 3"
      "polar_tb_uniform_pb|configs/box_polar.yaml|--set env.n_components=3 --set env.n_components_s0=2 --set model.uniform_pb=true --set model.n_hidden=2|2 3 0 1 tb 2")
for spec in "${runs[@]}"; do
  IFS='|' read -r name config extra args <<<"$spec"
  dir="$out/$name"
  # shellcheck disable=SC2086
  OMPI_MCA_mpi_yield_when_idle=1 "$train" --config "$config" "${short[@]}" $extra --set output.dir="$dir" \
    >"$dir.log" 2>&1 || { cat "$dir.log"; exit 1; }
  GFN_CHECK_CONTINUOUS=1 "$check_summary" "$dir" 1 10 1 0 0
  grep -q "plots written to $dir" "$dir.log" || { cat "$dir.log"; echo "no plots"; exit 1; }
  /usr/bin/python3 "$here/gfn-plot/check_pngs.py" "$dir" --density --data metrics.csv \
    training.csv density.csv timing.json config.yaml model.pt
  # shellcheck disable=SC2086
  /usr/bin/python3 "$here/check_box_export.py" "$dir" 64 $args
  /usr/bin/python3 tools/load_in_torchgfn.py "$dir" --check
  "$export_tool" "$dir" --out "$dir/exported"
  $compare "$dir/model_state_dict.pt" "$dir/exported/model_state_dict.pt"
  $compare "$dir/model_check.pt" "$dir/exported/model_check.pt"
done
echo "box outputs e2e: ok"
