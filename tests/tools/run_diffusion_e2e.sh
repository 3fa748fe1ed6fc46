#!/usr/bin/env bash
# torchgfn's diffusion sampler learns gmm2 (configs/diffusion_gmm2.yaml, world of one): the
# run's summary.json passes check_summary (CONTINUOUS, no modes: the log Z estimates finite)
# and its final ΔlogZ = log Z - ELBO, ΔlogZ^RW = log Z - IW ELBO and |logZ - log Z| (log Z = 0)
# are below the given bounds, the EUBO above the ELBO; metrics.csv ends with the estimates'
# columns and its last row agrees with summary.json.
#   run_diffusion_e2e.sh GFN_TRAIN CHECK_SUMMARY OUT_DIR ITERATIONS MAX_DELTA_LOGZ
#                        MAX_DELTA_LOGZ_IW MAX_LOGZ_ERROR -- ARGS...
set -euo pipefail
train=$1 check_summary=$2 out=$3 iters=$4 max_delta=$5 max_delta_iw=$6 max_logz=$7
shift 7
[ "${1:-}" = "--" ] && shift
rm -rf "$out"
mkdir -p "$(dirname "$out")"
OMPI_MCA_mpi_yield_when_idle=1 "$train" --config configs/diffusion_gmm2.yaml \
  --set train.n_iterations="$iters" "$@" --set output.dir="$out" >"$out.log" 2>&1 ||
  { cat "$out.log"; exit 1; }
GFN_CHECK_CONTINUOUS=1 GFN_CHECK_NO_MODES=1 "$check_summary" "$out" 1 "$iters" 1 0 0
/usr/bin/python3 - "$out" "$max_delta" "$max_delta_iw" "$max_logz" <<'PY'
import csv, json, sys
out, max_delta, max_delta_iw, max_logz = sys.argv[1], *map(float, sys.argv[2:5])
s = json.load(open(f"{out}/summary.json"))
print(f"diffusion gmm2: logz {s['logz']:.4f}, ELBO {s['elbo']:.4f}, IW ELBO {s['iw_elbo']:.4f}, "
      f"EUBO {s['eubo']:.4f}; delta_logz {s['delta_logz']:.4f} (< {max_delta}), delta_logz_iw "
      f"{s['delta_logz_iw']:.4f} (< {max_delta_iw}), |logZ error| {s['logz_error']:.4f} "
      f"(< {max_logz}), jsd {s['jsd']:.4f}")
assert abs(s["delta_logz"]) < max_delta, "ELBO too far from log Z"
assert abs(s["delta_logz_iw"]) < max_delta_iw, "IW ELBO too far from log Z"
assert s["logz_error"] < max_logz, "learned logZ too far from log Z"
assert s["elbo"] <= s["iw_elbo"] + 1e-9, "IW ELBO below the ELBO"
assert s["eubo"] >= s["elbo"], "EUBO below the ELBO"
rows = list(csv.DictReader(open(f"{out}/metrics.csv")))
assert list(rows[0].keys())[-7:] == ["elbo", "iw_elbo", "eubo", "delta_logz", "delta_logz_iw",
                                     "delta_eubo", "target_evaluations"], rows[0].keys()
last = rows[-1]
assert int(last["iteration"]) == s["iterations"], last
# One trainer: its count in metrics.csv is the run's; at least log R of every trajectory.
assert int(last["target_evaluations"]) == s["target_evaluations"], (last, s["target_evaluations"])
assert s["target_evaluations"] >= s["trajectories"], s["target_evaluations"]
for key in ("elbo", "iw_elbo", "eubo", "delta_logz"):
    assert abs(float(last[key]) - s[key]) < 1e-4 * (1 + abs(s[key])), (key, last[key], s[key])
PY
echo "diffusion e2e: ok"
