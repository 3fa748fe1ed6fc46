#!/usr/bin/env bash
# A real Slurm 22.05 cluster on the namespace nodes of cluster.sh (docs/launchers.md "Real Slurm
# on namespace nodes"): slurmctld on node0, a slurmd on every node (each finds its NodeName from
# its kernel hostname nodeI), munged for authentication. Everything lives under /run/NAME (the
# cluster's own directory, removed by `down`): slurm.conf (SLURM_CONF), the munge key and
# socket, state, spool directories and logs; nothing is written to /etc or /var.
#
#   slurm.sh [--name NAME] up N [CPUS]   cluster.sh up N, then munged, slurmctld and the slurmds;
#                                        waits until sinfo shows N idle nodes of CPUS (default 4)
#                                        CPUs each (more than the machine has: config_overrides)
#   slurm.sh [--name NAME] exec I CMD..  CMD on node I with SLURM_CONF set (sbatch, squeue, ...;
#                                        the controller is reachable from the nodes only)
#   slurm.sh [--name NAME] logs DIR      copy the daemons' logs to DIR
#   slurm.sh [--name NAME] down          stop every process in the nodes and munged, then
#                                        cluster.sh down (also the stale daemons of a dead run)
#
# No cgroups in the namespaces: proctrack/linuxproc follows a job's processes by parent pid,
# task/none binds nothing. Jobs run as the submitting user (root here: Open MPI then needs
# OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1, passed on by sbatch's --export=ALL).
# NAME defaults to gfns; one run of a name at a time.
set -euo pipefail

name=gfns
if [ "${1:-}" = "--name" ]; then name=$2; shift 2; fi
here=$(cd "$(dirname "$0")" && pwd)
run=/run/$name
dir=$run/slurm
cluster=(bash "$here/cluster.sh" --name "$name")

die() { echo "slurm.sh: $*" >&2; exit 2; }

write_conf() {  # write_conf N CPUS
  local last=$(($1 - 1))
  cat >"$dir/slurm.conf" <<EOF
ClusterName=$name
SlurmctldHost=node0
SlurmUser=root
AuthType=auth/munge
CredType=cred/munge
# cred_expire also delays a requeued job's restart (cred_expire + 1 s; default 120 s).
AuthInfo=socket=$dir/munge/munge.socket.2,cred_expire=10
StateSaveLocation=$dir/state
SlurmdSpoolDir=$dir/spool/%n
SlurmctldPidFile=$dir/slurmctld.pid
SlurmdPidFile=$dir/slurmd-%n.pid
SlurmctldLogFile=$dir/log/slurmctld.log
SlurmdLogFile=$dir/log/slurmd-%n.log
SlurmdParameters=config_overrides
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/linear
SchedulerType=sched/builtin
# A pass over the pending jobs every 2 s (default 60): a requeued job starts once eligible.
SchedulerParameters=sched_interval=2
MpiDefault=none
ReturnToService=2
JobRequeue=1
MinJobAge=600
KillWait=30
InactiveLimit=0
NodeName=node[0-$last] CPUs=$2 State=UNKNOWN
PartitionName=debug Nodes=node[0-$last] Default=YES MaxTime=INFINITE State=UP
EOF
  # slurmd initialises a cgroup plugin whatever the other plugins: autodetect finds no cgroup
  # filesystem in a node (ip netns exec mounts a fresh /sys), the v1 plugin loads regardless
  # and is never used (proctrack/linuxproc, task/none).
  echo "CgroupPlugin=cgroup/v1" >"$dir/cgroup.conf"
}

start_munge() {
  # munged (user munge) wants its key private and its socket's directory open to all.
  mkdir -p "$dir/munge/key"
  dd if=/dev/urandom of="$dir/munge/key/munge.key" bs=1024 count=1 status=none
  chmod 755 "$dir/munge"
  chmod 700 "$dir/munge/key"
  chmod 400 "$dir/munge/key/munge.key"
  chown -R munge:munge "$dir/munge"
  setpriv --reuid=munge --regid=munge --init-groups munged --socket="$dir/munge/munge.socket.2" \
    --key-file="$dir/munge/key/munge.key" --pid-file="$dir/munge/munged.pid" \
    --log-file="$dir/munge/munged.log" --seed-file="$dir/munge/munged.seed" ||
    die "munged did not start: $(cat "$dir/munge/munged.log" 2>/dev/null)"
}

