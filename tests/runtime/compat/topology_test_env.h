#pragma once
// Shared state of the multi-rank topology / model-parallel tests (topology_test_main.cc).

#include <gtest/gtest.h>

#include <string>

#include "runtime/compat/process_group.h"

namespace gfn::compat::topology_testing {

/// Backend given by --backend=mpi|torch.
const std::string& backend();

/// Transport timeout (seconds) so that a lost message fails instead of hanging.
constexpr double kTestTimeoutS = 30.0;

/// Initializes the default process group on backend() (the test main MPI-initializes the
/// process first, so the world can be shut down and initialized again).
void init_default_group();

/// Every test runs on every rank; the default process group is active at the start and
/// the end of each test, and TearDown keeps the ranks in step.
class TopologyTest : public ::testing::Test {
 protected:
  int rank() const { return default_transport().rank(); }
  int world() const { return default_transport().world_size(); }
  void TearDown() override {
    if (!is_dist_active()) init_default_group();
    world_group().barrier();
  }
};

}  // namespace gfn::compat::topology_testing
