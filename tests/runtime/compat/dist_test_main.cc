// gtest main of the multi-rank runtime/distributed tests: initializes the default
// process group with gfn::compat::init_dist on the backend given by --backend=mpi|torch,
// runs every test on every rank, then checks shutdown_dist and that MPI cannot be
// initialized a second time in the process. Returns non-zero on every rank if any rank
// had a failure (so mpirun's exit code reports it).

#include <gtest/gtest.h>

#include <cstdio>
#include <cstring>
#include <string>

#include "runtime/compat/process_group.h"
#include "tests/runtime/compat/dist_test_env.h"

namespace gfn::compat::testing {
namespace {
std::string g_backend = "mpi";
}  // namespace
const std::string& backend() { return g_backend; }
}  // namespace gfn::compat::testing

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  for (int i = 1; i < argc; ++i) {
    if (std::strncmp(argv[i], "--backend=", 10) == 0) {
      gfn::compat::testing::g_backend = argv[i] + 10;
    } else {
      std::fprintf(stderr, "unknown argument '%s' (expected --backend=mpi|torch)\n", argv[i]);
      return 2;
    }
  }
  gfn::compat::InitOptions options;
  options.backend = gfn::compat::testing::g_backend;
  options.transport.timeout = gfn::transport::Seconds(gfn::compat::testing::kTestTimeoutS);
  gfn::compat::init_dist(options);
  const int rank = gfn::compat::get_global_rank();

  int local_failed = RUN_ALL_TESTS() != 0 ? 1 : 0;
  int any_failed = local_failed;
  gfn::compat::world_group().all_reduce(&any_failed, 1, gfn::transport::DType::kInt32,
                                        gfn::transport::ReduceOp::kMax);
  if (any_failed) {
    std::fprintf(stderr, "[rank %d] FAILED: %s\n", rank,
                 local_failed ? "this rank had failures" : "another rank had failures");
  }

  // shutdown_dist finalizes MPI (init_dist initialized it, directly or for the torch
  // bootstrap over mpirun): a second init_dist must then fail with DistInitError.
  gfn::compat::shutdown_dist();
  bool refused = false;
  try {
    gfn::compat::init_dist(options);
  } catch (const gfn::compat::DistInitError& e) {
    refused = std::string(e.what()).find("MPI was finalized") != std::string::npos;
    if (!refused) std::fprintf(stderr, "[rank %d] unexpected message: %s\n", rank, e.what());
  }
  if (!refused || gfn::compat::is_dist_active() || gfn::compat::get_world_size() != 1) {
    std::fprintf(stderr, "[rank %d] FAILED: init_dist after shutdown_dist was not refused\n", rank);
    any_failed = 1;
  }
  return any_failed;
}
