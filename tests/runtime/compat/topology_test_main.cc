// gtest main of the topology / model-parallel tests (seeds 001 xffl, 002 torchshard):
// initializes MPI itself (so init_dist / shutdown_dist may cycle: the transports then
// leave MPI alone), then the default process group with gfn::compat::init_dist on the backend
// given by --backend=mpi|torch, runs every test on every rank, and returns non-zero on
// every rank if any rank had a failure (so mpirun's exit code reports it).

#include <gtest/gtest.h>
#include <mpi.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "runtime/compat/process_group.h"
#include "tests/runtime/compat/topology_test_env.h"

namespace gfn::compat::topology_testing {
namespace {
std::string g_backend = "mpi";
}  // namespace

const std::string& backend() { return g_backend; }

void init_default_group() {
  InitOptions options;
  options.backend = g_backend;
  options.transport.timeout = transport::Seconds(kTestTimeoutS);
  init_dist(options);
}

}  // namespace gfn::compat::topology_testing

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--backend=", 10) == 0) {
      gfn::compat::topology_testing::g_backend = argv[i] + 10;
    } else {
      std::fprintf(stderr, "unknown argument '%s' (expected --backend=mpi|torch)\n", argv[i]);
      return 2;
    }
  }
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_MULTIPLE, &provided);
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  int any_failed = 0;
  {
    gfn::compat::topology_testing::init_default_group();
    const int local_failed = RUN_ALL_TESTS() != 0 ? 1 : 0;
    MPI_Allreduce(&local_failed, &any_failed, 1, MPI_INT, MPI_MAX, MPI_COMM_WORLD);
    if (any_failed) {
      std::fprintf(stderr, "[rank %d] FAILED: %s\n", rank,
                   local_failed ? "this rank had failures" : "another rank had failures");
    }
    gfn::compat::shutdown_dist();
  }
  MPI_Finalize();
  return any_failed;
}
