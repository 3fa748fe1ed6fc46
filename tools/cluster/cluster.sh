#!/usr/bin/env bash
# A small cluster on this machine: N nodes, each a network namespace with its own UTS namespace
# (the kernel hostname nodeI), its own address 10.77.0.(I+1)/24 on eth0, and /etc/hosts naming
# every node (ip netns exec binds /etc/netns/<namespace>/hosts). The nodes' links meet on a
# bridge inside a namespace of its own: no interface of the machine is touched, there is no
# default route, no NAT and no forwarding, so no packet leaves the nodes (docs/launchers.md
# "A cluster of network namespaces").
#
#   cluster.sh [--name NAME] up N          create nodes node0..node(N-1) (stale ones of NAME removed first)
#   cluster.sh [--name NAME] down          remove everything NAME made (namespaces, files, mounts)
#   cluster.sh [--name NAME] exec I CMD..  run CMD on node I (its network, hostname and /etc/hosts)
#   cluster.sh [--name NAME] rsh-agent HOST CMD..   Open MPI's plm_rsh_agent: CMD on node HOST
#   cluster.sh [--name NAME] mpirun N ARGS..        up N, then mpirun ARGS from node0 over the
#                                          nodes (hostfile node0..node(N-1), TCP on eth0 between
#                                          nodes, shared memory within one), always down after;
#                                          prints each node's eth0 byte counters at the end
#   cluster.sh [--name NAME] torchrun N K ARGS..    up N, then on every node torchrun --nnodes N
#                                          --nproc_per_node K --rdzv_backend c10d
#                                          --rdzv_endpoint node0:29400 ARGS (Debian's
#                                          python3 -m torch.distributed.run), always down after;
#                                          the byte counters as for mpirun
#   cluster.sh [--name NAME] link I down|up     cut node I's link at the bridge, or restore it
#                                          (a partition, a lost node: docs/launchers.md
#                                          "Network faults")
#   cluster.sh [--name NAME] mpirun-on NODES ARGS..      as mpirun, on the cluster that is up
#   cluster.sh [--name NAME] torchrun-on NODES K ARGS..  as torchrun, on the cluster that is up
#                                          (NODES e.g. 0,1: node0 and node1 only, node0 first);
#                                          neither brings the cluster up nor down
#
# Needs root, iproute2 (ip netns), util-linux (unshare, nsenter); refuses clearly otherwise.
# NAME (default gfnc) prefixes every namespace and file, so two names can coexist; two runs of
# the same name cannot (a test using it runs serially).
set -euo pipefail

name=gfnc
if [ "${1:-}" = "--name" ]; then name=$2; shift 2; fi
run=/run/$name
here=$(cd "$(dirname "$0")" && pwd)

die() { echo "cluster.sh: $*" >&2; exit 2; }

check_can() {
  [ "$(id -u)" -eq 0 ] || die "needs root (network and UTS namespaces); run it as root"
  for tool in ip unshare nsenter mountpoint; do
    command -v "$tool" >/dev/null || die "needs '$tool' (Debian: iproute2, util-linux)"
  done
  ip netns add "$name-probe" 2>/dev/null || die "cannot create a network namespace here" \
    "(ip netns add failed: no CAP_SYS_ADMIN, or the kernel lacks network namespaces)"
  ip netns del "$name-probe"
}

