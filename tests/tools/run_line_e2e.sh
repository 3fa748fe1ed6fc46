#!/usr/bin/env bash
# torchgfn's Line learns (configs/line.yaml, world of one, a shortened budget): the run's
# summary.json passes check_summary (CONTINUOUS: jsd and logz_error defined, modes defined)
# and its final |logZ - log Z| (log Z = log 2 by quadrature), KDE Jensen-Shannon divergence
# and Wasserstein-1 distance of x against the target are below the given bounds; density.csv
# holds the 1-D densities (x, p_learned, p_target, p_true).
#   run_line_e2e.sh GFN_TRAIN CHECK_SUMMARY OUT_DIR ITERATIONS MAX_LOGZ_ERROR MAX_JSD MAX_W1
#                   -- ARGS...
set -euo pipefail
train=$1 check_summary=$2 out=$3 iters=$4 max_logz=$5 max_jsd=$6 max_w1=$7
shift 7
[ "${1:-}" = "--" ] && shift
rm -rf "$out"
mkdir -p "$(dirname "$out")"
OMPI_MCA_mpi_yield_when_idle=1 "$train" --config configs/line.yaml \
  --set train.n_iterations="$iters" "$@" --set output.dir="$out" >"$out.log" 2>&1 ||
  { cat "$out.log"; exit 1; }
GFN_CHECK_CONTINUOUS=1 "$check_summary" "$out" 1 "$iters" 1 0 0
/usr/bin/python3 - "$out" "$max_logz" "$max_jsd" "$max_w1" <<'PY'
import csv, json, math, sys
out, max_logz, max_jsd, max_w1 = sys.argv[1], float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
s = json.load(open(f"{out}/summary.json"))
print(f"line: logz {s['logz']:.4f} (log 2 = {math.log(2):.4f}), |logZ error| "
      f"{s['logz_error']:.4f} (< {max_logz}), jsd {s['jsd']:.5f} (< {max_jsd}), "
      f"W1 {s['wasserstein']:.4f} (< {max_w1}), modes {s['modes_found']}/{s['n_modes']}")
assert s["logz_error"] < max_logz, "logZ error too large"
assert s["jsd"] < max_jsd, "JSD too large"
assert s["wasserstein"] < max_w1, "Wasserstein-1 distance too large"
assert s["modes_found"] == s["n_modes"] == 2, "both modes"
rows = list(csv.DictReader(open(f"{out}/density.csv")))
assert list(rows[0].keys()) == ["x0", "p_learned", "p_target", "p_true"], rows[0].keys()
assert len(rows) == 1000, len(rows)
for col in ("p_learned", "p_target", "p_true"):
    total = sum(float(r[col]) for r in rows)
    assert abs(total - 1) < 1e-6, (col, total)
PY
echo "line e2e: ok"
