#pragma once
// Shared state of the multi-rank tests run by dist_test_main.cc (runtime/compat/,
// runtime/distributed/, roles/trainer/spawn/).

#include <gtest/gtest.h>

#include <string>

#include "runtime/compat/process_group.h"

namespace gfn::compat::testing {

/// Backend the test main passed to init_dist ("mpi" or "torch").
const std::string& backend();

/// Transport timeout (seconds) so a lost message fails instead of hanging.
constexpr double kTestTimeoutS = 30.0;

/// Every test runs on every rank; TearDown keeps the ranks in step.
class DistTest : public ::testing::Test {
 protected:
  int rank() const { return get_global_rank(); }
  int world() const { return get_world_size(); }
  void TearDown() override { safe_barrier(); }
};

}  // namespace gfn::compat::testing
