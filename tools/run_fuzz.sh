#!/usr/bin/env bash
# Builds the libFuzzer targets (tests/fuzz/project: clang, ASan + UBSan, no LibTorch) into
# build/fuzz and runs each for a while, then prints one line per target: inputs run, inputs
# per second, and the outcome. A crash, sanitizer report, property violation, leak or an
# allocation above the cap stops that target and fails the script (the reproducer is in
# build/fuzz/artifacts/).
#
#   tools/run_fuzz.sh [--seconds S | --runs N] [--seed N] [--per-message] [--build-only] [target...]
#     --seconds S     time per target (default 60); ctest runs each for 5 s
#     --runs N        inputs per target instead of a time (e.g. 10000000, as for the figures of
#                     docs/testing.md "Fuzzing"; libFuzzer's -runs, with no time limit)
#     --seed N        libFuzzer's random seed (default 0: a new one each run); ctest uses
#                     --seed 1 so that a red test is reproducible, not a chance finding
#     --per-message   run protocol_fuzz once per message of roles/protocol/message_table.h
#                     (--message=NAME), S seconds each, instead of all rows together
#     --messages A,B  with --per-message: only these messages (names as in the table)
#     --build-only    build (and write the seed corpora), run nothing
#     --no-build      run what an earlier --build-only built (ctest's fixture)
#     --build-dir D   build and corpora in D (default build/fuzz)
#     target          envelope_fuzz protocol_fuzz submission_fuzz config_fuzz (default: all)
# Caps: -rss_limit_mb=2048 (ASan's own memory included), -malloc_limit_mb=64 (any single
# allocation above 64 MiB from inputs of at most 4 KiB is a bug), -max_len=4096.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
out="$repo/build/fuzz"
seconds=60
runs=0
seed=0
per_message=0
messages=""
build_only=0
no_build=0
targets=()
while (($#)); do
  case "$1" in
    --seconds) seconds="$2"; shift 2 ;;
    --runs) runs="$2"; shift 2 ;;
    --seed) seed="$2"; shift 2 ;;
    --per-message) per_message=1; shift ;;
    --messages) messages="$2"; shift 2 ;;
    --build-only) build_only=1; shift ;;
    --no-build) no_build=1; shift ;;
    --build-dir) out="$2"; shift 2 ;;
    -h | --help) sed -n '2,25p' "$0"; exit 0 ;;
    *) targets+=("$1"); shift ;;
  esac
done
((${#targets[@]})) || targets=(envelope_fuzz protocol_fuzz submission_fuzz config_fuzz)

export CCACHE_BASEDIR="$repo" CCACHE_NOHASHDIR=1
export CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime
if ((!no_build)); then
  if [ ! -f "$out/build.ninja" ]; then
    cmake -S "$repo/tests/fuzz/project" -B "$out" -G Ninja -DCMAKE_CXX_COMPILER=clang++ >/dev/null
  fi
  cmake --build "$out" -j 1
  rm -rf "$out/seeds"
  "$out/seed_writer" "$out/seeds"
  mkdir -p "$out/seeds/config"
  cp "$repo"/configs/*.yaml "$out/seeds/config/"
fi
((build_only)) && exit 0

mkdir -p "$out/artifacts" "$out/logs"
status=0
# run <label> <binary> <corpus name> [extra flags...]
run() {
  local label="$1" bin="$2" corpus="$3"
  shift 3
  mkdir -p "$out/corpus/$corpus"
  local log="$out/logs/$label.log"
  local seeds=()
  [ -d "$out/seeds/$corpus" ] && seeds=("$out/seeds/$corpus")
  local rc=0 budget=(-max_total_time="$seconds")
  ((runs > 0)) && budget=(-runs="$runs")
  "$out/$bin" "${budget[@]}" -seed="$seed" -rss_limit_mb=2048 -malloc_limit_mb=64 -max_len=4096 \
    -print_final_stats=1 -artifact_prefix="$out/artifacts/$label-" "$@" \
    "$out/corpus/$corpus" "${seeds[@]}" >"$log" 2>&1 || rc=$?
  local runs per_s
  runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  per_s=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  if ((rc == 0)); then
    printf '%-28s %12s inputs %8s inputs/s  ok\n' "$label" "${runs:-?}" "${per_s:-?}"
  else
    printf '%-28s %12s inputs %8s inputs/s  FAILED (exit %d, log %s)\n' "$label" "${runs:-?}" \
      "${per_s:-?}" "$rc" "$log"
    grep -m3 -E "ERROR|property violated|runtime error|out-of-memory|malloc" "$log" || true
    status=1
  fi
}

for t in "${targets[@]}"; do
  case "$t" in
    protocol_fuzz)
      if ((per_message)); then
        names=$(ls "$out/seeds/protocol")
        [ -n "$messages" ] && names=${messages//,/ }
        for name in $names; do
          run "protocol_fuzz:$name" protocol_fuzz "protocol_$name" --message="$name"
        done
      else
        run protocol_fuzz protocol_fuzz protocol
      fi
      ;;
    envelope_fuzz) run envelope_fuzz envelope_fuzz envelope ;;
    submission_fuzz) run submission_fuzz submission_fuzz submission ;;
    config_fuzz) run config_fuzz config_fuzz config ;;
    *) echo "run_fuzz: unknown target $t" >&2; exit 2 ;;
  esac
done
exit $status
