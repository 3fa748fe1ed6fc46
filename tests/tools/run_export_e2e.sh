#!/usr/bin/env bash
# output.export, model.pt and gfn-export end to end (README "Export to PyTorch and
# torchgfn"), the demo layout under mpirun (2 trainers, 1 manager, 1 coordinator):
#  1. gfn-train with output.export=true writes model_state_dict.pt, model.json,
#     model_check.pt and model.pt; Python torch loads the state dict under torchgfn's names
#     and computes the same PF / PB logits (tools/load_in_torchgfn.py --check);
#  2. gfn-export on the finished run directory writes the same tensors and check logits;
#  3. gfn-train with model.init_from on that state dict starts (world of one) and logs it;
#     another model.hidden_dim is refused naming the file and the tensor;
#  4. gfn-export on a directory without model.pt fails naming it.
#   run_export_e2e.sh GFN_TRAIN GFN_EXPORT OUT_DIR
set -euo pipefail
train=$1 export_tool=$2 out=$3
compare="/usr/bin/python3 $(dirname "$0")/../roles/trainer/compare_state_dicts.py"
rm -rf "$out"
short=(--set train.n_trajectories=640 --set validation.n_samples=2000 --set output.log_every=5)
one=(--set layout.num_buffers=0 --set layout.coordinator=false)  # a world of one
OMPI_MCA_mpi_yield_when_idle=1 mpirun --allow-run-as-root --oversubscribe --bind-to none -np 4 \
  "$train" --config configs/hypergrid_demo.yaml "${short[@]}" --set output.export=true \
  --set output.dir="$out/run"
for f in model_state_dict.pt model.json model_check.pt model.pt config.yaml; do
  [ -s "$out/run/$f" ] || { echo "missing $out/run/$f"; exit 1; }
done
/usr/bin/python3 tools/load_in_torchgfn.py "$out/run" --check --sample 4

"$export_tool" "$out/run" --out "$out/exported"
$compare "$out/run/model_state_dict.pt" "$out/exported/model_state_dict.pt"
$compare "$out/run/model_check.pt" "$out/exported/model_check.pt"
/usr/bin/python3 tools/load_in_torchgfn.py "$out/exported" --check

"$train" --config configs/hypergrid_demo.yaml "${short[@]}" "${one[@]}" \
  --set model.init_from="$out/run/model_state_dict.pt" --set output.dir="$out/init" \
  2>&1 | tee "$out/init.log"
grep -q "model.init_from: every trainer starts from $out/run/model_state_dict.pt" "$out/init.log"
if "$train" --config configs/hypergrid_demo.yaml "${short[@]}" "${one[@]}" --set model.hidden_dim=64 \
  --set model.init_from="$out/run/model_state_dict.pt" --set output.dir="$out/wrong" \
  >"$out/wrong.log" 2>&1; then
  echo "a state dict of hidden_dim 256 was accepted with model.hidden_dim=64"; exit 1
fi
grep -q "init_from '$out/run/model_state_dict.pt': tensor 'pf.module.trunk.0.weight' has shape \[256, 16\], the model expects \[64, 16\]" "$out/wrong.log" \
  || { cat "$out/wrong.log"; exit 1; }

mkdir -p "$out/empty"
cp "$out/run/config.yaml" "$out/empty/"
if "$export_tool" "$out/empty" 2>"$out/empty.log"; then echo "gfn-export without model.pt succeeded"; exit 1; fi
grep -q "cannot open '$out/empty/model.pt'" "$out/empty.log" || { cat "$out/empty.log"; exit 1; }
echo "export e2e: ok"
