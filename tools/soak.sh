#!/usr/bin/env bash
# Soak test (docs/testing.md "Soak test"): runs the 4-rank demo layout
# (configs/hypergrid_demo.yaml: 2 trainers, 1 buffer manager, 1 coordinator) under mpirun
# for a given time with async submission and remote sampling, samples every rank's
# resident memory (VmRSS of /proc/<pid>/status) into a CSV, stops the job with SIGTERM
# (the graceful stop of docs/protocol.md "Shutdown and failures": every rank must finish), then checks:
#   - memory is flat: per rank, the median RSS of the last 3 samples exceeds the median
#     of the first 3 samples after the warm-up by less than --max-growth percent;
#   - every item is counted exactly once: the trainers' items_submitted and submissions
#     (summary.json) equal the sums of the managers' items_received and submissions
#     (buffer_manager_<rank>.json), with no TRAINER_EXIT count mismatch and nothing rejected.
# Prints the figures; exit code 0 when every check passes, 1 otherwise, 2 on bad usage.
#
#   tools/soak.sh [--minutes M] [--warmup-minutes W] [--interval S] [--max-growth P]
#                 [--out DIR] [--train PATH] [-- extra gfn-train arguments]
# Defaults: 30 minutes, warm-up 20 % of the run, a sample every 5 s, 5 %, runs/soak,
# build/bin/gfn-train. Minutes may be fractional. Run from the repository root.
set -uo pipefail

minutes=30 warmup="" interval=5 max_growth=5 out=runs/soak train=build/bin/gfn-train
extra=()
usage() { sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --minutes) minutes=$2; shift 2 ;;
    --warmup-minutes) warmup=$2; shift 2 ;;
    --interval) interval=$2; shift 2 ;;
    --max-growth) max_growth=$2; shift 2 ;;
    --out) out=$2; shift 2 ;;
    --train) train=$2; shift 2 ;;
    --) shift; extra=("$@"); break ;;
    -h | --help) usage ;;
    *) echo "soak.sh: unknown argument '$1'" >&2; usage ;;
  esac
done
is_number() { [[ "$1" =~ ^[0-9]+([.][0-9]+)?$ ]]; }
for v in "$minutes" "$interval" "$max_growth" ${warmup:+"$warmup"}; do
  is_number "$v" || { echo "soak.sh: '$v' is not a non-negative number" >&2; exit 2; }
done
[ -x "$train" ] || { echo "soak.sh: $train is not an executable (build first)" >&2; exit 2; }
[ -n "$warmup" ] || warmup=$(awk -v m="$minutes" 'BEGIN { print m / 5 }')
run_s=$(awk -v m="$minutes" 'BEGIN { printf "%d", m * 60 }')
warmup_s=$(awk -v m="$warmup" 'BEGIN { printf "%d", m * 60 }')
if [ "$warmup_s" -ge "$run_s" ]; then
  echo "soak.sh: the warm-up ($warmup min) must be shorter than the run ($minutes min)" >&2
  exit 2
fi

rm -rf "$out"
mkdir -p "$out"
log="$out/soak.log"
csv="$out/rss.csv"
export OMPI_MCA_mpi_yield_when_idle=1
mpirun --allow-run-as-root --oversubscribe --bind-to none -np 4 "$train" \
  --config configs/hypergrid_demo.yaml --set train.n_trajectories=1000000000000 \
  --set buffer.submit_mode=async --set buffer.remote_sample_fraction=0.25 \
  --set buffer.remote_sampler=prioritized --set validation.enabled=false \
  --set output.log_every=1000 --set output.progress=lines --set output.progress_every_s=60 \
  --set output.dir="$out" "${extra[@]}" >"$log" 2>&1 &
launcher=$!
train_exe=$(readlink -f "$train")
cleanup() { kill -0 "$launcher" 2>/dev/null && kill -KILL "$launcher" 2>/dev/null; }
trap cleanup EXIT

