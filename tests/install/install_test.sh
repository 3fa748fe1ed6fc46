#!/usr/bin/env bash
# `cmake --install` and the CMake package (docs/install.md): installs BUILD_DIR into a fresh
# prefix, checks the programs and headers are there and run, builds tests/install/consumer
# against the prefix with find_package(GfnRuntime 0.1 CONFIG REQUIRED) and runs it, checks
# that asking for version 9.0 is refused, and builds the environment plugin
# examples/custom_env against the prefix (its README's three commands) and trains on it with
# the installed gfn-train (exact validation in summary.json).
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
examples=$(cd "$src/../../examples" && pwd)
cmake -S "$examples/custom_env" -B "$work/build-coins" -DCMAKE_PREFIX_PATH="$prefix" \
  -DCMAKE_BUILD_TYPE=Release >"$work/coins-configure.log" 2>&1 || { cat "$work/coins-configure.log"; exit 1; }
cmake --build "$work/build-coins" -j2 >"$work/coins-build.log" 2>&1 || { tail -30 "$work/coins-build.log"; exit 1; }
(cd "$work" && "$prefix/bin/gfn-train" --config "$examples/custom_env/coins.yaml" \
   --set train.n_trajectories=2560 --set output.progress=off --set output.dir="$work/coins-run" \
   >"$work/coins-run.log" 2>&1) || { echo "FAILED: gfn-train on the plugin"; cat "$work/coins-run.log"; exit 1; }
python3 - "$work/coins-run/summary.json" <<'PY' || exit 1
import json, math, sys
s = json.load(open(sys.argv[1]))
if s["iterations"] != 20 or not (0 <= s["l1_exact"] <= 2) or s["n_modes"] != 19:
    print("FAILED: the plugin run's summary", {k: s[k] for k in ("iterations", "l1_exact", "n_modes")})
    sys.exit(1)
PY
echo "PASS: installed, a consumer and an environment plugin built against the package"
