#!/usr/bin/env bash
# The README's second command: install the dependencies, check the formatting of the
# sources (tools/check_format.sh, before the build), build, and run every test with
# ctest (units and multi-rank mpirun tests). .ci/run calls exactly this.
set -euo pipefail
repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
bash "$repo/tools/setup.sh" --install-only
bash "$repo/tools/check_format.sh"
bash "$repo/tools/setup.sh"
export OMPI_MCA_mpi_yield_when_idle=1
ctest --test-dir "$repo/build" --output-on-failure -j 2 "$@"
