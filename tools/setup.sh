#!/usr/bin/env bash
# Installs gfn-runtime's dependencies (Debian 12 packages) if any is missing, then
# configures and builds the project into build/ (Release, Ninja, ccache, -j2).
# Idempotent: a second run only rebuilds what changed. Used by run_demo.sh and
# run_tests.sh (the README's two commands) and by .ci/run. With --install-only it
# installs and stops before the build (run_tests.sh checks formatting in between); with
# --target T it builds only T and what T needs (run_demo.sh: gfn-train).
set -euo pipefail
install_only=0
target=()
case "${1:-}" in
  --install-only) install_only=1 ;;
  --target) target=(--target "$2") ;;
esac
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"

packages=(g++ cmake ninja-build ccache libtorch-dev libgloo-dev libopenblas0-pthread
  libopenmpi-dev openmpi-bin libcereal-dev libspdlog-dev libfmt-dev libboost-dev
  libyaml-cpp-dev libcli11-dev zlib1g-dev libgtest-dev libgmock-dev nlohmann-json3-dev libdnnl-dev ocl-icd-opencl-dev libnanoflann-dev librapidcheck-dev
  clang-format clang libclang-rt-14-dev python3-matplotlib python3-yaml python3-torch python3-scipy python3-dill jq pmccabe
  python3-pot   # tools/gfn-sample-metrics: exact 2-Wasserstein (POT, ot.emd2)
  python3-tqdm  # tools/quality-vs-torchgfn.py: torchgfn's tutorial scripts import tqdm
  python3-dev pybind11-dev   # runtime/python: the embedded CPython (libpython3.11, pybind11)
  iproute2 util-linux procps   # tools/cluster (ip netns, unshare/nsenter/setpriv, pgrep)
  slurmctld slurmd slurm-client munge)  # tools/cluster/slurm.sh (a Slurm cluster on the nodes)
missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo_cmd=()
  [ "$(id -u)" -eq 0 ] || sudo_cmd=(sudo)
  "${sudo_cmd[@]}" apt-get update -q
  DEBIAN_FRONTEND=noninteractive "${sudo_cmd[@]}" apt-get install -y -q --no-install-recommends \
    "${missing[@]}"
fi

if ((install_only)); then exit 0; fi

# ccache across checkouts (CI builds in a fresh clone every time).
export CCACHE_BASEDIR="$repo" CCACHE_NOHASHDIR=1
export CCACHE_SLOPPINESS=pch_defines,time_macros,include_file_mtime,include_file_ctime

build="$repo/build"
if [ ! -f "$build/build.ninja" ]; then
  cmake -S "$repo" -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release
fi
cmake --build "$build" -j 2 "${target[@]}"