on_node() {  # on_node I CMD..: CMD on node I with this cluster's slurm.conf
  local i=$1
  shift
  SLURM_CONF=$dir/slurm.conf "${cluster[@]}" exec "$i" "$@"
}

wait_idle() {  # wait_idle N: until sinfo shows N idle nodes (60 s at most)
  local idle
  for _ in $(seq 120); do
    idle=$(on_node 0 sinfo -h -N -t idle -o %N 2>/dev/null | sort -u | wc -l) || idle=0
    [ "$idle" -ge "$1" ] && return 0
    sleep 0.5
  done
  on_node 0 sinfo -N -l >&2 || true
  die "only $idle of $1 nodes idle after 60 s (logs: $dir/log)"
}

up() {
  local n=$1 cpus=${2:-4} i tool
  for tool in slurmctld slurmd sbatch munged; do
    command -v "$tool" >/dev/null ||
      die "needs '$tool' (Debian packages slurmctld, slurmd, slurm-client, munge)"
  done
  trap 'down' EXIT  # a failed start leaves nothing behind
  down_daemons
  "${cluster[@]}" up "$n"
  mkdir -p "$dir/state" "$dir/log"
  for i in $(seq 0 $((n - 1))); do mkdir -p "$dir/spool/node$i"; done
  write_conf "$n" "$cpus"
  start_munge
  on_node 0 slurmctld -c || die "slurmctld did not start: $(tail -5 "$dir/log/slurmctld.log")"
  for i in $(seq 0 $((n - 1))); do
    # Each node its own /tmp, as real nodes have: the PMIx plugin makes /tmp/spmix_appdir_<uid>_
    # <job>.<step> on every node of a step ("File exists" on a shared /tmp). The bind mount
    # stays inside the node's mount namespace (ip netns exec makes one).
    mkdir -p "$dir/tmp/node$i"
    chmod 1777 "$dir/tmp/node$i"
    on_node "$i" sh -c "mount --bind '$dir/tmp/node$i' /tmp && exec slurmd -c" ||
      die "slurmd on node$i did not start: $(tail -5 "$dir/log/slurmd-node$i.log")"
  done
  wait_idle "$n"
  trap - EXIT
  echo "slurm.sh: $n nodes idle (SLURM_CONF=$dir/slurm.conf;" \
    "slurm.sh --name $name exec 0 sbatch ...)"
}

nodes() { ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^$name-n[0-9]+$" || true; }

down_daemons() {  # every process inside the nodes (daemons, job steps), then munged
  local ns pids=() more=() pid
  for ns in $(nodes); do
    read -ra pids <<<"$(ip netns pids "$ns" 2>/dev/null | tr '\n' ' ')"
    if ((${#pids[@]})); then kill -TERM "${pids[@]}" 2>/dev/null || true; fi
  done
  for _ in $(seq 50); do  # 10 s for the daemons and job steps to end, then SIGKILL
    pids=()
    for ns in $(nodes); do
      read -ra more <<<"$(ip netns pids "$ns" 2>/dev/null | tr '\n' ' ')"
      pids+=("${more[@]}")
    done
    ((${#pids[@]})) || break
    sleep 0.2
  done
  if ((${#pids[@]})); then kill -KILL "${pids[@]}" 2>/dev/null || true; fi
  if [ -f "$dir/munge/munged.pid" ]; then
    pid=$(cat "$dir/munge/munged.pid")
    if [ "$(cat "/proc/$pid/comm" 2>/dev/null)" = munged ]; then kill -TERM "$pid"; fi
  fi
}

down() {
  down_daemons
  "${cluster[@]}" down
}

case "${1:-}" in
  up) up "${2:?up N [CPUS]}" "${3:-4}" ;;
  exec) shift; on_node "${1:?exec I CMD...}" "${@:2}" ;;
  logs) mkdir -p "${2:?logs DIR}"
    cp -r "$dir/log/." "$dir/munge/munged.log" "$2/" 2>/dev/null || true ;;
  down) down ;;
  *) sed -n '2,22p' "$0" >&2; exit 2 ;;
esac
