# Sourced by the network-fault tests of tools/cluster/cluster.sh (run_partition_e2e.sh,
# run_lost_node_e2e.sh), after they set `out` (the test's directory): brings in
# restart_helpers.sh and defines `fail` (the message, then the end of $out/run.log; exit 1).

# shellcheck source=../restart_helpers.sh
source "$(dirname "${BASH_SOURCE[0]}")/../restart_helpers.sh"
fail() { echo "FAILED: $*"; tail -30 "$out/run.log"; exit 1; }

# `cluster`: the command of the tests' cluster, named gfnf.
cluster=(bash "$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)/tools/cluster/cluster.sh"
         --name gfnf)

#   up_fault_cluster OUT_DIR
# OUT_DIR emptied, and the cluster's three nodes up (removed again when the test exits).
up_fault_cluster() {
  rm -rf "$1"
  mkdir -p "$1"
  trap '"${cluster[@]}" down' EXIT
  "${cluster[@]}" up 3 || fail "cluster up"
}

#   ranks_on_node LOG NODE
# the ranks the run's layout table (" rank  host  role ...", the first one in LOG; torchrun's
# "[defaultK]:" prefixes dropped) places on host NODE, one per line.
ranks_on_node() {
  sed -E 's/^\[default[0-9]+\]://' "$1" |
    awk -v node="$2" '/^ rank +host +role/ {t++; next} t == 1 && NF == 0 {t++} t == 1 && $2 == node {print $1}'
}

#   failures_after LOG HH:MM:SS.mmm
# the "[critical]" lines of gfn-train in LOG stamped at or after the time, "[defaultK]:" dropped.
failures_after() {
  sed -E 's/^\[default[0-9]+\]://' "$1" | grep '\[critical\]' |
    awk -v t="$2" 'substr($1, 2, 12) >= t'
}

#   expect_fault_named LOG CUT_TIME "RANKS" BOUND_S
# at least one gfn-train rank failed within BOUND_S seconds of CUT_TIME (HH:MM:SS.mmm) with a
# message naming a rank across the cut: one of RANKS (those cut off) named by a rank
# elsewhere, or a rank elsewhere named by one of RANKS. Prints the first such line and the
# seconds to it; `fail` if none.
expect_fault_named() {
  local log=$1 cut=$2 lost=" $3 " bound=$4 line
  [ "$lost" != "  " ] || fail "no rank cut off"
  line=$(failures_after "$log" "$cut" | python3 -c '
import re, sys
lost = set(int(r) for r in sys.argv[1].split())
cut = sys.argv[2]; bound = float(sys.argv[3])
def secs(t):
    h, m, s = t.split(":")
    return int(h) * 3600 + int(m) * 60 + float(s)
for line in sys.stdin:
    m = re.match(r"\[([0-9:.]+)\] \[rank (\d+) ", line)
    if not m:
        continue
    me = int(m.group(2))
    after = secs(m.group(1)) - secs(cut)
    if after > bound:
        continue
    text = line.split("failed:", 1)[-1]
    named = set()
    for group in re.findall(r"rank\(s\) ([0-9, ]+)", text) + re.findall(r"rank (\d+)", text):
        named |= set(int(x) for x in re.findall(r"\d+", group))
    named.discard(me)
    if (me in lost and named - lost) or (me not in lost and named & lost):
        print(f"{after:.1f} s after the cut: {line.strip()[:300]}")
        break
' "$lost" "$cut" "$bound")
  [ -n "$line" ] || fail "no rank named a rank across the cut (ranks$lost) within $bound s"
  echo "named: $line"
}

#   manager_counts RUN_DIR / coordinator_modes LOG
# what the buffer managers counted (items, submissions, trajectories; buffer_manager_<r>.json)
# and the modes the coordinator found, to compare a run with its reference.
manager_counts() {
  jq -c '{items_received, submissions, trajectories_received, exit_mismatches}' \
    "$1"/buffer_manager_*.json
}
coordinator_modes() {
  grep -o 'coordinator done .*: [0-9]* modes found' "$1" | tail -1 | grep -o '[0-9]* modes'
}

#   expect_same_counts REF_DIR REF_LOG RUN_DIR RUN_LOG
# the managers' counts and the coordinator's modes of the run equal the reference's; `fail` if not.
expect_same_counts() {
  local a b c d
  a=$(manager_counts "$1") b=$(manager_counts "$3")
  [ -n "$a" ] && [ "$a" = "$b" ] || fail "manager counts: $b after the fault, $a without"
  c=$(coordinator_modes "$2") d=$(coordinator_modes "$4")
  [ -n "$c" ] && [ "$c" = "$d" ] || fail "coordinator modes: $d after the fault, $c without"
  echo "as without the fault: coordinator $d, manager counts $(echo "$b" | tr '\n' ' ')"
}
