#!/usr/bin/env bash
# `cmake --install` and the CMake package (docs/install.md): installs BUILD_DIR into a fresh
# prefix, checks the programs and headers are there and run, builds tests/install/consumer
# against the prefix with find_package(GfnRuntime 0.1 CONFIG REQUIRED) and runs it, checks
# that asking for version 9.0 is refused, and runs examples/custom_env/README.md's commands
# (tests/examples/run_readme.py): the plugin built against the prefix and trained by the
# installed gfn-train (exact validation in summary.json), and examples/continuous_env/
# README.md's (a continuous plugin), every output outside the checkout; then imports the
# installed Python package gfn_runtime (PYTHONPATH = its install folder, docs/python.md): it
# must be the prefix's, find the prefix's gfn-train, and read the plugin run.
#   install_test.sh BUILD_DIR WORK_DIR
set -euo pipefail
build=$1 work=$2
src=$(cd "$(dirname "$0")" && pwd)
rm -rf "$work"
mkdir -p "$work"
prefix=$work/prefix
cmake --install "$build" --prefix "$prefix" >"$work/install.log"
for f in bin/gfn-train bin/gfn-launch bin/gfn-export bin/gfn-plot bin/mpirun-restart.sh \
         include/runtime/gfn/env/environment.h include/transport/transport.h \
         lib/cmake/GfnRuntime/GfnRuntimeConfig.cmake lib/cmake/GfnRuntime/GfnRuntimeConfigVersion.cmake; do
  [ -e "$prefix/$f" ] || { echo "FAILED: $f not installed"; exit 1; }
done
"$prefix/bin/gfn-train" --print-schema >"$work/schema.md"
grep -q "job_token" "$work/schema.md" || { echo "FAILED: installed gfn-train"; exit 1; }
"$prefix/bin/gfn-launch" -n 1 -- true || { echo "FAILED: installed gfn-launch"; exit 1; }
cmake -S "$src/consumer" -B "$work/consumer" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_BUILD_TYPE=Release >"$work/configure.log" 2>&1 || { cat "$work/configure.log"; exit 1; }
cmake --build "$work/consumer" -j2 >"$work/build.log" 2>&1 || { tail -30 "$work/build.log"; exit 1; }
"$work/consumer/consumer" | grep -qx "consumer: hypergrid with 4 modes" || { echo "FAILED: consumer"; exit 1; }
if cmake -S "$src/consumer" -B "$work/consumer9" -DCMAKE_PREFIX_PATH="$prefix" \
     -DGFN_WANT_VERSION=9.0 >"$work/configure9.log" 2>&1; then
  echo "FAILED: find_package(GfnRuntime 9.0) accepted version 0.1"; exit 1
fi
grep -q "version" "$work/configure9.log" || { echo "FAILED: no version message"; exit 1; }
# examples/custom_env/README.md's commands as written (out= a directory outside the checkout),
# with the installed prefix: nothing may land in the source tree; the run's numbers are the
# README's (250 iterations of 128 out of 32,000 trajectories, the plugin's 19 modes).
examples=$(cd "$src/../../examples" && pwd)
/usr/bin/python3 "$src/../examples/run_readme.py" "$examples/custom_env/README.md" \
  "$work/coins" --prefix "$prefix" >"$work/coins-readme.log" 2>&1 ||
  { echo "FAILED: examples/custom_env/README.md"; tail -40 "$work/coins-readme.log"; exit 1; }
python3 - "$work/coins/run/summary.json" <<'PY' || exit 1
import json, math, sys
s = json.load(open(sys.argv[1]))
if s["iterations"] != 250 or not (0 <= s["l1_exact"] <= 2) or s["n_modes"] != 19:
    print("FAILED: the plugin run's summary", {k: s[k] for k in ("iterations", "l1_exact", "n_modes")})
    sys.exit(1)
PY
# examples/continuous_env/README.md's commands the same way: the continuous plugin built
# against the prefix, 500 iterations of its config.
/usr/bin/python3 "$src/../examples/run_readme.py" "$examples/continuous_env/README.md" \
  "$work/ring_box" --prefix "$prefix" >"$work/ring-box-readme.log" 2>&1 ||
  { echo "FAILED: examples/continuous_env/README.md"; tail -40 "$work/ring-box-readme.log"; exit 1; }
python3 - "$work/ring_box/run/summary.json" <<'PY' || exit 1
import json, math, sys
s = json.load(open(sys.argv[1]))
if s["iterations"] != 500 or not math.isfinite(s["logz"]):
    print("FAILED: the continuous plugin run's summary", {k: s[k] for k in ("iterations", "logz")})
    sys.exit(1)
PY
pydir=$prefix/lib/python3/dist-packages
[ -e "$pydir/gfn_runtime/_installed.py" ] || { echo "FAILED: gfn_runtime not installed"; exit 1; }
(cd "$work" && env PYTHONPATH="$pydir" /usr/bin/python3 - "$prefix" "$work/coins/run") <<'PY' || exit 1
import json, os, sys
import gfn_runtime
prefix, run_dir = os.path.realpath(sys.argv[1]), sys.argv[2]
where = os.path.realpath(os.path.dirname(gfn_runtime.__file__))
train = os.path.realpath(gfn_runtime.find_program("gfn-train"))
run = gfn_runtime.RunDir(run_dir)
summary = json.load(open(os.path.join(run_dir, "summary.json")))
final = run.final_metrics()
if (not where.startswith(prefix + "/") or train != os.path.join(prefix, "bin", "gfn-train") or
        run.summary != summary or final["iteration"] != summary["iterations"] or
        abs(final["l1_exact"] - summary["l1_exact"]) > 1e-6 * max(1, summary["l1_exact"])):
    print("FAILED: the installed gfn_runtime", where, train, final)
    sys.exit(1)
print("installed gfn_runtime:", where, "runs", train)
PY
echo "PASS: installed, a consumer and an environment plugin built against the package, gfn_runtime imported"
