// coordinator_options: the coordinator's options from the experiment.
#include <gtest/gtest.h>

#include "roles/coordinator/coordinator.h"

namespace gfn::roles {
namespace {

TEST(CoordinatorOptionsFromConfig, TakeTheBaselineFields) {
  roles::ExperimentConfig config;
  config.transport.timeout_s = 9.0;
  config.buffer.baseline_aggregate = roles::BaselineAggregate::kMean;
  config.buffer.baseline_sync = false;
  config.buffer.baseline_tolerance = 0.5;
  const auto options = coordinator_options(config);
  EXPECT_DOUBLE_EQ(options.idle_timeout_s, 9.0);
  EXPECT_EQ(options.baseline_aggregate, roles::BaselineAggregate::kMean);
  EXPECT_FALSE(options.sync_baselines);
  EXPECT_DOUBLE_EQ(options.baseline_tolerance, 0.5);
}

TEST(CoordinatorOptionsFromConfig, Defaults) {
  const auto options = coordinator_options(roles::ExperimentConfig{});
  EXPECT_EQ(options.baseline_aggregate, roles::BaselineAggregate::kMin);
  EXPECT_TRUE(options.sync_baselines);
}

}  // namespace
}  // namespace gfn::roles