down() {
  local ns
  for ns in $(ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^$name-(sw|n[0-9]+)$" || true); do
    ip netns del "$ns"
  done
  if [ -d "$run" ]; then
    for f in "$run"/uts-*; do [ -e "$f" ] && { umount "$f" 2>/dev/null || true; }; done
    mountpoint -q "$run" && umount "$run"
    rm -rf "$run"
  fi
  rm -rf /etc/netns/"$name"-n*
  rmdir /etc/netns 2>/dev/null || true  # only if nothing else uses it
}

node() {  # node I: its bridge port, its address, its hostname (UTS namespace kept in $run)
  local i=$1 ns=$name-n$1
  ip netns add "$ns"
  ip link add "$name-e$i" type veth peer name "$name-s$i"
  ip link set "$name-e$i" netns "$ns"
  ip link set "$name-s$i" netns "$name-sw"
  ip -n "$name-sw" link set "$name-s$i" master br0 up
  ip -n "$ns" link set "$name-e$i" name eth0
  ip -n "$ns" addr add "10.77.0.$((i + 1))/24" dev eth0
  ip -n "$ns" link set eth0 up
  ip -n "$ns" link set lo up
  touch "$run/uts-n$i"
  unshare --uts="$run/uts-n$i" hostname "node$i"
}

up() {
  local n=$1 i j
  [[ "$n" =~ ^[0-9]+$ ]] && [ "$n" -ge 1 ] && [ "$n" -le 200 ] || die "up: N must be 1..200, got '$n'"
  check_can
  down  # a previous run of this name that died
  mkdir -p "$run"
  mount --bind "$run" "$run"
  mount --make-private "$run"
  ip netns add "$name-sw"
  ip -n "$name-sw" link add br0 type bridge
  ip -n "$name-sw" link set br0 up
  for i in $(seq 0 $((n - 1))); do node "$i"; done
  for i in $(seq 0 $((n - 1))); do
    mkdir -p "/etc/netns/$name-n$i"
    { echo "127.0.0.1 localhost"
      for j in $(seq 0 $((n - 1))); do echo "10.77.0.$((j + 1)) node$j"; done
    } >"/etc/netns/$name-n$i/hosts"
  done
  echo "$n" >"$run/nodes"
}

exec_on() {
  local i=$1
  shift
  [ -e "$run/uts-n$i" ] || die "no node $i (cluster.sh --name $name up N first)"
  exec nsenter --uts="$run/uts-n$i" ip netns exec "$name-n$i" "$@"
}

report_traffic() {  # report_traffic I..: what crossed the bridge, per node
  local i stats
  for i in "$@"; do
    stats=/sys/class/net/eth0/statistics
    echo "cluster.sh: node$i eth0 rx_bytes $(ip netns exec "$name-n$i" cat $stats/rx_bytes)" \
      "tx_bytes $(ip netns exec "$name-n$i" cat $stats/tx_bytes)" >&2
  done
}

nodes_of() {  # nodes_of LIST: the node numbers of "0,1,2", each checked to be up
  local i
  [[ "$1" =~ ^[0-9]+(,[0-9]+)*$ ]] || die "NODES must be like 0,1,2, got '$1'"
  for i in ${1//,/ }; do
    [ -e "$run/uts-n$i" ] || die "no node $i (cluster.sh --name $name up N first)"
    echo "$i"
  done
}

mpirun_on() {  # mpirun_on LIST ARGS: mpirun from the list's first node over its nodes
  local nodes i rc=0
  nodes=$(nodes_of "$1") || exit 2
  shift
  for i in $nodes; do echo "node$i slots=64"; done >"$run/hostfile"
  i=$(head -1 <<<"$nodes")
  nsenter --uts="$run/uts-n$i" ip netns exec "$name-n$i" mpirun --allow-run-as-root \
    --hostfile "$run/hostfile" --mca plm_rsh_agent "$here/cluster.sh --name $name rsh-agent" \
    --mca btl tcp,vader,self --mca btl_tcp_if_include eth0 --mca oob_tcp_if_include eth0 "$@" ||
    rc=$?
  report_traffic $nodes
  return "$rc"
}

cluster_mpirun() {
  local n=$1
  shift
  trap down EXIT INT TERM
  up "$n"
  mpirun_on "$(seq -s, 0 $((n - 1)))" "$@"
}

torchrun_on() {  # torchrun_on LIST K ARGS: torchrun on every node of the list
  local nodes k=$2 n i rc=0
  nodes=$(nodes_of "$1") || exit 2
  shift 2
  n=$(wc -w <<<"$nodes")
  local pids=() on=()
  for i in $nodes; do
    # --redirects 1 --tee 2: torch 1.13's torchrun under Python 3.11 cannot parse its default
    # "0" (Std.from_str finds no zero-valued flag), so stdout goes to its log_dir and stderr,
    # where gfn-train logs, to the console and the log_dir.
    nsenter --uts="$run/uts-n$i" ip netns exec "$name-n$i" /usr/bin/python3 -m \
      torch.distributed.run --nnodes "$n" --nproc_per_node "$k" --rdzv_backend c10d \
      --rdzv_endpoint "node$(head -1 <<<"$nodes"):29400" --rdzv_id "$name" --redirects 1 \
      --tee 2 --log_dir "$run/torchrun-node$i" "$@" &
    pids+=($!) on+=("$i")
  done
  for i in "${!pids[@]}"; do
    wait "${pids[$i]}" || { rc=$?; echo "cluster.sh: torchrun on node${on[$i]} exited with $rc" >&2; }
  done
  report_traffic $nodes
  return "$rc"
}

cluster_torchrun() {
  local n=$1
  shift
  trap down EXIT INT TERM
  up "$n"
  torchrun_on "$(seq -s, 0 $((n - 1)))" "$@"
}

link() {  # link I down|up: node I's port on the bridge
  [ -e "$run/uts-n$1" ] || die "no node $1 (cluster.sh --name $name up N first)"
  [[ "$2" =~ ^(down|up)$ ]] || die "link: down or up, got '$2'"
  ip -n "$name-sw" link set "$name-s$1" "$2"
}

case "${1:-}" in
  up) up "${2:?up N}" ;;
  down) down ;;
  exec) shift; exec_on "${1:?exec I CMD...}" "${@:2}" ;;
  rsh-agent) host=${2:?rsh-agent HOST CMD...}; shift 2; exec_on "${host#node}" /bin/sh -c "$*" ;;
  mpirun) shift; cluster_mpirun "${1:?mpirun N ARGS...}" "${@:2}" ;;
  torchrun) shift; cluster_torchrun "${1:?torchrun N K ARGS...}" "${2:?torchrun N K ARGS...}" "${@:3}" ;;
  mpirun-on) shift; mpirun_on "${1:?mpirun-on NODES ARGS...}" "${@:2}" ;;
  torchrun-on) shift; torchrun_on "${1:?torchrun-on NODES K ARGS...}" "${2:?torchrun-on NODES K ARGS...}" "${@:3}" ;;
  link) link "${2:?link I down|up}" "${3:?link I down|up}" ;;
  *) sed -n '2,32p' "$0" >&2; exit 2 ;;
esac
