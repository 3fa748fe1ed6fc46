#!/usr/bin/env bash
# Builds gfn-runtime with sanitizers in separate build directories and runs the tests
# there (the normal build/ is untouched):
#   build-asan  AddressSanitizer + UndefinedBehaviorSanitizer: the unit tests (ctest -L unit)
#               and the multi-rank tests under mpirun (ctest -L mpi);
#   build-tsan  ThreadSanitizer: the transport's threads (send handles, loopback transport,
#               both backends' conformance suite and the MPI collectives' watchdog under
#               mpirun).
#
#   tools/run_sanitizers.sh [asan|asan-quick|tsan|all] [extra ctest arguments]   (default: all)
#
# asan-quick builds only the transport and its tests in build-asan (everything else links
# the large gfn_runtime) and runs those binaries, the conformance suite under mpirun -np 2
# for each backend; the decoders above the transport are covered by the fuzz targets
# (tools/run_fuzz.sh, also ASan + UBSan).
#
# A full sanitizer build takes long on a small machine (~1 h for build-asan on 2 busy
# cores); GFN_SAN_JOBS sets the build's parallelism (default 2). Any sanitizer report fails
# the test that produced it (halt_on_error), and the script exits non-zero.
# Leak detection is off: Open MPI and LibTorch keep global allocations until exit that
# LeakSanitizer reports as leaks of no interest here. TSan runs with
# tools/tsan_suppressions.txt (Open MPI's and LibTorch's own, uninstrumented,
# synchronization; one libtsan gap), each entry explained there.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
which="${1:-all}"
shift || true
jobs="${GFN_SAN_JOBS:-2}"
export CCACHE_BASEDIR="$repo" CCACHE_NOHASHDIR=1
export CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
export OMPI_MCA_mpi_yield_when_idle=1

# build <dir> <flags> <targets...>: configures once, builds the given targets (all if none).
build() {
  local dir="$1" flags="$2"
  shift 2
  if [ ! -f "$dir/build.ninja" ]; then
    cmake -S "$repo" -B "$dir" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
      -DCMAKE_CXX_FLAGS="$flags -fno-omit-frame-pointer" \
      -DCMAKE_EXE_LINKER_FLAGS="$flags" -DCMAKE_SHARED_LINKER_FLAGS="$flags"
  fi
  cmake --build "$dir" -j "$jobs" ${1:+--target "$@"}
}

status=0
if [ "$which" = asan ] || [ "$which" = all ]; then
  build "$repo/build-asan" "-fsanitize=address,undefined -fno-sanitize-recover=undefined"
  export ASAN_OPTIONS="detect_leaks=0:halt_on_error=1:abort_on_error=1"
  export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
  ctest --test-dir "$repo/build-asan" -L "unit|mpi" -LE fuzz --output-on-failure -j "$jobs" "$@" ||
    status=1
fi
if [ "$which" = asan-quick ]; then
  quick=(transport_send_handle_tests transport_framing_tests transport_mpi_backoff_tests
    tests_support_loopback_tests transport_conformance_tests)
  build "$repo/build-asan" "-fsanitize=address,undefined -fno-sanitize-recover=undefined" \
    "${quick[@]}"
  export ASAN_OPTIONS="detect_leaks=0:halt_on_error=1:abort_on_error=1"
  export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
  for t in "${quick[@]}"; do
    [ "$t" = transport_conformance_tests ] && continue
    echo "== $t"
    (cd "$repo" && "$repo/build-asan/tests/$t" --gtest_brief=1) || { echo "FAILED: $t"; status=1; }
  done
  for backend in mpi torch; do
    echo "== transport_conformance_tests --backend=$backend (mpirun -np 2)"
    (cd "$repo" && bash tools/mpirun.sh -np 2 "$repo/build-asan/tests/transport_conformance_tests" \
      --backend=$backend --gtest_brief=1) || { echo "FAILED: conformance $backend"; status=1; }
  done
fi
if [ "$which" = tsan ] || [ "$which" = all ]; then
  build "$repo/build-tsan" "-fsanitize=thread" transport_send_handle_tests \
    tests_support_loopback_tests transport_conformance_tests transport_mpi_collective_deadline_test
  export TSAN_OPTIONS="halt_on_error=1:second_deadlock_stack=1:suppressions=$repo/tools/tsan_suppressions.txt"
  ctest --test-dir "$repo/build-tsan" \
    -R "SendHandle|Loopback|transport_conformance_(mpi|torch)_np2$|collective_deadline" \
    --output-on-failure -j "$jobs" "$@" || status=1
fi
exit $status
