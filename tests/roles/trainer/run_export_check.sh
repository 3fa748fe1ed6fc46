#!/usr/bin/env bash
# roles::export_model end to end (docs/export.md "Export to PyTorch and torchgfn"): a Learner
# trained a few iterations is exported (export_example), then Debian's python3-torch loads
# the state dict under torchgfn's names (strict) and must compute the same PF / PB logits
# (tools/load_in_torchgfn.py --check).
#   run_export_check.sh EXPORT_EXAMPLE OUT_DIR CONFIG ITERATIONS [key=value ...]
set -euo pipefail
example=$1 out=$2
shift 2
rm -rf "$out"
"$example" "$1" "$out" "${@:2}"
for f in model_state_dict.pt model.json model_check.pt; do
  [ -s "$out/$f" ] || { echo "missing $out/$f"; exit 1; }
done
/usr/bin/python3 tools/load_in_torchgfn.py "$out" --check --sample 4
