#!/usr/bin/env bash
# model.init_from with a state dict written by Python (README "Export to PyTorch and
# torchgfn"): Python torch saves torchgfn-named estimators (write_torchgfn_state_dict.py,
# architecture from a gfn-runtime export of the same config), a Learner starts from it
# (export_example, 0 iterations) and exports itself again: the export must hold exactly
# the Python tensors (compare_state_dicts.py); the OrderedDict state_dict() returns, which
# LibTorch cannot read, is refused with a message saying what to save.
#   run_init_from_python.sh EXPORT_EXAMPLE OUT_DIR CONFIG [key=value ...]
set -euo pipefail
example=$1 out=$2 config=$3
shift 3
here=$(dirname "$0")
rm -rf "$out"
"$example" "$config" "$out/architecture" 0 "$@"
/usr/bin/python3 "$here/write_torchgfn_state_dict.py" "$out/architecture/model.json" "$out/python.pt" \
  --ordered "$out/ordered.pt"
"$example" "$config" "$out/started" 0 "$@" "model.init_from=$out/python.pt"
/usr/bin/python3 "$here/compare_state_dicts.py" "$out/python.pt" "$out/started/model_state_dict.pt"
# The OrderedDict of state_dict() itself is refused, saying what to save instead.
if "$example" "$config" "$out/ordered" 0 "$@" "model.init_from=$out/ordered.pt" 2>"$out/ordered.log"; then
  echo "an OrderedDict file was accepted"; exit 1
fi
grep -q "'$out/ordered.pt' cannot be read by torch::pickle_load .*torch.save(dict(model.state_dict()), path)" \
  "$out/ordered.log" || { cat "$out/ordered.log"; exit 1; }