# The ranks' pids: mpirun's descendants running gfn-train, rank from Open MPI's variable.
declare -A pid_of=()
find_ranks() {
  local p kids=() queue=("$launcher")
  while [ ${#queue[@]} -gt 0 ]; do
    p=${queue[0]}
    queue=("${queue[@]:1}")
    for c in $(ps -o pid= --ppid "$p" 2>/dev/null); do queue+=("$c"); kids+=("$c"); done
  done
  for p in "${kids[@]}"; do
    [ "$(readlink "/proc/$p/exe" 2>/dev/null)" = "$train_exe" ] || continue
    local r
    r=$(tr '\0' '\n' <"/proc/$p/environ" 2>/dev/null | sed -n 's/^OMPI_COMM_WORLD_RANK=//p')
    [ -n "$r" ] && pid_of[$r]=$p
  done
}
for _ in $(seq 1 120); do
  find_ranks
  [ ${#pid_of[@]} -eq 4 ] && break
  kill -0 "$launcher" 2>/dev/null || break
  sleep 0.5
done
if [ ${#pid_of[@]} -ne 4 ]; then
  echo "FAIL: found ${#pid_of[@]} of 4 ranks"; tail -30 "$log"; exit 1
fi

echo "elapsed_s,rank,pid,rss_kb" >"$csv"
start=$(date +%s.%N)
elapsed=0
echo "soak: ${minutes} min (warm-up ${warmup} min), RSS every ${interval} s -> $csv"
while awk -v e="$elapsed" -v r="$run_s" 'BEGIN { exit !(e < r) }'; do
  kill -0 "$launcher" 2>/dev/null || { echo "FAIL: the job ended early"; tail -30 "$log"; exit 1; }
  elapsed=$(awk -v s="$start" -v n="$(date +%s.%N)" 'BEGIN { printf "%.1f", n - s }')
  for r in 0 1 2 3; do
    rss=$(awk '/^VmRSS:/ { print $2 }' "/proc/${pid_of[$r]}/status" 2>/dev/null)
    [ -n "$rss" ] && echo "$elapsed,$r,${pid_of[$r]},$rss" >>"$csv"
  done
  sleep "$interval"
done

kill -TERM "$launcher"
for _ in $(seq 1 240); do kill -0 "$launcher" 2>/dev/null || break; sleep 0.5; done
if kill -0 "$launcher" 2>/dev/null; then
  echo "FAIL: the job did not stop within 120 s of SIGTERM"; tail -30 "$log"; exit 1
fi
wait "$launcher"  # mpirun's own code after a forwarded SIGTERM is not the ranks': see below
fail=0
for done_line in "buffer manager done" "coordinator done" "wrote $out/summary.json"; do
  grep -qF "$done_line" "$log" || { echo "FAIL: no '$done_line' in $log"; fail=1; }
done
if grep -q "\[critical\]" "$log"; then
  echo "FAIL: a rank failed:"; grep "\[critical\]" "$log"; fail=1
fi

# Memory: per rank, first samples after the warm-up vs the last samples.
echo "rank  rss_after_warmup_kb  rss_end_kb  peak_kb  growth_%  samples"
for r in 0 1 2 3; do
  line=$(awk -F, -v r="$r" -v w="$warmup_s" '
    function median3(a, b, c) { return a < b ? (b < c ? b : (a < c ? c : a)) : (a < c ? a : (b < c ? c : b)) }
    NR > 1 && $2 == r && $1 >= w { v[n++] = $4; if ($4 > peak) peak = $4 }
    END {
      if (n < 6) { print "too_few " n; exit }
      first = median3(v[0], v[1], v[2]); last = median3(v[n - 3], v[n - 2], v[n - 1])
      printf "%d %d %d %.2f %d\n", first, last, peak, 100 * (last - first) / first, n
    }' "$csv")
  read -r first last peak growth n <<<"$line"
  if [ "$first" = too_few ]; then
    echo "FAIL: rank $r has only $last samples after the warm-up (need 6)"; fail=1; continue
  fi
  printf "%4d  %19d  %10d  %7d  %8s  %7d\n" "$r" "$first" "$last" "$peak" "$growth" "$n"
  if awk -v g="$growth" -v m="$max_growth" 'BEGIN { exit !(g >= m) }'; then
    echo "FAIL: rank $r grew by $growth % after the warm-up (limit $max_growth %)"; fail=1
  fi
done

# Exactly once: the trainers' counts against the managers'.
summary="$out/summary.json"
if [ ! -f "$summary" ]; then
  echo "FAIL: no $summary"; exit 1
fi
submitted=$(jq '.items_submitted' "$summary")
submissions=$(jq '.submissions' "$summary")
received=$(jq -s 'map(.items_received) | add' "$out"/buffer_manager_*.json)
manager_submissions=$(jq -s 'map(.submissions) | add' "$out"/buffer_manager_*.json)
mismatches=$(jq -s 'map(.exit_mismatches + .rejected_messages) | add' "$out"/buffer_manager_*.json)
served=$(jq -s 'map(.samples_served) | add' "$out"/buffer_manager_*.json)
echo "iterations $(jq '.iterations' "$summary"), stopped_by_signal $(jq '.stopped_by_signal' "$summary")"
echo "items: submitted by trainers $submitted, received by managers $received;" \
  "DATA messages $submissions vs $manager_submissions; remote samples served $served," \
  "trained on $(jq '.remote_items_trained' "$summary")"
[ "$submitted" -gt 0 ] 2>/dev/null || { echo "FAIL: nothing was submitted"; fail=1; }
[ "$submitted" = "$received" ] || { echo "FAIL: items submitted != items received"; fail=1; }
[ "$submissions" = "$manager_submissions" ] || { echo "FAIL: DATA counts differ"; fail=1; }
[ "$mismatches" = 0 ] || { echo "FAIL: $mismatches TRAINER_EXIT mismatches / rejected messages"; fail=1; }
[ "$served" -gt 0 ] 2>/dev/null || { echo "FAIL: no remote sample was served"; fail=1; }
[ "$(jq '.stopped_by_signal' "$summary")" = true ] || { echo "FAIL: not stopped by the signal"; fail=1; }
if [ $fail -ne 0 ]; then echo "soak: FAILED"; exit 1; fi
echo "soak: OK"
